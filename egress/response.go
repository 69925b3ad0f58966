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
	// The upstream's wait hints go whatever the op says: the op emits the
	// wait it read from them, and none for one it could not read (-5, abc,
	// 1e9), so the client waits by the envelope's rule, not by a header the
	// envelope contradicts.
	for _, k := range retryHeaders {
		resp.Header.Del(k)
	}
	for k, v := range rep.Header {
		resp.Header.Set(k, v)
	}
	resp.Header.Del("Content-Encoding")
	setBody(resp, rep.Body)
	return rep, true, nil
}

// retryHeaders are the wait hints of an upstream error response that
// RewriteError replaces with the op's (RFC 9110, 10.2.3 Retry-After; the
// retry-after-ms the OpenAI and Anthropic SDKs read first).
var retryHeaders = [...]string{"Retry-After", "Retry-After-Ms"}

// setBody makes b the whole body of resp, its length declared.
func setBody(resp *http.Response, b []byte) {
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	resp.ContentLength = int64(len(b))
	resp.Body = io.NopCloser(bytes.NewReader(b))
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
