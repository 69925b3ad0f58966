package egress

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/toolerr/toolerr/core"
)

// MaxEventBytes is the largest stream event a StreamReader holds to look
// at, in bytes (4 MiB); a longer one (an image chunk) passes through
// unread.
const MaxEventBytes = 4 << 20

// IsEventStream reports a text/event-stream response (its Content-Type,
// parameters such as charset allowed).
func IsEventStream(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "text/event-stream"
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
// and Gemini chunks): IsErrorEvent.
//
// See the WHATWG HTML standard, "Server-sent events" (an event ends at a
// blank line; lines end in CRLF, LF or CR).
func NewStreamReader(src io.ReadCloser, c StreamConfig) io.ReadCloser {
	if c.Now == nil {
		c.Now = time.Now
	}
	return &streamReader{src: src, c: c, chunk: make([]byte, 32<<10)}
}

type streamReader struct {
	src     io.ReadCloser
	c       StreamConfig
	pending []byte // read, not yet a complete event
	scan    int    // where eventEnd resumes in pending
	skip    bool   // inside an event too long to hold: pass it through to its end
	out     []byte // ready for the client
	emitted bool   // an event with data went before: output was streamed
	eof     error
	chunk   []byte
}

// Read returns the next complete events (or, at the end of the stream or
// past MaxEventBytes, what arrived as it arrived).
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
		if len(s.pending) > MaxEventBytes {
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
	name, data := ParseEvent(raw)
	if !IsErrorEvent(name, data) {
		if len(data) > 0 {
			s.emitted = s.emitted || name != "ping"
		}
		s.out = append(s.out, raw...)
		return
	}
	opt := s.c.Options
	opt.NowMs, opt.ContentEmitted = s.c.Now().UnixMilli(), s.emitted
	rep, err := core.EgressStreamError(s.c.Ingress, name, data, opt)
	if err != nil {
		s.out = append(s.out, raw...)
		return
	}
	if rep.Event != "" {
		s.out = append(append(append(s.out, "event: "...), rep.Event...), '\n')
	}
	s.out = append(append(append(s.out, "data: "...), rep.Body...), "\n\n"...)
	if s.c.OnError != nil {
		s.c.OnError(rep)
	}
}

// ParseEvent returns the name and the data (data lines joined by LF) of
// raw, one complete event of a text/event-stream, per the event-stream
// interpretation rules of the WHATWG HTML standard.
func ParseEvent(raw []byte) (name string, data []byte) {
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

// IsErrorEvent reports whether an event of a provider's stream, its name
// and data, is an error event: named "error" (Anthropic, the Responses
// API), or data that is a JSON object with an "error" object (Chat
// Completions and Gemini chunks; an "error" that is null, a string or
// nested deeper is content). The data is parsed only when it holds the
// bytes "error" in quotes, so a content delta costs one byte search.
//
// See https://docs.claude.com/en/docs/build-with-claude/streaming#error-events,
// https://platform.openai.com/docs/api-reference/responses-streaming/error
// and https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent.
func IsErrorEvent(name string, data []byte) bool {
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
