package gateway

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// rawUpstream is an upstream on loopback that answers every request by
// calling answer with the raw connection, past what net/http lets a
// handler write (any number of 1xx, any header or trailer).
func rawUpstream(t *testing.T, answer func(c net.Conn)) *fakeUpstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				answer(c)
			}()
		}
	}()
	return &fakeUpstream{Server: &httptest.Server{URL: "http://" + ln.Addr().String()}}
}

// interimClient posts a minimal Anthropic request to tg and returns the
// response, its body, and the interim responses it got before it.
func interimClient(t *testing.T, tg *testGateway) (*http.Response, []byte, []int, []textproto.MIMEHeader) {
	t.Helper()
	var (
		mu      sync.Mutex
		codes   []int
		headers []textproto.MIMEHeader
	)
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		mu.Lock()
		defer mu.Unlock()
		codes = append(codes, code)
		headers = append(headers, h)
		return nil
	}}
	req, err := http.NewRequest(http.MethodPost, tg.URL+"/v1/messages", strings.NewReader(minimalBody(FamilyAnthropic)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	return resp, b, codes, headers
}

// TestGateway_interimResponsesFiltered: of the upstream's 1xx, a 100
// Continue never reaches the client (its server answered the client's
// Expect itself), and a 103 Early Hints passes with its Link header only
// (RFC 8297): no other upstream header reaches the client before the
// final response's rules apply.
func TestGateway_interimResponsesFiltered(t *testing.T) {
	up := rawUpstream(t, func(c net.Conn) {
		_, _ = io.WriteString(c, "HTTP/1.1 100 Continue\r\nX-Leak: a\r\n\r\n"+
			"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\nSet-Cookie: upstream=1\r\nX-Leak: b\r\n\r\n"+
			"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(anthropicOK))+"\r\n\r\n"+anthropicOK)
	})
	tg := newTestGateway(t, Config{}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp, b, codes, headers := interimClient(t, tg)
	assert.Equal(t, 200, resp.StatusCode, "%s", b)
	assert.Equal(t, []int{http.StatusEarlyHints}, codes, "no 100 Continue passes")
	require.Len(t, headers, 1)
	assert.Equal(t, textproto.MIMEHeader{"Link": {"</style.css>; rel=preload"}}, headers[0], "the 103 with its Link only")
}

// TestGateway_interimFloodIsRefused: an upstream that answers with 1xx
// after 1xx (the transport reads any number of them once a trace hook is
// installed, as ReverseProxy's is) gets its exchange cancelled past the
// fifth: the client has at most five interim responses and then the
// gateway's own 502 at once, not a 1xx stream until the Timeout.
func TestGateway_interimFloodIsRefused(t *testing.T) {
	up := rawUpstream(t, func(c net.Conn) {
		_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		for {
			if _, err := io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"); err != nil {
				return
			}
		}
	})
	tg := newTestGateway(t, Config{Timeout: 5 * time.Second}, map[string]*fakeUpstream{FamilyAnthropic: up})
	start := time.Now()
	resp, b, codes, _ := interimClient(t, tg)
	assert.Less(t, time.Since(start), 3*time.Second, "answered before the Timeout")
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode, "%s", b)
	assert.LessOrEqual(t, len(codes), 5, "interim responses passed")
	assert.Contains(t, resp.Header.Get(core.EnvelopeHeader), `"source":"orchestrator"`, "the gateway's own 502")
	assert.Contains(t, string(b), "The gateway")
}
