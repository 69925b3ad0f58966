package transcript

import (
	"sort"
	"strconv"
	"strings"
)

// Converted is a list written in another format.
type Converted struct {
	Messages []any
	IDMap    map[string]string // new id -> original id, for ids the target's rules made toolerr rewrite
	Notes    []string          // what could not travel as is, said plainly
	System   string            // system text the target keeps outside its list ("" when none)
}

// Convert writes a list read from `from` in the shape of `to`: each call
// turn becomes one assistant message followed by all its results in call
// order (one content for Gemini, first in the next user message for
// Anthropic and Bedrock), result names come from the calls (Gemini), a
// failure keeps its flag (is_error, status "error", an "error" key, or the
// envelope JSON in OpenAI's content), images are carried or, where a target
// cannot hold them in a tool result, moved next to it and said so, and ids
// are rewritten to the target's rules (rules "" = those of `to`).
func Convert(from, to Format, msgs []Message, rules string) Converted {
	var notes []string
	if n := lostMembers(from, msgs).note(from, to); n != "" {
		notes = append(notes, n)
	}
	turns, generated := regroup(from, msgs, to)
	if generated > 0 {
		notes = append(notes, "generated ids for "+strconv.Itoa(generated)+" calls that had none (Gemini), paired with their responses by name and order")
	}
	r := idRules(to, rules)
	ids := planIDs(turns, r)
	applyIDs(to, turns, ids)
	if to == Anthropic || to == Bedrock {
		turns = joinUserSide(turns)
	}
	w := &writer{to: to}
	out := w.list(turns)
	pendingNote := 0
	for _, m := range turns {
		for _, p := range m.Parts {
			if p.Kind == KindResult && to == OpenAIChat {
				pendingNote += len(images(p.Result.Outcome))
			}
		}
	}
	if pendingNote > 0 {
		notes = append(notes, strconv.Itoa(pendingNote)+" tool-result images moved into a user message after the tool messages: openai-chat tool messages carry text only")
	}
	if len(w.dropped) > 0 {
		keys := make([]string, 0, len(w.dropped))
		for k := range w.dropped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			notes = append(notes, "dropped "+strconv.Itoa(w.dropped[k])+" "+k+" that "+string(to)+" cannot carry")
		}
	}
	c := Converted{Messages: out, IDMap: ids.Back, Notes: notes}
	if len(w.system) > 0 {
		c.System = strings.Join(w.system, "\n\n")
		c.Notes = append(c.Notes, "system text moved out of the list: "+string(to)+" takes it as a top-level parameter (returned as system)")
	}
	return c
}

// regroup turns a list into neutral turns: each call turn's assistant
// message, then a RoleTool message with the results found for its calls (in
// call order, names and, for Gemini calls without ids, generated ids filled
// in), then whatever else followed. Results that answer no call stay where
// they were. It returns how many ids it generated.
func regroup(from Format, msgs []Message, to Format) ([]Message, int) {
	a := analyze(from, msgs)
	used := map[loc]bool{}
	generated := 0
	out := make([]Message, 0, len(msgs)+2)
	groupAt := map[int]int{}
	for g, gr := range a.groups {
		groupAt[gr.at] = g
	}
	for i := 0; i < len(msgs); i++ {
		g, isCall := groupAt[i]
		if !isCall {
			m := msgs[i]
			parts := make([]Part, 0, len(m.Parts))
			for j, p := range m.Parts {
				if !used[loc{i, j}] {
					parts = append(parts, p)
				}
			}
			if len(parts) > 0 {
				m.Parts = parts
				out = append(out, m)
			}
			continue
		}
		gr := a.groups[g]
		// the assistant turn: every assistant message of the run (Responses
		// spreads one turn over several items)
		asst := Message{Role: RoleAssistant}
		end := i + 1
		if from == OpenAIResponses {
			end = gr.hi
		}
		for j := i; j < end; j++ {
			if msgs[j].Role == RoleAssistant {
				asst.Parts = append(asst.Parts, msgs[j].Parts...)
			}
		}
		res := Message{Role: RoleTool}
		k := 0
		for j := range asst.Parts {
			p := &asst.Parts[j]
			if p.Kind != KindCall {
				continue
			}
			if p.Call.ID == "" && to != Gemini {
				p.Call.ID = "call_" + strconv.Itoa(i) + "_" + strconv.Itoa(k)
				generated++
			}
			l := a.answer[g][k]
			if l.msg < 0 {
				l = a.claim[g][k]
			}
			if l.msg >= 0 {
				used[l] = true
				r := *a.part(l)
				r.Result.Outcome.Call.ID = p.Call.ID
				if r.Result.Outcome.Call.Name == "" {
					r.Result.Outcome.Call.Name = p.Call.Name
				}
				res.Parts = append(res.Parts, r)
			}
			k++
		}
		// a message that merged into the turn may also hold text or reasoning
		if len(out) > 0 && out[len(out)-1].Role == RoleAssistant && !hasKind(out[len(out)-1], KindCall) {
			prev := out[len(out)-1]
			asst.Parts = append(append([]Part{}, prev.Parts...), asst.Parts...)
			out = out[:len(out)-1]
		}
		out = append(out, asst)
		if len(res.Parts) > 0 {
			out = append(out, res)
		}
		if from == OpenAIResponses {
			// the outputs of the run were taken above; anything else stays
			for j := i + 1; j < gr.hi; j++ {
				if msgs[j].Role == RoleTool {
					var rest []Part
					for pj, p := range msgs[j].Parts {
						if !used[loc{j, pj}] {
							rest = append(rest, p)
						}
					}
					if len(rest) > 0 {
						out = append(out, Message{Role: RoleTool, Parts: rest})
					}
				}
			}
			i = gr.hi - 1
		}
	}
	return out, generated
}

// joinUserSide folds a RoleTool message and the user message after it into
// one user message, results first: Anthropic and Bedrock carry results in
// the user turn and Bedrock wants roles to alternate.
func joinUserSide(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role != RoleTool {
			out = append(out, m)
			continue
		}
		m.Role = RoleUser
		if i+1 < len(msgs) && msgs[i+1].Role == RoleUser {
			m.Parts = append(append([]Part{}, m.Parts...), msgs[i+1].Parts...)
			i++
		}
		out = append(out, m)
	}
	return out
}

// The members convert carries, per format and element; any other member of
// a read message or part (not null, not an empty array or object) is one a
// conversion drops, and lostMembers counts it. Space-separated, with a space
// at each end.
const (
	chatMessageKeys   = " role content tool_calls tool_call_id "
	chatPartKeys      = " type text image_url "
	chatImageURLKeys  = " url "
	chatCallKeys      = " id type function "
	chatFunctionKeys  = " name arguments "
	respMessageKeys   = " type role content "
	respCallKeys      = " type call_id name arguments "
	respOutputKeys    = " type call_id output "
	roleContentKeys   = " role content " // anthropic and bedrock messages
	antTextKeys       = " type text "
	antImageKeys      = " type source "
	antToolUseKeys    = " type id name input "
	antToolResultKeys = " type tool_use_id is_error content "
	gemContentKeys    = " role parts "
	gemPartKeys       = " text inlineData functionCall functionResponse thought "
	gemCallKeys       = " id name args "
	gemResponseKeys   = " id name response parts "
	gemInlineKeys     = " mimeType data "
	brBlockKeys       = " text image toolUse toolResult "
	brToolUseKeys     = " toolUseId name input "
	brToolResultKeys  = " toolUseId status content "
	brImageKeys       = " format source "
)

// lossCounter counts dropped members by name ("function.strict" for a
// nested one).
type lossCounter map[string]int

// check counts the members of v (an object) not listed in keys, naming them
// prefix+name; it returns v as an object (nil when it is not one).
func (l lossCounter) check(v any, keys, prefix string) map[string]any {
	m, _ := v.(map[string]any)
	for k, x := range m {
		if strings.Contains(keys, " "+k+" ") || empty(x) {
			continue
		}
		l[prefix+k]++
	}
	return m
}

// empty reports a member value that carries nothing: null, [] or {}.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// lostMembers counts the members of msgs (read from f) that convert does not
// carry: provider-specific members such as Gemini's thoughtSignature,
// Anthropic's cache_control and citations, Responses item ids and status,
// OpenAI message names. Messages and parts toolerr does not model are not
// looked into: they are dropped whole and noted as such.
func lostMembers(f Format, msgs []Message) lossCounter {
	l := lossCounter{}
	for _, m := range msgs {
		if m.Role == RoleOther || m.Raw == nil || (len(m.Parts) > 0 && !hasModelled(m)) {
			continue // dropped whole (a reasoning item, say) and noted as such
		}
		keys := map[Format]string{OpenAIChat: chatMessageKeys, OpenAIResponses: respMessageKeys, Anthropic: roleContentKeys, Gemini: gemContentKeys, Bedrock: roleContentKeys}[f]
		if f != OpenAIResponses || len(m.Parts) != 1 || (m.Parts[0].Kind != KindCall && m.Parts[0].Kind != KindResult) {
			l.check(m.Raw, keys, "") // a Responses call or output item is checked as a part
		}
		for _, p := range m.Parts {
			if p.Kind != KindOther && p.Raw != nil && !(f == OpenAIChat && m.Role == RoleTool) {
				l.part(f, p)
			}
		}
	}
	return l
}

// hasModelled reports whether m has a part other than KindOther.
func hasModelled(m Message) bool {
	for _, p := range m.Parts {
		if p.Kind != KindOther {
			return true
		}
	}
	return false
}

// part counts the dropped members of one read part of format f.
func (l lossCounter) part(f Format, p Part) {
	switch f {
	case OpenAIChat, OpenAIResponses:
		switch {
		case p.Kind == KindCall && f == OpenAIChat:
			l.check(l.check(p.Raw, chatCallKeys, "")["function"], chatFunctionKeys, "function.")
		case p.Kind == KindCall:
			l.check(p.Raw, respCallKeys, "")
		case p.Kind == KindResult:
			l.check(p.Raw, respOutputKeys, "")
		default:
			if iu, ok := l.check(p.Raw, chatPartKeys, "")["image_url"].(map[string]any); ok {
				l.check(iu, chatImageURLKeys, "image_url.")
			}
		}
	case Anthropic:
		switch p.Kind {
		case KindText:
			l.check(p.Raw, antTextKeys, "")
		case KindImage:
			l.check(p.Raw, antImageKeys, "")
		case KindCall:
			l.check(p.Raw, antToolUseKeys, "")
		case KindResult:
			content, _ := l.check(p.Raw, antToolResultKeys, "")["content"].([]any)
			for _, b := range content {
				l.check(b, antTextKeys+"source ", "content[].")
			}
		}
	case Gemini:
		b := l.check(p.Raw, gemPartKeys, "")
		l.check(b["functionCall"], gemCallKeys, "functionCall.")
		l.check(b["functionResponse"], gemResponseKeys, "functionResponse.")
		l.check(b["inlineData"], gemInlineKeys, "inlineData.")
	case Bedrock:
		b := l.check(p.Raw, brBlockKeys, "")
		l.check(b["toolUse"], brToolUseKeys, "toolUse.")
		l.check(b["toolResult"], brToolResultKeys, "toolResult.")
		l.check(b["image"], brImageKeys, "image.")
	}
}

// note says which members a conversion dropped, sorted by name, each name
// passed through displayName (member names are caller text); "" when none.
func (l lossCounter) note(from, to Format) string {
	if len(l) == 0 {
		return ""
	}
	counts := map[string]int{}
	for k, n := range l {
		name := displayName(k)
		if name == "" {
			name = "(unnamed)"
		}
		counts[name] += n
	}
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Strings(names)
	for i, k := range names {
		names[i] = k + " (" + strconv.Itoa(counts[k]) + ")"
	}
	return "dropped members " + string(from) + " carries that " + string(to) + " has no place for: " + strings.Join(names, ", ")
}
