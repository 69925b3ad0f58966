package core

import (
	"bytes"
	"maps"
	"slices"
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/egress"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/transcript"
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
// message member instead of the upstream's sanitized one. ContentEmitted,
// for EgressStreamError only, says output was streamed before the error
// event (details.partial_output: a retry repeats it).
type EgressOptions struct {
	Upstream            string
	NowMs               int64
	DropUpstreamMessage bool
	ContentEmitted      bool
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
	return egressError(ingress, classify.Request{Kind: classify.KindSSE, Event: event, Data: classify.ParseBody(data), ContentEmitted: opt.ContentEmitted}, opt)
}

// EgressStreamHead tells whether an event of an upstream stream that
// began with 200, too long to hold whole, is an error event, from head, its
// held start (its lines as they came, the last one cut; the stream's
// leading UTF-8 BOM stripped): named "error" in a complete line, or with
// data that opens a JSON object whose first member is an "error" object
// (its name read as a JSON string, RFC 8259 §7, escapes decoded, as a
// whole event's is). When it is, ok is true and the reply is the error event the client gets
// for it, read without its data (the upstream's text is never read), as
// EgressStreamError gives it for the event of that name: the transport
// drops the event to its end and writes the reply there. When it is not, ok
// is false: the event passes unread. head is read in place, never copied.
// Errors as for EgressHTTPError, whatever the head.
//
// See docs/egress.md, "The error op" (upstream.sse_event.head).
func EgressStreamHead(ingress Format, head []byte, opt EgressOptions) (rep ErrorReply, ok bool, err error) {
	name, isError := egress.HeadError(head)
	return headReply(ingress, name, isError, opt)
}

// EgressElementHead is EgressStreamHead for an element of a JSON-array
// stream (Gemini's streamGenerateContent without alt=sse) too long to hold
// whole: head is its held start, from the element's first byte, the last
// one cut. The element is an error element when head opens a JSON object
// whose first member is an "error" object (its name's escapes decoded,
// RFC 8259 §7, as a whole element's are); then ok is true and the reply
// is the error object the client gets for it in place of the element (its
// Body), read without its data (the upstream's text is never read), as
// EgressStreamError gives it for a data-only event. head is read in place,
// never copied. Errors as for EgressHTTPError, whatever the head.
//
// See docs/egress.md, "JSON-array streams".
func EgressElementHead(ingress Format, head []byte, opt EgressOptions) (rep ErrorReply, ok bool, err error) {
	return headReply(ingress, "", egress.ElementHeadError(head), opt)
}

// headReply is the error op's reply for the held head of a stream event
// named name (or an array element, name ""), when isError; the request is
// checked either way, so an unknown ingress is an error whatever the head.
func headReply(ingress Format, name string, isError bool, opt EgressOptions) (ErrorReply, bool, error) {
	r, err := egressRequest(ingress, classify.Request{Kind: classify.KindSSE, Event: name, ContentEmitted: opt.ContentEmitted}, opt)
	if err != nil || !isError {
		return ErrorReply{}, false, err
	}
	return reply(r.Respond()), true, nil
}

// EgressSuccessError returns what a client speaking ingress gets for an
// upstream's success (2xx) outside a stream whose body is an error object
// in place of the answer: a JSON object whose one member is an "error"
// object, {"error":{"code":500,"message":"...","status":"INTERNAL"}}, as
// the Gemini API sends under 200 (googleapis/python-genai
// google/genai/_api_client.py, request_streamed, raises APIError for such a
// chunk of a 200 stream) and a proxy in front of any API may, or
// Anthropic's error body, {"type":"error","error":{...},"request_id":"..."}
// (docs.claude.com/en/api/errors), as a proxy in front of the Messages API
// may send it. isError is false for any other body, which passes as it
// came (a response with an error member beside others, such as a failed
// Responses API response, is the API's own answer). The reply is
// EgressHTTPError's for the status the error object stands for: its code
// when a whole number from 400 to 599 (Google's error.code), the status
// Anthropic sends with an Anthropic body's error.type (529 for
// overloaded_error), else 502, the upstream's answer being no answer;
// header and body as EgressHTTPError takes them (a leading UTF-8 BOM
// skipped). The body is parsed whole: read it only when EgressSuccessHead
// says to. Errors as for EgressHTTPError, whatever the body.
//
// See docs/egress.md, "An error object under 200".
func EgressSuccessError(ingress Format, header map[string][]string, body []byte, opt EgressOptions) (rep ErrorReply, isError bool, err error) {
	v, status, isError := egress.SuccessError(classify.ParseBody(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))) // a leading UTF-8 BOM, as EgressSuccessHead skips it
	r, err := egressRequest(ingress, classify.Request{Kind: classify.KindHTTP, Status: status, Header: classify.Header(header), Body: v}, opt)
	if err != nil || !isError {
		return ErrorReply{}, false, err
	}
	return reply(r.Respond()), true, nil
}

// EgressSuccessHeadBytes is the most of a success's body outside a stream a
// transport holds to tell whether to read it whole (EgressSuccessHead; the
// egress_error op's upstream.http.head): 256 bytes, enough for Anthropic's
// `{"type":"error","error":{` with every character \u-escaped and white
// space between.
const EgressSuccessHeadBytes = egress.SuccessHeadBytes

// EgressSuccessHead tells from head, the first bytes of the body of an
// upstream's success outside a stream (at most EgressSuccessHeadBytes of
// them), whether the body must be read whole for EgressSuccessError: read
// is true when head opens an error object in place of the answer
// (`{"error":{`, or Anthropic's `{"type":"error","error":{`; names
// \u-escaped or not, JSON white space between the tokens, after a UTF-8
// BOM) or may yet; false when it cannot be one, and the body passes
// unread. decided is false while head is too short to tell (empty, white
// space, `{"err`): read on up to EgressSuccessHeadBytes, then take read as
// it is. Every answer ({"id":..., {"candidates":...) and a Gemini
// JSON-array stream ("[{...") is decided at its first member or byte. The
// egress_error op's upstream.http.head answers with this read. head is read
// in place, never copied.
//
// See docs/egress.md, "An error object under 200".
func EgressSuccessHead(head []byte) (read, decided bool) {
	return egress.SuccessHead(head)
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

// GatewayError is a request toolerr's gateway refuses itself, not an
// upstream failure: Status the HTTP status it answers with (400-599: 400
// a body it cannot read or route, 408 one that came too slowly, 413 one too
// large, 502 an upstream answer it cannot pass on, 503 its bound of
// concurrent requests reached); Message its own sentence for the native
// message member ("" puts the envelope's there); Param the request member
// at fault ("" for none; a token such as body.messages[2]), OpenAI's param
// and details.param. The egress_error op's gateway member.
type GatewayError struct {
	Status  int
	Message string
	Param   string
}

// EgressGatewayError returns what a client speaking ingress gets for a
// request the gateway refuses itself: the status e gives, in the client's
// native error shape as EgressHTTPError writes one of that status, but in
// the gateway's own name. The envelope's source is orchestrator (toolerr's
// own decision, as a breaker's or a budget's is, not the model provider's),
// its sentence says "The gateway ..." ("The gateway rejected the request as
// too large (HTTP 413); shorten the request before sending it again."), its
// code and retryable are the status's (408 TIMEOUT retryable, 400
// INVALID_REQUEST and 413 REQUEST_TOO_LARGE not, 502 and 503 TRANSPORT
// retryable), and details name no provider.
//
// Returns a *RequestError, with the egress_error op's path, for an unknown
// ingress ("ingress"), a status outside 400-599 ("gateway.status") or a
// param that is no token ("gateway.param").
//
// See docs/egress.md, "The gateway's own errors".
func EgressGatewayError(ingress Format, e GatewayError) (ErrorReply, error) {
	in, err := egress.IngressNamed(string(ingress), "ingress")
	if err != nil {
		return ErrorReply{}, requestError("egress_error", err)
	}
	r := egress.ErrorRequest{Ingress: in, Gateway: &egress.GatewayFailure{Status: e.Status, Message: e.Message, Param: e.Param}}
	if err := r.Check(""); err != nil {
		return ErrorReply{}, requestError("egress_error", err)
	}
	return reply(r.Respond()), nil
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
// error_text, "provider"?, "now_ms"?} or "gateway" {"status", "message"?,
// "param"?}, "upstream_message"?} -> {"status",
// "headers", "body", "envelope"} for a failure outside a stream, {"event",
// "data", "envelope"} for a stream event, {"pass": true} for an sse_event
// given by a head that is no error event's or an http success whose head
// or body is no error object, {"read": true} for an http success whose
// head may open one (read the body whole and ask again with it). The members are read and
// checked by egress.ReadErrorRequest, the same checks the typed API runs.
func opEgressError(req map[string]any) (any, error) {
	r, err := egress.ReadErrorRequest(req, "")
	if err != nil {
		return nil, err
	}
	if r.Pass {
		return map[string]any{"pass": true}, nil
	}
	if r.Read {
		return map[string]any{"read": true}, nil
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

// PreparedRequest is a provider request body made ready to send (the
// egress_request op's result).
//
// Body is the body to send: exactly the bytes given when Changed is false,
// else the changed body's canonical JSON (RFC 8785; numbers as doubles, so
// an integer above 2^53 keeps a double's precision). Changes are repair's
// counts (Synthesized NO_RESULT failures for unanswered calls,
// DroppedOrphans, DroppedDuplicates, Moved, Merged, Filled, Renamed,
// Split); Named the call ids of Gemini responses that named no function and
// now name their call's; FlagsRestored the call ids of results whose envelope travelled without
// the format's failure flag and now carry it; Rewritten the number of ids
// rewritten for the target's id rules; IDMap every new id to the body's
// original (nil when none); IDs every id touched, in order; Findings what
// check still finds in the body to send, which no rule of the op repairs.
//
// See docs/egress.md, "The request op".
type PreparedRequest struct {
	Body          []byte
	Changed       bool
	Changes       RepairChanges
	Named         []string
	FlagsRestored []string
	Rewritten     int
	IDMap         map[string]string
	IDs           []string
	Findings      []Finding
}

// PrepareRequest makes body, the raw bytes of a whole request body of
// format f (openai-chat, openai-responses, anthropic, gemini or bedrock, or
// an alias; see CheckBody for the shapes), ready for its provider, with
// only what must change changed: a toolerr envelope in a result without
// the format's failure flag gets it (Anthropic is_error, Bedrock status
// "error", Gemini response.error), every unanswered call gets a NO_RESULT
// failure with the flag set, orphans and second results are dropped, split
// Gemini responses merged where the model requires it, and every id the
// target rejects is rewritten deterministically (opts.IDRules names other
// rules than f's own, e.g. "mistral"; opts.Model the model when the body
// does not name it, as a Gemini body does not). Everything else, reasoning
// data included, is the value given. The body is read by the core's own
// JSON parser (a duplicate key is refused).
//
// Returns a *RequestError with the paths of the egress_request op: an
// unknown format ("format"), a body that is not JSON ("body", with its
// byte Offset), larger than MaxRequestBytes, or of the wrong shape
// ("body.messages[2].content").
//
// See docs/egress.md, "The request op".
func PrepareRequest(f Format, body []byte, opts TranscriptOptions) (PreparedRequest, error) {
	const op = "egress_request"
	if len(body) > MaxRequestBytes {
		return PreparedRequest{}, &RequestError{Op: op, Path: "body", Offset: -1, Msg: "is " + strconv.Itoa(len(body)) + " bytes; the limit is " + strconv.Itoa(MaxRequestBytes)}
	}
	tf, err := formatNamed(op, f, "format")
	if err != nil {
		return PreparedRequest{}, err
	}
	if p, ok := prepareScanned(tf, body, opts); ok {
		return p, nil
	}
	return prepareTree(f, body, opts)
}

// prepareTree is PrepareRequest on the value tree of body.
func prepareTree(f Format, body []byte, opts TranscriptOptions) (PreparedRequest, error) {
	const op = "egress_request"
	m, err := parseBody(op, body)
	if err != nil {
		return PreparedRequest{}, err
	}
	p, err := prepare(f, m, opts, 0)
	if err != nil {
		return PreparedRequest{}, err
	}
	out := preparedRequest(p)
	if p.Changed {
		if out.Body, err = canonical.Marshal(p.Body); err != nil {
			return PreparedRequest{}, requestError(op, err)
		}
	} else {
		out.Body = body
	}
	return out, nil
}

// prepareScanned is PrepareRequest's path for the common body, one with
// nothing to change, of a format whose messages the core reads straight
// from the bytes (transcript.ScanList: openai-chat): the message list is
// scanned without a value tree of it, every other member of the body (at
// most 63 of them) read and checked as Parse reads it but not built
// (canonical.Scanner.Skip; the model's name read), and the request op's steps run on the
// list (egress.PrepareScanned); the body sent is the bytes given. It
// answers only a body it is sure of: not an object, a duplicate or
// unknown shape, more than 64 members, a message the scan does not take, a
// tree past Parse's budget for the body (TextTreeBudget), or anything the
// op would change returns ok false, and prepareTree answers, as it always
// did. TestPrepareScanned_sameAsTree holds it to that.
func prepareScanned(f transcript.Format, body []byte, opts TranscriptOptions) (PreparedRequest, bool) {
	shape := format.RequestShape(string(f))
	if shape == nil || shape.Server != nil || shape.TextList != nil {
		return PreparedRequest{}, false
	}
	s := canonical.NewScanner(string(body))
	if !s.Byte('{') {
		return PreparedRequest{}, false
	}
	var (
		names [64]string
		msgs  []transcript.Message
		list  bool
		model string
		n     int
	)
	for ; ; n++ {
		name, more, ok := s.Member(n)
		if !ok || n == len(names) && more || slices.Contains(names[:n], name) && more {
			return PreparedRequest{}, false
		}
		if !more {
			break
		}
		names[n] = name
		if name == shape.List {
			if msgs, ok = transcript.ScanList(f, s, 1, dialect.RawLint, nil); !ok {
				return PreparedRequest{}, false
			}
			list = true
			continue
		}
		if name != "model" {
			// held to Parse's rules and budget, never built: the bytes go as given
			if s.Skip(1) != nil {
				return PreparedRequest{}, false
			}
			continue
		}
		v, err := s.Value(1)
		if err != nil {
			return PreparedRequest{}, false
		}
		model, _ = v.(string)
	}
	if !list || !s.Object(n) || !s.End() || s.Cost() > canonical.TextTreeBudget(len(body)) {
		return PreparedRequest{}, false
	}
	o, err := opts.engine("egress_request", f)
	if err != nil {
		return PreparedRequest{}, false
	}
	// as request.Body.Options completes them for the tree
	o.Path = field.Join("body", shape.List)
	if o.Model == "" {
		o.Model = model
	}
	p, ok := egress.PrepareScanned(f, msgs, o)
	if !ok {
		return PreparedRequest{}, false
	}
	out := preparedRequest(p)
	out.Body = body
	return out, true
}

// parseBody reads body, the raw bytes of a provider body given to op, with
// the core's parser: JSON that does not parse is a *RequestError at "body"
// with the byte offset, anything but an object one at "body".
func parseBody(op string, body []byte) (map[string]any, error) {
	v, err := canonical.Parse(body)
	if err != nil {
		re := &RequestError{Op: op, Path: "body", Offset: -1, Msg: "is not valid JSON: " + err.Error(), err: err}
		if se, ok := err.(*canonical.SyntaxError); ok {
			re.Offset, re.Msg = se.Offset, "is not valid JSON: "+se.Msg
		}
		return nil, re
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &RequestError{Op: op, Path: "body", Offset: -1, Msg: "must be an object, got " + field.TypeName(v)}
	}
	return m, nil
}

// prepare runs the request op on a body given as a value tree the core's
// parser made (PrepareRequest's bytes, the op's request member); with
// maxBytes > 0 (Invoke's), its findings stop once they pass maxBytes as
// JSON (transcript.Options.MaxBytes).
func prepare(f Format, body map[string]any, opts TranscriptOptions, maxBytes int) (egress.Prepared, error) {
	b, o, err := readParsedBody("egress_request", f, "format", body, opts)
	if err != nil {
		return egress.Prepared{}, err
	}
	o.MaxBytes = maxBytes
	p, err := egress.Prepare(b, o)
	if err != nil {
		return egress.Prepared{}, requestError("egress_request", err)
	}
	return p, nil
}

func preparedRequest(p egress.Prepared) PreparedRequest {
	return PreparedRequest{Changed: p.Changed, Changes: p.Changes, Named: p.Named, FlagsRestored: p.FlagsRestored, Rewritten: p.Rewritten,
		IDMap: p.IDMap, IDs: p.IDs, Findings: p.Findings}
}

// requiredBody reads the object member "body" of an op's request, what
// names what it must hold.
func requiredBody(req map[string]any, what string) (map[string]any, error) {
	body, ok, err := field.Get[map[string]any](req, "body", "")
	if err == nil && !ok {
		err = field.NewError("body", "is required ("+what+")")
	}
	return body, err
}

// opEgressRequest: {"format", "body", "id_rules"?, "model"?, "open_calls"?}
// -> {"body", "changed", "changes", "id_map"?, "findings"}.
func opEgressRequest(req map[string]any) (any, error) {
	f, opts, err := formatAndOptions(req, "format")
	if err != nil {
		return nil, err
	}
	body, err := requiredBody(req, "the whole request body")
	if err != nil {
		return nil, err
	}
	p, err := prepare(Format(f), body, opts, MaxResponseBytes)
	if err != nil {
		return nil, err
	}
	return preparedValue(p.Body, preparedRequest(p)), nil
}

// preparedValue is the op's result for a prepared body.
func preparedValue(body any, p PreparedRequest) map[string]any {
	ch := changesValue(p.Changes)
	ch["flags_restored"] = len(p.FlagsRestored)
	ch["named"] = len(p.Named)
	ch["rewritten"] = p.Rewritten
	ids := make([]any, len(p.IDs))
	for i, id := range p.IDs {
		ids[i] = id
	}
	ch["ids"] = ids
	out := map[string]any{"body": body, "changed": p.Changed, "changes": ch, "findings": findingsValue(p.Findings)}
	if len(p.IDMap) > 0 {
		out["id_map"] = idMapValue(p.IDMap)
	}
	return out
}

// ResponseConversion is a non-streaming response body written in another
// format (the egress_response op's result): Body its canonical JSON, Notes
// what could not travel as is, in plain words.
type ResponseConversion struct {
	Body  []byte
	Notes []string
}

// ConvertResponse writes body, the raw bytes of a non-streaming response of
// format from (openai-chat, anthropic or gemini, or an alias), in the
// shape of format to, for a client of to whose request a gateway sent to an
// upstream of from: the model's message converted as Convert converts a
// list (its calls keep their ids and arguments), the finish reason (a turn
// that ends in calls is tool_calls, tool_use or Gemini's STOP), the token
// usage, id and model. nameMap is the NameMap of the request's conversion
// (new function name -> the client's original; nil when none), so that the
// calls name the client's own tools; nowMs (milliseconds since the Unix
// epoch, 0 = unknown) fills Chat Completions' created when the upstream
// gives none.
//
// Returns a *RequestError with the egress_response op's paths: a format
// without a response shape ("from", "to"), a body that is not a JSON object
// ("body"), a member of the wrong type ("body.choices[0].message").
//
// See docs/egress.md, "Across families".
func ConvertResponse(from, to Format, body []byte, nameMap map[string]string, nowMs int64) (ResponseConversion, error) {
	const op = "egress_response"
	ff, err := egress.ResponseFormatNamed(string(from), "from")
	if err != nil {
		return ResponseConversion{}, requestError(op, err)
	}
	tt, err := egress.ResponseFormatNamed(string(to), "to")
	if err != nil {
		return ResponseConversion{}, requestError(op, err)
	}
	if nowMs < 0 {
		return ResponseConversion{}, requestError(op, field.InRange("now_ms", nowMs, 0, classify.MaxNowMs))
	}
	m, err := parseBody(op, body)
	if err != nil {
		return ResponseConversion{}, err
	}
	c, err := egress.ConvertResponse(ff, tt, m, nameMap, nowMs/1000)
	if err != nil {
		return ResponseConversion{}, requestError(op, err)
	}
	out, err := canonical.Marshal(c.Body)
	if err != nil {
		return ResponseConversion{}, requestError(op, err)
	}
	return ResponseConversion{Body: out, Notes: c.Notes}, nil
}

// opEgressResponse: {"from", "to", "body", "name_map"?, "now_ms"?} ->
// {"body", "notes"?}.
func opEgressResponse(req map[string]any) (any, error) {
	names, err := stringMembers(req, "", "from", "to")
	if err != nil {
		return nil, err
	}
	ff, err := egress.ResponseFormatNamed(names[0], "from")
	if err != nil {
		return nil, err
	}
	tt, err := egress.ResponseFormatNamed(names[1], "to")
	if err != nil {
		return nil, err
	}
	body, err := requiredBody(req, "the upstream's response body")
	if err != nil {
		return nil, err
	}
	nm, _, err := field.Get[map[string]any](req, "name_map", "")
	if err != nil {
		return nil, err
	}
	nameMap := make(map[string]string, len(nm))
	for _, k := range slices.Sorted(maps.Keys(nm)) { // in name order: the same member named on every run
		v := nm[k]
		s, isStr := v.(string)
		if !isStr {
			return nil, field.NewError(field.Join("name_map", k), "must be a string (the client's function name), got "+field.TypeName(v))
		}
		nameMap[k] = s
	}
	now, _, err := field.Int(req, "now_ms", "", 0, classify.MaxNowMs)
	if err != nil {
		return nil, err
	}
	c, err := egress.ConvertResponse(ff, tt, body, nameMap, now/1000)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"body": c.Body}
	if len(c.Notes) > 0 {
		n := make([]any, len(c.Notes))
		for i, s := range c.Notes {
			n[i] = s
		}
		out["notes"] = n
	}
	return out, nil
}

// The provider APIs EndpointOf knows (EgressEndpoint.API), named as the
// gateway's routes and metrics name them.
//
// See https://platform.openai.com/docs/api-reference/chat/create,
// https://platform.openai.com/docs/api-reference/responses/create,
// https://docs.claude.com/en/api/messages,
// https://docs.claude.com/en/api/messages-count-tokens and
// https://ai.google.dev/api/generate-content.
const (
	APIChatCompletions       = egress.APIChatCompletions       // POST .../chat/completions
	APIResponses             = egress.APIResponses             // POST .../responses
	APIMessages              = egress.APIMessages              // POST .../v1/messages
	APICountTokens           = egress.APICountTokens           // POST .../v1/messages/count_tokens
	APIGenerateContent       = egress.APIGenerateContent       // POST .../models/{model}:generateContent
	APIStreamGenerateContent = egress.APIStreamGenerateContent // POST .../models/{model}:streamGenerateContent
)

// EgressEndpoint is the provider API a request calls, known from its
// method and URL path (the egress_endpoint op's result): API one of the
// API constants, Format the wire format of its request bodies and of the
// error responses its clients parse (openai-chat, openai-responses,
// anthropic, gemini), Model the model named in the path (Gemini's
// generateContent; "" for the others, whose bodies name it).
type EgressEndpoint struct {
	API    string
	Format Format
	Model  string
}

// EndpointOf returns the endpoint a request of method to path calls; ok is
// false for any other (a GET, embeddings, files, a Bedrock Converse
// request, whose body the AWS SDK signs before its HTTP client sees it).
// Every egress transport decides by it which requests go through the
// egress ops.
//
// method is compared without regard to ASCII case. path is the URL path as
// it goes on the wire, percent-encoded (RFC 3986, 3.3; url.URL.EscapedPath),
// matched by its end so that a base URL with a prefix is the provider's
// own: "/openai/deployments/d/chat/completions" (Azure OpenAI) and
// "/v1beta/openai/chat/completions" (Gemini's OpenAI-compatible endpoint)
// are Chat Completions, "/v1/threads/t/messages" (the Assistants API) is
// not Anthropic's /v1/messages, ".../models/{model}:generateContent" is
// Gemini's on the Gemini API and on Vertex AI alike. The model is its
// segment percent-decoded; a broken encoding or a "/" in the model is no
// endpoint. The path is matched in its normal form (RFC 3986, 6.2.2.2):
// "/v1/chat/%63ompletions" is Chat Completions, as its upstream routes
// it; an encoded reserved character ("%2F") stays data.
//
// See docs/egress.md, "The endpoint op".
func EndpointOf(method, path string) (EgressEndpoint, bool) {
	ep, ok := egress.EndpointOf(method, path)
	return EgressEndpoint{API: ep.API, Format: Format(ep.Format), Model: ep.Model}, ok
}

// opEgressEndpoint: {"method", "path"} -> {"endpoint": {"api", "format",
// "model"} or null}.
func opEgressEndpoint(req map[string]any) (any, error) {
	method, path, err := egress.ReadEndpointRequest(req)
	if err != nil {
		return nil, err
	}
	ep, ok := egress.EndpointOf(method, path)
	if !ok {
		return map[string]any{"endpoint": nil}, nil
	}
	return map[string]any{"endpoint": map[string]any{"api": ep.API, "format": ep.Format, "model": ep.Model}}, nil
}
