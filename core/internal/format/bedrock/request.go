package bedrock

import (
	"maps"
	"slices"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Request is the request-body shape of Converse: the list is messages;
// system is a list of SystemContentBlocks ({"text"}; cachePoint and
// guardContent blocks are not text); tools are
// toolConfig.tools[].toolSpec {name, description, inputSchema: {json}}
// (inputSchema is required, so a tool without parameters gets an empty
// object schema); toolConfig.toolChoice is {"auto": {}}, {"any": {}} or
// {"tool": {"name"}} (there is no "none"); the model is in the URL
// (modelId), not the body.
//
// See the botocore service model bedrock-runtime 2023-09-30, shapes
// ConverseRequest, SystemContentBlock, ToolConfiguration, ToolSpecification,
// ToolChoice, InferenceConfiguration (github.com/boto/botocore).
func Request() *dialect.Request {
	return &dialect.Request{
		List: "messages", Required: true,
		ReadSystem: func(rest map[string]any, p string, n *dialect.Notes) ([]string, error) {
			arr, err := dialect.TakeArray(rest, "system", p, false)
			if err != nil {
				return nil, err
			}
			return dialect.TextBlocks(arr, field.Join(p, "system"), "system", "", n)
		},
		WriteSystem: func(body map[string]any, texts []string) {
			blocks := make([]any, len(texts))
			for i, t := range texts {
				blocks[i] = map[string]any{"text": t}
			}
			body["system"] = blocks
		},
		ReadTools: func(rest map[string]any, p string, n *dialect.Notes) (dialect.Tools, error) {
			var t dialect.Tools
			tc, err := dialect.TakeObject(rest, "toolConfig", p, false)
			if tc == nil || err != nil {
				return t, err
			}
			tp := field.Join(p, "toolConfig")
			arr, _, err := field.Get[[]any](tc, "tools", tp)
			if err != nil {
				return t, err
			}
			t.Defs, err = dialect.ReadDefs(arr, field.Join(tp, "tools"), n, func(m map[string]any, ip string) (dialect.Tool, bool, error) {
				spec, ok := m["toolSpec"].(map[string]any)
				if !ok {
					return dialect.Tool{}, false, nil // cachePoint, systemTool
				}
				sp := field.Join(ip, "toolSpec")
				d, err := dialect.FunctionFields(spec, sp, "", " inputSchema ", n)
				if err != nil {
					return d, false, err
				}
				if is, ok := spec["inputSchema"].(map[string]any); ok {
					d.Schema, _ = is["json"].(map[string]any)
				}
				return d, true, nil
			})
			if err != nil {
				return t, err
			}
			if c, ok := tc["toolChoice"].(map[string]any); ok {
				switch {
				case c["auto"] != nil:
					t.Choice.Mode = "auto"
				case c["any"] != nil:
					t.Choice.Mode = "required"
				case c["tool"] != nil:
					tool, _ := c["tool"].(map[string]any)
					t.Choice.Mode = "tool"
					t.Choice.Name, _ = tool["name"].(string)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(tc)) { // in name order, as every note list
				if k != "tools" && k != "toolChoice" {
					n.Add(field.Join(tp, k) + " has no place in the target")
				}
			}
			return t, nil
		},
		WriteTools: func(body map[string]any, t dialect.Tools, n *dialect.Notes) {
			tc := map[string]any{}
			if len(t.Defs) > 0 {
				tools := make([]any, len(t.Defs))
				for i, d := range t.Defs {
					d.NoteStrict(n, "a Bedrock toolSpec")
					tools[i] = map[string]any{"toolSpec": d.Object(map[string]any{"inputSchema": map[string]any{"json": dialect.ObjectSchema(d.Schema)}})}
				}
				tc["tools"] = tools
			}
			switch t.Choice.Mode {
			case "auto":
				tc["toolChoice"] = map[string]any{"auto": map[string]any{}}
			case "required":
				tc["toolChoice"] = map[string]any{"any": map[string]any{}}
			case "tool":
				tc["toolChoice"] = map[string]any{"tool": map[string]any{"name": t.Choice.Name}}
			case "none":
				n.Add(`tool_choice "none" has no place in Bedrock (toolChoice is auto, any or tool); the tools are kept, since Converse needs toolConfig whenever the messages hold toolUse blocks`)
			}
			if t.Parallel != nil && !*t.Parallel {
				n.Add("the parallel-calls switch (off) has no place in Bedrock")
			}
			if len(tc) > 0 {
				if tc["tools"] == nil {
					n.Add("a tool choice without tools has no place in Bedrock (toolConfig.tools is required)")
					return
				}
				body["toolConfig"] = tc
			}
		},
		Params: []dialect.Param{
			{Name: "max_tokens", Path: "inferenceConfig.maxTokens"}, {Name: "temperature", Path: "inferenceConfig.temperature"},
			{Name: "top_p", Path: "inferenceConfig.topP"}, {Name: "stop", Path: "inferenceConfig.stopSequences"},
		},
	}
}
