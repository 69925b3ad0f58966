package core

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forbiddenDeps may not appear anywhere in core's import graph: they give the
// core randomness, a file system, a network or cgo, or they add megabytes to
// the WASI build (encoding/json, regexp, reflect, fmt).
var forbiddenDeps = []string{
	"os", "os/exec", "net", "net/http", "math/rand", "math/rand/v2", "crypto/rand",
	"encoding/json", "regexp", "runtime/cgo", "reflect", "fmt", "log",
}

// forbiddenImports may not be imported directly by a core package. The
// standard library uses unsafe and syscall underneath (time reads zone files
// through syscall); core itself may not.
var forbiddenImports = []string{"unsafe", "syscall", "runtime", "sync/atomic", "time/tzdata"}

// clockFuncs are the functions of package time that read or wait on the
// clock. time's parsers and types are allowed; these are not (now_ms comes in
// the request).
var clockFuncs = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"}

// coreDeps lists every package core depends on (not its tests) for GOOS/GOARCH,
// as "path std imports,...".
func coreDeps(t *testing.T, goos, goarch string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{join .Imports \",\"}}", ".")
	cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go list: %s", out)
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func TestPurity_deps(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	const own = "github.com/toolerr/toolerr/core"
	for _, platform := range [][2]string{{"linux", "amd64"}, {"wasip1", "wasm"}} {
		t.Run(platform[0]+"_"+platform[1], func(t *testing.T) {
			lines := coreDeps(t, platform[0], platform[1])
			require.NotEmpty(t, lines)
			graph, std := map[string][]string{}, map[string]bool{}
			var order []string
			for _, line := range lines {
				f := strings.Fields(line)
				require.GreaterOrEqual(t, len(f), 2, line)
				order = append(order, f[0])
				std[f[0]] = f[1] == "true"
				if len(f) > 2 {
					graph[f[0]] = strings.Split(f[2], ",")
				}
			}
			for _, path := range order {
				ours := path == own || strings.HasPrefix(path, own+"/")
				if !std[path] && !ours {
					t.Errorf("core depends on %s, neither the standard library nor toolerr's core: %s", path, chain(graph, own, path))
				}
				if slices.Contains(forbiddenDeps, path) {
					t.Errorf("core depends on %s (forbidden, see core/doc.go \"Why the core is pure\"): %s", path, chain(graph, own, path))
				}
				for _, imp := range graph[path] {
					if ours && slices.Contains(forbiddenImports, imp) {
						t.Errorf("%s imports %s", path, imp)
					}
				}
			}
		})
	}
}

// chain returns the shortest import chain from one package to another,
// "a -> b -> c", found breadth first in graph.
func chain(graph map[string][]string, from, to string) string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var path []string
			for ; p != ""; p = prev[p] {
				path = append([]string{p}, path...)
			}
			return strings.Join(path, " -> ")
		}
		for _, next := range graph[p] {
			if _, seen := prev[next]; !seen {
				prev[next] = p
				queue = append(queue, next)
			}
		}
	}
	return "(no chain found)"
}

func TestPurity_noClock(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}{{range .GoFiles}} {{.}}{{end}}", "./...")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go list: %s", out)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, name := range f[1:] {
			path := filepath.Join(f[0], name)
			for _, call := range clockCalls(t, path) {
				t.Errorf("%s reads the clock with time.%s: take now_ms from the request instead", call.pos, call.name)
			}
		}
	}
}

type clockCall struct{ pos, name string }

// clockCalls lists every use of a clockFuncs function of package time in a file.
func clockCalls(t *testing.T, path string) []clockCall {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	local := ""
	for _, imp := range file.Imports {
		if imp.Path.Value == `"time"` {
			local = "time"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	var calls []clockCall
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == local && slices.Contains(clockFuncs, sel.Sel.Name) {
				calls = append(calls, clockCall{fset.Position(sel.Pos()).String(), sel.Sel.Name})
			}
		}
		return true
	})
	return calls
}

func TestClockCalls_found(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\nimport clock \"time\"\n\nfunc f() int64 { _, _ = clock.ParseDuration(\"1s\"); return clock.Now().Unix() }\n"
	require.NoError(t, os.WriteFile(path, []byte(src), 0o600))
	calls := clockCalls(t, path)
	require.Len(t, calls, 1)
	assert.Equal(t, "Now", calls[0].name)
}

func TestChain_shortest(t *testing.T) {
	g := map[string][]string{"a": {"b", "c"}, "b": {"d"}, "c": {"e"}, "e": {"d"}}
	assert.Equal(t, "a -> b -> d", chain(g, "a", "d"))
	assert.Equal(t, "(no chain found)", chain(g, "d", "a"))
}

func TestPurity_forbiddenListsAreStd(t *testing.T) {
	// A typo in the lists above would make the test pass vacuously.
	for _, p := range append(append([]string{}, forbiddenDeps...), forbiddenImports...) {
		out, err := exec.Command("go", "list", "-f", "{{.Standard}}", p).CombinedOutput()
		require.NoError(t, err, "%s: %s", p, out)
		assert.Equal(t, "true", strings.TrimSpace(string(out)), p)
	}
}
