package canonical

import (
	"reflect"
	"strings"
	"testing"
)

// eachOnceTree reads the value at s as a decoder built on EachOnce reads
// an object (its members' names unknown ahead, at most 64, each at most
// once), nested objects the same way down to nesting level 3 and Value
// below that and inside arrays, and returns the tree it read.
func eachOnceTree(s *Scanner, depth int) (any, bool) {
	if s.Next() != '{' || depth >= 3 {
		v, err := s.Value(depth)
		return v, err == nil
	}
	var names []string
	m := map[string]any{}
	_, ok := EachOnce(s, func(name string) (uint64, bool) {
		for i, n := range names {
			if n == name {
				return 1 << i, true // EachOnce refuses the duplicate
			}
		}
		if len(names) == 64 {
			return 0, false
		}
		names = append(names, name)
		v, ok := eachOnceTree(s, depth+1)
		m[name] = v
		return 1 << (len(names) - 1), ok
	})
	return m, ok
}

// membersSameAsParse fails unless a decoder on EachOnce (eachOnceTree)
// reads data, a whole text, exactly as ParseRequest does: when it reads it
// whole within the budget, ParseRequest gives the same tree at the same
// cost; when ParseRequest reads it (no object past 64 members), so does it.
func membersSameAsParse(t *testing.T, data []byte) {
	t.Helper()
	want, cost, err := parse(string(data), TreeBudget(len(data)))
	s := NewScanner(string(data))
	got, ok := eachOnceTree(s, 0)
	ok = ok && s.End() && s.InBudget()
	switch {
	case ok && err != nil:
		t.Fatalf("EachOnce read %.200q, which ParseRequest refuses: %v", data, err)
	case ok && !reflect.DeepEqual(got, want):
		t.Fatalf("EachOnce read %.200q as %v, ParseRequest as %v", data, got, want)
	case ok && s.Cost() != cost:
		t.Fatalf("EachOnce charged %.200q %d, ParseRequest %d", data, s.Cost(), cost)
	case !ok && err == nil && wide(want) == 0:
		t.Fatalf("EachOnce refused %.200q, which ParseRequest reads", data)
	}
}

// wide counts the objects in v with more than 64 members, which
// eachOnceTree refuses.
func wide(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		if len(v) > 64 {
			n++
		}
		for _, x := range v {
			n += wide(x)
		}
	case []any:
		for _, x := range v {
			n += wide(x)
		}
	}
	return n
}

// membersSeeds are objects with the shapes the member loop must read as
// Parse does: duplicates (also through escapes), escaped and odd names,
// white space everywhere, nesting, empty objects, 64 and 65 members.
func membersSeeds() []string {
	many := func(n int) string {
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"k` + string(rune('A'+i/26)) + string(rune('a'+i%26)) + `":` + "1")
		}
		return b.String() + "}"
	}
	return []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"\u00e9":1,"é":2}`,
		`{"a":{"b":{"c":{"d":{"e":1,"e":2}}}}}`, `{"a":{"b":1,"b":1}}`, "{\t\"a\"\r\n:\n1 , \"b\" : [ {\"c\":1,\"c\":2} ] }",
		`{"":1,"":2}`, `{"\ud800":1}`, `{"\ud83d\ude00":1,"😀":2}`, `{"a\"b":1,"a\\b":2}`, `{"\/":1,"/":2}`,
		`{"a":1,}`, `{"a" 1}`, `{"a":1 "b":2}`, `{,"a":1}`, `{"a":}`, `{"a"`, `{"a":`, `{`, `{"a":1`,
		`{"a":1}}`, `{"a":1} {}`, `{"a":"\u0000"}`, "{\"a\":\"\x00\"}", "{\"\xff\":1}", `{"a":1e999}`,
		`{"a":[1,2,{"b":[]}],"c":{"d":null,"e":true,"f":false,"g":-0.5e-3}}`, many(64), many(65),
		`{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
		`{"a":` + strings.Repeat(`{"a":`, 600) + "1" + strings.Repeat("}", 601),
	}
}

// TestEachOnce_sameAsParse: the member loop that the step scan, the
// serialize fast path and ReadObject share reads each seed, and each seed
// cut at every byte, exactly as ParseRequest does.
func TestEachOnce_sameAsParse(t *testing.T) {
	for _, seed := range membersSeeds() {
		for i := range len(seed) + 1 {
			membersSameAsParse(t, []byte(seed[:i]))
		}
	}
}

// FuzzEachOnce_sameAsParse: whatever the text, the member loop reads it as
// ParseRequest does (membersSameAsParse).
func FuzzEachOnce_sameAsParse(f *testing.F) {
	for _, seed := range membersSeeds() {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		membersSameAsParse(t, data)
	})
}
