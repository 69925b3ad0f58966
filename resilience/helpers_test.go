package resilience

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// fixtureTests returns every test of a conformance fixture file.
func fixtureTests(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var cases []struct {
		Tests []map[string]any `json:"tests"`
	}
	require.NoError(t, json.Unmarshal(b, &cases))
	var out []map[string]any
	for _, c := range cases {
		out = append(out, c.Tests...)
	}
	return out
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
