package core_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/core/internal/canonical"
)

// fuzzSeeds are message lists and result lists in every format's shape; the
// committed corpus in testdata/fuzz holds more.
var fuzzParseSeeds = []string{
	`[{"role":"tool","tool_call_id":"call_1","content":"{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"Slow.\",\"retryable\":true,\"source\":\"tool\"}"}]`,
	`[{"role":"tool","tool_call_id":"c","content":"x\n[1 image from this tool result is attached in the next message]"},{"role":"user","content":[{"type":"text","text":"Image 1 of 1 from tool call c:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]`,
	`[{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"data:image/gif;base64,R0lGOA=="}]}]`,
	`[{"content":[{"type":"text","text":"(empty result)"}],"resultType":"complete"},{"content":[{"type":"text","text":"no"}],"isError":true}]`,
	`[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":"boom"}]}]`,
	`[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":[1,2]}}}]}]`,
	`[{"role":"user","content":[{"toolResult":{"toolUseId":"t1","status":"error","content":[{"text":"denied"}]}}]}]`,
	`[]`, `{}`, `[null]`, `[{"role":"tool"}]`,
}

var fuzzSerializeSeeds = []string{
	`[{"call":{"id":"call_1","name":"get_weather"},"error":{"code":"UPSTREAM_TIMEOUT","message":"Weather service timed out after 10s.","retryable":true,"details":{"timeout_ms":10000},"source":"tool"}}]`,
	`[{"call":{"id":"c1","name":"f"},"result":{"json":{"city":"東京","note":"naïve — ok"}}},{"call":{"id":"c2","name":"g"},"result":{}}]`,
	`[{"call":{"id":"c","name":"shot"},"result":{"blocks":[{"type":"text","text":"captured"},{"type":"image","media_type":"image/png","data":"iVBORw0KGgo="},{"type":"text","text":""}]}}]`,
	`[{"call":{"id":"c","name":"f"},"result":{"text":"(empty result)"}}]`,
	`[{"call":{"id":"c","name":"f"},"result":{"text":" {\"source\":\"tool\",\"code\":\"X\",\"message\":\"m\",\"retryable\":false,\"details\":{}}"}}]`,
	`[{"call":{"id":"c","name":"f"},"result":{"json":[1,"a",null,true]}}]`,
}

// requireCanonical fails unless resp is canonical JSON and not the INTERNAL
// envelope Invoke returns for a recovered panic; it returns the ok member's
// canonical bytes, or nil for an error response.
func requireCanonical(t *testing.T, req, resp []byte) []byte {
	t.Helper()
	c, err := canonical.Canonicalize(resp)
	require.NoError(t, err, "response is not JSON: %s", resp)
	require.Equal(t, string(c), string(resp), "response is not canonical")
	require.False(t, bytes.Contains(resp, []byte(`"code":"INTERNAL"`)), "Invoke failed internally on %s: %s", req, resp)
	v, _ := canonical.Parse(resp)
	m := v.(map[string]any)
	ok, has := m["ok"]
	if !has {
		return nil
	}
	b, err := canonical.Marshal(ok)
	require.NoError(t, err)
	return b
}

func invokeOp(t *testing.T, op, format, member string, value []byte) []byte {
	t.Helper()
	req := []byte(`{"op":"` + op + `","format":"` + format + `","` + member + `":`)
	req = append(append(req, value...), '}')
	return requireCanonical(t, req, core.Invoke(req))
}

// roundTrip checks, for serialize output s1 of format f, that it parses and
// that serialize(parse(s1)) == s1; it returns parse(s1).
func roundTrip(t *testing.T, f string, s1 []byte) []byte {
	t.Helper()
	p := invokeOp(t, "parse", f, "messages", s1)
	require.NotNil(t, p, "%s: serialize output does not parse: %s", f, s1)
	s2 := invokeOp(t, "serialize", f, "results", p)
	if why, known := knownFixedPointIssues()[f]; known && string(s1) != string(s2) {
		t.Logf("known issue, %s: %s: %s then %s", f, why, s1, s2)
		return p
	}
	require.Equal(t, string(s1), string(s2), "%s: serialize(parse(serialize(x))) != serialize(x)", f)
	return p
}

// knownFixedPointIssues lists formats whose serialize(parse(serialize(x)))
// still differs from serialize(x) for some x, with the reason; the fuzz
// targets log instead of failing for them. Empty at release.
func knownFixedPointIssues() map[string]string {
	return map[string]string{}
}

// FuzzParse feeds arbitrary messages to every format's parser through Invoke:
// no input panics or yields non-canonical JSON, and whatever parses
// serializes to something that is a fixed point of parse then serialize.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzParseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msgs []byte) {
		for _, fm := range core.Formats() {
			p := invokeOp(t, "parse", string(fm), "messages", msgs)
			if p == nil || string(p) == "[]" {
				continue
			}
			if s1 := invokeOp(t, "serialize", string(fm), "results", p); s1 != nil {
				roundTrip(t, string(fm), s1)
			}
		}
	})
}

// FuzzSerialize feeds arbitrary outcome lists to every format's serializer
// through Invoke: no input panics or yields non-canonical JSON, every output
// parses, serialize(parse(serialize(x))) == serialize(x), and a failure read
// back is exact (the second round gives the same envelopes as the first).
func FuzzSerialize(f *testing.F) {
	for _, s := range fuzzSerializeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, results []byte) {
		for _, fm := range core.Formats() {
			s1 := invokeOp(t, "serialize", string(fm), "results", results)
			if s1 == nil {
				continue
			}
			p1 := roundTrip(t, string(fm), s1)
			p2 := invokeOp(t, "parse", string(fm), "messages", invokeOp(t, "serialize", string(fm), "results", p1))
			a, _ := canonical.Parse(p1)
			b, _ := canonical.Parse(p2)
			for i, o := range a.([]any) {
				if e, ok := o.(map[string]any)["error"]; ok {
					require.Equal(t, e, b.([]any)[i].(map[string]any)["error"], "%s: failure %d not exact after a round trip", fm, i)
				}
			}
		}
	})
}
