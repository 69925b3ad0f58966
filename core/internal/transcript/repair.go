package transcript

import (
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Changes is what Repair changed. IDs lists every call id it touched, in
// order of first change (Gemini calls without ids by function name).
//
// Renamed counts the calls that repeated an id of their own turn and got a
// new one (their results with them); IDMap maps each new id to the
// original, nil when none was renamed. Split counts the parts written apart
// from an element that held several (a Gemini part with two data fields).
type Changes struct {
	Synthesized       int
	DroppedOrphans    int
	DroppedDuplicates int
	Moved             int
	Merged            int
	Filled            int
	Renamed           int
	Split             int
	IDs               []string
	IDMap             map[string]string
}

// Any reports whether repair changed anything.
func (c Changes) Any() bool {
	return c.Synthesized+c.DroppedOrphans+c.DroppedDuplicates+c.Moved+c.Merged+c.Filled+c.Renamed+c.Split > 0 || len(c.IDs) > 0
}

// idList is a list of distinct ids in order of first add, with a set so
// that adding is O(1) (a 20,000-result repair stays linear).
type idList struct {
	ids  []string
	seen map[string]bool
}

func (l *idList) add(id string) {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if !l.seen[id] {
		l.seen[id] = true
		l.ids = append(l.ids, id)
	}
}

// source is where the result a call is answered with comes from.
type source uint8

// The sources of an answer.
const (
	fromKept  source = iota + 1 // the result already in place
	fromMoved                   // a misplaced result, moved here
	fromSynth                   // a NO_RESULT result made for a call that had none
)

// answer is what one call is answered with: the result part, where it sits
// when it is kept in place, and where it comes from.
type answer struct {
	part Part
	at   loc
	from source
}

// repair is the state of one Repair: the analysis of the list, what was
// taken out of which message, which reply regions must be rebuilt, the
// answer of every call, and the list being built.
type repair struct {
	d       *dialect.Dialect
	a       *analysis
	msgs    []Message
	ch      Changes
	touched idList
	taken   map[callRef]Part // a misplaced result, by the call it answers (nil: none)
	removed []map[int]bool   // message -> parts taken out of it (nil: none; removedAt)
	rebuild []bool           // group -> its reply region is rebuilt
	plan    [][]answer       // group -> call -> its answer
	ids     dialect.IDRule   // the rules a renamed id follows
	copied  map[int]bool     // messages whose parts setID has copied
	out     []Message
	// the analysis a points to, and room for rebuild and plan (see room)
	analysis    analysis
	rebuildRoom [roomTurns]bool
	planRoom    [roomTurns][]answer
}

// Repair returns msgs with every call answered exactly once where f requires
// it:
//   - a call without a result gets a NO_RESULT error result (retryable false);
//   - a result with no call is dropped, a second result for a call is dropped;
//   - a result in the wrong place is moved to where f requires it;
//   - a tool result whose text f rejects as empty gets outcome.EmptyPlaceholder.
//
// It runs in four phases, one function each: take out every result that is
// not in place (takeOut), decide each call's answer (planAnswers), write the
// answers where the placement wants them (insertAfter for tool messages and
// items, rebuildReplies for a reply message or content), and fill empty
// result text (fillEmpty). Placement: openai-chat and openai-responses
// append after the existing tool messages or output items of the turn;
// anthropic and bedrock rebuild the next user message with
// all results first, in tool_use order; gemini rebuilds the content after
// the call turn with exactly one response per call in call order and merges
// split contents into it. A list check finds nothing in comes back
// unchanged.
//
// With server-held state (opts.Server, opts.OpenCalls), an output answering
// an open call of the referenced response is in place, an open call without
// an output gets a NO_RESULT output at the head of the list, and an output
// whose call is unknown is kept (unverified) unless OpenCalls says it
// answers nothing.
func Repair(f Format, msgs []Message, opts Options) ([]Message, Changes) {
	d := dialectFor(f, opts)
	msgs, off := withServer(msgs, opts)
	r := &repair{d: d, msgs: msgs, ids: idRule(d, opts.IDRules)}
	r.a = &r.analysis
	r.a.init(d, msgs, opts.server() && opts.OpenCalls == nil)
	r.rebuild = room(r.rebuildRoom[:], len(r.a.groups))[:len(r.a.groups)]
	r.takeOut()
	r.planAnswers()
	r.renameDuplicates()
	r.out = make([]Message, 0, len(msgs)+4)
	switch d.Placement {
	case dialect.ToolMessages, dialect.AfterCall:
		r.insertAfter()
	default:
		r.rebuildReplies()
	}
	r.fillEmpty()
	r.splitParts()
	r.ch.IDs = r.touched.ids
	if r.ch.IDs == nil {
		r.ch.IDs = []string{}
	}
	if off > 0 {
		r.out = r.out[off:] // the server message stays first: nothing is inserted before it
	}
	return r.out, r.ch
}

// takeOut removes every result that is not in place from its message:
// orphans and second results are dropped (and counted), misplaced ones are
// kept aside for the call they answer. The regions they leave are rebuilt.
func (r *repair) takeOut() {
	a := r.a
	for _, l := range a.order {
		info := a.resOf(l)
		if info.status == statusInPlace || info.status == statusUnverified {
			continue
		}
		if r.removed == nil {
			r.removed = make([]map[int]bool, len(r.msgs))
		}
		if r.removed[l.msg] == nil {
			r.removed[l.msg] = map[int]bool{}
		}
		r.removed[l.msg][l.part] = true
		if g := a.regionOf[l.msg]; g != noGroup {
			r.rebuild[g] = true
		}
		switch info.status {
		case statusOrphan:
			r.ch.DroppedOrphans++
		case statusDuplicate:
			r.ch.DroppedDuplicates++
		case statusMovable:
			if r.taken == nil {
				r.taken = map[callRef]Part{}
			}
			r.taken[callRef{info.g, info.k}] = *a.part(l)
			r.rebuild[info.g] = true
		}
	}
	// the change list in message order, whatever the map order above
	for i, m := range r.msgs {
		for j, p := range m.Parts {
			if p.Kind == KindResult && r.removedAt(i)[j] {
				r.touched.add(resultKey(&r.msgs[i].Parts[j].Result))
			}
		}
	}
	if r.d.Placement == dialect.NextContent {
		// a reply content holding anything but responses is rebuilt
		for g, gr := range a.groups {
			for i := gr.lo; i < gr.hi; i++ {
				if !allResults(r.msgs[i]) {
					r.rebuild[g] = true
				}
			}
		}
	}
}

// planAnswers decides the answer of every call, in call order: its result
// in place, the misplaced result taken out for it, or a synthesized
// NO_RESULT result.
func (r *repair) planAnswers() {
	a := r.a
	r.plan = room(r.planRoom[:], len(a.groups))[:len(a.groups)]
	n := 0
	for _, gr := range a.groups {
		n += len(gr.calls)
	}
	all := make([]answer, n) // one array for every group's answers
	for g, gr := range a.groups {
		c := len(gr.calls)
		r.plan[g], all = all[:c:c], all[c:]
		for k := range gr.calls {
			ref := callRef{g, k}
			switch {
			case a.answer[g][k].msg >= 0:
				l := a.answer[g][k]
				r.plan[g][k] = answer{part: *a.part(l), at: l, from: fromKept}
			case a.claim[g][k].msg >= 0:
				r.plan[g][k] = answer{part: r.taken[ref], at: noLoc(), from: fromMoved}
				r.ch.Moved++
			default:
				c := *a.call(g, k)
				r.plan[g][k] = answer{part: synthResult(c), at: noLoc(), from: fromSynth}
				r.ch.Synthesized++
				r.touched.add(callKey(&c))
				r.rebuild[g] = true
			}
		}
	}
}

// renameDuplicates gives every call that repeats an id of its own turn a
// new id, and its answer with it (ids pair within their turn, so the n-th
// result with the id answers the n-th call with it). The new id follows the
// list's id rules and is derived from the original as normalize_ids derives
// one, distinct from every id of the list.
func (r *repair) renameDuplicates() {
	a := r.a
	if len(a.dupCall) == 0 {
		return
	}
	r.msgs = append([]Message(nil), r.msgs...) // renamed below; the caller's list stays as it was
	pool := newIDPool(r.msgs)
	r.ch.IDMap = map[string]string{}
	for g, gr := range a.groups {
		for k, cl := range gr.calls {
			if !a.dupCall[callRef{g, k}] {
				continue
			}
			orig := a.call(g, k).ID
			id := pool.fresh(r.ids, orig)
			r.ch.IDMap[id] = orig
			r.ch.Renamed++
			r.touched.add(orig)
			r.setID(cl, true, id)
			ans := &r.plan[g][k]
			if ans.from == fromKept {
				r.setID(ans.at, false, id)
				ans.part = r.msgs[ans.at.msg].Parts[ans.at.part]
			} else {
				ans.part = renamed(r.d, ans.part, false, id)
			}
			r.rebuild[g] = r.rebuild[g] || ans.from != fromKept
		}
	}
}

// setID renames the call (call true) or result at l in the list being
// repaired, copying the parts of its message first.
func (r *repair) setID(l loc, call bool, id string) {
	m := &r.msgs[l.msg]
	if !r.copied[l.msg] { // once per message: a turn of n renamed calls stays linear
		if r.copied == nil {
			r.copied = map[int]bool{}
		}
		m.Parts = append([]Part(nil), m.Parts...)
		r.copied[l.msg] = true
	}
	m.Parts[l.part] = renamed(r.d, m.Parts[l.part], call, id)
	m.Dirty = true
}

// renamed returns p with its id (a call's, or the id of the call a result
// answers) set to id, in its raw tree too (only the id member changes, as
// applyIDs does; a part toolerr made has no raw tree and is written anew).
func renamed(d *dialect.Dialect, p Part, call bool, id string) Part {
	if call {
		p.Call.ID = id
	} else {
		p.Result.Outcome.Call.ID = id
	}
	p.Raw = d.SetID(p.Raw, call, id)
	return p
}

// removedAt returns the parts takeOut removed from message i (nil: none).
func (r *repair) removedAt(i int) map[int]bool {
	if r.removed == nil {
		return nil
	}
	return r.removed[i]
}

// keep returns message i without the parts takeOut removed.
func (r *repair) keep(i int) Message {
	m := r.msgs[i]
	if len(r.removedAt(i)) == 0 {
		return m
	}
	parts := make([]Part, 0, len(m.Parts))
	for j, p := range m.Parts {
		if !r.removedAt(i)[j] {
			parts = append(parts, p)
		}
	}
	m.Parts, m.Dirty = parts, true
	return m
}

// without returns message i without the parts takeOut removed and without
// those at held (results a rebuilt reply already holds).
func (r *repair) without(i int, held map[loc]bool) Message {
	m := r.keep(i)
	if len(held) == 0 {
		return m
	}
	parts := make([]Part, 0, len(r.msgs[i].Parts))
	for j, p := range r.msgs[i].Parts {
		if !r.removedAt(i)[j] && !held[loc{i, j}] {
			parts = append(parts, p)
		}
	}
	if len(parts) != len(m.Parts) {
		m.Parts, m.Dirty = parts, true
	}
	return m
}

// emit appends m to the output, unless taking its results away emptied it.
func (r *repair) emit(m Message) {
	if len(m.Parts) == 0 && m.Dirty {
		return
	}
	r.out = append(r.out, m)
}

// insertAfter writes the list for placements where a result is a message of
// its own: each moved or synthesized result is inserted, in call order,
// after the last message of its turn's run (the last tool message, or the
// last call or output item of the turn), so that the outputs of one turn
// stay after all of its calls.
func (r *repair) insertAfter() {
	a := r.a
	after := map[int][]Part{} // message -> results inserted after it
	for g, gr := range a.groups {
		for _, s := range r.plan[g] {
			if s.from == fromKept {
				continue
			}
			at := max(gr.hi-1, gr.at)
			after[at] = append(after[at], s.part)
		}
	}
	for i := range r.msgs {
		r.emit(r.keep(i))
		for _, p := range after[i] {
			r.out = append(r.out, Message{Role: RoleTool, Parts: []Part{p}, Raw: p.Raw, Dirty: p.Raw == nil})
		}
	}
}

// rebuildReplies writes the list for placements where results share the
// reply message (NextUserFirst) or content (NextContent): every call turn
// whose region changed gets its reply rebuilt, other messages stay.
func (r *repair) rebuildReplies() {
	a := r.a
	groupAt := map[int]int{}
	for g, gr := range a.groups {
		groupAt[gr.at] = g
	}
	for i := 0; i < len(r.msgs); i++ {
		g, isCall := groupAt[i]
		if !isCall {
			if a.regionOf[i] == noGroup || !r.rebuild[a.regionOf[i]] {
				r.emit(r.keep(i))
			}
			continue
		}
		r.emit(r.keep(i))
		if r.rebuild[g] {
			r.reply(g)
			i = max(i, a.groups[g].hi-1)
		}
	}
}

// reply writes the rebuilt reply of group g: its answers in call order,
// then (NextUserFirst) the other blocks of the reply message, or
// (NextContent) the other parts in a content of their own and the split
// contents merged away.
func (r *repair) reply(g int) {
	gr := r.a.groups[g]
	results := make([]Part, 0, len(gr.calls))
	var inOrder []int        // where the kept results sit (message, part), in call order
	keptAt := map[loc]bool{} // the kept results, which the rebuilt reply now holds
	for _, s := range r.plan[g] {
		results = append(results, s.part)
		if s.from == fromKept {
			inOrder = append(inOrder, s.at.msg<<32|s.at.part)
			keptAt[s.at] = true
		}
	}
	r.ch.Moved += len(inOrder) - lis(inOrder)
	head := Message{Role: RoleUser, Dirty: true}
	var extra []Part
	if gr.hi > gr.lo {
		head = r.keep(gr.lo)
		head.Dirty = true
		for _, p := range head.Parts {
			if p.Kind != KindResult {
				extra = append(extra, p)
			}
		}
	}
	if r.d.Placement != dialect.NextContent {
		head.Parts = append(results, extra...)
		r.emit(head)
		return
	}
	head.Parts = results
	r.emit(head)
	if len(extra) > 0 {
		r.ch.Moved += len(extra)
		r.emit(Message{Role: RoleUser, Parts: extra, Dirty: true})
	}
	for j := gr.lo + 1; j < gr.hi; j++ {
		m := r.without(j, keptAt)
		if len(m.Parts) == 0 {
			r.ch.Merged++
			continue
		}
		r.emit(m)
	}
}

// fillEmpty gives every result whose text the format rejects as empty the
// placeholder text.
func (r *repair) fillEmpty() {
	for i := range r.out {
		for j := range r.out[i].Parts {
			p := &r.out[i].Parts[j]
			if p.Kind == KindResult && emptyResult(r.d, p) {
				p.Result.Outcome.Result = &outcome.Result{Kind: outcome.Text, Text: outcome.EmptyPlaceholder}
				p.Dirty, r.out[i].Dirty = true, true
				r.ch.Filled++
				r.touched.add(resultKey(&p.Result))
			}
		}
	}
}

// splitParts writes apart every part read out of an element that held
// several (dialect.Part.Split): its message is written anew, each part from
// its own share of the element.
func (r *repair) splitParts() {
	for i := range r.out {
		n := 0
		for _, p := range r.out[i].Parts {
			if p.Split {
				n++
			}
		}
		if n > 0 {
			r.out[i].Dirty = true
			r.ch.Split += n
		}
	}
}

// lis is the length of the longest increasing subsequence of xs: the results
// a reordering leaves in place.
func lis(xs []int) int {
	var tails []int
	for _, x := range xs {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if tails[mid] < x {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo == len(tails) {
			tails = append(tails, x)
		} else {
			tails[lo] = x
		}
	}
	return len(tails)
}

func allResults(m Message) bool {
	for _, p := range m.Parts {
		if p.Kind != KindResult {
			return false
		}
	}
	return true
}
