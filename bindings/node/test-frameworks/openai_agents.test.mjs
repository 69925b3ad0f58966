// toolerr/integrations/openai-agents on the Agents SDK's own run loop, with the
// openai SDK sending real requests to the loopback provider.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Agent, MaxTurnsExceededError, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool as sdkTool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import * as toolerr from 'toolerr';
import { errorFunction, tool } from 'toolerr/integrations/openai-agents';
import { FIVE, runExample, searchFn, serve } from './loopback.mjs';

setTracingDisabled(true);
const parameters = z.object({ q: z.string(), max_results: z.number() });
const description = 'Search for flights.';
let lb;
beforeEach(async () => { lb = await serve(); });
afterEach(() => lb.close());

function agentRun(t, { chat = false, maxTurns = 6 } = {}) {
  const client = new OpenAI({ baseURL: `${lb.url}/v1`, apiKey: 'sk-test' });
  const model = chat ? new OpenAIChatCompletionsModel(client, 'gpt-4o') : new OpenAIResponsesModel(client, 'gpt-4o');
  const agent = new Agent({ name: 'travel', instructions: 'Find flights.', tools: [t], model });
  return run(agent, 'Flights to Lisbon?', { maxTurns });
}

/** Every function_call_output the SDK sent, as the last Responses request holds them. */
const outputs = () => lb.modelRequests('responses').at(-1).input.filter((i) => i?.type === 'function_call_output').map((i) => i.output);
const executor = () => new toolerr.Executor({ retry: { max_attempts: 3, base_ms: 1, cap_ms: 2 }, draw: () => 0.5 });

test('before toolerr: the default error function sends "Please try again." and the agent loops', async () => {
  await assert.rejects(agentRun(sdkTool({ name: 'search', description, parameters, execute: searchFn(lb) })), MaxTurnsExceededError);
  const before = 'An error occurred while running the tool. Please try again.';
  assert.deepEqual(outputs(), Array(5).fill(before)); // every failure, 503 or 400, reads the same
  // It never stops by itself: six model turns, six calls of a tool that answers 400 from the third on.
  assert.equal(lb.modelRequests().length, 6);
  assert.equal(lb.searches().length, 6);
});

test('errorFunction sends the envelope and the agent stops after the 400', async () => {
  const result = await agentRun(tool({ name: 'search', description, parameters, execute: searchFn(lb) }));
  assert.equal(result.finalOutput, 'stopped: INVALID_ARGS');
  const sent = outputs().map((o) => JSON.parse(o));
  assert.deepEqual(sent.map((e) => [e.code, e.retryable, e.details.status]),
    [['TRANSPORT', true, 503], ['TRANSPORT', true, 503], ['INVALID_ARGS', false, 400]]);
  for (const e of sent) {
    assert.deepEqual(Object.keys(e).sort(), FIVE);
    assert.equal(e.source, 'tool');
    assert.equal(e.details.tool, 'search');
  }
  assert.equal(sent[2].details.tool_message, "invalid argument: 'max_results' must be at most 50.");
  assert.equal(outputs()[2], toolerr.canonicalize(sent[2])); // canonical JSON, not a code fence or prose
  assert.equal(lb.modelRequests().length, 4);
});

test('the executor retries the 503s silently and the model reads only the 400', async () => {
  const result = await agentRun(tool({ name: 'search', description, parameters, execute: searchFn(lb), executor: executor() }));
  assert.equal(result.finalOutput, 'stopped: INVALID_ARGS');
  assert.equal(lb.searches().length, 3); // 503, 503 retried by the runtime, then the 400
  assert.equal(lb.modelRequests().length, 2); // the model saw one failure, and stopped
  const [only, ...rest] = outputs();
  assert.equal(rest.length, 0);
  const env = JSON.parse(only);
  assert.deepEqual([env.code, env.retryable, env.source, env.details.status], ['INVALID_ARGS', false, 'tool', 400]);
  assert.match(env.details.tool_message, /^invalid argument/);
});

test('a thrown fetch Response is classified from its status and body', async () => {
  const result = await agentRun(tool({ name: 'search', description, parameters, execute: searchFn(lb, { throwResponse: true }), executor: executor() }));
  assert.equal(result.finalOutput, 'stopped: INVALID_ARGS');
  assert.equal(lb.searches().length, 3);
  const env = JSON.parse(outputs()[0]);
  assert.deepEqual([env.code, env.details.status, env.details.tool_message], ['INVALID_ARGS', 400, "invalid argument: 'max_results' must be at most 50."]);
});

test('Chat Completions: the tool message content parses as the envelope', async () => {
  const result = await agentRun(tool({ name: 'search', description, parameters, execute: searchFn(lb), executor: executor() }), { chat: true });
  assert.equal(result.finalOutput, 'stopped: INVALID_ARGS');
  const toolMsgs = lb.modelRequests('chat').at(-1).messages.filter((m) => m.role === 'tool');
  assert.equal(toolMsgs.length, 1);
  assert.equal(toolMsgs[0].tool_call_id, 'call_1');
  const [out] = toolerr.parse('openai-chat', toolMsgs); // the core reads the failure back from the content
  assert.equal(out.error?.code, 'INVALID_ARGS');
  assert.equal(out.error.retryable, false);
});

test('an exception becomes TOOL_ERROR without its text or stack', async () => {
  const execute = async () => { throw new TypeError("index 'flights' missing; api_key=sk-proj-abcdefghijklmnopqrstuvwx"); };
  const result = await agentRun(tool({ name: 'search', description, parameters, execute }));
  assert.equal(result.finalOutput, 'stopped: TOOL_ERROR');
  const env = JSON.parse(outputs()[0]);
  assert.equal(env.code, 'TOOL_ERROR');
  assert.equal(env.details.exception_type, 'TypeError');
  const raw = JSON.stringify(lb.modelRequests());
  assert.ok(!raw.includes('sk-proj-abcdefghijklmnopqrstuvwx'));
  assert.ok(!raw.includes('at async'), 'no stack frame reaches the model');
});

test('arguments that fail the schema become INVALID_ARGS', async () => {
  const strictArgs = z.object({ q: z.string(), max_results: z.number().max(50) });
  const result = await agentRun(tool({ name: 'search', description, parameters: strictArgs, execute: searchFn(lb) }));
  assert.equal(result.finalOutput, 'stopped: INVALID_ARGS');
  assert.equal(lb.searches().length, 0); // the SDK refused the arguments before the tool ran
  const env = JSON.parse(outputs()[0]);
  assert.equal(env.code, 'INVALID_ARGS');
  // The SDK drops the Zod error by default (OPENAI_AGENTS_DONT_LOG_TOOL_DATA), so the arguments as a whole
  // are named; with it kept, the field is (/max_results must be at most 50).
  assert.deepEqual(env.details, { failures: [{ keyword: 'schema', path: '' }], fields: [''], tool: 'search' });
});

test('with the SDK keeping the Zod error, INVALID_ARGS names the field', async () => {
  // OPENAI_AGENTS_DONT_LOG_TOOL_DATA is read when the SDK loads, so this run is a process of its own.
  const script = `
    import { Agent, OpenAIResponsesModel, run, setTracingDisabled } from '@openai/agents';
    import OpenAI from 'openai';
    import { z } from 'zod';
    import { tool } from 'toolerr/integrations/openai-agents';
    setTracingDisabled(true);
    const search = tool({ name: 'search', description: 'Search.', parameters: z.object({ q: z.string(), max_results: z.number().max(50) }), execute: async () => 'never' });
    const model = new OpenAIResponsesModel(new OpenAI({ baseURL: process.argv[1], apiKey: 'sk-test' }), 'gpt-4o');
    console.log((await run(new Agent({ name: 'a', instructions: 'x', tools: [search], model }), 'Flights?', { maxTurns: 3 })).finalOutput);`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script, `${lb.url}/v1`],
    { cwd: new URL('.', import.meta.url).pathname, env: { ...process.env, OPENAI_AGENTS_DONT_LOG_TOOL_DATA: '0' } });
  assert.equal(stdout.trim(), 'stopped: INVALID_ARGS');
  const env = JSON.parse(outputs()[0]);
  assert.deepEqual(env.details, { failures: [{ keyword: 'maximum', path: '/max_results' }], fields: ['/max_results'], tool: 'search' });
  assert.equal(env.message, 'Fix the arguments for search and call the tool again: /max_results must be at most 50.');
});

test('errorFunction alone on the SDK\'s own tool()', async () => {
  const result = await agentRun(sdkTool({ name: 'search', description, parameters, execute: searchFn(lb), errorFunction }));
  assert.equal(result.finalOutput, 'stopped: INVALID_ARGS');
  assert.deepEqual(outputs().map((o) => JSON.parse(o).code), ['TRANSPORT', 'TRANSPORT', 'INVALID_ARGS']);
});

test('the example runs seed 000 through an agent', async () => {
  assert.deepEqual(await runExample('openai_agents_example.mjs', [`${lb.url}/v1`, lb.searchUrl]), ['stopped: INVALID_ARGS']);
  assert.equal(lb.searches().length, 3);
  assert.equal(lb.modelRequests().length, 2);
});
