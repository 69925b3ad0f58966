package core

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/decide"
)

// stepSameAsGeneral fails unless Invoke (with fastStep) answers req byte for
// byte as the general path does, and reports whether fastStep answered.
func stepSameAsGeneral(t *testing.T, req []byte) bool {
	t.Helper()
	sameAsGeneral(t, req)
	_, fast := fastStep(nil, string(req))
	return fast
}

// variants returns req's members in reverse order, and req with each
// top-level member dropped, made null, given twice, or made a string.
func variants(t *testing.T, req []byte) [][]byte {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(req, &m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	write := func(members [][2]string) []byte {
		var b strings.Builder
		b.WriteByte('{')
		for i, kv := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + kv[0] + `":` + kv[1])
		}
		b.WriteByte('}')
		return []byte(b.String())
	}
	all := func(skip string, over map[string]string) [][2]string {
		var out [][2]string
		for i := len(keys) - 1; i >= 0; i-- {
			k := keys[i]
			if k == skip {
				continue
			}
			v := string(m[k])
			if o, ok := over[k]; ok {
				v = o
			}
			out = append(out, [2]string{k, v})
		}
		return out
	}
	out := [][]byte{write(all("", nil))}
	for _, k := range keys {
		out = append(out, write(all(k, nil)), write(all("", map[string]string{k: "null"})),
			write(append(all("", nil), [2]string{k, string(m[k])})), write(all("", map[string]string{k: `"x"`})))
	}
	// Inside the event and the state: each member dropped or made null.
	for _, outer := range []string{"event", "state", "replica"} {
		var inner map[string]json.RawMessage
		if json.Unmarshal(m[outer], &inner) != nil || inner == nil {
			continue
		}
		for k := range inner {
			for _, v := range []string{"", "null", `"x"`, "-1", "1.5"} {
				c := map[string]json.RawMessage{}
				for kk, vv := range inner {
					c[kk] = vv
				}
				if v == "" {
					delete(c, k)
				} else {
					c[k] = json.RawMessage(v)
				}
				b, err := json.Marshal(c)
				require.NoError(t, err)
				out = append(out, write(all("", map[string]string{outer: string(b)})))
			}
		}
	}
	return out
}

// TestFastStep_sameAsGeneral: every step fixture, the benchmark's requests,
// requests with a load made ahead, and variants of each (members reordered,
// dropped, null, repeated, of the wrong type) get the same bytes from Invoke
// as from the general path; the fixtures' valid requests take fastStep.
func TestFastStep_sameAsGeneral(t *testing.T) {
	fast, ok := 0, 0
	tests := fixtureTests(t, "step")
	reqs := make([][]byte, 0, len(tests))
	for _, tc := range tests {
		reqs = append(reqs, tc.Request)
	}
	reqs = append(reqs, benchStepCall...)
	reqs = append(reqs, benchStepFused...)
	reqs = append(reqs, benchStepFailureChained)
	// The failure's classify request, as runtimes write it and not.
	for _, c := range []string{
		`{"op":"classify_exception","exception":{"type":"ConnectionResetError","message":"peer reset","traceback":"Traceback (most recent call last):\n  x"},"tool":"search","attempt":2}`,
		`{"exception":{"message":"upstream timed out","type":"TimeoutError"},"tool":"search","op":"classify_exception","source":"tool","provider":"openai"}`,
		`{"op":"classify_exception","exception":{"type":"","message":"m"},"tool":"search"}`,
		`{"op":"classify_exception","exception":{"type":"E","extra":1},"tool":"search"}`,
		`{"op":"classify_exception","exception":{"type":null},"tool":"search"}`,
		`{"op":"classify_exception","exception":{"type":"E"},"source":"provider"}`,
		`{"op":"classify_exception","exception":{"type":"E"},"attempt":-1}`,
		`{"op":"classify_exception","exception":{"type":"E"},"tool":"a","tool":"b"}`,
		`{"op":"classify_exception","exception":{"type":"E"},"now_ms":5}`,
		`{"op":"classify_exception","tool":"search"}`,
		`{"tool":"search","op":"classify","http":{"status":503,"headers":{"retry-after":"2"}},"source":"tool"}`,
		`{"op":"classify","http":{"status":"x"}}`,
		`{"op":"nope"}`,
	} {
		r := bytes.Replace(benchStepFailureChained, []byte(`{"op":"classify_exception","exception":{"type":"TimeoutError","message":"upstream timed out"},"tool":"search"}`), []byte(c), 1)
		require.NotEqual(t, benchStepFailureChained, r)
		reqs = append(reqs, r)
	}
	assert.True(t, stepSameAsGeneral(t, benchStepFailureChained), "fast path for the chained failure step")
	for _, req := range reqs {
		if stepSameAsGeneral(t, req) {
			fast++
		}
		if bytes.HasPrefix(Invoke(req), []byte(okPrefix)) {
			ok++
		}
		for _, v := range variants(t, req) {
			stepSameAsGeneral(t, v)
		}
	}
	t.Logf("%d of %d step requests took the fast path (%d answered ok)", fast, len(reqs), ok)
	assert.GreaterOrEqual(t, fast, ok*9/10, "the valid step requests take the fast path")
	for _, r := range benchStepCall {
		assert.True(t, stepSameAsGeneral(t, r), "fast path for %s", r)
	}
	// Every member a runtime sends, more than 8 at the top level.
	all := `{"key_prefix":"a7:","policy":{"max_attempts":3,"base_ms":500},"settings":{"failure_threshold":3},"timeout_ms":5000,` +
		`"store_backoff_ms":200,"op":"step","tool":"search","budget":{"limits":{"steps":10},"state":null},"loop":{"threshold":2},` +
		`"state":null,"event":{"kind":"start","args":{"q":"x"},"loaded":{"kind":"store_error","message":"i/o timeout"}},"now_ms":1000,` +
		`"replica":{"down_until_ms":0,"state":null},"on_success":true,"on_swapped":true,"on_slept":true}`
	assert.True(t, stepSameAsGeneral(t, []byte(all)), "fast path for %s", all)
	for _, v := range variants(t, []byte(all)) {
		stepSameAsGeneral(t, v)
	}
}

// TestScanStepRequest_sameAsTree: what ScanStepRequest reads from a request
// equals what ReadStepInput reads from its tree, for every step fixture it
// answers.
func TestScanStepRequest_sameAsTree(t *testing.T) {
	for _, tc := range fixtureTests(t, "step") {
		in, ok := decide.ScanStepRequest(string(tc.Request))
		if !ok {
			continue
		}
		v, err := canonical.ParseRequest(tc.Request)
		require.NoError(t, err)
		req := v.(map[string]any)
		now, err := readNowMs(req)
		require.NoError(t, err)
		want, err := decide.ReadStepInput(req, now)
		require.NoError(t, err, tc.Test)
		assert.Equal(t, want, in, tc.Test)
	}
}
