package gateway

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/egress"
)

// route is one API the gateway serves: Name labels its metrics and logs
// (the API's name, egress.API*), Format is the wire format of its request
// bodies and of the errors its clients parse, Family the upstream it goes
// to.
type route struct {
	Name   string
	Format core.Format
	Family string
}

// The routes, one per API egress.EndpointOf knows. Each is the path an
// official SDK calls with its base URL set to the gateway.
var (
	routeChat           = route{egress.APIChatCompletions, core.FormatOpenAIChat, FamilyOpenAI}
	routeResponses      = route{egress.APIResponses, core.FormatOpenAIResponses, FamilyOpenAI}
	routeMessages       = route{egress.APIMessages, core.FormatAnthropic, FamilyAnthropic}
	routeCountTokens    = route{egress.APICountTokens, core.FormatAnthropic, FamilyAnthropic}
	routeGenerate       = route{egress.APIGenerateContent, core.FormatGemini, FamilyGemini}
	routeStreamGenerate = route{egress.APIStreamGenerateContent, core.FormatGemini, FamilyGemini}
)

// match returns the route of a request and, for Gemini, the model named in
// its path ("models/gemini-2.5-flash:generateContent"); ok is false for a
// method or path the gateway does not serve. The endpoint is recognised as
// the in-process transports recognise it (egress.EndpointOf), and the path
// must be the provider's own, as the official SDKs call it with their base
// URL set to the gateway: /v1/chat/completions, /v1/responses,
// /v1/messages, /v1/messages/count_tokens, /v1beta/models/{model}:... or
// /v1/models/{model}:... (the gateway forwards it as it came).
func match(r *http.Request) (rt route, model string, ok bool) {
	p := r.URL.Path
	ep, ok := egress.EndpointOf(r.Method, r.URL.EscapedPath())
	if !ok {
		return route{}, "", false
	}
	for _, rt := range [...]route{routeChat, routeResponses, routeMessages, routeCountTokens, routeGenerate, routeStreamGenerate} {
		if rt.Name != ep.API {
			continue
		}
		if rt.Format == core.FormatGemini {
			ok = (strings.HasPrefix(p, "/v1beta/models/") || strings.HasPrefix(p, "/v1/models/")) && strings.Count(p, "/") == 3
		} else {
			ok = p == routePaths[rt.Name]
		}
		if !ok {
			return route{}, "", false
		}
		return rt, ep.Model, true
	}
	return route{}, "", false
}

// routePaths are the paths of the routes other than Gemini's, whose path
// holds the model.
var routePaths = map[string]string{
	egress.APIChatCompletions: "/v1/chat/completions",
	egress.APIResponses:       "/v1/responses",
	egress.APIMessages:        "/v1/messages",
	egress.APICountTokens:     "/v1/messages/count_tokens",
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
// the model in the path), escaped as it is sent: the model is one path
// segment (url.PathEscape, RFC 3986 3.3), so a "/" or "../" in a body's
// model never reaches another path of the upstream.
func upstreamPath(f core.Format, model string) string {
	switch f {
	case core.FormatAnthropic:
		return "/v1/messages"
	case core.FormatGemini:
		return "/v1beta/models/" + url.PathEscape(model) + ":generateContent"
	}
	return "/v1/chat/completions"
}
