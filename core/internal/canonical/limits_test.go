package canonical

import (
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repeated returns "[" + n copies of elem joined by commas + "]".
func repeated(elem string, n int) []byte {
	return []byte("[" + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]")
}

// liveHeap is the heap in use after two collections, in bytes.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// treeShapes are inputs of every shape the cost model distinguishes, each
// about 1 MB: what Parse charges for them is checked against the heap.
func treeShapes() map[string][]byte {
	var members strings.Builder
	members.WriteString("{")
	for i := range 40000 {
		if i > 0 {
			members.WriteString(",")
		}
		members.WriteString(`"key` + strconv.Itoa(i) + `":` + strconv.Itoa(i%7))
	}
	members.WriteString("}")
	return map[string][]byte{
		"tiny objects":          repeated(`{"":0}`, 150000),
		"empty objects":         repeated(`{}`, 300000),
		"objects of 8 members":  repeated(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}`, 20000),
		"objects of 12 members": repeated(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12}`, 12000),
		"one object of 40000":   []byte(members.String()),
		"empty arrays":          repeated(`[]`, 300000),
		"small integers":        repeated(`7`, 500000),
		"large numbers":         repeated(`123456.5`, 110000),
		"short strings":         repeated(`"ab"`, 200000),
		"escaped strings":       repeated(`"a\nb\u00e9"`, 80000),
		"messages":              repeated(`{"role":"tool","tool_call_id":"call_1","content":"{\"temperature\":21,\"unit\":\"C\"}"}`, 10000),
	}
}

// TestTreeCost_tracksTheHeap checks the cost model against the Go runtime:
// for every shape, what Parse charges is between 0.85 and 1.35 times what the
// tree really holds on the heap (the copy of the input the tree's strings
// share excluded; arrays are charged for the spare capacity append leaves
// while they grow), so TreeBudget bounds real memory, not a count of
// something else.
func TestTreeCost_tracksTheHeap(t *testing.T) {
	for name, data := range treeShapes() {
		t.Run(name, func(t *testing.T) {
			before := liveHeap()
			v, cost, err := parse(string(data), math.MaxInt64)
			after := liveHeap()
			require.NoError(t, err)
			runtime.KeepAlive(v)
			heap := float64(after - before)
			if name != "escaped strings" && (strings.Contains(name, "string") || strings.Contains(name, "object") || name == "messages") {
				heap -= float64(len(data)) // the string(data) copy the keys and strings share
			}
			ratio := float64(cost) / heap
			t.Logf("%s: %d bytes in, cost %d (%.1f per byte), heap %.0f: cost/heap %.2f", name, len(data), cost, float64(cost)/float64(len(data)), heap, ratio)
			assert.GreaterOrEqual(t, ratio, 0.85, "cost %d, heap %.0f", cost, heap)
			assert.LessOrEqual(t, ratio, 1.35, "cost %d, heap %.0f", cost, heap)
		})
	}
}

func TestParse_treeBudget(t *testing.T) {
	tiny := repeated(`{"":0}`, 100000)
	_, err := ParseRequest(tiny)
	var le *LimitError
	require.ErrorAs(t, err, &le)
	assert.True(t, errors.Is(err, ErrLimit))
	assert.Equal(t, "value_bytes", le.Bound)
	assert.Equal(t, TreeBudget(len(tiny)), le.Limit)
	_, err = Parse(tiny)
	require.ErrorAs(t, err, &le)
	assert.Equal(t, TextTreeBudget(len(tiny)), le.Limit, "as a text inside a request")
	assert.Greater(t, le.Count, le.Limit)
	assert.Less(t, le.Offset, int64(len(tiny)), "refused before the end, while building")

	// Text of the same size in the shape of a transcript is accepted.
	msgs := repeated(`{"role":"user","content":"What is the weather in Paris and in its neighbour?"}`, 10000)
	_, cost, err := parse(string(msgs), TreeBudget(len(msgs)))
	require.NoError(t, err)
	assert.Less(t, float64(cost)/float64(len(msgs)), 8.0)

	// Past 16 MiB the budget stops growing at MaxTreeBytes.
	assert.Equal(t, int64(MaxTreeBytes), TreeBudget(32<<20))
	assert.Equal(t, int64(TreeBytesPerInputByte*(10<<20)), TreeBudget(10<<20))

	// Below MinTreeBudgetInput the budget is that of 16 KiB of input.
	assert.Equal(t, int64(TreeBytesPerInputByte*MinTreeBudgetInput), TreeBudget(10))
	deep := []byte(`{"a":` + strings.Repeat(`{"a":`, 510) + `1` + strings.Repeat(`}`, 511))
	_, err = ParseRequest(deep)
	assert.NoError(t, err, "the deepest request MaxDepth allows fits the floor")

	// A text inside a request has no floor, only TextTreeSlack: small
	// arguments fit, the same deep object does not and stays text.
	for _, small := range []string{`{"city":"Paris"}`, `{"a":1}`, `{"a":{"b":{"c":1}}}`, `[]`, `"x"`} {
		_, err = Parse([]byte(small))
		assert.NoError(t, err, small)
	}
	_, err = Parse(deep)
	require.ErrorAs(t, err, &le)
	assert.Equal(t, TextTreeBudget(len(deep)), le.Limit)
	assert.Equal(t, int64(MaxTextTreeBytes), TextTreeBudget(32<<20))
}

func TestParse_depthIsALimit(t *testing.T) {
	_, err := Parse([]byte(strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)))
	var le *LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, LimitError{Bound: "depth", Limit: MaxDepth, Count: MaxDepth + 1, Offset: MaxDepth}, *le)
	assert.Equal(t, "canonical: nesting deeper than 512 levels of arrays and objects (the limit) at byte offset 512", le.Error())
}
