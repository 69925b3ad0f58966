package openaichat

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Request is the request-body shape of Chat Completions: the list is
// messages; the system prompt is system (or developer) messages in the list,
// and a system prompt from another format becomes one leading system
// message; tools are {"type":"function","function":{name, description,
// parameters, strict}}; tool_choice is "none", "auto", "required" or
// {"type":"function","function":{"name"}}; parallel_tool_calls is the
// parallel switch. ScanTools and ScanChoice read those tools and choices
// straight from a body's bytes (scanTools, scanChoice), by the rules
// ReadTools reads them by: functionTool, FunctionFields and
// dialect.OpenAIMode.
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
				fn, ok := m[functionTool].(map[string]any)
				if !ok || m["type"] != nil && m["type"] != functionTool {
					return dialect.Tool{}, false, nil
				}
				d, err := dialect.FunctionFields(fn, field.Join(ip, functionTool), schemaKey, "", n)
				return d, err == nil, err
			}, func(m map[string]any) string {
				fn, _ := m[functionTool].(map[string]any)
				s, _ := fn["name"].(string)
				return s
			})
		},
		WriteTools: func(body map[string]any, t dialect.Tools, n *dialect.Notes) {
			dialect.WriteOpenAITools(body, t, func(d dialect.Tool) any {
				fn := d.Object(nil)
				if d.Schema != nil {
					fn[schemaKey] = d.Schema
				}
				if d.Strict != nil {
					fn["strict"] = *d.Strict
				}
				return map[string]any{"type": functionTool, functionTool: fn}
			}, func(name string) any {
				return map[string]any{"type": functionTool, functionTool: map[string]any{"name": name}}
			})
		},
		ToolsMember: dialect.OpenAIToolsMember, ChoiceMember: dialect.OpenAIChoiceMember, ParallelMember: dialect.OpenAIParallelMember,
		ScanTools: scanTools, ScanChoice: scanChoice,
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

// functionTool is a function tool's type, and the member of a tool (and of
// a named tool choice) holding its function (ChatCompletionTool,
// ChatCompletionNamedToolChoice); schemaKey is the function's member
// holding its parameters' JSON Schema (FunctionObject.parameters).
const (
	functionTool = "function"
	schemaKey    = "parameters"
)

// scanTools is the Request's ScanTools: the tools member (at nesting level
// depth) null, or an array of function tools {"type": "function",
// "function": {name, description?, parameters?, strict?}}, type optional,
// as ReadTools reads them without a note (dialect.ScanFunctionFields). A
// hosted tool, another member or a value of another type reports false.
func scanTools(s *canonical.Scanner, depth int, text []byte, tc *canonical.Transcoder, into *[]dialect.RawTool) ([]byte, bool) {
	if s.Null() {
		return text, true
	}
	if !s.Byte('[') {
		return text, false
	}
	n := 0
	for ; ; n++ {
		more, ok := s.Elem(n)
		if !ok {
			return text, false
		}
		if !more {
			break
		}
		var t dialect.RawTool
		if _, ok := functionObject(s, func() bool {
			var ok bool
			text, ok = dialect.ScanFunctionFields(s, depth+2, schemaKey, text, tc, &t)
			return ok
		}); !ok {
			return text, false
		}
		*into = append(*into, t)
	}
	return text, s.Array(n)
}

// scanChoice is the Request's ScanChoice: tool_choice null, a mode string
// (dialect.OpenAIMode, as ReadTools' dialect.ReadOpenAIChoice takes), or
// {"type": "function", "function": {"name"}} (ChatCompletionNamedToolChoice,
// its type required, as there), into c. Anything else, which ReadTools
// notes, reports false.
func scanChoice(s *canonical.Scanner, depth int, c *dialect.Choice) bool {
	switch s.Next() {
	case 'n':
		return s.Null()
	case '"':
		var v string
		if !s.StringMember(&v) || !dialect.OpenAIMode(v) {
			return false
		}
		c.Mode = v
		return true
	}
	typed, ok := functionObject(s, func() bool {
		named, ok := canonical.EachOnce(s, func(name string) (uint8, bool) {
			return 1, name == "name" && s.StringMember(&c.Name) && c.Name != ""
		})
		return ok && named == 1
	})
	c.Mode = "tool"
	return ok && typed
}

// functionObject reads an object {"type": "function", "function": ...} at
// s, the function member's value read by function; typed says whether it
// had its type. ok is false for any other member or type, a duplicate, or
// no function member.
func functionObject(s *canonical.Scanner, function func() bool) (typed, ok bool) {
	seen, ok := canonical.EachOnce(s, func(name string) (uint8, bool) {
		switch name {
		case "type":
			var typ string
			return 1, s.StringMember(&typ) && typ == functionTool
		case functionTool:
			return 2, function()
		}
		return 0, false
	})
	return seen&1 != 0, ok && seen&2 != 0
}
