package core

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// typedClassify runs a classify or classify_exception request through the
// typed Go API: members decoded by type assertion alone, the typed function
// called. ok is false when the Go types cannot express the request (a member
// of the wrong JSON type, attempt or now_ms given as 0, which Go reads as
// absent, not exactly one failure member, a member the op does not know).
func typedClassify(op string, req map[string]any) (Envelope, bool) {
	if checkOpMembers(op, req) != nil {
		return Envelope{}, false
	}
	var opt ClassifyOptions
	for k, dst := range map[string]*string{"provider": &opt.Provider, "tool": &opt.Tool} {
		s, ok := str(req, k)
		if !ok {
			return Envelope{}, false
		}
		*dst = s
	}
	src, ok := str(req, "source")
	if !ok {
		return Envelope{}, false
	}
	opt.Source = Source(src)
	a, ok1 := num(req, "attempt")
	now, ok2 := num(req, "now_ms")
	if !ok1 || !ok2 || present(req, "attempt") && (a == 0 || a != float64(int(a))) || present(req, "now_ms") && (now == 0 || now != float64(int64(now))) {
		return Envelope{}, false
	}
	opt.Attempt, opt.NowMs = int(a), int64(now)
	if op == "classify_exception" {
		ex, isObj := req["exception"].(map[string]any)
		if !isObj {
			return Envelope{}, false
		}
		var s [3]string
		for i, k := range [...]string{"type", "message", "traceback"} {
			if s[i], ok = str(ex, k); !ok {
				return Envelope{}, false
			}
		}
		return ClassifyException(s[0], s[1], s[2], opt), true
	}
	n := 0
	for _, k := range [...]string{"http", "sse_event", "error_text"} {
		if req[k] != nil {
			n++
		}
	}
	if n != 1 {
		return Envelope{}, false
	}
	if h, isObj := req["http"].(map[string]any); isObj {
		status, ok := num(h, "status")
		if !ok || !present(h, "status") || status != float64(int(status)) {
			return Envelope{}, false
		}
		header := map[string][]string{}
		if hv, has := h["headers"]; has && hv != nil {
			hm, isObj := hv.(map[string]any)
			if !isObj {
				return Envelope{}, false
			}
			for k, v := range hm {
				switch x := v.(type) {
				case string:
					header[k] = []string{x}
				case []any:
					for _, e := range x {
						s, isStr := e.(string)
						if !isStr {
							return Envelope{}, false
						}
						header[k] = append(header[k], s)
					}
				default:
					return Envelope{}, false
				}
			}
		}
		return ClassifyHTTP(int(status), header, bodyBytes(h["body"]), opt), true
	}
	if s, isObj := req["sse_event"].(map[string]any); isObj {
		event, ok1 := str(s, "event")
		emitted, ok2 := s["content_emitted"].(bool)
		if !ok1 || !ok2 && s["content_emitted"] != nil {
			return Envelope{}, false
		}
		return ClassifySSE(event, bodyBytes(s["data"]), emitted, opt), true
	}
	text, isStr := req["error_text"].(string)
	if !isStr {
		return Envelope{}, false
	}
	return ClassifyText(text, opt), true
}

// bodyBytes returns a body member as the raw bytes a Go caller holds: a
// string is its own bytes (text, or JSON the classifier parses), any other
// value its JSON.
func bodyBytes(v any) []byte {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []byte(x)
	}
	b, err := canonical.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestClassifyTypedAPI_agreesWithOps: for every fixture of classify and
// classify_exception (in their folders and in edge/ and invalid_input/), the
// typed Go API gives the same envelope as Invoke, or the same INVALID_INPUT
// envelope (path, op and wording) as Invoke's error; requests the Go types
// cannot express are skipped and counted.
func TestClassifyTypedAPI_agreesWithOps(t *testing.T) {
	for _, op := range []string{"classify", "classify_exception"} {
		compared, skipped, refused := 0, 0, 0
		for _, ft := range fixtureTests(t, op, "edge", "invalid_input") {
			v, err := canonical.Parse(ft.Request)
			req, isObj := v.(map[string]any)
			if err != nil || !isObj || req["op"] != op {
				if err == nil && isObj && req["op"] == op {
					skipped++
				}
				continue
			}
			e, ok := typedClassify(op, req)
			if !ok {
				skipped++
				continue
			}
			key := "ok"
			if e.Code == CodeInvalidInput {
				key = "error"
				refused++
			}
			got, err := canonical.Marshal(map[string]any{key: e})
			require.NoError(t, err)
			require.Equal(t, string(Invoke(ft.Request)), string(got), "%s: %s / %s", ft.File, ft.Case, ft.Test)
			compared++
		}
		require.NotZero(t, compared, op)
		t.Logf("%s: %d fixtures compared (%d of them refused as INVALID_INPUT), %d not expressible in Go types", op, compared, refused, skipped)
	}
	// Requests the Go types can express but the fixtures do not hold: the
	// typed API refuses them where the op does.
	for _, tc := range []struct {
		typed Envelope
		req   string
	}{
		{ClassifyHTTP(42, nil, nil, ClassifyOptions{}), `{"op":"classify","http":{"status":42}}`},
		{ClassifyHTTP(503, nil, nil, ClassifyOptions{Source: "orchestrator"}), `{"op":"classify","source":"orchestrator","http":{"status":503}}`},
		{ClassifyText("x", ClassifyOptions{Attempt: -1}), `{"op":"classify","attempt":-1,"error_text":"x"}`},
		{ClassifySSE("", nil, false, ClassifyOptions{NowMs: -5}), `{"op":"classify","now_ms":-5,"sse_event":{}}`},
		{ClassifyException("", "m", "", ClassifyOptions{}), `{"op":"classify_exception","exception":{"message":"m"}}`},
		{ClassifyException("E", "m", "", ClassifyOptions{Source: SourceProvider}), `{"op":"classify_exception","source":"provider","exception":{"type":"E","message":"m"}}`},
	} {
		got, err := canonical.Marshal(map[string]any{"error": tc.typed})
		require.NoError(t, err)
		require.Equal(t, string(Invoke([]byte(tc.req))), string(got), tc.req)
	}
}
