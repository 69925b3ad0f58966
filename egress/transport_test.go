package egress

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// timeoutEnvelope is a tool's TIMEOUT failure as toolerr writes it, inside
// a JSON string.
const timeoutEnvelope = `{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"Weather service timed out.\",\"retryable\":true,\"source\":\"tool\"}`

// lossyAnthropicBody is the body LiteLLM forwarded to Anthropic in issue 10:
// the envelope without is_error, and a parallel call left unanswered.
const lossyAnthropicBody = `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[
 {"role":"user","content":"Weather in Paris and Rome?"},
 {"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"get_weather","input":{"city":"Paris"}},{"type":"tool_use","id":"toolu_B","name":"get_weather","input":{"city":"Rome"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"` + timeoutEnvelope + `"}]}]}`

const anthropicOK = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Sorry."}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`

// upstream is a real HTTP server on loopback that records each request
// and answers it with handle.
type upstream struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	paths  []string
}

func newUpstream(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) *upstream {
	t.Helper()
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.bodies, u.paths = append(u.bodies, b), append(u.paths, r.URL.Path)
		u.mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) hits() [][]byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([][]byte(nil), u.bodies...)
}

func answer(status int, header map[string]string, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func post(t *testing.T, c *http.Client, url, body string) *http.Response {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestEndpointOf(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         Endpoint
		ok           bool
	}{
		{"POST", "/v1/chat/completions", Endpoint{APIChatCompletions, core.FormatOpenAIChat, ""}, true},
		{"POST", "/openai/deployments/d/chat/completions", Endpoint{APIChatCompletions, core.FormatOpenAIChat, ""}, true},
		{"POST", "/v1beta/openai/chat/completions", Endpoint{APIChatCompletions, core.FormatOpenAIChat, ""}, true},
		{"POST", "/v1/responses", Endpoint{APIResponses, core.FormatOpenAIResponses, ""}, true},
		{"POST", "/v1/messages", Endpoint{APIMessages, core.FormatAnthropic, ""}, true},
		{"POST", "/v1/messages/count_tokens", Endpoint{APICountTokens, core.FormatAnthropic, ""}, true},
		{"POST", "/v1beta/models/gemini-2.5-flash:generateContent", Endpoint{APIGenerateContent, core.FormatGemini, "gemini-2.5-flash"}, true},
		{"POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", Endpoint{APIStreamGenerateContent, core.FormatGemini, "gemini-2.5-flash"}, true},
		{"POST", "/v1beta1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:generateContent", Endpoint{APIGenerateContent, core.FormatGemini, "gemini-2.5-pro"}, true},
		{"GET", "/v1/chat/completions", Endpoint{}, false},
		{"POST", "/v1/embeddings", Endpoint{}, false},
		{"POST", "/v1/threads/t/messages", Endpoint{}, false},
		{"POST", "/v1/messages/batches", Endpoint{}, false},
		{"POST", "/v1/responses/resp_1/cancel", Endpoint{}, false},
		{"POST", "/v1beta/models/a/b:generateContent", Endpoint{}, false},
		{"POST", "/v1beta/models/:generateContent", Endpoint{}, false},
		{"POST", "/v1beta/models/m:countTokens", Endpoint{}, false},
		{"POST", "/model/anthropic.claude-3/converse", Endpoint{}, false},
	} {
		got, ok := EndpointOf(tc.method, tc.path)
		assert.Equal(t, tc.ok, ok, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.want, got, "%s %s", tc.method, tc.path)
	}
}

// TestTransport_requestOp: the lossy body leaves the client as
// Anthropic takes it (is_error restored, the unanswered call answered with
// NO_RESULT), and OnPrepare is told; a body needing nothing goes byte for
// byte.
func TestTransport_requestOp(t *testing.T) {
	up := newUpstream(t, answer(200, nil, anthropicOK))
	var reports []core.PreparedRequest
	c := &http.Client{Transport: &Transport{OnPrepare: func(_ *http.Request, ep Endpoint, p core.PreparedRequest) {
		assert.Equal(t, APIMessages, ep.API)
		reports = append(reports, p)
	}}}
	resp := post(t, c, up.URL+"/v1/messages", lossyAnthropicBody)
	require.Equal(t, 200, resp.StatusCode)
	got, _ := io.ReadAll(resp.Body)
	assert.JSONEq(t, anthropicOK, string(got))

	var body struct {
		Messages []struct{ Content json.RawMessage }
	}
	require.NoError(t, json.Unmarshal(up.hits()[0], &body))
	var results []map[string]any
	require.NoError(t, json.Unmarshal(body.Messages[2].Content, &results))
	require.Len(t, results, 2)
	assert.Equal(t, true, results[0]["is_error"], "the flag the envelope travelled without")
	assert.Equal(t, "toolu_B", results[1]["tool_use_id"])
	assert.Equal(t, true, results[1]["is_error"])
	assert.Contains(t, results[1]["content"], "NO_RESULT")
	require.Len(t, reports, 1)
	assert.True(t, reports[0].Changed)
	assert.Equal(t, 1, reports[0].Changes.Synthesized)
	assert.Len(t, reports[0].FlagsRestored, 1)

	clean := `{"model":"claude-sonnet-4-5","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`
	post(t, c, up.URL+"/v1/messages", clean)
	assert.Equal(t, clean, string(up.hits()[1]), "an unchanged body goes byte for byte")
	assert.False(t, reports[1].Changed)
}

// TestTransport_retryReplaysPreparedBody: a retry through GetBody (as the
// Stainless SDKs and net/http do) sends the prepared body again.
func TestTransport_retryReplaysPreparedBody(t *testing.T) {
	up := newUpstream(t, answer(200, nil, anthropicOK))
	req, err := http.NewRequest("POST", up.URL+"/v1/messages", strings.NewReader(lossyAnthropicBody))
	require.NoError(t, err)
	var sent *http.Request
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = r
		return http.DefaultTransport.RoundTrip(r)
	})
	resp, err := (&Transport{Base: base}).RoundTrip(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.NotNil(t, sent.GetBody)
	again, err := sent.GetBody()
	require.NoError(t, err)
	b, _ := io.ReadAll(again)
	assert.Equal(t, string(up.hits()[0]), string(b))
	assert.Equal(t, int64(len(b)), sent.ContentLength)
	assert.NotSame(t, req, sent, "the caller's request is not changed")
	assert.Equal(t, int64(len(lossyAnthropicBody)), req.ContentLength)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestTransport_upstreamErrors: each upstream failure reaches the SDK with
// its status, the native shape with the envelope inside, the standard
// retry headers, and the upstream's other headers.
func TestTransport_upstreamErrors(t *testing.T) {
	for _, tc := range []struct {
		name, path    string
		status        int
		header        map[string]string
		body          string
		code          string
		retryAfter    string
		retryAfterMs  string
		shouldRetry   string
		nativeMessage func(map[string]any) any
	}{
		{"anthropic 429 retry-after", "/v1/messages", 429, map[string]string{"retry-after": "7", "request-id": "req_1"},
			`{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			"RATE_LIMITED", "7", "7000", "true", func(b map[string]any) any { return b["error"].(map[string]any)["type"] }},
		{"anthropic 529", "/v1/messages", 529, nil,
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			"OVERLOADED", "", "", "true", func(b map[string]any) any { return b["error"].(map[string]any)["type"] }},
		{"openai 400", "/v1/chat/completions", 400, nil,
			`{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.","type":"invalid_request_error","param":"messages.[2].role","code":null}}`,
			"INVALID_REQUEST", "", "", "false", func(b map[string]any) any { return b["error"].(map[string]any)["type"] }},
		{"gemini 429 RetryInfo", "/v1beta/models/gemini-2.5-flash:generateContent", 429, nil,
			`{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}`,
			"RATE_LIMITED", "3", "3000", "true", func(b map[string]any) any { return b["error"].(map[string]any)["status"] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, answer(tc.status, tc.header, tc.body))
			c := &http.Client{Transport: &Transport{}}
			resp := post(t, c, up.URL+tc.path, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}],"contents":[]}`)
			assert.Equal(t, tc.status, resp.StatusCode, "the status kept")
			assert.Equal(t, tc.retryAfter, resp.Header.Get("Retry-After"))
			assert.Equal(t, tc.retryAfterMs, resp.Header.Get("Retry-After-Ms"))
			assert.Equal(t, tc.shouldRetry, resp.Header.Get("X-Should-Retry"))
			for k, v := range tc.header {
				if k != "retry-after" {
					assert.Equal(t, v, resp.Header.Get(k), "the upstream's %s passes", k)
				}
			}
			raw, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, int64(len(raw)), resp.ContentLength)
			var got map[string]any
			require.NoError(t, json.Unmarshal(raw, &got))
			var want map[string]any
			require.NoError(t, json.Unmarshal([]byte(tc.body), &want))
			assert.Equal(t, tc.nativeMessage(want), tc.nativeMessage(got), "the native shape")
			env := got["error"].(map[string]any)["toolerr"].(map[string]any)
			assert.Equal(t, tc.code, env["code"])
			var hdr map[string]any
			require.NoError(t, json.Unmarshal([]byte(resp.Header.Get(core.EnvelopeHeader)), &hdr))
			assert.Equal(t, env, hdr, "the header carries the same envelope")
			assert.Len(t, up.hits(), 1, "the transport never retries")
		})
	}
}

// TestTransport_gzipError: an error body the upstream compressed is read
// decoded (the transport lets net/http ask for gzip) and rewritten.
func TestTransport_gzipError(t *testing.T) {
	var acceptEncoding string
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		acceptEncoding = r.Header.Get("Accept-Encoding")
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = io.WriteString(zw, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
		_ = zw.Close()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(529)
		_, _ = w.Write(buf.Bytes())
	})
	req, _ := http.NewRequest("POST", up.URL+"/v1/messages", strings.NewReader(`{}`))
	req.Header.Set("Accept-Encoding", "gzip, br") // a caller asking for an encoding it then decodes
	resp, err := (&http.Client{Transport: &Transport{}}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "gzip", acceptEncoding, "net/http's own request for gzip")
	assert.Equal(t, 529, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Content-Encoding"))
	raw, _ := io.ReadAll(resp.Body)
	assert.Contains(t, string(raw), `"code":"OVERLOADED"`)
}

// TestTransport_streamPassesEventByEvent: the client reads each event
// before the upstream writes the next; an error event inside is rewritten
// in the client's native shape and reported, and the stream goes on.
func TestTransport_streamPassesEventByEvent(t *testing.T) {
	next := make(chan struct{})
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		events := []string{
			"event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
			"event: ping\ndata: {\"type\":\"ping\"}\n\n",
		}
		w.Header().Set("Content-Type", "text/event-stream")
		// A length the rewritten stream no longer has: the transport drops it.
		w.Header().Set("Content-Length", strconv.Itoa(len(strings.Join(events, ""))))
		f := w.(http.Flusher)
		for _, ev := range events {
			_, _ = io.WriteString(w, ev)
			f.Flush()
			select {
			case <-next:
			case <-time.After(5 * time.Second):
				return // the client never read the event: the test fails below
			}
		}
	})
	var reported []core.ErrorReply
	c := &http.Client{Transport: &Transport{OnStreamError: func(_ *http.Request, ep Endpoint, rep core.ErrorReply) {
		assert.Equal(t, APIMessages, ep.API)
		reported = append(reported, rep)
	}}}
	resp := post(t, c, up.URL+"/v1/messages", `{"model":"m","max_tokens":1,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	assert.Equal(t, int64(-1), resp.ContentLength)
	br := bufio.NewReader(resp.Body)
	readEvent := func() string {
		var ev strings.Builder
		for {
			line, err := br.ReadString('\n')
			require.NoError(t, err)
			ev.WriteString(line)
			if line == "\n" {
				return ev.String()
			}
		}
	}
	assert.Equal(t, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n", readEvent())
	next <- struct{}{}
	ev := readEvent()
	require.True(t, strings.HasPrefix(ev, "event: error\ndata: "), ev)
	var data map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(ev), "event: error\ndata: ")), &data))
	e := data["error"].(map[string]any)
	assert.Equal(t, "overloaded_error", e["type"])
	env := e["toolerr"].(map[string]any)
	assert.Equal(t, "OVERLOADED", env["code"])
	assert.Equal(t, true, env["details"].(map[string]any)["partial_output"], "an event with data went before")
	require.Len(t, reported, 1, "reported once the event is in the stream")
	assert.Equal(t, core.Code("OVERLOADED"), reported[0].Envelope.Code)
	next <- struct{}{}
	assert.Equal(t, "event: ping\ndata: {\"type\":\"ping\"}\n\n", readEvent(), "the stream goes on")
	next <- struct{}{}
	rest, err := io.ReadAll(br)
	require.NoError(t, err)
	assert.Empty(t, rest)
}

// TestStreamReader_framing: events split anywhere, CRLF and CR line ends,
// a data-only Chat Completions error chunk, content that only mentions
// "error", a comment, an unterminated tail and an event past MaxEventBytes.
func TestStreamReader_framing(t *testing.T) {
	long := "data: " + strings.Repeat("x", MaxEventBytes+10) + "\n\n"
	src := "data: {\"choices\":[{\"delta\":{\"content\":\"an \\\"error\\\" word\"}}]}\r\n\r\n" +
		"data: {\"error\":null}\r\r" +
		": comment\n\n" +
		long +
		"data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\"}}\n\n" +
		"data: [DONE]"
	var reported []core.ErrorReply
	r := NewStreamReader(io.NopCloser(iotest.OneByteReader(strings.NewReader(src))), StreamConfig{
		Ingress: core.FormatOpenAIChat, Options: core.EgressOptions{Upstream: "openai-chat"},
		OnError: func(rep core.ErrorReply) { reported = append(reported, rep) },
	})
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	require.Len(t, reported, 1)
	assert.Equal(t, core.Code("SERVER_ERROR"), reported[0].Envelope.Code)
	errEvent := "data: " + string(reported[0].Body) + "\n\n"
	want := strings.Replace(src, "data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\"}}\n\n", errEvent, 1)
	assert.Equal(t, len(want), len(got))
	assert.True(t, want == string(got), "every other byte passes as it came")
	assert.Contains(t, string(reported[0].Body), `"partial_output":true`)
}

// TestStreamReader_keepsLineEnds: the rewritten error event ends its lines
// as the event it replaces did (CRLF in a Gemini stream), so a reader that
// splits on one kind of blank line keeps the events apart.
func TestStreamReader_keepsLineEnds(t *testing.T) {
	for _, eol := range []string{"\r\n", "\n", "\r"} {
		chunk := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Par"}]}}]}` + eol + eol
		src := chunk + `data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}` + eol + eol + chunk
		var reported []core.ErrorReply
		r := NewStreamReader(io.NopCloser(strings.NewReader(src)), StreamConfig{Ingress: core.FormatGemini,
			OnError: func(rep core.ErrorReply) { reported = append(reported, rep) }})
		got, err := io.ReadAll(r)
		require.NoError(t, err)
		require.Len(t, reported, 1)
		assert.Equal(t, chunk+"data: "+string(reported[0].Body)+eol+eol+chunk, string(got), "%q", eol)
	}
}

// TestStreamReader_unterminatedErrorEvent: a stream that ends inside an
// error event (no blank line after it, or its JSON cut) has that event
// replaced as a complete one is, so the provider's text and the key in it
// never pass; a tail that is no error event passes as it came.
func TestStreamReader_unterminatedErrorEvent(t *testing.T) {
	const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	const event = `event: error` + "\n" + `data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded ` + secret
	for _, tail := range []string{event + `"}}`, event + `"}}` + "\n", event + `"}}` + "\r\n", event} {
		var reported []core.ErrorReply
		r := NewStreamReader(io.NopCloser(iotest.OneByteReader(strings.NewReader("event: ping\ndata: {}\n\n"+tail))), StreamConfig{Ingress: core.FormatAnthropic,
			OnError: func(rep core.ErrorReply) { reported = append(reported, rep) }})
		got, err := io.ReadAll(r)
		require.NoError(t, err)
		require.Len(t, reported, 1, "%q", tail)
		assert.NotContains(t, string(got), secret)
		eol := "\n"
		if strings.HasSuffix(tail, "\r\n") {
			eol = "\r\n"
		}
		assert.Equal(t, "event: ping\ndata: {}\n\nevent: error"+eol+"data: "+string(reported[0].Body)+eol+eol, string(got))
	}
	content := "data: {\"choices\":[{\"delta\":{\"content\":\"cut"
	r := NewStreamReader(io.NopCloser(strings.NewReader(content)), StreamConfig{Ingress: core.FormatOpenAIChat})
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, content, string(got))
}

// TestStreamReader_blockedUpstream: a complete event is handed on while the
// upstream has sent nothing more.
func TestStreamReader_blockedUpstream(t *testing.T) {
	pr, pw := io.Pipe()
	r := NewStreamReader(pr, StreamConfig{Ingress: core.FormatAnthropic})
	go func() { _, _ = io.WriteString(pw, "event: ping\ndata: {}\n\nevent: mess") }()
	buf := make([]byte, 64)
	n, err := r.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "event: ping\ndata: {}\n\n", string(buf[:n]))
	require.NoError(t, r.Close())
	_, err = pw.Write([]byte("x"))
	assert.ErrorIs(t, err, io.ErrClosedPipe, "Close closes the upstream body")
}

// TestTransport_transportError: an upstream that refuses the connection
// is answered 502 in the native shape with x-should-retry; a caller that
// gave up gets its own context's error.
func TestTransport_transportError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	c := &http.Client{Transport: &Transport{}}
	resp := post(t, c, "http://"+addr+"/v1/chat/completions", `{"model":"m","messages":[]}`)
	assert.Equal(t, 502, resp.StatusCode)
	assert.Equal(t, "true", resp.Header.Get("X-Should-Retry"))
	raw, _ := io.ReadAll(resp.Body)
	var got struct {
		Error struct {
			Type    string
			Toolerr map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, "TRANSPORT", got.Error.Toolerr["code"])

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/v1/chat/completions", strings.NewReader(`{}`))
	_, err = c.Do(req)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
}

// TestTransport_otherRequestsPass: a request of no endpoint passes to Base
// as it is, its failure included.
func TestTransport_otherRequestsPass(t *testing.T) {
	up := newUpstream(t, answer(500, nil, `{"error":"no"}`))
	c := &http.Client{Transport: &Transport{}}
	resp := post(t, c, up.URL+"/v1/embeddings", `{"input":"x"}`)
	raw, _ := io.ReadAll(resp.Body)
	assert.Equal(t, 500, resp.StatusCode)
	assert.Equal(t, `{"error":"no"}`, string(raw))
	assert.Empty(t, resp.Header.Get("X-Should-Retry"))
	assert.Equal(t, `{"input":"x"}`, string(up.hits()[0]))
}

// TestTransport_bodyPastTheCoreBound: a body past core.MaxRequestBytes is
// sent whole, unread by the op.
func TestTransport_bodyPastTheCoreBound(t *testing.T) {
	up := newUpstream(t, answer(200, nil, anthropicOK))
	called := false
	c := &http.Client{Transport: &Transport{OnPrepare: func(*http.Request, Endpoint, core.PreparedRequest) { called = true }}}
	big := `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"` + strings.Repeat("a", core.MaxRequestBytes) + `"}]}`
	post(t, c, up.URL+"/v1/messages", big)
	assert.Equal(t, len(big), len(up.hits()[0]))
	assert.True(t, big == string(up.hits()[0]))
	assert.False(t, called)
}

// TestStreamReader_leadingBOM: a stream that begins with a UTF-8 BOM (which
// the WHATWG event-stream parser strips before reading fields) has its
// first event read as the fields it holds, so an error event there is
// rewritten, whatever the line end, and split anywhere; a first event
// that is content passes with its BOM, byte for byte.
func TestStreamReader_leadingBOM(t *testing.T) {
	const bom = "\xEF\xBB\xBF"
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	for _, eol := range []string{"\r", "\n", "\r\n"} {
		src := bom + `data: {"error":{"message":"` + secret + `","type":"server_error"}}` + eol + eol +
			`data: {"choices":[]}` + eol + eol
		var reported []core.ErrorReply
		r := NewStreamReader(io.NopCloser(iotest.OneByteReader(strings.NewReader(src))), StreamConfig{Ingress: core.FormatOpenAIChat,
			Options: core.EgressOptions{Upstream: "openai-chat"},
			OnError: func(rep core.ErrorReply) { reported = append(reported, rep) }})
		got, err := io.ReadAll(r)
		require.NoError(t, err)
		require.Len(t, reported, 1, "%q: the error event behind the BOM is read", eol)
		assert.Equal(t, core.Code("SERVER_ERROR"), reported[0].Envelope.Code)
		assert.NotContains(t, string(got), secret)
		assert.Equal(t, "data: "+string(reported[0].Body)+eol+eol+`data: {"choices":[]}`+eol+eol, string(got))
	}
	content := bom + "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"
	r := NewStreamReader(io.NopCloser(strings.NewReader(content)), StreamConfig{Ingress: core.FormatOpenAIChat})
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, content, string(got), "content passes as it came, its BOM too")
	// A BOM anywhere but the start of the stream is no BOM to strip: the
	// field name holds it, and the event is not an error event.
	later := "data: {}\n\n" + bom + "data: {\"error\":{\"message\":\"x\",\"type\":\"server_error\"}}\n\n"
	r = NewStreamReader(io.NopCloser(strings.NewReader(later)), StreamConfig{Ingress: core.FormatOpenAIChat})
	got, err = io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, later, string(got))
}

// TestTransport_unreadableRetryAfter: an upstream Retry-After the
// classifier cannot read (negative, not a number, an exponent, a date
// that is no HTTP-date) gives the envelope no wait, and the SDK gets no
// retry-after or retry-after-ms either: the op's headers replace the
// upstream's, no hint, no header.
func TestTransport_unreadableRetryAfter(t *testing.T) {
	for _, v := range []string{"-5", "abc", "1e9", "Tuesday soon"} {
		up := newUpstream(t, answer(503, map[string]string{"retry-after": v, "retry-after-ms": v},
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
		c := &http.Client{Transport: &Transport{}}
		resp := post(t, c, up.URL+"/v1/messages", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`)
		assert.Equal(t, 503, resp.StatusCode)
		_, has := resp.Header["Retry-After"]
		assert.False(t, has, "%q: no retry-after", v)
		_, has = resp.Header["Retry-After-Ms"]
		assert.False(t, has, "%q: no retry-after-ms", v)
		var env map[string]any
		require.NoError(t, json.Unmarshal([]byte(resp.Header.Get(core.EnvelopeHeader)), &env))
		assert.NotContains(t, env["details"], "retry_after_seconds", "%q", v)
	}
}

// TestStreamReader_oversizedErrorEvent: an error event past MaxEventBytes
// (a 5 MiB message) is still an error event: named "error", or data-only
// with an "error" object first, it is replaced at once by the error op's
// event for it read without its data (the upstream's text never passes),
// reported to OnError, and dropped to its end, in any line ends and at the
// end of the stream too; the events around it pass as they came.
func TestStreamReader_oversizedErrorEvent(t *testing.T) {
	huge := strings.Repeat("x", MaxEventBytes+(1<<20))
	for _, tc := range []struct {
		name    string
		ingress core.Format
		event   string
		eol     string
	}{
		{"anthropic named error", core.FormatAnthropic, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"" + huge + "\"}}\n\n", "\n"},
		{"chat data-only chunk, CRLF", core.FormatOpenAIChat, "data: { \"error\" : {\"message\":\"" + huge + "\"}}\r\n\r\n", "\r\n"},
		{"gemini chunk, CR", core.FormatGemini, "data: {\"error\":{\"code\":503,\"message\":\"" + huge + "\"}}\r\r", "\r"},
		{"at the end of the stream", core.FormatAnthropic, "event: error\ndata: {\"error\":\"" + huge, "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := "data: {\"type\":\"ping\"}" + tc.eol + tc.eol
			after := ""
			if !strings.HasPrefix(tc.name, "at the end") {
				after = before
			}
			var reported []core.ErrorReply
			r := NewStreamReader(io.NopCloser(strings.NewReader(before+tc.event+after)), StreamConfig{Ingress: tc.ingress,
				OnError: func(rep core.ErrorReply) { reported = append(reported, rep) }})
			got, err := io.ReadAll(r)
			require.NoError(t, err)
			require.Len(t, reported, 1)
			rep := reported[0]
			assert.Equal(t, core.Code("SERVER_ERROR"), rep.Envelope.Code)
			var want strings.Builder
			want.WriteString(before)
			if rep.Event != "" {
				want.WriteString("event: " + rep.Event + tc.eol)
			}
			want.WriteString("data: " + string(rep.Body) + tc.eol + tc.eol + after)
			assert.Equal(t, want.Len(), len(got))
			assert.True(t, want.String() == string(got), "the error event replaced, the others as they came")
			assert.NotContains(t, string(got), "xxxx")
		})
	}
}

// TestStreamReader_oversizedContentPasses: an event past MaxEventBytes that
// does not open as an error (a long content chunk, an unnamed event whose
// data is not JSON, an "error" that is a string) passes byte for byte. (An
// "error" object after a long member is cut out: see
// TestStreamReaders_aLongElementsErrorMemberIsCut.)
func TestStreamReader_oversizedContentPasses(t *testing.T) {
	huge := strings.Repeat("y", MaxEventBytes+(1<<20))
	for _, ev := range []string{
		"data: {\"choices\":[{\"delta\":{\"content\":\"" + huge + "\"}}]}\n\n",
		"event: content_block_delta\ndata: " + huge + "\n\n",
		"data: {\"error\":\"" + huge + "\"}\n\n",
	} {
		var reported int
		src := ev + "data: [DONE]\n\n"
		r := NewStreamReader(io.NopCloser(strings.NewReader(src)), StreamConfig{Ingress: core.FormatOpenAIChat,
			OnError: func(core.ErrorReply) { reported++ }})
		got, err := io.ReadAll(r)
		require.NoError(t, err)
		assert.Zero(t, reported)
		assert.True(t, src == string(got), "%.40s passes as it came", ev)
	}
}

// TestTransport_rewrittenErrorDropsTrailers: an upstream error body the
// Transport rewrites whole carries none of the upstream's trailers (RFC
// 9110, 6.5.1: they describe the content they follow).
func TestTransport_rewrittenErrorDropsTrailers(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Trailer", "X-Upstream-Digest")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(529)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
		w.(http.Flusher).Flush()
		w.Header().Set("X-Upstream-Digest", "sha-256=:upstream:")
	})
	c := &http.Client{Transport: &Transport{}}
	resp := post(t, c, up.URL+"/v1/messages", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`)
	_, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, 529, resp.StatusCode)
	assert.Nil(t, resp.Trailer, "the upstream's trailer goes with its body")
}
