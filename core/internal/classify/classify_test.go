package classify

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
)

// j parses JSON test input into a value tree.
func j(t *testing.T, s string) any {
	t.Helper()
	v, err := canonical.Parse([]byte(s))
	require.NoError(t, err, s)
	return v
}

type want struct {
	code      envelope.Code
	retryable bool
	details   map[string]any // every key listed must match; others are not checked
	absent    []string       // keys that must not be in details
}

func check(t *testing.T, e envelope.Envelope, w want) {
	t.Helper()
	assert.Equal(t, w.code, e.Code, "code (message %q)", e.Message)
	assert.Equal(t, w.retryable, e.Retryable, "retryable")
	for k, v := range w.details {
		assert.Equal(t, v, e.Details[k], "details.%s", k)
	}
	for _, k := range w.absent {
		assert.NotContains(t, e.Details, k)
	}
	assert.NotEmpty(t, e.Message)
}

func TestHTTP_bodies(t *testing.T) {
	tests := []struct {
		name   string
		status int
		h      Header
		body   string // JSON, or text when it does not parse
		opt    Options
		want   want
	}{
		// OpenAI (ErrorResponse)
		{"openai rate limit", 429, nil, `{"error":{"message":"m","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, Options{},
			want{envelope.RateLimited, true, map[string]any{"provider": "openai", "provider_type": "requests", "provider_code": "rate_limit_exceeded"}, []string{"param"}}},
		{"openai tokens type without code", 429, nil, `{"error":{"message":"m","type":"tokens","param":null,"code":null}}`, Options{},
			want{envelope.RateLimited, true, map[string]any{"provider_type": "tokens"}, []string{"provider_code"}}},
		{"openai insufficient_quota code", 429, nil, `{"error":{"message":"m","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, Options{},
			want{envelope.QuotaExhausted, false, nil, nil}},
		{"openai insufficient_quota type only", 429, nil, `{"error":{"message":"m","type":"insufficient_quota","param":null,"code":null}}`, Options{},
			want{envelope.QuotaExhausted, false, nil, nil}},
		{"openai credit_balance_exhausted", 429, nil, `{"error":{"message":"m","type":"insufficient_quota","param":null,"code":"credit_balance_exhausted"}}`, Options{},
			want{envelope.QuotaExhausted, false, map[string]any{"provider_code": "credit_balance_exhausted"}, nil}},
		{"openai organization_usage_limit_exceeded", 429, nil, `{"error":{"message":"m","type":"x","param":null,"code":"organization_usage_limit_exceeded"}}`, Options{},
			want{envelope.QuotaExhausted, false, nil, nil}},
		{"openai organization_spend_limit_exceeded", 429, nil, `{"error":{"message":"m","type":"x","param":null,"code":"organization_spend_limit_exceeded"}}`, Options{},
			want{envelope.QuotaExhausted, false, nil, nil}},
		{"openai project_spend_limit_exceeded", 429, nil, `{"error":{"message":"m","type":"x","param":null,"code":"project_spend_limit_exceeded"}}`, Options{},
			want{envelope.QuotaExhausted, false, nil, nil}},
		{"openai context_length_exceeded", 400, nil, `{"error":{"message":"m","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, Options{},
			want{envelope.RequestTooLarge, false, map[string]any{"param": "messages"}, nil}},
		{"openai one request above TPM", 429, nil, `{"error":{"message":"Request too large for gpt-4o on tokens per min (TPM)","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`, Options{},
			want{envelope.RequestTooLarge, false, nil, nil}},
		{"openai invalid_api_key", 401, nil, `{"error":{"message":"m","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, Options{},
			want{envelope.Authentication, false, nil, nil}},
		{"openai model_not_found on 400", 400, nil, `{"error":{"message":"m","type":"invalid_request_error","param":"model","code":"model_not_found"}}`, Options{},
			want{envelope.NotFound, false, map[string]any{"param": "model"}, nil}},
		{"openai generic 400", 400, nil, `{"error":{"message":"m","type":"invalid_request_error","param":"temperature","code":"decimal_below_min_value"}}`, Options{},
			want{envelope.InvalidRequest, false, map[string]any{"status": 400, "param": "temperature"}, nil}},
		{"openai server_error type", 500, nil, `{"error":{"message":"m","type":"server_error","param":null,"code":null}}`, Options{},
			want{envelope.ServerError, true, nil, nil}},
		{"openai inner object alone", 401, nil, `{"message":"m","type":"invalid_request_error","param":null,"code":"invalid_api_key"}`, Options{},
			want{envelope.Authentication, false, map[string]any{"provider": "openai"}, nil}},
		{"openai x-request-id", 404, Header{"X-Request-Id": {"req_1"}}, `{"error":{"message":"m","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, Options{},
			want{envelope.NotFound, false, map[string]any{"request_id": "req_1"}, nil}},
		// Anthropic (§2.2)
		{"anthropic overloaded 529", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_9"}`, Options{},
			want{envelope.Overloaded, true, map[string]any{"provider": "anthropic", "provider_type": "overloaded_error", "request_id": "req_9"}, nil}},
		{"anthropic rate limit", 429, nil, `{"type":"error","error":{"type":"rate_limit_error","message":"m"}}`, Options{},
			want{envelope.RateLimited, true, nil, nil}},
		{"anthropic enforced spend limit", 429, nil, `{"type":"error","error":{"type":"rate_limit_error","message":"m","details":{"error_code":"enforced_spend_limit_reached"}}}`, Options{},
			want{envelope.QuotaExhausted, false, map[string]any{"provider_code": "enforced_spend_limit_reached"}, nil}},
		{"anthropic billing_error", 400, nil, `{"type":"error","error":{"type":"billing_error","message":"m"}}`, Options{},
			want{envelope.QuotaExhausted, false, nil, nil}},
		{"anthropic timeout_error", 504, nil, `{"type":"error","error":{"type":"timeout_error","message":"m"}}`, Options{},
			want{envelope.Timeout, true, nil, nil}},
		{"anthropic api_error", 500, nil, `{"type":"error","error":{"type":"api_error","message":"m"}}`, Options{},
			want{envelope.ServerError, true, nil, nil}},
		{"anthropic request_too_large without type error", 413, nil, `{"error":{"type":"request_too_large","message":"m"}}`, Options{},
			want{envelope.RequestTooLarge, false, map[string]any{"provider": "anthropic"}, nil}},
		{"anthropic prompt too long", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`, Options{},
			want{envelope.RequestTooLarge, false, nil, nil}},
		{"anthropic request-id header wins", 500, Header{"request-id": {"req_h"}}, `{"type":"error","error":{"type":"api_error","message":"m"},"request_id":"req_b"}`, Options{},
			want{envelope.ServerError, true, map[string]any{"request_id": "req_h"}, nil}},
		{"anthropic invalid request on 200 fills in", 200, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"m"}}`, Options{},
			want{envelope.InvalidRequest, false, nil, nil}},
		// Google (§2.3)
		{"google per-minute quota", 429, nil, `{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[
			{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"58s"}]}}`, Options{},
			want{envelope.RateLimited, true, map[string]any{"provider": "gemini", "provider_type": "RESOURCE_EXHAUSTED", "quota_id": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "retry_after_seconds": int64(58)}, nil}},
		{"google per-day quota", 429, nil, `{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[
			{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"},{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.250s"}]}}`, Options{},
			want{envelope.QuotaExhausted, false, map[string]any{"quota_id": "GenerateRequestsPerDayPerProjectPerModel-FreeTier", "retry_after_seconds": 1.25}, nil}},
		{"google API_KEY_INVALID on 400", 400, nil, `{"error":{"code":400,"message":"m","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`, Options{},
			want{envelope.Authentication, false, map[string]any{"provider_code": "API_KEY_INVALID", "provider_type": "INVALID_ARGUMENT"}, nil}},
		{"google FAILED_PRECONDITION", 400, nil, `{"error":{"code":400,"message":"m","status":"FAILED_PRECONDITION"}}`, Options{},
			want{envelope.InvalidRequest, false, nil, nil}},
		{"google UNAVAILABLE", 503, nil, `{"error":{"code":503,"message":"m","status":"UNAVAILABLE"}}`, Options{},
			want{envelope.Transport, true, nil, nil}},
		{"google UNAVAILABLE overloaded", 503, nil, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`, Options{},
			want{envelope.Overloaded, true, nil, nil}},
		{"google DEADLINE_EXCEEDED", 504, nil, `{"error":{"code":504,"message":"m","status":"DEADLINE_EXCEEDED"}}`, Options{},
			want{envelope.Timeout, true, nil, nil}},
		{"google array wrapper (OpenAI-compat)", 429, nil, `[{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED"}}]`, Options{},
			want{envelope.RateLimited, true, map[string]any{"provider": "gemini"}, nil}},
		{"google ALREADY_EXISTS not retried", 409, nil, `{"error":{"code":409,"message":"m","status":"ALREADY_EXISTS"}}`, Options{},
			want{envelope.Conflict, false, nil, nil}},
		// Bedrock (§2.4)
		{"bedrock header ThrottlingException", 429, Header{"X-Amzn-ErrorType": {"ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"}, "x-amzn-RequestId": {"r-1"}}, `{"message":"m"}`, Options{},
			want{envelope.RateLimited, true, map[string]any{"provider": "bedrock", "provider_type": "ThrottlingException", "request_id": "r-1"}, nil}},
		{"bedrock body __type", 429, nil, `{"__type":"com.amazon.coral.service#ModelNotReadyException","message":"m"}`, Options{},
			want{envelope.Overloaded, true, map[string]any{"provider_type": "ModelNotReadyException"}, nil}},
		{"bedrock ServiceQuotaExceeded 400 is retry-later", 400, Header{"x-amzn-errortype": {"ServiceQuotaExceededException"}}, `{"message":"m"}`, Options{},
			want{envelope.RateLimited, true, nil, nil}},
		{"bedrock ValidationException", 400, Header{"x-amzn-errortype": {"ValidationException"}}, `{"message":"m"}`, Options{},
			want{envelope.InvalidRequest, false, nil, nil}},
		{"bedrock ServiceUnavailable", 503, Header{"x-amzn-errortype": {"ServiceUnavailableException"}}, `{"Message":"m"}`, Options{},
			want{envelope.Transport, true, nil, nil}},
		{"bedrock ModelTimeout", 408, Header{"x-amzn-errortype": {"ModelTimeoutException"}}, `{"message":"m"}`, Options{},
			want{envelope.Timeout, true, nil, nil}},
		{"bedrock InternalServer", 500, nil, `{"code":"InternalServerException","message":"m"}`, Options{},
			want{envelope.ServerError, true, nil, nil}},
		{"bedrock ModelStreamError", 424, Header{"x-amzn-errortype": {"ModelStreamErrorException"}}, `{"message":"m","originalStatusCode":500}`, Options{},
			want{envelope.ServerError, true, nil, nil}},
		{"bedrock AccessDenied", 403, Header{"x-amzn-errortype": {"AccessDeniedException"}}, `{"message":"m"}`, Options{},
			want{envelope.PermissionDenied, false, nil, nil}},
		{"bedrock ResourceNotFound", 404, Header{"x-amzn-errortype": {"ResourceNotFoundException"}}, `{"message":"m"}`, Options{},
			want{envelope.NotFound, false, nil, nil}},
		{"bedrock ModelError with original 429", 424, Header{"x-amzn-errortype": {"ModelErrorException"}}, `{"message":"m","originalStatusCode":429,"resourceName":"x"}`, Options{},
			want{envelope.RateLimited, true, map[string]any{"original_status": 429}, nil}},
		{"bedrock ModelError without original", 424, Header{"x-amzn-errortype": {"ModelErrorException"}}, `{"message":"m"}`, Options{},
			want{envelope.ClientError, false, nil, nil}},
		{"bedrock message only with hint", 400, nil, `{"message":"The provided model identifier is invalid."}`, Options{Provider: "bedrock"},
			want{envelope.InvalidRequest, false, map[string]any{"provider": "bedrock"}, nil}},
		// Mistral and Ollama (§2.5)
		{"mistral 422 HTTPValidationError", 422, nil, `{"detail":[{"loc":["body","messages",0,"content"],"msg":"Field required","type":"missing"}]}`, Options{Provider: "mistral"},
			want{envelope.InvalidRequest, false, map[string]any{"provider": "mistral", "provider_type": "HTTPValidationError", "param": "body.messages.0.content"}, nil}},
		{"mistral 422 from a tool", 422, nil, `{"detail":[{"loc":["body","city"],"msg":"Field required","type":"missing"}]}`, Options{Source: envelope.SourceTool},
			want{envelope.InvalidArgs, false, map[string]any{"param": "body.city"}, nil}},
		{"ollama error string", 404, nil, `{"error":"model 'llama9' not found"}`, Options{Provider: "ollama"},
			want{envelope.NotFound, false, map[string]any{"provider": "ollama"}, []string{"provider_type"}}},
		{"ollama error string 500", 500, nil, `{"error":"llama runner process has terminated"}`, Options{},
			want{envelope.ServerError, true, nil, []string{"provider"}}},
		// text and empty bodies
		{"html body", 502, nil, `<html><body>Bad Gateway</body></html>`, Options{},
			want{envelope.Transport, true, nil, []string{"provider"}}},
		{"plain text body", 429, nil, `Rate limit reached. Please try again in 174ms.`, Options{},
			want{envelope.RateLimited, true, nil, []string{"retry_after_seconds"}}},
		{"empty body", 503, nil, ``, Options{},
			want{envelope.Transport, true, map[string]any{"status": 503}, nil}},
		{"JSON null body", 500, nil, `null`, Options{},
			want{envelope.ServerError, true, nil, nil}},
		{"JSON string holding JSON", 529, nil, `"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"`, Options{},
			want{envelope.Overloaded, true, map[string]any{"provider": "anthropic"}, nil}},
		// x-should-retry overrides retryable, not the code
		{"x-should-retry false", 503, Header{"x-should-retry": {"false"}}, ``, Options{},
			want{envelope.Transport, false, nil, nil}},
		{"x-should-retry true", 400, Header{"X-Should-Retry": {"true"}}, ``, Options{},
			want{envelope.InvalidRequest, true, nil, nil}},
		{"x-should-retry garbage ignored", 429, Header{"x-should-retry": {"maybe"}}, ``, Options{},
			want{envelope.RateLimited, true, nil, nil}},
		// options
		{"tool 400 is INVALID_ARGS", 400, nil, `{"error":"bad city"}`, Options{Source: envelope.SourceTool, Tool: "get_weather", Attempt: 2, HasAttempt: true},
			want{envelope.InvalidArgs, false, map[string]any{"tool": "get_weather", "attempt": int64(2)}, nil}},
		{"tool 503 stays TRANSPORT", 503, nil, ``, Options{Source: envelope.SourceTool, Tool: "search"},
			want{envelope.Transport, true, map[string]any{"tool": "search"}, nil}},
		{"provider hint is kept", 500, nil, ``, Options{Provider: "Cohere"},
			want{envelope.ServerError, true, map[string]any{"provider": "cohere"}, nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = ParseBody([]byte(tc.body))
			}
			e := HTTP(tc.status, tc.h, body, tc.opt)
			check(t, e, tc.want)
			wantSource := envelope.SourceProvider
			if tc.opt.Source != "" {
				wantSource = tc.opt.Source
			}
			assert.Equal(t, wantSource, e.Source)
		})
	}
}

func TestHTTP_message(t *testing.T) {
	e := HTTP(429, Header{"retry-after": {"12"}}, nil, Options{Source: envelope.SourceTool, Tool: "get_weather"})
	assert.Equal(t, "The get_weather tool was rate limited (HTTP 429); retry after 12 seconds.", e.Message)
	e = HTTP(400, nil, nil, Options{Source: envelope.SourceTool, Tool: "search"})
	assert.Equal(t, "The search tool rejected the arguments (HTTP 400); fix the arguments before calling it again.", e.Message)
	e = HTTP(529, nil, j(t, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), Options{})
	assert.Equal(t, "The Anthropic API is overloaded (HTTP 529); retry later.", e.Message)
	e = HTTP(429, nil, j(t, `{"type":"error","error":{"type":"rate_limit_error","message":"m","details":{"error_code":"enforced_spend_limit_reached"}}}`), Options{})
	assert.Equal(t, "The Anthropic API reported a used-up quota or spend limit (HTTP 429); do not retry until the quota resets.", e.Message)
	e = HTTP(302, nil, nil, Options{})
	assert.Equal(t, "The model provider returned an unexpected status (HTTP 302); do not retry.", e.Message)
}

// TestSSE_B20: Anthropic's overload arrives as 529 or
// as an SSE error event after 200; both are retryable.
func TestSSE_B20(t *testing.T) {
	body := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	e := HTTP(529, Header{"retry-after": {"4"}}, j(t, body), Options{})
	check(t, e, want{envelope.Overloaded, true, map[string]any{"retry_after_seconds": int64(4), "status": 529}, nil})

	e = SSE("error", j(t, body), false, Options{})
	check(t, e, want{envelope.Overloaded, true, map[string]any{"provider_type": "overloaded_error"}, []string{"status", "partial_output"}})
	assert.Equal(t, "The Anthropic API is overloaded in the response stream; retry later.", e.Message)

	e = SSE("error", body, true, Options{}) // data as a string holding JSON
	check(t, e, want{envelope.Overloaded, true, map[string]any{"partial_output": true}, nil})
	assert.Equal(t, "The Anthropic API is overloaded in the response stream, after part of the output was sent; retry later.", e.Message)
}

func TestSSE_others(t *testing.T) {
	tests := []struct {
		name  string
		event string
		data  any
		want  want
	}{
		{"anthropic api_error", "error", `{"type":"error","error":{"type":"api_error","message":"m"}}`, want{envelope.ServerError, true, nil, nil}},
		{"anthropic rate limit", "error", `{"type":"error","error":{"type":"rate_limit_error","message":"m"}}`, want{envelope.RateLimited, true, nil, nil}},
		{"openai responses error event", "error", `{"type":"error","code":"rate_limit_exceeded","message":"m","param":null,"sequence_number":3}`,
			want{envelope.RateLimited, true, map[string]any{"provider": "openai", "provider_code": "rate_limit_exceeded"}, []string{"provider_type"}}},
		{"openai chat stream error", "error", `{"error":{"message":"m","type":"server_error","param":null,"code":null}}`, want{envelope.ServerError, true, nil, nil}},
		{"bedrock stream member", "throttlingException", `{"message":"m"}`, want{envelope.RateLimited, true, map[string]any{"provider": "bedrock", "provider_type": "ThrottlingException"}, nil}},
		{"bedrock validation member", "validationException", `{"message":"m"}`, want{envelope.InvalidRequest, false, nil, nil}},
		{"unreadable event", "error", "boom", want{envelope.ServerError, true, nil, []string{"provider"}}},
		{"no data", "error", nil, want{envelope.ServerError, true, nil, nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check(t, SSE(tc.event, tc.data, false, Options{}), tc.want)
		})
	}
}

// TestHTTP_B21: deterministic 400s are never
// retryable; the orphan tool_use 400 is repairable once.
func TestHTTP_B21(t *testing.T) {
	e := HTTP(400, nil, j(t, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.3: `+"`tool_use`"+` ids were found without `+"`tool_result`"+` blocks immediately after: toolu_Q."}}`), Options{})
	check(t, e, want{envelope.InvalidRequest, false, map[string]any{"repairable": RepairUnansweredToolUse}, nil})

	e = HTTP(400, nil, j(t, `{"error":{"message":"Invalid value for 'temperature'","type":"invalid_request_error"}}`), Options{})
	check(t, e, want{envelope.InvalidRequest, false, nil, []string{"repairable"}})

	e = Text("upstream request failed: status code: 400, message: invalid tool id", Options{})
	check(t, e, want{envelope.InvalidRequest, false, map[string]any{"status": 400}, []string{"repairable"}})
	typed := HTTP(400, nil, nil, Options{})
	assert.Equal(t, typed, e, "a status found in text is classified exactly like a typed one")

	e = HTTP(422, nil, j(t, `{"detail":"schema mismatch"}`), Options{})
	check(t, e, want{envelope.InvalidRequest, false, nil, nil})

	for _, s := range []int{408, 409, 429, 500, 502, 503, 504, 529} {
		assert.True(t, HTTP(s, nil, nil, Options{}).Retryable, "%d stays retryable", s)
	}
}

func TestHTTP_repairPhrases(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2","type":"invalid_request_error","param":"messages","code":null}}`, RepairUnansweredToolUse},
		{`{"error":{"message":"No tool output found for function call call_A.","type":"invalid_request_error","param":"input","code":null}}`, RepairUnansweredToolUse},
		{`{"error":{"code":400,"message":"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.","status":"INVALID_ARGUMENT"}}`, RepairUnansweredToolUse},
		{`{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.","type":"invalid_request_error","param":"messages.[0].role","code":null}}`, RepairOrphanToolResult},
		{`{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.0: unexpected ` + "`tool_use_id`" + ` found in ` + "`tool_result`" + ` blocks: toolu_1."}}`, RepairOrphanToolResult},
	}
	for _, tc := range tests {
		e := HTTP(400, nil, j(t, tc.body), Options{})
		assert.Equal(t, envelope.InvalidRequest, e.Code)
		assert.False(t, e.Retryable)
		assert.Equal(t, tc.want, e.Details["repairable"], tc.body)
	}
	// A repair phrase on a retryable status is not a repair case.
	e := HTTP(500, nil, j(t, `{"error":{"message":"No tool output found for function call x","type":"server_error","param":null,"code":null}}`), Options{})
	assert.NotContains(t, e.Details, "repairable")
}

// TestHTTP_B24: a context overflow
// is not retryable, whatever the provider calls it.
func TestHTTP_B24(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
	}{
		{400, `{"error":{"message":"This model's maximum context length is 131072 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 4370000 tokens > 200000 maximum"}}`},
		{413, `{"type":"error","error":{"type":"invalid_request_error","message":"Request size exceeds model context window"}}`},
		{400, `{"error":{"code":400,"message":"The input token count (4370000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`},
	} {
		e := HTTP(tc.status, nil, j(t, tc.body), Options{})
		check(t, e, want{envelope.RequestTooLarge, false, nil, nil})
		assert.Contains(t, e.Message, "shorten the request")
	}
}

func TestText_transport(t *testing.T) {
	tests := []struct {
		text  string
		code  envelope.Code
		retry bool
		cause string
	}{
		{"dial tcp 127.0.0.1:9: connect: connection refused", envelope.Transport, true, CauseConnectionRefused},
		{"read tcp 10.0.0.1:5000->10.0.0.2:443: read: connection reset by peer", envelope.Transport, true, CauseConnectionReset},
		// Go's net/http: a connection that failed under the request (an
		// unreadable response, a broken chunked body, HTTP/2's GOAWAY)
		// was UNEXPECTED_STATUS, never retried
		{`Post "http://127.0.0.1:8/v1/messages": net/http: HTTP/1.x transport connection broken: malformed HTTP response "\x00\x01"`, envelope.Transport, true, CauseConnectionReset},
		{`net/http: HTTP/1.x transport connection broken: http: server sent repeated Content-Length headers`, envelope.Transport, true, CauseConnectionReset},
		{"malformed chunked encoding", envelope.Transport, true, CauseConnectionReset},
		{"invalid byte in chunk length", envelope.Transport, true, CauseConnectionReset},
		{`http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=""`, envelope.Transport, true, CauseConnectionReset},
		{"http2: client connection lost", envelope.Transport, true, CauseConnectionReset},
		{`Post "https://api.openai.com/v1/chat/completions": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, envelope.Timeout, true, CauseTimeout},
		{"dial tcp: lookup api.example.invalid: no such host", envelope.Transport, true, CauseDNS},
		{"read tcp 1.2.3.4:443: i/o timeout", envelope.Timeout, true, CauseTimeout},
		{"net/http: TLS handshake timeout", envelope.Timeout, true, CauseTimeout},
		{"tls: failed to verify certificate: x509: certificate signed by unknown authority", envelope.Transport, false, CauseTLSCertificate},
		{"remote error: tls: handshake failure", envelope.Transport, true, CauseTLS},
		// an https:// upstream URL for a plain-HTTP port: was UNEXPECTED_STATUS ("could not be classified")
		{`Post "https://127.0.0.1:47291/v1/messages": http: server gave HTTP response to HTTPS client`, envelope.Transport, true, CauseTLS},
		// a server that closes before it answers, through Go's http.Client (a *url.Error over io.EOF): was UNEXPECTED_STATUS
		{`Post "http://127.0.0.1:47291/v1/messages": EOF`, envelope.Transport, true, CauseConnectionReset},
		{`Get "https://api.example.com/v1/models?limit=2": EOF`, envelope.Transport, true, CauseConnectionReset},
		{"connect ECONNREFUSED 127.0.0.1:5432", envelope.Transport, true, CauseConnectionRefused},
		{"getaddrinfo ENOTFOUND api.example.com", envelope.Transport, true, CauseDNS},
		{"request to https://x failed, reason: socket hang up", envelope.Transport, true, CauseConnectionReset},
		{"connect ETIMEDOUT 10.0.0.1:443", envelope.Timeout, true, CauseTimeout},
		{"dial tcp 10.0.0.1:443: connect: network is unreachable", envelope.Transport, true, CauseNetwork},
		{"context canceled", envelope.Cancelled, false, CauseCancelled},
		{"Connection error.", envelope.Transport, true, CauseNetwork},
	}
	for _, tc := range tests {
		e := Text(tc.text, Options{})
		assert.Equal(t, tc.code, e.Code, tc.text)
		assert.Equal(t, tc.retry, e.Retryable, tc.text)
		assert.Equal(t, tc.cause, e.Details["cause"], tc.text)
		assert.NotContains(t, e.Details, "status", tc.text)
	}
}

// TestText_eofOfNoClient checks that an EOF that is not Go's http.Client's
// (a tool's own read to the end, another op's text) names no transport cause.
func TestText_eofOfNoClient(t *testing.T) {
	for _, text := range []string{"EOF", "read config: EOF", `open "a.txt": EOF`, `Post "": EOF`,
		`Post "http://x": EOF trailing`, "Post \"http://x\ny\": EOF", `POST "http://x": EOF`} {
		assert.Equal(t, "", CauseInText(text), text)
	}
}

func TestText_unreadable(t *testing.T) {
	e := Text("something odd happened", Options{})
	check(t, e, want{envelope.UnexpectedStatus, false, nil, []string{"status", "cause"}})
	assert.Equal(t, "The model provider failed with an error that could not be classified; do not retry.", e.Message)
	e = Text("something odd happened", Options{Source: envelope.SourceTool, Tool: "search"})
	check(t, e, want{envelope.ToolError, false, map[string]any{"tool": "search"}, nil})
	assert.Equal(t, "The search tool failed; change the arguments or the approach, do not repeat the same call.", e.Message)
}

func TestText_statusWithJSON(t *testing.T) {
	e := Text(`API error 429: {"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}`, Options{})
	check(t, e, want{envelope.RateLimited, true, map[string]any{"status": 429, "provider": "gemini", "retry_after_seconds": int64(7)}, nil})
	e = Text("Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error'}}", Options{})
	check(t, e, want{envelope.Overloaded, true, map[string]any{"status": 529}, nil})
}

func TestStatusInText(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"upstream request failed: status code: 400, message: invalid tool id", 400},
		{"unexpected status 503", 503},
		{"HTTP 429 Too Many Requests", 429},
		{"HTTP/1.1 502 Bad Gateway", 502},
		{"Error code: 429 - {'error': {}}", 429},
		{"HTTPError 503 for url https://x", 503},
		{"503 Server Error: Service Unavailable for url: http://127.0.0.1:8080/search", 503},
		{"429 Rate limit reached for gpt-4.1", 429},
		{"Weather API returned 429 after 3 attempts", 429},
		{"the server said 504 gateway timeout", 504},
		{`{"statusCode":500}`, 500},
		{"status=404", 404},
		{"got status: 302 Found", 302},
		{"exit code 1", 0},
		{"returned 200 rows", 0},
		{"error code 4000", 0},
		{"port 4431 is closed", 0},
		{"took 500.5ms", 0},
		{"version 1.500.2", 0},
		{"http://10.0.0.1:8080/x", 0},
		{"", 0},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, StatusInText(tc.text), tc.text)
	}
}

func TestBedrockName(t *testing.T) {
	assert.Equal(t, "ThrottlingException", bedrockName("ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"))
	assert.Equal(t, "ValidationException", bedrockName("com.amazon.coral.validate#ValidationException"))
	assert.Equal(t, "ModelStreamErrorException", bedrockName("modelStreamErrorException"))
	assert.Equal(t, "", bedrockName(""))
}

func TestHTTP_toolMessage(t *testing.T) {
	tool := Options{Source: envelope.SourceTool, Tool: "search"}
	e := HTTP(400, nil, `{"error":"invalid argument: 'max_results' must be at most 50"}`, tool)
	require.Equal(t, envelope.InvalidArgs, e.Code)
	require.Equal(t, "invalid argument: 'max_results' must be at most 50.", e.Details["tool_message"])

	e = HTTP(404, nil, "no city named Atlantis\nTraceback (most recent call last):\n  File \"/srv/x.py\", line 1\nKeyError: 'Atlantis' token=PLACEHOLDER_SECRET_1", tool)
	require.Equal(t, envelope.NotFound, e.Code)
	require.NotContains(t, e.Details["tool_message"], "PLACEHOLDER_SECRET_1")
	require.NotContains(t, e.Details["tool_message"], "/srv/x.py")

	// A model provider's error relayed by a tool, when the caller says which
	// provider the tool called, never reaches the model.
	relayed := Options{Source: envelope.SourceTool, Tool: "search", Provider: "anthropic"}
	e = HTTP(400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: field required"}}`, relayed)
	require.NotContains(t, e.Details, "tool_message")
	require.Equal(t, "anthropic", e.Details["provider"])
	// Nor does the body of a retryable failure, or any body for source provider.
	require.NotContains(t, HTTP(503, nil, `{"error":"backend down"}`, tool).Details, "tool_message")
	require.NotContains(t, HTTP(400, nil, `{"error":"bad"}`, Options{}).Details, "tool_message")
}

// TestHTTP_toolSource is issue 13 item 2: naming a tool makes the failure the
// tool's unless source says otherwise, and a tool service's body is read in
// the generic shapes, never as a model provider's.
func TestHTTP_toolSource(t *testing.T) {
	named := Options{Tool: "search"}
	e := HTTP(503, nil, nil, named)
	assert.Equal(t, envelope.SourceTool, e.Source, "a tool name alone says a tool made the call")
	assert.Equal(t, "The search tool is unavailable (HTTP 503); retry later.", e.Message)
	e = HTTP(400, nil, nil, named)
	assert.Equal(t, envelope.InvalidArgs, e.Code)
	e = HTTP(503, nil, nil, Options{Tool: "search", Source: envelope.SourceProvider})
	assert.Equal(t, envelope.SourceProvider, e.Source, "an explicit source wins")
	assert.Equal(t, "search", e.Details["tool"])
	assert.Equal(t, "The model provider is unavailable (HTTP 503); retry later.", e.Message)

	tests := []struct {
		name   string
		status int
		body   string
		code   envelope.Code
		msg    any // details.tool_message, nil when absent
		param  any
	}{
		{"error.message", 400, `{"error":{"message":"max_results must be at most 50"}}`, envelope.InvalidArgs, "max_results must be at most 50.", nil},
		{"error.status", 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"city is required"}}`, envelope.InvalidArgs, "city is required.", nil},
		{"error with type and code", 400, `{"error":{"message":"bad date","type":"invalid_request_error","param":"date","code":"x"}}`, envelope.InvalidArgs, "bad date.", nil},
		{"GraphQL errors", 400, `{"errors":[{"message":"Unknown field 'citty'","locations":[{"line":1,"column":3}]}],"data":null}`, envelope.InvalidArgs, "Unknown field 'citty'.", nil},
		{"GraphQL errors on 200", 200, `{"errors":[{"message":"Cannot query field 'x'","extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}`, envelope.ToolError, "Cannot query field 'x'.", nil},
		{"JSON:API errors", 422, `{"errors":[{"status":"422","title":"Invalid Attribute","detail":"First name must contain at least two characters."}]}`, envelope.InvalidArgs, "First name must contain at least two characters.", nil},
		{"problem details", 403, `{"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.","detail":"Your current balance is 30, but that costs 50.","status":403}`, envelope.PermissionDenied, "Your current balance is 30, but that costs 50.", nil},
		{"problem details title only", 404, `{"type":"about:blank","title":"Not Found","status":404}`, envelope.NotFound, "Not Found.", nil},
		{"OAuth error", 400, `{"error":"invalid_request","error_description":"The city parameter is missing."}`, envelope.InvalidArgs, "The city parameter is missing.", nil},
		{"error string", 404, `{"error":"no city named Atlantis"}`, envelope.NotFound, "no city named Atlantis.", nil},
		{"FastAPI validation", 422, `{"detail":[{"loc":["query","max_results"],"msg":"ensure this value is less than or equal to 50","type":"value_error"}]}`, envelope.InvalidArgs, "ensure this value is less than or equal to 50.", "query.max_results"},
		{"message", 409, `{"message":"the booking already exists","code":"DUPLICATE"}`, envelope.Conflict, nil, nil},
		{"plain text", 400, `max_results must be at most 50`, envelope.InvalidArgs, "max_results must be at most 50.", nil},
		{"an HTML page says nothing", 404, `<html><body><h1>404 Not Found</h1></body></html>`, envelope.NotFound, nil, nil},
		{"Bedrock-like __type is not detected", 400, `{"__type":"ValidationException","message":"bad input"}`, envelope.InvalidArgs, "bad input.", nil},
		{"a 200 with nothing in it", 200, `{"ok":true}`, envelope.UnexpectedStatus, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := HTTP(tc.status, Header{"x-amzn-errortype": {"ThrottlingException"}}, tc.body, named)
			assert.Equal(t, tc.code, e.Code, e.Message)
			assert.Equal(t, envelope.SourceTool, e.Source)
			assert.NotContains(t, e.Details, "provider", "no model provider is detected in a tool's body")
			assert.NotContains(t, e.Details, "provider_type")
			assert.Equal(t, tc.msg, e.Details["tool_message"])
			assert.Equal(t, tc.param, e.Details["param"])
			if s, ok := tc.msg.(string); ok {
				assert.NotContains(t, e.Message, strings.TrimSuffix(s, "."), "the tool's words are in details, never in the sentence")
			}
		})
	}
	// A conflict is retryable: the orchestrator retries, the model is not asked to act.
	assert.NotContains(t, HTTP(409, nil, `{"message":"the booking already exists"}`, named).Details, "tool_message")
}

// TestMessage_saysWhatToDo: every sentence ends in what the model should do,
// and none misleads: a used-up quota never reads as "retry in N seconds", a
// generic exception type is not named as if it said what failed, and a
// tool's sentence speaks of what the model can change.
func TestMessage_saysWhatToDo(t *testing.T) {
	tool := Options{Tool: "search"}
	perDay := `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"m","details":[
		{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},
		{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34s"}]}}`
	tests := []struct {
		name string
		e    envelope.Envelope
		want string
	}{
		{"per-day quota with a RetryInfo", HTTP(429, nil, perDay, Options{}),
			"The Gemini API reported a used-up quota or spend limit (HTTP 429); do not retry until the quota resets."},
		{"connection refused in a generic Error", Exception("Error", "connect ECONNREFUSED 127.0.0.1:5432", "", tool),
			"The search tool could not connect: the connection was refused; retry later."},
		{"connection refused as text", Text("dial tcp 127.0.0.1:9: connect: connection refused", tool),
			"The search tool could not connect: the connection was refused; retry later."},
		{"a provider's refused connection", Text("dial tcp 127.0.0.1:9: connect: connection refused", Options{}),
			"The model provider could not connect: the connection was refused; retry later."},
		{"a tool's 401", HTTP(401, nil, nil, tool),
			"The search tool could not authenticate with its service (HTTP 401); do not call it again until its credentials are fixed."},
		{"a provider's 401", HTTP(401, nil, nil, Options{Provider: "openai"}),
			"The OpenAI API rejected the credentials (HTTP 401); check the credentials and their access, do not retry."},
		{"a tool's 403", HTTP(403, nil, nil, tool), "The search tool was denied permission by its service (HTTP 403); do not repeat this call."},
		{"a tool's 404", HTTP(404, nil, nil, tool), "The search tool could not find what the arguments asked for (HTTP 404); check the arguments, do not repeat the same call."},
		{"a tool's 405", HTTP(405, nil, nil, tool), "The search tool rejected the request (HTTP 405); change the arguments or the approach, do not repeat the same call."},
		{"a tool's 413", HTTP(413, nil, nil, tool), "The search tool rejected the request as too large (HTTP 413); make the arguments smaller before calling it again."},
		{"a tool's 501", HTTP(501, nil, nil, tool), "The search tool does not support the request (HTTP 501); change the arguments or the approach, do not repeat the same call."},
		{"a tool's DNS failure", Text("dial tcp: lookup api.example: no such host", tool), "The search tool could not resolve the host name of its service; retry later."},
		{"a tool's certificate", Text("x509: certificate signed by unknown authority", tool), "The search tool could not verify the TLS certificate of its service; do not retry."},
		{"a cancelled call", Text("context canceled", tool), "The search tool call was cancelled; do not retry it unless asked to."},
		{"a tool's 400 naming a field", HTTP(422, nil, `{"detail":[{"loc":["body","days"],"msg":"too many"}]}`, tool),
			"The search tool rejected the arguments (HTTP 422, field body.days); fix the arguments before calling it again."},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.e.Message, tc.name)
	}
	// Every status, for a tool and a provider, ends in an advice clause.
	for status := 100; status <= 599; status++ {
		for _, o := range []Options{tool, {}} {
			m := HTTP(status, nil, nil, o).Message
			assert.Contains(t, m, "; ", "status %d: %s", status, m)
			assert.NotContains(t, m, "toolerr", "the model does not know what toolerr is")
		}
	}
}
