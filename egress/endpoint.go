package egress

import "github.com/toolerr/toolerr/core"

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
// them: the core's (core.APIChatCompletions, ...).
const (
	APIChatCompletions       = core.APIChatCompletions       // POST .../chat/completions
	APIResponses             = core.APIResponses             // POST .../responses
	APIMessages              = core.APIMessages              // POST .../v1/messages
	APICountTokens           = core.APICountTokens           // POST .../v1/messages/count_tokens
	APIGenerateContent       = core.APIGenerateContent       // POST .../models/{model}:generateContent
	APIStreamGenerateContent = core.APIStreamGenerateContent // POST .../models/{model}:streamGenerateContent
)

// EndpointOf returns the endpoint a request of method to path calls, as
// the core decides it (core.EndpointOf, the egress_endpoint op every
// binding's transport calls); ok is false for any other (a GET,
// embeddings, files, a Bedrock Converse request, whose body the AWS SDK
// signs before its HTTP client sees it).
//
// path is the URL path percent-encoded, as url.URL.EscapedPath gives it;
// it is matched by its end, so a base URL with a prefix is the provider's
// own ("/openai/deployments/d/chat/completions" of Azure OpenAI is Chat
// Completions, "/v1/threads/t/messages" of the Assistants API is not
// Anthropic's), and a Gemini path's model is decoded from it.
func EndpointOf(method, path string) (ep Endpoint, ok bool) {
	e, ok := core.EndpointOf(method, path)
	return Endpoint{API: e.API, Format: e.Format, Model: e.Model}, ok
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
