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

// The fast paths (quiet, maybeTrace, tokenStart, the ASCII white-space test)
// must not change one output byte: every test here compares the sanitizer
// with the reference copy in reference_test.go.

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
		if f == "reference_test.go" || f == "fastpath_test.go" {
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

func requireSameAsReference(t *testing.T, s string) {
	t.Helper()
	require.Equal(t, refText(s), Text(s), "Text(%q)", s)
	require.Equal(t, refMessage(s), Message(s), "Message(%q)", s)
	require.Equal(t, ref_detailString(ref_redact(canonical.ValidString(s))), detailString(redact(canonical.ValidString(s))), "detailString(%q)", s)
	d := map[string]any{"s": s, "api_key": s, "list": []any{s, 1.0}}
	require.Equal(t, refDetails(d), Details(d), "Details(%q)", s)
	for _, k := range []string{s, "x-" + s, s + "_token", s + ".password"} {
		if detailKey(k) != k {
			continue // keys are sanitized since the reference was taken (TestDetails_keysSanitized)
		}
		d = map[string]any{k: "Bearer abcdef", "n": map[string]any{k: []any{"v w"}}}
		require.Equal(t, refDetails(d), Details(d), "Details with key %q", k)
	}
}

func TestMessage_matchesReference(t *testing.T) {
	for _, s := range fastPathCorpus(t, 50000) {
		requireSameAsReference(t, s)
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

// FuzzMessage_matchesReference compares Text, Message, the details string
// pass and Details with the reference on any input.
func FuzzMessage_matchesReference(f *testing.F) {
	for _, s := range fastPathCorpus(f, 0) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		requireSameAsReference(t, s)
	})
}

func BenchmarkMessage_reference(b *testing.B) {
	for _, in := range []struct{ name, s string }{{"clean sentence", "Weather API returned 429 after 3 attempts."}, {"provider error", benchError}, {"python trace", benchTrace}} {
		b.Run(in.name+"/new", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Message(in.s)
			}
		})
		b.Run(in.name+"/reference", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = refMessage(in.s)
			}
		})
	}
}

func BenchmarkDetails_reference(b *testing.B) {
	d := map[string]any{"status": 429, "retry_after_seconds": 12, "tool": "get_weather"}
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Details(d)
		}
	})
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = refDetails(d)
		}
	})
}

// TestSecretName_matchesReference tries every secret name, changed in case,
// '-' for '_', with a prefix, a dotted path, and cut by one byte.
func TestSecretName_matchesReference(t *testing.T) {
	names := []string{"key", "pwd", "pass", "sig", "auth", "authorization", "proxy_authorization", "cookie", "set_cookie",
		"x_api_key", "api_key", "apikey", "token", "secret", "password", "passwd", "accesskey", "access_key", "secretkey",
		"secret_key", "privatekey", "private_key", "signature", "credential", "credentials", "_pwd", "status", "tool", "x"}
	for _, n := range names {
		for _, v := range []string{n, strings.ToUpper(n), strings.ReplaceAll(n, "_", "-"), "GITHUB_" + strings.ToUpper(n),
			"client" + n, "a.b." + n, n + "s", n[:len(n)-1], n + ".", strings.Repeat("x", 60) + n} {
			require.Equal(t, ref_secretName(v), secretName(v), "secretName(%q)", v)
		}
	}
}
