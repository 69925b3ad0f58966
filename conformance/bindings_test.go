package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// binding is a binding's fixture runner (its batch program speaking the
// External protocol), joined to TestConformance as one more target when it is
// set up, the way uniffi's test_generated_bindings.rs runs every foreign
// test. Each points at the artifact just built in the dist dir where the
// binding allows it (TOOLERR_LIB, TOOLERR_WASM).
type binding struct {
	name  string
	need  string   // a file, relative to the repository root, that must exist
	argv  []string // relative paths resolved from the repository root
	built string   // the file of the dist dir that env points the runner at ("" for none): it must exist too
	env   func(dist string) []string
	setup string // what makes need exist
}

var bindings = []binding{
	{"python", "bindings/python/.venv/bin/python", []string{"bindings/python/.venv/bin/python", "bindings/python/tests/batch.py"},
		"libtoolerr.so", func(dist string) []string { return []string{"TOOLERR_LIB=" + filepath.Join(dist, "libtoolerr.so")} }, "make test-python"},
	{"node", "bindings/node/tools/batch.mjs", []string{"node", "--no-warnings", "bindings/node/tools/batch.mjs"},
		"toolerr.wasm", func(dist string) []string { return []string{"TOOLERR_WASM=" + filepath.Join(dist, "toolerr.wasm")} }, "make test-node"},
	// The same runner over the optional native addon (bindings/node-native):
	// every fixture byte-identical through toolerr_native.node too.
	{"node-native", "bindings/node/tools/batch.mjs", []string{"node", "--no-warnings", "bindings/node/tools/batch.mjs"},
		"toolerr_native.node", func(dist string) []string {
			return []string{"TOOLERR_NATIVE=1", "TOOLERR_NATIVE_ADDON=" + filepath.Join(dist, "toolerr_native.node")}
		}, "make native"},
	{"rust", "bindings/rust/target/release/examples/batch", []string{"bindings/rust/target/release/examples/batch"},
		"", func(string) []string { return nil }, "cargo build --release --example batch in bindings/rust (links the libtoolerr.a of its build)"},
}

func init() {
	for _, b := range bindings {
		extraTargets = append(extraTargets, func(t testing.TB) (*External, error) {
			root, err := filepath.Abs("..")
			if err != nil {
				return nil, err
			}
			dist, err := filepath.Abs(distDir())
			if err != nil {
				return nil, err
			}
			need := []string{filepath.Join(root, b.need)}
			if b.built != "" {
				need = append(need, filepath.Join(dist, b.built))
			}
			for _, f := range need {
				if _, err := os.Stat(f); err != nil {
					if os.Getenv("TOOLERR_REQUIRE_BINDINGS") != "" {
						// CI sets it: make test sets every binding up before the suite.
						return nil, fmt.Errorf("binding %s is required but %s was not found (%s)", b.name, f, b.setup)
					}
					leftOut(t, b.name, fmt.Sprintf("binding %s left out: %s not found (%s)", b.name, f, b.setup))
					return nil, nil
				}
			}
			if !strings.Contains(b.argv[0], "/") {
				if _, err := exec.LookPath(b.argv[0]); err != nil {
					leftOut(t, b.name, fmt.Sprintf("binding %s left out: %s not on PATH", b.name, b.argv[0]))
					return nil, nil
				}
			}
			return &External{TargetName: b.name, Argv: b.argv, Dir: root, Env: append(os.Environ(), b.env(dist)...)}, nil
		})
	}
}

// leftOut reports a binding that is not set up here as a skipped subtest of
// t, named after it, so that make test's summary (scripts/testreport) lists
// it with its reason instead of a log line nobody reads.
func leftOut(t testing.TB, name, reason string) {
	if tt, ok := t.(*testing.T); ok {
		tt.Run(name, func(t *testing.T) { t.Skip(reason) })
		return
	}
	t.Log(reason)
}

// TestBindings_needWhatTheyAreGiven: every dist file a runner is pointed at
// (TOOLERR_LIB, TOOLERR_WASM, TOOLERR_NATIVE_ADDON) is its built file, so a
// dist dir without it leaves the binding out (or fails under
// TOOLERR_REQUIRE_BINDINGS with the set-up to run) instead of starting a
// runner that dies on the missing file with its own stack trace.
func TestBindings_needWhatTheyAreGiven(t *testing.T) {
	const dist = "/dist-dir"
	for _, b := range bindings {
		for _, kv := range b.env(dist) {
			_, v, _ := strings.Cut(kv, "=")
			if !strings.HasPrefix(v, dist+"/") {
				continue
			}
			if got := strings.TrimPrefix(v, dist+"/"); got != b.built {
				t.Errorf("binding %s is given %s but needs only %q in the dist dir", b.name, kv, b.built)
			}
		}
	}
}
