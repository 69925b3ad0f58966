package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeTable fails when the README's registry table differs from
// core.Codes(); run `go run ./scripts/gen-readme-codes` to refresh it.
func TestReadmeTable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	want, err := splice(string(b))
	require.NoError(t, err)
	require.Equal(t, want, string(b), "README code table is stale: run go run ./scripts/gen-readme-codes")
}
