package core

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// TestFixtures_envelopeMessagesAreFixpoints: every envelope an op answers
// with in a conformance fixture (an "ok" or "error" value, an element of a
// list, or the envelope text inside a tool result) has a message that
// sanitize.Message leaves as it is. A message the sanitizer would change (a
// second sentence, as args_error once wrote: "... are invalid: /date must
// match the pattern ^x$. Fix them and call the tool again.") is cut on its
// next hop through serialize, so the envelope no longer reads back as what
// toolerr wrote.
func TestFixtures_envelopeMessagesAreFixpoints(t *testing.T) {
	seen := 0
	for _, ft := range fixtureTests(t, "*") {
		if ft.File == "envelope_text.json" {
			continue // near misses on purpose: text that resembles an envelope and stays a success
		}
		var req map[string]any
		_ = json.Unmarshal(ft.Request, &req) // a request that is not an object is none of these ops
		if req["op"] == "sanitize" || req["op"] == "canonicalize" {
			continue // these answer with the caller's own values
		}
		var resp any // encoding/json with numbers as text: a fixture may hold what the core's parser refuses
		dec := json.NewDecoder(bytes.NewReader(ft.Response))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&resp), ft.File)
		walkEnvelopes(resp, func(msg string) {
			seen++
			assert.Equal(t, sanitize.Message(msg), msg, "%s: %v", ft.File, ft.Test)
		})
	}
	assert.Greater(t, seen, 500, "envelopes found in the fixtures' responses")
}

// walkEnvelopes calls fn with the message of every five-field envelope in v,
// also inside strings that hold one as JSON text, but not inside a
// success's "result".
func walkEnvelopes(v any, fn func(string)) {
	switch x := v.(type) {
	case map[string]any:
		if msg, ok := x["message"].(string); ok && len(x) == 5 {
			_, c := x["code"].(string)
			_, r := x["retryable"].(bool)
			_, d := x["details"].(map[string]any)
			_, s := x["source"].(string)
			if c && r && d && s {
				fn(msg)
			}
		}
		for k, e := range x {
			if k != "result" { // a success's content is the tool's, whatever it holds
				walkEnvelopes(e, fn)
			}
		}
	case []any:
		for _, e := range x {
			walkEnvelopes(e, fn)
		}
	case string:
		if strings.HasPrefix(x, `{"code":`) {
			if inner, err := canonical.Parse([]byte(x)); err == nil {
				walkEnvelopes(inner, fn)
			}
		}
	}
}
