package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRuntimeScenarios_lint checks the runtime scenarios every language's
// runtime runs (runtime/*.json): runtime.schema.json, and unique, short,
// present-tense descriptions, as for the fixtures.
func TestRuntimeScenarios_lint(t *testing.T) {
	lintFiles(t, "runtime.schema.json", filepath.Join("runtime", "*.json"))
}

// TestExceptionChains_lint checks the cause chains every binding builds as
// its language's own errors and classifies (exceptions/*.json):
// exceptions.schema.json, and unique, short, present-tense descriptions.
func TestExceptionChains_lint(t *testing.T) {
	lintFiles(t, "exceptions.schema.json", filepath.Join("exceptions", "*.json"))
}

// TestValues_lint checks the values every binding builds with a NaN or an
// infinity in its language's own numbers and sends (values/*.json):
// values.schema.json, and unique, short, present-tense descriptions.
func TestValues_lint(t *testing.T) {
	lintFiles(t, "values.schema.json", filepath.Join("values", "*.json"))
}

// lintFiles checks every file matching glob against the schema at
// schemaPath (validFiles), and that the descriptions of its items are
// unique, short and in the present tense (lintDescription).
func lintFiles(t *testing.T, schemaPath, glob string) {
	t.Helper()
	for p, data := range validFiles(t, schemaPath, glob) {
		var items []struct {
			Description string `json:"description"`
		}
		require.NoError(t, json.Unmarshal(data, &items))
		seen := map[string]bool{}
		for _, it := range items {
			lintDescription(t, p, it.Description, maxCaseChars)
			assert.False(t, seen[it.Description], "%s: %q appears twice", p, it.Description)
			seen[it.Description] = true
		}
	}
}

// validFiles reads every file matching glob, checks each against the JSON
// Schema at schemaPath and returns their bytes by path; it fails the test
// when none matches or one does not validate.
func validFiles(t *testing.T, schemaPath, glob string) map[string][]byte {
	t.Helper()
	schema, err := jsonschema.NewCompiler().Compile(schemaPath)
	require.NoError(t, err)
	paths, err := filepath.Glob(glob)
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		require.NoError(t, err)
		require.NoError(t, schema.Validate(inst), p)
		out[p] = data
	}
	return out
}
