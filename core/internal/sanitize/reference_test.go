// Code generated from sanitize at commit aa01a6a by renaming every package-level name with a "ref" prefix. DO NOT EDIT.

// The reference implementation: the sanitizer before its fast paths, kept
// so that the differential tests can prove the fast paths change no output byte.

package sanitize

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Marker text around the omitted count: "[… 1,976,000 characters omitted …]".
const (
	ref_markerOpen  = "[… "
	ref_markerClose = " characters omitted …]"
)

// markerChars is the length in characters of the marker for a count that
// takes width characters.
func ref_markerChars(width int) int {
	return utf8.RuneCountInString(ref_markerOpen) + width + utf8.RuneCountInString(ref_markerClose)
}

// Cap shortens s to at most maxChars characters (code points), keeping a head
// and a tail and putting between them, on a line of its own, the marker
// "[… N characters omitted …]" with N the exact number of characters of s
// left out, written with thousands separators. The tail gets 60% of the room
// because it usually holds the error. Both cuts fall on code-point
// boundaries, and on line boundaries when a line break lies in the last
// quarter of the head's room or the first quarter of the tail's, so the
// result is valid UTF-8 (invalid input is repaired to U+FFFD first).
//
// A text of at most maxChars characters is returned as it is. When maxChars
// is too small to hold the marker (under about 40), the result is the first
// maxChars-1 characters and "…". A maxChars of 0 or less gives "".
//
// See shared/cases/field-reports.md B24.
func refCap(s string, maxChars int) (string, refCapInfo) {
	s = canonical.ValidString(s)
	n := utf8.RuneCountInString(s)
	info := refCapInfo{OriginalChars: n}
	if n <= maxChars {
		return s, info
	}
	info.Truncated = true
	if maxChars <= 0 {
		info.OmittedChars = n
		return "", info
	}
	kept := maxChars - ref_markerChars(len(ref_thousands(n))) - 2
	if kept < 2 {
		out := ref_headChars(s, maxChars-1)
		info.OmittedChars = n - (maxChars - 1)
		return out + "…", info
	}
	headRoom := kept * 2 / 5
	tailRoom := kept - headRoom

	headEnd := len(ref_headChars(s, headRoom))
	if i := strings.LastIndexByte(s[:headEnd], '\n'); i >= 0 && utf8.RuneCountInString(s[i:headEnd]) <= headRoom/4 {
		headEnd = i
	}
	head := strings.TrimSuffix(s[:headEnd], "\r")

	tailStart := len(s)
	for k := 0; k < tailRoom; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:tailStart])
		tailStart -= size
	}
	if j := strings.IndexByte(s[tailStart:], '\n'); j >= 0 && utf8.RuneCountInString(s[tailStart:tailStart+j]) <= tailRoom/4 {
		tailStart += j + 1
	}
	tail := s[tailStart:]

	info.OmittedChars = n - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	var b strings.Builder
	b.Grow(len(head) + len(tail) + 64)
	b.WriteString(head)
	b.WriteString("\n" + ref_markerOpen)
	b.WriteString(ref_thousands(info.OmittedChars))
	b.WriteString(ref_markerClose + "\n")
	b.WriteString(tail)
	return b.String(), info
}

// thousands formats n with a ',' every three digits: 1976000 -> "1,976,000".
func ref_thousands(n int) string {
	d := strconv.Itoa(n)
	if n < 0 || len(d) <= 3 {
		return d
	}
	var b []byte
	for i := range len(d) {
		if i > 0 && (len(d)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, d[i])
	}
	return string(b)
}

// editor builds the result of one pass lazily: until the first replacement
// it holds nothing, and done returns the source itself.
type ref_editor struct {
	src  string
	b    []byte
	last int
}

func (e *ref_editor) replace(start, end int, with string) {
	if e.b == nil {
		e.b = make([]byte, 0, len(e.src)+16)
	}
	e.b = append(e.b, e.src[e.last:start]...)
	e.b = append(e.b, with...)
	e.last = end
}

func (e *ref_editor) done() string {
	if e.b == nil {
		return e.src
	}
	return string(append(e.b, e.src[e.last:]...))
}

func ref_isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isTokChar is a character of an API key or token: alphanumerics, '_', '-'.
func ref_isTokChar(c byte) bool { return ref_isAlnum(c) || c == '_' || c == '-' }

// isB64Tok is a character of an RFC 6750 b64token (without the '=' padding).
func ref_isB64Tok(c byte) bool {
	return ref_isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
}

func ref_lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func ref_isAlphaWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := ref_lower(s[i]); c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// hasPrefixFold reports whether s[i:] starts with the lowercase ASCII word p,
// ignoring case.
func ref_hasPrefixFold(s string, i int, p string) bool {
	if len(s)-i < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if ref_lower(s[i+j]) != p[j] {
			return false
		}
	}
	return true
}

// span returns the end of the run of characters from i that satisfy ok.
func ref_span(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

// credentialLike reports whether a word after "Bearer", "Basic" or a
// secret-named key followed by ':' looks like a credential rather than prose:
// at least 8 characters with a digit, an upper-case letter after the first
// character, or a symbol other than '-' (prose such as "authentication" or
// "well-known" has none of them).
func ref_credentialLike(t string) bool {
	if len(t) < 8 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= '0' && c <= '9':
			return true
		case c >= 'A' && c <= 'Z' && i > 0:
			return true
		case c == '_' || c == '.' || c == '~' || c == '+' || c == '/' || c == '=':
			return true
		}
	}
	return false
}

// tokenEnd returns the end of the API key or JWT that starts at i, or -1.
// i must be at a token boundary.
func ref_tokenEnd(s string, i int) int {
	rest := s[i:]
	switch {
	case strings.HasPrefix(rest, "sk-"), strings.HasPrefix(rest, "sk_live_"), strings.HasPrefix(rest, "sk_test_"),
		strings.HasPrefix(rest, "rk_live_"):

		return ref_minBody(s, i, 3, 20, ref_isTokChar)
	case strings.HasPrefix(rest, "AIza"):
		return ref_minBody(s, i, 4, 30, ref_isTokChar)
	case strings.HasPrefix(rest, "AKIA"), strings.HasPrefix(rest, "ASIA"):
		end := ref_span(s, i+4, func(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' })
		if end-i-4 == 16 && (end == len(s) || !ref_isTokChar(s[end])) {
			return end
		}
	case len(rest) > 4 && rest[0] == 'g' && rest[1] == 'h' && strings.IndexByte("pousr", rest[2]) >= 0 && rest[3] == '_':
		return ref_minBody(s, i, 4, 30, ref_isAlnum)
	case strings.HasPrefix(rest, "github_pat_"):
		return ref_minBody(s, i, 11, 20, ref_isTokChar)
	case len(rest) > 5 && strings.HasPrefix(rest, "xox") && strings.IndexByte("abeprs", rest[3]) >= 0 && rest[4] == '-':
		return ref_minBody(s, i, 5, 10, ref_isTokChar)
	case strings.HasPrefix(rest, "glpat-"):
		return ref_minBody(s, i, 6, 20, ref_isTokChar)
	case strings.HasPrefix(rest, "hf_"):
		return ref_minBody(s, i, 3, 30, ref_isAlnum)
	case strings.HasPrefix(rest, "eyJ"):
		return ref_jwtEnd(s, i)
	}
	return -1
}

// minBody returns the end of prefix (n bytes) plus a body of at least min
// characters satisfying ok, or -1.
func ref_minBody(s string, i, n, min int, ok func(byte) bool) int {
	end := ref_span(s, i+n, ok)
	if end-i-n < min {
		return -1
	}
	return end
}

// jwtEnd returns the end of a JWT (three base64url segments, the first
// starting with eyJ, the signature possibly empty) at i, or -1.
func ref_jwtEnd(s string, i int) int {
	b64 := func(c byte) bool { return ref_isAlnum(c) || c == '-' || c == '_' }
	a := ref_span(s, i, b64)
	if a-i < 10 || a >= len(s) || s[a] != '.' {
		return -1
	}
	b := ref_span(s, a+1, b64)
	if b-a-1 < 4 || b >= len(s) || s[b] != '.' {
		return -1
	}
	return ref_span(s, b+1, b64)
}

func ref_redactTokens(s string) string {
	e := ref_editor{src: s}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 's' && c != 'r' && c != 'A' && c != 'g' && c != 'x' && c != 'h' && c != 'e' {
			continue
		}
		if i > 0 && ref_isTokChar(s[i-1]) {
			continue
		}
		if end := ref_tokenEnd(s, i); end > i {
			e.replace(i, end, refRedacted)
			i = end - 1
		}
	}
	return e.done()
}

func ref_redactUserinfo(s string) string {
	e := ref_editor{src: s}
	from := 0
	for {
		k := strings.Index(s[from:], "://")
		if k < 0 {
			return e.done()
		}
		k += from
		from = k + 3
		if k == 0 || !ref_isAlnum(s[k-1]) && s[k-1] != '+' && s[k-1] != '.' && s[k-1] != '-' {
			continue
		}
		end := from
		for end < len(s) && !strings.ContainsRune("/?# \t\r\n\"'<>`", rune(s[end])) {
			end++
		}
		at := strings.LastIndexByte(s[from:end], '@')
		if at < 0 {
			continue
		}
		at += from
		colon := strings.IndexByte(s[from:at], ':')
		if colon < 0 {
			continue
		}
		colon += from
		if pw := s[colon+1 : at]; pw != "" && pw != refRedacted {
			e.replace(colon+1, at, refRedacted)
		}
		from = end
	}
}

// secretExact are the normalized names (lower case, '-' as '_') that name a
// secret on their own; secretSuffix those that do at the end of a longer
// name (GITHUB_TOKEN, clientSecret, db_password).
func ref_secretExact(n string) bool {
	switch n {
	case "key", "pwd", "pass", "sig", "auth", "authorization", "proxy_authorization",
		"cookie", "set_cookie", "x_api_key", "api_key", "apikey":
		return true
	}
	return false
}

func ref_secretSuffix(n string) bool {
	for _, suf := range [...]string{"token", "secret", "password", "passwd", "apikey", "api_key",
		"accesskey", "access_key", "secretkey", "secret_key", "privatekey", "private_key",
		"signature", "credential", "credentials", "_pwd"} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return false
}

// secretName reports whether a parameter or field name names a secret. The
// comparison ignores case, treats '-' as '_' and looks only at the part after
// the last '.' (spring.datasource.password).
func ref_secretName(name string) bool {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || len(name) > 64 {
		return false
	}
	var buf [64]byte
	for i := 0; i < len(name); i++ {
		c := ref_lower(name[i])
		if c == '-' {
			c = '_'
		}
		buf[i] = c
	}
	n := string(buf[:len(name)])
	return ref_secretExact(n) || ref_secretSuffix(n)
}

func ref_isNameChar(c byte) bool { return ref_isTokChar(c) || c == '.' }

// isValueEnd ends an unquoted value.
func ref_isValueEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '&', ',', ';', '"', '\'', '`', '<', '>', ')', ']', '}', '#', '\\':
		return true
	}
	return false
}

func ref_redactPairs(s string) string {
	e := ref_editor{src: s}
	for i := 0; i < len(s); i++ {
		if s[i] != '=' && s[i] != ':' {
			continue
		}
		if end := ref_pairValue(&e, s, i); end > i {
			i = end - 1
		}
	}
	return e.done()
}

// pairValue handles the separator at sep: when the name before it is
// secret-named, it records the redaction of the value after it and returns
// the value's end; otherwise it returns -1.
func ref_pairValue(e *ref_editor, s string, sep int) int {

	j := sep
	for j > 0 && j > sep-4 && s[j-1] == ' ' {
		j--
	}
	quoted := byte(0)
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		quoted = s[j-1]
		j--
		if j > 0 && s[j-1] == '\\' {
			j--
		}
	}
	start := j
	for start > 0 && ref_isNameChar(s[start-1]) {
		start--
	}
	if start == j || !ref_secretName(s[start:j]) {
		return -1
	}
	if quoted != 0 && (start == 0 || s[start-1] != quoted) {
		return -1
	}
	if s[sep] == ':' && sep+2 < len(s) && s[sep+1] == '/' && s[sep+2] == '/' {
		return -1
	}

	v := sep + 1
	for v < len(s) && v < sep+5 && s[v] == ' ' {
		v++
	}
	if strings.HasPrefix(s[v:], refRedacted) {

		r := v + len(refRedacted)
		end := r
		if r < len(s) && (s[r] == '%' || ref_isB64Tok(s[r])) {
			end = ref_span(s, r, func(c byte) bool { return !ref_isValueEnd(c) })
			for end > r && s[end-1] == '.' {
				end--
			}
		}
		if end > r {
			e.replace(v, end, refRedacted)
		}
		return end
	}
	if q, qlen := ref_openQuote(s, v); qlen > 0 {
		if end := ref_closeQuote(s, v+qlen, q); end >= 0 {
			ref_redactValue(e, s, v+qlen, end)
			return end
		}
	}
	end := ref_span(s, v, func(c byte) bool { return !ref_isValueEnd(c) })
	for end > v && s[end-1] == '.' {
		end--
	}
	if end == v {
		return -1
	}
	if quoted == 0 && s[sep] == ':' && !ref_credentialLike(s[v:end]) && !ref_isAuthName(s[start:j]) {

		return end
	}
	if ref_isAuthName(s[start:j]) && ref_isAlphaWord(s[v:end]) && end < len(s) && s[end] == ' ' {

		c := end + 1
		ce := ref_span(s, c, func(b byte) bool { return !ref_isValueEnd(b) })
		if ce > c && !strings.HasPrefix(s[c:], refRedacted) {
			e.replace(c, ce, refRedacted)
		}
		return ce
	}
	e.replace(v, end, refRedacted)
	return end
}

func ref_isAuthName(n string) bool {
	n = strings.ToLower(n)
	return n == "authorization" || n == "proxy-authorization" || n == "proxy_authorization"
}

// openQuote reports the quote (", ' or \") that opens a value at v.
func ref_openQuote(s string, v int) (q string, n int) {
	switch {
	case v < len(s) && (s[v] == '"' || s[v] == '\''):
		return s[v : v+1], 1
	case strings.HasPrefix(s[v:], `\"`):
		return `\"`, 2
	}
	return "", 0
}

// closeQuote returns the index of the quote q that closes a value starting at
// from, on the same line, skipping backslash escapes; -1 when there is none.
func ref_closeQuote(s string, from int, q string) int {
	for i := from; i < len(s); i++ {
		switch {
		case s[i] == '\n':
			return -1
		case strings.HasPrefix(s[i:], q):
			return i
		case s[i] == '\\':
			i++
		}
	}
	return -1
}

// redactValue replaces the quoted value s[v:end], keeping an auth scheme
// word in front ("Bearer [REDACTED]").
func ref_redactValue(e *ref_editor, s string, v, end int) {
	if v == end {
		return
	}
	val := s[v:end]
	if sp := strings.IndexByte(val, ' '); sp > 0 && ref_isAlphaWord(val[:sp]) && strings.TrimSpace(val[sp:]) != "" {
		if strings.TrimSpace(val[sp:]) != refRedacted {
			e.replace(v+sp+1, end, refRedacted)
		}
		return
	}
	if val != refRedacted {
		e.replace(v, end, refRedacted)
	}
}

func ref_redactAuthSchemes(s string) string {
	e := ref_editor{src: s}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c != 'b' || (i > 0 && ref_isAlnum(s[i-1])) {
			continue
		}
		n := 0
		switch {
		case ref_hasPrefixFold(s, i, "bearer "):
			n = 7
		case ref_hasPrefixFold(s, i, "basic "):
			n = 6
		default:
			continue
		}
		t := i + n
		for t < len(s) && s[t] == ' ' {
			t++
		}
		end := ref_span(s, t, ref_isB64Tok)
		for end < len(s) && s[end] == '=' {
			end++
		}
		for end > t && s[end-1] == '.' {
			end--
		}
		if end == t {
			continue
		}
		if ref_credentialLike(s[t:end]) || ref_authContext(s, i) {
			e.replace(t, end, refRedacted)
		}
		i = end - 1
	}
	return e.done()
}

// authContext reports whether "authorization" appears in the 40 bytes before i.
func ref_authContext(s string, i int) bool {
	from := i - 40
	if from < 0 {
		from = 0
	}
	for j := from; j+13 <= i; j++ {
		if ref_hasPrefixFold(s, j, "authorization") {
			return true
		}
	}
	return false
}

// MaxMessageChars is the longest Message result, in characters (code points).
//
// See shared/design.md ("The envelope": message is one sanitized sentence).
const refMaxMessageChars = 300

// MaxDetailChars is the longest string Details keeps, in characters (code
// points); a longer one is shortened by Cap, keeping its head and tail.
//
// See shared/cases/field-reports.md B24.
const refMaxDetailChars = 1000

// Redacted replaces every secret Text finds.
//
// See shared/cases/field-reports.md B23 ("key=[REDACTED]").
const refRedacted = "[REDACTED]"

// withheld is what Text returns in the impossible case that a scanner fails:
// the original text is never returned when redaction may have applied.
const ref_withheld = "[text withheld: the sanitizer failed on it]"

// CapInfo reports what Cap did. OriginalChars is the length of the input in
// characters (code points); OmittedChars is how many of them the result does
// not carry (0 when Truncated is false).
//
// See shared/cases/field-reports.md B24 (truncated: true and the original length).
type refCapInfo struct {
	Truncated     bool
	OriginalChars int
	OmittedChars  int
}

// Text returns s with invalid UTF-8 replaced by U+FFFD and every secret it
// recognises replaced by [REDACTED]: provider API keys (OpenAI, Anthropic,
// Google, AWS, GitHub, Slack, ...), JWTs, the credential after "Bearer" or
// "Basic", the password in URL userinfo, and the value of secret-named
// parameters and pairs (key=..., "api_key": "...", X-Amz-Signature=...).
// Text that merely looks like prose is returned unchanged, and s itself is
// returned (no copy) when nothing changes.
//
// See shared/cases/field-reports.md B23 and docs/sanitize.md for every rule.
func refText(s string) string {
	return ref_guard(s, ref_redact)
}

// guard runs fn on the valid-UTF-8 form of s and never lets a fault in fn
// leak the original text: on a panic it returns a fixed placeholder.
func ref_guard(s string, fn func(string) string) (out string) {
	defer func() {
		if recover() != nil {
			out = ref_withheld
		}
	}()
	return fn(canonical.ValidString(s))
}

// redact applies every redaction pass in order. Each pass returns its input
// unchanged when it finds nothing.
func ref_redact(s string) string {
	s = ref_redactTokens(s)
	s = ref_redactUserinfo(s)
	s = ref_redactAuthSchemes(s)
	return ref_redactPairs(s)
}

// Message turns error text into the one sentence an envelope's message
// carries: Text, then a stack trace (Python, JavaScript, Go, Java, Rust)
// reduced to its final exception line with frames and file paths dropped,
// white space collapsed to single spaces, the first sentence kept, at most
// MaxMessageChars characters (a longer one ends in "…"), ending in terminal
// punctuation ('.' is added when missing). Empty or blank text gives "".
//
// See shared/cases/field-reports.md B23 and docs/sanitize.md.
func refMessage(s string) string {
	return ref_guard(s, ref_message)
}

func ref_message(s string) string {
	s = ref_redact(s)
	if strings.TrimSpace(s) == "" {
		return ""
	}
	m, found := ref_withoutTrace(s, ref_firstSentence)
	if !found {
		m = ref_firstSentence(ref_collapse(ref_dropFrames(s)))
	}
	m = ref_redact(m)
	return ref_finishSentence(m, refMaxMessageChars)
}

// withoutTrace reduces a stack trace in s to the text before it joined to the
// final exception line, each part with frames dropped, white space collapsed
// and then shortened by keep (firstSentence for a message, identity for a
// details string). found is false when s holds no trace.
func ref_withoutTrace(s string, keep func(string) string) (out string, found bool) {
	before, exc, found := ref_reduceTrace(s)
	if !found {
		return s, false
	}
	before = keep(ref_collapse(ref_dropFrames(before)))
	exc = keep(ref_collapse(exc))
	switch {
	case before == "" && exc == "":
		return "An error occurred (stack trace omitted)", true
	case before == "":
		return exc, true
	case exc == "":
		return before, true
	}
	return strings.TrimRight(before, ".:;,!? ") + ": " + exc, true
}

func ref_same(s string) string { return s }

// finishSentence caps m at max characters with "…" and makes it end in
// terminal punctuation.
func ref_finishSentence(m string, max int) string {
	m = strings.TrimRight(m, " ,;:")
	if m == "" {
		return ""
	}
	n := utf8.RuneCountInString(m)
	last, _ := utf8.DecodeLastRuneInString(m)
	terminal := last == '.' || last == '!' || last == '?' || last == '…'
	if n > max || (!terminal && n+1 > max) {
		return ref_cutWords(m, max-1) + "…"
	}
	if !terminal {
		m += "."
	}
	return m
}

// cutWords returns the first n characters of s, shortened to end before a
// space when one lies in the last 20 characters.
func ref_cutWords(s string, n int) string {
	h := ref_headChars(s, n)
	if len(h) < len(s) && s[len(h)] != ' ' {
		if i := strings.LastIndexByte(h, ' '); i > 0 && utf8.RuneCountInString(h[i:]) <= 20 {
			h = h[:i]
		}
	}
	return strings.TrimRight(h, " ,;:")
}

// headChars returns the first n code points of s (all of s when shorter).
func ref_headChars(s string, n int) string {
	if n <= 0 {
		return ""
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// Details returns d sanitized: d itself when nothing in it needs a change
// (no copy; callers must not rely on getting a fresh map), otherwise a deep
// copy in which every string, at any depth and in
// arrays too, is passed through Text, has any stack trace reduced to its final
// exception line (as Message does, but without cutting to one sentence) and
// is capped at MaxDetailChars characters;
// a string under a secret-named key ("api_key", "Authorization", "password",
// ...) is replaced by [REDACTED] whole (an auth scheme such as "Bearer " is
// kept). Keys are unchanged; nil stays nil. Values other than strings, maps
// and arrays are copied as they are.
//
// See shared/cases/field-reports.md B23.
func refDetails(d map[string]any) map[string]any {
	if d == nil {
		return nil
	}
	if ref_clean(d, false) {
		return d
	}
	out, ok := ref_detailValue(d, false).(map[string]any)
	if !ok {
		return map[string]any{}
	}
	return out
}

// clean reports whether detailValue would return v unchanged.
func ref_clean(v any, secret bool) bool {
	switch x := v.(type) {
	case string:
		if secret {
			return ref_redactWhole(x) == x
		}
		return ref_detailString(x) == x
	case map[string]any:
		for k, e := range x {
			if !ref_clean(e, secret || ref_secretName(k)) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !ref_clean(e, secret) {
				return false
			}
		}
		return true
	case map[string]string, []string:
		return false
	}
	return true
}

func ref_detailValue(v any, secret bool) any {
	switch x := v.(type) {
	case string:
		if secret {
			return ref_redactWhole(x)
		}
		return ref_guard(x, ref_detailString)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = ref_detailValue(e, secret || ref_secretName(k))
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = ref_detailValue(e, secret)
		}
		return a
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = ref_detailValue(e, secret || ref_secretName(k))
		}
		return m
	case []string:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = ref_detailValue(e, secret)
		}
		return a
	}
	return v
}

// detailString sanitizes one details string: redacted, a stack trace reduced
// to its final exception line (issue 2, item 4: "every string in details"),
// capped at MaxDetailChars characters.
func ref_detailString(s string) string {
	s = ref_redact(s)
	if r, found := ref_withoutTrace(s, ref_same); found {
		s = ref_redact(r)
	}
	out, _ := refCap(s, refMaxDetailChars)
	return out
}

// redactWhole replaces a secret value, keeping a leading auth scheme word
// ("Bearer abc" becomes "Bearer [REDACTED]").
func ref_redactWhole(s string) string {
	if s == "" {
		return ""
	}
	if i := strings.IndexByte(s, ' '); i > 0 && ref_isAlphaWord(s[:i]) && strings.TrimSpace(s[i:]) != "" {
		return canonical.ValidString(s[:i]) + " " + refRedacted
	}
	return refRedacted
}

// reduceTrace finds a stack trace in s and splits s into the text before the
// trace and the trace's final exception line; found is false when s holds no
// trace. Languages are tried in a fixed order: Python, Rust, Go, then the
// "at ..." frames that Java and JavaScript share.
func ref_reduceTrace(s string) (before, exc string, found bool) {
	if !strings.Contains(s, "Traceback (most recent call last):") && !strings.Contains(s, "panicked at ") &&
		!strings.Contains(s, "stack backtrace:") && !strings.Contains(s, "goroutine ") && !strings.Contains(s, "at ") {
		return "", "", false
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	for _, f := range [...]func([]string) (string, string, bool){ref_pythonTrace, ref_rustTrace, ref_goTrace, ref_atTrace} {
		if b, e, ok := f(lines); ok {
			return b, e, true
		}
	}
	return "", "", false
}

func ref_join(lines []string) string { return strings.Join(lines, "\n") }

func ref_indented(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') }

// pythonTrace: "Traceback (most recent call last):", indented frames, then
// the exception line(s). With chained exceptions the last traceback wins.
//
// See https://docs.python.org/3/library/traceback.html.
func ref_pythonTrace(lines []string) (string, string, bool) {
	first, last := -1, -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "Traceback (most recent call last):" {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return "", "", false
	}
	j := last + 1
	for j < len(lines) && (ref_indented(lines[j]) || strings.TrimSpace(lines[j]) == "") {
		j++
	}
	k := j
	for k < len(lines) && strings.TrimSpace(lines[k]) != "" {
		k++
	}
	return ref_join(lines[:first]), ref_join(lines[j:k]), true
}

// rustTrace: "thread 'main' panicked at src/main.rs:2:5:" followed by the
// message (Rust 1.73+), or "thread 'main' panicked at 'msg', src/main.rs:2:5"
// (older); "note: run with `RUST_BACKTRACE=1`" and "stack backtrace:" with
// everything after it are dropped.
//
// See https://doc.rust-lang.org/std/macro.panic.html.
func ref_rustTrace(lines []string) (string, string, bool) {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "thread '") {
			at := strings.Index(t, "' panicked at ")
			if at < 0 {
				continue
			}
			rest := t[at+len("' panicked at "):]
			if strings.HasPrefix(rest, "'") {
				if q := strings.LastIndex(rest, "', "); q > 0 {
					return ref_join(lines[:i]), rest[1:q], true
				}
				return ref_join(lines[:i]), "", true
			}
			k := i + 1
			for k < len(lines) {
				u := strings.TrimSpace(lines[k])
				if u == "" || strings.HasPrefix(u, "note: ") || u == "stack backtrace:" {
					break
				}
				k++
			}
			return ref_join(lines[:i]), ref_join(lines[i+1 : k]), true
		}
		if t == "stack backtrace:" {
			return ref_join(lines[:i]), "", true
		}
	}
	return "", "", false
}

// goTrace: "panic: <message>" (or "fatal error: ...") then "goroutine N
// [running]:" and its frames; everything from the first goroutine header on
// is dropped and the last panic line before it is the exception.
//
// See https://pkg.go.dev/runtime#hdr-Environment_Variables (GOTRACEBACK).
func ref_goTrace(lines []string) (string, string, bool) {
	for g, l := range lines {
		if !ref_goroutineHeader(strings.TrimSpace(l)) {
			continue
		}
		for p := g - 1; p >= 0; p-- {
			t := strings.TrimSpace(lines[p])
			if strings.HasPrefix(t, "panic: ") || strings.HasPrefix(t, "fatal error: ") {

				q := p
				for q > 0 && strings.HasPrefix(strings.TrimSpace(lines[q-1]), "panic: ") {
					q--
				}
				return ref_join(lines[:q]), t, true
			}
		}
		return ref_join(lines[:g]), "", true
	}
	return "", "", false
}

// goroutineHeader matches "goroutine 1 [running]:".
func ref_goroutineHeader(t string) bool {
	rest, ok := strings.CutPrefix(t, "goroutine ")
	if !ok {
		return false
	}
	d := ref_span(rest, 0, func(c byte) bool { return c >= '0' && c <= '9' })
	return d > 0 && strings.HasPrefix(rest[d:], " [") && strings.HasSuffix(rest, "]:")
}

// atTrace: Java ("\tat com.x.Y.f(Y.java:1)", "Caused by: ...", "\t... 3
// more") and JavaScript ("    at f (file.js:1:2)"). The line before the
// first frame is the exception; the last "Caused by:" line, the root cause,
// replaces it. Text after the trace is dropped.
//
// See https://docs.oracle.com/javase/8/docs/api/java/lang/Throwable.html#printStackTrace--
// and https://v8.dev/docs/stack-trace-api.
func ref_atTrace(lines []string) (string, string, bool) {
	f := -1
	for i, l := range lines {
		if ref_atFrame(l) {
			f = i
			break
		}
	}
	if f < 0 {
		return "", "", false
	}
	exc, head := "", f
	if f > 0 {
		head = f - 1
		exc = strings.TrimSpace(lines[head])
	}
	for _, l := range lines[f+1:] {
		if c, ok := strings.CutPrefix(strings.TrimSpace(l), "Caused by: "); ok {
			exc = c
		}
	}
	if rest, ok := strings.CutPrefix(exc, "Exception in thread \""); ok {
		if q := strings.Index(rest, "\" "); q >= 0 {
			exc = rest[q+2:]
		}
	}
	return ref_join(lines[:head]), exc, true
}

// atFrame matches an indented "at ..." frame that names a location.
func ref_atFrame(l string) bool {
	if !ref_indented(l) {
		return false
	}
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, "at ") {
		return false
	}
	return ref_hasLineNumber(t) || strings.Contains(t, "(Native Method)") ||
		strings.Contains(t, "(Unknown Source)") || strings.Contains(t, "<anonymous>") || strings.HasSuffix(t, "(native)")
}

// hasLineNumber reports whether t contains ':' followed by a digit.
func ref_hasLineNumber(t string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i] == ':' && t[i+1] >= '0' && t[i+1] <= '9' {
			return true
		}
	}
	return false
}

// frameLine reports whether a line is a stack frame of any of the five
// languages (it carries a file path) or trace furniture.
func ref_frameLine(lines []string, i int) bool {
	l := lines[i]
	t := strings.TrimSpace(l)
	switch {
	case t == "":
		return false
	case ref_atFrame(l):
		return true
	case strings.HasPrefix(t, `File "`) && strings.Contains(t, `", line `):
		return true
	case strings.Trim(t, "^~ ") == "":
		return true
	case strings.HasPrefix(t, "...") && (strings.HasSuffix(t, " more") || strings.HasSuffix(t, "omitted")):
		return true
	case ref_indented(l) && ref_goFileLine(t):
		return true
	case i+1 < len(lines) && ref_indented(lines[i+1]) && ref_goFileLine(strings.TrimSpace(lines[i+1])) && strings.HasSuffix(t, ")"):
		return true
	case strings.HasPrefix(t, "created by ") && i+1 < len(lines) && ref_goFileLine(strings.TrimSpace(lines[i+1])):
		return true
	case strings.HasPrefix(t, "note: run with `RUST_BACKTRACE"), strings.HasPrefix(t, "note: Some details are omitted"):
		return true
	}
	return false
}

// goFileLine matches "path/file.go:12" optionally followed by " +0x1d".
func ref_goFileLine(t string) bool {
	i := strings.Index(t, ".go:")
	return i > 0 && i+4 < len(t) && t[i+4] >= '0' && t[i+4] <= '9'
}

// dropFrames removes stack-frame lines from s.
func ref_dropFrames(s string) string {
	if !strings.Contains(s, "\n") && !strings.HasPrefix(s, " ") && !strings.HasPrefix(s, "\t") {
		return s
	}
	lines := strings.Split(s, "\n")
	kept := lines[:0:0]
	for i := range lines {
		if !ref_frameLine(lines, i) {
			kept = append(kept, lines[i])
		}
	}
	return ref_join(kept)
}

// collapse replaces every run of white space with one space and trims both
// ends; s itself is returned when it has nothing to collapse.
func ref_collapse(s string) string {
	if !ref_needsCollapse(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && len(b) > 0 {
			b = append(b, ' ')
		}
		space = false
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

func ref_needsCollapse(s string) bool {
	prevSpace := true
	for _, r := range s {
		sp := unicode.IsSpace(r)
		if sp && (r != ' ' || prevSpace) {
			return true
		}
		prevSpace = sp
	}
	return prevSpace && s != ""
}

// firstSentence returns s up to the end of its first sentence: '.', '!' or
// '?' followed by a space and an upper-case letter. A single-letter word
// before the '.' ("e.g. X", "U.S. Army") does not end a sentence.
func ref_firstSentence(s string) string {
	for i := 0; i+2 < len(s); i++ {
		c := s[i]
		if (c != '.' && c != '!' && c != '?') || s[i+1] != ' ' {
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i+2:])
		if !unicode.IsUpper(r) {
			continue
		}
		if c == '.' && i >= 1 && (i == 1 || s[i-2] == ' ' || s[i-2] == '.') && ref_isAlnum(s[i-1]) {
			continue
		}
		return s[:i+1]
	}
	return s
}
