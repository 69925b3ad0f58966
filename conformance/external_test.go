package conformance

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// TestExternal_protocol runs this test binary as an external target (it then
// serves core.Invoke through ServeExternal) over every fixture: the batch
// protocol carries every request and response byte for byte.
func TestExternal_protocol(t *testing.T) {
	_, fixtures := loadFixtures(t)
	e := &External{TargetName: "selftest", Argv: []string{os.Args[0]}, Env: append(os.Environ(), selftestEnv+"=1")}
	require.NoError(t, e.Run(fixtures))
	for _, f := range fixtures {
		got, err := e.Invoke(f.Test.Request)
		require.NoError(t, err, f.ID)
		if want := core.Invoke(f.Test.Request); !bytes.Equal(got, want) {
			t.Error(Mismatch(f.ID, e.Name(), got, want))
		}
	}
	_, err := e.Invoke([]byte(`{"op":"not in any fixture"}`))
	assert.ErrorContains(t, err, "printed no output")
}

func TestParseExternal_forms(t *testing.T) {
	tests := []struct {
		name, spec string
		argv       []string
	}{
		{"command with args", "python=python3 -m pytest -q x.py", []string{"python3", "-m", "pytest", "-q", "x.py"}},
		{"bare command", "node=node", []string{"node"}},
		{"no name", "=node", nil},
		{"no command", "node=", nil},
		{"no equals sign", "node", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := ParseExternal(tc.spec, "/repo")
			if tc.argv == nil {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.argv, e.Argv)
			assert.Equal(t, "/repo", e.Dir)
		})
	}
}

func TestLoadSkipList_format(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := dir + "/" + name
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	list, err := LoadSkipList(write("ok.txt", "# wasmtime-go drops a byte (#12)\nedge/unicode/a/b\n\n# slow (#13)\nedge/size/c/d\n"))
	require.NoError(t, err)
	assert.Equal(t, SkipList{"edge/unicode/a/b": "wasmtime-go drops a byte (#12)", "edge/size/c/d": "slow (#13)"}, list)

	_, err = LoadSkipList(write("bad.txt", "edge/unicode/a/b\n"))
	assert.ErrorContains(t, err, "no \"# reason (#issue)\" line")

	list, err = LoadSkipList(dir + "/missing.txt")
	require.NoError(t, err)
	assert.Empty(t, list)
}

func TestMismatch_report(t *testing.T) {
	got := Mismatch("op/file/case/test", "wazero", []byte(`{"ok":{"a":1,"b":"xyz"}}`), []byte(`{"ok":{"a":1,"b":"xy"}}`))
	// Byte 20 is the z; the excerpts start 8 bytes before it, at the comma.
	assert.Equal(t, "op/file/case/test: target wazero differs at byte 20 (got 24 bytes, want 23)\n"+
		"  got:  …\",\\\"b\\\":\\\"xyz\\\"}}\"\n"+
		"  want: …\",\\\"b\\\":\\\"xy\\\"}}\"", got)
}
