package core

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format"
)

// secretBody is the unique part of every secret planted in an envelope.
const secretBody = "Zq9XkW3mP7vR2tY8uB4nC6dF1gH5jK0L"

// leaks are strings that mark a secret or a stack trace reaching the output.
var leaks = []string{secretBody, "Traceback", "File \"/app", "goroutine 1", "\tat com.", "    at handler", "pw@h"}

// plantedTexts hold a secret or a stack trace in each shape the sanitizer
// knows, as they might appear in a tool's exception text.
var plantedTexts = []string{
	"upstream said sk-proj-" + secretBody,
	"AKIA" + secretBody[:16] + " was denied",
	"Authorization: Bearer " + secretBody,
	"GET https://api.example.com/v1?key=" + secretBody + " failed",
	"connect postgres://u:pw@h/db failed",
	"boom\nTraceback (most recent call last):\n  File \"/app/x.py\", line 3, in f\n    raise ValueError(\"" + secretBody + "\")\nValueError: bad",
	"TypeError: x\n    at handler (/srv/a.js:1:2)\n    at next (/srv/b.js:3:4)",
	"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/a/b.go:3 +0x1",
	"Exception in thread \"main\" java.lang.RuntimeException: x\n\tat com.acme.A.b(A.java:1)",
}

// TestSerialize_plantedSecretsNeverReachTheWire plants each secret or trace in
// an envelope's message, in a details string, in a nested details value and in
// a details key, and serializes it in every format: none of it may come out.
func TestSerialize_plantedSecretsNeverReachTheWire(t *testing.T) {
	for _, name := range format.Names() {
		for i, text := range plantedTexts {
			for _, where := range []string{"message", "detail", "nested", "array"} {
				env := map[string]any{"code": "TOOL_ERROR", "message": "failed.", "retryable": false, "source": "tool", "details": map[string]any{}}
				switch where {
				case "message":
					env["message"] = text
				case "detail":
					env["details"] = map[string]any{"reason": text}
				case "nested":
					env["details"] = map[string]any{"upstream": map[string]any{"error": map[string]any{"message": text}}}
				case "array":
					env["details"] = map[string]any{"errors": []any{"ok", map[string]any{"m": text}}}
				}
				req := map[string]any{"op": "serialize", "format": name, "call": map[string]any{"id": "call_1", "name": "search"}, "error": env}
				out := invokeValue(t, req)
				for _, l := range leaks {
					if strings.Contains(out, l) {
						t.Errorf("%s: text %d in %s leaked %q: %.400s", name, i, where, l, out)
					}
				}
			}
		}
	}
}

// invokeValue runs req through Invoke and returns the response text, failing
// on a non-canonical response.
func invokeValue(t *testing.T, req map[string]any) string {
	t.Helper()
	b, err := canonical.Marshal(req)
	require.NoError(t, err)
	out := Invoke(b)
	c, err := canonical.Canonicalize(out)
	require.NoError(t, err)
	require.Equal(t, string(c), string(out), "response is not canonical")
	return string(out)
}

// TestSerialize_parseRoundTripsFailures serializes a failure with awkward
// but legal content in every format and parses it back: the envelope must come
// back exactly.
func TestSerialize_parseRoundTripsFailures(t *testing.T) {
	envs := []map[string]any{
		{"code": "TIMEOUT", "message": "Timed out.", "retryable": true, "source": "tool", "details": map[string]any{}},
		{"code": "RATE_LIMITED", "message": "Slow down; retry after 12 seconds.", "retryable": true, "source": "provider", "details": map[string]any{"retry_after_seconds": 12.0, "status": 429.0}},
		{"code": "TOOL_ERROR", "message": "Der Dienst \"東京\" antwortete nicht 🙂.", "retryable": false, "source": "tool", "details": map[string]any{"n": -0.5, "big": 9007199254740991.0, "tiny": 1e-7, "nil": nil, "b": false, "list": []any{}, "obj": map[string]any{}}},
		{"code": "MY_CUSTOM_CODE", "message": "Custom.", "retryable": true, "source": "orchestrator", "details": map[string]any{"text": "line1\nline2\ttab \u2028 \u00e9"}}, // a control character would be removed (docs/sanitize.md, "Invisible characters")
		{"code": "INVALID_ARGS", "message": "Bad.", "retryable": false, "source": "tool", "details": map[string]any{"s": strings.Repeat("x", 200)}},
	}
	flagless := map[string]bool{"openai-chat": true, "openai-responses": true, "gemini-openai": true}
	for _, name := range format.Names() {
		for i, env := range envs {
			req := map[string]any{"op": "serialize", "format": name, "call": map[string]any{"id": "call_1", "name": "search"}, "error": env}
			out := invokeValue(t, req)
			v, err := canonical.Parse([]byte(out))
			require.NoError(t, err)
			msgs, ok := v.(map[string]any)["ok"].([]any)
			if !assert.True(t, ok, "%s env %d: serialize failed: %s", name, i, out) {
				continue
			}
			back := invokeValue(t, map[string]any{"op": "parse", "format": name, "messages": msgs})
			pv, err := canonical.Parse([]byte(back))
			require.NoError(t, err)
			outs, ok := pv.(map[string]any)["ok"].([]any)
			if !assert.True(t, ok, "%s env %d: parse failed: %s", name, i, back) || !assert.Len(t, outs, 1) {
				continue
			}
			got, _ := outs[0].(map[string]any)["error"]
			if flagless[name] && !envelope.Registered(envelope.Code(env["code"].(string))) {
				// No flag carries it: the content alone cannot invent a code
				// (outcome.RecognizeText), so it reads back as a success.
				got = outs[0].(map[string]any)["result"].(map[string]any)["json"]
			}
			want, _ := canonical.Marshal(env)
			gotb, _ := canonical.Marshal(got)
			assert.Equal(t, string(want), string(gotb), "%s env %d round trip", name, i)
		}
	}
}
