package oracles

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"
)

// normalizeGemini applies the one difference between our output and the
// genai SDK's JSON: FunctionResponse.Response is `json:"response,omitempty"`,
// so the SDK drops an empty response map, while we send {} (the proto marks
// response REQUIRED; content.proto FunctionResponse). An absent response is read as {}.
func normalizeGemini(sdk any) any {
	for _, p := range sdk.(map[string]any)["parts"].([]any) {
		fr := p.(map[string]any)["functionResponse"].(map[string]any)
		if _, ok := fr["response"]; !ok {
			fr["response"] = map[string]any{}
		}
	}
	return sdk
}

func TestGemini_matchesSDK(t *testing.T) {
	png, err := base64.StdEncoding.DecodeString(oraclePNG)
	require.NoError(t, err)
	content := func(parts ...*genai.Part) *genai.Content { return genai.NewContentFromParts(parts, genai.RoleUser) }
	withID := func(id string, p *genai.Part) *genai.Part { p.FunctionResponse.ID = id; return p }
	tests := []struct {
		name string
		req  map[string]any
		sdk  *genai.Content
	}{
		{"failure with an id",
			map[string]any{"call": map[string]any{"id": "fc_7f3a", "name": "get_weather"}, "error": oracleEnvelope()},
			content(withID("fc_7f3a", genai.NewPartFromFunctionResponse("get_weather", map[string]any{"error": oracleEnvelope()})))},
		{"text under output, no id",
			map[string]any{"call": map[string]any{"name": "get_time"}, "result": map[string]any{"text": "10:00"}},
			content(genai.NewPartFromFunctionResponse("get_time", map[string]any{"output": "10:00"}))},
		{"list under output",
			map[string]any{"call": map[string]any{"name": "list_ids"}, "result": map[string]any{"json": []any{1, 2, 3}}},
			content(genai.NewPartFromFunctionResponse("list_ids", map[string]any{"output": []any{1, 2, 3}}))},
		{"object passes through",
			map[string]any{"call": map[string]any{"name": "get_time"}, "result": map[string]any{"json": map[string]any{"time": "10:00"}}},
			content(genai.NewPartFromFunctionResponse("get_time", map[string]any{"time": "10:00"}))},
		{"empty",
			map[string]any{"call": map[string]any{"name": "f"}, "result": map[string]any{}},
			content(genai.NewPartFromFunctionResponse("f", map[string]any{}))},
		{"text and image",
			map[string]any{"call": map[string]any{"id": "c1", "name": "screenshot"}, "result": map[string]any{"blocks": []any{
				map[string]any{"type": "text", "text": "captured"},
				map[string]any{"type": "image", "media_type": "image/png", "data": oraclePNG}}}},
			content(withID("c1", genai.NewPartFromFunctionResponseWithParts("screenshot", map[string]any{"output": "captured"},
				[]*genai.FunctionResponsePart{genai.NewFunctionResponsePartFromBytes(png, "image/png")})))},
		{"B08 parallel in one content",
			map[string]any{"results": []any{
				map[string]any{"call": map[string]any{"name": "get_time"}, "result": map[string]any{"json": map[string]any{"time": "10:00"}}},
				map[string]any{"call": map[string]any{"name": "get_weather"}, "error": oracleEnvelope()}}},
			content(genai.NewPartFromFunctionResponse("get_time", map[string]any{"time": "10:00"}),
				genai.NewPartFromFunctionResponse("get_weather", map[string]any{"error": oracleEnvelope()}))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := map[string]any{"op": "serialize", "format": "gemini"}
			for k, v := range tc.req {
				req[k] = v
			}
			ours := invokeOK(t, req).([]any)
			assert.Len(t, ours, 1, "one Content per turn (microsoft/semantic-kernel#12528)")
			assert.Equal(t, normalizeGemini(asJSONValue(t, tc.sdk)), ours[0])
		})
	}
}

func TestGemini_realRecordings(t *testing.T) {
	turns := recordedTurns(t, "gemini", "contents", func(b map[string]any) (bool, bool) {
		fr, ok := b["functionResponse"].(map[string]any)
		if !ok {
			fr, ok = b["function_response"].(map[string]any)
		}
		if !ok {
			return false, false
		}
		resp, _ := fr["response"].(map[string]any)
		_, failed := resp["error"]
		return true, failed
	})
	for _, turn := range turns {
		t.Run(turn.file, func(t *testing.T) {
			parsed, again := checkRecordedTurn(t, "gemini", turn)
			flagged := 0
			for _, p := range again["parts"].([]any) {
				resp := p.(map[string]any)["functionResponse"].(map[string]any)["response"].(map[string]any)
				if _, ok := resp["error"]; ok {
					flagged++
				}
			}
			assert.Equal(t, turn.failures, flagged, "response.error on every failure after the round trip")
			if turn.file == "transcript_function_response_error_retry_pydantic_ai.json" {
				// pydantic-ai writes {"error": "<text>"}: a failure with that
				// text; {"return_value": ...} is a JSON result.
				for _, o := range parsed {
					om := o.(map[string]any)
					if e, ok := om["error"].(map[string]any); ok {
						assert.Equal(t, "TOOL_ERROR", e["code"])
						assert.Contains(t, e["message"], "The country is not supported.")
					} else {
						assert.Equal(t, map[string]any{"json": map[string]any{"return_value": "Paris"}}, om["result"])
					}
				}
			}
		})
	}
}
