package classify

import (
	"slices"
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// Options are the facts about a failure that its response does not carry.
//
// Source is who made the failing call: SourceProvider or SourceTool, for
// which a 400 or 422 means the model's arguments were wrong (INVALID_ARGS)
// and the body is the tool service's own answer. SourceOrchestrator, which
// Check refuses, is set by the egress error op alone, for a request
// toolerr's gateway refuses itself: the sentence's subject is "The
// gateway", and no provider is detected. "" means SourceTool when
// Tool names a tool (naming the tool says a tool made the call) and
// SourceProvider otherwise; this is the one place the rule lives, so every
// front end (ops, typed API, CLI, bindings) agrees. Provider is a hint
// ("openai", "anthropic", "gemini", "bedrock", "mistral", "cohere",
// "ollama", ...; any case), "" to detect it from the body; a model provider
// is detected only for a provider's failure, and a hint given with a tool
// source says the tool's call went to that provider (its body is read as the
// provider's, and its text is not copied). Tool and Attempt are copied to details (HasAttempt says
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

// source returns who made the failing call (see Options.Source).
func (o Options) source() envelope.Source {
	switch {
	case o.Source != "":
		return o.Source
	case o.Tool != "":
		return envelope.SourceTool
	}
	return envelope.SourceProvider
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
	excNamesCause  bool // the exception type itself names the transport cause
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
// A body that is a raw text/event-stream (a streamed response recorded
// whole) is read for its error event (findStreamError): with a 2xx status
// the stream began and then failed, and the envelope is the one SSE gives
// for that event; with an error status the error event's data, else the last
// event's, is the body.
//
// See RFC 9110, 15 (status codes) and docs/classify.md for each provider's
// body and header rules with their vendor sources.
func HTTP(status int, h Header, body any, opt Options) envelope.Envelope {
	body = BodyValue(body)
	if s, ok := body.(string); ok {
		if ev, ok := findStreamError(s); ok {
			switch {
			case ev.found && status >= 200 && status <= 299:
				return build(&input{stream: true, h: h, event: ev.event, body: ev.data, contentEmitted: ev.contentEmitted}, opt)
			case ev.found || status >= 400:
				body = ev.data
			}
		}
	}
	return build(&input{status: status, h: h, body: body}, opt)
}

// SSE classifies an error event inside a stream whose HTTP status was 200:
// event is the event name ("error", or a Bedrock stream member such as
// "throttlingException"), data its payload (as for HTTP's body).
// contentEmitted true sets details.partial_output: a retry would repeat the
// output already streamed, which the caller must discard, but the failure
// stays retryable. An error event toolerr cannot read is SERVER_ERROR,
// retryable.
//
// See https://docs.claude.com/en/api/errors (errors in streams) and
// https://github.com/tailcallhq/forgecode/issues/2595 (an overload in a 200
// stream, missed by a status check).
func SSE(event string, data any, contentEmitted bool, opt Options) envelope.Envelope {
	return build(&input{stream: true, event: event, body: BodyValue(data), contentEmitted: contentEmitted}, opt)
}

// Text classifies an error printed as text. A status in the text
// (StatusInText) is classified exactly like a typed one, with any JSON object
// in the text read as the body; else a transport cause (CauseInText) gives
// TIMEOUT, TRANSPORT or CANCELLED; else the failure is TOOL_ERROR (source
// tool) or UNEXPECTED_STATUS (source provider), never retried: text toolerr
// cannot read is no reason to resend.
//
// Text that is a raw text/event-stream holding an error event (a streamed
// response captured whole and passed on as text) is read as that stream,
// exactly as HTTP reads it under a 2xx status: the stream began and failed.
//
// See https://github.com/topcheer/ggcode/issues/306 (a 400 given as text,
// retried 20 times).
func Text(text string, opt Options) envelope.Envelope {
	if ev, ok := findStreamError(text); ok && ev.found {
		return build(&input{stream: true, event: ev.event, body: ev.data, contentEmitted: ev.contentEmitted}, opt)
	}
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
// else a transport cause in the traceback's cause chain (chainCause: Node's
// fetch failed with an ECONNREFUSED cause, reqwest's "error sending request"
// caused by "connection refused") gives TIMEOUT or TRANSPORT; anything else
// is TOOL_ERROR, not retryable, with a message naming the type and the
// sanitized exception message.
func Exception(typ, message, traceback string, opt Options) envelope.Envelope {
	typ, message = strings.TrimSpace(typ), strings.TrimSpace(message)
	if typ == "" && traceback != "" {
		// Redacted before it is cut into a type and a message: a key
		// wrapped onto its own line must not be read as a type name.
		if t, m, ok := FinalException(sanitize.Text(traceback)); ok {
			typ = t
			if message == "" {
				message = m
			}
		}
	}
	if typ == "" {
		typ = "Exception"
	}
	opt.Source, opt.Provider = envelope.SourceTool, "" // always the tool's own failure
	in := input{excType: typ, excMsg: message}
	cause := exceptionCause(typ)
	in.excNamesCause = cause != ""
	if cause == "" && (genericType(typ) || typ == "Exception") {
		cause = CauseInText(message)
	}
	if cause == "" {
		if n := StatusInText(message); n >= 400 {
			in.status = n
			in.body = message
		}
	}
	if cause == "" && in.status == 0 && traceback != "" {
		cause = chainCause(sanitize.Text(traceback))
	}
	in.cause = cause
	return build(&in, opt)
}

// build turns an input into the envelope, in phases a reader can take one at
// a time (see classification): read what the response says, decide the code
// and retryable, find the wait, write the details (keeping each copied
// machine field only when it is a token), and write the sentence from
// registry text and the tokens the details kept.
func build(in *input, opt Options) envelope.Envelope {
	c := classification{in: *in, opt: opt}
	c.read()
	c.decide()
	c.wait, c.hasWait = waitHint(&c.hs, c.f.retryDelay, c.rule.Code == envelope.RateLimited, opt.NowMs, opt.HasNow)
	d := c.details()
	return envelope.Envelope{
		Code:      c.rule.Code,
		Message:   sanitize.Message(message(c.msgFacts())),
		Retryable: c.rule.Retryable,
		Details:   sanitize.Details(d),
		Source:    c.src,
	}
}

// classification is the state of one build, filled phase by phase.
type classification struct {
	in  input
	opt Options

	// read
	src      envelope.Source
	hint     string // the caller's provider hint, lower case
	hs       headers
	f        facts
	toolBody bool // the body is a tool service's own answer, not a model provider's

	// decide
	rule   Rule
	repair string

	// wait
	wait    Wait
	hasWait bool

	// details: the copied strings the message may name, each a token or ""
	tool, provider, param, excType string
}

// read finds what the body, the headers and a stream event name say.
func (c *classification) read() {
	c.src = c.opt.source()
	c.hint = format.Vendor(c.opt.Provider) // one vocabulary: format names and aliases name their vendor
	c.hs = scanHeaders(c.in.h)
	c.toolBody = c.src == envelope.SourceTool && c.hint == ""
	if c.toolBody {
		c.f = readToolBody(c.in.body)
		if c.in.excType != "" && c.in.body == nil {
			c.f.text(c.in.excMsg)
		}
		return
	}
	c.f = readBody(c.in.body, &c.hs, c.hint)
	if c.in.stream && !c.f.hasRule && c.in.event != "" && c.in.event != "error" {
		if name := bedrockName(c.in.event); name != "" {
			if r, ok := bedrockRule(name); ok {
				c.f.provider, c.f.providerType = "bedrock", name
				c.f.set(r, true)
			}
		}
	}
}

// decide sets the code and retryable: the status table (or the stream,
// cause or source default), a body rule that says more, the phrases of a
// rejected request, INVALID_ARGS for a tool, and x-should-retry.
func (c *classification) decide() {
	r, listed := c.baseRule()
	if c.f.hasRule && (c.f.strong || !listed) {
		r = c.f.rule
	}
	if c.toolBody && !c.f.hasRule && c.f.nTexts > 0 && c.in.status != 0 && c.in.status < 400 {
		// A tool's success or redirect status whose body says what
		// failed (a GraphQL 200 with errors): the tool's own failure.
		r = Rule{envelope.ToolError, false}
	}
	switch r.Code {
	case envelope.InvalidRequest, envelope.ClientError, envelope.RequestTooLarge:
		// Only a rejected request is read for phrases: a context overflow
		// or a history hole the repair pass can fix.
		var overflow bool
		c.repair, overflow = phrases(c.f.texts[:c.f.nTexts])
		if overflow {
			r, c.repair = Rule{envelope.RequestTooLarge, false}, ""
		}
	}
	if c.src == envelope.SourceTool && r.Code == envelope.InvalidRequest {
		r.Code, c.repair = envelope.InvalidArgs, ""
	}
	if v, ok := c.hs.get(hShouldRetry); ok {
		switch strings.ToLower(v) {
		case "true":
			r.Retryable = true
		case "false":
			r.Retryable = false
		}
	}
	c.rule = r
}

// baseRule returns the rule before the body is read, and whether it comes
// from a row of its own (a listed status, a cause, a tool's default): a
// generic body rule only replaces a rule that is not listed.
func (c *classification) baseRule() (Rule, bool) {
	switch {
	case c.in.status != 0:
		return StatusRule(c.in.status)
	case c.in.stream:
		return Rule{envelope.ServerError, true}, false
	case c.in.cause != "":
		return CauseRule(c.in.cause), true
	case c.src == envelope.SourceTool:
		return Rule{envelope.ToolError, false}, true
	}
	return Rule{envelope.UnexpectedStatus, false}, false
}

// details writes the machine fields. A string copied from the response, the
// exception or the caller is kept only when it is a token (IsToken); the
// names of the members dropped for that go to details.dropped_fields. A
// tool's own sentence about a failure the model must act on goes to
// details.tool_message, sanitized to one sentence; a model provider's never
// does.
func (c *classification) details() map[string]any {
	d := make(map[string]any, 8)
	k := keeper{d: d}
	if c.in.status != 0 {
		d["status"] = c.in.status
	}
	if c.hasWait {
		d["retry_after_seconds"] = Seconds(c.wait.Ns)
	}
	c.tool = k.token("tool", c.opt.Tool)
	if c.opt.HasAttempt {
		d["attempt"] = c.opt.Attempt
	}
	provider := c.f.provider
	if c.hint != "" {
		provider = c.hint
	}
	if IsToken(provider) {
		c.provider = provider
		d["provider"] = providerValue(provider)
	} else if provider != "" {
		k.drop("provider")
	}
	k.token("provider_type", c.f.providerType)
	k.token("provider_code", c.f.providerCode)
	c.param = k.token("param", c.f.param)
	k.token("quota_id", c.f.quotaID)
	k.token("request_id", requestID(&c.hs, c.f.requestID))
	putString(d, "repairable", c.repair)
	if c.in.cause != "" {
		d["cause"] = causeValue(c.in.cause)
	}
	c.excType = k.token("exception_type", c.in.excType)
	if c.f.originalStatus != 0 {
		d["original_status"] = c.f.originalStatus
	}
	if c.in.stream && c.in.contentEmitted {
		d["partial_output"] = true
	}
	if c.toolBody && !c.rule.Retryable && c.f.nTexts > 0 {
		// The tool's service (or the exception it raised) said what was
		// wrong, and the model must act on it.
		putString(d, "tool_message", sanitize.Message(c.f.texts[0]))
	}
	if len(k.dropped) > 0 {
		slices.Sort(k.dropped)
		names := make([]any, len(k.dropped))
		for i, n := range k.dropped {
			names[i] = n
		}
		d["dropped_fields"] = names
	}
	return d
}

// msgFacts returns what the sentence is built from: registry facts and the
// tokens details kept, never text from the response. A field is named only
// when the tool's own service named it: the param of a provider's error that
// a tool relayed names a member of the tool's request, not of the model's
// arguments.
func (c *classification) msgFacts() msgFacts {
	param := c.param
	if !c.toolBody {
		param = ""
	}
	return msgFacts{
		code: c.rule.Code, retryable: c.rule.Retryable, source: c.src, tool: c.tool, provider: c.provider,
		status: c.in.status, stream: c.in.stream, partial: c.in.stream && c.in.contentEmitted,
		waitNs: c.wait.Ns, hasWait: c.hasWait, repair: c.repair, cause: c.in.cause, param: param,
		excType: c.excType, exception: c.in.excType != "", excNamesCause: c.in.excNamesCause,
	}
}

// keeper writes copied strings into details, keeping tokens only.
type keeper struct {
	d       map[string]any
	dropped []string // member names
}

// token sets d[key] = v when v is a token and returns v; a non-empty v that
// is not one is dropped (its name recorded) and "" returned.
func (k *keeper) token(key, v string) string {
	if v == "" {
		return ""
	}
	if !IsToken(v) {
		k.drop(key)
		return ""
	}
	k.d[key] = v
	return v
}

func (k *keeper) drop(key string) { k.dropped = append(k.dropped, key) }

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

// causeValue returns a transport cause as a details value, from its
// constant (boxed statically by Go, as providerValue's names): a failure's
// details.cause costs no allocation.
func causeValue(cause string) any {
	switch cause {
	case CauseTimeout:
		return CauseTimeout
	case CauseCancelled:
		return CauseCancelled
	case CauseConnectionRefused:
		return CauseConnectionRefused
	case CauseConnectionReset:
		return CauseConnectionReset
	case CauseDNS:
		return CauseDNS
	case CauseTLS:
		return CauseTLS
	case CauseTLSCertificate:
		return CauseTLSCertificate
	case CauseNetwork:
		return CauseNetwork
	}
	return cause
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
