// toolerr/integrations/openai-agents: toolerr inside the OpenAI Agents SDK
// for JavaScript (npm install @openai/agents). Two hooks, used together or
// apart:
//
//   import { tool, errorFunction } from 'toolerr/integrations/openai-agents';
//   tool({ name: 'search', parameters, execute, executor: new Executor() }); // the envelope, retries by the runtime
//   agents.tool({ name, parameters, execute, errorFunction });              // the envelope only
//
// The SDK calls a function tool's errorFunction with what the tool threw and
// sends the string it returns to the model as the tool's output (the
// Responses function_call_output.output, the Chat Completions tool message
// content). toolerr's returns the envelope's canonical JSON instead of the
// SDK's defaultToolErrorFunction text, "An error occurred while running the
// tool. Please try again.", which tells the model to repeat a call that can
// never succeed.
//
// See https://openai.github.io/openai-agents-js/guides/tools/#function-tools
// (errorFunction) and @openai/agents-core ToolErrorFunction.

import { argsEnvelope, envelopeOf, envelopeText, guard, missing } from './common.js';

const agents = await import('@openai/agents').catch((e) => { throw missing('@openai/agents', e); });

/**
 * The SDK's ToolErrorFunction: resolves to the text the model reads for a
 * failed function tool, the envelope's JSON. context is the RunContext;
 * error is what the tool threw; details.toolCall.name names the tool in the
 * envelope. An SDK or fetch status error (or a thrown fetch Response) is
 * classified from its status, headers and body, a ToolFailure keeps its
 * envelope, the SDK's ModelBehaviorError (its InvalidToolInputError: arguments that are not JSON or
 * fail the tool's schema) becomes INVALID_ARGS (naming each field when the
 * SDK keeps the Zod error, OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0; by default it
 * drops it and the envelope names the arguments as a whole), and any other
 * error becomes TOOL_ERROR (or TIMEOUT, TRANSPORT), never its raw text.
 */
export function errorFunction(context, error, details) {
  return failureText(error, details?.toolCall?.name);
}

async function failureText(error, name) {
  if (error instanceof agents.ModelBehaviorError) return envelopeText(argsEnvelope(error, name));
  return envelopeText(await envelopeOf(error, name));
}

/**
 * agents.tool with toolerr's errorFunction. options are agents.tool's (name,
 * description, parameters, execute, strict, timeoutMs, ...) plus executor (a
 * toolerr Executor): with one, every call of execute runs under the runtime,
 * so retryable failures (a 503, a timeout, a reset connection) are retried
 * with full jitter before the model sees anything, the breaker, budget and
 * loop guard apply, and only the final failure reaches errorFunction. An
 * errorFunction among options replaces toolerr's. Returns an agents
 * FunctionTool.
 */
export function tool({ executor, ...options }) {
  const name = options.name ?? options.execute?.name;
  return agents.tool({
    // The SDK withholds details (the tool call) for refused arguments, so the name comes from here.
    errorFunction: (context, error, details) => failureText(error, details?.toolCall?.name ?? name),
    ...options,
    name,
    execute: guard(options.execute, name, executor, { signalOf: (args) => args[2]?.signal }),
  });
}
