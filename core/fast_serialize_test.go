package core

import (
	"bytes"
	"math/rand/v2"
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
	want := invokeTree(string(req), &op)
	got := Invoke(req)
	if !bytes.Equal(got, want) {
		t.Fatalf("request %.300s\nfast path: %.400s\ngeneral:   %.400s", req, got, want)
	}
	// AppendInvoke appends the same bytes after what dst holds, into its
	// spare capacity or past it.
	for _, spare := range []int{0, 8, 4096} {
		dst := append(make([]byte, 0, 3+spare), "abc"...)
		if got := AppendInvoke(dst, string(req)); string(got) != "abc"+string(want) {
			t.Fatalf("request %.300s\nAppendInvoke after abc (%d spare): %.400s\ngeneral: %.400s", req, spare, got, want)
		}
	}
	_, fast := fastSerialize(nil, string(req))
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
		want := invokeTree(string(req), &op)
		if got := Invoke(req); !bytes.Equal(got, want) {
			t.Fatalf("request %.300q\nfast path: %.400s\ngeneral:   %.400s", req, got, want)
		}
	})
}

// mutatedSerialize returns the n-th of a deterministic stream of serialize
// requests built from parts the fast path must read alike or refuse: every
// format and alias, both shapes, members in any order with or without white
// space, call ids Anthropic or Bedrock refuse, envelopes whose code, source,
// retryable or members are wrong, messages the sanitizer changes (secrets,
// no final period, two sentences, escapes, invalid UTF-8), details in and
// out of canonical form (unsorted, floats, -0, escapes, secret names and
// values, long strings and names, duplicates, deep nesting), output_schema,
// unknown members; and one request in five with one byte deleted, inserted
// or changed.
func mutatedSerialize(r *rand.Rand) []byte {
	// The first of xs most of the time (one mutation at a time is what
	// reaches the corners), any of them otherwise.
	pick := func(xs ...string) string {
		if r.IntN(10) < 7 {
			return xs[0]
		}
		return xs[r.IntN(len(xs))]
	}
	sp := func() string { return pick("", "", "", "", " ", "\n\t ") }
	str := func(s string) string { return strconv.Quote(s) }
	obj := func(members []string) string {
		r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		if r.IntN(12) == 0 {
			members = members[:r.IntN(len(members)+1)]
		}
		var b strings.Builder
		b.WriteString("{" + sp())
		for i, m := range members {
			if i > 0 {
				b.WriteString(sp() + "," + sp())
			}
			b.WriteString(m)
		}
		b.WriteString(sp() + "}")
		return b.String()
	}
	member := func(k, v string) string { return str(k) + sp() + ":" + sp() + v }
	details := pick(`{"timeout_ms":10000}`, `{}`, `{"attempt":1,"tool":"get_weather"}`, `{"tool":"get_weather","attempt":1}`,
		`{"a":[1,"x",{"b":null,"c":true}],"d":{}}`, `{"n":2.5}`, `{"n":1e3}`, `{"n":-0}`, `{"n":-12}`, `{"n":1234567890123456}`,
		`{"n":1024}`, `{"s":"caf\u00e9"}`, `{"s":"café"}`, `{"s":"a\nb"}`, `{"api_key":"abc"}`, `{"api_key":7}`,
		`{"url":"https://x.test/?token=abc"}`, `{"k":"sk-abcdefghijklmnopqrstuvwxyz012345"}`, `{"a":1,"a":2}`,
		`{"`+strings.Repeat("k", 101)+`":1}`, `{"s":"`+strings.Repeat("v", 1001)+`"}`, `{ "a" : 1 }`,
		`{"`+"\uffff"+`":1,"`+"\U0001F600"+`":2}`, `{"`+"\U0001F600"+`":1,"`+"\uffff"+`":2}`, `{"e":"\ud800"}`,
		strings.Repeat(`{"a":`, 40)+`1`+strings.Repeat(`}`, 40), `[]`, `null`, `"x"`,
		`{"trace":"Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad"}`)
	message := pick(`"Weather service timed out after 10s."`, `"The get_weather tool timed out after 10 seconds."`,
		`"no final period"`, `"First one. Second one."`, `"two  spaces."`, `"trailing space. "`, `""`,
		`"key sk-abcdefghijklmnopqrstuvwxyz012345 leaked."`, `"Bearer abc.def.ghi failed."`, `"caf\u00e9 closed."`,
		`"line\nbreak."`, `"quote \" and slash \\ here."`, "\"bad \xff byte.\"", `"`+strings.Repeat("word ", 80)+`end."`, `1`)
	env := obj([]string{
		member("code", pick(`"TIMEOUT"`, `"RATE_LIMITED"`, `"NOT_A_CODE_YET"`, `"timeout"`, `""`, `"A-B"`, `1`)),
		member("message", message),
		member("retryable", pick(`true`, `false`, `1`, `null`)),
		member("details", details),
		member("source", pick(`"tool"`, `"provider"`, `"orchestrator"`, `"nobody"`, `""`)),
	})
	if r.IntN(8) == 0 {
		env = env[:len(env)-1] + `,"extra":1}`
	}
	call := obj([]string{
		member("id", pick(`"toolu_01"`, `"call_abc123"`, `"c1"`, `""`, `"bad id!"`, `"`+strings.Repeat("x", 65)+`"`, `"\u00e9t\u00e9"`, `7`)),
		member("name", pick(`"get_weather"`, `"f"`, `""`, `"na\"me"`)),
	})
	payload := member("error", env)
	switch r.IntN(5) {
	case 0:
		payload = member("result", obj([]string{member("text", pick(`"3 hits"`, `""`, `"  "`, `"(empty result)"`, `"caf\u00e9"`, `{"a":1}`))}))
	case 1:
		payload = member("result", pick(`{"json":{"a":1}}`, `{}`, `{"text":"a","json":1}`, `{"blocks":[{"type":"text","text":"x"}]}`))
	}
	outcome := []string{member("call", call), payload}
	head := []string{
		member("op", pick(`"serialize"`, `"parse"`)),
		member("format", pick(`"anthropic"`, `"openai-chat"`, `"openai-responses"`, `"gemini"`, `"gemini-openai"`, `"bedrock"`, `"mcp"`,
			`"claude"`, `"Anthropic"`, `" gemini "`, `"nope"`)),
	}
	if r.IntN(6) == 0 {
		head = append(head, member("output_schema", pick(`true`, `false`, `"yes"`)))
	}
	var members []string
	if r.IntN(2) == 0 {
		members = append(head, outcome...)
	} else {
		n := r.IntN(4) + r.IntN(2)
		list := make([]string, n)
		for i := range list {
			list[i] = obj(append([]string(nil), outcome...))
			if r.IntN(3) == 0 { // another call and payload
				outcome = []string{member("call", obj([]string{member("id", `"c`+strconv.Itoa(i)+`"`), member("name", `"g"`)})), payload}
			}
		}
		members = append(head, member("results", "["+strings.Join(list, ",")+"]"))
	}
	if r.IntN(10) == 0 {
		members = append(members, member("extra", `1`))
	}
	req := []byte(sp() + obj(members) + sp())
	if r.IntN(5) == 0 && len(req) > 0 {
		i := r.IntN(len(req))
		switch r.IntN(3) {
		case 0:
			req = append(req[:i:i], req[i+1:]...)
		case 1:
			req = append(req[:i:i], append([]byte{"{}[],:\" \\1"[r.IntN(10)]}, req[i:]...)...)
		default:
			req[i] ^= byte(1 << r.IntN(8))
		}
	}
	return req
}

// TestFastSerialize_mutations: 6,000 mutated serialize requests get the
// same bytes from Invoke (with its fast path) as from the general path, and
// a good share of them, canonical details included, takes the fast path.
func TestFastSerialize_mutations(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 2026))
	fast, raw, n := 0, 0, 6000
	for range n {
		req := mutatedSerialize(r)
		if sameAsGeneral(t, req) {
			fast++
			if bytes.Contains(req, []byte(`"details":{"timeout_ms":10000}`)) {
				raw++
			}
		}
	}
	t.Logf("%d of %d mutated requests took the fast path (%d with canonical details)", fast, n, raw)
	assert.Greater(t, fast, n/10)
	assert.Positive(t, raw)
}

// FuzzFastSerialize_members: requests built from fuzzed members (the format,
// the call, each envelope member, the details as raw JSON text, the shape)
// get the same bytes from the fast path as from the general path.
func FuzzFastSerialize_members(f *testing.F) {
	f.Add("anthropic", "toolu_01", "get_weather", "TIMEOUT", "Weather service timed out after 10s.", true, "tool", `{"timeout_ms":10000}`, false)
	f.Add("gemini", "", "f", "RATE_LIMITED", "two  spaces", false, "provider", `{"a":[1,2.5,"x"],"b":{}}`, true)
	f.Add("mcp", "c1", "f", "TIMEOUT", "key sk-abcdefghijklmnopqrstuvwxyz012345.", true, "tool", `{"api_key":"x"}`, true)
	f.Add("openai-chat", "call_1", "f", "X", "m.", true, "orchestrator", `{"b":1,"a":2}`, false)
	f.Fuzz(func(t *testing.T, format, id, name, code, message string, retryable bool, source, details string, results bool) {
		env := `{"code":` + strconv.Quote(code) + `,"message":` + strconv.Quote(message) + `,"retryable":` +
			strconv.FormatBool(retryable) + `,"details":` + details + `,"source":` + strconv.Quote(source) + `}`
		one := `"call":{"id":` + strconv.Quote(id) + `,"name":` + strconv.Quote(name) + `},"error":` + env
		req := `{"op":"serialize","format":` + strconv.Quote(format) + `,` + one + `}`
		if results {
			req = `{"op":"serialize","format":` + strconv.Quote(format) + `,"results":[{` + one + `}]}`
		}
		var op string
		want := invokeTree(req, &op)
		if got := Invoke([]byte(req)); !bytes.Equal(got, want) {
			t.Fatalf("request %.300q\nfast path: %.400s\ngeneral:   %.400s", req, got, want)
		}
	})
}
