// toolerr/integrations/mcp: toolerr inside MCP servers built with the MCP
// TypeScript SDK (npm install @modelcontextprotocol/sdk).
//
//   import { registerTool } from 'toolerr/integrations/mcp';
//   registerTool(server, 'search', { description, inputSchema }, search, { executor });
//
// A failing call then returns the CallToolResult the core's mcp format
// writes: isError true and one text block holding the envelope's canonical
// JSON, never a JSON-RPC error (the MCP schema's CallToolResult.isError:
// errors that originate from the tool are reported inside the result so the
// model can see them and self-correct). The SDK's own answer to a thrown
// error is isError true with the error's raw message as the text.
//
// The envelope is also the result's structuredContent when the tool
// declares no outputSchema. When it declares one the envelope stays in the
// text block alone: structuredContent must conform to the declared
// outputSchema (MCP schema 2026-07-28, CallToolResult), which the envelope
// does not, and this SDK's Client.callTool (1.x) validates it on error
// results too and throws -32602 instead of returning the failure
// (bindings/node/test-frameworks/mcp.test.mjs shows it;
// modelcontextprotocol/typescript-sdk#2748). The decision is the core's
// (the serialize op's output_schema); this module only tells it what the
// tool's config declares. docs/frameworks.md gives the reasoning.
//
// The module needs nothing from the SDK at run time (a CallToolResult is a
// plain object), so importing it loads no framework at all.
//
// See https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling

import { invoke } from 'toolerr';
import { cleanEnvelope, envelopeOf, guard } from './common.js';

/**
 * Returns the CallToolResult of a failure: the core's mcp serialization of
 * env ({content: [{type: "text", text: <envelope JSON>}], isError: true,
 * resultType: "complete"}, plus structuredContent: the envelope when
 * options.outputSchema is false). options.outputSchema says whether the
 * tool declares an outputSchema; the default, true, is right for a tool
 * nothing is known of.
 */
export function callToolResult(env, { outputSchema = true } = {}) {
  const [result] = invoke({ op: 'serialize', format: 'mcp', output_schema: outputSchema !== false, call: {}, error: cleanEnvelope(env) });
  return result;
}

/**
 * Returns handler wrapped for McpServer.registerTool (or server.tool): on
 * success it resolves to handler's result, on failure to
 * callToolResult(envelope), which the server passes through (it validates
 * only successful results against the output schema). handler is the SDK's
 * ToolCallback: (args, extra) with an inputSchema, (extra) without.
 * options: name (the tool's name in the envelope; default handler.name:
 * give the registered one), executor (a toolerr Executor: each call runs
 * under the runtime, retryable failures retried before the client sees
 * anything; extra.signal, the request's cancellation, ends its retries),
 * outputSchema (the outputSchema of the tool's config, null when it has
 * none: then the envelope is the structuredContent too; not given, nothing
 * is known and the envelope stays in the text block). registerTool passes
 * name and outputSchema from the tool's own registration. Arguments that
 * fail the inputSchema never reach the handler: the SDK answers them itself
 * (isError, its own text).
 */
export function toolErrors(handler, { name, executor, outputSchema } = {}) {
  const tool = name ?? handler.name;
  const declared = outputSchema !== null; // undefined: unknown, counted as declared
  const guarded = guard(handler, tool, executor, {
    signalOf: (args) => args.at(-1)?.signal,
    argsOf: (args) => (args.length > 1 ? args[0] : undefined),
  });
  return async function toolerrTool(...args) {
    try {
      return await guarded.apply(this, args);
    } catch (e) {
      return callToolResult(e.envelope ?? await envelopeOf(e, tool), { outputSchema: declared });
    }
  };
}

/**
 * Registers handler as the tool name of an McpServer with config (the
 * SDK's registerTool config: description, inputSchema, outputSchema, ...),
 * wrapped by toolErrors with the tool's name and whether config declares an
 * outputSchema; options.executor as for toolErrors. Returns the SDK's
 * RegisteredTool.
 */
export function registerTool(server, name, config, handler, { executor } = {}) {
  return server.registerTool(name, config, toolErrors(handler, { name, executor, outputSchema: config?.outputSchema ?? null }));
}
