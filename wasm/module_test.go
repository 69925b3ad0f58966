//go:build !wasip1

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestModule_linksNoContext builds the module as scripts/build-wasm.sh does
// (with the name section kept) and reads which functions it links: nothing
// reaches core.ClassifyError or core.EgressTransportError, the only callers
// of the context check that -tags toolerr_nocontext leaves out, so the tag
// changes no behaviour of the module; and no function of package time or
// context is linked but the runtime's time.now (their package
// initialisation is about 330 KB of it).
func TestModule_linksNoContext(t *testing.T) {
	script, err := os.ReadFile("../scripts/build-wasm.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "-tags toolerr_nocontext") {
		t.Fatal("scripts/build-wasm.sh no longer builds with -tags toolerr_nocontext; update this test")
	}
	out := filepath.Join(t.TempDir(), "named.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-buildmode=c-shared", "-tags", "toolerr_nocontext", "-o", out, ".")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	names := functionNames(t, b)
	if len(names) < 1000 {
		t.Fatalf("read %d function names; want the whole module's", len(names))
	}
	var found bool
	for _, n := range names {
		found = found || n == "github.com_toolerr_toolerr_core.AppendInvoke"
		for _, bad := range []string{"github.com_toolerr_toolerr_core.ClassifyError", "github.com_toolerr_toolerr_core.EgressTransportError"} {
			if n == bad {
				t.Errorf("the module links %s: with -tags toolerr_nocontext it would classify context errors differently", n)
			}
		}
		// time.now is the runtime's own (the floor module links it too).
		if (strings.HasPrefix(n, "time.") && n != "time.now") || strings.HasPrefix(n, "context.") {
			t.Errorf("the module links %s", n)
		}
	}
	if !found {
		t.Error("no function core.AppendInvoke (the one the module calls) in the name section")
	}
}

// functionNames returns the function names of a wasm module's "name"
// custom section (WebAssembly core spec, appendix 7.4).
func functionNames(t *testing.T, b []byte) []string {
	t.Helper()
	uleb := func(p []byte) (int, int) {
		v, s := 0, 0
		for i, x := range p {
			v |= int(x&0x7f) << s
			if x < 0x80 {
				return v, i + 1
			}
			s += 7
		}
		t.Fatal("truncated LEB128 number")
		return 0, 0
	}
	var names []string
	for i := 8; i < len(b); {
		size, n := uleb(b[i+1:])
		sec := b[i+1+n : i+1+n+size]
		if b[i] == 0 {
			l, m := uleb(sec)
			if string(sec[m:m+l]) == "name" {
				for sub := sec[m+l:]; len(sub) > 0; {
					sz, k := uleb(sub[1:])
					body := sub[1+k : 1+k+sz]
					if sub[0] == 1 {
						cnt, j := uleb(body)
						for range cnt {
							_, a := uleb(body[j:])
							nl, c := uleb(body[j+a:])
							names = append(names, string(body[j+a+c:j+a+c+nl]))
							j += a + c + nl
						}
					}
					sub = sub[1+k+sz:]
				}
			}
		}
		i += 1 + n + size
	}
	return names
}
