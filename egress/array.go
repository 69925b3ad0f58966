package egress

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/toolerr/toolerr/core"
)

// NewArrayStreamReader returns a reader of src, an upstream answer of
// Gemini's streamGenerateContent without alt=sse: a JSON array streamed
// element by element ("[{...}\r\n,{...}\r\n]", Content-Type
// application/json), in which an error that happens mid-stream arrives as
// an element {"error": {"code", "message", "status"}}. It passes the
// array through one complete element at a time (what lies between the
// elements, the brackets, commas and white space, as it arrives), and
// replaces each error element with the error object the error op gives
// for it (core.EgressStreamError, as for a data-only event): the client's
// native error object, the envelope inside, details.partial_output set
// when an element went before. The elements before it pass byte for byte
// and the array goes on after it, as a stream goes on after an error event
// (NewStreamReader); c.OnError is called for each. Closing it closes src.
//
// An error element is what an error event's data is for NewStreamReader:
// a JSON object with an "error" object (an "error" that is null, a string
// or nested deeper is content), or data a lenient reader would find one in.
// An element is a value inside the array (or, after the array closed, one
// more value or array a lenient reader might go on to read); an element
// past MaxEventBytes passes as it arrives, unread, unless its first
// MaxEventBytes open an "error" object (core.EgressElementHead): then it is
// dropped to its end, never held whole, and replaced there. In one that
// passes, the value of a top-level "error" member that is an object,
// wherever it lies, is cut out as it arrives and replaced by the error
// op's error object (its "error" member), so the element stays JSON and
// the upstream's text never passes. A body that is
// no array (its first byte, after white space and a UTF-8 BOM, is not "[")
// passes as it came, unread.
//
// See https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
// (the response is a stream of GenerateContentResponse; without alt=sse the
// API frames it as one JSON array) and RFC 8259 (JSON).
func NewArrayStreamReader(src io.ReadCloser, c StreamConfig) io.ReadCloser {
	if c.Now == nil {
		c.Now = time.Now
	}
	return &arrayReader{pump: newPump(src), c: c}
}

// ReadStream returns the reader of resp's body, a stream that began with a
// success, that the transports pass to the client: NewStreamReader's for a
// text/event-stream, else NewArrayStreamReader's (Gemini's
// streamGenerateContent without alt=sse, or any other body, which passes
// unread unless it opens a JSON array). The caller has decoded the body
// (DecodeResponse) and drops its Content-Length: a rewritten error changes
// it.
func ReadStream(resp *http.Response, c StreamConfig) io.ReadCloser {
	if IsEventStream(resp.Header) {
		return NewStreamReader(resp.Body, c)
	}
	return NewArrayStreamReader(resp.Body, c)
}

// The states of an arrayReader's scan.
const (
	arrayStart = iota // before the first byte that is not white space or the BOM
	arrayIn           // inside the array, or after it (depth 0)
	arrayPass         // no array: the rest passes unread
)

type arrayReader struct {
	pump
	c       StreamConfig
	state   int
	seen    int              // bytes of the stream scanned before the array opened
	bom     int              // how many of them are a leading UTF-8 BOM's
	depth   int              // nesting of arrays and objects, the outer array counted
	inStr   bool             // inside a JSON string
	esc     bool             // after a backslash inside a string
	elem    bool             // inside an element
	base    int              // the depth the element began at
	pending []byte           // the element held so far (when not skip or drop)
	skip    bool             // inside an element too long to hold: passed to its end
	drop    *core.ErrorReply // inside an error element too long to hold: dropped to its end, then replaced by this
	cut     errorCutter      // inside an element too long to hold: what passes of it
	emitted bool             // an element went before: output was streamed
}

// Read returns what has been scanned: the complete elements and what lies
// between them (or, past MaxEventBytes, what arrived as it arrived; at
// the end of the stream, an unfinished last element as feed handles a
// complete one).
func (s *arrayReader) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.eof != nil {
			if !s.elem {
				return 0, s.eof
			}
			// The stream ended inside an element: an error element there
			// is replaced as a complete one is, so the upstream's text
			// never passes; anything else passes as it came.
			s.endElement(nil)
			continue
		}
		s.feed(s.next())
	}
	return s.take(p)
}

// feed scans b, the next bytes of the stream, passing to out what is
// outside any element and each complete element (or its replacement), and
// holding an unfinished element in pending.
func (s *arrayReader) feed(b []byte) {
	from := 0 // the start of b not yet passed or held
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch s.state {
		case arrayPass:
			s.out = append(s.out, b[from:]...)
			return
		case arrayStart:
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			case s.bom == s.seen && s.bom < len(utf8BOM) && c == utf8BOM[s.bom]:
				s.bom++ // a BOM, at the stream's start only
			case c == '[':
				s.state, s.depth = arrayIn, 1
			default:
				s.state = arrayPass
				i-- // the byte passes with the rest
			}
			s.seen++
			continue
		}
		if s.inStr {
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.inStr = false
			default:
				// A long string (an image's base64) is scanned by
				// IndexAny, not byte by byte.
				if k := bytes.IndexAny(b[i:], `"\\`); k < 0 {
					i = len(b)
				} else {
					i += k - 1
				}
			}
			continue
		}
		switch c {
		case '"':
			s.inStr = true
		case '{', '[':
			if !s.elem && (s.depth == 1 || c == '{' && s.depth == 0) {
				// An element begins: what went before it passes.
				s.out = append(s.out, b[from:i]...)
				from = i
				s.elem, s.base = true, s.depth
			}
			s.depth++
		case '}', ']':
			if s.depth > 0 {
				s.depth--
			}
			if s.elem && s.depth == s.base {
				s.endElement(b[from : i+1])
				from = i + 1
			}
		default:
			if k := bytes.IndexAny(b[i:], `"{}[]`); k < 0 {
				i = len(b)
			} else {
				i += k - 1
			}
		}
	}
	if s.state == arrayPass {
		s.out = append(s.out, b[from:]...)
		return
	}
	if !s.elem {
		s.out = append(s.out, b[from:]...)
		return
	}
	s.hold(b[from:])
}

// hold takes b, the next bytes of an unfinished element: dropped inside an
// error element too long to hold, passed inside another one, else held;
// past MaxEventBytes the held start tells which (core.EgressElementHead)
// and is dropped or passed.
func (s *arrayReader) hold(b []byte) {
	switch {
	case s.drop != nil:
		return
	case s.skip:
		s.out = s.cut.pass(s.out, b, s)
		return
	}
	s.pending = append(s.pending, b...)
	if len(s.pending) <= MaxEventBytes {
		return
	}
	if rep, ok, err := core.EgressElementHead(s.c.Ingress, s.pending, eventOptions(s.c, s.emitted)); ok && err == nil {
		s.drop = &rep
	} else {
		s.out, s.skip, s.emitted = s.cut.pass(s.out, s.pending, s), true, true
	}
	s.pending = s.pending[:0]
}

// endElement handles the element that ends with tail (nil: the stream
// ended inside it): its replacement when it is an error element, else the
// element as it came.
func (s *arrayReader) endElement(tail []byte) {
	defer func() { s.elem, s.skip, s.drop, s.pending = false, false, nil, s.pending[:0] }()
	switch {
	case s.drop != nil:
		s.write(*s.drop)
		return
	case s.skip:
		s.out, _ = s.cut.end(s.cut.pass(s.out, tail, s), s)
		return
	}
	el := append(s.pending, tail...)
	s.pending = el
	if isErrorEvent("", el) {
		if rep, err := core.EgressStreamError(s.c.Ingress, "", el, eventOptions(s.c, s.emitted)); err == nil {
			s.write(rep)
			return
		}
	}
	s.out, s.emitted = append(s.out, el...), true
}

// cutReply is what replaces an "error" object inside an element too long
// to hold (errorCutter).
func (s *arrayReader) cutReply() []byte { return cutReply(s.c, s.emitted) }

// write writes rep's body, the error op's error object, in place of an
// element, and reports it to OnError.
func (s *arrayReader) write(rep core.ErrorReply) {
	s.out = append(s.out, rep.Body...)
	if s.c.OnError != nil {
		s.c.OnError(rep)
	}
}
