package transcript

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Options are what check, repair and convert know about a list beyond its
// format and its messages. The zero value is a list that holds its whole
// history, checked with its format's own id rules.
type Options struct {
	// IDRules names other id rules than the list format's own ("mistral"
	// for a Mistral list in the openai-chat shape); "" = the format's own.
	IDRules string
	// Path is the request member that holds the list ("" = "messages"):
	// finding paths start with it ("input[3]", "contents[2].parts[0]").
	Path string
	// Server marks a list that continues a conversation the provider holds
	// (a Responses request with previous_response_id or conversation): the
	// calls an output answers may live in the referenced response rather
	// than in the list. With OpenCalls nil, an output whose call is not in
	// the list is kept and reported (unverified_result), never dropped.
	Server bool
	// OpenCalls, when not nil, are the function calls of the referenced
	// response that still await their output (its output items of type
	// function_call): an output answering one of them is in place, one
	// answering neither them nor a call of the list is an orphan, and one
	// of them without an output is unanswered. A non-nil OpenCalls implies
	// Server. An empty, non-nil slice says there are none.
	OpenCalls []Call
	// Model is the model id the list is sent to ("" = not known): a rule
	// that differs between model families follows the family it names
	// (each provider's Dialect documents its default).
	Model string
	// Capabilities says what the model takes where its id cannot (a
	// custom model, an inference profile ARN), by name: bedrock's
	// "tool_result_status". It overrides what Model says.
	Capabilities map[string]bool
	// IDSeed, when not "", tells the ids convert generates for calls
	// without one (Gemini's) apart from those of every other conversion:
	// a response converted on its own (egress.ConvertResponse) passes its
	// whole body, so that each response of a transcript hands out its own
	// ids, and the same response the same ids. "" = call_<message>_<n>.
	IDSeed string
	// Encoded marks a conversion whose list is encoded to JSON right away
	// (Invoke's answer): a conversion to another format writes the list
	// straight as its canonical JSON (dialect.Writer's AppendList), after
	// the bytes of Into, and returns them as Converted.List instead of
	// Converted.Messages' trees.
	Encoded bool
	Into    []byte
	// MaxBytes, when > 0, lets Check stop once the findings it has built
	// are known to encode to more than MaxBytes bytes (Invoke's
	// MaxResponseBytes): it then returns the findings of the list up to
	// that point, in order and each whole, and none after (a response
	// that cannot be written is not built). 0 = every finding.
	MaxBytes int
}

// CheckCapabilities refuses a capability name the target format does not
// know (a *field.Error at path.name).
func CheckCapabilities(f Format, caps map[string]bool, path string) error {
	d := dialectOf(f)
	for name := range caps {
		if !strings.Contains(d.CapNames, " "+name+" ") {
			known := strings.TrimSpace(d.CapNames)
			if known == "" {
				known = "none"
			}
			return field.NewError(field.Join(path, name), "is not a capability of "+string(f)+" lists (known: "+known+")")
		}
	}
	return nil
}

// DialectFor returns the dialect of f as the model and capabilities of opts
// take it: the one the engine reads and writes f's lists with (the egress
// request op asks it whether the model takes the failure flag).
func DialectFor(f Format, opts Options) *dialect.Dialect { return dialectFor(f, opts) }

// dialectFor is the dialect of f as the model opts names takes it: f's
// table itself (dialectOf, never to be changed) when no model, capability
// or other provider's id rules change it, else a copy changed for them.
func dialectFor(f Format, opts Options) *dialect.Dialect {
	d := dialectOf(f)
	lint, relint := format.ListLint(opts.IDRules)
	if d == nil || opts.Model == "" && len(opts.Capabilities) == 0 && !relint {
		return d
	}
	d = d.Copy()
	d.Model, d.Caps = opts.Model, opts.Capabilities
	if relint {
		d.Lint = lint // another provider's API behind the same shape (Mistral's chat)
	}
	if d.ForModel != nil && (opts.Model != "" || len(opts.Capabilities) > 0) {
		d.ForModel(d, opts.Model)
	}
	return d
}

// server reports whether the list continues a conversation the provider
// holds.
func (o Options) server() bool { return o.Server || o.OpenCalls != nil }

// listPath is the request member holding the list.
func (o Options) listPath() string {
	if o.Path == "" {
		return "messages"
	}
	return o.Path
}

// ReadOpenCalls reads the open calls of a referenced response given at path
// (the open_calls member): each the function_call item as the provider
// returned it in the response's output, or at least {"call_id"}. A format
// whose lists cannot continue a conversation the provider holds refuses
// them (a *field.Error at path).
func ReadOpenCalls(f Format, v []any, path string) ([]Call, error) {
	if err := CheckServer(f, path); err != nil {
		return nil, err
	}
	d := dialectOf(f)
	out := make([]Call, 0, len(v))
	for i, x := range v {
		c, err := d.OpenCall(x, field.Index(path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// CheckServer refuses Server for a format whose lists cannot continue a
// conversation the provider holds (a *field.Error at path, the member that
// asked for it).
func CheckServer(f Format, path string) error {
	if d := dialectOf(f); d == nil || d.OpenCall == nil {
		return field.NewError(path, "only "+serverFormats()+" lists continue a conversation the provider holds")
	}
	return nil
}

// serverFormats names the formats whose lists can continue a conversation
// the provider holds, for errors.
func serverFormats() string {
	var names []string
	for _, f := range Formats() {
		if dialectOf(f).OpenCall != nil {
			names = append(names, string(f))
		}
	}
	return strings.Join(names, " and ")
}

// withServer returns msgs behind one message standing for the open calls of
// the referenced response (Server set, so that it is never written back to
// the same format), and 1; or msgs and 0 when there are none to stand for.
func withServer(msgs []Message, o Options) ([]Message, int) {
	if o.OpenCalls == nil {
		return msgs, 0
	}
	v := Message{Role: RoleAssistant, Server: true, Parts: make([]Part, len(o.OpenCalls))}
	for i, c := range o.OpenCalls {
		v.Parts[i] = Part{Kind: KindCall, Call: c}
	}
	return append([]Message{v}, msgs...), 1
}
