package openaichat

import (
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Name is the wire-format name of this package.
const Name = "openai-chat"

// Dialect is the transcript dialect of Chat Completions message lists: one
// tool message per result, in the run of tool messages right after the
// assistant message that made the calls; tool messages carry text only, so
// their images follow in one user message.
//
// See https://platform.openai.com/docs/api-reference/chat/create (messages)
// and openai-go ChatCompletionToolMessageParam.
//
// It is the package's one table, shared by every caller: read it, never
// change it (format.Dialect hands out copies to change).
func Dialect() *dialect.Dialect { return &dialectTable }

// dialectTable is the Dialect, built once and never changed (see
// dialect.Dialect.Copy).
var dialectTable = dialect.Dialect{
	Name: Name, Read: readMessage, Scan: scanMessage, Write: writeMessage, Serialize: serialize,
	CallID: dialect.Member{Key: "id"}, ResultID: dialect.Member{Key: "tool_call_id"},
	// OpenAPI FunctionObject.name: a-z, A-Z, 0-9, _ and -, at most 64
	Names:            dialect.IDRule{Charset: dialect.Word, Min: 1, Max: 64, Text: "OpenAI function names are 1 to 64 characters of [a-zA-Z0-9_-]."},
	Placement:        dialect.ToolMessages,
	Lint:             lint,
	Takes:            takesMedia,
	IDs:              dialect.IDRule{Charset: dialect.AnyChar, Min: 1, Text: "A tool call id is required."},
	RoleNames:        "system, developer, user, assistant, tool and function",
	Unanswered:       "Every tool call needs a tool message with its id right after the assistant message.",
	Misplaced:        "This tool message is not in the run of tool messages right after its assistant message.",
	EmptyResult:      EmptyResult,
	ToolImagesFollow: true,
	Lost: func(l dialect.Loss, m dialect.Message) {
		keys := messageKeys + "function_call "
		if len(m.Parts) == 1 && m.Parts[0].Result.Legacy {
			keys += "name " // a function message names the function it answers
		}
		dialect.CountLost(l, m, keys, func(p dialect.Part) {
			switch {
			case m.Role == dialect.RoleTool: // a tool message is its result part: counted as the message
			case p.Call.Legacy:
				l.Check(p.Raw, functionKeys, "function_call.")
			default:
				LostPart(l, p, func(raw any) { l.Check(l.Check(raw, callKeys, "")["function"], functionKeys, "function.") })
			}
		})
	},
}

// The members convert carries (space separated, a space at each end); any
// other member is counted as dropped.
const (
	messageKeys  = " role content tool_calls tool_call_id "
	partKeys     = " type text image_url "
	imageURLKeys = " url "
	callKeys     = " id type function "
	functionKeys = " name arguments "
)

// LostPart counts the dropped members of a read part of a Chat Completions
// or Responses list: content parts here, a call through call (its shape
// differs), a result as a Responses output item.
func LostPart(l dialect.Loss, p dialect.Part, call func(raw any)) {
	switch p.Kind {
	case dialect.KindCall:
		call(p.Raw)
	case dialect.KindResult:
		l.Check(p.Raw, " type call_id output ", "")
	default:
		if iu, ok := l.Check(p.Raw, partKeys, "")["image_url"].(map[string]any); ok {
			l.Check(iu, imageURLKeys, "image_url.")
		}
	}
}

// serialize is Codec's Serialize as a func (a method value is allocated
// each time Dialect builds one).
func serialize(outs []outcome.Outcome) ([]any, error) { return Codec{}.Serialize(outs) }

// EmptyResult reports a result read as empty text, which Chat Completions
// and Responses reject (an empty content or output string).
func EmptyResult(p *dialect.Part) bool {
	return p.Result.Outcome.Result.Kind == outcome.Empty && p.Raw != nil
}

// Roles maps the role names of Chat Completions and Responses messages that
// toolerr models to neutral roles ("tool" and "function" are read apart);
// any other role is unknown (unknown_role).
func Roles() map[string]dialect.Role {
	return map[string]dialect.Role{"system": dialect.RoleSystem, "developer": dialect.RoleSystem, "user": dialect.RoleUser, "assistant": dialect.RoleAssistant}
}

// chatRole is Roles()[name], without building the map.
func chatRole(name string) (dialect.Role, bool) {
	switch name {
	case "system", "developer":
		return dialect.RoleSystem, true
	case "user":
		return dialect.RoleUser, true
	case "assistant":
		return dialect.RoleAssistant, true
	}
	return "", false
}

// resultMessage reads a tool message (its id in tool_call_id) or a legacy
// function message (legacy: the name of the function it answers in name) as
// one result part; key is the member that names the call it answers.
func resultMessage(v any, m map[string]any, p, key string, legacy bool) (dialect.Message, error) {
	var msg dialect.Message
	ref, err := dialect.OptString(m, key, p)
	if err != nil {
		return msg, err
	}
	o, failed, err := ListResultContent(m["content"], field.Join(p, "content"))
	if err != nil {
		return msg, err
	}
	if legacy {
		o.Call.Name = ref
	} else {
		o.Call.ID = ref
	}
	msg.Role = dialect.RoleTool
	msg.Parts = []dialect.Part{{Kind: dialect.KindResult, Result: dialect.Result{Outcome: o, Failed: failed, Legacy: legacy}, Raw: v}}
	return msg, nil
}

// readMessage reads one Chat Completions message.
func readMessage(v any, p string) (dialect.Message, error) {
	m, role, err := dialect.ObjectMember(v, p, "role")
	if err != nil {
		return dialect.Message{}, err
	}
	var msg dialect.Message
	switch role {
	case "function":
		// the deprecated function-calling reply: the answer to the
		// assistant message's function_call before it, by name
		return resultMessage(v, m, p, "name", true)
	case "tool":
		return resultMessage(v, m, p, "tool_call_id", false)
	default:
		r, ok := chatRole(role)
		if !ok {
			return dialect.UnknownRole(v), nil
		}
		msg.Role = r
	}
	parts, err := ListContent(m["content"], field.Join(p, "content"))
	if err != nil {
		return msg, err
	}
	msg.Parts = parts
	if msg.Role != dialect.RoleAssistant {
		return msg, nil
	}
	if fc, ok, err := field.Get[map[string]any](m, "function_call", p); err != nil {
		return msg, err
	} else if ok {
		// the deprecated function calling: one call, no id
		name, args, err := dialect.TwoStrings(fc, field.Join(p, "function_call"), "name", "arguments")
		if err != nil {
			return msg, err
		}
		msg.Parts = append(msg.Parts, dialect.Part{Kind: dialect.KindCall, Call: dialect.Call{Name: name, ArgsText: args, Legacy: true}, Raw: fc})
	}
	calls, _, err := field.Get[[]any](m, "tool_calls", p)
	if err != nil {
		return msg, err
	}
	for j, cv := range calls {
		cp := field.Index(field.Join(p, "tool_calls"), j)
		cm, id, err := dialect.ObjectMember(cv, cp, "id")
		if err != nil {
			return msg, err
		}
		fn, ok, err := field.Get[map[string]any](cm, "function", cp)
		if err != nil {
			return msg, err
		}
		if !ok {
			msg.Parts = append(msg.Parts, dialect.Other(cv))
			continue
		}
		fp := field.Join(cp, "function")
		name, args, err := dialect.TwoStrings(fn, fp, "name", "arguments")
		if err != nil {
			return msg, err
		}
		msg.Parts = append(msg.Parts, dialect.Part{Kind: dialect.KindCall, Call: dialect.Call{ID: id, Name: name, ArgsText: args}, Raw: cv})
	}
	return msg, nil
}

// takesMedia says why a Chat Completions tool result cannot carry a media
// block: its tool messages carry text only, and the one user message after
// them carries images (image_url takes a URL or a data URL,
// ChatCompletionRequestMessageContentPartImage) and no document.
func takesMedia(b outcome.Block) string {
	switch {
	case b.Type == "document":
		return "Chat Completions tool messages carry text, and only images follow them"
	case b.URL != "":
		return ""
	case !outcome.ValidBase64(b.Data):
		return "its data is not standard base64"
	}
	if _, ok := outcome.ImageFormat(b.MediaType); !ok {
		return "OpenAI takes png, jpeg, gif and webp images"
	}
	return ""
}

// ListContent reads a string, null or an array of content parts.
func ListContent(v any, p string) ([]dialect.Part, error) {
	switch c := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []dialect.Part{{Kind: dialect.KindText, Text: c}}, nil
	case []any:
		parts := make([]dialect.Part, 0, len(c))
		for i, e := range c {
			ep := field.Index(p, i)
			em, typ, err := dialect.ObjectMember(e, ep, "type")
			if err != nil {
				return nil, err
			}
			switch typ {
			case "text", "input_text", "output_text":
				t, err := dialect.OptString(em, "text", ep)
				if err != nil {
					return nil, err
				}
				parts = append(parts, dialect.Part{Kind: dialect.KindText, Text: t, Raw: e})
			case "image_url":
				iu, _, err := field.Get[map[string]any](em, "image_url", ep)
				if err != nil {
					return nil, err
				}
				u, err := dialect.OptString(iu, "url", field.Join(ep, "image_url"))
				if err != nil {
					return nil, err
				}
				parts = append(parts, dialect.ImagePart(u, e))
			case "input_image":
				u, err := dialect.OptString(em, "image_url", ep)
				if err != nil {
					return nil, err
				}
				if u == "" {
					parts = append(parts, dialect.Other(e))
					continue
				}
				parts = append(parts, dialect.ImagePart(u, e))
			default:
				parts = append(parts, dialect.Other(e))
			}
		}
		return parts, nil
	}
	return nil, field.NewError(p, "must be a string, an array or null, got "+field.TypeName(v))
}

// ListResultContent reads the content of a tool message or the output of a
// function_call_output: a string (an envelope when it is one) or text and
// image parts.
func ListResultContent(v any, p string) (outcome.Outcome, bool, error) {
	if s, ok := v.(string); ok {
		o, failed := dialect.TextOutcome(s, outcome.Unflagged)
		return o, failed, nil
	}
	parts, err := ListContent(v, p)
	if err != nil {
		return outcome.Outcome{}, false, err
	}
	o, failed := dialect.BlocksOutcome(dialect.PartsBlocks(parts), outcome.Unflagged)
	return o, failed, nil
}

// writeMessage writes one neutral message as Chat Completions messages:
// its results as tool messages first, then the message itself.
func writeMessage(w *dialect.Writer, m dialect.Message) []any {
	results, calls, rest := dialect.Split(m.Parts)
	out := make([]any, 0, len(results)+1)
	for _, r := range results {
		if r.Result.Legacy {
			out = append(out, legacyReply(w, r))
			continue
		}
		out = append(out, w.Result(r))
	}
	switch m.Role {
	case dialect.RoleOther:
		for _, p := range rest {
			if v, ok := w.Raw(p); ok {
				out = append(out, v)
			} else {
				w.Drop(p)
			}
		}
		return out
	case dialect.RoleTool:
		return out
	case dialect.RoleAssistant:
		b := w.Base(m.Raw)
		b["role"] = "assistant"
		if !w.Same {
			if t := dialect.TextOf(rest); !outcome.IsBlank(t) {
				b["content"] = t
			} else {
				b["content"] = nil
			}
			DropOthers(w, rest)
		}
		if len(calls) > 0 {
			tc := make([]any, 0, len(calls))
			for _, c := range calls {
				if c.Call.Legacy {
					if !w.Same {
						b["function_call"] = map[string]any{"name": c.Call.Name, "arguments": c.Call.Text()}
					}
					continue // the message's own function_call member (Base keeps it)
				}
				if v, ok := w.Raw(c); ok {
					tc = append(tc, v)
					continue
				}
				cb := w.Base(c.Raw)
				cb["id"] = c.Call.ID
				cb["type"] = "function"
				fn := dialect.Clone(cb["function"])
				fn["name"] = c.Call.Name
				if _, ok := fn["arguments"]; !ok || !w.Same {
					fn["arguments"] = c.Call.Text()
				}
				cb["function"] = fn
				tc = append(tc, cb)
			}
			if len(tc) > 0 {
				b["tool_calls"] = tc
			}
		} else {
			delete(b, "tool_calls")
		}
		return append(out, b)
	}
	if len(rest) == 0 && (len(results) > 0 || m.Role == dialect.RoleUser) {
		return out
	}
	b := w.Base(m.Raw)
	b["role"] = string(m.Role)
	if !w.Same || b["content"] == nil {
		b["content"] = ChatParts(w, rest, m.Role == dialect.RoleSystem)
	}
	return append(out, b)
}

// legacyReply writes the answer to a deprecated function_call: a message of
// role "function" naming the function, its content the result's text (an
// envelope for a failure, as a tool message carries it).
//
// See the OpenAI OpenAPI spec, ChatCompletionRequestFunctionMessage
// (deprecated).
func legacyReply(w *dialect.Writer, p dialect.Part) any {
	if v, ok := w.Raw(p); ok {
		return v
	}
	o := p.Result.Outcome
	if p.Result.Failed && o.Error == nil {
		e := dialect.Failure(p.Result)
		o.Error = &e
	}
	text := dialect.ResultText(o)
	if outcome.IsBlank(text) {
		text = outcome.EmptyPlaceholder
	}
	return map[string]any{"role": "function", "name": o.Call.Name, "content": text}
}

// ChatParts writes user or system content: one string, or parts when there
// is an image.
func ChatParts(w *dialect.Writer, parts []dialect.Part, textOnly bool) any {
	hasImage := false
	for _, p := range parts {
		hasImage = hasImage || p.Kind == dialect.KindImage
	}
	if !hasImage || textOnly {
		DropOthers(w, parts)
		return dialect.TextOf(parts)
	}
	arr := make([]any, 0, len(parts))
	for _, p := range parts {
		switch p.Kind {
		case dialect.KindText:
			arr = append(arr, map[string]any{"type": "text", "text": p.Text})
		case dialect.KindImage:
			arr = append(arr, map[string]any{"type": "image_url", "image_url": map[string]any{"url": p.Image.URLForm()}})
		default:
			w.Drop(p)
		}
	}
	return arr
}

// DropOthers counts as dropped the parts a text-only place cannot carry:
// parts toolerr does not model, and images except in Chat Completions
// (whose images travel in a user message of their own).
func DropOthers(w *dialect.Writer, parts []dialect.Part) {
	for _, p := range parts {
		if p.Kind == dialect.KindOther || (p.Kind == dialect.KindImage && w.D.Name != Name) {
			w.Drop(p)
		}
	}
}
