package openaichat

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/formattest"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

const png1x1 = formattest.PNG1x1

func timeoutEnv() *envelope.Envelope { return formattest.TimeoutEnv(envelope.Timeout) }

var timeoutText = formattest.TimeoutText(envelope.Timeout)

var res, marshal = formattest.Res, formattest.Marshal

func TestSerialize_shapes(t *testing.T) {
	call := outcome.Call{ID: "call_abc123", Name: "get_weather"}
	tests := []struct {
		name string
		outs []outcome.Outcome
		want string
	}{
		{"failure is the five-key envelope text", []outcome.Outcome{{Call: call, Error: timeoutEnv()}},
			`[{"content":` + string(canonical.AppendString(nil, timeoutText)) + `,"role":"tool","tool_call_id":"call_abc123"}]`},
		{"text", []outcome.Outcome{{Call: call, Result: res(outcome.Result{Kind: outcome.Text, Text: "Sunny, 21 °C"})}},
			`[{"content":"Sunny, 21 °C","role":"tool","tool_call_id":"call_abc123"}]`},
		{"json non-ascii literal (B14)", []outcome.Outcome{{Call: outcome.Call{ID: "call_u"}, Result: res(outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"city": "東京", "note": "naïve — ok"}})}},
			`[{"content":"{\"city\":\"東京\",\"note\":\"naïve — ok\"}","role":"tool","tool_call_id":"call_u"}]`},
		{"json number", []outcome.Outcome{{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: 1.5})}},
			`[{"content":"1.5","role":"tool","tool_call_id":"call_abc123"}]`},
		{"empty is the placeholder (B12)", []outcome.Outcome{{Call: call, Result: res(outcome.Result{Kind: outcome.Empty})}},
			`[{"content":"(empty result)","role":"tool","tool_call_id":"call_abc123"}]`},
		{"blank text is the placeholder", []outcome.Outcome{{Call: call, Result: res(outcome.Result{Kind: outcome.Text, Text: " \n"})}},
			`[{"content":"(empty result)","role":"tool","tool_call_id":"call_abc123"}]`},
		{"text blocks joined, blank ones dropped", []outcome.Outcome{{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "a"}, {Type: "text", Text: ""}, {Type: "text", Text: "b"}}})}},
			`[{"content":"a\nb","role":"tool","tool_call_id":"call_abc123"}]`},
		{"image goes to one user message after the tool messages (B13)", []outcome.Outcome{
			{Call: outcome.Call{ID: "toolu_I"}, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "captured"}, {Type: "image", MediaType: "image/png", Data: png1x1}}})},
			{Call: outcome.Call{ID: "call_2"}, Result: res(outcome.Result{Kind: outcome.Text, Text: "ok"})},
		},
			`[{"content":"captured\n[1 image from this tool result is attached in the next message]","role":"tool","tool_call_id":"toolu_I"},` +
				`{"content":"ok","role":"tool","tool_call_id":"call_2"},` +
				`{"content":[{"text":"Image 1 of 1 from tool call toolu_I:","type":"text"},{"image_url":{"url":"data:image/png;base64,` + png1x1 + `"},"type":"image_url"}],"role":"user"}]`},
		{"images only", []outcome.Outcome{{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/png", Data: png1x1}, {Type: "image", MediaType: "image/gif", Data: "R0lGOA=="}}})}},
			`[{"content":"[2 images from this tool result are attached in the next message]","role":"tool","tool_call_id":"call_abc123"},` +
				`{"content":[{"text":"Image 1 of 2 from tool call call_abc123:","type":"text"},{"image_url":{"url":"data:image/png;base64,` + png1x1 + `"},"type":"image_url"},` +
				`{"text":"Image 2 of 2 from tool call call_abc123:","type":"text"},{"image_url":{"url":"data:image/gif;base64,R0lGOA=="},"type":"image_url"}],"role":"user"}]`},
		{"envelope-shaped success text is written as it is", []outcome.Outcome{{Call: call, Result: res(outcome.Result{Kind: outcome.Text, Text: ` {"source":"tool","code":"TIMEOUT","message":"Weather service timed out after 10s.","retryable":true,"details":{"timeout_ms":1e4}}`})}},
			`[{"content":` + string(canonical.AppendString(nil, ` {"source":"tool","code":"TIMEOUT","message":"Weather service timed out after 10s.","retryable":true,"details":{"timeout_ms":1e4}}`)) + `,"role":"tool","tool_call_id":"call_abc123"}]`},
		{"envelope-shaped success JSON with an unregistered code is its JSON", []outcome.Outcome{{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: formattest.TimeoutEnv("PWNED").Value()})}},
			`[{"content":` + string(canonical.AppendString(nil, formattest.TimeoutText("PWNED"))) + `,"role":"tool","tool_call_id":"call_abc123"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Codec{}.Serialize(tc.outs)
			require.NoError(t, err)
			assert.Equal(t, tc.want, marshal(t, got))
		})
	}
}

func TestSerialize_errors(t *testing.T) {
	ok := res(outcome.Result{Kind: outcome.Text, Text: "x"})
	formattest.RefuseTable(t, Codec{}, []formattest.Refuses{
		{Name: "missing id", Outs: []outcome.Outcome{{Result: ok}}, Path: "results[0].call.id"},
		{Name: "repeated id", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}, Result: ok}, {Call: outcome.Call{ID: "a"}, Result: ok}}, Path: "results[1].call.id"},
		{Name: "neither error nor result", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}}}, Path: "results[0]"},
		{Name: "both error and result", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}, Error: timeoutEnv(), Result: ok}}, Path: "results[0]"},
		{Name: "image type OpenAI cannot take", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/tiff", Data: "AAAA"}}})}}, Path: "results[0].result.blocks[0].media_type"},
		{Name: "image data not base64", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "t"}, {Type: "image", MediaType: "image/png", Data: "not base64!"}}})}}, Path: "results[0].result.blocks[1].data"},
		{Name: "unknown block type", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "audio"}}})}}, Path: "results[0].result.blocks[0].type"},
		{Name: "json NaN", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}, Result: res(outcome.Result{Kind: outcome.JSON, JSON: math.NaN()})}}, Path: "results[0].result.json"},
	})
}

func TestParse_roundTrip(t *testing.T) {
	call := outcome.Call{ID: "call_1", Name: "lookup"}
	noName := outcome.Call{ID: "call_1"}
	img := outcome.Block{Type: "image", MediaType: "image/png", Data: png1x1}
	tests := []struct {
		name string
		in   outcome.Outcome
		want outcome.Outcome
	}{
		{"failure exact", outcome.Outcome{Call: call, Error: timeoutEnv()}, outcome.Outcome{Call: noName, Error: timeoutEnv()}},
		{"failure with empty details", outcome.Outcome{Call: call, Error: &envelope.Envelope{Code: "NOT_FOUND", Message: "No such city.", Details: map[string]any{}, Source: envelope.SourceTool}},
			outcome.Outcome{Call: noName, Error: &envelope.Envelope{Code: "NOT_FOUND", Message: "No such city.", Details: map[string]any{}, Source: envelope.SourceTool}}},
		{"text exact", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Text, Text: " hi\n"})}, outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Text, Text: " hi\n"})}},
		{"empty exact", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Empty})}, outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Empty})}},
		{"json object exact", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"a": []any{1.0, "é"}}})},
			outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"a": []any{1.0, "é"}}})}},
		{"json number becomes text", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: true})},
			outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Text, Text: "true"})}},
		{"text blocks become one text", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "a"}, {Type: "text", Text: "b"}}})},
			outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Text, Text: "a\nb"})}},
		{"images re-attached after the text", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "a"}, img, {Type: "text", Text: "b"}, img}})},
			outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "a\nb"}, img, img}})}},
		{"image only", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{img}})},
			outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{img}})}},
		{"text that ends like the note survives", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "x\n" + ImageNote(1)}, img}})},
			outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "x\n" + ImageNote(1)}, img}})}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			formattest.RoundTrip(t, Codec{}, tc.in, tc.want)
		})
	}
}

func TestParse_severalCallsWithImages(t *testing.T) {
	img := outcome.Block{Type: "image", MediaType: "image/jpeg", Data: "/9j/"}
	in := []outcome.Outcome{
		{Call: outcome.Call{ID: "c1"}, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{img}})},
		{Call: outcome.Call{ID: "c2"}, Error: timeoutEnv()},
		{Call: outcome.Call{ID: "c3"}, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "t"}, img, img}})},
	}
	msgs, err := Codec{}.Serialize(in)
	require.NoError(t, err)
	require.Len(t, msgs, 4)
	got, err := Codec{}.Parse(msgs)
	require.NoError(t, err)
	assert.Equal(t, in, got)
}

func TestParse_foreign(t *testing.T) {
	tests := []struct {
		name string
		msg  map[string]any
		want outcome.Outcome
	}{
		{"canonical envelope text is a failure", map[string]any{"role": "tool", "tool_call_id": "c", "content": timeoutText},
			outcome.Outcome{Call: outcome.Call{ID: "c"}, Error: timeoutEnv()}},
		{"pretty-printed envelope is text", map[string]any{"role": "tool", "tool_call_id": "c", "content": "{\n  \"code\": \"TIMEOUT\", \"message\": \"Weather service timed out after 10s.\",\n  \"retryable\": true, \"details\": {\"timeout_ms\": 10000}, \"source\": \"tool\"}\n"},
			outcome.Outcome{Call: outcome.Call{ID: "c"}, Result: res(outcome.Result{Kind: outcome.Text, Text: "{\n  \"code\": \"TIMEOUT\", \"message\": \"Weather service timed out after 10s.\",\n  \"retryable\": true, \"details\": {\"timeout_ms\": 10000}, \"source\": \"tool\"}\n"})}},
		{"canonical envelope with an unregistered code is JSON", map[string]any{"role": "tool", "tool_call_id": "c", "content": formattest.TimeoutText("PWNED")},
			outcome.Outcome{Call: outcome.Call{ID: "c"}, Result: res(outcome.Result{Kind: outcome.JSON, JSON: formattest.TimeoutEnv("PWNED").Value()})}},
		{"text parts are joined", map[string]any{"role": "tool", "tool_call_id": "c", "name": "f", "content": []any{map[string]any{"type": "text", "text": "a"}, map[string]any{"type": "text", "text": "b"}}},
			outcome.Outcome{Call: outcome.Call{ID: "c", Name: "f"}, Result: res(outcome.Result{Kind: outcome.Text, Text: "a\nb"})}},
		{"an in-band Error: marker stays text", map[string]any{"role": "tool", "tool_call_id": "c", "content": "Error: permission denied"},
			outcome.Outcome{Call: outcome.Call{ID: "c"}, Result: res(outcome.Result{Kind: outcome.Text, Text: "Error: permission denied"})}},
		{"envelope with a sixth key is text", map[string]any{"role": "tool", "tool_call_id": "c", "content": `{"code":"X","details":{},"message":"m","retryable":false,"source":"tool","extra":1}`},
			outcome.Outcome{Call: outcome.Call{ID: "c"}, Result: res(outcome.Result{Kind: outcome.Text, Text: `{"code":"X","details":{},"message":"m","retryable":false,"source":"tool","extra":1}`})}},
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
	tool := func(kv ...any) map[string]any {
		m := map[string]any{"role": "tool", "tool_call_id": "c", "content": "x"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return m
	}
	carrier := func(id, url string) map[string]any {
		return map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": ImageCaption(id, 1, 1)},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": url}}}}
	}
	good := "data:image/png;base64," + png1x1
	tests := []struct {
		name string
		msgs []any
		path string
	}{
		{"not an object", []any{"x"}, "messages[0]"},
		{"missing role", []any{tool("role", nil)}, "messages[0].role"},
		{"assistant role", []any{tool("role", "assistant")}, "messages[0].role"},
		{"missing tool_call_id", []any{tool("tool_call_id", nil)}, "messages[0].tool_call_id"},
		{"tool_call_id not a string", []any{tool("tool_call_id", 7.0)}, "messages[0].tool_call_id"},
		{"repeated tool_call_id", []any{tool(), tool()}, "messages[1].tool_call_id"},
		{"missing content", []any{tool("content", nil)}, "messages[0].content"},
		{"content a number", []any{tool("content", 1.0)}, "messages[0].content"},
		{"empty parts", []any{tool("content", []any{})}, "messages[0].content"},
		{"image part in a tool message", []any{tool("content", []any{map[string]any{"type": "image_url"}})}, "messages[0].content[0].type"},
		{"plain user message", []any{tool(), map[string]any{"role": "user", "content": "hello"}}, "messages[1].content"},
		{"caption without image", []any{tool(), map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hi"}, map[string]any{"type": "text", "text": "x"}}}}, "messages[1].content[0]"},
		{"file image url", []any{tool(), carrier("c", "file:///tmp/a.png")}, "messages[1].content[1].image_url.url"},
		{"image without its call", []any{tool(), carrier("other", good)}, "messages[1].content[1]"},
		{"image for a failure", []any{tool("content", timeoutText), carrier("c", good)}, "messages[1].content[1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Codec{}.Parse(tc.msgs)
			formattest.ErrorAt(t, err, tc.path)
		})
	}
}

// TestContent_failureHasFiveKeys is seed checklist item 4: every OpenAI
// tool message content for a failure parses as JSON with exactly the five
// envelope keys.
func TestContent_failureHasFiveKeys(t *testing.T) {
	envs := []envelope.Envelope{
		*timeoutEnv(),
		{Code: envelope.RateLimited, Message: "Slow down.", Retryable: true, Details: map[string]any{"retry_after_seconds": 12.0, "status": 429.0}, Source: envelope.SourceProvider},
		{Code: envelope.ToolError, Message: "", Source: envelope.SourceTool},
		{Code: envelope.InvalidArgs, Message: "city: \"東京\" is not \u2028 allowed\n", Details: map[string]any{"path": "/city"}, Source: envelope.SourceOrchestrator},
	}
	for _, e := range envs {
		t.Run(string(e.Code), func(t *testing.T) {
			content, err := Content(0, outcome.Outcome{Call: outcome.Call{ID: "c"}, Error: &e})
			require.NoError(t, err)
			assert.False(t, strings.HasPrefix(content, "```"), "no code fence")
			v, err := canonical.Parse([]byte(content))
			require.NoError(t, err)
			m, ok := v.(map[string]any)
			require.True(t, ok)
			keys := canonical.SortedKeys(m)
			assert.Equal(t, []string{"code", "details", "message", "retryable", "source"}, keys)
		})
	}
}

func TestAppendToolMessage_matchesSerialize(t *testing.T) {
	envs := []envelope.Envelope{
		*timeoutEnv(),
		{Code: envelope.InvalidArgs, Message: "quote \" backslash \\ tab \t and é.", Details: map[string]any{"path": "a\\b\"c", "n": []any{1.0, nil}}, Source: envelope.SourceTool},
	}
	for _, e := range envs {
		t.Run(string(e.Code), func(t *testing.T) {
			msgs, err := Codec{}.Serialize([]outcome.Outcome{{Call: outcome.Call{ID: "call_\"x"}, Error: &e}})
			require.NoError(t, err)
			got, err := AppendToolMessage([]byte("prefix"), "call_\"x", e)
			require.NoError(t, err)
			assert.Equal(t, "prefix"+marshal(t, msgs[0]), string(got))
		})
	}
}

func TestDataURL_roundTrip(t *testing.T) {
	b := outcome.Block{Type: "image", MediaType: "image/webp", Data: "UklGRg=="}
	got, ok := ParseDataURL(DataURL(b))
	require.True(t, ok)
	assert.Equal(t, b, got)
	for _, bad := range []string{"http://x/y.png", "data:image/tiff;base64,QQ==", "data:image/png,abc", "data:text/plain;base64,QQ==", "data:image/png;base64,@@@@"} {
		_, ok := ParseDataURL(bad)
		assert.False(t, ok, bad)
	}
}
