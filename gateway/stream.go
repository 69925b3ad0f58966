package gateway

import (
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/toolerr/toolerr/core"
)

// maxEventBytes is the largest stream event the reader holds to look at,
// in bytes; a longer one (an image chunk) passes through unread.
const maxEventBytes = 4 << 20

// isEventStream reports a text/event-stream response.
func isEventStream(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "text/event-stream"
}

// streamReader passes an upstream text/event-stream through one complete
// event at a time (so ReverseProxy, flushing after every write, sends each
// event as soon as it has arrived, never waiting for the next), and
// replaces an error event with the one the error op gives for it: the
// client's native error event, the envelope inside. Everything else passes
// byte for byte.
//
// See the WHATWG HTML standard, "Server-sent events" (an event ends at a
// blank line; lines end in CRLF, LF or CR).
type streamReader struct {
	src     io.ReadCloser
	g       *Gateway
	ex      *exchange
	pending []byte // read, not yet a complete event
	scan    int    // where eventEnd resumes in pending
	skip    bool   // inside an event too long to hold: pass it through to its end
	out     []byte // ready for the client
	emitted bool   // an event with data went before: output was streamed
	eof     error
	chunk   []byte
}

func newStreamReader(src io.ReadCloser, g *Gateway, ex *exchange) *streamReader {
	return &streamReader{src: src, g: g, ex: ex, chunk: make([]byte, 32<<10)}
}

// Read returns the next complete events (or, at the end of the stream or
// past maxEventBytes, what arrived as it arrived).
func (s *streamReader) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		end, resume := eventEnd(s.pending, s.scan)
		if end > 0 && s.skip {
			s.out, s.skip = append(s.out, s.pending[:end]...), false
			s.pending, s.scan = s.pending[end:], 0
			continue
		}
		if end > 0 {
			s.event(s.pending[:end])
			s.pending, s.scan = s.pending[end:], 0
			continue
		}
		s.scan = resume
		if s.eof != nil {
			if len(s.pending) == 0 {
				return 0, s.eof
			}
			s.out, s.pending, s.scan = append(s.out, s.pending...), nil, 0
			continue
		}
		if len(s.pending) > maxEventBytes {
			// Too long to hold: it passes as it arrives, unread, up to
			// the end of the event.
			s.out, s.pending, s.scan, s.skip = append(s.out, s.pending...), nil, 0, true
			continue
		}
		n, err := s.src.Read(s.chunk)
		s.pending = append(s.pending, s.chunk[:n]...)
		if err != nil {
			s.eof = err
		}
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// Close closes the upstream body.
func (s *streamReader) Close() error { return s.src.Close() }

// eventEnd returns the length of the first complete event of b, its blank
// line included, or 0 when b holds none yet, and where a later call may
// resume (the start of b's last, unfinished line), from the line start
// from: a long event is scanned once, not once per chunk.
func eventEnd(b []byte, from int) (end, resume int) {
	start := from
	for i := from; i < len(b); i++ {
		c := b[i]
		if c != '\n' && c != '\r' {
			continue
		}
		next := i + 1
		if c == '\r' {
			if next == len(b) {
				return 0, start // a CR at the end may be the first half of a CRLF
			}
			if b[next] == '\n' {
				next++
			}
		}
		if i == start {
			return next, 0 // an empty line ends the event
		}
		start = next
		i = next - 1
	}
	return 0, start
}

// event handles one complete event: an error event is replaced by the
// error op's, anything else appended as it is.
func (s *streamReader) event(raw []byte) {
	name, data := parseEvent(raw)
	if !isErrorEvent(name, data) {
		if len(data) > 0 {
			s.emitted = s.emitted || name != "ping"
		}
		s.out = append(s.out, raw...)
		return
	}
	ex := s.ex
	opt := s.g.errorOptions(ex)
	opt.ContentEmitted = s.emitted
	rep, err := core.EgressStreamError(ex.route.Format, name, data, opt)
	if err != nil {
		s.out = append(s.out, raw...)
		return
	}
	ex.streamErrs++
	ex.upstream = rep.Envelope.Code
	s.g.metrics.upstreamError(ex.route, rep.Envelope.Code, true)
	if rep.Event != "" {
		s.out = append(append(append(s.out, "event: "...), rep.Event...), '\n')
	}
	s.out = append(append(append(s.out, "data: "...), rep.Body...), "\n\n"...)
}

// parseEvent returns an event's name and its data (data lines joined by
// LF), per the event-stream interpretation rules.
func parseEvent(raw []byte) (name string, data []byte) {
	var lines [][]byte
	for len(raw) > 0 {
		i := bytes.IndexAny(raw, "\r\n")
		if i < 0 {
			i = len(raw)
		}
		lines = append(lines, raw[:i])
		raw = raw[i:]
		if len(raw) > 0 && raw[0] == '\r' {
			raw = raw[1:]
		}
		if len(raw) > 0 && raw[0] == '\n' {
			raw = raw[1:]
		}
	}
	first := true
	for _, l := range lines {
		field, value, _ := bytes.Cut(l, []byte(":"))
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

// isErrorEvent reports an error event: named "error" (Anthropic, the
// Responses API), or data that is a JSON object with an "error" object
// (Chat Completions and Gemini chunks). The data is parsed only when it
// names an "error" member, so content deltas cost one byte search.
func isErrorEvent(name string, data []byte) bool {
	if name == "error" {
		return true
	}
	if !bytes.Contains(data, []byte(`"error"`)) {
		return false
	}
	v, err := core.ParseJSON(data)
	if err != nil {
		return false
	}
	m, _ := v.(map[string]any)
	_, isObj := m["error"].(map[string]any)
	return isObj
}
