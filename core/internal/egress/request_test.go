package egress

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/request"
	"github.com/toolerr/toolerr/core/internal/sharedtest"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

func prepare(t *testing.T, f transcript.Format, body string, o transcript.Options) Prepared {
	t.Helper()
	v, err := canonical.Parse([]byte(body))
	require.NoError(t, err)
	b, err := request.Read(f, v, "body")
	require.NoError(t, err)
	p, err := Prepare(b, o)
	require.NoError(t, err)
	return p
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := canonical.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

const timeoutEnv = `{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"Weather service timed out.\",\"retryable\":true,\"source\":\"tool\"}`

// TestPrepare_issue10Hops is the measured LiteLLM faults of issue 10, each
// as the body that reached the upstream, and what the request op sends in
// its place.
func TestPrepare_issue10Hops(t *testing.T) {
	t.Run("an envelope without is_error gets it", func(t *testing.T) {
		p := prepare(t, transcript.Anthropic, `{"model":"m","max_tokens":1,"messages":[
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"`+timeoutEnv+`"}]}]}`, transcript.Options{})
		assert.True(t, p.Changed)
		assert.Equal(t, []string{"toolu_1"}, p.FlagsRestored)
		res := p.Body["messages"].([]any)[1].(map[string]any)["content"].([]any)[0].(map[string]any)
		assert.Equal(t, true, res["is_error"])
		e, err := envelope.FromValue(mustParse(t, res["content"].(string)), "")
		require.NoError(t, err)
		assert.Equal(t, envelope.Timeout, e.Code, "the five fields travel unchanged")
	})
	t.Run("the five fields at the top of a Gemini response move under error", func(t *testing.T) {
		p := prepare(t, transcript.Gemini, `{"contents":[
			{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":`+unescape(timeoutEnv)+`}}]}]}`, transcript.Options{})
		resp := p.Body["contents"].([]any)[1].(map[string]any)["parts"].([]any)[0].(map[string]any)["functionResponse"].(map[string]any)["response"].(map[string]any)
		assert.Equal(t, []string{"error"}, keys(resp))
		assert.Equal(t, "TIMEOUT", resp["error"].(map[string]any)["code"])
	})
	t.Run("a missing parallel result is a NO_RESULT failure, flagged", func(t *testing.T) {
		p := prepare(t, transcript.Anthropic, `{"model":"m","max_tokens":1,"messages":[
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"f","input":{}},{"type":"tool_use","id":"toolu_B","name":"f","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_B","content":"ok"}]}]}`, transcript.Options{})
		assert.Equal(t, 1, p.Changes.Synthesized)
		res := p.Body["messages"].([]any)[1].(map[string]any)["content"].([]any)[0].(map[string]any)
		assert.Equal(t, "toolu_A", res["tool_use_id"])
		assert.Equal(t, true, res["is_error"])
		assert.Contains(t, res["content"], `"code":"NO_RESULT"`)
		assert.Empty(t, p.Findings)
	})
	t.Run("two ids that sanitize alike stay two calls", func(t *testing.T) {
		p := prepare(t, transcript.Anthropic, `{"model":"m","max_tokens":1,"messages":[
			{"role":"assistant","content":[{"type":"tool_use","id":"call:abc/1","name":"f","input":{}},{"type":"tool_use","id":"call_abc_1","name":"f","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"call:abc/1","content":"a"},{"type":"tool_result","tool_use_id":"call_abc_1","content":"b"}]}]}`, transcript.Options{})
		msgs := p.Body["messages"].([]any)
		calls := msgs[0].(map[string]any)["content"].([]any)
		results := msgs[1].(map[string]any)["content"].([]any)
		id0, id1 := calls[0].(map[string]any)["id"], calls[1].(map[string]any)["id"]
		assert.NotEqual(t, id0, id1)
		assert.Equal(t, "call_abc_1", id1, "a valid id is kept")
		assert.Equal(t, id0, results[0].(map[string]any)["tool_use_id"])
		assert.Equal(t, "a", results[0].(map[string]any)["content"])
		assert.Equal(t, map[string]string{id0.(string): "call:abc/1"}, p.IDMap)
	})
	t.Run("an orphan is dropped and reported", func(t *testing.T) {
		p := prepare(t, transcript.OpenAIChat, `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_X","content":"late"}]}`, transcript.Options{})
		assert.Equal(t, 1, p.Changes.DroppedOrphans)
		assert.Equal(t, []string{"call_X"}, p.IDs)
		assert.Len(t, p.Body["messages"], 1)
	})
}

// TestPrepare_idsAcrossRequests: the id a call gets is the same in every
// later request of its conversation, whatever turns follow.
func TestPrepare_idsAcrossRequests(t *testing.T) {
	turn := func(id string) string {
		return `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]}`
	}
	body := func(turns ...string) string {
		s := `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"go"}`
		for _, t := range turns {
			s += "," + t
		}
		return s + "]}"
	}
	first := prepare(t, transcript.Anthropic, body(turn("fc:1")), transcript.Options{})
	later := prepare(t, transcript.Anthropic, body(turn("fc:1"), turn("fc_1"), turn("fc.1")), transcript.Options{})
	var newID string
	for k, v := range first.IDMap {
		if v == "fc:1" {
			newID = k
		}
	}
	require.NotEmpty(t, newID)
	assert.Equal(t, "fc:1", later.IDMap[newID], "the later request maps fc:1 the same way")
	assert.Len(t, later.IDMap, 2, "fc:1 and fc.1 rewritten, fc_1 kept")
}

// TestPrepare_idempotent: preparing what Prepare made changes nothing, and
// check finds nothing repair could fix in it; over random Anthropic and
// Gemini histories with dropped, duplicated, flagless and badly named
// results.
func TestPrepare_idempotent(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	for n := 0; n < 300; n++ {
		f := []transcript.Format{transcript.Anthropic, transcript.Gemini, transcript.Bedrock, transcript.OpenAIChat}[n%4]
		body := randomBody(r, f)
		p := prepare(t, f, body, transcript.Options{Model: "gemini-3-pro-preview"})
		again := prepare(t, f, marshal(t, p.Body), transcript.Options{Model: "gemini-3-pro-preview"})
		require.False(t, again.Changed, "%s: %s\nfirst gave %s\nthen %s", f, body, marshal(t, p.Body), marshal(t, again.Body))
		for _, fd := range again.Findings {
			assert.NotContains(t, []string{"unanswered_call", "orphan_result", "misplaced_result", "duplicate_result", "invalid_id", "responses_split"}, fd.Kind, "%s: %s", f, body)
		}
	}
}

// randomBody is one call turn of 1-3 calls and a reply that answers some of
// them (with a flagless envelope, text, a duplicate or an orphan), in the
// format f.
func randomBody(r *rand.Rand, f transcript.Format) string {
	ids := []string{"c:1", "c_1", "c/2", "toolu_3"}
	nCalls := 1 + r.Intn(3)
	calls, results := []string{}, []string{}
	for i := 0; i < nCalls; i++ {
		id := ids[i]
		calls = append(calls, callJSON(f, id))
		switch r.Intn(5) {
		case 0: // unanswered
		case 1:
			results = append(results, resultJSON(f, id, true))
		case 2:
			results = append(results, resultJSON(f, id, false), resultJSON(f, id, false))
		default:
			results = append(results, resultJSON(f, id, r.Intn(2) == 0))
		}
	}
	if r.Intn(4) == 0 {
		results = append(results, resultJSON(f, "gone_9", false))
	}
	r.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
	join := func(s []string) string {
		out := ""
		for i, x := range s {
			if i > 0 {
				out += ","
			}
			out += x
		}
		return out
	}
	switch f {
	case transcript.Gemini:
		reply := `{"role":"user","parts":[` + join(results) + `]}`
		if len(results) == 0 {
			reply = `{"role":"user","parts":[{"text":"go on"}]}`
		}
		return `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[` + join(calls) + `]},` + reply + `]}`
	case transcript.OpenAIChat:
		s := `{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[` + join(calls) + `]}`
		for _, x := range results {
			s += "," + x
		}
		return s + `]}`
	}
	reply := join(append(results, textJSON(f)))
	return `{"messages":[{"role":"user","content":[` + textJSON(f) + `]},{"role":"assistant","content":[` + join(calls) + `]},{"role":"user","content":[` + reply + `]}]}`
}

func callJSON(f transcript.Format, id string) string {
	switch f {
	case transcript.Gemini:
		return `{"functionCall":{"id":"` + id + `","name":"f","args":{}}}`
	case transcript.Bedrock:
		return `{"toolUse":{"toolUseId":"` + id + `","name":"f","input":{}}}`
	case transcript.OpenAIChat:
		return `{"id":"` + id + `","type":"function","function":{"name":"f","arguments":"{}"}}`
	}
	return `{"type":"tool_use","id":"` + id + `","name":"f","input":{}}`
}

func resultJSON(f transcript.Format, id string, env bool) string {
	text := `"ok"`
	if env {
		text = `"` + timeoutEnv + `"`
	}
	switch f {
	case transcript.Gemini:
		if env {
			return `{"functionResponse":{"id":"` + id + `","name":"f","response":{"output":` + unescape(timeoutEnv) + `}}}`
		}
		return `{"functionResponse":{"id":"` + id + `","name":"f","response":{"output":"ok"}}}`
	case transcript.Bedrock:
		return `{"toolResult":{"toolUseId":"` + id + `","content":[{"text":` + text + `}]}}`
	case transcript.OpenAIChat:
		return `{"role":"tool","tool_call_id":"` + id + `","content":` + text + `}`
	}
	return `{"type":"tool_result","tool_use_id":"` + id + `","content":` + text + `}`
}

func textJSON(f transcript.Format) string {
	if f == transcript.Bedrock {
		return `{"text":"go on"}`
	}
	return `{"type":"text","text":"go on"}`
}

// TestPrepare_realTranscripts: every recorded request the provider
// accepted passes the request op unchanged, byte for byte: the op changes
// nothing a provider takes.
func TestPrepare_realTranscripts(t *testing.T) {
	sharedtest.Real(t)
	for _, f := range sharedtest.Recordings("transcript_*.json") {
		sub := filepath.Base(filepath.Dir(f))
		t.Run(sub+"/"+filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			var rec struct {
				Request struct {
					URL  string
					Body json.RawMessage
				}
			}
			require.NoError(t, json.Unmarshal(b, &rec))
			o := transcript.Options{}
			if sub == "mistral" {
				o.IDRules = "mistral"
			}
			p := prepare(t, transcript.Format(sharedtest.Format(f)), string(rec.Request.Body), o)
			assert.False(t, p.Changed, "changes %+v, restored %v, ids %v", p.Changes, p.FlagsRestored, p.IDMap)
			if !p.Changed {
				assert.Equal(t, marshal(t, mustParse(t, string(rec.Request.Body))), marshal(t, p.Body))
			}
		})
	}
}

func mustParse(t *testing.T, s string) any {
	t.Helper()
	v, err := canonical.Parse([]byte(s))
	require.NoError(t, err)
	return v
}

// unescape turns the Go-quoted JSON text of a constant into JSON.
func unescape(s string) string {
	var out string
	if err := json.Unmarshal([]byte(`"`+s+`"`), &out); err != nil {
		panic(fmt.Sprint(err))
	}
	return out
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestPrepare_repeatedIDsLinear: a turn of n calls that all share one id
// (each renamed by repair) costs memory linear in n: 4n calls allocate
// about 4 times what n do, not 16 (the renaming used to copy the turn's
// parts and retry every earlier hash for each call).
func TestPrepare_repeatedIDsLinear(t *testing.T) {
	allocated := func(n int) uint64 {
		body := `{"messages":[{"role":"assistant","content":[` + strings.Repeat(`{"type":"tool_use","id":"x","name":"f","input":{}},`, n) + `{"type":"text","text":"t"}]}]}`
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p := prepare(t, transcript.Anthropic, body, transcript.Options{})
		runtime.ReadMemStats(&after)
		require.Equal(t, n-1, p.Changes.Renamed)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocated(500), allocated(2000)
	assert.Less(t, float64(large)/float64(small), 8.0, "500 calls: %d bytes, 2000 calls: %d bytes", small, large)
}
