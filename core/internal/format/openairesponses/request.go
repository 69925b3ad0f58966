package openairesponses

import (
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Request is the request-body shape of the Responses API: the list is input
// (a string input is one user message); the system prompt is instructions
// (also where a system prompt from another format goes: the API documents it
// as the system or developer message of this request, not carried over by
// previous_response_id, which is what a body converted with its whole
// history needs); tools are {"type":"function", name, description,
// parameters, strict} (parameters and strict are required: strict false is
// written when the source said nothing); tool_choice is "none", "auto",
// "required" or {"type":"function","name"}; previous_response_id and
// conversation name server-side state.
//
// See https://platform.openai.com/docs/api-reference/responses/create and the
// OpenAPI schemas CreateResponse, FunctionTool, ToolChoiceFunction
// (github.com/openai/openai-openapi).
func Request() *dialect.Request {
	return &dialect.Request{
		List: "input",
		TextList: func(s string) []any {
			return []any{map[string]any{"type": "message", "role": "user", "content": s}}
		},
		ReadSystem: func(rest map[string]any, p string, n *dialect.Notes) ([]string, error) {
			v, _ := dialect.Take(rest, "instructions", false)
			if v == nil {
				return nil, nil
			}
			s, err := field.As[string](v, field.Join(p, "instructions"))
			if err != nil || s == "" {
				return nil, err
			}
			return []string{s}, nil
		},
		WriteSystem: func(body map[string]any, texts []string) { body["instructions"] = dialect.JoinSystem(texts) },
		ReadTools: func(rest map[string]any, p string, n *dialect.Notes) (dialect.Tools, error) {
			return dialect.ReadOpenAITools(rest, p, n, func(m map[string]any, ip string) (dialect.Tool, bool, error) {
				if m["type"] != "function" {
					return dialect.Tool{}, false, nil
				}
				d, err := dialect.FunctionFields(m, ip, "parameters", " type ", n)
				return d, err == nil, err
			}, func(m map[string]any) string {
				s, _ := m["name"].(string)
				return s
			})
		},
		WriteTools: func(body map[string]any, t dialect.Tools, n *dialect.Notes) {
			dialect.WriteOpenAITools(body, t, func(d dialect.Tool) any {
				strict := false
				if d.Strict != nil {
					strict = *d.Strict
				}
				return d.Object(map[string]any{"type": "function", "parameters": dialect.ObjectSchema(d.Schema), "strict": strict})
			}, func(name string) any {
				return map[string]any{"type": "function", "name": name}
			})
		},
		Server: func(rest map[string]any) dialect.Server {
			var s dialect.Server
			if v, _ := dialect.Take(rest, "previous_response_id", false); v != nil {
				s.PreviousResponseID, _ = v.(string)
			}
			switch c, _ := dialect.Take(rest, "conversation", false); c := c.(type) {
			case string:
				s.Conversation = c
			case map[string]any:
				s.Conversation, _ = c["id"].(string)
			}
			return s
		},
		Params: []dialect.Param{
			{Name: "model", Path: "model"}, {Name: "max_tokens", Path: "max_output_tokens"},
			{Name: "temperature", Path: "temperature"}, {Name: "top_p", Path: "top_p"}, {Name: "stream", Path: "stream"},
			{Name: "metadata", Path: "metadata"}, {Name: "store", Path: "store"}, {Name: "user", Path: "user"},
			{Name: "service_tier", Path: "service_tier"}, {Name: "prompt_cache_key", Path: "prompt_cache_key"},
			{Name: "safety_identifier", Path: "safety_identifier"},
		},
	}
}
