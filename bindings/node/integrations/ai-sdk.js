// toolerr/integrations/ai-sdk: toolerr inside the Vercel AI SDK (npm install ai).
//
//   import { tool } from 'toolerr/integrations/ai-sdk';
//   const tools = { search: tool({ name: 'search', description, inputSchema, execute, executor: new Executor() }) };
//   await generateText({ model, tools, stopWhen: stepCountIs(5), prompt });
//
// The AI SDK sends a tool's thrown error to the model as `error-text` output
// holding error.message (the tool's raw text). toolerr's tool() answers a
// failure with the envelope as the tool's output and maps it, in
// toModelOutput, to `error-json` output whose value is the envelope, so each
// provider package flags the failure its own way: @ai-sdk/anthropic sets
// is_error on the tool_result, @ai-sdk/google writes functionResponse.response
// {name, error: envelope}, @ai-sdk/openai a tool message {"error": envelope}
// (measured in bindings/node/test-frameworks/ai_sdk.test.mjs, docs/frameworks.md).
// A result counts as a failure when the core recognizes it as toolerr's
// envelope (isEnvelope), so the flag survives a round trip through UI
// messages (convertToModelMessages) too.
//
// See https://ai-sdk.dev/docs/ai-sdk-core/tools-and-tool-calling
// (ToolResultOutput, toModelOutput) and @ai-sdk/provider-utils tool().

import { argsEnvelope, cleanEnvelope, envelopeOf, guard, isEnvelope, missing } from './common.js';

const ai = await import('ai').catch((e) => { throw missing('ai', e); });

/**
 * Returns an AI SDK tool (ai's tool()) whose failures reach the model as
 * `error-json` output carrying the envelope. def is tool()'s definition
 * (description, inputSchema, execute, toModelOutput, ...) plus name (the
 * tool's key in your tools object, which the AI SDK does not pass to
 * execute; it names the tool in the envelope) and executor (a toolerr
 * Executor): with one, each call of execute runs under the runtime, so
 * retryable failures are retried before the model sees anything. The
 * executor's calls end when the step's abortSignal aborts. A failed call
 * resolves to the envelope as the tool's output (what onStepFinish and UI
 * messages show); a success goes to def.toModelOutput, or the AI SDK's
 * default (text for a string, JSON otherwise). Input that fails
 * def.inputSchema is answered with INVALID_ARGS naming each field (Zod
 * issues in the neutral form of docs/args.md), not the SDK's own error-text:
 * the SDK is handed the same JSON Schema and execute validates.
 */
export function tool({ name, executor, ...def }) {
  const guarded = guard(def.execute, name, executor, { signalOf: (args) => args[1]?.abortSignal });
  const own = def.toModelOutput;
  // The SDK validates the input before execute and sends a failure as its own
  // error-text (the validator's dump, the rejected value included); so the
  // SDK is given the same JSON Schema with a validation that accepts, and
  // execute validates with the tool's schema, a failure becoming INVALID_ARGS.
  const schema = def.inputSchema === undefined ? undefined : ai.asSchema(def.inputSchema);
  const inputSchema = schema && ai.jsonSchema(() => schema.jsonSchema, { validate: (value) => ({ success: true, value }) });
  return ai.tool({
    ...def,
    ...(inputSchema ? { inputSchema } : {}),
    async execute(input, options) {
      if (schema?.validate) {
        const r = await schema.validate(input);
        if (!r.success) return cleanEnvelope(argsEnvelope(r.error, name));
        input = r.value;
      }
      try {
        return await guarded(input, options);
      } catch (e) {
        return cleanEnvelope(e.envelope ?? await envelopeOf(e, name));
      }
    },
    toModelOutput(args) {
      if (isEnvelope(args.output)) return { type: 'error-json', value: args.output };
      if (own) return own(args);
      return typeof args.output === 'string' ? { type: 'text', value: args.output } : { type: 'json', value: args.output ?? null };
    },
  });
}

/**
 * Returns the ToolResultOutput for a failure: `error-json` with the
 * envelope of error (a thrown error, a fetch Response, a ToolFailure),
 * for a toModelOutput or a tool result you build yourself.
 */
export async function errorOutput(error, name) {
  return { type: 'error-json', value: cleanEnvelope(await envelopeOf(error, name)) };
}
