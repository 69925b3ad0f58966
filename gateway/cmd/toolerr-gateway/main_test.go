package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/gateway/internal/lockbuf"
)

// start runs the command with args until the returned cancel (the signal)
// and returns the address it listens on and a channel with its exit code.
func start(t *testing.T, args ...string) (string, context.CancelFunc, <-chan int, *lockbuf.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	exit := make(chan int, 1)
	logs := &lockbuf.Buffer{}
	go func() { exit <- run(ctx, args, io.Discard, logs, ready) }()
	select {
	case addr := <-ready:
		t.Cleanup(cancel)
		return addr, cancel, exit, logs
	case code := <-exit:
		t.Fatalf("the gateway exited with %d: %s", code, logs.String())
	case <-time.After(10 * time.Second):
		t.Fatal("the gateway did not start")
	}
	return "", nil, nil, nil
}

// TestRun_gracefulShutdown: on the signal, a request in flight (a stream
// the upstream is still writing) finishes, and the command exits 0.
func TestRun_gracefulShutdown(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n")
		w.(http.Flusher).Flush()
		close(started)
		<-release
		_, _ = io.WriteString(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	defer up.Close()
	addr, stop, exit, logs := start(t, "-addr", "127.0.0.1:0", "-anthropic-base", up.URL)
	assert.True(t, strings.HasPrefix(addr, "127.0.0.1:"))

	type result struct {
		body string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.Post("http://"+addr+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":1,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- result{string(b), err}
	}()
	<-started
	stop() // SIGTERM while the stream is in flight
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "shutting down") }, 5*time.Second, 5*time.Millisecond)
	_, err := http.Get("http://" + addr + "/healthz")
	assert.Error(t, err, "no new connection is accepted once shutting down")
	close(release)
	r := <-done
	require.NoError(t, r.err)
	assert.Contains(t, r.body, "message_stop", "the request in flight finished")
	assert.Equal(t, 0, <-exit)
}

func TestRun_usage(t *testing.T) {
	for _, args := range [][]string{{"-upstream-message", "hide"}, {"-log-format", "xml"}, {"extra"}, {"-openai-base", "ftp://x"}, {"-log-level", "loud"}} {
		var stderr lockbuf.Buffer
		var stdout lockbuf.Buffer
		assert.Equal(t, 2, run(context.Background(), args, &stdout, &stderr, nil), "%v", args)
		assert.Contains(t, stderr.String(), "toolerr-gateway", "%v", args)
		assert.Empty(t, stdout.String(), "%v", args)
	}
	// -h asks for the usage: on standard output, exit 0, as every toolerr
	// command prints it (README, "Command-line tool"); a bad flag's usage
	// goes to standard error.
	var stdout, stderr lockbuf.Buffer
	assert.Equal(t, 0, run(context.Background(), []string{"-h"}, &stdout, &stderr, nil))
	assert.Contains(t, stdout.String(), "-addr string")
	assert.Empty(t, stderr.String())
	var badOut, badErr lockbuf.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"-no-such-flag"}, &badOut, &badErr, nil))
	assert.Contains(t, badErr.String(), "-addr string")
	assert.Empty(t, badOut.String())
}

// TestRun_netHTTPLogsNoUpstreamBytes: an upstream that writes past its
// response (bytes on an idle connection, which net/http's Transport
// reports to the standard log package, quoting them) never gets a body
// byte into the gateway's log: the message goes through slog, cut before
// the quote, and nothing reaches the process's own standard error.
func TestRun_netHTTPLogsNoUpstreamBytes(t *testing.T) {
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"+`{"leak":"`+secret+`"}`)
				time.Sleep(2 * time.Second)
			}()
		}
	}()
	var std bytes.Buffer
	log.SetOutput(&std) // where the standard log package would write it
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	addr, _, _, logs := start(t, "-addr", "127.0.0.1:0", "-openai-base", "http://"+ln.Addr().String())
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "net/http reported a fault") }, 5*time.Second, 5*time.Millisecond,
		"net/http's message reaches the gateway's log: %s", logs.String())
	assert.Contains(t, logs.String(), `"text":"Unsolicited response received on idle HTTP channel starting with"`)
	assert.NotContains(t, logs.String(), "sk-proj")
	assert.NotContains(t, logs.String(), "leak")
	assert.Empty(t, std.String(), "nothing goes to the standard log package's own output")
}
