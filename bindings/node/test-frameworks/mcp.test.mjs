// toolerr/integrations/mcp on the MCP TypeScript SDK's own McpServer and
// Client over its in-memory transport, the search tool a real HTTP call to
// seed 000's service on loopback.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { z } from 'zod';
import * as toolerr from 'toolerr';
import { callToolResult, registerTool, toolErrors } from 'toolerr/integrations/mcp';
import { FIVE, envelopeIn, runExample, searchFn, serve } from './loopback.mjs';

const inputSchema = { q: z.string(), max_results: z.number() };
let lb;
beforeEach(async () => { lb = await serve(); });
afterEach(() => lb.close());

/**
 * A server with the search tool (registered by register, the SDK's
 * registerTool by default), and a client connected to it in memory that has
 * listed the tools. wire holds every JSON-RPC message the client received,
 * as sent: the tools/call results before the SDK's client parsed them.
 */
async function connect(handler, config = {}, register = (server, cfg) => server.registerTool('search', cfg, handler)) {
  const server = new McpServer({ name: 'flights', version: '1.0.0' });
  register(server, { description: 'Search for flights.', inputSchema, ...config });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1.0.0' });
  await Promise.all([server.connect(a), client.connect(b)]);
  const wire = [];
  const deliver = b.onmessage; // InMemoryTransport hands each message to the client through this property
  b.onmessage = (message, extra) => { wire.push(structuredClone(message)); deliver(message, extra); };
  const { tools } = await client.listTools(); // as a host does first; the client then knows each tool's output schema
  const results = () => wire.filter((m) => m.result && 'content' in m.result).map((m) => m.result);
  return { client, tools, results, close: () => Promise.all([client.close(), server.close()]) };
}

/** The CallToolResult validators of both MCP schemas in ../shared/specs, or null (the test skips) without them. */
function mcpSchemas(t) {
  const dir = process.env.TOOLERR_SHARED ? new URL(`file://${process.env.TOOLERR_SHARED}/specs/`) : new URL('../../../../shared/specs/', import.meta.url);
  const out = {};
  for (const version of ['2025-11-25', '2026-07-28']) {
    const file = new URL(`mcp-schema-${version}.json`, dir);
    if (!existsSync(file)) { t.skip(`../shared/specs/mcp-schema-${version}.json not found (the vendors' schemas live in ../shared, beside the clone)`); return null; }
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')), 'mcp');
    out[version] = ajv.getSchema('mcp#/$defs/CallToolResult');
  }
  return out;
}

/** Checks each result against CallToolResult of both MCP schemas. */
function assertValid(t, results) {
  const schemas = mcpSchemas(t);
  if (!schemas) return;
  assert.ok(results.length > 0);
  for (const [version, validate] of Object.entries(schemas)) {
    for (const r of results) assert.ok(validate(r), `${version}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(r)}`);
  }
}

const withoutMeta = ({ _meta, ...r }) => r;

/** The search tool as an MCP ToolCallback: its text on success, thrown on failure. */
const handler = (opts) => { const search = searchFn(lb, opts); return async (args) => ({ content: [{ type: 'text', text: await search(args) }] }); };

/**
 * The scripted model of loopback.mjs as an MCP host: call search until a
 * result's text is an envelope with retryable false, at most bound times.
 * Resolves to the results it read.
 */
async function agent(client, bound = 6) {
  const seen = [];
  for (let i = 0; i < bound; i++) {
    const r = await client.callTool({ name: 'search', arguments: { q: 'flights', max_results: 500 } });
    seen.push(r);
    const env = envelopeIn(r.content?.[0]?.text);
    if (env && env.retryable === false) break;
  }
  return seen;
}

const executor = () => new toolerr.Executor({ retry: { max_attempts: 3, base_ms: 1, cap_ms: 2 }, draw: () => 0.5 });

test('before toolerr: the SDK answers with the error\'s raw message and the host loops', async () => {
  const { client, close } = await connect(handler());
  try {
    const seen = await agent(client);
    assert.equal(seen.length, 6); // nothing in the results tells the host to stop
    assert.ok(seen.every((r) => r.isError === true));
    assert.match(seen[0].content[0].text, /^search failed: HTTP 503 \{"error":"search backend unavailable"\} \(http:\/\/127\.0\.0\.1:\d+\/search\?q=flights&max_results=500\)$/);
    assert.match(seen[5].content[0].text, /^search failed: HTTP 400 /);
  } finally { await close(); }
});

test('toolErrors: isError with the envelope as text, and the host stops after the 400', async (t) => {
  const { client, results, close } = await connect(toolErrors(handler(), { name: 'search' }));
  try {
    const seen = await agent(client);
    assert.equal(seen.length, 3);
    assert.ok(seen.every((r) => r.isError === true && !('structuredContent' in r))); // nothing is known of the tool's outputSchema
    const sent = seen.map((r) => JSON.parse(r.content[0].text));
    assert.deepEqual(sent.map((e) => [e.code, e.retryable, e.details.status, e.details.tool]),
      [['TRANSPORT', true, 503, 'search'], ['TRANSPORT', true, 503, 'search'], ['INVALID_ARGS', false, 400, 'search']]);
    for (const e of sent) assert.deepEqual(Object.keys(e).sort(), FIVE);
    // Byte for byte the core's mcp CallToolResult, which parse reads back as the failure.
    const third = withoutMeta(results()[2]);
    assert.deepEqual(third, toolerr.toMCP([{ error: sent[2] }])[0]);
    assert.equal(toolerr.parse('mcp', [third])[0].error.code, 'INVALID_ARGS');
    assertValid(t, results());
  } finally { await close(); }
});

test('registerTool, a tool without an outputSchema: the envelope is also the structuredContent, and the client reads it', async (t) => {
  const { client, tools, results, close } = await connect(handler(), {}, (server, cfg) => registerTool(server, 'search', cfg, handler()));
  try {
    assert.equal(tools[0].outputSchema, undefined);
    const seen = await agent(client); // Client.callTool threw nothing
    assert.equal(seen.length, 3);
    const wire = results();
    assert.equal(wire.length, 3);
    const sent = wire.map((r) => JSON.parse(r.content[0].text));
    assert.deepEqual(wire.map((r) => r.structuredContent), sent); // the same envelope as the text
    assert.deepEqual(seen.map((r) => r.structuredContent), sent); // and as the host reads it
    assert.deepEqual(sent.map((e) => e.code), ['TRANSPORT', 'TRANSPORT', 'INVALID_ARGS']);
    assert.deepEqual(withoutMeta(wire[2]), toolerr.invoke({ op: 'serialize', format: 'mcp', output_schema: false, call: {}, error: sent[2] })[0]);
    assert.deepEqual(toolerr.parse('mcp', [withoutMeta(wire[2])])[0].error, sent[2]);
    assertValid(t, wire);
  } finally { await close(); }
});

test('registerTool, a tool with an outputSchema: the text alone, and the client reads the failure', async (t) => {
  const config = { outputSchema: { results: z.array(z.string()) } };
  const { client, tools, results, close } = await connect(handler(), config, (server, cfg) => registerTool(server, 'search', cfg, handler()));
  try {
    assert.ok(tools[0].outputSchema);
    const seen = await agent(client); // after listTools the client validates structuredContent against it: nothing to reject
    assert.equal(seen.length, 3);
    assert.ok(results().every((r) => r.isError === true && !('structuredContent' in r)));
    assert.equal(JSON.parse(seen[2].content[0].text).code, 'INVALID_ARGS');
    assertValid(t, results());
  } finally { await close(); }
});

test('toolErrors told outputSchema null (the tool declares none) puts the envelope in structuredContent', async (t) => {
  const { client, results, close } = await connect(toolErrors(handler(), { name: 'search', outputSchema: null }));
  try {
    const [r] = await agent(client, 1);
    assert.equal(r.isError, true);
    assert.deepEqual(r.structuredContent, JSON.parse(r.content[0].text));
    assertValid(t, results());
  } finally { await close(); }
});

test('toolErrors under an executor: one result, the 503s retried silently', async () => {
  const { client, close } = await connect(toolErrors(handler({ throwResponse: true }), { name: 'search', executor: executor() }));
  try {
    const seen = await agent(client);
    assert.equal(seen.length, 1);
    assert.equal(lb.searches().length, 3);
    const env = JSON.parse(seen[0].content[0].text);
    assert.deepEqual([env.code, env.retryable, env.details.status, env.details.tool_message],
      ['INVALID_ARGS', false, 400, "invalid argument: 'max_results' must be at most 50."]);
  } finally { await close(); }
});

test('a failure is a result, never a JSON-RPC error, also for a tool with an output schema', async () => {
  const { client, close } = await connect(toolErrors(async () => { throw new TypeError('boom; token=sk-proj-abcdefghijklmnopqrstuvwx'); }, { name: 'search' }),
    { outputSchema: { results: z.array(z.string()) } });
  try {
    const r = await client.callTool({ name: 'search', arguments: { q: 'a', max_results: 1 } });
    assert.equal(r.isError, true);
    const env = JSON.parse(r.content[0].text);
    assert.deepEqual([env.code, env.details.exception_type], ['TOOL_ERROR', 'TypeError']);
    assert.ok(!r.content[0].text.includes('sk-proj-abcdefghijklmnopqrstuvwx'));
  } finally { await close(); }
});

test('why the envelope stays out of structuredContent: this SDK\'s client validates it on errors and throws', async () => {
  const withStructured = async () => ({ ...callToolResult(toolerr.classifyHttp(503, {}, undefined, { source: 'tool', tool: 'search' })),
    structuredContent: toolerr.classifyHttp(503, {}, undefined, { source: 'tool', tool: 'search' }) });
  const { client, close } = await connect(withStructured, { outputSchema: { results: z.array(z.string()) } });
  try {
    // Client.callTool of @modelcontextprotocol/sdk 1.32.2 checks structuredContent against the output schema
    // even when isError is true: the failure never reaches the host.
    await assert.rejects(client.callTool({ name: 'search', arguments: { q: 'a', max_results: 1 } }),
      (e) => e instanceof McpError && e.code === -32602);
  } finally { await close(); }
});

test('callToolResult validates against both MCP schemas, with and without structuredContent', (t) => {
  const envs = [toolerr.classifyHttp(503, {}, undefined, { source: 'tool', tool: 'search' }), toolerr.classifyException(new RangeError('x'), { tool: 'search' })];
  const rs = envs.flatMap((env) => [callToolResult(env), callToolResult(env, { outputSchema: false })]);
  assert.deepEqual(rs.map((r) => 'structuredContent' in r), [false, true, false, true]);
  assertValid(t, rs);
});

test('the example serves seed 000\'s search tool and answers the host with the envelope', async () => {
  assert.deepEqual(await runExample('mcp_example.mjs', [lb.searchUrl]), ['isError: true', 'INVALID_ARGS retryable: false', 'structuredContent: INVALID_ARGS']);
  assert.equal(lb.searches().length, 3);
});
