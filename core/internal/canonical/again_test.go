package canonical

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScanner_Again_chargesAsString: a literal read a second time with
// Again ends where String and Str end and charges what they charge (the
// escaped, plain, non-ASCII, invalid UTF-8 and empty strings alike), and a
// literal that differs, or a charge over the budget, reads nothing.
func TestScanner_Again_chargesAsString(t *testing.T) {
	for _, lit := range []string{
		`"{\"failures\":0,\"phase\":\"closed\"}"`, `"plain"`, `"caf\u00e9 \/ é"`, "\"bad \xff byte\"", `""`, `"\ud800 lone"`,
	} {
		text := "[" + lit + ", " + lit + "]"
		twice, again := NewScanner(text), NewScanner(text)
		for _, s := range []*Scanner{twice, again} {
			require.True(t, s.Byte('['), text)
		}
		before := again.Cost()
		v, ok := again.String()
		require.True(t, ok && again.Str(v), text)
		first, _ := again.Quoted()
		require.Equal(t, lit, first)
		cost := again.Cost() - before
		for i := 0; i < 2; i++ {
			v, ok := twice.String()
			require.True(t, ok && twice.Str(v), text)
			if i == 0 {
				require.True(t, twice.Byte(','))
			}
		}
		require.True(t, again.Byte(','))
		require.True(t, again.Again(first, cost), text)
		require.Equal(t, twice.Cost(), again.Cost(), text)
		require.Equal(t, twice.p.pos, again.p.pos, text)
		require.True(t, again.Byte(']') && again.End(), text)
	}

	s := NewScanner(`["ab", "a"]`)
	require.True(t, s.Byte('['))
	require.False(t, s.Again(`"a"`, 0), "a longer literal is not the one read before")
	v, ok := s.String()
	require.True(t, ok)
	require.Equal(t, "ab", v)

	s = NewScanner(`"x"`)
	require.False(t, s.Again(`"x"`, s.p.budget+1), "over the budget")
	require.Equal(t, int64(0), s.Cost())
	v, ok = s.String()
	require.True(t, ok && v == "x")
}
