package anthropic

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Name is the wire-format name of this package.
const Name = "anthropic"

// Dialect is the transcript dialect of Messages API lists: every tool_result
// in the very next user message, before any other block, is_error on a
// failure; tool_use ids match ^[a-zA-Z0-9_-]+$; empty text blocks are
// rejected.
//
// See https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
// and anthropic-sdk-go ToolResultBlockParam, ToolUseBlockParam.
//
// It is the package's one table, shared by every caller: read it, never
// change it (format.Dialect hands out copies to change).
func Dialect() *dialect.Dialect { return &dialectTable }

// dialectTable is the Dialect, built once and never changed (see
// dialect.Dialect.Copy).
var dialectTable = dialect.Dialect{
	Name: Name, Read: readMessage, Write: writeMessage, Serialize: Codec().Serialize, Elem: Codec().Elem,
	CallID: dialect.Member{Key: "id"}, ResultID: dialect.Member{Key: "tool_use_id"},
	Flag:    func(elem map[string]any, _ outcome.Outcome) { elem["is_error"] = true },
	Flagged: func(elem map[string]any) bool { return elem["is_error"] == true },
	// a tool's name matches ^[a-zA-Z0-9_-]{1,64}$ (tool use docs, Tool.name)
	Names:     dialect.IDRule{Charset: dialect.Word, Min: 1, Max: 64, Text: "Anthropic tool names match ^[a-zA-Z0-9_-]{1,64}$."},
	Placement: dialect.NextUserFirst,
	Takes:     Takes,
	PartsKey:  "content",
	// The published pattern (a 400 "String should match pattern" names
	// it); no documented length.
	IDs:         dialect.IDRule{Charset: dialect.Word, Min: 1, Text: "Anthropic tool_use ids match ^[a-zA-Z0-9_-]+$."},
	RoleNames:   "user and assistant",
	Unanswered:  "Every tool_use needs a tool_result in the very next user message.",
	EmptyResult: emptyResult,
	EmptyText:   func(dialect.Message) bool { return true },
	Lost: func(l dialect.Loss, m dialect.Message) {
		dialect.CountLost(l, m, " role content ", func(p dialect.Part) { lostPart(l, p) })
	},
}

// The members convert carries, per block (space separated, a space at each
// end); any other member is counted as dropped.
const (
	textKeys       = " type text "
	imageKeys      = " type source "
	toolUseKeys    = " type id name input "
	toolResultKeys = " type tool_use_id is_error content "
)

func lostPart(l dialect.Loss, p dialect.Part) {
	switch p.Kind {
	case dialect.KindText:
		l.Check(p.Raw, textKeys, "")
	case dialect.KindImage:
		l.Check(p.Raw, imageKeys, "")
	case dialect.KindCall:
		l.Check(p.Raw, toolUseKeys, "")
	case dialect.KindResult:
		content, _ := l.Check(p.Raw, toolResultKeys, "")["content"].([]any)
		for _, b := range content {
			l.Check(b, textKeys+"source ", "content[].")
		}
	}
}

// emptyResult reports a tool_result whose text is empty: a content string
// or a text block that is blank (omitted content is an empty result the API
// accepts).
func emptyResult(p *dialect.Part) bool {
	r := p.Result.Outcome.Result
	if raw, ok := p.Raw.(map[string]any); ok {
		if _, has := raw["content"]; !has {
			return false
		}
	}
	if r.Kind == outcome.Blocks {
		for _, b := range r.Blocks {
			if b.Type == "text" && outcome.IsBlank(b.Text) {
				return true
			}
		}
	}
	return r.Kind == outcome.Empty && p.Raw != nil
}

// roles maps the role names of a Messages API list to neutral roles; any
// other is unknown.
func roles() map[string]dialect.Role {
	return map[string]dialect.Role{"user": dialect.RoleUser, "assistant": dialect.RoleAssistant}
}

// readMessage reads one Messages API message.
func readMessage(v any, p string) (dialect.Message, error) {
	m, role, err := dialect.ObjectMember(v, p, "role")
	if err != nil {
		return dialect.Message{}, err
	}
	r, ok := roles()[role]
	if !ok {
		return dialect.UnknownRole(v), nil
	}
	msg := dialect.Message{Role: r}
	cp := field.Join(p, "content")
	switch c := m["content"].(type) {
	case string:
		msg.Parts = []dialect.Part{{Kind: dialect.KindText, Text: c}}
		return msg, nil
	case []any:
		msg.Parts, err = dialect.ReadParts(c, cp, readBlock)
		return msg, err
	case nil:
		if _, present := m["content"]; present {
			return msg, field.NewError(cp, "must be a string or an array, got null")
		}
		return msg, nil
	}
	return msg, field.NewError(cp, "must be a string or an array, got "+field.TypeName(m["content"]))
}

// readBlock reads one content block.
func readBlock(v any, p string) (dialect.Part, error) {
	b, typ, err := dialect.ObjectMember(v, p, "type")
	if err != nil {
		return dialect.Part{}, err
	}
	switch typ {
	case "text":
		t, err := dialect.OptString(b, "text", p)
		return dialect.Part{Kind: dialect.KindText, Text: t, Raw: v}, err
	case "image":
		im, ok := readImage(b)
		if !ok {
			return dialect.Other(v), nil
		}
		return dialect.Part{Kind: dialect.KindImage, Image: im, Raw: v}, nil
	case "tool_use":
		id, name, err := dialect.TwoStrings(b, p, "id", "name")
		if err != nil {
			return dialect.Part{}, err
		}
		return dialect.Part{Kind: dialect.KindCall, Call: dialect.Call{ID: id, Name: name, Args: b["input"]}, Raw: v}, nil
	case "tool_result":
		id, err := dialect.OptString(b, "tool_use_id", p)
		if err != nil {
			return dialect.Part{}, err
		}
		isErr, _, err := field.Get[bool](b, "is_error", p)
		if err != nil {
			return dialect.Part{}, err
		}
		var o outcome.Outcome
		var env bool
		cp := field.Join(p, "content")
		switch c := b["content"].(type) {
		case nil:
			o = outcome.Outcome{Result: &outcome.Result{Kind: outcome.Empty}}
		case string:
			o, env = dialect.TextOutcome(c, outcome.FlagOf(isErr))
		case []any:
			parts, err := dialect.ReadParts(c, cp, readBlock)
			if err != nil {
				return dialect.Part{}, err
			}
			o, env = dialect.BlocksOutcome(dialect.PartsBlocks(parts), outcome.FlagOf(isErr))
		default:
			return dialect.Part{}, field.NewError(cp, "must be a string or an array, got "+field.TypeName(b["content"]))
		}
		o.Call.ID = id
		return dialect.Part{Kind: dialect.KindResult, Result: dialect.Result{Outcome: o, Failed: isErr || env}, Raw: v}, nil
	}
	return dialect.Other(v), nil
}

// readImage reads an image block's source (base64 or url).
func readImage(b map[string]any) (dialect.Image, bool) {
	src, _ := b["source"].(map[string]any)
	switch src["type"] {
	case "base64":
		mt, _ := src["media_type"].(string)
		d, _ := src["data"].(string)
		return dialect.Image{MediaType: mt, Data: d}, mt != "" && d != ""
	case "url":
		u, _ := src["url"].(string)
		return dialect.Image{URL: u}, u != ""
	}
	return dialect.Image{}, false
}

// writeMessage writes one neutral message as a Messages API message.
func writeMessage(w *dialect.Writer, m dialect.Message) []any {
	switch m.Role {
	case dialect.RoleOther:
		return w.Others(m)
	case dialect.RoleSystem:
		return w.ToSystem(m)
	}
	role := "user"
	if m.Role == dialect.RoleAssistant {
		role = "assistant"
	}
	return w.Message(m, role, "content", dialect.ElemCodec{
		Text:  func(t string) any { return map[string]any{"type": "text", "text": t} },
		Image: imageBlock,
		Call: func(p dialect.Part) any {
			b := w.Base(p.Raw)
			in := w.Input(p)
			b["type"], b["id"], b["name"], b["input"] = "tool_use", p.Call.ID, p.Call.Name, in
			return b
		},
		// the same blocks as canonical JSON, members in RFC 8785 order
		AppendText: func(dst []byte, t string) []byte {
			return append(canonical.AppendString(append(dst, `{"text":`...), t), `,"type":"text"}`...)
		},
		AppendCall: func(dst []byte, p dialect.Part, in []byte) []byte {
			dst = append(append(canonical.AppendString(append(dst, `{"id":`...), p.Call.ID), `,"input":`...), in...)
			return append(canonical.AppendString(append(dst, `,"name":`...), p.Call.Name), `,"type":"tool_use"}`...)
		},
	})
}

// imageBlock is an image content block.
func imageBlock(im dialect.Image) any {
	if im.URL != "" {
		return map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": im.URL}}
	}
	return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": im.MediaType, "data": im.Data}}
}
