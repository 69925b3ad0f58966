package oracles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"
)

// recordedList is one recorded transcript: its format and message list.
type recordedList struct {
	name, format, rules string
	msgs                []any
}

// recordedLists reads every shared/fixtures/real/*/transcript_*.json request
// body's message list (messages, input or contents).
func recordedLists(t *testing.T) []recordedList {
	dir := filepath.Join(sharedDir(t), "fixtures", "real")
	files, err := filepath.Glob(filepath.Join(dir, "*", "transcript_*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	sort.Strings(files)
	formats := map[string]string{"openai_chat": "openai-chat", "mistral": "openai-chat", "openai_responses": "openai-responses", "anthropic": "anthropic", "gemini": "gemini", "bedrock": "bedrock"}
	var out []recordedList
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var rec struct {
			Request struct {
				Body map[string]any `json:"body"`
			} `json:"request"`
		}
		require.NoError(t, json.Unmarshal(b, &rec), f)
		sub := filepath.Base(filepath.Dir(f))
		rl := recordedList{name: sub + "/" + filepath.Base(f), format: formats[sub]}
		if sub == "mistral" {
			rl.rules = "mistral"
		}
		for _, key := range []string{"messages", "input", "contents"} {
			if arr, ok := rec.Request.Body[key].([]any); ok {
				rl.msgs = arr
			}
		}
		require.NotNil(t, rl.msgs, f)
		out = append(out, rl)
	}
	return out
}

// sdkRoundTrip unmarshals each message into the SDK's own param type and
// returns it marshalled again, as a JSON value.
func sdkRoundTrip(t *testing.T, format string, m any) any {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	var v any
	switch format {
	case "openai-chat":
		var p openai.ChatCompletionMessageParamUnion
		require.NoError(t, json.Unmarshal(b, &p))
		v = p
	case "openai-responses":
		var p responses.ResponseInputItemUnionParam
		b, err = json.Marshal(equivalent(format, asJSONValue(t, m)))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &p))
		v = p
	case "anthropic":
		var p anthropic.MessageParam
		require.NoError(t, json.Unmarshal(b, &p))
		v = p
	case "gemini":
		var p genai.Content
		require.NoError(t, json.Unmarshal(b, &p))
		v = p
	}
	return asJSONValue(t, v)
}

// TestTranscript_convertedMatchVendorDefinitions converts every recorded
// transcript to every provider's shape and checks the result against that
// vendor's definitions: each message survives a round trip through the
// official SDK's param type unchanged (openai-go, anthropic-sdk-go, genai),
// OpenAI messages validate against the OpenAPI schemas, Bedrock messages
// against the Converse service model (Message), and check finds nothing.
func TestTranscript_convertedMatchVendorDefinitions(t *testing.T) {
	chatMsg := compileSpecSchema(t, "openai-openapi.yaml", "/components/schemas/ChatCompletionRequestMessage")
	// InputItem itself does not compile as draft 2020-12 ($recursiveAnchor);
	// its members do, chosen by type as the union's discriminator does.
	respItems := map[string]string{"function_call": "FunctionToolCall", "function_call_output": "FunctionCallOutputItemParam", "": "EasyInputMessage", "message": "EasyInputMessage"}
	respSchemas := map[string]*jsonschema.Schema{}
	for typ, name := range respItems {
		respSchemas[typ] = compileSpecSchema(t, "openai-openapi.yaml", "/components/schemas/"+name)
	}
	model := loadBedrockModel(t)
	for _, rl := range recordedLists(t) {
		for _, to := range []string{"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"} {
			t.Run(rl.name+"/"+to, func(t *testing.T) {
				if to == rl.format {
					// to its own format a list comes back as recorded (the
					// request the API accepted, the reference even where an
					// SDK type cannot hold it: genai's thoughtSignature is
					// []byte of standard base64, the recording URL-safe)
					ok := invokeOK(t, map[string]any{"op": "convert", "from": rl.format, "to": to, "messages": rl.msgs, "id_rules": rl.rules}).(map[string]any)
					assert.Equal(t, asJSONValue(t, rl.msgs), ok["messages"])
					return
				}
				ok := invokeOK(t, map[string]any{"op": "convert", "from": rl.format, "to": to, "messages": rl.msgs}).(map[string]any)
				msgs := ok["messages"].([]any)
				require.NotEmpty(t, msgs)
				chk := invokeOK(t, map[string]any{"op": "check", "format": to, "messages": msgs}).(map[string]any)
				assert.Empty(t, chk["findings"])
				for i, m := range msgs {
					what := to + " message " + strconv.Itoa(i)
					switch to {
					case "openai-chat":
						requireValid(t, chatMsg, m, what)
					case "openai-responses":
						typ, _ := m.(map[string]any)["type"].(string)
						requireValid(t, respSchemas[typ], m, what)
					case "bedrock":
						assert.Empty(t, model.check("Message", m, "messages["+strconv.Itoa(i)+"]"), what)
						continue
					}
					assert.Equal(t, equivalent(to, asJSONValue(t, m)), equivalent(to, sdkRoundTrip(t, to, m)), what+": the SDK type carries it unchanged")
				}
			})
		}
	}
}

// TestTranscript_repairedMatchVendorDefinitions repairs the field reports'
// broken lists and checks the repaired lists against the SDK types.
func TestTranscript_repairedMatchVendorDefinitions(t *testing.T) {
	model := loadBedrockModel(t)
	lists := map[string][]any{
		"openai-responses": {map[string]any{"type": "function_call", "call_id": "call_A", "name": "lookup", "arguments": `{"q":"X"}`}, map[string]any{"type": "message", "role": "user", "content": "hi"}},
		"anthropic": {map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_A", "name": "search", "input": map[string]any{}}, map[string]any{"type": "tool_use", "id": "toolu_B", "name": "search", "input": map[string]any{}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "continue"}, map[string]any{"type": "tool_result", "tool_use_id": "toolu_B", "content": "3 hits"}}}},
		"openai-chat": {map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}, map[string]any{"id": "call_2", "type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}}},
			map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "42"}},
		"gemini": {map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "a", "args": map[string]any{}}}, map[string]any{"functionCall": map[string]any{"name": "b", "args": map[string]any{}}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "b", "response": map[string]any{"output": 1}}}}}},
		"bedrock": {map[string]any{"role": "assistant", "content": []any{map[string]any{"toolUse": map[string]any{"toolUseId": "t1", "name": "s", "input": map[string]any{}}}}}},
	}
	for format, list := range lists {
		t.Run(format, func(t *testing.T) {
			ok := invokeOK(t, map[string]any{"op": "repair", "format": format, "messages": list}).(map[string]any)
			for i, m := range ok["messages"].([]any) {
				if format == "bedrock" {
					assert.Empty(t, model.check("Message", m, "messages["+strconv.Itoa(i)+"]"))
					continue
				}
				assert.Equal(t, equivalent(format, asJSONValue(t, m)), equivalent(format, sdkRoundTrip(t, format, m)), "message %d", i)
			}
		})
	}
}

// equivalent rewrites a message into one form for the equivalences the
// vendors document, so that ours and the SDK's re-marshalled form compare:
// a Responses message without "type" is a "message" (EasyInputMessage; the
// SDK's union decoder needs the discriminator); OpenAI "content": null is the same as no content (an assistant message with
// tool_calls; openai-go omits it); an Anthropic content string is a list of
// one text block (anthropic-sdk-go always builds the list); Gemini omits
// empty args and an absent response is {} (genai's omitempty).
func equivalent(format string, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	switch format {
	case "openai-responses":
		if _, has := m["type"]; !has && m["role"] != nil {
			m["type"] = "message" // EasyInputMessage: type is optional, always "message"
		}
	case "openai-chat":
		if c, has := m["content"]; has && c == nil {
			delete(m, "content")
		}
	case "anthropic":
		if s, ok := m["content"].(string); ok {
			m["content"] = []any{map[string]any{"type": "text", "text": s}}
		}
		for _, b := range m["content"].([]any) {
			bm := b.(map[string]any)
			if s, ok := bm["content"].(string); ok {
				bm["content"] = []any{map[string]any{"type": "text", "text": s}}
			}
		}
	case "gemini":
		for _, p := range m["parts"].([]any) {
			pm := p.(map[string]any)
			if fc, ok := pm["functionCall"].(map[string]any); ok {
				if a, ok := fc["args"].(map[string]any); ok && len(a) == 0 {
					delete(fc, "args")
				}
			}
			if fr, ok := pm["functionResponse"].(map[string]any); ok {
				if _, has := fr["response"]; !has {
					fr["response"] = map[string]any{}
				}
			}
		}
	}
	return m
}
