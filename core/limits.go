package core

import (
	"errors"
	"strconv"

	"github.com/toolerr/toolerr/core/internal/bounds"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
)

// The bounds Invoke keeps on every request, in one place. A request past one
// of them gets INVALID_INPUT with details {bound, limit, count, path, op?,
// offset?}: bound names it (the Bound* constants), limit is its value for this
// request and count what the request reached. Nothing past a bound is built
// or written; the same call on a smaller request works, and so does the next
// call on the same instance (WASI module or C library) whatever the last one
// was.
//
// Peak memory per request is bounded by a multiple of its size: the value tree
// by ValueBytesPerRequestByte, what an op builds on top of it by the op's own
// work (at most a few times the tree), and the response by MaxResponseBytes.
// `make bench` measures the peak of every op on the largest fixture of each
// kind and on the amplification corpus (README, "Performance").
const (
	// MaxRequestBytes is the largest request Invoke reads, in bytes (32 MiB).
	// A larger one is refused unread (Bound "request_bytes").
	MaxRequestBytes = 32 << 20

	// MaxResponseBytes is the largest response Invoke writes, in bytes
	// (32 MiB, as large as a request may be). A result whose canonical JSON
	// would be longer is refused (Bound "response_bytes") while it is being
	// written, before the rest is, with count the bytes written by then; an
	// op whose result is known to be longer before it is built (a repair that
	// would synthesize more results than fit) is refused before the work.
	MaxResponseBytes = bounds.MaxResponseBytes

	// MaxDepth is the deepest nesting of arrays and objects a request may
	// have, the request object included (512; Bound "depth"). RFC 8259,
	// section 9, lets a parser limit it.
	MaxDepth = canonical.MaxDepth

	// ValueBytesPerRequestByte is how much memory the request's JSON may take
	// as a value tree, in bytes per byte of request (24; Bound "value_bytes"),
	// counted while it is parsed with the sizes the Go runtime gives maps,
	// slices, strings and numbers (about 336 bytes for a small object, 24 per
	// array element, 16 per string, 8 per number). Requests under 16 KiB count
	// as 16 KiB. Transcripts, provider bodies and tool results take 2 to 9
	// bytes per byte, a Gemini turn of parallel calls with empty arguments
	// 19; what passes 24 is a run of tiny objects, arrays or strings
	// ([{"":0},{"":0},...] takes 51 per byte), refused before it is built.
	// JSON text inside a string (tool arguments, a JSON result, an error
	// body) is held to 24 per byte of its own length plus 1 KiB, and to
	// 128 MiB, when toolerr reads it, and is kept as text when it passes.
	ValueBytesPerRequestByte = canonical.TreeBytesPerInputByte

	// MaxValueBytes is the most memory the request's value tree may take
	// whatever the request's length, in bytes (384 MiB, 12 per byte of a
	// 32 MiB request; Bound "value_bytes" too): the largest requests are held
	// to it so that the WASI module, whose wasm32 memory ends at 4 GiB, keeps
	// room for the op's work (up to three times the tree) and its garbage.
	MaxValueBytes = canonical.MaxTreeBytes
)

// The names of the bounds, as details.bound gives them.
const (
	BoundRequestBytes  = "request_bytes"
	BoundResponseBytes = bounds.ResponseBytes
	BoundDepth         = "depth"
	BoundValueBytes    = "value_bytes"
)

// ErrLimit is matched (errors.Is) by every *LimitError.
var ErrLimit = errors.New("toolerr: limit exceeded")

// LimitError is a request that is well-formed but passes one of the bounds
// above (or an op's own, named in its documentation).
//
// Op is the request's op ("" when it was refused before the op was read).
// Bound names the bound (BoundRequestBytes, ...), Limit is its value for this
// request and Count what the request reached: its length, the nesting level,
// the bytes of value tree or of response counted when toolerr stopped. Offset
// is the byte offset at which parsing stopped, -1 for the other bounds. Across
// Invoke it becomes an INVALID_INPUT envelope with details {op, path "",
// bound, limit, count, offset}.
type LimitError struct {
	Op     string
	Bound  string
	Limit  int64
	Count  int64
	Offset int64
	Msg    string
}

// Error returns "toolerr: <msg>".
func (e *LimitError) Error() string { return "toolerr: " + e.Msg }

// Is matches ErrLimit and ErrBadRequest.
func (e *LimitError) Is(target error) bool { return target == ErrLimit || target == ErrBadRequest }

// requestTooLarge is the error for a request of n bytes.
func requestTooLarge(n int) *LimitError {
	return &LimitError{
		Bound: BoundRequestBytes, Limit: MaxRequestBytes, Count: int64(n), Offset: -1,
		Msg: "request is " + strconv.Itoa(n) + " bytes; the limit is " + strconv.Itoa(MaxRequestBytes),
	}
}

// parseLimit converts the parser's *canonical.LimitError for the request.
func parseLimit(le *canonical.LimitError) *LimitError {
	e := &LimitError{Bound: BoundValueBytes, Limit: le.Limit, Count: le.Count, Offset: le.Offset}
	if le.Bound == "depth" {
		e.Bound = BoundDepth
		e.Msg = "request nests arrays and objects deeper than " + strconv.FormatInt(le.Limit, 10) + " levels (the limit)"
		return e
	}
	e.Msg = "request would take more than " + strconv.FormatInt(le.Limit, 10) + " bytes of memory as JSON values (the limit: " +
		strconv.Itoa(ValueBytesPerRequestByte) + " per byte of request, at most " + strconv.Itoa(MaxValueBytes) + "): it holds too many small objects, arrays or strings"
	return e
}

// responseTooLarge is the error for a result whose response passes
// MaxResponseBytes: count is what was written when it stopped, or (when why
// is not "") the length the response is known to pass before it is built.
func responseTooLarge(op string, count int64, why string) *LimitError {
	msg := "the response would be longer than " + strconv.Itoa(MaxResponseBytes) + " bytes (the limit): "
	if why == "" {
		msg += strconv.FormatInt(count, 10) + " were written when it stopped; send a smaller request"
	} else {
		msg += why
	}
	return &LimitError{Op: op, Bound: BoundResponseBytes, Limit: MaxResponseBytes, Count: count, Offset: -1, Msg: msg}
}

// apiError is err as the typed API returns it: a *LimitError for work the
// bounds refused, a *RequestError otherwise.
func apiError(op string, err error) error {
	if be, isBounds := errors.AsType[*bounds.Error](err); isBounds {
		return &LimitError{Op: op, Bound: be.Bound, Limit: be.Limit, Count: be.Count, Offset: -1, Msg: be.Msg}
	}
	return requestError(op, err)
}

// limitResponse is the INVALID_INPUT response for le: a bad request's
// envelope, with bound, limit and count in its details.
func limitResponse(le *LimitError) []byte {
	e := (&RequestError{Op: le.Op, Offset: le.Offset, Msg: le.Msg}).envelope()
	e.Details["bound"], e.Details["limit"], e.Details["count"] = le.Bound, le.Limit, le.Count
	return errorResponse(e)
}

// writeOK returns the response {"ok": result} for op, or the response_bytes
// error once it would pass MaxResponseBytes. n is the request's length, which
// sizes the first buffer.
func writeOK(op string, result any, n int) []byte {
	if r, ok := result.(okResponse); ok {
		if len(r) > MaxResponseBytes {
			return limitResponse(responseTooLarge(op, int64(len(r)), ""))
		}
		return r
	}
	out := append(make([]byte, 0, responseCap(n)), okPrefix...)
	out, err := canonical.AppendMax(out, result, MaxResponseBytes-1) // and the closing '}'
	if err != nil {
		if le, isLimit := errors.AsType[*canonical.LimitError](err); isLimit {
			return limitResponse(responseTooLarge(op, le.Count, ""))
		}
		return errorResponse(envelope.Envelope{
			Code:    envelope.Internal,
			Message: "toolerr could not encode its response.",
			Details: map[string]any{"op": op},
			Source:  envelope.SourceOrchestrator,
		})
	}
	return append(out, '}')
}
