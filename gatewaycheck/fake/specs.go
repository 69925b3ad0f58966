package fake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// english prints the validator's messages (read-only after init).
var english = message.NewPrinter(language.English)

// Specs holds the vendors' published request schemas the fakes validate
// bodies against, besides the rules encoded in this package:
//   - openai-openapi.yaml: the OpenAI OpenAPI spec
//     (github.com/openai/openai-openapi), whose CreateChatCompletionRequest
//     and CreateResponse schemas are compiled with santhosh-tekuri/jsonschema
//     (draft 2020-12, $refs resolved in the whole document);
//   - aws-bedrock-runtime-2023-09-30-service-2.json: the Bedrock Runtime
//     service model (botocore), whose ConverseRequest shape is walked as
//     botocore's ParamValidator does, plus the enums, lengths and patterns
//     the service enforces.
//
// A nil *Specs validates nothing (every method is nil-safe).
type Specs struct {
	dir string

	oaOnce sync.Once
	oaErr  error
	oa     map[string]*jsonschema.Schema

	model *serviceModel
}

// LoadSpecs reads the specs from dir (the files named above; a file that is
// absent is skipped). It returns an error when a present file does not
// parse, and (nil, nil) when dir holds none of them.
func LoadSpecs(dir string) (*Specs, error) {
	s := &Specs{dir: dir}
	found := false
	if _, err := os.Stat(filepath.Join(dir, "openai-openapi.yaml")); err == nil {
		found = true
		s.oaOnce.Do(s.compileOpenAPI)
		if s.oaErr != nil {
			return nil, s.oaErr
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "aws-bedrock-runtime-2023-09-30-service-2.json"))
	if err == nil {
		found = true
		var m serviceModel
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("gatewaycheck: bedrock service model: %w", err)
		}
		s.model = &m
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if !found {
		return nil, nil
	}
	return s, nil
}

// Has reports which specs are loaded: "openai", "bedrock".
func (s *Specs) Has() []string {
	if s == nil {
		return nil
	}
	var out []string
	if s.oa != nil {
		out = append(out, "openai")
	}
	if s.model != nil {
		out = append(out, "bedrock")
	}
	return out
}

func (s *Specs) compileOpenAPI() {
	b, err := os.ReadFile(filepath.Join(s.dir, "openai-openapi.yaml"))
	if err != nil {
		s.oaErr = err
		return
	}
	var y any
	if err := yaml.Unmarshal(b, &y); err != nil {
		s.oaErr = fmt.Errorf("gatewaycheck: openai-openapi.yaml: %w", err)
		return
	}
	y = stringKeys(y)
	dropRecursiveAnchors(y)
	oneOfAsAnyOf(y)
	j, err := json.Marshal(y)
	if err != nil {
		s.oaErr = err
		return
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		s.oaErr = err
		return
	}
	const url = "file:///specs/openai-openapi.yaml"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(url, doc); err != nil {
		s.oaErr = err
		return
	}
	s.oa = map[string]*jsonschema.Schema{}
	for _, name := range []string{"CreateChatCompletionRequest", "CreateResponse"} {
		sch, err := c.Compile(url + "#/components/schemas/" + name)
		if err != nil {
			s.oaErr = fmt.Errorf("gatewaycheck: compiling %s: %w", name, err)
			return
		}
		s.oa[name] = sch
	}
}

// stringKeys turns YAML's map[any]any (status-code keys such as 200) into
// map[string]any, recursively, so the document marshals as JSON.
func stringKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = stringKeys(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = stringKeys(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = stringKeys(e)
		}
	}
	return v
}

// dropRecursiveAnchors rewrites the draft 2019-09 $recursiveAnchor /
// $recursiveRef pair some component schemas use (CompoundFilter) as a plain
// $ref to the component, which means the same there and which draft 2020-12
// (the spec's own dialect, OpenAPI 3.1) accepts.
func dropRecursiveAnchors(doc any) {
	schemas := obj(obj(obj(doc)["components"])["schemas"])
	for name, sch := range schemas {
		m := obj(sch)
		if _, ok := m["$recursiveAnchor"]; !ok {
			continue
		}
		delete(m, "$recursiveAnchor")
		ref := "#/components/schemas/" + name
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if r, ok := x["$recursiveRef"]; ok && r == "#" {
					delete(x, "$recursiveRef")
					x["$ref"] = ref
				}
				for _, e := range x {
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(m)
	}
}

// oneOfAsAnyOf reads every oneOf of the spec as anyOf. The spec's unions
// overlap (a typed user message matches both EasyInputMessage and
// InputMessage; a function_call_output's input_text list matches more than
// one content union), the API accepts a value that any branch describes, and
// oneOf would reject exactly those values. An object with both keeps both
// constraints under allOf.
func oneOfAsAnyOf(v any) {
	switch x := v.(type) {
	case map[string]any:
		if o, ok := x["oneOf"]; ok {
			delete(x, "oneOf")
			if a, has := x["anyOf"]; has {
				x["allOf"] = append(arr(x["allOf"]), map[string]any{"anyOf": a}, map[string]any{"anyOf": o})
				delete(x, "anyOf")
			} else {
				x["anyOf"] = o
			}
		}
		for _, e := range x {
			oneOfAsAnyOf(e)
		}
	case []any:
		for _, e := range x {
			oneOfAsAnyOf(e)
		}
	}
}

// validateOpenAPI validates body against the named OpenAPI schema and
// answers OpenAI's 400 shape naming the first failing member.
func (s *Specs) validateOpenAPI(name string, body []byte) *violation {
	if s == nil || s.oa == nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return nil // the JSON rule answers this
	}
	err = s.oa[name].Validate(inst)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	loc, kind := commonFailure(ve)
	param := pointerToParam(loc)
	return &violation{status: http.StatusBadRequest, rule: "openai.schema." + name, typ: "invalid_request_error", param: param, code: "invalid_value",
		msg: fmt.Sprintf("Invalid '%s': %s (OpenAPI %s).", param, kind, name)}
}

// commonFailure returns the deepest instance location every leaf failure
// lies under (so a value that matches none of a oneOf's branches is named,
// not one branch's complaint) and the leaf's own words when there is one.
func commonFailure(e *jsonschema.ValidationError) ([]string, string) {
	var leaves []*jsonschema.ValidationError
	var walk func(*jsonschema.ValidationError)
	walk = func(x *jsonschema.ValidationError) {
		if len(x.Causes) == 0 {
			leaves = append(leaves, x)
		}
		for _, c := range x.Causes {
			walk(c)
		}
	}
	walk(e)
	// A union's other branches fail on the discriminating type or const;
	// the branch the value meant fails on something else: keep that one.
	var meant []*jsonschema.ValidationError
	for _, l := range leaves {
		switch l.ErrorKind.(type) {
		case *kind.Type, *kind.Const, *kind.Enum:
		default:
			meant = append(meant, l)
		}
	}
	if len(meant) > 0 {
		leaves = meant
	}
	if len(leaves) == 1 {
		return leaves[0].InstanceLocation, leaves[0].ErrorKind.LocalizedString(english)
	}
	common := leaves[0].InstanceLocation
	for _, l := range leaves[1:] {
		n := 0
		for n < len(common) && n < len(l.InstanceLocation) && common[n] == l.InstanceLocation[n] {
			n++
		}
		common = common[:n]
	}
	for _, l := range leaves {
		if len(l.InstanceLocation) == len(common) {
			return common, l.ErrorKind.LocalizedString(english)
		}
	}
	return common, "the value matches none of the allowed schemas"
}

// pointerToParam writes an instance location as OpenAI names params:
// messages[2].content.
func pointerToParam(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		if isDigits(p) {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	if b.Len() == 0 {
		return "body"
	}
	return b.String()
}

// serviceModel is the part of a botocore service model the walker reads.
type serviceModel struct {
	Shapes map[string]serviceShape `json:"shapes"`
}

type serviceShape struct {
	Type     string   `json:"type"`
	Required []string `json:"required"`
	Members  map[string]struct {
		Shape    string `json:"shape"`
		Location string `json:"location"`
	} `json:"members"`
	Member struct {
		Shape string `json:"shape"`
	} `json:"member"`
	Key struct {
		Shape string `json:"shape"`
	} `json:"key"`
	Value struct {
		Shape string `json:"shape"`
	} `json:"value"`
	Enum     []string `json:"enum"`
	Pattern  string   `json:"pattern"`
	Min      *float64 `json:"min"`
	Max      *float64 `json:"max"`
	Union    bool     `json:"union"`
	Document bool     `json:"document"`
}

// validateBedrock walks the request body against shape name and answers the
// first failure as a ValidationException.
func (s *Specs) validateBedrock(name string, body map[string]any) *violation {
	if s == nil || s.model == nil {
		return nil
	}
	if msg := s.model.check(name, body, ""); msg != "" {
		return &violation{status: http.StatusBadRequest, rule: "bedrock.service_model", typ: "ValidationException", msg: msg}
	}
	return nil
}

// patterns caches compiled service-model patterns (read-only after first use).
var patterns sync.Map

func fullMatch(pattern, s string) bool {
	re, ok := patterns.Load(pattern)
	if !ok {
		c, err := regexp.Compile(`^(?:` + pattern + `)$`)
		if err != nil {
			return true // a pattern Go cannot compile is not enforced
		}
		re, _ = patterns.LoadOrStore(pattern, c)
	}
	return re.(*regexp.Regexp).MatchString(s)
}

// check returns the first constraint v breaks, in AWS's validation wording
// ("1 validation error detected: Value at 'messages.1.member.content' failed
// to satisfy constraint: ..."), or "". Members bound to the URI or headers
// (location set) are not part of the body and are skipped.
func (m *serviceModel) check(name string, v any, path string) string {
	s, ok := m.Shapes[name]
	if !ok {
		return ""
	}
	at := func(constraint string) string {
		p := path
		if p == "" {
			p = "body"
		}
		return fmt.Sprintf("1 validation error detected: Value at '%s' failed to satisfy constraint: %s", p, constraint)
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch s.Type {
	case "structure":
		if s.Document {
			return ""
		}
		o, ok := v.(map[string]any)
		if !ok {
			return at("Member must be a structure")
		}
		for _, r := range s.Required {
			if s.Members[r].Location != "" {
				continue
			}
			if _, has := o[r]; !has {
				return at("Member " + r + " must not be null")
			}
		}
		if s.Union && len(o) != 1 {
			return at("Member must set exactly one member of union " + name)
		}
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			mem, ok := s.Members[k]
			if !ok || mem.Location != "" {
				return fmt.Sprintf("1 validation error detected: Unknown member '%s' at '%s'", k, join(k))
			}
			if msg := m.check(mem.Shape, o[k], join(k)); msg != "" {
				return msg
			}
		}
	case "list":
		a, ok := v.([]any)
		if !ok {
			return at("Member must be a list")
		}
		if outside(float64(len(a)), s.Min, s.Max) {
			return at(lengthRule(s))
		}
		for i, e := range a {
			if msg := m.check(s.Member.Shape, e, join(strconv.Itoa(i)+".member")); msg != "" {
				return msg
			}
		}
	case "map":
		o, ok := v.(map[string]any)
		if !ok {
			return at("Member must be a map")
		}
		for k, e := range o {
			if msg := m.check(s.Value.Shape, e, join(k)); msg != "" {
				return msg
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return at("Member must be a string")
		}
		if outside(float64(utf8Len(str)), s.Min, s.Max) {
			return fmt.Sprintf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: %s", str, path, lengthRule(s))
		}
		if len(s.Enum) > 0 && indexOf(s.Enum, str) < 0 {
			return fmt.Sprintf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]", str, path, strings.Join(s.Enum, ", "))
		}
		if s.Pattern != "" && !fullMatch(s.Pattern, str) {
			return fmt.Sprintf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", str, path, s.Pattern)
		}
	case "blob":
		str, ok := v.(string)
		if !ok {
			return at("Member must be base64 text")
		}
		if _, err := base64.StdEncoding.DecodeString(str); err != nil {
			return at("Member must be base64 text")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return at("Member must be a boolean")
		}
	case "integer", "long", "float", "double":
		if !isNumber(v) {
			return at("Member must be a number")
		}
	}
	return ""
}

func lengthRule(s serviceShape) string {
	switch {
	case s.Min != nil && s.Max != nil:
		return fmt.Sprintf("Member must have length between %v and %v", *s.Min, *s.Max)
	case s.Max != nil:
		return fmt.Sprintf("Member must have length less than or equal to %v", *s.Max)
	default:
		return fmt.Sprintf("Member must have length greater than or equal to %v", *s.Min)
	}
}

func outside(n float64, min, max *float64) bool {
	return min != nil && n < *min || max != nil && n > *max
}

func utf8Len(s string) int { return len([]rune(s)) }
