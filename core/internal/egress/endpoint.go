package egress

import (
	"strings"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/anthropic"
	"github.com/toolerr/toolerr/core/internal/format/gemini"
	"github.com/toolerr/toolerr/core/internal/format/openaichat"
	"github.com/toolerr/toolerr/core/internal/format/openairesponses"
)

// The provider APIs EndpointOf knows, named as the gateway's routes and
// metrics name them.
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

// Endpoint is the provider API a request calls: API one of the API
// constants, Format the wire format of its request bodies and of the
// errors its clients parse, Model the model named in its path (Gemini's;
// "" for the others, whose bodies name it).
type Endpoint struct {
	API    string
	Format string
	Model  string
}

// EndpointOf returns the endpoint a request of method to path calls; ok is
// false for any other (a GET, embeddings, files, a Bedrock Converse
// request, whose body the AWS SDK signs before its HTTP client sees it).
//
// method is compared without regard to ASCII case (fetch normalizes
// "post" to "POST", and the bindings' HTTP libraries send it so). path is
// the URL path as it goes on the wire, percent-encoded (RFC 3986, 3.3): Go's
// URL.EscapedPath, the WHATWG URL's pathname, reqwest's Url::path, httpx's
// URL.raw_path before its "?". It is matched by its end, so a base URL with a
// prefix is recognised as the provider's own: "/v1/chat/completions",
// "/openai/deployments/d/chat/completions" (Azure OpenAI) and
// "/v1beta/openai/chat/completions" (Gemini's OpenAI-compatible endpoint)
// are all Chat Completions; "/v1/messages" ends Anthropic's paths (so
// "/v1/threads/t/messages" of the Assistants API is not one);
// ".../models/{model}:generateContent" is Gemini's, on the Gemini API
// ("/v1beta/models/...") and on Vertex AI
// ("/v1/projects/p/locations/l/publishers/google/models/...") alike. The
// model is its segment percent-decoded (RFC 3986, 2.1); a segment whose
// encoding is broken, or a model that is not plain (plainModel: a "/" in
// it as in models/a%2Fb, a control character, invalid UTF-8, a dot
// segment), is no model, and the request no endpoint.
//
// The path is matched in its normal form (RFC 3986, 6.2.2.2): a
// percent-encoded octet of an unreserved character (ALPHA, DIGIT, "-", ".",
// "_", "~"; 2.3) is that character, in either case of its hex digits
// (6.2.2.1), as every server that routes by path decodes it first, so that
// "/v1/chat/%63ompletions" is the Chat Completions request its upstream
// serves, and no spelling of a provider path passes unrepaired. Any other
// octet stays encoded: an encoded "/" or ":" is data inside a segment, not
// the delimiter (2.2), and "/v1/chat%2Fcompletions" is no endpoint.
func EndpointOf(method, path string) (ep Endpoint, ok bool) {
	if !strings.EqualFold(method, "POST") {
		return Endpoint{}, false
	}
	path = decodeUnreserved(path)
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return Endpoint{API: APIChatCompletions, Format: openaichat.Name}, true
	case strings.HasSuffix(path, "/responses"):
		return Endpoint{API: APIResponses, Format: openairesponses.Name}, true
	case strings.HasSuffix(path, "/v1/messages"):
		return Endpoint{API: APIMessages, Format: anthropic.Name}, true
	case strings.HasSuffix(path, "/v1/messages/count_tokens"):
		return Endpoint{API: APICountTokens, Format: anthropic.Name}, true
	}
	i := strings.LastIndexByte(path, '/')
	if i < 0 || !strings.HasSuffix(path[:i], "/models") {
		return Endpoint{}, false
	}
	seg, call, found := strings.Cut(path[i+1:], ":")
	model, decoded := pathUnescape(seg)
	if !found || !decoded || !plainModel(model) {
		return Endpoint{}, false
	}
	switch call {
	case "generateContent":
		return Endpoint{API: APIGenerateContent, Format: gemini.Name, Model: model}, true
	case "streamGenerateContent":
		return Endpoint{API: APIStreamGenerateContent, Format: gemini.Name, Model: model}, true
	}
	return Endpoint{}, false
}

// plainModel reports whether a decoded model can be one: not empty, valid
// UTF-8 with no control character (a JSON target would write U+FFFD for an
// invalid byte where a Go caller reads the byte, so they would disagree on
// the model), no "/" and not a dot segment ("." or "..", RFC 3986 3.3).
func plainModel(m string) bool {
	if m == "" || m == "." || m == ".." || !utf8.ValidString(m) {
		return false
	}
	for _, r := range m {
		if r == '/' || r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}

// pathUnescape percent-decodes s (RFC 3986, 2.1: "%" and two hex digits is
// one octet); ok is false for a "%" not followed by two hex digits.
func pathUnescape(s string) (string, bool) {
	n := strings.Count(s, "%")
	if n == 0 {
		return s, true
	}
	b := make([]byte, 0, len(s)-2*n)
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	return string(b), true
}

// decodeUnreserved returns s with every percent-encoded octet of an
// unreserved character decoded (RFC 3986, 6.2.2.2), and every other "%"
// as it was.
func decodeUnreserved(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			if c := unhex(s[i+1])<<4 | unhex(s[i+2]); unreserved(c) {
				b = append(b, c)
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// unreserved reports an unreserved character of RFC 3986, 2.3.
func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// ReadEndpointRequest reads the members of an egress_endpoint request:
// method and path, both required strings (an empty one is no endpoint,
// not an error).
func ReadEndpointRequest(req map[string]any) (method, path string, err error) {
	out := [2]string{}
	for i, m := range [...]struct{ key, what string }{{"method", "the request's HTTP method"}, {"path", "the request's URL path, percent-encoded"}} {
		s, ok, err := field.Get[string](req, m.key, "")
		if err == nil && !ok {
			err = field.NewError(m.key, "is required ("+m.what+")")
		}
		if err != nil {
			return "", "", err
		}
		out[i] = s
	}
	return out[0], out[1], nil
}
