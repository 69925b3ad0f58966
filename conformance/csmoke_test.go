package conformance

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// TestCHeader_smoke compiles c/smoke.c against dist/toolerr.h with -Wall
// -Werror, links it once to libtoolerr.a and once to libtoolerr.so, and
// checks that both print what core.Invoke returns.
func TestCHeader_smoke(t *testing.T) {
	dist := cHeaderDir(t)
	artifact(t, "libtoolerr.a")
	artifact(t, "libtoolerr.so")
	want := strings.Join([]string{
		string(core.Invoke([]byte(`{"op":"version"}`))),
		string(core.Invoke(nil)),
		string(core.Invoke([]byte(`{"op":`))),
		claimed64GiB,
	}, "\n") + "\n"
	links := map[string][]string{
		"static": {filepath.Join(dist, "libtoolerr.a"), "-lpthread", "-ldl"},
		"shared": {"-L" + dist, "-ltoolerr", "-Wl,-rpath," + dist},
	}
	for name, link := range links {
		t.Run(name, func(t *testing.T) {
			bin := compileC(t, dist, "c/smoke.c", nil, link)
			out, err := exec.Command(bin).Output()
			require.NoError(t, err, "smoke (%s) failed: %s", name, out)
			assert.Equal(t, want, string(out))
		})
	}
}

// claimed64GiB is libtoolerr's answer to a call claiming a 64 GiB request
// (the length checked before a byte is read), which c/smoke.c and
// c/threads.c make.
const claimed64GiB = `{"error":{"code":"INVALID_INPUT","details":{"bound":"request_bytes","count":68719476736,"limit":33554432,"path":""},"message":"toolerr: request is 68719476736 bytes; the limit is 33554432.","retryable":false,"source":"orchestrator"}}`

// cHeaderDir is the absolute directory of dist/toolerr.h; the test skips
// without gcc (or the header, as artifact says).
func cHeaderDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	dist, err := filepath.Abs(filepath.Dir(artifact(t, "toolerr.h")))
	require.NoError(t, err)
	return dist
}

// compileC builds the C program src against the header in dist with gcc
// (C99, -Wall -Wextra -Werror, then flags, then link) into a temporary
// directory and returns the program's path.
func compileC(t *testing.T, dist, src string, flags, link []string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".c"))
	args := append(append(append([]string{"-std=c99", "-Wall", "-Wextra", "-Werror"}, flags...), "-I", dist, src, "-o", bin), link...)
	out, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, "gcc %s: %s", strings.Join(args, " "), out)
	return bin
}
