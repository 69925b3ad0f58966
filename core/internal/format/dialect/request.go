package dialect

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
)

// Request is how one provider's whole request body holds what toolerr reads
// besides the message list: where the list sits, the system prompt, the tool
// definitions and the tool choice, server-side state, and the generation
// parameters that other formats have a place for. The request engine (package
// request) reads a body with it into a Shape, runs the transcript engine on
// the list, and writes the body back: the same format keeps every other
// member as it was, another format gets each part in its own place.
//
// The readers take rest, a copy of the body, and delete from it every member
// they read (a nested object they read part of is replaced by a copy holding
// what they left), so that what remains in rest is what no reader modelled.
// They add a note for whatever they read but cannot model (a hosted tool, a
// cache_control on a system block). A modelled member of the wrong JSON type
// is a *field.Error at its path under p, the body's path.
type Request struct {
	// List is the member holding the message list; Required says a body
	// must have it.
	List     string
	Required bool
	// TextList turns a list given as a string (a Responses input) into
	// list elements; nil: the list must be an array.
	TextList func(s string) []any
	// ReadSystem reads the system prompt (the text of each system block, in
	// order); WriteSystem puts texts in the body's place for it, after the
	// list was written (openai-chat prepends a system message to it).
	ReadSystem  func(rest map[string]any, p string, n *Notes) ([]string, error)
	WriteSystem func(body map[string]any, texts []string)
	// ReadTools reads the function tools, the tool choice and the
	// parallel-calls switch; WriteTools writes them, noting what the format
	// has no place for.
	ReadTools  func(rest map[string]any, p string, n *Notes) (Tools, error)
	WriteTools func(body map[string]any, t Tools, n *Notes)
	// AppendTools, AppendChoice and AppendSystem write, as bytes, what
	// WriteTools and WriteSystem put in a body, for a body written without
	// a value tree of its members (core's carried form of a body
	// conversion). Each appends to dst the canonical JSON (RFC 8785) of one
	// member's value, byte for byte what canonical.Append writes of the
	// value its tree-writing neighbour puts under that member, and returns
	// the member's name and dst; a hook that writes nothing returns member
	// "" and dst as it was. They write no note: WriteTools, given the same
	// tools, notes what has no place (a strict flag, the parallel switch).
	// nil in a format without them: its bodies are written through a tree.
	//
	// AppendTools writes the function tools (tools not empty), each one's
	// parameters as given (RawTool.Schema; AppendObjectSchema for a format
	// that requires a schema). AppendChoice writes the tool choice c (Mode
	// "" when none given) and the parallel-calls switch (parallel: 0 not
	// given, 1 on, -1 off) as WriteTools writes Tools.Choice and
	// Tools.Parallel. AppendSystem writes a system prompt of one text, as
	// WriteSystem(body, []string{text}) does.
	AppendTools  func(dst []byte, tools []RawTool) (member string, out []byte)
	AppendChoice func(dst []byte, c Choice, parallel int8) (member string, out []byte)
	AppendSystem func(dst []byte, text string) (member string, out []byte)
	// ScanTools and ScanChoice read, straight from a body's bytes (core's
	// carried form of a body conversion), what ReadTools reads of a tree:
	// ToolsMember's value and ChoiceMember's, at s, the value at nesting
	// level depth. ParallelMember names the parallel-calls switch, a
	// boolean or null, read by the caller. They take only what ReadTools
	// reads without a note or an error (a function tool whose every member
	// it carries, a choice it takes): anything else reports false, and the
	// caller reads the body as a tree. ScanTools appends each tool to into,
	// its parameters' canonical JSON appended to text and RawTool.Schema
	// that span of it, and returns text; ScanChoice sets into (a null:
	// Mode ""). nil (and the names "") in a format whose bodies are read
	// through a tree.
	ToolsMember, ChoiceMember, ParallelMember string
	ScanTools                                 func(s *canonical.Scanner, depth int, text []byte, tc *canonical.Transcoder, into *[]RawTool) ([]byte, bool)
	ScanChoice                                func(s *canonical.Scanner, depth int, into *Choice) bool
	// Server reads the server-side state a body refers to (nil: the format
	// has none); it deletes what it read from rest.
	Server func(rest map[string]any) Server
	// Params are the generation parameters the format has a place for, each
	// a neutral name and the member path in this format.
	Params []Param
	// Require names the parameters (neutral names) a body must give; a
	// conversion to this format without one says so.
	Require []string
	// ProtoJSON marks a body read by a proto3 JSON parser (Gemini), which
	// accepts each member under its lowerCamelCase name and its original
	// snake_case proto name; Params and the readers name the lowerCamelCase
	// one. See https://protobuf.dev/programming-guides/json/.
	ProtoJSON bool
}

// HasParam reports whether r has a place for the generation parameter of
// neutral name name (one of its Params).
func (r *Request) HasParam(name string) bool {
	for _, p := range r.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// Server is the server-side state a request builds on: a Responses
// previous_response_id or conversation id. Calls being answered may live
// there and not in the local list.
type Server struct {
	PreviousResponseID string
	Conversation       string
}

// Any reports whether the body refers to server-side state.
func (s Server) Any() bool { return s.PreviousResponseID != "" || s.Conversation != "" }

// Tools are a body's function tools in neutral form.
//
// Defs are the function declarations in order; Choice is the tool choice
// (Mode "" when the body gives none); Parallel is the parallel-calls switch
// (nil when not given; Anthropic's disable_parallel_tool_use is its
// inverse).
type Tools struct {
	Defs     []Tool
	Choice   Choice
	Parallel *bool
}

// Tool is one function declaration: Name, Description ("" = none), Schema
// (the parameters as a JSON Schema object; nil = none given, meaning no
// parameters) and Strict (nil = not given).
type Tool struct {
	Name        string
	Description string
	Schema      map[string]any
	Strict      *bool
}

// RawTool is a function declaration whose parameters are bytes (what
// Request.AppendTools writes): Name, Description ("" = none) and Schema,
// the canonical JSON (RFC 8785) of the parameters' JSON Schema object
// (empty = none given, meaning no parameters), as Tool.Schema encoded;
// Strict is Tool.Strict (0 not given, 1 true, -1 false), which no
// AppendTools writes (WriteTools notes it).
type RawTool struct {
	Name        string
	Description string
	Schema      []byte
	Strict      int8
}

// Raw is d as a RawTool: its schema as canonical JSON (nil for none; the
// error canonical.Marshal gives for a schema it cannot encode), its strict
// flag as RawTool.Strict.
func (d Tool) Raw() (RawTool, error) {
	r := RawTool{Name: d.Name, Description: d.Description}
	if d.Schema != nil {
		var err error
		if r.Schema, err = canonical.Marshal(d.Schema); err != nil {
			return RawTool{}, err
		}
	}
	if d.Strict != nil {
		r.Strict = -1
		if *d.Strict {
			r.Strict = 1
		}
	}
	return r, nil
}

// Choice is a tool choice: Mode is "auto" (the model decides), "required"
// (it must call a tool), "none" (it must not), "tool" (it must call Name),
// or "" (not given).
type Choice struct {
	Mode string
	Name string
}

// Param is one generation parameter: Name is the neutral name (model,
// max_tokens, temperature, top_p, top_k, stop, stream, ...); Path the member
// in this format, dotted for a nested one ("generationConfig.topP"), with
// "|" between the names it may be read from, the first being the one
// written ("max_completion_tokens|max_tokens").
type Param struct {
	Name, Path string
}

// Notes collects what a conversion could not carry, in plain words.
type Notes struct{ List []string }

// Add appends a note.
func (n *Notes) Add(s string) { n.List = append(n.List, s) }

// Take deletes key from rest and returns its value (nil, false when absent).
// With proto set, the snake_case name of key is taken when key is absent.
func Take(rest map[string]any, key string, proto bool) (any, bool) {
	if v, ok := rest[key]; ok {
		delete(rest, key)
		return v, true
	}
	if proto {
		if s := Snake(key); s != key {
			if v, ok := rest[s]; ok {
				delete(rest, s)
				return v, true
			}
		}
	}
	return nil, false
}

// Snake is the snake_case proto field name of a lowerCamelCase JSON name
// (systemInstruction -> system_instruction), as proto3 JSON maps them.
func Snake(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// TakeObject takes the object member key of rest (see Take): nil when
// absent or null; a value of another type is a *field.Error at p.key.
func TakeObject(rest map[string]any, key, p string, proto bool) (map[string]any, error) {
	v, ok := Take(rest, key, proto)
	if !ok || v == nil {
		return nil, nil
	}
	return field.As[map[string]any](v, field.Join(p, key))
}

// TakeArray takes the array member key of rest (see Take): nil when absent
// or null; a value of another type is a *field.Error at p.key.
func TakeArray(rest map[string]any, key, p string, proto bool) ([]any, error) {
	v, ok := Take(rest, key, proto)
	if !ok || v == nil {
		return nil, nil
	}
	return field.As[[]any](v, field.Join(p, key))
}

// TextBlocks reads a list of text blocks (Anthropic system blocks, Bedrock
// SystemContentBlocks, Gemini parts) at p: the text of each block whose
// text member is a string, in order; every other member of a block (its
// type excepted, when typ is set) is noted as not carried, named where.
func TextBlocks(arr []any, p, where, typ string, n *Notes) ([]string, error) {
	var out []string
	for i, v := range arr {
		b, err := field.As[map[string]any](v, field.Index(p, i))
		if err != nil {
			return nil, err
		}
		t, ok, err := field.Get[string](b, "text", field.Index(p, i))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, t)
		}
		// In name order: a note list in map order would differ from run
		// to run (and between targets) for the same request.
		for _, k := range slices.Sorted(maps.Keys(b)) {
			if k == "text" && ok || typ != "" && k == "type" && b[k] == typ {
				continue
			}
			n.Add(where + "[" + strconv.Itoa(i) + "]." + k + " is not carried (the target's system prompt takes text only)")
		}
	}
	return out, nil
}

// JoinSystem is the one text a format with a single system string takes.
func JoinSystem(texts []string) string { return strings.Join(texts, "\n\n") }

// ReadDefs reads the function tools of an array of tool objects at p with
// one, which returns the tool and false for a tool that is not a function
// (a hosted tool); those are noted by their type.
func ReadDefs(arr []any, p string, n *Notes, one func(m map[string]any, p string) (Tool, bool, error)) ([]Tool, error) {
	var out []Tool
	for i, v := range arr {
		ip := field.Index(p, i)
		m, err := field.As[map[string]any](v, ip)
		if err != nil {
			return nil, err
		}
		t, ok, err := one(m, ip)
		if err != nil {
			return nil, err
		}
		if !ok {
			n.Add(ip + " (" + OtherName(m) + ") is not a function tool and has no place in the target")
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// FunctionFields reads a function declaration's name (required), its
// description and its strict flag from m at p, and the JSON Schema of its
// parameters from schemaKey (nil when absent or null); other members are
// noted as not carried. known lists, space separated with a space at each
// end, the members the caller reads itself.
func FunctionFields(m map[string]any, p, schemaKey, known string, n *Notes) (Tool, error) {
	name, err := field.RequiredString(m, "name", p)
	if err != nil {
		return Tool{}, err
	}
	t := Tool{Name: name}
	if t.Description, _, err = field.Get[string](m, "description", p); err != nil {
		if m["description"] != nil {
			return Tool{}, err
		}
	}
	if schemaKey != "" && m[schemaKey] != nil {
		if t.Schema, err = field.As[map[string]any](m[schemaKey], field.Join(p, schemaKey)); err != nil {
			return Tool{}, err
		}
	}
	if s, ok := m["strict"].(bool); ok {
		t.Strict = &s
	}
	for _, k := range slices.Sorted(maps.Keys(m)) { // in name order, as every note list
		if v := m[k]; v == nil || strings.Contains(" name description strict "+schemaKey+" ", " "+k+" ") || strings.Contains(known, " "+k+" ") {
			continue
		}
		n.Add(field.Join(p, k) + " is not carried (no place for it in the target's tool definition)")
	}
	return t, nil
}

// ScanFunctionFields reads at s the function declaration object (nesting
// level depth) FunctionFields reads of a tree, when FunctionFields would
// read it whole, without a note or an error: its members are those
// FunctionFields reads, each once: name a string not empty, description a
// string or null, the parameters under schemaKey an object (its canonical
// JSON appended to text, t.Schema that span) or null, strict a boolean or
// null. It fills t and returns text; ok is false for any other member or
// value, for the caller to read the tree
// (TestScanFunctionFields_sameAsFunctionFields).
func ScanFunctionFields(s *canonical.Scanner, depth int, schemaKey string, text []byte, tc *canonical.Transcoder, t *RawTool) (_ []byte, ok bool) {
	seen, ok := canonical.EachOnce(s, func(name string) (uint8, bool) {
		switch {
		case name == "name":
			return 1, s.StringMember(&t.Name) && t.Name != ""
		case name == "description":
			return 2, s.Null() || s.StringMember(&t.Description)
		case name == "strict":
			if s.Null() {
				return 4, true
			}
			v, ok := s.Bool()
			t.Strict = -1
			if v {
				t.Strict = 1
			}
			return 4, ok
		case name == schemaKey && schemaKey != "":
			if s.Null() {
				return 8, true
			}
			if s.Next() != '{' {
				return 8, false
			}
			from := len(text)
			var ok bool
			text, ok = s.AppendCanonical(text, depth+1, tc)
			t.Schema = text[from:len(text):len(text)]
			return 8, ok
		}
		return 0, false
	})
	return text, ok && seen&1 != 0
}

// ObjectSchema is the schema a format that requires one gets for a tool
// given without parameters: an object with no properties, which is what an
// omitted parameters member means to OpenAI. See
// https://platform.openai.com/docs/guides/function-calling.
func ObjectSchema(s map[string]any) map[string]any {
	if s != nil {
		return s
	}
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

// objectSchemaJSON is ObjectSchema(nil) as canonical JSON, made from it
// once (a map of a string and an empty map, which always encodes:
// TestAppendObjectSchema).
var objectSchemaJSON, _ = canonical.Marshal(ObjectSchema(nil))

// AppendObjectSchema appends schema, the canonical JSON of a tool's
// parameters (RawTool.Schema), or, when it is empty, the canonical JSON of
// ObjectSchema(nil), the schema a format that requires one gets for a tool
// given without parameters: AppendObjectSchema is ObjectSchema in bytes.
func AppendObjectSchema(dst, schema []byte) []byte {
	if len(schema) == 0 {
		return append(dst, objectSchemaJSON...)
	}
	return append(dst, schema...)
}

// AppendDecls appends tools as a JSON array of function declaration
// objects, the way a Request's AppendTools writes them: each object begun
// with its description member when it has one, its other members (those
// sorting after "description" in RFC 8785 order: the name, the schema)
// written by rest, which appends them after the object's '{' or the
// description's ',' and leaves the '}' to AppendDecls.
func AppendDecls(dst []byte, tools []RawTool, rest func(dst []byte, t RawTool) []byte) []byte {
	dst = append(dst, '[')
	for i, t := range tools {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		if t.Description != "" {
			dst = append(canonical.AppendString(append(dst, `"description":`...), t.Description), ',')
		}
		dst = append(rest(dst, t), '}')
	}
	return append(dst, ']')
}

// TakeBool takes the boolean member key of rest; nil when absent or not a
// boolean.
func TakeBool(rest map[string]any, key string) *bool {
	v, _ := Take(rest, key, false)
	if b, ok := v.(bool); ok {
		return &b
	}
	return nil
}

// ReadOpenAIChoice takes an OpenAI tool_choice from rest: the modes "none",
// "auto" and "required" as strings, a named function as an object of type
// "function" whose name nameOf reads; any other value is noted and read as
// none given.
func ReadOpenAIChoice(rest map[string]any, p string, n *Notes, nameOf func(m map[string]any) string) Choice {
	v, _ := Take(rest, OpenAIChoiceMember, false)
	switch x := v.(type) {
	case nil:
		return Choice{}
	case string:
		if OpenAIMode(x) {
			return Choice{Mode: x}
		}
	case map[string]any:
		if name := nameOf(x); x["type"] == "function" && name != "" {
			return Choice{Mode: "tool", Name: name}
		}
	}
	n.Add(field.Join(p, OpenAIChoiceMember) + " (" + OtherName(v) + ") has no place in the target")
	return Choice{}
}

// OpenAIMode reports whether s is one of the tool choice modes an OpenAI
// tool_choice gives as a string ("none", "auto", "required"), which are
// the neutral Choice modes of the same names. See
// ChatCompletionToolChoiceOption in github.com/openai/openai-openapi.
func OpenAIMode(s string) bool { return s == "none" || s == "auto" || s == "required" }

// The members of an OpenAI body (Chat Completions, Responses) holding its
// tools, its tool choice and its parallel-calls switch, as ReadOpenAITools
// reads and WriteOpenAITools writes them.
const (
	OpenAIToolsMember    = "tools"
	OpenAIChoiceMember   = "tool_choice"
	OpenAIParallelMember = "parallel_tool_calls"
)

// WriteOpenAIChoice writes c as an OpenAI tool_choice: a mode as its
// string, a named tool through named.
func WriteOpenAIChoice(body map[string]any, c Choice, named func(name string) any) {
	switch c.Mode {
	case "":
	case "tool":
		body[OpenAIChoiceMember] = named(c.Name)
	default:
		body[OpenAIChoiceMember] = c.Mode
	}
}

// TakeDefs takes the array of tool objects under key from rest and reads
// its function tools with one (see ReadDefs).
func TakeDefs(rest map[string]any, key, p string, proto bool, n *Notes, one func(m map[string]any, p string) (Tool, bool, error)) ([]Tool, error) {
	arr, err := TakeArray(rest, key, p, proto)
	if err != nil {
		return nil, err
	}
	return ReadDefs(arr, field.Join(p, key), n, one)
}

// ReadOpenAITools reads the tools, tool_choice and parallel_tool_calls of
// an OpenAI body: one reads a function tool object, nameOf the function
// name of a named tool choice.
func ReadOpenAITools(rest map[string]any, p string, n *Notes, one func(m map[string]any, p string) (Tool, bool, error), nameOf func(m map[string]any) string) (Tools, error) {
	defs, err := TakeDefs(rest, OpenAIToolsMember, p, false, n, one)
	if err != nil {
		return Tools{}, err
	}
	return Tools{Defs: defs, Choice: ReadOpenAIChoice(rest, p, n, nameOf), Parallel: TakeBool(rest, OpenAIParallelMember)}, nil
}

// WriteOpenAITools writes the tools of an OpenAI body, each through one,
// the tool choice (a named one through named) and parallel_tool_calls.
func WriteOpenAITools(body map[string]any, t Tools, one func(d Tool) any, named func(name string) any) {
	if len(t.Defs) > 0 {
		tools := make([]any, len(t.Defs))
		for i, d := range t.Defs {
			tools[i] = one(d)
		}
		body[OpenAIToolsMember] = tools
	}
	WriteOpenAIChoice(body, t.Choice, named)
	if t.Parallel != nil {
		body[OpenAIParallelMember] = *t.Parallel
	}
}

// Object starts the declaration of d in a target's tool shape: its name and,
// when it has one, its description, plus the members of extra.
func (d Tool) Object(extra map[string]any) map[string]any {
	m := map[string]any{"name": d.Name}
	if d.Description != "" {
		m["description"] = d.Description
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// NoteStrict notes a strict flag the target has no place for.
func (d Tool) NoteStrict(n *Notes, where string) {
	if d.Strict != nil && *d.Strict {
		n.Add("tools[" + d.Name + "].strict is not carried (no place for it in " + where + ")")
	}
}
