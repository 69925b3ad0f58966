package fake

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// The Gemini fake serves POST /v1beta/models/{model}:generateContent (also
// /v1/... and /models/...). The Generative Language discovery document is
// not published in a form this package can read, so the rules are encoded
// from google/ai/generativelanguage/v1beta/content.proto (googleapis) and
// the API's own 400 texts as users recorded them:
//   - an API key is required (x-goog-api-key or ?key=): 403
//     PERMISSION_DENIED with no key, as the API answers.
//   - contents is a list of Content {role, parts}; role is "user" or
//     "model" ("Please use a valid role: user, model.", a recorded Vertex
//     AI 400).
//   - a Part sets exactly one member of its data oneof, and FunctionCall and
//     FunctionResponse carry only their proto fields (proto3 JSON mapping:
//     an unknown name is "Invalid JSON payload received. Unknown name ...";
//     https://protobuf.dev/programming-guides/json/).
//   - functionResponse.name is required, at most 64 of [A-Za-z0-9_-]
//     (content.proto FunctionResponse.name), and response is an object
//     (google.protobuf.Struct).
//   - the content after a function-call turn carries one functionResponse
//     per functionCall ("Please ensure that the number of function response
//     parts is equal to the number of function call parts of the function
//     call turn."; google-gemini/gemini-cli#4217, #16415); for the models
//     that take them split, the consecutive contents after it together
//     (see oneResponseContent); and a
//     function-response turn follows a function-call turn ("Please ensure
//     that function response turn comes immediately after a function call
//     turn."; langchain-ai/langchain#27799).
//
// Error bodies: {"error":{"code","message","status"}} (https://google.aip.dev/193).

var (
	geminiRoute       = regexp.MustCompile(`^(?:/v1beta|/v1)?/models/([^/:]+):(generateContent|streamGenerateContent)$`)
	geminiNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	geminiPartData    = []string{"text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode", "codeExecutionResult"}
	geminiPartFields  = fieldSet("text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode",
		"codeExecutionResult", "thought", "thoughtSignature", "videoMetadata", "partMetadata", "mediaResolution")
	geminiCallFields     = fieldSet("id", "name", "args")
	geminiResponseFields = fieldSet("id", "name", "response", "parts", "willContinue", "scheduling")
)

// fieldSet accepts each proto field under its lowerCamelCase JSON name and
// its original snake_case name, as the proto3 JSON parser does.
func fieldSet(camel ...string) map[string]string {
	m := map[string]string{}
	for _, c := range camel {
		m[c] = c
		var b strings.Builder
		for _, r := range c {
			if r >= 'A' && r <= 'Z' {
				b.WriteByte('_')
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
		m[b.String()] = c
	}
	return m
}

func validateGemini(r *http.Request, body []byte) *violation {
	if r.Method != http.MethodPost || !geminiRoute.MatchString(r.URL.Path) {
		return &violation{status: http.StatusNotFound, rule: "gemini.route", typ: "NOT_FOUND", msg: "Requested entity was not found."}
	}
	if r.Header.Get("X-Goog-Api-Key") == "" && r.URL.Query().Get("key") == "" && !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		return &violation{status: http.StatusForbidden, rule: "gemini.auth", typ: "PERMISSION_DENIED",
			msg: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."}
	}
	v, err := decode(body)
	req := obj(v)
	if err != nil || req == nil {
		return &violation{status: http.StatusBadRequest, rule: "gemini.json", msg: "Invalid JSON payload received. Unexpected token."}
	}
	contents, ok := req["contents"].([]any)
	if !ok || len(contents) == 0 {
		return &violation{status: http.StatusBadRequest, rule: "gemini.contents", msg: "* GenerateContentRequest.contents: contents is not specified\n"}
	}
	calls := make([]int, len(contents))     // functionCall parts per content
	responses := make([]int, len(contents)) // functionResponse parts per content
	for i, raw := range contents {
		c := obj(raw)
		role, _ := str(c["role"])
		if role != "" && role != "user" && role != "model" {
			return &violation{status: http.StatusBadRequest, rule: "gemini.role", msg: "Please use a valid role: user, model."}
		}
		for j, p := range arr(c["parts"]) {
			at := fmt.Sprintf("contents[%d].parts[%d]", i, j)
			part := obj(p)
			if part == nil {
				return &violation{status: http.StatusBadRequest, rule: "gemini.part", msg: fmt.Sprintf("Invalid value at '%s' (type.googleapis.com/google.ai.generativelanguage.v1beta.Part), expected an object", at)}
			}
			if bad := unknownName(part, geminiPartFields, at); bad != nil {
				return bad
			}
			var set []string
			for _, k := range geminiPartData {
				if hasField(part, k) {
					set = append(set, k)
				}
			}
			if len(set) > 1 {
				return &violation{status: http.StatusBadRequest, rule: "gemini.part_oneof",
					msg: fmt.Sprintf("Invalid value at '%s' (oneof), oneof field 'data' is already set. Cannot set '%s'", at, set[1])}
			}
			if fc := obj(field(part, "functionCall")); fc != nil {
				if bad := unknownName(fc, geminiCallFields, at+".function_call"); bad != nil {
					return bad
				}
				calls[i]++
			}
			if hasField(part, "functionResponse") {
				if bad := geminiFunctionResponse(field(part, "functionResponse"), at); bad != nil {
					return bad
				}
				responses[i]++
			}
		}
	}
	return geminiTurns(calls, responses, oneResponseContent(geminiRoute.FindStringSubmatch(r.URL.Path)[1]))
}

// oneResponseContent reports whether model wants every functionResponse of a
// call turn in the one content right after it. gemini-2.0 does
// (microsoft/semantic-kernel#12528: two responses in two contents, 400) and
// so does gemini-3 (google-gemini/gemini-cli#21830, #16437); gemini-2.5
// counts the responses of the consecutive contents after the call turn (a
// recorded gemini-2.5-flash request with three split responses answered
// 200: crewAIInc/crewAI, TestGeminiNativeToolCalling cassette), and so does
// the fake for any other model name.
func oneResponseContent(model string) bool {
	return strings.HasPrefix(model, "gemini-2.0") || strings.HasPrefix(model, "gemini-3")
}

// geminiTurns checks that each function-call turn is answered by as many
// functionResponse parts as it has calls, in the content after it (or, when
// split is allowed, the consecutive contents after it), and that no
// response stands anywhere else.
func geminiTurns(calls, responses []int, oneContent bool) *violation {
	for i := 0; i < len(calls); {
		switch {
		case calls[i] > 0:
			j, got := i+1, 0
			for j < len(calls) && responses[j] > 0 && calls[j] == 0 {
				got += responses[j]
				j++
				if oneContent {
					break
				}
			}
			if j < len(calls) || got > 0 {
				if got != calls[i] {
					return &violation{status: http.StatusBadRequest, rule: "gemini.response_count",
						msg: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."}
				}
			}
			i = j
		case responses[i] > 0:
			return &violation{status: http.StatusBadRequest, rule: "gemini.response_without_call", msg: "Please ensure that function response turn comes immediately after a function call turn."}
		default:
			i++
		}
	}
	return nil
}

// geminiFunctionResponse checks one functionResponse: its proto fields, a
// valid name, an object response.
func geminiFunctionResponse(v any, at string) *violation {
	fr := obj(v)
	if fr == nil {
		return &violation{status: http.StatusBadRequest, rule: "gemini.function_response", msg: fmt.Sprintf("Invalid value at '%s.function_response', expected an object", at)}
	}
	if bad := unknownName(fr, geminiResponseFields, at+".function_response"); bad != nil {
		return bad
	}
	if name, _ := str(fr["name"]); !geminiNamePattern.MatchString(name) {
		return &violation{status: http.StatusBadRequest, rule: "gemini.function_response_name",
			msg: fmt.Sprintf("* GenerateContentRequest.%s.function_response.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_) or dashes (-), with a maximum length of 64.\n", at)}
	}
	if !isObj(fr["response"]) {
		return &violation{status: http.StatusBadRequest, rule: "gemini.function_response_struct",
			msg: fmt.Sprintf("Invalid value at '%s.function_response.response' (type.googleapis.com/google.protobuf.Struct), expected an object", at)}
	}
	return nil
}

// field reads member camel of m under either of its JSON names.
func field(m map[string]any, camel string) any {
	if v, ok := m[camel]; ok {
		return v
	}
	for k, c := range fieldSet(camel) {
		if c == camel {
			if v, ok := m[k]; ok {
				return v
			}
		}
	}
	return nil
}

func hasField(m map[string]any, camel string) bool { return field(m, camel) != nil }

// unknownName reports the first member of m the proto message does not have.
func unknownName(m map[string]any, known map[string]string, at string) *violation {
	for k := range m {
		if _, ok := known[k]; !ok {
			return &violation{status: http.StatusBadRequest, rule: "gemini.unknown_field",
				msg: fmt.Sprintf("Invalid JSON payload received. Unknown name \"%s\" at '%s': Cannot find field.", k, at)}
		}
	}
	return nil
}

func geminiError(v *violation) Reply {
	status := v.typ
	if status == "" {
		status = "INVALID_ARGUMENT"
	}
	return Reply{Status: v.status, Body: mustJSON(map[string]any{"error": map[string]any{"code": v.status, "message": v.msg, "status": status}})}
}

// geminiSuccess is a minimal GenerateContentResponse answering "ok"; for
// streamGenerateContent it is one server-sent event (alt=sse) or a JSON
// array of one response, as the API streams.
func geminiSuccess(r *http.Request) Reply {
	resp := geminiResponse()
	if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		return Reply{Status: http.StatusOK, Body: resp}
	}
	if r.URL.Query().Get("alt") == "sse" {
		return Reply{Status: http.StatusOK, Headers: map[string]string{"Content-Type": "text/event-stream"},
			Body: append(append([]byte("data: "), resp...), "\r\n\r\n"...)}
	}
	return Reply{Status: http.StatusOK, Body: append(append([]byte("["), resp...), ']')}
}

func geminiResponse() []byte {
	return mustJSON(map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": "ok"}}}}},
		"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  "gwcheck",
	})
}
