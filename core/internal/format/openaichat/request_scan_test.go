package openaichat

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// TestRequest_scanHooksMatchReadTools checks ScanTools and ScanChoice
// against ReadTools on the same members: each value they take is one
// ReadTools reads without a note, to the same tools (schemas as canonical
// JSON, strict flags) and choice; each they refuse is one ReadTools notes,
// refuses, or reads as something the scanners keep no place for.
func TestRequest_scanHooksMatchReadTools(t *testing.T) {
	sh := Request()
	require.Equal(t, "tools", sh.ToolsMember)
	require.Equal(t, "tool_choice", sh.ChoiceMember)
	require.Equal(t, "parallel_tool_calls", sh.ParallelMember)
	tools := []struct {
		json string
		ok   bool
		n    int // tools read (-1: the tree reads them otherwise than whole, without a note)
	}{
		{`null`, true, 0},
		{`[]`, true, 0},
		{`[{"type":"function","function":{"name":"get"}}]`, true, 1},
		{`[{"function":{"name":"get","description":"Looks \u00e9 up.","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"strict":true}}]`, true, 1},
		{`[{"type":"function","function":{"name":"a","description":null,"parameters":null,"strict":null}},{"type":"function","function":{"name":"b","strict":false}}]`, true, 2},
		{`[{"type":"function","function":{"parameters":{"b":1,"a":[2.50,1e2]},"name":"p"}}]`, true, 1},
		{`[{"type":"web_search"}]`, false, 0},                                             // a hosted tool: noted
		{`[{"type":"function","function":{"name":"get","examples":[]}}]`, false, 0},       // a member noted
		{`[{"type":"function","function":{"name":""}}]`, false, 0},                        // no name
		{`[{"type":"function","function":{"description":"d"}}]`, false, 0},                // no name: an error
		{`[{"type":"function","function":{"name":"get","parameters":[]}}]`, false, 0},     // an error
		{`[{"type":"function","function":{"name":"get","description":7}}]`, false, 0},     // an error
		{`[{"type":"function","function":{"name":"get","strict":"yes"}}]`, false, -1},     // read as none given
		{`[{"type":"function","function":{"name":"get","name":"got"}}]`, false, 0},        // a duplicate
		{`[{"type":"function","function":{"name":"get"},"cache_control":{}}]`, false, -1}, // a tool member
		{`[{"type":"function"}]`, false, 0},                                               // no function
		{`{"type":"function","function":{"name":"get"}}`, false, 0},                       // not an array
	}
	for _, c := range tools {
		s := canonical.NewScanner(c.json)
		var raw []dialect.RawTool
		text, ok := sh.ScanTools(s, 2, []byte("x"), nil, &raw)
		ok = ok && s.End()
		assert.Equal(t, c.ok, ok, c.json)
		v, err := canonical.Parse([]byte(c.json))
		var n dialect.Notes
		var got dialect.Tools
		if err == nil {
			got, err = sh.ReadTools(map[string]any{"tools": v}, "body", &n)
		}
		if !ok {
			// the tree refuses it, notes it, or reads it otherwise
			// than whole (a strict flag or a tool member dropped)
			assert.True(t, err != nil || len(n.List) > 0 || c.n < 0, c.json)
			continue
		}
		require.NoError(t, err, c.json)
		require.Len(t, raw, c.n, c.json)
		assert.Empty(t, n.List, c.json)
		require.Len(t, got.Defs, c.n, c.json)
		for i, d := range got.Defs {
			want, err := d.Raw()
			require.NoError(t, err)
			assert.Equal(t, want, raw[i], c.json)
		}
		assert.Equal(t, "x", string(text[:1]), "what text held is kept")
	}

	choices := []struct {
		json string
		ok   bool
		want dialect.Choice
	}{
		{`null`, true, dialect.Choice{}},
		{`"none"`, true, dialect.Choice{Mode: "none"}},
		{`"auto"`, true, dialect.Choice{Mode: "auto"}},
		{`"required"`, true, dialect.Choice{Mode: "required"}},
		{`{"type":"function","function":{"name":"get"}}`, true, dialect.Choice{Mode: "tool", Name: "get"}},
		{`{"function":{"name":"get"},"type":"function"}`, true, dialect.Choice{Mode: "tool", Name: "get"}},
		{`"any"`, false, dialect.Choice{}},                                             // noted
		{`"tool"`, false, dialect.Choice{}},                                            // noted
		{`{"function":{"name":"get"}}`, false, dialect.Choice{}},                       // no type: noted
		{`{"type":"function","function":{"name":""}}`, false, dialect.Choice{}},        // noted
		{`{"type":"allowed_tools","allowed_tools":{}}`, false, dialect.Choice{}},       // noted
		{`{"type":"function","function":{"name":"a","x":1}}`, false, dialect.Choice{}}, // read as a, but not by the scanner
		{`true`, false, dialect.Choice{}},
	}
	for _, c := range choices {
		s := canonical.NewScanner(c.json)
		var got dialect.Choice
		ok := sh.ScanChoice(s, 2, &got) && s.End()
		assert.Equal(t, c.ok, ok, c.json)
		v, err := canonical.Parse([]byte(c.json))
		require.NoError(t, err)
		var n dialect.Notes
		tree, err := sh.ReadTools(map[string]any{"tool_choice": v}, "body", &n)
		require.NoError(t, err, c.json)
		if ok {
			assert.Equal(t, c.want, got, c.json)
			assert.Equal(t, c.want, tree.Choice, c.json)
			assert.Empty(t, n.List, c.json)
		} else if c.json != `{"type":"function","function":{"name":"a","x":1}}` {
			assert.NotEmpty(t, n.List, c.json)
		}
	}
}
