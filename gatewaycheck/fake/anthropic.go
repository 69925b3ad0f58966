package fake

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// The Anthropic fake serves POST /v1/messages. Anthropic publishes no
// machine-readable request schema, so the rules are encoded here from the
// Messages API reference (https://docs.claude.com/en/api/messages), the SDK
// param types (anthropic-sdk-go MessageParam, ToolUseBlockParam,
// ToolResultBlockParam) and the API's own 400 texts as users recorded them:
//   - x-api-key (or Authorization: Bearer) is required: 401
//     authentication_error (https://docs.claude.com/en/api/errors).
//   - model, max_tokens and messages are required; role is user or
//     assistant ("<path>: Field required", "<path>: Input should be 'user'
//     or 'assistant'", the API's validation wording).
//   - tool_use.id matches ^[a-zA-Z0-9_-]+$ ("messages.N.content.M.tool_use.id:
//     String should match pattern '^[a-zA-Z0-9_-]+$'"; BlockRunAI/ClawRouter#17,
//     CommandCodeAI/command-code#323), and so does tool_result.tool_use_id.
//   - tool_use ids are unique ("messages.N.content.M: `tool_use` ids must be
//     unique"; anthropics/claude-code#20573, anomalyco/opencode#1279).
//   - every tool_use of an assistant message has a tool_result in the next
//     message ("messages.N: `tool_use` ids were found without `tool_result`
//     blocks immediately after: ..."; anthropics/claude-code#8210, #3512).
//   - every tool_result answers a tool_use of the previous message
//     ("messages.N.content.M: unexpected `tool_use_id` found in
//     `tool_result` blocks: ..."; anthropics/claude-code#18947).
//   - is_error is a boolean; tool_result content is a string or a list of
//     text, image, document or search_result blocks (ToolResultBlockParam).
//
// Error bodies: {"type":"error","error":{"type","message"},"request_id"}
// (https://docs.claude.com/en/api/errors).

var anthropicIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

func validateAnthropic(r *http.Request, body []byte) *violation {
	if r.Method != http.MethodPost || strings.TrimSuffix(r.URL.Path, "/") != "/v1/messages" {
		return &violation{status: http.StatusNotFound, rule: "anthropic.route", typ: "not_found_error", msg: "Not Found"}
	}
	if r.Header.Get("X-Api-Key") == "" && !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		return &violation{status: http.StatusUnauthorized, rule: "anthropic.auth", typ: "authentication_error", msg: "x-api-key header is required"}
	}
	v, err := decode(body)
	req := obj(v)
	if err != nil || req == nil {
		return &violation{status: http.StatusBadRequest, rule: "anthropic.json", msg: "The request body is not valid JSON."}
	}
	for _, k := range []string{"model", "max_tokens", "messages"} {
		if _, ok := req[k]; !ok {
			return &violation{status: http.StatusBadRequest, rule: "anthropic.required", msg: k + ": Field required"}
		}
	}
	if !isNumber(req["max_tokens"]) {
		return &violation{status: http.StatusBadRequest, rule: "anthropic.max_tokens", msg: "max_tokens: Input should be a valid integer"}
	}
	msgs, ok := req["messages"].([]any)
	if !ok {
		return &violation{status: http.StatusBadRequest, rule: "anthropic.messages", msg: "messages: Input should be a valid list"}
	}
	seen := map[string]bool{}
	var prevUses []string // tool_use ids of the previous message (assistant)
	prevAt := -1
	for i, raw := range msgs {
		m := obj(raw)
		role, _ := str(m["role"])
		if role != "user" && role != "assistant" {
			return &violation{status: http.StatusBadRequest, rule: "anthropic.role", msg: fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)}
		}
		blocks := arr(m["content"])
		if _, isStr := str(m["content"]); !isStr && blocks == nil {
			return &violation{status: http.StatusBadRequest, rule: "anthropic.content", msg: fmt.Sprintf("messages.%d.content: Input should be a valid list", i)}
		}
		var uses []string
		answered := map[string]bool{}
		for j, b := range blocks {
			blk := obj(b)
			typ, _ := str(blk["type"])
			at := fmt.Sprintf("messages.%d.content.%d", i, j)
			switch typ {
			case "tool_use":
				id, _ := str(blk["id"])
				if !anthropicIDPattern.MatchString(id) {
					return &violation{status: http.StatusBadRequest, rule: "anthropic.tool_use_id_pattern", msg: at + ".tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"}
				}
				if seen[id] {
					return &violation{status: http.StatusBadRequest, rule: "anthropic.tool_use_id_unique", msg: at + ": `tool_use` ids must be unique"}
				}
				if !isObj(blk["input"]) {
					return &violation{status: http.StatusBadRequest, rule: "anthropic.tool_use_input", msg: at + ".tool_use.input: Input should be a valid dictionary"}
				}
				seen[id] = true
				uses = append(uses, id)
			case "tool_result":
				id, _ := str(blk["tool_use_id"])
				if !anthropicIDPattern.MatchString(id) {
					return &violation{status: http.StatusBadRequest, rule: "anthropic.tool_result_id_pattern", msg: at + ".tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'"}
				}
				if e, has := blk["is_error"]; has {
					if _, isBool := e.(bool); !isBool {
						return &violation{status: http.StatusBadRequest, rule: "anthropic.is_error", msg: at + ".tool_result.is_error: Input should be a valid boolean"}
					}
				}
				if bad := anthropicResultContent(blk["content"], at); bad != nil {
					return bad
				}
				if indexOf(prevUses, id) < 0 {
					return &violation{status: http.StatusBadRequest, rule: "anthropic.tool_result_without_use",
						msg: at + ": unexpected `tool_use_id` found in `tool_result` blocks: " + id + ". Each `tool_result` block must have a corresponding `tool_use` block in the previous message."}
				}
				answered[id] = true
			}
		}
		if missing := unanswered(prevUses, answered); len(missing) > 0 {
			return anthropicUnanswered(prevAt, missing)
		}
		prevUses, prevAt = uses, i
	}
	if len(prevUses) > 0 && prevAt < len(msgs)-1 {
		return anthropicUnanswered(prevAt, prevUses)
	}
	return nil
}

func anthropicUnanswered(at int, ids []string) *violation {
	return &violation{status: http.StatusBadRequest, rule: "anthropic.tool_use_without_result",
		msg: fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", at, joinIDs(ids))}
}

// anthropicResultContent checks a tool_result's content: absent, a string, or
// a list of the block types ToolResultBlockParam allows.
func anthropicResultContent(c any, at string) *violation {
	if c == nil {
		return nil
	}
	if _, ok := str(c); ok {
		return nil
	}
	blocks, ok := c.([]any)
	if !ok {
		return &violation{status: http.StatusBadRequest, rule: "anthropic.tool_result_content", msg: at + ".tool_result.content: Input should be a valid list"}
	}
	allowed := map[string]bool{"text": true, "image": true, "document": true, "search_result": true, "tool_reference": true}
	for k, b := range blocks {
		typ, _ := str(obj(b)["type"])
		if !allowed[typ] {
			return &violation{status: http.StatusBadRequest, rule: "anthropic.tool_result_block",
				msg: fmt.Sprintf("%s.tool_result.content.%d: Input tag '%s' found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'search_result', 'tool_reference'", at, k, typ)}
		}
		if typ == "text" {
			if _, ok := str(obj(b)["text"]); !ok {
				return &violation{status: http.StatusBadRequest, rule: "anthropic.text", msg: fmt.Sprintf("%s.tool_result.content.%d.text.text: Field required", at, k)}
			}
		}
	}
	return nil
}

func anthropicError(v *violation) Reply {
	typ := v.typ
	if typ == "" {
		typ = "invalid_request_error"
	}
	return Reply{Status: v.status, Headers: map[string]string{"request-id": "req_gwcheck"},
		Body: mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": v.msg}, "request_id": "req_gwcheck"})}
}

// anthropicSuccess is a minimal Message (anthropic-sdk-go Message) answering "ok".
func anthropicSuccess(body []byte) Reply {
	v, _ := decode(body)
	model, _ := str(obj(v)["model"])
	return Reply{Status: http.StatusOK, Headers: map[string]string{"request-id": "req_gwcheck"}, Body: mustJSON(map[string]any{
		"id": "msg_gwcheck", "type": "message", "role": "assistant", "model": model,
		"content":     []any{map[string]any{"type": "text", "text": "ok"}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
	})}
}
