package egress

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// geminiArrayElements are Gemini's streamGenerateContent answer without
// alt=sse, element by element as the API streams it ("[{...}\r\n,{...}]"):
// two chunks, then an error element with the provider's own text, then
// one more chunk.
var geminiArrayElements = []string{
	"[{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"an \\\"error\\\" {word}\"}]},\"index\":0}]}\r\n",
	",{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\" more\"}]},\"index\":0}]}\r\n",
	",{\"error\": {\"code\": 503, \"message\": \"UPSTREAM SECRET: the model is overloaded\", \"status\": \"UNAVAILABLE\"}}\r\n",
	",{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"late\"}]},\"index\":0}]}]",
}

// TestTransport_geminiArrayStreamError: an error element inside the JSON
// array is replaced by the error op's Gemini error object, toolerr's
// envelope inside and never the upstream's message text beyond what the
// op keeps; the elements before it pass byte for byte, the array stays
// one JSON value.
func TestTransport_geminiArrayStreamError(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		f := w.(http.Flusher)
		for _, el := range geminiArrayElements {
			_, _ = io.WriteString(w, el)
			f.Flush()
		}
	})
	var reported []core.ErrorReply
	c := &http.Client{Transport: &Transport{DropUpstreamMessage: true, OnStreamError: func(_ *http.Request, ep Endpoint, rep core.ErrorReply) {
		assert.Equal(t, APIStreamGenerateContent, ep.API)
		reported = append(reported, rep)
	}}}
	resp := post(t, c, up.URL+"/v1beta/models/gemini-2.5-flash:streamGenerateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assertGeminiArrayRewritten(t, string(got))
	require.Len(t, reported, 1)
	assert.Equal(t, core.Code("OVERLOADED"), reported[0].Envelope.Code)
}

// assertGeminiArrayRewritten checks got, geminiArrayElements through a
// transport: the first two elements as they came, the error element the
// error op's, the rest as it came.
func assertGeminiArrayRewritten(t *testing.T, got string) {
	t.Helper()
	assert.NotContains(t, got, "UPSTREAM SECRET", "the provider's text never reaches the client")
	before := geminiArrayElements[0] + geminiArrayElements[1] + ","
	require.True(t, strings.HasPrefix(got, before), "the elements before pass byte for byte: %q", got)
	var arr []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got), &arr), "still one JSON array: %q", got)
	require.Len(t, arr, 4, "the stream goes on after the error element, as after an error event")
	e, ok := arr[2]["error"].(map[string]any)
	require.True(t, ok, "%q", got)
	assert.Equal(t, "UNAVAILABLE", e["status"], "the client's native shape")
	assert.Equal(t, 503.0, e["code"])
	env := geminiEnvelope(t, e)
	assert.Equal(t, "OVERLOADED", env["code"])
	assert.Equal(t, true, env["details"].(map[string]any)["partial_output"], "elements with content went before")
	assert.True(t, strings.HasSuffix(got, geminiArrayElements[3]), "%q", got)
}

// geminiEnvelope returns the toolerr envelope inside a Gemini error object.
func geminiEnvelope(t *testing.T, e map[string]any) map[string]any {
	t.Helper()
	env, ok := e["toolerr"].(map[string]any)
	require.True(t, ok, "no envelope in %v", e)
	return env
}

// readArray reads src through NewArrayStreamReader for a Gemini client
// (the upstream's message dropped, so that none of its text passes), one byte at a time when oneByte, and returns what the client gets and the
// replies reported.
func readArray(t *testing.T, src string, oneByte bool) (string, []core.ErrorReply) {
	t.Helper()
	var in io.Reader = strings.NewReader(src)
	if oneByte {
		in = iotest.OneByteReader(in)
	}
	var reported []core.ErrorReply
	r := NewArrayStreamReader(io.NopCloser(in), StreamConfig{Ingress: core.FormatGemini, Options: core.EgressOptions{Upstream: "gemini", DropUpstreamMessage: true},
		OnError: func(rep core.ErrorReply) { reported = append(reported, rep) }})
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	return string(got), reported
}

// TestArrayStreamReader_framing: error elements are found wherever the
// chunks split the bytes, among strings holding brackets, braces, escaped
// quotes and the word "error", nested arrays, a leading BOM and white
// space; every other byte passes as it came, and each error element is
// replaced by the error op's object.
func TestArrayStreamReader_framing(t *testing.T) {
	const errEl = `{ "error" : {"code":429,"message":"Resource has been exhausted (e.g. check quota). SECRET","status":"RESOURCE_EXHAUSTED"}}`
	const escErr = `{"\u0065rror":{"code":500,"message":"SECRET","status":"INTERNAL"}}`
	for _, tc := range []struct {
		name, src string
		errs      []string // the error elements in src, in order
		code      core.Code
	}{
		{"gemini's framing", "[{\"candidates\":[]}\r\n,\r\n" + errEl + "\r\n]", []string{errEl}, "RATE_LIMITED"},
		{"strings with brackets", `[{"t":"]}{\"error\":{\"x\":1}}[","n":[[1,{"a":"}"}],2]},` + errEl + `,"a ] string",3,{"error":null},{"error":"text"}]`, []string{errEl}, "RATE_LIMITED"},
		{"a BOM and white space", "\xEF\xBB\xBF \n[ " + errEl + " ]", []string{errEl}, "RATE_LIMITED"},
		{"an escaped member name", "[" + escErr + "]", []string{escErr}, "SERVER_ERROR"},
		{"an element after the array", "[{}]\n" + errEl, []string{errEl}, "RATE_LIMITED"},
		{"two errors", "[" + errEl + "," + errEl + "]", []string{errEl, errEl}, "RATE_LIMITED"},
	} {
		for _, oneByte := range []bool{false, true} {
			got, reported := readArray(t, tc.src, oneByte)
			require.Len(t, reported, len(tc.errs), "%s %q", tc.name, got)
			want := tc.src
			for i, e := range tc.errs {
				assert.Equal(t, tc.code, reported[i].Envelope.Code, tc.name)
				want = strings.Replace(want, e, string(reported[i].Body), 1)
			}
			assert.Equal(t, want, got, "%s, one byte at a time %v", tc.name, oneByte)
			assert.NotContains(t, got, "SECRET")
		}
	}
}

// TestArrayStreamReader_passes: a body that is no array (an object, text)
// passes as it came, and so does an array with no error element.
func TestArrayStreamReader_passes(t *testing.T) {
	for _, src := range []string{
		`{"error":{"code":500,"message":"not an array","status":"INTERNAL"}}`,
		"not json [{\"error\":{}}]",
		`[{"candidates":[{"content":{"parts":[{"text":"the \"error\": {} word"}]}}]},{"usageMetadata":{}}]`,
		"",
	} {
		got, reported := readArray(t, src, true)
		assert.Empty(t, reported, src)
		assert.Equal(t, src, got)
	}
}

// TestArrayStreamReader_partialOutput: details.partial_output tells
// whether an element went before the error element.
func TestArrayStreamReader_partialOutput(t *testing.T) {
	const errEl = `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`
	for src, partial := range map[string]bool{"[" + errEl + "]": false, "[{\"candidates\":[]}," + errEl + "]": true} {
		_, reported := readArray(t, src, false)
		require.Len(t, reported, 1)
		assert.Equal(t, partial, reported[0].Envelope.Details["partial_output"] == true, src)
	}
}

// TestArrayStreamReader_unterminatedErrorElement: a stream that ends inside
// an error element (its JSON cut) has it replaced as a complete one is; a
// cut content element passes as it came.
func TestArrayStreamReader_unterminatedErrorElement(t *testing.T) {
	got, reported := readArray(t, `[{},{"error":{"code":500,"message":"cut SECRET`, true)
	require.Len(t, reported, 1)
	assert.Equal(t, "[{},"+string(reported[0].Body), got)
	const cut = `[{"candidates":[{"content":{"parts":[{"text":"cut`
	got, reported = readArray(t, cut, true)
	assert.Empty(t, reported)
	assert.Equal(t, cut, got)
}

// TestArrayStreamReader_blockedUpstream: a complete element is handed on
// while the upstream has sent nothing more, and so is what follows it
// outside an element.
func TestArrayStreamReader_blockedUpstream(t *testing.T) {
	pr, pw := io.Pipe()
	r := NewArrayStreamReader(pr, StreamConfig{Ingress: core.FormatGemini})
	go func() { _, _ = io.WriteString(pw, `[{"candidates":[]}`+"\r\n,{\"candi") }()
	buf := make([]byte, 64)
	n, err := r.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, `[{"candidates":[]}`+"\r\n,", string(buf[:n]))
	require.NoError(t, pw.Close())
}

// TestArrayStreamReader_oversized: an element past MaxEventBytes that opens
// an "error" object is dropped to its end, never held whole, and replaced
// there (complete, or cut by the stream's end); one that does not open so
// passes byte for byte.
func TestArrayStreamReader_oversized(t *testing.T) {
	huge := strings.Repeat("x", MaxEventBytes+(1<<20))
	for _, tail := range []string{"\"}},{}]", ""} {
		src := "[{}, {\n\"error\" : {\"code\":500,\"message\":\"" + huge + tail
		got, reported := readArray(t, src, false)
		require.Len(t, reported, 1)
		assert.Equal(t, core.Code("SERVER_ERROR"), reported[0].Envelope.Code)
		want := "[{}, " + string(reported[0].Body)
		if tail != "" {
			want += ",{}]"
		}
		assert.True(t, want == got, "%.80q", got)
	}
	// An element of three times MaxEventBytes is never held whole: what is
	// held grows to MaxEventBytes and a chunk (append's capacity past it).
	r := NewArrayStreamReader(io.NopCloser(strings.NewReader(`[{"error":{"message":"`+strings.Repeat("z", 3*MaxEventBytes)+`"}}]`)), StreamConfig{Ingress: core.FormatGemini})
	_, err := io.Copy(io.Discard, r)
	require.NoError(t, err)
	assert.Less(t, cap(r.(*scanReader).held), 2*MaxEventBytes)
	for _, src := range []string{
		`[{"candidates":[{"content":{"parts":[{"inlineData":{"data":"` + huge + `"}}]}}]},{"error":{"code":500}}]`,
		`[{"id":"` + huge + `","error":{"code":500}}]`,
	} {
		got, reported := readArray(t, src, false)
		require.Len(t, reported, 1, "%.60q", src)
		if strings.HasSuffix(src, `{"error":{"code":500}}]`) {
			// the error element after a long one is still found
			src = strings.Replace(src, `{"error":{"code":500}}]`, string(reported[0].Body)+"]", 1)
		} else {
			// the long element's own "error" object, not its first member,
			// is cut out and replaced by the error op's (the scan's Cutter)
			src = strings.Replace(src, `{"code":500}`, innerError(t, reported[0].Body), 1)
		}
		assert.True(t, src == got, "%.60q passes as it came", src)
	}
}

// BenchmarkStreamReaders: a Gemini answer of 200 chunks (about 300 bytes
// each) through each reader: the JSON array (NewArrayStreamReader) and the
// same chunks as server-sent events (NewStreamReader), no error in either.
func BenchmarkStreamReaders(b *testing.B) {
	chunk := `{"candidates":[{"content":{"role":"model","parts":[{"text":"The quick brown fox jumps over the lazy dog, and then the \"error\" word: {x}."}]},"index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":40,"totalTokenCount":52},"modelVersion":"gemini-2.5-flash","responseId":"abc"}`
	var arr, sse strings.Builder
	arr.WriteString("[")
	for i := 0; i < 200; i++ {
		if i > 0 {
			arr.WriteString("\r\n,")
		}
		arr.WriteString(chunk)
		sse.WriteString("data: " + chunk + "\r\n\r\n")
	}
	arr.WriteString("]")
	for _, tc := range []struct {
		name string
		src  string
		open func(io.ReadCloser, StreamConfig) io.ReadCloser
	}{{"array", arr.String(), NewArrayStreamReader}, {"sse", sse.String(), NewStreamReader}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.src)))
			b.ReportAllocs()
			for b.Loop() {
				r := tc.open(io.NopCloser(strings.NewReader(tc.src)), StreamConfig{Ingress: core.FormatGemini})
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzArrayStreamReader: whatever the bytes, the reader never panics, reads
// them alike however they are split (whole, or a byte at a time), and
// passes them byte for byte when it reports no error element.
func FuzzArrayStreamReader(f *testing.F) {
	for _, seed := range append(append([]string(nil), geminiArrayElements...), strings.Join(geminiArrayElements, ""),
		`[{"error":{"code":500}}]`, "\xEF\xBB\xBF[{}]", `[{"a":"\"]}"},{"\u0065rror":{}}]`, `[{}]{"error":{"x":1}}`, `{"error":{}}`, `[[{"error":{}}]]`) {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		whole, wholeErrs := readArray(t, string(src), false)
		split, splitErrs := readArray(t, string(src), true)
		if whole != split || len(wholeErrs) != len(splitErrs) {
			t.Fatalf("%q: read whole %q (%d errors), a byte at a time %q (%d)", src, whole, len(wholeErrs), split, len(splitErrs))
		}
		if len(wholeErrs) == 0 && whole != string(src) {
			t.Fatalf("%q passed as %q with no error element", src, whole)
		}
	})
}
