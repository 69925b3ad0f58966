package transcript

import (
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
)

// sharedDir returns ../shared beside the repository (TOOLERR_SHARED
// overrides), or skips the test when the recordings are not there.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TOOLERR_SHARED")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "fixtures", "real")); err != nil {
		t.Skipf("recordings not found at %s", dir)
	}
	return dir
}

// realTranscript is one recorded request's message list.
type realTranscript struct {
	name   string
	format Format
	rules  string
	msgs   []any
}

// realTranscripts reads every fixtures/real/*/transcript_*.json: the request
// body's messages (openai-chat, anthropic, bedrock; mistral is openai-chat
// with Mistral's id rules), input (openai-responses) or contents (gemini).
func realTranscripts(t testing.TB) []realTranscript {
	dir := filepath.Join(sharedDir(t), "fixtures", "real")
	files, err := filepath.Glob(filepath.Join(dir, "*", "transcript_*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	sort.Strings(files)
	byDir := map[string]Format{"openai_chat": OpenAIChat, "openai_responses": OpenAIResponses, "anthropic": Anthropic, "gemini": Gemini, "bedrock": Bedrock, "mistral": OpenAIChat}
	var out []realTranscript
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		v, err := canonical.Parse(b)
		require.NoError(t, err, f)
		body := v.(map[string]any)["request"].(map[string]any)["body"].(map[string]any)
		sub := filepath.Base(filepath.Dir(f))
		rt := realTranscript{name: sub + "/" + filepath.Base(f), format: byDir[sub]}
		if sub == "mistral" {
			rt.rules = RulesMistral
		}
		for _, key := range []string{"messages", "input", "contents"} {
			if arr, ok := body[key].([]any); ok {
				rt.msgs = arr
			}
		}
		require.NotNil(t, rt.msgs, f)
		out = append(out, rt)
	}
	return out
}

func TestRead_realRoundTrip(t *testing.T) {
	for _, rt := range realTranscripts(t) {
		t.Run(rt.name, func(t *testing.T) {
			msgs, err := Read(rt.format, rt.msgs)
			require.NoError(t, err)
			assert.Equal(t, text(t, rt.msgs), text(t, Write(rt.format, msgs)))
			calls, results := 0, 0
			for _, m := range msgs {
				for _, p := range m.Parts {
					calls += b2i(p.Kind == KindCall)
					results += b2i(p.Kind == KindResult)
				}
			}
			assert.Positive(t, calls, "the recording holds tool calls")
			assert.Equal(t, calls, results, "every call has one result")
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestConvert_real converts every recording to every format: the result
// passes check, keeps every call and result, and converts back to the same
// calls and results (ids mapped back).
func TestConvert_real(t *testing.T) {
	for _, rt := range realTranscripts(t) {
		for _, to := range Formats() {
			t.Run(rt.name+"/"+string(to), func(t *testing.T) {
				src, err := Read(rt.format, rt.msgs)
				require.NoError(t, err)
				c := Convert(rt.format, to, src, Options{})
				out, err := Read(to, c.Messages)
				require.NoError(t, err, text(t, c.Messages))
				assert.Empty(t, Check(to, out, Options{}), text(t, c.Messages))
				assert.Equal(t, summary(src, nil), summary(out, c.IDMap), text(t, c.Messages))
			})
		}
	}
}

// summary lists a transcript's calls and results in a neutral form: call
// name and canonical args, result failed flag and text, with ids mapped back
// through idMap.
func summary(msgs []Message, idMap map[string]string) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p.Kind {
			case KindCall:
				out = append(out, "call "+p.Call.Name+" "+dialect.ArgsText(p.Call.Value()))
			case KindResult:
				t := dialect.ResultText(p.Result.Outcome)
				if e := p.Result.Outcome.Error; e != nil && e.Code == "TOOL_ERROR" {
					t = e.Message
					if o, ok := e.Details["output"].(string); ok {
						t = o
					}
				}
				t = strings.TrimSuffix(strings.TrimSpace(t), ".")
				out = append(out, "result failed="+map[bool]string{true: "yes", false: "no"}[p.Result.Failed]+" "+t)
			}
		}
	}
	return out
}
