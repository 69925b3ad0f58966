package core_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolerr/toolerr/core"
)

func printJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(string(b))
}

// A failed and a successful call of one turn become one Anthropic user
// message; the failure carries the whole envelope and is_error.
func ExampleSerialize() {
	fail := core.Envelope{Code: core.CodeTimeout, Message: "Weather service timed out after 10s.", Retryable: true,
		Details: map[string]any{"timeout_ms": 10000}, Source: core.SourceTool}
	msgs, err := core.Serialize(core.FormatAnthropic, []core.Outcome{
		{Call: core.Call{ID: "toolu_A", Name: "get_weather"}, Error: &fail},
		{Call: core.Call{ID: "toolu_B", Name: "search"}, Result: &core.Result{Kind: core.ResultText, Text: "3 hits"}},
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	printJSON(msgs)
	// Output:
	// [{"content":[{"content":"{\"code\":\"TIMEOUT\",\"details\":{\"timeout_ms\":10000},\"message\":\"Weather service timed out after 10s.\",\"retryable\":true,\"source\":\"tool\"}","is_error":true,"tool_use_id":"toolu_A","type":"tool_result"},{"content":"3 hits","tool_use_id":"toolu_B","type":"tool_result"}],"role":"user"}]
}

// Gemini gets the envelope as an object under response.error, and a list
// result under response.output; the id is copied only when the call had one.
func ExampleSerialize_gemini() {
	fail := core.Envelope{Code: core.CodeInvalidArgs, Message: "The city is missing; give a city name.",
		Details: map[string]any{"path": "city"}, Source: core.SourceTool}
	msgs, err := core.Serialize(core.FormatGemini, []core.Outcome{
		{Call: core.Call{ID: "fc_1", Name: "get_weather"}, Error: &fail},
		{Call: core.Call{Name: "list_ids"}, Result: &core.Result{Kind: core.ResultJSON, JSON: []any{1, 2, 3}}},
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	printJSON(msgs)
	// Output:
	// [{"parts":[{"functionResponse":{"id":"fc_1","name":"get_weather","response":{"error":{"code":"INVALID_ARGS","details":{"path":"city"},"message":"The city is missing; give a city name.","retryable":false,"source":"tool"}}}},{"functionResponse":{"name":"list_ids","response":{"output":[1,2,3]}}}],"role":"user"}]
}

// Bedrock gets status "error" and the envelope as a json block.
func ExampleSerialize_bedrock() {
	fail := core.Envelope{Code: core.CodeRateLimited, Message: "Weather API returned 429 after 3 attempts.", Retryable: true,
		Details: map[string]any{"retry_after_seconds": 12}, Source: core.SourceTool}
	msgs, err := core.Serialize(core.FormatBedrock, []core.Outcome{{Call: core.Call{ID: "tooluse_1"}, Error: &fail}})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	printJSON(msgs)
	// Output:
	// [{"content":[{"toolResult":{"content":[{"json":{"code":"RATE_LIMITED","details":{"retry_after_seconds":12},"message":"Weather API returned 429 after 3 attempts.","retryable":true,"source":"tool"}}],"status":"error","toolUseId":"tooluse_1"}}],"role":"user"}]
}

// Parse restores the failure flag from another library's history: plain text
// with is_error becomes a TOOL_ERROR envelope, a real envelope comes back
// exactly, and a success keeps its text.
func ExampleParse() {
	history := []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_X", "is_error": true, "content": "File not found: missing.txt"},
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_B", "content": "3 hits"},
	}}}
	outs, err := core.Parse(core.FormatAnthropic, history)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, o := range outs {
		if o.Error != nil {
			fmt.Println(o.Call.ID, "failed:", o.Error.Code, o.Error.Retryable, o.Error.Message)
		} else {
			fmt.Println(o.Call.ID, "succeeded:", o.Result.Text)
		}
	}
	// Output:
	// toolu_X failed: TOOL_ERROR false File not found: missing.txt.
	// toolu_B succeeded: 3 hits
}
