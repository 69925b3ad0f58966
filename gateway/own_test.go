package gateway

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errBody is a request body whose every read fails with err.
type errBody struct{ err error }

func (b errBody) Read([]byte) (int, error) { return 0, b.err }

// slowErr is the error a read past the server's read deadline returns.
type slowErr struct{}

func (slowErr) Error() string { return "read tcp: i/o timeout" }
func (slowErr) Timeout() bool { return true }

// ownErrorPaths are the routes of each client shape the gateway answers
// its own errors in.
var ownErrorPaths = map[string]string{
	"openai-chat":      "/v1/chat/completions",
	"openai-responses": "/v1/responses",
	"anthropic":        "/v1/messages",
	"gemini":           "/v1beta/models/gemini-2.5-flash:generateContent",
}

// ownErrorRequest is a request the gateway refuses itself with status:
// 413 a body past MaxBodyBytes (1024 here), 408 a body whose read timed
// out, 400 a body whose read failed.
func ownErrorRequest(path string, status int) *http.Request {
	switch status {
	case http.StatusRequestEntityTooLarge:
		return httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"messages":"`+strings.Repeat("x", 2000)+`"}`))
	case http.StatusRequestTimeout:
		return httptest.NewRequest(http.MethodPost, path, io.NopCloser(errBody{slowErr{}}))
	}
	return httptest.NewRequest(http.MethodPost, path, io.NopCloser(errBody{errors.New("unexpected EOF")}))
}

// TestGateway_ownErrors: a request the gateway refuses itself (a body too
// large, too slow, broken) is answered in the client's shape in the
// gateway's own name: source orchestrator, "The gateway ...", the status's
// code and retryable, no provider; the upstream is never called.
func TestGateway_ownErrors(t *testing.T) {
	type want struct {
		env, msg, retry                    string
		openAIType, anthType, googleStatus string
	}
	byStatus := map[int]want{
		400: {`{"code":"INVALID_REQUEST","details":{"status":400},"message":"The gateway rejected the request as invalid (HTTP 400); change the request before sending it again.","retryable":false,"source":"orchestrator"}`,
			"The gateway rejected the request as invalid (HTTP 400); change the request before sending it again.", "false",
			"invalid_request_error", "invalid_request_error", "INVALID_ARGUMENT"},
		408: {`{"code":"TIMEOUT","details":{"status":408},"message":"The gateway timed out waiting for the request body (HTTP 408); retry later.","retryable":true,"source":"orchestrator"}`,
			"The gateway timed out waiting for the request body (HTTP 408); retry later.", "true",
			"server_error", "timeout_error", "DEADLINE_EXCEEDED"},
		413: {`{"code":"REQUEST_TOO_LARGE","details":{"status":413},"message":"The gateway rejected the request as too large (HTTP 413); shorten the request before sending it again.","retryable":false,"source":"orchestrator"}`,
			"The gateway rejected the request as too large (HTTP 413); shorten the request before sending it again.", "false",
			"invalid_request_error", "request_too_large", "INVALID_ARGUMENT"},
	}
	// The native error object of each shape, as each SDK parses it
	// (openai-python APIStatusError.body, anthropic's error.type,
	// google-genai APIError's error.code and error.status).
	body := func(shape string, status int, w want) string {
		switch shape {
		case "anthropic":
			return `{"error":{"message":"` + w.msg + `","toolerr":` + w.env + `,"type":"` + w.anthType + `"},"type":"error"}`
		case "gemini":
			return `{"error":{"code":` + strconv.Itoa(status) + `,"message":"` + w.msg + `","status":"` + w.googleStatus + `","toolerr":` + w.env + `}}`
		}
		return `{"error":{"code":null,"message":"` + w.msg + `","param":null,"toolerr":` + w.env + `,"type":"` + w.openAIType + `"}}`
	}
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{MaxBodyBytes: 1024}, map[string]*fakeUpstream{FamilyAnthropic: up, FamilyOpenAI: up, FamilyGemini: up})
	for shape, path := range ownErrorPaths {
		for status, w := range byStatus {
			t.Run(shape+"/"+strconv.Itoa(status), func(t *testing.T) {
				rec := httptest.NewRecorder()
				tg.g.ServeHTTP(rec, ownErrorRequest(path, status))
				assert.Equal(t, status, rec.Code)
				assert.Equal(t, body(shape, status, w), rec.Body.String())
				assert.Equal(t, w.env, rec.Header().Get("X-Toolerr-Envelope"))
				assert.Equal(t, w.retry, rec.Header().Get("X-Should-Retry"))
				assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
				assert.NotContains(t, rec.Body.String(), "provider")
			})
		}
	}
	assert.Equal(t, 0, up.hits(), "a refusal of the gateway's own never reaches the upstream")
}

// TestGateway_ownErrorsOverBound: the bound of concurrent requests reached
// is the gateway's own 503, retryable, never the provider's.
func TestGateway_ownErrorsOverBound(t *testing.T) {
	up := newFakeUpstream(t, okJSON(anthropicOK))
	tg := newTestGateway(t, Config{MaxConcurrent: 1}, map[string]*fakeUpstream{FamilyAnthropic: up})
	tg.g.slots <- struct{}{} // the one slot taken
	rec := httptest.NewRecorder()
	tg.g.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(minimalBody(FamilyAnthropic))))
	<-tg.g.slots
	env := `{"code":"TRANSPORT","details":{"status":503},"message":"The gateway is unavailable (HTTP 503); retry later.","retryable":true,"source":"orchestrator"}`
	assert.Equal(t, 503, rec.Code)
	assert.Equal(t, `{"error":{"message":"The gateway is unavailable (HTTP 503); retry later.","toolerr":`+env+`,"type":"api_error"},"type":"error"}`, rec.Body.String())
	assert.Equal(t, "true", rec.Header().Get("X-Should-Retry"))
	assert.Equal(t, 0, up.hits())
}

// TestGateway_refusalInOwnName: a request the gateway cannot route to
// another family is its own 400: its sentence in the native message, the
// member at fault as param, and the envelope in the gateway's name (it
// was classified as an OpenAI upstream's before).
func TestGateway_refusalInOwnName(t *testing.T) {
	up := newFakeUpstream(t, okJSON(`{}`))
	tg := newTestGateway(t, Config{Routes: map[string]string{"anthropic": "openai-chat"}}, map[string]*fakeUpstream{FamilyOpenAI: up})
	resp := tg.post(t, "/v1/messages", `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, nil)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	env := `{"code":"INVALID_REQUEST","details":{"param":"stream","status":400},"message":"The gateway rejected the request as invalid (HTTP 400); change the request before sending it again.","retryable":false,"source":"orchestrator"}`
	assert.Equal(t, 400, resp.StatusCode)
	assert.Equal(t, `{"error":{"message":"toolerr gateway routes anthropic requests to openai-chat without streaming; send the request without stream, or route this API to its own family.","toolerr":`+env+`,"type":"invalid_request_error"},"type":"error"}`, string(b))
	assert.Equal(t, 0, up.hits())
}

// TestGateway_upstream400StaysTheProvidersOwn: an upstream's own 400 is
// still the provider's: source provider, its API named, its message kept.
func TestGateway_upstream400StaysTheProvidersOwn(t *testing.T) {
	up := newFakeUpstream(t, fail(400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"},"request_id":"req_1"}`))
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/messages", minimalBody(FamilyAnthropic), nil)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	env := `{"code":"INVALID_REQUEST","details":{"provider":"anthropic","provider_type":"invalid_request_error","request_id":"req_1","status":400},"message":"The Anthropic API rejected the request as invalid (HTTP 400); change the request before sending it again.","retryable":false,"source":"provider"}`
	assert.Equal(t, 400, resp.StatusCode)
	assert.Equal(t, `{"error":{"message":"max_tokens: Field required.","toolerr":`+env+`,"type":"invalid_request_error"},"request_id":"req_1","type":"error"}`, string(b))
	assert.NotContains(t, string(b), "The gateway")
	assert.Equal(t, 1, up.hits())
}

// TestGateway_successErrorObject: on loopback, an upstream 200 whose whole
// body is one {"error":{...}} object (Gemini's, on generateContent and on
// streamGenerateContent without alt=sse) reaches the client as the failure
// it is, its text never passing; a success of the same route still passes.
func TestGateway_successErrorObject(t *testing.T) {
	const gemini200 = `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`
	env := `{"code":"RATE_LIMITED","details":{"provider":"gemini","provider_type":"RESOURCE_EXHAUSTED","status":429},"message":"The Gemini API was rate limited (HTTP 429); retry later.","retryable":true,"source":"provider"}`
	want := `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","toolerr":` + env + `}}`
	for _, path := range []string{"/v1beta/models/gemini-2.5-flash:generateContent", "/v1beta/models/gemini-2.5-flash:streamGenerateContent"} {
		t.Run(path, func(t *testing.T) {
			up := newFakeUpstream(t, okJSON(gemini200))
			tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyGemini: up})
			resp := tg.post(t, path, minimalBody(FamilyGemini), nil)
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, 429, resp.StatusCode)
			assert.Equal(t, want, string(b))
			assert.Equal(t, env, resp.Header.Get("X-Toolerr-Envelope"))
			assert.Equal(t, "true", resp.Header.Get("X-Should-Retry"))
			tg.settle(t)
			assert.Contains(t, tg.log.String(), `"upstream_code":"RATE_LIMITED"`)
		})
	}
	t.Run("a success passes", func(t *testing.T) {
		ok := `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}`
		up := newFakeUpstream(t, okJSON(ok))
		tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyGemini: up})
		resp := tg.post(t, "/v1beta/models/gemini-2.5-flash:generateContent", minimalBody(FamilyGemini), nil)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, 200, resp.StatusCode)
		assert.Equal(t, ok, string(b))
	})
}
