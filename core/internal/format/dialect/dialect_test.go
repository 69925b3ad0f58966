package dialect

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIDRule_valid(t *testing.T) {
	word := IDRule{Charset: Word, Min: 1}
	word64 := IDRule{Charset: Word, Min: 1, Max: 64}
	nine := IDRule{Charset: Alnum, Min: 9, Max: 9}
	any64 := IDRule{Charset: AnyChar, Min: 1, Max: 64}
	optional := IDRule{Charset: AnyChar}
	long := "a123456789012345678901234567890123456789012345678901234567890123" // 64
	for _, tc := range []struct {
		r    IDRule
		id   string
		want bool
	}{
		{word, "toolu_01-A", true}, {word, "", false}, {word, "a.b", false}, {word, "é", false}, {word, long + "x", true},
		{word64, long, true}, {word64, long + "x", false},
		{nine, "abcDEF123", true}, {nine, "abcDEF12", false}, {nine, "abcDEF12_", false}, {nine, "abcDEF1234", false},
		{any64, "call:1 é", true}, {any64, "", false}, {any64, long, true}, {any64, long + "é", false},
		{optional, "", true}, {optional, "anything at all", true},
	} {
		assert.Equal(t, tc.want, tc.r.Valid(tc.id), "%+v %q", tc.r, tc.id)
	}
	assert.True(t, optional.Optional())
	assert.False(t, word.Optional())
}

func TestLoss_check(t *testing.T) {
	l := Loss{}
	m := l.Check(map[string]any{"role": "user", "name": "x", "cache_control": map[string]any{"type": "ephemeral"}, "empty": map[string]any{}, "none": nil}, " role content ", "p.")
	assert.Equal(t, Loss{"p.name": 1, "p.cache_control": 1}, l)
	assert.Equal(t, "user", m["role"])
	assert.Nil(t, l.Check("not an object", " a ", ""))
}

// TestOtherName_sortedFirstMember: a block without a type is named by its
// first member name in sorted order whatever Go's map order, the empty name
// included (it sorts first and names nothing: "unknown"), so a conversion's
// notes are the same bytes on every run and target.
func TestOtherName_sortedFirstMember(t *testing.T) {
	for range 200 {
		assert.Equal(t, "unknown", OtherName(map[string]any{"": "x", "zeta": 1, "alpha": 2, "771": []any{}}))
		assert.Equal(t, "alpha", OtherName(map[string]any{"zeta": 1, "alpha": 2, "beta": 3}))
	}
	assert.Equal(t, "image", OtherName(map[string]any{"type": "image", "a": 1}))
}

// TestWriter_resetKeepsOnlyTheArgumentsSpace: Reset clears everything a
// Writer held (what it counted, its system texts, its outcome) but the
// bytes its arguments were written in, which the next list's arguments
// reuse, and drops those bytes past 64 KiB.
func TestWriter_resetKeepsOnlyTheArgumentsSpace(t *testing.T) {
	d := &Dialect{}
	w := &Writer{D: d, System: []string{"s"}, Wrapped: 2, Cut: 1, Dropped: map[string]int{"x": 1}}
	in, ok := w.inputText(Part{Kind: KindCall, Call: Call{ArgsText: `{"b":1,"a":[2]}`}})
	assert.True(t, ok)
	assert.Equal(t, `{"a":[2],"b":1}`, string(in))
	space := cap(w.input)
	w.Reset(nil)
	assert.Nil(t, w.D)
	assert.Nil(t, w.System)
	assert.Nil(t, w.Dropped)
	assert.Zero(t, w.Wrapped+w.Cut)
	assert.Equal(t, space, cap(w.input))
	assert.Empty(t, w.input)
	w.Reset(d)
	assert.Same(t, d, w.D)
	w.input = make([]byte, 0, inputKept+1)
	w.Reset(d)
	assert.Nil(t, w.input, "a Writer keeps more than %d bytes of arguments' space", inputKept)
}

func TestAppendObjectSchema(t *testing.T) {
	assert.Equal(t, `x{"properties":{},"type":"object"}`, string(AppendObjectSchema([]byte("x"), nil)))
	assert.Equal(t, `x{"properties":{},"type":"object"}`, string(AppendObjectSchema([]byte("x"), []byte{})))
	assert.Equal(t, `x{"type":"string"}`, string(AppendObjectSchema([]byte("x"), []byte(`{"type":"string"}`))))
}
