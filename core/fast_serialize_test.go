package core

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sameAsGeneral fails unless Invoke (with its fast path) answers req byte for
// byte as the general path does, and reports whether the fast path answered.
func sameAsGeneral(t *testing.T, req []byte) bool {
	t.Helper()
	var op string
	want := invokeTree(req, &op)
	got := Invoke(req)
	if !bytes.Equal(got, want) {
		t.Fatalf("request %.300s\nfast path: %.400s\ngeneral:   %.400s", req, got, want)
	}
	_, fast := fastSerialize(req)
	return fast
}

// TestFastSerialize_sameAsGeneral: every serialize fixture, and variants of
// the common request that the fast path must refuse or read alike, get the
// same bytes from Invoke as from the general path; the common shapes (the
// bindings' results array, the one outcome at the top level) take the fast
// path.
func TestFastSerialize_sameAsGeneral(t *testing.T) {
	fast := 0
	tests := fixtureTests(t, "serialize")
	for _, tc := range tests {
		if sameAsGeneral(t, tc.Request) {
			fast++
		}
	}
	t.Logf("%d of %d serialize fixtures took the fast path", fast, len(tests))
	assert.Greater(t, fast, len(tests)/3, "the common shapes take the fast path")

	env := `{"code":"TIMEOUT","message":"Weather service timed out after 10s.","retryable":true,"details":{"timeout_ms":10000},"source":"tool"}`
	takes := []string{
		string(benchSerializeAnthropic),
		string(benchSerializeResults),
		`{"op":"serialize","format":"openai-chat","results":[{"call":{"id":"c1","name":"f"},"error":` + env + `}]}`,
		`{"format":"gemini","error":` + env + `,"call":{"name":"f","id":"c1"},"op":"serialize"}`,
		`{"op":"serialize","format":"bedrock","call":{"id":"c1","name":"f"},"result":{"text":"3 hits"}}`,
		`{"op":"serialize","format":"mcp","call":{"id":"c1"},"result":{"text":"  "}}`,
		`{"op":"serialize","format":"openai-responses","call":{"id":"c1"},"result":{"text":"caf\u00e9 \ud83d\ude00 \"q\""}}`,
		` { "op" : "serialize" , "format" : "anthropic" , "call" : { "id" : "toolu_1" , "name" : "f" } , "error" : ` + env + ` } `,
		`{"op":"serialize","format":"anthropic","call":{"id":"toolu_1","name":"f"},"error":{"code":"TIMEOUT","message":"key sk-abcdefghijklmnopqrstuvwxyz012345 leaked. Two.","retryable":false,"details":{"url":"https://x.test/?token=abc","n":[1,{"b":2,"a":1}]},"source":"provider"}}`,
	}
	for _, r := range takes {
		assert.True(t, sameAsGeneral(t, []byte(r)), "fast path for %s", r)
	}
	refuses := []string{
		`{"op":"serialize"}`,
		`{"op":"serialize","format":"nope","call":{"id":"c1","name":"f"},"result":{"text":"x"}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"result":{"text":"x"},"extra":1}`,
		`{"op":"serialize","format":"anthropic","format":"gemini","call":{"id":"c1","name":"f"},"result":{"text":"x"}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","id":"c2"},"result":{"text":"x"}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"result":{"text":"x"},"error":` + env + `}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"result":{"json":{"a":1}}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"error":{"code":"timeout","message":"m","retryable":true,"details":{},"source":"tool"}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"error":{"code":"TIMEOUT","message":"m","retryable":true,"details":{},"source":"nobody"}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"error":{"code":"TIMEOUT","message":"m","retryable":true,"details":null,"source":"tool"}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"error":{"code":"TIMEOUT","message":"m","retryable":true,"source":"tool"}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"error":{"code":"TIMEOUT","message":"m","retryable":1,"details":{},"source":"tool"}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"","name":"f"},"result":{"text":"x"}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"bad id!","name":"f"},"result":{"text":"x"}}`,
		`{"op":"serialize","format":"anthropic","results":[]}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"result":{"text":"x"}} x`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"result":{"text":"x"}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"result":{"text":"x"},}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"error":{"code":"TIMEOUT","message":"m","retryable":true,"details":{"a":1,"a":2},"source":"tool"}}`,
		`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"error":{"code":"TIMEOUT","message":"m","retryable":true,"details":` + strings.Repeat(`{"a":`, 600) + `1` + strings.Repeat(`}`, 600) + `,"source":"tool"}}`,
		`{"op":"parse","format":"anthropic","messages":[],"note":"serialize"}`,
		`{"op":"canonicalize","value":"serialize"}`,
	}
	for _, r := range refuses {
		assert.False(t, sameAsGeneral(t, []byte(r)), "general path for %s", r)
	}
	// Nesting at the depth bound, in both positions: the same answer (the
	// fast path counts the levels around details as Parse does).
	for _, n := range []int{MaxDepth - 4, MaxDepth - 3, MaxDepth - 2, MaxDepth - 1} {
		deep := strings.Repeat(`{"a":`, n) + `1` + strings.Repeat(`}`, n)
		sameAsGeneral(t, []byte(`{"op":"serialize","format":"anthropic","call":{"id":"c1","name":"f"},"error":{"code":"TIMEOUT","message":"m","retryable":true,"details":`+deep+`,"source":"tool"}}`))
		sameAsGeneral(t, []byte(`{"op":"serialize","format":"anthropic","results":[{"call":{"id":"c1","name":"f"},"error":{"code":"TIMEOUT","message":"m","retryable":true,"details":`+deep+`,"source":"tool"}}]}`))
	}
}

// TestFastSerialize_valueBudget: a results array whose tree would pass the
// request's value budget is refused by both paths alike, and one just under
// it is answered by both alike: the fast path charges what Parse would.
func TestFastSerialize_valueBudget(t *testing.T) {
	refused, answered := 0, 0
	for _, n := range []int{10, 2000, 20000, 40000} {
		for _, item := range []string{
			`{"call":{},"result":{"text":""}}`,
			`{"call":{"id":"a"},"result":{"text":"b"}}`,
			`{"call":{"id":"c` + `%d","name":"f"},"result":{"text":"ok"}}`,
			`{"call":{"name":"f"},"error":{"code":"TIMEOUT","message":"","retryable":true,"details":{"a":{},"b":{}},"source":"tool"}}`,
		} {
			var b strings.Builder
			b.WriteString(`{"op":"serialize","format":"gemini","results":[`)
			for i := range n {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(strings.Replace(item, "%d", strconv.Itoa(i), 1))
			}
			b.WriteString(`]}`)
			req := []byte(b.String())
			if len(req) > MaxRequestBytes {
				continue
			}
			fast := sameAsGeneral(t, req)
			out := Invoke(req)
			switch {
			case bytes.Contains(out, []byte(`"bound":"value_bytes"`)):
				refused++
				assert.False(t, fast)
			case bytes.HasPrefix(out, []byte(`{"ok":`)):
				answered++
				assert.True(t, fast, "%.200s", req)
			}
		}
	}
	require.Positive(t, refused, "some lists pass the budget")
	require.Positive(t, answered, "some lists fit it")
}

// FuzzFastSerialize: whatever the bytes, Invoke answers as the general path
// does (the fast path answers only what it is sure of).
func FuzzFastSerialize(f *testing.F) {
	for _, s := range []string{
		string(benchSerializeAnthropic), string(benchSerializeResults),
		`{"op":"serialize","format":"bedrock","call":{"id":"c1","name":"f"},"result":{"text":"3 hits"}}`,
		`{"op":"serialize","format":"gemini","results":[{"call":{"name":"f"},"error":{"code":"TIMEOUT","message":"","retryable":true,"details":{"a":[1,2.5,"x"]},"source":"tool"}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		var op string
		want := invokeTree(req, &op)
		if got := Invoke(req); !bytes.Equal(got, want) {
			t.Fatalf("request %.300q\nfast path: %.400s\ngeneral:   %.400s", req, got, want)
		}
	})
}
