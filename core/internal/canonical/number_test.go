package canonical

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// numberSameAsValue fails unless Number reads text as Value does: the same
// float64 for a number (ok false for anything else or an error), the same
// position after it and the same charge to the budget.
func numberSameAsValue(t *testing.T, text string) {
	t.Helper()
	s, v := NewScanner(text), NewScanner(text)
	f, ok := s.Number()
	tree, err := v.Value(1)
	want, isNum := tree.(float64)
	if !assert.Equal(t, err == nil && isNum, ok, "%q", text) || !ok {
		return
	}
	assert.Equal(t, want, f, "%q", text)
	assert.Equal(t, v.p.pos, s.p.pos, "%q: position", text)
	assert.Equal(t, v.p.cost, s.p.cost, "%q: cost", text)
}

// TestScanner_Number_sameAsValue: small and large integers, fractions,
// exponents, negatives, white space before, and what is no number (a
// string, null, a bad literal, nothing) are read alike.
func TestScanner_Number_sameAsValue(t *testing.T) {
	for _, text := range []string{
		"0", "7", "255", "256", "1700000000000", " \n 42", "-1", "-0", "0.19405459538707315", "1e3", "1.5E-7",
		"123456789012345678", "9007199254740993", "-", "01", "1.", ".5", "1e", `"1"`, "null", "true", "", "[1]",
		"1e400", "--1",
	} {
		numberSameAsValue(t, text)
	}
	s := NewScanner(`"x"`)
	_, ok := s.Number()
	assert.False(t, ok, "a string is no number")
}

// FuzzScanner_Number_sameAsValue: whatever the text, Number reads it as
// Value does (numberSameAsValue).
func FuzzScanner_Number_sameAsValue(f *testing.F) {
	for _, s := range []string{"0", "-12.5e3", "1700000000000", "0.194", "x"} {
		f.Add(s)
	}
	f.Fuzz(numberSameAsValue)
}
