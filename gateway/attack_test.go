package gateway

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upstreamSecret is a key-shaped string an upstream puts where the gateway
// must never pass it unread.
const upstreamSecret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"

// TestGateway_upgradeIsNotTunnelled: a client's Upgrade (websocket, h2c)
// never reaches the upstream, so no 101 opens a raw tunnel between them
// past every rule of the gateway (the stream reader, the error op); an
// upstream that switches protocols anyway is answered 502. Before, the
// client got the 101 and then the upstream's raw bytes, secret and all.
func TestGateway_upgradeIsNotTunnelled(t *testing.T) {
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if r.Header.Get("Upgrade") == "" && r.URL.Query().Get("always") == "" {
			okJSON(anthropicOK)(w, r, nil)
			return
		}
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nRAW " + upstreamSecret + "\n")
		_ = brw.Flush()
		time.Sleep(200 * time.Millisecond)
	})
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	for _, path := range []string{"/v1/messages", "/v1/messages?always=1"} {
		resp := tg.post(t, path, minimalBody(FamilyAnthropic), map[string]string{"Connection": "Upgrade", "Upgrade": "websocket"})
		b, _ := io.ReadAll(resp.Body)
		_, h := up.last()
		assert.Empty(t, h.Get("Upgrade"), path)
		assert.NotContains(t, strings.ToLower(h.Get("Connection")), "upgrade", path)
		assert.NotContains(t, string(b), upstreamSecret, path)
		if path == "/v1/messages" {
			assert.Equal(t, 200, resp.StatusCode, "%s: %s", path, b)
		} else {
			assert.Equal(t, 502, resp.StatusCode, "%s: %s", path, b)
			assert.Contains(t, string(b), `"toolerr"`)
		}
	}
}

// TestGateway_expectIsNotForwarded: the gateway has read the whole body
// before it calls the upstream, so a client's Expect: 100-continue stays
// with the gateway (whose server answered it): forwarded, the transport
// would hold the body back waiting for a 100 an upstream need not send
// (http.DefaultTransport's ExpectContinueTimeout, 1 s, on every request).
func TestGateway_expectIsNotForwarded(t *testing.T) {
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), map[string]string{"Expect": "100-continue"})
	b, _ := io.ReadAll(resp.Body)
	assert.Equal(t, 200, resp.StatusCode, "%s", b)
	_, h := up.last()
	assert.Empty(t, h.Get("Expect"))
}

// TestGateway_upstreamRedirectIsNotPassed: an upstream's 3xx is answered
// with the gateway's own 502 in the client's shape: passed, the client's
// SDK would follow its Location past the gateway, to any host, with the
// request body and the headers it keeps across origins (httpx drops only
// Authorization: x-api-key and x-goog-api-key go along), and the 3xx's
// body would reach the client unread. Before, each passed as it came.
func TestGateway_upstreamRedirectIsNotPassed(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		up := newFakeUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
			w.Header().Set("Location", "http://127.0.0.1:9/steal?key=AIzaSyA1234567890abcdefghijklmnopqrstuv")
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, `<a href="/steal">`+upstreamSecret+`</a>`)
		})
		tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up, FamilyGemini: up})
		for _, path := range []string{"/v1/messages", "/v1beta/models/gemini-2.5-flash:generateContent"} {
			fam := FamilyAnthropic
			if strings.HasPrefix(path, "/v1beta") {
				fam = FamilyGemini
			}
			resp := tg.post(t, path, minimalBody(fam), map[string]string{"X-Api-Key": "sk-ant-client"})
			b, _ := io.ReadAll(resp.Body)
			assert.Equal(t, 502, resp.StatusCode, "%d %s: %s", status, path, b)
			assert.Empty(t, resp.Header.Get("Location"), "%d %s", status, path)
			assert.NotContains(t, string(b), upstreamSecret)
			assert.Contains(t, string(b), `"source":"orchestrator"`, "%d %s: the gateway's own refusal", status, path)
		}
		tg.settle(t)
		assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.requests.WithLabelValues("messages", "502")), "%d", status)
	}
}

// TestGateway_clientThatNeverReads: a client that sends its request and
// never reads the answer holds its request no longer than Config.Timeout
// (and a second for the last write): the gateway's writes to it get that
// deadline, so the handler, its slot of MaxConcurrent and its goroutines
// end. Before, a write blocked on the full socket for ever: the upstream's
// exchange was cancelled at the Timeout, but not the write.
func TestGateway_clientThatNeverReads(t *testing.T) {
	chunk := "data: " + strings.Repeat("x", 8000) + "\n\n"
	up := newFakeUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
			_ = rc.Flush()
		}
	})
	tg := newTestGateway(t, Config{Timeout: 300 * time.Millisecond, MaxConcurrent: 2}, map[string]*fakeUpstream{FamilyAnthropic: up})
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	body := `{"model":"claude-sonnet-4-5","max_tokens":16,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	for range 2 {
		c, err := net.Dial("tcp", tg.Listener.Addr().String())
		require.NoError(t, err)
		_ = c.(*net.TCPConn).SetReadBuffer(4096)
		conns = append(conns, c)
		_, err = fmt.Fprintf(c, "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		require.NoError(t, err)
	}
	for testutil.ToFloat64(tg.g.metrics.inFlight) != 2 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	deadline := start.Add(5 * time.Second)
	for testutil.ToFloat64(tg.g.metrics.inFlight) != 0 {
		require.True(t, time.Now().Before(deadline), "requests of clients that never read still in flight after %v", time.Since(start))
		time.Sleep(10 * time.Millisecond)
	}
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.Contains(t, tg.log.String(), `"cut":"timeout"`)
	// Their slots are free: a client that reads is served.
	resp := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
	r := bufio.NewReader(resp.Body)
	line, _ := r.ReadString('\n')
	assert.Equal(t, 200, resp.StatusCode, "%s", line)
}
