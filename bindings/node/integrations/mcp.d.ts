// Types of toolerr/integrations/mcp (MCP servers built with @modelcontextprotocol/sdk).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Envelope, Executor } from '../index.js';

/** The CallToolResult of a failure: the core's mcp serialization of env (isError, the envelope as text). */
export function callToolResult(env: Envelope): CallToolResult;

/**
 * handler wrapped for McpServer.registerTool: its result on success, the
 * failure's CallToolResult otherwise (never a JSON-RPC error). name names the
 * tool in the envelope; executor runs each call under the toolerr runtime.
 */
export function toolErrors<H extends (...args: any[]) => CallToolResult | Promise<CallToolResult>>(handler: H,
  options?: { name?: string; executor?: Executor }): (...args: Parameters<H>) => Promise<CallToolResult>;
