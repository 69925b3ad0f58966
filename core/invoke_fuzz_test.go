package core

import (
	"bytes"
	"testing"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// FuzzInvoke feeds arbitrary bytes to Invoke: every response is canonical
// JSON, either {"ok": ...} or {"error": ...}, and never the INTERNAL error a
// recovered panic becomes. The seed corpus (testdata/fuzz/FuzzInvoke) holds a
// request of every op and the boundary shapes of conformance/fixtures/edge.
func FuzzInvoke(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `[]`, `null`, `{"op":1}`, `{"op":"version"}`, `{"op":"codes"}`,
		`{"op":"envelope","code":"TIMEOUT","message":"slow"}`,
		`{"op":"canonicalize","value":[1e308,-0,1.5e-7,"\ud800",{"b":1,"a":2}]}`,
		`{"op":"sanitize","text":"key sk-abc123 at line 3","max_chars":8}`,
		"{\"op\":\"canonicalize\",\"value\":\"\xff\xfe\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		out := Invoke(req)
		if !bytes.HasPrefix(out, []byte(`{"ok":`)) && !bytes.HasPrefix(out, []byte(`{"error":`)) {
			t.Fatalf("response is neither ok nor error: %.200q", out)
		}
		if bytes.HasPrefix(out, []byte(`{"error":{"code":"INTERNAL"`)) {
			t.Fatalf("request %.200q panicked inside Invoke: %.300s", req, out)
		}
		c, err := canonical.Canonicalize(out)
		if err != nil || !bytes.Equal(c, out) {
			t.Fatalf("response is not canonical JSON (%v): %.300q", err, out)
		}
	})
}
