// Types of toolerr/integrations/mcp (MCP servers built with @modelcontextprotocol/sdk).
import type { McpServer, RegisteredTool, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AnySchema, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Envelope, Executor } from '../index.js';

/**
 * The CallToolResult of a failure: the core's mcp serialization of env (isError, the envelope as text, and as
 * structuredContent when outputSchema is false: the tool declares none; default true).
 */
export function callToolResult(env: Envelope, options?: { outputSchema?: boolean }): CallToolResult;

/**
 * handler wrapped for McpServer.registerTool: its result on success, the
 * failure's CallToolResult otherwise (never a JSON-RPC error). name names the
 * tool in the envelope; executor runs each call under the toolerr runtime;
 * outputSchema is the tool config's outputSchema, null when it declares none
 * (the envelope is then the structuredContent too), omitted when unknown.
 */
export function toolErrors<H extends (...args: any[]) => CallToolResult | Promise<CallToolResult>>(handler: H,
  options?: { name?: string; executor?: Executor; outputSchema?: unknown }): (...args: Parameters<H>) => Promise<CallToolResult>;

/**
 * server.registerTool(name, config, toolErrors(handler, { name, executor, outputSchema: config.outputSchema ?? null })):
 * the tool's failures are envelopes, and the envelope is the structuredContent too when config declares no outputSchema.
 */
export function registerTool<OutputArgs extends ZodRawShapeCompat | AnySchema, InputArgs extends undefined | ZodRawShapeCompat | AnySchema = undefined>(
  server: McpServer, name: string,
  config: { title?: string; description?: string; inputSchema?: InputArgs; outputSchema?: OutputArgs; annotations?: ToolAnnotations; _meta?: Record<string, unknown> },
  handler: ToolCallback<InputArgs>, options?: { executor?: Executor }): RegisteredTool;
