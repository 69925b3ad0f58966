package egress

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/toolerr/toolerr/core"
)

// MaxEventBytes is the largest stream event a StreamReader holds to look
// at, in bytes (4 MiB); a longer one (an image chunk) passes through
// unread, but for an error event, which is replaced as one read without
// its data (see NewStreamReader).
const MaxEventBytes = 4 << 20

// IsEventStream reports a text/event-stream response (its Content-Type,
// parameters such as charset allowed).
func IsEventStream(h http.Header) bool {
	const eventStream = "text/event-stream"
	ct := h.Get("Content-Type")
	// Most responses are not streams: their media type is told apart
	// without ParseMediaType's map of parameters.
	if base, _, _ := strings.Cut(ct, ";"); !strings.EqualFold(strings.TrimSpace(base), eventStream) {
		return false
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == eventStream
}

// StreamConfig configures NewStreamReader.
type StreamConfig struct {
	// Ingress is the format whose error events the client parses: the
	// endpoint's (Endpoint.Format).
	Ingress core.Format
	// Options are the error op's options for every error event: Upstream
	// and DropUpstreamMessage. NowMs and ContentEmitted are set per event.
	Options core.EgressOptions
	// Now is the clock for NowMs; nil means time.Now.
	Now func() time.Time
	// OnError is called with each error event's reply after it has
	// replaced the upstream's event in the stream (the envelope is
	// rep.Envelope); nil means none.
	OnError func(rep core.ErrorReply)
}

// NewStreamReader returns a reader of src, an upstream text/event-stream,
// that passes it through one complete event at a time (so a writer that
// flushes after every read sends each event as soon as it has arrived,
// never waiting for the next), and replaces each error event with the one
// the error op gives for it (core.EgressStreamError): the client's native
// error event, the envelope inside, details.partial_output set when an
// event with data went before. Everything else passes byte for byte, and
// the stream goes on after an error event. Closing it closes src.
//
// An error event is one named "error" (Anthropic, the Responses API), or
// one whose data is a JSON object with an "error" object (Chat Completions
// and Gemini chunks; an "error" that is null, a string or nested deeper is
// content). An event past MaxEventBytes is an error event when its first
// MaxEventBytes say so, as core.EgressStreamHead tells (named "error" in a
// line there, or data that opens with an "error" object): it is dropped to
// its end, never held whole, and replaced there by the error op's event for
// the event without its data. In one that passes, the value of a top-level
// "error" member of its data that is an object, wherever it lies, is cut
// out as it arrives and replaced by the "error" member of the error op's
// event data, so the data stays JSON and the upstream's text never passes.
//
// See the WHATWG HTML standard, "Server-sent events" (an event ends at a
// blank line; lines end in CRLF, LF or CR; a leading BOM is ignored),
// https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream.
func NewStreamReader(src io.ReadCloser, c StreamConfig) io.ReadCloser {
	if c.Now == nil {
		c.Now = time.Now
	}
	return &streamReader{pump: newPump(src), c: c}
}

// pump is what the stream readers share: the upstream body, the chunk it
// is read into, what is ready for the client and the read error kept for
// when that is passed.
type pump struct {
	src   io.ReadCloser
	chunk []byte
	out   []byte // ready for the client
	eof   error
}

func newPump(src io.ReadCloser) pump { return pump{src: src, chunk: make([]byte, 32<<10)} }

// next reads the next bytes of the upstream body, keeping an error for
// the end; the bytes are valid until the next call.
func (u *pump) next() []byte {
	n, err := u.src.Read(u.chunk)
	if err != nil {
		u.eof = err
	}
	return u.chunk[:n]
}

// take copies what is ready for the client into p.
func (u *pump) take(p []byte) (int, error) {
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// Close closes the upstream body.
func (u *pump) Close() error { return u.src.Close() }

type streamReader struct {
	pump
	c       StreamConfig
	pending []byte           // read, not yet a complete event
	line    int              // where the line in progress begins in pending (below 0: it began in bytes already passed)
	pos     int              // how far pending has been scanned
	skip    bool             // inside an event too long to hold: pass it through to its end
	drop    *core.ErrorReply // inside an error event too long to hold: dropped to its end, then replaced by this
	cut     errorCutter      // inside an event too long to hold: what passes of it
	emitted bool             // an event with data went before: output was streamed
	started bool             // the first event has been read (a BOM is stripped from it only)
}

// Read returns the next complete events (or, past MaxEventBytes, what
// arrived as it arrived; at the end of the stream, its unfinished last
// event as event handles a complete one).
func (s *streamReader) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		var end int
		end, s.line, s.pos = eventEnd(s.pending, s.line, s.pos)
		if end > 0 {
			switch {
			case s.drop != nil:
				s.write(*s.drop, lineEnd(s.pending[:end]))
				s.drop = nil
			case s.skip:
				s.out, s.skip = s.cutEnd(s.cut.pass(s.out, s.pending[:end], s), s.pending[:end]), false
			default:
				s.event(s.pending[:end])
			}
			s.pending = s.pending[end:]
			continue
		}
		if s.eof != nil {
			if len(s.pending) == 0 {
				return 0, s.eof
			}
			// The stream ended inside an event (no blank line after it).
			// A WHATWG parser discards it, a line reader may not: an error
			// event there is replaced as a complete one is, so the
			// upstream's text never passes; anything else passes as it
			// came, and so does the rest of an event too long to read.
			switch {
			case s.drop != nil:
				s.write(*s.drop, lineEnd(s.pending))
			case s.skip:
				s.out = s.cutEnd(s.cut.pass(s.out, s.pending, s), s.pending)
			default:
				s.event(s.pending)
			}
			s.pending, s.line, s.pos, s.skip, s.drop = nil, 0, 0, false, nil
			continue
		}
		if len(s.pending) > MaxEventBytes {
			// Too long to hold: what has been scanned passes as it
			// arrived, unread, and so does the rest up to the end of the
			// event; but an error event, as far as its first part tells
			// (core.EgressStreamHead), is dropped to its end instead and
			// replaced there as any error event is, read without its
			// data: the upstream's text never passes. A CR left at the
			// end stays, to be read with the byte after it (a CRLF is one
			// line end).
			if !s.skip && s.drop == nil {
				head := s.pending
				if !s.started {
					head, s.started = bytes.TrimPrefix(head, []byte(utf8BOM)), true
				}
				if rep, ok, err := core.EgressStreamHead(s.c.Ingress, head, s.options()); ok && err == nil {
					s.drop = &rep
				}
			}
			if s.drop == nil {
				s.out, s.skip = s.cut.pass(s.out, s.pending[:s.pos], s), true
			}
			s.pending, s.line, s.pos = s.pending[s.pos:], s.line-s.pos, 0
			continue
		}
		s.pending = append(s.pending, s.next()...)
	}
	return s.take(p)
}

// eventEnd returns the length of the first complete event of b, its blank
// line included, or 0 when b holds none yet. It scans b from pos, in a line
// that begins at line; with no end found it returns where the next call
// resumes: the start of the unfinished line and how far b was scanned (all
// of it, but a CR at its end, which may be the first half of a CRLF), so
// that a long event, or a long line, is scanned once, not once per chunk.
// After an end, the next call starts at 0, 0.
func eventEnd(b []byte, line, pos int) (end, nextLine, nextPos int) {
	for i := pos; i < len(b); {
		k := bytes.IndexAny(b[i:], "\r\n")
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

// event handles one complete event: an error event is replaced by the
// error op's, anything else appended as it is.
func (s *streamReader) event(raw []byte) {
	fields := raw
	if !s.started {
		// The stream's first bytes may be a UTF-8 BOM, which the WHATWG
		// parser strips before reading fields ("One leading U+FEFF BYTE
		// ORDER MARK character must be ignored if any are present"): read
		// without it, or "\ufeffdata" hides an error event. It stays in
		// the bytes passed through.
		fields, s.started = bytes.TrimPrefix(raw, []byte(utf8BOM)), true
	}
	name, data := parseEvent(fields)
	if !isErrorEvent(name, data) {
		if len(data) > 0 {
			s.emitted = s.emitted || name != "ping"
		}
		s.out = append(s.out, raw...)
		return
	}
	rep, ok := s.reply(name, data)
	if !ok {
		s.out = append(s.out, raw...)
		return
	}
	s.write(rep, lineEnd(raw))
}

// reply is the error op's event for an upstream error event named name
// with data; false when the op refuses it.
func (s *streamReader) reply(name string, data []byte) (core.ErrorReply, bool) {
	rep, err := core.EgressStreamError(s.c.Ingress, name, data, s.options())
	return rep, err == nil
}

// cutReply is what replaces an "error" object inside an event too long to
// hold (errorCutter).
func (s *streamReader) cutReply() []byte { return cutReply(s.c, s.emitted) }

// cutEnd ends the cut of raw, the rest of an event too long to hold, as
// out holds it: when the event ended inside an "error" object being cut,
// its line ends were dropped with it, and are written after the reply.
func (s *streamReader) cutEnd(out, raw []byte) []byte {
	out, cut := s.cut.end(out, s)
	if cut {
		eol := lineEnd(raw)
		out = append(append(out, eol...), eol...)
	}
	return out
}

// options are the error op's options for the event being read.
func (s *streamReader) options() core.EgressOptions { return eventOptions(s.c, s.emitted) }

// eventOptions are the error op's options for an error event (or array
// element) read now by a reader configured by c, after content (emitted)
// or none.
func eventOptions(c StreamConfig, emitted bool) core.EgressOptions {
	opt := c.Options
	opt.NowMs, opt.ContentEmitted = c.Now().UnixMilli(), emitted
	return opt
}

// write writes rep, the error op's event, its lines ended by eol, and
// reports it to OnError.
func (s *streamReader) write(rep core.ErrorReply, eol string) {
	// The event is written with the line end of the one it replaces: a
	// reader that splits on one kind only (go-genai splits on "\n\n" before
	// "\r\n\r\n") would otherwise join a CRLF stream's previous event to it.
	if rep.Event != "" {
		s.out = append(append(append(s.out, "event: "...), rep.Event...), eol...)
	}
	s.out = append(append(append(append(s.out, "data: "...), rep.Body...), eol...), eol...)
	if s.c.OnError != nil {
		s.c.OnError(rep)
	}
}

// utf8BOM is U+FEFF in UTF-8.
const utf8BOM = "\xEF\xBB\xBF"

// lineEnd returns the line end of raw, one complete event: the one that
// ends its last line (CRLF, CR or LF).
func lineEnd(raw []byte) string {
	switch {
	case bytes.HasSuffix(raw, []byte("\r\n")):
		return "\r\n"
	case bytes.HasSuffix(raw, []byte("\r")):
		return "\r"
	}
	return "\n"
}

// parseEvent returns the name and the data (data lines joined by LF) of
// raw, one complete event of a text/event-stream, per the event-stream
// interpretation rules of the WHATWG HTML standard.
func parseEvent(raw []byte) (name string, data []byte) {
	first := true
	for len(raw) > 0 {
		i := bytes.IndexAny(raw, "\r\n")
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

// isErrorEvent reports whether an event of a provider's stream, its name
// and data, is an error event: named "error" (Anthropic, the Responses
// API), or data that is a JSON object with an "error" object (Chat
// Completions and Gemini chunks; an "error" that is null, a string or
// nested deeper is content). The data is parsed only when it holds the
// bytes "error" in quotes, or an escape of one of its letters (a member
// name "\u0065rror" is "error" to every JSON reader), so a content delta
// costs a byte search or two.
//
// Data the core does not read as JSON (a number past a double, a member
// twice, nesting past its bound, bytes after the object) is still an error
// event when a lenient reader (Python's json, JSON.parse) would find one
// in it, as looseError tells: the SDK would raise the upstream's text.
//
// See https://docs.claude.com/en/docs/build-with-claude/streaming#error-events,
// https://platform.openai.com/docs/api-reference/responses-streaming/error
// and https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent.
func isErrorEvent(name string, data []byte) bool {
	if name == "error" {
		return true
	}
	if !bytes.Contains(data, []byte(`"error"`)) && !escapesErrorLetter(data) {
		return false
	}
	v, err := core.ParseJSON(data)
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
	var name string
	return bytes.IndexByte(quoted, '\\') >= 0 && json.Unmarshal(quoted, &name) == nil && name == "error"
}
