package sdktest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

func openaiClient(h hop, opts ...ooption.RequestOption) *openai.Client {
	c := openai.NewClient(append([]ooption.RequestOption{
		ooption.WithAPIKey("sk-test"), ooption.WithBaseURL(h.base(fake.OpenAI) + "/v1"),
		ooption.WithHTTPClient(h.client), ooption.WithMaxRetries(1),
	}, opts...)...)
	return &c
}

// lossyChat is a Chat Completions list with two parallel calls and the
// result of the second missing, as an openai-go caller builds it.
func lossyChat() openai.ChatCompletionNewParams {
	call := func(id, city string) openai.ChatCompletionMessageToolCallUnionParam {
		return openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID: id, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "get_weather", Arguments: `{"city":"` + city + `"}`},
		}}
	}
	return openai.ChatCompletionNewParams{
		Model: "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.UserMessage("Weather in Paris and Rome?"),
			{OfAssistant: &openai.ChatCompletionAssistantMessageParam{ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{
				call("call_A", "Paris"), call("call_B", "Rome"),
			}}},
			openai.ToolMessage(timeoutEnvelope, "call_A"),
		},
	}
}

// TestOpenAI_requestAnswersEveryCall: the strict fake takes the list
// (without toolerr it answers OpenAI's 400 "An assistant message with
// 'tool_calls' must be followed by tool messages responding to each
// 'tool_call_id'") and receives the missing result as a NO_RESULT envelope
// in a tool message, the envelope given stays as it was.
func TestOpenAI_requestAnswersEveryCall(t *testing.T) {
	fakes.Reset()
	direct := openai.NewClient(ooption.WithAPIKey("sk-test"), ooption.WithBaseURL(fakes.URL(fake.OpenAI)+"/v1"), ooption.WithMaxRetries(0))
	_, err := direct.Chat.Completions.New(context.Background(), lossyChat())
	var oerr *openai.Error
	require.ErrorAs(t, err, &oerr, "the control: the fake rejects the list as sent")
	assert.Equal(t, 400, oerr.StatusCode)
	assert.Contains(t, oerr.Message, "must be followed by tool messages responding to each 'tool_call_id'")

	for _, h := range hops(t) {
		t.Run(h.name, func(t *testing.T) {
			fakes.Reset()
			c, err := openaiClient(h).Chat.Completions.New(context.Background(), lossyChat())
			require.NoError(t, err)
			assert.Equal(t, "ok", c.Choices[0].Message.Content)
			hs := hits(fake.OpenAI)
			require.Equal(t, 1, len(hs), "upstream hits")
			assert.Nil(t, hs[0].Rejection)
			msgs := decodeBody(t, hs[0].Body)["messages"].([]any)
			require.Len(t, msgs, 4)
			a, b := msgs[2].(map[string]any), msgs[3].(map[string]any)
			assert.Equal(t, "call_A", a["tool_call_id"])
			assert.Equal(t, timeoutEnvelope, a["content"], "an envelope in a tool message is the failure: no flag to add")
			assert.Equal(t, "tool", b["role"])
			assert.Equal(t, "call_B", b["tool_call_id"])
			env := envelopeOf(t, b["content"].(string))
			assert.Equal(t, "NO_RESULT", env["code"])
			assert.Equal(t, []any{"code", "details", "message", "retryable", "source"}, keys(env), "the five fields")
		})
	}
}

// TestOpenAI_upstreamErrors: openai-go raises its own *openai.Error with
// the status and the native error members, the envelope under
// error.toolerr (ExtraFields of the error object, which is what openai-go
// keeps), and retries by its own rule, x-should-retry first: a 429 with
// retry-after once more after the wait, a 500 once more, a 400 never, and a
// billing 429 (insufficient_quota), which its status alone would retry,
// never, because x-should-retry is false.
func TestOpenAI_upstreamErrors(t *testing.T) {
	cases := []errorCase{
		{name: "429 retry-after", reply: jsonReply(429, map[string]string{"retry-after": "1", "x-request-id": "req_429"},
			`{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`),
			status: 429, code: "RATE_LIMITED", hits: 2, retryAfter: "1", minElapsed: time.Second},
		{name: "429 insufficient_quota", reply: jsonReply(429, nil,
			`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`),
			status: 429, code: "QUOTA_EXHAUSTED", hits: 1},
		{name: "400", reply: jsonReply(400, nil,
			`{"error":{"message":"Invalid 'messages[0].content': string too long.","type":"invalid_request_error","param":"messages[0].content","code":"string_above_max_length"}}`),
			status: 400, code: "INVALID_REQUEST", hits: 1},
		{name: "500", reply: jsonReply(500, nil, `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`),
			status: 500, code: "SERVER_ERROR", hits: 2},
		{name: "503 overloaded", reply: jsonReply(503, nil, `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`),
			status: 503, code: "OVERLOADED", hits: 2}, // classify reads an OpenAI server_error that says overloaded as OVERLOADED
	}
	upstreamErrors(t, fake.OpenAI, cases, "x-request-id", func(h hop) error {
		_, err := openaiClient(h).Chat.Completions.New(context.Background(), lossyChat())
		return err
	}, func(t *testing.T, err error) sdkError {
		var oerr *openai.Error
		require.ErrorAs(t, err, &oerr)
		require.Contains(t, oerr.JSON.ExtraFields, "toolerr")
		return sdkError{status: oerr.StatusCode, typ: oerr.Type, code: oerr.Code, envelope: oerr.JSON.ExtraFields["toolerr"].Raw(),
			header: oerr.Response.Header, requestID: oerr.Response.Header.Get("x-request-id"), raw: oerr.RawJSON()}
	})
}

// TestOpenAI_streamErrorChunk: a data-only error chunk in a Chat
// Completions stream reaches openai-go as its *ssestream.StreamError, the
// data the native error object with the envelope inside; in-process,
// Transport reports it too.
func TestOpenAI_streamErrorChunk(t *testing.T) {
	for _, h := range hops(t) {
		t.Run(h.name, func(t *testing.T) {
			fakes.Reset()
			fakes.Upstream(fake.OpenAI).Script(fake.Reply{Status: 200, Headers: map[string]string{"Content-Type": "text/event-stream"}, Body: []byte(
				"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Par\"},\"finish_reason\":null}]}\n\n" +
					"data: {\"error\":{\"message\":\"The server had an error while processing your request. Sorry about that!\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n")})
			stream := openaiClient(h).Chat.Completions.NewStreaming(context.Background(), lossyChat())
			var texts []string
			for stream.Next() {
				texts = append(texts, stream.Current().Choices[0].Delta.Content)
			}
			assert.Equal(t, []string{"Par"}, texts, "the chunks before the error pass")
			var serr *ssestream.StreamError
			require.ErrorAs(t, stream.Err(), &serr)
			env := member(t, string(serr.Event.Data), "error", "toolerr")
			assert.Equal(t, "SERVER_ERROR", env["code"])
			assert.Equal(t, true, env["details"].(map[string]any)["partial_output"])
			assert.Equal(t, 1, len(hits(fake.OpenAI)))
			if h.streamErrors != nil {
				assert.Equal(t, []core.Code{"SERVER_ERROR"}, h.streamErrors.codes())
			}
		})
	}
}

// TestOpenAI_responsesError: the Responses API goes through the same ops
// (its own route and error shape).
func TestOpenAI_responsesError(t *testing.T) {
	for _, h := range hops(t) {
		t.Run(h.name, func(t *testing.T) {
			fakes.Reset()
			fakes.Upstream(fake.OpenAI).Script(jsonReply(400, nil,
				`{"error":{"message":"No tool output found for function call call_B.","type":"invalid_request_error","param":"input","code":null}}`))
			var resp *http.Response
			_, err := openaiClient(h, ooption.WithResponseInto(&resp)).Responses.New(context.Background(), responsesParams())
			var oerr *openai.Error
			require.ErrorAs(t, err, &oerr)
			assert.Equal(t, 400, oerr.StatusCode)
			assert.Equal(t, "invalid_request_error", oerr.Type)
			assert.Equal(t, "INVALID_REQUEST", envelopeOf(t, oerr.JSON.ExtraFields["toolerr"].Raw())["code"])
			assert.Equal(t, "false", oerr.Response.Header.Get("x-should-retry"))
			hs := hits(fake.OpenAI)
			require.Equal(t, 1, len(hs))
			assert.Equal(t, "/v1/responses", hs[0].Path)
		})
	}
}

func responsesParams() responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: "gpt-4o", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Paris?")}}
}
