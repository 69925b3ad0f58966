package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeShellExample is one `$ echo '...' | dist/toolerr ...` command of the
// README and the output the README prints under it.
type readmeShellExample struct {
	line   int        // the README line of the `$ echo`
	stdin  string     // what echo writes (its quoted argument and a newline)
	stages [][]string // the arguments of each `dist/toolerr` in the pipe
	want   string     // the lines the README shows after the command
}

// readmeShellExamples reads every `$ echo '...' | dist/toolerr ...` command
// of the README's sh blocks (a `\` continues a line; the commands that start
// a gateway are not pipes from echo and are left out) with the output lines
// printed after it, up to the next blank line, `$` or the block's end.
func readmeShellExamples(t *testing.T, readme string) []readmeShellExample {
	t.Helper()
	echo := regexp.MustCompile(`^echo '([^']*)'$`)
	lines := strings.Split(readme, "\n")
	var out []readmeShellExample
	inSh := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(l, "```"):
			inSh = false
			continue
		}
		if !inSh || !strings.HasPrefix(l, "$ echo '") {
			continue
		}
		start := i
		cmd := strings.TrimPrefix(l, "$ ")
		for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(lines[i])
		}
		parts := strings.Split(cmd, " | ")
		m := echo.FindStringSubmatch(strings.TrimSpace(parts[0]))
		require.NotNil(t, m, "README line %d: the echo's argument is one single-quoted word", start+1)
		ex := readmeShellExample{line: start + 1, stdin: m[1] + "\n"}
		for _, p := range parts[1:] {
			f := strings.Fields(p)
			require.Equal(t, "dist/toolerr", f[0], "README line %d: every stage of the pipe is dist/toolerr", start+1)
			ex.stages = append(ex.stages, f[1:])
		}
		var want []string
		for i+1 < len(lines) && lines[i+1] != "" && !strings.HasPrefix(lines[i+1], "$") && !strings.HasPrefix(lines[i+1], "```") {
			i++
			want = append(want, lines[i])
		}
		ex.want = strings.Join(want, "\n") + "\n"
		out = append(out, ex)
	}
	return out
}

// TestREADME_shellExamples runs the README's `echo ... | dist/toolerr ...`
// commands (Quick start's classify and wrap, the Command-line tool's repair
// piped into convert) through the command and compares what they print with
// the output the README shows, byte for byte.
func TestREADME_shellExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skipf("no README beside the command: %v", err)
	}
	examples := readmeShellExamples(t, string(readme))
	require.GreaterOrEqual(t, len(examples), 3, "the README shows classify, wrap and repair | convert")
	for _, ex := range examples {
		in := ex.stdin
		for _, args := range ex.stages {
			code, stdout, stderr := runCLI(t, in, args...)
			require.Equal(t, 0, code, "README line %d: toolerr %s: %s", ex.line, strings.Join(args, " "), stderr)
			in = stdout
		}
		assert.Equal(t, ex.want, in, "README line %d prints something else", ex.line)
	}
}
