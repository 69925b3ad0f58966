package transcript

import (
	"unicode"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// Format names a message-list shape (the wire-format names of package format).
type Format string

// The message-list formats this package reads and writes.
const (
	OpenAIChat      Format = "openai-chat"
	OpenAIResponses Format = "openai-responses"
	Anthropic       Format = "anthropic"
	Gemini          Format = "gemini"
	Bedrock         Format = "bedrock"
)

// Formats lists the formats in README order.
func Formats() []Format {
	return []Format{OpenAIChat, OpenAIResponses, Anthropic, Gemini, Bedrock}
}

// Known reports whether f is one of Formats.
func Known(f Format) bool {
	for _, k := range Formats() {
		if k == f {
			return true
		}
	}
	return false
}

// Role is the neutral role of a message.
type Role string

// The neutral roles. RoleTool holds tool results that travel as messages of
// their own (openai-chat tool messages, openai-responses function_call_output
// items); RoleOther is a message toolerr does not model (passed through).
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
	RoleOther     Role = ""
)

// Kind says what a Part holds.
type Kind uint8

// The kinds of Part.
const (
	KindText Kind = iota + 1
	KindImage
	KindCall
	KindResult
	KindOther
)

// Call is a tool call the model made. Args is the arguments as a value tree
// (an object, normally); ArgsText is the provider's argument text when the
// arguments came as text (OpenAI), parsed only when needed (see Value).
type Call struct {
	ID       string
	Name     string
	Args     any
	ArgsText string
}

// Value returns the arguments as a value tree: Args, or ArgsText parsed (a
// string when the text is not JSON).
func (c *Call) Value() any {
	if c.Args == nil && c.ArgsText != "" {
		return argsValue(c.ArgsText)
	}
	return c.Args
}

// Text returns the arguments as JSON text: ArgsText as given, or the
// canonical JSON of Args.
func (c *Call) Text() string {
	if c.ArgsText != "" {
		return c.ArgsText
	}
	return argsText(c.Args)
}

// Result is the answer to one call: Outcome.Call names the call (ID, and
// Name where the format carries it), and Outcome holds an envelope (Error)
// or content (Result). Failed is true for every failure: always with an
// envelope, and also for content the provider flagged as failed (is_error,
// status "error", a Gemini "error" key) that is not an envelope.
type Result struct {
	Outcome outcome.Outcome
	Failed  bool
}

// ID returns the id of the call the result answers.
func (r *Result) ID() string { return r.Outcome.Call.ID }

// Image is an image: MediaType and Data (standard base64), or URL.
type Image struct {
	MediaType string
	Data      string
	URL       string
}

// Part is one element of a message.
type Part struct {
	Kind   Kind
	Text   string
	Image  Image
	Call   Call
	Result Result
	// Raw is the part as read (nil for a part toolerr made); Dirty marks a
	// read part whose modelled fields changed.
	Raw   any
	Dirty bool
}

// Message is one message (or item) of a list.
type Message struct {
	Role  Role
	Parts []Part
	// Raw is the message as read (nil for a message toolerr made); Dirty marks
	// a read message whose parts changed.
	Raw   any
	Dirty bool
	// UnknownRole marks a message whose role member (missing included) is
	// none its format knows; it is read as RoleOther, kept as is, and check
	// reports it (unknown_role).
	UnknownRole bool
}

// maxNameChars is the longest tool or member name displayName puts into a
// sentence, in characters (code points).
const maxNameChars = 64

// displayName returns name fit to appear inside a sentence toolerr writes
// (an envelope message, a finding, a note): sanitize.Text applied (a secret
// becomes [REDACTED]), and "" when what remains is not one short token
// (empty, longer than maxNameChars, or holding white space or control
// characters, as a stack trace does), so that the caller says "this tool".
func displayName(name string) string {
	t := sanitize.Text(name)
	if t == "" || utf8.RuneCountInString(t) > maxNameChars {
		return ""
	}
	for _, r := range t {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return ""
		}
	}
	return t
}

// noResult is the envelope repair puts where a call has no result. The tool
// name appears in the message only when displayName allows it; details.tool
// carries it through sanitize.Details (outcome.Safe).
func noResult(name string) envelope.Envelope {
	msg := "No result was recorded for this tool call, so it must be treated as failed."
	d := map[string]any{}
	if name != "" {
		if n := displayName(name); n != "" {
			msg = "No result was recorded for this call of " + n + ", so it must be treated as failed."
		}
		d["tool"] = name
	}
	return outcome.Safe(envelope.Envelope{Code: envelope.NoResult, Message: msg, Retryable: false, Details: d, Source: envelope.SourceOrchestrator})
}

// synthResult is the result part repair adds for an unanswered call.
func synthResult(c Call) Part {
	e := noResult(c.Name)
	return Part{Kind: KindResult, Result: Result{Outcome: outcome.Outcome{Call: outcome.Call{ID: c.ID, Name: c.Name}, Error: &e}, Failed: true}}
}
