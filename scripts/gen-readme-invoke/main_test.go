package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// TestReadmeInvoke fails when the README's Invoke reference differs from what
// core.Invoke answers; run `go run ./scripts/gen-readme-invoke` to refresh it.
func TestReadmeInvoke(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	want, err := splice(string(b))
	require.NoError(t, err)
	require.Equal(t, want, string(b), "README Invoke reference is stale: run go run ./scripts/gen-readme-invoke")
}

// TestExamplesSucceed keeps every README example a working request.
func TestExamplesSucceed(t *testing.T) {
	for _, o := range core.Ops() {
		resp := core.Invoke([]byte(o.Example))
		require.True(t, bytes.HasPrefix(resp, []byte(`{"ok":`)), "%s example fails: %s", o.Name, resp)
	}
}

// TestOpsJSON fails when conformance/ops.json, which the bindings' tests
// read, differs from the op table.
func TestOpsJSON(t *testing.T) {
	b, err := os.ReadFile("../../conformance/ops.json")
	require.NoError(t, err)
	require.Equal(t, string(opsJSON()), string(b), "conformance/ops.json is stale: run go run ./scripts/gen-readme-invoke")
}
