package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/gateway"
)

// fixtureBody is the bench fixture as the load sends it: compact JSON.
func fixtureBody(tb testing.TB) []byte {
	tb.Helper()
	raw, err := os.ReadFile("../fixtures/openai-chat-40.json")
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// answer is the upstream's fixed success, the strict fake's answer to the
// fixture.
var answer = []byte(`{"choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":{"content":"ok","refusal":null,"role":"assistant"}}],"created":1767225600,"id":"chatcmpl-gwcheck","model":"gpt-4o","object":"chat.completion","usage":{"completion_tokens":1,"prompt_tokens":1,"total_tokens":2}}`)

// fixedTransport answers every request with answer, in memory: the
// handler's own cost, with no socket on either side.
type fixedTransport struct{}

func (fixedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, r.Body)
	_ = r.Body.Close()
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(answer))}},
		ContentLength: int64(len(answer)), Body: io.NopCloser(bytes.NewReader(answer)), Request: r}, nil
}

// BenchmarkGateway_handler is one fixture request through gateway.New's
// ServeHTTP, the upstream an in-memory RoundTripper, the log written as
// the binary writes it (JSON) to io.Discard.
func BenchmarkGateway_handler(b *testing.B) {
	body := fixtureBody(b)
	g, err := gateway.New(gateway.Config{Upstreams: map[string]string{gateway.FamilyOpenAI: "http://upstream.invalid"},
		Transport: fixedTransport{}, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "http://gateway/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer sk-bench-placeholder")
		w := httptest.NewRecorder()
		g.ServeHTTP(w, req)
		if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), answer) {
			b.Fatalf("got %d %s", w.Code, w.Body.Bytes())
		}
	}
}

// BenchmarkGateway_prepareRequest is the core's egress_request op alone on
// the fixture (core.PrepareRequest), the part of the handler that is the
// core's.
func BenchmarkGateway_prepareRequest(b *testing.B) {
	body := fixtureBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := core.PrepareRequest(core.FormatOpenAIChat, body, core.TranscriptOptions{})
		if err != nil || p.Changed {
			b.Fatal(err, p.Changed)
		}
	}
}

// BenchmarkGateway_encodingJSON is the baseline beside the request op:
// encoding/json decoding the fixture into interface values, the least a
// reader of the whole body does.
func BenchmarkGateway_encodingJSON(b *testing.B) {
	body := fixtureBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
	}
}
