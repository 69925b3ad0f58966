package oracles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// sharedDir returns ../shared beside the repository (TOOLERR_SHARED overrides),
// or skips the test when the vendor files are not there (a user's clone).
func sharedDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TOOLERR_SHARED")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "specs")); err != nil {
		t.Skipf("vendor specs not found at %s: the recordings and specs are not in this clone", dir)
	}
	return dir
}

// invokeOK runs one Invoke request and returns its "ok" member as a generic
// JSON value; it fails the test on an error response.
func invokeOK(t testing.TB, req any) any {
	t.Helper()
	b, err := json.Marshal(req)
	require.NoError(t, err)
	var resp map[string]any
	require.NoError(t, json.Unmarshal(core.Invoke(b), &resp), "response is not JSON")
	require.Nil(t, resp["error"], "Invoke returned an error: %v", resp["error"])
	return resp["ok"]
}

// asJSONValue round-trips v (an SDK param struct, a map) through encoding/json
// so that two values can be compared as JSON values.
func asJSONValue(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}
