package sdktest

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

const geminiModel = "gemini-2.5-flash"

func genaiClient(t *testing.T, h hop, retry *genai.HTTPRetryOptions) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test-key", Backend: genai.BackendGeminiAPI, HTTPClient: h.client,
		HTTPOptions: genai.HTTPOptions{BaseURL: h.base(fake.Gemini), RetryOptions: retry},
	})
	require.NoError(t, err)
	return c
}

// failedContents is a turn whose functionResponse carries the envelope
// under response.output, where a caller that writes the tool's output
// puts it: Gemini reads a failure under response.error.
func failedContents() []*genai.Content {
	return []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "Weather in Paris?"}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "get_weather", Args: map[string]any{"city": "Paris"}}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "get_weather", Response: map[string]any{"output": timeoutEnvelope}}}}},
	}
}

// TestGenai_requestCarriesErrorKey: the functionResponse reaches the
// upstream with the envelope under response.error, the key Gemini reads as
// a failure (https://ai.google.dev/api/caching#FunctionResponse).
func TestGenai_requestCarriesErrorKey(t *testing.T) {
	for _, h := range hops(t) {
		t.Run(h.name, func(t *testing.T) {
			fakes.Reset()
			resp, err := genaiClient(t, h, nil).Models.GenerateContent(context.Background(), geminiModel, failedContents(), nil)
			require.NoError(t, err)
			assert.Equal(t, "ok", resp.Text())
			hs := hits(fake.Gemini)
			require.Equal(t, 1, len(hs), "upstream hits")
			assert.Equal(t, "/v1beta/models/"+geminiModel+":generateContent", hs[0].Path)
			contents := decodeBody(t, hs[0].Body)["contents"].([]any)
			fr := contents[2].(map[string]any)["parts"].([]any)[0].(map[string]any)["functionResponse"].(map[string]any)
			assert.Equal(t, "get_weather", fr["name"])
			env, ok := fr["response"].(map[string]any)["error"].(map[string]any)
			require.True(t, ok, "response.error: %v", fr["response"])
			assert.Equal(t, "TIMEOUT", env["code"])
			assert.Equal(t, []any{"code", "details", "message", "retryable", "source"}, keys(env), "the five fields")
		})
	}
}

// TestGenai_upstreamErrors: go-genai returns its own genai.APIError with
// the status code and the google.rpc.Status members (RetryInfo kept in
// Details). It retries only with HTTPOptions.RetryOptions set, and then by
// status alone (408, 429, 5xx), without reading x-should-retry or
// retry-after: with Attempts 2 a 429 is sent twice even where toolerr says
// x-should-retry: false.
func TestGenai_upstreamErrors(t *testing.T) {
	two := int32(2)
	delay := 0.01
	retry := &genai.HTTPRetryOptions{Attempts: &two, InitialDelay: &delay, MaxDelay: &delay}
	for _, tc := range []struct {
		name        string
		reply       fake.Reply
		retry       *genai.HTTPRetryOptions
		status      string
		shouldRetry string
		hits        int
	}{
		{"429 RetryInfo", jsonReply(429, nil, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}`),
			nil, "RESOURCE_EXHAUSTED", "true", 1},
		{"400", jsonReply(400, nil, `{"error":{"code":400,"message":"* GenerateContentRequest.contents[2].parts[0].function_response.name: Name cannot be empty.\n","status":"INVALID_ARGUMENT"}}`),
			nil, "INVALID_ARGUMENT", "false", 1},
		{"500", jsonReply(500, nil, `{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}`),
			nil, "INTERNAL", "true", 1},
		{"500 with RetryOptions", jsonReply(500, nil, `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`),
			retry, "INTERNAL", "true", 2},
		{"429 daily quota with RetryOptions", jsonReply(429, nil, `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}`),
			retry, "RESOURCE_EXHAUSTED", "false", 2},
		{"400 with RetryOptions", jsonReply(400, nil, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`),
			retry, "INVALID_ARGUMENT", "false", 1},
	} {
		for _, h := range hops(t) {
			t.Run(h.name+"/"+tc.name, func(t *testing.T) {
				fakes.Reset()
				fakes.Upstream(fake.Gemini).Script(tc.reply)
				_, err := genaiClient(t, h, tc.retry).Models.GenerateContent(context.Background(), geminiModel, failedContents(), nil)
				var aerr genai.APIError
				require.ErrorAs(t, err, &aerr)
				assert.Equal(t, tc.reply.Status, aerr.Code)
				assert.Equal(t, tc.status, aerr.Status)
				assert.Equal(t, tc.hits, len(hits(fake.Gemini)), "upstream hits, the SDK's retries counted")
				// go-genai keeps no header and drops error.toolerr (APIError
				// has four members): both are read at the HTTP client.
				seen := h.seen.last(t)
				assert.Equal(t, tc.shouldRetry, seen.Header.Get("x-should-retry"))
				assert.NotEmpty(t, envelopeOf(t, seen.Header.Get(core.EnvelopeHeader))["code"])
				if tc.name == "429 RetryInfo" {
					assert.Equal(t, "2", seen.Header.Get("retry-after"), "RetryInfo's delay as retry-after")
					require.Len(t, aerr.Details, 1)
					assert.Equal(t, "2s", aerr.Details[0]["retryDelay"], "RetryInfo kept")
				}
			})
		}
	}
}

// TestGenai_streamErrorChunk: an error chunk inside a streamGenerateContent
// stream (?alt=sse, events ending in CRLF as the Gemini API sends them)
// reaches go-genai as a genai.APIError from its iterator, the chunks
// before it as text; go-genai ends the iteration at the first error. The
// rewritten event keeps the stream's CRLF: go-genai's event splitter looks
// for "\n\n" before "\r\n\r\n", and an LF event after CRLF ones had it
// read two events as one and fail on the JSON. In-process, Transport
// reports the event too.
func TestGenai_streamErrorChunk(t *testing.T) {
	chunk := func(text string) string {
		return `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"` + text + `"}]},"index":0}],"modelVersion":"gemini-2.5-flash"}` + "\r\n\r\n"
	}
	for _, h := range hops(t) {
		t.Run(h.name, func(t *testing.T) {
			fakes.Reset()
			fakes.Upstream(fake.Gemini).Script(fake.Reply{Status: 200, Headers: map[string]string{"Content-Type": "text/event-stream"}, Body: []byte(
				chunk("Par") + `data: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}` + "\r\n\r\n" + chunk("is"))})
			var texts []string
			var errs []genai.APIError
			for resp, err := range genaiClient(t, h, nil).Models.GenerateContentStream(context.Background(), geminiModel, failedContents(), nil) {
				var aerr genai.APIError
				if errors.As(err, &aerr) {
					errs = append(errs, aerr)
					continue
				}
				require.NoError(t, err)
				texts = append(texts, resp.Text())
			}
			assert.Equal(t, []string{"Par"}, texts, "the chunk before the error")
			require.Len(t, errs, 1)
			assert.Equal(t, 503, errs[0].Code)
			assert.Equal(t, "UNAVAILABLE", errs[0].Status)
			hs := hits(fake.Gemini)
			require.Equal(t, 1, len(hs))
			assert.Equal(t, "/v1beta/models/"+geminiModel+":streamGenerateContent", hs[0].Path)
			assert.Equal(t, "alt=sse", hs[0].RawQuery)
			if h.streamErrors != nil {
				assert.Equal(t, []core.Code{"OVERLOADED"}, h.streamErrors.codes())
			}
		})
	}
}
