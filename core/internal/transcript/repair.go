package transcript

import (
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Changes is what Repair changed. IDs lists every call id it touched, in
// order of first change (Gemini calls without ids by function name).
type Changes struct {
	Synthesized       int
	DroppedOrphans    int
	DroppedDuplicates int
	Moved             int
	Merged            int
	Filled            int
	IDs               []string
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

// Repair returns msgs with every call answered exactly once where f requires
// it:
//   - a call without a result gets a NO_RESULT error result (retryable false);
//   - a result with no call is dropped, a second result for a call is dropped;
//   - a result in the wrong place is moved to where f requires it;
//   - a tool result whose text f rejects as empty gets outcome.EmptyPlaceholder.
//
// Placement: openai-chat appends after the existing tool messages of the
// turn (B04); openai-responses inserts right after the function_call (B01);
// anthropic and bedrock rebuild the next user message with all results
// first, in tool_use order (B03); gemini rebuilds the content after the call
// turn with exactly one response per call in call order and merges split
// contents into it (B08). A list check finds nothing in comes back unchanged.
func Repair(f Format, msgs []Message) ([]Message, Changes) {
	a := analyze(f, msgs)
	var ch Changes
	var touched idList
	// 1. Take every result that is not in place out of its message.
	taken := map[[2]int]Part{} // (group, call) -> moved part
	removed := make([]map[int]bool, len(msgs))
	touchedRegion := map[int]bool{}
	for l, info := range a.res {
		if info.status == statusInPlace {
			continue
		}
		if removed[l.msg] == nil {
			removed[l.msg] = map[int]bool{}
		}
		removed[l.msg][l.part] = true
		if g := a.regionOf[l.msg]; g != noGroup {
			touchedRegion[g] = true
		}
		p := a.part(l)
		switch info.status {
		case statusOrphan:
			ch.DroppedOrphans++
		case statusDuplicate:
			ch.DroppedDuplicates++
		case statusMovable:
			taken[[2]int{info.g, info.k}] = *p
			touchedRegion[info.g] = true
		}
	}
	// deterministic change list: walk results in message order
	for i, m := range msgs {
		for j, p := range m.Parts {
			if p.Kind == KindResult && removed[i][j] {
				touched.add(resultKey(&msgs[i].Parts[j].Result))
			}
		}
	}
	if f == Gemini {
		for g, gr := range a.groups {
			for i := gr.lo; i < gr.hi; i++ {
				if !allResults(msgs[i]) {
					touchedRegion[g] = true
				}
			}
		}
	}
	// 2. What each group answers with, in call order.
	type slot struct {
		part   Part
		inLoc  loc // in-place location, msg -1 otherwise
		source string
	}
	plan := make([][]slot, len(a.groups))
	for g, gr := range a.groups {
		plan[g] = make([]slot, len(gr.calls))
		for k := range gr.calls {
			switch {
			case a.answer[g][k].msg >= 0:
				l := a.answer[g][k]
				plan[g][k] = slot{part: *a.part(l), inLoc: l, source: "kept"}
			case a.dupCall[[2]int{g, k}]:
				plan[g][k] = slot{inLoc: loc{-1, -1}, source: "none"}
			case a.claim[g][k].msg >= 0:
				plan[g][k] = slot{part: taken[[2]int{g, k}], inLoc: loc{-1, -1}, source: "moved"}
				ch.Moved++
			default:
				c := *a.call(g, k)
				plan[g][k] = slot{part: synthResult(c), inLoc: loc{-1, -1}, source: "synth"}
				ch.Synthesized++
				touched.add(callKey(&c))
				touchedRegion[g] = true
			}
		}
	}
	// 3. Rebuild the list.
	keep := func(i int) Message {
		m := msgs[i]
		if len(removed[i]) == 0 {
			return m
		}
		parts := make([]Part, 0, len(m.Parts))
		for j, p := range m.Parts {
			if !removed[i][j] {
				parts = append(parts, p)
			}
		}
		m.Parts, m.Dirty = parts, true
		return m
	}
	groupAt := map[int]int{}
	for g, gr := range a.groups {
		groupAt[gr.at] = g
	}
	out := make([]Message, 0, len(msgs)+4)
	emit := func(m Message) {
		if len(m.Parts) == 0 && m.Dirty {
			return // emptied by taking its results away
		}
		out = append(out, m)
	}
	switch f {
	case OpenAIChat, OpenAIResponses:
		// after[i]: results to insert after message i
		after := map[int][]Part{}
		for g, gr := range a.groups {
			for k, s := range plan[g] {
				if s.source == "kept" || s.source == "none" {
					continue
				}
				at := gr.hi - 1
				if f == OpenAIResponses {
					at = gr.calls[k].msg
				}
				if at < gr.at {
					at = gr.at
				}
				after[at] = append(after[at], s.part)
			}
		}
		for i := range msgs {
			emit(keep(i))
			for _, p := range after[i] {
				out = append(out, Message{Role: RoleTool, Parts: []Part{p}, Raw: p.Raw, Dirty: p.Raw == nil})
			}
		}
	case Anthropic, Bedrock, Gemini:
		for i := 0; i < len(msgs); i++ {
			g, isCall := groupAt[i]
			if !isCall {
				if a.regionOf[i] == noGroup || !touchedRegion[a.regionOf[i]] {
					emit(keep(i))
				}
				continue
			}
			emit(keep(i))
			gr := a.groups[g]
			if !touchedRegion[g] {
				continue
			}
			results := make([]Part, 0, len(gr.calls))
			var inOrder []int
			for _, s := range plan[g] {
				if s.source == "none" {
					continue
				}
				results = append(results, s.part)
				if s.source == "kept" {
					inOrder = append(inOrder, s.inLoc.part)
				}
			}
			ch.Moved += len(inOrder) - lis(inOrder)
			var head Message
			var extra []Part
			if gr.hi > gr.lo {
				head = keep(gr.lo)
				head.Dirty = true
				for _, p := range head.Parts {
					if p.Kind != KindResult {
						extra = append(extra, p)
					}
				}
			} else {
				head = Message{Role: RoleUser, Dirty: true}
			}
			if f == Gemini {
				head.Parts = results
				emit(head)
				if len(extra) > 0 {
					ch.Moved += len(extra)
					emit(Message{Role: RoleUser, Parts: extra, Dirty: true})
				}
				for j := gr.lo + 1; j < gr.hi; j++ {
					m := keep(j)
					if len(m.Parts) == 0 {
						ch.Merged++
						continue
					}
					emit(m)
				}
			} else {
				head.Parts = append(results, extra...)
				emit(head)
			}
			i = max(i, gr.hi-1)
		}
	}
	// 4. Empty result text the format rejects gets the placeholder.
	for i := range out {
		for j := range out[i].Parts {
			p := &out[i].Parts[j]
			if p.Kind == KindResult && emptyResult(f, p) {
				p.Result.Outcome.Result = &outcome.Result{Kind: outcome.Text, Text: outcome.EmptyPlaceholder}
				p.Dirty, out[i].Dirty = true, true
				ch.Filled++
				touched.add(resultKey(&p.Result))
			}
		}
	}
	ch.IDs = touched.ids
	if ch.IDs == nil {
		ch.IDs = []string{}
	}
	return out, ch
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
