package egress

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolerr/toolerr/core"
)

// TestStreamReader_malformedErrorChunks: a data-only error chunk (Chat
// Completions, Gemini) the core does not read as JSON, which a lenient
// reader (Python's json, JSON.parse) still reads as an error, is replaced
// as an error event read without its data, so the upstream's text (here a
// key it echoes) never reaches the SDK that would raise it; one whose
// member name is escaped ("\u0065rror") is an error chunk as any other.
// Content deltas, whatever they hold, pass byte for byte.
func TestStreamReader_malformedErrorChunks(t *testing.T) {
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	replaced := []string{
		`{"error":{"message":"` + secret + `","code":1e999}}`,                         // a number past a double (Python: inf)
		`{"error":{"message":"` + secret + `","n":` + strings.Repeat("9", 400) + `}}`, // an integer of 400 digits
		`{"error":{"message":"` + secret + `"},"error":{"message":"twice"}}`,          // a member twice
		`{"error":{"message":"` + secret + `","x":` + deep + `}}`,                     // nesting past the core's bound
		`{"error":{"message":"` + secret + `"}} and more`,                             // bytes after the object
		`{"choices":[],"error":{"message":"` + secret + `","n":1e999}}`,               // not the first member
		` {"\u0065rror" : {"message":"` + secret + `","n":1e999}}`,                    // an escaped name, malformed
		`{"\u0065rror":{"message":"key ` + secret + `"}}`,                             // an escaped name, well formed
	}
	passed := []string{
		`{"choices":[{"delta":{"content":"an \"error\": {x"}}],"n":1e999}`,
		`{"choices":[{"delta":{"content":"caf\u00e9 \u0065rror"}}]}`,
		`{"choices":[{"delta":{"error":{"message":"nested deeper"}}}],"n":1e999}`,
		`{"choices":[{"delta":{"content":"error"}}],"error":null,"n":1e999}`,
		`{"error":"a string","n":1e999}`,
		`["error",{"error":{}}]`,
		`{"error`,
	}
	for _, ingress := range []core.Format{core.FormatOpenAIChat, core.FormatGemini} {
		for _, data := range replaced {
			var got []core.ErrorReply
			r := NewStreamReader(io.NopCloser(strings.NewReader("data: "+data+"\n\n")), StreamConfig{Ingress: ingress,
				Options: core.EgressOptions{Upstream: string(ingress)}, OnError: func(rep core.ErrorReply) { got = append(got, rep) }})
			out, err := io.ReadAll(r)
			assert.NoError(t, err)
			assert.Contains(t, string(out), `"toolerr":{"code":"SERVER_ERROR"`, "%s: %.60q", ingress, data)
			assert.NotContains(t, string(out), secret, "%s: %.60q", ingress, data)
			assert.Len(t, got, 1, "%s: %.60q: reported", ingress, data)
		}
		for _, data := range passed {
			in := "data: " + data + "\n\n"
			out, err := io.ReadAll(NewStreamReader(io.NopCloser(strings.NewReader(in)), StreamConfig{Ingress: ingress}))
			assert.NoError(t, err)
			assert.Equal(t, in, string(out), "%s: content passes byte for byte", ingress)
		}
	}
}
