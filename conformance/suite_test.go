package conformance

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gowebpki/jcs"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

var (
	dashboard   = flag.Bool("dashboard", false, "run every target, print the target x file matrix, exit 0")
	distFlag    = flag.String("dist", "", "dir holding toolerr.wasm and libtoolerr.so (default $TOOLERR_DIST, else ../dist)")
	targetFlags externalFlags
)

func init() {
	flag.Var(&targetFlags, "target", `an external target "name=command [args]" (repeatable; see External)`)
}

type externalFlags []string

func (e *externalFlags) String() string     { return strings.Join(*e, ", ") }
func (e *externalFlags) Set(s string) error { *e = append(*e, s); return nil }

// extraTargets lets other test files (bindings_test.go) add external targets;
// a function returns nil when its target is not set up.
var extraTargets []func(t testing.TB) (*External, error)

// requireTargets is set by scripts/test-conformance.sh: a missing artifact
// fails instead of skipping.
var requireTargets = os.Getenv("TOOLERR_REQUIRE_TARGETS") == "1"

func distDir() string {
	if *distFlag != "" {
		return *distFlag
	}
	if d := os.Getenv("TOOLERR_DIST"); d != "" {
		return d
	}
	return filepath.Join("..", "dist")
}

// artifact returns the path of a dist file, or skips (fails under
// TOOLERR_REQUIRE_TARGETS=1) when it is missing.
func artifact(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(distDir(), name)
	if _, err := os.Stat(p); err != nil {
		if requireTargets {
			t.Fatalf("%s not found: run make build first", p)
		}
		t.Skipf("%s not found (run make build, or make conformance): skipping the targets that need it", p)
	}
	return p
}

// haveArtifact reports whether a dist file exists (always true under
// TOOLERR_REQUIRE_TARGETS=1, so that artifact fails on a missing one).
func haveArtifact(name string) bool {
	_, err := os.Stat(filepath.Join(distDir(), name))
	return err == nil || requireTargets
}

// availableTargets opens every built-in target whose artifact exists, and
// logs the ones it leaves out.
func availableTargets(t *testing.T) []Target {
	var out []Target
	for _, mk := range builtinTargets() {
		if need := mk.artifact; need != "" && !haveArtifact(need) {
			t.Logf("%s not found in %s: %s left out (run make build)", need, distDir(), mk.name)
			continue
		}
		out = append(out, mk.open(t))
	}
	return out
}

// engines compiles dist/toolerr.wasm once per test binary for each runtime
// and opens dist/libtoolerr.so once.
var engines struct {
	sync.Mutex
	wazero   *WazeroEngine
	wasmtime *WasmtimeEngine
	cshared  *CShared
}

func wazeroEngine(t testing.TB) *WazeroEngine {
	return compileOnce(t, &engines.wazero, NewWazeroEngine)
}

func wasmtimeEngine(t testing.TB) *WasmtimeEngine {
	return compileOnce(t, &engines.wasmtime, NewWasmtimeEngine)
}

// compileOnce fills *slot from dist/toolerr.wasm on first use.
func compileOnce[E any](t testing.TB, slot **E, compile func([]byte) (*E, error)) *E {
	path := artifact(t, "toolerr.wasm")
	engines.Lock()
	defer engines.Unlock()
	if *slot == nil {
		wasm, err := os.ReadFile(path)
		require.NoError(t, err)
		*slot, err = compile(wasm)
		require.NoError(t, err)
	}
	return *slot
}

func cshared(t testing.TB) *CShared {
	path := artifact(t, "libtoolerr.so")
	engines.Lock()
	defer engines.Unlock()
	if engines.cshared == nil {
		abs, err := filepath.Abs(path)
		require.NoError(t, err)
		engines.cshared, err = OpenCShared(abs)
		require.NoError(t, err)
	}
	return engines.cshared
}

// A targetMaker opens a fresh target (or skips when its artifact is missing).
type targetMaker struct {
	name     string
	artifact string // the dist file it needs, "" for none
	open     func(t testing.TB) Target
}

// builtinTargets is every in-process target, in report order.
func builtinTargets() []targetMaker {
	return []targetMaker{
		{"native", "", func(testing.TB) Target { return Native{} }},
		{"wazero", "toolerr.wasm", func(t testing.TB) Target {
			w, err := wazeroEngine(t).Instantiate()
			require.NoError(t, err)
			return w
		}},
		{"wasmtime", "toolerr.wasm", func(t testing.TB) Target {
			w, err := wasmtimeEngine(t).Instantiate()
			require.NoError(t, err)
			return w
		}},
		{"cshared", "libtoolerr.so", func(t testing.TB) Target { return cshared(t) }},
	}
}

// externalTargets is every -target flag and extraTargets entry.
func externalTargets(t testing.TB) []*External {
	var out []*External
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	for _, spec := range targetFlags {
		e, err := ParseExternal(spec, root)
		require.NoError(t, err)
		out = append(out, e)
	}
	for _, mk := range extraTargets {
		e, err := mk(t)
		require.NoError(t, err)
		if e != nil { // nil: not set up here
			out = append(out, e)
		}
	}
	return out
}

// fixtureDir is where the fixture files live, relative to this package.
const fixtureDir = "fixtures"

func loadFixtures(t testing.TB) ([]File, []Fixture) {
	t.Helper()
	files, err := LoadFiles(fixtureDir)
	require.NoError(t, err)
	return files, Fixtures(files)
}

// expected returns the canonical form (RFC 8785) of a fixture's response, as
// gowebpki/jcs, an implementation independent of toolerr, writes it
// (fixtures_test.go checks that core's canonicalize op agrees).
func expected(t testing.TB, response []byte) []byte {
	t.Helper()
	out, err := jcs.Transform(response)
	require.NoError(t, err, "response is not JSON that RFC 8785 accepts")
	return out
}

// coreCanonical returns the canonical form of v as core's canonicalize op
// writes it, and false when v is too deep to wrap in a request (it then sits
// at depth MaxDepth+1).
func coreCanonical(t testing.TB, v []byte) ([]byte, bool) {
	t.Helper()
	out := core.Invoke(append(append([]byte(`{"op":"canonicalize","value":`), v...), '}'))
	if bytes.HasPrefix(out, []byte(`{"error":`)) && bytes.Contains(out, []byte(`"bound":"depth"`)) {
		return nil, false
	}
	require.True(t, bytes.HasPrefix(out, []byte(`{"ok":`)), "canonicalize failed: %s", out)
	return out[len(`{"ok":`) : len(out)-1], true
}

// results records pass/fail per target and file for -dashboard.
var results = struct {
	sync.Mutex
	cell    map[[2]string][2]int // {target, file} -> {passed, total}
	targets []string
}{cell: map[[2]string][2]int{}}

func record(target, file string, pass bool) {
	results.Lock()
	defer results.Unlock()
	k := [2]string{target, file}
	c, seen := results.cell[k]
	if !seen && !containsString(results.targets, target) {
		results.targets = append(results.targets, target)
	}
	c[1]++
	if pass {
		c[0]++
	}
	results.cell[k] = c
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// printDashboard prints the target x file matrix of passed/total fixtures.
func printDashboard() {
	results.Lock()
	defer results.Unlock()
	files := map[string]bool{}
	for k := range results.cell {
		files[k[1]] = true
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	w := 12
	for _, f := range names {
		w = max(w, len(f))
	}
	fmt.Printf("\n%-*s", w, "file")
	for _, tg := range results.targets {
		fmt.Printf("  %9s", tg)
	}
	fmt.Println()
	for _, f := range names {
		fmt.Printf("%-*s", w, f)
		for _, tg := range results.targets {
			c, ok := results.cell[[2]string{tg, f}]
			cell := "-"
			if ok {
				cell = fmt.Sprintf("%d/%d", c[0], c[1])
				if c[0] != c[1] {
					cell = "✗ " + cell
				}
			}
			fmt.Printf("  %9s", cell)
		}
		fmt.Println()
	}
}

// selftestEnv makes the test binary act as an external target (see
// TestExternal_protocol): it serves core.Invoke over stdin and stdout.
const selftestEnv = "TOOLERR_CONFORMANCE_SELFTEST"

func TestMain(m *testing.M) {
	if os.Getenv(selftestEnv) == "1" {
		if err := ServeExternal(os.Stdin, os.Stdout, core.Invoke); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	flag.Parse()
	code := m.Run()
	if *dashboard {
		printDashboard()
		code = 0
	}
	os.Exit(code)
}
