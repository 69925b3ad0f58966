package fake

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// The OpenAI fake serves POST /v1/chat/completions and POST /v1/responses
// (also without the /v1 prefix, as base URLs ending in /v1 produce).
//
// Rules, each with the public source of its wording:
//   - Authorization: Bearer is required (401, as the API answers a missing
//     key; https://platform.openai.com/docs/api-reference/authentication).
//   - The body validates against CreateChatCompletionRequest or CreateResponse
//     of the OpenAI OpenAPI spec when specs are loaded
//     (github.com/openai/openai-openapi, openapi.yaml).
//   - Chat: an assistant message with tool_calls is followed by one tool
//     message per tool_call_id ("An assistant message with 'tool_calls' must
//     be followed by tool messages ...", param messages.[i].role, code null;
//     router-for-me/CLIProxyAPI#2798, BerriAI/litellm#10083), and a tool
//     message answers a tool_call of the assistant message before its run of
//     tool messages ("Invalid parameter: messages with role 'tool' must be a
//     response to a preceeding message with 'tool_calls'.", the API's own
//     spelling; miurla/morphic#136, smarter-sh/smarter#264).
//   - Responses: every function_call has a function_call_output with its
//     call_id ("No tool output found for function call <id>.") and every
//     output has a function_call before it ("No tool call found for function
//     call output with call_id <id>.", param input, code null;
//     microsoft/vscode#320060, continuedev/continue#10092); call_id is at
//     most 64 characters (OpenAPI FunctionCallOutputItemParam; the API's
//     string_above_max_length wording as in its decimal_below_min_value
//     errors).
//
// Error bodies are the spec's ErrorResponse: {"error":{"message","type",
// "param","code"}}.

func validateOpenAI(r *http.Request, body []byte, specs *Specs) *violation {
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	if r.Method != http.MethodPost || (path != "/chat/completions" && path != "/responses") {
		return &violation{status: http.StatusNotFound, rule: "openai.route", typ: "invalid_request_error",
			msg: fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path)}
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		return &violation{status: http.StatusUnauthorized, rule: "openai.auth", typ: "invalid_request_error",
			msg: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."}
	}
	v, err := decode(body)
	if err != nil {
		return &violation{status: http.StatusBadRequest, rule: "openai.json", typ: "invalid_request_error",
			msg: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"}
	}
	req := obj(v)
	if req == nil {
		return &violation{status: http.StatusBadRequest, rule: "openai.body", typ: "invalid_request_error",
			msg: "Invalid type for body: expected an object."}
	}
	if _, ok := str(req["model"]); !ok {
		return &violation{status: http.StatusBadRequest, rule: "openai.model", typ: "invalid_request_error", param: "model",
			code: "missing_required_parameter", msg: "Missing required parameter: 'model'."}
	}
	// The rules with the API's own words run before the schema, whose
	// messages are the validator's.
	schema, rules := "CreateChatCompletionRequest", validateChatMessages
	if path == "/responses" {
		schema, rules = "CreateResponse", validateResponsesInput
	}
	if bad := rules(req); bad != nil {
		return bad
	}
	return specs.validateOpenAPI(schema, body)
}

func validateChatMessages(req map[string]any) *violation {
	msgs, ok := req["messages"].([]any)
	if !ok {
		return &violation{status: http.StatusBadRequest, rule: "openai.messages", typ: "invalid_request_error", param: "messages",
			code: "missing_required_parameter", msg: "Missing required parameter: 'messages'."}
	}
	roles := map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "function": true}
	// open holds the tool_call ids of the last assistant message that are
	// not answered yet; inRun is true while the messages after it are tool
	// messages.
	var open []string
	openAt, inRun := -1, false
	unanswered := func(at int) *violation {
		return &violation{status: http.StatusBadRequest, rule: "openai.chat.tool_call_without_response", typ: "invalid_request_error",
			param: fmt.Sprintf("messages.[%d].role", at),
			msg:   "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + joinIDs(open)}
	}
	for i, raw := range msgs {
		m := obj(raw)
		role, _ := str(m["role"])
		if !roles[role] {
			return &violation{status: http.StatusBadRequest, rule: "openai.chat.role", typ: "invalid_request_error", param: fmt.Sprintf("messages[%d].role", i),
				code: "invalid_value", msg: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", role)}
		}
		if role == "tool" {
			id, ok := str(m["tool_call_id"])
			if !ok {
				return &violation{status: http.StatusBadRequest, rule: "openai.chat.tool_call_id", typ: "invalid_request_error", param: fmt.Sprintf("messages[%d].tool_call_id", i),
					code: "missing_required_parameter", msg: fmt.Sprintf("Missing required parameter: 'messages[%d].tool_call_id'.", i)}
			}
			k := indexOf(open, id)
			if !inRun || k < 0 {
				return &violation{status: http.StatusBadRequest, rule: "openai.chat.tool_without_call", typ: "invalid_request_error", param: fmt.Sprintf("messages.[%d].role", i),
					msg: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."}
			}
			open = append(open[:k], open[k+1:]...)
			continue
		}
		if inRun && len(open) > 0 {
			return unanswered(openAt)
		}
		inRun, open = false, nil
		if role == "assistant" {
			for _, tc := range arr(m["tool_calls"]) {
				if id, ok := str(obj(tc)["id"]); ok {
					open = append(open, id)
				}
			}
			if len(open) > 0 {
				inRun, openAt = true, i
			}
		}
	}
	if inRun && len(open) > 0 {
		return unanswered(openAt)
	}
	return nil
}

func validateResponsesInput(req map[string]any) *violation {
	items, ok := req["input"].([]any)
	if !ok {
		return nil // a string input has no items to pair
	}
	_, chained := str(req["previous_response_id"])
	var calls []string
	outputs := map[string]bool{}
	for i, raw := range items {
		it := obj(raw)
		typ, _ := str(it["type"])
		if typ != "function_call" && typ != "function_call_output" {
			continue
		}
		id, _ := str(it["call_id"])
		if n := utf8.RuneCountInString(id); n > 64 {
			return &violation{status: http.StatusBadRequest, rule: "openai.responses.call_id_length", typ: "invalid_request_error",
				param: fmt.Sprintf("input[%d].call_id", i), code: "string_above_max_length",
				msg: fmt.Sprintf("Invalid 'input[%d].call_id': string too long. Expected a string with maximum length 64, but got a string with length %d instead.", i, n)}
		}
		if typ == "function_call" {
			calls = append(calls, id)
			continue
		}
		if indexOf(calls, id) < 0 && !chained {
			return &violation{status: http.StatusBadRequest, rule: "openai.responses.output_without_call", typ: "invalid_request_error", param: "input",
				msg: fmt.Sprintf("No tool call found for function call output with call_id %s.", id)}
		}
		outputs[id] = true
	}
	for _, id := range calls {
		if !outputs[id] {
			return &violation{status: http.StatusBadRequest, rule: "openai.responses.call_without_output", typ: "invalid_request_error", param: "input",
				msg: fmt.Sprintf("No tool output found for function call %s.", id)}
		}
	}
	return nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func openAIError(v *violation) Reply {
	typ := v.typ
	if typ == "" {
		typ = "invalid_request_error"
	}
	e := map[string]any{"message": v.msg, "type": typ, "param": nil, "code": nil}
	if v.param != "" {
		e["param"] = v.param
	}
	if v.code != "" {
		e["code"] = v.code
	}
	return Reply{Status: v.status, Headers: map[string]string{"x-request-id": "req_gwcheck"}, Body: mustJSON(map[string]any{"error": e})}
}

// openAISuccess is a minimal chat.completion (OpenAPI CreateChatCompletionResponse)
// or response object (OpenAPI Response) answering "ok".
func openAISuccess(r *http.Request, body []byte) Reply {
	v, _ := decode(body)
	model, _ := str(obj(v)["model"])
	usage := map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	if strings.HasSuffix(r.URL.Path, "/responses") {
		return Reply{Status: http.StatusOK, Body: mustJSON(map[string]any{
			"id": "resp_gwcheck", "object": "response", "created_at": 1767225600, "status": "completed",
			"model": model, "error": nil, "incomplete_details": nil, "instructions": nil, "metadata": map[string]any{},
			"parallel_tool_calls": true, "temperature": 1, "top_p": 1, "tool_choice": "auto", "tools": []any{},
			"output": []any{map[string]any{"type": "message", "id": "msg_gwcheck", "status": "completed", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": "ok", "annotations": []any{}}}}},
			"usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
				"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}},
		})}
	}
	return Reply{Status: http.StatusOK, Body: mustJSON(map[string]any{
		"id": "chatcmpl-gwcheck", "object": "chat.completion", "created": 1767225600, "model": model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": "ok", "refusal": nil}}},
		"usage": usage,
	})}
}
