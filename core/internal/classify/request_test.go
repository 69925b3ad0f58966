package classify

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
)

// One-value headers share a backing array: appending to one leaves the
// others as they were.
func TestReadHeaders_valuesIndependent(t *testing.T) {
	h, err := readHeaders(map[string]any{"headers": map[string]any{
		"a": "1", "b": "2", "c": []any{"3", "4"}, "d": "5"}}, "http")
	require.NoError(t, err)
	for name := range h {
		h[name] = append(h[name], "x")
	}
	assert.Equal(t, Header{"a": {"1", "x"}, "b": {"2", "x"}, "c": {"3", "4", "x"}, "d": {"5", "x"}}, h)
}

// TestReadRequest_parentPath: a request nested in a larger one (an egress
// body, a batch) names its bad member from the root of the whole request.
func TestReadRequest_parentPath(t *testing.T) {
	tests := []struct {
		name string
		req  map[string]any
		path string
		msg  string
	}{
		{"none", map[string]any{}, "failures[2]", "exactly one of http, sse_event or error_text is required, got 0"},
		{"status missing", map[string]any{"http": map[string]any{}}, "failures[2].http.status", "is required"},
		{"status out of range", map[string]any{"http": map[string]any{"status": 42.0}}, "failures[2].http.status", "must be a whole number from 100 to 599"},
		{"header number", map[string]any{"http": map[string]any{"status": 500.0, "headers": map[string]any{"b": "ok", "retry-after": []any{"1", 5.0}}}},
			"failures[2].http.headers.retry-after[1]", "must be a string, got number"},
		{"headers not object", map[string]any{"http": map[string]any{"status": 500.0, "headers": []any{}}}, "failures[2].http.headers", "must be an object, got array"},
		{"source", map[string]any{"source": "orchestrator", "error_text": "x"}, "failures[2].source", `must be provider or tool, got "orchestrator"`},
		{"attempt", map[string]any{"attempt": -1.0, "error_text": "x"}, "failures[2].attempt", "must be a whole number from 0 to 2147483648"},
		{"now_ms", map[string]any{"now_ms": 1.5, "error_text": "x"}, "failures[2].now_ms", "must be a whole number from 0 to 9007199254740992"},
		{"sse emitted", map[string]any{"sse_event": map[string]any{"content_emitted": "yes"}}, "failures[2].sse_event.content_emitted", "must be a boolean, got string"},
		{"sse event", map[string]any{"sse_event": map[string]any{"event": 1.0}}, "failures[2].sse_event.event", "must be a string, got number"},
		{"error_text", map[string]any{"error_text": true}, "failures[2].error_text", "must be a string, got boolean"},
	}
	for _, tc := range tests {
		_, err := ReadRequest(tc.req, "failures[2]")
		var fe *field.Error
		require.True(t, errors.As(err, &fe), "%s: %v", tc.name, err)
		assert.Equal(t, tc.path, fe.Path, tc.name)
		assert.Equal(t, tc.msg, fe.Msg, tc.name)
	}
	for _, tc := range []struct {
		name string
		req  map[string]any
		path string
	}{
		{"exception missing", map[string]any{}, "failures[2].exception"},
		{"exception type", map[string]any{"exception": map[string]any{"message": "m"}}, "failures[2].exception.type"},
		{"exception message type", map[string]any{"exception": map[string]any{"type": "E", "message": 1.0}}, "failures[2].exception.message"},
		{"exception source", map[string]any{"exception": map[string]any{"type": "E"}, "source": "provider"}, "failures[2].source"},
	} {
		_, err := ReadExceptionRequest(tc.req, "failures[2]")
		var fe *field.Error
		require.True(t, errors.As(err, &fe), "%s: %v", tc.name, err)
		assert.Equal(t, tc.path, fe.Path, tc.name)
	}
	// At the root, the same members give the op's paths.
	_, err := ReadRequest(map[string]any{"http": map[string]any{"status": 42.0}}, "")
	var fe *field.Error
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "http.status", fe.Path)
}

// TestRequest_checkIsTheOpsCheck: a request built in Go (the typed API's
// way) is refused exactly where ReadRequest refuses the same members.
func TestRequest_checkIsTheOpsCheck(t *testing.T) {
	for _, tc := range []struct {
		r    Request
		path string
	}{
		{Request{Kind: KindHTTP, Status: 0}, "http.status"},
		{Request{Kind: KindHTTP, Status: 600}, "http.status"},
		{Request{Kind: KindText, Options: Options{Source: "orchestrator"}}, "source"},
		{Request{Kind: KindText, Options: Options{Attempt: -1, HasAttempt: true}}, "attempt"},
		{Request{Kind: KindText, Options: Options{Attempt: MaxAttempt + 1, HasAttempt: true}}, "attempt"},
		{Request{Kind: KindText, Options: Options{NowMs: -1, HasNow: true}}, "now_ms"},
	} {
		err := tc.r.Check("")
		var fe *field.Error
		require.True(t, errors.As(err, &fe), "%+v", tc.r)
		assert.Equal(t, tc.path, fe.Path)
	}
	ok := Request{Kind: KindHTTP, Status: 503, Options: Options{Tool: "search"}}
	require.NoError(t, ok.Check(""))
	assert.Equal(t, envelope.Transport, ok.Classify().Code)
	ex := ExceptionRequest{Type: "ValueError", Options: Options{Source: envelope.SourceProvider}}
	require.Error(t, ex.Check(""), "an exception is always a tool's")
}
