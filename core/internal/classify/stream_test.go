package classify

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
)

// sseStream joins events into a text/event-stream body: each event is its
// lines, and a blank line follows it.
func sseStream(events ...string) string { return strings.Join(events, "\n\n") + "\n\n" }

const (
	anthropicStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}"
	anthropicPing  = "event: ping\ndata: {\"type\": \"ping\"}"
	anthropicBlock = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"
	anthropicDelta = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}"
	anthropicError = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	responsesNew   = "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\"}}"
	responsesDelta = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":3,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hi\"}"
	responsesError = `{"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached","param":null,"sequence_number":4}`
	responsesFail  = `{"type":"response.failed","sequence_number":2,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The model failed to generate a response."}}}`
	chatChunk      = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}`
	chatError      = `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`
	geminiChunk    = `data: {"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}]}`
	geminiError    = `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`
)

// TestHTTP_rawStream is issue 9 item 7: a streamed response recorded whole,
// given as an HTTP 200 body, gives the same envelope as its error event given
// as sse_event.
func TestHTTP_rawStream(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		event    string // the sse_event form of the same failure
		data     string
		emitted  bool
		wantCode envelope.Code
	}{
		{"Anthropic overloaded after output", sseStream(anthropicStart, anthropicBlock, anthropicPing, anthropicDelta, "event: error\ndata: "+anthropicError),
			"error", anthropicError, true, envelope.Overloaded},
		{"Anthropic error before any output", sseStream(anthropicStart, anthropicPing, "event: error\ndata: "+anthropicError),
			"error", anthropicError, false, envelope.Overloaded},
		{"Responses error event", sseStream(responsesNew, responsesDelta, "event: error\ndata: "+responsesError),
			"error", responsesError, true, envelope.RateLimited},
		{"Responses response.failed", sseStream(responsesNew, "event: response.failed\ndata: "+responsesFail),
			"response.failed", responsesFail, false, envelope.ServerError},
		{"Chat Completions error chunk", sseStream(chatChunk, "data: "+chatError),
			"error", chatError, true, envelope.ServerError},
		{"Gemini alt=sse error", sseStream(geminiChunk, "data: "+geminiError),
			"error", geminiError, true, envelope.Overloaded},
		{"CRLF line ends, comments, data split over lines, no final blank line",
			": keep-alive\r\n\r\n" + strings.ReplaceAll(anthropicDelta, "\n", "\r\n") + "\r\n\r\nevent: error\r\ndata: {\"type\":\"error\",\r\ndata: \"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
			"error", "{\"type\":\"error\",\n\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", true, envelope.Overloaded},
		{"CR line ends", strings.ReplaceAll(sseStream(anthropicStart, "event: error\ndata: "+anthropicError), "\n", "\r"),
			"error", anthropicError, false, envelope.Overloaded},
		{"an error event with text data", sseStream(anthropicDelta, "event: error\ndata: upstream reset"),
			"error", "upstream reset", true, envelope.ServerError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, opt := range []Options{{}, {Provider: "anthropic"}, {Tool: "search"}} {
				raw := HTTP(200, Header{"content-type": {"text/event-stream"}}, tc.body, opt)
				want := SSE(tc.event, ParseBody([]byte(tc.data)), tc.emitted, opt)
				assert.Equal(t, want, raw)
				if opt == (Options{}) {
					assert.Equal(t, tc.wantCode, raw.Code, raw.Message)
				}
				// As a JSON string member of the request, the same.
				assert.Equal(t, want, HTTP(200, nil, mustJSON(tc.body), opt))
			}
		})
	}

	// A stream that never failed is a 200 toolerr cannot read, as before.
	e := HTTP(200, nil, sseStream(anthropicStart, anthropicDelta, "event: message_stop\ndata: {\"type\":\"message_stop\"}"), Options{})
	assert.Equal(t, envelope.UnexpectedStatus, e.Code)
	// A request id header is kept, as for any response.
	e = HTTP(200, Header{"request-id": {"req_1"}}, sseStream(anthropicDelta, "event: error\ndata: "+anthropicError), Options{})
	assert.Equal(t, "req_1", e.Details["request_id"])
	// An error status whose body is a stream: the error event's data is the body.
	assert.Equal(t, HTTP(503, nil, geminiError, Options{}), HTTP(503, nil, sseStream("data: "+geminiError), Options{}))
	// Text that merely mentions a field name is not a stream.
	assert.Equal(t, envelope.UnexpectedStatus, HTTP(200, nil, "error: data: lost", Options{}).Code)
	_, ok := findStreamError("hello\nevent: error\ndata: {}\n\n")
	assert.False(t, ok, "the first line decides")
}

// TestHTTP_rawStreamRecordings wraps every real recorded error body in the
// stream a client would have read (output, then the error event) and checks
// that the raw HTTP 200 form gives the sse_event envelope; and that an error
// status whose body is that error as a stream's data gives the recorded
// response's envelope.
func TestHTTP_rawStreamRecordings(t *testing.T) {
	dir := realDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*", "error_*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	n := 0
	for _, f := range files {
		status, h, body, provider := loadRecording(t, f)
		if body == nil {
			continue
		}
		b, err := canonical.Marshal(body)
		require.NoError(t, err)
		opt := Options{Provider: provider}
		raw := sseStream(anthropicDelta, "event: error\ndata: "+string(b))
		assert.Equal(t, SSE("error", body, true, opt), HTTP(200, nil, raw, opt), f)
		assert.Equal(t, HTTP(status, h, body, opt), HTTP(status, h, sseStream("data: "+string(b)), opt), f)
		n++
	}
	t.Logf("%d recordings read as streams", n)
}
