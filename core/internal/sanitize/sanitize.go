// Package sanitize makes text safe to hand to a model: invalid UTF-8
// replaced, secrets redacted, stack traces reduced to their final exception
// line, one sentence, capped in characters.
//
// Everything here is written as small hand-made scanners over bytes: no
// regexp (it would add most of a megabyte to the WASI build) and no
// allocation when the text needs no change. Counts are always in characters,
// meaning Unicode code points, never bytes. Every scan is linear in its
// input (BenchmarkSanitize).
//
// See https://github.com/BerriAI/litellm/issues/8075 (a Gemini key in a
// logged URL reaching the model), https://github.com/charmbracelet/crush/issues/3480
// (uncapped tool output), RFC 8259, 8.1 (UTF-8; invalid bytes become
// U+FFFD), and docs/sanitize.md for every rule.
package sanitize

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// MaxMessageChars is the longest Message result, in characters (code points).
//
// See README.md, "The envelope" (message: one sanitized sentence).
const MaxMessageChars = 300

// MaxDetailChars is the longest string Details keeps, in characters (code
// points); a longer one is shortened by Cap, keeping its head and tail.
const MaxDetailChars = 1000

// Redacted replaces every secret Text finds ("key=[REDACTED]").
const Redacted = "[REDACTED]"

// withheld is what Text returns in the impossible case that a scanner fails:
// the original text is never returned when redaction may have applied.
const withheld = "[text withheld: the sanitizer failed on it]"

// CapInfo reports what Cap did. OriginalChars is the length of the input in
// characters (code points); OmittedChars is how many of them the result does
// not carry (0 when Truncated is false), so a cut is never silent.
type CapInfo struct {
	Truncated     bool
	OriginalChars int
	OmittedChars  int
}

// Text returns s with invalid UTF-8 replaced by U+FFFD, the characters a
// reader cannot see removed (terminal escape sequences, control, bidi,
// zero-width and tag characters: see visible), and then every secret it
// recognises replaced by [REDACTED]: keys and tokens by their published
// shapes (OpenAI, Anthropic, Google, AWS, Azure, GitHub, GitLab, Slack,
// Stripe and about 200 more: tokenRules), private key blocks (PEM, PuTTY),
// JWTs, webhook URLs, the credential after "Bearer" or "Basic", the password
// in URL userinfo, the value of secret-named parameters and pairs (key=...,
// "api_key": "...", apiKey := "...", X-Amz-Signature=...), a secret after a
// secret-naming word or flag ("secret wJalr...", "-p ..."), a key wrapped
// onto the next line, and any of these percent- or base64-encoded. Text that
// merely looks like prose is returned unchanged, and s itself is returned (no
// copy) when nothing changes.
//
// See docs/sanitize.md for every rule and the corpus that tests them
// (TestRedactionCorpus).
func Text(s string) string {
	return guard(s, redact)
}

// guard runs fn on the valid-UTF-8 form of s and never lets a fault in fn
// leak the original text: on a panic it returns a fixed placeholder.
func guard(s string, fn func(string) string) (out string) {
	defer func() {
		if recover() != nil {
			out = withheld
		}
	}()
	return fn(canonical.ValidString(s))
}

// redact removes the invisible characters (visible), then applies every
// redaction pass in order, so that a hidden character cannot split a
// secret. Each pass returns its input unchanged when it finds nothing.
func redact(s string) string {
	if quiet(s) {
		return s // no pass keys on anything in it, and it is visible
	}
	return redactPasses(visible(s), 0)
}

// redactPasses runs every pass on s; depth counts the encodings (percent,
// base64) s was decoded from, up to maxDecodeDepth.
func redactPasses(s string, depth int) string {
	s = redactTokens(s)
	s = redactUserinfo(s)
	s = redactAuthSchemes(s)
	s = redactPairs(s) // after the shapes: it may consume a word an earlier pass keys on
	s = redactWords(s)
	if depth < maxDecodeDepth {
		s = redactEncoded(s, depth)
	}
	return s
}

// Message turns error text into the one sentence an envelope's message
// carries: Text, then a stack trace (Python, JavaScript, Go, Java, Rust)
// reduced to its final exception line with frames and file paths dropped,
// white space collapsed to single spaces, the first sentence kept, at most
// MaxMessageChars characters (a longer one ends in "…"), ending in terminal
// punctuation ('.' is added when missing). Empty or blank text gives "".
//
// See docs/sanitize.md for the rules and the trace shapes.
func Message(s string) string {
	return guard(s, message)
}

func message(s string) string {
	if quiet(s) {
		return quietMessage(s)
	}
	m, _ := redactedMessage(s, redact(s))
	return m
}

// quietMessage is message for quiet s (see quiet): no pass can change s,
// so only the sentence rules apply.
func quietMessage(s string) string {
	if finished(s) {
		return s
	}
	m := s
	if strings.Contains(s, "  ") || s != "" && s[len(s)-1] == ' ' {
		m = collapse(s) // quiet s has no other white space than ' '
	}
	m = firstSentence(m)
	if len(m) != len(s) && !quiet(m) {
		m = redact(m)
	}
	return finishSentence(m, MaxMessageChars)
}

// redactedMessage is message for s that is not quiet, given r, redact(s).
// mayTrace is false when r holds no stack trace (reduceTrace found none),
// so that FailureText of s is r itself; true when r holds one or was not
// looked at (blank).
func redactedMessage(s, r string) (m string, mayTrace bool) {
	if strings.TrimSpace(r) == "" {
		return "", true
	}
	m, found := withoutTrace(r, firstSentence)
	if !found {
		m = firstSentence(collapse(dropFrames(r)))
	}
	// Joining lines must not form a new secret-shaped pair, so m is
	// redacted again, unless redact left s as it was and the rules above
	// left it so too: then m is s, and redact(m) is r, which is s.
	if r != s || m != s {
		m = redact(m)
	}
	return finishSentence(m, MaxMessageChars), found
}

// MessageClean returns Message(s) and Clean(s), in one run of the
// redaction passes where calling both runs them twice: an envelope reader
// (outcome.RecognizeSafe) learns both whether the message is already what
// Message makes of it and whether it holds anything the sanitizer removes.
// On the impossible fault in a scanner it returns Message's placeholder
// and false.
func MessageClean(s string) (m string, clean bool) {
	q := quiet(s) // asked once: quiet s is ASCII, so guard's v is s
	if q && finished(s) {
		return s, true // CleanMessage
	}
	done := false
	m = guard(s, func(v string) string {
		if q {
			clean, done = true, true
			return quietMessage(v)
		}
		// v is not quiet either (a repaired v holds U+FFFD): redact(v)
		// would only ask again
		r := redactPasses(visible(v), 0)
		out, mayTrace := redactedMessage(v, r)
		// Clean is FailureText(s) == s: FailureText of v is r when r holds
		// no trace, else failureRedacted(r).
		clean = v == s && (r == s && !mayTrace || mayTrace && failureRedacted(r) == s)
		done = true
		return out
	})
	return m, clean && done
}

// CleanMessage reports, cheaply, that Message(s) == s: s is quiet text (see
// quiet) that is already one finished sentence. It is conservative: false
// only means Message has to decide. A reader holding an envelope's message
// (the serialize op's fast path) keeps such a message as it is.
func CleanMessage(s string) bool { return finished(s) && quiet(s) }

// finished reports whether quiet text s is already what message's sentence
// rules make of it: no run of spaces and no trailing one (collapse), one
// sentence (firstSentence), ending in '.', '!' or '?', at most
// MaxMessageChars characters (quiet text is ASCII: one byte each).
func finished(s string) bool {
	n := len(s)
	if n == 0 || n > MaxMessageChars {
		return false
	}
	switch s[n-1] {
	case '.', '!', '?':
	default:
		return false
	}
	return !strings.Contains(s, "  ") && len(firstSentence(s)) == n
}

// withoutTrace reduces a stack trace in s to the text before it joined to the
// final exception line, each part with frames dropped, white space collapsed
// and then shortened by keep (firstSentence for a message, identity for a
// details string). found is false when s holds no trace.
func withoutTrace(s string, keep func(string) string) (out string, found bool) {
	before, exc, found := reduceTrace(s)
	if !found {
		return s, false
	}
	before = keep(collapse(dropFrames(before)))
	exc = keep(collapse(exc))
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

func same(s string) string { return s }

// FailureText returns the text of a failed tool result as a model may read
// it: Text, then a stack trace reduced to its final exception line as in
// Details strings, without a cap (a tool's failure output is the tool's own
// account of what went wrong). s itself is returned when nothing changes.
func FailureText(s string) string {
	return guard(s, func(s string) string {
		if quiet(s) {
			return s
		}
		return failureRedacted(redact(s))
	})
}

// failureRedacted is FailureText of a text that is not quiet, given r, its
// redaction: a stack trace in r reduced to its final exception line, and
// redacted again (the joined lines may form a secret-shaped pair).
func failureRedacted(r string) string {
	if t, found := withoutTrace(r, same); found {
		return redact(t)
	}
	return r
}

// Clean reports whether s holds nothing Message, Details or FailureText
// would remove: no secret any pass finds, no stack trace, valid UTF-8. It
// does not look at the sentence rules (a missing final period is clean).
func Clean(s string) bool {
	return quiet(s) || FailureText(s) == s
}

// DetailsClean reports whether Details(d) would return d unchanged.
func DetailsClean(d map[string]any) bool { return d == nil || clean(d, false, 0) }

// finishSentence caps m at max characters with "…" and makes it end in
// terminal punctuation.
func finishSentence(m string, max int) string {
	m = strings.TrimRight(m, " ,;:")
	if m == "" {
		return ""
	}
	n := utf8.RuneCountInString(m)
	last, _ := utf8.DecodeLastRuneInString(m)
	terminal := last == '.' || last == '!' || last == '?' || last == '…'
	if n > max || (!terminal && n+1 > max) {
		return cutWords(m, max-1) + "…"
	}
	if !terminal {
		m += "."
	}
	return m
}

// cutWords returns the first n characters of s, shortened to end before a
// space when one lies in the last 20 characters.
func cutWords(s string, n int) string {
	h := headChars(s, n)
	if len(h) < len(s) && s[len(h)] != ' ' {
		if i := strings.LastIndexByte(h, ' '); i > 0 && utf8.RuneCountInString(h[i:]) <= 20 {
			h = h[:i]
		}
	}
	return strings.TrimRight(h, " ,;:")
}

// headChars returns the first n code points of s (all of s when shorter).
func headChars(s string, n int) string {
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
// kept). Keys pass the same sanitizer and are capped at MaxKeyChars; two keys
// that become equal keep both values (" (2)"). nil stays nil. Values other
// than strings, maps and arrays are copied as they are.
func Details(d map[string]any) map[string]any {
	if d == nil {
		return nil
	}
	if clean(d, false, 0) {
		return d // nothing to change: no copy (the common case)
	}
	out, ok := detailValue(d, false, 0).(map[string]any)
	if !ok {
		return map[string]any{}
	}
	return out
}

// clean reports whether detailValue would return v unchanged. depth counts
// the arrays and objects above v: past canonical.MaxEncodeDepth (a Go value
// that holds itself) v is not clean, and detailValue leaves it for the
// writer to refuse with its depth error, instead of walking it forever.
func clean(v any, secret bool, depth int) bool {
	if depth > canonical.MaxEncodeDepth {
		return false
	}
	switch x := v.(type) {
	case string:
		if secret {
			return redactWhole(x) == x
		}
		return detailString(x) == x
	case map[string]any:
		for k, e := range x {
			if detailKey(k) != k || !clean(e, secret || secretName(k), depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !clean(e, secret, depth+1) {
				return false
			}
		}
		return true
	case map[string]string, []string:
		return false // converted to the value tree's types
	}
	return true
}

func detailValue(v any, secret bool, depth int) any {
	if depth > canonical.MaxEncodeDepth {
		return v // see clean: the writer refuses it
	}
	switch x := v.(type) {
	case string:
		if secret {
			return redactWhole(x)
		}
		return guard(x, detailString)
	case map[string]any:
		return detailMap(x, secret, depth)
	case []any:
		return detailList(x, secret, depth)
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		return detailMap(m, secret, depth)
	case []string:
		return detailList(x, secret, depth)
	}
	return v
}

// detailList sanitizes each element of a details array one level deeper, as
// a []any of the same length.
func detailList[T any](x []T, secret bool, depth int) []any {
	a := make([]any, len(x))
	for i, e := range x {
		a[i] = detailValue(e, secret, depth+1)
	}
	return a
}

// detailString sanitizes one details string: redacted, a stack trace reduced
// to its final exception line (issue 2, item 4: "every string in details"),
// capped at MaxDetailChars characters.
func detailString(s string) string {
	if len(s) <= MaxDetailChars && quiet(s) {
		return s // no pass changes it and it is short enough (see quiet)
	}
	out, _ := Cap(failureRedacted(redact(s)), MaxDetailChars)
	return out
}

// MaxKeyChars is the longest details key kept, in characters.
const MaxKeyChars = 100

// detailKey sanitizes a details key like a details string: a key can carry a
// secret or a traceback too (a tool that used an error text as a key).
func detailKey(k string) string {
	if quiet(k) && len(k) <= MaxKeyChars {
		return k
	}
	out, _ := Cap(guard(k, detailString), MaxKeyChars)
	return out
}

// detailMap copies a details object with its keys and values sanitized. Keys
// are visited in sorted order, so two keys that sanitize to the same text
// ("[REDACTED]") keep both values deterministically: the later ones get
// " (2)", " (3)", ... appended.
func detailMap(x map[string]any, secret bool, depth int) map[string]any {
	m := make(map[string]any, len(x))
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		nk := detailKey(k)
		if _, taken := m[nk]; taken {
			for n := 2; ; n++ {
				c := nk + " (" + strconv.Itoa(n) + ")"
				if _, taken := m[c]; !taken {
					nk = c
					break
				}
			}
		}
		m[nk] = detailValue(x[k], secret || secretName(k), depth+1)
	}
	return m
}

// redactWhole replaces a secret value, keeping a leading auth scheme word
// ("Bearer abc" becomes "Bearer [REDACTED]").
func redactWhole(s string) string {
	if s == "" {
		return ""
	}
	if i := strings.IndexByte(s, ' '); i > 0 && isAlphaWord(s[:i]) && strings.TrimSpace(s[i:]) != "" {
		return canonical.ValidString(s[:i]) + " " + Redacted
	}
	return Redacted
}
