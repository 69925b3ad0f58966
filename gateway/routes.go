package gateway

import (
	"net/http"
	"strings"

	"github.com/toolerr/toolerr/core"
)

// route is one API the gateway serves: Name labels its metrics and logs,
// Format is the wire format of its request bodies and of the errors its
// clients parse, Family the upstream it goes to.
type route struct {
	Name   string
	Format core.Format
	Family string
}

// The routes. Each is the path an official SDK calls with its base URL set
// to the gateway.
//
// See https://platform.openai.com/docs/api-reference/chat/create,
// https://platform.openai.com/docs/api-reference/responses/create,
// https://docs.claude.com/en/api/messages,
// https://docs.claude.com/en/api/messages-count-tokens and
// https://ai.google.dev/api/generate-content.
var (
	routeChat           = route{"chat_completions", core.FormatOpenAIChat, FamilyOpenAI}
	routeResponses      = route{"responses", core.FormatOpenAIResponses, FamilyOpenAI}
	routeMessages       = route{"messages", core.FormatAnthropic, FamilyAnthropic}
	routeCountTokens    = route{"count_tokens", core.FormatAnthropic, FamilyAnthropic}
	routeGenerate       = route{"generate_content", core.FormatGemini, FamilyGemini}
	routeStreamGenerate = route{"stream_generate_content", core.FormatGemini, FamilyGemini}
)

// match returns the route of a request and, for Gemini, the model named in
// its path ("models/gemini-2.5-flash:generateContent"); ok is false for a
// method or path the gateway does not serve.
func match(r *http.Request) (rt route, model string, ok bool) {
	if r.Method != http.MethodPost {
		return route{}, "", false
	}
	switch p := r.URL.Path; p {
	case "/v1/chat/completions":
		return routeChat, "", true
	case "/v1/responses":
		return routeResponses, "", true
	case "/v1/messages":
		return routeMessages, "", true
	case "/v1/messages/count_tokens":
		return routeCountTokens, "", true
	default:
		for _, prefix := range [...]string{"/v1beta/models/", "/v1/models/"} {
			rest, found := strings.CutPrefix(p, prefix)
			if !found {
				continue
			}
			model, method, found := strings.Cut(rest, ":")
			if !found || model == "" || strings.Contains(model, "/") {
				return route{}, "", false
			}
			switch method {
			case "generateContent":
				return routeGenerate, model, true
			case "streamGenerateContent":
				return routeStreamGenerate, model, true
			}
		}
	}
	return route{}, "", false
}

// familyOf is the upstream family serving a format's API, "" for a format
// the gateway routes nowhere (responses across families, bedrock, mcp).
func familyOf(f core.Format) string {
	switch f {
	case core.FormatOpenAIChat:
		return FamilyOpenAI
	case core.FormatAnthropic:
		return FamilyAnthropic
	case core.FormatGemini:
		return FamilyGemini
	}
	return ""
}

// upstreamPath is the path of the API of format f for model (Gemini takes
// the model in the path).
func upstreamPath(f core.Format, model string) string {
	switch f {
	case core.FormatAnthropic:
		return "/v1/messages"
	case core.FormatGemini:
		return "/v1beta/models/" + model + ":generateContent"
	}
	return "/v1/chat/completions"
}
