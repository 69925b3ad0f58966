package gatewaycheck

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/gowebpki/jcs"
)

// The readers below find, in a request body as an upstream received it, the
// calls of the last call turn and the results that answer them. They are
// written from the vendors' wire formats, independently of toolerr's own
// codecs, so that the check does not grade toolerr with toolerr.

// upCall is one call of the upstream body's last call turn.
type upCall struct{ ID, Name string }

// upResult is one tool result as the upstream received it.
type upResult struct {
	ID, Name string
	// Flag is the native failure flag: is_error true (Anthropic), status
	// "error" (Bedrock), an "error" key in response (Gemini); for OpenAI,
	// whose results carry none, the content being a five-field envelope.
	Flag bool
	// Envelope is the five-field envelope the result carries, canonical
	// (RFC 8785), or "".
	Envelope string
	// Texts are the result's text contents (for success results).
	Texts []string
}

// upTurn is the last call turn of an upstream body and its results.
type upTurn struct {
	Calls   []upCall
	Results []upResult
}

// flagName says, for failure reports, which flag family f uses.
func flagName(f Family) string {
	switch f {
	case Anthropic:
		return "is_error"
	case Bedrock:
		return `status "error"`
	case Gemini:
		return "the error key in functionResponse.response"
	default:
		return "a five-field envelope as the content (OpenAI has no flag)"
	}
}

// readTurn reads body as family f.
func readTurn(f Family, body []byte) upTurn {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return upTurn{}
	}
	req, _ := v.(map[string]any)
	switch f {
	case OpenAIChat:
		return readChat(list(req["messages"]))
	case OpenAIResponses:
		return readResponses(list(req["input"]))
	case Anthropic:
		return readAnthropic(list(req["messages"]))
	case Gemini:
		return readGemini(list(req["contents"]))
	default:
		return readBedrock(list(req["messages"]))
	}
}

func list(v any) []any { a, _ := v.([]any); return a }

func object(v any) map[string]any { m, _ := v.(map[string]any); return m }

func text(v any) string { s, _ := v.(string); return s }

// texts returns a content's text: the string itself, or the text of its
// text blocks joined.
func texts(v any) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	var parts []string
	for _, b := range list(v) {
		if t, ok := object(b)["text"].(string); ok {
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{strings.Join(parts, "")}
}

// envelopeOf returns v as a canonical five-field envelope, or "". v may be
// the envelope object, {"error": envelope}, or JSON text of either.
func envelopeOf(v any) string {
	if s, ok := v.(string); ok {
		var inner any
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if dec.Decode(&inner) != nil || dec.More() {
			return ""
		}
		v = inner
	}
	m := object(v)
	if m == nil {
		return ""
	}
	if len(m) == 1 {
		if e, ok := m["error"]; ok {
			m = object(e)
		}
	}
	if len(m) != 5 {
		return ""
	}
	_, c := m["code"].(string)
	_, msg := m["message"].(string)
	_, r := m["retryable"].(bool)
	_, d := m["details"].(map[string]any)
	_, s := m["source"].(string)
	if !c || !msg || !r || !d || !s {
		return ""
	}
	return canonical(m)
}

// canonical writes v as RFC 8785 JSON (gowebpki/jcs, an implementation
// independent of toolerr's), or "" when it cannot.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	out, err := jcs.Transform(b)
	if err != nil {
		return ""
	}
	return string(out)
}

func firstEnvelope(cands []string) string {
	for _, c := range cands {
		if e := envelopeOf(c); e != "" {
			return e
		}
	}
	return ""
}

// lastTurn returns the index of the last item whose blocks (its member
// listKey) hold a call, and those calls as call(block) returns them (nil for
// a block that is not a call); -1 when no item holds one.
func lastTurn(items []any, listKey string, call func(block map[string]any) map[string]any) (int, []map[string]any) {
	for i := len(items) - 1; i >= 0; i-- {
		var calls []map[string]any
		for _, b := range list(object(items[i])[listKey]) {
			if c := call(object(b)); c != nil {
				calls = append(calls, c)
			}
		}
		if len(calls) > 0 {
			return i, calls
		}
	}
	return -1, nil
}

// member returns the block's object member under any of names (Gemini's
// functionCall, also function_call as proto3 JSON accepts; Bedrock's toolUse).
func member(names ...string) func(map[string]any) map[string]any {
	return func(b map[string]any) map[string]any {
		for _, k := range names {
			if m := object(b[k]); m != nil {
				return m
			}
		}
		return nil
	}
}

func readChat(msgs []any) upTurn {
	var t upTurn
	last, calls := lastTurn(msgs, "tool_calls", func(b map[string]any) map[string]any { return b })
	if last < 0 {
		return t
	}
	for _, tc := range calls {
		t.Calls = append(t.Calls, upCall{ID: text(tc["id"]), Name: text(object(tc["function"])["name"])})
	}
	for _, m := range msgs[last+1:] {
		mm := object(m)
		if text(mm["role"]) != "tool" {
			continue
		}
		ts := texts(mm["content"])
		env := firstEnvelope(ts)
		t.Results = append(t.Results, upResult{ID: text(mm["tool_call_id"]), Flag: env != "", Envelope: env, Texts: ts})
	}
	return t
}

func readResponses(items []any) upTurn {
	var t upTurn
	start := 0
	for i, it := range items {
		m := object(it)
		if _, isMsg := m["role"]; isMsg {
			start = i + 1
		}
	}
	for _, it := range items[start:] {
		m := object(it)
		switch text(m["type"]) {
		case "function_call":
			t.Calls = append(t.Calls, upCall{ID: text(m["call_id"]), Name: text(m["name"])})
		case "function_call_output":
			ts := texts(m["output"])
			env := firstEnvelope(ts)
			t.Results = append(t.Results, upResult{ID: text(m["call_id"]), Flag: env != "", Envelope: env, Texts: ts})
		}
	}
	return t
}

func readAnthropic(msgs []any) upTurn {
	var t upTurn
	last, calls := lastTurn(msgs, "content", func(b map[string]any) map[string]any {
		if text(b["type"]) == "tool_use" {
			return b
		}
		return nil
	})
	if last < 0 {
		return t
	}
	for _, c := range calls {
		t.Calls = append(t.Calls, upCall{ID: text(c["id"]), Name: text(c["name"])})
	}
	if last+1 >= len(msgs) {
		return t
	}
	for _, b := range list(object(msgs[last+1])["content"]) {
		bb := object(b)
		if text(bb["type"]) != "tool_result" {
			continue
		}
		ts := texts(bb["content"])
		flag, _ := bb["is_error"].(bool)
		t.Results = append(t.Results, upResult{ID: text(bb["tool_use_id"]), Flag: flag, Envelope: firstEnvelope(ts), Texts: ts})
	}
	return t
}

func readGemini(contents []any) upTurn {
	var t upTurn
	last, calls := lastTurn(contents, "parts", member("functionCall", "function_call"))
	if last < 0 {
		return t
	}
	for _, fc := range calls {
		t.Calls = append(t.Calls, upCall{ID: text(fc["id"]), Name: text(fc["name"])})
	}
	for _, c := range contents[last+1:] {
		found := false
		for _, p := range list(object(c)["parts"]) {
			fr := member("functionResponse", "function_response")(object(p))
			if fr == nil {
				continue
			}
			found = true
			resp := object(fr["response"])
			r := upResult{ID: text(fr["id"]), Name: text(fr["name"])}
			if e, ok := resp["error"]; ok {
				r.Flag = true
				r.Envelope = envelopeOf(e)
				if s, ok := e.(string); ok && r.Envelope == "" {
					r.Texts = append(r.Texts, s)
				}
			} else {
				r.Envelope = envelopeOf(resp)
			}
			for _, k := range []string{"output", "result", "content"} {
				if s, ok := resp[k].(string); ok {
					r.Texts = append(r.Texts, s)
				}
			}
			t.Results = append(t.Results, r)
		}
		if !found {
			break
		}
	}
	return t
}

func readBedrock(msgs []any) upTurn {
	var t upTurn
	last, calls := lastTurn(msgs, "content", member("toolUse"))
	if last < 0 {
		return t
	}
	for _, tu := range calls {
		t.Calls = append(t.Calls, upCall{ID: text(tu["toolUseId"]), Name: text(tu["name"])})
	}
	if last+1 >= len(msgs) {
		return t
	}
	for _, b := range list(object(msgs[last+1])["content"]) {
		tr := object(object(b)["toolResult"])
		if tr == nil {
			continue
		}
		r := upResult{ID: text(tr["toolUseId"]), Flag: text(tr["status"]) == "error"}
		for _, c := range list(tr["content"]) {
			cb := object(c)
			if js, ok := cb["json"]; ok && r.Envelope == "" {
				r.Envelope = envelopeOf(js)
			}
			if s, ok := cb["text"].(string); ok {
				r.Texts = append(r.Texts, s)
				if r.Envelope == "" {
					r.Envelope = envelopeOf(s)
				}
			}
		}
		t.Results = append(t.Results, r)
	}
	return t
}
