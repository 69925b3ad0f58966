package transcript

import (
	"slices"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/format/dialect"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// The finding kinds (stable snake_case tokens; docs/transcripts.md).
const (
	FindUnansweredCall       = "unanswered_call"
	FindOrphanResult         = "orphan_result"
	FindMisplacedResult      = "misplaced_result"
	FindResultNotFirst       = "result_not_first"
	FindResponsesSplit       = "responses_split"
	FindResponseCount        = "response_count_mismatch"
	FindExtraPart            = "extra_part_in_response"
	FindDuplicateResult      = "duplicate_result"
	FindDuplicateCallID      = "duplicate_call_id"
	FindNameMismatch         = "name_mismatch"
	FindEmptyText            = "empty_text"
	FindInvalidID            = "invalid_id"
	FindUnknownRole          = "unknown_role"
	FindUnverifiedResult     = "unverified_result"
	findNone                 = ""
	statusInPlace            = 1
	statusMovable            = 2
	statusDuplicate          = 3
	statusOrphan             = 4
	statusUnverified         = 5
	noGroup              int = -1
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

// resInfo is where the result at a loc stands: its status, the call k of
// group g it answers (noGroup: none), the calls of g it may answer (ks:
// those with its id, in order; a turn that repeats an id pairs its results
// in order), and why a movable one is not in place (a finding kind).
type resInfo struct {
	status int
	g, k   int
	ks     []int
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
	dupCall  map[callRef]bool // a call whose id an earlier call of its turn has (nil: none)
	// res is where each result stands, by part: the part at loc l is
	// res[partBase[l.msg]+l.part] (see resOf); order lists the results'
	// locs in list order
	res      []resInfo
	partBase []int
	order    []loc
	// ids are the calls with an id, sorted by id, each id's calls in list
	// order (refsOf); ks holds the resInfo.ks of every result
	ids   []idRef
	ks    []int
	other map[int]int              // message -> first non-result part (firstOther)
	noID  map[int]map[string][]int // group -> calls without an id (unnamed)
	// unseen: a result whose call is in no message of the list may answer
	// a call the provider holds (Options.Server without OpenCalls): it is
	// unverified, not an orphan.
	unseen bool
	// room for the groups, answer and claim lists and ids of a list of up
	// to roomTurns call turns and roomCalls calls, a usual transcript's,
	// so that they take no allocation of their own (see room)
	groupRoom [roomTurns]group
	listRoom  [2 * roomTurns][]loc
	idRoom    [roomCalls]idRef
}

// The call turns and calls an analysis holds without allocations of their
// own.
const roomTurns, roomCalls = 16, 32

func (a *analysis) call(g, k int) *Call {
	l := a.groups[g].calls[k]
	return &a.msgs[l.msg].Parts[l.part].Call
}

func (a *analysis) part(l loc) *Part { return &a.msgs[l.msg].Parts[l.part] }

// resOf is where the result at l stands.
func (a *analysis) resOf(l loc) resInfo { return a.res[a.partBase[l.msg]+l.part] }

// idRef is a call with its id.
type idRef struct {
	id  string
	ref callRef
}

// refsOf returns the calls with id, in list order.
func (a *analysis) refsOf(id string) []idRef {
	i, _ := slices.BinarySearchFunc(a.ids, id, func(r idRef, id string) int { return strings.Compare(r.id, id) })
	j := i
	for j < len(a.ids) && a.ids[j].id == id {
		j++
	}
	return a.ids[i:j]
}

// callLocs appends the locs of the calls in messages [lo, hi) to locs and
// returns them as a slice of their own (no spare capacity).
func callLocs(locs []loc, msgs []Message, lo, hi int) (all, calls []loc) {
	start := len(locs)
	for i := lo; i < hi; i++ {
		for j, p := range msgs[i].Parts {
			if p.Kind == KindCall {
				locs = append(locs, loc{i, j})
			}
		}
	}
	return locs, locs[start:len(locs):len(locs)]
}

// findGroups finds the call turns and their reply regions, as placement p
// draws them. Their calls share one array.
func findGroups(p dialect.Placement, msgs []Message) []group {
	turns, calls := countCalls(msgs)
	if turns == 0 {
		return nil
	}
	return groupsInto(p, msgs, make([]group, 0, turns), make([]loc, 0, calls))
}

// countCalls returns how many assistant messages of msgs hold a call (at
// most one group each) and how many calls msgs hold.
func countCalls(msgs []Message) (turns, calls int) {
	for i := range msgs {
		n := 0
		for j := range msgs[i].Parts {
			if msgs[i].Parts[j].Kind == KindCall {
				n++
			}
		}
		if n > 0 && msgs[i].Role == RoleAssistant {
			turns++
		}
		calls += n
	}
	return turns, calls
}

// groupsInto is findGroups appending the groups to gs and their calls'
// locs to locs (room for every call of msgs); nil when there are none.
func groupsInto(p dialect.Placement, msgs []Message, gs []group, locs []loc) []group {
	var cl []loc
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
			locs, cl = callLocs(locs, msgs, i, i+1)
			gs = append(gs, group{at: i, calls: cl, lo: i + 1, hi: j})
		case dialect.AfterCall:
			// the call item (or the server message of open calls), the call
			// items right after it and the outputs after those: a call item
			// after an output opens the next turn
			j := i + 1
			for j < n && (msgs[j].Role == RoleTool || (msgs[j].Role == RoleAssistant && len(msgs[j].Parts) == 1 && msgs[j].Parts[0].Kind == KindCall && msgs[j-1].Role != RoleTool)) {
				j++
			}
			locs, cl = callLocs(locs, msgs, i, j)
			gs = append(gs, group{at: i, calls: cl, lo: i, hi: j})
			i = j - 1
		case dialect.NextUserFirst:
			hi := i + 1
			if i+1 < n && msgs[i+1].Role == RoleUser {
				hi = i + 2
			}
			locs, cl = callLocs(locs, msgs, i, i+1)
			gs = append(gs, group{at: i, calls: cl, lo: i + 1, hi: hi})
		case dialect.NextContent:
			j := i + 1
			for j < n && msgs[j].Role == RoleUser && dialect.HasKind(msgs[j], KindResult) {
				j++
			}
			locs, cl = callLocs(locs, msgs, i, i+1)
			gs = append(gs, group{at: i, calls: cl, lo: i + 1, hi: j})
		}
	}
	if len(gs) == 0 {
		return nil
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
		return l.msg == gr.lo || a.d.SplitResponses && allResults(a.msgs[l.msg])
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

// analyze places every result of msgs (read with d); unseen says that a
// result whose id no call of the list has may answer a call the provider
// holds (statusUnverified instead of statusOrphan).
func analyze(d *dialect.Dialect, msgs []Message, unseen bool) *analysis {
	a := &analysis{}
	a.init(d, msgs, unseen)
	return a
}

// init is analyze into a.
func (a *analysis) init(d *dialect.Dialect, msgs []Message, unseen bool) {
	a.initIn(d, msgs, unseen, nil)
}

// initIn is init with its arrays taken from r (nil: new ones), for an
// analysis read no more once r is released.
func (a *analysis) initIn(d *dialect.Dialect, msgs []Message, unseen bool, r *engineRoom) {
	*a = analysis{d: d, msgs: msgs, unseen: unseen}
	n := len(msgs)
	parts, results := 0, 0
	for i := range msgs {
		for j := range msgs[i].Parts {
			if msgs[i].Parts[j].Kind == KindResult {
				results++
			}
		}
		parts += len(msgs[i].Parts)
	}
	turns, calls := countCalls(msgs)
	// one array of ints (regionOf, partBase, ks), one of locs (the
	// groups' calls, answer and claim, order), the groups, lists and ids
	// in a's room when they fit
	var keepInts *[]int
	var keepLocs *[]loc
	var keepRes *[]resInfo
	if r != nil {
		keepInts, keepLocs, keepRes = &r.ints, &r.locs, &r.res
	}
	ints := zeroed(keepInts, 2*n+1+results)
	a.regionOf, a.partBase, a.ks = ints[:n:n], ints[n:2*n+1:2*n+1], ints[2*n+1:2*n+1]
	locs := zeroed(keepLocs, 3*calls+results)
	a.order, locs = locs[:0:results], locs[results:]
	if turns > 0 {
		a.groups = groupsInto(d.Placement, msgs, room(a.groupRoom[:], turns), locs[:0:calls])
	}
	locs = locs[calls:]
	for i := range msgs {
		a.regionOf[i] = noGroup
	}
	parts = 0
	for i := range msgs {
		a.partBase[i] = parts
		parts += len(msgs[i].Parts)
	}
	a.partBase[n] = parts
	a.res = zeroed(keepRes, parts)
	ng := len(a.groups)
	lists := room(a.listRoom[:], 2*ng)[:2*ng]
	a.answer, a.claim = lists[:ng:ng], lists[ng:]
	a.ids = room(a.idRoom[:], calls)
	for g, gr := range a.groups {
		for i := gr.lo; i < gr.hi; i++ {
			a.regionOf[i] = g
		}
		c := len(gr.calls)
		a.answer[g], a.claim[g], locs = locs[:c:c], locs[c:2*c:2*c], locs[2*c:]
		for k := range gr.calls {
			a.answer[g][k] = noLoc()
			a.claim[g][k] = noLoc()
			if id := a.call(g, k).ID; id != "" {
				a.ids = append(a.ids, idRef{id, callRef{g, k}})
			}
		}
	}
	// every call with an id, by id, in list order within one id: ids pair
	// within their turn, so a call whose id the call before it (in list
	// order) of its own turn has is a duplicate
	slices.SortStableFunc(a.ids, func(x, y idRef) int { return strings.Compare(x.id, y.id) })
	for j := 1; j < len(a.ids); j++ {
		if a.ids[j].id == a.ids[j-1].id && a.ids[j].ref.group == a.ids[j-1].ref.group {
			if a.dupCall == nil {
				a.dupCall = map[callRef]bool{}
			}
			a.dupCall[a.ids[j].ref] = true
		}
	}
	// Match every result to a call: by id, or (Gemini without ids) by name
	// and order inside the region.
	var nameSeen map[int]map[string]int
	for i, m := range msgs {
		for j, p := range m.Parts {
			if p.Kind != KindResult {
				continue
			}
			l := loc{i, j}
			a.order = append(a.order, l)
			info := resInfo{g: noGroup, k: -1}
			if id := p.Result.ID(); id != "" {
				info.g, info.ks = a.turnOf(a.refsOf(id), i, p.Result.Outcome.Call.Name)
				if info.g != noGroup {
					info.k = info.ks[0]
				}
			} else if g := a.regionOf[i]; g != noGroup {
				// no id: Gemini pairs by name and order; the other formats
				// (where an empty id is itself a finding) by order alone
				name := p.Result.Outcome.Call.Name
				if d.Placement != dialect.NextContent {
					name = ""
				}
				if nameSeen == nil {
					nameSeen = map[int]map[string]int{}
				}
				if nameSeen[g] == nil {
					nameSeen[g] = map[string]int{}
				}
				nth := nameSeen[g][name]
				nameSeen[g][name]++
				if ks := a.unnamed(g)[name]; nth < len(ks) {
					a.ks = append(a.ks, ks[nth])
					info.g, info.k, info.ks = g, ks[nth], a.ks[len(a.ks)-1:len(a.ks):len(a.ks)]
				}
			}
			for _, k := range info.ks {
				if a.answer[info.g][k].msg < 0 && a.inPlace(l, info.g, k) {
					info.status, info.k = statusInPlace, k
					a.answer[info.g][k] = l
					break
				}
			}
			a.res[a.partBase[i]+j] = info
		}
	}
	for _, l := range a.order {
		info := a.resOf(l)
		switch {
		case info.status == statusInPlace:
			continue
		case info.g == noGroup && a.unseen && a.msgs[l.msg].Parts[l.part].Result.ID() != "":
			info.status = statusUnverified
		case info.g == noGroup:
			info.status = statusOrphan
		case !a.free(&info):
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
		a.res[a.partBase[l.msg]+l.part] = info
	}
}

// room returns buf with length 0 when n elements fit in it, else a new
// slice with room for n.
func room[T any](buf []T, n int) []T {
	if n <= len(buf) {
		return buf[:0:n]
	}
	return make([]T, 0, n)
}

// turnOf picks, among refs (the calls with a result's id, in list order),
// the turn the result at message i answers: ids pair within their turn, so
// a turn with a call named name (a result that names its function, as
// Gemini's do), and among those the turn whose reply region holds it, else
// the last turn before it, else the first after it (a result before its
// call). It returns the group and its calls with the id (only those named
// name when there are any), or noGroup when refs is empty.
func (a *analysis) turnOf(refs []idRef, i int, name string) (int, []int) {
	if len(refs) == 0 {
		return noGroup, nil
	}
	named := func(r callRef) bool { return name != "" && a.call(r.group, r.call).Name == name }
	g, best := refs[0].ref.group, -1
	for _, r := range refs {
		// a call of the result's name first, then the turn whose region
		// holds the result, then a turn before it (the latest)
		score := 0
		switch {
		case a.regionOf[i] == r.ref.group:
			score = 2
		case a.groups[r.ref.group].at < i:
			score = 1
		}
		if named(r.ref) {
			score += 4
		}
		if score > best || score == best && score&1 == 1 {
			g, best = r.ref.group, score
		}
	}
	start := len(a.ks)
	for _, r := range refs {
		if r.ref.group == g && named(r.ref) {
			a.ks = append(a.ks, r.ref.call)
		}
	}
	if len(a.ks) == start {
		// no call of that name: every call of the turn with the id
		for _, r := range refs {
			if r.ref.group == g {
				a.ks = append(a.ks, r.ref.call)
			}
		}
	}
	return g, a.ks[start:len(a.ks):len(a.ks)]
}

// free points info at the first of its calls without a result in place or
// claimed, and reports whether there is one.
func (a *analysis) free(info *resInfo) bool {
	for _, k := range info.ks {
		if a.answer[info.g][k].msg < 0 && a.claim[info.g][k].msg < 0 {
			info.k = k
			return true
		}
	}
	return false
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

// Check returns every finding of a list read from f, in message order, with
// opts (id rules, the request member holding the list, server-held state).
// A finding about an open call of the referenced response has Index -1 and
// the path open_calls[k].
func Check(f Format, msgs []Message, opts Options) []Finding {
	d := dialectFor(f, opts).Copy() // its LintRoom is set per message
	ids := idRule(d, opts.IDRules)
	all, off := withServer(msgs, opts)
	a := analyze(d, all, opts.server() && opts.OpenCalls == nil)
	b := newBudget(opts.MaxBytes, len(all), off)
	var evs []event
	raise := func(e event) {
		if b.keep(&e) {
			evs = append(evs, e)
		}
	}
	for g, gr := range a.groups {
		for k, cl := range gr.calls {
			if a.answer[g][k].msg < 0 && a.claim[g][k].msg < 0 {
				raise(event{l: cl, kind: FindUnansweredCall, id: callKey(a.call(g, k)), msg: d.Unanswered})
			}
			if a.dupCall[callRef{g, k}] {
				raise(event{l: cl, kind: FindDuplicateCallID, id: a.call(g, k).ID, msg: "Two tool calls of one turn share this id; ids must be unique within a turn (repair renames the second)."})
			}
		}
		if d.Placement == dialect.NextContent && gr.hi > gr.lo {
			n, last := 0, gr.lo
			if d.SplitResponses {
				last = gr.hi - 1
			}
			for i := gr.lo; i <= last; i++ {
				for _, p := range all[i].Parts {
					if p.Kind == KindResult {
						n++
					}
				}
			}
			if n != len(gr.calls) {
				raise(event{l: loc{gr.lo, -1}, kind: FindResponseCount, msg: "Gemini needs exactly one functionResponse per functionCall of the turn, in one content (" + strconv.Itoa(n) + " responses for " + strconv.Itoa(len(gr.calls)) + " calls)."})
			}
			for i := gr.lo; i < gr.hi; i++ {
				for j, p := range all[i].Parts {
					if p.Kind != KindResult {
						raise(event{l: loc{i, j}, kind: FindExtraPart, at: atPart, msg: "The content answering function calls holds only functionResponse parts; other parts go in a content of their own."})
					}
				}
			}
		}
	}
	for i, m := range all {
		if b.past(i) {
			break // every finding from here on comes after the last that can be written
		}
		if m.Server {
			continue // the provider's own calls: their ids are not ours to check
		}
		if m.UnknownRole {
			raise(event{l: loc{i, -1}, kind: FindUnknownRole, at: atRole, msg: unknownRoleMsg(d)})
		}
		if d.Lint != nil && m.Raw != nil && !b.full(i) {
			d.LintRoom = b.room()
			for _, is := range d.Lint(d, all, i) {
				raise(event{l: loc{i, -1}, kind: is.Kind, id: is.ID, msg: is.Text, at: atMember, member: is.Path})
			}
		}
		for j := range m.Parts {
			p := &all[i].Parts[j]
			l := loc{i, j}
			switch p.Kind {
			case KindCall:
				if !ids.Valid(p.Call.ID) && !p.Call.Legacy {
					raise(event{l: l, kind: FindInvalidID, id: p.Call.ID, at: atPart, msg: ids.Text})
				}
			case KindResult:
				info := a.resOf(l)
				id := resultKey(&p.Result)
				switch info.status {
				case statusOrphan:
					raise(event{l: l, kind: FindOrphanResult, id: id, msg: orphanMsg(opts)})
				case statusUnverified:
					raise(event{l: l, kind: FindUnverifiedResult, id: id, msg: "This output answers no call in the list; it is kept as an answer to a call of the response the provider holds, which only open_calls can confirm."})
				case statusDuplicate:
					raise(event{l: l, kind: FindDuplicateResult, id: id, msg: "This tool call already has a result; a second one is rejected."})
				case statusMovable:
					raise(event{l: l, kind: info.why, id: id, msg: misplacedMsg(d, info.why)})
				}
				if info.g != noGroup && d.Placement == dialect.NextContent && p.Result.ID() != "" {
					if c := a.call(info.g, info.k); c.Name != p.Result.Outcome.Call.Name {
						raise(event{l: l, kind: FindNameMismatch, id: id, at: atPart, msg: nameMismatchMsg(c.Name)})
					}
				}
				if d.Placement != dialect.NextContent && !ids.Valid(p.Result.ID()) && !p.Result.Legacy {
					raise(event{l: l, kind: FindInvalidID, id: p.Result.ID(), at: atPart, msg: ids.Text})
				}
				if emptyResult(d, p) {
					raise(event{l: l, kind: FindEmptyText, id: id, at: atPart, msg: "This tool result's text is empty, which " + string(f) + " rejects; repair writes " + outcome.EmptyPlaceholder + "."})
				}
			case KindText:
				if d.EmptyText != nil && d.EmptyText(m) && outcome.IsBlank(p.Text) {
					raise(event{l: l, kind: FindEmptyText, at: atPart, msg: "Empty text blocks are rejected by " + string(f) + "."})
				}
			}
		}
	}
	return findings(d, evs, b.last(len(all)), off, opts.listPath())
}

// Where an event's path points: nowhere (a message-level finding), at the
// part, or at the message's role member.
const (
	atNone = iota
	atPart
	atRole
	atMember // event.member below the message ("" = the message)
)

// event is one finding before it is placed: at loc l (in the list with the
// server message in front, if any), of kind, about call id, saying msg.
type event struct {
	l             loc
	kind, id, msg string
	at            int
	member        string
}

// budget holds a check's events to what its response can hold
// (Options.MaxBytes): the findings come out in message order, so once those
// of messages [0, cut] are known to encode to more than max bytes
// (dialect.FindingBytes, a lower bound), an event after message cut, or
// one in message cut raising a finding after those kept there, cannot be
// written and is not kept. An event adding an id to a finding already kept
// always is, so that every finding kept is whole. With max 0 it keeps
// every event.
type budget struct {
	max, off int
	n        int   // messages
	sz       []int // the bytes of the findings kept, by message (nil until one is)
	cut      int   // the last message whose events are kept
	sum      int   // the bytes of the findings kept of messages [0, cut]
	seen     map[findingKey]bool
}

// newBudget is the budget of max bytes for a list of n messages (off of
// them the server's, in front).
func newBudget(max, n, off int) *budget {
	return &budget{max: max, off: off, n: n, cut: n - 1}
}

// over reports whether the findings kept of messages [0, cut] pass max.
func (b *budget) over() bool { return b.max > 0 && b.sum > b.max }

// past reports whether every event of message i is after the cut.
func (b *budget) past(i int) bool { return b.max > 0 && i > b.cut }

// full reports whether a new finding at message i is after the cut.
func (b *budget) full(i int) bool { return b.past(i) || b.over() && i == b.cut }

// room is what dialect.Dialect.LintRoom gets: the bytes the findings may
// still take before they pass max (0 without a bound).
func (b *budget) room() int {
	if b.max <= 0 {
		return 0
	}
	return max(b.max-b.sum+1, 1)
}

// last is the number of messages whose findings are kept, of n.
func (b *budget) last(n int) int { return min(n, b.cut+1) }

// keep reports whether e is kept, counting its bytes if so.
func (b *budget) keep(e *event) bool {
	if b.max <= 0 {
		return true
	}
	m := e.l.msg
	if b.past(m) {
		return false
	}
	n := 0
	if e.at == atNone && m >= b.off {
		// findings() merges it with the finding of its kind at m, if any
		k := findingKey{e.kind, m}
		switch {
		case b.seen[k]:
			if e.id != "" {
				n = len(e.id) + 2
			}
		case b.full(m):
			return false
		default:
			if b.seen == nil {
				b.seen = map[findingKey]bool{}
			}
			b.seen[k] = true
			n = dialect.FindingBytes(e.kind, "", e.id, e.msg)
		}
	} else {
		if b.full(m) {
			return false
		}
		n = dialect.FindingBytes(e.kind, e.member, e.id, e.msg)
	}
	if b.sz == nil {
		b.sz = make([]int, b.n)
	}
	b.sz[m] += n
	b.sum += n
	for b.cut > 0 && b.sum-b.sz[b.cut] > b.max {
		b.sum -= b.sz[b.cut]
		b.cut--
	}
	return true
}

// findings orders the events of evs in the first n messages by message
// (the order they were raised within one message kept: a counting sort,
// linear) and turns them into findings whose indexes and paths name the
// caller's list (path base) with off server messages in front of it.
func findings(d *dialect.Dialect, evs []event, n, off int, base string) []Finding {
	if len(evs) == 0 {
		return []Finding{}
	}
	start := make([]int, n+1)
	kept := 0
	for _, e := range evs {
		if e.l.msg < n {
			start[e.l.msg+1]++
			kept++
		}
	}
	if kept == 0 {
		return []Finding{}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	sorted := make([]*event, kept)
	for i := range evs {
		e := &evs[i]
		if e.l.msg < n {
			sorted[start[e.l.msg]] = e
			start[e.l.msg]++
		}
	}
	var s findingSet
	for _, e := range sorted {
		i := e.l.msg - off
		if i < 0 {
			s.add(e.kind, -1, field.Index("open_calls", e.l.part), e.id, e.msg)
			continue
		}
		path := ""
		switch e.at {
		case atPart:
			path = partPath(d, base, i, e.l.part)
		case atRole:
			path = field.Join(field.Index(base, i), "role")
		case atMember:
			path = field.Index(base, i)
			if e.member != "" {
				path += "." + e.member
			}
		}
		s.add(e.kind, i, path, e.id, e.msg)
	}
	if s.list == nil {
		return []Finding{}
	}
	return s.list
}

// orphanMsg says that a result answers no call: of the turn before it, or
// (server-held state with its open calls known) of the list or the
// referenced response.
func orphanMsg(o Options) string {
	if o.OpenCalls != nil {
		return "This output answers no call of the list and no open call of the referenced response."
	}
	return "This tool result answers no tool call of the turn before it."
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

// partPath is the request path of part j of message i of the list at base: the message itself
// where a part is a message of its own (d.PartsKey "").
func partPath(d *dialect.Dialect, base string, i, j int) string {
	p := field.Index(base, i)
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
