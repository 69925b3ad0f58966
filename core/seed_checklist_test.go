package core_test

// Seed 000's portability checklist (README, "Two commands"), items 3 and 5,
// across every wire format. Item 3: every failed Anthropic
// result carries is_error true; the seed's own sketch, which sets it only
// when a failure is not retryable or not from the tool, is wrong. Item 5: no
// adapter lets the model see a raw exception string or a secret.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

func TestSeedChecklist_item3IsErrorOnEveryAnthropicFailure(t *testing.T) {
	var outs []core.Outcome
	for _, ci := range core.Codes() {
		for _, retry := range []bool{true, false} {
			for _, src := range []core.Source{core.SourceTool, core.SourceProvider, core.SourceOrchestrator} {
				e := core.Envelope{Code: ci.Code, Message: "The call failed.", Retryable: retry, Source: src}
				outs = append(outs, core.Outcome{Call: core.Call{ID: "toolu_" + string(ci.Code) + "_" + string(src)}, Error: &e})
			}
		}
	}
	// A success in the same turn must not get the flag.
	outs = append(outs, core.Outcome{Call: core.Call{ID: "toolu_ok"}, Result: &core.Result{Kind: core.ResultText, Text: "3 hits"}})
	msgs, err := core.Serialize(core.FormatAnthropic, outs)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "one user message for the turn")
	blocks := msgs[0].(map[string]any)["content"].([]any)
	require.Len(t, blocks, len(outs))
	for i, b := range blocks[:len(blocks)-1] {
		assert.Equal(t, true, b.(map[string]any)["is_error"], "failure %d (%s)", i, outs[i].Call.ID)
	}
	_, flagged := blocks[len(blocks)-1].(map[string]any)["is_error"]
	assert.False(t, flagged, "a success carries no is_error")

	// The same through Invoke, for the case the seed's sketch gets wrong:
	// retryable true from the tool.
	resp := core.Invoke([]byte(`{"op":"serialize","format":"anthropic","call":{"id":"toolu_R"},"error":{"code":"RATE_LIMITED","message":"Weather API returned 429 after 3 attempts.","retryable":true,"details":{},"source":"tool"}}`))
	assert.Contains(t, string(resp), `"is_error":true`)
}

// planted secrets and a traceback, every one marked so that a leak is easy to
// find; each would be redacted or cut by the sanitizer (issue 2, item 4;
// BerriAI/litellm#8075).
var plantedLeaks = []string{
	"PLANTED",                           // in every secret value below
	"Traceback (most recent call last)", // a Python stack trace header
	`File "/srv/app/client.py"`,         // a frame with a file path
}

const plantedMessage = "HTTPError 503 for url https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse&key=PLANTEDKEYVALUE\n" +
	"Traceback (most recent call last):\n" +
	"  File \"/srv/app/client.py\", line 88, in call\n" +
	"    headers={'Authorization': 'Bearer PLANTEDtokenvalue0123456789'}\n" +
	"ConnectionError: postgres://svc:PLANTEDpw@db.internal:5432/app refused with key sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

func plantedDetails() map[string]any {
	return map[string]any{
		"url":      "https://api.example.com/v1/search?q=x&api_key=PLANTEDapikey",
		"aws":      "AKIAIOSFODNN7PLANTED",
		"google":   "AIzaSyPLANTED-secret_0123456789abcdefgh",
		"openai":   "sk-proj-PLANTEDabcdefghijklmnopqrstuvwxyz0123456789",
		"nested":   map[string]any{"auth": "Bearer PLANTEDnestedtoken0123456789"},
		"attempts": 3,
	}
}

// wireStrings returns every string in a value tree, and, for a string that is
// itself JSON (an envelope in a text field), every string inside it.
func wireStrings(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		out = append(out, x)
		var inner any
		if t := strings.TrimSpace(x); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Unmarshal([]byte(t), &inner) == nil {
			out = append(out, wireStrings(inner)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, wireStrings(e)...)
		}
	case map[string]any:
		for k, e := range x {
			out = append(out, k)
			out = append(out, wireStrings(e)...)
		}
	}
	return out
}

func TestSeedChecklist_item5NoSecretOrTraceReachesTheWire(t *testing.T) {
	probe, err := core.NewEnvelope(core.CodeToolError, plantedMessage, plantedDetails(), "")
	require.NoError(t, err)
	raw := core.Envelope{Code: core.CodeTransport, Message: plantedMessage, Retryable: true, Details: plantedDetails(), Source: core.SourceTool}
	outs := []core.Outcome{
		{Call: core.Call{ID: "call_1", Name: "search"}, Error: &raw},
		{Call: core.Call{ID: "call_2", Name: "search"}, Error: &probe},
	}
	for _, f := range core.Formats() {
		t.Run(string(f), func(t *testing.T) {
			msgs, err := core.Serialize(f, outs)
			require.NoError(t, err)
			b, err := json.Marshal(msgs)
			require.NoError(t, err)
			for _, s := range wireStrings(msgs) {
				for _, leak := range plantedLeaks {
					assert.NotContains(t, s, leak, "wire output of %s: %s", f, b)
				}
			}
		})
	}
}

// A stack trace inside a details string is reduced too (issue 2, item 4:
// "every string in details"; RULES.md rule 5).
func TestSeedChecklist_item5NoTraceInDetails(t *testing.T) {
	trace := "Traceback (most recent call last):\n  File \"/srv/app/client.py\", line 12, in run\nValueError: bad"
	e, err := core.NewEnvelope(core.CodeToolError, "The tool failed.", map[string]any{"trace": trace}, "")
	require.NoError(t, err)
	require.Equal(t, "ValueError: bad", e.Details["trace"])
	for _, f := range core.Formats() {
		msgs, err := core.Serialize(f, []core.Outcome{{Call: core.Call{ID: "call_1", Name: "search"}, Error: &e}})
		require.NoError(t, err)
		for _, s := range wireStrings(msgs) {
			assert.NotContains(t, s, `File "/srv/app/client.py"`, "%s", f)
		}
	}
}

// A failure parsed from another library's plain text (is_error on a raw
// exception string) is sanitized before it reaches any format.
func TestSeedChecklist_item5ForeignFailureSanitized(t *testing.T) {
	in := []any{map[string]any{"role": "user", "content": []any{map[string]any{
		"type": "tool_result", "tool_use_id": "toolu_X", "is_error": true, "content": plantedMessage}}}}
	outs, err := core.Parse(core.FormatAnthropic, in)
	require.NoError(t, err)
	require.Len(t, outs, 1)
	require.NotNil(t, outs[0].Error)
	outs[0].Call.Name = "search"
	for _, f := range []core.Format{core.FormatAnthropic, core.FormatGemini, core.FormatBedrock} {
		msgs, err := core.Serialize(f, outs)
		require.NoError(t, err)
		for _, s := range wireStrings(msgs) {
			for _, leak := range plantedLeaks {
				assert.NotContains(t, s, leak, "%s", f)
			}
		}
	}
}
