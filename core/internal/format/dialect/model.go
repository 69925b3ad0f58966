package dialect

import (
	"unicode"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

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
//
// Legacy marks a call of Chat Completions' deprecated function calling
// (an assistant message's function_call, answered by a message of role
// "function" naming it): it has no id, and pairs by order.
type Call struct {
	ID       string
	Name     string
	Args     any
	ArgsText string
	Legacy   bool
}

// Value returns the arguments as a value tree: Args, or ArgsText parsed (a
// string when the text is not JSON).
func (c *Call) Value() any {
	if c.Args == nil && c.ArgsText != "" {
		return ArgsValue(c.ArgsText)
	}
	return c.Args
}

// Text returns the arguments as JSON text: ArgsText as given, or the
// canonical JSON of Args.
func (c *Call) Text() string {
	if c.ArgsText != "" {
		return c.ArgsText
	}
	return ArgsText(c.Args)
}

// Result is the answer to one call: Outcome.Call names the call (ID, and
// Name where the format carries it), and Outcome holds an envelope (Error)
// or content (Result). Failed is true for every failure: always with an
// envelope, and also for content the provider flagged as failed (is_error,
// status "error", a Gemini "error" key) that is not an envelope.
//
// Legacy marks the answer to a Legacy call (a message of role "function").
type Result struct {
	Outcome outcome.Outcome
	Failed  bool
	Legacy  bool
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
	// Split marks a part read out of an element that held several (a
	// Gemini part with two data fields): Raw is its own share of that
	// element, and repair writes the message anew so that the parts go
	// apart.
	Split bool
}

// Scanned is the Raw of a message or part that Dialect.Scan read straight
// from the request bytes: read, but without a tree. Scan reads only elements
// whose every member it models, so nothing that looks into a Raw tree (the
// members convert drops, Lint) finds anything in it that the tree would
// have shown; an op that writes elements back as read (repair, a
// same-format convert) or lints them reads the tree instead.
type Scanned struct{}

// ScanRaw is what Dialect.Scan puts where the tree of an element would be
// its Raw, for what the op does with it.
type ScanRaw uint8

// The kinds of ScanRaw.
const (
	// RawNone: Scanned, for an op that neither lints elements nor writes
	// them back (convert to another format).
	RawNone ScanRaw = iota
	// RawLint: what Check reads and no more (check). A message's Raw is an
	// object of the members Lint reads, as the tree holds them (an array
	// Lint only counts may hold nulls), where Lint can find something in
	// them beyond what the neutral role says, else Scanned. A result's
	// text is read no further than whether it is blank: an Outcome with a
	// Result of Kind Empty when it is, else neither Result nor Error (no
	// envelope is recognized, and Failed is false).
	RawLint
	// RawText: each Raw is the element's canonical JSON (a *canonical.Text
	// in the list's Parts), which a writer copies as is and Clone parses
	// where it rebuilds one (repair, a same-format convert).
	RawText
)

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
	// Server marks the message standing for the calls of a response the
	// provider holds (Responses previous_response_id): the engine pairs
	// outputs with them, and a list written back in its own format leaves
	// it out.
	Server bool
}

// maxNameChars is the longest tool or member name displayName puts into a
// sentence, in characters (code points).
const maxNameChars = 64

// DisplayName returns name fit to appear inside a sentence toolerr writes
// (an envelope message, a finding, a note): sanitize.Text applied (a secret
// becomes [REDACTED]), and "" when what remains is not one short token
// (empty, longer than maxNameChars, or holding white space or control
// characters, as a stack trace does), so that the caller says "this tool".
func DisplayName(name string) string {
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
