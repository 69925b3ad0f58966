// toolerr in an MCP server (TypeScript SDK): seed 000's search tool (503, 503, then 400), called by an in-memory client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { Executor } from 'toolerr';
import { registerTool } from 'toolerr/integrations/mcp';

const [searchUrl] = process.argv.slice(2); // the search service (the test's, on loopback)

async function search({ q, max_results }) {
  const r = await fetch(`${searchUrl}?${new URLSearchParams({ q, max_results: String(max_results) })}`);
  if (!r.ok) throw r; // the 503s are retried by the executor; the 400 is the result, isError: true
  return { content: [{ type: 'text', text: await r.text() }] };
}

const server = new McpServer({ name: 'flights', version: '1.0.0' });
// server.registerTool with the handler wrapped by toolErrors; no outputSchema, so the envelope is the structuredContent too
registerTool(server, 'search', { description: 'Search for flights.', inputSchema: { q: z.string(), max_results: z.number() } },
  search, { executor: new Executor({ retry: { max_attempts: 3, base_ms: 20 } }) });

const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: 'host', version: '1.0.0' });
await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
const result = await client.callTool({ name: 'search', arguments: { q: 'flights', max_results: 500 } });
const envelope = JSON.parse(result.content[0].text);
console.log(`isError: ${result.isError}`);
console.log(`${envelope.code} retryable: ${envelope.retryable}`);
console.log(`structuredContent: ${result.structuredContent.code}`);
await client.close();
