package transcript

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// ValidRules reports whether r names a set of id rules of the provider
// table (a transcript format's own, or a provider's such as mistral).
func ValidRules(r string) bool {
	_, ok := format.Rules(r)
	return ok
}

// idRule returns the id rules named rules, or d's own when rules is "".
func idRule(d *dialect.Dialect, rules string) dialect.IDRule {
	if rules == "" {
		return d.IDs
	}
	r, _ := format.Rules(rules)
	return r
}

// fnv64 is FNV-1a, 64 bits (deterministic, no table, no allocation).
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// newID derives the attempt-th candidate id for original under rule r: for
// a rule of a fixed length of [a-zA-Z0-9] (mistral), that many base-62
// digits of the hash; otherwise a readable prefix and the hash in hex.
func newID(r dialect.IDRule, original string, attempt int) string {
	key := original
	if attempt > 0 {
		key += "#" + strconv.Itoa(attempt)
	}
	h := fnv64(key)
	if r.Charset == dialect.Alnum && r.Max > 0 {
		b := make([]byte, r.Max)
		for i := range b {
			b[i] = base62[h%62]
			h /= 62
		}
		return string(b)
	}
	// Keep a readable prefix of the original's allowed characters, then a
	// 16-digit hex hash; at most 64 characters.
	prefix := make([]byte, 0, 47)
	for i := 0; i < len(original) && len(prefix) < 47; i++ {
		c := original[i]
		if !dialect.IsWord(c) {
			c = '_'
		}
		prefix = append(prefix, c)
	}
	const hex = "0123456789abcdef"
	out := append(prefix, '_')
	for s := 60; s >= 0; s -= 4 {
		out = append(out, hex[(h>>uint(s))&15])
	}
	return string(out)
}

// listIDs is the set of every call id and result id of msgs.
func listIDs(msgs []Message) map[string]bool {
	used := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p.Kind {
			case KindCall:
				used[p.Call.ID] = true
			case KindResult:
				used[p.Result.ID()] = true
			}
		}
	}
	return used
}

// idPool hands out new ids for calls that repeat an id within their turn:
// used holds every id of the list and every id handed out, next the
// attempt each original resumes from, so that n repeats of one id cost n
// hashes, not n squared (a hostile list of 3,000 calls sharing one id).
type idPool struct {
	used map[string]bool
	next map[string]int
}

func newIDPool(msgs []Message) *idPool {
	return &idPool{used: listIDs(msgs), next: map[string]int{}}
}

// fresh derives a new id for a call that repeats original within its turn:
// the first of newID's attempts 1, 2, ... under r that is not in use,
// which it joins.
func (p *idPool) fresh(r dialect.IDRule, original string) string {
	attempt := max(p.next[original], 1)
	id := newID(r, original, attempt)
	for p.used[id] {
		attempt++
		id = newID(r, original, attempt)
	}
	p.used[id], p.next[original] = true, attempt+1
	return id
}

// claim returns id when the list does not hold it yet, and otherwise the
// first free id fresh derives from it; either way the id joins the pool.
func (p *idPool) claim(r dialect.IDRule, id string) string {
	if p.used[id] {
		return p.fresh(r, id)
	}
	p.used[id] = true
	return id
}

// generatedID is the id convert gives the k-th call (from 0) of the call
// turn at message i of a list when the call has none (Gemini's
// functionCall.id is optional, content.proto FunctionCall): call_<i>_<k>,
// unique within the list and the same for a turn each time a growing
// transcript is converted again. With a seed (Options.IDSeed: a response
// converted on its own, whose turn is always message 0) the place is
// hashed with the seed, call_<hash in hex>_<k>, so the calls of two
// responses of one transcript never share an id.
func generatedID(seed string, i, k int) string {
	if seed == "" {
		return "call_" + strconv.Itoa(i) + "_" + strconv.Itoa(k)
	}
	return "call_" + strconv.FormatUint(fnv64(seed+"/"+strconv.Itoa(i)), 16) + "_" + strconv.Itoa(k)
}

// IDMap rewrites ids: Forward maps an original id to its new one; Back maps
// each new id to its original (the id_map returned to callers).
type IDMap struct {
	Forward map[string]string
	Back    map[string]string
}

// planIDs decides the new id of every id of msgs that breaks rules: valid ids
// are kept, every invalid one gets a hash-derived id, distinct inputs stay
// distinct (a collision takes the next attempt), deterministically in order
// of first appearance.
func planIDs(msgs []Message, r dialect.IDRule) IDMap {
	m := IDMap{Forward: map[string]string{}, Back: map[string]string{}}
	if allValid(msgs, r) {
		return m // nothing to rewrite, and no set of ids to build
	}
	var order []string
	used := map[string]bool{}
	seen := map[string]bool{}
	visit := func(id string) {
		if id == "" && r.Optional() || seen[id] {
			return
		}
		seen[id] = true
		if r.Valid(id) {
			used[id] = true
		} else {
			order = append(order, id)
		}
	}
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			switch p.Kind {
			case KindCall:
				visit(p.Call.ID)
			case KindResult:
				visit(p.Result.ID())
			}
		}
	}
	for _, id := range order {
		for attempt := 0; ; attempt++ {
			c := newID(r, id, attempt)
			if !used[c] {
				used[c] = true
				m.Forward[id] = c
				m.Back[c] = id
				break
			}
		}
	}
	return m
}

// allValid reports whether every call and result id of msgs follows r (an
// absent one where r allows it).
func allValid(msgs []Message, r dialect.IDRule) bool {
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			id := ""
			switch p.Kind {
			case KindCall:
				id = p.Call.ID
			case KindResult:
				id = p.Result.ID()
			default:
				continue
			}
			if !(id == "" && r.Optional() || r.Valid(id)) {
				return false
			}
		}
	}
	return true
}

// applyIDs rewrites the ids of calls and results by m. A part read from a
// list keeps its raw tree with only the id member replaced, so that nothing
// else about it changes.
func applyIDs(d *dialect.Dialect, msgs []Message, m IDMap) {
	if len(m.Forward) == 0 {
		return
	}
	for i := range msgs {
		for j := range msgs[i].Parts {
			p := &msgs[i].Parts[j]
			switch p.Kind {
			case KindCall:
				if n, ok := m.Forward[p.Call.ID]; ok {
					p.Call.ID, msgs[i].Dirty = n, true
					p.Raw = d.SetID(p.Raw, true, n)
				}
			case KindResult:
				if n, ok := m.Forward[p.Result.ID()]; ok {
					p.Result.Outcome.Call.ID, msgs[i].Dirty = n, true
					p.Raw = d.SetID(p.Raw, false, n)
				}
			}
		}
	}
}

// NormalizeIDs rewrites every id of msgs that breaks rules, in calls and
// results alike, and returns the map from new ids to the originals.
func NormalizeIDs(f Format, msgs []Message, rules string) map[string]string {
	d := dialectOf(f)
	m := planIDs(msgs, idRule(d, rules))
	applyIDs(d, msgs, m)
	return m.Back
}
