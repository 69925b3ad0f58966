package canonical

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// sharedAgainstOwn reads text's one string with a Scanner that shares its
// strings and, from the start again, with one that does not, and checks
// that they agree: the same literals refused, the same string and
// position, and the sharing one charging at least what Parse charges.
func sharedAgainstOwn(t *testing.T, text string) {
	t.Helper()
	s := NewScanner(text)
	s.ShareStrings()
	var v string
	ok := s.StringMember(&v)
	r := NewScanner(text)
	var want string
	wantOK := r.StringMember(&want)
	assert.Equal(t, wantOK, ok, "%q", text)
	if !wantOK {
		return
	}
	assert.Equal(t, want, v, "%q", text)
	assert.GreaterOrEqual(t, s.Cost(), r.Cost(), "%q: a shared string is charged less than Parse charges", text)
	assert.Equal(t, r.p.pos, s.p.pos, "%q: position", text)
}

// TestShareStrings_chargesAtLeastParse: a Scanner that shares its strings
// reads every string one that does not reads, plain or with every kind of
// escape and invalid UTF-8, at every length the allocator rounds
// differently, and charges at least what Parse charges for its copy.
func TestShareStrings_chargesAtLeastParse(t *testing.T) {
	texts := []string{
		`""`, `"a"`, `" "`, `"\n"`, `"\t\r\n\f "`, `"\b"`, `"\u0020"`, `"\u00a0"`, `"\"quoted\""`, `"a\\b"`, `"\/"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ude00"`, `"\ud83d\ud83d\ude00"`,
		`"caf` + "\u00e9" + `"`, `"` + "\xff" + `"`, `"a` + "\xff" + `\n"`, `"\n` + "\xff\xfe\xfd" + `"`,
		`"\x"`, `"\u12"`, `"\u12g4"`, `"unterminated`, `"\`, `"a` + "\x01" + `"`, `x`, `"\ud83d\u12"`,
	}
	for n := 1; n < 40000; n = n*9/8 + 1 {
		texts = append(texts, `"`+strings.Repeat(`\n`, n/2)+strings.Repeat("a", n%2)+`"`,
			`"`+strings.Repeat("\\u00e9", n/6+1)+`"`, `"`+strings.Repeat("\xff", n)+`"`, `"\t`+strings.Repeat("\xc3", n)+`"`)
	}
	for _, text := range texts {
		sharedAgainstOwn(t, text)
	}
}

// FuzzShareStrings holds a sharing Scanner to one that does not on any
// text.
func FuzzShareStrings(f *testing.F) {
	for _, s := range []string{`""`, `"\n"`, `"\ud83d\ude00 "`, `" \u00a0"`, `"a` + "\xff" + `"`, `"\{"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sharedAgainstOwn(t, text)
	})
}

// TestShareStrings_oneBuffer: the strings with escapes of one text share a
// buffer, and each stays what it was when the next is built, past the
// buffer's end too.
func TestShareStrings_oneBuffer(t *testing.T) {
	long := strings.Repeat("y", 5000)
	s := NewScanner(`["x\ty", "\u00e9\n", "` + long + `\n", "z\"z"]`)
	s.ShareStrings()
	var got []string
	s.Byte('[')
	for n := 0; ; n++ {
		more, ok := s.Elem(n)
		if !ok || !more {
			break
		}
		v, ok := s.String()
		assert.True(t, ok)
		got = append(got, v)
	}
	assert.Equal(t, []string{"x\ty", "\u00e9\n", long + "\n", `z"z`}, got)
	// ten strings with escapes: ten copies, or one buffer and its holder
	text := []byte(`["a\tb"` + strings.Repeat(`, "c\nd"`, 9) + `]`)
	read := func(share bool) func() {
		return func() {
			s := NewScanner(string(text))
			if share {
				s.ShareStrings()
			}
			s.Byte('[')
			for n := 0; n < 10; n++ {
				s.Elem(n)
				s.String()
			}
		}
	}
	own, shared := testing.AllocsPerRun(10, read(false)), testing.AllocsPerRun(10, read(true))
	assert.Equal(t, 8.0, own-shared, "%v allocations, %v shared", own, shared)
}
