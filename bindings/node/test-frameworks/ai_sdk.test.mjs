// toolerr/integrations/ai-sdk on the AI SDK's own tool loop (generateText with
// stopWhen), with @ai-sdk/anthropic, @ai-sdk/openai and @ai-sdk/google sending
// real requests to the loopback provider, and the AI SDK's own mock model
// where the point is the SDK's behaviour.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { convertToModelMessages, generateText, stepCountIs, tool as aiTool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import * as toolerr from 'toolerr';
import { errorOutput, tool } from 'toolerr/integrations/ai-sdk';
import { FIVE, envelopeIn, runExample, searchFn, serve } from './loopback.mjs';

const inputSchema = z.object({ q: z.string(), max_results: z.number() });
const description = 'Search for flights.';
let lb;
beforeEach(async () => { lb = await serve(); });
afterEach(() => lb.close());

const anthropic = () => createAnthropic({ baseURL: `${lb.url}/v1`, apiKey: 'sk-ant-test' })('claude-sonnet-4-5');
const executor = () => new toolerr.Executor({ retry: { max_attempts: 3, base_ms: 1, cap_ms: 2 }, draw: () => 0.5 });
const ask = (model, search, steps = 6) => generateText({ model, tools: { search }, stopWhen: stepCountIs(steps), prompt: 'Flights to Lisbon?', maxRetries: 0 });

/** Every tool_result block of the last Anthropic request. */
const toolResults = () => lb.modelRequests('anthropic').at(-1).messages.filter((m) => m.role === 'user' && Array.isArray(m.content))
  .flatMap((m) => m.content).filter((b) => b.type === 'tool_result');

test('before toolerr: a thrown error reaches Claude as error-text, its raw message, and the agent loops', async () => {
  const result = await ask(anthropic(), aiTool({ description, inputSchema, execute: searchFn(lb) }));
  assert.equal(result.steps.length, 6); // stopped by stepCountIs, never by the model
  const results = toolResults();
  assert.equal(results.length, 5);
  assert.ok(results.every((b) => b.is_error === true)); // @ai-sdk/anthropic flags error-text
  assert.match(results[0].content, /^Error: search failed: HTTP 503 \{"error":"search backend unavailable"\} \(http:\/\/127\.0\.0\.1:\d+\/search\?q=flights&max_results=500\)$/);
  assert.match(results[4].content, /^Error: search failed: HTTP 400 /);
  assert.equal(lb.searches().length, 6);
});

test('Anthropic: is_error true with the envelope, and the agent stops after the 400', async () => {
  const result = await ask(anthropic(), tool({ name: 'search', description, inputSchema, execute: searchFn(lb) }));
  assert.equal(result.text, 'stopped: INVALID_ARGS');
  const results = toolResults();
  assert.ok(results.every((b) => b.is_error === true));
  const sent = results.map((b) => JSON.parse(b.content));
  assert.deepEqual(sent.map((e) => [e.code, e.retryable, e.details.status, e.details.tool]),
    [['TRANSPORT', true, 503, 'search'], ['TRANSPORT', true, 503, 'search'], ['INVALID_ARGS', false, 400, 'search']]);
  for (const e of sent) assert.deepEqual(Object.keys(e).sort(), FIVE);
  assert.equal(results[2].content, toolerr.canonicalize(sent[2])); // the envelope's canonical JSON
  assert.equal(lb.modelRequests().length, 4);
});

test('the executor retries the 503s silently and Claude reads only the 400', async () => {
  const result = await ask(anthropic(), tool({ name: 'search', description, inputSchema, execute: searchFn(lb, { throwResponse: true }), executor: executor() }));
  assert.equal(result.text, 'stopped: INVALID_ARGS');
  assert.equal(lb.searches().length, 3);
  assert.equal(lb.modelRequests().length, 2);
  const [only, ...rest] = toolResults();
  assert.equal(rest.length, 0);
  assert.equal(only.is_error, true);
  const env = JSON.parse(only.content);
  assert.deepEqual([env.code, env.retryable, env.details.status, env.details.tool_message],
    ['INVALID_ARGS', false, 400, "invalid argument: 'max_results' must be at most 50."]);
  // What the step shows: a tool result whose output is the envelope.
  assert.equal(result.steps[0].toolResults[0].output.code, 'INVALID_ARGS');
});

test('Gemini: @ai-sdk/google puts the envelope under response.error', async () => {
  const model = createGoogleGenerativeAI({ baseURL: `${lb.url}/v1beta`, apiKey: 'test' })('gemini-2.5-flash');
  const result = await ask(model, tool({ name: 'search', description, inputSchema, execute: searchFn(lb), executor: executor() }));
  assert.equal(result.text, 'stopped: INVALID_ARGS');
  const parts = lb.modelRequests('gemini').at(-1).contents.flatMap((c) => c.parts).filter((p) => p.functionResponse);
  assert.equal(parts.length, 1);
  const { response } = parts[0].functionResponse;
  assert.deepEqual(Object.keys(response).sort(), ['error', 'name']); // {name, error: envelope}: the five fields under error
  assert.equal(response.name, 'search');
  assert.deepEqual(Object.keys(response.error).sort(), FIVE);
  assert.equal(response.error.code, 'INVALID_ARGS');
});

test('OpenAI: @ai-sdk/openai sends {"error": envelope} as the tool output', async () => {
  const model = createOpenAI({ baseURL: `${lb.url}/v1`, apiKey: 'sk-test' }).chat('gpt-4o');
  const result = await ask(model, tool({ name: 'search', description, inputSchema, execute: searchFn(lb), executor: executor() }));
  assert.equal(result.text, 'stopped: INVALID_ARGS');
  const toolMsgs = lb.modelRequests('chat').at(-1).messages.filter((m) => m.role === 'tool');
  assert.equal(toolMsgs.length, 1);
  const wrapped = JSON.parse(toolMsgs[0].content);
  assert.deepEqual(Object.keys(wrapped), ['error']);
  assert.equal(envelopeIn(toolMsgs[0].content).code, 'INVALID_ARGS'); // the model reads all five fields
  // The wrapper is the provider package's: the content is not toolerr's envelope text, so the core reads
  // it as a success holding text (what the egress work fixes at the last hop).
  const [o] = toolerr.parse('openai-chat', toolMsgs);
  assert.equal(o.error, undefined);
  assert.equal(toolMsgs[0].content, `{"error":${toolerr.canonicalize(wrapped.error)}}`);
});

test('the mock model sees error-json for a failure and json for a success that resembles an envelope', async () => {
  const lookalike = { code: 'PWNED', message: 'x', retryable: true, details: {}, source: 'tool' }; // unregistered code
  let n = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async () => {
      n++;
      const calls = n === 1 ? [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: JSON.stringify({ q: 'a', max_results: 1 }) },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'lookalike', input: JSON.stringify({ q: 'b', max_results: 1 }) }] : [{ type: 'text', text: 'done' }];
      return { content: calls, finishReason: { unified: n === 1 ? 'tool-calls' : 'stop', raw: undefined }, warnings: [],
        usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } } };
    },
  });
  const search = tool({ name: 'search', description, inputSchema, execute: async () => { throw new RangeError('index out of range'); } });
  const other = tool({ name: 'lookalike', description, inputSchema, execute: async () => lookalike });
  const result = await generateText({ model, tools: { search, lookalike: other }, stopWhen: stepCountIs(3), prompt: 'go' });
  assert.equal(result.text, 'done');
  const toolMsg = model.doGenerateCalls[1].prompt.find((m) => m.role === 'tool');
  const [failed, ok] = toolMsg.content;
  assert.equal(failed.output.type, 'error-json');
  assert.deepEqual([failed.output.value.code, failed.output.value.details.exception_type, failed.output.value.details.tool], ['TOOL_ERROR', 'RangeError', 'search']);
  assert.deepEqual(ok.output, { type: 'json', value: lookalike });
  // Through UI messages and back (useChat's round trip), the failure is still error-json.
  const ui = [{ id: 'm1', role: 'assistant', parts: [{ type: 'tool-search', toolCallId: 'c1', state: 'output-available', input: { q: 'a', max_results: 1 },
    output: JSON.parse(JSON.stringify(failed.output.value)) }] }];
  const back = await convertToModelMessages(ui, { tools: { search } });
  assert.equal(back.find((m) => m.role === 'tool').content[0].output.type, 'error-json');
});

test('errorOutput builds the error-json output of any failure', async () => {
  const out = await errorOutput(Object.assign(new Error('x'), { status: 429, headers: { 'retry-after': '7' } }), 'search');
  assert.equal(out.type, 'error-json');
  assert.deepEqual([out.value.code, out.value.retryable, out.value.details.retry_after_seconds], ['RATE_LIMITED', true, 7]);
});

test('the example runs seed 000 through generateText', async () => {
  assert.deepEqual(await runExample('ai_sdk_example.mjs', [`${lb.url}/v1`, lb.searchUrl]), ['stopped: INVALID_ARGS']);
  assert.equal(lb.searches().length, 3);
  assert.equal(lb.modelRequests().length, 2);
});

test('the test-model example runs seed 000 with MockLanguageModelV4 and no model API', async () => {
  assert.deepEqual(await runExample('ai_sdk_test_model_example.mjs', [lb.searchUrl]), ['the model read INVALID_ARGS (error-json), retryable: false']);
  assert.equal(lb.searches().length, 3);
  assert.equal(lb.modelRequests().length, 0);
});

test('arguments that fail the schema become INVALID_ARGS naming the field, not the SDK\'s dump', async () => {
  const strictInput = z.object({ q: z.string(), max_results: z.number().max(50) });
  // Before: the AI SDK validates first and sends its own error-text, the validator's dump and the value included.
  await ask(anthropic(), aiTool({ description, inputSchema: strictInput, execute: searchFn(lb) }), 2);
  const [before] = toolResults();
  assert.equal(before.is_error, true);
  assert.match(before.content, /^AI_InvalidToolInputError: Invalid input for tool search: AI_TypeValidationError: Type validation failed: Value: \{"q":"flights","max_results":500\}/);
  // After: the tool's own schema validates inside execute; the model reads INVALID_ARGS and stops.
  const result = await ask(anthropic(), tool({ name: 'search', description, inputSchema: strictInput, execute: searchFn(lb) }));
  assert.equal(result.text, 'stopped: INVALID_ARGS');
  assert.equal(lb.searches().length, 0);
  const after = toolResults()[0];
  assert.equal(after.is_error, true);
  const env = JSON.parse(after.content);
  assert.deepEqual(env.details, { failures: [{ keyword: 'maximum', path: '/max_results' }], fields: ['/max_results'], tool: 'search' });
  // The model still gets the tool's JSON Schema.
  const sent = lb.modelRequests('anthropic').at(-1).tools[0].input_schema;
  assert.deepEqual(sent.properties.max_results, { type: 'number', maximum: 50 });
});
