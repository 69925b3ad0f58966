package egress

import (
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/toolerr/toolerr/core"
)

// MaxEventBytes is the largest stream event a StreamReader holds to look
// at, in bytes (4 MiB, core.MaxEventBytes); a longer one (an image chunk)
// passes through unread, but for an error event, which is replaced as one
// read without its data (see NewStreamReader).
const MaxEventBytes = core.MaxEventBytes

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
// the event without its data.
//
// The framing and the decision are the core's (core.EgressScan), which
// every binding's transport runs too; this reader does the I/O around it.
//
// See the WHATWG HTML standard, "Server-sent events" (an event ends at a
// blank line; lines end in CRLF, LF or CR; a leading BOM is ignored),
// https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream.
func NewStreamReader(src io.ReadCloser, c StreamConfig) io.ReadCloser {
	if c.Now == nil {
		c.Now = time.Now
	}
	return newScanReader(src, c, core.ScanSSE)
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

// scanReader is both stream readers: the upstream's bytes go through
// core.EgressScan a chunk at a time, and what it answers is passed (in a
// frame too long to hold, the scan's cuts carry its "error" object's
// replacement too).
type scanReader struct {
	pump
	c    StreamConfig
	st   core.ScanState
	held []byte // the frame in progress: the front of the next scan's input
	done bool   // the stream's end was scanned
}

func newScanReader(src io.ReadCloser, c StreamConfig, kind string) *scanReader {
	return &scanReader{pump: newPump(src), c: c, st: core.ScanState{Kind: kind}}
}

// Read returns what the core passed of the bytes read so far: complete
// frames, their replacements and what lies between them (or, past
// MaxEventBytes, what arrived as it arrived; at the end of the stream, an
// unfinished last frame as a complete one).
func (s *scanReader) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.done {
			return 0, s.eof
		}
		in := append(s.held, s.next()...)
		eof := s.eof != nil
		r, err := core.EgressScan(s.c.Ingress, s.st, in, eof, eventOptions(s.c, false))
		if err != nil {
			// Not reached: the state is the scan's own. The rest passes unread.
			r = core.ScanResult{Hold: len(in)}
			eof = true
		}
		s.out = r.AppendOutput(s.out, in)
		if s.c.OnError != nil {
			for _, c := range r.Cuts {
				if c.Reply != nil {
					s.c.OnError(*c.Reply)
				}
			}
		}
		s.held, s.st, s.done = in[r.Hold:], r.State, eof
		if r.Hold == len(in) {
			s.held = in[:0] // nothing held: the buffer is read into again from its start
		}
	}
	return s.take(p)
}

// eventOptions are the error op's options for a frame read now by a reader
// configured by c, after content (emitted) or none.
func eventOptions(c StreamConfig, emitted bool) core.EgressOptions {
	opt := c.Options
	opt.NowMs, opt.ContentEmitted = c.Now().UnixMilli(), emitted
	return opt
}
