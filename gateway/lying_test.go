package gateway

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/internal/codingtest"
)

// lyingBodies are bodies sent under a Content-Encoding they are not in:
// the plain JSON, and a real stream of that coding cut inside it (its
// checksum never comes).
func lyingBodies(coding, plain string) map[string]string {
	coded := codingtest.Gzip(plain)
	if coding == "deflate" {
		coded = codingtest.Deflate(plain)
	}
	return map[string]string{"plain": plain, "cut": coded[:len(coded)-6]}
}

// goErrorText are words of the Go decoders' error strings, which never
// reach a client.
var goErrorText = []string{"gzip:", "zlib:", "flate", "invalid header", "checksum", "unexpected EOF", "egress:"}

// TestGateway_lyingContentEncoding: an upstream body whose
// Content-Encoding (gzip, x-gzip, deflate: the codings the gateway
// undoes) lies about its bytes. An error status is classified from its
// status and headers (429 stays 429, its Retry-After kept), never a 502; a
// success the gateway reads (the head of a success peeked for an error
// object, an array stream, a routed success converted) is answered with
// the gateway's own 502 in the client's shape (source orchestrator), never
// a 200 cut short; no reply carries the upstream's text or a Go error
// string. A success passed on after its head (an answer, an array stream)
// whose coding breaks later is cut, as any body that fails on its way is:
// the client never reads a whole 200; one that breaks within that head
// (a body shorter than core.EgressSuccessHeadBytes) is the gateway's 502. Before, a gzip body the transport decoded failed with
// gzip.ErrHeader: the 429 became a 502 with the decoder's words in it,
// and a success a 200 whose body was cut.
func TestGateway_lyingContentEncoding(t *testing.T) {
	const rateLimited = `{"type":"error","error":{"type":"rate_limit_error","message":"Upstream says slow down"}}`
	for _, coding := range []string{"gzip", "x-gzip", "deflate"} {
		for kind, body := range lyingBodies(coding, rateLimited) {
			name := coding + " " + kind + " 429"
			up := newFakeUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
				w.Header().Set("Retry-After", "7")
				codedReply(429, "application/json", coding, body)(w, nil, nil)
			})
			tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
			resp := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
			got, err := io.ReadAll(resp.Body)
			require.NoError(t, err, name)
			assert.Equal(t, 429, resp.StatusCode, "%s: %s", name, got)
			assert.Equal(t, "7", resp.Header.Get("Retry-After"), name)
			assert.Contains(t, string(got), `"code":"RATE_LIMITED"`, name)
			assert.Contains(t, resp.Header.Get("X-Toolerr-Envelope"), `"retry_after_seconds":7`, "%s: %v", name, resp.Header)
			assertClean(t, name, resp, got)
		}
	}

	for _, coding := range []string{"gzip", "x-gzip", "deflate"} {
		for _, c := range []struct {
			name, path, body, plain string
			routes                  map[string]string
			family                  string
			whole                   bool // read whole before anything passes
		}{
			{"success", "/v1/messages", minimalBody(FamilyAnthropic), anthropicOK, nil, FamilyAnthropic, false},
			{"error object under 200", "/v1beta/models/gemini-2.5-flash:generateContent", minimalBody(FamilyGemini),
				`{"error":{"code":429,"message":"Upstream says slow down","status":"RESOURCE_EXHAUSTED"}}`, nil, FamilyGemini, true},
			{"array stream", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", minimalBody(FamilyGemini),
				`[{"candidates":[{"content":{"role":"model","parts":[{"text":"Upstream says hi"}]}}]}]`, nil, FamilyGemini, false},
			{"routed success", "/v1/chat/completions", chatWithEnvelope, anthropicOK, map[string]string{"openai-chat": "anthropic"}, FamilyAnthropic, true},
			// Longer than the head the gateway peeks (core.EgressSuccessHeadBytes):
			// a cut past it is found only after the head passed on.
			{"long success", "/v1/messages", minimalBody(FamilyAnthropic), strings.Replace(anthropicOK, "Sorry.", strings.Repeat("Sorry. ", 600), 1), nil, FamilyAnthropic, false},
			{"long array stream", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", minimalBody(FamilyGemini),
				`[{"candidates":[{"content":{"role":"model","parts":[{"text":"` + strings.Repeat("Upstream says hi. ", 300) + `"}]}}]}]`, nil, FamilyGemini, false},
		} {
			for kind, body := range lyingBodies(coding, c.plain) {
				name := coding + " " + kind + " " + c.name
				up := newFakeUpstream(t, codedReply(200, "application/json", coding, body))
				tg := newTestGateway(t, Config{Routes: c.routes}, map[string]*fakeUpstream{c.family: up})
				resp := tg.post(t, c.path, c.body, nil)
				got, err := io.ReadAll(resp.Body)
				if kind == "cut" && !c.whole && len(c.plain) > core.EgressSuccessHeadBytes {
					assert.Equal(t, 200, resp.StatusCode, name)
					assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "%s: passed on after its head, the body is cut where its coding breaks", name)
					continue
				}
				require.NoError(t, err, "%s: a clean reply, not one cut short", name)
				assert.Equal(t, http.StatusBadGateway, resp.StatusCode, "%s: %s", name, got)
				assert.Contains(t, string(got), `"source":"orchestrator"`, "%s: the gateway's own 502", name)
				assertClean(t, name, resp, got)
				if c.family == FamilyGemini {
					assert.Contains(t, string(got), `"status":"UNAVAILABLE"`, "%s: Gemini's error shape", name)
				} else if c.routes != nil {
					assert.Contains(t, string(got), `"type":"service_unavailable_error"`, "%s: the client's (OpenAI's) error shape", name)
				} else {
					assert.Contains(t, string(got), `"type":"error"`, "%s: Anthropic's error shape", name)
				}
			}
		}
	}
}

// assertClean checks that a reply carries no Content-Encoding, none of
// the upstream's words and no Go error string.
func assertClean(t *testing.T, name string, resp *http.Response, got []byte) {
	t.Helper()
	assert.Empty(t, resp.Header.Values("Content-Encoding"), name)
	assert.NotContains(t, string(got), "Upstream says", "%s: the upstream's text never passes", name)
	for _, w := range goErrorText {
		assert.NotContains(t, strings.ToLower(string(got)), strings.ToLower(w), "%s: no Go error string", name)
		assert.NotContains(t, strings.ToLower(resp.Header.Get("X-Toolerr-Envelope")), strings.ToLower(w), "%s: no Go error string", name)
	}
}
