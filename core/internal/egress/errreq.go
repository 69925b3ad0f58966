package egress

import (
	"maps"
	"strconv"

	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
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
type ErrorRequest struct {
	Ingress  Ingress
	Upstream classify.Request
	Message  MessagePolicy
	Pass     bool
}

// Check reports the first member of r the op refuses, under parent (the
// path of the request object): an upstream that is not a model provider's
// (source tool, or a tool named), an HTTP status below 400 (a stream that
// failed after 200 is an sse_event), then the upstream's own checks.
func (r *ErrorRequest) Check(parent string) error {
	up := field.Join(parent, "upstream")
	u := &r.Upstream
	if u.Source != "" && u.Source != envelope.SourceProvider {
		return field.NewError(field.Join(up, "source"), "must be provider (an upstream is a model provider), got "+strconv.Quote(string(u.Source)))
	}
	if u.Tool != "" {
		return field.NewError(field.Join(up, "tool"), "must be absent (an upstream is a model provider, not a tool)")
	}
	if u.Kind == classify.KindHTTP && u.Status < 400 && u.Status >= 100 {
		return field.NewError(field.Join(field.Join(up, "http"), "status"),
			"must be an error status, 400-599, got "+strconv.Itoa(u.Status)+" (a stream that failed after 200 is an sse_event)")
	}
	return u.Check(up)
}

// Respond classifies the upstream failure of r, which must have passed
// Check, and returns what the client gets (see Respond).
func (r *ErrorRequest) Respond() Response {
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
// or vendor and "now_ms"?), "upstream_message"? (keep | drop). The request
// returned has passed Check.
//
// An sse_event may give, instead of event and data, "head": the held start
// of an event too long to hold (see HeadError). When HeadError tells it an
// error event, the request is the event of that name without its data (the
// upstream's text is never read); when not, the request is read and
// checked all the same, and Pass is set.
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
	if !ok {
		return r, field.NewError(up, "is required (one of http, sse_event or error_text, as the classify op takes them)")
	}
	if u, r.Pass, err = readHead(u, up); err != nil {
		return r, err
	}
	if r.Upstream, err = classify.ReadRequest(u, up); err != nil {
		return r, err
	}
	return r, r.Check(parent)
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
