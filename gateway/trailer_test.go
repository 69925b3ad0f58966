package gateway

import (
	"io"
	"net/http"
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
