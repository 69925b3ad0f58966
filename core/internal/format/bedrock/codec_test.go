package bedrock

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/formattest"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

func timeoutEnv() *envelope.Envelope { return formattest.TimeoutEnv("TIMEOUT") }

var timeoutJSON = formattest.TimeoutText("TIMEOUT")

const png1x1 = formattest.PNG1x1

func ok(id string, r outcome.Result) outcome.Outcome { return formattest.OK(id, "f", r) }

func TestSerialize_shapes(t *testing.T) {
	formattest.TurnTable(t, Codec(), []formattest.Writes{
		{Name: "failure has status error and the envelope as a json block", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"}, Error: timeoutEnv()}},
			Want: `{"content":[{"toolResult":{"content":[{"json":` + timeoutJSON + `}],"status":"error","toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"}}],"role":"user"}`},
		{Name: "text success has no status", Outs: []outcome.Outcome{ok("t1", outcome.Result{Kind: outcome.Text, Text: "permission granted"})},
			Want: `{"content":[{"toolResult":{"content":[{"text":"permission granted"}],"toolUseId":"t1"}}],"role":"user"}`},
		{Name: "JSON object is a json block", Outs: []outcome.Outcome{ok("t1", outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"song": "x"}})},
			Want: `{"content":[{"toolResult":{"content":[{"json":{"song":"x"}}],"toolUseId":"t1"}}],"role":"user"}`},
		{Name: "JSON array goes under output", Outs: []outcome.Outcome{ok("t1", outcome.Result{Kind: outcome.JSON, JSON: []any{1.0, "a"}})},
			Want: `{"content":[{"toolResult":{"content":[{"json":{"output":[1,"a"]}}],"toolUseId":"t1"}}],"role":"user"}`},
		{Name: "empty result is the placeholder text", Outs: []outcome.Outcome{ok("t1", outcome.Result{Kind: outcome.Empty})},
			Want: `{"content":[{"toolResult":{"content":[{"text":"(empty result)"}],"toolUseId":"t1"}}],"role":"user"}`},
		{Name: "B13 image is an image block with base64 bytes", Outs: []outcome.Outcome{ok("toolu_I", outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "captured"}, {Type: "image", MediaType: "image/png", Data: png1x1}}})},
			Want: `{"content":[{"toolResult":{"content":[{"text":"captured"},{"image":{"format":"png","source":{"bytes":"` + png1x1 + `"}}}],"toolUseId":"toolu_I"}}],"role":"user"}`},
		{Name: "parallel results in call order in one message", Outs: []outcome.Outcome{ok("a", outcome.Result{Kind: outcome.Text, Text: "1"}), {Call: outcome.Call{ID: "b"}, Error: timeoutEnv()}},
			Want: `{"content":[{"toolResult":{"content":[{"text":"1"}],"toolUseId":"a"}},{"toolResult":{"content":[{"json":` + timeoutJSON + `}],"status":"error","toolUseId":"b"}}],"role":"user"}`},
	})
}

func TestSerialize_invalid(t *testing.T) {
	formattest.RefuseTable(t, Codec(), []formattest.Refuses{
		{Name: "missing id", Path: "results[0].call.id", Outs: []outcome.Outcome{{Error: timeoutEnv()}}},
		{Name: "id with a dot (botocore allows it, the API reference does not)", Path: "results[0].call.id", Outs: []outcome.Outcome{ok("a.b", outcome.Result{})}},
		{Name: "id of 65 characters", Path: "results[0].call.id", Outs: []outcome.Outcome{ok(strings.Repeat("a", 65), outcome.Result{})}},
		{Name: "image type Bedrock has no format for", Path: "results[0].result.blocks[0].media_type", Outs: []outcome.Outcome{ok("t", outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/svg+xml", Data: png1x1}}})}},
		{Name: "both error and result", Path: "results[0]", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "t"}, Error: timeoutEnv(), Result: &outcome.Result{}}}},
	})
	_, err := Codec().Serialize([]outcome.Outcome{ok(strings.Repeat("a", 64), outcome.Result{})})
	assert.NoError(t, err, "64 characters is the limit")
}

func TestParse_foreign(t *testing.T) {
	tests := []struct {
		name string
		msgs string
		want []outcome.Outcome
	}{
		{"B07 status error with plain text becomes TOOL_ERROR",
			`[{"toolResult":{"toolUseId":"toolu_X","status":"error","content":[{"text":"permission denied"}]}}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "toolu_X"}, Error: &envelope.Envelope{Code: "TOOL_ERROR", Message: "permission denied.", Details: map[string]any{}, Source: "tool"}}}},
		{"envelope text in a text block with status error",
			`[{"role":"user","content":[{"toolResult":{"toolUseId":"t","status":"error","content":[{"text":` + string(canonical.AppendString(nil, timeoutJSON)) + `}]}}]}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "t"}, Error: timeoutEnv()}}},
		{"status success is a success",
			`[{"toolResult":{"toolUseId":"t","status":"success","content":[{"text":"ok"}]}}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "t"}, Result: &outcome.Result{Kind: outcome.Text, Text: "ok"}}}},
		{"envelope json without status error stays a success",
			`[{"toolResult":{"toolUseId":"t","content":[{"json":` + timeoutJSON + `}]}}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "t"}, Result: &outcome.Result{Kind: outcome.JSON, JSON: timeoutEnv().Value()}}}},
		{"empty text and empty content are empty",
			`[{"toolResult":{"toolUseId":"a","content":[{"text":""}]}},{"toolResult":{"toolUseId":"b","content":[]}}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "a"}, Result: &outcome.Result{Kind: outcome.Empty}}, {Call: outcome.Call{ID: "b"}, Result: &outcome.Result{Kind: outcome.Empty}}}},
		{"json among several blocks becomes text",
			`[{"toolResult":{"toolUseId":"t","content":[{"text":"a"},{"json":{"b":1}}]}}]`,
			[]outcome.Outcome{{Call: outcome.Call{ID: "t"}, Result: &outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "a"}, {Type: "text", Text: `{"b":1}`}}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			formattest.Parses(t, Codec(), tc.msgs, tc.want)
		})
	}
}

func TestParse_invalid(t *testing.T) {
	tests := []struct{ name, msgs, path string }{
		{"assistant role", `[{"role":"assistant","content":[]}]`, "messages[0].role"},
		{"no toolResult", `[{"role":"user","content":[{"text":"hi"}]}]`, "messages"},
		{"missing toolUseId", `[{"toolResult":{"content":[]}}]`, "messages[0].toolResult.toolUseId"},
		{"unknown status", `[{"toolResult":{"toolUseId":"t","status":"failed","content":[]}}]`, "messages[0].toolResult.status"},
		{"two union members", `[{"toolResult":{"toolUseId":"t","content":[{"text":"a","json":{}}]}}]`, "messages[0].toolResult.content[0]"},
		{"document block without a format", `[{"toolResult":{"toolUseId":"t","content":[{"document":{}}]}}]`, "messages[0].toolResult.content[0].document.format"},
		{"image format bmp", `[{"toolResult":{"toolUseId":"t","content":[{"image":{"format":"bmp","source":{"bytes":"AA=="}}}]}}]`, "messages[0].toolResult.content[0].image.format"},
		{"s3 image source", `[{"toolResult":{"toolUseId":"t","content":[{"image":{"format":"png","source":{"s3Location":{}}}}]}}]`, "messages[0].toolResult.content[0].image.source.bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			formattest.ParseErrorAt(t, Codec(), tc.msgs, tc.path)
		})
	}
}
