package oracles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oracleEnvelope is the running example of the README's wire-format table (code from our
// registry), already sanitized so the serializer leaves it unchanged.
func oracleEnvelope() map[string]any {
	return map[string]any{"code": "TIMEOUT", "message": "Weather service timed out after 10s.", "retryable": true,
		"details": map[string]any{"timeout_ms": 10000}, "source": "tool"}
}

const oracleEnvelopeText = `{"code":"TIMEOUT","details":{"timeout_ms":10000},"message":"Weather service timed out after 10s.","retryable":true,"source":"tool"}`

const oraclePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// sdkText is the content list anthropic-sdk-go builds for a text content.
func sdkText(s string) []anthropic.ToolResultBlockParamContentUnion {
	return []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: s}}}
}

// normalizeAnthropic applies the one equivalence Anthropic documents between
// our output and the SDK's: a tool_result content string is the same as a
// list holding one text block with that string (ToolResultBlockParam content
// is "string or array of blocks"; anthropic-sdk-go v2 always builds the list).
func normalizeAnthropic(msg any) any {
	m := msg.(map[string]any)
	for _, b := range m["content"].([]any) {
		bm := b.(map[string]any)
		if s, ok := bm["content"].(string); ok {
			bm["content"] = []any{map[string]any{"type": "text", "text": s}}
		}
	}
	return m
}

func TestAnthropic_matchesSDK(t *testing.T) {
	tool := func(p anthropic.ToolResultBlockParam) anthropic.ContentBlockParamUnion {
		return anthropic.ContentBlockParamUnion{OfToolResult: &p}
	}
	tests := []struct {
		name string
		req  map[string]any
		sdk  anthropic.MessageParam
	}{
		{"failure with NewToolResultBlock",
			map[string]any{"call": map[string]any{"id": "toolu_01A09q90qw90lq917835lq9"}, "error": oracleEnvelope()},
			anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_01A09q90qw90lq917835lq9", oracleEnvelopeText, true))},
		{"text success",
			map[string]any{"call": map[string]any{"id": "toolu_B"}, "result": map[string]any{"text": "3 hits"}},
			anthropic.NewUserMessage(tool(anthropic.ToolResultBlockParam{ToolUseID: "toolu_B", Content: sdkText("3 hits")}))},
		{"JSON success",
			map[string]any{"call": map[string]any{"id": "t"}, "result": map[string]any{"json": map[string]any{"city": "東京"}}},
			anthropic.NewUserMessage(tool(anthropic.ToolResultBlockParam{ToolUseID: "t", Content: sdkText(`{"city":"東京"}`)}))},
		{"empty success omits content",
			map[string]any{"call": map[string]any{"id": "toolu_E"}, "result": map[string]any{}},
			anthropic.NewUserMessage(tool(anthropic.ToolResultBlockParam{ToolUseID: "toolu_E"}))},
		{"text and image",
			map[string]any{"call": map[string]any{"id": "toolu_I"}, "result": map[string]any{"blocks": []any{
				map[string]any{"type": "text", "text": "captured"},
				map[string]any{"type": "image", "media_type": "image/png", "data": oraclePNG}}}},
			anthropic.NewUserMessage(tool(anthropic.ToolResultBlockParam{ToolUseID: "toolu_I", Content: []anthropic.ToolResultBlockParamContentUnion{
				{OfText: &anthropic.TextBlockParam{Text: "captured"}},
				{OfImage: &anthropic.ImageBlockParam{Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{Data: oraclePNG, MediaType: "image/png"}}}},
			}}))},
		{"parallel failure and success",
			map[string]any{"results": []any{
				map[string]any{"call": map[string]any{"id": "toolu_A"}, "error": oracleEnvelope()},
				map[string]any{"call": map[string]any{"id": "toolu_B"}, "result": map[string]any{"text": "3 hits"}}}},
			anthropic.NewUserMessage(
				anthropic.NewToolResultBlock("toolu_A", oracleEnvelopeText, true),
				tool(anthropic.ToolResultBlockParam{ToolUseID: "toolu_B", Content: sdkText("3 hits")}))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := map[string]any{"op": "serialize", "format": "anthropic"}
			for k, v := range tc.req {
				req[k] = v
			}
			ours := invokeOK(t, req).([]any)
			assert.Len(t, ours, 1, "one user message per turn")
			assert.Equal(t, asJSONValue(t, tc.sdk), normalizeAnthropic(ours[0]))
		})
	}
}

// recordedTurn is one user message of a real recording that answers tool
// calls, with the number of tool results and of failures it holds.
type recordedTurn struct {
	file     string
	msg      map[string]any
	results  int
	failures int
}

// recordedTurns reads every recording of provider in shared/fixtures/real and
// returns its user messages that hold tool results; isResult reports whether
// a content block or part is one, and whether it is flagged as a failure.
// Shared by the anthropic, gemini and bedrock real-recording tests.
func recordedTurns(t *testing.T, provider, listKey string, isResult func(b map[string]any) (result, failed bool)) []recordedTurn {
	files, err := filepath.Glob(filepath.Join(sharedDir(t), "fixtures", "real", provider, "*.json"))
	require.NoError(t, err)
	var turns []recordedTurn
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var rec struct {
			Request struct {
				Body map[string]any `json:"body"`
			} `json:"request"`
		}
		if json.Unmarshal(raw, &rec) != nil || rec.Request.Body == nil {
			continue
		}
		msgs, _ := rec.Request.Body[listKey].([]any)
		for _, mv := range msgs {
			m, _ := mv.(map[string]any)
			blockKey := "content"
			if listKey == "contents" {
				blockKey = "parts"
			}
			blocks, _ := m[blockKey].([]any)
			turn := recordedTurn{file: filepath.Base(f), msg: m}
			for _, bv := range blocks {
				b, _ := bv.(map[string]any)
				if r, failed := isResult(b); r {
					turn.results++
					if failed {
						turn.failures++
					}
				}
			}
			if turn.results > 0 {
				turns = append(turns, turn)
			}
		}
	}
	require.NotEmpty(t, turns, "no recorded %s tool results", provider)
	return turns
}

// checkRecordedTurn parses a recorded turn, checks that every result and
// every failure flag survives, serializes the outcomes again and returns
// both.
func checkRecordedTurn(t *testing.T, format string, turn recordedTurn) (parsed []any, again map[string]any) {
	t.Helper()
	parsed = invokeOK(t, map[string]any{"op": "parse", "format": format, "messages": []any{turn.msg}}).([]any)
	require.Len(t, parsed, turn.results)
	failures := 0
	for _, o := range parsed {
		if _, ok := o.(map[string]any)["error"]; ok {
			failures++
		}
	}
	assert.Equal(t, turn.failures, failures, "failure flags kept")
	out := invokeOK(t, map[string]any{"op": "serialize", "format": format, "results": parsed}).([]any)
	require.Len(t, out, 1)
	return parsed, out[0].(map[string]any)
}

func TestAnthropic_realRecordings(t *testing.T) {
	turns := recordedTurns(t, "anthropic", "messages", func(b map[string]any) (bool, bool) {
		return b["type"] == "tool_result", b["is_error"] == true
	})
	for _, turn := range turns {
		t.Run(turn.file, func(t *testing.T) {
			parsed, again := checkRecordedTurn(t, "anthropic", turn)
			flagged := 0
			for _, b := range again["content"].([]any) {
				if b.(map[string]any)["is_error"] == true {
					flagged++
				}
			}
			assert.Equal(t, turn.failures, flagged, "is_error on every failure after the round trip")
			if turn.file == "transcript_tool_result_is_error_pydantic_ai.json" && turn.failures == 1 {
				e := parsed[0].(map[string]any)["error"].(map[string]any)
				assert.Equal(t, "TOOL_ERROR", e["code"])
				assert.Contains(t, e["message"], "validation error")
			}
		})
	}
}
