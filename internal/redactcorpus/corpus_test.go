package redactcorpus

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShapes_wellFormed: more than 150 kinds, each named once with the rule
// it follows; every secret part is in the secret's text and long enough to be
// told from chance, the same seed draws the same secret, and Fake draws a
// different one that says it is fake.
func TestShapes_wellFormed(t *testing.T) {
	shapes := Shapes()
	require.GreaterOrEqual(t, len(shapes), 150)
	kinds := map[string]bool{}
	for _, sh := range shapes {
		require.False(t, kinds[sh.Kind], "kind %q twice", sh.Kind)
		kinds[sh.Kind] = true
		assert.NotEmpty(t, sh.Rule, sh.Kind)
		assert.NotEmpty(t, sh.Group, sh.Kind)
		sec := sh.Make(NewG(sh.Kind))
		require.NotEmpty(t, sec.Parts, sh.Kind)
		for _, p := range sec.Parts {
			assert.Contains(t, sec.Text, p, sh.Kind)
			assert.GreaterOrEqual(t, len(p), 8, "%s: part %q", sh.Kind, p)
		}
		assert.Equal(t, sec, sh.Make(NewG(sh.Kind)), "%s: deterministic", sh.Kind)
		fake := NewG(sh.Kind)
		fake.Fake = true
		f := sh.Make(fake)
		assert.NotEqual(t, sec.Text, f.Text, sh.Kind)
	}
}

// TestChecker_finds: the checker finds a secret part whole, a fragment of
// it, its percent-encoded and its base64 form, and nothing in unrelated text.
func TestChecker_finds(t *testing.T) {
	sec := Shapes()[0].Make(NewG("checker"))
	c := NewChecker(sec)
	p := sec.Parts[0]
	for _, out := range []string{p, "x" + p[3:3+FragmentChars] + "y", PercentAll(sec.Text), strings.ReplaceAll(Contexts()[3].Wrap(sec), " back", "")} {
		assert.NotEmpty(t, c.Leak(out), "%.80q", out)
	}
	assert.Empty(t, c.Leak(`{"ok":{"text":"the upstream call failed with [REDACTED] in the request"}}`))
}
