package egress

import "bytes"

// HeadError tells from head, the held start of a text/event-stream event
// too long to hold whole (its lines as they came, the last one cut where
// the holding stopped; the stream's leading UTF-8 BOM, if any, already
// stripped), whether the event is an error event as a whole one is told
// (IsErrorEvent): named "error" (Anthropic, the Responses API), or with
// data that opens a JSON object whose first member is an "error" object (a
// Chat Completions or Gemini error chunk, `{"error":{`). The member name is
// read as a JSON string (RFC 8259, 7), its escapes decoded, so
// `{"\u0065rror":{` opens one too; JSON white space (space, tab, LF, CR)
// may come between the tokens. name is the event's name, from its complete
// lines only: a cut "event:" line may go on past what was held. The data is
// the data lines joined by LF, as in a whole event, the cut line included,
// read a line at a time; a head that ends before it tells, and an "error"
// member after another (a long one), which cannot be told from a head, are
// no error event here. Nothing is copied but the name.
//
// Lines end in CRLF, LF or CR; a field's value is what follows its first
// colon, one leading space dropped; a line without a colon is a field with
// an empty value. See the WHATWG HTML standard, "Server-sent events",
// https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation,
// https://docs.claude.com/en/docs/build-with-claude/streaming#error-events
// and https://platform.openai.com/docs/api-reference/responses-streaming/error.
func HeadError(head []byte) (name string, isError bool) {
	s := headScanner{lines: eventLines{head: head}, event: true}
	v := errorOpening(&s, false)
	for s.lines.next() {
		// The rest of the lines, for an "event" line after the data.
	}
	return s.lines.name, s.lines.name == "error" || v == headRead
}

// eventLines reads the held lines of an event (see HeadError) for its
// name and its data, a data line's value at a time.
type eventLines struct {
	head []byte // the lines not read yet
	name string // the value of the last complete "event" line read
	data bool   // a data line was read: the next one is joined to it by a LF
	lf   bool   // the piece is that LF; val, the next call's
	val  []byte // the value of the data line last read
}

// next reads on to the next piece of the data, which piece then gives: a
// data line's value, or the LF that joins it to the one before; false at
// the head's end.
func (l *eventLines) next() bool {
	if l.lf {
		l.lf = false
		return true
	}
	for len(l.head) > 0 {
		i := bytes.IndexAny(l.head, "\r\n")
		complete := i >= 0
		if !complete {
			i = len(l.head)
		}
		field, value, _ := bytes.Cut(l.head[:i], []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		if complete && l.head[i] == '\r' && i+1 < len(l.head) && l.head[i+1] == '\n' {
			i++
		}
		l.head = l.head[min(i+1, len(l.head)):]
		switch string(field) {
		case "event":
			if complete {
				l.name = string(value)
			}
		case "data":
			l.val = value
			if l.data {
				l.lf = true
			}
			l.data = true
			return true
		}
	}
	return false
}

// lf joins two data lines.
var lf = []byte("\n")

// piece is the data piece next read.
func (l *eventLines) piece() []byte {
	if l.lf {
		return lf
	}
	return l.val
}

// ElementHeadError tells from head, the held start of an element of a
// JSON-array stream too long to hold whole (Gemini's streamGenerateContent
// without alt=sse: "[{...},{...}]"), from the element's first byte, the
// last one cut where the holding stopped, whether the element is an error
// element as a whole one is told (IsErrorEvent): a JSON object whose first
// member is an "error" object (`{"error":{`, the name read as a JSON string,
// RFC 8259, 7, its escapes decoded: `{"\u0065rror":{` too; JSON white space
// allowed between the tokens). A head that ends before it tells, and an
// "error" member after another, which cannot be told from a head, are no
// error element here. Nothing is copied.
func ElementHeadError(head []byte) bool {
	return errorOpening(&headScanner{b: head}, false) == headRead
}

// SuccessHeadBytes is the most of a success's body SuccessHead is given:
// a transport holds at most this many bytes of a success outside a stream
// before it asks, and the egress_error op refuses a longer head. 256 bytes
// hold Anthropic's `{"type":"error","error":{` with every name and value
// escaped (\uXXXX, six bytes a character) and white space between.
const SuccessHeadBytes = 256

// SuccessHead tells from head, the start of the body of an upstream's
// success outside a stream (its first bytes as they came, a UTF-8 BOM
// skipped), whether the body must be read whole to tell whether it is an
// error object in place of the answer, one SuccessError may take for a
// failure: read is true when head opens one, or may yet (it is too short
// to tell: empty, white space, `{"err`, `{"type":"error"`); false when it
// cannot be one, and the body passes unread. decided is false while head is
// too short to tell: once it is true, more bytes do not change read.
//
// An error object opens as a JSON object whose first member is an "error"
// object (`{"error":{`: Google's error body, AIP-193, and the OpenAI style
// a proxy sends), or whose first member is "type":"error" and second an
// "error" object (`{"type":"error","error":{`: Anthropic's error body,
// docs.claude.com/en/api/errors; in the other order it opens
// `{"error":{`). Member names and the type's value are read as JSON strings
// (RFC 8259, 7), their escapes decoded, so `{"\u0065rror":{` opens one
// too; JSON white space (space, tab, LF, CR) may come between the tokens.
// An array ("[{...": a Gemini JSON-array stream), a string, non-JSON, or a
// first member of another name (every answer: "id", "candidates") is
// decided at once. Nothing is copied.
func SuccessHead(head []byte) (read, decided bool) {
	v := errorOpening(&headScanner{b: bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))}, true)
	return v != headPass, v != headShort
}

// A headVerdict is what errorOpening tells of a head so far.
type headVerdict int8

const (
	headOn    headVerdict = iota // no verdict yet: read on
	headShort                    // the head ends before it tells
	headPass                     // no error object: the body passes unread
	headRead                     // an error object's opening: read the body whole
)

// errorOpening reads the opening of an error object from s: headRead when
// its first member is an "error" object or, with typed (SuccessHead),
// Anthropic's "type":"error" first and an "error" object second; headPass
// when it cannot be one; headShort when s ends before it tells.
func errorOpening(s *headScanner, typed bool) headVerdict {
	if v := s.token('{'); v != headOn {
		return v
	}
	for first := true; ; first = false {
		buf, n, v := s.name()
		name := string(buf[:n]) // compared only: no copy made
		if v == headOn {
			v = s.token(':')
		}
		if v != headOn {
			return v
		}
		switch {
		case name == "error":
			if v := s.token('{'); v != headOn {
				return v
			}
			return headRead
		case name == "type" && typed && first:
			buf, n, v := s.name()
			if v == headOn && string(buf[:n]) != "error" {
				v = headPass
			}
			if v == headOn {
				v = s.token(',')
			}
			if v != headOn {
				return v
			}
		default:
			return headPass
		}
	}
}

// headScanner reads the JSON tokens of a head from b[i:] and, for an
// event's head (event), from the data pieces of lines after it.
type headScanner struct {
	b     []byte
	i     int
	event bool
	lines eventLines
}

// more reports whether a byte is left, at b[i] once it returns true: an
// event's head reads on into its next data piece.
func (s *headScanner) more() bool {
	for s.i >= len(s.b) {
		if !s.event || !s.lines.next() {
			return false
		}
		s.b, s.i = s.lines.piece(), 0
	}
	return true
}

// token skips JSON white space and reads c: headOn when it is next,
// headShort at the head's end, else headPass.
func (s *headScanner) token(c byte) headVerdict {
	for ; s.more(); s.i++ {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			continue
		case c:
			s.i++
			return headOn
		}
		return headPass
	}
	return headShort
}

// name reads a JSON string after white space, its escapes decoded (RFC
// 8259, 7), into buf[:n] when it is at most five bytes (the length of
// "error", the longest errorOpening looks for): a longer one, or anything
// else, is headPass; one the head cuts, headShort. A character outside
// ASCII decodes as 0xff, which no name errorOpening looks for holds.
func (s *headScanner) name() (buf [5]byte, n int, _ headVerdict) {
	if v := s.token('"'); v != headOn {
		return buf, 0, v
	}
	for s.more() {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return buf, n, headOn
		case c < 0x20:
			return buf, 0, headPass // not JSON (RFC 8259, 7: a control character is escaped)
		case c == '\\':
			var v headVerdict
			if c, v = s.escape(); v != headOn {
				return buf, 0, v
			}
		}
		if n == len(buf) {
			return buf, 0, headPass
		}
		buf[n] = c
		n++
	}
	return buf, 0, headShort
}

// escape reads the rest of an escape after its backslash (RFC 8259, 7): the
// character it stands for (0xff for one outside ASCII).
func (s *headScanner) escape() (byte, headVerdict) {
	if !s.more() {
		return 0, headShort
	}
	c := s.b[s.i]
	s.i++
	switch c {
	case '"', '\\', '/':
		return c, headOn
	case 'b', 'f', 'n', 'r', 't':
		return 0x1f, headOn // a control character: in no name looked for
	case 'u':
	default:
		return 0, headPass
	}
	var r rune
	for k := 0; k < 4; k++ {
		if !s.more() {
			return 0, headShort
		}
		h := s.b[s.i]
		s.i++
		switch {
		case h >= '0' && h <= '9':
			r = r<<4 | rune(h-'0')
		case h|0x20 >= 'a' && h|0x20 <= 'f':
			r = r<<4 | rune(h|0x20-'a'+10)
		default:
			return 0, headPass
		}
	}
	if r >= 0x80 {
		return 0xff, headOn
	}
	return byte(r), headOn
}
