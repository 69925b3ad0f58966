package transcript

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Read reads the message list of format f, the "messages" member of a
// request, into the neutral model; see ReadList.
func Read(f Format, msgs []any) ([]Message, error) { return ReadList(f, msgs, "messages") }

// ReadList reads the message list msgs of format f, found at path in the
// request, into the neutral model. A member toolerr models but of the wrong
// JSON type is a *field.Error whose path starts at path
// ("messages[2].content"); anything it does not model is kept as Other.
func ReadList(f Format, msgs []any, path string) ([]Message, error) {
	out := make([]Message, 0, len(msgs))
	for i, v := range msgs {
		p := field.Index(path, i)
		var m Message
		var err error
		switch f {
		case OpenAIChat:
			m, err = readChat(v, p)
		case OpenAIResponses:
			m, err = readResponses(v, p)
		case Anthropic:
			m, err = readAnthropic(v, p)
		case Gemini:
			m, err = readGemini(v, p)
		case Bedrock:
			m, err = readBedrock(v, p)
		default:
			return nil, field.NewError("format", "unknown transcript format "+string(f))
		}
		if err != nil {
			return nil, err
		}
		m.Raw = v
		out = append(out, m)
	}
	return out, nil
}

func other(v any) Part { return Part{Kind: KindOther, Raw: v} }

// unknownRole is a message whose role its format does not know: kept as is
// (RoleOther) and reported by check.
func unknownRole(v any) Message {
	return Message{Parts: []Part{other(v)}, UnknownRole: true}
}

// readParts reads the elements of an array member (content blocks, parts)
// with one, each at its own path.
func readParts(arr []any, p string, one func(v any, p string) (Part, error)) ([]Part, error) {
	parts := make([]Part, 0, len(arr))
	for i, v := range arr {
		pt, err := one(v, field.Index(p, i))
		if err != nil {
			return nil, err
		}
		parts = append(parts, pt)
	}
	return parts, nil
}

// roles maps the role names of f's messages that toolerr models to neutral
// roles (openai-chat's "tool" and "function" are read apart); any other role
// is unknown (unknown_role).
func roles(f Format) map[string]Role {
	switch f {
	case OpenAIChat, OpenAIResponses:
		return map[string]Role{"system": RoleSystem, "developer": RoleSystem, "user": RoleUser, "assistant": RoleAssistant}
	case Gemini:
		return map[string]Role{"user": RoleUser, "": RoleUser, "function": RoleUser, "tool": RoleUser, "model": RoleAssistant}
	case Bedrock:
		return map[string]Role{"user": RoleUser, "assistant": RoleAssistant, "system": RoleSystem}
	}
	return map[string]Role{"user": RoleUser, "assistant": RoleAssistant}
}

// readList reads the array member key of m (null refused, see presentArray)
// element by element with one.
func readList(m map[string]any, key, p string, one func(v any, p string) (Part, error)) ([]Part, error) {
	arr, err := presentArray(m, key, p)
	if err != nil {
		return nil, err
	}
	return readParts(arr, field.Join(p, key), one)
}

// objectMember reads v as an object and its optional string member key (a
// message's role, a block's type).
func objectMember(v any, p, key string) (map[string]any, string, error) {
	m, err := field.As[map[string]any](v, p)
	if err != nil {
		return nil, "", err
	}
	s, err := optString(m, key, p)
	return m, s, err
}

// twoStrings reads two optional string members of m (an id and a name, say).
func twoStrings(m map[string]any, p, k1, k2 string) (string, string, error) {
	a, err := optString(m, k1, p)
	if err != nil {
		return "", "", err
	}
	b, err := optString(m, k2, p)
	return a, b, err
}

// ---- openai-chat ----

func readChat(v any, p string) (Message, error) {
	m, role, err := objectMember(v, p, "role")
	if err != nil {
		return Message{}, err
	}
	var msg Message
	switch role {
	case "function":
		// the deprecated function-calling reply: accepted, not modelled
		msg.Parts = []Part{other(v)}
		return msg, nil
	case "tool":
		id, err := optString(m, "tool_call_id", p)
		if err != nil {
			return msg, err
		}
		o, failed, err := chatResultContent(m["content"], field.Join(p, "content"))
		if err != nil {
			return msg, err
		}
		o.Call.ID = id
		msg.Role = RoleTool
		msg.Parts = []Part{{Kind: KindResult, Result: Result{Outcome: o, Failed: failed}, Raw: v}}
		return msg, nil
	default:
		r, ok := roles(OpenAIChat)[role]
		if !ok {
			return unknownRole(v), nil
		}
		msg.Role = r
	}
	parts, err := chatContent(m["content"], field.Join(p, "content"))
	if err != nil {
		return msg, err
	}
	msg.Parts = parts
	if msg.Role != RoleAssistant {
		return msg, nil
	}
	calls, _, err := field.Get[[]any](m, "tool_calls", p)
	if err != nil {
		return msg, err
	}
	for j, cv := range calls {
		cp := field.Index(field.Join(p, "tool_calls"), j)
		cm, err := field.As[map[string]any](cv, cp)
		if err != nil {
			return msg, err
		}
		id, err := optString(cm, "id", cp)
		if err != nil {
			return msg, err
		}
		fn, ok, err := field.Get[map[string]any](cm, "function", cp)
		if err != nil {
			return msg, err
		}
		if !ok {
			msg.Parts = append(msg.Parts, other(cv))
			continue
		}
		fp := field.Join(cp, "function")
		name, args, err := twoStrings(fn, fp, "name", "arguments")
		if err != nil {
			return msg, err
		}
		msg.Parts = append(msg.Parts, Part{Kind: KindCall, Call: Call{ID: id, Name: name, ArgsText: args}, Raw: cv})
	}
	return msg, nil
}

// chatContent reads a string, null or an array of content parts.
func chatContent(v any, p string) ([]Part, error) {
	switch c := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []Part{{Kind: KindText, Text: c}}, nil
	case []any:
		parts := make([]Part, 0, len(c))
		for i, e := range c {
			ep := field.Index(p, i)
			em, err := field.As[map[string]any](e, ep)
			if err != nil {
				return nil, err
			}
			typ, err := optString(em, "type", ep)
			if err != nil {
				return nil, err
			}
			switch typ {
			case "text", "input_text", "output_text":
				t, err := optString(em, "text", ep)
				if err != nil {
					return nil, err
				}
				parts = append(parts, Part{Kind: KindText, Text: t, Raw: e})
			case "image_url":
				iu, _, err := field.Get[map[string]any](em, "image_url", ep)
				if err != nil {
					return nil, err
				}
				u, err := optString(iu, "url", field.Join(ep, "image_url"))
				if err != nil {
					return nil, err
				}
				parts = append(parts, imagePart(u, e))
			case "input_image":
				u, err := optString(em, "image_url", ep)
				if err != nil {
					return nil, err
				}
				if u == "" {
					parts = append(parts, other(e))
					continue
				}
				parts = append(parts, imagePart(u, e))
			default:
				parts = append(parts, other(e))
			}
		}
		return parts, nil
	}
	return nil, field.NewError(p, "must be a string, an array or null, got "+field.TypeName(v))
}

func imagePart(u string, raw any) Part {
	im, ok := parseDataURL(u)
	if !ok {
		im = Image{URL: u}
	}
	return Part{Kind: KindImage, Image: im, Raw: raw}
}

// chatResultContent reads the content of a tool message or the output of a
// function_call_output: a string (an envelope when it is one) or text and
// image parts.
func chatResultContent(v any, p string) (outcome.Outcome, bool, error) {
	if s, ok := v.(string); ok {
		o, failed := textOutcome(s)
		return o, failed, nil
	}
	parts, err := chatContent(v, p)
	if err != nil {
		return outcome.Outcome{}, false, err
	}
	o, failed := blocksOutcome(partsBlocks(parts))
	return o, failed, nil
}

// partsBlocks turns text and image parts into result blocks; anything else is
// described in text so that nothing vanishes.
func partsBlocks(parts []Part) []outcome.Block {
	bs := make([]outcome.Block, 0, len(parts))
	for _, pt := range parts {
		switch pt.Kind {
		case KindText:
			bs = append(bs, outcome.Block{Type: "text", Text: pt.Text})
		case KindImage:
			if pt.Image.URL != "" {
				bs = append(bs, outcome.Block{Type: "text", Text: "[image: " + pt.Image.URL + "]"})
			} else {
				bs = append(bs, outcome.Block{Type: "image", MediaType: pt.Image.MediaType, Data: pt.Image.Data})
			}
		default:
			bs = append(bs, outcome.Block{Type: "text", Text: describeOther(pt.Raw)})
		}
	}
	return bs
}

// describeOther names a block toolerr cannot carry across formats.
func describeOther(v any) string { return "[" + otherName(v) + " content not carried across formats]" }

// otherName is the name of a block toolerr does not model: its "type", else
// its first member name in sorted order (deterministic), passed through
// displayName since it ends up in result text and notes ("unknown" when
// that leaves nothing).
func otherName(v any) string {
	typ := ""
	if m, ok := v.(map[string]any); ok {
		if t, ok := m["type"].(string); ok {
			typ = t
		} else {
			for k := range m {
				if typ == "" || k < typ {
					typ = k
				}
			}
		}
	}
	if typ = displayName(typ); typ == "" {
		typ = "unknown"
	}
	return typ
}

// ---- openai-responses ----

func readResponses(v any, p string) (Message, error) {
	m, typ, err := objectMember(v, p, "type")
	if err != nil {
		return Message{}, err
	}
	switch typ {
	case "function_call":
		id, err := optString(m, "call_id", p)
		if err != nil {
			return Message{}, err
		}
		name, args, err := twoStrings(m, p, "name", "arguments")
		if err != nil {
			return Message{}, err
		}
		return Message{Role: RoleAssistant, Parts: []Part{{Kind: KindCall, Call: Call{ID: id, Name: name, ArgsText: args}, Raw: v}}}, nil
	case "function_call_output":
		id, err := optString(m, "call_id", p)
		if err != nil {
			return Message{}, err
		}
		o, failed, err := chatResultContent(m["output"], field.Join(p, "output"))
		if err != nil {
			return Message{}, err
		}
		o.Call.ID = id
		return Message{Role: RoleTool, Parts: []Part{{Kind: KindResult, Result: Result{Outcome: o, Failed: failed}, Raw: v}}}, nil
	case "", "message":
		role, err := optString(m, "role", p)
		if err != nil {
			return Message{}, err
		}
		r, ok := roles(OpenAIResponses)[role]
		if !ok {
			return unknownRole(v), nil
		}
		msg := Message{Role: r}
		msg.Parts, err = chatContent(m["content"], field.Join(p, "content"))
		return msg, err
	case "reasoning":
		return Message{Role: RoleAssistant, Parts: []Part{other(v)}}, nil
	}
	return Message{Parts: []Part{other(v)}}, nil
}

// ---- anthropic ----

func readAnthropic(v any, p string) (Message, error) {
	m, role, err := objectMember(v, p, "role")
	if err != nil {
		return Message{}, err
	}
	r, ok := roles(Anthropic)[role]
	if !ok {
		return unknownRole(v), nil
	}
	msg := Message{Role: r}
	cp := field.Join(p, "content")
	switch c := m["content"].(type) {
	case string:
		msg.Parts = []Part{{Kind: KindText, Text: c}}
		return msg, nil
	case []any:
		msg.Parts, err = readParts(c, cp, anthropicBlock)
		return msg, err
	case nil:
		if _, present := m["content"]; present {
			return msg, field.NewError(cp, "must be a string or an array, got null")
		}
		return msg, nil
	}
	return msg, field.NewError(cp, "must be a string or an array, got "+field.TypeName(m["content"]))
}

func anthropicBlock(v any, p string) (Part, error) {
	b, typ, err := objectMember(v, p, "type")
	if err != nil {
		return Part{}, err
	}
	switch typ {
	case "text":
		t, err := optString(b, "text", p)
		return Part{Kind: KindText, Text: t, Raw: v}, err
	case "image":
		im, ok := anthropicImage(b)
		if !ok {
			return other(v), nil
		}
		return Part{Kind: KindImage, Image: im, Raw: v}, nil
	case "tool_use":
		id, name, err := twoStrings(b, p, "id", "name")
		if err != nil {
			return Part{}, err
		}
		return Part{Kind: KindCall, Call: Call{ID: id, Name: name, Args: b["input"]}, Raw: v}, nil
	case "tool_result":
		id, err := optString(b, "tool_use_id", p)
		if err != nil {
			return Part{}, err
		}
		isErr, _, err := field.Get[bool](b, "is_error", p)
		if err != nil {
			return Part{}, err
		}
		var o outcome.Outcome
		var env bool
		cp := field.Join(p, "content")
		switch c := b["content"].(type) {
		case nil:
			o = outcome.Outcome{Result: &outcome.Result{Kind: outcome.Empty}}
		case string:
			o, env = textOutcome(c)
		case []any:
			parts, err := readParts(c, cp, anthropicBlock)
			if err != nil {
				return Part{}, err
			}
			o, env = blocksOutcome(partsBlocks(parts))
		default:
			return Part{}, field.NewError(cp, "must be a string or an array, got "+field.TypeName(b["content"]))
		}
		o.Call.ID = id
		return Part{Kind: KindResult, Result: Result{Outcome: o, Failed: isErr || env}, Raw: v}, nil
	}
	return other(v), nil
}

func anthropicImage(b map[string]any) (Image, bool) {
	src, _ := b["source"].(map[string]any)
	switch src["type"] {
	case "base64":
		mt, _ := src["media_type"].(string)
		d, _ := src["data"].(string)
		return Image{MediaType: mt, Data: d}, mt != "" && d != ""
	case "url":
		u, _ := src["url"].(string)
		return Image{URL: u}, u != ""
	}
	return Image{}, false
}

// ---- gemini ----

func readGemini(v any, p string) (Message, error) {
	m, role, err := objectMember(v, p, "role")
	if err != nil {
		return Message{}, err
	}
	r, ok := roles(Gemini)[role]
	if !ok {
		return unknownRole(v), nil
	}
	msg := Message{Role: r}
	msg.Parts, err = readList(m, "parts", p, geminiPart)
	return msg, err
}

func geminiPart(v any, p string) (Part, error) {
	b, err := field.As[map[string]any](v, p)
	if err != nil {
		return Part{}, err
	}
	if th, _ := b["thought"].(bool); th {
		return other(v), nil
	}
	if fc, ok, err := field.Get[map[string]any](b, "functionCall", p); err != nil {
		return Part{}, err
	} else if ok {
		fp := field.Join(p, "functionCall")
		id, name, err := twoStrings(fc, fp, "id", "name")
		if err != nil {
			return Part{}, err
		}
		return Part{Kind: KindCall, Call: Call{ID: id, Name: name, Args: fc["args"]}, Raw: v}, nil
	}
	if fr, ok, err := field.Get[map[string]any](b, "functionResponse", p); err != nil {
		return Part{}, err
	} else if ok {
		return geminiResponse(fr, field.Join(p, "functionResponse"), v)
	}
	if t, ok := b["text"].(string); ok {
		return Part{Kind: KindText, Text: t, Raw: v}, nil
	}
	if d, ok := b["inlineData"].(map[string]any); ok {
		mt, _ := d["mimeType"].(string)
		data, _ := d["data"].(string)
		if strings.HasPrefix(mt, "image/") && data != "" {
			return Part{Kind: KindImage, Image: Image{MediaType: mt, Data: data}, Raw: v}, nil
		}
	}
	return other(v), nil
}

func geminiResponse(fr map[string]any, p string, raw any) (Part, error) {
	id, name, err := twoStrings(fr, p, "id", "name")
	if err != nil {
		return Part{}, err
	}
	resp, _, err := field.Get[map[string]any](fr, "response", p)
	if err != nil {
		return Part{}, err
	}
	var o outcome.Outcome
	failed := false
	if ev, ok := resp["error"]; ok {
		failed = true
		o, _ = valueOutcome(ev)
	} else if ov, ok := resp["output"]; ok && len(resp) == 1 {
		o, failed = valueOutcome(ov)
	} else if len(resp) == 0 {
		o = outcome.Outcome{Result: &outcome.Result{Kind: outcome.Empty}}
	} else {
		o = outcome.Outcome{Result: &outcome.Result{Kind: outcome.JSON, JSON: resp}}
	}
	if frParts, ok := fr["parts"].([]any); ok && len(frParts) > 0 && o.Error == nil {
		bs := []outcome.Block{}
		if t := resultText(o); t != "" {
			bs = append(bs, outcome.Block{Type: "text", Text: t})
		}
		for _, fp := range frParts {
			d, _ := fp.(map[string]any)["inlineData"].(map[string]any)
			mt, _ := d["mimeType"].(string)
			data, _ := d["data"].(string)
			if mt != "" && data != "" {
				bs = append(bs, outcome.Block{Type: "image", MediaType: mt, Data: data})
			} else {
				bs = append(bs, outcome.Block{Type: "text", Text: describeOther(fp)})
			}
		}
		o.Result = &outcome.Result{Kind: outcome.Blocks, Blocks: bs}
	}
	o.Call = outcome.Call{ID: id, Name: name}
	return Part{Kind: KindResult, Result: Result{Outcome: o, Failed: failed}, Raw: raw}, nil
}

// ---- bedrock ----

func readBedrock(v any, p string) (Message, error) {
	m, role, err := objectMember(v, p, "role")
	if err != nil {
		return Message{}, err
	}
	r, ok := roles(Bedrock)[role]
	if !ok {
		return unknownRole(v), nil
	}
	msg := Message{Role: r}
	msg.Parts, err = readList(m, "content", p, bedrockBlock)
	return msg, err
}

func bedrockBlock(v any, p string) (Part, error) {
	b, err := field.As[map[string]any](v, p)
	if err != nil {
		return Part{}, err
	}
	if t, ok := b["text"].(string); ok && len(b) == 1 {
		return Part{Kind: KindText, Text: t, Raw: v}, nil
	}
	if im, ok := b["image"].(map[string]any); ok && len(b) == 1 {
		if img, ok := bedrockImage(im); ok {
			return Part{Kind: KindImage, Image: img, Raw: v}, nil
		}
	}
	if tu, ok, err := presentObj(b, "toolUse", p); err != nil {
		return Part{}, err
	} else if ok {
		tp := field.Join(p, "toolUse")
		id, name, err := twoStrings(tu, tp, "toolUseId", "name")
		if err != nil {
			return Part{}, err
		}
		return Part{Kind: KindCall, Call: Call{ID: id, Name: name, Args: tu["input"]}, Raw: v}, nil
	}
	if tr, ok, err := presentObj(b, "toolResult", p); err != nil {
		return Part{}, err
	} else if ok {
		tp := field.Join(p, "toolResult")
		id, status, err := twoStrings(tr, tp, "toolUseId", "status")
		if err != nil {
			return Part{}, err
		}
		content, _, err := field.Get[[]any](tr, "content", tp)
		if err != nil {
			return Part{}, err
		}
		var o outcome.Outcome
		env := false
		if len(content) == 1 {
			if jv, ok := content[0].(map[string]any)["json"]; ok {
				o, env = valueOutcome(jv)
				if w, ok := jv.(map[string]any); ok && o.Error == nil && len(w) == 1 {
					if inner, ok := w["error"]; ok {
						if io, isEnv := valueOutcome(inner); isEnv {
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
					if img, ok := bedrockImage(im); ok {
						bs = append(bs, outcome.Block{Type: "image", MediaType: img.MediaType, Data: img.Data})
					} else {
						bs = append(bs, outcome.Block{Type: "text", Text: describeOther(cv)})
					}
				} else if jv, ok := cm["json"]; ok {
					bs = append(bs, outcome.Block{Type: "text", Text: outcome.JSONText(jv)})
				} else {
					bs = append(bs, outcome.Block{Type: "text", Text: describeOther(cv)})
				}
			}
			o, env = blocksOutcome(bs)
		}
		o.Call.ID = id
		return Part{Kind: KindResult, Result: Result{Outcome: o, Failed: status == "error" || env}, Raw: v}, nil
	}
	return other(v), nil
}

func bedrockImage(im map[string]any) (Image, bool) {
	f, _ := im["format"].(string)
	src, _ := im["source"].(map[string]any)
	data, _ := src["bytes"].(string)
	if f == "" || data == "" {
		return Image{}, false
	}
	return Image{MediaType: "image/" + f, Data: data}, true
}

// canonicalText is the canonical JSON text of a value tree ("" if it cannot
// be encoded).
func canonicalText(v any) string {
	b, err := canonical.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
