package format_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

const png1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// serializeCorpus is single outcomes of every kind (failures clean and
// dirty, every result kind, images, bad ids) and turns of two and three.
func serializeCorpus() [][]outcome.Outcome {
	envs := []envelope.Envelope{
		{Code: "RATE_LIMITED", Message: "Weather API returned 429 after 3 attempts.", Retryable: true,
			Details: map[string]any{"status": 429, "retry_after_seconds": 12, "tool": "get_weather"}, Source: envelope.SourceTool},
		{Code: "UPSTREAM_TIMEOUT", Message: "timed out", Source: envelope.SourceTool},
		{Code: "TOOL_ERROR", Message: "Traceback (most recent call last):\n  File \"/a.py\", line 1, in f\nValueError: key=sk-abcdefghijklmnopqrstuvwx \"quoted\" \\ é\u2028",
			Details: map[string]any{"api_key": "x", "nested": []any{map[string]any{"url": "postgres://u:pw@h/db"}, 1.5, nil, true}}, Source: envelope.SourceTool},
		{Code: "X", Message: "", Details: map[string]any{}, Source: envelope.SourceProvider},
		{Code: "X", Message: "nan", Details: map[string]any{"v": math.NaN()}, Source: envelope.SourceTool},
	}
	results := []outcome.Result{
		{Kind: outcome.Empty},
		{Kind: outcome.Text, Text: "sunny, 21 °C"},
		{Kind: outcome.Text, Text: "  "},
		{Kind: outcome.Text, Text: outcome.EmptyPlaceholder},
		{Kind: outcome.Text, Text: `{"code":"X","details":{},"message":"m token=abc123def","retryable":false,"source":"tool"}`},
		{Kind: outcome.JSON, JSON: map[string]any{"temp": 21.5, "list": []any{"a", 1.0, nil}}},
		{Kind: outcome.JSON, JSON: []any{}},
		{Kind: outcome.JSON, JSON: 3.0},
		{Kind: outcome.JSON, JSON: map[string]any{"code": "X", "details": map[string]any{}, "message": "m", "retryable": true, "source": "tool"}},
		{Kind: outcome.JSON, JSON: math.Inf(1)},
		{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: "see chart"}, {Type: "image", MediaType: "image/png", Data: png1x1}}},
		{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/png", Data: png1x1}, {Type: "image", MediaType: "image/jpeg", Data: png1x1}}},
		{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "text", Text: " "}, {Type: "text", Text: "b"}}},
		{Kind: outcome.Blocks, Blocks: []outcome.Block{}},
		{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/bmp", Data: png1x1}}},
		{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/png", Data: "not base64!"}}},
		{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "audio"}}},
	}
	calls := []outcome.Call{{ID: "call_1", Name: "get_weather"}, {ID: "toolu_01A09q90qw90lq917835lq9"}, {ID: ""}, {ID: "bad id!"},
		{ID: strings.Repeat("x", 65)}, {ID: "call_1"}}
	var ones []outcome.Outcome
	for i, c := range calls {
		for k := range envs {
			ones = append(ones, outcome.Outcome{Call: c, Error: &envs[k]})
		}
		for k := range results {
			if (i+k)%2 == 0 || c.ID == "call_1" {
				ones = append(ones, outcome.Outcome{Call: c, Result: &results[k]})
			}
		}
	}
	ones = append(ones, outcome.Outcome{Call: calls[0]}, outcome.Outcome{Call: calls[0], Error: &envs[0], Result: &results[0]})
	var turns [][]outcome.Outcome
	for _, o := range ones {
		turns = append(turns, []outcome.Outcome{o})
	}
	for i := 0; i+2 < len(ones); i += 3 {
		turns = append(turns, []outcome.Outcome{ones[i], ones[i+1]}, []outcome.Outcome{ones[i+2], ones[i], ones[(i*7)%len(ones)]})
	}
	big := make([]outcome.Outcome, 20)
	for i := range big {
		big[i] = outcome.Outcome{Call: outcome.Call{ID: "call_" + strings.Repeat("a", i%7)}, Error: &envs[0]}
	}
	return append(turns, big, big[:7], nil)
}

// TestAppendSerialized_matchesSerialize holds every codec's AppendSerialized
// to the canonical JSON of its Serialize, byte for byte, and to its errors:
// one writer, and the value form derived from it.
func TestAppendSerialized_matchesSerialize(t *testing.T) {
	corpus := serializeCorpus()
	for _, name := range format.Names() {
		t.Run(name, func(t *testing.T) {
			c := format.Lookup(name)
			for k, outs := range corpus {
				msgs, serr := c.Serialize(outs)
				got, aerr := c.AppendSerialized([]byte("prefix"), outs)
				if serr != nil || aerr != nil {
					require.Equal(t, serr, aerr, "turn %d", k)
					continue
				}
				want, werr := canonical.Append([]byte("prefix"), msgs)
				require.NoError(t, werr)
				require.Equal(t, string(want), string(got), "turn %d", k)
			}
		})
	}
}

// TestProviderTable_rows: every row of the provider table names a room that
// is complete for what the row says it takes part in, so that a new
// provider is its folder and one row.
func TestProviderTable_rows(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range format.Providers() {
		require.False(t, seen[p.Name], "%s listed twice", p.Name)
		seen[p.Name] = true
		require.True(t, p.Codec != nil || p.Dialect != nil || p.IDs != nil, "%s takes part in nothing", p.Name)
		if p.Dialect != nil {
			d := p.Dialect()
			assert.Equal(t, p.Name, d.Name)
			assert.NotNil(t, d.Read, p.Name)
			assert.NotNil(t, d.Write, p.Name)
			assert.NotNil(t, d.Serialize, p.Name)
			assert.NotEmpty(t, d.CallID.Key, p.Name)
			assert.NotEmpty(t, d.ResultID.Key, p.Name)
			assert.NotNil(t, d.Lost, p.Name)
			assert.NotZero(t, d.Placement, p.Name)
			assert.NotEmpty(t, d.Unanswered, p.Name)
			assert.NotEmpty(t, d.RoleNames, p.Name)
			assert.NotEmpty(t, d.IDs.Text, p.Name)
			assert.NotNil(t, p.Codec, "%s has a dialect but no codec", p.Name)
			require.NotNil(t, p.Request, "%s has a dialect but no request-body shape", p.Name)
			r := p.Request()
			assert.NotEmpty(t, r.List, p.Name)
			assert.NotNil(t, r.WriteSystem, p.Name)
			assert.NotNil(t, r.ReadTools, p.Name)
			assert.NotNil(t, r.WriteTools, p.Name)
			assert.NotEmpty(t, r.Params, p.Name)
		}
		if p.IDs != nil {
			assert.NotEmpty(t, p.IDs().Text, p.Name)
			assert.NotNil(t, format.Dialect(p.Lists), "%s: lists of an unknown format %q", p.Name, p.Lists)
		}
	}
	assert.Equal(t, []string{"openai-chat", "openai-responses", "anthropic", "gemini", "gemini-openai", "bedrock", "mcp"}, format.Names())
	assert.Equal(t, []string{"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"}, format.TranscriptNames())
	assert.Equal(t, []string{"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "mistral"}, format.RuleNames())
}

// TestProviderTable_errors: the unknown-name errors list the table's names.
func TestProviderTable_errors(t *testing.T) {
	_, err := format.Named("cohere", "format")
	assert.EqualError(t, err, `toolerr: format: unknown format "cohere"; known: openai-chat, openai-responses, anthropic, gemini, gemini-openai, bedrock, mcp`)
	_, err = format.TranscriptNamed("mcp", "from")
	assert.EqualError(t, err, `toolerr: from: unknown transcript format "mcp"; known: openai-chat, openai-responses, anthropic, gemini, bedrock`)
	_, err = format.RulesNamed("gemini-openai", "id_rules")
	assert.EqualError(t, err, `toolerr: id_rules: unknown id rules "gemini-openai"; known: openai-chat, openai-responses, anthropic, gemini, bedrock, mistral`)
	_, err = format.Named("openai", "format")
	assert.NoError(t, err, "openai is an alias of openai-chat")
	_, err = format.Named("", "format")
	assert.EqualError(t, err, `toolerr: format: is required and must be a non-empty string`)
	assert.Equal(t, "openai-chat", format.ListFormat("mistral"))
	assert.Equal(t, "bedrock", format.ListFormat("bedrock"))
}

// TestProviderTable_aliases: one vocabulary. Every alias resolves to its
// row in any case, no name belongs to two rows, and the classify hint of
// every name is its row's vendor.
func TestProviderTable_aliases(t *testing.T) {
	for in, want := range map[string]string{
		"openai": "openai-chat", "OpenAI": "openai-chat", " chat-completions ": "openai-chat", "responses": "openai-responses",
		"claude": "anthropic", "google": "gemini", "Vertex": "gemini", "genai": "gemini", "aws": "bedrock",
		"converse": "bedrock", "bedrock-converse": "bedrock", "gemini-openai": "gemini-openai", "ANTHROPIC": "anthropic",
	} {
		got, ok := format.Canonical(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	_, ok := format.Canonical("cohere")
	assert.False(t, ok)
	seen := map[string]string{}
	for _, p := range format.Providers() {
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			require.NotContains(t, seen, n, "%s names two rows", n)
			seen[n] = p.Name
		}
		assert.NotEmpty(t, p.Vendor, p.Name)
	}
	for in, want := range map[string]string{
		"openai-chat": "openai", "openai-responses": "openai", "responses": "openai", "google": "gemini",
		"gemini-openai": "gemini", "claude": "anthropic", "aws": "bedrock", "Cohere ": "cohere", "": "",
	} {
		assert.Equal(t, want, format.Vendor(in), in)
	}
	name, err := format.TranscriptNamed("Google", "format")
	require.NoError(t, err)
	assert.Equal(t, "gemini", name)
	assert.Equal(t, "gemini", format.Dialect(name).Name)
	r, err := format.RulesNamed("claude", "id_rules")
	require.NoError(t, err)
	assert.Equal(t, "anthropic", r)
	assert.Equal(t, "openai-chat", format.ListFormat("openai"))
}
