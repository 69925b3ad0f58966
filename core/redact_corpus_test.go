package core

import (
	"flag"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"github.com/toolerr/toolerr/internal/redactcorpus"
)

var corpusReport = flag.Bool("corpus.report", false, "print the redaction corpus's leaks by kind, context and channel instead of failing on the first ones")

// channel is one way text reaches an output of Invoke: request builds the
// request that carries text.
type channel struct {
	name    string
	request func(text string) map[string]any
}

// failedEnvelope is a hand-built envelope carrying text in its message, a
// details string and a details key: serialize must sanitize it again.
func failedEnvelope(text string) map[string]any {
	return map[string]any{"code": "TOOL_ERROR", "message": text, "retryable": false, "source": "tool",
		"details": map[string]any{"info": text, text: true, "list": []any{map[string]any{"x": text}}}}
}

// inBand is text's envelope as the canonical JSON an OpenAI-shaped history
// carries in a tool message, as toolerr wrote it (sanitized): only that text
// is a failure there (outcome.RecognizeText). An unsanitized envelope a
// third party wrote is a success, passed on unchanged like every success.
func inBand(text string) string {
	e, err := envelope.FromValue(failedEnvelope(text), "")
	if err != nil {
		panic(err)
	}
	return outcome.EnvelopeText(outcome.Safe(e))
}

func pointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// anthropicFailure is an Anthropic history whose second call failed with
// text and whose first call was never answered.
func anthropicFailure(text string) []any {
	return []any{
		map[string]any{"role": "user", "content": "look it up"},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "toolu_A", "name": "search", "input": map[string]any{"q": "a"}},
			map[string]any{"type": "tool_use", "id": "toolu_B", "name": "fetch", "input": map[string]any{"url": "u"}},
		}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_B", "is_error": true, "content": text},
		}},
	}
}

// openaiFailure is an OpenAI Chat history whose tool message carries an
// in-band envelope with text.
func openaiFailure(text string) []any {
	return []any{
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "search", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": inBand(text)},
	}
}

// corpusChannels are every output a secret in a request can reach: the
// message, details strings and keys, each classifier, args_error, every
// serialize format, the parsers of the formats with an error flag, the
// transcript operations, the decisions that name a tool, egress_error (a
// gateway's translated upstream error, its message kept or dropped), and
// the errors for bad requests.
func corpusChannels() []channel {
	cs := []channel{
		{"sanitize", func(t string) map[string]any { return map[string]any{"op": "sanitize", "text": t} }},
		{"envelope/message", func(t string) map[string]any {
			return map[string]any{"op": "envelope", "code": "TOOL_ERROR", "message": t, "source": "tool"}
		}},
		{"envelope/details", func(t string) map[string]any {
			return map[string]any{"op": "envelope", "code": "TOOL_ERROR", "message": "m",
				"details": map[string]any{"info": t, "nested": []any{map[string]any{"x": t}}}}
		}},
		{"envelope/details-key", func(t string) map[string]any {
			return map[string]any{"op": "envelope", "code": "TOOL_ERROR", "message": "m", "details": map[string]any{t: 1.0}}
		}},
		{"classify/error_text", func(t string) map[string]any { return map[string]any{"op": "classify", "error_text": t} }},
		{"classify/tool-body", func(t string) map[string]any {
			return map[string]any{"op": "classify", "source": "tool", "tool": "search",
				"http": map[string]any{"status": 400.0, "headers": map[string]any{"content-type": "text/plain"}, "body": t}}
		}},
		{"classify/provider-body", func(t string) map[string]any {
			return map[string]any{"op": "classify", "provider": "openai", "http": map[string]any{"status": 401.0,
				"headers": map[string]any{"x-request-id": t},
				"body":    map[string]any{"error": map[string]any{"message": t, "type": "invalid_request_error", "code": t, "param": t}}}}
		}},
		{"classify/sse", func(t string) map[string]any {
			return map[string]any{"op": "classify", "provider": "anthropic", "sse_event": map[string]any{"event": "error",
				"data": map[string]any{"type": "error", "error": map[string]any{"type": t, "message": t}}}}
		}},
		{"classify_exception/message", func(t string) map[string]any {
			return map[string]any{"op": "classify_exception", "tool": "search", "exception": map[string]any{"type": "RuntimeError", "message": t}}
		}},
		{"classify_exception/traceback", func(t string) map[string]any {
			return map[string]any{"op": "classify_exception", "tool": "search", "exception": map[string]any{
				"traceback": "Traceback (most recent call last):\n  File \"/srv/app/x.py\", line 3, in f\n    g()\nRuntimeError: " + t}}
		}},
		{"args_error", func(t string) map[string]any {
			return map[string]any{"op": "args_error", "tool": "search", "failures": []any{
				map[string]any{"path": "/" + pointerToken(t), "keyword": "const", "expected": t},
				map[string]any{"path": "/q", "keyword": "pattern", "expected": t},
				map[string]any{"path": "/r", "keyword": "enum", "expected": []any{t, "x"}},
				map[string]any{"path": "/s", "keyword": "format", "expected": t},
				map[string]any{"path": "/t", "keyword": "type", "expected": t},
			}}
		}},
		{"args_error/tool", func(t string) map[string]any {
			return map[string]any{"op": "args_error", "tool": t, "failures": []any{map[string]any{"path": "/q", "keyword": "required"}}}
		}},
		{"parse/anthropic", func(t string) map[string]any {
			return map[string]any{"op": "parse", "format": "anthropic", "messages": []any{map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": t}}}}}
		}},
		{"parse/bedrock", func(t string) map[string]any {
			return map[string]any{"op": "parse", "format": "bedrock", "messages": []any{map[string]any{"role": "user", "content": []any{
				map[string]any{"toolResult": map[string]any{"toolUseId": "t1", "status": "error", "content": []any{map[string]any{"text": t}}}}}}}}
		}},
		{"parse/gemini", func(t string) map[string]any {
			return map[string]any{"op": "parse", "format": "gemini", "messages": []any{map[string]any{"role": "user", "parts": []any{
				map[string]any{"functionResponse": map[string]any{"name": "search", "response": map[string]any{"error": t}}}}}}}
		}},
		{"parse/mcp", func(t string) map[string]any {
			return map[string]any{"op": "parse", "format": "mcp", "messages": []any{map[string]any{
				"content": []any{map[string]any{"type": "text", "text": t}}, "isError": true}}}
		}},
		{"parse/openai-chat", func(t string) map[string]any {
			return map[string]any{"op": "parse", "format": "openai-chat", "messages": []any{map[string]any{
				"role": "tool", "tool_call_id": "call_1", "content": inBand(t)}}}
		}},
		{"repair/anthropic", func(t string) map[string]any {
			return map[string]any{"op": "repair", "format": "anthropic", "messages": anthropicFailure(t)}
		}},
		{"repair/openai-chat", func(t string) map[string]any {
			return map[string]any{"op": "repair", "format": "openai-chat", "messages": openaiFailure(t)}
		}},
		{"loop_guard", func(t string) map[string]any {
			h := map[string]any{"tool": t, "args": map[string]any{}, "ok": false}
			return map[string]any{"op": "loop_guard", "call": map[string]any{"tool": t, "args": map[string]any{}}, "history": []any{h, h, h}}
		}},
		{"breaker", func(t string) map[string]any {
			return map[string]any{"op": "breaker", "state": map[string]any{"phase": "open", "failures": 0.0, "open_until_ms": 100000.0},
				"event": "allow", "now_ms": 1.0, "tool": t}
		}},
		{"invalid_input/op", func(t string) map[string]any { return map[string]any{"op": t} }},
		{"invalid_input/format", func(t string) map[string]any {
			return map[string]any{"op": "serialize", "format": t, "results": []any{}}
		}},
		{"invalid_input/code", func(t string) map[string]any { return map[string]any{"op": "envelope", "code": t, "message": "m"} }},
		{"check/gemini", func(t string) map[string]any {
			// name_mismatch names the call's tool in its message; ids are
			// the request's own call ids (fc_1), echoed for the caller.
			return map[string]any{"op": "check", "format": "gemini", "messages": []any{
				map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"id": "fc_1", "name": t, "args": map[string]any{}}}}},
				map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": "fc_1", "name": "other", "response": map[string]any{"error": t}}}}},
			}}
		}},
	}
	for _, keep := range []string{"keep", "drop"} {
		cs = append(cs, channel{"egress_error/" + keep, func(t string) map[string]any {
			return map[string]any{"op": "egress_error", "ingress": "openai-chat", "upstream_message": keep, "upstream": map[string]any{
				"provider": "anthropic", "http": map[string]any{"status": 429.0, "headers": map[string]any{"retry-after": "7", "request-id": t},
					"body": map[string]any{"type": "error", "error": map[string]any{"type": "rate_limit_error", "message": t}}}}}
		}})
	}
	for _, f := range []string{"openai-chat", "openai-responses", "anthropic", "gemini", "gemini-openai", "bedrock", "mcp"} {
		cs = append(cs, channel{"serialize/" + f, func(t string) map[string]any {
			return map[string]any{"op": "serialize", "format": f, "results": []any{
				map[string]any{"call": map[string]any{"id": "call_1", "name": "search"}, "error": failedEnvelope(t)}}}
		}})
	}
	for _, to := range []string{"openai-chat", "openai-responses", "gemini", "bedrock"} {
		cs = append(cs, channel{"convert/anthropic-to-" + to, func(t string) map[string]any {
			return map[string]any{"op": "convert", "from": "anthropic", "to": to, "messages": anthropicFailure(t)}
		}})
	}
	for _, to := range []string{"anthropic", "gemini", "bedrock"} {
		cs = append(cs, channel{"convert/openai-chat-to-" + to, func(t string) map[string]any {
			return map[string]any{"op": "convert", "from": "openai-chat", "to": to, "messages": openaiFailure(t)}
		}})
	}
	return cs
}

// leakTally counts leaks by one dimension.
type leakTally map[string]int

func (l leakTally) String() string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return l[keys[i]] > l[keys[j]] || l[keys[i]] == l[keys[j]] && keys[i] < keys[j] })
	var b strings.Builder
	for _, k := range keys {
		b.WriteString("  ")
		b.WriteString(k)
		b.WriteString(": ")
		b.WriteString(strings.Repeat(" ", max(0, 44-len(k))))
		b.WriteString(strconv.Itoa(l[k]))
		b.WriteString("\n")
	}
	return b.String()
}

// TestRedactionCorpus runs every secret shape of the redaction corpus
// (internal/redactcorpus: more than 150 kinds after gitleaks' and
// trufflehog's public rule sets) in every context (a sentence, a JSON
// string, percent- and base64-encoded, split by a line break, a traceback)
// through every output channel of Invoke, and fails when any output carries
// a secret part, a fragment of it or its encoded form. -corpus.report
// prints the leaks counted by kind, context and channel.
func TestRedactionCorpus(t *testing.T) {
	require.GreaterOrEqual(t, len(redactcorpus.Shapes()), 150)
	channels := corpusChannels()
	byKind, byContext, byChannel := leakTally{}, leakTally{}, leakTally{}
	total, runs := 0, 0
	for _, c := range redactcorpus.Cases(false) {
		for _, ch := range channels {
			req, err := canonical.Marshal(ch.request(c.Text))
			require.NoError(t, err)
			out := string(Invoke(req))
			runs++
			leak := c.Check.Leak(out)
			if leak == "" {
				continue
			}
			total++
			byKind[c.Shape.Kind]++
			byContext[c.Context.Name]++
			byChannel[ch.name]++
			if !*corpusReport && total <= 20 {
				t.Errorf("%s / %s / %s: %s\n  in:  %.300q\n  out: %.600s", c.Shape.Kind, c.Context.Name, ch.name, leak, c.Text, out)
			}
		}
	}
	shapes := redactcorpus.Shapes()
	t.Logf("%d shapes x %d contexts x %d channels = %d outputs, %d leaks", len(shapes), len(redactcorpus.Contexts()), len(channels), runs, total)
	if *corpusReport {
		t.Logf("leaks by kind (%d kinds leak):\n%s", len(byKind), byKind)
		t.Logf("leaks by context:\n%s", byContext)
		t.Logf("leaks by channel:\n%s", byChannel)
	}
}
