package main

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
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

// TestResultNamesEveryMember keeps the table's "ok result" column true to
// the examples: every member of an example's ok object is named in its op's
// Result (e.g. replay's "turns", which the column once left out).
func TestResultNamesEveryMember(t *testing.T) {
	word := regexp.MustCompile(`[a-z_]+`)
	for _, o := range core.Ops() {
		if !strings.HasPrefix(o.Result, "`{") {
			continue // not an object: an envelope, the registry rows, a value
		}
		named := map[string]bool{}
		for _, w := range word.FindAllString(o.Result, -1) {
			named[w] = true
		}
		var resp struct {
			OK map[string]json.RawMessage `json:"ok"`
		}
		require.NoError(t, json.Unmarshal(core.Invoke([]byte(o.Example)), &resp), o.Name)
		require.NotEmpty(t, resp.OK, o.Name)
		for k := range resp.OK {
			require.True(t, named[k], "op %s: its example's ok result has %q, which the Result column %s does not name", o.Name, k, o.Result)
		}
	}
}
