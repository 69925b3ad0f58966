package canonical

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scanRaw reads text's one value with Canonical (visiting every string) and,
// from the start again, with Value, and returns both results and costs.
func scanRaw(text string, visit func(string, bool) bool) (raw string, ok bool, rawCost int64, tree any, treeErr error, treeCost int64) {
	s := NewScanner(text)
	raw, ok = s.Canonical(1, visit)
	rawCost = s.p.cost
	t := NewScanner(text)
	tree, treeErr = t.Value(1)
	return raw, ok, rawCost, tree, treeErr, t.p.cost
}

func all(string, bool) bool { return true }

// TestScannerCanonical_acceptsOnlyTheCanonicalForm: a value in RFC 8785 form
// comes back as its own text, which is what Append writes for the tree Value
// reads, charged as Value charges it; any other form is refused with the
// Scanner where it was and nothing charged.
func TestScannerCanonical_acceptsOnlyTheCanonicalForm(t *testing.T) {
	accepted := []string{
		`{}`, `[]`, `""`, `"a"`, `0`, `7`, `-7`, `1023`, `1024`, `-1`, `999999999999999`, `true`, `false`, `null`,
		`{"timeout_ms":10000}`, `{"a":1,"b":[1,"x",{"c":null}],"d":{}}`,
		`{"attempt":1,"tool":"get_weather"}`, `{"":0,"a":""}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10}`, // past 8 members
		`{"caf` + "\u00e9" + `":"` + "\u00fc" + `"}`,
		`{"` + "\U0001F600" + `":1,"` + "\uffff" + `":2}`, // UTF-16 order: the surrogate before U+FFFF
		`[[[[[]]]]]`,
	}
	for _, text := range accepted {
		raw, ok, rc, tree, err, tc := scanRaw(text, all)
		require.True(t, ok, text)
		require.NoError(t, err, text)
		assert.Equal(t, text, string(raw))
		want, err := Marshal(tree)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(raw), "Append writes the text for %s", text)
		assert.Equal(t, tc, rc, "cost of %s", text)
	}
	for _, text := range []string{
		`{ }`, `{"a": 1}`, `{"a":1 ,"b":2}`, `[1, 2]`, `{"b":1,"a":2}`, `{"a":1,"a":2}`,
		`"a\/b"`, `"\u0041"`, `"a\nb"`, `"\ud83d\ude00"`, "\"a\x01\"", "\"\xff\"",
		`1.0`, `1e3`, `-0`, `01`, `0.5`, `1234567890123456`, `-`, `1E2`,
		`{"\u00e9":1}`, `{"` + "\uffff" + `":1,"` + "\U0001F600" + `":2}`,
		`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `tru`, `nul`, `{`, `[`, `"abc`,
		`x`, `[1}`, `{"a":1]`,
	} {
		s := NewScanner(text)
		raw, ok := s.Canonical(1, all)
		assert.False(t, ok, "%q is not canonical", text)
		assert.Empty(t, raw)
		assert.Zero(t, s.p.pos, text)
		assert.Zero(t, s.p.cost, text)
	}
	// Leading white space is skipped, as Value skips it.
	s := NewScanner("  {\"a\":1} ")
	raw, ok := s.Canonical(1, all)
	require.True(t, ok)
	assert.Equal(t, `{"a":1}`, string(raw))
	assert.True(t, s.End())
}

// TestScannerCanonical_visitsEveryString: visit sees each member name and
// string in order, and refusing one refuses the value.
func TestScannerCanonical_visitsEveryString(t *testing.T) {
	var seen []string
	_, ok := NewScanner(`{"a":"x","b":[{"c":"y"},"z",1]}`).Canonical(1, func(s string, name bool) bool {
		if name {
			s = "name:" + s
		}
		seen = append(seen, s)
		return true
	})
	require.True(t, ok)
	assert.Equal(t, []string{"name:a", "x", "name:b", "name:c", "y", "z"}, seen)
	s := NewScanner(`{"a":"secret"}`)
	_, ok = s.Canonical(1, func(v string, name bool) bool { return v != "secret" })
	assert.False(t, ok)
	v, err := s.Value(1) // the caller reads it as a tree instead
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": "secret"}, v)
}

// TestScannerCanonical_boundsAsValue: nesting past MaxDepth and a tree past
// the budget are refused, as Value refuses them.
func TestScannerCanonical_boundsAsValue(t *testing.T) {
	for _, n := range []int{MaxDepth - 2, MaxDepth - 1, MaxDepth, MaxDepth + 1} {
		text := strings.Repeat(`[`, n) + strings.Repeat(`]`, n)
		_, ok, _, _, err, _ := scanRaw(text, all)
		assert.Equal(t, err == nil, ok, "depth %d", n)
	}
	// 16 KiB of request buys TreeBudget(16 KiB) of tree: many small objects pass it.
	text := `[` + strings.Repeat(`{"a":1},`, 2000) + `{}]`
	s := &Scanner{p: parser{text: text, budget: 300 * 2000}}
	_, ok := s.Canonical(0, all)
	v := &Scanner{p: parser{text: text, budget: 300 * 2000}}
	_, err := v.Value(0)
	assert.False(t, ok)
	assert.ErrorIs(t, err, ErrLimit)
}

// TestScannerSkip_asValue holds Skip to Value: the same error (kind and
// offset) or none, the same charge to the budget and the same position
// after, on texts of every kind (duplicates before and past the 8th key,
// escapes, nesting, a budget crossed).
func TestScannerSkip_asValue(t *testing.T) {
	wide := `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10}`
	for _, text := range []string{
		`{}`, `[]`, `"x"`, `""`, `"a\nb\u00e9\ud800"`, `12`, `-0.5`, `1e400`, `true`, `null`, `nul`,
		`{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}`,
		`[{"a":[1,2,{"b":"c"}]},[[],[]],"s"]`, wide,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"a":9}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"i":10}`,
		`{"a":1,"a":2}`, `{"a" 1}`, `[1,]`, `[1 2]`, `{"a":[}`, `"\x01"`,
		strings.Repeat(`[`, MaxDepth+1) + strings.Repeat(`]`, MaxDepth+1),
		`[` + strings.Repeat(`{},`, 200) + `{}]`,
	} {
		for _, budget := range []int64{1 << 30, 400} {
			value := &Scanner{p: parser{text: text, budget: budget}}
			skip := &Scanner{p: parser{text: text, budget: budget}}
			_, verr := value.Value(1)
			serr := skip.Skip(1)
			if fmt.Sprint(verr) != fmt.Sprint(serr) || value.Cost() != skip.Cost() || value.p.pos != skip.p.pos {
				t.Errorf("%.60s (budget %d): Value %v, cost %d, at %d; Skip %v, cost %d, at %d",
					text, budget, verr, value.Cost(), value.p.pos, serr, skip.Cost(), skip.p.pos)
			}
			if skip.p.discard {
				t.Errorf("%.60s: the Scanner still discards after Skip", text)
			}
		}
	}
}

// quotedSame holds Scanner.Quoted to AppendString for the JSON text lit (a
// string literal): when it says the literal is canonical, AppendString
// writes exactly it for the string read; and it says so for every literal
// AppendString writes.
func quotedSame(t *testing.T, lit string) {
	s := NewScanner(lit)
	v, ok := s.String()
	if !ok {
		return
	}
	q, canon := s.Quoted()
	want := string(AppendString(nil, v))
	if canon && q != want {
		t.Fatalf("Quoted of %q says canonical, AppendString writes %q", lit, want)
	}
	if !canon && q == want {
		t.Fatalf("Quoted of %q says not canonical, AppendString writes it", lit)
	}
	if lit = strings.TrimLeft(lit, " \t\r\n"); q != lit[:len(q)] {
		t.Fatalf("Quoted of %q is %q, not its literal", lit, q)
	}
}

// quotedSeeds are string literals with each escape JSON has, in the
// forms AppendString writes and in the others (\/, upper-case hex, \u
// for a printable character or one with a short escape, surrogate pairs,
// invalid UTF-8 before and after an escape).
var quotedSeeds = []string{
	`""`, `"plain"`, `"Zürich"`, `"a\"b"`, `"a\\b"`, `"a\/b"`, `"\b\f\n\r\t"`,
	`"\u0000\u001f"`, `"\u001F"`, `"\u0041"`, `"\u000a"`, `"\u0008"`, `"\u007f"`,
	`"\ud83d\ude00"`, `"\ud83d"`, `"é\n"`, "\"\xff\\n\"", "\"\\n\xff\"", "\"\xff\"",
	`"{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"\",\"retryable\":true,\"source\":\"tool\"}"`,
	`"\u00e9"`, `"\u2028"`, "\"\u2028\"", `"a" `, `"\x"`, `"unterminated`,
}

func TestQuoted_isCanonical(t *testing.T) {
	for _, lit := range quotedSeeds {
		quotedSame(t, lit)
	}
	for _, v := range []string{"", "plain", "a\"b\\c\n\t\x01\x1f\x7f", "Zürich ☃ 😀", "{\"a\":[1,\"x\"]}"} {
		lit := string(AppendString(nil, v))
		s := NewScanner(lit)
		got, ok := s.String()
		q, canon := s.Quoted()
		if !ok || got != v || !canon || q != lit {
			t.Fatalf("%q: read %q (%v), Quoted %q canonical %v", lit, got, ok, q, canon)
		}
	}
	// with the strings shared, as a list's scan reads them
	s := NewScanner(`["a\/b","a\nb"]`)
	s.ShareStrings()
	s.Byte('[')
	_, _ = s.String()
	if _, canon := s.Quoted(); canon {
		t.Fatal(`"a\/b" read as canonical`)
	}
	s.Byte(',')
	_, _ = s.String()
	if q, canon := s.Quoted(); !canon || q != `"a\nb"` {
		t.Fatalf(`"a\nb": Quoted %q canonical %v`, q, canon)
	}
}

// FuzzQuoted: whatever the literal, Quoted's answer is AppendString's.
func FuzzQuoted(f *testing.F) {
	for _, lit := range quotedSeeds {
		f.Add(lit)
	}
	f.Fuzz(quotedSame)
}

// TestScannerSkip_noAllocs holds Skip to reading without building: a value
// of strings without escapes, numbers (small, fractional, large), arrays,
// literals and objects of at most 8 members (a function tool as a request
// declares it) is skipped without one allocation (it took one per string,
// number past the small ones and array).
func TestScannerSkip_noAllocs(t *testing.T) {
	text := `[{"type":"function","function":{"name":"f","description":"Search flights.","parameters":{"type":"object",` +
		`"properties":{"a":{"type":"string","enum":["x","y"]},"n":{"type":"number","minimum":0.2,"maximum":123456789}},"required":["a"]}}},` +
		`[],true,null,"auto",1024,-3.5e2]`
	allocs := testing.AllocsPerRun(50, func() {
		s := NewScanner(text)
		if err := s.Skip(1); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 { // the Scanner itself
		t.Errorf("Skip took %v allocations, want at most 1 (the Scanner)", allocs)
	}
}
