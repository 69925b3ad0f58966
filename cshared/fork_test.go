package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// forkedAnswer is the response of every call in a process forked from the
// one that loaded the library (entry.c).
const forkedAnswer = `{"error":{"code":"UNSUPPORTED","details":{"cause":"forked"},"message":"toolerr: this process was forked from the one that loaded the library, and its Go runtime does not survive fork; load the library in the child (after exec), or before any fork in a process of its own.","retryable":false,"source":"orchestrator"}}`

// The forked answer is the envelope the core's envelope op makes of it.
func TestFork_answerIsTheCoresEnvelope(t *testing.T) {
	got := core.Invoke([]byte(`{"op":"envelope","code":"UNSUPPORTED","source":"orchestrator","details":{"cause":"forked"},"message":"toolerr: this process was forked from the one that loaded the library, and its Go runtime does not survive fork; load the library in the child (after exec), or before any fork in a process of its own."}`))
	assert.Equal(t, `{"ok":`+strings.TrimPrefix(forkedAnswer, `{"error":`), string(got))
}

// TestFork_childGetsAStructuredAnswer calls every function of toolerr.h in a
// child forked after the library was loaded, with no call and with one call
// before the fork: each answers at once (the forked answer, too long for a
// 64-byte buffer, comes back malloc'd), where the Go runtime, whose threads
// stay behind in the parent, hung the child (no call before: its first
// call; one call before: within 200), and the parent still answers.
func TestFork_childGetsAStructuredAnswer(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: cannot build the c-archive")
	}
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-buildmode=c-archive", "-o", filepath.Join(dir, "libtoolerr.a"), ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	prog := filepath.Join(dir, "fork")
	out, err = exec.Command("gcc", "-o", prog, "-I.", "testdata/fork.c", filepath.Join(dir, "libtoolerr.a"), "-lpthread").CombinedOutput()
	require.NoError(t, err, "%s", out)
	version := `{"ok":{"abi":1,"version":"0.1.0"}}`
	for _, before := range []string{"0", "1"} {
		t.Run("calls before the fork "+before, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, prog, before).Output()
			require.NoError(t, err, "%s", out)
			want := []string{
				"child abi: 1",
				"child invoke: " + forkedAnswer,
				"child into: malloc " + forkedAnswer,
				"child: exit 0",
				"parent invoke: " + version,
				"parent into: buf " + version,
			}
			if before == "1" {
				want = append([]string{"parent invoke: " + version, "parent into: buf " + version}, want...)
			}
			assert.Equal(t, want, strings.Split(strings.TrimSpace(string(out)), "\n"))
		})
	}
}
