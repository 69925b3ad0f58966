package egress

import "bytes"

// HeadError tells from head, the held start of a text/event-stream event
// too long to hold whole (its lines as they came, the last one cut where
// the holding stopped; the stream's leading UTF-8 BOM, if any, already
// stripped), whether the event is an error event as a whole one is told:
// named "error" (Anthropic, the Responses API), or with data that opens a
// JSON object whose first member is an "error" object (a Chat Completions
// or Gemini error chunk, `{"error":{`, JSON white space allowed between
// the tokens). name is the event's name, from its complete lines only: a
// cut "event:" line may go on past what was held. The data is the data
// lines joined by LF, as in a whole event, the cut line included; an
// "error" member after another (a long one) cannot be told from a head, and
// such an event is no error event here. Nothing is copied but the name.
//
// Lines end in CRLF, LF or CR; a field's value is what follows its first
// colon, one leading space dropped; a line without a colon is a field with
// an empty value. See the WHATWG HTML standard, "Server-sent events",
// https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation,
// https://docs.claude.com/en/docs/build-with-claude/streaming#error-events
// and https://platform.openai.com/docs/api-reference/responses-streaming/error.
func HeadError(head []byte) (name string, isError bool) {
	var open errorOpener
	data := false
	for len(head) > 0 {
		i := bytes.IndexAny(head, "\r\n")
		complete := i >= 0
		if !complete {
			i = len(head)
		}
		field, value, _ := bytes.Cut(head[:i], []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			if complete {
				name = string(value)
			}
		case "data":
			if data {
				open.feed([]byte("\n"))
			}
			open.feed(value)
			data = true
		}
		if !complete {
			break
		}
		if head[i] == '\r' && i+1 < len(head) && head[i+1] == '\n' {
			i++
		}
		head = head[i+1:]
	}
	return name, name == "error" || open.done()
}

// errorOpener matches the start of a JSON text against {"error":{, white
// space (RFC 8259, 2: space, tab, LF, CR) allowed between the tokens, fed
// a piece at a time.
type errorOpener struct {
	tok, at int  // the token being matched and how much of it has been
	failed  bool // a byte that is neither white space nor the token's came
}

var errorOpening = [...]string{"{", `"error"`, ":", "{"}

func (o *errorOpener) done() bool { return o.tok == len(errorOpening) }

func (o *errorOpener) feed(b []byte) {
	for _, c := range b {
		if o.failed || o.done() {
			return
		}
		t := errorOpening[o.tok]
		switch {
		case c == t[o.at]:
			if o.at++; o.at == len(t) {
				o.tok, o.at = o.tok+1, 0
			}
		case o.at == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
		default:
			o.failed = true
		}
	}
}

// ElementHeadError tells from head, the held start of an element of a
// JSON-array stream too long to hold whole (Gemini's streamGenerateContent
// without alt=sse: "[{...},{...}]"), from the element's first byte, the
// last one cut where the holding stopped, whether the element is an error
// element as a whole one is told: a JSON object whose first member is an
// "error" object (`{"error":{`, JSON white space allowed between the
// tokens). An "error" member after another cannot be told from a head,
// and such an element is no error element here. Nothing is copied.
func ElementHeadError(head []byte) bool {
	var open errorOpener
	open.feed(head)
	return open.done()
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
	v := successHead(headScanner{b: bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))})
	return v != headPass, v != headShort
}

// A headVerdict is what SuccessHead tells of a head so far.
type headVerdict int8

const (
	headOn    headVerdict = iota // no verdict yet: read on
	headShort                    // the head ends before it tells
	headPass                     // no error object: the body passes unread
	headRead                     // an error object's opening: read the body whole
)

func successHead(s headScanner) headVerdict {
	if v := s.token('{'); v != headOn {
		return v
	}
	for typed := false; ; typed = true {
		name, v := s.name()
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
		case name == "type" && !typed:
			value, v := s.name()
			if v == headOn && value != "error" {
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

// headScanner reads the JSON tokens of a head from b[i:].
type headScanner struct {
	b []byte
	i int
}

// token skips JSON white space and reads c: headOn when it is next,
// headShort at the head's end, else headPass.
func (s *headScanner) token(c byte) headVerdict {
	for ; s.i < len(s.b); s.i++ {
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

// name reads a JSON string after white space, its escapes decoded, when it
// is at most five bytes (the length of "error", the longest SuccessHead
// looks for): a longer one, or anything else, is headPass; one the head
// cuts, headShort. A character outside ASCII decodes as 0xff, which no
// name SuccessHead looks for holds.
func (s *headScanner) name() (string, headVerdict) {
	if v := s.token('"'); v != headOn {
		return "", v
	}
	var buf [5]byte
	n := 0
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return string(buf[:n]), headOn
		case c < 0x20:
			return "", headPass // not JSON (RFC 8259, 7: a control character is escaped)
		case c == '\\':
			var v headVerdict
			if c, v = s.escape(); v != headOn {
				return "", v
			}
		}
		if n == len(buf) {
			return "", headPass
		}
		buf[n] = c
		n++
	}
	return "", headShort
}

// escape reads the rest of an escape after its backslash (RFC 8259, 7): the
// character it stands for (0xff for one outside ASCII).
func (s *headScanner) escape() (byte, headVerdict) {
	if s.i >= len(s.b) {
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
		if s.i >= len(s.b) {
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
