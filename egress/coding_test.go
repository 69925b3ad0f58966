package egress

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/internal/codingtest"
)

// TestDecodeBody: each coding DecodeBody knows is undone, last applied
// first, whatever its case, across field lines; identity is none; any
// other coding, or more than MaxContentCodings, is ErrContentCoding before
// a byte is read; a body that is not what its coding says is a Read error
// matching ErrContentCoding, and the body's own Read error stays its own.
func TestDecodeBody(t *testing.T) {
	const s = `{"type":"error"}`
	for _, c := range []struct {
		codings []string
		body    string
	}{
		{[]string{"gzip"}, codingtest.Gzip(s)}, {[]string{"X-GZIP"}, codingtest.Gzip(s)}, {[]string{"deflate"}, codingtest.Deflate(s)},
		{[]string{"identity, gzip"}, codingtest.Gzip(s)}, {[]string{"deflate, gzip"}, codingtest.Encode(s, "deflate", "gzip")},
		{[]string{"gzip", "deflate"}, codingtest.Encode(s, "gzip", "deflate")}, {[]string{" gzip ,, "}, codingtest.Gzip(s)},
		{[]string{"gzip"}, codingtest.Gzip(s) + codingtest.Gzip("")}, // two members: one stream (RFC 1952, 2.2)
	} {
		h := http.Header{"Content-Encoding": c.codings}
		r, coded, err := DecodeBody(h, io.NopCloser(strings.NewReader(c.body)))
		require.NoError(t, err, "%q", c.codings)
		assert.True(t, coded, "%q", c.codings)
		got, err := io.ReadAll(r)
		require.NoError(t, err, "%q", c.codings)
		assert.Equal(t, s, string(got), "%q", c.codings)
	}

	for _, v := range [][]string{nil, {""}, {"identity"}, {"Identity, identity"}} {
		src := io.NopCloser(strings.NewReader(s))
		r, coded, err := DecodeBody(http.Header{"Content-Encoding": v}, src)
		require.NoError(t, err, "%q", v)
		assert.False(t, coded, "%q", v)
		assert.Equal(t, src, r, "%q: the body as it is", v)
	}

	for _, v := range []string{"br", "zstd", "compress", "gzip, br", "x-compress", "\xff", "gzip,gzip,gzip,gzip,gzip"} {
		src := io.NopCloser(strings.NewReader(s))
		r, coded, err := DecodeBody(http.Header{"Content-Encoding": {v}}, src)
		assert.ErrorIs(t, err, ErrContentCoding, "%q", v)
		assert.False(t, coded, "%q", v)
		assert.Equal(t, src, r, "%q: the body as it is, unread", v)
	}

	for _, c := range []struct{ coding, body string }{
		{"gzip", s}, {"deflate", s}, {"gzip", codingtest.Gzip(s)[:12]}, {"deflate", codingtest.Deflate(s)[:6]},
		{"gzip", codingtest.Gzip(s)[:len(codingtest.Gzip(s))-1]}, {"deflate, gzip", codingtest.Gzip(s)},
	} {
		r, _, err := DecodeBody(http.Header{"Content-Encoding": {c.coding}}, io.NopCloser(strings.NewReader(c.body)))
		require.NoError(t, err)
		_, err = io.ReadAll(r)
		assert.ErrorIs(t, err, ErrContentCoding, "%s of %d bytes", c.coding, len(c.body))
	}

	cut := errors.New("connection reset")
	r, _, err := DecodeBody(http.Header{"Content-Encoding": {"gzip"}}, io.NopCloser(io.MultiReader(strings.NewReader(codingtest.Gzip(s)[:15]), iotest.ErrReader(cut))))
	require.NoError(t, err)
	_, err = io.ReadAll(r)
	assert.ErrorIs(t, err, cut)
	assert.NotErrorIs(t, err, ErrContentCoding, "a body cut short is the body's failure")

	empty, _, err := DecodeBody(http.Header{"Content-Encoding": {"gzip"}}, http.NoBody)
	require.NoError(t, err)
	got, err := io.ReadAll(empty)
	assert.NoError(t, err, "an empty body is empty whatever its coding")
	assert.Empty(t, got)
}

// TestTransport_codedBodies: a compressed request body goes through the
// request op decoded (changed: sent as the op's bytes, no
// Content-Encoding; unchanged: as it came); an answer Base left in a
// coding is read decoded (x-gzip, which net/http never undoes; gzip from a
// Base that does not ask for it), a success handed back decoded; a stream
// in a coding nothing here undoes
// is answered with the error op's 502, never passed unread.
func TestTransport_codedBodies(t *testing.T) {
	const overloaded = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	var sentCoding []string
	reply := func(status int, ct, coding, body string) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			sentCoding = r.Header.Values("Content-Encoding")
			w.Header().Set("Content-Type", ct)
			w.Header().Set("Content-Encoding", coding)
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}
	}
	do := func(base http.RoundTripper, url, coding, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest("POST", url+"/v1/messages", strings.NewReader(body))
		require.NoError(t, err)
		if coding != "" {
			req.Header.Set("Content-Encoding", coding)
		}
		resp, err := (&http.Client{Transport: &Transport{Base: base}}).Do(req)
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		return resp, string(got)
	}

	up := newUpstream(t, reply(200, "application/json", "identity", anthropicOK))
	resp, _ := do(nil, up.URL, "gzip", codingtest.Gzip(lossyAnthropicBody))
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, string(up.hits()[0]), "NO_RESULT", "the unanswered call is answered")
	assert.Empty(t, sentCoding, "the op's bytes are sent as they are")
	unchanged := codingtest.Gzip(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`)
	do(nil, up.URL, "gzip", unchanged)
	assert.Equal(t, unchanged, string(up.hits()[1]), "an unchanged body goes as it came")
	assert.Equal(t, []string{"gzip"}, sentCoding)

	xgz := newUpstream(t, reply(529, "application/json", "x-gzip", codingtest.Gzip(overloaded)))
	resp, got := do(nil, xgz.URL, "", "{}")
	assert.Equal(t, 529, resp.StatusCode)
	assert.Empty(t, resp.Header.Values("Content-Encoding"))
	assert.Contains(t, got, `"provider_type":"overloaded_error"`)

	plain := &http.Transport{DisableCompression: true}
	t.Cleanup(plain.CloseIdleConnections)
	gzStream := newUpstream(t, reply(200, "text/event-stream", "gzip", codingtest.Gzip("event: error\ndata: "+overloaded+"\n\n")))
	resp, got = do(plain, gzStream.URL, "", "{}")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Empty(t, resp.Header.Values("Content-Encoding"))
	assert.Contains(t, got, `"code":"OVERLOADED"`)
	assert.NotContains(t, got, `"message":"Overloaded"`)

	xgzOK := newUpstream(t, reply(200, "application/json", "x-gzip", codingtest.Gzip(anthropicOK)))
	resp, got = do(nil, xgzOK.URL, "", "{}")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Empty(t, resp.Header.Values("Content-Encoding"))
	assert.Equal(t, anthropicOK, got, "a success handed back decoded, as net/http hands back gzip")

	brStream := newUpstream(t, reply(200, "text/event-stream", "br", "\x1b\x4a\x00\xf8event: error\ndata: "+overloaded+"\n\n"))
	resp, got = do(nil, brStream.URL, "", "{}")
	assert.Equal(t, 502, resp.StatusCode)
	assert.Empty(t, resp.Header.Values("Content-Encoding"))
	assert.Contains(t, got, `"code":"TRANSPORT"`)
	assert.NotContains(t, got, "Overloaded", "the upstream's text never passes")
}

// TestTransport_lyingContentEncoding: an answer whose Content-Encoding
// (gzip, x-gzip, deflate) lies about its bytes. Transport asks for gzip by
// name (AcceptEncoding), so the body comes back coded and DecodeBody's
// error (ErrContentCoding) tells the lie from a cut: a 429 is classified
// from its status and Retry-After, a success whose head does not decode is
// core.EgressGatewayError's 502 (source orchestrator), never a 200 failing
// at its first read; no answer holds the upstream's words or the
// decoder's. Before, Base decoded gzip: the 429 was a Read error
// (gzip.ErrHeader) the SDK raised as it came, the success a 200 whose
// body failed.
func TestTransport_lyingContentEncoding(t *testing.T) {
	const limited = `{"type":"error","error":{"type":"rate_limit_error","message":"Upstream says slow down"}}`
	var asked string
	reply := func(status int, coding, body string) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			asked = r.Header.Get("Accept-Encoding")
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", coding)
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}
	}
	for _, coding := range []string{"gzip", "x-gzip", "deflate"} {
		for _, c := range []struct {
			status, want int
			body, has    string
		}{
			{429, 429, limited, `"code":"RATE_LIMITED"`},
			{200, 502, anthropicOK, `"source":"orchestrator"`},
		} {
			up := newUpstream(t, reply(c.status, coding, c.body))
			req, err := http.NewRequest("POST", up.URL+"/v1/messages", strings.NewReader(`{}`))
			require.NoError(t, err)
			req.Header.Set("Accept-Encoding", "br, zstd")
			resp, err := (&http.Client{Transport: &Transport{}}).Do(req)
			require.NoError(t, err, coding)
			got, err := io.ReadAll(resp.Body)
			require.NoError(t, err, coding)
			resp.Body.Close()
			assert.Equal(t, "gzip", asked, "%s: gzip asked for by name", coding)
			assert.Equal(t, c.want, resp.StatusCode, "%s %d: %s", coding, c.status, got)
			assert.Contains(t, string(got), c.has, coding)
			assert.Empty(t, resp.Header.Values("Content-Encoding"), coding)
			assert.NotContains(t, string(got), "Upstream says", coding)
			assert.NotContains(t, string(got), "gzip", coding)
			assert.NotContains(t, string(got), "zlib", coding)
			if c.status == 429 {
				assert.Equal(t, "7", resp.Header.Get("Retry-After"), coding)
			}
		}
	}
}

// TestRewriteSuccessError_lyingCoding: a success whose head is not what
// its coding says is err, matching ErrContentCoding, its body closed and
// empty; nothing of it is replayed.
func TestRewriteSuccessError_lyingCoding(t *testing.T) {
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Encoding": {"gzip"}},
		Body: io.NopCloser(strings.NewReader(anthropicOK))}
	require.NoError(t, DecodeResponse(resp))
	_, ok, err := RewriteSuccessError(resp, core.FormatAnthropic, core.EgressOptions{})
	assert.False(t, ok)
	assert.ErrorIs(t, err, ErrContentCoding)
	assert.ErrorIs(t, err, gzip.ErrHeader)
	assert.Equal(t, http.NoBody, resp.Body)
}
