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

// byteSet is a set of ASCII bytes as two bit masks (bytes 0-63 and
// 64-127): a test per byte that costs no call.
type byteSet struct{ lo, hi uint64 }

func (b byteSet) has(c byte) bool {
	if c < 64 {
		return b.lo>>c&1 != 0
	}
	return c < 128 && b.hi>>(c-64)&1 != 0
}

// The masks of digits (in lo) and of letters (in hi).
const (
	setDigits = (1<<10 - 1) << '0'
	setUpper  = (1<<26 - 1) << ('A' - 64)
	setLower  = (1<<26 - 1) << ('a' - 64)
)

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
		// The authority ends at a stop byte; a password wrapped onto the
		// next line (after a ':' and before the '@') continues across the
		// line break.
		end, colonSeen, atSeen := from, false, false
		for end < len(s) {
			if brk := lineBreak(s, end); brk > 0 && colonSeen && !atSeen && end+brk < len(s) && !isAuthorityStop(s[end+brk]) {
				end += brk
				continue
			}
			if isAuthorityStop(s[end]) {
				break
			}
			colonSeen = colonSeen || s[end] == ':'
			atSeen = atSeen || s[end] == '@'
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

// isAuthorityStop ends the authority of a URL in text (RFC 3986, 3.2).
func isAuthorityStop(c byte) bool { return strings.IndexByte("/?# \t\r\n\"'<>`", c) >= 0 }

// --- Pass 3: values of secret-named keys: key=v, key: v, "key": "v", 'key': 'v',
// key := "v", 'key' => 'v'.

// secretNames decides whether a name (as written; the comparisons fold
// case and read '-' as '_', see foldSuffix) names a secret on its own
// (exact: key, pwd, pass, sig, sid, auth, authorization,
// proxy_authorization, cookie, set_cookie, x_api_key, api_key, apikey,
// session) or at the end of a longer name (token, secret, password, passwd,
// passphrase, apikey, api_key, signature, credential, credentials, creds,
// _pwd, _pat, _session, sessionid, session_id, sessid: GITHUB_TOKEN,
// clientSecret, db_password, AZURE_DEVOPS_PAT), or is a qualified key
// (qualifiedKey). It looks only at the names ending in the name's last two
// bytes, so that most names ("status", "tool") cost one switch.
func secretNames(n string) bool {
	var exact, suffix string // names separated by spaces
	switch string([]byte{lower(n[len(n)-2]), lower(n[len(n)-1])}) {
	case "ey":
		exact, suffix = "key x_api_key", "apikey api_key"
		if qualifiedKey(n) {
			return true
		}
	case "wd":
		exact, suffix = "pwd", "passwd _pwd"
	case "ss":
		exact = "pass"
	case "ig":
		exact = "sig"
	case "id":
		exact, suffix = "sid", "sessionid session_id sessid"
	case "th":
		exact = "auth"
	case "on":
		exact, suffix = "authorization proxy_authorization session", "_session"
	case "ie":
		exact = "cookie set_cookie"
	case "en":
		suffix = "token"
	case "et":
		suffix = "secret"
	case "rd":
		suffix = "password"
	case "se":
		suffix = "passphrase"
	case "re":
		suffix = "signature"
	case "al":
		suffix = "credential"
	case "ls":
		suffix = "credentials"
	case "ds":
		suffix = "creds"
	case "at":
		suffix = "_pat"
	}
	return nameIn(n, exact, true) || nameIn(n, suffix, false)
}

// nameIn reports whether n is (exact) or ends in (not exact) one of the
// space-separated names of list, compared as foldSuffix does.
func nameIn(n, list string, exact bool) bool {
	for list != "" {
		x, rest, _ := strings.Cut(list, " ")
		if (!exact || len(n) == len(x)) && foldSuffix(n, x) {
			return true
		}
		list = rest
	}
	return false
}

// qualifiedKey reports whether n is "<qualifier>key" or "<qualifier>_key"
// for a qualifier that makes a key a credential (AccountKey,
// Ocp-Apim-Subscription-Key, X-Auth-Key, DD-APPLICATION-KEY,
// ALGOLIA_ADMIN_KEY); a key that is not one (sort_key, cache_key) is
// redacted only when its value looks random (weakSecretName).
func qualifiedKey(n string) bool {
	if !foldSuffix(n, "key") {
		return false
	}
	n = strings.TrimRight(n[:len(n)-3], "_-")
	for _, q := range [...]string{"api", "access", "secret", "private", "account", "subscription", "master",
		"encryption", "signing", "client", "consumer", "app", "application", "auth", "session", "admin", "service",
		"shared", "storage", "hmac", "deploy", "license", "webhook", "write", "ingest", "insert", "integration",
		"server", "routing", "management", "function", "functions", "partner", "merchant", "live", "prod",
		"root", "personal"} {
		if foldSuffix(n, q) && (len(n) == len(q) || !isAlnum(n[len(n)-len(q)-1]) || isUpperBoundary(n, len(n)-len(q))) {
			return true
		}
	}
	return false
}

// isUpperBoundary reports whether n[i] starts a CamelCase word (accountKey,
// AccountKey: 'A' or 'K' after a lower-case letter).
func isUpperBoundary(n string, i int) bool {
	return i > 0 && n[i] >= 'A' && n[i] <= 'Z' && n[i-1] >= 'a' && n[i-1] <= 'z'
}

// weakSecretName reports whether a name ends in "key" without naming a
// credential by itself (sort_key, partition_key, idempotency_key): its value
// is redacted only when it looks random.
func weakSecretName(name string) bool {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return len(name) > 3 && len(name) <= 64 && (foldSuffix(name, "key") || foldSuffix(name, "keys"))
}

// secretName reports whether a parameter or field name names a secret. The
// comparison ignores case, treats '-' as '_' and looks only at the part after
// the last '.' (spring.datasource.password).
func secretName(name string) bool {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if len(name) < 3 || len(name) > 64 {
		return false
	}
	return secretNames(name)
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

// escapeLetter reports whether s[i] is the letter of a JSON escape (\n, \t,
// \r): text that holds escaped JSON.
func escapeLetter(s string, i int) bool {
	return i > 0 && s[i-1] == '\\' && (s[i] == 'n' || s[i] == 't' || s[i] == 'r')
}

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
	v := sep + 1
	switch {
	case s[sep] == ':' && v < len(s) && s[v] == '=': // name := value (Go): the '=' is the separator
		return -1
	case s[sep] == '=' && v < len(s) && s[v] == '=', s[sep] == '=' && sep > 0 && strings.IndexByte("!<>=", s[sep-1]) >= 0:
		return -1 // a comparison, not a pair
	case s[sep] == '=' && v < len(s) && s[v] == '>': // 'name' => 'value' (Ruby, PHP)
		v++
	}
	// The name, walking back over ':' of ":=", spaces and an optional closing quote.
	j := sep
	if s[sep] == '=' && j > 0 && s[j-1] == ':' {
		j--
	}
	for j > 0 && j > sep-4 && s[j-1] == ' ' {
		j--
	}
	quoted := byte(0)
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		quoted = s[j-1]
		j--
		for k := 0; k < 8 && j > 0 && s[j-1] == '\\'; k++ {
			j--
		}
	}
	start := j
	for start > 0 && isNameChar(s[start-1]) && !escapeLetter(s, start-1) {
		start--
	}
	if start == j {
		return -1
	}
	name := s[start:j]
	if quoted != 0 && (start == 0 || s[start-1] != quoted) {
		return -1
	}
	weak := false
	switch {
	case xmlKeyName(s, sep, name):
		return -1 // key="ClearTextPassword" value="...": the key names the value
	case secretName(name) || xmlSecretValue(s, start, name):
	case weakSecretName(name):
		weak = true
	default:
		return -1
	}
	if s[sep] == ':' && sep+2 < len(s) && s[sep+1] == '/' && s[sep+2] == '/' {
		return -1 // a URL scheme, not a pair
	}
	// The value.
	for v < len(s) && v < sep+6 && s[v] == ' ' {
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
			if !weak || randomValue(s[v+qlen:end]) {
				redactValue(e, s, v+qlen, end)
			}
			return end
		}
		// No closing quote on the line: a value wrapped onto the next one,
		// or cut. Its bare part is the value.
		if end := valueEnd(s, v+qlen); end > v+qlen && (!weak || randomValue(s[v+qlen:end])) {
			e.replace(v+qlen, end, Redacted)
			return end
		}
	}
	end := valueEnd(s, v)
	if end == v {
		return -1
	}
	if weak && !randomValue(s[v:end]) || quoted == 0 && s[sep] == ':' && !credentialLike(s[v:end]) && !isAuthName(name) {
		// "token: expired" is prose, "token: a8Fq2k9x" is not; sort_key=name
		// names a field. The value is skipped all the same: a pair inside it
		// would be no more credential-like, and skipping keeps the scan linear.
		return end
	}
	if isAuthName(name) && isAlphaWord(s[v:end]) && end < len(s) && s[end] == ' ' {
		// Authorization: Scheme credential
		c := end + 1
		ce := valueEnd(s, c)
		if ce > c && !strings.HasPrefix(s[c:], Redacted) {
			e.replace(c, ce, Redacted)
		}
		return ce
	}
	e.replace(v, end, Redacted)
	return end
}

// valueEnd returns the end of an unquoted value at v: up to a byte that
// ends a value, without a final '.', continued across a line break when the
// next line starts with a fragment that looks random (a wrapped long value).
func valueEnd(s string, v int) int {
	end := span(s, v, notValueEnd)
	if end > v {
		end = continued(s, end, notValueEnd)
	}
	for end > v && s[end-1] == '.' {
		end--
	}
	return end
}

// continued extends a value that ends at end across line breaks while the
// next line starts with a fragment (a run of ok) that looks random: a long
// value wrapped by a terminal or a log.
func continued(s string, end int, ok func(byte) bool) int {
	for {
		brk := lineBreak(s, end)
		if brk == 0 {
			return end
		}
		e := span(s, end+brk, ok)
		if !randomLike(s[end+brk : e]) {
			return end
		}
		end = e
	}
}

func notValueEnd(c byte) bool { return !isValueEnd(c) }

// randomValue reports whether the value of a weakly secret name looks like
// a key: at least 16 characters that look random.
func randomValue(v string) bool { return len(v) >= 16 && randomLike(v) }

// xmlKeyName reports whether name="..." at sep is the key attribute of an
// XML name/value element, <add key="ClearTextPassword" value="..."/> (a
// NuGet.config credential): the key's value is a name, not a secret.
//
// See https://learn.microsoft.com/nuget/reference/nuget-config-file#packagesourcecredentials.
func xmlKeyName(s string, sep int, name string) bool {
	if len(name) != 3 || !foldSuffix(name, "key") {
		return false
	}
	q, n := openQuote(s, sep+1)
	if n == 0 {
		return false
	}
	end := strings.Index(s[sep+1+n:], q)
	return end >= 0 && strings.HasPrefix(strings.TrimLeft(s[sep+1+n+end+n:], " "), "value=")
}

// xmlSecretValue reports whether value="..." at start follows a
// key="<secret name>" attribute of the same element.
func xmlSecretValue(s string, start int, name string) bool {
	if len(name) != 5 || !foldSuffix(name, "value") {
		return false
	}
	before := strings.TrimRight(s[max(0, start-80):start], " ")
	if !strings.HasSuffix(before, `"`) {
		return false
	}
	before = strings.TrimRight(before[:len(before)-1], `\`)
	q := strings.LastIndexByte(before, '"')
	if q < 4 {
		return false
	}
	if k := strings.TrimRight(before[:q], `\`); !strings.HasSuffix(k, "key=") {
		return false
	}
	return secretName(before[q+1:])
}

func isAuthName(n string) bool {
	n = strings.ToLower(n)
	return n == "authorization" || n == "proxy-authorization" || n == "proxy_authorization"
}

// openQuote reports the quote (", ' or \") that opens a value at v.
func openQuote(s string, v int) (q string, n int) {
	b := spanMax(s, v, func(c byte) bool { return c == '\\' }, 8) // \" inside JSON, \\\" inside JSON in JSON
	switch {
	case b == v && v < len(s) && (s[v] == '"' || s[v] == '\''):
		return s[v : v+1], 1
	case b > v && b < len(s) && s[b] == '"' && (b-v)%2 == 1:
		return s[v : b+1], b + 1 - v
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
		if c != 'b' || i > 0 && isAlnum(s[i-1]) && !boundary(s, i) {
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
		end := continued(s, span(s, t, isB64Tok), isB64Tok)
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

// --- Pass 5: a secret after a secret-naming word or a command-line flag,
// with no '=' or ':' between ("authentication failed with secret
// wJalrXUt...", "password hunter2x", "-p 9xK...", "curl -u bob:hunter2").

// secretWord returns the secret-naming word at i and whether it names a
// password (which may be short): "secret", "password", "passwd",
// "passphrase", "pwd", "token", "key", "apikey", "credential", "credentials",
// in any case, or "" when there is none.
func secretWord(s string, i int) (word string, password bool) {
	end := span(s, i, isLetter)
	if end >= len(s) || s[end] != ' ' {
		return "", false
	}
	w := s[i:end]
	is := func(x string) bool { return hasPrefixFold(w, 0, x) }
	switch len(w) {
	case 3:
		if is("pwd") {
			return w, true
		}
		if is("key") {
			return w, false
		}
	case 5:
		if is("token") {
			return w, false
		}
	case 6:
		if is("passwd") {
			return w, true
		}
		if is("secret") || is("apikey") {
			return w, false
		}
	case 8:
		if is("password") {
			return w, true
		}
	case 10:
		if is("passphrase") {
			return w, true
		}
		if is("credential") {
			return w, false
		}
	case 11:
		if is("credentials") {
			return w, false
		}
	}
	return "", false
}

// wordSecret returns the range of the secret that a word or flag at i names,
// or from == end when there is none.
func wordSecret(s string, i int) (from, end int) {
	if s[i] == '-' {
		return flagSecret(s, i)
	}
	if !boundary(s, i) {
		return i, i
	}
	w, password := secretWord(s, i)
	if w == "" {
		return i, i
	}
	v := i + len(w)
	for k := 0; k < 3 && v < len(s) && s[v] == ' '; k++ {
		v++
	}
	for _, conn := range [...]string{"is ", "was "} {
		if hasPrefixFold(s, v, conn) {
			v += len(conn)
			break
		}
	}
	return v, quotedOrBare(s, v, func(t string) bool {
		if password {
			return passwordLike(t)
		}
		return secretLike(t)
	})
}

// flagSecret: "-p <value>", "--password <value>" (docker login, mysql,
// many CLIs) and "-u user:<value>", "--user user:<value>" (curl).
func flagSecret(s string, i int) (from, end int) {
	if i > 0 && s[i-1] != ' ' {
		return i, i
	}
	user := false
	switch {
	case strings.HasPrefix(s[i:], "-p "):
		from = i + 3
	case strings.HasPrefix(s[i:], "--password "):
		from = i + 11
	case strings.HasPrefix(s[i:], "-u "):
		from, user = i+3, true
	case strings.HasPrefix(s[i:], "--user "):
		from, user = i+7, true
	default:
		return i, i
	}
	if user {
		c := strings.IndexByte(s[from:span(s, from, notValueEnd)], ':')
		if c < 0 {
			return i, i
		}
		from += c + 1
	}
	end = quotedOrBare(s, from, func(t string) bool { return len(t) >= 4 })
	return from, end
}

// quotedOrBare returns the end of the value at v, quoted or bare, when ok
// accepts it; v itself otherwise.
func quotedOrBare(s string, v int, ok func(string) bool) int {
	if v >= len(s) || strings.HasPrefix(s[v:], Redacted) {
		return v
	}
	if q := s[v]; q == '"' || q == '\'' || q == '`' {
		if c := strings.IndexByte(s[v+1:min(len(s), v+300)], q); c > 0 && ok(s[v+1:v+1+c]) {
			return v + 1 + c
		}
		return v
	}
	end := valueEnd(s, v)
	for end > v && strings.IndexByte(",;:!?)", s[end-1]) >= 0 {
		end--
	}
	if end == v || !ok(s[v:end]) {
		return v
	}
	return end
}

// secretLike reports whether a word after a secret-naming word is a secret
// rather than prose ("token expired", "key combination"): at least 8
// characters that look random, or at least 10 with a base64 symbol.
func secretLike(t string) bool {
	return randomLike(t) || len(t) >= 10 && strings.ContainsAny(t, "+/=~_")
}

// passwordLike reports whether a word after "password" is one: at least 6
// characters with a digit, an upper-case letter after the first character
// or a symbol ("password changed" is prose, "password hunter2" is not).
func passwordLike(t string) bool {
	if len(t) < 6 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c >= '0' && c <= '9' || i > 0 && c >= 'A' && c <= 'Z' || !isLetter(c) && c != '-' && c != '\'' {
			return true
		}
	}
	return false
}

func redactWords(s string) string {
	e := editor{src: s}
	for i := 0; i < len(s); i++ {
		c := s[i]
		end := i
		switch {
		case c == '-':
			if i > 0 && s[i-1] != ' ' {
				continue
			}
		case isLetter(c):
			end = i + 1
			for end < len(s) && isLetter(s[end]) {
				end++
			}
			if !maybeSecretWord(c, end-i) || end >= len(s) || s[end] != ' ' || !boundary(s, i) {
				if !escapeLetter(s, i) {
					i = end - 1 // no word starts inside this one
				}
				continue
			}
		default:
			continue
		}
		from, to := wordSecret(s, i)
		if to > from {
			if s[from] == '"' || s[from] == '\'' || s[from] == '`' {
				from++
			}
			e.replace(from, to, Redacted)
			i = to - 1
		} else if end > i {
			i = end - 1
		}
	}
	return e.done()
}

// wordStart is the first byte of a secret-naming word or flag.
func wordStart(c byte) bool {
	switch c | 0x20 {
	case 's', 'p', 't', 'k', 'a', 'c':
		return true
	}
	return c == '-'
}
