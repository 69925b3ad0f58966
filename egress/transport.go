package egress

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/toolerr/toolerr/core"
)

// Transport is an http.RoundTripper that runs the egress ops on every
// request of a provider API (EndpointOf) it carries, and passes any other
// request to Base untouched. Give it to a provider SDK through its HTTP
// client option:
//
//	hc := &http.Client{Transport: &egress.Transport{}}
//	openai.NewClient(option.WithHTTPClient(hc))                     // github.com/openai/openai-go/v3
//	anthropic.NewClient(option.WithHTTPClient(hc))                  // github.com/anthropics/anthropic-sdk-go
//	genai.NewClient(ctx, &genai.ClientConfig{HTTPClient: hc, ...})  // google.golang.org/genai
//
// For each request of an endpoint:
//
//  1. The body goes through the request op (Endpoint.Prepare): the body
//     sent is the op's (the same bytes when nothing changed); a body the op
//     cannot read, or one larger than core.MaxRequestBytes, is sent as it
//     came. A body with a Content-Encoding is read decoded (DecodeBody)
//     and, when the op changed it, sent as the op's bytes without one.
//     The caller's Accept-Encoding is replaced with gzip (AcceptEncoding),
//     so that Base hands the answer back in its coding and DecodeBody
//     undoes it: an answer that is not what its Content-Encoding says is
//     then told from a connection cut (ErrContentCoding), which net/http's
//     own gzip decoding does not tell.
//  2. An answer of status 400-599 is rewritten by the error op
//     (RewriteError): the SDK sees the status, the native error shape with
//     the envelope inside, retry-after and x-should-retry, and raises its
//     own exception class and retries by its own rule.
//  3. A text/event-stream answer passes through NewStreamReader, event by
//     event, and any other answer of streamGenerateContent (Gemini's JSON
//     array, without alt=sse) through NewArrayStreamReader, element by
//     element; each error event or element inside it is rewritten and
//     reported to OnStreamError. A stream Base left in a content coding is read decoded
//     (DecodeResponse); one in a coding DecodeBody cannot undo (br, zstd)
//     is answered with the error op's 502 in the native shape instead of
//     passed unread. Any other answer Base left in such a coding is handed
//     back decoded too, as net/http hands back a gzip one; a success whose
//     head does not decode (RewriteSuccessError's err) is answered with
//     core.EgressGatewayError's 502 rather than handed back to fail at
//     its first read.
//  4. A request the upstream never answered (a refused connection, Base's
//     own timeout) is answered by the error op (core.EgressTransportError):
//     502, or 504 for a timeout, in the native shape, so the SDK's retry
//     rule reads x-should-retry. A request whose context was cancelled or
//     passed its deadline gets Base's error as it came: the caller gave up.
//
// Transport never retries; the SDK does, told by x-should-retry. The zero
// value is ready to use; a Transport is safe for concurrent use when its
// Base is.
type Transport struct {
	// Base makes the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// DropUpstreamMessage puts toolerr's own sentence in the message member
	// of every native error body instead of the upstream's sanitized
	// message (the error op's upstream_message "drop").
	DropUpstreamMessage bool
	// OnPrepare, when set, is called with each request body's report from
	// the request op (p.Changed, p.Changes, p.FlagsRestored, ...), before
	// the request is sent. It is not called for a body the op could not
	// read.
	OnPrepare func(req *http.Request, ep Endpoint, p core.PreparedRequest)
	// OnStreamError is called for each error event inside a stream, after
	// it has been rewritten in the stream the SDK reads (rep.Envelope is
	// the five fields, rep.Body the event's data). nil means the event is
	// logged with slog.Default() at level Warn (code and retryable, never
	// a body).
	OnStreamError func(req *http.Request, ep Endpoint, rep core.ErrorReply)
	// Now is the clock for the error op's now_ms (an HTTP-date Retry-After,
	// Anthropic's reset times); nil means time.Now.
	Now func() time.Time
}

var _ http.RoundTripper = (*Transport)(nil)

// RoundTrip runs one request as the Transport's doc says. It follows the
// http.RoundTripper contract: req is not changed (a clone with the new
// body is sent) and its body is always closed.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	ep, ok := EndpointOf(req.Method, req.URL.EscapedPath())
	if !ok || req.Body == nil || req.Body == http.NoBody {
		return base.RoundTrip(req)
	}
	out, err := t.prepare(req, ep)
	if err != nil {
		return nil, err
	}
	opt := core.EgressOptions{Upstream: string(ep.Format), DropUpstreamMessage: t.DropUpstreamMessage}
	resp, err := base.RoundTrip(out)
	if err != nil {
		if req.Context().Err() != nil {
			return nil, err
		}
		opt.NowMs = t.now().UnixMilli()
		rep, rerr := core.EgressTransportError(ep.Format, err, opt)
		if rerr != nil { // unreachable: an endpoint's format has an error shape
			return nil, err
		}
		return replyResponse(req, rep), nil
	}
	switch {
	case resp.StatusCode >= 400:
		opt.NowMs = t.now().UnixMilli()
		if _, _, err := RewriteError(resp, ep.Format, opt); err != nil {
			return nil, err
		}
	case IsEventStream(resp.Header) || ep.API == APIStreamGenerateContent:
		if err := DecodeResponse(resp); err != nil {
			// A stream in a coding no reader here undoes (br, zstd): its
			// error events cannot be found, so it is not passed unread.
			_ = resp.Body.Close()
			return unreadableBody(req, ep.Format), nil
		}
		if !IsEventStream(resp.Header) && resp.StatusCode <= 299 {
			// An array stream answered with one error object, no array.
			opt.NowMs = t.now().UnixMilli()
			_, ok, err := RewriteSuccessError(resp, ep.Format, opt)
			if err != nil {
				return unreadableBody(req, ep.Format), nil
			}
			if ok {
				return resp, nil
			}
		}
		// A rewritten error event changes the length: the body has none.
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Body = ReadStream(resp, StreamConfig{Ingress: ep.Format, Options: opt, Now: t.Now,
			OnError: func(rep core.ErrorReply) { t.streamError(req, ep, rep) }})
	default:
		// A success Base left in a coding DecodeBody undoes is handed
		// back decoded, as net/http hands back a gzip one: the caller's
		// Accept-Encoding was not sent. Another coding (br) passes as it
		// came, unread. A decoded success that is an error object in
		// place of the answer (Gemini's 200 {"error":{...}}) is answered
		// as the failure it is.
		if DecodeResponse(resp) == nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			opt.NowMs = t.now().UnixMilli()
			if _, _, err := RewriteSuccessError(resp, ep.Format, opt); err != nil {
				return unreadableBody(req, ep.Format), nil
			}
		}
	}
	return resp, nil
}

// prepare returns the request to send: a clone of req with the body the
// request op gave (or the body as it came), req's body closed.
func (t *Transport) prepare(req *http.Request, ep Endpoint) (*http.Request, error) {
	raw, err := io.ReadAll(io.LimitReader(req.Body, core.MaxRequestBytes+1))
	if err != nil {
		_ = req.Body.Close()
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Header["Accept-Encoding"] = AcceptEncoding
	if len(raw) > core.MaxRequestBytes {
		// Past the core's bound: the rest is sent unread, as it comes.
		out.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(raw), req.Body), req.Body}
		out.GetBody = nil
		return out, nil
	}
	_ = req.Body.Close()
	body := raw
	// A body in a content coding (Content-Encoding: gzip) goes through the
	// op decoded; changed, it is sent as the op's identity bytes, else as
	// it came. One that does not decode, or in a coding DecodeBody cannot
	// undo, is a body the op cannot read.
	if content, coded, err := decodeAll(req.Header, raw); err == nil {
		if p, err := ep.Prepare(content); err == nil {
			if p.Changed || !coded {
				body = p.Body
			}
			if p.Changed && coded {
				out.Header.Del("Content-Encoding")
			}
			if t.OnPrepare != nil {
				t.OnPrepare(req, ep, p)
			}
		}
	}
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.Header.Del("Content-Length")
	return out, nil
}

// UnreadableMessage is the native message of the 502 toolerr answers for
// an upstream body it cannot read as its Content-Encoding says (a coding
// DecodeBody cannot undo, or bytes that are not in that coding).
const UnreadableMessage = "The gateway could not read the upstream's answer: its body is not in the content coding its Content-Encoding names."

// unreadableBody is the answer to req for an upstream body toolerr must
// read but cannot (a stream in a coding DecodeBody cannot undo, a success
// whose head is not what its coding says): core.EgressGatewayError's 502
// (TRANSPORT, retryable) in the native shape, in toolerr's own name, never
// the upstream's words or the decoder's.
func unreadableBody(req *http.Request, ingress core.Format) *http.Response {
	rep, err := core.EgressGatewayError(ingress, core.GatewayError{Status: http.StatusBadGateway, Message: UnreadableMessage})
	if err != nil { // unreachable: an endpoint's format has an error shape, 502 is in range
		return replyResponse(req, core.ErrorReply{Status: http.StatusBadGateway})
	}
	return replyResponse(req, rep)
}

func (t *Transport) streamError(req *http.Request, ep Endpoint, rep core.ErrorReply) {
	if t.OnStreamError != nil {
		t.OnStreamError(req, ep, rep)
		return
	}
	slog.Default().LogAttrs(context.WithoutCancel(req.Context()), slog.LevelWarn, "toolerr egress: an error event inside a stream",
		slog.String("api", ep.API), slog.String("code", string(rep.Envelope.Code)), slog.Bool("retryable", rep.Envelope.Retryable))
}

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}
