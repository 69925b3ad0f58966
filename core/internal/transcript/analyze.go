package transcript

import (
	"github.com/toolerr/toolerr/core/internal/format/dialect"
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

// loc is where a part sits: message msg, part part (-1 for a whole
// message).
type loc struct{ msg, part int }

// noLoc is the loc of nothing.
func noLoc() loc { return loc{-1, -1} }

// callRef names call call of group group.
type callRef struct{ group, call int }

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
	d        *dialect.Dialect
	msgs     []Message
	groups   []group
	regionOf []int
	answer   [][]loc          // in-place result of each call, msg -1 when none
	claim    [][]loc          // the result repair moves to each call, msg -1 when none
	dupCall  map[callRef]bool // a call whose id an earlier call already has
	res      map[loc]resInfo
	other    map[int]int              // message -> first non-result part (firstOther)
	noID     map[int]map[string][]int // group -> calls without an id (unnamed)
}

func (a *analysis) call(g, k int) *Call {
	l := a.groups[g].calls[k]
	return &a.msgs[l.msg].Parts[l.part].Call
}

func (a *analysis) part(l loc) *Part { return &a.msgs[l.msg].Parts[l.part] }

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

// findGroups finds the call turns and their reply regions, as placement p
// draws them.
func findGroups(p dialect.Placement, msgs []Message) []group {
	var gs []group
	n := len(msgs)
	for i := 0; i < n; i++ {
		m := msgs[i]
		if m.Role != RoleAssistant || !dialect.HasKind(m, KindCall) {
			continue
		}
		switch p {
		case dialect.ToolMessages:
			j := i + 1
			for j < n && msgs[j].Role == RoleTool {
				j++
			}
			gs = append(gs, group{at: i, calls: callLocs(msgs, i, i+1), lo: i + 1, hi: j})
		case dialect.AfterCall:
			j := i
			for j < n && (msgs[j].Role == RoleTool || (msgs[j].Role == RoleAssistant && len(msgs[j].Parts) == 1 && msgs[j].Parts[0].Kind == KindCall)) {
				j++
			}
			if j == i {
				j = i + 1
			}
			gs = append(gs, group{at: i, calls: callLocs(msgs, i, j), lo: i, hi: j})
			i = j - 1
		case dialect.NextUserFirst:
			hi := i + 1
			if i+1 < n && msgs[i+1].Role == RoleUser {
				hi = i + 2
			}
			gs = append(gs, group{at: i, calls: callLocs(msgs, i, i+1), lo: i + 1, hi: hi})
		case dialect.NextContent:
			j := i + 1
			for j < n && msgs[j].Role == RoleUser && dialect.HasKind(msgs[j], KindResult) {
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
	switch a.d.Placement {
	case dialect.AfterCall:
		return l.msg > gr.calls[k].msg
	case dialect.NextUserFirst:
		return l.part <= a.firstOther(l.msg)
	case dialect.NextContent:
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
			if a.d.Placement != dialect.NextContent {
				name = ""
			}
			m[name] = append(m[name], k)
		}
	}
	a.noID[g] = m
	return m
}

func analyze(d *dialect.Dialect, msgs []Message) *analysis {
	a := &analysis{d: d, msgs: msgs, groups: findGroups(d.Placement, msgs), res: map[loc]resInfo{}, dupCall: map[callRef]bool{}}
	a.regionOf = make([]int, len(msgs))
	for i := range a.regionOf {
		a.regionOf[i] = noGroup
	}
	byID := map[string]callRef{}
	a.answer = make([][]loc, len(a.groups))
	a.claim = make([][]loc, len(a.groups))
	for g, gr := range a.groups {
		for i := gr.lo; i < gr.hi; i++ {
			a.regionOf[i] = g
		}
		a.answer[g] = make([]loc, len(gr.calls))
		a.claim[g] = make([]loc, len(gr.calls))
		for k := range gr.calls {
			a.answer[g][k] = noLoc()
			a.claim[g][k] = noLoc()
			if id := a.call(g, k).ID; id != "" {
				if _, dup := byID[id]; !dup {
					byID[id] = callRef{g, k}
				} else {
					a.dupCall[callRef{g, k}] = true
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
					info.g, info.k = gk.group, gk.call
				}
			} else if g := a.regionOf[i]; g != noGroup {
				// no id: Gemini pairs by name and order; the other formats
				// (where an empty id is itself a finding) by order alone
				name := p.Result.Outcome.Call.Name
				if d.Placement != dialect.NextContent {
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
			case d.Placement == dialect.NextUserFirst && l.msg == gr.lo:
				info.why = FindResultNotFirst
			case d.Placement == dialect.NextContent && l.msg > gr.lo && l.msg < gr.hi:
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

// findingKey is a finding kind at a message.
type findingKey struct {
	kind  string
	index int
}

// findingSet collects findings, merging ids of the same kind at the same
// message.
type findingSet struct {
	list []Finding
	at   map[findingKey]int
}

func (s *findingSet) add(kind string, index int, path, id, msg string) {
	if s.at == nil {
		s.at = map[findingKey]int{}
	}
	key := findingKey{kind, index}
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
	d := dialectOf(f)
	ids := idRule(d, rules)
	a := analyze(d, msgs)
	var s findingSet
	type ev struct {
		l             loc
		kind, id, msg string
		path          string
	}
	var evs []ev
	for g, gr := range a.groups {
		for k, cl := range gr.calls {
			if a.answer[g][k].msg < 0 && a.claim[g][k].msg < 0 && !a.dupCall[callRef{g, k}] {
				evs = append(evs, ev{l: cl, kind: FindUnansweredCall, id: callKey(a.call(g, k)), msg: d.Unanswered})
			}
		}
		if d.Placement == dialect.NextContent && gr.hi > gr.lo {
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
						evs = append(evs, ev{l: loc{i, j}, kind: FindExtraPart, path: partPath(d, i, j), msg: "The content answering function calls holds only functionResponse parts; other parts go in a content of their own."})
					}
				}
			}
		}
	}
	seen := map[string]bool{}
	for i, m := range msgs {
		if m.UnknownRole {
			evs = append(evs, ev{l: loc{i, -1}, kind: FindUnknownRole, path: field.Join(field.Index("messages", i), "role"), msg: unknownRoleMsg(d)})
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
				if !ids.Valid(p.Call.ID) {
					evs = append(evs, ev{l: l, kind: FindInvalidID, id: p.Call.ID, path: partPath(d, i, j), msg: ids.Text})
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
					evs = append(evs, ev{l: l, kind: info.why, id: id, msg: misplacedMsg(d, info.why)})
				}
				if info.g != noGroup && d.Placement == dialect.NextContent && p.Result.ID() != "" {
					if c := a.call(info.g, info.k); c.Name != p.Result.Outcome.Call.Name {
						evs = append(evs, ev{l: l, kind: FindNameMismatch, id: id, path: partPath(d, i, j), msg: nameMismatchMsg(c.Name)})
					}
				}
				if d.Placement != dialect.NextContent && !ids.Valid(p.Result.ID()) {
					evs = append(evs, ev{l: l, kind: FindInvalidID, id: p.Result.ID(), path: partPath(d, i, j), msg: ids.Text})
				}
				if emptyResult(d, p) {
					evs = append(evs, ev{l: l, kind: FindEmptyText, id: id, path: partPath(d, i, j), msg: "This tool result's text is empty, which " + string(f) + " rejects; repair writes " + outcome.EmptyPlaceholder + "."})
				}
			case KindText:
				if d.EmptyText != nil && d.EmptyText(m) && outcome.IsBlank(p.Text) {
					evs = append(evs, ev{l: l, kind: FindEmptyText, path: partPath(d, i, j), msg: "Empty text blocks are rejected by " + string(f) + "."})
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
	if n := dialect.DisplayName(name); n != "" {
		return "functionResponse.name must equal the name of the functionCall it answers (" + n + ")."
	}
	return "functionResponse.name must equal the name of the functionCall it answers."
}

// unknownRoleMsg names the roles d accepts (the role given is not quoted:
// it is caller text).
func unknownRoleMsg(d *dialect.Dialect) string {
	return "This message's role is missing or not one " + d.Name + " accepts (" + d.RoleNames + ")."
}

// misplacedMsg says where a moved result must go: first in the user message
// (result_not_first), in one content (responses_split), or where d's
// placement wants it.
func misplacedMsg(d *dialect.Dialect, why string) string {
	switch why {
	case FindResultNotFirst:
		return "tool_result blocks must come before any other content of the user message."
	case FindResponsesSplit:
		return "The responses to one turn's function calls must all be in one content."
	}
	if d.Misplaced != "" {
		return d.Misplaced
	}
	return "This result is not in the message right after its call."
}

// partPath is the request path of part j of message i: the message itself
// where a part is a message of its own (d.PartsKey "").
func partPath(d *dialect.Dialect, i, j int) string {
	p := field.Index("messages", i)
	if d.PartsKey == "" {
		return p
	}
	return field.Index(field.Join(p, d.PartsKey), j)
}

// emptyResult reports a tool result whose text d rejects as empty (an
// envelope never is).
func emptyResult(d *dialect.Dialect, p *Part) bool {
	if d.EmptyResult == nil || p.Result.Outcome.Error != nil || p.Result.Outcome.Result == nil {
		return false
	}
	return d.EmptyResult(p)
}
