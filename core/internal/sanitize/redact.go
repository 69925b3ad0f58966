package sanitize

import "strings"

// editor builds the result of one pass lazily: until the first replacement
// it holds nothing, and done returns the source itself.
type editor struct {
	src  string
	b    []byte
	last int
}

func (e *editor) replace(start, end int, with string) {
	if e.b == nil {
		e.b = make([]byte, 0, len(e.src)+16)
	}
	e.b = append(e.b, e.src[e.last:start]...)
	e.b = append(e.b, with...)
	e.last = end
}

func (e *editor) done() string {
	if e.b == nil {
		return e.src
	}
	return string(append(e.b, e.src[e.last:]...))
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isTokChar is a character of an API key or token: alphanumerics, '_', '-'.
func isTokChar(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

// isB64Tok is a character of an RFC 6750 b64token (without the '=' padding).
func isB64Tok(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isAlphaWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := lower(s[i]); c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// hasPrefixFold reports whether s[i:] starts with the lowercase ASCII word p,
// ignoring case.
func hasPrefixFold(s string, i int, p string) bool {
	if len(s)-i < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if lower(s[i+j]) != p[j] {
			return false
		}
	}
	return true
}

// span returns the end of the run of characters from i that satisfy ok.
func span(s string, i int, ok func(byte) bool) int {
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
func credentialLike(t string) bool {
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

// --- Pass 1: provider keys and JWTs, recognised by their own shape.

// tokenEnd returns the end of the API key or JWT that starts at i, or -1.
// i must be at a token boundary.
func tokenEnd(s string, i int) int {
	rest := s[i:]
	switch {
	case strings.HasPrefix(rest, "sk-"), strings.HasPrefix(rest, "sk_live_"), strings.HasPrefix(rest, "sk_test_"),
		strings.HasPrefix(rest, "rk_live_"):
		// OpenAI sk-..., sk-proj-...; Anthropic sk-ant-api03-...; Stripe sk_live_...
		return minBody(s, i, 3, 20, isTokChar)
	case strings.HasPrefix(rest, "AIza"): // Google API key: AIza + 35
		return minBody(s, i, 4, 30, isTokChar)
	case strings.HasPrefix(rest, "AKIA"), strings.HasPrefix(rest, "ASIA"): // AWS access key id: 4 + 16
		end := span(s, i+4, func(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' })
		if end-i-4 == 16 && (end == len(s) || !isTokChar(s[end])) {
			return end
		}
	case len(rest) > 4 && rest[0] == 'g' && rest[1] == 'h' && strings.IndexByte("pousr", rest[2]) >= 0 && rest[3] == '_':
		return minBody(s, i, 4, 30, isAlnum) // GitHub ghp_, gho_, ghu_, ghs_, ghr_
	case strings.HasPrefix(rest, "github_pat_"):
		return minBody(s, i, 11, 20, isTokChar)
	case len(rest) > 5 && strings.HasPrefix(rest, "xox") && strings.IndexByte("abeprs", rest[3]) >= 0 && rest[4] == '-':
		return minBody(s, i, 5, 10, isTokChar) // Slack xoxb-, xoxp-, ...
	case strings.HasPrefix(rest, "glpat-"): // GitLab
		return minBody(s, i, 6, 20, isTokChar)
	case strings.HasPrefix(rest, "hf_"): // Hugging Face
		return minBody(s, i, 3, 30, isAlnum)
	case strings.HasPrefix(rest, "eyJ"):
		return jwtEnd(s, i)
	}
	return -1
}

// minBody returns the end of prefix (n bytes) plus a body of at least min
// characters satisfying ok, or -1.
func minBody(s string, i, n, min int, ok func(byte) bool) int {
	end := span(s, i+n, ok)
	if end-i-n < min {
		return -1
	}
	return end
}

// jwtEnd returns the end of a JWT (three base64url segments, the first
// starting with eyJ, the signature possibly empty) at i, or -1.
func jwtEnd(s string, i int) int {
	b64 := func(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }
	a := span(s, i, b64)
	if a-i < 10 || a >= len(s) || s[a] != '.' {
		return -1
	}
	b := span(s, a+1, b64)
	if b-a-1 < 4 || b >= len(s) || s[b] != '.' {
		return -1
	}
	return span(s, b+1, b64)
}

func redactTokens(s string) string {
	e := editor{src: s}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 's' && c != 'r' && c != 'A' && c != 'g' && c != 'x' && c != 'h' && c != 'e' {
			continue
		}
		if !tokenStart(s, i) || i > 0 && isTokChar(s[i-1]) {
			continue
		}
		if end := tokenEnd(s, i); end > i {
			e.replace(i, end, Redacted)
			i = end - 1
		}
	}
	return e.done()
}

// --- Pass 2: the password in URL userinfo (scheme://user:password@host).

func redactUserinfo(s string) string {
	e := editor{src: s}
	from := 0
	for {
		k := strings.Index(s[from:], "://")
		if k < 0 {
			return e.done()
		}
		k += from
		from = k + 3
		if k == 0 || !isAlnum(s[k-1]) && s[k-1] != '+' && s[k-1] != '.' && s[k-1] != '-' {
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
		if pw := s[colon+1 : at]; pw != "" && pw != Redacted {
			e.replace(colon+1, at, Redacted)
		}
		from = end
	}
}

// --- Pass 3: values of secret-named keys: key=v, key: v, "key": "v", 'key': 'v'.

// secretExact are the normalized names (lower case, '-' as '_') that name a
// secret on their own; secretSuffix those that do at the end of a longer
// name (GITHUB_TOKEN, clientSecret, db_password).
//
// Both take the name as written: the comparison folds case and '-' (foldSuffix).
func secretExact(n string) bool {
	for _, x := range [...]string{"key", "pwd", "pass", "sig", "auth", "authorization", "proxy_authorization",
		"cookie", "set_cookie", "x_api_key", "api_key", "apikey"} {
		if len(n) == len(x) && foldSuffix(n, x) {
			return true
		}
	}
	return false
}

func secretSuffix(n string) bool {
	for _, suf := range [...]string{"token", "secret", "password", "passwd", "apikey", "api_key",
		"accesskey", "access_key", "secretkey", "secret_key", "privatekey", "private_key",
		"signature", "credential", "credentials", "_pwd"} {
		if foldSuffix(n, suf) {
			return true
		}
	}
	return false
}

// secretName reports whether a parameter or field name names a secret. The
// comparison ignores case, treats '-' as '_' and looks only at the part after
// the last '.' (spring.datasource.password).
func secretName(name string) bool {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if len(name) < 3 || len(name) > 64 || !secretTail(lower(name[len(name)-2]), lower(name[len(name)-1])) {
		return false
	}
	return secretExact(name) || secretSuffix(name)
}

// secretTail reports whether a and b, a name's last two bytes lower-cased,
// end some name of secretExact or secretSuffix: a name ending otherwise
// ("status", "tool") is not secret, without comparing it to each.
func secretTail(a, b byte) bool {
	switch string([]byte{a, b}) {
	case "ey", "wd", "ss", "ig", "th", "on", "ie", "en", "et", "rd", "re", "al", "ls":
		return true
	}
	return false
}

// foldSuffix reports whether name ends in suf, a lower-case name with '_'
// for '-', comparing from the end with ASCII case folded and '-' read as
// '_'; most names differ at their last byte, so it returns at once.
func foldSuffix(name, suf string) bool {
	if len(name) < len(suf) {
		return false
	}
	for i, j := len(name)-1, len(suf)-1; j >= 0; i, j = i-1, j-1 {
		c := lower(name[i])
		if c == '-' {
			c = '_'
		}
		if c != suf[j] {
			return false
		}
	}
	return true
}

func isNameChar(c byte) bool { return isTokChar(c) || c == '.' }

// isValueEnd ends an unquoted value.
func isValueEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '&', ',', ';', '"', '\'', '`', '<', '>', ')', ']', '}', '#', '\\':
		return true
	}
	return false
}

func redactPairs(s string) string {
	e := editor{src: s}
	for i := 0; i < len(s); i++ {
		if s[i] != '=' && s[i] != ':' {
			continue
		}
		if end := pairValue(&e, s, i); end > i {
			i = end - 1
		}
	}
	return e.done()
}

// pairValue handles the separator at sep: when the name before it is
// secret-named, it records the redaction of the value after it and returns
// the value's end; otherwise it returns -1.
func pairValue(e *editor, s string, sep int) int {
	// The name, walking back over spaces and an optional closing quote.
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
	for start > 0 && isNameChar(s[start-1]) {
		start--
	}
	if start == j || !secretName(s[start:j]) {
		return -1
	}
	if quoted != 0 && (start == 0 || s[start-1] != quoted) {
		return -1
	}
	if s[sep] == ':' && sep+2 < len(s) && s[sep+1] == '/' && s[sep+2] == '/' {
		return -1 // a URL scheme, not a pair
	}
	// The value.
	v := sep + 1
	for v < len(s) && v < sep+5 && s[v] == ' ' {
		v++
	}
	if strings.HasPrefix(s[v:], Redacted) {
		// An earlier pass redacted a key at the start of the value
		// (X-Amz-Credential=AKIA...%2F...): the rest of the value goes too.
		r := v + len(Redacted)
		end := r
		if r < len(s) && (s[r] == '%' || isB64Tok(s[r])) {
			end = span(s, r, func(c byte) bool { return !isValueEnd(c) })
			for end > r && s[end-1] == '.' {
				end--
			}
		}
		if end > r {
			e.replace(v, end, Redacted)
		}
		return end
	}
	if q, qlen := openQuote(s, v); qlen > 0 {
		if end := closeQuote(s, v+qlen, q); end >= 0 {
			redactValue(e, s, v+qlen, end)
			return end
		}
	}
	end := span(s, v, func(c byte) bool { return !isValueEnd(c) })
	for end > v && s[end-1] == '.' {
		end--
	}
	if end == v {
		return -1
	}
	if quoted == 0 && s[sep] == ':' && !credentialLike(s[v:end]) && !isAuthName(s[start:j]) {
		// "token: expired" is prose, "token: a8Fq2k9x" is not. The value is
		// skipped all the same: a pair inside it would be no more
		// credential-like, and skipping keeps the scan linear.
		return end
	}
	if isAuthName(s[start:j]) && isAlphaWord(s[v:end]) && end < len(s) && s[end] == ' ' {
		// Authorization: Scheme credential
		c := end + 1
		ce := span(s, c, func(b byte) bool { return !isValueEnd(b) })
		if ce > c && !strings.HasPrefix(s[c:], Redacted) {
			e.replace(c, ce, Redacted)
		}
		return ce
	}
	e.replace(v, end, Redacted)
	return end
}

func isAuthName(n string) bool {
	n = strings.ToLower(n)
	return n == "authorization" || n == "proxy-authorization" || n == "proxy_authorization"
}

// openQuote reports the quote (", ' or \") that opens a value at v.
func openQuote(s string, v int) (q string, n int) {
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
func closeQuote(s string, from int, q string) int {
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
func redactValue(e *editor, s string, v, end int) {
	if v == end {
		return
	}
	val := s[v:end]
	if sp := strings.IndexByte(val, ' '); sp > 0 && isAlphaWord(val[:sp]) && strings.TrimSpace(val[sp:]) != "" {
		if strings.TrimSpace(val[sp:]) != Redacted {
			e.replace(v+sp+1, end, Redacted)
		}
		return
	}
	if val != Redacted {
		e.replace(v, end, Redacted)
	}
}

// --- Pass 4: "Bearer <token>" and "Basic <token>".

func redactAuthSchemes(s string) string {
	e := editor{src: s}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c != 'b' || (i > 0 && isAlnum(s[i-1])) {
			continue
		}
		n := 0
		switch {
		case hasPrefixFold(s, i, "bearer "):
			n = 7
		case hasPrefixFold(s, i, "basic "):
			n = 6
		default:
			continue
		}
		t := i + n
		for t < len(s) && s[t] == ' ' {
			t++
		}
		end := span(s, t, isB64Tok)
		for end < len(s) && s[end] == '=' {
			end++
		}
		for end > t && s[end-1] == '.' {
			end--
		}
		if end == t {
			continue
		}
		if credentialLike(s[t:end]) || authContext(s, i) {
			e.replace(t, end, Redacted)
		}
		i = end - 1
	}
	return e.done()
}

// authContext reports whether "authorization" appears in the 40 bytes before i.
func authContext(s string, i int) bool {
	from := i - 40
	if from < 0 {
		from = 0
	}
	for j := from; j+13 <= i; j++ {
		if hasPrefixFold(s, j, "authorization") {
			return true
		}
	}
	return false
}
