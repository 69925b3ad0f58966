package openairesponses

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
	img := outcome.Block{Type: "image", MediaType: "image/png", Data: png1x1}
	formattest.ItemTable(t, Codec{}, []formattest.Item{
		{Name: "failure is the envelope text", In: outcome.Outcome{Call: call, Error: timeoutEnv()},
			Want: `{"call_id":"call_abc123","output":` + string(canonical.AppendString(nil, timeoutText)) + `,"type":"function_call_output"}`},
		{Name: "text", In: outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Text, Text: "Sunny"})},
			Want: `{"call_id":"call_abc123","output":"Sunny","type":"function_call_output"}`},
		{Name: "json non-ascii literal (B14)", In: outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: map[string]any{"city": "東京"}})},
			Want: `{"call_id":"call_abc123","output":"{\"city\":\"東京\"}","type":"function_call_output"}`},
		{Name: "empty is the placeholder (B12)", In: outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Empty})},
			Want: `{"call_id":"call_abc123","output":"(empty result)","type":"function_call_output"}`},
		{Name: "blocks are input items; blank text dropped (B12, B13)", In: outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "captured"}, {Type: "text", Text: " "}, img}})},
			Want: `{"call_id":"call_abc123","output":[{"text":"captured","type":"input_text"},{"image_url":"data:image/png;base64,` + png1x1 + `","type":"input_image"}],"type":"function_call_output"}`},
		{Name: "blocks with only blank text are the placeholder", In: outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: ""}}})},
			Want: `{"call_id":"call_abc123","output":"(empty result)","type":"function_call_output"}`},
	})
}

func TestSerialize_errors(t *testing.T) {
	ok := res(outcome.Result{Kind: outcome.Text, Text: "x"})
	formattest.RefuseTable(t, Codec{}, []formattest.Refuses{
		{Name: "missing id", Outs: []outcome.Outcome{{Result: ok}}, Path: "results[0].call.id"},
		{Name: "json NaN", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}, Result: res(outcome.Result{Kind: outcome.JSON, JSON: math.NaN()})}}, Path: "results[0].result.json"},
		{Name: "id longer than 64", Outs: []outcome.Outcome{{Call: outcome.Call{ID: strings.Repeat("é", 65)}, Result: ok}}, Path: "results[0].call.id"},
		{Name: "repeated id", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}, Result: ok}, {Call: outcome.Call{ID: "a"}, Error: timeoutEnv()}}, Path: "results[1].call.id"},
		{Name: "neither", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}}}, Path: "results[0]"},
		{Name: "bad image", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/png", Data: "%%"}}})}}, Path: "results[0].result.blocks[0].data"},
		{Name: "unknown block", Outs: []outcome.Outcome{{Call: outcome.Call{ID: "a"}, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "video"}}})}}, Path: "results[0].result.blocks[0].type"},
	})
	_, err := Codec{}.Serialize([]outcome.Outcome{{Call: outcome.Call{ID: strings.Repeat("é", 64)}, Result: ok}})
	assert.NoError(t, err, "64 characters is the limit, not 64 bytes")
}

func TestParse_roundTrip(t *testing.T) {
	call := outcome.Call{ID: "call_1", Name: "lookup"}
	noName := outcome.Call{ID: "call_1"}
	img := outcome.Block{Type: "image", MediaType: "image/png", Data: png1x1}
	blocks := []outcome.Block{{Type: "text", Text: "a"}, img, {Type: "text", Text: "b"}}
	tests := []struct {
		name string
		in   outcome.Outcome
		want outcome.Outcome
	}{
		{"failure exact", outcome.Outcome{Call: call, Error: timeoutEnv()}, outcome.Outcome{Call: noName, Error: timeoutEnv()}},
		{"text exact", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Text, Text: "t"})}, outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Text, Text: "t"})}},
		{"empty exact", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Empty})}, outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Empty})}},
		{"json array exact", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: []any{1.0, 2.0}})}, outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.JSON, JSON: []any{1.0, 2.0}})}},
		{"json null becomes text", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.JSON, JSON: nil})}, outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Text, Text: "null"})}},
		{"blocks exact, in order", outcome.Outcome{Call: call, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: blocks})}, outcome.Outcome{Call: noName, Result: res(outcome.Result{Kind: outcome.Blocks, Blocks: blocks})}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			formattest.RoundTrip(t, Codec{}, tc.in, tc.want)
		})
	}
}

func TestParse_foreign(t *testing.T) {
	got, err := Codec{}.Parse([]any{
		map[string]any{"type": "function_call_output", "call_id": "c1", "name": "f", "id": "fc_1", "status": "completed", "output": []any{}},
		map[string]any{"type": "function_call_output", "call_id": "c2", "output": timeoutText},
		map[string]any{"type": "function_call_output", "call_id": "c3", "output": "  " + timeoutText + "\n"},
	})
	require.NoError(t, err)
	assert.Equal(t, []outcome.Outcome{
		{Call: outcome.Call{ID: "c1", Name: "f"}, Result: res(outcome.Result{Kind: outcome.Empty})},
		{Call: outcome.Call{ID: "c2"}, Error: timeoutEnv()},
		{Call: outcome.Call{ID: "c3"}, Result: res(outcome.Result{Kind: outcome.Text, Text: "  " + timeoutText + "\n"})},
	}, got)
}

func TestParse_errors(t *testing.T) {
	item := func(kv ...any) map[string]any {
		m := map[string]any{"type": "function_call_output", "call_id": "c", "output": "x"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return m
	}
	tests := []struct {
		name string
		msgs []any
		path string
	}{
		{"not an object", []any{1.0}, "messages[0]"},
		{"wrong type", []any{item("type", "function_call")}, "messages[0].type"},
		{"missing call_id", []any{item("call_id", nil)}, "messages[0].call_id"},
		{"repeated call_id", []any{item(), item()}, "messages[1].call_id"},
		{"name not a string", []any{item("name", 3.0)}, "messages[0].name"},
		{"missing output", []any{item("output", nil)}, "messages[0].output"},
		{"output an object", []any{item("output", map[string]any{})}, "messages[0].output"},
		{"input_file by file_id", []any{item("output", []any{map[string]any{"type": "input_file", "file_id": "f"}})}, "messages[0].output[0].file_data"},
		{"image by file id", []any{item("output", []any{map[string]any{"type": "input_image", "file_id": "f"}})}, "messages[0].output[0].image_url"},
		{"text item without text", []any{item("output", []any{map[string]any{"type": "input_text"}})}, "messages[0].output[0].text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Codec{}.Parse(tc.msgs)
			formattest.ErrorAt(t, err, tc.path)
		})
	}
}

func TestAppendFunctionCallOutput_matchesSerialize(t *testing.T) {
	e := envelope.Envelope{Code: envelope.InvalidArgs, Message: "quote \" and \\ and\ttab.", Details: map[string]any{"path": "/a\"b"}, Source: envelope.SourceTool}
	msgs, err := Codec{}.Serialize([]outcome.Outcome{{Call: outcome.Call{ID: "call_9"}, Error: &e}})
	require.NoError(t, err)
	got, err := AppendFunctionCallOutput(nil, "call_9", e)
	require.NoError(t, err)
	assert.Equal(t, marshal(t, msgs[0]), string(got))
}
