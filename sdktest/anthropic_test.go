package sdktest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

func anthropicClient(h hop, opts ...aoption.RequestOption) *anthropic.Client {
	c := anthropic.NewClient(append([]aoption.RequestOption{
		aoption.WithAPIKey("sk-ant-test"), aoption.WithBaseURL(h.base(fake.Anthropic)),
		aoption.WithHTTPClient(h.client), aoption.WithMaxRetries(1),
	}, opts...)...)
	return &c
}

// lossyMessages is the list of issue 10 as an anthropic-sdk-go caller
// builds it: two parallel tool_use blocks, one tool_result whose content is
// the envelope but which has no is_error, the other result missing.
func lossyMessages() []anthropic.MessageParam {
	return []anthropic.MessageParam{
		anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris and Rome?")),
		anthropic.NewAssistantMessage(
			anthropic.NewToolUseBlock("toolu_A", map[string]any{"city": "Paris"}, "get_weather"),
			anthropic.NewToolUseBlock("toolu_B", map[string]any{"city": "Rome"}, "get_weather"),
		),
		anthropic.NewUserMessage(anthropic.ContentBlockParamUnion{OfToolResult: &anthropic.ToolResultBlockParam{
			ToolUseID: "toolu_A",
			Content:   []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: timeoutEnvelope}}},
		}}),
	}
}

func messageParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: anthropic.Model("claude-sonnet-4-5"), MaxTokens: 64, Messages: lossyMessages()}
}

// TestAnthropic_requestCarriesIsError: through either hop the strict fake
// takes the lossy list (without toolerr it answers Anthropic's 400
// "tool_use ids were found without tool_result blocks") and receives the
// envelope with is_error: true, the missing result a NO_RESULT failure.
func TestAnthropic_requestCarriesIsError(t *testing.T) {
	fakes.Reset()
	direct := anthropic.NewClient(aoption.WithAPIKey("sk-ant-test"), aoption.WithBaseURL(fakes.URL(fake.Anthropic)), aoption.WithMaxRetries(0))
	_, err := direct.Messages.New(context.Background(), messageParams())
	var aerr *anthropic.Error
	require.ErrorAs(t, err, &aerr, "the control: the fake rejects the list as sent")
	assert.Equal(t, 400, aerr.StatusCode)
	assert.Contains(t, aerr.RawJSON(), "tool_use` ids were found without `tool_result` blocks")

	for _, h := range hops(t) {
		t.Run(h.name, func(t *testing.T) {
			fakes.Reset()
			msg, err := anthropicClient(h).Messages.New(context.Background(), messageParams())
			require.NoError(t, err)
			assert.Equal(t, "ok", msg.Content[0].Text)
			hs := hits(fake.Anthropic)
			require.Equal(t, 1, len(hs), "upstream hits")
			assert.Nil(t, hs[0].Rejection)
			body := decodeBody(t, hs[0].Body)
			results := body["messages"].([]any)[2].(map[string]any)["content"].([]any)
			require.Len(t, results, 2)
			a, b := results[0].(map[string]any), results[1].(map[string]any)
			assert.Equal(t, "toolu_A", a["tool_use_id"])
			assert.Equal(t, true, a["is_error"], "the flag the envelope travelled without")
			assert.Equal(t, "TIMEOUT", envelopeOf(t, resultText(t, a["content"]))["code"])
			assert.Equal(t, "toolu_B", b["tool_use_id"])
			assert.Equal(t, true, b["is_error"])
			env := envelopeOf(t, resultText(t, b["content"]))
			assert.Equal(t, "NO_RESULT", env["code"])
			assert.Equal(t, []any{"code", "details", "message", "retryable", "source"}, keys(env), "the five fields")
		})
	}
}

// resultText is the text of a tool_result's content: a string, or the one
// text block of a list.
func resultText(t *testing.T, content any) string {
	t.Helper()
	switch c := content.(type) {
	case string:
		return c
	case []any:
		require.Len(t, c, 1)
		return c[0].(map[string]any)["text"].(string)
	}
	t.Fatalf("tool_result content %#v", content)
	return ""
}

// TestAnthropic_upstreamErrors: anthropic-sdk-go raises its own
// *anthropic.Error with the upstream's status and error type, the envelope
// under error.toolerr of its RawJSON, and retries by its own rule, which
// x-should-retry decides (it is read before the status): 429 and 529 and
// 500 once more (MaxRetries 1), 400 never. The 429's retry-after is what
// the SDK waits.
func TestAnthropic_upstreamErrors(t *testing.T) {
	cases := []errorCase{
		{name: "429 retry-after", reply: jsonReply(429, map[string]string{"retry-after": "1", "request-id": "req_429"},
			`{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`),
			status: 429, code: "RATE_LIMITED", hits: 2, retryAfter: "1", minElapsed: time.Second},
		{name: "529 overloaded", reply: jsonReply(529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			status: 529, code: "OVERLOADED", hits: 2},
		{name: "400", reply: jsonReply(400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Input should be less than or equal to 64000"}}`),
			status: 400, code: "INVALID_REQUEST", hits: 1},
		{name: "500", reply: jsonReply(500, nil, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`),
			status: 500, code: "SERVER_ERROR", hits: 2},
	}
	upstreamErrors(t, fake.Anthropic, cases, "request-id", func(h hop) error {
		_, err := anthropicClient(h).Messages.New(context.Background(), messageParams())
		return err
	}, func(t *testing.T, err error) sdkError {
		var aerr *anthropic.Error
		require.ErrorAs(t, err, &aerr)
		env, _ := json.Marshal(member(t, aerr.RawJSON(), "error", "toolerr"))
		return sdkError{status: aerr.StatusCode, typ: string(aerr.Type()), envelope: string(env), header: aerr.Response.Header,
			requestID: aerr.RequestID, raw: aerr.RawJSON()}
	})
}

// TestAnthropic_streamErrorEvent: an error event in the middle of a stream
// reaches the SDK as its *anthropic.Error, the envelope inside with
// partial_output; in-process, Transport reports it too.
func TestAnthropic_streamErrorEvent(t *testing.T) {
	for _, h := range hops(t) {
		t.Run(h.name, func(t *testing.T) {
			fakes.Reset()
			fakes.Upstream(fake.Anthropic).Script(fake.Reply{Status: 200, Headers: map[string]string{"Content-Type": "text/event-stream"}, Body: []byte(
				"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
					"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
					"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Par\"}}\n\n" +
					"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")})
			stream := anthropicClient(h).Messages.NewStreaming(context.Background(), messageParams())
			var texts []string
			for stream.Next() {
				if d, ok := stream.Current().AsAny().(anthropic.ContentBlockDeltaEvent); ok {
					texts = append(texts, d.Delta.Text)
				}
			}
			assert.Equal(t, []string{"Par"}, texts, "the events before the error pass")
			var aerr *anthropic.Error
			require.ErrorAs(t, stream.Err(), &aerr)
			assert.Equal(t, anthropic.ErrorTypeOverloadedError, aerr.Type())
			env := member(t, aerr.RawJSON(), "error", "toolerr")
			assert.Equal(t, "OVERLOADED", env["code"])
			assert.Equal(t, true, env["details"].(map[string]any)["partial_output"])
			assert.Equal(t, 1, len(hits(fake.Anthropic)))
			if h.streamErrors != nil {
				assert.Equal(t, []core.Code{"OVERLOADED"}, h.streamErrors.codes())
			}
		})
	}
}
