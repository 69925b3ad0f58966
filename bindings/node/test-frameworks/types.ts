// tsc checks that each integration's types fit the framework's own: what the
// hooks take and return is assignable where the framework expects it.
import { Agent, tool as agentsTool } from '@openai/agents';
import { z } from 'zod';
import { Executor } from 'toolerr';
import * as agents from 'toolerr/integrations/openai-agents';

const parameters = z.object({ q: z.string(), max_results: z.number() });
const search = agents.tool({ name: 'search', description: 'Search.', parameters, executor: new Executor(),
  execute: async ({ q, max_results }) => `${q} ${max_results}` });
new Agent({ name: 'a', instructions: 'x', tools: [search] });
new Agent({ name: 'a', instructions: 'x', tools: [agentsTool({ name: 's', description: 'd', parameters, execute: async () => 'ok', errorFunction: agents.errorFunction })] });

import { ToolNode as LGToolNode } from '@langchain/langgraph/prebuilt';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import * as lg from 'toolerr/integrations/langgraph';

const lgSearch = lg.tool(async ({ q }: { q: string }) => q, { name: 'search', description: 'Search.', schema: z.object({ q: z.string() }), executor: new Executor() });
const node: LGToolNode = new lg.ToolNode([lgSearch]);
new StateGraph(MessagesAnnotation).addNode('tools', node);
new LGToolNode([lgSearch]);
const content: Promise<string> = lg.handleToolErrors(new Error('x'), 'search');

import { generateText, type ToolSet } from 'ai';
import * as aisdk from 'toolerr/integrations/ai-sdk';

const aiSearch = aisdk.tool({ name: 'search', description: 'Search.', inputSchema: z.object({ q: z.string() }), executor: new Executor(),
  execute: async ({ q }) => q.toUpperCase() });
const aiTools: ToolSet = { search: aiSearch };
void (() => generateText({ model: 'x', tools: aiTools, prompt: 'p' }));
const errOut: Promise<{ type: 'error-json' }> = aisdk.errorOutput(new Error('x'), 'search');

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as mcp from 'toolerr/integrations/mcp';

const mcpSearch = mcp.toolErrors(async ({ q }: { q: string }) => ({ content: [{ type: 'text' as const, text: q }] }), { name: 'search', executor: new Executor() });
new McpServer({ name: 's', version: '1' }).registerTool('search', { inputSchema: { q: z.string() } }, mcpSearch);
const failed: { isError?: boolean } = mcp.callToolResult({ code: 'TIMEOUT', message: 'x', retryable: true, details: {}, source: 'tool' }, { outputSchema: false });
const registered = mcp.registerTool(new McpServer({ name: 's', version: '1' }), 'search', { inputSchema: { q: z.string() } },
  async ({ q }) => ({ content: [{ type: 'text' as const, text: q.toUpperCase() }] }), { executor: new Executor() });

// skipLibCheck skips every .d.ts, so an import our types could not resolve would turn a hook's type
// into any, unseen: each probe below must fail to compile (a hook is not a number).
// @ts-expect-error
const probe1: number = search;
// @ts-expect-error
const probe2: number = agents.errorFunction;
// @ts-expect-error
const probe3: number = lgSearch;
// @ts-expect-error
const probe4: number = node;
// @ts-expect-error
const probe5: number = aiSearch;
// @ts-expect-error
const probe6: number = mcpSearch;
// @ts-expect-error
const probe7: number = registered;
export { content, errOut, failed, probe1, probe2, probe3, probe4, probe5, probe6, probe7 };
