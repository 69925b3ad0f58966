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

// FuzzSanitize checks the sanitizer directly and through Invoke's "sanitize"
// op: it never panics, its output is valid UTF-8 and never longer than the
// cap, and a secret planted between spaces never survives, whatever text
// surrounds it.
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
		f.Add(seed.pre, seed.post, seed.which, seed.max)
	}
	f.Fuzz(func(t *testing.T, pre, post string, which uint8, max uint16) {
		if strings.Contains(pre, plantedBody) || strings.Contains(post, plantedBody) {
			t.Skip("the input already holds the planted body in plain text")
		}
		in := pre + " " + plants[int(which)%len(plants)] + " " + post
		limit := int(max)%2000 + 1

		for name, out := range map[string]string{"Text": sanitize.Text(in), "Message": sanitize.Message(in)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s output is not valid UTF-8: %q", name, out)
			}
			if strings.Contains(out, plantedBody) {
				t.Fatalf("%s leaked the planted secret: in %q out %q", name, in, out)
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
		if n := utf8.RuneCountInString(text); n > limit {
			t.Fatalf("Invoke sanitize text is %d characters, over max_chars %d", n, limit)
		}
	})
}
