package transcript

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// Converted is a list written in another format.
type Converted struct {
	Messages []any
	// List is Options.Into followed by the canonical JSON of the list, in
	// place of Messages, for a conversion to another format with
	// Options.Encoded (nil if a value could not be encoded).
	List    canonical.Text
	IDMap   map[string]string // new id -> original id, for ids the target's rules made toolerr rewrite
	NameMap map[string]string // new function name -> original, for names the target refuses
	Notes   []string          // what could not travel as is, said plainly
	System  string            // system text the target keeps outside its list ("" when none)
}

// Convert writes a list read from `from` in the shape of `to`: each call
// turn becomes one assistant message followed by all its results in call
// order (one content for Gemini, first in the next user message for
// Anthropic and Bedrock), result names come from the calls (Gemini), a
// failure keeps its flag (is_error, status "error", an "error" key, or the
// envelope JSON in OpenAI's content), images are carried or, where a target
// cannot hold them in a tool result, moved next to it and said so, and ids
// are rewritten to the target's rules (opts.IDRules "" = those of `to`).
//
// From a format to itself, the list is written back exactly as read except
// for the ids opts.IDRules makes toolerr rewrite: a same-format conversion
// changes nothing the caller did not ask for (reasoning, signatures, item
// ids and every member stay).
//
// With server-held state (opts.Server, opts.OpenCalls) and a target that
// keeps none: the open calls are written as the assistant turn their outputs
// answer, and outputs whose calls cannot be seen (no OpenCalls) are dropped,
// each with a note. Open calls must then have names (see CheckConvert).
func Convert(from, to Format, msgs []Message, opts Options) Converted {
	src, dst := dialectOf(from), dialectFor(to, opts)
	if from == to {
		ids := planIDs(msgs, idRule(dst, opts.IDRules))
		applyIDs(dst, msgs, ids)
		return Converted{Messages: Write(to, msgs), IDMap: ids.Back}
	}
	var notes []string
	if n := note(lostMembers(src, msgs), from, to); n != "" {
		notes = append(notes, n)
	}
	if n := nearEnvelopes(msgs); n > 0 {
		notes = append(notes, nearNote(n))
	}
	all, off := withServer(msgs, opts)
	if off > 0 {
		all[0].Server = false
		notes = append(notes, "wrote the referenced response's open calls ("+strconv.Itoa(len(opts.OpenCalls))+") as the assistant turn their outputs answer: "+string(to)+" lists hold the whole history")
	}
	rules := idRule(dst, opts.IDRules)
	var room *engineRoom // nil: the turns are handed out (Messages)
	if opts.Encoded {
		room = takeEngineRoom() // the turns are written as bytes before Convert returns
		defer room.release()
	}
	rg := regroup(src, all, dst, opts.server() && opts.OpenCalls == nil, rules, opts.IDSeed, room)
	turns := rg.turns
	if rg.generated > 0 {
		notes = append(notes, "generated ids for "+strconv.Itoa(rg.generated)+" calls that had none (Gemini, or a deprecated function_call), paired with their responses by name and order")
	}
	if len(rg.renamed) > 0 {
		notes = append(notes, "renamed calls ("+strconv.Itoa(len(rg.renamed))+") that repeated an id of their own turn, with their results (see id_map)")
	}
	if rg.unverified > 0 {
		notes = append(notes, "dropped outputs ("+strconv.Itoa(rg.unverified)+") whose calls the provider holds (previous_response_id or conversation): pass open_calls to carry them with the turn they answer")
	}
	ids := planIDs(turns, rules)
	applyIDs(dst, turns, ids)
	names := renameFunctions(turns, dst.Names)
	if len(names) > 0 {
		notes = append(notes, "renamed functions ("+strconv.Itoa(len(names))+") whose names "+string(to)+" refuses, in calls and results alike (see name_map; rename the tools the same way)")
	}
	for n, o := range rg.renamed {
		if orig, ok := ids.Back[o]; ok {
			o = orig
		}
		ids.Back[n] = o
	}
	if dst.Placement == dialect.NextUserFirst {
		turns = joinUserSide(turns, room)
	}
	w := room.writer(dst)
	var out []any
	var list canonical.Text
	if opts.Encoded {
		// nil when a value cannot be encoded: the caller then takes its
		// tree path, which says so
		if b, err := w.AppendList(opts.Into, turns); err == nil {
			list = b
		}
	} else {
		out = w.List(turns)
	}
	pendingNote := 0
	for _, m := range turns {
		for _, p := range m.Parts {
			if p.Kind == KindResult && dst.ToolImagesFollow {
				pendingNote += len(dialect.Images(p.Result.Outcome))
			}
		}
	}
	if pendingNote > 0 {
		notes = append(notes, strconv.Itoa(pendingNote)+" tool-result images moved into a user message after the tool messages: openai-chat tool messages carry text only")
	}
	if len(w.Replaced) > 0 {
		for _, k := range slices.Sorted(maps.Keys(w.Replaced)) {
			notes = append(notes, "replaced media blocks of tool results ("+strconv.Itoa(w.Replaced[k])+") with a text placeholder naming them: "+k)
		}
	}
	if w.Wrapped > 0 {
		notes = append(notes, "wrapped the arguments of calls ("+strconv.Itoa(w.Wrapped)+") that were not a JSON object under \"value\": "+string(to)+" takes an object as a call's input")
	}
	if w.Cut > 0 {
		notes = append(notes, "cut the text of failed results ("+strconv.Itoa(w.Cut)+") to "+strconv.Itoa(sanitize.MaxDetailChars)+" characters, head and tail kept with a marker of what is omitted: "+string(to)+" has no failure flag, so a failure travels as an envelope, whose details are capped")
	}
	if len(w.Dropped) > 0 {
		for _, k := range slices.Sorted(maps.Keys(w.Dropped)) {
			notes = append(notes, "dropped "+strconv.Itoa(w.Dropped[k])+" "+k+" that "+string(to)+" cannot carry")
		}
	}
	c := Converted{Messages: out, List: list, IDMap: ids.Back, NameMap: names, Notes: notes}
	if len(w.System) > 0 {
		c.System = strings.Join(w.System, "\n\n")
		c.Notes = append(c.Notes, "system text moved out of the list: "+string(to)+" takes it as a top-level parameter (returned as system)")
	}
	return c
}

// regrouped is what regroup made of a list: the turns, how many ids it
// generated, how many outputs of calls held by the provider it dropped, and
// the calls it renamed (new id -> original) because they repeated an id of
// their own turn.
type regrouped struct {
	turns                 []Message
	generated, unverified int
	renamed               map[string]string
}

// regroup turns a list into neutral turns: each call turn's assistant
// message, then a RoleTool message with the results found for its calls (in
// call order, names and, for Gemini calls without ids, generated ids filled
// in), then whatever else followed. Results that answer no call stay where
// they were, except outputs answering a call the provider holds (unseen,
// see analyze), which are dropped. It returns how many ids it generated and
// how many such outputs it dropped. A call that repeats an id of its own
// turn gets a new one under rules (ids pair within their turn), its result
// with it. A call without an id, for a target that needs one, gets the id
// generatedID makes of seed and its place, unless the list already holds
// that id (then the pool's next free one): ids stay unique in the list.
// A message that stays whole shares its parts with msgs (Convert changes
// ids in the turns after, and reads msgs no more). The analysis, the turns
// and the array of their parts are taken from room (nil: new ones; else
// they are read no more once room is released).
func regroup(from *dialect.Dialect, msgs []Message, to *dialect.Dialect, unseen bool, rules dialect.IDRule, seed string, room *engineRoom) regrouped {
	a := room.analysis()
	a.initIn(from, msgs, unseen, room)
	var keepUsed *[]bool
	var keepTurns *[]Message
	var keepParts *[]Part
	if room != nil {
		keepUsed, keepTurns, keepParts = &room.used, &room.turns, &room.parts
	}
	used := zeroed(keepUsed, a.partBase[len(msgs)]) // by part, as a.res: the results taken out of their messages
	generated, unverified := 0, 0
	var renamed map[string]string
	var taken *idPool // every id of the list, once a rename needs them
	for _, l := range a.order {
		if a.resOf(l).status == statusUnverified {
			used[a.partBase[l.msg]+l.part] = true
			unverified++
		}
	}
	out := empty(keepTurns, len(msgs)+2)
	// one array holds the parts of every assistant turn and its results
	size := 0
	for _, gr := range a.groups {
		size += turnParts(from, msgs, gr) + len(gr.calls)
	}
	pool := empty(keepParts, size)
	next := 0 // the first group whose turn is not before message i
	for i := 0; i < len(msgs); i++ {
		// the group whose turn is message i, if any: the groups are in
		// list order, and i only moves forward
		for next < len(a.groups) && a.groups[next].at < i {
			next++
		}
		g, isCall := next, next < len(a.groups) && a.groups[next].at == i
		if !isCall {
			m := msgs[i]
			if m.Parts = unused(m.Parts, used[a.partBase[i]:a.partBase[i+1]]); len(m.Parts) > 0 {
				out = append(out, m)
			}
			continue
		}
		gr := a.groups[g]
		// the assistant turn: every assistant message of the run (Responses
		// spreads one turn over several items)
		asst := Message{Role: RoleAssistant}
		n := turnParts(from, msgs, gr)
		asst.Parts, pool = pool[len(pool):len(pool):len(pool)+n], pool[:len(pool)+n]
		for j := i; j < turnEnd(from, gr); j++ {
			if msgs[j].Role == RoleAssistant {
				asst.Parts = append(asst.Parts, msgs[j].Parts...)
			}
		}
		res := Message{Role: RoleTool}
		res.Parts, pool = pool[len(pool):len(pool):len(pool)+len(gr.calls)], pool[:len(pool)+len(gr.calls)]
		k := 0
		for j := range asst.Parts {
			p := &asst.Parts[j]
			if p.Kind != KindCall {
				continue
			}
			if p.Call.ID == "" && !to.IDs.Optional() {
				if taken == nil {
					taken = newIDPool(msgs)
				}
				p.Call.ID = taken.claim(rules, generatedID(seed, i, k))
				generated++
			}
			if a.dupCall[callRef{g, k}] {
				if taken == nil {
					taken = newIDPool(msgs)
				}
				if renamed == nil {
					renamed = map[string]string{}
				}
				orig := p.Call.ID
				p.Call.ID = taken.fresh(rules, orig)
				renamed[p.Call.ID] = orig
			}
			l := a.answer[g][k]
			if l.msg < 0 {
				l = a.claim[g][k]
			}
			if l.msg >= 0 {
				used[a.partBase[l.msg]+l.part] = true
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
		if len(out) > 0 && out[len(out)-1].Role == RoleAssistant && !dialect.HasKind(out[len(out)-1], KindCall) {
			prev := out[len(out)-1]
			asst.Parts = append(append([]Part{}, prev.Parts...), asst.Parts...)
			out = out[:len(out)-1]
		}
		out = append(out, asst)
		if len(res.Parts) > 0 {
			out = append(out, res)
		}
		if from.Placement == dialect.AfterCall {
			// the outputs of the run were taken above; anything else stays
			for j := i + 1; j < gr.hi; j++ {
				if msgs[j].Role == RoleTool {
					var rest []Part
					for pj, p := range msgs[j].Parts {
						if !used[a.partBase[j]+pj] {
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
	if room != nil {
		// what release clears: the turns and parts written into the
		// room's arrays (a list that outgrew them wrote all of them)
		room.nTurns, room.nParts = min(len(out), cap(room.turns)), min(len(pool), cap(room.parts))
	}
	return regrouped{turns: out, generated: generated, unverified: unverified, renamed: renamed}
}

// turnEnd is where the assistant messages of call turn gr end: the one
// message, or every one of the run (Responses spreads one turn over
// several items).
func turnEnd(from *dialect.Dialect, gr group) int {
	if from.Placement == dialect.AfterCall {
		return gr.hi
	}
	return gr.at + 1
}

// turnParts is how many parts the assistant messages of call turn gr hold.
func turnParts(from *dialect.Dialect, msgs []Message, gr group) int {
	n := 0
	for j := gr.at; j < turnEnd(from, gr); j++ {
		if msgs[j].Role == RoleAssistant {
			n += len(msgs[j].Parts)
		}
	}
	return n
}

// unused returns the parts of a message that used (one flag per part, set
// for those taken out) does not hold: parts itself (shared, not copied)
// when it holds none of them.
func unused(parts []Part, used []bool) []Part {
	for j := range parts {
		if !used[j] {
			continue
		}
		kept := append(make([]Part, 0, len(parts)-1), parts[:j]...)
		for k := j + 1; k < len(parts); k++ {
			if !used[k] {
				kept = append(kept, parts[k])
			}
		}
		return kept
	}
	return parts
}

// renameFunctions rewrites every function name of msgs that r refuses
// (Bedrock's ToolName, say: "$READFILE"), in calls and the results naming
// them alike, to a name r takes, derived as normalize_ids derives an id (the
// original's allowed characters and a hash, distinct from every name of the
// list), and returns the map from each new name to its original (nil when
// none). With r unset (AnyChar, no bound) every name is taken.
func renameFunctions(msgs []Message, r dialect.IDRule) map[string]string {
	if r.Charset == dialect.AnyChar && r.Max == 0 || allNamesValid(msgs, r) {
		return nil
	}
	used := map[string]bool{}
	var bad []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == KindCall {
				if !used[p.Call.Name] && !r.Valid(p.Call.Name) {
					bad = append(bad, p.Call.Name)
				}
				used[p.Call.Name] = true
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	forward, back := map[string]string{}, map[string]string{}
	pool := &idPool{used: used, next: map[string]int{}}
	for _, name := range bad {
		n := pool.fresh(r, name)
		forward[name], back[n] = n, name
	}
	for i := range msgs {
		for j := range msgs[i].Parts {
			p := &msgs[i].Parts[j]
			switch {
			case p.Kind == KindCall && forward[p.Call.Name] != "":
				p.Call.Name = forward[p.Call.Name]
			case p.Kind == KindResult && forward[p.Result.Outcome.Call.Name] != "":
				p.Result.Outcome.Call.Name = forward[p.Result.Outcome.Call.Name]
			default:
				continue
			}
			p.Dirty, msgs[i].Dirty = true, true
		}
	}
	return back
}

// allNamesValid reports whether r takes the function name of every call
// of msgs.
func allNamesValid(msgs []Message, r dialect.IDRule) bool {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == KindCall && !r.Valid(p.Call.Name) {
				return false
			}
		}
	}
	return true
}

// CheckConvert refuses server-held state a conversion from `from` to `to`
// cannot write: an open call without a name when the target holds its whole
// history (it must write the call). The error is a *field.Error at
// open_calls[k].name.
func CheckConvert(from, to Format, opts Options) error {
	if from == to || dialectOf(to).OpenCall != nil {
		return nil
	}
	for k, c := range opts.OpenCalls {
		if c.Name == "" {
			return field.NewError(field.Join(field.Index("open_calls", k), "name"), "is required to write the call in "+string(to)+", whose lists hold the whole history")
		}
	}
	return nil
}

// joinUserSide folds a RoleTool message and the user message after it into
// one user message, results first: Anthropic and Bedrock carry results in
// the user turn and Bedrock wants roles to alternate. The list is taken
// from room (nil: a new one).
func joinUserSide(msgs []Message, room *engineRoom) []Message {
	var keep *[]Message
	if room != nil {
		keep = &room.joined
	}
	out := empty(keep, len(msgs))
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
	if room != nil {
		room.nJoined = min(len(out), cap(room.joined))
	}
	return out
}

// lossCounter counts dropped members by name ("function.strict" for a
// nested one).
type lossCounter = dialect.Loss

// lostMembers counts the members of msgs (read with d) that convert does not
// carry: provider-specific members such as Gemini's thoughtSignature,
// Anthropic's cache_control and citations, Responses item ids and status,
// OpenAI message names. Messages and parts toolerr does not model are not
// looked into: they are dropped whole and noted as such.
func lostMembers(d *dialect.Dialect, msgs []Message) lossCounter {
	l := lossCounter{}
	for _, m := range msgs {
		if m.Role == RoleOther || m.Raw == nil || (len(m.Parts) > 0 && !hasModelled(m)) {
			continue // dropped whole (a reasoning item, say) and noted as such
		}
		d.Lost(l, m)
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

// note says which members a conversion dropped, sorted by name, each name
// passed through displayName (member names are caller text); "" when none.
func note(l lossCounter, from, to Format) string {
	if len(l) == 0 {
		return ""
	}
	counts := map[string]int{}
	for k, n := range l {
		name := dialect.DisplayName(k)
		if name == "" {
			name = "(unnamed)"
		}
		counts[name] += n
	}
	names := slices.Sorted(maps.Keys(counts))
	for i, k := range names {
		names[i] = k + " (" + strconv.Itoa(counts[k]) + ")"
	}
	return "dropped members " + string(from) + " carries that " + string(to) + " has no place for: " + strings.Join(names, ", ")
}
