// toolerr/integrations/langgraph on LangGraph's own graph loop (StateGraph,
// toolsCondition), with @langchain/anthropic, @langchain/openai and
// @langchain/google-genai sending real requests to the loopback provider.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { ChatAnthropic } from '@langchain/anthropic';
import { tool as lcTool } from '@langchain/core/tools';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { END, GraphRecursionError, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode as LGToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import * as toolerr from 'toolerr';
import { ToolNode, handleToolErrors, tool } from 'toolerr/integrations/langgraph';
import { FIVE, envelopeIn, runExample, searchFn, serve } from './loopback.mjs';

const schema = z.object({ q: z.string(), max_results: z.number() });
const fields = { name: 'search', description: 'Search for flights.', schema };
let lb;
beforeEach(async () => { lb = await serve(); });
afterEach(() => lb.close());

const anthropic = () => new ChatAnthropic({ model: 'claude-sonnet-4-5', anthropicApiUrl: lb.url, apiKey: 'sk-ant-test', maxRetries: 0 });
const openai = () => new ChatOpenAI({ model: 'gpt-4o', apiKey: 'sk-test', configuration: { baseURL: `${lb.url}/v1` }, maxRetries: 0 });
const google = () => new ChatGoogleGenerativeAI({ model: 'gemini-2.5-flash', apiKey: 'test', baseUrl: lb.url, maxRetries: 0 });
const executor = () => new toolerr.Executor({ retry: { max_attempts: 3, base_ms: 1, cap_ms: 2 }, draw: () => 0.5 });

function graph(chat, tools, node = new ToolNode(tools)) {
  const llm = chat.bindTools(tools);
  return new StateGraph(MessagesAnnotation)
    .addNode('model', async (state) => ({ messages: [await llm.invoke(state.messages)] }))
    .addNode('tools', node)
    .addEdge(START, 'model').addConditionalEdges('model', toolsCondition, ['tools', END]).addEdge('tools', 'model')
    .compile();
}
const ask = (g, recursionLimit = 25) => g.invoke({ messages: [{ role: 'user', content: 'Flights to Lisbon?' }] }, { recursionLimit });
const lastText = (state) => state.messages.at(-1).content;

/** Every tool_result block of the last Anthropic request. */
const toolResults = () => lb.modelRequests('anthropic').at(-1).messages.filter((m) => m.role === 'user' && Array.isArray(m.content))
  .flatMap((m) => m.content).filter((b) => b.type === 'tool_result');

test('before toolerr: ToolNode sends the raw error text and the agent loops to the recursion limit', async () => {
  const plain = lcTool(searchFn(lb), fields);
  await assert.rejects(ask(graph(anthropic(), [plain], new LGToolNode([plain])), 10), GraphRecursionError);
  const results = toolResults();
  assert.equal(results.length, 4); // the fifth search ran after the last model request
  // The tool's own text, its URL included; 503 and 400 read alike; @langchain/anthropic drops status "error".
  assert.match(results[0].content, /^Error: search failed: HTTP 503 \{"error":"search backend unavailable"\} \(http:\/\/127\.0\.0\.1:\d+\/search\?q=flights&max_results=500\)\n Please fix your mistakes\.$/);
  assert.match(results[3].content, /^Error: search failed: HTTP 400 .*must be at most 50/);
  assert.ok(results.every((b) => !('is_error' in b)));
  assert.equal(lb.searches().length, 5);
});

test('ToolNode answers with the envelope and the agent stops after the 400 (Anthropic)', async () => {
  const plain = lcTool(searchFn(lb), fields); // a tool toolerr did not wrap
  const out = await ask(graph(anthropic(), [plain]));
  assert.equal(lastText(out), 'stopped: INVALID_ARGS');
  const results = toolResults();
  const sent = results.map((b) => JSON.parse(b.content));
  assert.deepEqual(sent.map((e) => [e.code, e.retryable, e.details.status, e.details.tool]),
    [['TRANSPORT', true, 503, 'search'], ['TRANSPORT', true, 503, 'search'], ['INVALID_ARGS', false, 400, 'search']]);
  for (const e of sent) assert.deepEqual(Object.keys(e).sort(), FIVE);
  assert.equal(results[2].content, toolerr.canonicalize(sent[2]));
  // The graph's ToolMessages carry status "error"; @langchain/anthropic 1.5.11 does not send it as is_error
  // (utils/message_inputs.js builds the tool_result from content and tool_use_id only).
  assert.ok(out.messages.filter((m) => m.getType() === 'tool').every((m) => m.status === 'error'));
  assert.ok(results.every((b) => !('is_error' in b)));
  assert.equal(lb.modelRequests().length, 4);
});

test('tool() under an executor: one tool_result, the 503s retried silently', async () => {
  const wrapped = tool(searchFn(lb), { ...fields, executor: executor() });
  const out = await ask(graph(anthropic(), [wrapped], new LGToolNode([wrapped]))); // LangGraph's own ToolNode
  assert.equal(lastText(out), 'stopped: INVALID_ARGS');
  assert.equal(lb.searches().length, 3);
  assert.equal(lb.modelRequests().length, 2);
  const [only, ...rest] = toolResults();
  assert.equal(rest.length, 0);
  assert.equal(only.tool_use_id, 'toolu_01');
  const env = JSON.parse(only.content);
  assert.deepEqual([env.code, env.retryable, env.details.status, env.details.tool_message],
    ['INVALID_ARGS', false, 400, "invalid argument: 'max_results' must be at most 50."]);
});

test('tool() answers with the envelope under LangGraph\'s own ToolNode too', async () => {
  const wrapped = tool(searchFn(lb), fields);
  const out = await ask(graph(anthropic(), [wrapped], new LGToolNode([wrapped], { handleToolErrors: false })));
  assert.equal(lastText(out), 'stopped: INVALID_ARGS');
  assert.deepEqual(toolResults().map((b) => JSON.parse(b.content).code), ['TRANSPORT', 'TRANSPORT', 'INVALID_ARGS']);
});

test('OpenAI: the tool message content parses as the envelope', async () => {
  const out = await ask(graph(openai(), [tool(searchFn(lb), { ...fields, executor: executor() })]));
  assert.equal(lastText(out), 'stopped: INVALID_ARGS');
  const toolMsgs = lb.modelRequests('chat').at(-1).messages.filter((m) => m.role === 'tool');
  assert.equal(toolMsgs.length, 1);
  const [o] = toolerr.parse('openai-chat', toolMsgs); // the core reads the failure back from the content
  assert.equal(toolMsgs[0].content, toolerr.canonicalize(o.error)); // the envelope's JSON, as a string
  assert.equal(o.error?.code, 'INVALID_ARGS');
  assert.equal(o.error.retryable, false);
});

test('Gemini: status "error" becomes response.error, the envelope as its details text', async () => {
  const out = await ask(graph(google(), [tool(searchFn(lb), { ...fields, executor: executor() })]));
  assert.equal(lastText(out), 'stopped: INVALID_ARGS');
  const parts = lb.modelRequests('gemini').at(-1).contents.flatMap((c) => c.parts).filter((p) => p.functionResponse);
  assert.equal(parts.length, 1);
  const { name, response } = parts[0].functionResponse;
  assert.equal(name, 'search');
  // @langchain/google-genai 2.3.2 writes {error: {details: content}}: the failure is under Google's error key,
  // the five fields as the envelope's JSON text one level down.
  assert.deepEqual(Object.keys(response), ['error']);
  assert.equal(typeof response.error.details, 'string');
  const env = envelopeIn(response);
  assert.deepEqual(Object.keys(env).sort(), FIVE);
  assert.equal(env.code, 'INVALID_ARGS');
});

test('arguments that fail the schema become INVALID_ARGS', async () => {
  const strict = tool(searchFn(lb), { ...fields, schema: z.object({ q: z.string(), max_results: z.number().max(50) }) });
  const out = await ask(graph(anthropic(), [strict], new LGToolNode([strict])));
  assert.equal(lastText(out), 'stopped: INVALID_ARGS');
  assert.equal(lb.searches().length, 0);
  const env = JSON.parse(toolResults()[0].content);
  assert.deepEqual([env.code, env.details.tool, env.details.fields], ['INVALID_ARGS', 'search', ['']]);
});

test('handleToolErrors names the tool and keeps no raw text', async () => {
  const text = await handleToolErrors(new Error('boom at /srv/app.js:3 token=sk-proj-abcdefghijklmnopqrstuvwx'), 'search');
  const env = JSON.parse(text);
  assert.deepEqual([env.code, env.details.tool, env.details.exception_type], ['TOOL_ERROR', 'search', 'Error']);
  assert.ok(!text.includes('sk-proj-abcdefghijklmnopqrstuvwx'));
});

test('the example runs seed 000 through a graph', async () => {
  assert.deepEqual(await runExample('langgraph_example.mjs', [lb.url, lb.searchUrl]), ['stopped: INVALID_ARGS']);
  assert.equal(lb.searches().length, 3);
  assert.equal(lb.modelRequests().length, 2);
});
