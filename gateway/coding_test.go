package gateway

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/internal/codingtest"
)

// TestGateway_codedRequestBody: a request body with a Content-Encoding
// goes through the request op decoded. Changed, it is sent as the op's
// bytes without the header; unchanged, as it came, compressed; in a coding
// the gateway cannot undo (br) or not what its coding says, as it came,
// counted as a body the op could not read; decoded past MaxBodyBytes, 413.
func TestGateway_codedRequestBody(t *testing.T) {
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{MaxBodyBytes: 1 << 20}, map[string]*fakeUpstream{FamilyAnthropic: up})
	send := func(coding, body string) *http.Response {
		return tg.post(t, "/v1/messages", body, map[string]string{"Content-Encoding": coding})
	}

	for _, c := range []struct{ coding, body string }{
		{"gzip", codingtest.Gzip(lossyAnthropicBody)}, {"x-gzip", codingtest.Gzip(lossyAnthropicBody)},
		{"deflate", codingtest.Deflate(lossyAnthropicBody)}, {"GZIP, identity", codingtest.Gzip(lossyAnthropicBody)},
		{"deflate, gzip", codingtest.Encode(lossyAnthropicBody, "deflate", "gzip")},
	} {
		resp := send(c.coding, c.body)
		require.Equal(t, 200, resp.StatusCode, c.coding)
		sent, h := up.last()
		assert.Contains(t, string(sent), "NO_RESULT", "%s: the unanswered call is answered", c.coding)
		assert.Contains(t, string(sent), `"is_error":true`, c.coding)
		assert.Empty(t, h.Values("Content-Encoding"), "%s: the op's body is sent as it is", c.coding)
	}

	unchanged := codingtest.Gzip(minimalBody(FamilyAnthropic))
	require.Equal(t, 200, send("gzip", unchanged).StatusCode)
	sent, h := up.last()
	assert.Equal(t, unchanged, string(sent), "an unchanged body goes as it came")
	assert.Equal(t, "gzip", h.Get("Content-Encoding"))

	for _, c := range []struct{ coding, body string }{
		{"br", "\x1b\x00\x00" + lossyAnthropicBody}, {"gzip", lossyAnthropicBody}, {"gzip, gzip, gzip, gzip, gzip", lossyAnthropicBody},
		{"gzip", codingtest.Gzip(lossyAnthropicBody)[:40]},
	} {
		require.Equal(t, 200, send(c.coding, c.body).StatusCode, c.coding)
		sent, h := up.last()
		assert.Equal(t, c.body, string(sent), "%s: a body the op cannot read goes as it came", c.coding)
		assert.Equal(t, c.coding, h.Get("Content-Encoding"))
	}

	bomb := codingtest.Gzip(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"` + strings.Repeat("a", 2<<20) + `"}]}`)
	require.Less(t, len(bomb), 1<<20)
	big := send("gzip", bomb)
	assert.Equal(t, http.StatusRequestEntityTooLarge, big.StatusCode)
	assert.Equal(t, "error", readJSON(t, big.Body)["type"], "the Anthropic error shape")

	tg.settle(t)
	assert.Equal(t, 10, up.hits(), "the body past the bound never reaches the upstream")
	assert.Equal(t, 4.0, testutil.ToFloat64(tg.g.metrics.opFailures.WithLabelValues("messages")))
	assert.Contains(t, tg.log.String(), `"request_op_error":"content-encoding"`)
	assert.Contains(t, tg.log.String(), `"status":413`)
}

// TestGateway_codedRequestBodyRouted: a compressed body routed to another
// family is converted from its content and sent without Content-Encoding;
// one in a coding the gateway cannot undo is refused with 400, param
// content-encoding, and never sent.
func TestGateway_codedRequestBodyRouted(t *testing.T) {
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{Routes: map[string]string{"openai-chat": "anthropic"}}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/chat/completions", codingtest.Gzip(chatWithEnvelope), map[string]string{"Content-Encoding": "gzip"})
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "chat.completion", readJSON(t, resp.Body)["object"])
	sent, h := up.last()
	assert.Empty(t, h.Values("Content-Encoding"))
	assert.Contains(t, string(sent), `"is_error":true`, "converted from the decoded body")

	br := tg.post(t, "/v1/chat/completions", "\x1b\x00\x00"+chatWithEnvelope, map[string]string{"Content-Encoding": "br"})
	assert.Equal(t, 400, br.StatusCode)
	e := readJSON(t, br.Body)["error"].(map[string]any)
	assert.Equal(t, "content-encoding", e["param"])
	assert.Contains(t, e["message"], "Content-Encoding cannot be read")
	assert.Equal(t, 1, up.hits())
}

// codedReply answers status with body in the content coding coding.
func codedReply(status int, contentType, coding, body string) func(http.ResponseWriter, *http.Request, []byte) {
	return func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Encoding", coding)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// TestGateway_codedUpstreamBody: an upstream body the gateway reads (an
// error, a stream, a routed success) left in a content coding by the
// transport (x-gzip and deflate, which net/http never undoes; gzip from a
// transport that does not ask for it) is read decoded: the error keeps its
// provider type, the stream's error event is rewritten, the routed success
// converted, a success of the route's family handed on decoded. One in a
// coding the gateway cannot undo (br) is never read as
// what it encodes, nor is one that is not what its coding says: an error
// is classified by its status and headers alone, a stream or a
// routed success answered with the gateway's own 502; no reply carries a
// Content-Encoding its body does not have.
func TestGateway_codedUpstreamBody(t *testing.T) {
	const overloaded = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	const errorEvent = "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: error\ndata: " + overloaded + "\n\n"
	streamBody := `{"model":"m","max_tokens":1,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	plain := &http.Transport{DisableCompression: true}
	t.Cleanup(plain.CloseIdleConnections)
	for _, c := range []struct {
		name      string
		transport http.RoundTripper
		reply     func(http.ResponseWriter, *http.Request, []byte)
		stream    bool
		status    int
		want      string // in the body the client reads
	}{
		{"x-gzip error", nil, codedReply(529, "application/json", "x-gzip", codingtest.Gzip(overloaded)), false, 529, `"provider_type":"overloaded_error"`},
		{"deflate error", nil, codedReply(529, "application/json", "deflate", codingtest.Deflate(overloaded)), false, 529, `"provider_type":"overloaded_error"`},
		{"gzip error, transport not asking", plain, codedReply(529, "application/json", "gzip", codingtest.Gzip(overloaded)), false, 529, `"provider_type":"overloaded_error"`},
		{"br error", nil, codedReply(529, "application/json", "br", "\x1b\x4a\x00\xf8"+overloaded), false, 529, `"code":"OVERLOADED"`},
		{"corrupt deflate error", nil, codedReply(529, "application/json", "deflate", overloaded), false, 529, `"code":"OVERLOADED","details":{"provider":"anthropic","status":529}`},
		{"x-gzip stream", nil, codedReply(200, "text/event-stream", "x-gzip", codingtest.Gzip(errorEvent)), true, 200, `"partial_output":true`},
		{"gzip stream, transport not asking", plain, codedReply(200, "text/event-stream", "gzip", codingtest.Gzip(errorEvent)), true, 200, `"partial_output":true`},
		{"br stream", nil, codedReply(200, "text/event-stream", "br", "\x1b\x4a\x00\xf8"+errorEvent), true, 502, `"code":"TRANSPORT"`},
	} {
		up := newFakeUpstream(t, c.reply)
		tg := newTestGateway(t, Config{Transport: c.transport}, map[string]*fakeUpstream{FamilyAnthropic: up})
		body := minimalBody(FamilyAnthropic)
		if c.stream {
			body = streamBody
		}
		resp := tg.post(t, "/v1/messages", body, nil)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.status, resp.StatusCode, "%s: %s", c.name, got)
		assert.Empty(t, resp.Header.Values("Content-Encoding"), c.name)
		assert.Contains(t, string(got), c.want, c.name)
		assert.NotContains(t, string(got), `"message":"Overloaded"`, "%s: the upstream's text never passes", c.name)
		hz, err := http.Get(tg.URL + "/healthz")
		require.NoError(t, err)
		hz.Body.Close()
		assert.Equal(t, 200, hz.StatusCode, c.name)
	}

	// A success of the route's own family passes unread, decoded when the
	// gateway undoes its coding (the client never asked for one), else as
	// it came.
	for _, c := range []struct{ coding, body, want, wantCoding string }{
		{"x-gzip", codingtest.Gzip(anthropicOK), anthropicOK, ""},
		{"deflate", codingtest.Deflate(anthropicOK), anthropicOK, ""},
		{"br", "\x1b\x4a\x00\xf8" + anthropicOK, "\x1b\x4a\x00\xf8" + anthropicOK, "br"},
	} {
		up := newFakeUpstream(t, codedReply(200, "application/json", c.coding, c.body))
		tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
		resp := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err, c.coding)
		assert.Equal(t, 200, resp.StatusCode, c.coding)
		assert.Equal(t, c.want, string(got), c.coding)
		assert.Equal(t, c.wantCoding, resp.Header.Get("Content-Encoding"), c.coding)
	}

	for _, c := range []struct {
		name      string
		transport http.RoundTripper
		coding    string
		body      string
		status    int
	}{
		{"gzip, transport not asking", plain, "gzip", codingtest.Gzip(anthropicOK), 200},
		{"x-gzip", nil, "x-gzip", codingtest.Gzip(anthropicOK), 200},
		{"br", nil, "br", "\x1b\x4a\x00\xf8" + anthropicOK, 502},
	} {
		up := newFakeUpstream(t, codedReply(200, "application/json", c.coding, c.body))
		tg := newTestGateway(t, Config{Transport: c.transport, Routes: map[string]string{"openai-chat": "anthropic"}}, map[string]*fakeUpstream{FamilyAnthropic: up})
		resp := tg.post(t, "/v1/chat/completions", chatWithEnvelope, nil)
		got := readJSON(t, resp.Body)
		assert.Equal(t, c.status, resp.StatusCode, "routed %s: %v", c.name, got)
		assert.Empty(t, resp.Header.Values("Content-Encoding"), c.name)
		if c.status == 200 {
			assert.Equal(t, "chat.completion", got["object"], c.name)
		} else {
			assert.NotNil(t, got["error"].(map[string]any)["toolerr"], c.name)
		}
	}
}
