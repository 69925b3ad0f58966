// Package mcptool makes the tools of an MCP server built with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk) answer failures with toolerr's
// envelope: a failing call returns a CallToolResult with isError true and the
// envelope's canonical JSON as its one text block, never a JSON-RPC error,
// and retryable failures may be retried by a resilience.Executor before the
// client sees anything.
//
//	tool := &mcp.Tool{Name: "search"}
//	mcp.AddTool(server, tool, mcptool.For(tool, search, executor))
//
// The result's bytes are the core's mcp format (core.SerializeMCP): the same
// CallToolResult every toolerr language writes, read back by core.Parse. The
// envelope is also the result's structuredContent when the tool declares no
// output schema; when it declares one (mcp.AddTool derives one from every
// Out type but any) the envelope stays in the text block, because
// structuredContent must conform to that schema and clients that validate it
// on error results would fail the call with a protocol error instead of
// showing the model the failure (docs/frameworks.md, MCP servers). The
// decision is the core's; the package only tells it what the Tool declares.
//
// The package is a module of its own (with replace => ../ in a clone), so
// importing toolerr's core never pulls in the MCP SDK.
//
// See https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
package mcptool
