package core

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// TestInvoke_badRequestDetailsAreSanitized: the op name and the member path
// of an INVALID_INPUT error come from the request; a secret in them must not
// come back in details (the message already redacts it), and a 10 MB op name
// must not be echoed whole.
func TestInvoke_badRequestDetailsAreSanitized(t *testing.T) {
	const body = "Zq9XkW3mP7vR2tY8uB4nC6dF1gH5jK0L"
	tests := []struct {
		name string
		req  map[string]any
	}{
		{"op", map[string]any{"op": "sk-proj-" + body}},
		{"settings key", map[string]any{"op": "breaker", "event": "allow", "now_ms": 1, "settings": map[string]any{"sk-proj-" + body: 1}}},
		{"envelope key", map[string]any{"op": "serialize", "format": "mcp", "call": map[string]any{"id": "a"},
			"error": map[string]any{"code": "X", "message": "m", "retryable": true, "details": map[string]any{}, "source": "tool", "Bearer " + body: 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := invokeValue(t, tc.req)
			require.True(t, strings.HasPrefix(out, `{"error":{"code":"INVALID_INPUT"`), out)
			assert.NotContains(t, out, body)
		})
	}
}

func TestInvoke_hugeOpNameIsNotEchoedWhole(t *testing.T) {
	req, err := canonical.Marshal(map[string]any{"op": strings.Repeat("x", 10<<20)})
	require.NoError(t, err)
	out := Invoke(req)
	assert.Less(t, len(out), 4*sanitize.MaxDetailChars+1000, "response is %d bytes", len(out))
	v, err := canonical.Parse(out)
	require.NoError(t, err)
	d := v.(map[string]any)["error"].(map[string]any)["details"].(map[string]any)
	assert.Equal(t, "op", d["path"])
}

// The same bad request gets the same error every time: with several bad
// headers the first in sorted order is named, not a random one.
func TestInvoke_badHeaderPathIsDeterministic(t *testing.T) {
	req := map[string]any{"op": "classify", "http": map[string]any{"status": 429,
		"headers": map[string]any{"x-b": 1.0, "x-a": []any{"1", 2.0}, "x-d": nil, "x-c": true, "x-e": "ok"}}}
	first := invokeValue(t, req)
	assert.Contains(t, first, `"path":"http.headers.x-a[1]"`)
	for i := 0; i < 30; i++ {
		require.Equal(t, first, invokeValue(t, req))
	}
}

// One 1 MB request must not become a 10 GB replay transcript: with the
// transcript it is an INVALID_INPUT error at trace.bound; without it, the
// run is counted without serializing the result 10,000 times.
func TestInvoke_replayAmplificationIsBounded(t *testing.T) {
	obj := map[string]any{}
	for i := 0; i < 20000; i++ {
		obj["k"+strconv.Itoa(i)] = strings.Repeat("v", 20)
	}
	trace := map[string]any{"bound": 10000, "steps": []any{map[string]any{"result": map[string]any{"json": obj}, "feedback": "ambiguous"}}}

	out := invokeValue(t, map[string]any{"op": "replay", "format": "openai-chat", "trace": trace})
	assert.Contains(t, out, `"path":"trace.bound"`)
	assert.True(t, strings.HasPrefix(out, `{"error":{"code":"INVALID_INPUT"`), "%.300s", out)

	out = invokeValue(t, map[string]any{"op": "replay", "format": "openai-chat", "trace": trace, "transcript": false})
	assert.Equal(t, `{"ok":{"calls":10000,"reason":"bound_reached","terminated":false,"turns":10000}}`, out)
}
