package core

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// carryMember is one member a generated body may hold beside its list:
// name (as written between the quotes, escapes and all), its JSON text, and whether the carried form answers a body of it
// (answers) when nothing else declines.
type carryMember struct {
	name, value string
	answers     bool
}

// carryMembers are the members carriedBodies draws from: the tools, tool
// choices, parallel switches, generation parameters (each name,
// null, wrong types, values whose canonical JSON is not their text) and
// members no reader takes (odd names among them) of an openai-chat body,
// usual and hostile; those the carried form declines are answers false.
func carryMembers() []carryMember {
	deep := strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 40)
	var many strings.Builder
	for i := range 20 {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`{"type":"function","function":{"name":"t` + strings.Repeat("x", i) + `","parameters":{"type":"object"}}}`)
	}
	yes := func(name, value string) carryMember { return carryMember{name, value, true} }
	no := func(name, value string) carryMember { return carryMember{name, value, false} }
	return []carryMember{
		yes("tools", workBTools), yes("tools", `[]`), yes("tools", `null`), yes("tools", `[`+many.String()+`]`),
		yes("tools", `[{"type":"function","function":{"name":"get_weather","description":"d","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":true}}]`),
		yes("tools", `[{"function":{"name":"f","strict":false,"description":null,"parameters":null}},{"type":"function","function":{"name":"g","strict":null}}]`),
		yes("tools", `[{"type":"function","function":{"name":"f","description":"","parameters":{}}}]`),
		yes("tools", `[ { "type" : "function" , "function" : { "parameters" : { "b" : 1 , "a" : 2 } , "name" : "f" } } ]`),
		yes("tools", `[{"type":"function","function":{"name":"caf\u00e9_\ud83d\ude00","description":"line\nbreak \u2028 \"q\" \ud800","parameters":{"z":1E2,"a":[-0,0.10,1e-7,100000000000000000000],"\u00e9":{"$ref":"#/x"},"é2":"\/"}}}]`),
		yes("tools", `[{"type":"function","function":{"name":"f","parameters":`+deep+`}}]`),
		no("tools", `[{"type":"web_search"}]`), no("tools", `[{"type":"function","function":{"name":"f","extra":1}}]`),
		no("tools", `[{"type":"function","function":{"name":""}}]`), no("tools", `[{"type":"function","function":{"name":"f","parameters":[]}}]`),
		no("tools", `[{"type":"function","function":{"name":"f","description":7}}]`), no("tools", `[{"type":"function","function":{"name":"f","name":"g"}}]`),
		no("tools", `[{"type":"function","type":"function","function":{"name":"f"}}]`), no("tools", `[{"type":"function","function":{"name":"f","strict":"yes"}}]`),
		no("tools", `{}`), no("tools", `"x"`), no("tools", `[{"type":null,"function":{"name":"f"}}]`), no("tools", `[null]`),
		no("tools", `[{"type":"function","function":{"name":"f"},"cache_control":{}}]`), no("tools", `[{"type":"function","function":null}]`),
		no("tools", `[{"type":"function","function":{"name":"f","parameters":{"a":1,"a":2}}}]`),
		yes("tool_choice", `"auto"`), yes("tool_choice", `"none"`), yes("tool_choice", `"required"`), yes("tool_choice", `null`),
		yes("tool_choice", `{"type":"function","function":{"name":"get_weather"}}`), yes("tool_choice", `{"function":{"name":"missing"},"type":"function"}`),
		no("tool_choice", `"any"`), no("tool_choice", `{"type":"function"}`), no("tool_choice", `{"type":"function","function":{"name":""}}`),
		no("tool_choice", `{"type":"function","function":{"name":"f","x":1}}`), no("tool_choice", `7`), no("tool_choice", `{"type":"tool","function":{"name":"f"}}`),
		yes("parallel_tool_calls", `true`), yes("parallel_tool_calls", `false`), yes("parallel_tool_calls", `null`), no("parallel_tool_calls", `"no"`),
		yes("temperature", `0.2`), yes("temperature", `"hot"`), yes("temperature", `null`), yes("temperature", `2E-1`),
		yes("max_tokens", `1024`), yes("max_tokens", `null`), yes("max_completion_tokens", `5`), yes("max_completion_tokens", `null`),
		yes("stop", `"END"`), yes("stop", `["a","\u0062"]`), yes("stop", `null`), yes("stop", `7`),
		yes("top_p", `1E0`), yes("seed", `-0`), yes("stream", `true`), yes("presence_penalty", `0.5`), yes("frequency_penalty", `-1.5e-3`),
		yes("metadata", `{"b":1,"a":"\u0041"}`), yes("store", `false`), yes("user", `"u"`), yes("service_tier", `"auto"`),
		yes("prompt_cache_key", `"k"`), yes("safety_identifier", `"s"`),
		yes("model", `"gpt-4o"`), yes("model", `7`), yes("model", `null`), yes("model", `"\u006f1-mini"`), yes("model", `["o1"]`),
		yes("top_k", `5`), yes("response_format", `{"type":"json_object"}`), yes("", `1`), yes(`\u0000bad`, `1`), yes("a b", `2`),
		yes(strings.Repeat("x", 300), `[]`), yes("system", `"sys"`), yes("functions", `[]`), yes("logit_bias", `{"1":2}`),
		yes(`zz\ud800`, `true`), yes("Tools", `[]`), yes("MESSAGES", `1`), yes("tool_choicE", `"auto"`),
		no("n", `1e400`), no("user", `"\ud800`),
	}
}

// carryLists are the message lists of generated bodies: work item (b)'s,
// one with a system message and an id Anthropic's rules rewrite (id_map),
// one with a function name the targets refuse (name_map: declined), and
// one user message.
func carryLists(tb testing.TB) []string {
	msgs, err := workB()
	if err != nil {
		tb.Fatal(err)
	}
	return []string{
		string(msgs),
		`[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"call.1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"call.1","content":"sunny"}]`,
		`[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"bad name!","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"ok"}]`,
		`[{"role":"user","content":"hi"}]`,
	}
}

// carriedRequest is one generated conversion and the members its body holds.
type carriedRequest struct {
	req     []byte
	members []int // indices into carryMembers
	carried bool  // to comes before the body: the carried form reads it
}

// carriedRequests generates n conversions of openai-chat bodies to
// anthropic and gemini, deterministically (seed): each body up to seven
// members of carryMembers (a name twice now and then) and one list of
// carryLists in random order, the request's to before its body (the
// carried form) or, one in eight, after it (the tree form), one in five
// with id_rules and one in five with a model of its own.
func carriedRequests(tb testing.TB, n int, seed uint64) []carriedRequest {
	ms, lists := carryMembers(), carryLists(tb)
	r := rand.New(rand.NewPCG(seed, 12))
	out := make([]carriedRequest, 0, n)
	for range n {
		var parts []string
		var picked []int
		names := map[string]bool{}
		for range r.IntN(8) {
			i := r.IntN(len(ms))
			if names[ms[i].name] && r.IntN(10) > 0 {
				continue
			}
			names[ms[i].name] = true
			picked = append(picked, i)
			parts = append(parts, `"`+ms[i].name+`":`+ms[i].value)
		}
		list := `"messages":` + lists[r.IntN(len(lists))]
		at := r.IntN(len(parts) + 1)
		parts = append(parts[:at], append([]string{list}, parts[at:]...)...)
		sep := []string{",", ", ", ",\n\t"}[r.IntN(3)]
		body := "{" + strings.Join(parts, sep) + "}"
		to := []string{"anthropic", "gemini"}[r.IntN(2)]
		opts := []string{``, ``, ``, `"id_rules":"mistral",`, `"model":"o1-mini",`}[r.IntN(5)]
		c := carriedRequest{members: picked, carried: r.IntN(8) > 0}
		if c.carried {
			c.req = []byte(`{"op":"convert","from":"openai-chat",` + opts + `"to":"` + to + `","body":` + body + `}`)
		} else {
			c.req = []byte(`{"op":"convert","from":"openai-chat",` + opts + `"body":` + body + `,"to":"` + to + `"}`)
		}
		out = append(out, c)
	}
	return out
}

// TestFastBody_carriedSameAsGeneral holds the carried form to the general
// path on 6000 generated bodies, usual and hostile (carriedRequests), and
// requires it to answer, somewhere among them, a body holding each member
// of carryMembers it takes: the strict notes, the parallel switch off, a
// single stop string, system text, an id_map, members no reader takes
// under odd names, tools past its first eight, and the rest.
func TestFastBody_carriedSameAsGeneral(t *testing.T) {
	ms := carryMembers()
	answeredWith := make([]int, len(ms))
	answered, carried := 0, 0
	for _, c := range carriedRequests(t, 6000, 1) {
		if !listSameAsGeneral(t, c.req) {
			continue
		}
		answered++
		if c.carried {
			carried++
			for _, i := range c.members {
				answeredWith[i]++
				if !ms[i].answers {
					t.Errorf("the carried form answered a body with %q: %s (it should decline it)", ms[i].name, ms[i].value)
				}
			}
		}
	}
	t.Logf("fastList answered %d of 6000 generated conversions, %d in the carried form", answered, carried)
	for i, m := range ms {
		if m.answers && answeredWith[i] == 0 {
			t.Errorf("the carried form never answered a body with %q: %.80s", m.name, m.value)
		}
	}
	if carried < 1000 {
		t.Fatalf("the carried form answered only %d: the test would prove little", carried)
	}
}

// TestFastBody_carriedAnswer: work item (b) as a body converted to
// anthropic and to gemini answers with the target's tools written from the
// schemas as read, the tool choice, the parameters in their places and the
// system text, and takes at most 40 allocations (the tree of its members
// took 322 and 340).
func TestFastBody_carriedAnswer(t *testing.T) {
	body := workBBody(t)
	for _, c := range []struct{ to, want string }{
		{"anthropic", `"model":"gpt-4o","system":"You are Northwind Travel's assistant.`},
		{"anthropic", `"temperature":0.2,"tool_choice":{"type":"auto"},"tools":[{"description":"Search flights between two airports on a date.","input_schema":{"properties":{"date":{"format":"date","type":"string"},"destination":{"description":"IATA code","type":"string"},`},
		{"anthropic", `{"ok":{"body":{"max_tokens":1024,"messages":[{"content":[{"text":"I need to be in Lisbon`},
		{"gemini", `"generationConfig":{"maxOutputTokens":1024,"temperature":0.2},"systemInstruction":{"parts":[{"text":"You are Northwind`},
		{"gemini", `"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}},"tools":[{"functionDeclarations":[{"description":"Search flights between two airports on a date.","name":"search_flights","parametersJsonSchema":{"properties":{"date":`},
		{"gemini", `]}]},"notes":["dropped the model parameter: gemini takes the model in the URL, not the body"]}}`},
	} {
		req := `{"op":"convert","from":"openai-chat","to":"` + c.to + `","body":` + body + `}`
		out, ok := fastList(req)
		if !ok || !bytes.Contains(out, []byte(c.want)) {
			t.Fatalf("%s: fastList answered %v\n%.600s\nwant it to hold\n%s", c.to, ok, out, c.want)
		}
		if !listSameAsGeneral(t, []byte(req)) {
			t.Fatalf("%s: declined", c.to)
		}
		allocs := testing.AllocsPerRun(20, func() { _ = Invoke([]byte(req)) })
		if allocs > 40 {
			t.Errorf("%s: %v allocations, want at most 40", c.to, allocs)
		}
	}
}

// FuzzFastBodyCarried is FuzzFastBody seeded with conversions of the
// carried form alone (carriedRequests), for a fuzzer that reaches its
// members' edges sooner than from the whole body corpus.
func FuzzFastBodyCarried(f *testing.F) {
	for _, c := range carriedRequests(f, 300, 3) {
		f.Add(c.req)
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		if len(req) <= MaxRequestBytes {
			listSameAsGeneral(t, req)
		}
	})
}
