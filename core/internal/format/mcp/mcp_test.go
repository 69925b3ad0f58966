package mcp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/formattest"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

const png1x1 = formattest.PNG1x1

func timeoutEnv() *envelope.Envelope { return formattest.TimeoutEnv("UPSTREAM_TIMEOUT") }

var timeoutText = formattest.TimeoutText("UPSTREAM_TIMEOUT")

var res, marshal = formattest.Res, formattest.Marshal

func TestSerialize_shapes(t *testing.T) {
	call := outcome.Call{Name: "get_weather"}
	formattest.ItemTable(t, Codec{}, []formattest.Item{
		{Name: "failure: isError, envelope text, no structuredContent", In: outcome.Outcome{Call: call, Error: timeoutEnv()},
			Want: `{"content":[{"text":` + string(canonical.AppendString(nil, timeoutText)) + `,"type":"text"}],"isError":true,"resultType":"complete"}`},
		{Name: "text", In: outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Text, Text: "Sunny"})},
			Want: `{"content":[{"text":"Sunny","type":"text"}],"resultType":"complete"}`},
		{Name: "json object: text and structuredContent", In: outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"city": "東京", "t": 21.5}})},
			Want: `{"content":[{"text":"{\"city\":\"東京\",\"t\":21.5}","type":"text"}],"resultType":"complete","structuredContent":{"city":"東京","t":21.5}}`},
		{Name: "json array: text only", In: outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: []any{1.0, 2.0}})},
			Want: `{"content":[{"text":"[1,2]","type":"text"}],"resultType":"complete"}`},
		{Name: "empty: placeholder block, never an empty one (B12)", In: outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Empty})},
			Want: `{"content":[{"text":"(empty result)","type":"text"}],"resultType":"complete"}`},
		{Name: "blocks: text and image", In: outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "captured"}, {Type: "text", Text: ""}, {Type: "image", MediaType: "image/png", Data: png1x1}}})},
			Want: `{"content":[{"text":"captured","type":"text"},{"data":"` + png1x1 + `","mimeType":"image/png","type":"image"}],"resultType":"complete"}`},
	})
}

// TestSerialize_noOutputSchema: a tool known to declare no outputSchema gets
// the envelope as structuredContent too, the same sanitized object as the
// text; successes are as without it.
func TestSerialize_noOutputSchema(t *testing.T) {
	c := Codec{NoOutputSchema: true}
	env := &envelope.Envelope{Code: "TOOL_ERROR", Message: "Fetch failed: Authorization: Bearer PLACEHOLDER_TOKEN", Details: map[string]any{"tool": "fetch"}, Source: "tool"}
	got, err := c.Serialize([]outcome.Outcome{{Error: env}, {Result: res(outcome.Result{Kind: outcome.Text, Text: "Sunny"})}})
	require.NoError(t, err)
	require.Len(t, got, 2)
	f := got[0].(map[string]any)
	safe := `{"code":"TOOL_ERROR","details":{"tool":"fetch"},"message":"Fetch failed: Authorization: Bearer [REDACTED].","retryable":false,"source":"tool"}`
	assert.Equal(t, `{"content":[{"text":`+string(canonical.AppendString(nil, safe))+`,"type":"text"}],"isError":true,"resultType":"complete","structuredContent":`+safe+`}`, marshal(t, f))
	assert.Equal(t, `{"content":[{"text":"Sunny","type":"text"}],"resultType":"complete"}`, marshal(t, got[1]))

	back, err := Codec{}.Parse(got)
	require.NoError(t, err)
	require.NotNil(t, back[0].Error)
	assert.Equal(t, "TOOL_ERROR", string(back[0].Error.Code))
	again, err := c.Serialize(back)
	require.NoError(t, err)
	assert.Equal(t, marshal(t, got), marshal(t, again), "serialize(parse(x)) == x with structuredContent")

	// A value JSON cannot carry in details fails the whole result, not half of it.
	_, err = c.Serialize([]outcome.Outcome{{Error: &envelope.Envelope{Code: "TOOL_ERROR", Message: "m", Details: map[string]any{"x": math.NaN()}, Source: "tool"}}})
	require.Error(t, err)
}

func TestSerialize_errors(t *testing.T) {
	formattest.RefuseTable(t, Codec{}, []formattest.Refuses{
		{Name: "neither", Outs: []outcome.Outcome{{}}, Path: "results[0]"},
		{Name: "both", Outs: []outcome.Outcome{{Error: timeoutEnv(), Result: res(outcome.Result{})}}, Path: "results[0]"},
		{Name: "image data not base64", Outs: []outcome.Outcome{{Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/png", Data: "a b"}}})}}, Path: "results[0].result.blocks[0].data"},
		{Name: "image without media type", Outs: []outcome.Outcome{{Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", Data: "AAAA"}}})}}, Path: "results[0].result.blocks[0].media_type"},
		{Name: "unknown block", Outs: []outcome.Outcome{{Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "audio"}}})}}, Path: "results[0].result.blocks[0].type"},
		{Name: "json infinity", Outs: []outcome.Outcome{{Result: res(outcome.Result{Kind: outcome.JSON, JSON: math.Inf(1)})}}, Path: "results[0].result.json"},
	})
}

func TestParse_roundTrip(t *testing.T) {
	img := outcome.Block{Type: "image", MediaType: "image/jpeg", Data: "/9j/"}
	tests := []struct {
		name string
		in   outcome.Outcome
		want outcome.Outcome
	}{
		{"failure exact, call dropped", outcome.Outcome{Call: outcome.Call{ID: "1", Name: "f"}, Error: timeoutEnv()}, outcome.Outcome{Error: timeoutEnv()}},
		{"text exact", outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Text, Text: timeoutText})}, outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Text, Text: timeoutText})}},
		{"empty exact", outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Empty})}, outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Empty})}},
		{"json object exact", outcome.Outcome{Result: res(outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"a": 1.0}})}, outcome.Outcome{Result: res(outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"a": 1.0}})}},
		{"json number becomes text", outcome.Outcome{Result: res(outcome.Result{Kind: outcome.JSON, JSON: 3.0})}, outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Text, Text: "3"})}},
		{"blocks exact", outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "a"}, img, {Type: "text", Text: "b"}}})},
			outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "a"}, img, {Type: "text", Text: "b"}}})}},
		{"one text block becomes text", outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "a"}}})}, outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Text, Text: "a"})}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			formattest.RoundTrip(t, Codec{}, tc.in, tc.want)
		})
	}
}

func TestParse_foreign(t *testing.T) {
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	toolErr := func(msg string, details map[string]any) *envelope.Envelope {
		return &envelope.Envelope{Code: envelope.ToolError, Message: msg, Details: details, Source: envelope.SourceTool}
	}
	tests := []struct {
		name string
		msg  map[string]any
		want outcome.Outcome
	}{
		{"isError with plain text keeps the flag (B07)", map[string]any{"content": []any{text("permission denied")}, "isError": true},
			outcome.Outcome{Error: toolErr("permission denied.", map[string]any{})}},
		{"isError with image counts it", map[string]any{"content": []any{text("bad"), map[string]any{"type": "image", "data": "AAAA", "mimeType": "image/png"}}, "isError": true},
			outcome.Outcome{Error: toolErr("bad.", map[string]any{"images_omitted": 1})}},
		{"isError with no content", map[string]any{"content": []any{}, "isError": true},
			outcome.Outcome{Error: toolErr("The tool reported an error without a message.", map[string]any{})}},
		{"envelope text without isError is text", map[string]any{"content": []any{text(timeoutText)}},
			outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Text, Text: timeoutText})}},
		{"no content is empty", map[string]any{"content": []any{}, "isError": false},
			outcome.Outcome{Result: res(outcome.Result{Kind: outcome.Empty})}},
		{"structuredContent wins", map[string]any{"content": []any{}, "structuredContent": map[string]any{"x": true}},
			outcome.Outcome{Result: res(outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"x": true}})}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Codec{}.Parse([]any{tc.msg})
			require.NoError(t, err)
			assert.Equal(t, []outcome.Outcome{tc.want}, got)
		})
	}
}

func TestParse_errors(t *testing.T) {
	tests := []struct {
		name string
		msg  any
		path string
	}{
		{"not an object", "x", "messages[0]"},
		{"missing content", map[string]any{}, "messages[0].content"},
		{"content an object", map[string]any{"content": map[string]any{}}, "messages[0].content"},
		{"isError a string", map[string]any{"content": []any{}, "isError": "yes"}, "messages[0].isError"},
		{"resultType a number", map[string]any{"content": []any{}, "resultType": 1.0}, "messages[0].resultType"},
		{"block without type", map[string]any{"content": []any{map[string]any{"text": "x"}}}, "messages[0].content[0].type"},
		{"audio block", map[string]any{"content": []any{map[string]any{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}}}, "messages[0].content[0].type"},
		{"text block without text", map[string]any{"content": []any{map[string]any{"type": "text"}}}, "messages[0].content[0].text"},
		{"image without mimeType", map[string]any{"content": []any{map[string]any{"type": "image", "data": "AAAA"}}}, "messages[0].content[0].mimeType"},
		{"image data not base64", map[string]any{"content": []any{map[string]any{"type": "image", "data": "A", "mimeType": "image/png"}}}, "messages[0].content[0].data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Codec{}.Parse([]any{tc.msg})
			formattest.ErrorAt(t, err, tc.path)
		})
	}
}
