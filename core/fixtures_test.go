package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// fixtureTest is one test of a conformance fixture file: where it is, and
// its request's and response's bytes as the file holds them.
type fixtureTest struct {
	File, Case, Test string
	Request          json.RawMessage
	Response         json.RawMessage
}

// fixtureTests reads every test of conformance/fixtures/<dir>/*.json for
// each of dirs, in order; each dir must hold fixtures. A dir may be a glob
// pattern ("*": every op's fixtures). The bytes are kept as the file holds
// them (encoding/json checks only their syntax), so a fixture may hold what
// the core's own parser refuses.
func fixtureTests(t testing.TB, dirs ...string) []fixtureTest {
	t.Helper()
	var out []fixtureTest
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join("..", "conformance", "fixtures", dir, "*.json"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		for _, file := range files {
			b, err := os.ReadFile(file)
			require.NoError(t, err)
			var cases []struct {
				Description string
				Tests       []struct {
					Description string
					Request     json.RawMessage
					Response    json.RawMessage
				}
			}
			require.NoError(t, json.Unmarshal(b, &cases), file)
			for _, c := range cases {
				for _, tc := range c.Tests {
					out = append(out, fixtureTest{filepath.Base(file), c.Description, tc.Description, tc.Request, tc.Response})
				}
			}
		}
	}
	return out
}
