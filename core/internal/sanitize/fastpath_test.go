package sanitize

import (
	"go/scanner"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
)

// The fast paths (quiet, maybeTrace, tokenStart, the ASCII white-space test,
// message's one redaction of a text nothing changes) must not change one
// output byte. The property that guarantees it: when
// quiet(s) holds, no redaction pass and no trace reduction changes s, so
// skipping them is exact. The tests check it over a large generated corpus and
// under the fuzzer. (The optimization was also checked, when it was made,
// against a copy of the previous implementation over the same corpus.)

// fastPathFragments are pieces every pass and every fast-path check keys on,
// and their near misses.
var fastPathFragments = []string{
	"", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u0085", "\u00a0", "\u2028", "\u3000", "\xff", "\xc3", "é", "…",
	".", ". ", "! ", "? ", ". A", ". a", "e.g. X", "U.S. Army", ":", "=", ",", ";", "'", "\"", "\\\"", "`", "&", "?", "#",
	"a", "A", "b", "B", "s", "r", "g", "x", "h", "e", "p", "k", "sk", "Weather API returned 429 after 3 attempts",
	"that ", "at least", "at ", " at ", "\tat ", "    at f (a.js:1:2)", "\tat x.Y(Y.java:1)", "\tat x.Y(Native Method)",
	"    at <anonymous>", " at f (native)", "Caused by: java.io.IOException: boom", "Exception in thread \"main\" ",
	"sk-", "sk-proj-", "sk-abcdefghijklmnopqrstuvwx", "sk_live_abcdefghijklmnopqrstuv", "rk_live_abcdefghijklmnopqrstuvw",
	"AIzaSyA1234567890abcdefghijklmnopqrstu", "AKIAABCDEFGHIJKLMNOP", "ASIAABCDEFGHIJKLMNOPQ", "AKIA", "AIza",
	"ghp_abcdefghijklmnopqrstuvwxyz0123456789", "gho_", "github_pat_abcdefghijklmnopqrstuvwxyz", "glpat-abcdefghijklmnopqrstuv",
	"xoxb-1234567890-abc", "xox", "hf_abcdefghijklmnopqrstuvwxyzABCDEF", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "eyJ",
	"Bearer ", "bearer abcdef123456", "BASIC dXNlcjpwYXNz", "basic", "Basic auth failed", "Bearer token expired",
	"authorization", "Authorization: Bearer x", "Authorization: ", "proxy-authorization=", "key=", "key: ", "api_key=abc123",
	"\"api_key\": \"v\"", "'token': 'x'", "password=hunter2", "token: expired", "token: a8Fq2k9x", "X-Amz-Signature=abc",
	"X-Amz-Credential=AKIAABCDEFGHIJKLMNOP%2F2024", "[REDACTED]", "key=[REDACTED]", "https://", "postgres://svc:pw@db/app",
	"http://u:@h", "://", "Traceback (most recent call last):", "Traceback (most recent call last):\n  File \"/a.py\", line 1, in f\n",
	"ValueError: bad", "thread 'main' panicked at src/main.rs:2:5:", "thread 'main' panicked at 'boom', src/main.rs:2:5",
	"panicked at ", "stack backtrace:", "note: run with `RUST_BACKTRACE=1`", "panic: boom", "fatal error: x", "goroutine 1 [running]:",
	"goroutine ", "main.main()", "\t/app/main.go:12 +0x1d", "created by main.f", "...", "... 3 more", "^^^^", "~~~",
	strings.Repeat("x", 299), strings.Repeat("word ", 70), strings.Repeat("é", 400),
	// The passes and checks of issue 9 (more shapes, words, encodings, traces).
	"-----BEGIN PRIVATE KEY-----", "-----BEGIN ", "-----END PRIVATE KEY-----", "PuTTY-User-Key-File-3: ", "Private-MAC: ",
	"%41", "%2D", "%5F", "api%5Fkey%3D", "c2stcHJvai1hYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5eg", "YXBpX2tleT1hYmNkZWZnaGlqa2xtbg",
	"password hunter2x", "password changed", "token a1b2c3d4e5f6", "token expired", "secret ", "key ", " -p ", "-p hunter2x",
	" -u bob:hunter2", "--password ", "xoxe.", "xoxb-", "rk_" + strings.Repeat("a", 20), "fw_" + strings.Repeat("q", 20),
	"rzp_live_" + strings.Repeat("z", 14), "sk_" + strings.Repeat("b", 24), "abcdef_" + strings.Repeat("c", 29) + "_mmk",
	"1234567890:AA" + strings.Repeat("x", 33), "abc1Q~" + strings.Repeat("y", 34), "abcdefghijklmn.atlasv1." + strings.Repeat("d", 67),
	"0123456789abcdef0123456789abcdef-us21", "hooks.slack.com/services/", "AccountKey=", "=>", ":=", "\\n", "\\\"",
	"<add key=\"ClearTextPassword\" value=\"x\" />", "retry_after_seconds", "ERR_CONNECTION_REFUSED", "NullPointerException",
	"Stack trace:", "#0 /var/www/a.php(3): f()", "\tfrom /app/a.rb:1:in `f'", "<br>", "<pre>", "&quot;", "&lt;module&gt;",
	"   at App.Main() in C:\\src\\App.cs:line 9", "--- End of inner exception stack trace ---", " ---> ",
	// A finished sentence that is not quiet (':') and that no pass changes:
	// message redacts it once (work item (b)'s INVALID_ARGS message).
	"The arguments for book_flight are invalid: /frequent_flyer must match the pattern ^[A-Z]{2}-[0-9]{9}$.",
}

// fieldReportInputs are the B23 repro and texts from the other tests.
var fieldReportInputs = []string{
	"HTTPError 503 for url https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse&key=PLACEHOLDER_KEY_VALUE\nTraceback (most recent call last):\n  File \"/srv/app/client.py\", line 88, in call\nheaders={'Authorization': 'Bearer PLACEHOLDER_TOKEN_VALUE'}\npostgres://svc:PLACEHOLDER_PW@db.internal:5432/app",
	benchError, benchTrace,
}

// testLiterals returns every string literal in this package's other test
// files, so cases added there (adversarial tests included) are compared too.
func testLiterals(t testing.TB) []string {
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		if f == "fastpath_test.go" {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		fset := token.NewFileSet()
		var sc scanner.Scanner
		sc.Init(fset.AddFile(f, -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := sc.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.STRING {
				if s, err := strconv.Unquote(lit); err == nil {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// fastPathCorpus is the inputs, the fragments alone, and n random joins of 1
// to 6 fragments and inputs (a fixed seed: the corpus is the same every run).
func fastPathCorpus(t testing.TB, n int) []string {
	base := append(append(append([]string{}, fieldReportInputs...), fastPathFragments...), testLiterals(t)...)
	out := append([]string{}, base...)
	r := rand.New(rand.NewPCG(1, 2))
	for range n {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			if r.IntN(4) == 0 {
				b.WriteString(base[r.IntN(len(base))])
			} else {
				b.WriteString(fastPathFragments[r.IntN(len(fastPathFragments))])
			}
		}
		out = append(out, b.String())
	}
	return out
}

// slowMessage is message without the quiet fast path and without skipping
// the second redaction of a text redact and the sentence rules leave as it
// is: every pass runs, twice.
func slowMessage(s string) string {
	s = redactAll(s)
	if strings.TrimSpace(s) == "" {
		return ""
	}
	m, found := withoutTrace(s, firstSentence)
	if !found {
		m = firstSentence(collapse(dropFrames(s)))
	}
	return finishSentence(redactAll(m), MaxMessageChars)
}

// redactAll is redact without the quiet fast path.
func redactAll(s string) string { return redactPasses(visible(s), 0) }

// requireFastPathSound checks that the fast paths give what the full passes
// give for s.
func requireFastPathSound(t *testing.T, s string) {
	t.Helper()
	v := canonical.ValidString(s)
	require.Equal(t, redactAll(v), redact(v), "redact(%q)", s)
	require.Equal(t, slowMessage(v), message(v), "message(%q)", s)
	if quiet(v) {
		_, _, found := reduceTrace(v)
		require.False(t, found, "quiet text holds a trace: %q", s)
		require.Equal(t, v, dropFrames(v), "quiet text has frames: %q", s)
	}
}

func TestQuiet_cases(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    string
		want bool
	}{
		{"sentence", "Weather API returned 429 after 3 attempts.", true},
		{"empty", "", true},
		{"colon", "timeout: 10s", false},
		{"equals", "a=b", false},
		{"leading space", " x", false},
		{"newline", "a\nb", false},
		{"non-ASCII", "caf\u00e9", false},
		{"bearer", "send Bearer abc", false},
		{"basic word inside", "nonbasic x", true},
		{"openai key", "use sk-abcdefghijklmnopqrstuvwx now", false},
		{"short sk- is prose", "sk-x", true},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", false},
		{"rust panic", "thread 'main' panicked at 'boom', src", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, quiet(tc.s))
		})
	}
}

// FuzzFastPath_sound checks the fast paths on any input.
func FuzzFastPath_sound(f *testing.F) {
	for _, s := range fastPathCorpus(f, 0) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		requireFastPathSound(t, s)
	})
}

// TestSecretName_variants: every secret name is found whatever its case,
// with '-' for '_', behind a prefix or a dotted path; other names are not.
func TestSecretName_variants(t *testing.T) {
	secret := []string{"key", "pwd", "pass", "sig", "auth", "authorization", "proxy_authorization", "cookie", "set_cookie",
		"x_api_key", "api_key", "apikey", "token", "secret", "password", "passwd", "accesskey", "access_key", "secretkey",
		"secret_key", "privatekey", "private_key", "signature", "credential", "credentials"}
	for _, n := range secret {
		for _, v := range []string{n, strings.ToUpper(n), strings.ReplaceAll(n, "_", "-"), "a.b." + n} {
			require.True(t, secretName(v), "secretName(%q)", v)
		}
	}
	for _, n := range []string{"status", "tool", "x", "keyboard", "monkey_business", "attempt", "retry_after_seconds", "key.", strings.Repeat("x", 70) + "key"} {
		require.False(t, secretName(n), "secretName(%q)", n)
	}
}
