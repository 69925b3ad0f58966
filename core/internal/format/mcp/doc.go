// Package mcp is the mcp wire format: one MCP CallToolResult (the result of
// tools/call) per outcome, in call order.
//
// A failure is {"content":[{"type":"text","text":<envelope JSON>}],
// "isError":true,"resultType":"complete"}: a tool's own failure is a normal
// result with isError, not a JSON-RPC error, so the model can read it and
// correct itself. The envelope also goes into structuredContent, as an
// object, when the tool is known to declare no outputSchema
// (Codec.NoOutputSchema; the serialize op's output_schema: false): only
// then does nothing constrain that member. A tool that declares one, or one
// nothing is known of, gets the text alone: structuredContent must conform
// to a declared outputSchema (MCP schema 2026-07-28, CallToolResult; the
// 2025-11-25 tools page: MUST), no exemption is written for error results,
// a schema declared for the tool's output does not describe the envelope, and
// @modelcontextprotocol/sdk 1.x validates an error's structuredContent and
// fails the call with -32602 (modelcontextprotocol/typescript-sdk#2748),
// so the model would never read the failure. A success is a
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
//   - A failure's structuredContent is not read: the text block carries
//     the same envelope, and parse(serialize(x)) is x either way.
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
