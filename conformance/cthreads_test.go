package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// TestCHeader_threads runs c/threads.c against libtoolerr.so: 8 threads
// calling toolerr_invoke and toolerr_invoke_into at once (into no buffer,
// one a byte too small, one just large enough, a larger one) on every
// request of the conformance fixtures and on bad input (a NULL request, 64
// GiB claimed, not JSON, broken UTF-8), two more threads freeing the
// answers while the callers go on. Every answer must be the one
// core.Invoke gives, unchanged until it is freed. Under go test -race the
// library is built with -race too (libtoolerr.a, linked statically: the
// race detector then fails the run on a data race inside it), on every
// fourth request.
func TestCHeader_threads(t *testing.T) {
	dist := cHeaderDir(t)
	lib, err := filepath.Abs(filepath.Dir(artifact(t, "libtoolerr.so")))
	require.NoError(t, err)
	link := []string{"-L" + lib, "-ltoolerr", "-Wl,-rpath," + lib}
	every, rounds := 1, 2
	if raceEnabled {
		// The race detector's shadow memory covers the low addresses a
		// Go program lives at, not those ld.so loads a shared library at
		// (a -race libtoolerr.so in a C program fails at its start): the
		// archive, built with -race, links into a program without PIE.
		archive := filepath.Join(t.TempDir(), "libtoolerr.a")
		out, err := exec.Command("go", "build", "-race", "-buildmode=c-archive", "-o", archive, "../cshared").CombinedOutput()
		require.NoError(t, err, "go build -race -buildmode=c-archive: %s", out)
		link, every, rounds = []string{"-no-pie", archive, "-lpthread", "-ldl"}, 4, 1
	}

	var cases bytes.Buffer
	n := 0
	addWant := func(line string, want []byte) {
		cases.WriteString(line + "\n")
		cases.Write(want)
		cases.WriteByte('\n')
		n++
	}
	add := func(line string, req []byte) { addWant(line, core.Invoke(req)) }
	add("-", nil)
	addWant("=", []byte(claimed64GiB))
	for _, bad := range []string{"{", `{"op":"version"`, "\xff\xfe", `{"op":"classify","error":"` + "\xc3\x28" + `"}`, `{"op":"nope"}`, "null", strings.Repeat("[", 5000)} {
		add(bad, []byte(bad))
	}
	files, err := LoadFiles(fixtureDir)
	require.NoError(t, err)
	for i, f := range Fixtures(files) {
		if req := f.Test.Request; len(req) > 0 && i%every == 0 {
			var compact bytes.Buffer // one line
			require.NoError(t, json.Compact(&compact, req))
			add(compact.String(), compact.Bytes())
		}
	}
	casesFile := filepath.Join(t.TempDir(), "cases")
	require.NoError(t, os.WriteFile(casesFile, cases.Bytes(), 0o600))

	bin := compileC(t, dist, "c/threads.c", []string{"-pthread"}, link)
	const threads = 8
	cmd := exec.Command(bin, casesFile, strconv.Itoa(threads), strconv.Itoa(rounds))
	cmd.Env = append(os.Environ(), "GORACE=halt_on_error=1 exitcode=66")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "threads: %s\n%s", out, stderr.String())
	assert.Equal(t, "calls "+strconv.Itoa(n*threads*rounds)+" mismatches 0\n", string(out), "%s", stderr.String())
	assert.NotContains(t, stderr.String(), "DATA RACE")
	t.Logf("%d requests, %d threads, %d rounds: %s", n, threads, rounds, out)
}
