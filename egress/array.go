package egress

import (
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
// dropped to its end, never held whole, and replaced there. A body that is
// no array (its first byte, after white space and a UTF-8 BOM, is not "[")
// passes as it came, unread.
//
// The framing and the decision are the core's (core.EgressScan).
//
// See https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
// (the response is a stream of GenerateContentResponse; without alt=sse the
// API frames it as one JSON array) and RFC 8259 (JSON).
func NewArrayStreamReader(src io.ReadCloser, c StreamConfig) io.ReadCloser {
	if c.Now == nil {
		c.Now = time.Now
	}
	return newScanReader(src, c, core.ScanArray)
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
