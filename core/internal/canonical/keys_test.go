package canonical

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// keysTest are names with shared first bytes, a prefix of another, and
// literals of 5, 8, 9, 16 and 17 bytes (the last found by Member alone).
var keysTest = NewKeys("op", "output_schema", "result", "results", "format", "id", "retryable", "abcdefghijklm", "abcdefghijklmn")

// keySameAsMember fails unless Key reads the next member name of text (an
// object's text after its '{' and n members, from offset at) as Member
// does: the same name (as its index in keysTest), more and ok, and the
// Scanner left in the same state.
func keySameAsMember(t *testing.T, text string, at, n int) {
	t.Helper()
	a, b := NewScanner(text), NewScanner(text)
	a.p.pos, b.p.pos = at, at
	a.p.loose, b.p.loose = true, true
	i, more, ok := a.Key(n, keysTest)
	name, wantMore, wantOK := b.Member(n)
	want := -1
	if wantOK && wantMore {
		want = keysTest.Index(name)
	}
	require.Equal(t, [3]any{want, wantMore, wantOK}, [3]any{i, more, ok}, "text %q at %d after %d", text, at, n)
	if ok {
		require.Equal(t, b.p.pos, a.p.pos, "text %q", text)
		require.Equal(t, b.lit, a.lit, "text %q", text)
		require.Equal(t, b.p.loose, a.p.loose, "text %q", text)
	}
}

func TestKey_sameAsMember(t *testing.T) {
	values := []string{`1`, `"x"`, `{}`, `true}`, `1}`, ``, `1,"id":2}`}
	var names []string
	for _, n := range keysTest.names {
		names = append(names, n, n+"s", n[:len(n)-1], strings.ToUpper(n))
	}
	names = append(names, "", "o", "r", "x", `i\u0064`, `\"id`, "op\x01", "op\xff", "é", "output_schem")
	for _, name := range names {
		for _, v := range values {
			for _, form := range []string{`"%s":`, `"%s" :`, ` "%s":`, `"%s"`, `"%s`, `%s:`} {
				member := strings.Replace(form, "%s", name, 1) + v
				keySameAsMember(t, "{"+member, 1, 0)
				keySameAsMember(t, `{"a":1,`+member, 7, 1)
				keySameAsMember(t, `{"a":1 ,`+member, 6, 1)
				keySameAsMember(t, `{"a":1`+member, 6, 1)
				keySameAsMember(t, `{"a":1,`+member, 7, 0)
			}
		}
	}
	for _, text := range []string{`{}`, `{ }`, `{"a":1}`, `{"a":1 }`, `{"a":1,}`, `{`, `{"a":1`} {
		keySameAsMember(t, text, max(strings.IndexAny(text, " }1"), 1), 1)
		keySameAsMember(t, text, 1, 0)
	}
	// every length of text after a known name: the literal read at the end
	// of the text
	full := `{"results":[],"op":1}`
	for end := 1; end <= len(full); end++ {
		keySameAsMember(t, full[:end], 1, 0)
		keySameAsMember(t, full[:end], min(14, end), 1)
	}
}

func TestNewKeys_refusesWhatKeyCannotFind(t *testing.T) {
	for _, names := range [][]string{{""}, {"a", "a"}, {`a"`}, {`a\`}, {"é"}, {"a\n"}} {
		require.Panics(t, func() { NewKeys(names...) }, "%q", names)
	}
	require.Panics(t, func() { NewKeys(make([]string, 65)...) })
	require.Equal(t, 1, NewKeys("a", "b").Index("b"))
	require.Equal(t, -1, NewKeys("a", "b").Index("c"))
}

// TestEachKey_sameAsEachOnce: EachKey reads an object as EachOnce does
// with the same names (the same members, refusals and charges).
func TestEachKey_sameAsEachOnce(t *testing.T) {
	for _, text := range []string{
		`{"op":1,"id":2}`, `{"op":1,"op":2}`, `{"op":1,"x":2}`, `{}`, `{ "id" : 1 , "format" : 2 }`,
		`{"results":1,"result":2,"retryable":3,"abcdefghijklmn":4,"abcdefghijklm":5,"output_schema":6}`,
		`{"op":1,}`, `{"op":1`, `[]`, `{"i\u0064":1}`, `{"id":1,"i\u0064":1}`,
	} {
		a, b := NewScanner(text), NewScanner(text)
		var gotNames, wantNames []int
		seen, ok := a.EachKey(keysTest, func(i int) bool {
			gotNames = append(gotNames, i)
			return a.Skip(1) == nil
		})
		wantSeen, wantOK := EachOnce(b, func(name string) (uint64, bool) {
			i := keysTest.Index(name)
			if i < 0 {
				return 0, false
			}
			wantNames = append(wantNames, i)
			return 1 << i, b.Skip(1) == nil
		})
		require.Equal(t, wantOK, ok, text)
		if ok {
			require.Equal(t, wantSeen, seen, text)
			require.Equal(t, wantNames, gotNames, text)
			require.Equal(t, b.Cost(), a.Cost(), text)
			require.Equal(t, b.p.pos, a.p.pos, text)
		}
	}
}
