package oracles

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stdJSON is encoding/json without HTML escaping: an implementation of JSON
// independent of toolerr's canonical writer, for the content strings the SDK
// messages carry. Structs and maps marshal with sorted keys, like RFC 8785,
// for the plain ASCII-safe values used here.
func stdJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// openAICase is one outcome, the Invoke members that give it, and the content
// string every OpenAI format must carry for it (computed with encoding/json).
type openAICase struct {
	name    string
	members map[string]any
	content func(t *testing.T) string
}

func openAICases() []openAICase {
	return []openAICase{
		{"failure", map[string]any{"error": oracleEnvelope()}, func(t *testing.T) string { return stdJSON(t, oracleEnvelope()) }},
		{"text", map[string]any{"result": map[string]any{"text": "Sunny, 21 °C"}}, func(*testing.T) string { return "Sunny, 21 °C" }},
		{"json (B14)", map[string]any{"result": map[string]any{"json": map[string]any{"city": "東京", "note": "naïve — ok", "n": []any{1, 2}}}},
			func(t *testing.T) string {
				return stdJSON(t, map[string]any{"city": "東京", "note": "naïve — ok", "n": []any{1, 2}})
			}},
		{"empty (B12)", map[string]any{"result": map[string]any{}}, func(*testing.T) string { return "(empty result)" }},
	}
}

func serializeOne(t *testing.T, format, id string, members map[string]any) []any {
	t.Helper()
	req := map[string]any{"op": "serialize", "format": format, "call": map[string]any{"id": id, "name": "get_weather"}}
	for k, v := range members {
		req[k] = v
	}
	out, ok := invokeOK(t, req).([]any)
	require.True(t, ok)
	return out
}

func TestOpenAIChat_matchesSDK(t *testing.T) {
	for _, format := range []string{"openai-chat", "gemini-openai"} {
		for _, tc := range openAICases() {
			t.Run(format+"/"+tc.name, func(t *testing.T) {
				got := serializeOne(t, format, "call_abc123", tc.members)
				require.Len(t, got, 1)
				want := openai.ToolMessage(tc.content(t), "call_abc123")
				assert.Equal(t, asJSONValue(t, want), asJSONValue(t, got[0]))
			})
		}
	}
}

func TestOpenAIChat_imageCarrierMatchesSDK(t *testing.T) {
	got := serializeOne(t, "openai-chat", "call_7", map[string]any{"result": map[string]any{"blocks": []any{
		map[string]any{"type": "text", "text": "captured"},
		map[string]any{"type": "image", "media_type": "image/png", "data": oraclePNG}}}})
	require.Len(t, got, 2)
	tool := openai.ToolMessage("captured\n[1 image from this tool result is attached in the next message]", "call_7")
	user := openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
		openai.TextContentPart("Image 1 of 1 from tool call call_7:"),
		openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64," + oraclePNG}),
	})
	assert.Equal(t, asJSONValue(t, tool), asJSONValue(t, got[0]))
	assert.Equal(t, asJSONValue(t, user), asJSONValue(t, got[1]))
}

func sdkFunctionCallOutput[T string | responses.ResponseFunctionCallOutputItemListParam](output T, callID string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
	item.OfFunctionCallOutput.CallID = param.NewOpt(callID)
	return item
}

func TestOpenAIResponses_matchesSDK(t *testing.T) {
	for _, tc := range openAICases() {
		t.Run(tc.name, func(t *testing.T) {
			got := serializeOne(t, "openai-responses", "call_abc123", tc.members)
			require.Len(t, got, 1)
			assert.Equal(t, asJSONValue(t, sdkFunctionCallOutput(tc.content(t), "call_abc123")), asJSONValue(t, got[0]))
		})
	}
	t.Run("blocks", func(t *testing.T) {
		got := serializeOne(t, "openai-responses", "call_7", map[string]any{"result": map[string]any{"blocks": []any{
			map[string]any{"type": "text", "text": "captured"},
			map[string]any{"type": "image", "media_type": "image/png", "data": oraclePNG}}}})
		want := sdkFunctionCallOutput(responses.ResponseFunctionCallOutputItemListParam{
			responses.ResponseFunctionCallOutputItemParamOfInputText("captured"),
			{OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: param.NewOpt("data:image/png;base64," + oraclePNG)}},
		}, "call_7")
		assert.Equal(t, asJSONValue(t, want), asJSONValue(t, got[0]))
	})
}

// openAIOutputs serializes every case (and an image result) to format.
func openAIOutputs(t *testing.T, format string) []any {
	var all []any
	for _, tc := range openAICases() {
		all = append(all, serializeOne(t, format, "call_abc123", tc.members)...)
	}
	return append(all, serializeOne(t, format, "call_7", map[string]any{"result": map[string]any{"blocks": []any{
		map[string]any{"type": "text", "text": "two"}, map[string]any{"type": "text", "text": " "},
		map[string]any{"type": "image", "media_type": "image/png", "data": oraclePNG},
		map[string]any{"type": "image", "media_type": "image/jpeg", "data": "/9j/"}}}})...)
}

func TestOpenAIChat_validatesAgainstSpec(t *testing.T) {
	tool := compileSpecSchema(t, "openai-openapi.yaml", "/components/schemas/ChatCompletionRequestToolMessage")
	user := compileSpecSchema(t, "openai-openapi.yaml", "/components/schemas/ChatCompletionRequestUserMessage")
	for _, format := range []string{"openai-chat", "gemini-openai"} {
		for i, m := range openAIOutputs(t, format) {
			if m.(map[string]any)["role"] == "user" {
				requireValid(t, user, m, format+" image carrier")
				continue
			}
			requireValid(t, tool, m, format+" tool message "+strconv.Itoa(i))
		}
	}
}

func TestOpenAIResponses_validatesAgainstSpec(t *testing.T) {
	item := compileSpecSchema(t, "openai-openapi.yaml", "/components/schemas/FunctionCallOutputItemParam")
	for _, m := range openAIOutputs(t, "openai-responses") {
		requireValid(t, item, m, "function_call_output")
	}
}

// TestOpenAIFailureContent_fiveKeys is seed checklist item 4 on every
// OpenAI-shaped format: the content of a failure parses as JSON holding
// exactly the five envelope keys.
func TestOpenAIFailureContent_fiveKeys(t *testing.T) {
	env := map[string]any{"code": "INVALID_ARGS", "message": "city must be a <city name> & not \"東京\".", "retryable": false,
		"details": map[string]any{"path": "/city", "tool": "get_weather"}, "source": "tool"}
	for format, key := range map[string]string{"openai-chat": "content", "gemini-openai": "content", "openai-responses": "output"} {
		t.Run(format, func(t *testing.T) {
			got := serializeOne(t, format, "call_1", map[string]any{"error": env})
			s, ok := got[0].(map[string]any)[key].(string)
			require.True(t, ok, "%s is a string", key)
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(s), &m), "content is JSON, not prose or a code fence")
			require.Len(t, m, 5)
			for _, k := range []string{"code", "message", "retryable", "details", "source"} {
				assert.Contains(t, m, k)
			}
			assert.Equal(t, env["message"], m["message"])
		})
	}
}
