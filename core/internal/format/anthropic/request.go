package anthropic

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Request is the request-body shape of the Messages API: the list is
// messages; system is a string or a list of text blocks (a system prompt
// from another format is written as one string); tools are {name,
// description, input_schema} (type "custom" or none; input_schema is
// required, so a tool without parameters gets an empty object schema);
// tool_choice is {"type": "auto" | "any" | "tool" | "none", "name"?,
// "disable_parallel_tool_use"?}, "any" being the neutral "required" and
// disable_parallel_tool_use the inverse of the parallel switch.
// AppendTools, AppendChoice and AppendSystem write the same members as
// canonical bytes, sharing choiceType and dialect.AppendObjectSchema with
// WriteTools.
//
// See https://docs.anthropic.com/en/api/messages and anthropic-sdk-go
// MessageNewParams, ToolParam, ToolChoiceUnionParam, TextBlockParam.
func Request() *dialect.Request {
	return &dialect.Request{
		List: "messages", Required: true,
		ReadSystem: func(rest map[string]any, p string, n *dialect.Notes) ([]string, error) {
			v, _ := dialect.Take(rest, "system", false)
			switch x := v.(type) {
			case nil:
				return nil, nil
			case string:
				if x == "" {
					return nil, nil
				}
				return []string{x}, nil
			case []any:
				return dialect.TextBlocks(x, field.Join(p, "system"), "system", "text", n)
			}
			return nil, field.NewError(field.Join(p, "system"), "must be a string or an array of text blocks, got "+field.TypeName(v))
		},
		WriteSystem: func(body map[string]any, texts []string) { body["system"] = dialect.JoinSystem(texts) },
		AppendSystem: func(dst []byte, text string) (string, []byte) {
			return "system", canonical.AppendString(dst, text) // WriteSystem's one string
		},
		ReadTools: func(rest map[string]any, p string, n *dialect.Notes) (dialect.Tools, error) {
			var t dialect.Tools
			var err error
			t.Defs, err = dialect.TakeDefs(rest, "tools", p, false, n, func(m map[string]any, ip string) (dialect.Tool, bool, error) {
				if m["type"] != nil && m["type"] != "custom" {
					return dialect.Tool{}, false, nil // a server tool (web_search_..., bash_..., ...)
				}
				d, err := dialect.FunctionFields(m, ip, "input_schema", " type ", n)
				return d, err == nil, err
			})
			if err != nil {
				return t, err
			}
			c, err := dialect.TakeObject(rest, "tool_choice", p, false)
			if err != nil {
				return t, err
			}
			if c != nil {
				switch typ, _ := c["type"].(string); typ {
				case "auto", "none":
					t.Choice.Mode = typ
				case "any":
					t.Choice.Mode = "required"
				case "tool":
					t.Choice.Name, _ = c["name"].(string)
					t.Choice.Mode = "tool"
				default:
					n.Add(field.Join(p, "tool_choice") + " (" + dialect.OtherName(c) + ") has no place in the target")
				}
				if d, ok := c["disable_parallel_tool_use"].(bool); ok {
					par := !d
					t.Parallel = &par
				}
			}
			return t, nil
		},
		WriteTools: func(body map[string]any, t dialect.Tools, n *dialect.Notes) {
			if len(t.Defs) > 0 {
				tools := make([]any, len(t.Defs))
				for i, d := range t.Defs {
					d.NoteStrict(n, "an Anthropic tool")
					tools[i] = d.Object(map[string]any{"input_schema": dialect.ObjectSchema(d.Schema)})
				}
				body["tools"] = tools
			}
			off := t.Parallel != nil && !*t.Parallel
			typ := choiceType(t.Choice.Mode, off)
			if typ == "" {
				return
			}
			c := map[string]any{"type": typ}
			if t.Choice.Mode == "tool" {
				c["name"] = t.Choice.Name
			}
			if off {
				c["disable_parallel_tool_use"] = true
			}
			body["tool_choice"] = c
		},
		AppendTools:  appendTools,
		AppendChoice: appendChoice,
		Params: []dialect.Param{
			{Name: "model", Path: "model"}, {Name: "max_tokens", Path: "max_tokens"},
			{Name: "temperature", Path: "temperature"}, {Name: "top_p", Path: "top_p"}, {Name: "top_k", Path: "top_k"},
			{Name: "stop", Path: "stop_sequences"}, {Name: "stream", Path: "stream"},
		},
		Require: []string{"max_tokens"}, // MessageNewParams.MaxTokens is required
	}
}

// choiceType is the tool_choice type WriteTools and appendChoice write for
// the neutral choice mode ("auto", "none", "tool"; "required" is "any")
// with the parallel-calls switch off or not: "auto" for none given with
// the switch off (disable_parallel_tool_use needs a tool_choice to sit in),
// "" for no tool_choice.
func choiceType(mode string, parallelOff bool) string {
	switch mode {
	case "auto", "none", "tool":
		return mode
	case "required":
		return "any"
	}
	if parallelOff {
		return "auto"
	}
	return ""
}

// appendTools is the Request's AppendTools: the tools member, an array of
// {description?, input_schema, name} in that (RFC 8785) order, a tool
// without parameters getting dialect.AppendObjectSchema's empty object
// schema, as WriteTools writes them (ToolParam).
func appendTools(dst []byte, tools []dialect.RawTool) (string, []byte) {
	return "tools", dialect.AppendDecls(dst, tools, func(dst []byte, t dialect.RawTool) []byte {
		dst = dialect.AppendObjectSchema(append(dst, `"input_schema":`...), t.Schema)
		return canonical.AppendString(append(dst, `,"name":`...), t.Name)
	})
}

// appendChoice is the Request's AppendChoice: the tool_choice member
// {disable_parallel_tool_use?, name?, type} (ToolChoiceUnionParam), typed
// by choiceType as WriteTools writes it; none when choiceType gives none.
func appendChoice(dst []byte, c dialect.Choice, parallel int8) (string, []byte) {
	off := parallel < 0
	typ := choiceType(c.Mode, off)
	if typ == "" {
		return "", dst
	}
	dst = append(dst, '{')
	if off {
		dst = append(dst, `"disable_parallel_tool_use":true,`...)
	}
	if c.Mode == "tool" {
		dst = append(canonical.AppendString(append(dst, `"name":`...), c.Name), ',')
	}
	return "tool_choice", append(append(append(dst, `"type":"`...), typ...), `"}`...)
}
