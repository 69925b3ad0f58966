// Package mcptool makes the tools of an MCP server built with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk) answer failures with toolerr's
// envelope: a failing call returns a CallToolResult with isError true and the
// envelope's canonical JSON as its one text block, never a JSON-RPC error,
// and retryable failures may be retried by a resilience.Executor before the
// client sees anything.
//
//	mcp.AddTool(server, &mcp.Tool{Name: "search"}, mcptool.For("search", search, executor))
//
// The result's bytes are the core's mcp format (core.Serialize with
// core.FormatMCP): the same CallToolResult every toolerr language writes,
// read back by core.Parse. The envelope is not put in structuredContent: it
// must conform to the tool's output schema when one is declared, which
// mcp.AddTool derives from every Out type but any, and clients that validate
// it on error results would then fail the call with a protocol error instead
// of showing the model the failure (docs/frameworks.md, MCP servers).
//
// The package is a module of its own (with replace => ../ in a clone), so
// importing toolerr's core never pulls in the MCP SDK.
//
// See https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
package mcptool
