package core

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	return out, reps
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
// passes as it arrives, its bytes reported as Unread spans that cover it
// exactly, the last one ending the event; the event after it is read.
func TestEgressScan_unread(t *testing.T) {
	long := "data: {\"choices\":[{\"delta\":{\"content\":\"" + string(bytes.Repeat([]byte("y"), MaxEventBytes+200000)) + "\"}}]}\n\n"
	src := []byte(long + "data: {\"error\":{\"message\":\"x\"}}\n\n")
	st, held, unread, ends := ScanState{Kind: ScanSSE}, []byte(nil), 0, 0
	for from := 0; from < len(src); from += 1 << 16 {
		in := append(held, src[from:min(from+1<<16, len(src))]...)
		r, err := EgressScan(FormatOpenAIChat, st, in, from+1<<16 >= len(src), EgressOptions{})
		require.NoError(t, err)
		for _, u := range r.Unread {
			unread += u.End - u.Start
			if u.Ends {
				ends++
			}
		}
		held, st = in[r.Hold:], r.State
	}
	assert.Equal(t, len(long), unread)
	assert.Equal(t, 1, ends)
}
