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
import { callToolResult, toolErrors } from 'toolerr/integrations/mcp';
import { FIVE, envelopeIn, runExample, searchFn, serve } from './loopback.mjs';

const inputSchema = { q: z.string(), max_results: z.number() };
let lb;
beforeEach(async () => { lb = await serve(); });
afterEach(() => lb.close());

/** A server with the search tool, and a client connected to it in memory. */
async function connect(handler, config = {}) {
  const server = new McpServer({ name: 'flights', version: '1.0.0' });
  server.registerTool('search', { description: 'Search for flights.', inputSchema, ...config }, handler);
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1.0.0' });
  await Promise.all([server.connect(a), client.connect(b)]);
  await client.listTools(); // as a host does first; the client then knows each tool's output schema
  return { client, close: () => Promise.all([client.close(), server.close()]) };
}

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

test('toolErrors: isError with the envelope as text, and the host stops after the 400', async () => {
  const { client, close } = await connect(toolErrors(handler(), { name: 'search' }));
  try {
    const seen = await agent(client);
    assert.equal(seen.length, 3);
    assert.ok(seen.every((r) => r.isError === true && !('structuredContent' in r)));
    const sent = seen.map((r) => JSON.parse(r.content[0].text));
    assert.deepEqual(sent.map((e) => [e.code, e.retryable, e.details.status, e.details.tool]),
      [['TRANSPORT', true, 503, 'search'], ['TRANSPORT', true, 503, 'search'], ['INVALID_ARGS', false, 400, 'search']]);
    for (const e of sent) assert.deepEqual(Object.keys(e).sort(), FIVE);
    // Byte for byte the core's mcp CallToolResult, which parse reads back as the failure.
    const { _meta, ...third } = seen[2];
    assert.deepEqual(third, toolerr.toMCP([{ error: sent[2] }])[0]);
    assert.equal(toolerr.parse('mcp', [third])[0].error.code, 'INVALID_ARGS');
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

test('the failure results validate against both MCP schemas', (t) => {
  const specs = new URL('../../../../shared/specs/', import.meta.url);
  const dir = process.env.TOOLERR_SHARED ? new URL(`file://${process.env.TOOLERR_SHARED}/specs/`) : specs;
  for (const version of ['2025-11-25', '2026-07-28']) {
    const file = new URL(`mcp-schema-${version}.json`, dir);
    if (!existsSync(file)) { t.skip(`../shared/specs/mcp-schema-${version}.json not found (the vendors' schemas live in ../shared, beside the clone)`); return; }
    const schema = JSON.parse(readFileSync(file, 'utf8'));
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    ajv.addSchema(schema, 'mcp');
    const validate = ajv.getSchema('mcp#/$defs/CallToolResult');
    for (const env of [toolerr.classifyHttp(503, {}, undefined, { source: 'tool', tool: 'search' }), toolerr.classifyException(new RangeError('x'), { tool: 'search' })]) {
      const r = callToolResult(env);
      assert.ok(validate(r), `${version}: ${JSON.stringify(validate.errors)}`);
    }
  }
});

test('the example serves seed 000\'s search tool and answers the host with the envelope', async () => {
  assert.deepEqual(await runExample('mcp_example.mjs', [lb.searchUrl]), ['isError: true', 'INVALID_ARGS retryable: false']);
  assert.equal(lb.searches().length, 3);
});
