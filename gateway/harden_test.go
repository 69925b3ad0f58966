package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGateway_unreadableRetryAfter: an upstream Retry-After the classifier
// cannot read gives the envelope no wait, and the client no retry-after
// or retry-after-ms: only the wait hint the op emits reaches it.
func TestGateway_unreadableRetryAfter(t *testing.T) {
	for _, v := range []string{"-5", "abc", "1e9"} {
		up := newFakeUpstream(t, fail(429, map[string]string{"retry-after": v, "retry-after-ms": v},
			`{"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}`))
		tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
		resp := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
		assert.Equal(t, 429, resp.StatusCode)
		assert.Empty(t, resp.Header.Values("Retry-After"), "%q", v)
		assert.Empty(t, resp.Header.Values("Retry-After-Ms"), "%q", v)
		assert.NotContains(t, resp.Header.Get("X-Toolerr-Envelope"), "retry_after", "%q", v)
	}
}

// TestGateway_interimResponseIsNotTheStatus: a 1xx the upstream sends
// before its answer (100 Continue for a client's Expect: 100-continue, 103
// Early Hints) passes to the client, and the request's metric and log line
// record the final status only.
func TestGateway_interimResponseIsNotTheStatus(t *testing.T) {
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		okJSON(anthropicOK)(w, r, nil)
	})
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	var interim []int
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, _ textproto.MIMEHeader) error {
		interim = append(interim, code)
		return nil
	}}
	req, err := http.NewRequest(http.MethodPost, tg.URL+"/v1/messages", strings.NewReader(minimalBody(FamilyAnthropic)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Expect", "100-continue")
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	tr := &http.Transport{ExpectContinueTimeout: 5e9}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode, "%s", b)
	assert.Contains(t, interim, http.StatusEarlyHints, "the interim response passes")
	tg.settle(t)
	assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.requests.WithLabelValues("messages", "200")))
	assert.Equal(t, 0.0, testutil.ToFloat64(tg.g.metrics.requests.WithLabelValues("messages", "100")))
	assert.Equal(t, 0.0, testutil.ToFloat64(tg.g.metrics.requests.WithLabelValues("messages", "103")))
	assert.Contains(t, tg.log.String(), `"status":200`)
	assert.False(t, bytes.Contains([]byte(tg.log.String()), []byte(`"status":10`)), "%s", tg.log.String())
}

// TestErrorLog_cutsBeforeQuotedBytes: each net/http message is one slog
// record holding its leading words only: whatever follows a quote, a
// colon or any other byte outside the safe set (a body, a URL with its
// key, a header) is dropped.
func TestErrorLog_cutsBeforeQuotedBytes(t *testing.T) {
	var buf bytes.Buffer
	l := ErrorLog(slog.NewJSONHandler(&buf, nil))
	for msg, want := range map[string]string{
		`Unsolicited response received on idle HTTP channel starting with "{\"leak\":\"sk-proj-abc\"}"; err=<nil>`: "Unsolicited response received on idle HTTP channel starting with",
		`http: proxy error: dial tcp: lookup x?key=AIzaSyA-secret`:                                                 "proxy error",
		"httputil: ReverseProxy read error during body copy: unexpected EOF sk-proj-abc":                           "httputil",
		"http: TLS handshake error from 127.0.0.1:5555: EOF":                                                       "TLS handshake error from 127.0.0.1",
		"\x00sk-proj-abc": "",
	} {
		buf.Reset()
		l.Print(msg)
		var rec map[string]any
		require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), "one record: %q", buf.String())
		assert.Equal(t, "WARN", rec["level"])
		assert.Equal(t, want, rec["text"], "%q", msg)
		assert.Equal(t, true, rec["text_cut"])
		assert.NotContains(t, buf.String(), "secret")
		assert.NotContains(t, buf.String(), "sk-proj")
	}
}

// TestGateway_maxConcurrent: with MaxConcurrent requests in flight (a
// stream the upstream holds open), one more is answered at once with 503
// in its API's error shape, retryable, before any upstream request and
// without a wait; once the stream ends, its slot serves the next request.
func TestGateway_maxConcurrent(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n")
			w.(http.Flusher).Flush()
			started <- struct{}{}
			<-release
			return
		}
		okJSON(anthropicOK)(w, r, nil)
	})
	tg := newTestGateway(t, Config{MaxConcurrent: 1}, map[string]*fakeUpstream{FamilyAnthropic: up})
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.Post(tg.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":1,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-started
	over := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
	assert.Equal(t, http.StatusServiceUnavailable, over.StatusCode)
	assert.Equal(t, "true", over.Header.Get("X-Should-Retry"))
	assert.Empty(t, over.Header.Values("Retry-After"), "no wait is known")
	b := readJSON(t, over.Body)
	assert.Equal(t, "error", b["type"], "the Anthropic error shape")
	assert.NotNil(t, b["error"].(map[string]any)["toolerr"])
	assert.Equal(t, 1, up.hits(), "the request over the bound never reaches the upstream")
	hz, err := http.Get(tg.URL + "/healthz")
	require.NoError(t, err)
	hz.Body.Close()
	assert.Equal(t, 200, hz.StatusCode, "/healthz is not bounded")

	close(release)
	<-done
	tg.settle(t)
	next := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
	assert.Equal(t, 200, next.StatusCode, "the slot is free again")
	tg.settle(t)
	assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.requests.WithLabelValues("messages", "503")))
	assert.Equal(t, 2.0, testutil.ToFloat64(tg.g.metrics.requests.WithLabelValues("messages", "200")))
}

// TestGateway_pooledBodiesStayApart sends bodies of different sizes from
// 16 clients at once, some changed by the request op: the buffers read
// into are lent again after each request, and every upstream body must
// still be its own request's (the upstream echoes it back in a header-free
// JSON reply the client compares).
func TestGateway_pooledBodiesStayApart(t *testing.T) {
	up := newFakeUpstream(t, func(w http.ResponseWriter, _ *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyOpenAI: up})
	var wg sync.WaitGroup
	for c := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				text := strings.Repeat(string(rune('a'+c)), 1+(c*97+i*31)%3000)
				body := `{"model":"gpt-4o","messages":[{"role":"user","content":"` + text + `"}]}`
				want := body
				if i%5 == 0 { // an unanswered call: the op answers it, a new body
					body = `{"model":"gpt-4o","messages":[{"role":"user","content":"` + text + `"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`
					want = ""
				}
				req, err := http.NewRequest(http.MethodPost, tg.URL+"/v1/chat/completions", strings.NewReader(body))
				if !assert.NoError(t, err) {
					return
				}
				resp, err := http.DefaultClient.Do(req)
				if !assert.NoError(t, err) {
					return
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if want != "" {
					assert.Equal(t, want, string(got), "client %d request %d", c, i)
				} else {
					assert.Contains(t, string(got), text, "client %d request %d", c, i)
					assert.Contains(t, string(got), "NO_RESULT", "client %d request %d", c, i)
				}
			}
		}()
	}
	wg.Wait()
	tg.settle(t)
	assert.Equal(t, 16*25, up.hits())
}

// TestGateway_earlyAnswerLeavesTheBodyAlone: an upstream that answers
// before it reads the body (here 413 at once) ends the request; the body
// buffer goes back to the pool while the Transport may still be writing
// it, and the next requests are still sent whole.
func TestGateway_earlyAnswerLeavesTheBodyAlone(t *testing.T) {
	var early atomic.Bool
	early.Store(true)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if early.Load() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = io.WriteString(w, `{"error":{"message":"too large","type":"invalid_request_error","param":null,"code":null}}`)
			return
		}
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(upstream.Close)
	g, err := New(Config{Upstreams: map[string]string{FamilyOpenAI: upstream.URL}, Logger: slog.New(slog.DiscardHandler), Registerer: prometheus.NewRegistry()})
	require.NoError(t, err)
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	big := `{"model":"gpt-4o","messages":[{"role":"user","content":"` + strings.Repeat("x", 600<<10) + `"}]}`
	for range 4 {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(big))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	}
	early.Store(false)
	for i := range 8 {
		body := `{"model":"gpt-4o","messages":[{"role":"user","content":"` + strings.Repeat("y", 1000+i) + `"}]}`
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, body, string(got))
	}
}

// TestGateway_encodedPathIsRepaired: a provider path spelled with an
// encoded unreserved letter (RFC 3986, 6.2.2.2) is the same API to the
// upstream, so it goes through the request op like its plain spelling, and
// reaches the upstream as the client wrote it.
func TestGateway_encodedPathIsRepaired(t *testing.T) {
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/%6Dessages", lossyAnthropicBody, map[string]string{"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01"})
	require.Equal(t, 200, resp.StatusCode)
	tg.settle(t)
	sent, _ := up.last()
	assert.Contains(t, string(sent), "NO_RESULT", "the unanswered call is answered")
	assert.Contains(t, string(sent), `"is_error":true`)
	assert.Equal(t, "/v1/%6Dessages", up.paths[0])
	assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.repairs.WithLabelValues("messages", "synthesized")))
}

// TestGateway_oversizedStreamErrorEvent: an Anthropic error event of 5 MiB
// (past egress.MaxEventBytes) reaches the client replaced, as a short
// native error event with the envelope, and is counted as a stream error;
// the stream goes on after it.
func TestGateway_oversizedStreamErrorEvent(t *testing.T) {
	huge := strings.Repeat("x", 5<<20)
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n"+
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\""+huge+"\"}}\n\n"+
			": after\n\n")
	})
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Less(t, len(got), 2048, "the upstream's 5 MiB never pass")
	events := strings.Split(string(got), "\n\n")
	require.Len(t, events, 4, "%q", got)
	require.True(t, strings.HasPrefix(events[1], "event: error\ndata: "), events[1])
	var data map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(events[1], "event: error\ndata: ")), &data))
	assert.Equal(t, "SERVER_ERROR", data["error"].(map[string]any)["toolerr"].(map[string]any)["code"])
	assert.Equal(t, ": after", events[2])
	tg.settle(t)
	assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.upstreamErrs.WithLabelValues("messages", "SERVER_ERROR", "true")))
}
