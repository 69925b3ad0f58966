package oracles

import (
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
)

// oracleEnvelope is the running example of wire-formats §6 (code from our
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
