package egress

import (
	"bytes"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// The framing of streamed answers and the guard that tells an error in
// them, which core.EgressScan runs for every transport (the Go egress
// readers, the gateway, and the Python, Node and Rust bindings through
// the egress_scan op): where a text/event-stream event or an element of a
// JSON-array stream ends, and whether it is an error.

// BOM is U+FEFF in UTF-8, which may open a stream.
const BOM = "\xEF\xBB\xBF"

// EventEnd returns the length of the first complete event of b, its blank
// line included, or 0 when b holds none yet. It scans b from pos, in a line
// that begins at line; with no end found it returns where the next call
// resumes: the start of the unfinished line and how far b was scanned (all
// of it, but a CR at its end, which may be the first half of a CRLF), so
// that a long event, or a long line, is scanned once, not once per chunk.
// After an end, the next call starts at 0, 0. lfOnly says b holds no CR
// (most streams): its lines are found by IndexByte.
//
// See the WHATWG HTML standard, "Server-sent events" (an event ends at a
// blank line; lines end in CRLF, LF or CR).
func EventEnd(b []byte, line, pos int, lfOnly bool) (end, nextLine, nextPos int) {
	for i := pos; i < len(b); {
		var k int
		if lfOnly {
			k = bytes.IndexByte(b[i:], '\n')
		} else {
			k = IndexIn(b[i:], lineEnds)
		}
		if k < 0 {
			break
		}
		i += k
		next := i + 1
		if b[i] == '\r' {
			if next == len(b) {
				return 0, line, i
			}
			if b[next] == '\n' {
				next++
			}
		}
		if i == line {
			return next, 0, 0 // an empty line ends the event
		}
		line, i = next, next
	}
	return 0, line, len(b)
}

// lineEnds are the bytes that end an event-stream line.
var lineEnds = NewByteSet("\r\n")

// LineEnd returns the line end of raw, one complete event: the one that
// ends its last line (CRLF, CR or LF).
func LineEnd(raw []byte) string {
	switch {
	case bytes.HasSuffix(raw, []byte("\r\n")):
		return "\r\n"
	case bytes.HasSuffix(raw, []byte("\r")):
		return "\r"
	}
	return "\n"
}

// ParseEvent returns the name and the data (data lines joined by LF) of
// raw, one complete event of a text/event-stream, per the event-stream
// interpretation rules of the WHATWG HTML standard.
func ParseEvent(raw []byte) (name string, data []byte) {
	first := true
	for len(raw) > 0 {
		i := IndexIn(raw, lineEnds)
		if i < 0 {
			i = len(raw)
		}
		line := raw[:i]
		raw = raw[i:]
		if len(raw) > 0 && raw[0] == '\r' {
			raw = raw[1:]
		}
		if len(raw) > 0 && raw[0] == '\n' {
			raw = raw[1:]
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if !first {
				data = append(data, '\n')
			}
			data, first = append(data, value...), false
		}
	}
	return name, data
}

// IsErrorEvent reports whether an event of a provider's stream, its name
// and data, is an error event: named "error" (Anthropic, the Responses
// API), or data that is a JSON object with an "error" object (Chat
// Completions and Gemini chunks; an "error" that is null, a string or
// nested deeper is content). The data is parsed only when it holds the
// bytes "error" in quotes, or an escape of one of its letters (a member
// name "\u0065rror" is "error" to every JSON reader), so a content delta
// costs a byte search or two.
//
// Data the core does not read as JSON (a number past a double, a member
// twice, nesting past its bound, bytes after the object, a chunk cut short)
// is still an error event when a lenient reader (Python's json,
// JSON.parse) would find one in it, as looseError tells: the SDK would
// raise the upstream's text.
//
// See https://docs.claude.com/en/docs/build-with-claude/streaming#error-events,
// https://platform.openai.com/docs/api-reference/responses-streaming/error
// and https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent.
func IsErrorEvent(name string, data []byte) bool {
	if name == "error" {
		return true
	}
	if !bytes.Contains(data, []byte(`"error"`)) && !escapesErrorLetter(data) {
		return false
	}
	v, err := canonical.ParseRequest(data)
	if err != nil {
		return looseError(data)
	}
	m, _ := v.(map[string]any)
	_, isObj := m["error"].(map[string]any)
	return isObj
}

// escapesErrorLetter reports whether data holds a JSON escape of a letter
// of "error" (\u0065, \u0072, \u006f, in either case of hex digit).
func escapesErrorLetter(data []byte) bool {
	for i := bytes.Index(data, []byte(`\u00`)); i >= 0; {
		if i+6 <= len(data) {
			// |0x20 lower-cases a hex letter and leaves a digit as it is.
			if hi, lo := data[i+4], data[i+5]|0x20; hi == '6' && (lo == '5' || lo == 'f') || hi == '7' && lo == '2' {
				return true
			}
		}
		next := bytes.Index(data[i+1:], []byte(`\u00`))
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// looseError reports whether data, no JSON value the core reads, opens a
// JSON object with a member named "error" (its name's escapes decoded)
// whose value opens with "{": what a lenient reader would take for an
// error chunk. It scans the bytes once, strings skipped whole, and never
// builds a value.
func looseError(data []byte) bool {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return false
	}
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '"':
			end := stringEnd(data, i)
			if end < 0 {
				return false
			}
			if depth == 1 {
				j := skipSpace(data, end)
				if j < len(data) && data[j] == ':' && isErrorName(data[i:end]) {
					k := skipSpace(data, j+1)
					if k < len(data) && data[k] == '{' {
						return true
					}
				}
			}
			i = end
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return false // the object ended without one
			}
		}
		i++
	}
	return false
}

// skipSpace returns the index of the first byte of b from i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the closing quote of the JSON
// string that opens at b[i], or -1 when it does not close.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// isErrorName reports whether quoted, a JSON string with its quotes, is
// "error" once its escapes are decoded.
func isErrorName(quoted []byte) bool {
	if bytes.Equal(quoted, []byte(`"error"`)) {
		return true
	}
	if bytes.IndexByte(quoted, '\\') < 0 {
		return false
	}
	name, err := canonical.ParseRequest(quoted)
	return err == nil && name == "error"
}

// A byte table of the bytes a scan stops at, and IndexIn, which finds the
// first of them: bytes.IndexAny builds its set on every call, which cost a
// clean array stream a third of its scan.
type ByteSet [256]bool

// NewByteSet returns the set of the bytes of s.
func NewByteSet(s string) *ByteSet {
	var t ByteSet
	for i := 0; i < len(s); i++ {
		t[s[i]] = true
	}
	return &t
}

// IndexIn returns the index of the first byte of b in t, or -1.
func IndexIn(b []byte, t *ByteSet) int {
	for i, c := range b {
		if t[c] {
			return i
		}
	}
	return -1
}

// Guard finds the bytes a frame must hold to be an error one, the
// needles: "error" (an event named error, a member "error") and `\u00` (an
// escape of one of its letters, see IsErrorEvent). A frame of a stream
// without either is no error, whatever its framing (lines joined by LF
// make no needle), so IsErrorEvent reads only the frames that hold one;
// each needle is searched once per input, not once per frame.
type Guard struct {
	in       []byte
	err, esc int // the next needle at or after the last frame asked (-2: not searched yet, -1: none left)
}

// NewGuard returns the guard of in.
func NewGuard(in []byte) Guard { return Guard{in: in, err: -2, esc: -2} }

// Suspect reports whether in[start:end] holds a needle.
func (g *Guard) Suspect(start, end int) bool {
	g.err = next(g.in, g.err, start, "error")
	g.esc = next(g.in, g.esc, start, `\u00`)
	return g.err >= 0 && g.err+len("error") <= end || g.esc >= 0 && g.esc+len(`\u00`) <= end
}

// next is the index of needle in b at or after start, given at, the last
// one found (-2: none searched yet, -1: none left).
func next(b []byte, at, start int, needle string) int {
	if at == -1 || at >= start {
		return at
	}
	i := bytes.Index(b[start:], []byte(needle))
	if i < 0 {
		return -1
	}
	return start + i
}
