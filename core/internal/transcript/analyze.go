package transcript

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// The finding kinds (stable snake_case tokens; docs/transcripts.md).
const (
	FindUnansweredCall      = "unanswered_call"
	FindOrphanResult        = "orphan_result"
	FindMisplacedResult     = "misplaced_result"
	FindResultNotFirst      = "result_not_first"
	FindResponsesSplit      = "responses_split"
	FindResponseCount       = "response_count_mismatch"
	FindExtraPart           = "extra_part_in_response"
	FindDuplicateResult     = "duplicate_result"
	FindDuplicateCallID     = "duplicate_call_id"
	FindNameMismatch        = "name_mismatch"
	FindEmptyText           = "empty_text"
	FindInvalidID           = "invalid_id"
	FindUnknownRole         = "unknown_role"
	findNone                = ""
	statusInPlace           = 1
	statusMovable           = 2
	statusDuplicate         = 3
	statusOrphan            = 4
	noGroup             int = -1
)

// Finding is one thing the provider would reject. Index is the message
// index; Path, when set, points inside that message.
type Finding struct {
	Kind    string
	Index   int
	Path    string
	IDs     []string
	Message string
}

type loc struct{ msg, part int }

// group is one assistant turn's calls and the region where its results must
// sit: messages [lo, hi).
type group struct {
	at     int
	calls  []loc
	lo, hi int
}

type resInfo struct {
	status int
	g, k   int
	why    string
}

// analysis is the placement of every result of a list against the rules of
// its format.
type analysis struct {
	f        Format
	msgs     []Message
	groups   []group
	regionOf []int
	answer   [][]loc         // in-place result of each call, msg -1 when none
	claim    [][]loc         // the result repair moves to each call, msg -1 when none
	dupCall  map[[2]int]bool // a call whose id an earlier call already has
	res      map[loc]resInfo
	other    map[int]int              // message -> first non-result part (firstOther)
	noID     map[int]map[string][]int // group -> calls without an id (unnamed)
}

func (a *analysis) call(g, k int) *Call {
	l := a.groups[g].calls[k]
	return &a.msgs[l.msg].Parts[l.part].Call
}

func (a *analysis) part(l loc) *Part { return &a.msgs[l.msg].Parts[l.part] }

func hasKind(m Message, k Kind) bool {
	for _, p := range m.Parts {
		if p.Kind == k {
			return true
		}
	}
	return false
}

func callLocs(msgs []Message, lo, hi int) []loc {
	var out []loc
	for i := lo; i < hi; i++ {
		for j, p := range msgs[i].Parts {
			if p.Kind == KindCall {
				out = append(out, loc{i, j})
			}
		}
	}
	return out
}

// findGroups finds the call turns and their reply regions.
func findGroups(f Format, msgs []Message) []group {
	var gs []group
	n := len(msgs)
	for i := 0; i < n; i++ {
		m := msgs[i]
		if m.Role != RoleAssistant || !hasKind(m, KindCall) {
			continue
		}
		switch f {
		case OpenAIChat:
			j := i + 1
			for j < n && msgs[j].Role == RoleTool {
				j++
			}
			gs = append(gs, group{at: i, calls: callLocs(msgs, i, i+1), lo: i + 1, hi: j})
		case OpenAIResponses:
			j := i
			for j < n && (msgs[j].Role == RoleTool || (msgs[j].Role == RoleAssistant && len(msgs[j].Parts) == 1 && msgs[j].Parts[0].Kind == KindCall)) {
				j++
			}
			if j == i {
				j = i + 1
			}
			gs = append(gs, group{at: i, calls: callLocs(msgs, i, j), lo: i, hi: j})
			i = j - 1
		case Anthropic, Bedrock:
			hi := i + 1
			if i+1 < n && msgs[i+1].Role == RoleUser {
				hi = i + 2
			}
			gs = append(gs, group{at: i, calls: callLocs(msgs, i, i+1), lo: i + 1, hi: hi})
		case Gemini:
			j := i + 1
			for j < n && msgs[j].Role == RoleUser && hasKind(msgs[j], KindResult) {
				j++
			}
			gs = append(gs, group{at: i, calls: callLocs(msgs, i, i+1), lo: i + 1, hi: j})
		}
	}
	return gs
}

// inPlace reports whether the result at l sits where its format requires for
// call k of group g.
func (a *analysis) inPlace(l loc, g, k int) bool {
	gr := a.groups[g]
	if l.msg < gr.lo || l.msg >= gr.hi {
		return false
	}
	switch a.f {
	case OpenAIResponses:
		return l.msg > gr.calls[k].msg
	case Anthropic, Bedrock:
		return l.part <= a.firstOther(l.msg)
	case Gemini:
		return l.msg == gr.lo
	}
	return true
}

// firstOther returns the index of the first part of message i that is not a
// result (len(Parts) when there is none), computed once per message.
func (a *analysis) firstOther(i int) int {
	if a.other == nil {
		a.other = map[int]int{}
	}
	if n, ok := a.other[i]; ok {
		return n
	}
	n := len(a.msgs[i].Parts)
	for j, p := range a.msgs[i].Parts {
		if p.Kind != KindResult {
			n = j
			break
		}
	}
	a.other[i] = n
	return n
}

// unnamed returns, for group g, the calls without an id in call order, keyed
// by the name results pair on ("" outside Gemini, where order alone pairs).
func (a *analysis) unnamed(g int) map[string][]int {
	if a.noID == nil {
		a.noID = map[int]map[string][]int{}
	}
	if m, ok := a.noID[g]; ok {
		return m
	}
	m := map[string][]int{}
	for k := range a.groups[g].calls {
		if c := a.call(g, k); c.ID == "" {
			name := c.Name
			if a.f != Gemini {
				name = ""
			}
			m[name] = append(m[name], k)
		}
	}
	a.noID[g] = m
	return m
}

func analyze(f Format, msgs []Message) *analysis {
	a := &analysis{f: f, msgs: msgs, groups: findGroups(f, msgs), res: map[loc]resInfo{}, dupCall: map[[2]int]bool{}}
	a.regionOf = make([]int, len(msgs))
	for i := range a.regionOf {
		a.regionOf[i] = noGroup
	}
	byID := map[string][2]int{}
	a.answer = make([][]loc, len(a.groups))
	a.claim = make([][]loc, len(a.groups))
	for g, gr := range a.groups {
		for i := gr.lo; i < gr.hi; i++ {
			a.regionOf[i] = g
		}
		a.answer[g] = make([]loc, len(gr.calls))
		a.claim[g] = make([]loc, len(gr.calls))
		for k := range gr.calls {
			a.answer[g][k] = loc{-1, -1}
			a.claim[g][k] = loc{-1, -1}
			if id := a.call(g, k).ID; id != "" {
				if _, dup := byID[id]; !dup {
					byID[id] = [2]int{g, k}
				} else {
					a.dupCall[[2]int{g, k}] = true
				}
			}
		}
	}
	// Match every result to a call: by id, or (Gemini without ids) by name
	// and order inside the region.
	var order []loc
	nameSeen := map[int]map[string]int{}
	for i, m := range msgs {
		for j, p := range m.Parts {
			if p.Kind != KindResult {
				continue
			}
			l := loc{i, j}
			order = append(order, l)
			info := resInfo{g: noGroup, k: -1}
			if id := p.Result.ID(); id != "" {
				if gk, ok := byID[id]; ok {
					info.g, info.k = gk[0], gk[1]
				}
			} else if g := a.regionOf[i]; g != noGroup {
				// no id: Gemini pairs by name and order; the other formats
				// (where an empty id is itself a finding) by order alone
				name := p.Result.Outcome.Call.Name
				if f != Gemini {
					name = ""
				}
				if nameSeen[g] == nil {
					nameSeen[g] = map[string]int{}
				}
				nth := nameSeen[g][name]
				nameSeen[g][name]++
				if ks := a.unnamed(g)[name]; nth < len(ks) {
					info.g, info.k = g, ks[nth]
				}
			}
			if info.g != noGroup && a.answer[info.g][info.k].msg < 0 && a.inPlace(l, info.g, info.k) {
				info.status = statusInPlace
				a.answer[info.g][info.k] = l
			}
			a.res[l] = info
		}
	}
	for _, l := range order {
		info := a.res[l]
		switch {
		case info.status == statusInPlace:
			continue
		case info.g == noGroup:
			info.status = statusOrphan
		case a.answer[info.g][info.k].msg >= 0 || a.claim[info.g][info.k].msg >= 0:
			info.status = statusDuplicate
		default:
			info.status = statusMovable
			a.claim[info.g][info.k] = l
			gr := a.groups[info.g]
			switch {
			case (f == Anthropic || f == Bedrock) && l.msg == gr.lo:
				info.why = FindResultNotFirst
			case f == Gemini && l.msg > gr.lo && l.msg < gr.hi:
				info.why = FindResponsesSplit
			default:
				info.why = FindMisplacedResult
			}
		}
		a.res[l] = info
	}
	return a
}

// callKey names a call in findings: its id, or its function name when the
// format has no id (Gemini).
func callKey(c *Call) string {
	if c.ID != "" {
		return c.ID
	}
	return c.Name
}

func resultKey(r *Result) string {
	if r.ID() != "" {
		return r.ID()
	}
	return r.Outcome.Call.Name
}

// findingSet collects findings, merging ids of the same kind at the same
// message.
type findingSet struct {
	list []Finding
	at   map[[2]any]int
}

func (s *findingSet) add(kind string, index int, path, id, msg string) {
	if s.at == nil {
		s.at = map[[2]any]int{}
	}
	key := [2]any{kind, index}
	if path == "" {
		if i, ok := s.at[key]; ok {
			if id != "" {
				s.list[i].IDs = append(s.list[i].IDs, id)
			}
			return
		}
		s.at[key] = len(s.list)
	}
	f := Finding{Kind: kind, Index: index, Path: path, IDs: []string{}, Message: msg}
	if id != "" {
		f.IDs = append(f.IDs, id)
	}
	s.list = append(s.list, f)
}

// Check returns every finding of a list read from f, in message order.
// rules names the id rules to apply ("" = those of f).
func Check(f Format, msgs []Message, rules string) []Finding {
	a := analyze(f, msgs)
	var s findingSet
	type ev struct {
		l             loc
		kind, id, msg string
		path          string
	}
	var evs []ev
	for g, gr := range a.groups {
		for k, cl := range gr.calls {
			if a.answer[g][k].msg < 0 && a.claim[g][k].msg < 0 && !a.dupCall[[2]int{g, k}] {
				evs = append(evs, ev{l: cl, kind: FindUnansweredCall, id: callKey(a.call(g, k)), msg: unansweredMsg(f)})
			}
		}
		if f == Gemini && gr.hi > gr.lo {
			n := 0
			for _, p := range msgs[gr.lo].Parts {
				if p.Kind == KindResult {
					n++
				}
			}
			if n != len(gr.calls) {
				evs = append(evs, ev{l: loc{gr.lo, -1}, kind: FindResponseCount, msg: "Gemini needs exactly one functionResponse per functionCall of the turn, in one content (" + strconv.Itoa(n) + " responses for " + strconv.Itoa(len(gr.calls)) + " calls)."})
			}
			for i := gr.lo; i < gr.hi; i++ {
				for j, p := range msgs[i].Parts {
					if p.Kind != KindResult {
						evs = append(evs, ev{l: loc{i, j}, kind: FindExtraPart, path: partPath(f, i, j), msg: "The content answering function calls holds only functionResponse parts; other parts go in a content of their own."})
					}
				}
			}
		}
	}
	seen := map[string]bool{}
	for i, m := range msgs {
		if m.UnknownRole {
			evs = append(evs, ev{l: loc{i, -1}, kind: FindUnknownRole, path: field.Join(field.Index("messages", i), "role"), msg: unknownRoleMsg(f)})
		}
		for j := range m.Parts {
			p := &msgs[i].Parts[j]
			l := loc{i, j}
			switch p.Kind {
			case KindCall:
				if p.Call.ID != "" {
					if seen[p.Call.ID] {
						evs = append(evs, ev{l: l, kind: FindDuplicateCallID, id: p.Call.ID, msg: "Two tool calls share this id; providers require call ids to be unique."})
					}
					seen[p.Call.ID] = true
				}
				if !validID(idRules(f, rules), p.Call.ID) {
					evs = append(evs, ev{l: l, kind: FindInvalidID, id: p.Call.ID, path: partPath(f, i, j), msg: idRuleText(idRules(f, rules))})
				}
			case KindResult:
				info := a.res[l]
				id := resultKey(&p.Result)
				switch info.status {
				case statusOrphan:
					evs = append(evs, ev{l: l, kind: FindOrphanResult, id: id, msg: "This tool result answers no tool call of the turn before it."})
				case statusDuplicate:
					evs = append(evs, ev{l: l, kind: FindDuplicateResult, id: id, msg: "This tool call already has a result; a second one is rejected."})
				case statusMovable:
					evs = append(evs, ev{l: l, kind: info.why, id: id, msg: misplacedMsg(f, info.why)})
				}
				if info.g != noGroup && f == Gemini && p.Result.ID() != "" {
					if c := a.call(info.g, info.k); c.Name != p.Result.Outcome.Call.Name {
						evs = append(evs, ev{l: l, kind: FindNameMismatch, id: id, path: partPath(f, i, j), msg: nameMismatchMsg(c.Name)})
					}
				}
				if f != Gemini && !validID(idRules(f, rules), p.Result.ID()) {
					evs = append(evs, ev{l: l, kind: FindInvalidID, id: p.Result.ID(), path: partPath(f, i, j), msg: idRuleText(idRules(f, rules))})
				}
				if emptyResult(f, p) {
					evs = append(evs, ev{l: l, kind: FindEmptyText, id: id, path: partPath(f, i, j), msg: "This tool result's text is empty, which " + string(f) + " rejects; repair writes " + outcome.EmptyPlaceholder + "."})
				}
			case KindText:
				if emptyTextRejected(f, m) && outcome.IsBlank(p.Text) {
					evs = append(evs, ev{l: l, kind: FindEmptyText, path: partPath(f, i, j), msg: "Empty text blocks are rejected by " + string(f) + "."})
				}
			}
		}
	}
	// message order, then the order events were raised within a message: a
	// counting sort by message (linear; one pass per message was quadratic)
	start := make([]int, len(msgs)+1)
	for _, e := range evs {
		start[e.l.msg+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	sorted := make([]*ev, len(evs))
	for i := range evs {
		e := &evs[i]
		sorted[start[e.l.msg]] = e
		start[e.l.msg]++
	}
	for _, e := range sorted {
		s.add(e.kind, e.l.msg, e.path, e.id, e.msg)
	}
	if s.list == nil {
		return []Finding{}
	}
	return s.list
}

// nameMismatchMsg says which name a Gemini response must carry (the call's
// name as displayName allows).
func nameMismatchMsg(name string) string {
	if n := displayName(name); n != "" {
		return "functionResponse.name must equal the name of the functionCall it answers (" + n + ")."
	}
	return "functionResponse.name must equal the name of the functionCall it answers."
}

// unknownRoleMsg names the roles f accepts (the role given is not quoted:
// it is caller text).
func unknownRoleMsg(f Format) string {
	roles := "user and assistant"
	switch f {
	case OpenAIChat:
		roles = "system, developer, user, assistant, tool and function"
	case OpenAIResponses:
		roles = "system, developer, user and assistant"
	case Gemini:
		roles = "user and model"
	}
	return "This message's role is missing or not one " + string(f) + " accepts (" + roles + ")."
}

func unansweredMsg(f Format) string {
	switch f {
	case OpenAIChat:
		return "Every tool call needs a tool message with its id right after the assistant message."
	case OpenAIResponses:
		return "Every function_call needs a function_call_output with its call_id."
	case Anthropic:
		return "Every tool_use needs a tool_result in the very next user message."
	case Gemini:
		return "Every functionCall needs a functionResponse in the next content."
	}
	return "Every toolUse needs a toolResult in the very next user message."
}

func misplacedMsg(f Format, why string) string {
	switch why {
	case FindResultNotFirst:
		return "tool_result blocks must come before any other content of the user message."
	case FindResponsesSplit:
		return "The responses to one turn's function calls must all be in one content."
	}
	switch f {
	case OpenAIChat:
		return "This tool message is not in the run of tool messages right after its assistant message."
	case OpenAIResponses:
		return "This function_call_output is not after its function_call in the same run of items."
	}
	return "This result is not in the message right after its call."
}

// partPath is the request path of part j of message i.
func partPath(f Format, i, j int) string {
	p := field.Index("messages", i)
	switch f {
	case OpenAIChat:
		return p
	case OpenAIResponses:
		return p
	case Gemini:
		return field.Index(field.Join(p, "parts"), j)
	}
	return field.Index(field.Join(p, "content"), j)
}

// emptyResult reports a tool result whose text the format rejects as empty
// (B12: Anthropic text blocks, OpenAI content and output; Bedrock accepts an
// empty text in a toolResult and Gemini carries an object).
func emptyResult(f Format, p *Part) bool {
	if f == Gemini || f == Bedrock || p.Result.Outcome.Error != nil {
		return false
	}
	r := p.Result.Outcome.Result
	if r == nil {
		return false
	}
	if f == Anthropic {
		if raw, ok := p.Raw.(map[string]any); ok {
			if _, has := raw["content"]; !has {
				return false // content omitted is an empty result Anthropic accepts
			}
		}
		if r.Kind == outcome.Blocks {
			for _, b := range r.Blocks {
				if b.Type == "text" && outcome.IsBlank(b.Text) {
					return true
				}
			}
		}
	}
	return r.Kind == outcome.Empty && p.Raw != nil
}

// emptyTextRejected says whether blank text parts of message m are rejected.
func emptyTextRejected(f Format, m Message) bool {
	switch f {
	case Anthropic:
		return true
	case Bedrock:
		return m.Role == RoleUser || m.Role == RoleAssistant
	case Gemini:
		return m.Role == RoleUser
	}
	return false
}
