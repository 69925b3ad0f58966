package egress

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core"
)

// MaxErrorBodyBytes is the most of an upstream error body read for the
// error op, in bytes (1 MiB); the rest is dropped with the body.
const MaxErrorBodyBytes = 1 << 20

// RewriteError replaces the body of resp, an upstream error response
// (status 400-599), with what a client speaking ingress gets for it
// (core.EgressHTTPError, with opt): the status kept, the native error body
// with the envelope inside, and the op's headers (content-type,
// retry-after, retry-after-ms, x-should-retry, x-toolerr-envelope) each
// replacing the upstream's header of that name; the upstream's
// retry-after and retry-after-ms are dropped when the op gives none (a
// value the classifier could not read: no hint, no header); every other
// upstream header stays (request-id, the rate-limit headers). At most MaxErrorBodyBytes of
// the body are read, and the body is closed. A body left in a content
// coding (one the transport did not undo: x-gzip, deflate) is read decoded
// (DecodeBody); one in a coding DecodeBody cannot undo (br, zstd), or not
// what its coding says, is read as no body, its status and headers classifying it, so that its bytes are
// never read as the error they encode.
//
// rewritten is false when the op refused the response (a status past
// 599): resp then holds the body as it was read. err is the error of
// reading the body (resp.Body then closed and empty); the caller answers
// it as a transport failure.
func RewriteError(resp *http.Response, ingress core.Format, opt core.EgressOptions) (rep core.ErrorReply, rewritten bool, err error) {
	src, coded, err := DecodeBody(resp.Header, resp.Body)
	var raw []byte
	if err == nil {
		raw, err = io.ReadAll(io.LimitReader(src, MaxErrorBodyBytes))
	}
	if errors.Is(err, ErrContentCoding) { // a coding not undone: read as no body
		raw, err = nil, nil
	}
	_ = resp.Body.Close()
	if err != nil {
		resp.Body = http.NoBody
		return core.ErrorReply{}, false, err
	}
	rep, err = core.EgressHTTPError(ingress, resp.StatusCode, resp.Header, raw, opt)
	if err != nil {
		if coded { // the body as it was read: decoded
			resp.Header.Del("Content-Encoding")
			setBody(resp, raw)
		} else {
			resp.Body = io.NopCloser(bytes.NewReader(raw))
		}
		return core.ErrorReply{}, false, nil
	}
	applyReply(resp, rep)
	return rep, true, nil
}

// applyReply makes rep, an error op's reply outside a stream, the body and
// headers of resp, each of its headers replacing the upstream's of that
// name. The upstream's wait hints go whatever the op says: the op emits
// the wait it read from them, and none for one it could not read (-5, abc,
// 1e9), so the client waits by the envelope's rule, not by a header the
// envelope contradicts.
func applyReply(resp *http.Response, rep core.ErrorReply) {
	for _, k := range retryHeaders {
		resp.Header.Del(k)
	}
	for k, v := range rep.Header {
		resp.Header.Set(k, v)
	}
	resp.Header.Del("Content-Encoding")
	setBody(resp, rep.Body)
}

// RewriteSuccessError replaces resp, an upstream's success (2xx) outside a
// stream, its body decoded (DecodeResponse), with what a client speaking
// ingress gets when its body is an error object in place of the answer
// (core.EgressSuccessError): the status the error object stands for (a
// Gemini error.code, an Anthropic error.type's status, else 502), the
// native error body with the envelope inside and the op's headers, as
// RewriteError sets them. The body is read only as far as the core needs
// to tell (core.EgressSuccessHead, at most core.EgressSuccessHeadBytes):
// one that cannot open an error object (every answer, a JSON-array
// stream) passes with those bytes put back in front of the rest, as it
// came. One that may is read up to MaxErrorBodyBytes; a longer one, or one
// that is no error object after all, passes as it came too.
//
// rewritten reports that resp now holds the reply. A read error leaves the
// body replaying what was read, then that error, and rewritten false; but
// a body found not to be what its Content-Encoding says (a Read error
// matching ErrContentCoding, DecodeBody's) before any of it passed, in its
// head or in an error object read whole, is err: resp's body is then
// closed and empty, and the caller answers for it (the gateway with its
// own 502), since a success cut short after its status is worse.
func RewriteSuccessError(resp *http.Response, ingress core.Format, opt core.EgressOptions) (rep core.ErrorReply, rewritten bool, err error) {
	rb := &replayBody{Closer: resp.Body}
	var (
		n             int
		read, decided bool
	)
	for !decided && n < len(rb.head) && err == nil {
		var k int
		k, err = resp.Body.Read(rb.head[n:])
		n += k
		read, decided = core.EgressSuccessHead(rb.head[:n])
	}
	if errors.Is(err, ErrContentCoding) {
		return core.ErrorReply{}, false, unreadable(resp, err)
	}
	if !read {
		rb.replay(rb.head[:n], resp.Body, err)
		resp.Body = rb
		return core.ErrorReply{}, false, nil
	}
	rest, err := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBodyBytes+1-int64(n)))
	if errors.Is(err, ErrContentCoding) {
		return core.ErrorReply{}, false, unreadable(resp, err)
	}
	raw := append(rb.head[:n:n], rest...)
	if err != nil || len(raw) > MaxErrorBodyBytes {
		rb.replay(raw, resp.Body, err)
		resp.Body = rb
		return core.ErrorReply{}, false, nil
	}
	rep, isError, err := core.EgressSuccessError(ingress, resp.Header, raw, opt)
	_ = resp.Body.Close() // read to its end
	if err != nil || !isError {
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		return core.ErrorReply{}, false, nil
	}
	resp.StatusCode, resp.Status = rep.Status, strings.TrimSpace(strconv.Itoa(rep.Status)+" "+http.StatusText(rep.Status))
	applyReply(resp, rep)
	return rep, true, nil
}

// unreadable closes resp's body, found not to be what its coding says
// (err), and leaves it empty; it returns err.
func unreadable(resp *http.Response, err error) error {
	_ = resp.Body.Close()
	resp.Body = http.NoBody
	return err
}

// retryHeaders are the wait hints of an upstream error response that
// RewriteError replaces with the op's (RFC 9110, 10.2.3 Retry-After; the
// retry-after-ms the OpenAI and Anthropic SDKs read first).
var retryHeaders = [...]string{"Retry-After", "Retry-After-Ms"}

// setBody makes b the whole body of resp, its length declared. The
// upstream's trailers go with the body they followed: they describe that
// content (RFC 9110, 6.5.1), not b.
func setBody(resp *http.Response, b []byte) {
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	resp.ContentLength = int64(len(b))
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.Trailer = nil
}

// replyResponse is the response of req that rep, an error op's reply
// outside a stream, describes.
func replyResponse(req *http.Request, rep core.ErrorReply) *http.Response {
	resp := &http.Response{
		Status:     strings.TrimSpace(strconv.Itoa(rep.Status) + " " + http.StatusText(rep.Status)),
		StatusCode: rep.Status,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     make(http.Header, len(rep.Header)+1),
		Request:    req,
	}
	for k, v := range rep.Header {
		resp.Header.Set(k, v)
	}
	setBody(resp, rep.Body)
	return resp
}

// replayBody is a body whose first bytes were read to tell it apart: it
// reads held, then rest (nil: nothing more); closing it closes the body.
// head holds a success's first bytes, so that passing one costs this one
// allocation.
type replayBody struct {
	io.Closer
	head [core.EgressSuccessHeadBytes]byte
	held []byte
	rest io.Reader
}

// replay makes b read held, then what is left of body: its rest after a
// read that ended with err nil, nothing after io.EOF, else err.
func (b *replayBody) replay(held []byte, body io.Reader, err error) {
	b.held = held
	switch {
	case err == nil:
		b.rest = body
	case err != io.EOF: //nolint:errorlint // Read returns io.EOF itself
		b.rest = errReader{err}
	}
}

func (b *replayBody) Read(p []byte) (int, error) {
	if len(b.held) > 0 {
		n := copy(p, b.held)
		b.held = b.held[n:]
		return n, nil
	}
	if b.rest == nil {
		return 0, io.EOF
	}
	return b.rest.Read(p)
}

// errReader returns err at every read.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
