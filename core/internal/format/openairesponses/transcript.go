package openairesponses

import (
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/openaichat"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Name is the wire-format name of this package.
const Name = "openai-responses"

// Dialect is the transcript dialect of Responses API input lists: calls and
// their outputs are items of their own, each function_call_output after its
// function_call within the run of items of one turn; call_id is 1 to 64
// characters.
//
// See https://platform.openai.com/docs/api-reference/responses/create
// (input) and the OpenAI OpenAPI spec, FunctionCallOutputItemParam.
//
// It is the package's one table, shared by every caller: read it, never
// change it (format.Dialect hands out copies to change).
func Dialect() *dialect.Dialect { return &dialectTable }

// dialectTable is the Dialect, built once and never changed (see
// dialect.Dialect.Copy).
var dialectTable = dialect.Dialect{
	Name: Name, Read: readItem, Write: writeMessage, Serialize: Codec{}.Serialize,
	CallID: dialect.Member{Key: "call_id"}, ResultID: dialect.Member{Key: "call_id"},
	// OpenAPI FunctionTool.name, as for Chat Completions
	Names:       dialect.IDRule{Charset: dialect.Word, Min: 1, Max: 64, Text: "OpenAI function names are 1 to 64 characters of [a-zA-Z0-9_-]."},
	Placement:   dialect.AfterCall,
	IDs:         dialect.IDRule{Charset: dialect.AnyChar, Min: 1, Max: MaxCallIDChars, Text: "call_id is 1 to 64 characters."},
	RoleNames:   "system, developer, user and assistant",
	Unanswered:  "Every function_call needs a function_call_output with its call_id.",
	Misplaced:   "This function_call_output is not after its function_call in the same run of items.",
	EmptyResult: openaichat.EmptyResult,
	OpenCall:    openCall,
	Takes:       Takes,
	Lint:        lint,
	Lost: func(l dialect.Loss, m dialect.Message) {
		if len(m.Parts) != 1 || (m.Parts[0].Kind != dialect.KindCall && m.Parts[0].Kind != dialect.KindResult) {
			l.Check(m.Raw, " type role content ", "") // a call or output item is checked as a part
		}
		for _, p := range dialect.ReadModelled(m) {
			openaichat.LostPart(l, p, func(raw any) { l.Check(raw, " type call_id name arguments ", "") })
		}
	},
}

// readItem reads one Responses input item.
func readItem(v any, p string) (dialect.Message, error) {
	m, typ, err := dialect.ObjectMember(v, p, "type")
	if err != nil {
		return dialect.Message{}, err
	}
	switch typ {
	case "function_call":
		id, err := dialect.OptString(m, "call_id", p)
		if err != nil {
			return dialect.Message{}, err
		}
		name, args, err := dialect.TwoStrings(m, p, "name", "arguments")
		if err != nil {
			return dialect.Message{}, err
		}
		return dialect.Message{Role: dialect.RoleAssistant, Parts: []dialect.Part{{Kind: dialect.KindCall, Call: dialect.Call{ID: id, Name: name, ArgsText: args}, Raw: v}}}, nil
	case "function_call_output":
		id, err := dialect.OptString(m, "call_id", p)
		if err != nil {
			return dialect.Message{}, err
		}
		o, failed, err := openaichat.ListResultContent(m["output"], field.Join(p, "output"))
		if err != nil {
			return dialect.Message{}, err
		}
		o.Call.ID = id
		return dialect.Message{Role: dialect.RoleTool, Parts: []dialect.Part{{Kind: dialect.KindResult, Result: dialect.Result{Outcome: o, Failed: failed}, Raw: v}}}, nil
	case "", "message":
		role, err := dialect.OptString(m, "role", p)
		if err != nil {
			return dialect.Message{}, err
		}
		r, ok := openaichat.Roles()[role]
		if !ok {
			return dialect.UnknownRole(v), nil
		}
		msg := dialect.Message{Role: r}
		msg.Parts, err = openaichat.ListContent(m["content"], field.Join(p, "content"))
		return msg, err
	case "reasoning":
		return dialect.Message{Role: dialect.RoleAssistant, Parts: []dialect.Part{dialect.Other(v)}}, nil
	}
	return dialect.Message{Parts: []dialect.Part{dialect.Other(v)}}, nil
}

// openCall reads one open call of a response the provider holds: the
// function_call item as the referenced response returned it in its output
// (type, when present, "function_call"; call_id required; name and
// arguments optional), so that outputs in input can be paired with it.
//
// See https://platform.openai.com/docs/guides/conversation-state
// (previous_response_id) and the OpenAI OpenAPI spec, FunctionToolCall.
func openCall(v any, p string) (dialect.Call, error) {
	m, typ, err := dialect.ObjectMember(v, p, "type")
	if err != nil {
		return dialect.Call{}, err
	}
	if typ != "" && typ != "function_call" {
		return dialect.Call{}, field.NewError(field.Join(p, "type"), "must be \"function_call\" (an open call is a function_call item of the referenced response)")
	}
	id, err := field.RequiredString(m, "call_id", p)
	if err != nil {
		return dialect.Call{}, err
	}
	name, args, err := dialect.TwoStrings(m, p, "name", "arguments")
	return dialect.Call{ID: id, Name: name, ArgsText: args}, err
}

// writeMessage writes one neutral message as Responses items: its text,
// each call and each output an item of its own.
func writeMessage(w *dialect.Writer, m dialect.Message) []any {
	results, calls, rest := dialect.Split(m.Parts)
	out := make([]any, 0, len(m.Parts))
	if m.Role == dialect.RoleOther || (m.Role == dialect.RoleAssistant && len(rest) == 1 && rest[0].Kind == dialect.KindOther) {
		for _, p := range rest {
			if v, ok := w.Raw(p); ok {
				out = append(out, v)
			} else {
				w.Drop(p)
			}
		}
		rest = nil
	}
	if m.Role == dialect.RoleAssistant && len(rest) > 0 {
		if t := dialect.TextOf(rest); !outcome.IsBlank(t) {
			out = append(out, map[string]any{"role": "assistant", "content": t})
		}
		openaichat.DropOthers(w, rest)
	}
	for _, c := range calls {
		if v, ok := w.Raw(c); ok {
			out = append(out, v)
			continue
		}
		b := w.Base(c.Raw)
		b["type"] = "function_call"
		b["call_id"] = c.Call.ID
		b["name"] = c.Call.Name
		if _, ok := b["arguments"]; !ok || !w.Same {
			b["arguments"] = c.Call.Text()
		}
		out = append(out, b)
	}
	for _, r := range results {
		out = append(out, w.Result(r))
	}
	if (m.Role == dialect.RoleUser || m.Role == dialect.RoleSystem) && len(rest) > 0 {
		b := w.Base(m.Raw)
		b["role"] = string(m.Role)
		if !w.Same || b["content"] == nil {
			c := openaichat.ChatParts(w, rest, m.Role == dialect.RoleSystem)
			if arr, ok := c.([]any); ok {
				for i, e := range arr {
					em := e.(map[string]any)
					if em["type"] == "text" {
						arr[i] = map[string]any{"type": "input_text", "text": em["text"]}
					} else {
						arr[i] = map[string]any{"type": "input_image", "image_url": em["image_url"].(map[string]any)["url"]}
					}
				}
			}
			b["content"] = c
		}
		out = append(out, b)
	}
	return out
}
