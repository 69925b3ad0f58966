package core

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// transcriptOps returns the handler of a transcript op, or nil (issue 4).
func transcriptOps(op string) handler {
	switch op {
	case "check":
		return opCheck
	case "repair":
		return opRepair
	case "trim":
		return opTrim
	case "normalize_ids":
		return opNormalizeIDs
	case "convert":
		return opConvert
	case "loop_guard":
		return opLoopGuard
	}
	return nil
}

func transcriptFormatNames() string {
	s := ""
	for i, f := range transcript.Formats() {
		if i > 0 {
			s += ", "
		}
		s += string(f)
	}
	return s
}

// listFormat reads member key as a transcript format.
func listFormat(req map[string]any, key string) (transcript.Format, error) {
	name, err := field.RequiredString(req, key, "")
	if err != nil {
		return "", err
	}
	f := transcript.Format(name)
	if !transcript.Known(f) {
		return "", field.Errorf(key, "unknown transcript format "+strconv.Quote(name)+"; known: "+transcriptFormatNames())
	}
	return f, nil
}

// readMessages reads "messages" as a list of format f.
func readMessages(req map[string]any, f transcript.Format) ([]transcript.Message, error) {
	arr, ok, err := field.Array(req, "messages", "")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, field.Errorf("messages", "is required (the message list)")
	}
	return transcript.Read(f, arr)
}

func optRules(req map[string]any, key string) (string, error) {
	r, _, err := field.String(req, key, "")
	if err != nil {
		return "", err
	}
	if r != "" && !transcript.ValidRules(r) {
		return "", field.Errorf(key, "unknown id rules "+strconv.Quote(r)+"; known: anthropic, bedrock, mistral, openai-responses, openai-chat, gemini")
	}
	return r, nil
}

func findingsValue(fs []transcript.Finding) []any {
	out := make([]any, 0, len(fs))
	for _, f := range fs {
		ids := make([]any, len(f.IDs))
		for i, id := range f.IDs {
			ids[i] = id
		}
		m := map[string]any{"kind": f.Kind, "index": f.Index, "ids": ids, "message": f.Message}
		if f.Path != "" {
			m["path"] = f.Path
		}
		out = append(out, m)
	}
	return out
}

func idMapValue(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// opCheck: {"format", "messages", "id_rules"?} -> {"findings": [...]}.
func opCheck(req map[string]any) (any, error) {
	f, err := listFormat(req, "format")
	if err != nil {
		return nil, err
	}
	rules, err := optRules(req, "id_rules")
	if err != nil {
		return nil, err
	}
	msgs, err := readMessages(req, f)
	if err != nil {
		return nil, err
	}
	return map[string]any{"findings": findingsValue(transcript.Check(f, msgs, rules))}, nil
}

func changesValue(c transcript.Changes) map[string]any {
	ids := make([]any, len(c.IDs))
	for i, id := range c.IDs {
		ids[i] = id
	}
	return map[string]any{
		"synthesized": c.Synthesized, "dropped_orphans": c.DroppedOrphans,
		"dropped_duplicates": c.DroppedDuplicates, "moved": c.Moved, "merged": c.Merged,
		"filled": c.Filled, "ids": ids,
	}
}

// opRepair: {"format", "messages"} -> {"messages", "changes"}.
func opRepair(req map[string]any) (any, error) {
	f, err := listFormat(req, "format")
	if err != nil {
		return nil, err
	}
	msgs, err := readMessages(req, f)
	if err != nil {
		return nil, err
	}
	out, ch := transcript.Repair(f, msgs)
	return map[string]any{"messages": transcript.Write(f, out), "changes": changesValue(ch)}, nil
}

// opTrim: {"format", "messages", "max_chars"? , "max_messages"?} -> {"messages", "dropped"}.
func opTrim(req map[string]any) (any, error) {
	f, err := listFormat(req, "format")
	if err != nil {
		return nil, err
	}
	mc, hasChars, err := field.Int(req, "max_chars", "", 2, 1<<40)
	if err != nil {
		return nil, err
	}
	mm, hasMsgs, err := field.Int(req, "max_messages", "", 1, 1<<40)
	if err != nil {
		return nil, err
	}
	if !hasChars && !hasMsgs {
		return nil, field.Errorf("max_chars", "give max_chars or max_messages (or both)")
	}
	msgs, err := readMessages(req, f)
	if err != nil {
		return nil, err
	}
	out, dropped := transcript.Trim(f, msgs, transcript.Limit{MaxChars: int(mc), MaxMessages: int(mm)})
	return map[string]any{"messages": transcript.Write(f, out), "dropped": dropped}, nil
}

// opNormalizeIDs: {"format"?, "target"?, "messages"} -> {"messages", "id_map"}.
// target names the id rules (anthropic, bedrock, mistral); format the shape
// of the list, by default the target's own (openai-chat for mistral).
func opNormalizeIDs(req map[string]any) (any, error) {
	rules, err := optRules(req, "target")
	if err != nil {
		return nil, err
	}
	var f transcript.Format
	if _, has := req["format"]; has || rules == "" {
		if f, err = listFormat(req, "format"); err != nil {
			return nil, err
		}
	} else if rules == transcript.RulesMistral {
		f = transcript.OpenAIChat
	} else {
		f = transcript.Format(rules)
	}
	if rules == "" {
		rules = string(f)
	}
	msgs, err := readMessages(req, f)
	if err != nil {
		return nil, err
	}
	m := transcript.NormalizeIDs(f, msgs, rules)
	return map[string]any{"messages": transcript.Write(f, msgs), "id_map": idMapValue(m)}, nil
}

// opConvert: {"from", "to", "messages", "id_rules"?} -> {"messages", "id_map"?, "notes"?, "system"?}.
func opConvert(req map[string]any) (any, error) {
	from, err := listFormat(req, "from")
	if err != nil {
		return nil, err
	}
	to, err := listFormat(req, "to")
	if err != nil {
		return nil, err
	}
	rules, err := optRules(req, "id_rules")
	if err != nil {
		return nil, err
	}
	msgs, err := readMessages(req, from)
	if err != nil {
		return nil, err
	}
	c := transcript.Convert(from, to, msgs, rules)
	return conversionValue(c), nil
}

func conversionValue(c transcript.Converted) map[string]any {
	out := map[string]any{"messages": c.Messages}
	if len(c.IDMap) > 0 {
		out["id_map"] = idMapValue(c.IDMap)
	}
	if len(c.Notes) > 0 {
		n := make([]any, len(c.Notes))
		for i, s := range c.Notes {
			n[i] = s
		}
		out["notes"] = n
	}
	if c.System != "" {
		out["system"] = c.System
	}
	return out
}

// opLoopGuard: {"history": [{"tool", "args", "ok"}], "call": {"tool", "args"}, "threshold"?}
// -> {"allow": true} or {"allow": false, "error": <LOOP_DETECTED envelope>}.
func opLoopGuard(req map[string]any) (any, error) {
	arr, _, err := field.Array(req, "history", "")
	if err != nil {
		return nil, err
	}
	hist := make([]transcript.Attempt, 0, len(arr))
	for i, v := range arr {
		p := field.Index("history", i)
		a, err := readAttempt(v, p, true)
		if err != nil {
			return nil, err
		}
		hist = append(hist, a)
	}
	cv, ok := req["call"]
	if !ok {
		return nil, field.Errorf("call", "is required ({\"tool\", \"args\"})")
	}
	call, err := readAttempt(cv, "call", false)
	if err != nil {
		return nil, err
	}
	th, _, err := field.Int(req, "threshold", "", 1, 1<<20)
	if err != nil {
		return nil, err
	}
	allow, e := transcript.LoopGuard(hist, call, int(th))
	if allow {
		return map[string]any{"allow": true}, nil
	}
	return map[string]any{"allow": false, "error": *e}, nil
}

func readAttempt(v any, p string, needOK bool) (transcript.Attempt, error) {
	m, err := field.Object(v, p)
	if err != nil {
		return transcript.Attempt{}, err
	}
	tool, err := field.RequiredString(m, "tool", p)
	if err != nil {
		return transcript.Attempt{}, err
	}
	a := transcript.Attempt{Tool: tool, Args: m["args"]}
	if needOK {
		ok, has, err := field.Bool(m, "ok", p)
		if err != nil {
			return a, err
		}
		if !has {
			return a, field.Errorf(field.Join(p, "ok"), "is required (true for a success)")
		}
		a.OK = ok
	}
	return a, nil
}
