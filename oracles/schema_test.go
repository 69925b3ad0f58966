package oracles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// specDocs caches each parsed spec file (the OpenAI YAML is 3 MB) for the
// whole test binary: file name -> *specDoc.
var specDocs sync.Map

type specDoc struct {
	once sync.Once
	doc  any
	err  error
}

// loadSpecDoc returns shared/specs/<file> as a JSON value as jsonschema reads
// it (numbers as json.Number); a .yaml file is converted from YAML first.
func loadSpecDoc(t testing.TB, file string) any {
	t.Helper()
	path := filepath.Join(sharedDir(t), "specs", file)
	v, _ := specDocs.LoadOrStore(file, &specDoc{})
	d := v.(*specDoc)
	d.once.Do(func() {
		b, err := os.ReadFile(path)
		if err != nil {
			d.err = err
			return
		}
		if strings.HasSuffix(file, ".yaml") || strings.HasSuffix(file, ".yml") {
			var y any
			if err := yaml.Unmarshal(b, &y); err != nil {
				d.err = err
				return
			}
			if b, err = json.Marshal(jsonKeys(y)); err != nil {
				d.err = err
				return
			}
		}
		d.doc, d.err = jsonschema.UnmarshalJSON(bytes.NewReader(b))
	})
	require.NoError(t, d.err, "reading %s", path)
	return d.doc
}

// jsonKeys turns the map[any]any YAML gives for non-string keys (status
// codes such as 200) into map[string]any, recursively.
func jsonKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonKeys(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonKeys(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonKeys(e)
		}
	}
	return v
}

// compileSpecSchema compiles the schema at JSON pointer (for example
// "/components/schemas/ChatCompletionRequestToolMessage" or
// "/$defs/CallToolResult") of shared/specs/<file>, a JSON Schema document or
// an OpenAPI YAML, with santhosh-tekuri/jsonschema as draft 2020-12; $refs
// resolve against the whole document. It skips the test when shared/ is
// absent (see sharedDir) and fails it when the schema does not compile.
func compileSpecSchema(t testing.TB, file, pointer string) *jsonschema.Schema {
	t.Helper()
	doc := loadSpecDoc(t, file)
	url := "file:///shared/specs/" + file
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	require.NoError(t, c.AddResource(url, doc))
	s, err := c.Compile(url + "#" + pointer)
	require.NoError(t, err, "compiling %s#%s", file, pointer)
	return s
}

// requireValid fails the test with the validator's explanation unless v (any
// JSON-marshalable value) is valid against s.
func requireValid(t testing.TB, s *jsonschema.Schema, v any, what string) {
	t.Helper()
	require.NoError(t, validateJSON(s, v), "%s", what)
}

// validateJSON validates v against s after a JSON round trip, so that v may be
// a value tree, an SDK param or a struct.
func validateJSON(s *jsonschema.Schema, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

func TestCompileSpecSchema_rejectsInvalid(t *testing.T) {
	tool := compileSpecSchema(t, "openai-openapi.yaml", "/components/schemas/ChatCompletionRequestToolMessage")
	require.Error(t, validateJSON(tool, map[string]any{"role": "tool", "content": "x"}), "tool_call_id is required")
	require.Error(t, validateJSON(tool, map[string]any{"role": "tool", "tool_call_id": "c", "content": []any{}}), "content parts: minItems 1")
	require.Error(t, validateJSON(tool, map[string]any{"role": "tool", "tool_call_id": "c", "content": []any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,AAAA"}}}}), "a tool message holds only text parts")
	requireValid(t, tool, map[string]any{"role": "tool", "tool_call_id": "c", "content": "x"}, "minimal tool message")
	out := compileSpecSchema(t, "openai-openapi.yaml", "/components/schemas/FunctionCallOutputItemParam")
	require.Error(t, validateJSON(out, map[string]any{"type": "function_call_output", "call_id": strings.Repeat("x", 65), "output": "x"}), "call_id maxLength 64")
	require.Error(t, validateJSON(out, map[string]any{"type": "function_call_output", "call_id": "c"}), "output is required")
}
