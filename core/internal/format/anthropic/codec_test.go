package anthropic

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/formattest"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// timeoutEnv is the running example of the README's wire-format table, already sanitized.
func timeoutEnv() *envelope.Envelope { return formattest.TimeoutEnv("TIMEOUT") }

// timeoutText is its canonical text as it stands inside a JSON string.
var timeoutText = strings.ReplaceAll(formattest.TimeoutText("TIMEOUT"), `"`, `\"`)

const png1x1 = formattest.PNG1x1

func result(id string, r outcome.Result) outcome.Outcome { return formattest.OK(id, "get_weather", r) }

func TestSerialize_shapes(t *testing.T) {
	formattest.TurnTable(t, Codec(), []formattest.Writes{
		{Name: "failure carries the envelope text and is_error", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "toolu_01A", Name: "get_weather"}, Error: timeoutEnv()}},
			Want: `{"content":[{"content":"` + timeoutText + `","is_error":true,"tool_use_id":"toolu_01A","type":"tool_result"}],"role":"user"}`},
		{Name: "not retryable failure still sets is_error", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "t1"}, Error: &envelope.Envelope{Code: "INVALID_ARGS", Message: "City is required.", Source: envelope.SourceTool}}},
			Want: `{"content":[{"content":"{\"code\":\"INVALID_ARGS\",\"details\":{},\"message\":\"City is required.\",\"retryable\":false,\"source\":\"tool\"}","is_error":true,"tool_use_id":"t1","type":"tool_result"}],"role":"user"}`},
		{Name: "text success omits is_error", Outs: []outcome.Outcome{result("toolu_B", outcome.Result{Kind: outcome.Text, Text: "3 hits"})},
			Want: `{"content":[{"content":"3 hits","tool_use_id":"toolu_B","type":"tool_result"}],"role":"user"}`},
		{Name: "JSON success is canonical text with literal non-ASCII", Outs: []outcome.Outcome{result("t", outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"note": "naïve", "city": "東京"}})},
			Want: `{"content":[{"content":"{\"city\":\"東京\",\"note\":\"naïve\"}","tool_use_id":"t","type":"tool_result"}],"role":"user"}`},
		{Name: "empty result omits content", Outs: []outcome.Outcome{result("toolu_E", outcome.Result{Kind: outcome.Empty})},
			Want: `{"content":[{"tool_use_id":"toolu_E","type":"tool_result"}],"role":"user"}`},
		{Name: "blank text omits content", Outs: []outcome.Outcome{result("toolu_E", outcome.Result{Kind: outcome.Text, Text: " \n"})},
			Want: `{"content":[{"tool_use_id":"toolu_E","type":"tool_result"}],"role":"user"}`},
		{Name: "only an empty text block omits content", Outs: []outcome.Outcome{result("toolu_E", outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text"}}})},
			Want: `{"content":[{"tool_use_id":"toolu_E","type":"tool_result"}],"role":"user"}`},
		{Name: "text and image stay in the tool_result", Outs: []outcome.Outcome{result("toolu_I", outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "captured"}, {Type: "text", Text: ""}, {Type: "image", MediaType: "image/png", Data: png1x1}}})},
			Want: `{"content":[{"content":[{"text":"captured","type":"text"},{"source":{"data":"` + png1x1 + `","media_type":"image/png","type":"base64"},"type":"image"}],"tool_use_id":"toolu_I","type":"tool_result"}],"role":"user"}`},
		{Name: "parallel results in call order in one message", Outs: []outcome.Outcome{
			{Call: outcome.Call{ID: "toolu_A"}, Error: &envelope.Envelope{Code: "NO_RESULT", Message: "No result was recorded for this tool call.", Source: envelope.SourceOrchestrator}},
			result("toolu_B", outcome.Result{Kind: outcome.Text, Text: "3 hits"})},
			Want: `{"content":[{"content":"{\"code\":\"NO_RESULT\",\"details\":{},\"message\":\"No result was recorded for this tool call.\",\"retryable\":false,\"source\":\"orchestrator\"}","is_error":true,"tool_use_id":"toolu_A","type":"tool_result"},{"content":"3 hits","tool_use_id":"toolu_B","type":"tool_result"}],"role":"user"}`},
	})
}

func TestSerialize_invalid(t *testing.T) {
	formattest.RefuseTable(t, Codec(), []formattest.Refuses{
		{Name: "missing id", Path: "results[0].call.id", Outs: []outcome.Outcome{{Error: timeoutEnv()}}},
		{Name: "id with a colon", Path: "results[1].call.id", Outs: []outcome.Outcome{result("ok", outcome.Result{}), result("call:1", outcome.Result{})}},
		{Name: "neither error nor result", Path: "results[0]", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "t"}}}},
		{Name: "both error and result", Path: "results[0]", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "t"}, Error: timeoutEnv(), Result: &outcome.Result{}}}},
		{Name: "image type Anthropic rejects", Path: "results[0].result.blocks[0].media_type", Outs: []outcome.Outcome{result("t", outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/bmp", Data: png1x1}}})}},
		{Name: "image data not base64", Path: "results[0].result.blocks[0].data", Outs: []outcome.Outcome{result("t", outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/png", Data: "not base64!"}}})}},
		{Name: "no outcome", Path: "results", Outs: nil},
	})
}

func TestParse_foreign(t *testing.T) {
	tests := []struct {
		name string
		msgs string
		want []outcome.Outcome
	}{
		{"B06 plain text with is_error becomes TOOL_ERROR",
			`[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_X","content":"File not found: missing.txt","is_error":true}]}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "toolu_X"}, Error: &envelope.Envelope{Code: "TOOL_ERROR", Message: "File not found: missing.txt.", Details: map[string]any{}, Source: "tool"}}}},
		{"B03 text block after results is skipped and SDK list content is read",
			`[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_B","content":[{"type":"text","text":"3 hits"}]},{"type":"text","text":"continue"}]}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "toolu_B"}, Result: &outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "3 hits"}}}}}},
		{"envelope in a text block list with is_error",
			`[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":[{"type":"text","text":"` + timeoutText + `"}]}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "t"}, Error: timeoutEnv()}}},
		{"is_error without content names no message",
			`[{"type":"tool_result","tool_use_id":"t","is_error":true}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "t"}, Error: &envelope.Envelope{Code: "TOOL_ERROR", Message: "The tool reported an error without a message.", Details: map[string]any{}, Source: "tool"}}}},
		{"B12 placeholder reads as empty",
			`[{"type":"tool_result","tool_use_id":"toolu_E","content":"(empty result)"}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "toolu_E"}, Result: &outcome.Result{Kind: outcome.Empty}}}},
		{"is_error false is a success",
			`[{"type":"tool_result","tool_use_id":"t","is_error":false,"content":"ok"}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "t"}, Result: &outcome.Result{Kind: outcome.Text, Text: "ok"}}}},
		{"a plain user text message is skipped",
			`[{"role":"user","content":"hello"},{"type":"tool_result","tool_use_id":"t","content":"[1,2]"}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "t"}, Result: &outcome.Result{Kind: outcome.JSON, JSON: []any{1.0, 2.0}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			formattest.Parses(t, Codec(), tc.msgs, tc.want)
		})
	}
}

func TestParse_invalid(t *testing.T) {
	tests := []struct{ name, msgs, path string }{
		{"not an object", `[1]`, "messages[0]"},
		{"assistant role", `[{"role":"assistant","content":[]}]`, "messages[0].role"},
		{"no tool_result", `[{"role":"user","content":[{"type":"text","text":"hi"}]}]`, "messages"},
		{"missing tool_use_id", `[{"type":"tool_result","content":"x"}]`, "messages[0].tool_use_id"},
		{"is_error not a boolean", `[{"type":"tool_result","tool_use_id":"t","is_error":"yes"}]`, "messages[0].is_error"},
		{"content a number", `[{"type":"tool_result","tool_use_id":"t","content":5}]`, "messages[0].content"},
		{"document block without a source", `[{"type":"tool_result","tool_use_id":"t","content":[{"type":"document"}]}]`, "messages[0].content[0].source"},
		{"image with a file source", `[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]`, "messages[0].content[0].source.type"},
		{"content missing in a message", `[{"role":"user"}]`, "messages[0].content"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			formattest.ParseErrorAt(t, Codec(), tc.msgs, tc.path)
		})
	}
}

func TestSerialize_placeholderTextIsEmpty(t *testing.T) {
	outs := []outcome.Outcome{{Call: outcome.Call{ID: "toolu_E"}, Result: &outcome.Result{Kind: outcome.Text, Text: outcome.EmptyPlaceholder}}}
	msgs, err := Codec().Serialize(outs)
	require.NoError(t, err)
	b, err := canonical.Marshal(msgs)
	require.NoError(t, err)
	require.Equal(t, `[{"content":[{"tool_use_id":"toolu_E","type":"tool_result"}],"role":"user"}]`, string(b))
	back, err := Codec().Parse(msgs)
	require.NoError(t, err)
	again, err := Codec().Serialize(back)
	require.NoError(t, err)
	b2, _ := canonical.Marshal(again)
	require.Equal(t, string(b), string(b2))
}
