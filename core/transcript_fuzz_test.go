package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/core/internal/canonical"
)

// transcriptFormats are the formats of the transcript ops.
var transcriptFormats = []string{"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"}

// fuzzTranscriptSeeds are message lists in every format's shape (broken and
// not); the committed corpus in testdata/fuzz/FuzzTranscript holds more.
var fuzzTranscriptSeeds = []string{
	`[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]},{"role":"tool","tool_call_id":"b","content":""}]`,
	`[{"type":"function_call","call_id":"c","name":"f","arguments":"{"},{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"x"}]},{"type":"reasoning","id":"r"}]`,
	`[{"role":"assistant","content":[{"type":"tool_use","id":"t.1","name":"s","input":{}},{"type":"tool_use","id":"t.1","name":"s","input":{}}]},{"role":"user","content":[{"type":"text","text":""},{"type":"tool_result","tool_use_id":"t.1","is_error":true,"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}]}]`,
	`[{"role":"model","parts":[{"functionCall":{"name":"a","args":{}}},{"functionCall":{"name":"a"}}]},{"role":"user","parts":[{"functionResponse":{"name":"a","response":{"error":{"code":"X","details":{},"message":"m","retryable":false,"source":"tool"}}}},{"inlineData":{"mimeType":"image/png","data":"AA"}}]},{"parts":[{"functionResponse":{"name":"a","response":[]}}]}]`,
	`[{"role":"assistant","content":[{"toolUse":{"toolUseId":"x","name":"n","input":{}}}]},{"role":"user","content":[{"toolResult":{"toolUseId":"x","status":"error","content":[{"json":{"error":{"code":"X","details":{},"message":"m","retryable":false,"source":"tool"}}}]}}]}]`,
	`[]`, `[1]`, `[{}]`, `[{"role":"tool","tool_call_id":5}]`, `[{"role":"user","parts":"x"}]`,
}

// repairedKinds are the findings repair removes.
var repairedKinds = map[string]bool{
	"unanswered_call": true, "orphan_result": true, "misplaced_result": true, "result_not_first": true,
	"responses_split": true, "response_count_mismatch": true, "extra_part_in_response": true, "duplicate_result": true,
}

func invokeJSON(t *testing.T, req map[string]any) any {
	t.Helper()
	b, err := canonical.Marshal(req)
	require.NoError(t, err)
	ok := requireCanonical(t, b, core.Invoke(b))
	if ok == nil {
		return nil
	}
	v, err := canonical.Parse(ok)
	require.NoError(t, err)
	return v
}

// FuzzTranscript feeds arbitrary message lists to every format's transcript
// reader through Invoke check: no input panics or yields non-canonical JSON;
// whatever reads is repaired to a list check finds nothing repairable in,
// repair is idempotent, and it converts to every other format.
func FuzzTranscript(f *testing.F) {
	for _, s := range fuzzTranscriptSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := canonical.Parse(data)
		if err != nil {
			return
		}
		for _, fm := range transcriptFormats {
			if invokeJSON(t, map[string]any{"op": "check", "format": fm, "messages": v}) == nil {
				continue
			}
			rep := invokeJSON(t, map[string]any{"op": "repair", "format": fm, "messages": v})
			require.NotNil(t, rep, "%s: check reads the list but repair does not", fm)
			fixed := rep.(map[string]any)["messages"]
			chk := invokeJSON(t, map[string]any{"op": "check", "format": fm, "messages": fixed})
			for _, x := range chk.(map[string]any)["findings"].([]any) {
				k := x.(map[string]any)["kind"].(string)
				require.False(t, repairedKinds[k], "%s: %s left after repair: %v", fm, k, x)
			}
			again := invokeJSON(t, map[string]any{"op": "repair", "format": fm, "messages": fixed})
			require.Equal(t, fixed, again.(map[string]any)["messages"], "%s: repair is not idempotent", fm)
			for _, to := range transcriptFormats {
				require.NotNil(t, invokeJSON(t, map[string]any{"op": "convert", "from": fm, "to": to, "messages": v}), "%s to %s", fm, to)
			}
		}
	})
}
