package core

import (
	"maps"
	"slices"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// readMessages reads the "messages" member: the message list itself.
func readMessages(req map[string]any) ([]any, error) {
	arr, ok, err := field.Get[[]any](req, "messages", "")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, field.NewError("messages", "is required (the message list), or give body (the whole request body)")
	}
	return arr, nil
}

// listMembers reads what the list form of check and repair takes: the
// format, the transcript options and the messages, in that order.
func listMembers(req map[string]any) (Format, TranscriptOptions, []any, error) {
	f, opts, err := formatAndOptions(req, "format")
	if err != nil {
		return "", opts, nil, err
	}
	msgs, err := readMessages(req)
	return Format(f), opts, msgs, err
}

// stringMembers reads the string members keys of req, each "" when absent;
// the one named required (if any) must be a non-empty string.
func stringMembers(req map[string]any, required string, keys ...string) ([]string, error) {
	out := make([]string, len(keys))
	for i, k := range keys {
		var err error
		if k == required {
			out[i], err = field.RequiredString(req, k, "")
		} else {
			out[i], _, err = field.Get[string](req, k, "")
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// transcriptOptions reads the members of a check, repair or convert request
// that TranscriptOptions holds: id_rules; model (the model id the list is
// sent to); capabilities (what the model takes, by name, as booleans);
// previous_response_id (a string) or
// conversation (a string or an object, as the Responses API takes it),
// either of which marks server-held state; open_calls (an array of the
// referenced response's function_call items). A whole request body carries
// the same members under the same names, so both forms read them alike.
func transcriptOptions(req map[string]any) (TranscriptOptions, error) {
	var o TranscriptOptions
	var err error
	if o.IDRules, _, err = field.Get[string](req, "id_rules", ""); err != nil {
		return o, err
	}
	if o.Model, _, err = field.Get[string](req, "model", ""); err != nil {
		return o, err
	}
	if _, has, err := field.Get[string](req, "previous_response_id", ""); err != nil {
		return o, err
	} else if has {
		o.Server = true
	}
	if c, has := req["conversation"]; has && c != nil {
		switch c.(type) {
		case string, map[string]any:
			o.Server = true
		default:
			return o, field.NewError("conversation", "must be a string or an object, got "+field.TypeName(c))
		}
	}
	if caps, has, err := field.Get[map[string]any](req, "capabilities", ""); err != nil {
		return o, err
	} else if has {
		o.Capabilities = map[string]bool{}
		// In name order: the first bad member named is the same on every
		// run (map order would pick one at random).
		for _, k := range slices.Sorted(maps.Keys(caps)) {
			v := caps[k]
			b, ok := v.(bool)
			if !ok {
				return o, field.NewError(field.Join("capabilities", k), "must be a boolean, got "+field.TypeName(v))
			}
			o.Capabilities[k] = b
		}
	}
	if calls, has, err := field.Get[[]any](req, "open_calls", ""); err != nil {
		return o, err
	} else if has {
		o.OpenCalls = calls
	}
	return o, nil
}

func findingsValue(fs []Finding) []any {
	out := make([]any, 0, len(fs))
	for i := range fs {
		out = append(out, findingValue(&fs[i]))
	}
	return out
}

// findingValue is one finding of findingsValue.
func findingValue(f *Finding) map[string]any {
	ids := make([]any, len(f.IDs))
	for i, id := range f.IDs {
		ids[i] = id
	}
	m := map[string]any{"kind": f.Kind, "ids": ids, "message": f.Message}
	if f.Index >= 0 {
		m["index"] = f.Index
	}
	if f.Path != "" {
		m["path"] = f.Path
	}
	return m
}

func idMapValue(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// opCheck: {"format", "messages", "id_rules"?, "model"?, "previous_response_id"?,
// "conversation"?, "open_calls"?} -> {"findings": [...]}.
func opCheck(req map[string]any) (any, error) {
	if body, ok, err := bodyMember(req); ok || err != nil {
		return bodyOr(err, func() (any, error) { return opCheckBody(req, body) })
	}
	f, opts, msgs, err := listMembers(req)
	if err != nil {
		return nil, err
	}
	fs, err := checkWith(f, msgs, opts, MaxResponseBytes)
	if err != nil {
		return nil, err
	}
	return map[string]any{"findings": findingsValue(fs)}, nil
}

func changesValue(c RepairChanges) map[string]any {
	ids := make([]any, len(c.IDs))
	for i, id := range c.IDs {
		ids[i] = id
	}
	return map[string]any{
		"synthesized": c.Synthesized, "dropped_orphans": c.DroppedOrphans,
		"dropped_duplicates": c.DroppedDuplicates, "moved": c.Moved, "merged": c.Merged,
		"filled": c.Filled, "renamed": c.Renamed, "split": c.Split, "ids": ids,
	}
}

// opRepair: {"format", "messages", "model"?, "previous_response_id"?,
// "conversation"?, "open_calls"?} -> {"messages", "changes"}.
func opRepair(req map[string]any) (any, error) {
	if body, ok, err := bodyMember(req); ok || err != nil {
		return bodyOr(err, func() (any, error) { return opRepairBody(req, body) })
	}
	f, opts, msgs, err := listMembers(req)
	if err != nil {
		return nil, err
	}
	out, ch, err := RepairWith(f, msgs, opts)
	if err != nil {
		return nil, err
	}
	return repairValue(out, ch), nil
}

// repairValue is the repair op's answer: the list, the changes, and the
// id_map of renamed calls when there are any.
func repairValue(out []any, ch RepairChanges) map[string]any {
	res := map[string]any{"messages": out, "changes": changesValue(ch)}
	if len(ch.IDMap) > 0 {
		res["id_map"] = idMapValue(ch.IDMap)
	}
	return res
}

// opTrim: {"format", "messages", "max_chars"? , "max_messages"?} -> {"messages", "dropped"}.
func opTrim(req map[string]any) (any, error) {
	f, err := field.RequiredString(req, "format", "")
	if err != nil {
		return nil, err
	}
	mc, _, err := field.Int(req, "max_chars", "", transcript.MinChars, transcript.MaxLimit)
	if err != nil {
		return nil, err
	}
	mm, _, err := field.Int(req, "max_messages", "", 1, transcript.MaxLimit)
	if err != nil {
		return nil, err
	}
	if body, ok, err := bodyMember(req); ok || err != nil {
		return bodyOr(err, func() (any, error) { return opTrimBody(req, body, f, mc, mm) })
	}
	msgs, err := readMessages(req)
	if err != nil {
		return nil, err
	}
	out, dropped, err := Trim(Format(f), msgs, int(mc), int(mm))
	if err != nil {
		return nil, err
	}
	return map[string]any{"messages": out, "dropped": dropped}, nil
}

// opNormalizeIDs: {"format"?, "target"?, "messages"} -> {"messages", "id_map"}.
// target names the id rules (anthropic, bedrock, mistral); format the shape
// of the list, by default the one the target's lists have (openai-chat for
// mistral).
func opNormalizeIDs(req map[string]any) (any, error) {
	m, err := stringMembers(req, "", "target", "format")
	if err != nil {
		return nil, err
	}
	target, f := m[0], m[1]
	if _, has := req["format"]; has || target == "" {
		if f, err = field.RequiredString(req, "format", ""); err != nil {
			if _, rerr := transcript.RulesNamed(target, "target"); rerr != nil {
				return nil, rerr
			}
			return nil, err
		}
	} else {
		f = string(transcript.ListFormat(target))
	}
	if body, ok, err := bodyMember(req); ok || err != nil {
		return bodyOr(err, func() (any, error) { return opNormalizeIDsBody(body, f, target) })
	}
	msgs, err := readMessages(req)
	if err != nil {
		return nil, err
	}
	out, idMap, err := NormalizeIDs(Format(f), target, msgs)
	if err != nil {
		return nil, err
	}
	return map[string]any{"messages": out, "id_map": idMapValue(idMap)}, nil
}

// opConvert: {"from", "to", "messages", "id_rules"?, "model"?, "previous_response_id"?,
// "conversation"?, "open_calls"?} -> {"messages", "id_map"?, "notes"?, "system"?}.
func opConvert(req map[string]any) (any, error) {
	if body, ok, err := bodyMember(req); ok || err != nil {
		return bodyOr(err, func() (any, error) { return opConvertBody(req, body) })
	}
	from, to, opts, err := convertMembers(req)
	if err != nil {
		return nil, err
	}
	msgs, err := readMessages(req)
	if err != nil {
		return nil, err
	}
	c, err := ConvertWith(from, to, msgs, opts)
	if err != nil {
		return nil, err
	}
	return conversionValue(c, "messages", c.Messages), nil
}

// bodyOr is err when not nil, else run's answer: the branch of a list op
// into its body form.
func bodyOr(err error, run func() (any, error)) (any, error) {
	if err != nil {
		return nil, err
	}
	return run()
}

// conversionValue is the convert op's result, the converted list or body
// under key.
func conversionValue(c Conversion, key string, converted any) map[string]any {
	out := map[string]any{key: converted}
	if len(c.IDMap) > 0 {
		out["id_map"] = idMapValue(c.IDMap)
	}
	if len(c.NameMap) > 0 {
		out["name_map"] = idMapValue(c.NameMap)
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
	arr, _, err := field.Get[[]any](req, "history", "")
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
		return nil, field.NewError("call", "is required ({\"tool\", \"args\"})")
	}
	call, err := readAttempt(cv, "call", false)
	if err != nil {
		return nil, err
	}
	th, _, err := field.Int(req, "threshold", "", 1, transcript.MaxLoopThreshold)
	if err != nil {
		return nil, err
	}
	if err := transcript.CheckLoopGuard(hist, call, th); err != nil {
		return nil, err
	}
	allow, e := transcript.LoopGuard(hist, call, int(th))
	if allow {
		return map[string]any{"allow": true}, nil
	}
	return map[string]any{"allow": false, "error": *e}, nil
}

func readAttempt(v any, p string, needOK bool) (transcript.Attempt, error) {
	m, tool, err := field.Tagged(v, "tool", p)
	if err != nil {
		return transcript.Attempt{}, err
	}
	a := transcript.Attempt{Tool: tool, Args: m["args"]}
	if needOK {
		ok, has, err := field.Get[bool](m, "ok", p)
		if err != nil {
			return a, err
		}
		if !has {
			return a, field.NewError(field.Join(p, "ok"), "is required (true for a success)")
		}
		a.OK = ok
	}
	return a, nil
}
