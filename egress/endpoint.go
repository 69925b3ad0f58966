package egress

import (
	"net/http"
	"strings"

	"github.com/toolerr/toolerr/core"
)

// Endpoint is the provider API a request calls, known from its method and
// URL path.
//
// API names it (one of the API constants), Format is the wire format of its
// request bodies and of the error responses its clients parse, and Model
// the model named in the path (Gemini's generateContent; "" for the others,
// whose bodies name it).
type Endpoint struct {
	API    string
	Format core.Format
	Model  string
}

// The APIs EndpointOf knows, named as the gateway's routes and metrics name
// them.
//
// See https://platform.openai.com/docs/api-reference/chat/create,
// https://platform.openai.com/docs/api-reference/responses/create,
// https://docs.claude.com/en/api/messages,
// https://docs.claude.com/en/api/messages-count-tokens and
// https://ai.google.dev/api/generate-content.
const (
	APIChatCompletions       = "chat_completions"        // POST .../chat/completions
	APIResponses             = "responses"               // POST .../responses
	APIMessages              = "messages"                // POST .../v1/messages
	APICountTokens           = "count_tokens"            // POST .../v1/messages/count_tokens
	APIGenerateContent       = "generate_content"        // POST .../models/{model}:generateContent
	APIStreamGenerateContent = "stream_generate_content" // POST .../models/{model}:streamGenerateContent
)

// EndpointOf returns the endpoint a request of method to path calls; ok is
// false for any other (a GET, embeddings, files, a Bedrock Converse
// request, whose body the AWS SDK signs before its HTTP client sees it).
//
// The path is matched by its end, so a base URL with a prefix is
// recognised as the provider's own: "/v1/chat/completions",
// "/openai/deployments/d/chat/completions" (Azure OpenAI) and
// "/v1beta/openai/chat/completions" (Gemini's OpenAI-compatible endpoint)
// are all Chat Completions; "/v1/messages" ends Anthropic's paths (so
// "/v1/threads/t/messages" of the Assistants API is not one);
// ".../models/{model}:generateContent" is Gemini's, on the Gemini API
// ("/v1beta/models/...") and on Vertex AI ("/v1/projects/p/locations/l/publishers/google/models/...")
// alike. A model with a "/" in it is no model ("models/a/b:generateContent").
func EndpointOf(method, path string) (ep Endpoint, ok bool) {
	if method != http.MethodPost {
		return Endpoint{}, false
	}
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return Endpoint{API: APIChatCompletions, Format: core.FormatOpenAIChat}, true
	case strings.HasSuffix(path, "/responses"):
		return Endpoint{API: APIResponses, Format: core.FormatOpenAIResponses}, true
	case strings.HasSuffix(path, "/v1/messages"):
		return Endpoint{API: APIMessages, Format: core.FormatAnthropic}, true
	case strings.HasSuffix(path, "/v1/messages/count_tokens"):
		return Endpoint{API: APICountTokens, Format: core.FormatAnthropic}, true
	}
	i := strings.LastIndexByte(path, '/')
	if i < 0 || !strings.HasSuffix(path[:i], "/models") {
		return Endpoint{}, false
	}
	model, call, found := strings.Cut(path[i+1:], ":")
	if !found || model == "" {
		return Endpoint{}, false
	}
	switch call {
	case "generateContent":
		return Endpoint{API: APIGenerateContent, Format: core.FormatGemini, Model: model}, true
	case "streamGenerateContent":
		return Endpoint{API: APIStreamGenerateContent, Format: core.FormatGemini, Model: model}, true
	}
	return Endpoint{}, false
}

// Prepare runs the egress_request op (core.PrepareRequest) on body, a
// request body of the endpoint, with the model of its path: the body to
// send is the result's Body (the very bytes given when nothing changed).
// An error (a body that is not JSON, not of the format's shape, past the
// core's bounds) means the body goes as it came: the upstream answers it
// in its own words.
func (ep Endpoint) Prepare(body []byte) (core.PreparedRequest, error) {
	return core.PrepareRequest(ep.Format, body, core.TranscriptOptions{Model: ep.Model})
}
