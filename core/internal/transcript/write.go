package transcript

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// writer builds one format's message list from neutral messages.
type writer struct {
	to      Format
	same    bool // the messages were read from `to`: Raw trees are reused
	notes   []string
	system  []string // system text a format keeps outside its list
	pending []any    // openai-chat: messages that follow the run of tool messages
	dropped map[string]int
}

// Write writes messages read from f (and perhaps changed) back in f: every
// unchanged message and part is emitted exactly as read.
func Write(f Format, msgs []Message) []any {
	w := &writer{to: f, same: true}
	return w.list(msgs)
}

func (w *writer) list(msgs []Message) []any {
	out := make([]any, 0, len(msgs)+2)
	for _, m := range msgs {
		if w.same && !m.Dirty && m.Raw != nil {
			out = w.flush(out)
			out = append(out, m.Raw)
			continue
		}
		var vs []any
		switch w.to {
		case OpenAIChat:
			vs = w.chat(m)
		case OpenAIResponses:
			vs = w.responses(m)
		case Anthropic:
			vs = w.anthropic(m)
		case Gemini:
			vs = w.gemini(m)
		case Bedrock:
			vs = w.bedrock(m)
		}
		for _, v := range vs {
			if vm, ok := v.(map[string]any); !ok || vm["role"] != "tool" {
				out = w.flush(out)
			}
			out = append(out, v)
		}
	}
	return w.flush(out)
}

// flush emits what openai-chat tool results could not carry (the user
// message with their images, B13) after the run of tool messages.
func (w *writer) flush(out []any) []any {
	out = append(out, w.pending...)
	w.pending = nil
	return out
}

// drop records a part the target cannot carry.
func (w *writer) drop(p Part) {
	if w.same && p.Raw != nil {
		return
	}
	if w.dropped == nil {
		w.dropped = map[string]int{}
	}
	w.dropped[otherName(p.Raw)+" content not carried across formats"]++
}

// raw returns the part's original tree when it can be reused as is.
func (w *writer) raw(p Part) (any, bool) {
	if w.same && !p.Dirty && p.Raw != nil {
		return p.Raw, true
	}
	return nil, false
}

// base returns the starting object of a rebuilt element: a copy of the
// original in the same format, else a new object.
func (w *writer) base(raw any) map[string]any {
	if w.same {
		return clone(raw)
	}
	return map[string]any{}
}

func textOf(parts []Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Kind == KindText {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func split(parts []Part) (results, calls, rest []Part) {
	for _, p := range parts {
		switch p.Kind {
		case KindResult:
			results = append(results, p)
		case KindCall:
			calls = append(calls, p)
		default:
			rest = append(rest, p)
		}
	}
	return
}

// failure returns the envelope a flagless format carries for a failed result.
func failure(r Result) envelope.Envelope {
	if r.Outcome.Error != nil {
		return outcome.Safe(*r.Outcome.Error)
	}
	text := strings.TrimSpace(resultText(r.Outcome))
	msg := sanitize.Message(text)
	d := map[string]any{}
	if text == "" {
		msg = "The tool reported a failure without a message."
	} else if msg != text && msg != text+"." {
		d["output"] = text
	}
	if r.Outcome.Call.Name != "" {
		d["tool"] = r.Outcome.Call.Name
	}
	return envelope.Envelope{Code: envelope.ToolError, Message: msg, Details: sanitize.Details(d), Source: envelope.SourceTool}
}

// ---- openai-chat ----

func (w *writer) chat(m Message) []any {
	results, calls, rest := split(m.Parts)
	out := make([]any, 0, len(results)+1)
	for _, r := range results {
		out = append(out, w.result(r))
	}
	switch m.Role {
	case RoleOther:
		for _, p := range rest {
			if v, ok := w.raw(p); ok {
				out = append(out, v)
			} else {
				w.drop(p)
			}
		}
		return out
	case RoleTool:
		return out
	case RoleAssistant:
		b := w.base(m.Raw)
		b["role"] = "assistant"
		if !w.same {
			if t := textOf(rest); !outcome.IsBlank(t) {
				b["content"] = t
			} else {
				b["content"] = nil
			}
			w.dropOthers(rest)
		}
		if len(calls) > 0 {
			tc := make([]any, 0, len(calls))
			for _, c := range calls {
				if v, ok := w.raw(c); ok {
					tc = append(tc, v)
					continue
				}
				cb := w.base(c.Raw)
				cb["id"] = c.Call.ID
				cb["type"] = "function"
				fn := clone(cb["function"])
				fn["name"] = c.Call.Name
				if _, ok := fn["arguments"]; !ok || !w.same {
					fn["arguments"] = c.Call.Text()
				}
				cb["function"] = fn
				tc = append(tc, cb)
			}
			b["tool_calls"] = tc
		} else {
			delete(b, "tool_calls")
		}
		return append(out, b)
	}
	if len(rest) == 0 && (len(results) > 0 || m.Role == RoleUser) {
		return out
	}
	b := w.base(m.Raw)
	b["role"] = string(m.Role)
	if !w.same || b["content"] == nil {
		b["content"] = w.chatParts(rest, m.Role == RoleSystem)
	}
	return append(out, b)
}

// chatParts writes user or system content: one string, or parts when there
// is an image.
func (w *writer) chatParts(parts []Part, textOnly bool) any {
	hasImage := false
	for _, p := range parts {
		hasImage = hasImage || p.Kind == KindImage
	}
	if !hasImage || textOnly {
		w.dropOthers(parts)
		return textOf(parts)
	}
	arr := make([]any, 0, len(parts))
	for _, p := range parts {
		switch p.Kind {
		case KindText:
			arr = append(arr, map[string]any{"type": "text", "text": p.Text})
		case KindImage:
			arr = append(arr, map[string]any{"type": "image_url", "image_url": map[string]any{"url": p.Image.url()}})
		default:
			w.drop(p)
		}
	}
	return arr
}

func (w *writer) dropOthers(parts []Part) {
	for _, p := range parts {
		if p.Kind == KindOther || (p.Kind == KindImage && w.to != OpenAIChat) {
			w.drop(p)
		}
	}
}

// ---- openai-responses ----

func (w *writer) responses(m Message) []any {
	results, calls, rest := split(m.Parts)
	out := make([]any, 0, len(m.Parts))
	if m.Role == RoleOther || (m.Role == RoleAssistant && len(rest) == 1 && rest[0].Kind == KindOther) {
		for _, p := range rest {
			if v, ok := w.raw(p); ok {
				out = append(out, v)
			} else {
				w.drop(p)
			}
		}
		rest = nil
	}
	if m.Role == RoleAssistant && len(rest) > 0 {
		if t := textOf(rest); !outcome.IsBlank(t) {
			out = append(out, map[string]any{"role": "assistant", "content": t})
		}
		w.dropOthers(rest)
	}
	for _, c := range calls {
		if v, ok := w.raw(c); ok {
			out = append(out, v)
			continue
		}
		b := w.base(c.Raw)
		b["type"] = "function_call"
		b["call_id"] = c.Call.ID
		b["name"] = c.Call.Name
		if _, ok := b["arguments"]; !ok || !w.same {
			b["arguments"] = c.Call.Text()
		}
		out = append(out, b)
	}
	for _, r := range results {
		out = append(out, w.result(r))
	}
	if (m.Role == RoleUser || m.Role == RoleSystem) && len(rest) > 0 {
		b := w.base(m.Raw)
		b["role"] = string(m.Role)
		if !w.same || b["content"] == nil {
			c := w.chatParts(rest, m.Role == RoleSystem)
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

// ---- anthropic ----

func (w *writer) anthropic(m Message) []any {
	switch m.Role {
	case RoleOther:
		return w.others(m)
	case RoleSystem:
		return w.toSystem(m)
	}
	role := "user"
	if m.Role == RoleAssistant {
		role = "assistant"
	}
	content := w.elements(m.Parts, elemCodec{
		text:  func(t string) any { return map[string]any{"type": "text", "text": t} },
		image: anthropicImageBlock,
		call: func(p Part) any {
			b := w.base(p.Raw)
			in, _ := argsObject(p.Call.Value())
			b["type"], b["id"], b["name"], b["input"] = "tool_use", p.Call.ID, p.Call.Name, in
			return b
		},
	})
	return w.wrap(m, role, "content", content)
}

// elemCodec builds one format's elements (content blocks, parts) for the
// kinds of Part that differ between formats.
type elemCodec struct {
	text  func(t string) any
	image func(im Image) any
	call  func(p Part) any
}

// elements writes parts as a message's elements: each unchanged part as
// read, text (blank text only when writing back the same format), images
// and calls through c, results through w.result; anything else is dropped
// and counted.
func (w *writer) elements(parts []Part, c elemCodec) []any {
	out := make([]any, 0, len(parts))
	for _, p := range parts {
		if v, ok := w.raw(p); ok {
			out = append(out, v)
			continue
		}
		switch p.Kind {
		case KindText:
			if !outcome.IsBlank(p.Text) || w.same {
				out = append(out, c.text(p.Text))
			}
		case KindImage:
			out = append(out, c.image(p.Image))
		case KindCall:
			out = append(out, c.call(p))
		case KindResult:
			out = append(out, w.result(p))
		default:
			w.drop(p)
		}
	}
	return out
}

// urlText is the text element standing for an image given by URL in a
// format that takes only inline bytes (Gemini, Bedrock).
func urlText(im Image) any { return map[string]any{"text": "[image: " + im.URL + "]"} }

func anthropicImageBlock(im Image) any {
	if im.URL != "" {
		return map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": im.URL}}
	}
	return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": im.MediaType, "data": im.Data}}
}

func (w *writer) toSystem(m Message) []any {
	if t := textOf(m.Parts); t != "" {
		w.system = append(w.system, t)
	}
	return nil
}

func (w *writer) others(m Message) []any {
	var out []any
	for _, p := range m.Parts {
		if v, ok := w.raw(p); ok {
			out = append(out, v)
		} else {
			w.drop(p)
		}
	}
	return out
}

// ---- gemini ----

func (w *writer) gemini(m Message) []any {
	switch m.Role {
	case RoleOther:
		return w.others(m)
	case RoleSystem:
		return w.toSystem(m)
	}
	results, _, _ := split(m.Parts)
	role := "user"
	if m.Role == RoleAssistant {
		role = "model"
	}
	if len(results) > 0 && len(results) < len(m.Parts) && !w.same {
		// Responses travel alone in their content (B08); the rest follows.
		rest := make([]Part, 0, len(m.Parts)-len(results))
		for _, p := range m.Parts {
			if p.Kind != KindResult {
				rest = append(rest, p)
			}
		}
		return append(w.gemini(Message{Role: RoleTool, Parts: results}), w.gemini(Message{Role: m.Role, Parts: rest})...)
	}
	parts := w.elements(m.Parts, elemCodec{
		text: func(t string) any { return map[string]any{"text": t} },
		image: func(im Image) any {
			if im.URL != "" {
				return urlText(im)
			}
			return map[string]any{"inlineData": map[string]any{"mimeType": im.MediaType, "data": im.Data}}
		},
		call: func(p Part) any {
			b := w.base(p.Raw)
			fc := w.base(b["functionCall"])
			if p.Call.ID != "" {
				fc["id"] = p.Call.ID
			}
			fc["name"] = p.Call.Name
			fc["args"], _ = argsObject(p.Call.Value())
			b["functionCall"] = fc
			return b
		},
	})
	return w.wrap(m, role, "parts", parts)
}

func geminiValue(o outcome.Outcome) any {
	if o.Result != nil && o.Result.Kind == outcome.JSON {
		return o.Result.JSON
	}
	return resultText(o)
}

// ---- bedrock ----

func (w *writer) bedrock(m Message) []any {
	switch m.Role {
	case RoleOther:
		return w.others(m)
	case RoleSystem:
		if !w.same {
			return w.toSystem(m)
		}
	}
	role := "user"
	if m.Role == RoleAssistant {
		role = "assistant"
	} else if m.Role == RoleSystem {
		role = "system"
	}
	content := w.elements(m.Parts, elemCodec{
		text: func(t string) any { return map[string]any{"text": t} },
		image: func(im Image) any {
			if im.URL != "" {
				return urlText(im)
			}
			return bedrockImageBlock(im.MediaType, im.Data)
		},
		call: func(p Part) any {
			b := w.base(p.Raw)
			tu := w.base(b["toolUse"])
			tu["toolUseId"], tu["name"] = p.Call.ID, p.Call.Name
			tu["input"], _ = argsObject(p.Call.Value())
			b["toolUse"] = tu
			return b
		},
	})
	return w.wrap(m, role, "content", content)
}

func bedrockImageBlock(media, data string) map[string]any {
	return map[string]any{"image": map[string]any{"format": strings.TrimPrefix(media, "image/"), "source": map[string]any{"bytes": data}}}
}

// wrap makes the message object holding built elements under key; a
// converted message left with nothing is dropped.
func (w *writer) wrap(m Message, role, key string, elems []any) []any {
	if len(elems) == 0 && !w.same {
		return nil
	}
	b := w.base(m.Raw)
	b["role"] = role
	b[key] = elems
	return []any{b}
}
