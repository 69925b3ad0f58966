package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolerr/toolerr/core/internal/sharedtest"
)

// fastListSeeds are convert, check and repair requests for the
// differential tests of fastList: work item (b) to every format, checked
// and repaired, every such request of the conformance suite, every recorded
// openai-chat transcript (when ../shared is there) likewise, and a few
// built to reach the bounds (depth, value bytes), lint findings and the
// shapes the scanner declines.
func fastListSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	targets := []string{"anthropic", "gemini", "bedrock", "openai-responses"}
	checks := []string{`"op":"check","format":"openai-chat"`, `"op":"check","format":"openai-chat","model":"o1-mini"`, `"op":"check","format":"openai-chat","id_rules":"mistral"`,
		`"op":"repair","format":"openai-chat"`, `"op":"repair","format":"openai-chat","model":"o1-mini"`,
		`"op":"convert","from":"openai-chat","to":"openai-chat","id_rules":"mistral"`, `"op":"convert","from":"openai-chat","to":"openai-chat"`}
	// all is a request of every op and target for the messages msgs
	all := func(msgs string) {
		for _, to := range targets {
			seeds = append(seeds, []byte(`{"op":"convert","from":"openai-chat","to":"`+to+`","messages":`+msgs+`}`))
		}
		for _, c := range checks {
			seeds = append(seeds, []byte(`{`+c+`,"messages":`+msgs+`}`))
		}
	}
	wb, err := workB()
	if err != nil {
		t.Fatal(err)
	}
	all(string(wb))
	files, _ := filepath.Glob("../conformance/fixtures/*/*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			Tests []struct {
				Request json.RawMessage `json:"request"`
			} `json:"tests"`
		}
		if json.Unmarshal(data, &cases) != nil {
			continue
		}
		for _, c := range cases {
			for _, tc := range c.Tests {
				var req map[string]any
				if json.Unmarshal(tc.Request, &req) == nil && (req["op"] == "convert" || req["op"] == "check" || req["op"] == "repair") {
					seeds = append(seeds, compactJSON(t, tc.Request))
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(sharedtest.Dir(), "fixtures", "real")); err != nil {
		t.Logf("the real recordings were not found under %s (set TOOLERR_SHARED): their seeds are left out", sharedtest.Dir())
	}
	for _, f := range sharedtest.Recordings("transcript_*.json") {
		if sharedtest.Format(f) != "openai-chat" {
			continue
		}
		msgs, err := json.Marshal(sharedtest.Read(t, f)["request"].(map[string]any)["body"].(map[string]any)["messages"])
		if err != nil {
			t.Fatal(err)
		}
		all(string(msgs))
	}
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	tiny := "[" + strings.Repeat("{},", 30000) + "{}]"
	// a message whose content costs more tree than a text of its length may,
	// in a request long enough to afford it, that repair rebuilds (Clone)
	costly := `[{"role":"user","content":"` + strings.Repeat("x", 60000) + `"},{"role":"assistant","content":[` + strings.Repeat("{},", 2000) +
		`{}],"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}},{"id":"a","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"ok"}]`
	for _, msgs := range []string{
		`[]`,
		costly,
		`[{"role":"user","content":` + deep + `}]`,
		`[{"role":"user","content":` + tiny + `}]`,
		`[{"role":"assistant","content":null,"tool_calls":[{"id":"call_\u00e9","type":"function","function":{"name":"get\"x","arguments":"{\"a\":[1,2e3,-0]}"}}]},{"role":"tool","tool_call_id":"call_\u00e9","content":"{\"code\":\"TIMEOUT\",\"message\":\"Token sk-abcdefghijklmnopqrstuvwxyz0123456789 timed out.\",\"retryable\":true,\"details\":{},\"source\":\"tool\"}"}]`,
		`[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":"1"}},{"id":"a","function":{"name":"f","arguments":"[]"}}]},{"role":"tool","tool_call_id":"a","content":"\ud800 lone"},{"role":"tool","tool_call_id":"a","content":""}]`,
		`[{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},{"role":"developer","content":"be brief"},{"role":"system","content":"x"}]`,
		`[{"role":"assistant","content":"a","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","function":{"name":"g","arguments":"{\"x\":1}"}}]},{"role":"user","content":"next"},{"role":"tool","tool_call_id":"c2","content":"late"},{"role":"tool","tool_call_id":"zz","content":"orphan"},{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"function","function":{"name":"f","arguments":""}}]},{"role":"tool","tool_call_id":"c3","content":""},{"role":"tool","tool_call_id":"c3","content":"again"}]`,
		// blank and not blank behind escapes, which check reads without
		// building the string
		`[{"role":"assistant","content":null,"tool_calls":[{"id":"b1","function":{"name":"f","arguments":"{\"q\":\"\n\"}"}}]},{"role":"tool","tool_call_id":"b1","content":"\n\t "},{"role":"tool","tool_call_id":"b1","content":"\u00a0\u0085"},{"role":"tool","tool_call_id":"b2","content":" \u200b"},{"role":"user","content":"line\nbreak"},{"role":"developer","content":"\"be\" brief"}]`,
		`[{"role":"system","content":[]},{"role":"user","content":[{"type":"input_audio","input_audio":{}},{"text":"no type"}]},{"role":"assistant","content":"","tool_calls":[]},{"role":"assistant","tool_calls":null,"content":[{"type":"refusal","refusal":"no"}]},{"role":"tool","tool_call_id":"x","content":[{"type":"text","text":""}]}]`,
	} {
		all(msgs)
	}
	return seeds
}

func compactJSON(t testing.TB, b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// listSameAsGeneral fails unless fastList either declines req or answers it
// with the very bytes of the general path; it reports whether it answered.
func listSameAsGeneral(t *testing.T, req []byte) bool {
	t.Helper()
	got, ok := fastList(string(req))
	if !ok {
		return false
	}
	var op string
	if want := invokeTree(string(req), &op); !bytes.Equal(got, want) {
		t.Fatalf("fastList answers\n%.2000s\nthe general path\n%.2000s\nfor the request\n%.3000s", got, want, req)
	}
	return true
}

// allSameAsGeneral is listSameAsGeneral of every request of reqs; it
// returns how many fastList answered and how many it declined.
func allSameAsGeneral(t *testing.T, reqs [][]byte) (answered, declined int) {
	t.Helper()
	for _, r := range reqs {
		if listSameAsGeneral(t, r) {
			answered++
		} else {
			declined++
		}
	}
	return answered, declined
}

// listMutations returns variants of a convert or check request: each member of each
// message (and of each call and its function) dropped, or replaced by a
// value of every JSON type, an unknown member added, other roles, the
// members of the request reordered, duplicated or of another type.
func listMutations(t testing.TB, req []byte) [][]byte {
	var top map[string]any
	if err := json.Unmarshal(req, &top); err != nil {
		return nil
	}
	msgs, _ := top["messages"].([]any)
	var out [][]byte
	emit := func() {
		// op and the formats first, messages last, as the bindings write them
		var b bytes.Buffer
		b.WriteByte('{')
		for _, k := range []string{"op", "from", "to", "format", "id_rules", "model", "body", "messages"} {
			if v, ok := top[k]; ok {
				if b.Len() > 1 {
					b.WriteByte(',')
				}
				kb, _ := json.Marshal(k)
				vb, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				b.Write(kb)
				b.WriteByte(':')
				b.Write(vb)
			}
		}
		b.WriteByte('}')
		out = append(out, b.Bytes())
	}
	values := []any{nil, 1.5, true, "", "call_x", []any{}, map[string]any{},
		[]any{map[string]any{"type": "text", "text": "hi"}},
		`{"code":"TIMEOUT","message":"It timed out.","retryable":true,"details":{},"source":"tool"}`}
	// mutate calls each variant of object m (at most one member changed)
	mutate := func(m map[string]any, keys []string) {
		for _, k := range keys {
			old, had := m[k]
			delete(m, k)
			emit()
			for _, v := range values {
				m[k] = v
				emit()
			}
			if had {
				m[k] = old
			} else {
				delete(m, k)
			}
		}
	}
	for i := 0; i < len(msgs) && i < 12; i++ {
		m, ok := msgs[i].(map[string]any)
		if !ok {
			continue
		}
		mutate(m, []string{"role", "content", "tool_call_id", "tool_calls", "name", "function_call"})
		role := m["role"]
		for _, r := range []string{"tool", "function", "developer", "user", "assistant", "bogus"} {
			m["role"] = r
			emit()
		}
		m["role"] = role
		calls, _ := m["tool_calls"].([]any)
		for _, c := range calls {
			cm, ok := c.(map[string]any)
			if !ok {
				continue
			}
			mutate(cm, []string{"id", "type", "function", "extra"})
			if fn, ok := cm["function"].(map[string]any); ok {
				mutate(fn, []string{"name", "arguments", "strict"})
			}
		}
	}
	mutate(top, []string{"from", "to", "format", "op", "id_rules", "model", "body"})
	// member order and duplicates, which encoding/json does not write
	s := string(req)
	if i := strings.Index(s, `"messages":`); i > 0 {
		out = append(out, []byte(`{"messages":[],`+s[1:]))
		out = append(out, []byte(s[:i]+`"to":"gemini",`+s[i:]))
		out = append(out, []byte(`{"from":"anthropic",`+s[1:]))
	}
	return out
}

// byteMutations returns n variants of req with one byte replaced by, or one
// of these bytes inserted at, a random offset (seeded: the same every run).
func byteMutations(req []byte, n int, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, 12))
	const alphabet = "{}[]\",:\\ 0-.enutlfa\x00\x7f\xff"
	out := make([][]byte, 0, n)
	for range n {
		b := bytes.Clone(req)
		at := r.IntN(len(b))
		c := alphabet[r.IntN(len(alphabet))]
		switch r.IntN(3) {
		case 0:
			b[at] = c
		case 1:
			b = append(b[:at], append([]byte{c}, b[at:]...)...)
		default:
			b = append(b[:at], b[at+1:]...)
		}
		out = append(out, b)
	}
	return out
}

// TestFastList_sameAsGeneral runs fastList and the general path on the
// seeds and on many mutations of each, and requires the same bytes whenever
// fastList answers; it must answer the seeds it is for (work item (b), the
// real openai-chat transcripts) so that the test proves something.
func TestFastList_sameAsGeneral(t *testing.T) {
	seeds := fastListSeeds(t)
	answered, declined := seedsSameAsGeneral(t, seeds, "work item (b)", 11, func(i int, seed []byte) [][]byte {
		if len(seed) > 20000 {
			return nil // the bounds' seeds: mutations of them repeat the big parse
		}
		return append(listMutations(t, seed), byteMutations(seed, 60, uint64(i))...)
	})
	t.Logf("%d seeds; fastList answered %d requests, declined %d", len(seeds), answered, declined)
	if answered < 1000 {
		t.Fatalf("fastList answered only %d requests: the test would prove little", answered)
	}
}

// seedsSameAsGeneral is listSameAsGeneral of every seed and of the
// variants of each; fastList must answer the first must seeds (what, the
// shape it is for). It returns how many requests fastList answered and how
// many it declined.
func seedsSameAsGeneral(t *testing.T, seeds [][]byte, what string, must int, variants func(i int, seed []byte) [][]byte) (answered, declined int) {
	t.Helper()
	for i, seed := range seeds {
		a, d := allSameAsGeneral(t, [][]byte{seed})
		if d > 0 && i < must {
			t.Fatalf("fastList declines %s: %.200s", what, seed)
		}
		a2, d2 := allSameAsGeneral(t, variants(i, seed))
		answered, declined = answered+a+a2, declined+d+d2
	}
	return answered, declined
}

// FuzzFastList holds fastList to the general path on any request.
func FuzzFastList(f *testing.F) {
	for _, s := range fastListSeeds(f) {
		if len(s) <= 20000 { // the bounds' seeds would slow every run
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		if len(req) <= MaxRequestBytes {
			listSameAsGeneral(t, req)
		}
	})
}

// TestFastList_reusedArenasAnswerAlike: fastList's arenas (dialect.NewParts)
// are reused from call to call; its answers given one after another and
// from many goroutines at once, each list after others of other lengths
// and ops, are the general path's, so no list reads what an earlier one
// left in an arena, nor two lists one arena.
func TestFastList_reusedArenasAnswerAlike(t *testing.T) {
	seeds := fastListSeeds(t)
	var reqs, want [][]byte
	for _, s := range seeds {
		if _, ok := fastList(string(s)); ok && len(s) <= 20000 {
			var op string
			reqs, want = append(reqs, s), append(want, invokeTree(string(s), &op))
		}
	}
	if len(reqs) < 100 {
		t.Fatalf("fastList answers only %d seeds", len(reqs))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 3 * len(reqs) {
				i := (k*7 + g*13) % len(reqs) // each goroutine in its own order
				if got, _ := fastList(string(reqs[i])); !bytes.Equal(got, want[i]) {
					errs <- fmt.Sprintf("request %d answered otherwise after others:\n%.400s\nwant\n%.400s", i, got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
