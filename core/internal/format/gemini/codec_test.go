package gemini

import (
	"testing"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/formattest"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

func timeoutEnv() *envelope.Envelope { return formattest.TimeoutEnv("TIMEOUT") }

var timeoutJSON = formattest.TimeoutText("TIMEOUT")

const png1x1 = formattest.PNG1x1

var ok = formattest.OK

func TestSerialize_shapes(t *testing.T) {
	formattest.TurnTable(t, Codec(), []formattest.Writes{
		{Name: "failure puts the envelope object under error", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "fc_7f3a", Name: "get_weather"}, Error: timeoutEnv()}},
			Want: `{"parts":[{"functionResponse":{"id":"fc_7f3a","name":"get_weather","response":{"error":` + timeoutJSON + `}}}],"role":"user"}`},
		{Name: "no id when the call had none", Outs: []outcome.Outcome{ok("", "get_time", outcome.Result{Kind: outcome.Text, Text: "10:00"})},
			Want: `{"parts":[{"functionResponse":{"name":"get_time","response":{"output":"10:00"}}}],"role":"user"}`},
		{Name: "B08 parallel responses in one content in call order", Outs: []outcome.Outcome{
			ok("", "get_time", outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"time": "10:00"}}),
			{Call: outcome.Call{Name: "get_weather"}, Error: timeoutEnv()}},
			Want: `{"parts":[{"functionResponse":{"name":"get_time","response":{"time":"10:00"}}},{"functionResponse":{"name":"get_weather","response":{"error":` + timeoutJSON + `}}}],"role":"user"}`},
		{Name: "B10 a list goes under output", Outs: []outcome.Outcome{ok("", "list_ids", outcome.Result{Kind: outcome.JSON, JSON: []any{1.0, 2.0, 3.0}})},
			Want: `{"parts":[{"functionResponse":{"name":"list_ids","response":{"output":[1,2,3]}}}],"role":"user"}`},
		{Name: "B10 null goes under output", Outs: []outcome.Outcome{ok("", "f", outcome.Result{Kind: outcome.JSON, JSON: nil})},
			Want: `{"parts":[{"functionResponse":{"name":"f","response":{"output":null}}}],"role":"user"}`},
		{Name: "object with an error key is wrapped, not read as failure", Outs: []outcome.Outcome{ok("", "f", outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"error": "none"}})},
			Want: `{"parts":[{"functionResponse":{"name":"f","response":{"output":{"error":"none"}}}}],"role":"user"}`},
		{Name: "empty result is an empty object", Outs: []outcome.Outcome{ok("", "f", outcome.Result{Kind: outcome.Empty})},
			Want: `{"parts":[{"functionResponse":{"name":"f","response":{}}}],"role":"user"}`},
		{Name: "image goes in FunctionResponse parts, text in output", Outs: []outcome.Outcome{ok("c1", "screenshot", outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "captured"}, {Type: "image", MediaType: "image/png", Data: png1x1}}})},
			Want: `{"parts":[{"functionResponse":{"id":"c1","name":"screenshot","parts":[{"inlineData":{"data":"` + png1x1 + `","mimeType":"image/png"}}],"response":{"output":"captured"}}}],"role":"user"}`},
	})
}

func TestSerialize_invalid(t *testing.T) {
	formattest.RefuseTable(t, Codec(), []formattest.Refuses{
		{Name: "missing name", Path: "results[0].call.name", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "x"}, Error: timeoutEnv()}}},
		{Name: "image data not base64", Path: "results[0].result.blocks[1].data", Outs: []outcome.Outcome{ok("", "f", outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "t"}, {Type: "image", MediaType: "image/png", Data: "abc"}}})}},
		{Name: "neither error nor result", Path: "results[0]", Outs: []outcome.Outcome{{Call: outcome.Call{Name: "f"}}}},
		{Name: "no outcome", Path: "results", Outs: nil},
	})
}

func TestParse_foreign(t *testing.T) {
	toolErr := func(msg string) *envelope.Envelope {
		return &envelope.Envelope{Code: "TOOL_ERROR", Message: msg, Details: map[string]any{}, Source: "tool"}
	}
	tests := []struct {
		name string
		msgs string
		want []outcome.Outcome
	}{
		{"B07 error string becomes TOOL_ERROR",
			`[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"error":"permission denied"}}}]}]`,
			[]outcome.Outcome{{Call: outcome.Call{Name: "f"}, Error: toolErr("permission denied.")}}},
		{"MCP bridge string of the Python SDK",
			`[{"functionResponse":{"name":"f","response":{"error":"MCP response is error."}}}]`,
			[]outcome.Outcome{{Call: outcome.Call{Name: "f"}, Error: toolErr("MCP response is error.")}}},
		{"error object with a message member",
			`[{"functionResponse":{"name":"f","response":{"error":{"message":"quota","code":7}}}}]`,
			[]outcome.Outcome{{Call: outcome.Call{Name: "f"}, Error: toolErr("quota.")}}},
		{"error null still a failure",
			`[{"functionResponse":{"name":"f","response":{"error":null,"output":"x"}}}]`,
			[]outcome.Outcome{{Call: outcome.Call{Name: "f"}, Error: toolErr("The tool reported an error without a message.")}}},
		{"snake_case field names",
			`[{"function_response":{"id":"a","name":"f","response":{"output":"hi"},"parts":[{"inline_data":{"mime_type":"image/png","data":"` + png1x1 + `"}}]}}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "a", Name: "f"}, Result: &outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "hi"}, {Type: "image", MediaType: "image/png", Data: png1x1}}}}}},
		{"no response is empty (the SDK omits an empty map)",
			`[{"functionResponse":{"name":"f"}}]`,
			[]outcome.Outcome{{Call: outcome.Call{Name: "f"}, Result: &outcome.Result{Kind: outcome.Empty}}}},
		{"object without output or error is a JSON result",
			`[{"role":"user","parts":[{"text":"note"},{"functionResponse":{"name":"f","response":{"time":"10:00"}}}]}]`,
			[]outcome.Outcome{{Call: outcome.Call{Name: "f"}, Result: &outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"time": "10:00"}}}}},
		{"blank output is empty",
			`[{"functionResponse":{"name":"f","response":{"output":"  "}}}]`,
			[]outcome.Outcome{{Call: outcome.Call{Name: "f"}, Result: &outcome.Result{Kind: outcome.Empty}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			formattest.Parses(t, Codec(), tc.msgs, tc.want)
		})
	}
}

func TestParse_invalid(t *testing.T) {
	tests := []struct{ name, msgs, path string }{
		{"model role", `[{"role":"model","parts":[]}]`, "messages[0].role"},
		{"no functionResponse", `[{"role":"user","parts":[{"text":"hi"}]}]`, "messages"},
		{"missing name", `[{"functionResponse":{"response":{}}}]`, "messages[0].functionResponse.name"},
		{"response an array", `[{"functionResponse":{"name":"f","response":[1]}}]`, "messages[0].functionResponse.response"},
		{"fileData part", `[{"functionResponse":{"name":"f","parts":[{"fileData":{"fileUri":"gs://x"}}]}}]`, "messages[0].functionResponse.parts[0]"},
		{"inlineData without mimeType", `[{"functionResponse":{"name":"f","parts":[{"inlineData":{"data":"AA=="}}]}}]`, "messages[0].functionResponse.parts[0].inlineData.mimeType"},
		{"parts not an array", `[{"role":"user","parts":{}}]`, "messages[0].parts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			formattest.ParseErrorAt(t, Codec(), tc.msgs, tc.path)
		})
	}
}
