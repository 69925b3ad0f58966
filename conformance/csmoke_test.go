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
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	dist, err := filepath.Abs(filepath.Dir(artifact(t, "toolerr.h")))
	require.NoError(t, err)
	artifact(t, "libtoolerr.a")
	artifact(t, "libtoolerr.so")
	want := strings.Join([]string{
		string(core.Invoke([]byte(`{"op":"version"}`))),
		string(core.Invoke(nil)),
		string(core.Invoke([]byte(`{"op":`))),
		`{"error":{"code":"INVALID_INPUT","details":{"bound":"request_bytes","count":68719476736,"limit":33554432,"path":""},"message":"toolerr: request is 68719476736 bytes; the limit is 33554432.","retryable":false,"source":"orchestrator"}}`,
	}, "\n") + "\n"
	links := map[string][]string{
		"static": {filepath.Join(dist, "libtoolerr.a"), "-lpthread", "-ldl"},
		"shared": {"-L" + dist, "-ltoolerr", "-Wl,-rpath," + dist},
	}
	for name, link := range links {
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "smoke")
			args := append([]string{"-std=c99", "-Wall", "-Wextra", "-Werror", "-I", dist, "c/smoke.c", "-o", bin}, link...)
			out, err := exec.Command("gcc", args...).CombinedOutput()
			require.NoError(t, err, "gcc %s: %s", strings.Join(args, " "), out)
			out, err = exec.Command(bin).Output()
			require.NoError(t, err, "smoke (%s) failed: %s", name, out)
			assert.Equal(t, want, string(out))
		})
	}
}
