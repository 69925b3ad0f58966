package gateway

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/gateway/internal/lockbuf"
)

// fakeUpstream is a provider on loopback: it records every request it gets
// and answers with reply.
type fakeUpstream struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
	paths   []string
	reply   func(w http.ResponseWriter, r *http.Request, body []byte)
}

func newFakeUpstream(t *testing.T, reply func(w http.ResponseWriter, r *http.Request, body []byte)) *fakeUpstream {
	t.Helper()
	u := &fakeUpstream{reply: reply}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.bodies = append(u.bodies, b)
		u.headers = append(u.headers, r.Header.Clone())
		u.paths = append(u.paths, r.URL.RequestURI())
		u.mu.Unlock()
		u.reply(w, r, b)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *fakeUpstream) hits() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.bodies)
}

func (u *fakeUpstream) last() ([]byte, http.Header) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.bodies[len(u.bodies)-1], u.headers[len(u.headers)-1]
}

// okJSON answers 200 with a JSON body.
func okJSON(body string) func(http.ResponseWriter, *http.Request, []byte) {
	return func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}
}

// fail answers status with headers and a body.
func fail(status int, headers map[string]string, body string) func(http.ResponseWriter, *http.Request, []byte) {
	return func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// testGateway is a gateway on loopback in front of the given upstreams, its
// log and its metrics registry.
type testGateway struct {
	*httptest.Server
	g   *Gateway
	log *lockbuf.Buffer
	reg *prometheus.Registry
}

func newTestGateway(t *testing.T, cfg Config, ups map[string]*fakeUpstream) *testGateway {
	t.Helper()
	cfg.Upstreams = map[string]string{}
	for fam, u := range ups {
		cfg.Upstreams[fam] = u.URL
	}
	tg := &testGateway{log: &lockbuf.Buffer{}, reg: prometheus.NewRegistry()}
	cfg.Logger = slog.New(slog.NewJSONHandler(tg.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Registerer = tg.reg
	g, err := New(cfg)
	require.NoError(t, err)
	tg.g = g
	tg.Server = httptest.NewServer(g)
	t.Cleanup(tg.Close)
	return tg
}

func (tg *testGateway) post(t *testing.T, path, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, tg.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// settle waits until the gateway has finished every request (its log line
// and metrics are written after the client has the response).
func (tg *testGateway) settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for testutil.ToFloat64(tg.g.metrics.inFlight) != 0 {
		require.True(t, time.Now().Before(deadline), "requests still in flight")
		time.Sleep(time.Millisecond)
	}
}

func readJSON(t *testing.T, r io.Reader) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.NewDecoder(r).Decode(&m))
	return m
}

const timeoutEnvelope = `{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"Weather service timed out.\",\"retryable\":true,\"source\":\"tool\"}`

// The body LiteLLM forwarded to Anthropic in issue 10: the envelope
// without is_error, and a parallel call left unanswered.
const lossyAnthropicBody = `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[
 {"role":"user","content":"Weather in Paris and Rome?"},
 {"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"get_weather","input":{"city":"Paris"}},{"type":"tool_use","id":"toolu_B","name":"get_weather","input":{"city":"Rome"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"` + timeoutEnvelope + `"}]}]}`

const anthropicOK = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Sorry."}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`

func TestGateway_requestOp(t *testing.T) {
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/messages", lossyAnthropicBody, map[string]string{"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01"})
	require.Equal(t, 200, resp.StatusCode)
	got, _ := io.ReadAll(resp.Body)
	assert.JSONEq(t, anthropicOK, string(got), "a success passes as the upstream sent it")
	tg.settle(t)

	sent, _ := up.last()
	var body struct {
		Messages []struct {
			Content json.RawMessage
		}
	}
	require.NoError(t, json.Unmarshal(sent, &body))
	var results []map[string]any
	require.NoError(t, json.Unmarshal(body.Messages[2].Content, &results))
	require.Len(t, results, 2)
	assert.Equal(t, "toolu_A", results[0]["tool_use_id"])
	assert.Equal(t, true, results[0]["is_error"], "the flag the envelope travelled without")
	assert.Equal(t, "toolu_B", results[1]["tool_use_id"])
	assert.Equal(t, true, results[1]["is_error"])
	assert.Contains(t, results[1]["content"], "NO_RESULT")

	assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.flags.WithLabelValues("messages")))
	assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.repairs.WithLabelValues("messages", "synthesized")))
	assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.requests.WithLabelValues("messages", "200")))
	assert.Contains(t, tg.log.String(), `"flags_restored":1`)
	assert.Contains(t, tg.log.String(), `"synthesized":1`)
}

func TestGateway_unchangedBodyPassesByteForByte(t *testing.T) {
	up := newFakeUpstream(t, okJSON(`{"id":"chatcmpl-1","object":"chat.completion","choices":[]}`))
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyOpenAI: up})
	body := "{\"model\": \"gpt-4o\",\n  \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"seed\": 12345678901234567890}"
	resp := tg.post(t, "/v1/chat/completions?x=1", body, nil)
	require.Equal(t, 200, resp.StatusCode)
	sent, _ := up.last()
	assert.Equal(t, body, string(sent))
	assert.Equal(t, "/v1/chat/completions?x=1", up.paths[0], "the path and query reach the upstream")
}

func TestGateway_collidingIDs(t *testing.T) {
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	body := `{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"call:abc/1","name":"f","input":{}},{"type":"tool_use","id":"call_abc_1","name":"f","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call:abc/1","content":"a"},{"type":"tool_result","tool_use_id":"call_abc_1","content":"b"}]}]}`
	for i := 0; i < 2; i++ { // the same mapping on every request
		tg.post(t, "/v1/messages", body, nil)
	}
	tg.settle(t)
	first, _ := json.Marshal(up.bodies[0])
	second, _ := json.Marshal(up.bodies[1])
	assert.Equal(t, string(first), string(second))
	assert.Contains(t, string(up.bodies[0]), `"id":"call_abc_1_54a84e90a573683b"`)
	assert.Contains(t, string(up.bodies[0]), `"id":"call_abc_1"`)
	assert.Equal(t, 2.0, testutil.ToFloat64(tg.g.metrics.repairs.WithLabelValues("messages", "rewritten_ids")))
}

func TestGateway_geminiModelFromPath(t *testing.T) {
	up := newFakeUpstream(t, okJSON(`{"candidates":[]}`))
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyGemini: up})
	split := `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"a","args":{}}},{"functionCall":{"name":"b","args":{}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"a","response":{"output":1}}}]},{"role":"user","parts":[{"functionResponse":{"name":"b","response":{"output":2}}}]}]}`
	resp := tg.post(t, "/v1beta/models/gemini-3-pro-preview:generateContent?key=AIzaTEST", split, nil)
	_, _ = io.ReadAll(resp.Body)
	tg.settle(t)
	sent, _ := up.last()
	var b struct{ Contents []any }
	require.NoError(t, json.Unmarshal(sent, &b))
	assert.Len(t, b.Contents, 2, "gemini-3: the two responses are merged into one content")
	assert.NotContains(t, tg.log.String(), "AIzaTEST", "a key in the query string is never logged")
	tg.post(t, "/v1beta/models/gemini-2.5-flash:generateContent", split, nil)
	sent, _ = up.last()
	assert.Equal(t, split, string(sent), "gemini-2.5 takes them split: unchanged")
}

func TestGateway_upstreamErrors(t *testing.T) {
	anthropic429 := `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"},"request_id":"req_011"}`
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_012"}`
	gemini429 := `{"error":{"code":429,"message":"Resource has been exhausted.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"45.5s"}]}}`
	billing := `{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	tests := []struct {
		name, family, path string
		status             int
		headers            map[string]string
		body               string
		check              func(t *testing.T, resp *http.Response, body map[string]any)
	}{
		{"an Anthropic 429 keeps retry-after 7", FamilyAnthropic, "/v1/messages", 429, map[string]string{"retry-after": "7", "request-id": "req_011"}, anthropic429,
			func(t *testing.T, resp *http.Response, b map[string]any) {
				assert.Equal(t, 429, resp.StatusCode)
				assert.Equal(t, "7", resp.Header.Get("Retry-After"))
				assert.Equal(t, "7000", resp.Header.Get("Retry-After-Ms"))
				assert.Equal(t, "true", resp.Header.Get("X-Should-Retry"))
				assert.Equal(t, "req_011", resp.Header.Get("Request-Id"), "the upstream's other headers pass")
				e := b["error"].(map[string]any)
				assert.Equal(t, "rate_limit_error", e["type"])
				assert.Equal(t, "RATE_LIMITED", e["toolerr"].(map[string]any)["code"])
				var env map[string]any
				require.NoError(t, json.Unmarshal([]byte(resp.Header.Get("X-Toolerr-Envelope")), &env))
				assert.Equal(t, e["toolerr"], env)
			}},
		{"a 529 stays 529", FamilyAnthropic, "/v1/messages", 529, nil, overloaded,
			func(t *testing.T, resp *http.Response, b map[string]any) {
				assert.Equal(t, 529, resp.StatusCode)
				assert.Equal(t, "overloaded_error", b["error"].(map[string]any)["type"])
			}},
		{"a Gemini RetryInfo becomes retry-after", FamilyGemini, "/v1beta/models/gemini-2.5-flash:generateContent", 429, nil, gemini429,
			func(t *testing.T, resp *http.Response, b map[string]any) {
				assert.Equal(t, "46", resp.Header.Get("Retry-After"))
				assert.Equal(t, "RESOURCE_EXHAUSTED", b["error"].(map[string]any)["status"])
			}},
		{"a billing 429 is not to be retried", FamilyOpenAI, "/v1/chat/completions", 429, nil, billing,
			func(t *testing.T, resp *http.Response, b map[string]any) {
				assert.Equal(t, "false", resp.Header.Get("X-Should-Retry"))
				assert.Equal(t, "QUOTA_EXHAUSTED", b["error"].(map[string]any)["toolerr"].(map[string]any)["code"])
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := newFakeUpstream(t, fail(tc.status, tc.headers, tc.body))
			tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{tc.family: up})
			resp := tg.post(t, tc.path, minimalBody(tc.family), nil)
			tc.check(t, resp, readJSON(t, resp.Body))
			assert.Equal(t, 1, up.hits(), "the gateway never retries")
		})
	}
}

func minimalBody(family string) string {
	switch family {
	case FamilyGemini:
		return `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	case FamilyAnthropic:
		return `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`
	}
	return `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
}

// TestGateway_streamPassesEventByEvent: the client reads each event before
// the upstream writes the next.
func TestGateway_streamPassesEventByEvent(t *testing.T) {
	next := make(chan struct{})
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for i := 0; i < 3; i++ {
			_, _ = io.WriteString(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"part\"}}\n\n")
			f.Flush()
			select {
			case <-next:
			case <-time.After(5 * time.Second):
				return // the client never read the event: the test fails below
			}
		}
	})
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	br := bufio.NewReader(resp.Body)
	for i := 0; i < 3; i++ {
		line, err := br.ReadString('\n')
		require.NoError(t, err, "event %d", i)
		assert.Equal(t, "event: content_block_delta\n", line)
		_, _ = br.ReadString('\n')
		_, _ = br.ReadString('\n')
		next <- struct{}{}
	}
}

func TestGateway_streamErrorEvent(t *testing.T) {
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message_start\r\ndata: {\"type\":\"message_start\"}\r\n\r\n"+
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"+
			": a comment after the error\n\n")
	})
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	before, after, found := strings.Cut(string(got), "event: error\n")
	require.True(t, found, "%q", got)
	assert.Equal(t, "event: message_start\r\ndata: {\"type\":\"message_start\"}\r\n\r\n", before, "events before pass byte for byte")
	ev := strings.SplitN("event: error\n"+after, "\n\n", 2)
	require.True(t, strings.HasPrefix(ev[0], "event: error\ndata: "), ev[0])
	var data map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(ev[0], "event: error\ndata: ")), &data))
	e := data["error"].(map[string]any)
	assert.Equal(t, "overloaded_error", e["type"])
	env := e["toolerr"].(map[string]any)
	assert.Equal(t, "OVERLOADED", env["code"])
	assert.Equal(t, true, env["details"].(map[string]any)["partial_output"], "an event went before")
	assert.Equal(t, ": a comment after the error\n\n", ev[1], "the stream goes on")
	tg.settle(t)
	assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.upstreamErrs.WithLabelValues("messages", "OVERLOADED", "true")))
}

func TestGateway_chatStreamErrorChunk(t *testing.T) {
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		_, _ = io.WriteString(w, "data: {\"id\":\"c1\",\"choices\":[{\"delta\":{\"content\":\"the \\\"error\\\" word\"}}]}\n\n"+
			"data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\ndata: [DONE]\n\n")
	})
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyOpenAI: up})
	resp := tg.post(t, "/v1/chat/completions", minimalBody(FamilyOpenAI), nil)
	got, _ := io.ReadAll(resp.Body)
	events := strings.Split(strings.TrimSuffix(string(got), "\n\n"), "\n\n")
	require.Len(t, events, 3)
	assert.Contains(t, events[0], `the \"error\" word`, "a content delta naming the word passes as it is")
	assert.Contains(t, events[1], `"toolerr":{"code":"SERVER_ERROR"`)
	assert.Equal(t, "data: [DONE]", events[2])
}

func TestGateway_authHeadersPassAndAreNeverLogged(t *testing.T) {
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	secret := "sk-ant-api03-SECRETSECRETSECRET"
	tg.post(t, "/v1/messages", lossyAnthropicBody, map[string]string{"x-api-key": secret, "Authorization": "Bearer " + secret,
		"anthropic-version": "2023-06-01", "anthropic-beta": "tools-2024-04-04", "x-goog-api-key": secret})
	_, h := up.last()
	assert.Equal(t, secret, h.Get("X-Api-Key"))
	assert.Equal(t, "Bearer "+secret, h.Get("Authorization"))
	assert.Equal(t, secret, h.Get("X-Goog-Api-Key"))
	assert.Equal(t, "2023-06-01", h.Get("Anthropic-Version"))
	assert.Equal(t, "tools-2024-04-04", h.Get("Anthropic-Beta"))
	assert.Empty(t, h.Get("X-Forwarded-For"), "nothing is added")
	tg.settle(t)
	assert.NotEmpty(t, tg.log.String())
	assert.NotContains(t, tg.log.String(), "SECRET")
	assert.NotContains(t, tg.log.String(), "Paris", "nor a body")
}

func TestGateway_bodyLimit(t *testing.T) {
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{MaxBodyBytes: 1024}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/messages", `{"messages":"`+strings.Repeat("x", 2000)+`"}`, nil)
	assert.Equal(t, 413, resp.StatusCode)
	b := readJSON(t, resp.Body)
	assert.Equal(t, "error", b["type"], "the client's native shape")
	assert.Equal(t, "request_too_large", b["error"].(map[string]any)["type"])
	assert.Equal(t, 0, up.hits())
}

func TestGateway_timeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	tg := newTestGateway(t, Config{Timeout: 200 * time.Millisecond}, map[string]*fakeUpstream{FamilyOpenAI: up})
	start := time.Now()
	resp := tg.post(t, "/v1/chat/completions", minimalBody(FamilyOpenAI), nil)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, 504, resp.StatusCode)
	e := readJSON(t, resp.Body)["error"].(map[string]any)
	assert.Equal(t, "TIMEOUT", e["toolerr"].(map[string]any)["code"])
	assert.Equal(t, "true", resp.Header.Get("X-Should-Retry"))
	assert.Equal(t, 1, up.hits())
}

func TestGateway_transportError(t *testing.T) {
	up := newFakeUpstream(t, okJSON(`{}`))
	up.Close() // nothing listens there any more
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyGemini: up})
	resp := tg.post(t, "/v1beta/models/gemini-2.5-flash:generateContent", minimalBody(FamilyGemini), nil)
	assert.Equal(t, 502, resp.StatusCode)
	e := readJSON(t, resp.Body)["error"].(map[string]any)
	assert.Equal(t, "UNAVAILABLE", e["status"])
	assert.Equal(t, "TRANSPORT", e["toolerr"].(map[string]any)["code"])
}

func TestGateway_routes(t *testing.T) {
	tg := newTestGateway(t, Config{}, nil)
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/chat/completions", 404},
		{"POST", "/v1/embeddings", 404},
		{"POST", "/v1beta/models/a/b:generateContent", 404},
		{"POST", "/openai/deployments/d/chat/completions", 404},
		{"POST", "/v1/x/chat/completions", 404},
		{"POST", "/v2/messages", 404},
		{"POST", "/models/m:generateContent", 404},
		{"POST", "/v1beta1/projects/p/locations/l/publishers/google/models/m:generateContent", 404},
		{"GET", "/healthz", 200},
	} {
		req, _ := http.NewRequest(tc.method, tg.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, tc.status, resp.StatusCode, "%s %s", tc.method, tc.path)
	}
}

func TestGateway_metricsEndpoint(t *testing.T) {
	up := newFakeUpstream(t, fail(429, map[string]string{"retry-after": "1"}, `{"type":"error","error":{"type":"rate_limit_error","message":"x"}}`))
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	tg.post(t, "/v1/messages", lossyAnthropicBody, nil)
	tg.settle(t)
	resp, err := http.Get(tg.URL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	text := string(b)
	for _, want := range []string{
		MetricRequests + `{route="messages",status="429"} 1`,
		MetricRepairs + `{kind="synthesized",route="messages"} 1`,
		MetricFlagsRestored + `{route="messages"} 1`,
		MetricUpstreamErrors + `{code="RATE_LIMITED",route="messages",stream="false"} 1`,
		MetricUpstreamRequests + `{route="messages"} 1`,
		MetricDuration + `_count{route="messages"} 1`,
		MetricInFlight + ` 0`,
	} {
		assert.Contains(t, text, want)
	}
}

func TestNew_config(t *testing.T) {
	_, err := New(Config{Upstreams: map[string]string{"cohere": "http://x"}})
	assert.ErrorIs(t, err, ErrConfig)
	_, err = New(Config{Upstreams: map[string]string{FamilyOpenAI: "ftp://x"}})
	assert.ErrorIs(t, err, ErrConfig)
	_, err = New(Config{MaxBodyBytes: 1 << 40})
	assert.ErrorIs(t, err, ErrConfig)
	assert.True(t, strings.HasPrefix(DefaultAddr, "127.0.0.1:"), "loopback by default")
}

// TestGateway_geminiArrayStreamError: Gemini's streamGenerateContent
// without alt=sse streams a JSON array; an error element in it is
// replaced by the error op's Gemini error object (the envelope inside,
// the upstream's message dropped by UpstreamMessage "drop" as for any
// error), the elements before it pass byte for byte, and it is counted as
// a stream error.
func TestGateway_geminiArrayStreamError(t *testing.T) {
	first := "[{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"a ] and a \\\"{\"}]},\"index\":0}]}\r\n"
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = io.WriteString(w, first)
		w.(http.Flusher).Flush()
		_, _ = io.WriteString(w, ",{\"error\":{\"code\":500,\"message\":\"An internal error has occurred. SECRET-7\",\"status\":\"INTERNAL\"}}\r\n]")
	})
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyGemini: up})
	resp := tg.post(t, "/v1beta/models/gemini-2.5-flash:streamGenerateContent", minimalBody(FamilyGemini), nil)
	require.Equal(t, 200, resp.StatusCode)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(got), first+","), "the element before passes byte for byte: %q", got)
	var arr []map[string]any
	require.NoError(t, json.Unmarshal(got, &arr), "%q", got)
	require.Len(t, arr, 2)
	e, ok := arr[1]["error"].(map[string]any)
	require.True(t, ok, "%q", got)
	assert.Equal(t, "INTERNAL", e["status"])
	env, ok := e["toolerr"].(map[string]any)
	require.True(t, ok, "the envelope inside the error object: %q", got)
	assert.Equal(t, "SERVER_ERROR", env["code"])
	assert.Equal(t, true, env["details"].(map[string]any)["partial_output"])
	assert.True(t, strings.HasSuffix(string(got), "}\r\n]"), "the array's end passes: %q", got)
	tg.settle(t)
	assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.upstreamErrs.WithLabelValues("stream_generate_content", "SERVER_ERROR", "true")))
}
