package gateway

import (
	"bytes"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileBodies are bodies built to break a reader: not JSON, JSON of every
// wrong shape, nesting and sizes past the core's bounds, broken UTF-8,
// duplicate keys, and lists of the wrong element types.
func hostileBodies() []string {
	return []string{
		"", " ", "null", "[]", "{", "}", `"x"`, "1e400", "NaN", "\x00\x01\x02", "\xff\xfe{}",
		strings.Repeat("[", 100000), strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000),
		`{"messages":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
		`{"messages":[],"messages":[]}`, `{"contents":7}`, `{"input":{"a":1}}`, `{"messages":[7,"x",null,true]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":7}]}]}`,
		`{"messages":[{"role":"user","content":"\ud800 lone \udfff"}]}`,
		`{"messages":[` + strings.Repeat(`{},`, 50000) + `{}]}`,
		`{"contents":[{"role":"model","parts":[` + strings.Repeat(`{"functionCall":{"name":"f","args":{}}},`, 5000) + `{"text":""}]}]}`,
		`{"messages":[{"role":"assistant","content":[` + strings.Repeat(`{"type":"tool_use","id":"x","name":"f","input":{}},`, 3000) + `{"type":"text","text":"t"}]}]}`,
		`{"messages":[{"role":"tool","tool_call_id":"` + strings.Repeat("a", 1<<20) + `","content":"x"}]}`,
		`{"model":"` + strings.Repeat("\\u0000", 10000) + `","messages":[]}`,
	}
}

// TestGateway_hostileBodies: no body, however built, gets a 5xx from the
// gateway or stops it: what the request op cannot read goes upstream as it
// came (the upstream answers it), what is too large gets 413, and the
// gateway still serves afterwards. Bounded: the fixed corpus and 150
// mutations of real bodies per route.
func TestGateway_hostileBodies(t *testing.T) {
	echo := func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}
	ups := map[string]*fakeUpstream{FamilyOpenAI: newFakeUpstream(t, echo), FamilyAnthropic: newFakeUpstream(t, echo), FamilyGemini: newFakeUpstream(t, echo)}
	tg := newTestGateway(t, Config{MaxBodyBytes: 4 << 20}, ups)
	paths := []string{"/v1/chat/completions", "/v1/responses", "/v1/messages", "/v1/messages/count_tokens",
		"/v1beta/models/gemini-3-pro-preview:generateContent", "/v1beta/models/gemini-2.5-flash:streamGenerateContent"}
	seeds := []string{lossyAnthropicBody, minimalBody(FamilyOpenAI), minimalBody(FamilyGemini),
		`{"model":"gpt-4o","input":[{"type":"function_call","call_id":"c:1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c:1","output":"` + timeoutEnvelope + `"}]}`}
	r := rand.New(rand.NewSource(10))
	sent := 0
	for _, p := range paths {
		bodies := hostileBodies()
		for i := 0; i < 150; i++ {
			bodies = append(bodies, mutate(r, seeds[r.Intn(len(seeds))]))
		}
		for _, b := range bodies {
			resp, err := http.Post(tg.URL+p, "application/json", strings.NewReader(b))
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			assert.Contains(t, []int{200, 413}, resp.StatusCode, "%s: a body of %d bytes starting %q", p, len(b), head(b))
			sent++
		}
	}
	tg.settle(t)
	resp, err := http.Get(tg.URL + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.NotContains(t, tg.log.String(), "panic")
	t.Logf("%d hostile bodies sent", sent)
}

// mutate flips, drops, duplicates or truncates a few bytes of s.
func mutate(r *rand.Rand, s string) string {
	b := []byte(s)
	for n := 1 + r.Intn(4); n > 0 && len(b) > 1; n-- {
		i := r.Intn(len(b))
		switch r.Intn(4) {
		case 0:
			b[i] = byte(r.Intn(256))
		case 1:
			b = append(b[:i], b[i+1:]...)
		case 2:
			b = append(b[:i], append([]byte{b[i]}, b[i:]...)...)
		default:
			b = b[:i]
		}
	}
	return string(bytes.Clone(b))
}

func head(s string) string {
	if len(s) > 60 {
		return s[:60]
	}
	return s
}

// TestGateway_cutResponseIsLogged: a response cut after its headers (a
// stream past the Timeout, an upstream that closes in the middle of its
// body) still ends the client's connection without the rest (the client
// reads an unexpected EOF, never a clean end), and still gets its log
// record, with status, duration and what cut it; the gateway serves on.
func TestGateway_cutResponseIsLogged(t *testing.T) {
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n")
		w.(http.Flusher).Flush()
		if strings.Contains(string(body), `"content":"cut"`) {
			panic(http.ErrAbortHandler) // the connection closes inside the chunked body
		}
		<-r.Context().Done() // never ends
	})
	tg := newTestGateway(t, Config{Timeout: 300 * time.Millisecond}, map[string]*fakeUpstream{FamilyAnthropic: up})
	for _, content := range []string{"wait", "cut"} {
		resp := tg.post(t, "/v1/messages", `{"model":"m","max_tokens":1,"stream":true,"messages":[{"role":"user","content":"`+content+`"}]}`, nil)
		got, err := io.ReadAll(resp.Body)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF, content)
		assert.Equal(t, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n", string(got), content)
	}
	tg.settle(t)
	log := tg.log.String()
	assert.Equal(t, 2, strings.Count(log, `"msg":"toolerr gateway request"`), "%s", log)
	assert.Regexp(t, `"status":200,"duration_ms":\d+,"cut":"timeout"`, log)
	assert.Regexp(t, `"status":200,"duration_ms":\d+,"cut":"upstream"`, log)
	assert.Equal(t, 2.0, testutil.ToFloat64(tg.g.metrics.requests.WithLabelValues("messages", "200")))
	hz, err := http.Get(tg.URL + "/healthz")
	require.NoError(t, err)
	hz.Body.Close()
	assert.Equal(t, 200, hz.StatusCode)
}
