package core

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// bodyOps are the request heads of the ops fastList answers for a body.
var bodyOps = []string{
	`"op":"check","format":"openai-chat"`, `"op":"check","format":"openai-chat","model":"o1-mini"`,
	`"op":"check","format":"openai-chat","id_rules":"mistral"`,
	`"op":"repair","format":"openai-chat"`, `"op":"repair","format":"openai-chat","model":"o1-mini"`,
	`"op":"convert","from":"openai-chat","to":"openai-chat"`, `"op":"convert","from":"openai-chat","to":"openai-chat","id_rules":"mistral"`,
	`"op":"convert","from":"openai-chat","to":"anthropic"`, `"op":"convert","from":"openai-chat","to":"gemini"`,
	`"op":"convert","from":"openai-chat","to":"bedrock"`, `"op":"convert","from":"openai-chat","to":"openai-responses","id_rules":"mistral"`,
}

// bodyRests are the members a generated body holds beside its list: none,
// work item (b)'s, and values whose canonical JSON is not their text
// (numbers, escapes, members out of order, names with escapes), a model
// that is not a string, members that sort before and after "messages".
var bodyRests = []string{
	``,
	`"model":"gpt-4o"`,
	`"model":"o1-mini","temperature":0.2,"max_tokens":1024`,
	`"tools":` + workBTools + `,"tool_choice":"auto","temperature":0.2,"max_tokens":1024,"model":"gpt-4o"`,
	`"model":7,"temperature":1E2,"top_p":0.10,"seed":-0,"n":100000000000000000000,"stop":["\u0041","\n",""],"user":"caf\u00e9 \ud83d\ude00"`,
	`"metadata":{"z":1,"a":{"y":[true,false,null],"b":"\/"},"é":2,"\u00e9x":3},"model":"gpt-\u0034o","logit_bias":{"50256":-100}`,
	`"model":null,"a":[],"z":{},"MESSAGES":"x","messages2":[1],"messagez":{"\ud800":"lone"}`,
	"\"model\" : \"gpt-4o\" ,\n\t\"stream\" : true ",
	// what a conversion carries, notes or refuses
	`"parallel_tool_calls":false,"response_format":{"type":"json_object"},"stop":"END","max_completion_tokens":5,"max_tokens":6,"frequency_penalty":0.5`,
	`"tools":[{"type":"web_search"},{"type":"function","function":{"name":"f","parameters":{"type":"object"},"strict":true}}],"tool_choice":{"type":"function","function":{"name":"f"}}`,
	`"tools":"x","tool_choice":7`,
	`"tools":[{"type":"function","function":{"name":"bad name!","description":"d"}}],"tool_choice":"required","temperature":"hot"`,
}

// bodySeeds are body requests for the differential tests: every op of
// bodyOps on work item (b) as a whole body and on each list of
// fastListSeeds' own (the conformance suite's and the recordings' lists
// too) in bodies of every bodyRests, the list first and last; and every
// such request of the conformance suite with a body (in fastListSeeds).
func bodySeeds(t testing.TB) [][]byte {
	seeds := [][]byte{}
	for _, op := range bodyOps {
		seeds = append(seeds, []byte(`{`+op+`,"body":`+workBBody(t)+`}`))
	}
	lists := map[string]bool{}
	for _, s := range fastListSeeds(t) {
		var req map[string]json.RawMessage
		if json.Unmarshal(s, &req) != nil {
			continue
		}
		if b, ok := req["body"]; ok {
			seeds = append(seeds, s)
			var body map[string]json.RawMessage
			if json.Unmarshal(b, &body) == nil && body["messages"] != nil {
				lists[string(body["messages"])] = true
			}
		}
		if m, ok := req["messages"]; ok && len(m) <= 20000 {
			lists[string(m)] = true
		}
	}
	for list := range lists {
		for k, rest := range bodyRests {
			body := `{"messages":` + list + `}`
			if rest != "" && k%2 == 0 {
				body = `{"messages":` + list + `,` + rest + `}`
			} else if rest != "" {
				body = `{` + rest + `,"messages":` + list + `}`
			}
			for _, op := range bodyOps {
				seeds = append(seeds, []byte(`{`+op+`,"body":`+body+`}`))
			}
		}
	}
	return seeds
}

// bodyMutations returns variants of a body request: each member of its
// body dropped or replaced by a value of every JSON type, a member added,
// duplicated or escaped, the body given as framed text (raw_len, with and
// without white space around it) or alongside messages.
func bodyMutations(req []byte) [][]byte {
	s := string(req)
	i := strings.Index(s, `,"body":{`)
	if i < 0 || !strings.HasSuffix(s, "}}") {
		return nil
	}
	head, body := s[:i], s[i+len(`,"body":`):len(s)-1]
	var members map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &members) != nil {
		return nil
	}
	var out [][]byte
	add := func(b string) { out = append(out, []byte(head+`,"body":`+b+`}`)) }
	inner := body[1 : len(body)-1]
	values := []string{`null`, `1.5`, `true`, `""`, `"gpt-4o"`, `[]`, `{}`, `[{"role":"user","content":"hi"}]`, `{"b":1,"a":2}`}
	for k := range members {
		for _, v := range values {
			kb, _ := json.Marshal(k)
			// the member first: the general path keeps the last of a name,
			// Parse refuses a duplicate, either way not the fast path's
			add(`{` + string(kb) + `:` + v + `,` + inner + `}`)
		}
	}
	for _, v := range values {
		add(`{"extra":` + v + `,` + inner + `}`)
		add(`{` + inner + `,"zz":` + v + `}`)
	}
	add(`{"mess\u0061ges":[],` + inner + `}`)
	add(`{"\u006dodel":"o1-mini",` + inner + `}`)
	add(`{` + inner + `,"model":"again"}`)
	add(`{}`)
	add(`[]`)
	add(`null`)
	for _, text := range []string{body, " " + body + "\n", body + `,"x":1`} {
		out = append(out, []byte(framed(head, "body", text)))
	}
	out = append(out, []byte(framed(head, "messages", body)))
	out = append(out, []byte(head+`,"messages":[],"body":`+body+`}`))
	out = append(out, []byte(head+`,"body":`+body+`,"messages":[]}`))
	return out
}

// TestFastBody_sameAsGeneral runs fastList and the general path on the body
// seeds and mutations of them, and requires the same bytes whenever fastList
// answers; it must answer work item (b) as a body for every op it takes.
func TestFastBody_sameAsGeneral(t *testing.T) {
	seeds := bodySeeds(t)
	answered, declined := seedsSameAsGeneral(t, seeds, "work item (b) as a body", len(bodyOps), func(i int, seed []byte) [][]byte {
		if len(seed) > 20000 || i%5 != 0 && i >= len(bodyOps) {
			return nil // every fifth seed's mutations: the test stays under a minute
		}
		return append(bodyMutations(seed), byteMutations(seed, 30, uint64(i))...)
	})
	t.Logf("%d seeds; fastList answered %d body requests, declined %d", len(seeds), answered, declined)
	if answered < 2000 {
		t.Fatalf("fastList answered only %d body requests: the test would prove little", answered)
	}
}

// TestFastBody_answersAsTheBodyOps: work item (b) as a body answers with the
// body written back whole (its tools, model and parameters in RFC 8785
// order, nothing changed) and the same findings and changes as its list,
// their paths under body.
func TestFastBody_answersAsTheBodyOps(t *testing.T) {
	body := workBBody(t)
	var canon bytes.Buffer
	if err := json.Compact(&canon, []byte(body)); err != nil {
		t.Fatal(err)
	}
	want, err := canonical.Canonicalize(canon.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{`"op":"repair","format":"openai-chat"`, `"op":"convert","from":"openai-chat","to":"openai-chat"`} {
		out, ok := fastList(`{` + op + `,"body":` + body + `}`)
		if !ok || !bytes.HasPrefix(out, []byte(`{"ok":{"body":`+string(want))) {
			t.Fatalf("%s: fastList answered %v\n%.400s\nwant the body\n%.400s", op, ok, out, want)
		}
	}
	out, ok := fastList(`{"op":"check","format":"openai-chat","body":{"model":"gpt-4o","messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":""}]}}`)
	if !ok || !bytes.Contains(out, []byte(`"kind":"empty_text",`)) || !bytes.Contains(out, []byte(`"path":"body.messages[1]"`)) {
		t.Fatalf("check: fastList answered %v %s", ok, out)
	}
}

// FuzzFastBody holds fastList to the general path on any request, seeded
// with body requests (and conversions of the carried form, carriedRequests).
func FuzzFastBody(f *testing.F) {
	for i, s := range bodySeeds(f) {
		if len(s) <= 20000 && (i < len(bodyOps) || i%40 == 0) {
			f.Add(s)
		}
	}
	for _, c := range carriedRequests(f, 200, 2) {
		f.Add(c.req)
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		if len(req) <= MaxRequestBytes {
			listSameAsGeneral(t, req)
		}
	})
}

// TestFastBody_workBAllocs pins the allocations of check, repair and a
// conversion to the body's own format of work item (b) as a whole request
// body (workBBody: model, the 40 messages, 5 tools, tool_choice,
// temperature, max_tokens) through Invoke: at most 40 each, one per message
// (session 14: check took 83, its other members skipped by building them;
// repair 45, their canonical JSON grown a few bytes at a time), each answer
// the general path's byte for byte.
func TestFastBody_workBAllocs(t *testing.T) {
	body := workBBody(t)
	for _, w := range workBBodyRequests[:3] {
		req := []byte(`{` + w.members + `,"body":` + body + `}`)
		if !listSameAsGeneral(t, req) {
			t.Fatalf("%s: declined", w.name)
		}
		if allocs := testing.AllocsPerRun(20, func() { _ = Invoke(req) }); allocs > 40 {
			t.Errorf("%s: %v allocations, want at most 40", w.name, allocs)
		}
	}
}
