// Package dialect is the contract between the transcript engine (package
// transcript: check, repair, trim, normalize_ids, convert) and the
// transcript dialect of each provider, which lives in the provider's own
// package next to its codec (format/openaichat, format/anthropic, ...).
//
// It holds the provider-neutral message model (Message, Part, Call, Result,
// Image), the helpers every dialect reads and writes with (ObjectMember,
// ReadParts, TextOutcome, Writer, ...), and Dialect, the description a
// provider package returns of how its message lists look: how one element is
// read and written, where a result must sit (Placement), which call ids it
// accepts (IDRule), which empty texts it rejects, how a failure is flagged.
package dialect

import (
	"strings"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Placement is where a format requires the results of a call turn; the
// engine checks and repairs each placement with one strategy.
type Placement int

// The placements.
const (
	// ToolMessages: one tool message per result in the run of tool
	// messages right after the assistant message (openai-chat).
	ToolMessages Placement = iota + 1
	// AfterCall: each output item after its call item, within the run of
	// call and output items of one turn (openai-responses).
	AfterCall
	// NextUserFirst: every result in the very next user message, before
	// any other block (anthropic, bedrock).
	NextUserFirst
	// NextContent: exactly one response per call, all in the one content
	// right after the call turn; a result without an id pairs with a call
	// by name and order (gemini).
	NextContent
)

// Charset is the set of characters an IDRule allows.
type Charset int

// The character sets of call ids.
const (
	AnyChar Charset = iota // any character
	Word                   // [a-zA-Z0-9_-]
	Alnum                  // [a-zA-Z0-9]
)

// IDRule is which tool-call ids a provider accepts: Min to Max characters
// (code points; Max 0 = no bound) of Charset. Min 0 means an id may be
// absent. Text is the sentence an invalid_id finding says.
type IDRule struct {
	Charset  Charset
	Min, Max int
	Text     string
}

// Optional reports whether a call may have no id.
func (r IDRule) Optional() bool { return r.Min == 0 }

// Valid reports whether id follows r.
func (r IDRule) Valid(id string) bool {
	n := utf8.RuneCountInString(id)
	if n < r.Min || r.Max > 0 && n > r.Max {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case r.Charset == AnyChar:
			return true
		case IsAlnum(c), r.Charset == Word && (c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// IsAlnum reports whether c is one of [a-zA-Z0-9].
func IsAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// IsWord reports whether c is one of [a-zA-Z0-9_-].
func IsWord(c byte) bool { return IsAlnum(c) || c == '_' || c == '-' }

// Copy returns a copy of d for its caller to change (the engine sets the
// model and capabilities a list is read for): a provider's package builds
// its Dialect once, as a table it never changes, which its Dialect function
// returns and format.Dialect hands out copies of.
func (d *Dialect) Copy() *Dialect {
	c := *d
	return &c
}

// Dialect is how one provider's message lists look. Every field is set by
// the provider's package (its Dialect function); a nil func means "never"
// where the field says so.
type Dialect struct {
	// Name is the wire-format name (openai-chat, anthropic, ...).
	Name string
	// Read reads one element of a list (a message, an item, a content) at
	// path p; a modelled member of the wrong JSON type is a *field.Error.
	Read func(v any, p string) (Message, error)
	// Scan reads one element of a list straight from the request bytes at
	// nesting level depth (the arrays and objects around it), for the shapes
	// it is sure of, giving the Message Read would give for the tree of the
	// same bytes, with Scanned for each Raw the tree would set (a part
	// inside a member it parsed as a tree keeps that tree), or what raw
	// asks for instead. It reports false for anything else: the caller then
	// reads the whole request as a tree. The message's parts come from
	// parts, shared by the messages of one list. nil for a format without
	// one.
	Scan func(s *canonical.Scanner, depth int, raw ScanRaw, parts *Parts) (Message, bool)
	// Write writes one neutral message as zero or more list elements.
	Write func(w *Writer, m Message) []any
	// Serialize is the provider's single-turn codec: a result part in a
	// list is encoded exactly as the serialize op encodes it alone.
	Serialize func(outs []outcome.Outcome) ([]any, error)
	// Elem, for a format whose turn of results is one message (a Turn
	// codec: anthropic, gemini, bedrock), writes the one result element
	// Serialize's message holds for an outcome that passed outcome.Check,
	// as canonical bytes; nil for the others.
	Elem func(dst []byte, i int, o *outcome.Outcome) ([]byte, error)
	// CallID and ResultID are where a call and a result element hold the
	// call id; ResultName, where a result names its function (Key "" when
	// it does not).
	CallID, ResultID, ResultName Member
	// Flag marks a result element as failed beside its content, for a
	// failure that is not an envelope, whose own text then stays as it is
	// (Anthropic is_error, Bedrock status "error"; maximhq/bifrost#5450
	// carries "permission denied" to Bedrock as is). nil where the format
	// has no flag beside the content: OpenAI has none, Bedrock none for a
	// model that takes no status (ForModel), and Gemini's flag is the
	// "error" key of response, whose value is the envelope. Such a failure
	// is then written as its TOOL_ERROR envelope (Failure), so the model
	// reads the same five fields as for every other failure.
	Flag func(elem map[string]any, o outcome.Outcome)
	// Flagged reports whether a result element as read carries the
	// format's own failure flag (is_error true, status "error", an "error"
	// key); nil when the format (or the model, after ForModel) has no
	// flag. The egress request op gives the flag to an envelope that
	// travels without it.
	Flagged func(elem map[string]any) bool
	// Placement is where results must sit.
	Placement Placement
	// PartsKey is the member holding a message's parts ("content",
	// "parts"), "" where a part is a message of its own (a result element
	// is then the first message Serialize returns, else the first element
	// of that member).
	PartsKey string
	// IDs are the call ids the provider accepts.
	IDs IDRule
	// Names are the function names a call may have (Charset AnyChar and
	// no bound: any), for convert, which rewrites a name the target
	// refuses; check reports them through Lint.
	Names IDRule
	// RoleNames lists the roles the format accepts, for unknown_role.
	RoleNames string
	// Unanswered says where a call's result must go (unanswered_call).
	Unanswered string
	// Misplaced says so for a result that is not where Placement wants it
	// ("" = "This result is not in the message right after its call.").
	Misplaced string
	// EmptyResult reports a result part whose text the format rejects as
	// empty (nil: none is rejected). The engine asks only for results
	// that are content, not envelopes.
	EmptyResult func(p *Part) bool
	// EmptyText reports whether blank text parts of m are rejected (nil:
	// never).
	EmptyText func(m Message) bool
	// Takes says why a tool result of the format cannot carry a media
	// block (an image or document, inline or by URL): "" when it can. The
	// writer puts a text placeholder in its place and convert notes it.
	Takes func(b outcome.Block) string
	// ToolImagesFollow marks a format whose tool results carry text only:
	// their images follow in a user message, and convert says so.
	ToolImagesFollow bool
	// SplitResponses (NextContent) accepts the responses to one call turn
	// spread over the consecutive contents right after it, as long as
	// each holds responses only and each call is answered once; false
	// wants them all in the first.
	SplitResponses bool
	// ForModel adjusts the dialect to the model a list is sent to (model
	// is the caller's model id, "" when only Caps are given), for a rule
	// that differs between model families; nil where every model takes the
	// same lists.
	ForModel func(d *Dialect, model string)
	// Lint returns the rules message i of msgs breaks that are about its
	// own members (lengths, names, part shapes, what the model takes),
	// as opposed to pairing and placement, which the engine checks; nil
	// where there are none.
	Lint func(d *Dialect, msgs []Message, i int) []Issue
	// LintRoom, when > 0, is how many bytes the findings of the message
	// being linted may still take in the response: Lint may stop once the
	// issues it returns take more (FindingBytes each), since those past
	// that cannot be written. 0 = no bound. Check sets it per message.
	LintRoom int
	// Model is the model id the list is sent to ("" = not known), for Lint
	// and ForModel; Caps, what the caller says the model takes, by
	// capability name (one of CapNames), overriding what the model id says.
	Model string
	Caps  map[string]bool
	// CapNames lists the capabilities Caps may name (space separated, a
	// space at each end; "" = none).
	CapNames string
	// OpenCall reads one open call of a response the provider holds (the
	// open_calls member: a call item as the provider returned it); nil for
	// a format whose lists cannot continue a conversation held by the
	// provider.
	OpenCall func(v any, p string) (Call, error)
	// Lost counts the members of a read message (and its read parts) that
	// convert does not carry.
	Lost func(l Loss, m Message)
}

// Issue is one finding Lint raises about a message: Kind (a finding kind),
// Path below the message ("content", "tool_calls[0]", "content[2].toolUse.name";
// "" = the message itself), ID (the call id concerned, if any) and Text,
// the sentence the finding says.
type Issue struct {
	Kind, Path, ID, Text string
}

// FindingBytes is a lower bound on the length of the canonical JSON of a
// finding of kind about id, saying text, with a path ending in member:
// {"ids":[...],"index":N,"kind":...,"message":...,"path":...} without the
// members it may leave out (index, path) and without escapes, each
// string counted as its raw bytes.
func FindingBytes(kind, member, id, text string) int {
	n := len(`{"ids":[],"kind":"","message":""}`) + len(kind) + len(member) + len(text)
	if id != "" {
		n += len(id) + 2
	}
	return n
}

// Bytes is FindingBytes of the finding is raises.
func (is Issue) Bytes() int { return FindingBytes(is.Kind, is.Path, is.ID, is.Text) }

// Full reports whether issues whose Bytes total used fill d.LintRoom, so
// that a Lint may return them without the rest.
func (d *Dialect) Full(used int) bool { return d.LintRoom > 0 && used > d.LintRoom }

// Member is where a value sits in an element: member Key of the element,
// or of its wrapper object In when In is not "" (Gemini's functionCall,
// Bedrock's toolUse).
type Member struct {
	In, Key string
}

// Set sets the member in elem (a copy of the wrapper, which may be shared).
func (m Member) Set(elem map[string]any, v any) {
	if m.In == "" {
		elem[m.Key] = v
		return
	}
	in := Clone(elem[m.In])
	in[m.Key] = v
	elem[m.In] = in
}

// With returns a copy of raw (an element read from a list) with the member
// set to v; nil stays nil.
func (m Member) With(raw any, v any) any {
	if raw == nil {
		return nil
	}
	c := Clone(raw)
	m.Set(c, v)
	return c
}

// Element takes the one result element out of what d.Serialize returned for
// one outcome (see PartsKey), and the messages that must follow the turn
// (the user message carrying openai-chat's tool-result images). msgs is the
// caller's own fresh tree: the element is taken out of it, not copied.
func (d *Dialect) Element(msgs []any) (elem map[string]any, follow []any) {
	if d.PartsKey != "" {
		return FirstElement(msgs, d.PartsKey), nil
	}
	if d.ToolImagesFollow {
		follow = msgs[1:]
	}
	if m, ok := msgs[0].(map[string]any); ok {
		return m, follow
	}
	return map[string]any{}, follow
}

// SetCall writes a result element's call id (not an absent one, where ids
// are optional) and function name.
func (d *Dialect) SetCall(elem map[string]any, id, name string) {
	if id != "" || !d.IDs.Optional() {
		d.ResultID.Set(elem, id)
	}
	if d.ResultName.Key != "" {
		d.ResultName.Set(elem, name)
	}
}

// SetID returns a copy of a raw call (call true) or result element with its
// id member set to id.
func (d *Dialect) SetID(raw any, call bool, id string) any {
	if call {
		return d.CallID.With(raw, id)
	}
	return d.ResultID.With(raw, id)
}

// CountLost counts the members of m beyond messageKeys, then those of each
// modelled part read from the list with part.
func CountLost(l Loss, m Message, messageKeys string, part func(p Part)) {
	l.Check(m.Raw, messageKeys, "")
	for _, p := range m.Parts {
		if readModelled(p) {
			part(p)
		}
	}
}

// ReadRoleMessage reads a message {"role": ..., key: [elements]} whose role
// roles maps to a neutral one (any other role is UnknownRole), reading each
// element with elem.
func ReadRoleMessage(v any, p string, roles map[string]Role, key string, elem func(v any, p string) (Part, error)) (Message, error) {
	m, role, err := ObjectMember(v, p, "role")
	if err != nil {
		return Message{}, err
	}
	r, ok := roles[role]
	if !ok {
		return UnknownRole(v), nil
	}
	msg := Message{Role: r}
	msg.Parts, err = ReadArray(m, key, p, elem)
	return msg, err
}

// Loss counts the members a conversion drops, by name ("function.strict"
// for a nested one).
type Loss map[string]int

// Check counts the members of v (an object) not listed in keys (space
// separated, with a space at each end), naming them prefix+name, and
// returns v as an object (nil when it is not one). A member that carries
// nothing (null, [] or {}) is not counted.
func (l Loss) Check(v any, keys, prefix string) map[string]any {
	m, _ := v.(map[string]any)
	for k, x := range m {
		if strings.Contains(keys, " "+k+" ") || empty(x) {
			continue
		}
		l[prefix+k]++
	}
	return m
}

// empty reports a member value that carries nothing: null, [] or {}.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// ReadModelled returns the parts of m that were read from a list and are
// modelled (not Other): the parts whose members Lost looks into.
func ReadModelled(m Message) []Part {
	out := make([]Part, 0, len(m.Parts))
	for _, p := range m.Parts {
		if readModelled(p) {
			out = append(out, p)
		}
	}
	return out
}

// readModelled reports whether p was read from a list and is modelled.
func readModelled(p Part) bool { return p.Kind != KindOther && p.Raw != nil }
