package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// The cases of the task on main (Message and FailureText kept them as they
// came), each with the exact text a model now reads.
func TestVisible_messageAndFailureText(t *testing.T) {
	tests := []struct{ name, in, message, failure string }{
		{"ANSI colour (ECMA-48 CSI SGR)", "bad \x1b[31mred\x1b[0m thing", "bad red thing.", "bad red thing"},
		{"bidi override (Trojan Source)", "file \u202egpj.exe failed", "file gpj.exe failed.", "file gpj.exe failed"},
		{"bidi isolates and marks", "a\u2066b\u2067c\u2068d\u2069e\u200ef\u200fg\u061ch", "abcdefgh.", "abcdefgh"},
		{"zero-width space, word joiner", "zero\u200bwidth\u2060 x", "zerowidth x.", "zerowidth x"},
		{"NUL", "nul\x00byte", "nulbyte.", "nulbyte"},
		{"BEL, DEL", "bell\a del\x7f", "bell del.", "bell del"},
		{"C1 NEL is a line break", "one\u0085two", "one two.", "one\ntwo"},
		{"C1 controls", "a\u0080b\u009fc", "abc.", "abc"},
		{"VT and FF are line breaks", "a\vb\fc", "a b c.", "a\nb\nc"},
		{"tag characters (ASCII smuggling)", "tag\U000E0041 chars\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065", "tag chars.", "tag chars"},
		{"BOM, soft hyphen, CGJ", "\ufeffsoft\u00adhy\u034fphen", "softhyphen.", "softhyphen"},
		{"OSC 8 hyperlink", "see \x1b]8;;https://evil.test/\x07here\x1b]8;;\x07 now", "see here now.", "see here now"},
		{"OSC with ST", "title \x1b]0;pwned\x1b\\ set", "title set.", "title  set"},
		{"C1 CSI", "x\u009b1;2Hy", "xy.", "xy"},
		{"C1 OSC with C1 ST", "x\u009d0;t\u009cy", "xy.", "xy"},
		{"DCS", "x\x1bPq#0;2\x1b\\y", "xy.", "xy"},
		{"charset and short escapes", "a\x1b(Bb\x1b7c\x1bcd", "abcd.", "abcd"},
		{"CSI cut short keeps its text", "a\x1b[31", "a[31.", "a[31"},
		{"OSC cut short keeps its text", "a\x1b]0;title", "a]0;title.", "a]0;title"},
		{"lone ESC", "end\x1b", "end.", "end"},
		{"tab, LF and CR stay", "a\tb\r\nc", "a b c.", "a\tb\r\nc"},
		{"emoji ZWJ sequence stays", "family 👨\u200d👩\u200d👧 ok", "family 👨\u200d👩\u200d👧 ok.", "family 👨\u200d👩\u200d👧 ok"},
		{"rainbow flag (VS16 then ZWJ) stays", "🏳\ufe0f\u200d🌈", "🏳\ufe0f\u200d🌈.", "🏳\ufe0f\u200d🌈"},
		{"keycap stays", "press 1\ufe0f\u20e3", "press 1\ufe0f\u20e3.", "press 1\ufe0f\u20e3"},
		{"heart with VS16 stays", "I \u2764\ufe0f it", "I \u2764\ufe0f it.", "I \u2764\ufe0f it"},
		{"Persian ZWNJ stays", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"},
		{"England flag stays", "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F go", "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F go.", "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F go"},
		{"other tags after the flag go", "\U0001F3F4\U000E0068\U000E0069\U000E007F x", "\U0001F3F4 x.", "\U0001F3F4 x"},
		{"ZWJ between ASCII goes", "a\u200db\u200cc", "abc.", "abc"},
		{"a run of selectors keeps one (emoji smuggling)", "🙂\ufe0f\ufe01\ufe02\U000E0100\U000E01EF!", "🙂\ufe0f!", "🙂\ufe0f!"},
		{"a selector after ASCII goes", "x\ufe0fy", "xy.", "xy"},
		{"a run of joiners keeps none", "👨\u200d\u200d👩", "👨👩.", "👨👩"},
		{"ideographic variation selector goes", "\u845b\U000E0100", "\u845b.", "\u845b"},
		{"invalid UTF-8 still U+FFFD", "a\xffb\x1b[0m", "a\ufffdb.", "a\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.message, Message(tt.in), "Message")
			assert.Equal(t, tt.failure, FailureText(tt.in), "FailureText")
			assert.Equal(t, tt.failure, Text(tt.in), "Text")
			got := Details(map[string]any{"k" + tt.in: tt.in, "list": []any{tt.in}})
			assert.Equal(t, map[string]any{"k" + tt.failure: tt.failure, "list": []any{tt.failure}}, got, "Details")
			m, clean := MessageClean(tt.in)
			assert.Equal(t, tt.message, m, "MessageClean")
			assert.Equal(t, tt.failure == tt.in, clean, "MessageClean clean")
			assert.Equal(t, tt.failure == tt.in, Clean(tt.in), "Clean")
		})
	}
}

// A hidden character inside a secret no longer splits it: visible runs
// before the redaction passes. The bodies are made up.
func TestVisible_cannotSplitASecret(t *testing.T) {
	for _, hide := range []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u2066", "\U000E0041", "\x1b[0m", "\x00", "\ufe0f"} {
		for _, tt := range []struct{ in, secret string }{
			{"key sk-proj-" + hide + "FAKEabcdefghijklmnopqrstuvwxyz0123456789 failed", "FAKEabcdefghijklmnop"},
			{"used sk-proj-FAKEabcdefghij" + hide + "klmnopqrstuvwxyz0123456789 today", "klmnopqrstuvwxyz0123"},
			{"token ghp_" + hide + "FAKEabcdefghijklmnopqrstuvwxyz012345 rejected", "FAKEabcdefghijklmnop"},
			{"Google key AIza" + hide + "SyFAKE1234567890abcdefghijklmnopqr is invalid", "SyFAKE1234567890abcd"},
			{"jwt eyJhbGciOiJIUzI1NiJ9" + hide + ".eyJzdWIiOiJGQUtFIn0.FAKEsignatureFAKEsignature expired", "FAKEsignatureFAKE"},
			{"api_key=FAKE" + hide + "value12345678 rejected", "value12345678"},
		} {
			for name, out := range map[string]string{"Message": Message(tt.in), "FailureText": FailureText(tt.in), "Text": Text(tt.in)} {
				assert.NotContains(t, out, tt.secret, "%s(%q)", name, tt.in)
				assert.Contains(t, out, Redacted, "%s(%q)", name, tt.in)
			}
			d := Details(map[string]any{"error": tt.in})
			assert.NotContains(t, d["error"], tt.secret, "Details(%q)", tt.in)
		}
	}
}

// TestVisibleGate_coversEveryCodePoint: every code point visible may change
// starts with a byte of visibleGate, so firstInvisible misses none; and
// the removed set is what the rule says, at its edges.
func TestVisibleGate_coversEveryCodePoint(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		changed := r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0x7f && r <= 0x9f || ignorable(r)
		if !changed {
			continue
		}
		s := string(r)
		if !visibleGate[s[0]] {
			t.Fatalf("U+%04X starts with %#x, not in visibleGate", r, s[0])
		}
		if firstInvisible("ab"+s) != 2 {
			t.Fatalf("firstInvisible misses U+%04X", r)
		}
	}
	for _, r := range []rune{0x61c, 0x200b, 0x200e, 0x200f, 0x202a, 0x202e, 0x2060, 0x2064, 0x2066, 0x2069, 0xfeff,
		0xe0000, 0xe0001, 0xe0041, 0xe007f, 0xe0100, 0xe01ef, 0xe0fff, 0xad, 0x34f, 0x180e, 0x2065, 0xfff0, 0x1bca0, 0x1d173, 0x3164} {
		assert.True(t, ignorable(r), "U+%04X removed", r)
		assert.Equal(t, "ab", visible("a"+string(r)+"b"), "U+%04X", r)
	}
	for _, r := range []rune{' ', 0xa0, 0x2028, 0x2029, 0xfff9, 0xfffb, 0x600, 0x6dd, 0x13430, 0xfffd, 0xe000, 0x20e3, 0x2063 + 0x10} {
		if r == 0x2073 {
			continue
		}
		assert.False(t, ignorable(r), "U+%04X kept", r)
	}
	s := "plain ASCII: with = and : and \t tabs\nand é, 日本, 🙂"
	assert.Equal(t, -1, firstInvisible(s))
	assert.Equal(t, strings.Clone(s), visible(s))
}

// Escape sequences are removed in one linear pass: control strings with no
// terminator, repeated, do not rescan the rest of the text.
func TestVisible_linear(t *testing.T) {
	for _, u := range []string{"\x1b]", "\u009d", "\x1b[", "\x1bP1", "\u009b1", "\x1b]x\x1b", "🙂\u200d", "\ufe0f", "1\ufe0f"} {
		s := strings.Repeat(u, 200000/len(u))
		out := visible(s)
		assert.True(t, utf8.ValidString(out))
		assert.Equal(t, out, visible(out), "%q: visible is idempotent", u)
	}
}
