package core

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/egress"
)

// scanAll runs EgressScan over src cut at the offsets cuts, as a transport
// does (the held bytes given again before the next chunk): the client's
// bytes and the replies written.
func scanAll(t testing.TB, kind string, ingress Format, src []byte, cuts ...int) ([]byte, []ErrorReply) {
	st, held := ScanState{Kind: kind}, []byte(nil)
	var out []byte
	var reps []ErrorReply
	from := 0
	for i := 0; i <= len(cuts); i++ {
		end := len(src)
		if i < len(cuts) {
			end = cuts[i]
		}
		in := append(append([]byte(nil), held...), src[from:end]...)
		from = end
		r, err := EgressScan(ingress, st, in, i == len(cuts), EgressOptions{NowMs: 1})
		require.NoError(t, err)
		for _, c := range r.Cuts {
			if c.Reply != nil {
				reps = append(reps, *c.Reply)
			}
		}
		out = r.AppendOutput(out, in)
		held, st = in[r.Hold:], r.State
	}
	require.Empty(t, held, "nothing is held after the end of the stream")
	tail, _ := scanTail(t, kind, ingress, src, cuts...)
	require.Equal(t, string(out), string(tail), "EgressScanTail answers as EgressScan does")
	return out, reps
}

// scanTail is scanAll through EgressScanTail, as the bindings call it:
// the held bytes left out but from the state's scan position (all it
// allows), given again when the answer asks; sent counts the bytes given
// to the core.
func scanTail(t testing.TB, kind string, ingress Format, src []byte, cuts ...int) (out []byte, sent int) {
	st, held := ScanState{Kind: kind}, []byte(nil)
	from := 0
	for i := 0; i <= len(cuts); i++ {
		end := len(src)
		if i < len(cuts) {
			end = cuts[i]
		}
		in := append(held, src[from:end]...)
		from = end
		skip := min(st.Pos, len(held))
		r, resend, err := EgressScanTail(ingress, st, skip, in[skip:], i == len(cuts), EgressOptions{NowMs: 1})
		require.NoError(t, err)
		sent += len(in) - skip
		if resend {
			r, err = EgressScan(ingress, st, in, i == len(cuts), EgressOptions{NowMs: 1})
			require.NoError(t, err)
			sent += len(in)
		}
		out = r.AppendOutput(out, in)
		held, st = append([]byte(nil), in[r.Hold:]...), r.State
	}
	return out, sent
}

// TestEgressScan_sse: a data-only error chunk cut short (its JSON
// unfinished, then a blank line) is replaced, as a whole one is, whatever
// the chunking; the events around it pass byte for byte; content is
// emitted before it, so its reply says partial_output.
func TestEgressScan_sse(t *testing.T) {
	before := "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"
	src := []byte(before + "data: {\"error\":{\"message\":\"sk-secret\",\"type\":\"server_error\"\n\ndata: [DONE]\n\n")
	for cut := 0; cut <= len(src); cut++ {
		out, reps := scanAll(t, ScanSSE, FormatOpenAIChat, src, cut)
		require.Len(t, reps, 1, "cut at %d", cut)
		assert.Equal(t, before+"data: "+string(reps[0].Body)+"\n\ndata: [DONE]\n\n", string(out), "cut at %d", cut)
		assert.NotContains(t, string(out), "sk-secret")
		assert.Equal(t, true, reps[0].Envelope.Details["partial_output"])
	}
}

// TestEgressScan_array: the third element, an error, is replaced by the
// error object, and strings holding brackets and quotes do not end an
// element, whatever the chunking.
func TestEgressScan_array(t *testing.T) {
	head := `[{"text":"}]\"{"},` + "\r\n" + `{"text":"[{"},`
	src := []byte(head + `{"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}]`)
	for cut := 0; cut <= len(src); cut++ {
		out, reps := scanAll(t, ScanArray, FormatGemini, src, cut)
		require.Len(t, reps, 1, "cut at %d", cut)
		assert.Equal(t, head+string(reps[0].Body)+"]", string(out), "cut at %d", cut)
	}
}

// TestScanState_strings: a state reads back from its string; a string no
// state writes, and a state that does not fit the input, are a
// *RequestError at "state", never a panic.
func TestScanState_strings(t *testing.T) {
	st := ScanState{Kind: ScanArray, Pos: 3, Line: -1, Mode: scanDrop, DropName: "err\x00or", Emitted: true, Elem: true, Phase: arrayIn, Seen: 4, BOM: 3, Depth: 2, Base: 1}
	back, ok := ParseScanState(st.String())
	require.True(t, ok)
	assert.Equal(t, st, back)
	for _, s := range []string{"", "sse", "sse.1", "sse.0.0.0.99.0.0.0.0.0.", "sse.0.0.0.0.0.0.0.0.0.zz", "sse.x.0.0.0.0.0.0.0.0."} {
		_, ok := ParseScanState(s)
		assert.False(t, ok, s)
	}
	for _, bad := range []ScanState{{Kind: "json"}, {Kind: ScanSSE, Pos: 5}, {Kind: ScanSSE, Pos: -1}, {Kind: ScanArray, BOM: 4, Seen: 4}, {Kind: ScanSSE, DropName: "x"}} {
		_, err := EgressScan(FormatOpenAIChat, bad, []byte("data"), false, EgressOptions{})
		var re *RequestError
		require.True(t, errors.As(err, &re), "%+v", bad)
		assert.Equal(t, "state", re.Path)
	}
}

// FuzzEgressScan: whatever the bytes and wherever a stream is cut, the scan
// never panics and gives the client the same bytes as the stream read
// whole; with no reply, those are the stream's own.
func FuzzEgressScan(f *testing.F) {
	f.Add([]byte("data: {\"error\":{\"message\":\"x\"}}\r\n\r\n"), 5, false)
	f.Add([]byte("\xef\xbb\xbfevent: error\rdata: {}\r\r"), 3, false)
	f.Add([]byte(`[{"a":"]}\""},{"\u0065rror":{}}]`), 7, true)
	f.Fuzz(func(t *testing.T, src []byte, cut int, array bool) {
		kind := ScanSSE
		if array {
			kind = ScanArray
		}
		if cut < 0 || cut > len(src) {
			cut = len(src) / 2
		}
		whole, reps := scanAll(t, kind, FormatGemini, src)
		split, _ := scanAll(t, kind, FormatGemini, src, cut)
		require.True(t, bytes.Equal(whole, split), "cut at %d", cut)
		if len(reps) == 0 {
			require.True(t, bytes.Equal(whole, src))
		}
	})
}

// TestEgressScan_unread: an event past MaxEventBytes that is content
// passes as it arrives, byte for byte; the event after it is read.
func TestEgressScan_unread(t *testing.T) {
	long := "data: {\"choices\":[{\"delta\":{\"content\":\"" + string(bytes.Repeat([]byte("y"), MaxEventBytes+200000)) + "\"}}]}\n\n"
	src := []byte(long + "data: {\"error\":{\"message\":\"x\"}}\n\n")
	st, held, out, replies := ScanState{Kind: ScanSSE}, []byte(nil), []byte(nil), 0
	for from := 0; from < len(src); from += 1 << 16 {
		in := append(held, src[from:min(from+1<<16, len(src))]...)
		r, err := EgressScan(FormatOpenAIChat, st, in, from+1<<16 >= len(src), EgressOptions{})
		require.NoError(t, err)
		for _, c := range r.Cuts {
			if c.Reply != nil {
				replies++
			}
		}
		out = r.AppendOutput(out, in)
		held, st = in[r.Hold:], r.State
	}
	assert.True(t, bytes.HasPrefix(out, []byte(long)))
	assert.NotContains(t, string(out[len(long):]), `"message":"x"`)
	assert.Equal(t, 1, replies)
}

// TestEgressScan_longErrorMemberIsCut: in an element or event past
// MaxEventBytes, the top-level "error" object after a long data string is
// cut out as it passes and the error op's "error" object written at its
// "}", the state carried as the op's string between calls (its end read a
// byte at a time, so the name, the colon and the cut span calls); nothing
// of the upstream's text passes, the rest passes byte for byte. A state
// string with no cut in progress keeps its eleven parts.
func TestEgressScan_longErrorMemberIsCut(t *testing.T) {
	const secret = "sk-proj-AbCdEf0123456789AbCdEf0123456789xyz"
	errObj := `{"code":500,"message":"key ` + secret + ` {\"x\":[1]}","status":"INTERNAL"}`
	el := `{"candidates":[{"content":{"parts":[{"inlineData":{"data":"` + strings.Repeat("z", MaxEventBytes+1<<20) + `"}}]}}],"\u0065rror" : ` + errObj + `,"usageMetadata":{}}`
	for _, kind := range []string{ScanSSE, ScanArray} {
		src := "[" + el + "\r\n,{\"candidates\":[]}]"
		if kind == ScanSSE {
			src = "data: " + el + "\r\n\r\ndata: {\"candidates\":[]}\r\n\r\n"
		}
		state, held, out := ScanState{Kind: kind}.String(), []byte(nil), []byte(nil)
		var reps []ErrorReply
		tail := len(src) - len(errObj) - 60
		for from := 0; from < len(src); {
			n := 32768
			if from >= tail {
				n = 1
			}
			to := min(from+n, len(src))
			st, ok := ParseScanState(state)
			require.True(t, ok, state)
			in := append(held, src[from:to]...)
			r, err := EgressScan(FormatGemini, st, in, to == len(src), EgressOptions{Upstream: "gemini"})
			require.NoError(t, err)
			for _, c := range r.Cuts {
				if c.Reply != nil {
					reps = append(reps, *c.Reply)
				}
			}
			out = r.AppendOutput(out, in)
			held, state, from = in[r.Hold:], r.State.String(), to
		}
		require.Len(t, reps, 1, kind)
		assert.Equal(t, Code("SERVER_ERROR"), reps[0].Envelope.Code)
		inner := string(egress.ErrorMember(reps[0].Body))
		require.True(t, strings.HasPrefix(inner, `{"code":500,`), inner)
		assert.NotContains(t, string(out), secret)
		assert.True(t, strings.Replace(src, errObj, inner, 1) == string(out), "%s: %d of %d bytes, ending %q", kind, len(out), len(src), out[max(0, len(out)-400):])
		assert.Len(t, strings.Split(state, "."), 11, state)
	}
}

// TestEgressScanTail_longFrameIsSentOnce: a 1 MiB frame in 1 KiB chunks,
// clean or an error at its end, SSE and array, crosses to the core about
// twice (once as it arrives, once whole at its end, when the answer asks
// for the held bytes), not once per chunk (512 times on average through
// EgressScan); the client gets what EgressScan gives it.
func TestEgressScanTail_longFrameIsSentOnce(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, c := range []struct {
		kind, src string
		ingress   Format
	}{
		{ScanSSE, "data: {\"choices\":[{\"delta\":{\"content\":\"" + long + "\"}}]}\n\ndata: [DONE]\n\n", FormatOpenAIChat},
		{ScanSSE, "data: {\"error\":{\"message\":\"" + long + "\",\"type\":\"server_error\"}}\r\n\r\n", FormatOpenAIChat},
		{ScanArray, `[{"candidates":[{"content":{"parts":[{"text":"` + long + `"}]}}]}]`, FormatGemini},
		{ScanArray, `[{"candidates":[]},{"error":{"code":503,"message":"` + long + `","status":"UNAVAILABLE"}}]`, FormatGemini},
	} {
		var cuts []int
		for i := 1024; i < len(c.src); i += 1024 {
			cuts = append(cuts, i)
		}
		want, reps := scanAll(t, c.kind, c.ingress, []byte(c.src), cuts...)
		out, sent := scanTail(t, c.kind, c.ingress, []byte(c.src), cuts...)
		assert.Equal(t, string(want), string(out))
		assert.Equal(t, strings.Contains(c.src, `"error"`), len(reps) == 1, c.src[:40])
		assert.Less(t, sent, 2*len(c.src)+2048, "%s: bytes sent for %d", c.src[:40], len(c.src))
		assert.Greater(t, sent, len(c.src), "the frame is sent again whole at its end")
	}
}

// TestEgressScanTail_skipOutOfRange: a negative skip is a *RequestError
// at "skip"; one past the state's scan position asks for the held bytes.
func TestEgressScanTail_skipOutOfRange(t *testing.T) {
	_, _, err := EgressScanTail(FormatOpenAIChat, ScanState{Kind: ScanSSE}, -1, []byte("data"), false, EgressOptions{})
	var re *RequestError
	require.True(t, errors.As(err, &re))
	assert.Equal(t, "skip", re.Path)
	r, resend, err := EgressScanTail(FormatOpenAIChat, ScanState{Kind: ScanSSE, Pos: 4}, 5, []byte("x"), false, EgressOptions{})
	require.NoError(t, err)
	assert.True(t, resend)
	assert.Zero(t, r.Hold)
}
