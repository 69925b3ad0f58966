package bedrock

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"strings"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Name is the wire-format name of this package.
const Name = "bedrock"

// Dialect is the transcript dialect of Converse message lists: every
// toolResult in the very next user message, before any other block, status
// "error" on a failure; toolUseId is 1 to 64 of [a-zA-Z0-9_-]; blank text
// blocks in user and assistant messages are rejected.
//
// See the botocore service model bedrock-runtime 2023-09-30 (Message,
// ContentBlock, ToolUseBlock, ToolResultBlock) and
// https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use.html.
//
// It is the package's one table, shared by every caller: read it, never
// change it (format.Dialect hands out copies to change).
func Dialect() *dialect.Dialect { return &dialectTable }

// dialectTable is the Dialect, built once and never changed (see
// dialect.Dialect.Copy).
var dialectTable = dialect.Dialect{
	Name: Name, Read: readMessage, Write: writeMessage, Serialize: Codec().Serialize, Elem: Codec().Elem,
	CallID:   dialect.Member{In: "toolUse", Key: "toolUseId"},
	ResultID: dialect.Member{In: "toolResult", Key: "toolUseId"},
	Flag: func(elem map[string]any, _ outcome.Outcome) {
		dialect.Member{In: "toolResult", Key: "status"}.Set(elem, "error")
	},
	Flagged: func(elem map[string]any) bool {
		r, _ := elem["toolResult"].(map[string]any)
		return r["status"] == "error"
	},
	Placement: dialect.NextUserFirst,
	Lint:      lint,
	CapNames:  " tool_result_status ",
	Takes:     Takes,
	ForModel:  forModel,
	PartsKey:  "content",
	IDs:       dialect.IDRule{Charset: dialect.Word, Min: 1, Max: MaxToolUseIDLen, Text: "Bedrock toolUseId is 1 to 64 characters of [a-zA-Z0-9_-]."},
	// service model ToolName: 1-64 of [a-zA-Z0-9_-]
	Names:      dialect.IDRule{Charset: dialect.Word, Min: 1, Max: 64, Text: "Bedrock tool names are 1 to 64 characters of [a-zA-Z0-9_-]."},
	RoleNames:  "user and assistant",
	Unanswered: "Every toolUse needs a toolResult in the very next user message.",
	EmptyText:  func(m dialect.Message) bool { return m.Role == dialect.RoleUser || m.Role == dialect.RoleAssistant },
	Lost: func(l dialect.Loss, m dialect.Message) {
		dialect.CountLost(l, m, " role content ", func(p dialect.Part) {
			b := l.Check(p.Raw, " text image toolUse toolResult ", "")
			l.Check(b["toolUse"], " toolUseId name input ", "toolUse.")
			l.Check(b["toolResult"], " toolUseId status content ", "toolResult.")
			l.Check(b["image"], " format source ", "image.")
		})
	},
}

// forModel writes no toolResult.status for a model that does not take it
// (StatusOn): a failure then travels in the content alone, as the envelope
// it always carries, or, for a flagged failure that is not one, as a
// TOOL_ERROR envelope in place of its text (no Flag), so that the model
// still reads that the call failed.
func forModel(d *dialect.Dialect, _ string) {
	if StatusOn(d) {
		return
	}
	d.Flag, d.Flagged = nil, nil
	d.Elem = nil // it would write the status: the writer takes Serialize's trees
	serialize := d.Serialize
	d.Serialize = func(outs []outcome.Outcome) ([]any, error) {
		msgs, err := serialize(outs)
		for _, m := range msgs {
			content, _ := m.(map[string]any)["content"].([]any)
			for _, b := range content {
				if tr, ok := b.(map[string]any)["toolResult"].(map[string]any); ok {
					delete(tr, "status")
				}
			}
		}
		return msgs, err
	}
}

// StatusOn reports whether toolResult.status is sent to the model of d:
// the caller's capability tool_result_status when given, else what the
// model id says (StatusSupported; no model: sent).
func StatusOn(d *dialect.Dialect) bool {
	if on, ok := d.Caps["tool_result_status"]; ok {
		return on
	}
	return StatusSupported(d.Model)
}

// roles maps the role names of a Converse list to neutral roles.
func roles() map[string]dialect.Role {
	return map[string]dialect.Role{"user": dialect.RoleUser, "assistant": dialect.RoleAssistant, "system": dialect.RoleSystem}
}

// readMessage reads one Converse message.
func readMessage(v any, p string) (dialect.Message, error) {
	return dialect.ReadRoleMessage(v, p, roles(), "content", readBlock)
}

// readBlock reads one content block.
func readBlock(v any, p string) (dialect.Part, error) {
	b, err := field.As[map[string]any](v, p)
	if err != nil {
		return dialect.Part{}, err
	}
	if t, ok := b["text"].(string); ok && len(b) == 1 {
		return dialect.Part{Kind: dialect.KindText, Text: t, Raw: v}, nil
	}
	if im, ok := b["image"].(map[string]any); ok && len(b) == 1 {
		if img, ok := readImage(im); ok {
			return dialect.Part{Kind: dialect.KindImage, Image: img, Raw: v}, nil
		}
	}
	if tu, ok, err := dialect.PresentObj(b, "toolUse", p); err != nil {
		return dialect.Part{}, err
	} else if ok {
		tp := field.Join(p, "toolUse")
		id, name, err := dialect.TwoStrings(tu, tp, "toolUseId", "name")
		if err != nil {
			return dialect.Part{}, err
		}
		return dialect.Part{Kind: dialect.KindCall, Call: dialect.Call{ID: id, Name: name, Args: tu["input"]}, Raw: v}, nil
	}
	if tr, ok, err := dialect.PresentObj(b, "toolResult", p); err != nil {
		return dialect.Part{}, err
	} else if ok {
		tp := field.Join(p, "toolResult")
		id, status, err := dialect.TwoStrings(tr, tp, "toolUseId", "status")
		if err != nil {
			return dialect.Part{}, err
		}
		content, _, err := field.Get[[]any](tr, "content", tp)
		if err != nil {
			return dialect.Part{}, err
		}
		var o outcome.Outcome
		env, flag := false, outcome.FlagOf(status == "error")
		if len(content) == 1 {
			if jv, ok := content[0].(map[string]any)["json"]; ok {
				o, env = dialect.ValueOutcome(jv, flag)
				if w, ok := jv.(map[string]any); ok && o.Error == nil && len(w) == 1 {
					if inner, ok := w["error"]; ok {
						if io, isEnv := dialect.ValueOutcome(inner, flag); isEnv {
							o, env = io, true
						}
					}
				}
			}
		}
		if o.Error == nil && o.Result == nil {
			bs := make([]outcome.Block, 0, len(content))
			for _, cv := range content {
				cm, _ := cv.(map[string]any)
				if t, ok := cm["text"].(string); ok {
					bs = append(bs, outcome.Block{Type: "text", Text: t})
				} else if im, ok := cm["image"].(map[string]any); ok {
					if img, ok := readImage(im); ok {
						bs = append(bs, outcome.Block{Type: "image", MediaType: img.MediaType, Data: img.Data})
					} else {
						bs = append(bs, outcome.Block{Type: "text", Text: dialect.DescribeOther(cv)})
					}
				} else if jv, ok := cm["json"]; ok {
					bs = append(bs, outcome.Block{Type: "text", Text: outcome.JSONText(jv)})
				} else if b, err := parseDocument(cm["document"], ""); err == nil {
					bs = append(bs, b)
				} else {
					bs = append(bs, outcome.Block{Type: "text", Text: dialect.DescribeOther(cv)})
				}
			}
			o, env = dialect.BlocksOutcome(bs, flag)
		}
		o.Call.ID = id
		return dialect.Part{Kind: dialect.KindResult, Result: dialect.Result{Outcome: o, Failed: status == "error" || env}, Raw: v}, nil
	}
	return dialect.Other(v), nil
}

// readImage reads an image block (format and source bytes).
func readImage(im map[string]any) (dialect.Image, bool) {
	f, _ := im["format"].(string)
	src, _ := im["source"].(map[string]any)
	data, _ := src["bytes"].(string)
	if f == "" || data == "" {
		return dialect.Image{}, false
	}
	return dialect.Image{MediaType: "image/" + f, Data: data}, true
}

// writeMessage writes one neutral message as a Converse message.
func writeMessage(w *dialect.Writer, m dialect.Message) []any {
	switch m.Role {
	case dialect.RoleOther:
		return w.Others(m)
	case dialect.RoleSystem:
		if !w.Same {
			return w.ToSystem(m)
		}
	}
	role := "user"
	if m.Role == dialect.RoleAssistant {
		role = "assistant"
	} else if m.Role == dialect.RoleSystem {
		role = "system"
	}
	return w.Message(m, role, "content", dialect.ElemCodec{
		Text: func(t string) any { return map[string]any{"text": t} },
		Image: func(im dialect.Image) any {
			if im.URL != "" {
				return dialect.URLText(im)
			}
			return imageBlock(im.MediaType, im.Data)
		},
		Call: func(p dialect.Part) any {
			b := w.Base(p.Raw)
			tu := w.Base(b["toolUse"])
			tu["toolUseId"], tu["name"] = p.Call.ID, p.Call.Name
			tu["input"] = w.Input(p)
			b["toolUse"] = tu
			return b
		},
		// the same blocks as canonical JSON, members in RFC 8785 order
		AppendText: func(dst []byte, t string) []byte {
			return append(canonical.AppendString(append(dst, `{"text":`...), t), '}')
		},
		AppendCall: func(dst []byte, p dialect.Part, in []byte) []byte {
			dst = append(append(dst, `{"toolUse":{"input":`...), in...)
			dst = canonical.AppendString(append(dst, `,"name":`...), p.Call.Name)
			return append(canonical.AppendString(append(dst, `,"toolUseId":`...), p.Call.ID), "}}"...)
		},
	})
}

// imageBlock is an image content block.
func imageBlock(media, data string) map[string]any {
	return map[string]any{"image": map[string]any{"format": strings.TrimPrefix(media, "image/"), "source": map[string]any{"bytes": data}}}
}
