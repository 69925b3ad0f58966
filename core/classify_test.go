package core

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "read tcp: deadline" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassifyError_goValues(t *testing.T) {
	assert.Equal(t, Envelope{}, ClassifyError(nil, ClassifyOptions{}))
	e := ClassifyError(timeoutErr{}, ClassifyOptions{})
	assert.Equal(t, CodeTimeout, e.Code)
	assert.True(t, e.Retryable)
	e = ClassifyError(errors.New("dial tcp 127.0.0.1:9: connect: connection refused"), ClassifyOptions{Source: SourceTool})
	assert.Equal(t, CodeTransport, e.Code)
	assert.Equal(t, "connection_refused", e.Details["cause"])
	e = ClassifyError(errors.New("status code: 429"), ClassifyOptions{Attempt: 2})
	assert.Equal(t, CodeRateLimited, e.Code)
	assert.Equal(t, int64(2), e.Details["attempt"])
}

func TestClassifyHTTP_httpHeader(t *testing.T) {
	// http.Header is map[string][]string with canonical names.
	h := map[string][]string{"Retry-After": {"3"}, "X-Should-Retry": {"false"}}
	e := ClassifyHTTP(503, h, nil, ClassifyOptions{NowMs: 1})
	assert.Equal(t, CodeTransport, e.Code)
	assert.False(t, e.Retryable, "x-should-retry: false overrides the status")
	assert.Equal(t, int64(3), e.Details["retry_after_seconds"])
}

func TestInvoke_classify(t *testing.T) {
	tests := []struct{ name, req, want string }{
		{"header forms", `{"op":"classify","http":{"status":429,"headers":{"Retry-After":["5","9"],"x-request-id":"req_1"}}}`,
			`{"ok":{"code":"RATE_LIMITED","details":{"request_id":"req_1","retry_after_seconds":5,"status":429},"message":"The model provider was rate limited (HTTP 429); retry after 5 seconds.","retryable":true,"source":"provider"}}`},
		{"raw string body holding JSON", `{"op":"classify","provider":"anthropic","http":{"status":529,"body":"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}}`,
			`{"ok":{"code":"OVERLOADED","details":{"provider":"anthropic","provider_type":"overloaded_error","status":529},"message":"The Anthropic API is overloaded (HTTP 529); retry later.","retryable":true,"source":"provider"}}`},
		{"HTTP-date with now_ms", `{"op":"classify","now_ms":1735689600000,"http":{"status":503,"headers":{"retry-after":"Wed, 01 Jan 2025 00:00:30 GMT"}}}`,
			`{"ok":{"code":"TRANSPORT","details":{"retry_after_seconds":30,"status":503},"message":"The model provider is unavailable (HTTP 503); retry after 30 seconds.","retryable":true,"source":"provider"}}`},
		{"HTTP-date without now_ms", `{"op":"classify","http":{"status":503,"headers":{"retry-after":"Wed, 01 Jan 2025 00:00:30 GMT"}}}`,
			`{"ok":{"code":"TRANSPORT","details":{"status":503},"message":"The model provider is unavailable (HTTP 503); retry later.","retryable":true,"source":"provider"}}`},
		{"sse event", `{"op":"classify","sse_event":{"data":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}},"content_emitted":true}}`,
			`{"ok":{"code":"OVERLOADED","details":{"partial_output":true,"provider":"anthropic","provider_type":"overloaded_error"},"message":"The Anthropic API is overloaded in the response stream, after part of the output was sent; retry later.","retryable":true,"source":"provider"}}`},
		{"error text", `{"op":"classify","source":"tool","tool":"search","error_text":"dial tcp 127.0.0.1:9: connect: connection refused"}`,
			`{"ok":{"code":"TRANSPORT","details":{"cause":"connection_refused","tool":"search"},"message":"The search tool could not connect: the connection was refused; retry later.","retryable":true,"source":"tool"}}`},
		{"exception", `{"op":"classify_exception","tool":"search","attempt":1,"exception":{"type":"ValueError","message":"","traceback":"Traceback (most recent call last):\n  File \"/x.py\", line 1\nValueError\n"}}`,
			`{"ok":{"code":"TOOL_ERROR","details":{"attempt":1,"exception_type":"ValueError","tool":"search"},"message":"The search tool raised ValueError; change the arguments or the approach, do not repeat the same call.","retryable":false,"source":"tool"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(Invoke([]byte(tc.req))))
		})
	}
}
