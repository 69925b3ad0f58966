package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// Empty input gets a message that says so, not Go's bare "EOF".
func TestRun_emptyInput(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--format", "anthropic"},
		{"replay", "--format", "anthropic"},
		{"wrap", "--provider", "anthropic"},
		{"classify"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Contains(t, stderr, "input is empty", "%v", args)
		assert.NotContains(t, stderr, "EOF", "%v", args)
	}
}

// A size flag below zero is a usage error naming the flag, not silently
// dropped (trim then complained that no budget was given).
func TestRun_negativeBudgetFlag(t *testing.T) {
	for _, flag := range []string{"--max-chars", "--max-messages"} {
		code, stdout, stderr := runCLI(t, `[{"role":"user","content":"hi"}]`, "trim", "--format", "openai-chat", flag, "-5")
		assert.Equal(t, 2, code, flag)
		assert.Empty(t, stdout, flag)
		assert.Contains(t, stderr, strings.TrimLeft(flag, "-"), flag)
	}
}

// Input over the request limit is refused with a clear message, from a file
// as from standard input, without reading a huge file whole.
func TestRun_inputOverTheLimit(t *testing.T) {
	big := strings.Repeat(" ", core.MaxRequestBytes) + `{"op":"version"}`
	path := filepath.Join(t.TempDir(), "big.json")
	assert.NoError(t, os.WriteFile(path, []byte(big), 0o600))
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"file", "", []string{"check", "--format", "anthropic", path}},
		{"stdin", big, []string{"check", "--format", "anthropic"}},
		{"invoke file", "", []string{"invoke", path}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.stdin, tc.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, "limit")
			assert.NotContains(t, stderr, "not valid JSON")
		})
	}
}

// fullWriter fails every write, as standard output on a full disk
// (/dev/full: ENOSPC) or a closed descriptor (EBADF) does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// Output that cannot be written is exit 2 with a line on standard error,
// never 0 with the answer lost (`toolerr repair ... > out.json` on a full
// disk exited 0 and left out.json empty), whatever the command answered.
func TestRun_unwritableOutput(t *testing.T) {
	list := `[{"role":"user","content":"hi"}]`
	for _, tc := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"version"}},
		{"", []string{"--help"}},
		{"", []string{"check", "--help"}},
		{list, []string{"repair", "--format", "anthropic"}},
		{`[{"role":"tool","tool_call_id":"x","content":"orphan"}]`, []string{"check", "--format", "openai-chat"}}, // a finding: 3 when written
		{"not json {", []string{"invoke"}}, // the core's error answer: 1 when written
		{"HTTP 503 upstream unavailable", []string{"classify"}},
		{"", []string{"demo"}},
	} {
		var stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(tc.stdin), fullWriter{}, &stderr)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, stderr.String(), "toolerr: cannot write standard output: no space left on device", "%v", tc.args)
		assert.Equal(t, 1, strings.Count(stderr.String(), "cannot write"), "%v: said once", tc.args)
	}
}

// A recording demo cannot read as one is exit 2 naming it, at once and in
// bounded memory: a FIFO was waited on forever, a link to /dev/zero read
// until the runtime died out of memory (a Go stack trace on standard error),
// and a 40 MiB file read whole and skipped as if it were not a recording.
func TestRun_demoHostileRecordings(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(dir string) error
	}{
		{"fifo", "fifo.json: not a regular file (named pipe)", func(dir string) error {
			return syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o600)
		}},
		{"zero", "zero.json: not a regular file (device)", func(dir string) error {
			return os.Symlink("/dev/zero", filepath.Join(dir, "zero.json"))
		}},
		{"dir", "dir.json: not a regular file (directory)", func(dir string) error {
			return os.Symlink(".", filepath.Join(dir, "dir.json"))
		}},
		{"loop", "loop.json: too many levels of symbolic links", func(dir string) error {
			return os.Symlink("loop.json", filepath.Join(dir, "loop.json"))
		}},
		{"big", "big.json: 41943040 bytes, over the 33554432-byte request limit", func(dir string) error {
			return os.Truncate(filepath.Join(dir, "big.json"), 40<<20)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared := t.TempDir()
			real := filepath.Join(shared, "fixtures", "real")
			require.NoError(t, os.MkdirAll(real, 0o700))
			if tc.name == "big" {
				require.NoError(t, os.WriteFile(filepath.Join(real, "big.json"), nil, 0o600))
			}
			require.NoError(t, tc.make(real))
			done := make(chan [3]any, 1)
			go func() {
				code, stdout, stderr := runCLI(t, "", "demo", "--shared", shared)
				done <- [3]any{code, stdout, stderr}
			}()
			select {
			case got := <-done:
				assert.Equal(t, 2, got[0])
				assert.Equal(t, "toolerr: "+tc.want+"\n", got[2])
				assert.Contains(t, got[1], "== 2. Every recorded provider response in "+real)
			case <-time.After(30 * time.Second):
				t.Fatal("demo did not answer in 30 s")
			}
		})
	}
}

// A recording behind a UTF-8 byte-order mark (as PowerShell 5's Out-File
// writes one) is JSON meant, refused as the core refuses a BOM (exit 2),
// never classified as error text: its headers (retry-after here) were lost
// and the text's "429" alone decided the code.
func TestRun_classifyByteOrderMark(t *testing.T) {
	rec := `{"status":429,"headers":{"retry-after":"7"},"body":"slow down"}`
	code, stdout, _ := runCLI(t, rec, "classify")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, `"retry_after_seconds":7`)
	for _, in := range []string{"\uFEFF" + rec, "\uFEFF  [1]", " \uFEFF" + rec} {
		code, stdout, stderr := runCLI(t, in, "classify")
		assert.Equal(t, 2, code, "%q", in)
		assert.Empty(t, stdout, "%q", in)
		assert.Contains(t, stderr, "a UTF-8 byte-order mark, U+FEFF", "%q", in)
	}
	code, stdout, _ = runCLI(t, "\uFEFFupstream connect error: connection refused", "classify")
	assert.Equal(t, 0, code, "error text behind a BOM is still error text")
	assert.Contains(t, stdout, `"code":"TRANSPORT"`)
}

// classify's number flags given as zero or below are a usage error naming
// the flag, as trim's budgets are, not silently dropped (the answer carried
// no attempt and took "now" from the Date header as if no flag were given).
func TestRun_classifyNumberFlags(t *testing.T) {
	rec := `{"status":429,"headers":{},"body":"slow down"}`
	for _, args := range [][]string{
		{"--attempt", "-1"}, {"--attempt", "0"}, {"--now-ms", "-5"}, {"--now-ms", "0"},
	} {
		code, stdout, stderr := runCLI(t, rec, append([]string{"classify"}, args...)...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, stdout, "%v", args)
		assert.Equal(t, "toolerr: "+args[0]+" must be a positive whole number, got "+args[1]+"\n", stderr, "%v", args)
	}
	code, stdout, _ := runCLI(t, rec, "classify", "--attempt", "3", "--now-ms", "1700000000000")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"attempt":3`)
}
