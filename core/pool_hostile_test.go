package core

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The list fast path reuses memory from one call to the next (the list
// arena's rooms, the engine rooms, the transcoders' scratch): these tests
// hold that no byte of one request reaches the answer of another, and that
// no answer handed out is written to by a later call, whatever ran before
// it (long lists, failed calls, other goroutines).

// hostileList is the JSON of an openai-chat list of n message groups
// (system, user, an assistant turn of calls per group and their tool
// results), every text and argument tagged with tag so that a byte of it
// in another answer is found: long texts (textLen bytes each, with escapes
// and surrogate pairs), secret-looking strings, several calls per turn.
func hostileList(tag string, n, textLen int, rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString(`[{"role":"system","content":"system ` + tag + ` sk-ant-api03-` + tag + `"}`)
	filler := func() string {
		var f strings.Builder
		for f.Len() < textLen {
			switch rng.IntN(6) {
			case 0:
				f.WriteString(`\u00e9\ud83d\ude00`)
			case 1:
				f.WriteString(`\n\"` + tag + `\"`)
			case 2:
				f.WriteString(" AKIA" + strings.ToUpper(tag) + " ")
			default:
				f.WriteString(" " + tag + strconv.Itoa(rng.IntN(1000)))
			}
		}
		return f.String()
	}
	for i := range n {
		fmt.Fprintf(&b, `,{"role":"user","content":"q%d %s"}`, i, filler())
		calls := 1 + rng.IntN(3)
		b.WriteString(`,{"role":"assistant","content":`)
		if rng.IntN(2) == 0 {
			b.WriteString(`null`)
		} else {
			fmt.Fprintf(&b, `"a%d %s"`, i, filler())
		}
		b.WriteString(`,"tool_calls":[`)
		for c := range calls {
			if c > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"call_%s_%d_%d","type":"function","function":{"name":"tool_%s_%d","arguments":"{\"z\":\"%s\",\"a\":[1,2.5,{\"k\":\"%s\"}],\"m\":\"%s\"}"}}`,
				tag, i, c, tag, c, tag, tag, filler())
		}
		b.WriteString(`]}`)
		for c := range calls {
			fmt.Fprintf(&b, `,{"role":"tool","tool_call_id":"call_%s_%d_%d","content":"r%d %s"}`, tag, i, c, c, filler())
		}
	}
	fmt.Fprintf(&b, `,{"role":"assistant","content":"done %s"}]`, tag)
	return b.String()
}

// poolRequests are the requests of every pooled op (convert from
// openai-chat to each format, check, repair) for list, and the failing
// ones a call may leave a room dirty after: invalid JSON late in the list,
// an unpaired call, a depth bound reached in the last message.
func poolRequests(list string) []string {
	var out []string
	for _, to := range TranscriptFormats() {
		out = append(out, `{"op":"convert","from":"openai-chat","to":"`+string(to)+`","messages":`+list+`}`)
	}
	out = append(out,
		`{"op":"check","format":"openai-chat","messages":`+list+`}`,
		`{"op":"repair","format":"openai-chat","messages":`+list+`}`,
		`{"op":"convert","from":"openai-chat","to":"anthropic","id_rules":"anthropic","messages":`+list+`}`,
	)
	body := list[:len(list)-1] // the list without its closing bracket
	out = append(out,
		// invalid JSON late in the list
		`{"op":"convert","from":"openai-chat","to":"gemini","messages":`+body+`,{"role":"user","content":"x"`+`]}`,
		// a call whose result is missing, and a result of no call
		`{"op":"repair","format":"openai-chat","messages":`+body+`,{"role":"assistant","tool_calls":[{"id":"lost","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"nobody","content":"x"}]}`,
		`{"op":"convert","from":"openai-chat","to":"anthropic","messages":`+body+`,{"role":"tool","tool_call_id":"nobody","content":"x"}]}`,
		// nesting past the depth bound in the last message
		`{"op":"convert","from":"openai-chat","to":"bedrock","messages":`+body+`,{"role":"user","content":[{"type":"text","text":"t","x":`+strings.Repeat("[", MaxDepth+8)+strings.Repeat("]", MaxDepth+8)+`}]}]}`,
		// a member the fast path does not read, in the last message (the
		// general path answers, after the arena was filled)
		`{"op":"convert","from":"openai-chat","to":"gemini","messages":`+body+`,{"role":"user","content":"x","name":"n"}]}`,
		// findings: an empty result, a call without its result
		`{"op":"check","format":"openai-chat","messages":`+body+`,{"role":"assistant","tool_calls":[{"id":"lost","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"nobody","content":""}]}`,
		// an unknown target
		`{"op":"convert","from":"openai-chat","to":"nobody","messages":`+list+`}`,
	)
	return out
}

// poolCase is a request and its answer from the general path, which works
// in no pooled room.
type poolCase struct {
	req, want, tag string
}

func poolCases(t testing.TB, lists map[string]string) []poolCase {
	t.Helper()
	var out []poolCase
	for tag, list := range lists {
		for i, req := range poolRequests(list) {
			// the conversions, the check and the repairs of the list as
			// it is: the fast path answers them (else no pool is tested)
			if _, fast := fastList(req); !fast && i < len(TranscriptFormats())+3 {
				t.Fatalf("the list fast path does not answer %.200q", req)
			}
			var op string
			out = append(out, poolCase{req, string(invokeTree(req, &op)), tag})
		}
	}
	// the fixtures of the pooled ops (serialize's first outcome is pooled
	// too), untagged
	for _, tc := range fixtureTests(t, "serialize", "convert", "check", "repair") {
		var op string
		out = append(out, poolCase{string(tc.Request), string(invokeTree(string(tc.Request), &op)), ""})
	}
	return out
}

// firstDifference shows where got and want first differ, with the bytes
// around it.
func firstDifference(got []byte, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-80, 0)
	return fmt.Sprintf("first difference at byte %d of %d (want %d)\ngot  ...%.240s\nwant ...%.240s", i, len(got), len(want), got[from:], want[from:])
}

// hostileLists are lists of sizes at and past the rooms' bounds (512
// parts, 256 KiB of text, 64 KiB of argument scratch) and short ones.
func hostileLists() map[string]string {
	rng := rand.New(rand.NewPCG(1, 2))
	return map[string]string{
		"qzlongxa":  hostileList("qzlongxa", 200, 300, rng),    // about 1,000 parts
		"qzhugetxb": hostileList("qzhugetxb", 30, 12<<10, rng), // past 256 KiB of text, 64 KiB arguments
		"qzbound":   hostileList("qzbound", 128, 8, rng),       // about 512 parts
		"qzshortc":  hostileList("qzshortc", 1, 4, rng),
		"qztinyd":   hostileList("qztinyd", 0, 0, rng),
		"qzmidle":   hostileList("qzmidle", 12, 40, rng),
	}
}

// poolPairRun says whether TestPools_secondAnswerAsFresh runs b after a
// (k: a number of the pair): every pair of short lists, a fourth of the
// pairs of a long list and a short one, a 32nd of those of a long list and
// a fixture; not two long lists, nor two fixtures (the fuzzer's seeds).
func poolPairRun(a, b *poolCase, k int) bool {
	const long = 20 << 10
	longs := 0
	for _, c := range []*poolCase{a, b} {
		if len(c.req) > long {
			longs++
		}
	}
	switch {
	case a.tag == "" && b.tag == "", longs == 2:
		return false
	case longs == 1 && (a.tag == "" || b.tag == ""):
		return k%32 == 0
	case longs == 1:
		return k%4 == 0
	}
	return true
}

// TestPools_secondAnswerAsFresh: each request answered right after each
// other one (on one goroutine, so one pool's rooms pass from the first to
// the second) is answered as the general path answers it, carries no tag
// of the request before it, and no answer handed out before changes.
func TestPools_secondAnswerAsFresh(t *testing.T) {
	cases := poolCases(t, hostileLists())
	var kept [][]byte // every answer handed out, with a copy of its bytes
	var copies [][]byte
	for i := range cases {
		for j := range cases {
			a, b := &cases[i], &cases[j]
			if !poolPairRun(a, b, i+j) {
				continue
			}
			Invoke([]byte(a.req))
			got := Invoke([]byte(b.req))
			if string(got) != b.want {
				t.Fatalf("after %.200q\nrequest %.200q\n%s", a.req, b.req, firstDifference(got, b.want))
			}
			if a.tag != "" && a.tag != b.tag && bytes.Contains(got, []byte(a.tag)) {
				t.Fatalf("answer of %.200q carries %q of the request before it", b.req, a.tag)
			}
			if len(kept) < 4000 {
				kept, copies = append(kept, got), append(copies, bytes.Clone(got))
			}
		}
	}
	for i := range kept {
		if !bytes.Equal(kept[i], copies[i]) {
			t.Fatalf("answer %d changed after it was handed out: %.300s", i, kept[i])
		}
	}
}

// TestPools_appendInvokeReusedBuffer: a caller reusing its response buffer
// and its request memory from call to call (as the C library does) gets
// each answer as a fresh call's, a long list's bytes overwritten in place
// by a short one's.
func TestPools_appendInvokeReusedBuffer(t *testing.T) {
	cases := poolCases(t, hostileLists())
	var dst []byte
	reqBuf := make([]byte, 0, 1<<20)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 400 {
		c := &cases[rng.IntN(len(cases))]
		reqBuf = append(reqBuf[:0], c.req...)
		dst = AppendInvoke(dst[:0], string(reqBuf))
		if string(dst) != c.want {
			t.Fatalf("request %.200q\n%s", c.req, firstDifference(dst, c.want))
		}
		for i := range reqBuf {
			reqBuf[i] = 'X' // the request's memory reused: nothing may still read it
		}
	}
}

// TestPools_concurrentAsSingleThreaded: goroutines answering different
// lists at once (their rooms passed between them by the pools) each get
// the general path's answer. Run under -race too.
func TestPools_concurrentAsSingleThreaded(t *testing.T) {
	cases := poolCases(t, hostileLists())
	workers, rounds := 8, 60
	if testing.Short() {
		rounds = 10
	}
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for range rounds {
				c := &cases[rng.IntN(len(cases))]
				if got := Invoke([]byte(c.req)); string(got) != c.want {
					errs <- fmt.Sprintf("request %.200q\n%s", c.req, firstDifference(got, c.want))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// TestPools_memoryBounded: 10,000 calls alternating a list past every
// room's bound and a short one keep the heap within a bound: what the
// rooms keep does not grow with the calls.
func TestPools_memoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 calls")
	}
	lists := hostileLists()
	huge := `{"op":"convert","from":"openai-chat","to":"gemini","messages":` + lists["qzhugetxb"] + `}`
	long := `{"op":"repair","format":"openai-chat","messages":` + lists["qzbound"] + `}`
	short := `{"op":"convert","from":"openai-chat","to":"anthropic","messages":` + lists["qzshortc"] + `}`
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var base uint64
	for i := range 10000 {
		switch {
		case i%500 == 0:
			Invoke([]byte(huge))
		case i%2 == 0:
			Invoke([]byte(long))
		default:
			Invoke([]byte(short))
		}
		if i == 999 {
			base = heap()
		}
	}
	// a few MiB for the pooled rooms of each P, whatever the calls
	if after := heap(); after > base+32<<20 {
		t.Fatalf("heap %d bytes after 10,000 calls, %d after 1,000", after, base)
	}
}

// FuzzPools_secondAnswerAsFresh: whatever request a ran before it on the
// same goroutine (its rooms then the pool's first), request b is answered
// as the general path answers it.
func FuzzPools_secondAnswerAsFresh(f *testing.F) {
	var seeds []string
	for _, tc := range fixtureTests(f, "serialize", "convert", "check", "repair") {
		seeds = append(seeds, string(tc.Request))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, req := range poolRequests(hostileList("qzseed", 20, 30, rng)) {
		seeds = append(seeds, req)
	}
	short := poolRequests(hostileList("qzsmall", 1, 3, rng))
	for i, s := range seeds {
		f.Add([]byte(s), []byte(short[i%len(short)]))
		f.Add([]byte(short[i%len(short)]), []byte(s))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var op string
		want := invokeTree(string(b), &op)
		first := Invoke(a)
		firstCopy := bytes.Clone(first)
		if got := Invoke(b); !bytes.Equal(got, want) {
			t.Fatalf("after %.300q\nrequest %.300q\n%s", a, b, firstDifference(got, string(want)))
		}
		if !bytes.Equal(first, firstCopy) {
			t.Fatalf("the answer of %.300q changed after a later call", a)
		}
	})
}
