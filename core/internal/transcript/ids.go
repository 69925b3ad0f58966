package transcript

import "strconv"

// Id rules: which tool-call ids a provider accepts (wire-formats.md §1.11).
const (
	RulesAnthropic = "anthropic"        // ^[a-zA-Z0-9_-]+$ (observed 400 "String should match pattern"); no documented length
	RulesBedrock   = "bedrock"          // 1-64 of [a-zA-Z0-9_-] (ToolResultBlock.toolUseId, the stricter documented form)
	RulesMistral   = "mistral"          // exactly 9 of [a-zA-Z0-9] (mistral-common validator V3; B16)
	RulesResponses = "openai-responses" // call_id 1-64 characters
	RulesChat      = "openai-chat"      // any non-empty string
	RulesGemini    = "gemini"           // optional, any string
)

// ValidRules reports whether r names a set of id rules.
func ValidRules(r string) bool {
	switch r {
	case RulesAnthropic, RulesBedrock, RulesMistral, RulesResponses, RulesChat, RulesGemini:
		return true
	}
	return false
}

func idRules(f Format, rules string) string {
	if rules != "" {
		return rules
	}
	return string(f)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isIDChar(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

func allOf(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func validID(rules, id string) bool {
	switch rules {
	case RulesAnthropic:
		return id != "" && allOf(id, isIDChar)
	case RulesBedrock:
		return id != "" && len(id) <= 64 && allOf(id, isIDChar)
	case RulesMistral:
		return len(id) == 9 && allOf(id, isAlnum)
	case RulesResponses:
		return id != "" && len([]rune(id)) <= 64
	case RulesGemini:
		return true
	}
	return id != ""
}

func idRuleText(rules string) string {
	switch rules {
	case RulesAnthropic:
		return "Anthropic tool_use ids match ^[a-zA-Z0-9_-]+$."
	case RulesBedrock:
		return "Bedrock toolUseId is 1 to 64 characters of [a-zA-Z0-9_-]."
	case RulesMistral:
		return "Mistral tool call ids are exactly 9 characters of [a-zA-Z0-9]."
	case RulesResponses:
		return "call_id is 1 to 64 characters."
	}
	return "A tool call id is required."
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

// newID derives the attempt-th candidate id for original under rules.
func newID(rules, original string, attempt int) string {
	key := original
	if attempt > 0 {
		key += "#" + strconv.Itoa(attempt)
	}
	h := fnv64(key)
	if rules == RulesMistral {
		var b [9]byte
		for i := range b {
			b[i] = base62[h%62]
			h /= 62
		}
		return string(b[:])
	}
	// Keep a readable prefix of the original's allowed characters, then a
	// 16-digit hex hash; at most 64 characters.
	prefix := make([]byte, 0, 47)
	for i := 0; i < len(original) && len(prefix) < 47; i++ {
		c := original[i]
		if !isIDChar(c) {
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
func planIDs(msgs []Message, rules string) IDMap {
	m := IDMap{Forward: map[string]string{}, Back: map[string]string{}}
	var order []string
	used := map[string]bool{}
	seen := map[string]bool{}
	visit := func(id string) {
		if id == "" && rules == RulesGemini || seen[id] {
			return
		}
		seen[id] = true
		if validID(rules, id) {
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
			c := newID(rules, id, attempt)
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

// applyIDs rewrites the ids of calls and results by m. A part read from a
// list keeps its raw tree with only the id member replaced, so that nothing
// else about it changes.
func applyIDs(f Format, msgs []Message, m IDMap) {
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
					p.Raw = withID(f, p.Raw, "id", "call_id", "functionCall", "toolUse", n)
				}
			case KindResult:
				if n, ok := m.Forward[p.Result.ID()]; ok {
					p.Result.Outcome.Call.ID, msgs[i].Dirty = n, true
					p.Raw = withID(f, p.Raw, "tool_call_id", "call_id", "functionResponse", "toolResult", n)
				}
			}
		}
	}
}

// withID returns a copy of a raw call or result with its id member set: key
// chat (openai-chat; anthropic uses "id" and "tool_use_id" likewise),
// respKey (openai-responses), the Gemini wrapper gem, the Bedrock wrapper br.
func withID(f Format, raw any, chat, respKey, gem, br, id string) any {
	if raw == nil {
		return nil
	}
	c := clone(raw)
	switch f {
	case OpenAIChat:
		c[chat] = id
	case OpenAIResponses:
		c[respKey] = id
	case Anthropic:
		if chat == "id" {
			c["id"] = id
		} else {
			c["tool_use_id"] = id
		}
	case Gemini:
		in := clone(c[gem])
		in["id"] = id
		c[gem] = in
	case Bedrock:
		in := clone(c[br])
		in["toolUseId"] = id
		c[br] = in
	}
	return c
}

// NormalizeIDs rewrites every id of msgs that breaks rules, in calls and
// results alike, and returns the map from new ids to the originals.
func NormalizeIDs(f Format, msgs []Message, rules string) map[string]string {
	m := planIDs(msgs, rules)
	applyIDs(f, msgs, m)
	return m.Back
}
