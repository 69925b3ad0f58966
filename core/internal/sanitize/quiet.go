package sanitize

import "strings"

// quiet reports whether s is text on which every pass is the identity: one
// line of printable ASCII (no control character, no line break, nothing
// outside ASCII, so no UTF-8 repair), not starting with a space (an indented
// line may be a stack frame), with no byte or word any redaction pass keys
// on: ':' and '=' (pairs, URL userinfo), '\' (escaped JSON), a
// percent-escape, "Bearer "/"Basic " in any case, a token a rule of
// tokenRules matches, a secret-naming word followed by a secret, a base64
// run that decodes to text holding a secret, and no "panicked at " (a Rust
// panic line). It is one pass over the bytes that calls the passes' own
// tests where they could apply: the common already-sanitized message or
// details string takes it and nothing else (see message and detailString).
//
// It is conservative: false only means the full passes run.
func quiet(s string) bool {
	if s != "" && s[0] == ' ' {
		return false
	}
	var sc scan // made when a run is long enough to hold a token
	gate := 0   // start of the current run of gate characters (see scan.gate)
	run := 0    // length of the base64 run ending before i
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isLetter(c):
			run++
			if i > 0 && isAlnum(s[i-1]) {
				continue
			}
			// A word: the words a pass keys on, then skip it whole.
			end := i + 1
			for end < len(s) && isLetter(s[end]) {
				end++
			}
			switch c | 0x20 {
			case 'b', 'p', 'k', 't', 's', 'a', 'c':
				if keyWord(s, i, end) {
					return false
				}
			}
			run += end - i - 1
			i = end - 1
			continue
		case c >= '0' && c <= '9', c == '+', c == '/', c == '_':
			run++
			continue
		case c < 0x20 || c > 0x7e, c == ':', c == '=', c == '\\':
			return false
		case c == '%':
			if hasEscape(s, i) {
				return false
			}
		case c == '-':
			if from, end := flagSecret(s, i); end > from {
				return false
			}
			run++
			continue
		case !isGateChar(c):
			if mayHoldToken(s, gate, i) {
				if sc.s = s; sc.tokenIn(gate, i) {
					return false
				}
			}
			gate = i + 1
		}
		// c ends a base64 run.
		if run >= minEncodedChars && base64Secret(s[i-run:i], 0) {
			return false
		}
		run = 0
	}
	if run >= minEncodedChars && base64Secret(s[len(s)-run:], 0) {
		return false
	}
	if !mayHoldToken(s, gate, len(s)) {
		return true
	}
	sc.s = s
	return !sc.tokenIn(gate, len(s))
}

// mayHoldToken reports whether the gate run s[i:j] is long enough to hold a
// token: minTokenChars, or minLowerTokenChars when it holds nothing but
// [a-z_] (an identifier such as retry_after_seconds), or "-----BEGIN" before
// a space (a PEM label).
func mayHoldToken(s string, i, j int) bool {
	n := j - i
	switch {
	case n >= minLowerTokenChars:
		return true
	case n >= minTokenChars:
		for k := i; k < j; k++ {
			if c := s[k]; !(c >= 'a' && c <= 'z' || c == '_') {
				return true
			}
		}
		return false
	}
	return n >= 10 && j < len(s) && s[j-1] == 'N'
}

// maybeSecretWord reports whether a word of n letters starting with c may
// be one secretWord knows (pwd, key, token, passwd, secret, apikey,
// password, passphrase, credential, credentials): a cheap test in front of it.
func maybeSecretWord(c byte, n int) bool {
	switch c | 0x20 {
	case 'p':
		return n == 3 || n == 6 || n == 8 || n == 10
	case 'k':
		return n == 3
	case 't':
		return n == 5
	case 's', 'a':
		return n == 6
	case 'c':
		return n == 10 || n == 11
	}
	return false
}

// keyWord reports whether the word s[i:end] is one a pass keys on:
// "Bearer "/"Basic " (any case), "panicked at ", or a secret-naming word
// followed by a secret (wordSecret).
func keyWord(s string, i, end int) bool {
	switch s[i] | 0x20 {
	case 'b':
		return hasPrefixFold(s, i, "bearer ") || hasPrefixFold(s, i, "basic ")
	case 'p':
		if strings.HasPrefix(s[i:], "panicked at ") {
			return true
		}
	}
	if !maybeSecretWord(s[i], end-i) || end >= len(s) || s[end] != ' ' {
		return false
	}
	from, to := wordSecret(s, i)
	return to > from
}

// maybeTrace reports whether reduceTrace could find a trace in s: it holds a
// marker of one of the trace shapes reduceTrace tries. Prose with "at " in
// it ("that ", "at least") is not a candidate unless a line starts with
// indentation and then "at ", as an atFrame line does.
func maybeTrace(s string) bool {
	if strings.Contains(s, "Traceback (most recent call last):") || strings.Contains(s, "panicked at ") ||
		strings.Contains(s, "stack backtrace:") || strings.Contains(s, "goroutine ") ||
		strings.Contains(s, "Stack trace:\n") || strings.Contains(s, "[stacktrace]\n") {
		return true
	}
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' {
			// An indented line: atFrame trims all leading white space,
			// Unicode included, then wants "at " (rubyFrame "from ").
			if t := strings.TrimLeftFunc(s[i:], isSpace); strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "from ") {
				return true
			}
		}
		nl := strings.IndexByte(s[i:], '\n')
		if nl < 0 {
			return false
		}
		i += nl + 1
	}
	return false
}

// QuietDetail reports, in one cheap pass, that Details keeps the string s of
// a details tree as it is: a member name (name true) that passes unchanged
// and names no secret (so the values under it are sanitized as any other),
// or a string value that passes unchanged. It is conservative: false only
// means the full sanitizer has to decide. A details tree whose every name
// and string QuietDetail accepts is returned by Details unchanged.
func QuietDetail(s string, name bool) bool {
	if name {
		return len(s) <= MaxKeyChars && quiet(s) && !secretName(s)
	}
	return len(s) <= MaxDetailChars && quiet(s)
}
