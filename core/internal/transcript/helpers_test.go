package transcript

import (
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
)

// parse reads JSON text into a value tree.
func parse(t testing.TB, s string) any {
	t.Helper()
	v, err := canonical.Parse([]byte(s))
	require.NoError(t, err, s)
	return v
}

// text returns the canonical JSON of v.
func text(t testing.TB, v any) string {
	t.Helper()
	b, err := canonical.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func read(t testing.TB, f Format, s string) []Message {
	t.Helper()
	msgs, err := Read(f, parse(t, s).([]any))
	require.NoError(t, err)
	return msgs
}

func repairText(t testing.TB, f Format, s string, opts Options) (string, Changes) {
	t.Helper()
	out, ch := Repair(f, read(t, f, s), opts)
	return text(t, Write(f, out)), ch
}

// The names of id rules the tests use.
const (
	RulesAnthropic = "anthropic"
	RulesBedrock   = "bedrock"
	RulesMistral   = "mistral"
)

// rule is the id rule named name in the provider table.
func rule(name string) dialect.IDRule {
	r, _ := format.Rules(name)
	return r
}

// idRuleText is the sentence of the invalid_id findings of the rules name.
func idRuleText(name string) string { return rule(name).Text }
