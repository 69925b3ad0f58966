package gemini

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"strings"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Name is the wire-format name of this package.
const Name = "gemini"

// Dialect is the transcript dialect of generateContent contents: one
// content right after the call turn holds exactly one functionResponse per
// functionCall and nothing else; functionResponse.name equals the call's;
// ids are optional (a response without one pairs by name and order); a
// failure is the "error" key of response; empty user text is rejected.
//
// See googleapis google/ai/generativelanguage/v1beta/content.proto
// (FunctionCall, FunctionResponse) and google.golang.org/genai
// FunctionResponse.
//
// It is the package's one table, shared by every caller: read it, never
// change it (format.Dialect hands out copies to change).
func Dialect() *dialect.Dialect { return &dialectTable }

// dialectTable is the Dialect, built once and never changed (see
// dialect.Dialect.Copy).
var dialectTable = dialect.Dialect{
	Name: Name, Read: readContent, Write: writeContent, Serialize: Codec().Serialize, Elem: Codec().Elem,
	CallID:     dialect.Member{In: "functionCall", Key: "id"},
	ResultID:   dialect.Member{In: "functionResponse", Key: "id"},
	ResultName: dialect.Member{In: "functionResponse", Key: "name"},
	// No Flag: the failure flag is the "error" key of response, whose
	// value is the envelope object (content.proto FunctionResponse;
	// the README's wire-format table), so a flagged failure that is not
	// an envelope reaches Gemini as its TOOL_ERROR envelope, as it
	// reaches OpenAI (dialect.Writer.Result).
	Flagged: func(elem map[string]any) bool {
		fr, _ := elem["functionResponse"].(map[string]any)
		r, _ := fr["response"].(map[string]any)
		_, ok := r["error"]
		return ok
	},
	Placement: dialect.NextContent,
	// The generateContent API took three responses in three consecutive
	// contents (crewAIInc/crewAI cassette
	// TestGeminiNativeToolCalling.test_gemini_parallel_native_tool_calling,
	// gemini-2.5-flash, HTTP 200); the families below answer 400.
	SplitResponses: true,
	Lint:           lint,
	Takes:          Takes,
	ForModel:       forModel,
	PartsKey:       "parts",
	IDs:            dialect.IDRule{Charset: dialect.AnyChar, Min: 0, Text: "A tool call id is required."},
	RoleNames:      "user and model",
	Unanswered:     "Every functionCall needs a functionResponse in the next content.",
	EmptyText:      func(m dialect.Message) bool { return m.Role == dialect.RoleUser },
	Lost: func(l dialect.Loss, m dialect.Message) {
		dialect.CountLost(l, m, " role parts ", func(p dialect.Part) {
			b := l.Check(p.Raw, " text inlineData functionCall functionResponse thought ", "")
			l.Check(b["functionCall"], " id name args ", "functionCall.")
			l.Check(b["functionResponse"], " id name response parts ", "functionResponse.")
			l.Check(b["inlineData"], " mimeType data ", "inlineData.")
		})
	},
}

// forModel applies the rules of the model families that answer a 400
// INVALID_ARGUMENT ("Please ensure that the number of function response
// parts is equal to the number of function call parts of the function call
// turn") to responses spread over several contents: gemini-2.0
// (microsoft/semantic-kernel#12528) and gemini-3
// (cloudwego/eino-ext#571). Other models take them spread (the default).
// The docs ask for one content: https://ai.google.dev/gemini-api/docs/function-calling#parallel_function_calling.
func forModel(d *dialect.Dialect, model string) {
	if strings.Contains(model, "gemini-2.0") || strings.Contains(model, "gemini-3") {
		d.SplitResponses = false
	}
}

// roles maps the role names of contents to neutral roles: "" (a content
// without a role), "function" and "tool" are the user side.
func roles() map[string]dialect.Role {
	return map[string]dialect.Role{"user": dialect.RoleUser, "": dialect.RoleUser, "function": dialect.RoleUser, "tool": dialect.RoleUser, "model": dialect.RoleAssistant}
}

// readContent reads one content of a list.
//
// A part holding more than one data field (text beside a functionCall, say)
// is not a Part the API takes (Part.data is a oneof); it is read as one
// part per data field, each marked Split, so that nothing it holds is lost
// and repair writes them apart (see splitPart).
func readContent(v any, p string) (dialect.Message, error) {
	msg, err := dialect.ReadRoleMessage(v, p, roles(), "parts", readListPart)
	if err != nil || msg.UnknownRole {
		return msg, err
	}
	raws, _ := v.(map[string]any)["parts"].([]any)
	var out []dialect.Part
	for j, raw := range raws {
		pm, _ := raw.(map[string]any)
		if len(DataFields(pm)) < 2 {
			out = append(out, msg.Parts[j])
			continue
		}
		for _, one := range splitPart(pm) {
			pt, err := readListPart(one, field.Index(field.Join(p, "parts"), j))
			if err != nil {
				return msg, err
			}
			pt.Split = true
			out = append(out, pt)
		}
	}
	if out != nil && len(out) != len(msg.Parts) {
		msg.Parts = out
	}
	return msg, nil
}

// splitPart returns one part per data field of pm, in content.proto's
// order of the oneof (text first, then media, then a functionCall or
// functionResponse): thought (which says what a text is) stays with the
// text, every other member that is not data (thoughtSignature, which
// Gemini attaches to the call it signs) with the last of them.
func splitPart(pm map[string]any) []any {
	fs := DataFields(pm)
	out := make([]any, len(fs))
	for i, f := range fs {
		one := map[string]any{f: pm[f]}
		if f == "text" {
			if th, ok := pm["thought"]; ok {
				one["thought"] = th
			}
		}
		if i == len(fs)-1 {
			for k, v := range pm {
				if !isData(k) && k != "thought" {
					one[k] = v
				}
			}
		}
		out[i] = one
	}
	return out
}

// isData reports whether k is a member of Part's oneof data.
func isData(k string) bool {
	for _, f := range dataFields {
		if f == k {
			return true
		}
	}
	return false
}

// readListPart reads one part of a content.
func readListPart(v any, p string) (dialect.Part, error) {
	b, err := field.As[map[string]any](v, p)
	if err != nil {
		return dialect.Part{}, err
	}
	if th, _ := b["thought"].(bool); th {
		return dialect.Other(v), nil
	}
	if fc, ok, err := field.Get[map[string]any](b, "functionCall", p); err != nil {
		return dialect.Part{}, err
	} else if ok {
		fp := field.Join(p, "functionCall")
		id, name, err := dialect.TwoStrings(fc, fp, "id", "name")
		if err != nil {
			return dialect.Part{}, err
		}
		return dialect.Part{Kind: dialect.KindCall, Call: dialect.Call{ID: id, Name: name, Args: fc["args"]}, Raw: v}, nil
	}
	if fr, ok, err := field.Get[map[string]any](b, "functionResponse", p); err != nil {
		return dialect.Part{}, err
	} else if ok {
		return readListResponse(fr, field.Join(p, "functionResponse"), v)
	}
	if t, ok := b["text"].(string); ok {
		return dialect.Part{Kind: dialect.KindText, Text: t, Raw: v}, nil
	}
	if d, ok := b["inlineData"].(map[string]any); ok {
		mt, _ := d["mimeType"].(string)
		data, _ := d["data"].(string)
		if strings.HasPrefix(mt, "image/") && data != "" {
			return dialect.Part{Kind: dialect.KindImage, Image: dialect.Image{MediaType: mt, Data: data}, Raw: v}, nil
		}
	}
	return dialect.Other(v), nil
}

// readListResponse reads a functionResponse part.
func readListResponse(fr map[string]any, p string, raw any) (dialect.Part, error) {
	id, name, err := dialect.TwoStrings(fr, p, "id", "name")
	if err != nil {
		return dialect.Part{}, err
	}
	resp, _, err := field.Get[map[string]any](fr, "response", p)
	if err != nil {
		return dialect.Part{}, err
	}
	var o outcome.Outcome
	failed := false
	if ev, ok := resp["error"]; ok {
		failed = true
		o, _ = dialect.ValueOutcome(ev, outcome.Flagged)
	} else if ov, ok := resp["output"]; ok && len(resp) == 1 {
		o, failed = dialect.ValueOutcome(ov, outcome.Unflagged)
	} else if len(resp) == 0 {
		o = outcome.Outcome{Result: &outcome.Result{Kind: outcome.Empty}}
	} else {
		// The whole response as the value: an object that is exactly an
		// envelope (a gateway that put the five fields at the top of
		// response, without the error key) is that failure, as it is
		// under output; any other object is the result.
		o, failed = dialect.ValueOutcome(resp, outcome.Unflagged)
	}
	if frParts, ok := fr["parts"].([]any); ok && len(frParts) > 0 && o.Error == nil {
		bs := []outcome.Block{}
		if t := dialect.ResultText(o); t != "" {
			bs = append(bs, outcome.Block{Type: "text", Text: t})
		}
		for _, fp := range frParts {
			d, _ := fp.(map[string]any)["inlineData"].(map[string]any)
			mt, _ := d["mimeType"].(string)
			data, _ := d["data"].(string)
			if mt != "" && data != "" {
				typ := "image"
				if !strings.HasPrefix(mt, "image/") {
					typ = "document"
				}
				bs = append(bs, outcome.Block{Type: typ, MediaType: mt, Data: data})
			} else {
				bs = append(bs, outcome.Block{Type: "text", Text: dialect.DescribeOther(fp)})
			}
		}
		o.Result = &outcome.Result{Kind: outcome.Blocks, Blocks: bs}
	}
	o.Call = outcome.Call{ID: id, Name: name}
	return dialect.Part{Kind: dialect.KindResult, Result: dialect.Result{Outcome: o, Failed: failed}, Raw: raw}, nil
}

// writeContent writes one neutral message as contents: responses travel
// alone in their content, the rest follows in one of its own.
func writeContent(w *dialect.Writer, m dialect.Message) []any {
	switch m.Role {
	case dialect.RoleOther:
		return w.Others(m)
	case dialect.RoleSystem:
		return w.ToSystem(m)
	}
	role := "user"
	if m.Role == dialect.RoleAssistant {
		role = "model"
	}
	if n := countResults(m.Parts); n > 0 && n < len(m.Parts) && !w.Same {
		// Responses travel alone in their content
		// (microsoft/semantic-kernel#12528); the rest follows.
		results := make([]dialect.Part, 0, n)
		rest := make([]dialect.Part, 0, len(m.Parts)-n)
		for _, p := range m.Parts {
			if p.Kind == dialect.KindResult {
				results = append(results, p)
			} else {
				rest = append(rest, p)
			}
		}
		return append(writeContent(w, dialect.Message{Role: dialect.RoleTool, Parts: results}), writeContent(w, dialect.Message{Role: m.Role, Parts: rest})...)
	}
	return w.Message(m, role, "parts", dialect.ElemCodec{
		Text: func(t string) any { return map[string]any{"text": t} },
		Image: func(im dialect.Image) any {
			if im.URL != "" {
				return dialect.URLText(im)
			}
			return map[string]any{"inlineData": map[string]any{"mimeType": im.MediaType, "data": im.Data}}
		},
		Call: func(p dialect.Part) any {
			b := w.Base(p.Raw)
			fc := w.Base(b["functionCall"])
			if p.Call.ID != "" {
				fc["id"] = p.Call.ID
			}
			fc["name"] = p.Call.Name
			fc["args"] = w.Input(p)
			b["functionCall"] = fc
			return b
		},
		// the same parts as canonical JSON, members in RFC 8785 order
		AppendText: func(dst []byte, t string) []byte {
			return append(canonical.AppendString(append(dst, `{"text":`...), t), '}')
		},
		AppendCall: func(dst []byte, p dialect.Part, in []byte) []byte {
			dst = append(append(dst, `{"functionCall":{"args":`...), in...)
			if p.Call.ID != "" {
				dst = canonical.AppendString(append(dst, `,"id":`...), p.Call.ID)
			}
			return append(canonical.AppendString(append(dst, `,"name":`...), p.Call.Name), "}}"...)
		},
	})
}

// countResults is how many of parts are results.
func countResults(parts []dialect.Part) int {
	n := 0
	for _, p := range parts {
		if p.Kind == dialect.KindResult {
			n++
		}
	}
	return n
}
