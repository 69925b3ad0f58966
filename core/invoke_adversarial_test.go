package core

import (
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
