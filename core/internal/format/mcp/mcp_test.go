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
	tests := []struct {
		name string
		in   outcome.Outcome
		want string
	}{
		{"failure: isError, envelope text, no structuredContent", outcome.Outcome{Call: call, Error: timeoutEnv()},
			`{"content":[{"text":` + string(canonical.AppendString(nil, timeoutText)) + `,"type":"text"}],"isError":true,"resultType":"complete"}`},
		{"text", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Text, Text: "Sunny"})},
			`{"content":[{"text":"Sunny","type":"text"}],"resultType":"complete"}`},
		{"json object: text and structuredContent", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"city": "東京", "t": 21.5}})},
			`{"content":[{"text":"{\"city\":\"東京\",\"t\":21.5}","type":"text"}],"resultType":"complete","structuredContent":{"city":"東京","t":21.5}}`},
		{"json array: text only", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: []any{1.0, 2.0}})},
			`{"content":[{"text":"[1,2]","type":"text"}],"resultType":"complete"}`},
		{"empty: placeholder block, never an empty one (B12)", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Empty})},
			`{"content":[{"text":"(empty result)","type":"text"}],"resultType":"complete"}`},
		{"blocks: text and image", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "captured"}, {Type: "text", Text: ""}, {Type: "image", MediaType: "image/png", Data: png1x1}}})},
			`{"content":[{"text":"captured","type":"text"},{"data":"` + png1x1 + `","mimeType":"image/png","type":"image"}],"resultType":"complete"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Codec{}.Serialize([]outcome.Outcome{tc.in})
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, tc.want, marshal(t, got[0]))
		})
	}
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
	tests := []struct {
		name string
		outs []outcome.Outcome
		path string
	}{
		{"neither", []outcome.Outcome{{}}, "results[0]"},
		{"both", []outcome.Outcome{{Error: timeoutEnv(), Result: res(outcome.Result{})}}, "results[0]"},
		{"image data not base64", []outcome.Outcome{{Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/png", Data: "a b"}}})}}, "results[0].result.blocks[0].data"},
		{"image without media type", []outcome.Outcome{{Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", Data: "AAAA"}}})}}, "results[0].result.blocks[0].media_type"},
		{"unknown block", []outcome.Outcome{{Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "audio"}}})}}, "results[0].result.blocks[0].type"},
		{"json infinity", []outcome.Outcome{{Result: res(outcome.Result{Kind: outcome.JSON, JSON: math.Inf(1)})}}, "results[0].result.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Codec{}.Serialize(tc.outs)
			formattest.ErrorAt(t, err, tc.path)
		})
	}
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
