package sanitize

import (
	"sort"
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// unwrapTrace returns the text of a stack trace that s carries wrapped, and
// whether it found one:
//
//   - inside JSON (a tool that returned {"detail": "Traceback ...\n  File
//     ..."} as its error message): the first JSON string of the value, in
//     document order with object members by sorted key, that holds a trace,
//     after any text before the JSON;
//   - as escaped text that does not parse as JSON: s with its JSON escapes
//     (\n, \t, \", \\, \/) decoded;
//   - as HTML (a framework's error page, a <pre> block with <br> for line
//     breaks): s with <br> as a line break, other tags removed and the
//     entities decoded (&lt; &gt; &amp; &quot; &#39; &#x27; &nbsp;).
//
// The result is given to reduceLines, never unwrapped again.
func unwrapTrace(s string) (string, bool) {
	if strings.Contains(s, `\n`) {
		if u, ok := jsonTrace(s); ok {
			return u, true
		}
		if u := unescapeJSON(s); maybeTrace(u) {
			return u, true
		}
	}
	if looksHTML(s) {
		if u := htmlText(s); maybeTrace(u) {
			return u, true
		}
	}
	return "", false
}

// jsonTrace finds the JSON value that starts at the first '{', '[' or '"'
// of s and returns the text before it joined to its first string that holds
// a trace.
func jsonTrace(s string) (string, bool) {
	j := strings.IndexAny(s, `{["`)
	if j < 0 {
		return "", false
	}
	v, err := canonical.Parse([]byte(strings.TrimSpace(s[j:])))
	if err != nil {
		return "", false
	}
	t, ok := traceString(v, 0)
	if !ok {
		return "", false
	}
	if before := strings.TrimSpace(s[:j]); before != "" {
		t = before + "\n" + t
	}
	return t, true
}

// traceString returns the first string in v that holds a trace (up to 32
// levels deep).
func traceString(v any, depth int) (string, bool) {
	if depth > 32 {
		return "", false
	}
	switch x := v.(type) {
	case string:
		if _, _, found := reduceLines(x); found {
			return x, true
		}
	case []any:
		for _, e := range x {
			if t, ok := traceString(e, depth+1); ok {
				return t, true
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if t, ok := traceString(x[k], depth+1); ok {
				return t, true
			}
		}
	}
	return "", false
}

// unescapeJSON decodes the JSON string escapes \n \r \t \" \\ \/ in s;
// anything else is kept as it is.
func unescapeJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '"', '\\', '/':
			b.WriteByte(s[i+1])
		default:
			b.WriteByte(s[i])
			continue
		}
		i++
	}
	return b.String()
}

// looksHTML reports whether s holds an HTML line break, a <pre> block or an
// entity.
func looksHTML(s string) bool {
	for _, m := range [...]string{"<br", "<BR", "<pre", "<PRE", "&lt;", "&gt;", "&quot;", "&#", "&amp;", "&nbsp;"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// htmlText returns the text of an HTML fragment: <br> (any case, any
// attributes, self-closing or not) as a line break, <p>, </p>, </div>,
// </li> and </tr> as line breaks too, every other tag removed, and the
// entities an error page uses decoded.
//
// See https://html.spec.whatwg.org/multipage/named-characters.html.
func htmlText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			tag := strings.ToLower(strings.Trim(s[i+1:i+end], "/ "))
			if name, _, _ := strings.Cut(tag, " "); name == "br" || name == "p" || name == "div" || name == "li" || name == "tr" {
				b.WriteByte('\n')
			}
			i += end + 1
		case '&':
			if r, n := entity(s[i:]); n > 0 {
				b.WriteString(r)
				i += n
				continue
			}
			b.WriteByte('&')
			i++
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// entity decodes the HTML entity at the start of s and returns its text
// and length, or n 0 when s does not start with one it knows.
func entity(s string) (string, int) {
	for _, e := range [...]struct{ name, text string }{
		{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", `"`}, {"&#39;", "'"}, {"&#x27;", "'"},
		{"&apos;", "'"}, {"&nbsp;", " "}, {"&#34;", `"`}, {"&#x2F;", "/"}, {"&#47;", "/"},
	} {
		if strings.HasPrefix(s, e.name) {
			return e.text, len(e.name)
		}
	}
	return "", 0
}
