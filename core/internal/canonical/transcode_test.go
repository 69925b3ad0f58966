package canonical

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// treeObjectText is what AppendObjectText must agree with: the canonical
// JSON of the tree Parse reads from text, when that tree is an object.
func treeObjectText(text string) (string, bool) {
	v, err := Parse([]byte(text))
	if _, isObj := v.(map[string]any); err != nil || !isObj {
		return "", false
	}
	b, err := Marshal(v)
	return string(b), err == nil
}

// objectTexts are texts AppendObjectText takes or refuses as Parse does:
// members out of order, nested and past 8 and 16 of them, every kind of
// value and string escape, duplicate names, bad syntax, not an object.
func objectTexts() []string {
	var wide, wider []string
	for i := 40; i > 0; i-- {
		m := `"k` + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + `":` + string(rune('0'+i%10))
		if i <= 12 {
			wide = append(wide, m)
		}
		wider = append(wider, m)
	}
	return []string{
		`{}`, ` { } `, `{"a":1}`, `{"b":1,"a":2}`, "\t{\"origin\": \"AMS\",\n \"destination\": \"LIS\", \"passengers\": 1}\r\n",
		`{"z":{"y":[3,{"c":1,"b":2,"a":{"e":5,"d":4}}],"x":null},"w":true,"v":false}`,
		`{` + strings.Join(wide, ",") + `}`, `{` + strings.Join(wider, ",") + `}`,
		`{"n":[0,-0,1.0,1e3,1E-7,-12.5e+2,123456789012345678901234,0.1,1023,1024,-1,5e-324,1.7976931348623157e308]}`,
		`{"s":"a\"b\\c\/d\b\f\n\r\tx\u0041\u00e9\ud83d\ude00\ud800x\udc00\u0000"}`,
		"{\"bad\":\"\xff\xfe\",\"\xc3\":1}", `{"caf\u00e9":1,"cafe":2,"` + "\U0001F600" + `":3,"` + "\uffff" + `":4}`,
		`{"a":1,"a":2}`, `{"b":1,"a":2,"b":3}`, `{"a":{"x":1,"x":1}}`, `{"a":"x","\u0061":"y"}`,
		`{"a":1,}`, `{"a"}`, `{"a":}`, `{"a":1]`, `{"a":[1,]}`, `{"a":tru}`, `{"a":nul}`, `{"a":1e999}`,
		`{"a":01}`, `{"a":-}`, `{"a":.5}`, `{"a":"x}`, "{\"a\":\"\x01\"}", `{"a":"\x"}`, `{"a":"\u12"}`,
		`{"a":1} x`, `{"a":1}{}`, `{`, ``, `  `, `[]`, `[{"a":1}]`, `"{}"`, `1`, `null`, `{"a":[[[[[[]]]]]]}`,
		strings.Repeat(`{"a":`, MaxDepth) + `1` + strings.Repeat(`}`, MaxDepth),
		strings.Repeat(`{"a":`, MaxDepth-1) + `1` + strings.Repeat(`}`, MaxDepth-1),
		`{"a":[` + strings.Repeat(`{"b":1},`, 400) + `{}]}`,
	}
}

// TestAppendObjectText_sameAsTree: for every text, AppendObjectText writes
// the bytes Append writes for Parse's tree of it, or refuses exactly the
// texts Parse refuses or reads as anything but an object, leaving dst as
// it was.
func TestAppendObjectText_sameAsTree(t *testing.T) {
	for _, text := range objectTexts() {
		want, wantOK := treeObjectText(text)
		got, ok := AppendObjectText([]byte("prefix"), text, nil)
		require.Equal(t, wantOK, ok, "%q", text)
		if ok {
			assert.Equal(t, "prefix"+want, string(got), "%q", text)
		} else {
			assert.Equal(t, "prefix", string(got), "%q", text)
		}
	}
}

// TestAppendObjectText_budget: a text whose tree is past Parse's budget for
// it (TextTreeBudget) is refused, as Parse refuses it.
func TestAppendObjectText_budget(t *testing.T) {
	for _, text := range []string{
		`{"a":[` + strings.Repeat(`{"":0},`, 20000) + `{}]}`,
		`{"a":[` + strings.Repeat(`{"":[]},`, 20000) + `{}]}`,
		`{"b":1,"a":[` + strings.Repeat(`{"":0},`, 20000) + `{}]}`,
	} {
		_, err := Parse([]byte(text))
		var le *LimitError
		require.ErrorAs(t, err, &le, "the shape is past Parse's budget")
		_, ok := AppendObjectText(nil, text, nil)
		assert.False(t, ok, "%.40s", text)
	}
}

// TestAppendObjectText_top: top sees the outer object's member names, not
// nested ones, and refusing one refuses the text.
func TestAppendObjectText_top(t *testing.T) {
	var names []string
	got, ok := AppendObjectText(nil, `{"b":{"c":1},"a":2}`, func(n string) bool { names = append(names, n); return true })
	require.True(t, ok)
	assert.Equal(t, `{"a":2,"b":{"c":1}}`, string(got))
	assert.Equal(t, []string{"b", "a"}, names)
	_, ok = AppendObjectText(nil, `{"b":1,"error":2}`, func(n string) bool { return n != "error" })
	assert.False(t, ok)
}

// FuzzAppendObjectText holds AppendObjectText to Append of Parse's tree on
// any text.
func FuzzAppendObjectText(f *testing.F) {
	for _, text := range objectTexts() {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want, wantOK := treeObjectText(text)
		got, ok := AppendObjectText(nil, text, nil)
		if ok != wantOK || ok && string(got) != want {
			t.Fatalf("%q: AppendObjectText %v %q, the tree %v %q", text, ok, got, wantOK, want)
		}
	})
}

// TestAppendObjectText_poolKeepsBoundedScratch: a Transcoder goes back to
// the pool with at most transcodeKept bytes and transcodeKeptSpans members
// of scratch, whatever the object it wrote, so that one huge call's
// arguments do not keep their size of memory for the calls after it.
func TestAppendObjectText_poolKeepsBoundedScratch(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"z":"` + strings.Repeat("x", 4*transcodeKept) + `"`)
	for i := range 4 * transcodeKeptSpans {
		fmt.Fprintf(&b, `,"k%d":%d`, i, i)
	}
	b.WriteString(`}`)
	out, ok := AppendObjectText(nil, b.String(), nil)
	require.True(t, ok)
	require.Greater(t, len(out), 4*transcodeKept)
	// the Transcoder put back last, unless the pool dropped it (-race)
	tc := transcoders.Get().(*Transcoder)
	defer transcoders.Put(tc)
	assert.LessOrEqual(t, cap(tc.tmp), transcodeKept, "sort scratch kept")
	assert.LessOrEqual(t, cap(tc.spans), transcodeKeptSpans, "member spans kept")
	// a small object after it is written alike
	out, ok = AppendObjectText(nil, `{"b":1,"a":[2,{"d":3,"c":4}]}`, nil)
	require.True(t, ok)
	assert.Equal(t, `{"a":[2,{"c":4,"d":3}],"b":1}`, string(out))
}

// TestScannerAppendCanonical_sameAsValue: the value of a request member
// (nesting level 1) transcoded by Scanner.AppendCanonical is the canonical
// JSON of the tree Scanner.Value reads there, for every value of
// objectTexts and the scalars; a value Value refuses is refused; the
// Scanner ends where Value's does and charges what Value charges, one
// Transcoder serving every call.
func TestScannerAppendCanonical_sameAsValue(t *testing.T) {
	var tc Transcoder
	values := append(objectTexts(), `"x\u0041"`, `-0`, `1e2`, `0.10`, `true`, `null`, `[3,{"b":1,"a":2}]`, `"`+"\xff"+`"`)
	for _, v := range values {
		text := `{"v":` + v + `,"w":1}`
		ref := NewScanner(text)
		require.True(t, ref.Byte('{'))
		_, _, ok := ref.Member(0)
		require.True(t, ok)
		tree, err := ref.Value(1)

		s := NewScanner(text)
		s.Byte('{')
		s.Member(0)
		got, ok := s.AppendCanonical([]byte("prefix"), 1, &tc)
		if err != nil {
			assert.False(t, ok, "%q", v)
			continue
		}
		want, merr := Marshal(tree)
		require.NoError(t, merr)
		require.True(t, ok, "%q", v)
		assert.Equal(t, "prefix"+string(want), string(got), "%q", v)
		assert.Equal(t, ref.Rest(), s.Rest(), "%q", v)
		assert.Equal(t, ref.Cost(), s.Cost(), "%q", v)
	}
}
