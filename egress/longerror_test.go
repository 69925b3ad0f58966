package egress

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// innerError is the "error" member of body, an error op's error object.
func innerError(t *testing.T, body []byte) string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &m))
	require.NotEmpty(t, m["error"])
	return string(m["error"])
}

// An element or event too long to hold (past MaxEventBytes) whose "error"
// object is not its first member, past its first MaxEventBytes or inside
// them, passed unread with the upstream's text: a Gemini SDK reading the
// element (json.loads, JSON.parse) found the error and raised that text.
// Now the error object's value is cut out as it passes and the error op's
// error object written in its place: the rest passes byte for byte, the
// element stays JSON, and OnError hears of it once. An "error" that is no
// object, nested deeper, or inside a string passes.
func TestStreamReaders_aLongElementsErrorMemberIsCut(t *testing.T) {
	const secret = "sk-proj-AbCdEf0123456789AbCdEf0123456789xyz"
	big := strings.Repeat("A", MaxEventBytes+1<<20)
	small := strings.Repeat("B", 1000)
	errObj := `{"code":500,"message":"key ` + secret + ` {\"x\":[1]}","status":"INTERNAL"}`
	for _, tc := range []struct {
		name, element string // element holds %E where the error object is
		cut           bool
	}{
		{"after the long member", `{"candidates":[{"content":{"parts":[{"inlineData":{"data":"` + big + `"}}]}}],"\u0065rror" : %E,"usageMetadata":{}}`, true},
		{"inside the head, the long member after", `{"modelVersion":"x","error":%E,"candidates":[{"content":{"parts":[{"text":"` + big + `"}]}}]}`, true},
		{"at the end, split by nothing", `{"a":"` + small + big + `","error":%E}`, true},
		{"nested deeper", `{"candidates":[{"error":%E,"t":"` + big + `"}]}`, false},
		{"inside a string", `{"t":"` + big + `\",\"error\":%E"}`, false},
		{"no object", `{"t":"` + big + `","error":"` + secret + `"}`, false},
	} {
		el := strings.Replace(tc.element, "%E", errObj, 1)
		if tc.name == "inside a string" {
			el = strings.Replace(tc.element, "%E", strings.ReplaceAll(errObj, `"`, `\"`), 1)
		}
		for _, sse := range []bool{false, true} {
			var got []core.ErrorReply
			c := StreamConfig{Ingress: core.FormatGemini, Options: core.EgressOptions{Upstream: "gemini"},
				OnError: func(rep core.ErrorReply) { got = append(got, rep) }}
			in := "[" + el + "\r\n,{\"candidates\":[]}]"
			var r io.ReadCloser
			if sse {
				in = "data: " + el + "\r\n\r\ndata: {\"candidates\":[]}\r\n\r\n"
				r = NewStreamReader(io.NopCloser(strings.NewReader(in)), c)
			} else {
				r = NewArrayStreamReader(io.NopCloser(strings.NewReader(in)), c)
			}
			out, err := io.ReadAll(r)
			require.NoError(t, err)
			what := tc.name
			if sse {
				what += " (SSE)"
			}
			if !tc.cut {
				assert.Empty(t, got, what)
				assert.True(t, in == string(out), "%s: passes byte for byte", what)
				continue
			}
			require.Len(t, got, 1, what)
			assert.NotContains(t, string(out), secret, what)
			assert.Equal(t, core.Code("SERVER_ERROR"), got[0].Envelope.Code, what)
			want := strings.Replace(in, errObj, innerError(t, got[0].Body), 1)
			assert.True(t, want == string(out), "%s: %.80q", what, string(out)[len(string(out))-200:])
			// Read a byte at a time, the same bytes (the cut's state
			// carries across reads).
			src := iotest.OneByteReader(strings.NewReader(in))
			if sse {
				r = NewStreamReader(io.NopCloser(src), c)
			} else {
				r = NewArrayStreamReader(io.NopCloser(src), c)
			}
			out, err = io.ReadAll(r)
			require.NoError(t, err)
			assert.True(t, want == string(out), "%s, a byte at a time", what)
		}
	}
}
