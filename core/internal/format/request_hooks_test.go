package format_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// TestRequestShape_appendHooksMatchWriters checks, for every request shape
// with the byte-writing hooks, that AppendTools, AppendChoice and
// AppendSystem write exactly the canonical JSON of what WriteTools and
// WriteSystem put in a body, under the same member, after what dst held.
func TestRequestShape_appendHooksMatchWriters(t *testing.T) {
	schemas := []map[string]any{
		nil,
		{"type": "object", "properties": map[string]any{}},
		{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "description": "a \"quoted\" \u2028 é"}}, "required": []any{"q"}},
	}
	var defs []dialect.Tool
	for i, name := range []string{"get_weather", "a\"b", "é<tool>&"} {
		for k, desc := range []string{"", "Looks it up.\n", "\u00e9\u2028\x01"} {
			defs = append(defs, dialect.Tool{Name: name, Description: desc, Schema: schemas[(i+k)%len(schemas)]})
		}
	}
	toolSets := [][]dialect.Tool{defs[:1], defs[1:2], defs[2:3], defs}
	on, off := true, false
	parallels := []struct {
		v int8
		p *bool
	}{{0, nil}, {1, &on}, {-1, &off}}
	choices := []dialect.Choice{{}, {Mode: "auto"}, {Mode: "none"}, {Mode: "required"}, {Mode: "tool", Name: "get_weather"}, {Mode: "tool", Name: "a\"é"}}
	prefix := []byte(`{"x":1,`)

	var hooked []string
	for _, name := range format.TranscriptNames() {
		sh := format.RequestShape(name)
		if sh == nil || sh.AppendTools == nil && sh.AppendChoice == nil && sh.AppendSystem == nil {
			continue
		}
		require.NotNil(t, sh.AppendTools, name)
		require.NotNil(t, sh.AppendChoice, name)
		require.NotNil(t, sh.AppendSystem, name)
		hooked = append(hooked, name)
		// the one member a writer put in body, as canonical JSON
		only := func(body map[string]any) (string, string) {
			require.LessOrEqual(t, len(body), 1, name)
			for k, v := range body {
				b, err := canonical.Marshal(v)
				require.NoError(t, err)
				return k, string(b)
			}
			return "", ""
		}
		for _, set := range toolSets {
			body := map[string]any{}
			sh.WriteTools(body, dialect.Tools{Defs: set}, &dialect.Notes{})
			wantKey, want := only(body)
			raw := make([]dialect.RawTool, len(set))
			for i, d := range set {
				raw[i] = dialect.RawTool{Name: d.Name, Description: d.Description}
				if d.Schema != nil {
					var err error
					raw[i].Schema, err = canonical.Marshal(d.Schema)
					require.NoError(t, err)
				}
			}
			key, got := sh.AppendTools(append([]byte(nil), prefix...), raw)
			assert.Equal(t, wantKey, key, "%s tools", name)
			assert.Equal(t, string(prefix)+want, string(got), "%s tools", name)
		}
		for _, c := range choices {
			for _, p := range parallels {
				par := p.v
				body := map[string]any{}
				sh.WriteTools(body, dialect.Tools{Choice: c, Parallel: p.p}, &dialect.Notes{})
				wantKey, want := only(body)
				key, got := sh.AppendChoice(append([]byte(nil), prefix...), c, par)
				assert.Equal(t, wantKey, key, "%s choice %+v parallel %d", name, c, par)
				assert.Equal(t, string(prefix)+want, string(got), "%s choice %+v parallel %d", name, c, par)
			}
		}
		for _, text := range []string{"", "Be brief.", "a \"quoted\"\n\u2028 é <&> \x7f"} {
			body := map[string]any{}
			sh.WriteSystem(body, []string{text})
			wantKey, want := only(body)
			key, got := sh.AppendSystem(append([]byte(nil), prefix...), text)
			assert.Equal(t, wantKey, key, "%s system %q", name, text)
			assert.Equal(t, string(prefix)+want, string(got), "%s system %q", name, text)
		}
	}
	assert.Subset(t, hooked, []string{"anthropic", "gemini"}) // the carried form's targets
}
