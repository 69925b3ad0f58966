package egress

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/decide"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/openairesponses"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// Member is the name of the member that carries the envelope inside each
// native error object, and HeaderEnvelope the response header that carries
// it beside the body.
const (
	Member         = "toolerr"
	HeaderEnvelope = "x-toolerr-envelope"
)

// MessagePolicy says what of the upstream's own error message reaches the
// client in the native body's message member.
type MessagePolicy int

// The message policies.
const (
	// KeepMessage passes the upstream's message, sanitized to one sentence
	// of at most 300 characters (sanitize.Message: secrets redacted, a
	// stack trace cut to its last line), when its body has one in a
	// provider's shape; else toolerr's sentence. The default: programs in
	// front (SDK wrappers, LiteLLM's exception mapping, agent loops that
	// compact on "prompt is too long") branch on that text.
	KeepMessage MessagePolicy = iota
	// DropMessage puts toolerr's own sentence (the envelope's message) in
	// the native message member: nothing the upstream wrote reaches the
	// client beyond the token-shaped names (type, code, status).
	DropMessage
)

// Failure is one upstream failure as Respond maps it: Envelope is what
// classify made of it; Status the upstream's HTTP status (0 when the
// upstream never answered, as for a transport failure); Stream marks an
// error event inside a stream that began with 200; Body is the upstream's
// body or event data (a value tree, or a string), read only for its
// message and, for a Responses stream event, its sequence_number.
//
// Message and Param are set for a failure the gateway raised itself
// (GatewayFailure): Message, when not "", is the native message member
// under either policy (toolerr's own words, never an upstream's), Param
// the native param member (OpenAI's), the request member at fault.
type Failure struct {
	Envelope envelope.Envelope
	Status   int
	Stream   bool
	Body     any
	Message  string
	Param    string
}

// Response is what the client gets for one upstream failure.
//
// For a failure outside a stream: Status is the HTTP status (the
// upstream's own, so 529 stays 529; for a failure without one, 502, 504 or
// 499), Header the headers to set on the response, each replacing any
// header of the same name the upstream sent (lower-case names:
// content-type, x-should-retry, retry-after and retry-after-ms when there
// is a wait, x-toolerr-envelope, and x-amzn-errortype for the AWS shape),
// and Body the error body in the ingress's native shape. For a stream
// event: Event is the SSE event name ("" for a data-only event) and Body its
// data; Status is 0 and Header nil. Envelope is the five fields, also found
// under the Member key of the native error object.
type Response struct {
	Status   int
	Header   map[string]string
	Event    string
	Body     map[string]any
	Envelope envelope.Envelope
}

// Respond returns what a client speaking in gets for f.
//
// The native error object carries: a message (see MessagePolicy); the
// type, code, param and status names of the upstream's own body when the
// upstream is of the ingress's own family and classify kept them (they are
// tokens, never text), else the names nativeNames gives for the envelope's
// code; Google's RetryInfo (and, from a Google upstream, QuotaFailure and
// ErrorInfo with the quota id and reason classify read) in details; and
// the envelope under Member. The headers: x-should-retry from the
// envelope's retryable (the gateway does not retry, the client's SDK
// does, once); retry-after (whole seconds, rounded up) and retry-after-ms
// from details.retry_after_seconds, which classify took from whatever hint
// the upstream gave; x-toolerr-envelope, the envelope's JSON with every
// non-ASCII character escaped (a header value is bytes).
//
// See the OpenAI OpenAPI ErrorResponse and ResponseErrorEvent schemas,
// https://docs.claude.com/en/api/errors, https://google.aip.dev/193,
// google/rpc/error_details.proto (RetryInfo, QuotaFailure, ErrorInfo),
// botocore parsers.py RestJSONParser, and RFC 9110, 10.2.3 (Retry-After).
func Respond(in Ingress, f Failure, p MessagePolicy) Response {
	e := f.Envelope
	n := namesFor(in.Shape, e, f.Status)
	if f.Param != "" {
		n.param = f.Param
	}
	msg := e.Message
	if f.Message != "" {
		msg = f.Message
	} else if p == KeepMessage {
		if m := sanitize.Message(upstreamMessage(f.Body)); m != "" {
			msg = m
		}
	}
	env := e.Value()
	status := f.Status
	if status == 0 && !f.Stream {
		status = transportStatus(e.Code)
		if s, ok := e.Details["status"].(int); ok && s >= 400 && s <= 599 {
			status = s // a status found in the error text
		}
	}
	r := Response{Envelope: e}
	switch in.Shape {
	case ShapeOpenAI:
		obj := map[string]any{"message": msg, "type": n.openAIType, "param": nullable(n.param), "code": nullable(n.openAICode), Member: env}
		r.Body = map[string]any{"error": obj}
		if f.Stream && in.Format == openairesponses.Name {
			// A Responses stream reports failures as a ResponseErrorEvent
			// {type, code, message, param, sequence_number}, not an error
			// object.
			r.Event = "error"
			r.Body = map[string]any{"type": "error", "code": nullable(n.openAICode), "message": msg, "param": nullable(n.param),
				"sequence_number": sequenceNumber(f.Body), Member: env}
		}
	case ShapeAnthropic:
		obj := map[string]any{"type": n.anthropic, "message": msg, Member: env}
		if n.errorCode != "" {
			obj["details"] = map[string]any{"error_code": n.errorCode}
		}
		r.Body = map[string]any{"type": "error", "error": obj}
		if n.requestID != "" && !f.Stream {
			r.Body["request_id"] = n.requestID
		}
		if f.Stream {
			r.Event = "error"
		}
	case ShapeGoogle:
		code := status
		if f.Stream {
			code = streamStatus(e.Code)
			if c, ok := upstreamCode(f.Body); ok && n.same {
				code = c // a Google stream's own error.code
			}
		}
		obj := map[string]any{"code": code, "message": msg, "status": n.google, Member: env}
		if d := googleDetails(e, n); len(d) > 0 {
			obj["details"] = d
		}
		r.Body = map[string]any{"error": obj}
	case ShapeAWS:
		r.Body = map[string]any{"message": msg, Member: env}
		if f.Stream {
			// A ConverseStream exception event is named by its member,
			// the exception name in lowerCamelCase (throttlingException).
			r.Event = lowerFirst(n.aws)
		}
	}
	if f.Stream {
		return r
	}
	r.Status = status
	r.Header = map[string]string{
		"content-type":   "application/json",
		"x-should-retry": strconv.FormatBool(e.Retryable),
		HeaderEnvelope:   HeaderValue(e),
	}
	if ms, ok := decide.RetryAfterMs(e); ok {
		r.Header["retry-after-ms"] = strconv.FormatInt(ms, 10)
		r.Header["retry-after"] = strconv.FormatInt((ms+999)/1000, 10)
	}
	if in.Shape == ShapeAWS {
		r.Header["x-amzn-errortype"] = n.aws
	}
	return r
}

// wireNames are the names the native error object gets: those of
// nativeNames, replaced by the upstream's own where it is of the same
// family, plus the members only the same family has.
type wireNames struct {
	names
	same                                         bool // the upstream is of the shape's own family
	param, errorCode, requestID, quotaID, reason string
}

// namesFor returns the names for a failure e (of HTTP status status) in
// shape s: the upstream's own when details.provider says it is of s's
// family and classify kept them as tokens, else nativeNames.
func namesFor(s Shape, e envelope.Envelope, status int) wireNames {
	w := wireNames{names: nativeNames(e.Code, status)}
	if p, _ := e.Details["provider"].(string); p != s.String() {
		return w
	}
	w.same = true
	typ, code := detail(e, "provider_type"), detail(e, "provider_code")
	w.param, w.requestID = detail(e, "param"), detail(e, "request_id")
	switch s {
	case ShapeOpenAI:
		if typ != "" {
			w.openAIType = typ
		}
		w.openAICode = code
	case ShapeAnthropic:
		if typ != "" {
			w.anthropic = typ
		}
		w.errorCode = code // error.details.error_code
	case ShapeGoogle:
		if envelope.ValidCodeToken(typ) {
			w.google = typ
		}
		w.quotaID, w.reason = detail(e, "quota_id"), code
	case ShapeAWS:
		if typ != "" {
			w.aws = typ
		}
	}
	return w
}

// detail returns the string details[key] of e, "" when absent. Every such
// member classify wrote is a token (classify.IsToken) or absent.
func detail(e envelope.Envelope, key string) string {
	s, _ := e.Details[key].(string)
	if !classify.IsToken(s) {
		return ""
	}
	return s
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// googleDetails returns the google.rpc error details of e: RetryInfo with
// the wait, QuotaFailure with the quota id and ErrorInfo with the reason
// (both only from a Google upstream).
//
// See google/rpc/error_details.proto and
// https://protobuf.dev/programming-guides/json/ (Duration: seconds with an
// "s" suffix).
func googleDetails(e envelope.Envelope, n wireNames) []any {
	var d []any
	if ms, ok := decide.RetryAfterMs(e); ok {
		d = append(d, map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + "s"})
	}
	if n.quotaID != "" {
		d = append(d, map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure",
			"violations": []any{map[string]any{"quotaId": n.quotaID}}})
	}
	if n.reason != "" {
		d = append(d, map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": n.reason})
	}
	return d
}

// upstreamMessage returns the message of an error body in a provider's
// shape, "" when it has none: error.message (OpenAI, Anthropic, Google,
// also inside the one-element array Google's streaming and
// OpenAI-compatible endpoints wrap errors in), an {"error": "<text>"}
// string (Ollama), a Responses response.failed event's response.error.message,
// or a flat message (AWS rest-json, a Responses error event). Text that is
// not JSON (an HTML page of a proxy) has no message.
func upstreamMessage(v any) string {
	v = classify.BodyValue(v)
	if a, ok := v.([]any); ok && len(a) > 0 {
		v = a[0]
	}
	m, _ := v.(map[string]any)
	if m == nil {
		return ""
	}
	if m["type"] == "response.failed" {
		r, _ := m["response"].(map[string]any)
		m, _ = r["error"].(map[string]any)
		s, _ := m["message"].(string)
		return s
	}
	switch e := m["error"].(type) {
	case map[string]any:
		s, _ := e["message"].(string)
		return s
	case string:
		return e
	}
	for _, k := range [...]string{"message", "Message"} {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	return ""
}

// upstreamCode returns the HTTP status a Google error object names in its
// code member (400-599), and false when it names none.
func upstreamCode(v any) (int, bool) {
	v = classify.BodyValue(v)
	if a, ok := v.([]any); ok && len(a) > 0 {
		v = a[0]
	}
	m, _ := v.(map[string]any)
	e, _ := m["error"].(map[string]any)
	f, ok := e["code"].(float64)
	if !ok || f < 400 || f > 599 || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// sequenceNumber returns the sequence_number of a Responses stream event
// (a whole number), else 0.
func sequenceNumber(v any) any {
	m, _ := classify.BodyValue(v).(map[string]any)
	if f, ok := m["sequence_number"].(float64); ok && f >= 0 && f <= 1<<53 && f == float64(int64(f)) {
		return int64(f)
	}
	return 0
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// HeaderValue returns the x-toolerr-envelope header of e: its canonical JSON
// (RFC 8785) with every character outside ASCII written as a \uXXXX escape
// (a surrogate pair above U+FFFF), so the value is visible ASCII (RFC 9110,
// 5.5) and still the same JSON value.
func HeaderValue(e envelope.Envelope) string {
	b, err := e.AppendCanonical(make([]byte, 0, 256))
	if err != nil {
		return ""
	}
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(b)+32)
	for _, r := range string(b) {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			continue
		}
		units := []rune{r}
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			units = []rune{hi, lo}
		}
		for _, u := range units {
			out = append(out, '\\', 'u', hex[u>>12&0xF], hex[u>>8&0xF], hex[u>>4&0xF], hex[u&0xF])
		}
	}
	return string(out)
}
