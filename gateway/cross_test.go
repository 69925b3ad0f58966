package gateway

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// A Chat Completions history whose last tool message carries the envelope,
// the OpenAI way (in the content).
const chatWithEnvelope = `{"model":"claude-sonnet-4-5","messages":[
 {"role":"system","content":"Be brief."},
 {"role":"user","content":"Weather in Paris?"},
 {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
 {"role":"tool","tool_call_id":"call_1","content":"` + timeoutEnvelope + `"}],
 "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}`

// TestGateway_crossFamily: an OpenAI Chat request served by an Anthropic
// upstream: the body is converted with the failure flag (is_error), the
// key moves to x-api-key, the response comes back as a chat.completion,
// and an upstream error in the OpenAI shape.
func TestGateway_crossFamily(t *testing.T) {
	up := newFakeUpstream(t, okJSON(`{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Retrying."},{"type":"tool_use","id":"toolu_02","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":40,"output_tokens":9}}`))
	tg := newTestGateway(t, Config{Routes: map[string]string{"openai": "claude"}}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/chat/completions?api-version=1", chatWithEnvelope, map[string]string{"Authorization": "Bearer sk-ant-test"})
	require.Equal(t, 200, resp.StatusCode)
	var cc struct {
		Object  string
		Model   string
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content   string
				ToolCalls []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
		}
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		}
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&cc))
	assert.Equal(t, "chat.completion", cc.Object)
	require.Len(t, cc.Choices, 1)
	assert.Equal(t, "tool_calls", cc.Choices[0].FinishReason)
	assert.Equal(t, "Retrying.", cc.Choices[0].Message.Content)
	require.Len(t, cc.Choices[0].Message.ToolCalls, 1)
	assert.Equal(t, "toolu_02", cc.Choices[0].Message.ToolCalls[0].ID)
	assert.JSONEq(t, `{"city":"Paris"}`, cc.Choices[0].Message.ToolCalls[0].Function.Arguments)
	assert.Equal(t, 49, cc.Usage.TotalTokens)

	sent, h := up.last()
	assert.Equal(t, "/v1/messages", up.paths[0], "the Anthropic path, no foreign query")
	assert.Equal(t, "sk-ant-test", h.Get("X-Api-Key"))
	assert.Empty(t, h.Get("Authorization"))
	assert.Equal(t, "2023-06-01", h.Get("Anthropic-Version"))
	var body struct {
		Model     string
		MaxTokens int `json:"max_tokens"`
		System    string
		Messages  []struct {
			Role    string
			Content []map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(sent, &body))
	assert.Equal(t, "claude-sonnet-4-5", body.Model)
	assert.Equal(t, 4096, body.MaxTokens, "the Messages API requires it")
	assert.Equal(t, "Be brief.", body.System)
	last := body.Messages[len(body.Messages)-1]
	require.Equal(t, "tool_result", last.Content[0]["type"])
	assert.Equal(t, true, last.Content[0]["is_error"], "the failure flag is carried across the hop")
	assert.Contains(t, last.Content[0]["content"], `"code":"TIMEOUT"`)
}

func TestGateway_crossFamilyErrors(t *testing.T) {
	up := newFakeUpstream(t, fail(529, map[string]string{"retry-after": "3"}, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	tg := newTestGateway(t, Config{Routes: map[string]string{"openai-chat": "anthropic"}}, map[string]*fakeUpstream{FamilyAnthropic: up})
	resp := tg.post(t, "/v1/chat/completions", chatWithEnvelope, nil)
	assert.Equal(t, 529, resp.StatusCode)
	assert.Equal(t, "3", resp.Header.Get("Retry-After"))
	e := readJSON(t, resp.Body)["error"].(map[string]any)
	assert.Equal(t, "service_unavailable_error", e["type"], "the OpenAI shape for the OpenAI client")
	assert.Equal(t, "OVERLOADED", e["toolerr"].(map[string]any)["code"])
	tg.settle(t)
	assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.upstreamErrs.WithLabelValues("chat_completions", "OVERLOADED", "false")))

	stream := tg.post(t, "/v1/chat/completions", strings.Replace(chatWithEnvelope, `"model"`, `"stream":true,"model"`, 1), nil)
	assert.Equal(t, 400, stream.StatusCode)
	se := readJSON(t, stream.Body)["error"].(map[string]any)
	assert.Equal(t, "stream", se["param"])
	assert.Contains(t, se["message"], "without streaming")
	assert.Equal(t, 1, up.hits(), "a refused stream never reaches the upstream")
}

// TestGateway_crossFamilyGemini: a Gemini client served by an OpenAI Chat
// upstream: the model moves from the path to the body, the key from
// x-goog-api-key to Authorization, and a Gemini error key becomes the
// envelope in the tool message.
func TestGateway_crossFamilyGemini(t *testing.T) {
	up := newFakeUpstream(t, okJSON(`{"id":"chatcmpl-9","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"It failed."},"finish_reason":"stop"}]}`))
	tg := newTestGateway(t, Config{Routes: map[string]string{"gemini": "openai-chat"}}, map[string]*fakeUpstream{FamilyOpenAI: up})
	body := `{"contents":[{"role":"user","parts":[{"text":"Weather?"}]},{"role":"model","parts":[{"functionCall":{"id":"fc_1","name":"get_weather","args":{}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"id":"fc_1","name":"get_weather","response":{"error":` + strings.ReplaceAll(timeoutEnvelope, `\"`, `"`) + `}}}]}]}`
	resp := tg.post(t, "/v1beta/models/gpt-4o:generateContent?key=sk-openai-test", body, nil)
	require.Equal(t, 200, resp.StatusCode)
	b, _ := io.ReadAll(resp.Body)
	var g struct {
		Candidates []struct {
			Content struct {
				Role  string
				Parts []map[string]any
			}
			FinishReason string
		}
	}
	require.NoError(t, json.Unmarshal(b, &g), "%s", b)
	require.Len(t, g.Candidates, 1)
	assert.Equal(t, "It failed.", g.Candidates[0].Content.Parts[0]["text"])
	assert.Equal(t, "STOP", g.Candidates[0].FinishReason)

	sent, h := up.last()
	assert.Equal(t, "Bearer sk-openai-test", h.Get("Authorization"))
	assert.Equal(t, "/v1/chat/completions", up.paths[0])
	var chat struct {
		Model    string
		Messages []map[string]any
	}
	require.NoError(t, json.Unmarshal(sent, &chat))
	assert.Equal(t, "gpt-4o", chat.Model)
	tool := chat.Messages[len(chat.Messages)-1]
	assert.Equal(t, "tool", tool["role"])
	assert.Contains(t, tool["content"], `"code":"TIMEOUT"`, "the Gemini error key travels as the envelope OpenAI reads")
}

func TestNew_routes(t *testing.T) {
	for _, r := range []map[string]string{{"openai-responses": "anthropic"}, {"anthropic": "anthropic"}, {"bedrock": "openai"}, {"openai": "cohere"}} {
		_, err := New(Config{Routes: r})
		assert.ErrorIs(t, err, ErrConfig, "%v", r)
	}
}

// TestGateway_crossFamilyErrorUnder200: an upstream 200 whose body is an
// error object (any family's) or holds no response of the upstream's
// format is never an empty success: the client gets 502 in its own
// family's error shape, the envelope classified from the upstream's error.
func TestGateway_crossFamilyErrorUnder200(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, family, path, body, code, clientType string
	}{
		{"anthropic error to a Chat client", "openai-chat", "anthropic", FamilyAnthropic, "/v1/chat/completions",
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "OVERLOADED", "service_unavailable_error"},
		{"openai error to an Anthropic client", "anthropic", "openai-chat", FamilyOpenAI, "/v1/messages",
			`{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`, "SERVER_ERROR", "api_error"},
		{"gemini error to a Chat client", "openai-chat", "gemini", FamilyGemini, "/v1/chat/completions",
			`{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`, "OVERLOADED", "service_unavailable_error"},
		{"an empty body to a Chat client", "openai-chat", "anthropic", FamilyAnthropic, "/v1/chat/completions", `{}`, "TRANSPORT", "service_unavailable_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := newFakeUpstream(t, okJSON(tc.body))
			tg := newTestGateway(t, Config{Routes: map[string]string{tc.from: tc.to}}, map[string]*fakeUpstream{tc.family: up})
			body := chatWithEnvelope
			if tc.from == "anthropic" {
				body = lossyAnthropicBody
			}
			resp := tg.post(t, tc.path, body, nil)
			raw, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, 502, resp.StatusCode, "%s", raw)
			var b map[string]any
			require.NoError(t, json.Unmarshal(raw, &b), "%s", raw)
			assert.NotContains(t, b, "choices", "no completion")
			assert.NotContains(t, b, "content", "no message")
			e, _ := b["error"].(map[string]any)
			require.NotNil(t, e, "the client's error shape: %s", raw)
			if tc.from == "anthropic" {
				assert.Equal(t, "error", b["type"])
			}
			env := e["toolerr"].(map[string]any)
			assert.Equal(t, tc.code, env["code"])
			assert.Equal(t, tc.clientType, e["type"], "the client's own error type")
			tg.settle(t)
			assert.Equal(t, 1.0, testutil.ToFloat64(tg.g.metrics.upstreamErrs.WithLabelValues(routeOf(tc.path), env["code"].(string), "false")))
		})
	}
}

func routeOf(path string) string {
	if path == "/v1/messages" {
		return "messages"
	}
	return "chat_completions"
}

// TestGateway_crossFamilyModelIsOneSegment: a body's model routed to Gemini
// is one path segment of the upstream's URL, escaped (RFC 3986 3.3), so a
// "/" or "../" in it never reaches another path of the upstream.
func TestGateway_crossFamilyModelIsOneSegment(t *testing.T) {
	up := newFakeUpstream(t, okJSON(`{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP","index":0}]}`))
	tg := newTestGateway(t, Config{Routes: map[string]string{"openai-chat": "gemini"}}, map[string]*fakeUpstream{FamilyGemini: up})
	for _, c := range []struct{ model, path string }{
		{"gemini-2.5-flash", "/v1beta/models/gemini-2.5-flash:generateContent"},
		{"../../v1/files/f1", "/v1beta/models/..%2F..%2Fv1%2Ffiles%2Ff1:generateContent"},
		{"a b?c#d", "/v1beta/models/a%20b%3Fc%23d:generateContent"},
	} {
		resp := tg.post(t, "/v1/chat/completions", `{"model":`+strconv.Quote(c.model)+`,"messages":[{"role":"user","content":"Hi."}]}`, map[string]string{"x-goog-api-key": "k"})
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode, c.model)
		assert.Equal(t, c.path, up.paths[len(up.paths)-1], c.model)
	}
}

// TestGateway_crossFamilyResponsePastTheBound: an upstream success longer
// than core.MaxRequestBytes is refused whole with the gateway's own 502,
// not cut at the bound: here the cut would be a whole Anthropic message
// followed by spaces, which converts, and the bytes past it are dropped.
func TestGateway_crossFamilyResponsePastTheBound(t *testing.T) {
	msg := `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	for _, tc := range []struct {
		name   string
		tail   string
		status int
	}{
		{"at the bound", "", 200},
		{"one value past the bound", "{}", 502},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := msg + strings.Repeat(" ", core.MaxRequestBytes-len(msg)) + tc.tail
			up := newFakeUpstream(t, okJSON(body))
			tg := newTestGateway(t, Config{Routes: map[string]string{"openai": "claude"}}, map[string]*fakeUpstream{FamilyAnthropic: up})
			resp := tg.post(t, "/v1/chat/completions", chatWithEnvelope, nil)
			raw, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tc.status, resp.StatusCode, "%.300s", raw)
			var b map[string]any
			require.NoError(t, json.Unmarshal(raw, &b), "%.300s", raw)
			if tc.status == 200 {
				assert.Contains(t, b, "choices")
				return
			}
			assert.NotContains(t, b, "choices", "no completion from a cut body")
			assert.Contains(t, b, "error")
		})
	}
}
