// Package redactcorpus is the redaction corpus the sanitizer is tested
// against: more than 150 kinds of secret, each a generator of a value in the
// shape the vendor issues (prefix, alphabet, length), the contexts a secret
// reaches toolerr in (a sentence, a JSON string, percent- or
// base64-encoded, split by a line break, inside a stack trace), and the
// check that an output carries no part of it.
//
// The kinds follow the public rule sets of two secret scanners, gitleaks
// (config/gitleaks.toml, https://github.com/gitleaks/gitleaks) and
// trufflehog (pkg/detectors, https://github.com/trufflesecurity/trufflehog);
// each Shape names the rule it follows. No value is written down anywhere:
// every body is drawn at test time from a seeded generator, so the
// repository holds prefixes and lengths, never a string a scanner would
// take for a live credential. Only tests import this package.
package redactcorpus

import (
	"encoding/base64"
	"hash/fnv"
	"math/rand/v2"
	"strings"
)

// Alphabets a generated body is drawn from.
const (
	Digits     = "0123456789"
	Lower      = "abcdefghijklmnopqrstuvwxyz"
	Upper      = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	Hex        = Digits + "abcdef"
	HexUpper   = Digits + "ABCDEF"
	Alnum      = Digits + Lower + Upper
	LowerDigit = Digits + Lower
	UpperDigit = Digits + Upper
	Letters    = Lower + Upper
	B64URL     = Alnum + "-_"
	B64        = Alnum + "+/"
	Base32AWS  = Upper + "234567"
	Bech32     = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	Bech32Up   = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

// G draws the random-looking but deterministic parts of a secret. Fake makes
// it draw values a reader (and a scanner's allow list) can tell are fake:
// each body starts with a run of the word FAKE (or of 0 for alphabets
// without those letters) and only the rest is drawn.
//
// Elide makes it draw "…" for every drawn part, for documentation
// (docs/sanitize.md shows each shape with its secret parts elided).
type G struct {
	r     *rand.Rand
	Fake  bool
	Elide bool
}

// NewG returns a generator seeded from seed: the same seed gives the same
// values on every run and machine.
func NewG(seed string) *G {
	h := fnv.New64a()
	h.Write([]byte(seed))
	s := h.Sum64()
	return &G{r: rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))}
}

// S returns n characters drawn from alphabet.
func (g *G) S(alphabet string, n int) string {
	if g.Elide {
		return "…"
	}
	b := make([]byte, n)
	start := 0
	if g.Fake {
		marker := fakeMarker(alphabet)
		for start < n/3 && start < len(b) {
			b[start] = marker[start%len(marker)]
			start++
		}
	}
	for i := start; i < n; i++ {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

// fakeMarker is the word a Fake body starts with, spelled in alphabet.
func fakeMarker(alphabet string) string {
	for _, w := range []string{"FAKE", "fake", "0fa1", "0"} {
		ok := true
		for i := 0; i < len(w); i++ {
			ok = ok && strings.IndexByte(alphabet, w[i]) >= 0
		}
		if ok {
			return w
		}
	}
	return alphabet[:1]
}

// UUID returns a version-4-shaped UUID in lower-case hex.
func (g *G) UUID() string {
	if g.Elide {
		return "…"
	}
	return g.S(Hex, 8) + "-" + g.S(Hex, 4) + "-4" + g.S(Hex, 3) + "-a" + g.S(Hex, 3) + "-" + g.S(Hex, 12)
}

// B64 returns the standard base64 encoding of n drawn bytes.
func (g *G) B64(n int) string {
	if g.Elide {
		return "…"
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	if g.Fake {
		copy(b, "FAKEFAKEFAKE")
	}
	return base64.StdEncoding.EncodeToString(b)
}

// Secret is one generated secret: Text is how it appears in the text toolerr
// is given (a key with its public prefix, NAME=value, a whole PEM block, a
// URL); Parts are the secret parts of it that no output may carry, whole, in
// a long fragment, or encoded.
type Secret struct {
	Text  string
	Parts []string
}

// Shape is one kind of secret.
type Shape struct {
	// Kind names the credential ("GitHub personal access token").
	Kind string
	// Rule is the public scanner rule the shape follows: "gitleaks
	// github-pat", "trufflehog groq".
	Rule string
	// Group is the section of docs/sanitize.md the kind is listed in.
	Group string
	make  func(g *G) Secret
}

// Make draws one secret of the shape.
func (s Shape) Make(g *G) Secret { return s.make(g) }

// token is a key with a public prefix and a drawn body: the body is secret.
func token(group, kind, rule, prefix, alphabet string, n int) Shape {
	return Shape{kind, rule, group, func(g *G) Secret {
		b := g.S(alphabet, n)
		return Secret{prefix + b, []string{b}}
	}}
}

// tokenParts is a key built from several drawn parts joined with public
// separators: each part is secret.
func tokenParts(group, kind, rule string, build func(g *G) (string, []string)) Shape {
	return Shape{kind, rule, group, func(g *G) Secret {
		t, p := build(g)
		return Secret{t, p}
	}}
}

// named is a value with no shape of its own, written the way a vendor's
// documentation or SDK names it: tmpl is the text with "{v}" where the value
// goes (`OPENAI_API_KEY={v}`, `"api-key": "{v}"`, `apiKey := "{v}"`).
func named(group, kind, rule, tmpl, alphabet string, n int) Shape {
	return namedValue(group, kind, rule, tmpl, func(g *G) string { return g.S(alphabet, n) })
}

// namedValue is named with a value built by fn.
func namedValue(group, kind, rule, tmpl string, fn func(g *G) string) Shape {
	return Shape{kind, rule, group, func(g *G) Secret {
		v := fn(g)
		return Secret{strings.Replace(tmpl, "{v}", v, 1), []string{v}}
	}}
}

// pemLines returns n lines of 64 base64 characters, the body of a PEM block
// (RFC 7468, 2).
func pemLines(g *G, n int) []string {
	if g.Elide {
		return []string{"…"}
	}
	lines := make([]string, n)
	for i := range lines {
		lines[i] = g.S(B64, 64)
	}
	lines[n-1] = lines[n-1][:40] + "=="
	return lines
}

// pem is a PEM private key block with the given label (RFC 7468, 10-11).
func pem(group, kind, rule, label string, headers ...string) Shape {
	return Shape{kind, rule, group, func(g *G) Secret {
		lines := pemLines(g, 8)
		h := ""
		if len(headers) > 0 {
			h = strings.Join(headers, "\n") + "\n\n"
		}
		return Secret{"-----BEGIN " + label + "-----\n" + h + strings.Join(lines, "\n") + "\n-----END " + label + "-----", lines}
	}}
}

func b64url(s string) string    { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
func base64Std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
