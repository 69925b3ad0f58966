package transcript

import (
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// result returns the wire element of a result part in w.to: the tool message
// (openai-chat), the function_call_output item (openai-responses), the
// tool_result block (anthropic), the functionResponse part (gemini) or the
// toolResult block (bedrock). The content is encoded by the single-turn
// codec of package format, so a result reads the same in a transcript as
// when serialized alone. A failure that is not an envelope keeps its own
// content where the format has a flag (is_error, status, an "error" key,
// B07) and becomes a TOOL_ERROR envelope where it has none (OpenAI).
func (w *writer) result(p Part) any {
	if v, ok := w.raw(p); ok {
		return v
	}
	r := p.Result
	o := r.Outcome
	flagOnly := r.Failed && o.Error == nil
	if flagOnly && (w.to == OpenAIChat || w.to == OpenAIResponses) {
		e := failure(r)
		o.Error, o.Result, flagOnly = &e, nil, false
	}
	if o.Error == nil && o.Result == nil {
		o.Result = &outcome.Result{Kind: outcome.Empty}
	}
	elem, extra := w.encode(o)
	if flagOnly {
		switch w.to {
		case Anthropic:
			elem["is_error"] = true
		case Bedrock:
			tr := clone(elem["toolResult"])
			tr["status"] = "error"
			elem["toolResult"] = tr
		case Gemini:
			fr := clone(elem["functionResponse"])
			fr["response"] = map[string]any{"error": geminiValue(r.Outcome)}
			elem["functionResponse"] = fr
		}
	}
	b := w.base(p.Raw)
	for k, v := range elem {
		b[k] = v
	}
	w.pending = append(w.pending, extra...)
	return b
}

// encode runs the codec on one outcome and returns its element and any
// messages that must follow the turn. A call id or name the codec refuses
// (repair keeps the ids it was given; check reports them) is encoded with a
// stand-in and put back; an image the target refuses is described in text.
func (w *writer) encode(o outcome.Outcome) (map[string]any, []any) {
	c := format.Lookup(string(w.to))
	msgs, err := c.Serialize([]outcome.Outcome{o})
	if err != nil {
		id, name := o.Call.ID, o.Call.Name
		o.Call.Name = "tool"
		if id != "" || w.to != Gemini {
			o.Call.ID = "toolerr_call"
		}
		if msgs, err = c.Serialize([]outcome.Outcome{o}); err != nil {
			o.Result = describeImages(o.Result)
			msgs, err = c.Serialize([]outcome.Outcome{o})
		}
		if err == nil {
			elem, extra := element(w.to, msgs)
			setCall(w.to, elem, id, name)
			return elem, extra
		}
		return map[string]any{}, nil
	}
	return element(w.to, msgs)
}

// element takes the one result element out of a codec's messages.
func element(f Format, msgs []any) (map[string]any, []any) {
	first := clone(msgs[0])
	switch f {
	case OpenAIChat:
		return first, msgs[1:]
	case OpenAIResponses:
		return first, nil
	case Gemini:
		parts, _ := first["parts"].([]any)
		if len(parts) > 0 {
			return clone(parts[0]), nil
		}
	default:
		content, _ := first["content"].([]any)
		if len(content) > 0 {
			return clone(content[0]), nil
		}
	}
	return map[string]any{}, nil
}

// setCall writes a result element's call id and name.
func setCall(f Format, elem map[string]any, id, name string) {
	switch f {
	case OpenAIChat:
		elem["tool_call_id"] = id
	case OpenAIResponses:
		elem["call_id"] = id
	case Anthropic:
		elem["tool_use_id"] = id
	case Gemini:
		fr := clone(elem["functionResponse"])
		if id != "" {
			fr["id"] = id
		}
		fr["name"] = name
		elem["functionResponse"] = fr
	case Bedrock:
		tr := clone(elem["toolResult"])
		tr["toolUseId"] = id
		elem["toolResult"] = tr
	}
}

// describeImages replaces image blocks with a sentence naming them.
func describeImages(r *outcome.Result) *outcome.Result {
	if r == nil || r.Kind != outcome.Blocks {
		return r
	}
	bs := make([]outcome.Block, 0, len(r.Blocks))
	for _, b := range r.Blocks {
		if b.Type == "image" {
			b = outcome.Block{Type: "text", Text: "[" + b.MediaType + " image not carried: the target does not accept this image type]"}
		}
		bs = append(bs, b)
	}
	return &outcome.Result{Kind: outcome.Blocks, Blocks: bs}
}
