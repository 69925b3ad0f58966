package core_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolerr/toolerr/core"
)

// A failed call becomes an OpenAI Chat tool message whose content is the
// whole envelope as canonical JSON text: OpenAI has no error flag.
func ExampleSerialize_openAIChat() {
	e, err := core.NewEnvelope(core.CodeTimeout, "Weather service timed out after 10 s.", map[string]any{"timeout_ms": 10000}, core.SourceTool)
	if err != nil {
		panic(err)
	}
	msgs, err := core.Serialize(core.FormatOpenAIChat, []core.Outcome{{Call: core.Call{ID: "call_abc123", Name: "get_weather"}, Error: &e}})
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(msgs[0])
	fmt.Println(string(b))
	// Output:
	// {"content":"{\"code\":\"TIMEOUT\",\"details\":{\"timeout_ms\":10000},\"message\":\"Weather service timed out after 10 s.\",\"retryable\":true,\"source\":\"tool\"}","role":"tool","tool_call_id":"call_abc123"}
}

// Parse recognises the envelope in a flagless OpenAI content string, so the
// failure flag survives a move to a provider that has one.
func ExampleParse_openAIChat() {
	msg := map[string]any{"role": "tool", "tool_call_id": "call_abc123",
		"content": `{"code":"TIMEOUT","details":{"timeout_ms":10000},"message":"Weather service timed out after 10 s.","retryable":true,"source":"tool"}`}
	outs, err := core.Parse(core.FormatOpenAIChat, []any{msg})
	if err != nil {
		panic(err)
	}
	fmt.Println(outs[0].Call.ID, outs[0].Error.Code, outs[0].Error.Retryable)
	// Output:
	// call_abc123 TIMEOUT true
}

// An image cannot go into a Chat tool message (text only), so the tool
// message says it follows and one user message carries it (BerriAI/litellm#6953).
func ExampleInvoke_serializeOpenAIChatImage() {
	resp := core.Invoke([]byte(`{"op":"serialize","format":"openai-chat","call":{"id":"call_7"},
		"result":{"blocks":[{"type":"text","text":"captured"},{"type":"image","media_type":"image/gif","data":"R0lGOA=="}]}}`))
	fmt.Println(string(resp))
	// Output:
	// {"ok":[{"content":"captured\n[1 image from this tool result is attached in the next message]","role":"tool","tool_call_id":"call_7"},{"content":[{"text":"Image 1 of 1 from tool call call_7:","type":"text"},{"image_url":{"url":"data:image/gif;base64,R0lGOA=="},"type":"image_url"}],"role":"user"}]}
}

// The Responses API carries JSON as canonical text with literal non-ASCII
// characters (microsoft/autogen#7730), and an empty result as a placeholder (stacklok/mecatl#291).
func ExampleInvoke_serializeOpenAIResponses() {
	resp := core.Invoke([]byte(`{"op":"serialize","format":"openai-responses","results":[
		{"call":{"id":"call_1"},"result":{"json":{"city":"東京"}}},
		{"call":{"id":"call_2"},"result":{}}]}`))
	fmt.Println(string(resp))
	// Output:
	// {"ok":[{"call_id":"call_1","output":"{\"city\":\"東京\"}","type":"function_call_output"},{"call_id":"call_2","output":"(empty result)","type":"function_call_output"}]}
}

// An MCP CallToolResult flags a failure with isError and keeps the envelope in
// a text block; without output_schema (nothing known of the tool) or with
// true (the tool declares an outputSchema) nothing goes into
// structuredContent.
func ExampleInvoke_serializeMCP() {
	resp := core.Invoke([]byte(`{"op":"serialize","format":"mcp","call":{"name":"get_weather"},
		"error":{"code":"NOT_FOUND","message":"No city named Atlantis.","retryable":false,"details":{},"source":"tool"}}`))
	fmt.Println(string(resp))
	// Output:
	// {"ok":[{"content":[{"text":"{\"code\":\"NOT_FOUND\",\"details\":{},\"message\":\"No city named Atlantis.\",\"retryable\":false,\"source\":\"tool\"}","type":"text"}],"isError":true,"resultType":"complete"}]}
}

// A tool that declares no outputSchema (output_schema false) also gets the
// envelope as its structuredContent.
func ExampleInvoke_serializeMCPNoOutputSchema() {
	resp := core.Invoke([]byte(`{"op":"serialize","format":"mcp","output_schema":false,"call":{"name":"get_weather"},
		"error":{"code":"NOT_FOUND","message":"No city named Atlantis.","retryable":false,"details":{},"source":"tool"}}`))
	fmt.Println(string(resp))
	// Output:
	// {"ok":[{"content":[{"text":"{\"code\":\"NOT_FOUND\",\"details\":{},\"message\":\"No city named Atlantis.\",\"retryable\":false,\"source\":\"tool\"}","type":"text"}],"isError":true,"resultType":"complete","structuredContent":{"code":"NOT_FOUND","details":{},"message":"No city named Atlantis.","retryable":false,"source":"tool"}}]}
}

// SerializeMCP writes the CallToolResult of a failure for a tool whose
// declared outputSchema (or its absence) the caller knows, as an MCP SDK's
// Tool does.
func ExampleSerializeMCP() {
	env := core.Envelope{Code: "NOT_FOUND", Message: "No city named Atlantis.", Details: map[string]any{}, Source: core.SourceTool}
	for _, declared := range []bool{false, true} {
		msgs, err := core.SerializeMCP([]core.Outcome{{Error: &env}}, core.MCPOptions{OutputSchema: declared})
		if err != nil {
			fmt.Println(err)
			return
		}
		_, structured := msgs[0].(map[string]any)["structuredContent"]
		fmt.Printf("outputSchema declared %v: structuredContent %v\n", declared, structured)
	}
	// Output:
	// outputSchema declared false: structuredContent true
	// outputSchema declared true: structuredContent false
}
