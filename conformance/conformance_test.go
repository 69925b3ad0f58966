package conformance

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConformance runs every fixture through every target and compares the
// output with the fixture's canonical response, byte for byte. The subtest
// name is <target>/<fixture ID>.
func TestConformance(t *testing.T) {
	_, fixtures := loadFixtures(t)
	require.NotEmpty(t, fixtures, "no fixtures under %s", fixtureDir)
	want := make([][]byte, len(fixtures))
	for i, f := range fixtures {
		want[i] = expected(t, f.Test.Response)
	}
	run := func(t *testing.T, tg Target) {
		skips, err := LoadSkipList(filepath.Join("skip", tg.Name()+".txt"))
		require.NoError(t, err)
		for i, f := range fixtures {
			t.Run(f.ID, func(t *testing.T) {
				got, err := tg.Invoke(f.Test.Request)
				pass := err == nil && bytes.Equal(got, want[i])
				record(tg.Name(), f.File, pass)
				reason, skipped := skips[f.ID]
				switch {
				case *dashboard:
				case skipped && pass:
					t.Errorf("%s passes on %s: remove it from skip/%s.txt", f.ID, tg.Name(), tg.Name())
				case skipped:
					t.Skipf("known failure on %s: %s", tg.Name(), reason)
				case err != nil:
					t.Errorf("%s: target %s failed: %v", f.ID, tg.Name(), err)
				case !pass:
					t.Error(Mismatch(f.ID, tg.Name(), got, want[i]))
				}
			})
		}
	}
	for _, mk := range builtinTargets() {
		t.Run(mk.name, func(t *testing.T) {
			tg := mk.open(t)
			defer tg.Close()
			run(t, tg)
		})
	}
	for _, e := range externalTargets(t) {
		t.Run(e.Name(), func(t *testing.T) {
			require.NoError(t, e.Run(fixtures))
			run(t, e)
		})
	}
}
