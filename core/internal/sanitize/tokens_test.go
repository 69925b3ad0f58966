package sanitize

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTokenRules_lowerRuns keeps minLowerTokenChars true of the table: a
// rule whose prefix is made of [a-z_] and whose body may be made of lower-case
// letters matches at least minLowerTokenChars characters, so quiet may skip
// a shorter identifier. The shapes with a structure of their own need a
// byte outside [a-z_] (slack: '-' after xox?; the infix shapes: a digit, '~',
// '.', '-' or ':'), except the MaxMind key, 40 characters long.
func TestTokenRules_lowerRuns(t *testing.T) {
	lowerOnly := func(p string) bool {
		for i := 0; i < len(p); i++ {
			if !(p[i] >= 'a' && p[i] <= 'z' || p[i] == '_') {
				return false
			}
		}
		return true
	}
	n := 0
	for b := range tokenRules {
		for _, r := range tokenRules[b] {
			n++
			require.Equal(t, byte(b), r.prefix[0], "rule %q is filed under %q", r.prefix, byte(b))
			require.GreaterOrEqual(t, len(r.prefix), 2, "rule %q: tokenMatch compares the second byte first", r.prefix)
			if !lowerOnly(r.prefix) {
				continue
			}
			if r.shape != plain {
				assert.Equal(t, slack, r.shape, "shape rule %q", r.prefix)
				continue
			}
			if r.body.has('a') {
				assert.GreaterOrEqual(t, len(r.prefix)+r.min, minLowerTokenChars, "rule %q", r.prefix)
				assert.GreaterOrEqual(t, len(r.prefix)+r.min, minTokenChars, "rule %q", r.prefix)
			}
		}
	}
	assert.Greater(t, n, 150)
	assert.GreaterOrEqual(t, len("abcdef_")+29+len("_mmk"), minLowerTokenChars)
}

// TestTokenRules_noShadowing: within a first byte, a rule never stands after
// a shorter rule its prefix starts with and whose body admits the rest of
// the longer prefix (it could never match first).
func TestTokenRules_noShadowing(t *testing.T) {
	for b := range tokenRules {
		rules := tokenRules[b]
		for i, long := range rules {
			for _, short := range rules[:i] {
				if short.shape != plain || !strings.HasPrefix(long.prefix, short.prefix) || short.exact {
					continue
				}
				rest := long.prefix[len(short.prefix):]
				admits := true
				for k := 0; k < len(rest); k++ {
					admits = admits && short.body.has(rest[k])
				}
				assert.False(t, admits, "rule %q stands after %q, which matches it first", long.prefix, short.prefix)
			}
		}
	}
}
