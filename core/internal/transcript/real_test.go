package transcript

import (
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/sharedtest"
)

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
	sharedtest.Real(t)
	files := sharedtest.Recordings("transcript_*.json")
	require.NotEmpty(t, files)
	var out []realTranscript
	for _, f := range files {
		body := sharedtest.Read(t, f)["request"].(map[string]any)["body"].(map[string]any)
		sub := filepath.Base(filepath.Dir(f))
		rt := realTranscript{name: sub + "/" + filepath.Base(f), format: Format(sharedtest.Format(f))}
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
				opts := Options{}
				if to == rt.format {
					opts.IDRules = rt.rules // the same API (Mistral's behind the chat shape): the list as it was
				}
				c := Convert(rt.format, to, src, opts)
				out, err := Read(to, c.Messages)
				require.NoError(t, err, text(t, c.Messages))
				assert.Empty(t, Check(to, out, opts), text(t, c.Messages))
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
				if v, err := canonical.Parse([]byte(t)); err == nil {
					if _, isObj := v.(map[string]any); isObj {
						t = dialect.CanonicalText(v) // JSON text: its value, as Gemini carries it (an object, not a string)
					}
				}
				out = append(out, "result failed="+map[bool]string{true: "yes", false: "no"}[p.Result.Failed]+" "+t)
			}
		}
	}
	return out
}

// recording is one real recorded request with its answer: the list (at the
// request member key), the model it was sent to (the body's model, else the
// model named in the URL), the status and the error body.
type recording struct {
	name, key, model string
	format           Format
	rules            string
	msgs             []any
	status           float64
	body             any
	hasRequest       bool
}

// recordings reads every fixtures/real/*/*.json.
func recordings(t *testing.T) []recording {
	sharedtest.Real(t)
	var out []recording
	for _, f := range sharedtest.Recordings("*.json") {
		top := sharedtest.Read(t, f)
		sub := filepath.Base(filepath.Dir(f))
		r := recording{name: sub + "/" + filepath.Base(f), format: Format(sharedtest.Format(f))}
		if sub == "mistral" {
			r.rules = RulesMistral
		}
		resp := top["response"].(map[string]any)
		r.status, _ = resp["status"].(float64)
		r.body = resp["body"]
		if req, ok := top["request"].(map[string]any); ok {
			body, _ := req["body"].(map[string]any)
			for _, key := range []string{"messages", "input", "contents"} {
				if arr, ok := body[key].([]any); ok {
					r.key, r.msgs, r.hasRequest = key, arr, true
				}
			}
			r.model, _ = body["model"].(string)
			if u, _ := req["url"].(string); r.model == "" {
				r.model = modelInURL(u)
			}
		}
		out = append(out, r)
	}
	return out
}

// modelInURL is the model a Gemini (".../models/<model>:generateContent")
// or Bedrock (".../model/<model>/converse") request URL names.
func modelInURL(u string) string {
	for _, marker := range []string{"/models/", "/model/"} {
		if i := strings.LastIndex(u, marker); i >= 0 {
			m := u[i+len(marker):]
			if j := strings.IndexAny(m, ":/?"); j >= 0 && marker == "/models/" {
				m = m[:j]
			} else if j := strings.Index(m, "/"); j >= 0 {
				m = m[:j]
			}
			m, _ = url.PathUnescape(m)
			return m
		}
	}
	return ""
}

// aboutTheList reports whether a recorded error body points into the
// message list of its request: OpenAI's param names messages or input,
// Anthropic's and Bedrock's message a messages.N path or a content block,
// Google's a role or contents. The index it names, -1 when none.
func aboutTheList(body any) (bool, int) {
	e, _ := body.(map[string]any)["error"].(map[string]any)
	param, _ := e["param"].(string)
	msg, _ := e["message"].(string)
	if m, ok := body.(map[string]any)["message"].(string); ok && msg == "" {
		msg = m // Bedrock
	}
	if e["code"] == "context_length_exceeded" {
		return false, -1 // the list's size for the model, not its shape
	}
	for _, p := range []string{param, msg} {
		for _, pre := range []string{"messages[", "messages."} {
			i := strings.Index(p, pre)
			if i < 0 {
				continue
			}
			digits := p[i+len(pre):]
			if j := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
				digits = digits[:j]
			}
			if n, err := strconv.Atoi(digits); err == nil {
				return true, n
			}
		}
	}
	switch {
	case param == "input", param == "messages", strings.Contains(msg, "content block"), strings.Contains(msg, "valid role"):
		return true, -1
	}
	return false, -1
}

// TestCheck_realRecordings: every recorded request the API accepted (HTTP
// 200) checks clean for the model it was sent to, and every recorded 400
// whose error points into the request's message list is found, at the
// message the error names. Issue-sourced errors recorded without their
// request cannot be checked and are counted apart.
func TestCheck_realRecordings(t *testing.T) {
	accepted, found, without, other := 0, 0, 0, 0
	for _, r := range recordings(t) {
		t.Run(r.name, func(t *testing.T) {
			opts := Options{IDRules: r.rules, Model: r.model, Path: r.key}
			switch {
			case r.status == 200:
				require.True(t, r.hasRequest)
				msgs, err := ReadList(r.format, r.msgs, r.key)
				require.NoError(t, err)
				assert.Empty(t, Check(r.format, msgs, opts), "accepted by the API (model %s)", r.model)
				accepted++
			case r.status == 400:
				about, index := aboutTheList(r.body)
				if !about {
					other++
					return
				}
				if !r.hasRequest {
					without++
					return
				}
				msgs, err := ReadList(r.format, r.msgs, r.key)
				require.NoError(t, err)
				fs := Check(r.format, msgs, opts)
				require.NotEmpty(t, fs, "the API answered 400: %s", text(t, r.body))
				if index >= 0 {
					var at []int
					for _, f := range fs {
						at = append(at, f.Index)
					}
					assert.Contains(t, at, index, "the error names message %d: %s", index, text(t, r.body))
				}
				found++
			}
		})
	}
	t.Logf("%d accepted recordings check clean; %d recorded 400s about the list found, %d recorded without their request, %d 400s about other members", accepted, found, without, other)
	assert.Positive(t, accepted)
	assert.Positive(t, found)
}
