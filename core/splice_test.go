package core

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// framed writes a request as the bindings write a member given as JSON
// text: prefix's members, then key's text unparsed, then raw_len.
func framed(prefix, key, text string) string {
	return prefix + `,"` + key + `":` + text + `,"raw_len":` + strconv.Itoa(len(text)) + `}`
}

const spliceCall = `{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`

// TestSplice_notOneValue: text that is not exactly one JSON value (what no
// fixture file can hold: the request is not JSON either) is refused at the
// member it was given for, with the offset in the request where it goes
// wrong, on the general and the fast path alike.
func TestSplice_notOneValue(t *testing.T) {
	for _, tc := range []struct{ prefix, key, text, want string }{
		{`{"op":"check","format":"openai-chat"`, "messages", `[]x`,
			`{"error":{"code":"INVALID_INPUT","details":{"offset":50,"path":"messages"},"message":"toolerr: messages: must be exactly one JSON value: more follows it.","retryable":false,"source":"orchestrator"}}`},
		{`{"op":"check","format":"openai-chat"`, "messages", `[] []`,
			`{"error":{"code":"INVALID_INPUT","details":{"offset":51,"path":"messages"},"message":"toolerr: messages: must be exactly one JSON value: more follows it.","retryable":false,"source":"orchestrator"}}`},
		{`{"op":"convert","from":"openai-chat","to":"anthropic"`, "messages", `[` + spliceCall + `]]`,
			`{"error":{"code":"INVALID_INPUT","details":{"offset":177,"path":"messages"},"message":"toolerr: messages: must be exactly one JSON value: more follows it.","retryable":false,"source":"orchestrator"}}`},
		{`{"op":"check","format":"openai-chat"`, "messages", ``,
			`{"error":{"code":"INVALID_INPUT","details":{"offset":48,"path":"messages"},"message":"toolerr: messages: must be exactly one JSON value: empty input.","retryable":false,"source":"orchestrator"}}`},
		{`{"op":"check","format":"openai-chat"`, "messages", `[{"role":"user"`,
			`{"error":{"code":"INVALID_INPUT","details":{"offset":63,"path":"messages"},"message":"toolerr: messages: must be exactly one JSON value: unexpected end of input in object.","retryable":false,"source":"orchestrator"}}`},
		{`{"op":"repair","format":"anthropic"`, "body", `{"messages":[]}}`,
			`{"error":{"code":"INVALID_INPUT","details":{"offset":58,"path":"body"},"message":"toolerr: body: must be exactly one JSON value: more follows it.","retryable":false,"source":"orchestrator"}}`},
	} {
		req := framed(tc.prefix, tc.key, tc.text)
		if got := string(Invoke([]byte(req))); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", req, got, tc.want)
		}
		if out, ok := fastList(req); ok {
			t.Errorf("%s: fastList answered %s", req, out)
		}
	}
}

// TestSplice_sameAsUnframed: one JSON value, white space around it or not,
// gets the answer the request without the framing gets, and the fast path
// answers it (the list text is what the bindings measure in work item (b)).
func TestSplice_sameAsUnframed(t *testing.T) {
	for _, tc := range []struct{ prefix, key, text string }{
		{`{"op":"convert","from":"openai-chat","to":"anthropic"`, "messages", `[` + spliceCall + `]`},
		{`{"op":"convert","from":"openai-chat","to":"gemini"`, "messages", " \n[" + spliceCall + "]\t "},
		{`{"op":"check","format":"openai-chat"`, "messages", `[{"role":"user","content":"\",\"id_rules\":\"x"},` + spliceCall + `]`},
		{`{"op":"repair","format":"openai-chat"`, "messages", `[` + spliceCall + `] `},
		{`{"op":"repair","format":"openai-chat"`, "body", ` {"model":"m","messages":[` + spliceCall + `]}`},
	} {
		req := framed(tc.prefix, tc.key, tc.text)
		want := string(Invoke([]byte(tc.prefix + `,"` + tc.key + `":` + tc.text + `}`)))
		if got := string(Invoke([]byte(req))); got != want {
			t.Errorf("%s\n got %s\nwant %s", req, got, want)
		}
		if tc.key != "messages" {
			continue
		}
		if out, ok := fastList(req); !ok || string(out) != want {
			t.Errorf("%s: fastList %v %s, want %s", req, ok, out, want)
		}
	}
}

// TestReadSplice_framing: only a request that ends in raw_len's member is
// framed; a length that does not land on a member's value is refused.
func TestReadSplice_framing(t *testing.T) {
	for _, tc := range []struct {
		req         string
		framed, bad bool
		at, n       int
		key         string
	}{
		{req: `{"op":"version"}`},
		{req: `{"op":"check","raw_len":3,"messages":[]}`},
		{req: `{"op":"check","messages":[],"raw_len": 2}`},
		{req: `{"op":"check","messages":[],"raw_len":2}`, framed: true, at: 25, n: 2, key: "messages"},
		{req: `{"body":{},"raw_len":2}`, framed: true, at: 8, n: 2, key: "body"},
		{req: `{"op":"check","messages":[],"raw_len":02}`, framed: true, bad: true},
		{req: `{"op":"check","messages":[],"raw_len":99999999999}`, framed: true, bad: true},
		{req: `{"op":"check","messages":[],"raw_len":3}`, framed: true, bad: true},
		{req: `{"op":"check","a\"b":[],"raw_len":2}`, framed: true, bad: true},
		{req: `[],"raw_len":2}`, framed: true, bad: true},
	} {
		sp, framed, bad := readSplice(tc.req)
		if framed != tc.framed || (bad != nil) != tc.bad {
			t.Errorf("%s: framed %v bad %v", tc.req, framed, bad)
			continue
		}
		if framed && !tc.bad && (sp.at != tc.at || sp.n != tc.n || sp.key != tc.key) {
			t.Errorf("%s: %+v", tc.req, sp)
		}
	}
}

// BenchmarkSplice_workB: work item (b)'s list (testdata/bench/transcript-b.json)
// converted to Anthropic as JSON text, unframed and framed by raw_len, on the
// list fast path and (as a body) the general path; run with -count
// and compare the pairs (RATIONALE.md, "JSON text spliced ...").
func BenchmarkSplice_workB(b *testing.B) {
	list, err := os.ReadFile("testdata/bench/transcript-b.json")
	if err != nil {
		b.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(list, &v); err != nil {
		b.Fatal(err)
	}
	text, _ := json.Marshal(v)
	body := `{"model":"gpt-4o","messages":` + string(text) + `}`
	const head = `{"op":"convert","from":"openai-chat","to":"anthropic"`
	for _, tc := range []struct{ name, key, text string }{{"list", "messages", string(text)}, {"body", "body", body}} {
		plain := []byte(head + `,"` + tc.key + `":` + tc.text + `}`)
		framedReq := []byte(framed(head, tc.key, tc.text))
		if string(Invoke(plain)) != string(Invoke(framedReq)) {
			b.Fatal("framed and unframed answers differ")
		}
		for _, r := range []struct {
			name string
			req  []byte
		}{{"unframed", plain}, {"framed", framedReq}} {
			b.Run(tc.name+"/"+r.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					Invoke(r.req)
				}
			})
		}
	}
}
