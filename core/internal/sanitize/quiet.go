package sanitize

import "strings"

// quiet reports whether s is text on which every pass is the identity: one
// line of printable ASCII (no control character, no line break, nothing
// outside ASCII, so no UTF-8 repair), not starting with a space (an indented
// line may be a stack frame), with no byte or word any redaction pass keys on
// (':' and '=' for pairs and URL userinfo, "Bearer "/"Basic " in any case, the
// start of a provider key or JWT) and no "panicked at " (a Rust panic line).
// It is one pass over the bytes: the common already-sanitized message or
// details string takes it and nothing else (see message and detailString).
//
// It is conservative: false only means the full passes run.
func quiet(s string) bool {
	if s != "" && s[0] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e {
			return false
		}
		switch c {
		case ':', '=':
			return false
		case 'b', 'B':
			if (i == 0 || !isAlnum(s[i-1])) && (hasPrefixFold(s, i, "bearer ") || hasPrefixFold(s, i, "basic ")) {
				return false
			}
			// tokenStart never holds at 'b': no key prefix starts with it.
		case 'p':
			if strings.HasPrefix(s[i:], "panicked at ") {
				return false
			}
		case 's', 'r', 'A', 'g', 'x', 'h', 'e':
			if (i == 0 || !isTokChar(s[i-1])) && tokenStart(s, i) && tokenEnd(s, i) > i {
				return false
			}
		}
	}
	return true
}

// tokenStart reports whether s[i:] begins with the first two bytes of a
// prefix tokenEnd knows (sk-, rk_live_, AIza, AKIA, ASIA, gh?_, github_pat_,
// glpat-, xox?-, hf_, eyJ): tokenEnd returns -1 everywhere else, so it is a
// cheap filter in front of it.
func tokenStart(s string, i int) bool {
	if i+1 >= len(s) {
		return false
	}
	switch s[i] {
	case 's', 'r':
		return s[i+1] == 'k'
	case 'A':
		return s[i+1] == 'I' || s[i+1] == 'K' || s[i+1] == 'S'
	case 'g':
		return s[i+1] == 'h' || s[i+1] == 'i' || s[i+1] == 'l'
	case 'x':
		return s[i+1] == 'o'
	case 'h':
		return s[i+1] == 'f'
	case 'e':
		return s[i+1] == 'y'
	}
	return false
}

// maybeTrace reports whether reduceTrace could find a trace in s: it holds a
// marker of one of the trace shapes reduceTrace tries. Prose with "at " in
// it ("that ", "at least") is not a candidate unless a line starts with
// indentation and then "at ", as an atFrame line does.
func maybeTrace(s string) bool {
	if strings.Contains(s, "Traceback (most recent call last):") || strings.Contains(s, "panicked at ") ||
		strings.Contains(s, "stack backtrace:") || strings.Contains(s, "goroutine ") {
		return true
	}
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' {
			// An indented line: atFrame trims all leading white space,
			// Unicode included, then wants "at ".
			if strings.HasPrefix(strings.TrimLeftFunc(s[i:], isSpace), "at ") {
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
