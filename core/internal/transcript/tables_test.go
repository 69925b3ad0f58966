package transcript

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/format"
)

// tableFields returns what can be compared of each field of a dialect
// table: a func by its code pointer, anything else as it is.
func tableFields(t *testing.T, f Format) []any {
	t.Helper()
	d := format.Table(string(f))
	require.NotNil(t, d, f)
	v := reflect.ValueOf(d).Elem()
	out := make([]any, v.NumField())
	for i := range out {
		if x := v.Field(i); x.Kind() == reflect.Func {
			out[i] = x.Pointer()
		} else {
			out[i] = x.Interface()
		}
	}
	return out
}

// TestTables_neverChanged: the engine reads and writes a list with its
// format's shared table when no option changes the dialect (dialectFor),
// so no op may change that table: check (which sets LintRoom on a copy),
// repair, convert to every format, trim and normalize, with and without a
// model, capabilities and another provider's id rules, leave every table's
// fields as they were, and format.Dialect's copies are the caller's.
func TestTables_neverChanged(t *testing.T) {
	before := map[Format][]any{}
	for _, f := range Formats() {
		before[f] = tableFields(t, f)
	}
	opts := []Options{{}, {Model: "gemini-2.0-flash"}, {IDRules: RulesMistral}, {MaxBytes: 200},
		{Model: "anthropic.claude-3-haiku", Capabilities: map[string]bool{}}}
	for _, f := range Formats() {
		msgs := turnList(t, f, [][]string{{"call_a", "call_b"}, {"call_a"}})
		for _, o := range opts {
			Check(f, msgs, o)
			out, _ := Repair(f, msgs, o)
			WriteWith(f, out, o)
			for _, to := range Formats() {
				Convert(f, to, turnList(t, f, [][]string{{"call_a", "call_b"}}), o)
			}
		}
		Trim(f, msgs, Limit{MaxChars: 100})
		NormalizeIDs(f, msgs, RulesMistral)
		c := format.Dialect(string(f))
		c.Model, c.LintRoom, c.Lint = "changed", 7, nil
	}
	for _, f := range Formats() {
		assert.Equal(t, before[f], tableFields(t, f), "%s's table changed", f)
	}
}
