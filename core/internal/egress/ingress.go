package egress

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/anthropic"
	"github.com/toolerr/toolerr/core/internal/format/bedrock"
	"github.com/toolerr/toolerr/core/internal/format/gemini"
	"github.com/toolerr/toolerr/core/internal/format/geminiopenai"
	"github.com/toolerr/toolerr/core/internal/format/openaichat"
	"github.com/toolerr/toolerr/core/internal/format/openairesponses"
)

// Shape is the error shape a client family's SDKs parse.
type Shape int

// The error shapes.
const (
	// ShapeOpenAI is {"error": {"message", "type", "param", "code"}}: Chat
	// Completions, Responses and Gemini's OpenAI-compatible endpoint. See
	// the OpenAI OpenAPI ErrorResponse and Error schemas.
	ShapeOpenAI Shape = iota + 1
	// ShapeAnthropic is {"type": "error", "error": {"type", "message"},
	// "request_id"}. See https://docs.claude.com/en/api/errors.
	ShapeAnthropic
	// ShapeGoogle is {"error": {"code", "message", "status", "details"}}
	// (google.rpc.Status in JSON). See https://google.aip.dev/193.
	ShapeGoogle
	// ShapeAWS is a rest-json error: the x-amzn-ErrorType header names the
	// exception, the body is {"message"}. See botocore parsers.py
	// RestJSONParser and the bedrock-runtime 2023-09-30 service model.
	ShapeAWS
)

// String returns the shape's vendor name ("openai", "anthropic", "gemini",
// "bedrock"), the name classify gives bodies of that shape in
// details.provider; "unknown shape: N" for any other value.
func (s Shape) String() string {
	switch s {
	case ShapeOpenAI:
		return "openai"
	case ShapeAnthropic:
		return "anthropic"
	case ShapeGoogle:
		return "gemini"
	case ShapeAWS:
		return "bedrock"
	}
	return "unknown shape: " + strconv.Itoa(int(s))
}

// Ingress is the API a client speaks: Format is its wire-format name (the
// provider table's row name), Shape the error shape its SDKs parse.
type Ingress struct {
	Format string
	Shape  Shape
}

// ingressNames lists the formats with an ingress error shape, for errors.
const ingressNames = "openai-chat, openai-responses, anthropic, gemini, gemini-openai, bedrock"

// IngressNamed returns the ingress that name (a format name or alias, any
// case) stands for. An empty or unknown name, or a format that is not an
// HTTP API a client calls (mcp, mistral's id rules), is a *field.Error at
// path naming the formats that have one.
func IngressNamed(name, path string) (Ingress, error) {
	if name == "" {
		return Ingress{}, field.NewError(path, "is required (the format the client speaks: "+ingressNames+")")
	}
	n, ok := format.Canonical(name)
	var s Shape
	switch n {
	case openaichat.Name, openairesponses.Name, geminiopenai.Name:
		s = ShapeOpenAI
	case anthropic.Name:
		s = ShapeAnthropic
	case gemini.Name:
		s = ShapeGoogle
	case bedrock.Name:
		s = ShapeAWS
	}
	if !ok || s == 0 {
		return Ingress{}, field.NewError(path, "unknown ingress "+strconv.Quote(strings.TrimSpace(name))+"; known: "+ingressNames)
	}
	return Ingress{Format: n, Shape: s}, nil
}
