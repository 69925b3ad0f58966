package redactcorpus

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
)

// FragmentChars is the length of the shortest fragment of a secret part
// that counts as a leak: no output may carry FragmentChars consecutive
// characters of a part (a part shorter than that must not appear whole).
const FragmentChars = 12

// encodedFragmentChars is the same for the base64 encoding of a secret:
// 20 base64 characters carry 15 bytes.
const encodedFragmentChars = 20

// Context is one way a secret reaches toolerr: Wrap returns the text that
// carries it.
type Context struct {
	Name string
	Wrap func(s Secret) string
}

// Contexts returns every context, each a text around s.Text:
//
//   - sentence: the secret in an error sentence;
//   - json: inside a JSON string (quotes and line breaks escaped);
//   - percent: every byte but letters and digits percent-encoded, in a
//     query string (RFC 3986, 2.1), so the secret's name and prefix are
//     encoded too ("api%5Fkey%3Dsk%2Dproj...");
//   - base64, base64url: the whole secret base64-encoded (RFC 4648, 4 and 5);
//   - split: a line break inside the first secret part, as a terminal or a
//     log wrapper breaks a long line;
//   - trace: the final line of a Python traceback.
func Contexts() []Context {
	return []Context{
		{"sentence", func(s Secret) string {
			return "the upstream call failed with " + s.Text + " in the request; retry later"
		}},
		{"json", func(s Secret) string {
			return `{"error": {"message": "request rejected", "detail": ` + jsonString(s.Text) + `}}`
		}},
		{"percent", func(s Secret) string {
			return "GET https://api.example.test/v1/items?page=2&cursor=" + PercentAll(s.Text) + "&limit=5 failed"
		}},
		{"base64", func(s Secret) string {
			return "the gateway echoed " + base64.StdEncoding.EncodeToString([]byte(s.Text)) + " back"
		}},
		{"base64url", func(s Secret) string {
			return "state=" + base64.RawURLEncoding.EncodeToString([]byte(s.Text)) + " was refused"
		}},
		{"split", func(s Secret) string { return "log line one\n" + Split(s) + "\nlog line three" }},
		{"trace", func(s Secret) string {
			return "Traceback (most recent call last):\n  File \"/srv/app/tool.py\", line 12, in run\n    client.call()\n" +
				"RuntimeError: upstream rejected " + s.Text
		}},
	}
}

// Split returns s.Text with a line break in the middle of its first part.
func Split(s Secret) string {
	p := s.Parts[0]
	i := strings.Index(s.Text, p)
	if i < 0 || len(p) < 2 {
		return s.Text
	}
	k := i + len(p)/2
	return s.Text[:k] + "\n" + s.Text[k:]
}

// PercentAll percent-encodes every byte of s but ASCII letters and digits.
func PercentAll(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// Checker finds a secret in an output.
type Checker struct {
	whole map[string]string         // needle -> what it is
	grams map[int]map[string]string // fragment length -> needle -> what it is
}

// NewChecker returns the checker for s: each part whole, each fragment of
// FragmentChars characters of a part, each part percent-encoded, and the
// base64 forms of the whole secret and of each part (fragments of
// encodedFragmentChars characters).
func NewChecker(s Secret) *Checker {
	c := &Checker{whole: map[string]string{}, grams: map[int]map[string]string{}}
	add := func(n int, needle, what string) {
		if len(needle) <= n {
			c.whole[needle] = what
			return
		}
		m := c.grams[n]
		if m == nil {
			m = map[string]string{}
			c.grams[n] = m
		}
		for i := 0; i+n <= len(needle); i++ {
			m[needle[i:i+n]] = what + " (fragment)"
		}
	}
	for _, p := range s.Parts {
		add(FragmentChars, p, "secret part")
		for _, e := range []string{PercentAll(p), url.QueryEscape(p), url.PathEscape(p)} {
			if e != p {
				c.whole[e] = "percent-encoded secret part"
			}
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		add(encodedFragmentChars, strings.TrimRight(enc.EncodeToString([]byte(s.Text)), "="), "base64 of the secret")
		for _, p := range s.Parts {
			add(encodedFragmentChars, strings.TrimRight(enc.EncodeToString([]byte(p)), "="), "base64 of a secret part")
		}
	}
	return c
}

// Leak returns what of the secret out carries ("" when nothing): out as it
// is and with every backslash removed (an output that nests JSON in JSON
// escapes the secret's own characters).
func (c *Checker) Leak(out string) string {
	for _, o := range []string{out, strings.ReplaceAll(out, `\`, "")} {
		for needle, what := range c.whole {
			if strings.Contains(o, needle) {
				return what + ": " + needle
			}
		}
		for n, m := range c.grams {
			for i := 0; i+n <= len(o); i++ {
				if what, ok := m[o[i:i+n]]; ok {
					return what + ": " + o[i:i+n]
				}
			}
		}
	}
	return ""
}

// Case is one secret of the corpus in one context.
type Case struct {
	Shape   Shape
	Secret  Secret
	Context Context
	Check   *Checker
	// Text is the secret in its context: what toolerr is given.
	Text string
}

// Cases returns every shape in every context, each secret drawn from a
// generator seeded with its kind (fake as G.Fake says).
func Cases(fake bool) []Case {
	var out []Case
	for _, sh := range Shapes() {
		g := NewG(sh.Kind)
		g.Fake = fake
		sec := sh.Make(g)
		check := NewChecker(sec)
		for _, ctx := range Contexts() {
			out = append(out, Case{Shape: sh, Secret: sec, Context: ctx, Check: check, Text: ctx.Wrap(sec)})
		}
	}
	return out
}
