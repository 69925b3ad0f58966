package gemini

import (
	"maps"
	"slices"
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Request is the request-body shape of generateContent: the list is
// contents; systemInstruction is a Content whose text parts are the system
// prompt (written as {"parts": [{"text"}]}); tools[].functionDeclarations
// are the function tools, their parameters given either as an OpenAPI
// Schema (parameters, converted to JSON Schema when read) or as JSON Schema
// (parametersJsonSchema, which is where toolerr writes them);
// toolConfig.functionCallingConfig {mode: AUTO | ANY | NONE,
// allowedFunctionNames} is the tool choice, ANY with one allowed name
// forcing that tool; the generation parameters sit in generationConfig; the
// model is in the URL path, not the body. Members are read under their
// lowerCamelCase and their snake_case proto names alike. AppendTools,
// AppendChoice and AppendSystem write the same members as canonical bytes,
// sharing callingMode with writeTools.
//
// See https://ai.google.dev/api/generate-content, googleapis
// google/ai/generativelanguage/v1beta/generative_service.proto
// (GenerateContentRequest, GenerationConfig), content.proto (Tool,
// FunctionDeclaration, ToolConfig, FunctionCallingConfig, Schema, Type) and
// google.golang.org/genai FunctionDeclaration.
func Request() *dialect.Request {
	return &dialect.Request{
		List: "contents", Required: true, ProtoJSON: true,
		ReadSystem: func(rest map[string]any, p string, n *dialect.Notes) ([]string, error) {
			c, err := dialect.TakeObject(rest, "systemInstruction", p, true)
			if c == nil || err != nil {
				return nil, err
			}
			sp := field.Join(p, "systemInstruction")
			parts, _, err := field.Get[[]any](c, "parts", sp)
			if err != nil {
				return nil, err
			}
			return dialect.TextBlocks(parts, field.Join(sp, "parts"), "systemInstruction.parts", "", n)
		},
		WriteSystem: func(body map[string]any, texts []string) {
			parts := make([]any, len(texts))
			for i, t := range texts {
				parts[i] = map[string]any{"text": t}
			}
			body["systemInstruction"] = map[string]any{"parts": parts}
		},
		AppendSystem: func(dst []byte, text string) (string, []byte) {
			// WriteSystem's Content of one text part
			dst = canonical.AppendString(append(dst, `{"parts":[{"text":`...), text)
			return "systemInstruction", append(dst, "}]}"...)
		},
		ReadTools:    readTools,
		WriteTools:   writeTools,
		AppendTools:  appendTools,
		AppendChoice: appendChoice,
		Params: []dialect.Param{
			{Name: "max_tokens", Path: "generationConfig.maxOutputTokens"}, {Name: "temperature", Path: "generationConfig.temperature"},
			{Name: "top_p", Path: "generationConfig.topP"}, {Name: "top_k", Path: "generationConfig.topK"},
			{Name: "stop", Path: "generationConfig.stopSequences"}, {Name: "seed", Path: "generationConfig.seed"},
			{Name: "presence_penalty", Path: "generationConfig.presencePenalty"}, {Name: "frequency_penalty", Path: "generationConfig.frequencyPenalty"},
		},
	}
}

func readTools(rest map[string]any, p string, n *dialect.Notes) (dialect.Tools, error) {
	var t dialect.Tools
	arr, err := dialect.TakeArray(rest, "tools", p, true)
	if err != nil {
		return t, err
	}
	tp := field.Join(p, "tools")
	for i, v := range arr {
		ip := field.Index(tp, i)
		m, err := field.As[map[string]any](v, ip)
		if err != nil {
			return t, err
		}
		for _, k := range slices.Sorted(maps.Keys(m)) { // in name order, as every note list
			x := m[k]
			if k != "functionDeclarations" && k != "function_declarations" {
				n.Add(field.Join(ip, k) + " is not a function tool and has no place in the target")
				continue
			}
			decls, err := field.As[[]any](x, field.Join(ip, k))
			if err != nil {
				return t, err
			}
			defs, err := dialect.ReadDefs(decls, field.Join(ip, k), n, func(d map[string]any, dp string) (dialect.Tool, bool, error) {
				schemaKey := "parametersJsonSchema"
				if d[schemaKey] == nil && d["parameters_json_schema"] != nil {
					schemaKey = "parameters_json_schema"
				}
				tool, err := dialect.FunctionFields(d, dp, schemaKey, " parameters ", n)
				if err != nil {
					return tool, false, err
				}
				if s, ok := d["parameters"].(map[string]any); ok && tool.Schema == nil {
					ordered := 0
					tool.Schema = jsonSchema(s, &ordered)
					if ordered > 0 {
						n.Add(field.Join(dp, "parameters") + ": propertyOrdering is not carried (JSON Schema has no property order)")
					}
				}
				return tool, true, nil
			})
			if err != nil {
				return t, err
			}
			t.Defs = append(t.Defs, defs...)
		}
	}
	tc, err := dialect.TakeObject(rest, "toolConfig", p, true)
	if tc == nil || err != nil {
		return t, err
	}
	cp := field.Join(p, "toolConfig")
	for _, k := range slices.Sorted(maps.Keys(tc)) { // in name order, as every note list
		v := tc[k]
		if k != "functionCallingConfig" && k != "function_calling_config" {
			n.Add(field.Join(cp, k) + " has no place in the target")
			continue
		}
		fc, _ := v.(map[string]any)
		mode, _ := fc["mode"].(string)
		names, _ := fc["allowedFunctionNames"].([]any)
		if names == nil {
			names, _ = fc["allowed_function_names"].([]any)
		}
		switch mode {
		case "AUTO", "MODE_UNSPECIFIED", "":
			t.Choice.Mode = "auto"
		case "NONE":
			t.Choice.Mode = "none"
		case "ANY":
			t.Choice.Mode = "required"
			if len(names) == 1 {
				t.Choice.Name, _ = names[0].(string)
				t.Choice.Mode = "tool"
			} else if len(names) > 1 {
				n.Add(field.Join(cp, "functionCallingConfig.allowedFunctionNames") + " (more than one name) has no place in the target; any tool may be called")
			}
		default:
			n.Add(field.Join(cp, "functionCallingConfig.mode") + " " + dialect.DisplayName(mode) + " has no place in the target")
		}
	}
	return t, nil
}

func writeTools(body map[string]any, t dialect.Tools, n *dialect.Notes) {
	if len(t.Defs) > 0 {
		decls := make([]any, len(t.Defs))
		for i, d := range t.Defs {
			fd := d.Object(nil)
			if d.Schema != nil {
				fd["parametersJsonSchema"] = d.Schema
			}
			d.NoteStrict(n, "a Gemini FunctionDeclaration")
			decls[i] = fd
		}
		body["tools"] = []any{map[string]any{"functionDeclarations": decls}}
	}
	if mode := callingMode(t.Choice.Mode); mode != "" {
		fc := map[string]any{"mode": mode}
		if t.Choice.Mode == "tool" {
			fc["allowedFunctionNames"] = []any{t.Choice.Name}
		}
		body["toolConfig"] = map[string]any{"functionCallingConfig": fc}
	}
	if t.Parallel != nil && !*t.Parallel {
		n.Add("the parallel-calls switch (off) has no place in Gemini")
	}
}

// callingMode is the FunctionCallingConfig mode writeTools and appendChoice
// write for the neutral choice mode: AUTO, NONE, ANY for "required" and for
// "tool" (its one allowed name forcing it); "" for none given.
func callingMode(mode string) string {
	switch mode {
	case "auto":
		return "AUTO"
	case "none":
		return "NONE"
	case "required", "tool":
		return "ANY"
	}
	return ""
}

// appendTools is the Request's AppendTools: the tools member, one Tool
// [{"functionDeclarations": [{description?, name, parametersJsonSchema?}]}]
// in that (RFC 8785) order, each schema as given, as writeTools writes them
// (FunctionDeclaration).
func appendTools(dst []byte, tools []dialect.RawTool) (string, []byte) {
	dst = dialect.AppendDecls(append(dst, `[{"functionDeclarations":`...), tools, func(dst []byte, t dialect.RawTool) []byte {
		dst = canonical.AppendString(append(dst, `"name":`...), t.Name)
		if len(t.Schema) > 0 {
			dst = append(append(dst, `,"parametersJsonSchema":`...), t.Schema...)
		}
		return dst
	})
	return "tools", append(dst, "}]"...)
}

// appendChoice is the Request's AppendChoice: the toolConfig member
// {"functionCallingConfig": {allowedFunctionNames?, mode}}, its mode
// callingMode's, as writeTools writes it; none for no choice. Gemini has no
// parallel-calls switch (writeTools notes one turned off).
func appendChoice(dst []byte, c dialect.Choice, _ int8) (string, []byte) {
	mode := callingMode(c.Mode)
	if mode == "" {
		return "", dst
	}
	dst = append(dst, `{"functionCallingConfig":{`...)
	if c.Mode == "tool" {
		dst = append(canonical.AppendString(append(dst, `"allowedFunctionNames":[`...), c.Name), "],"...)
	}
	return "toolConfig", append(append(append(dst, `"mode":"`...), mode...), `"}}`...)
}

// typeNames are the names of the Schema Type enum by number (content.proto
// Type: TYPE_UNSPECIFIED 0, STRING 1, NUMBER 2, INTEGER 3, BOOLEAN 4, ARRAY
// 5, OBJECT 6, NULL 7); proto3 JSON accepts an enum as its name or number.
var typeNames = [...]string{"", "string", "number", "integer", "boolean", "array", "object", "null"}

// JSONSchema converts a Gemini Schema (the OpenAPI 3.0 subset of
// content.proto Schema) into JSON Schema: type names lower-cased (numbers
// read as the Type enum), nullable as a "null" type, example as examples,
// propertyOrdering dropped (JSON Schema has no order), snake_case proto
// names as their lowerCamelCase JSON names; properties, items and anyOf
// converted in turn; every other member kept as it is (format, enum,
// required, minimum, maxItems, ... mean the same in JSON Schema).
func JSONSchema(s map[string]any) map[string]any {
	var n int
	return jsonSchema(s, &n)
}

// jsonSchema is JSONSchema, counting the propertyOrdering members dropped.
func jsonSchema(s map[string]any, ordered *int) map[string]any {
	out := make(map[string]any, len(s))
	nullable := false
	for k, v := range s {
		k = camel(k)
		switch k {
		case "type":
			switch x := v.(type) {
			case string:
				out["type"] = strings.ToLower(strings.TrimPrefix(x, "TYPE_"))
				if x == "TYPE_UNSPECIFIED" {
					delete(out, "type")
				}
			case float64:
				if i := int(x); float64(i) == x && i > 0 && i < len(typeNames) {
					out["type"] = typeNames[i]
				}
			}
		case "nullable":
			nullable, _ = v.(bool)
		case "example":
			out["examples"] = []any{v}
		case "propertyOrdering":
			*ordered++
		case "properties":
			if m, ok := v.(map[string]any); ok {
				props := make(map[string]any, len(m))
				for name, p := range m {
					props[name] = subschema(p, ordered)
				}
				v = props
			}
			out[k] = v
		case "items":
			out[k] = subschema(v, ordered)
		case "anyOf":
			if arr, ok := v.([]any); ok {
				subs := make([]any, len(arr))
				for i, x := range arr {
					subs[i] = subschema(x, ordered)
				}
				v = subs
			}
			out[k] = v
		default:
			out[k] = v
		}
	}
	if t, ok := out["type"].(string); ok && nullable {
		out["type"] = []any{t, "null"}
	}
	return out
}

// subschema is jsonSchema of x when x is a schema object (a member of
// properties, the items schema, an anyOf branch), and x as it is otherwise.
func subschema(x any, ordered *int) any {
	if m, ok := x.(map[string]any); ok {
		return jsonSchema(m, ordered)
	}
	return x
}

// camel is the lowerCamelCase JSON name of a snake_case proto field name.
func camel(k string) string {
	if !strings.Contains(k, "_") {
		return k
	}
	var b strings.Builder
	up := false
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_':
			up = true
		case up && c >= 'a' && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
			up = false
		default:
			b.WriteByte(c)
			up = false
		}
	}
	return b.String()
}
