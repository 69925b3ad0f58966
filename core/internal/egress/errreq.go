package egress

import (
	"maps"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// ErrorRequest is one upstream failure to answer a client with, as the
// egress_error op's members and the typed Go API give it: the client's
// Ingress, the Upstream failure as a classify request (an HTTP error
// response, a stream error event or error text, with the upstream's
// provider as the hint and now_ms), and the Message policy.
//
// Pass is set for a stream event given by its head (see ReadErrorRequest)
// that HeadError tells is no error event: it passes unread, and Respond
// has nothing to answer.
//
// Read is set for a success given by the head of its body (see
// ReadErrorRequest) that SuccessHead tells may open an error object: the
// transport reads the body whole and asks again with it. Pass is set for
// one that does not.
//
// Gateway, when not nil, is a refusal of the gateway's own instead of an
// upstream failure: Upstream is then unused.
type ErrorRequest struct {
	Ingress  Ingress
	Upstream classify.Request
	Gateway  *GatewayFailure
	Message  MessagePolicy
	Pass     bool
	Read     bool
}

// GatewayFailure is a request toolerr's gateway refuses itself (the
// egress_error op's gateway member), answered in the client's shape as an
// upstream failure of that status is, but in the gateway's own name: the
// envelope's source is orchestrator (the design's source for toolerr's own
// decisions, as the breaker's, the budget's and a bad Invoke request's
// are: envelope.SourceOrchestrator), its sentence's subject "The gateway",
// its code and retryable those of Status (classify.StatusRule: 408
// TIMEOUT retryable, 400 INVALID_REQUEST and 413 REQUEST_TOO_LARGE not),
// and no provider in details.
//
// Status is the HTTP status (400-599): 400 a body it cannot read or route,
// 408 one that came too slowly, 413 one too large, 502 an upstream answer
// it cannot pass on, 503 its bound of concurrent requests reached. Message
// is the gateway's own sentence for the native message member ("" puts the
// envelope's sentence there), sanitized as an envelope message is
// (sanitize.Message). Param names the request member at fault ("" for
// none; a token, such as body.messages[2]): OpenAI's param and
// details.param.
type GatewayFailure struct {
	Status  int
	Message string
	Param   string
}

// Check reports the first member of g out of range, under path (the
// gateway member's): a status outside 400-599, a param that is no token
// or that holds a secret's shape (sanitize.Text would change it).
func (g *GatewayFailure) Check(path string) error {
	if g.Status < 400 || g.Status > 599 {
		return field.InRange(field.Join(path, "status"), int64(g.Status), 400, 599)
	}
	if g.Param != "" && !classify.IsToken(g.Param) {
		return field.NewError(field.Join(path, "param"), "must be a member path such as body.messages[2] (letters, digits and _ . : / - [ ] $ *, at most "+strconv.Itoa(classify.MaxTokenBytes)+" bytes), got "+strconv.Quote(g.Param))
	}
	// A token may still be a key's shape (a member named by a client's
	// body, "body.AIza..."): param reaches the model unsanitized, as the
	// native param and details.param, so such a param is refused, not
	// echoed.
	if g.Param != "" && sanitize.Text(g.Param) != g.Param {
		return field.NewError(field.Join(path, "param"), "holds a secret-shaped value (sanitize redacts part of it); name the member at fault without it")
	}
	return nil
}

// Failure returns the failure Respond maps for g, which must have passed
// Check.
func (g *GatewayFailure) Failure() Failure {
	e := classify.HTTP(g.Status, nil, nil, classify.Options{Source: envelope.SourceOrchestrator})
	if g.Param != "" {
		e.Details["param"] = g.Param
	}
	return Failure{Envelope: e, Status: g.Status, Message: sanitize.Message(g.Message), Param: g.Param}
}

// Check reports the first member of r the op refuses, under parent (the
// path of the request object): an upstream that is not a model provider's
// (source tool, or a tool named), an HTTP status below 400 (a stream that
// failed after 200 is an sse_event), then the upstream's own checks.
func (r *ErrorRequest) Check(parent string) error {
	if r.Gateway != nil {
		return r.Gateway.Check(field.Join(parent, "gateway"))
	}
	up := field.Join(parent, "upstream")
	u := &r.Upstream
	if u.Source != "" && u.Source != envelope.SourceProvider {
		return field.NewError(field.Join(up, "source"), "must be provider (an upstream is a model provider), got "+strconv.Quote(string(u.Source)))
	}
	if u.Tool != "" {
		return field.NewError(field.Join(up, "tool"), "must be absent (an upstream is a model provider, not a tool)")
	}
	if u.Kind == classify.KindHTTP && u.Status < 400 && u.Status >= 100 && !r.Read && !r.Pass { // a success given by its head has no failure to answer
		return field.NewError(field.Join(field.Join(up, "http"), "status"),
			"must be an error status, 400-599, or a success, 200-299, whose body may be an error object, got "+strconv.Itoa(u.Status)+" (a stream that failed after 200 is an sse_event)")
	}
	return u.Check(up)
}

// Respond classifies the upstream failure of r, which must have passed
// Check, and returns what the client gets (see Respond).
func (r *ErrorRequest) Respond() Response {
	if r.Gateway != nil {
		return Respond(r.Ingress, r.Gateway.Failure(), r.Message)
	}
	u := &r.Upstream
	u.Source = envelope.SourceProvider
	f := Failure{Envelope: u.Classify()}
	switch u.Kind {
	case classify.KindHTTP:
		f.Status, f.Body = u.Status, u.Body
	case classify.KindSSE:
		f.Stream, f.Body = true, u.Data
	}
	return Respond(r.Ingress, f, r.Message)
}

// PolicyNamed returns the message policy named name: "keep" (or "") or
// "drop"; another name is a *field.Error at path.
func PolicyNamed(name, path string) (MessagePolicy, error) {
	switch name {
	case "", "keep":
		return KeepMessage, nil
	case "drop":
		return DropMessage, nil
	}
	return 0, field.NewError(path, "must be keep or drop, got "+strconv.Quote(name))
}

// ReadErrorRequest reads the members of an egress_error request from m, the
// object at path parent: "ingress" (required: the format the client speaks),
// "upstream" (required: the members of a classify request, one of "http",
// "sse_event" or "error_text", with "provider"? naming the upstream's format
// or vendor and "now_ms"?), "upstream_message"? (keep | drop). Instead of
// upstream, "gateway" {"status", "message"?, "param"?} is a refusal of the
// gateway's own (GatewayFailure); exactly one of the two is given. The
// request returned has passed Check.
//
// An sse_event may give, instead of event and data, "head": the held start
// of an event too long to hold (see HeadError). When HeadError tells it an
// error event, the request is the event of that name without its data (the
// upstream's text is never read); when not, the request is read and
// checked all the same, and Pass is set.
//
// An http success (status 200-299) may give, instead of its body, "head":
// the body's first bytes as they came (at most SuccessHeadBytes of them,
// or all of a shorter body), as text. When SuccessHead tells they open an
// error object, or cannot tell from them (SuccessHead's read), Read is set: the transport reads
// the body whole (up to its bound for an error body) and asks again with
// it, and SuccessError decides; else Pass is set and the body passes
// unread. Every transport asks this one question (docs/egress.md, "An
// error object under 200").
func ReadErrorRequest(m map[string]any, parent string) (ErrorRequest, error) {
	var r ErrorRequest
	name, _, err := field.Get[string](m, "ingress", parent)
	if err != nil {
		return r, err
	}
	if r.Ingress, err = IngressNamed(name, field.Join(parent, "ingress")); err != nil {
		return r, err
	}
	pol, _, err := field.Get[string](m, "upstream_message", parent)
	if err != nil {
		return r, err
	}
	if r.Message, err = PolicyNamed(pol, field.Join(parent, "upstream_message")); err != nil {
		return r, err
	}
	up := field.Join(parent, "upstream")
	u, ok, err := field.Get[map[string]any](m, "upstream", parent)
	if err != nil {
		return r, err
	}
	if r.Gateway, err = readGateway(m, parent, ok); err != nil || r.Gateway != nil {
		return r, err
	}
	if !ok {
		return r, field.NewError(up, "is required (one of http, sse_event or error_text, as the classify op takes them; or gateway instead, for a refusal of the gateway's own)")
	}
	if u, r.Pass, err = readHead(u, up); err != nil {
		return r, err
	}
	if u, r.Read, r.Pass, err = readSuccessHead(u, up, r.Pass); err != nil {
		return r, err
	}
	if r.Upstream, err = classify.ReadRequest(u, up); err != nil {
		return r, err
	}
	if u := &r.Upstream; u.Kind == classify.KindHTTP && u.Status >= 200 && u.Status <= 299 && !r.Read && !r.Pass {
		// A success: the failure its body stands for, or nothing to answer.
		var isError bool
		u.Body, u.Status, isError = SuccessError(u.Body)
		r.Pass = !isError
	}
	return r, r.Check(parent)
}

// SuccessError tells whether v, the body of an upstream's success (2xx)
// outside a stream (a value tree, or a string: its JSON text, a leading
// UTF-8 BOM skipped, is read; body is that value, else v), is an error
// object in place of the answer: a JSON object whose one member is an "error"
// object, {"error":{"code":500,"message":"...","status":"INTERNAL"}}, or
// Anthropic's error body, {"type":"error","error":{...},"request_id":"..."}
// (request_id optional; members in any order), as
// the Gemini API sends under 200 (google-genai's request_streamed raises
// APIError for such a chunk of a 200 stream: googleapis/python-genai
// google/genai/_api_client.py) and proxies in front of any API do. A
// response with an error member beside others (a failed Responses API
// response, {"object":"response","status":"failed","error":{...}}) is the
// API's own answer, not one.
//
// status is the HTTP status the failure stands for: the error object's
// code when it is a whole number from 400 to 599 (Google's error.code, the
// status it would have come with), the status Anthropic sends with the
// error.type of an Anthropic body (anthropicStatus), else 502 (the answer was no answer, as
// a gateway's bad upstream answer is: RFC 9110, 15.6.3). For a body that
// is none, status is 400, a status Check takes, and isError false.
func SuccessError(v any) (body any, status int, isError bool) {
	body = v
	if s, isStr := v.(string); isStr {
		body = classify.ParseBody([]byte(strings.TrimPrefix(s, "\ufeff")))
	}
	m, _ := body.(map[string]any)
	e, isObj := m["error"].(map[string]any)
	if !isObj || !errorObjectMembers(m) {
		return v, 400, false
	}
	if c, ok := upstreamCode(m); ok {
		return body, c, true
	}
	if typ, _ := e["type"].(string); m["type"] == "error" {
		if c, ok := anthropicStatus[typ]; ok {
			return body, c, true
		}
	}
	return body, 502, true
}

// errorObjectMembers reports whether m, a body with an "error" object, has
// no member but those of an error body: "error" alone (Google AIP-193,
// the OpenAI style), or Anthropic's "type":"error" beside it, with its
// "request_id" string (docs.claude.com/en/api/errors).
func errorObjectMembers(m map[string]any) bool {
	switch len(m) {
	case 1:
		return true
	case 2, 3:
		_, id := m["request_id"].(string)
		return m["type"] == "error" && (len(m) == 2 || id)
	}
	return false
}

// anthropicStatus is the HTTP status Anthropic sends with each error.type
// (docs.claude.com/en/api/errors, "HTTP errors"; anthropic-sdk-python's
// status-to-exception map): an Anthropic error body under 200 stands for
// the failure of that status. timeout_error and billing_error, whose
// statuses the docs do not give, stand for 502 as an unknown type does.
var anthropicStatus = map[string]int{
	"invalid_request_error": 400,
	"authentication_error":  401,
	"permission_error":      403,
	"not_found_error":       404,
	"request_too_large":     413,
	"rate_limit_error":      429,
	"api_error":             500,
	"overloaded_error":      529,
}

// readHead returns u, the upstream object at path up, with an sse_event
// given by its "head" read by HeadError: replaced, in a copy, by the event
// of the head's name without data; pass is true when the head is no error
// event's. u is returned as it is when its sse_event has no head.
func readHead(u map[string]any, up string) (_ map[string]any, pass bool, err error) {
	s, _ := u["sse_event"].(map[string]any)
	sp := field.Join(up, "sse_event")
	head, ok, err := field.Get[string](s, "head", sp)
	if err != nil || !ok {
		return u, false, err
	}
	for _, k := range [...]string{"event", "data"} {
		if _, given := s[k]; given {
			return u, false, field.NewError(field.Join(sp, k), "must be absent with head (the held start of an event too long to hold, read for its name and the start of its data)")
		}
	}
	name, isError := HeadError([]byte(head))
	ev := map[string]any{"event": name}
	if c, given := s["content_emitted"]; given {
		ev["content_emitted"] = c
	}
	out := maps.Clone(u)
	out["sse_event"] = ev
	return out, !isError, nil
}

// maxHeadText is the most bytes of text an http head may be: a head of
// SuccessHeadBytes bytes decoded with every byte that is no UTF-8 replaced
// by U+FFFD (three bytes), as the bindings decode it.
const maxHeadText = 3 * SuccessHeadBytes

// readSuccessHead returns u, the upstream object at path up, with an http
// success given by its "head" read by SuccessHead: replaced, in a copy, by
// the success without a body; read is true when the body is to be read
// whole, pass when it passes unread (pass as given when there is no head).
// u is returned as it is when its http has no head.
func readSuccessHead(u map[string]any, up string, pass bool) (_ map[string]any, read, _ bool, err error) {
	h, _ := u["http"].(map[string]any)
	hp := field.Join(up, "http")
	head, ok, err := field.Get[string](h, "head", hp)
	if err != nil || !ok {
		return u, false, pass, err
	}
	if _, given := h["body"]; given {
		return u, false, pass, field.NewError(field.Join(hp, "body"), "must be absent with head (the first bytes of a success's body, read to tell whether to read the rest)")
	}
	if st, isNum := h["status"].(float64); isNum && (st < 200 || st > 299) {
		return u, false, pass, field.NewError(field.Join(hp, "head"), "must be absent for status "+strconv.FormatFloat(st, 'f', -1, 64)+" (a head is given for a success, 200-299; an error's body is given whole)")
	}
	if len(head) > maxHeadText {
		return u, false, pass, field.NewError(field.Join(hp, "head"), "is "+strconv.Itoa(len(head))+" bytes; a head is at most the first "+strconv.Itoa(SuccessHeadBytes)+" bytes of the body ("+strconv.Itoa(maxHeadText)+" as text)")
	}
	read, _ = SuccessHead([]byte(head))
	out, hc := maps.Clone(u), maps.Clone(h)
	delete(hc, "head")
	out["http"] = hc
	return out, read, !read, nil
}

// readGateway reads the gateway member of m, the object at path parent:
// nil when absent. hasUpstream says the upstream member is given too,
// which is refused: one failure is the upstream's or the gateway's own.
// The failure returned has passed Check.
func readGateway(m map[string]any, parent string, hasUpstream bool) (*GatewayFailure, error) {
	g, ok, err := field.Get[map[string]any](m, "gateway", parent)
	if err != nil || !ok {
		return nil, err
	}
	gp := field.Join(parent, "gateway")
	if hasUpstream {
		return nil, field.NewError(gp, "must be absent with upstream (a failure is the upstream's or the gateway's own, not both)")
	}
	status, ok, err := field.Int(g, "status", gp, 400, 599)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, field.NewError(field.Join(gp, "status"), "is required (the HTTP status the gateway answers with, 400-599)")
	}
	f := &GatewayFailure{Status: int(status)}
	if f.Message, _, err = field.Get[string](g, "message", gp); err != nil {
		return nil, err
	}
	if f.Param, _, err = field.Get[string](g, "param", gp); err != nil {
		return nil, err
	}
	return f, f.Check(gp)
}
