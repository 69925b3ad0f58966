package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/internal/redactcorpus"
)

// cliChannel is one way text reaches the CLI's output: args and the
// standard input that carries text.
type cliChannel struct {
	name  string
	args  []string
	stdin func(text string) string
}

func jsonText(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestRedactionCorpus_cli runs every shape of the redaction corpus in every
// context through the CLI's commands (classify of error text and of a
// recorded response, wrap for every provider, repair, convert, invoke) and
// fails when standard output or standard error carries a secret part, a
// fragment of it or its encoded form.
func TestRedactionCorpus_cli(t *testing.T) {
	env := func(text string) map[string]any {
		return map[string]any{"code": "TOOL_ERROR", "message": text, "details": map[string]any{"info": text, text: 1}}
	}
	transcript := func(text string) []any {
		return []any{
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_A", "name": "fetch", "input": map[string]any{}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_A", "is_error": true, "content": text}}},
		}
	}
	channels := []cliChannel{
		{"classify text", []string{"classify"}, func(text string) string { return text }},
		{"classify recording", []string{"classify", "--tool", "search"}, func(text string) string {
			return jsonText(t, map[string]any{"response": map[string]any{"status": 400, "headers": map[string]any{"x-request-id": text}, "body": text}})
		}},
		{"invoke sanitize", []string{"invoke"}, func(text string) string { return jsonText(t, map[string]any{"op": "sanitize", "text": text}) }},
		{"repair", []string{"repair", "--format", "anthropic"}, func(text string) string { return jsonText(t, transcript(text)) }},
		{"convert", []string{"convert", "--from", "anthropic", "--to", "gemini"}, func(text string) string { return jsonText(t, transcript(text)) }},
	}
	for _, p := range []string{"openai-chat", "openai-responses", "anthropic", "gemini", "gemini-openai", "bedrock", "mcp"} {
		channels = append(channels, cliChannel{"wrap " + p, []string{"wrap", "--provider", p, "--call-id", "call_1", "--name", "search"},
			func(text string) string { return jsonText(t, env(text)) }})
	}
	leaks, runs := 0, 0
	for _, c := range redactcorpus.Cases(false) {
		for _, ch := range channels {
			_, stdout, stderr := runCLI(t, ch.stdin(c.Text), ch.args...)
			runs++
			if leak := c.Check.Leak(stdout + "\n" + stderr); leak != "" {
				leaks++
				if leaks <= 10 {
					t.Errorf("%s / %s / %s: %s\n  stdout: %.400s\n  stderr: %.200s", c.Shape.Kind, c.Context.Name, ch.name, leak, stdout, stderr)
				}
			}
		}
	}
	shapes := redactcorpus.Shapes()
	t.Logf("%d shapes x %d contexts x %d commands = %d runs, %d leaks", len(shapes), len(redactcorpus.Contexts()), len(channels), runs, leaks)
}
