package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeGateway puts a toolerr-gateway script on PATH (no binary beside the
// test executable has that name) that runs script.
func fakeGateway(t *testing.T, script string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "toolerr-gateway"), []byte("#!/bin/sh\n"+script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestRunGateway_passesFlagsAndExitStatus(t *testing.T) {
	fakeGateway(t, `echo "args: $*"; exit 3`)
	var out, errb bytes.Buffer
	code := run([]string{"gateway", "-addr", "127.0.0.1:0", "-upstream-message", "drop"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 3, code)
	assert.Equal(t, "args: -addr 127.0.0.1:0 -upstream-message drop\n", out.String())
}

func TestRunGateway_forwardsSIGTERM(t *testing.T) {
	fakeGateway(t, `trap 'echo stopped gracefully; exit 0' TERM; echo up; while :; do sleep 0.05; done`)
	out := &syncBuffer{}
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"gateway"}, strings.NewReader(""), out, &errb) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "up") }, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
		assert.Contains(t, out.String(), "stopped gracefully")
	case <-time.After(10 * time.Second):
		t.Fatal("the signal did not reach the gateway")
	}
}

// syncBuffer is a bytes.Buffer safe for the child's writes and the test's
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunGateway_notFound(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	assert.Equal(t, 2, run([]string{"gateway"}, strings.NewReader(""), &out, &errb))
	assert.Contains(t, errb.String(), "toolerr-gateway not found beside toolerr or on PATH")
	assert.Contains(t, errb.String(), "(cd gateway && go install ./cmd/toolerr-gateway)") // as the README's Quick start says
}
