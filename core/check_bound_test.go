package core

import (
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// emptyParts is a request of the trust report on check's memory: one
// openai-chat user message of n content parts {}, each an invalid_part
// finding of about 200 bytes: a check (format after messages when form is
// "general", which fastList declines), a check of a body ("body") or an
// egress_request ("egress").
func emptyParts(n int, form string) []byte {
	list := `[{"role":"user","content":[{}` + strings.Repeat(`,{}`, n-1) + `]}]`
	switch form {
	case "general":
		return []byte(`{"op":"check","messages":` + list + `,"format":"openai-chat"}`)
	case "body":
		return []byte(`{"op":"check","format":"openai-chat","body":{"model":"gpt-4o","messages":` + list + `}}`)
	case "egress":
		return []byte(`{"op":"egress_request","format":"openai-chat","body":{"model":"gpt-4o","messages":` + list + `}}`)
	}
	return []byte(`{"op":"check","format":"openai-chat","messages":` + list + `}`)
}

// allocated returns the bytes Invoke(req) allocates and its answer.
func allocated(req []byte) (uint64, []byte) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	out := Invoke(req)
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc, out
}

// TestCheck_findingsPastResponseBytes: a check (or egress_request) whose
// findings cannot fit MaxResponseBytes stops building them there, so that
// what it allocates for parts past the bound is what reading them takes
// (before the fix, 320,000 more parts allocated about 2,000 bytes per
// request byte: the findings, built whole before the bound was checked),
// and it answers as it did: the response_bytes error whose count is where
// the writer stopped (the counts measured on the build before the fix; a
// check's the same for n from 165,000 to 2,000,000).
func TestCheck_findingsPastResponseBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: requests of 1 and 2 MB with 190,000 findings")
	}
	// the counts for 320,000 and 640,000 parts: egress_request writes the
	// body, whose length is the request's, before the findings
	for _, tc := range []struct {
		form, op string
		counts   [2]int
	}{
		{"fast", "check", [2]int{33554430, 33554430}}, {"general", "check", [2]int{33554430, 33554430}},
		{"body", "check", [2]int{33554371, 33554371}}, {"egress", "egress_request", [2]int{33554413, 33554409}},
	} {
		small, big := emptyParts(320_000, tc.form), emptyParts(640_000, tc.form)
		a1, out1 := allocated(small)
		a2, out2 := allocated(big)
		for i, out := range [][]byte{out1, out2} {
			c := strconv.Itoa(tc.counts[i])
			want := `{"error":{"code":"INVALID_INPUT","details":{"bound":"response_bytes","count":` + c + `,"limit":33554432,"op":"` + tc.op + `","path":""},"message":"toolerr: the response would be longer than 33554432 bytes (the limit): ` + c + ` were written when it stopped; send a smaller request.","retryable":false,"source":"orchestrator"}}`
			if string(out) != want {
				t.Fatalf("%s: got %.400s, want %s", tc.form, out, want)
			}
		}
		per := float64(a2-a1) / float64(len(big)-len(small))
		t.Logf("%s: %d MB for %d bytes (%.0fx), %.0f bytes per request byte past the bound", tc.form, a2>>20, len(big), float64(a2)/float64(len(big)), per)
		// reading an empty part into the tree and the neutral model takes
		// about 140 bytes per request byte (the same list in anthropic,
		// which has no finding for it: 150x)
		if per > 250 {
			t.Errorf("%s: the parts past the bound allocate %.0f bytes per request byte, want at most 250", tc.form, per)
		}
		if total := float64(a2) / float64(len(big)); total > 500 {
			t.Errorf("%s: allocates %.0fx its request, want at most 500x", tc.form, total)
		}
	}
}

// boundedLists are lists for TestCheck_maxBytesPrefix whose findings merge
// (orphans of one message, one finding with their ids), sit at parts and at
// messages, and are raised out of message order (unanswered calls before
// the messages' own).
var boundedLists = []struct {
	f    Format
	msgs string
}{
	{"anthropic", `[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}},{"type":"tool_use","id":"b","name":"f","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"r"},{"type":"text","text":""},{"type":"tool_result","tool_use_id":"y","content":"r"},{"type":"tool_result","tool_use_id":"z","content":""}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"f","input":{}},{"type":"text","text":""}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"q","content":"r"},{"type":"tool_result","tool_use_id":"w","content":"r"}]},
		{"role":"robot","content":"hi"}]`},
	{"gemini", `[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionCall":{"name":"g","args":{}}}]},
		{"role":"user","parts":[{"text":"a"},{"functionResponse":{"name":"h","response":{}}},{"text":"b"}]},
		{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"text":"c"}]}]`},
	{"openai-chat", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"x","content":"r"},{"role":"user","content":[{},{"type":"text","text":"a"},{"type":"audio"},{}]},
		{"role":"tool","tool_call_id":"y","content":"r"},{"role":"assistant","tool_calls":[]},{"role":"user","content":[]}]`},
}

// TestCheck_maxBytesPrefix: with transcript.Options.MaxBytes, Check returns
// a prefix of its findings, each whole (every id merged in), and stops
// only once the findings it returns encode to more than MaxBytes, so the
// writer stops inside them where it would have stopped in all of them.
func TestCheck_maxBytesPrefix(t *testing.T) {
	type list struct {
		f    Format
		opts TranscriptOptions
		msgs []any
	}
	var lists []list
	for _, l := range boundedLists {
		var msgs []any
		if err := json.Unmarshal([]byte(l.msgs), &msgs); err != nil {
			t.Fatal(err)
		}
		lists = append(lists, list{l.f, TranscriptOptions{}, msgs})
	}
	for _, seed := range fastListSeeds(t) {
		var req map[string]any
		if json.Unmarshal(seed, &req) != nil || req["op"] != "check" {
			continue
		}
		if f, opts, msgs, err := listMembers(req); err == nil {
			lists = append(lists, list{f, opts, msgs})
		}
	}
	cut := 0
	for _, l := range lists {
		all, err := CheckWith(l.f, l.msgs, l.opts)
		if err != nil {
			continue
		}
		for _, max := range []int{1, 40, 150, 300, 600, 1200, 5000} {
			got, err := checkWith(l.f, l.msgs, l.opts, max)
			if err != nil {
				t.Fatalf("%s max %d: %v", l.f, max, err)
			}
			if len(got) > len(all) || !reflect.DeepEqual(got, all[:len(got)]) {
				t.Fatalf("%s max %d: %+v is not a prefix of %+v", l.f, max, got, all)
			}
			if len(got) < len(all) {
				cut++
				if n := len(appendFindings(nil, got)); n <= max {
					t.Fatalf("%s max %d: stopped at %d findings of %d, which encode to %d bytes", l.f, max, len(got), len(all), n)
				}
			}
		}
	}
	if cut < 100 {
		t.Fatalf("only %d checks were cut short: the test proves little", cut)
	}
	t.Logf("%d lists, %d checks cut short", len(lists), cut)
}

// TestCheck_findingsCount: findingsCount gives the count writeOK's
// writer gives for the same findings wherever they cross the bound (the
// response's start padded so that the crossing falls at each of their
// bytes in turn).
func TestCheck_findingsCount(t *testing.T) {
	fs := []Finding{
		{Kind: "orphan_result", Index: 3, IDs: []string{"a", "b\u00e9\"c"}, Message: "m"},
		{Kind: "invalid_part", Index: 0, Path: "messages[0].content[1]", IDs: []string{}, Message: strings.Repeat("x", 90)},
		{Kind: "unverified_result", Index: -1, Path: "open_calls[0]", IDs: []string{"id"}, Message: "y"},
	}
	const head = `{"findings":`
	body := len(appendFindings(nil, fs)) + len("}}")
	result := map[string]any{"findings": findingsValue(fs)}
	buf := make([]byte, MaxResponseBytes+1024)
	copy(buf, okPrefix)
	for i := len(okPrefix); i < len(buf); i++ {
		buf[i] = ' '
	}
	crossed := 0
	for start := MaxResponseBytes - len(head) - body - 2; start <= MaxResponseBytes-len(head)+1; start++ {
		// the general path's writer: okPrefix, padding, then the result
		_, err := canonical.AppendMax(buf[:start:start+len(head)+body+16], result, MaxResponseBytes-1)
		fits := start+len(head)+body <= MaxResponseBytes
		le, isLimit := errors.AsType[*canonical.LimitError](err)
		if fits != (err == nil) || !fits && !isLimit {
			t.Fatalf("start %d: fits %v, AppendMax %v", start, fits, err)
		}
		if fits {
			continue
		}
		crossed++
		dst, past := appendFindingsMax(append(buf[:start:start+len(head)+body+16], head...), fs, maxResult)
		if got := findingsCount(dst, fs, past); got != le.Count {
			t.Fatalf("start %d: findingsCount %d, the writer %d", start, got, le.Count)
		}
	}
	if crossed < body {
		t.Fatalf("only %d crossings", crossed)
	}
}
