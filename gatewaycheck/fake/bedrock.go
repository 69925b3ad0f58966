package fake

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The Bedrock fake serves POST /model/{modelId}/converse (the Converse
// operation of bedrock-runtime 2023-09-30). Rules:
//   - an Authorization header (SigV4) is required: 403
//     MissingAuthenticationTokenException otherwise, as AWS answers an
//     unsigned call (the signature itself is not checked).
//   - the body validates against the ConverseRequest shape of the service
//     model when specs are loaded (botocore
//     botocore/data/bedrock-runtime/2023-09-30/service-2.json: required
//     members, unknown members, one member per union, enums, lengths and
//     patterns); without specs the ToolUseId rule (1-64 of [a-zA-Z0-9_.:-],
//     the model's pattern) is checked here.
//   - toolConfig is set when the messages carry toolUse or toolResult ("The
//     toolConfig field must be defined when using toolUse and toolResult
//     content blocks."; patriceckhart/zot#18, elastic/kibana#277821).
//   - the message after an assistant message with toolUse blocks carries a
//     toolResult for each ("Expected toolResult blocks at messages.N.content
//     for the following Ids: ..."; agno-agi/agno#6698), and no more
//     toolResult blocks than the previous turn had toolUse blocks ("The
//     number of toolResult blocks at messages.N.content exceeds the number of
//     toolUse blocks of previous turn."; pydantic/pydantic-ai#2327).
//   - a toolResult with status "error" has content ("The content field at
//     messages.N.content.M.toolResult cannot be empty when status value is
//     error."; aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15),
//     and a json content block is an object ("The format of the value at
//     ... is invalid. Provide a json object for the field and try again.";
//     deepset-ai/haystack-core-integrations#3766).
//   - toolUse ids are unique: Claude on Bedrock answers Anthropic's text
//     wrapped as "The model returned the following errors: ..." (the shape of
//     a recorded pydantic-ai 400).
//
// Errors: HTTP 400 with x-amzn-ErrorType: ValidationException and
// {"message": ...} (botocore RestJSONParser; service model
// ValidationException).

var (
	bedrockRoute     = regexp.MustCompile(`^/model/([^/]+)/converse$`)
	bedrockIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_.:-]+$`)
)

func validateBedrock(r *http.Request, body []byte, specs *Specs) *violation {
	path := r.URL.EscapedPath()
	if r.Method != http.MethodPost || !bedrockRoute.MatchString(path) {
		return &violation{status: http.StatusNotFound, rule: "bedrock.route", typ: "UnknownOperationException", msg: "Unknown operation " + r.Method + " " + path}
	}
	if model, err := url.PathUnescape(bedrockRoute.FindStringSubmatch(path)[1]); err != nil || model == "" {
		return &violation{status: http.StatusBadRequest, rule: "bedrock.model", typ: "ValidationException", msg: "The provided model identifier is invalid."}
	}
	if r.Header.Get("Authorization") == "" {
		return &violation{status: http.StatusForbidden, rule: "bedrock.auth", typ: "MissingAuthenticationTokenException", msg: "Missing Authentication Token"}
	}
	v, err := decode(body)
	req := obj(v)
	if err != nil || req == nil {
		return &violation{status: http.StatusBadRequest, rule: "bedrock.json", typ: "SerializationException", msg: "Start of structure or map found where not expected."}
	}
	if bad := specs.validateBedrock("ConverseRequest", req); bad != nil {
		return bad
	}
	msgs := arr(req["messages"])
	var prevUses []string
	toolBlocks := false
	seen := map[string]bool{}
	for i, raw := range msgs {
		m := obj(raw)
		role, _ := str(m["role"])
		var uses []string
		results := 0
		answered := map[string]bool{}
		for j, b := range arr(m["content"]) {
			blk := obj(b)
			at := fmt.Sprintf("messages.%d.content.%d", i, j)
			if tu := obj(blk["toolUse"]); tu != nil {
				toolBlocks = true
				id, _ := str(tu["toolUseId"])
				if bad := bedrockID(id, at+".toolUse.toolUseId"); bad != nil {
					return bad
				}
				if seen[id] {
					return &violation{status: http.StatusBadRequest, rule: "bedrock.tool_use_id_unique", typ: "ValidationException",
						msg: fmt.Sprintf("The model returned the following errors: messages.%d.content.%d: `tool_use` ids must be unique", i, j)}
				}
				seen[id] = true
				uses = append(uses, id)
			}
			if tr := obj(blk["toolResult"]); tr != nil {
				toolBlocks = true
				id, _ := str(tr["toolUseId"])
				if bad := bedrockID(id, at+".toolResult.toolUseId"); bad != nil {
					return bad
				}
				content := arr(tr["content"])
				if status, _ := str(tr["status"]); status == "error" && len(content) == 0 {
					return &violation{status: http.StatusBadRequest, rule: "bedrock.error_without_content", typ: "ValidationException",
						msg: fmt.Sprintf("The content field at %s.toolResult cannot be empty when status value is error.", at)}
				}
				for k, c := range content {
					if js, has := obj(c)["json"]; has && !isObj(js) {
						return &violation{status: http.StatusBadRequest, rule: "bedrock.json_object", typ: "ValidationException",
							msg: fmt.Sprintf("The format of the value at %s.toolResult.content.%d.json is invalid. Provide a json object for the field and try again.", at, k)}
					}
				}
				results++
				if indexOf(prevUses, id) >= 0 {
					answered[id] = true
				}
			}
		}
		if results > len(prevUses) || (results > 0 && len(answered) < results) {
			return &violation{status: http.StatusBadRequest, rule: "bedrock.tool_result_without_use", typ: "ValidationException",
				msg: fmt.Sprintf("The number of toolResult blocks at messages.%d.content exceeds the number of toolUse blocks of previous turn.", i)}
		}
		if missing := unanswered(prevUses, answered); len(missing) > 0 {
			return &violation{status: http.StatusBadRequest, rule: "bedrock.tool_use_without_result", typ: "ValidationException",
				msg: fmt.Sprintf("Expected toolResult blocks at messages.%d.content for the following Ids: %s", i, joinIDs(missing))}
		}
		if role == "assistant" {
			prevUses = uses
		} else {
			prevUses = nil
		}
	}
	if toolBlocks && !isObj(req["toolConfig"]) {
		return &violation{status: http.StatusBadRequest, rule: "bedrock.tool_config", typ: "ValidationException",
			msg: "The toolConfig field must be defined when using toolUse and toolResult content blocks."}
	}
	return nil
}

// bedrockID checks a ToolUseId against the service model's constraints
// (length 1-64, pattern [a-zA-Z0-9_.:-]+), in AWS's validation wording.
func bedrockID(id, at string) *violation {
	n := utf8.RuneCountInString(id)
	switch {
	case n < 1 || n > 64:
		return &violation{status: http.StatusBadRequest, rule: "bedrock.tool_use_id_length", typ: "ValidationException",
			msg: fmt.Sprintf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to 64", id, coralPath(at))}
	case !bedrockIDPattern.MatchString(id):
		return &violation{status: http.StatusBadRequest, rule: "bedrock.tool_use_id_pattern", typ: "ValidationException",
			msg: fmt.Sprintf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+", id, coralPath(at))}
	}
	return nil
}

// coralPath writes a dotted path the way AWS validation messages do
// (messages.1.member.content.0.member.toolUse.toolUseId).
func coralPath(at string) string {
	parts := strings.Split(at, ".")
	var out []string
	for i, p := range parts {
		out = append(out, p)
		if i > 0 && isDigits(p) {
			out = append(out, "member")
		}
	}
	return strings.Join(out, ".")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func bedrockError(v *violation) Reply {
	typ := v.typ
	if typ == "" {
		typ = "ValidationException"
	}
	return Reply{Status: v.status, Headers: map[string]string{"x-amzn-ErrorType": typ + ":http://internal.amazon.com/coral/com.amazon.bedrock/", "x-amzn-RequestId": "gwcheck"},
		Body: mustJSON(map[string]any{"message": v.msg})}
}

// bedrockSuccess is a minimal ConverseResponse (service model) answering "ok".
func bedrockSuccess() Reply {
	return Reply{Status: http.StatusOK, Headers: map[string]string{"x-amzn-RequestId": "gwcheck"}, Body: mustJSON(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"text": "ok"}}}},
		"stopReason": "end_turn",
		"usage":      map[string]any{"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
		"metrics":    map[string]any{"latencyMs": 1},
	})}
}
