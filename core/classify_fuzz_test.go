package core

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
)

// FuzzClassify builds classify requests (http, sse_event, error_text) and a
// classify_exception request from a fuzzed status, header lines ("name:
// value" per line) and body, and checks that Invoke answers each with an ok
// envelope in canonical JSON: no input panics (Invoke would turn a panic into
// INTERNAL), none is rejected, none yields non-canonical bytes.
func FuzzClassify(f *testing.F) {
	f.Add(429, "retry-after: 12\nx-request-id: req_1", []byte(`{"error":{"message":"m","type":"requests","param":null,"code":"rate_limit_exceeded"}}`))
	f.Add(529, "", []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	f.Add(400, "x-amzn-errortype: ValidationException", []byte(`{"message":"bad"}`))
	f.Add(200, "", []byte("Traceback (most recent call last):\n  File \"x.py\"\nValueError: x"))
	f.Fuzz(func(t *testing.T, status int, headerLines string, body []byte) {
		if status < 0 {
			status = -status
		}
		status = 100 + status%500
		h := map[string]any{}
		for _, ln := range strings.Split(headerLines, "\n") {
			if name, val, ok := strings.Cut(ln, ":"); ok && name != "" {
				h[name] = []any{val}
			}
		}
		text := string(body)
		reqs := []map[string]any{
			{"op": "classify", "now_ms": 1735689600000, "http": map[string]any{"status": status, "headers": h, "body": text}},
			{"op": "classify", "source": "tool", "tool": "t", "attempt": 1, "http": map[string]any{"status": status, "headers": h, "body": text}},
			{"op": "classify", "sse_event": map[string]any{"event": headerLines, "data": text, "content_emitted": status%2 == 0}},
			{"op": "classify", "error_text": text},
		}
		if headerLines != "" || text != "" { // an exception needs a type or a traceback
			reqs = append(reqs, map[string]any{"op": "classify_exception", "tool": "t", "exception": map[string]any{"type": headerLines, "message": text, "traceback": text}})
		}
		if v, err := canonical.Parse(body); err == nil {
			reqs = append(reqs, map[string]any{"op": "classify", "http": map[string]any{"status": status, "body": v}})
		}
		for _, req := range reqs {
			in, err := canonical.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			out := Invoke(in)
			if c, err := canonical.Canonicalize(out); err != nil || !bytes.Equal(c, out) {
				t.Fatalf("response not canonical: %s", out)
			}
			v, _ := canonical.Parse(out)
			ok, isOK := v.(map[string]any)["ok"]
			if !isOK {
				t.Fatalf("request %s: got %s", in, out)
			}
			e, err := envelope.FromValue(ok, "ok")
			if err != nil || e.Message == "" {
				t.Fatalf("not an envelope (%v): %s", err, out)
			}
			if _, known := envelope.Lookup(e.Code); !known {
				t.Fatalf("unregistered code: %s", out)
			}
		}
	})
}
