package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// reduceTrace finds a stack trace in s and splits s into the text before the
// trace and the trace's final exception line, without the file path and line
// a PHP or Ruby exception line carries; found is false when s holds no trace.
// Languages are tried in a fixed order: Python, Rust, Go, PHP, Ruby, then the
// "at ..." frames that Java, JavaScript and .NET share. A trace that is
// wrapped (a JSON string whose line breaks are escapes, an HTML page with
// <br> and entities) is unwrapped first (unwrapTrace).
func reduceTrace(s string) (before, exc string, found bool) {
	if before, exc, found = reduceLines(s); found {
		return before, exc, true
	}
	if u, ok := unwrapTrace(s); ok {
		return reduceLines(u)
	}
	return "", "", false
}

func reduceLines(s string) (before, exc string, found bool) {
	if !maybeTrace(s) {
		return "", "", false
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	for _, f := range [...]func([]string) (string, string, bool){pythonTrace, rustTrace, goTrace, phpTrace, rubyTrace, atTrace} {
		if b, e, ok := f(lines); ok {
			return b, stripLocation(e), true
		}
	}
	return "", "", false
}

func join(lines []string) string { return strings.Join(lines, "\n") }

func indented(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') }

// pythonTrace: "Traceback (most recent call last):", indented frames, then
// the exception line(s). With chained exceptions the last traceback wins.
//
// See https://docs.python.org/3/library/traceback.html.
func pythonTrace(lines []string) (string, string, bool) {
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
	for j < len(lines) && (indented(lines[j]) || strings.TrimSpace(lines[j]) == "") {
		j++
	}
	k := j
	for k < len(lines) && strings.TrimSpace(lines[k]) != "" {
		k++
	}
	return join(lines[:first]), join(lines[j:k]), true
}

// rustTrace: "thread 'main' panicked at src/main.rs:2:5:" followed by the
// message (Rust 1.73+), or "thread 'main' panicked at 'msg', src/main.rs:2:5"
// (older); "note: run with `RUST_BACKTRACE=1`" and "stack backtrace:" with
// everything after it are dropped.
//
// See https://doc.rust-lang.org/std/macro.panic.html.
func rustTrace(lines []string) (string, string, bool) {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "thread '") {
			at := strings.Index(t, "' panicked at ")
			if at < 0 {
				continue
			}
			rest := t[at+len("' panicked at "):]
			if strings.HasPrefix(rest, "'") { // old format: the message is quoted
				if q := strings.LastIndex(rest, "', "); q > 0 {
					return join(lines[:i]), rest[1:q], true
				}
				return join(lines[:i]), "", true
			}
			k := i + 1
			for k < len(lines) {
				u := strings.TrimSpace(lines[k])
				if u == "" || strings.HasPrefix(u, "note: ") || u == "stack backtrace:" {
					break
				}
				k++
			}
			return join(lines[:i]), join(lines[i+1 : k]), true
		}
		if t == "stack backtrace:" {
			return join(lines[:i]), "", true
		}
	}
	return "", "", false
}

// goTrace: "panic: <message>" (or "fatal error: ...") then "goroutine N
// [running]:" and its frames; everything from the first goroutine header on
// is dropped and the last panic line before it is the exception.
//
// See https://pkg.go.dev/runtime#hdr-Environment_Variables (GOTRACEBACK).
func goTrace(lines []string) (string, string, bool) {
	for g, l := range lines {
		if !goroutineHeader(strings.TrimSpace(l)) {
			continue
		}
		for p := g - 1; p >= 0; p-- {
			t := strings.TrimSpace(lines[p])
			if strings.HasPrefix(t, "panic: ") || strings.HasPrefix(t, "fatal error: ") {
				// the first panic of a chain starts the exception text
				q := p
				for q > 0 && strings.HasPrefix(strings.TrimSpace(lines[q-1]), "panic: ") {
					q--
				}
				return join(lines[:q]), t, true
			}
		}
		return join(lines[:g]), "", true
	}
	return "", "", false
}

// goroutineHeader matches "goroutine 1 [running]:".
func goroutineHeader(t string) bool {
	rest, ok := strings.CutPrefix(t, "goroutine ")
	if !ok {
		return false
	}
	d := span(rest, 0, func(c byte) bool { return c >= '0' && c <= '9' })
	return d > 0 && strings.HasPrefix(rest[d:], " [") && strings.HasSuffix(rest, "]:")
}

// atTrace: Java ("\tat com.x.Y.f(Y.java:1)", "Caused by: ...", "\t... 3
// more") and JavaScript ("    at f (file.js:1:2)"). The line before the
// first frame is the exception; the last "Caused by:" line, the root cause,
// replaces it. Text after the trace is dropped.
//
// See https://docs.oracle.com/javase/8/docs/api/java/lang/Throwable.html#printStackTrace--
// and https://v8.dev/docs/stack-trace-api.
func atTrace(lines []string) (string, string, bool) {
	f := -1
	for i, l := range lines {
		if atFrame(l) {
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
	// .NET: the inner exceptions follow the outer one on lines of their own
	// (" ---> Inner: message") or on its line; the innermost is the root
	// cause, as Java's last "Caused by:".
	if strings.HasPrefix(exc, "---> ") {
		for head > 0 && strings.HasPrefix(strings.TrimSpace(lines[head-1]), "---> ") {
			head--
		}
		if head > 0 {
			head-- // the outer exception's own line
		}
	}
	if k := strings.LastIndex(exc, "---> "); k >= 0 {
		exc = exc[k+len("---> "):]
	}
	exc = strings.TrimPrefix(exc, "Unhandled exception. ")
	if rest, ok := strings.CutPrefix(exc, "Exception in thread \""); ok {
		if q := strings.Index(rest, "\" "); q >= 0 {
			exc = rest[q+2:]
		}
	}
	return join(lines[:head]), exc, true
}

// phpTrace: PHP's uncaught exception, "PHP Fatal error:  Uncaught
// RuntimeException: message in /path/file.php:42", then "Stack trace:" (or
// Laravel's "[stacktrace]"), frames "#0 /path/file.php(17): f()" up to
// "#N {main}", and "  thrown in /path/file.php on line 42". The exception
// line, without the "Fatal error: Uncaught " prefix, is the exception; the
// file path goes with stripLocation.
//
// See https://www.php.net/manual/en/exception.gettraceasstring.php.
func phpTrace(lines []string) (string, string, bool) {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t != "Stack trace:" && t != "[stacktrace]" || i+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "#0 ") {
			continue
		}
		e := i - 1
		for e >= 0 && strings.TrimSpace(lines[e]) == "" {
			e--
		}
		if e < 0 {
			return "", "", true
		}
		exc := strings.TrimSpace(lines[e])
		if k := strings.Index(exc, "Uncaught "); k >= 0 && strings.Contains(exc[:k], "rror:") {
			exc = exc[k+len("Uncaught "):]
		}
		return join(lines[:e]), exc, true
	}
	return "", "", false
}

// rubyTrace: "/app/lib/x.rb:12:in `fetch': message (NoMethodError)" (Ruby
// 3.4 quotes 'Class#method'), then indented "from /app/lib/x.rb:20:in ..."
// frames. The line before the first frame is the exception, its location
// prefix dropped by stripLocation.
//
// See https://docs.ruby-lang.org/en/3.4/Exception.html#method-i-full_message.
func rubyTrace(lines []string) (string, string, bool) {
	for i, l := range lines {
		if !rubyFrame(l) {
			continue
		}
		if i == 0 {
			return "", "", true
		}
		return join(lines[:i-1]), strings.TrimSpace(lines[i-1]), true
	}
	return "", "", false
}

// rubyFrame matches an indented "from path:12:in ..." frame.
func rubyFrame(l string) bool {
	if !indented(l) {
		return false
	}
	t, ok := strings.CutPrefix(strings.TrimSpace(l), "from ")
	return ok && strings.Contains(t, ":in ") && hasLineNumber(t)
}

// stripLocation removes from an exception line the location a PHP or Ruby
// runtime prints in it: a Ruby "path:12:in `method': " prefix, and a PHP
// " in /path/file.php:42", " in /path/file.php on line 42" or " at
// /path/file.php:42" (Laravel) part. A path is a word with a '/' or '\'
// in it; any other text is left alone (a path in the exception's own
// message, "No such file: 'missing.txt'", is for the model to read).
func stripLocation(exc string) string {
	if k := strings.Index(exc, ":in "); k > 0 && !strings.ContainsAny(exc[:k], " \t") && hasLineNumber(exc[:k+1]) {
		rest := exc[k+len(":in "):]
		if len(rest) > 0 && (rest[0] == '`' || rest[0] == '\'') {
			if q := strings.Index(rest, "': "); q > 0 {
				exc = rest[q+3:]
			}
		}
	}
	for _, sep := range [...]string{" in ", " at "} {
		for from := 0; ; {
			k := strings.Index(exc[from:], sep)
			if k < 0 {
				break
			}
			k += from
			p := k + len(sep)
			end := p
			for end < len(exc) && exc[end] != ' ' && exc[end] != ')' && exc[end] != ':' {
				end++
			}
			path := exc[p:end]
			if !strings.ContainsAny(path, "/\\") {
				from = p
				continue
			}
			tail := exc[end:]
			n := 0
			switch {
			case strings.HasPrefix(tail, ":") && len(tail) > 1 && tail[1] >= '0' && tail[1] <= '9':
				n = 1 + len(tail[1:]) - len(strings.TrimLeft(tail[1:], "0123456789"))
			case strings.HasPrefix(tail, " on line "):
				r := tail[len(" on line "):]
				n = len(" on line ") + len(r) - len(strings.TrimLeft(r, "0123456789"))
			default:
				from = p
				continue
			}
			exc = exc[:k] + exc[end+n:]
			from = k
		}
	}
	return exc
}

// atFrame matches an indented "at ..." frame that names a location.
func atFrame(l string) bool {
	if !indented(l) {
		return false
	}
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, "at ") {
		return false
	}
	return hasLineNumber(t) || strings.Contains(t, "(Native Method)") ||
		strings.Contains(t, "(Unknown Source)") || strings.Contains(t, "<anonymous>") || strings.HasSuffix(t, "(native)") ||
		strings.Contains(t, ":line ") || dotnetFrame(t[len("at "):])
}

// dotnetFrame matches a .NET frame without a file ("System.Linq.Enumerable.
// First[TSource](IEnumerable`1 source)"): a dotted method name, no space
// before its '(', ending in ')'.
//
// See https://learn.microsoft.com/dotnet/api/system.exception.stacktrace.
func dotnetFrame(t string) bool {
	p := strings.IndexByte(t, '(')
	return p > 0 && strings.HasSuffix(t, ")") && strings.IndexByte(t[:p], '.') > 0 && !strings.ContainsAny(t[:p], " \t")
}

// hasLineNumber reports whether t contains ':' followed by a digit.
func hasLineNumber(t string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i] == ':' && t[i+1] >= '0' && t[i+1] <= '9' {
			return true
		}
	}
	return false
}

// frameLine reports whether a line is a stack frame of any of the five
// languages (it carries a file path) or trace furniture.
func frameLine(lines []string, i int) bool {
	l := lines[i]
	t := strings.TrimSpace(l)
	switch {
	case t == "":
		return false
	case atFrame(l):
		return true
	case pyFrame(t): // Python
		return true
	case i > 0 && indented(l) && pyFrame(strings.TrimSpace(lines[i-1])) && indent(l) > indent(lines[i-1]):
		return true // Python: the source line under its frame (format_tb, format_stack: no Traceback header)
	case strings.Trim(t, "^~ ") == "": // Python 3.11 carets
		return true
	case strings.HasPrefix(t, "...") && (strings.HasSuffix(t, " more") || strings.HasSuffix(t, "omitted")): // Java
		return true
	case indented(l) && goFileLine(t): // Go: "\t/app/main.go:12 +0x1d"
		return true
	case i+1 < len(lines) && indented(lines[i+1]) && goFileLine(strings.TrimSpace(lines[i+1])) && strings.HasSuffix(t, ")"):
		return true // Go: the function line before its file line
	case strings.HasPrefix(t, "created by ") && i+1 < len(lines) && goFileLine(strings.TrimSpace(lines[i+1])):
		return true
	case strings.HasPrefix(t, "note: run with `RUST_BACKTRACE"), strings.HasPrefix(t, "note: Some details are omitted"):
		return true
	case rubyFrame(l): // Ruby: "\tfrom /app/x.rb:20:in `run'"
		return true
	case phpFrame(t): // PHP: "#0 /app/x.php(17): f()", "#2 {main}", "thrown in /app/x.php on line 42"
		return true
	case strings.HasPrefix(t, "--- End of ") && strings.HasSuffix(t, " ---"): // .NET
		return true
	case pathLine(t): // Node: "/app/index.js:10" above the source line and a caret
		return true
	case i > 0 && indented(l) && pathLine(strings.TrimSpace(lines[i-1])):
		return true // the source line under a path line
	}
	return false
}

// pyFrame matches a Python frame line, trimmed: File "/app/x.py", line 3, in f.
//
// See https://docs.python.org/3/library/traceback.html (format_tb).
func pyFrame(t string) bool {
	return strings.HasPrefix(t, `File "`) && strings.Contains(t, `", line `)
}

// indent is the length of l's leading spaces and tabs.
func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// phpFrame matches a line of a PHP stack trace.
func phpFrame(t string) bool {
	if t == "Stack trace:" || t == "[stacktrace]" || strings.HasPrefix(t, "thrown in ") && strings.Contains(t, " on line ") {
		return true
	}
	if len(t) < 3 || t[0] != '#' || t[1] < '0' || t[1] > '9' {
		return false
	}
	rest := strings.TrimLeft(t[1:], "0123456789")
	return rest == " {main}" || strings.HasPrefix(rest, " ") && (strings.Contains(rest, "): ") || strings.Contains(rest, "[internal function]"))
}

// pathLine matches a line that is only a file path and a line number
// ("/app/index.js:10", "C:\\app\\x.js:3:7").
func pathLine(t string) bool {
	return t != "" && !strings.ContainsAny(t, " \t") && strings.ContainsAny(t, "/\\") && hasLineNumber(t) &&
		strings.TrimRight(t, "0123456789:") != t && strings.Contains(t, ".")
}

// goFileLine matches "path/file.go:12" optionally followed by " +0x1d".
func goFileLine(t string) bool {
	i := strings.Index(t, ".go:")
	return i > 0 && i+4 < len(t) && t[i+4] >= '0' && t[i+4] <= '9'
}

// dropFrames removes stack-frame lines from s.
func dropFrames(s string) string {
	if !strings.Contains(s, "\n") && !strings.HasPrefix(s, " ") && !strings.HasPrefix(s, "\t") {
		return s
	}
	lines := strings.Split(s, "\n")
	kept := lines[:0:0]
	for i := range lines {
		if !frameLine(lines, i) {
			kept = append(kept, lines[i])
		}
	}
	return join(kept)
}

// collapse replaces every run of white space with one space and trims both
// ends; s itself is returned when it has nothing to collapse.
func collapse(s string) string {
	if !needsCollapse(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	space := false
	for _, r := range s {
		if isSpace(r) {
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

func needsCollapse(s string) bool {
	prevSpace := true // a leading space needs trimming
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // ASCII: no call per byte
			i++
			sp := c == ' ' || c-'\t' <= '\r'-'\t'
			if sp && (c != ' ' || prevSpace) {
				return true
			}
			prevSpace = sp
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		sp := isSpace(r)
		if sp && (r != ' ' || prevSpace) {
			return true
		}
		prevSpace = sp
	}
	return prevSpace && s != ""
}

// isSpace is unicode.IsSpace with the ASCII case inline.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
	}
	return unicode.IsSpace(r)
}

// firstSentence returns s up to the end of its first sentence: '.', '!' or
// '?' followed by a space and an upper-case letter. A single-letter word
// before the '.' ("e.g. X", "U.S. Army") does not end a sentence.
func firstSentence(s string) string {
	for i := 0; i+2 < len(s); i++ {
		c := s[i]
		if (c != '.' && c != '!' && c != '?') || s[i+1] != ' ' {
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i+2:])
		if !unicode.IsUpper(r) {
			continue
		}
		if c == '.' && i >= 1 && (i == 1 || s[i-2] == ' ' || s[i-2] == '.') && isAlnum(s[i-1]) {
			continue
		}
		return s[:i+1]
	}
	return s
}
