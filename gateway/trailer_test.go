package gateway

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGateway_rewrittenBodyDropsTrailers: a body the gateway replaces
// whole (an upstream error rewritten into the client's shape, a routed
// success converted) carries none of the upstream's trailers: they
// describe the content they follow (RFC 9110, 6.5.1), which the client
// never gets.
func TestGateway_rewrittenBodyDropsTrailers(t *testing.T) {
	withTrailer := func(status int, body string) func(http.ResponseWriter, *http.Request, []byte) {
		return func(w http.ResponseWriter, _ *http.Request, _ []byte) {
			w.Header().Set("Trailer", "X-Upstream-Digest")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
			w.(http.Flusher).Flush() // chunked
			w.Header().Set("X-Upstream-Digest", "sha-256=:upstream:")
		}
	}
	for name, c := range map[string]struct {
		cfg  Config
		fam  string
		path string
		up   func(http.ResponseWriter, *http.Request, []byte)
		want int
	}{
		"error rewritten": {fam: FamilyAnthropic, path: "/v1/messages", want: 529,
			up: withTrailer(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)},
		"routed success converted": {cfg: Config{Routes: map[string]string{"openai": "anthropic"}}, fam: FamilyAnthropic, path: "/v1/chat/completions", want: 200,
			up: withTrailer(200, anthropicOK)},
		"routed non-success answered as 502": {cfg: Config{Routes: map[string]string{"openai": "anthropic"}}, fam: FamilyAnthropic, path: "/v1/chat/completions", want: 502,
			up: withTrailer(200, `{}`)},
	} {
		t.Run(name, func(t *testing.T) {
			up := newFakeUpstream(t, c.up)
			tg := newTestGateway(t, c.cfg, map[string]*fakeUpstream{c.fam: up})
			body := minimalBody(c.fam)
			if c.path == "/v1/chat/completions" {
				body = minimalBody(FamilyOpenAI)
			}
			resp := tg.post(t, c.path, body, nil)
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, c.want, resp.StatusCode, "%s", b)
			assert.Empty(t, resp.Header.Values("Trailer"), "no trailer announced")
			assert.Empty(t, resp.Trailer, "no upstream trailer passes")
			assert.NotContains(t, string(b), "upstream:")
		})
	}
}

// TestGateway_hopByHopTrailersDropped: a trailer field is hop-by-hop like
// a header field (RFC 9110, 7.6.1): one the upstream's Connection header
// names, and the hop-by-hop names themselves (Keep-Alive, TE,
// Transfer-Encoding, Upgrade, Proxy-*, Trailer), never reach the client,
// announced or not; the others pass.
func TestGateway_hopByHopTrailersDropped(t *testing.T) {
	body := anthropicOK
	up := rawUpstream(t, func(c net.Conn) {
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"+
			"Connection: X-Conn-Trailer\r\nTrailer: X-Conn-Trailer, X-Kept\r\nTransfer-Encoding: chunked\r\n\r\n"+
			strconv.FormatInt(int64(len(body)), 16)+"\r\n"+body+"\r\n0\r\n"+
			"X-Conn-Trailer: secret\r\nX-Kept: yes\r\nX-Unannounced: fine\r\nKeep-Alive: timeout=5\r\nProxy-Foo: x\r\n"+
			"Upgrade: h2c\r\nTe: trailers\r\nTransfer-Encoding: gzip\r\nTrailer: X-Later\r\n\r\n")
	})
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, "%s", b)
	assert.JSONEq(t, body, string(b))
	assert.Equal(t, http.Header{"X-Kept": {"yes"}, "X-Unannounced": {"fine"}}, resp.Trailer)
}

// TestGateway_clientTrailersStay: the client's request trailers describe
// the body it sent (RFC 9110, 6.5.1); the gateway sends the body it holds,
// of a known length, and none of them (no Trailer header either).
func TestGateway_clientTrailersStay(t *testing.T) {
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	req, err := http.NewRequest(http.MethodPost, tg.URL+"/v1/messages", io.MultiReader(strings.NewReader(minimalBody(FamilyAnthropic))))
	require.NoError(t, err)
	req.ContentLength = -1 // chunked, so that the trailer is sent
	req.Header.Set("Content-Type", "application/json")
	req.Trailer = http.Header{"X-Client-Digest": {"sha-256=:client:"}}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	_, h := up.last()
	assert.Empty(t, h.Values("Trailer"), "no trailer announced upstream")
	assert.Empty(t, h.Values("X-Client-Digest"))
}
