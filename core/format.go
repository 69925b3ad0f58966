package core

import (
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/mcp"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Format names a provider wire format (kebab-case, as in the README table).
type Format string

// The wire formats. Each rule's vendor source is in the README's wire-format
// table and in the doc of the codec package.
const (
	// FormatOpenAIChat is a Chat Completions tool message
	// {"role":"tool","tool_call_id","content"}. See OpenAI OpenAPI
	// ChatCompletionRequestToolMessage.
	FormatOpenAIChat Format = "openai-chat"
	// FormatOpenAIResponses is a Responses API function_call_output input item.
	// See OpenAI OpenAPI FunctionCallOutputItemParam.
	FormatOpenAIResponses Format = "openai-responses"
	// FormatAnthropic is a user message holding tool_result blocks (is_error on failure).
	// See https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls.
	FormatAnthropic Format = "anthropic"
	// FormatGemini is a user Content holding functionResponse parts; response
	// is always an object. See googleapis
	// google/ai/generativelanguage/v1beta/content.proto, FunctionResponse.
	FormatGemini Format = "gemini"
	// FormatGeminiOpenAI is Gemini's OpenAI-compatible endpoint: the openai-chat shape.
	// See https://ai.google.dev/gemini-api/docs/openai.
	FormatGeminiOpenAI Format = "gemini-openai"
	// FormatBedrock is a Converse user message holding toolResult blocks
	// (status "error" on failure). See botocore bedrock-runtime 2023-09-30
	// ToolResultBlock.
	FormatBedrock Format = "bedrock"
	// FormatMCP is an MCP CallToolResult (isError on failure).
	// See the MCP schema 2025-11-25, CallToolResult.
	FormatMCP Format = "mcp"
)

// Formats returns the names of every wire format this build knows.
func Formats() []Format { return formats(format.Names()) }

func formats(names []string) []Format {
	out := make([]Format, len(names))
	for i, n := range names {
		out[i] = Format(n)
	}
	return out
}

// TranscriptFormats returns the formats whose whole message lists Check,
// Repair, Trim, NormalizeIDs and Convert read and write, in README order
// (every format with a transcript dialect in the provider table).
func TranscriptFormats() []Format { return formats(format.TranscriptNames()) }

// Outcome is one tool call and what came of it: exactly one of Error (an
// *Envelope) and Result (a *Result) is set. See the README, "Wire formats".
type Outcome = outcome.Outcome

// Call identifies the tool call an Outcome answers: ID (the provider's call
// id, "" where the format has none) and Name (the function name; Gemini needs
// it).
type Call = outcome.Call

// Result is a successful tool result: Kind Empty, Text, JSON (any JSON value
// but a string) or Blocks (text and image blocks).
type Result = outcome.Result

// Block is a text or image element of a Blocks result; image Data is standard
// base64.
type Block = outcome.Block

// ResultKind says what a Result holds.
type ResultKind = outcome.Kind

// The kinds of Result.
const (
	ResultEmpty  = outcome.Empty
	ResultText   = outcome.Text
	ResultJSON   = outcome.JSON
	ResultBlocks = outcome.Blocks
)

// Serialize returns the messages to append to f's history for one turn of
// outcomes, as value trees (map[string]any, []any, ...); pass them to
// canonical JSON or your SDK. Returns a *RequestError for an unknown format or
// an outcome the format cannot carry (for example a Gemini call without a
// name).
func Serialize(f Format, outs []Outcome) ([]any, error) {
	c, err := format.Named(string(f), "format")
	if err != nil {
		return nil, requestError("serialize", err)
	}
	msgs, err := c.Serialize(outs)
	if err != nil {
		return nil, requestError("serialize", err)
	}
	return msgs, nil
}

// MCPOptions is what the mcp format needs to know of the tool whose calls
// the outcomes answer.
type MCPOptions struct {
	// OutputSchema reports whether the tool declares an outputSchema (the
	// Tool's outputSchema in tools/list). False puts a failure's envelope in
	// structuredContent as well as in the text block; true leaves it to the
	// text block, since structuredContent must conform to the declared
	// schema (MCP schema 2026-07-28, CallToolResult) and
	// @modelcontextprotocol/sdk 1.x fails the call with -32602 when it does
	// not (modelcontextprotocol/typescript-sdk#2748). Serialize(FormatMCP,
	// ...), which knows nothing of the tool, writes what true writes.
	OutputSchema bool
}

// SerializeMCP returns one MCP CallToolResult per outcome, in order, as value
// trees, for a tool opts describes (see MCPOptions): Serialize(FormatMCP,
// outs) with what the tool declares taken into account. Errors are those of
// Serialize. The serialize op's output_schema member is the same switch.
//
// See the MCP schema 2025-11-25, CallToolResult.
func SerializeMCP(outs []Outcome, opts MCPOptions) ([]any, error) {
	msgs, err := mcp.Codec{NoOutputSchema: !opts.OutputSchema}.Serialize(outs)
	if err != nil {
		return nil, requestError("serialize", err)
	}
	return msgs, nil
}

// Parse reads f's tool-result messages back into outcomes; a failure comes
// back as Error: flagged by the format, or, in OpenAI's flagless strings,
// content that is exactly the text toolerr writes for an envelope with a
// registered code (anything else is a success; see the README, "Wire
// formats").
// Returns a *RequestError for an unknown format or messages that are not that
// format's tool results.
func Parse(f Format, msgs []any) ([]Outcome, error) {
	c, err := format.Named(string(f), "format")
	if err != nil {
		return nil, requestError("parse", err)
	}
	outs, err := format.Parse(c, msgs)
	if err != nil {
		return nil, requestError("parse", err)
	}
	for i := range outs {
		// what the reader learnt of an envelope is not handed on: the
		// caller may change it, and Serialize then sanitizes what it holds
		outs[i] = outcome.Plain(outs[i])
	}
	return outs, nil
}
