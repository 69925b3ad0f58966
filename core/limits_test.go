package core

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/bounds"
)

// limitDetails runs req and returns the details of its INVALID_INPUT answer.
func limitDetails(t *testing.T, req []byte) map[string]any {
	t.Helper()
	var resp struct {
		Error *struct {
			Code    string
			Message string
			Details map[string]any
		}
	}
	out := Invoke(req)
	require.NoError(t, json.Unmarshal(out, &resp), "%.300s", out)
	require.NotNil(t, resp.Error, "%.300s", out)
	assert.Equal(t, "INVALID_INPUT", resp.Error.Code)
	return resp.Error.Details
}

// repeat returns head + n copies of elem joined by commas + tail.
func repeat(head, elem, tail string, n int) []byte {
	return []byte(head + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + tail)
}

func TestInvoke_limits(t *testing.T) {
	tiny := repeat(`{"op":"canonicalize","value":[`, `{"":0}`, `]}`, 200000)
	long := repeat(`{"op":"canonicalize","value":[`, `1e20`, `]}`, 1700000) // 8.5 MB in, 37 MB out
	flood := repeat(`{"op":"repair","format":"gemini","messages":[{"role":"model","parts":[`, `{"functionCall":{"name":"a"}}`, `]}]}`, 200000)
	tests := []struct {
		name string
		req  []byte
		want map[string]any
	}{
		{"request_bytes", bytes.Repeat([]byte(" "), MaxRequestBytes+1),
			map[string]any{"bound": "request_bytes", "limit": float64(MaxRequestBytes), "count": float64(MaxRequestBytes + 1), "path": ""}},
		{"depth", []byte(`{"op":"canonicalize","value":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`),
			map[string]any{"bound": "depth", "limit": float64(MaxDepth), "count": float64(MaxDepth + 1), "offset": float64(29 + 511), "path": ""}},
		{"value_bytes", tiny,
			map[string]any{"bound": "value_bytes", "limit": float64(ValueBytesPerRequestByte * len(tiny)), "path": ""}},
		{"response_bytes while writing", long,
			map[string]any{"bound": "response_bytes", "limit": float64(MaxResponseBytes), "op": "canonicalize", "path": ""}},
		{"response_bytes before a repair", flood,
			map[string]any{"bound": "response_bytes", "limit": float64(MaxResponseBytes), "count": float64(200000 * bounds.MinResultBytes), "op": "repair", "path": ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := limitDetails(t, tc.req)
			if _, ok := tc.want["count"]; !ok {
				require.Contains(t, d, "count")
				assert.Greater(t, d["count"], d["limit"], "count is what passed the limit")
				delete(d, "count")
				delete(d, "offset")
			}
			assert.Equal(t, tc.want, d)
		})
	}
	// After any of them, the same process answers as before.
	assert.Equal(t, `{"ok":{"abi":1,"version":"0.1.0"}}`, string(Invoke([]byte(`{"op":"version"}`))))
}

// TestInvoke_responseCapStopsWriting: a result over MaxResponseBytes is
// refused with count just past the limit, so the writer stopped there
// instead of writing the whole (37 MB) result first.
func TestInvoke_responseCapStopsWriting(t *testing.T) {
	d := limitDetails(t, repeat(`{"op":"canonicalize","value":[`, `1e20`, `]}`, 1700000))
	assert.InDelta(t, float64(MaxResponseBytes), d["count"], 64)
}

// TestRepairBound_minResultBytes checks bounds.MinResultBytes against the core: in
// every format, a second unanswered call without id or name makes the
// repaired response longer by at least bounds.MinResultBytes plus the call itself.
func TestRepairBound_minResultBytes(t *testing.T) {
	calls := map[string][2]string{
		"openai-chat":      {`{"role":"assistant","tool_calls":[`, `{"id":"","type":"function","function":{"name":"","arguments":""}}`},
		"openai-responses": {``, `{"type":"function_call","call_id":"","name":"","arguments":""}`},
		"anthropic":        {`{"role":"assistant","content":[`, `{"type":"tool_use","id":"","name":"","input":{}}`},
		"gemini":           {`{"role":"model","parts":[`, `{"functionCall":{"name":""}}`},
		"bedrock":          {`{"role":"assistant","content":[`, `{"toolUse":{"toolUseId":"","name":"","input":{}}}`},
	}
	for f, c := range calls {
		t.Run(f, func(t *testing.T) {
			closing := "]}"
			if c[0] == "" {
				closing = ""
			}
			var sizes [2]int
			for n := 1; n <= 2; n++ {
				// the second call gets an id where ids must be unique
				second := strings.Replace(strings.Replace(c[1], `"id":""`, `"id":"`+strconv.Itoa(n)+`"`, 1), `"call_id":""`, `"call_id":"`+strconv.Itoa(n)+`"`, 1)
				msgs := c[0] + c[1]
				if n == 2 {
					msgs += "," + strings.Replace(second, `"toolUseId":""`, `"toolUseId":"2"`, 1)
				}
				out := Invoke([]byte(`{"op":"repair","format":"` + f + `","messages":[` + msgs + closing + `]}`))
				require.True(t, bytes.HasPrefix(out, []byte(`{"ok":`)), "%s", out)
				sizes[n-1] = len(out) - len(msgs)
			}
			added := sizes[1] - sizes[0] - len(`,"2"`) // the id the changes list
			t.Logf("%s: a synthesized result adds %d bytes", f, added)
			assert.GreaterOrEqual(t, added, bounds.MinResultBytes)
		})
	}
}
