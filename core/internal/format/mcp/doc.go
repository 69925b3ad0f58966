// Package mcp is the mcp wire format: one MCP CallToolResult (the result of
// tools/call) per outcome, in call order.
//
// A failure is {"content":[{"type":"text","text":<envelope JSON>}],
// "isError":true,"resultType":"complete"}: a tool's own failure is a normal
// result with isError, not a JSON-RPC error, so the model can read it and
// correct itself; the envelope goes into a text block and never into
// structuredContent (a tool's outputSchema would reject it). A success is a
// text block (text), a text block with the canonical JSON plus
// structuredContent when the value is an object (JSON), text and image
// blocks (blocks), or the empty placeholder text block (empty). resultType
// "complete" is required by the 2026-07-28 schema and allowed by 2025-11-25
// (which permits extra members); both are checked in oracles/mcp_test.go.
//
// # Lossy cases
//
//   - The call id and name are not carried: a CallToolResult is the result
//     member of the JSON-RPC response, which pairs with its request by the
//     JSON-RPC id outside this object.
//   - A JSON value that is not an object travels as text only and comes back
//     as Text.
//   - A single text block comes back as Text, not as a one-block Blocks
//     result; blank text blocks are dropped.
//   - An isError result whose text is not an envelope (another server's
//     failure) comes back as a TOOL_ERROR envelope holding that text; its
//     image blocks are counted in details.images_omitted.
//
// See MCP schema CallToolResult; the README's wire-format table;
// the MCP schemas 2025-11-25 and 2026-07-28,
// CallToolResult; maximhq/bifrost#5450 and stacklok/mecatl#291.
package mcp

// Name is the wire-format name of this package.
const Name = "mcp"
