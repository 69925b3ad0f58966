package classify

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// Options are the facts about a failure that its response does not carry.
//
// Source is who made the failing call: SourceProvider (also for "") or
// SourceTool, for which a 400 or 422 means the model's arguments were wrong
// (INVALID_ARGS). Provider is a hint ("openai", "anthropic", "gemini",
// "bedrock", "mistral", "cohere", "ollama", ...; any case), "" to detect it
// from the body. Tool and Attempt are copied to details (HasAttempt says
// Attempt was given). NowMs is the time of the response in milliseconds since
// the Unix epoch (HasNow says it was given); without it an HTTP-date
// Retry-After and Anthropic's RFC 3339 resets give no wait.
type Options struct {
	Source     envelope.Source
	Provider   string
	Tool       string
	Attempt    int64
	HasAttempt bool
	NowMs      int64
	HasNow     bool
}

// input is one failure in the shape build reads.
type input struct {
	status         int    // HTTP status, 0 when there is none
	h              Header // response headers, nil when none
	body           any    // the parsed body (value tree), a raw string, or nil
	stream         bool   // an error event inside a stream that began with 200
	event          string // the stream event name
	contentEmitted bool   // output was streamed before the error event
	cause          string // transport cause, from error text or a Go error
	excType        string // the exception type, for a tool exception
	excMsg         string
	excTransient   bool
}

// ParseBody returns b parsed as JSON (a value tree of package canonical), or
// b as a string when it is not JSON (an HTML error page, Ollama's plain text,
// a message printed alone), or nil when b is empty or only white space.
func ParseBody(b []byte) any {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	if i == len(b) {
		return nil
	}
	if b[i] == '{' || b[i] == '[' || b[i] == '"' {
		if v, err := canonical.Parse(b); err == nil {
			return v
		}
	}
	return string(b)
}

// BodyValue returns a body given as a JSON value: a string that holds JSON
// ("{\"error\":...}") is parsed, any other string stays text.
func BodyValue(v any) any {
	if s, ok := v.(string); ok {
		return ParseBody([]byte(s))
	}
	return v
}

// HTTP classifies an HTTP error response: its status (100-599; anything
// else is UNEXPECTED_STATUS), headers (names in any case) and body (see
// BodyValue).
//
// The code comes from the status table (StatusRule), unless the body names a
// more specific provider error (a rate-limit code, a spend limit, an overload,
// a per-day quota, ...), which wins; a generic body type ("invalid_request_error")
// only fills in for a status without a row of its own. Then: a context
// overflow phrase makes REQUEST_TOO_LARGE; source tool turns INVALID_REQUEST
// into INVALID_ARGS; x-should-retry: true/false overrides Retryable; and the
// wait hint (see waitHint) goes to details.retry_after_seconds.
//
// See shared/reference/wire-formats.md §2, §3 and §5.
func HTTP(status int, h Header, body any, opt Options) envelope.Envelope {
	return build(&input{status: status, h: h, body: BodyValue(body)}, opt)
}

// SSE classifies an error event inside a stream whose HTTP status was 200:
// event is the event name ("error", or a Bedrock stream member such as
// "throttlingException"), data its payload (as for HTTP's body).
// contentEmitted true sets details.partial_output: a retry would repeat the
// output already streamed, which the caller must discard, but the failure
// stays retryable (field report B20). An error event toolerr cannot read is
// SERVER_ERROR, retryable.
//
// See https://docs.claude.com/en/api/errors (errors in streams) and
// shared/cases/field-reports.md B20.
func SSE(event string, data any, contentEmitted bool, opt Options) envelope.Envelope {
	return build(&input{stream: true, event: event, body: BodyValue(data), contentEmitted: contentEmitted}, opt)
}

// Text classifies an error printed as text. A status in the text
// (StatusInText) is classified exactly like a typed one, with any JSON object
// in the text read as the body; else a transport cause (CauseInText) gives
// TIMEOUT, TRANSPORT or CANCELLED; else the failure is TOOL_ERROR (source
// tool) or UNEXPECTED_STATUS (source provider), never retried: text toolerr
// cannot read is no reason to resend (field report B21).
func Text(text string, opt Options) envelope.Envelope {
	in := textInput(text)
	return build(&in, opt)
}

// Cause classifies a transport failure whose cause is already known (a Go
// error value matched with errors.Is or a Timeout method): one of the Cause*
// constants.
func Cause(cause string, opt Options) envelope.Envelope {
	return build(&input{cause: cause}, opt)
}

func textInput(text string) input {
	var in input
	if n := StatusInText(text); n != 0 {
		in.status = n
		if i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}'); i >= 0 && j > i {
			if v, err := canonical.Parse([]byte(text[i : j+1])); err == nil {
				in.body = v
			}
		}
		if in.body == nil {
			in.body = text // read for phrases only
		}
		return in
	}
	in.cause = CauseInText(text)
	in.body = text
	return in
}

// Exception classifies an exception a tool raised. typ is its type name
// ("ValueError", "httpx.ReadTimeout", "java.net.ConnectException"), message
// its message and traceback the printed traceback; when typ is "", type and
// message come from the traceback's final exception line (FinalException).
// The traceback never reaches the output.
//
// A well-known transient type (exceptionCause), or a generic type whose
// message names a transport cause, gives TIMEOUT or TRANSPORT, retryable; a
// message naming an HTTP status 400-599 ("503 Server Error: Service
// Unavailable for url: ...") is classified as that status with source tool;
// anything else is TOOL_ERROR, not retryable, with a message naming the type
// and the sanitized exception message.
func Exception(typ, message, traceback string, opt Options) envelope.Envelope {
	typ, message = strings.TrimSpace(typ), strings.TrimSpace(message)
	if typ == "" && traceback != "" {
		if t, m, ok := FinalException(traceback); ok {
			typ = t
			if message == "" {
				message = m
			}
		}
	}
	if typ == "" {
		typ = "Exception"
	}
	opt.Source = envelope.SourceTool
	in := input{excType: typ, excMsg: message}
	cause := exceptionCause(typ)
	if cause == "" && (genericType(typ) || typ == "Exception") {
		cause = CauseInText(message)
	}
	if cause == "" {
		if n := StatusInText(message); n >= 400 {
			in.status = n
			in.body = message
		}
	}
	if cause != "" {
		in.cause, in.excTransient = cause, true
	}
	return build(&in, opt)
}

// build turns an input into the envelope.
func build(in *input, opt Options) envelope.Envelope {
	if opt.Source == "" {
		opt.Source = envelope.SourceProvider
	}
	hint := strings.ToLower(strings.TrimSpace(opt.Provider))
	hs := scanHeaders(in.h)
	f := readBody(in.body, &hs, hint)
	if in.stream && !f.hasRule && in.event != "" && in.event != "error" {
		if name := bedrockName(in.event); name != "" {
			if r, ok := bedrockRule(name); ok {
				f.provider, f.providerType = "bedrock", name
				f.set(r, true)
			}
		}
	}

	var r Rule
	listed := false
	switch {
	case in.status != 0:
		r, listed = StatusRule(in.status)
	case in.stream:
		r = Rule{envelope.ServerError, true}
	case in.cause != "":
		r, listed = CauseRule(in.cause), true
	case opt.Source == envelope.SourceTool:
		r, listed = Rule{envelope.ToolError, false}, true
	default:
		r = Rule{envelope.UnexpectedStatus, false}
	}
	if f.hasRule && (f.strong || !listed) {
		r = f.rule
	}

	repair := ""
	switch r.Code {
	case envelope.InvalidRequest, envelope.ClientError, envelope.RequestTooLarge:
		// Only a rejected request is read for phrases: a context overflow
		// (B24) or a history hole the repair pass can fix (B21).
		var overflow bool
		repair, overflow = phrases(f.texts[:f.nTexts])
		if overflow {
			r = Rule{envelope.RequestTooLarge, false}
			repair = ""
		}
	}
	if opt.Source == envelope.SourceTool && r.Code == envelope.InvalidRequest {
		r.Code = envelope.InvalidArgs
		repair = ""
	}
	if v, ok := hs.get(hShouldRetry); ok {
		switch strings.ToLower(v) {
		case "true":
			r.Retryable = true
		case "false":
			r.Retryable = false
		}
	}
	wait, hasWait := waitHint(&hs, f.retryDelay, r.Code == envelope.RateLimited, opt.NowMs, opt.HasNow)

	provider := f.provider
	if hint != "" {
		provider = hint
	}
	d := make(map[string]any, 8)
	if in.status != 0 {
		d["status"] = in.status
	}
	if hasWait {
		d["retry_after_seconds"] = Seconds(wait.Ns)
	}
	if opt.Tool != "" {
		d["tool"] = opt.Tool
	}
	if opt.HasAttempt {
		d["attempt"] = opt.Attempt
	}
	if provider != "" {
		d["provider"] = providerValue(provider)
	}
	putString(d, "provider_type", f.providerType)
	putString(d, "provider_code", f.providerCode)
	putString(d, "param", f.param)
	putString(d, "quota_id", f.quotaID)
	putString(d, "request_id", requestID(&hs, f.requestID))
	putString(d, "repairable", repair)
	putString(d, "cause", in.cause)
	putString(d, "exception_type", in.excType)
	if f.originalStatus != 0 {
		d["original_status"] = f.originalStatus
	}
	if in.stream && in.contentEmitted {
		d["partial_output"] = true
	}
	if opt.Source == envelope.SourceTool && !r.Retryable && in.excType == "" && provider == "" && f.nTexts > 0 {
		// A tool's own service said what was wrong with the request (its
		// 400 or 404 body, in no model provider's error shape). The model
		// must act on it, so it goes to details, sanitized to one sentence.
		// A model provider's message never does (seed 000, checklist item
		// 5), even when a tool relayed it.
		putString(d, "tool_message", sanitize.Message(f.texts[0]))
	}
	return envelope.Envelope{
		Code: r.Code,
		Message: sanitize.Message(message(msgFacts{
			code: r.Code, retryable: r.Retryable, source: opt.Source, tool: opt.Tool, provider: provider,
			status: in.status, stream: in.stream, partial: in.stream && in.contentEmitted,
			waitNs: wait.Ns, hasWait: hasWait, repair: repair, cause: in.cause, param: f.param,
			excType: in.excType, excMsg: in.excMsg, excTransient: in.excTransient,
		})),
		Retryable: r.Retryable,
		Details:   sanitize.Details(d),
		Source:    opt.Source,
	}
}

// providerValue returns provider as a details value. A name readBody detects
// is returned from a constant, which Go boxes statically: no allocation for
// the common case (a hint the caller gave is boxed as usual).
func providerValue(provider string) any {
	switch provider {
	case "openai":
		return "openai"
	case "anthropic":
		return "anthropic"
	case "gemini":
		return "gemini"
	case "bedrock":
		return "bedrock"
	case "mistral":
		return "mistral"
	}
	return provider
}

func putString(d map[string]any, k, v string) {
	if v != "" {
		d[k] = v
	}
}

// requestID returns the provider's request id: the request-id (Anthropic),
// x-request-id (OpenAI) or x-amzn-requestid (AWS) header, else the body's
// request_id.
func requestID(h *headers, body string) string {
	for _, i := range [...]int{hRequestID, hXRequestID, hAmznRequestID} {
		if v, ok := h.get(i); ok && v != "" {
			return v
		}
	}
	return body
}
