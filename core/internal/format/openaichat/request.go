package openaichat

import (
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Request is the request-body shape of Chat Completions: the list is
// messages; the system prompt is system (or developer) messages in the list,
// and a system prompt from another format becomes one leading system
// message; tools are {"type":"function","function":{name, description,
// parameters, strict}}; tool_choice is "none", "auto", "required" or
// {"type":"function","function":{"name"}}; parallel_tool_calls is the
// parallel switch.
//
// See https://platform.openai.com/docs/api-reference/chat/create and the
// OpenAPI schemas CreateChatCompletionRequest, ChatCompletionTool,
// FunctionObject, ChatCompletionToolChoiceOption (github.com/openai/openai-openapi).
func Request() *dialect.Request {
	return &dialect.Request{
		List: "messages", Required: true,
		WriteSystem: func(body map[string]any, texts []string) {
			list, _ := body["messages"].([]any)
			sys := map[string]any{"role": "system", "content": dialect.JoinSystem(texts)}
			body["messages"] = append([]any{sys}, list...)
		},
		ReadTools: func(rest map[string]any, p string, n *dialect.Notes) (dialect.Tools, error) {
			return dialect.ReadOpenAITools(rest, p, n, func(m map[string]any, ip string) (dialect.Tool, bool, error) {
				fn, ok := m["function"].(map[string]any)
				if !ok || m["type"] != nil && m["type"] != "function" {
					return dialect.Tool{}, false, nil
				}
				d, err := dialect.FunctionFields(fn, field.Join(ip, "function"), "parameters", "", n)
				return d, err == nil, err
			}, func(m map[string]any) string {
				fn, _ := m["function"].(map[string]any)
				s, _ := fn["name"].(string)
				return s
			})
		},
		WriteTools: func(body map[string]any, t dialect.Tools, n *dialect.Notes) {
			dialect.WriteOpenAITools(body, t, func(d dialect.Tool) any {
				fn := d.Object(nil)
				if d.Schema != nil {
					fn["parameters"] = d.Schema
				}
				if d.Strict != nil {
					fn["strict"] = *d.Strict
				}
				return map[string]any{"type": "function", "function": fn}
			}, func(name string) any {
				return map[string]any{"type": "function", "function": map[string]any{"name": name}}
			})
		},
		Params: []dialect.Param{
			{Name: "model", Path: "model"}, {Name: "max_tokens", Path: "max_completion_tokens|max_tokens"},
			{Name: "temperature", Path: "temperature"}, {Name: "top_p", Path: "top_p"}, {Name: "stop", Path: "stop"},
			{Name: "stream", Path: "stream"}, {Name: "seed", Path: "seed"},
			{Name: "presence_penalty", Path: "presence_penalty"}, {Name: "frequency_penalty", Path: "frequency_penalty"},
			{Name: "metadata", Path: "metadata"}, {Name: "store", Path: "store"}, {Name: "user", Path: "user"},
			{Name: "service_tier", Path: "service_tier"}, {Name: "prompt_cache_key", Path: "prompt_cache_key"},
			{Name: "safety_identifier", Path: "safety_identifier"},
		},
	}
}
