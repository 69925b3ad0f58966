package core

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/egress"
)

// EnvelopeMember is the member of every native error object that carries the
// envelope (error.toolerr in the OpenAI, Anthropic and Google shapes, a
// top-level toolerr in the AWS one), and EnvelopeHeader the response header
// that carries it beside the body. See docs/egress.md, "Where the five
// fields ride".
const (
	EnvelopeMember = egress.Member
	EnvelopeHeader = egress.HeaderEnvelope
)

// EgressOptions are the facts about an upstream failure that its response
// does not carry.
//
// Upstream names the upstream's format or vendor (openai-chat, anthropic,
// gemini, bedrock, an alias, or any vendor name classify knows), the
// classify op's provider hint; "" detects it from the body. NowMs is the
// time of the response in milliseconds since the Unix epoch (0 = unknown;
// without it an HTTP-date Retry-After and Anthropic's reset times give no
// wait). DropUpstreamMessage puts toolerr's own sentence in the native
// message member instead of the upstream's sanitized one.
type EgressOptions struct {
	Upstream            string
	NowMs               int64
	DropUpstreamMessage bool
}

// ErrorReply is what a client gets for one upstream failure, in the shape of
// the API it speaks (the egress_error op's result).
//
// For a failure outside a stream, Status is the HTTP status (the
// upstream's own: 529 stays 529; 502, 504 or 499 when the upstream never
// answered), Header the headers to set, each replacing the upstream's
// header of that name (lower-case names: content-type, x-should-retry,
// retry-after and retry-after-ms when there is a wait, x-toolerr-envelope,
// and x-amzn-errortype for Bedrock), and Body the error body, canonical
// JSON. For an error event inside a stream, Event is the SSE event name (""
// for a data-only event) and Body its data; Status is 0 and Header nil.
// Envelope is the five fields, also in Body under EnvelopeMember.
//
// See docs/egress.md.
type ErrorReply struct {
	Status   int
	Header   map[string]string
	Event    string
	Body     []byte
	Envelope Envelope
}

// EgressHTTPError returns what a client speaking ingress gets for an upstream
// HTTP error response: status (400-599), header (names in any case, so an
// http.Header can be passed as it is) and the raw body, classified as
// ClassifyHTTP does with opt.Upstream as the provider hint.
//
// Returns a *RequestError, with the path the egress_error op reports, for an
// unknown ingress ("ingress": the formats with an error shape are
// openai-chat, openai-responses, anthropic, gemini, gemini-openai and
// bedrock), a status outside 400-599 ("upstream.http.status") or a negative
// NowMs ("upstream.now_ms").
//
// See docs/egress.md, "The error op".
func EgressHTTPError(ingress Format, status int, header map[string][]string, body []byte, opt EgressOptions) (ErrorReply, error) {
	return egressError(ingress, classify.Request{Kind: classify.KindHTTP, Status: status,
		Header: classify.Header(header), Body: classify.ParseBody(body)}, opt)
}

// EgressStreamError returns the error event a client speaking ingress gets
// for an error event inside an upstream stream that began with 200: event
// is the upstream's event name ("" means "error"), data its payload.
// Errors as for EgressHTTPError.
func EgressStreamError(ingress Format, event string, data []byte, opt EgressOptions) (ErrorReply, error) {
	return egressError(ingress, classify.Request{Kind: classify.KindSSE, Event: event, Data: classify.ParseBody(data)}, opt)
}

// EgressTransportError returns what a client speaking ingress gets when the
// upstream never answered: err is the HTTP client's error, classified as
// ClassifyError does (a deadline gives 504 TIMEOUT, a cancellation 499
// CANCELLED, a refused or reset connection 502 TRANSPORT). Errors as for
// EgressHTTPError.
func EgressTransportError(ingress Format, err error, opt EgressOptions) (ErrorReply, error) {
	r, rerr := egressRequest(ingress, classify.Request{Kind: classify.KindText}, opt)
	if rerr != nil {
		return ErrorReply{}, rerr
	}
	env := ClassifyError(err, ClassifyOptions{Source: SourceProvider, Provider: opt.Upstream, NowMs: opt.NowMs})
	return reply(egress.Respond(r.Ingress, egress.Failure{Envelope: env}, r.Message)), nil
}

// egressRequest builds and checks the egress_error request of the typed
// API, as ReadErrorRequest checks the op's members.
func egressRequest(ingress Format, up classify.Request, opt EgressOptions) (egress.ErrorRequest, error) {
	in, err := egress.IngressNamed(string(ingress), "ingress")
	if err != nil {
		return egress.ErrorRequest{}, requestError("egress_error", err)
	}
	up.Options = ClassifyOptions{Source: SourceProvider, Provider: opt.Upstream, NowMs: opt.NowMs}.internal()
	r := egress.ErrorRequest{Ingress: in, Upstream: up}
	if opt.DropUpstreamMessage {
		r.Message = egress.DropMessage
	}
	if err := r.Check(""); err != nil {
		return r, requestError("egress_error", err)
	}
	return r, nil
}

func egressError(ingress Format, up classify.Request, opt EgressOptions) (ErrorReply, error) {
	r, err := egressRequest(ingress, up, opt)
	if err != nil {
		return ErrorReply{}, err
	}
	return reply(r.Respond()), nil
}

// reply encodes the op's response value as the typed API returns it.
func reply(r egress.Response) ErrorReply {
	body, _ := canonical.Marshal(r.Body) // value trees of strings, numbers, maps: always encodable
	return ErrorReply{Status: r.Status, Header: r.Header, Event: r.Event, Body: body, Envelope: r.Envelope}
}

// opEgressError: {"ingress", "upstream" {one of http / sse_event /
// error_text, "provider"?, "now_ms"?}, "upstream_message"?} -> {"status",
// "headers", "body", "envelope"} for a failure outside a stream, {"event",
// "data", "envelope"} for a stream event. The members are read and checked
// by egress.ReadErrorRequest, the same checks the typed API runs.
func opEgressError(req map[string]any) (any, error) {
	r, err := egress.ReadErrorRequest(req, "")
	if err != nil {
		return nil, err
	}
	return errorReplyValue(r.Respond()), nil
}

func errorReplyValue(r egress.Response) map[string]any {
	if r.Header == nil {
		return map[string]any{"event": r.Event, "data": r.Body, "envelope": r.Envelope}
	}
	h := make(map[string]any, len(r.Header))
	for k, v := range r.Header {
		h[k] = v
	}
	return map[string]any{"status": r.Status, "headers": h, "body": r.Body, "envelope": r.Envelope}
}
