package core

import (
	"errors"
	"strings"

	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// ClassifyOptions are the facts about a failure that its response does not
// carry; the zero value means "a provider call, nothing else known".
//
// Every Classify function checks its arguments as the classify and
// classify_exception ops check their members (one check, in
// core/internal/classify): a Source other than "", SourceProvider or
// SourceTool, a negative Attempt or NowMs, or a status outside 100-599 gives
// the INVALID_INPUT envelope (source orchestrator, details.path naming the
// member, details.op the op) that Invoke would answer with.
//
// Source is who made the failing call: SourceProvider or SourceTool, for
// which a 400 or 422 means the model's arguments were wrong
// (CodeInvalidArgs) and the body is the tool service's own answer (its
// sentence goes to details.tool_message). "" means SourceTool when Tool is
// set (naming a tool says a tool made the call), else SourceProvider.
// Provider is a hint ("openai", "anthropic", "gemini", "bedrock", "mistral",
// "cohere", "ollama", ...), "" to detect it from the body of a provider's
// failure; with a tool source it says the tool's call went to that provider.
// Tool is copied to details.tool ("" = absent); Attempt to
// details.attempt (0 = absent). NowMs is the time of the response in
// milliseconds since the Unix epoch (0 = unknown); without it an HTTP-date
// Retry-After and Anthropic's RFC 3339 reset headers give no wait.
//
// See the request members of op classify in docs/classify.md.
type ClassifyOptions struct {
	Source   Source
	Provider string
	Tool     string
	Attempt  int
	NowMs    int64
}

func (o ClassifyOptions) internal() classify.Options {
	return classify.Options{
		Source: o.Source, Provider: o.Provider, Tool: o.Tool,
		Attempt: int64(o.Attempt), HasAttempt: o.Attempt != 0,
		NowMs: o.NowMs, HasNow: o.NowMs != 0,
	}
}

// ClassifyHTTP classifies an HTTP error response into an Envelope.
//
// status is the HTTP status code, 100-599 (outside it: CodeInvalidInput at
// http.status, as the op answers);
// header maps names to values, names in any case, so resp.Header (an
// http.Header) can be passed as it is; body is the raw response body, read as
// JSON when it parses (a JSON array wrapping the error, as Google's
// OpenAI-compatible endpoint sends, is accepted) and as text otherwise; a
// raw text/event-stream body (a streamed response recorded whole) is read
// for its error event, so a 200 stream that failed gives what ClassifySSE
// gives for that event. The
// code comes from the status table, unless the body names a more specific
// provider error; details carry status, retry_after_seconds (from
// retry-after-ms, Retry-After, x-amz-retry-after, Google RetryInfo, then the
// OpenAI and Anthropic rate-limit reset headers), the provider's error type
// and code, and the request id. The message is written by toolerr and never
// quotes the provider's message.
//
// See RFC 9110, 10.2.3 and 15, and docs/classify.md for every rule and the
// vendor error reference it follows.
func ClassifyHTTP(status int, header map[string][]string, body []byte, opt ClassifyOptions) Envelope {
	return classifyChecked("classify", &classify.Request{Kind: classify.KindHTTP, Status: status,
		Header: classify.Header(header), Body: classify.ParseBody(body), Options: opt.internal()})
}

// classifier is a request of the classify or classify_exception op, checked
// and classified by the same methods the ops call.
type classifier interface {
	Check(parent string) error
	Classify() Envelope
}

// classifyChecked returns r's envelope, or, when r fails the op's checks,
// the INVALID_INPUT envelope the op answers with (details.path naming the
// member, details.op the op).
func classifyChecked(op string, r classifier) Envelope {
	if err := r.Check(""); err != nil {
		return invalidInput(op, err)
	}
	return r.Classify()
}

// invalidInput returns the INVALID_INPUT envelope Invoke answers for err in op.
func invalidInput(op string, err error) Envelope {
	e := requestError(op, err).envelope()
	e.Details = sanitize.Details(e.Details)
	return e
}

// ClassifySSE classifies an error event inside a stream whose HTTP status
// was 200 (Anthropic's "event: error" with overloaded_error, an OpenAI stream
// error, a Bedrock stream exception member such as "throttlingException").
//
// event is the event name ("" means "error"); data is its payload, read as
// ClassifyHTTP reads a body. contentEmitted true, when output was already
// streamed, sets details.partial_output: the failure stays retryable but the
// caller must discard what it streamed before retrying.
//
// See https://docs.claude.com/en/api/errors and huggingface/tau#333.
func ClassifySSE(event string, data []byte, contentEmitted bool, opt ClassifyOptions) Envelope {
	return classifyChecked("classify", &classify.Request{Kind: classify.KindSSE, Event: event,
		Data: classify.ParseBody(data), ContentEmitted: contentEmitted, Options: opt.internal()})
}

// ClassifyError classifies a Go error value from an HTTP client or a tool,
// without importing net: errors.Is context.DeadlineExceeded gives
// CodeTimeout, context.Canceled CodeCancelled, an error with a Timeout() bool
// method that reports true (net.Error, url.Error) CodeTimeout; any other error
// is classified by its text (ClassifyText): err.Error(), then the text of
// each error errors.Unwrap finds under it (at most 8, each its first line,
// at most 4,096 characters, as the Python, Node and Rust bindings read a
// cause chain) that err.Error() does not already hold, after ": " (an error
// type whose Error() leaves out the error it wraps). A nil error gives the
// zero Envelope.
//
// See BerriAI/litellm#19216 and docs/classify.md ("Error text").
func ClassifyError(err error, opt ClassifyOptions) Envelope {
	if err == nil {
		return Envelope{}
	}
	o := opt.internal()
	if err := o.Check(""); err != nil {
		return invalidInput("classify", err)
	}
	var buf [8]error // most chains fit: no allocation for them
	chain := AppendErrorChain(buf[:0], err)
	if cause, ok := contextCause(chain); ok {
		return classify.Cause(cause, o)
	}
	for _, e := range chain { // the first with a Timeout method, as errors.As finds it
		if t, ok := e.(interface{ Timeout() bool }); ok {
			if t.Timeout() {
				return classify.Cause(classify.CauseTimeout, o)
			}
			break
		}
	}
	return ClassifyText(errorChainText(err), opt)
}

// MaxErrorChain is the most errors ErrorChain returns.
const MaxErrorChain = 64

// ErrorChain returns err and the errors under it in the order errors.Is
// and errors.As visit them (depth first through Unwrap() error and
// Unwrap() []error), at most MaxErrorChain of them; nil for a nil err. Use
// it where errors.Is or errors.As would read an error from outside: a
// chain that leads back to itself makes them loop for ever (ClassifyError
// and the Go executor's classification of a tool's error hung on one).
func ErrorChain(err error) []error { return AppendErrorChain(nil, err) }

// AppendErrorChain appends ErrorChain(err) to dst and returns the extended
// slice (dst as it is for a nil err): at most MaxErrorChain errors are
// appended, whatever dst already holds. A caller that reads the chain once
// passes a buffer of its own (an array on its stack) and allocates nothing
// for a chain that fits in it (ClassifyError and the Go executor do).
func AppendErrorChain(dst []error, err error) []error {
	return walkErrorChain(dst, len(dst), err)
}

// walkErrorChain appends e and the errors under it to out, depth first,
// while out holds fewer than MaxErrorChain errors after start.
func walkErrorChain(out []error, start int, e error) []error {
	for e != nil && len(out)-start < MaxErrorChain {
		out = append(out, e)
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			e = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, c := range u.Unwrap() {
				out = walkErrorChain(out, start, c)
			}
			return out
		default:
			return out
		}
	}
	return out
}

// chainIs reports whether an error of chain is target, or says it is (its
// Is method), as errors.Is does for each.
func chainIs(chain []error, target error) bool {
	for _, e := range chain {
		if e == target {
			return true
		}
		if x, ok := e.(interface{ Is(error) bool }); ok && x.Is(target) {
			return true
		}
	}
	return false
}

// The most causes errorChainText reads, and the most characters of each,
// as the bindings read an exception's cause chain (docs/classify.md).
const (
	maxCauses     = 8
	maxCauseChars = 4096
)

// errorChainText is err.Error() followed by the first line of each error
// under it (errors.Unwrap) that the text does not already hold, after
// ": ": at most maxCauses, each cut at maxCauseChars characters; a cycle
// ends with the bound.
func errorChainText(err error) string {
	text := err.Error()
	c := err
	for range maxCauses {
		if c = errors.Unwrap(c); c == nil {
			break
		}
		line := c.Error()
		if i := strings.IndexAny(line, "\r\n"); i >= 0 {
			line = line[:i]
		}
		n := 0
		for i := range line { // cut at the maxCauseChars-th code point, with no copy
			if n == maxCauseChars {
				line = line[:i]
				break
			}
			n++
		}
		if line != "" && !strings.Contains(text, line) {
			text += ": " + line
		}
	}
	return text
}

// ClassifyText classifies an error printed as text: a status in it
// ("upstream request failed: status code: 400, message: ...", "HTTP 503",
// "Error code: 429 - {...}") is classified exactly like a typed one, with any
// JSON object in the text read as the body; else a transport cause
// (timeout, connection refused or reset, DNS, TLS) gives CodeTimeout or
// CodeTransport; else the failure is CodeToolError (source tool) or
// CodeUnexpectedStatus (source provider), not retryable.
//
// See BerriAI/litellm#19216 and docs/classify.md ("Error text").
func ClassifyText(text string, opt ClassifyOptions) Envelope {
	return classifyChecked("classify", &classify.Request{Kind: classify.KindText, Text: text, Options: opt.internal()})
}

// ClassifyException classifies an exception a tool raised into an Envelope
// with source tool.
//
// typ is the exception's type name ("ValueError", "httpx.ReadTimeout",
// "java.net.ConnectException"); message its message; traceback the printed
// traceback, used to find the type and message when typ is "" (the final
// exception line of a Python, JavaScript, Go, Java or Rust trace) and for its
// cause chain ("Caused by:" lines: Java's, Rust's source chain, the Node
// binding's Error.cause chain). A well-known transient type gives
// CodeTimeout or CodeTransport, retryable; a message naming an HTTP status
// 400-599 is classified as that status; else a transport cause in the cause
// chain (a fetch failed caused by ECONNREFUSED) gives CodeTimeout or
// CodeTransport; else
// CodeToolError, not retryable, with a one-sentence message naming the type
// ("The search tool raised ValueError; ..."), even when message is empty;
// the exception message goes to details.tool_message, sanitized.
// The traceback never reaches the output; opt.Source is ignored.
//
// See docs/classify.md ("Exceptions").
func ClassifyException(typ, message, traceback string, opt ClassifyOptions) Envelope {
	o := opt.internal()
	o.NowMs, o.HasNow = 0, false // the op has no now_ms: an exception carries no wait
	return classifyChecked("classify_exception", &classify.ExceptionRequest{Type: typ, Message: message, Traceback: traceback, Options: o})
}
