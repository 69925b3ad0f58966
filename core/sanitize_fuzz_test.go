package core

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// plantedBody is the unique part of every planted secret; the fuzz input is
// skipped when it already holds it in plain text.
const plantedBody = "Zq9XkW3mP7vR2tY8uB4nC6dF1gH5jK0L"

// plants are secrets in the shapes Text redacts, each carrying plantedBody.
var plants = [...]string{
	"sk-proj-" + plantedBody,
	"sk-ant-api03-" + plantedBody,
	"AIza" + plantedBody + "xyz",
	"ghp_" + plantedBody + "abcd",
	"xoxb-" + plantedBody,
	"Bearer " + plantedBody,
	"Basic " + plantedBody,
	"api_key=" + plantedBody,
	"https://u:" + plantedBody + "@db.internal/x",
	"eyJhbGciOiJIUzI1NiJ9." + plantedBody + ".sig",
	`"client_secret": "` + plantedBody + `"`,
	"X-Amz-Signature=" + plantedBody,
}

// hidden are characters a reader cannot see, one of which FuzzSanitize may
// plant inside the secret: the sanitizer removes them before it redacts.
var hidden = [...]string{"", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u2066",
	"\U000E0041", "\U000E0100", "\ufe0f", "\x1b[0m", "\x1b]0;t\x07", "\x00", "\x7f", "\u0080", "\u009b1m"}

// invisibleIn returns the first character of out a model must not read
// (docs/sanitize.md, "Invisible characters"), or -1: a C0 control other than
// tab, LF and CR, DEL, a C1 control, a bidi control, a zero-width or tag
// character, a soft hyphen, an ideographic variation selector; a joiner
// (ZWJ, ZWNJ) or a variation selector not after a non-ASCII character; a
// tag when out holds no U+1F3F4 flag. It is written apart from the
// sanitizer's own tables, so that it checks them.
func invisibleIn(out string) rune {
	var prev rune
	for _, r := range out {
		switch {
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r >= 0x7f && r <= 0x9f,
			r == 0x61c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
			r == 0x200b, r >= 0x2060 && r <= 0x2064, r == 0xfeff, r == 0xad, r == 0x34f, r == 0x180e,
			r >= 0xe0100 && r <= 0xe01ef,
			(r == 0x200c || r == 0x200d || r >= 0xfe00 && r <= 0xfe0f) && prev < 0xa0 && !(r == 0xfe0f && (prev >= '0' && prev <= '9' || prev == '#' || prev == '*')),
			r >= 0xe0000 && r <= 0xe007f && !strings.ContainsRune(out, 0x1f3f4):
			return r
		}
		prev = r
	}
	return -1
}

// FuzzSanitize checks the sanitizer directly and through Invoke's "sanitize"
// op: it never panics, its output is valid UTF-8 and never longer than the
// cap, holds no invisible character (invisibleIn), and a secret planted
// between spaces never survives, whatever text surrounds it, even with a
// hidden character inside it (hidden).
func FuzzSanitize(f *testing.F) {
	for _, seed := range []struct {
		pre, post string
		which     uint8
		max       uint16
	}{
		{"", "", 0, 0},
		{"HTTPError 503 for url https://x/?key=", "\nTraceback (most recent call last):\n  File \"/a.py\", line 1, in f\nValueError: x", 5, 40},
		{"thread 'main' panicked at src/x.rs:1:2:\n", "\nstack backtrace:\n   0: x", 2, 10},
		{"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/a/b.go:3 +0x1", "é\xff\xed\xa0\x80", 8, 64},
		{"Exception in thread \"main\" java.lang.X: y\n\tat a.B.c(B.java:1)\nCaused by: ", "", 11, 1},
		{"TypeError: x\n    at f (a.js:1:2)", strings.Repeat("é", 300), 3, 100},
		{`{"password": "`, `"}`, 7, 30},
	} {
		f.Add(seed.pre, seed.post, seed.which, seed.max, uint8(0))
	}
	f.Add("bad \x1b[31mred\x1b[0m \u202egpj.exe", "zero\u200bwidth\u2060 tag\U000E0041 nul\x00 bell\a del\x7f \u0085", uint8(0), uint16(9), uint8(1))
	f.Add("\U0001F468\u200d", "\ufe0f\ufe0f 1\ufe0f\u20e3", uint8(3), uint16(50), uint8(0x53))
	f.Fuzz(func(t *testing.T, pre, post string, which uint8, max uint16, hide uint8) {
		if strings.Contains(pre, plantedBody) || strings.Contains(post, plantedBody) {
			t.Skip("the input already holds the planted body in plain text")
		}
		plant := plants[int(which)%len(plants)]
		at := int(hide/uint8(len(hidden))) % (len(plant) + 1)
		in := pre + " " + plant[:at] + hidden[int(hide)%len(hidden)] + plant[at:] + " " + post
		limit := int(max)%2000 + 1

		details := sanitize.Details(map[string]any{"k" + in: in, "list": []any{in}})
		for name, out := range map[string]string{"Text": sanitize.Text(in), "Message": sanitize.Message(in),
			"FailureText": sanitize.FailureText(in), "Details": details["list"].([]any)[0].(string)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s output is not valid UTF-8: %q", name, out)
			}
			if strings.Contains(out, plantedBody) {
				t.Fatalf("%s leaked the planted secret: in %q out %q", name, in, out)
			}
			if r := invisibleIn(out); r >= 0 {
				t.Fatalf("%s kept U+%04X: in %q out %q", name, r, in, out)
			}
		}
		for k := range details {
			if r := invisibleIn(k); r >= 0 {
				t.Fatalf("a details key kept U+%04X: %q", r, k)
			}
		}
		if n := utf8.RuneCountInString(sanitize.Message(in)); n > sanitize.MaxMessageChars {
			t.Fatalf("Message is %d characters, over %d", n, sanitize.MaxMessageChars)
		}
		capped, info := sanitize.Cap(in, limit)
		if n := utf8.RuneCountInString(capped); n > limit || !utf8.ValidString(capped) {
			t.Fatalf("Cap(%d) gave %d characters (valid UTF-8: %v)", limit, n, utf8.ValidString(capped))
		}
		if info.Truncated && info.OmittedChars <= 0 {
			t.Fatalf("Cap truncated without counting what it omitted: %+v", info)
		}

		req, err := canonical.Marshal(map[string]any{"op": "sanitize", "text": in, "max_chars": limit})
		if err != nil {
			t.Fatal(err)
		}
		out := string(Invoke(req))
		if !strings.HasPrefix(out, `{"ok":{`) {
			t.Fatalf("Invoke sanitize failed: %.300s", out)
		}
		if strings.Contains(out, plantedBody) {
			t.Fatalf("Invoke sanitize leaked the planted secret: %.300s", out)
		}
		v, err := canonical.Parse([]byte(out))
		if err != nil {
			t.Fatalf("response does not parse: %v", err)
		}
		text := v.(map[string]any)["ok"].(map[string]any)["text"].(string)
		if r := invisibleIn(text); r >= 0 {
			t.Fatalf("Invoke sanitize kept U+%04X: %q", r, text)
		}
		if n := utf8.RuneCountInString(text); n > limit {
			t.Fatalf("Invoke sanitize text is %d characters, over max_chars %d", n, limit)
		}
	})
}
