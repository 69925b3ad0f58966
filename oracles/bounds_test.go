package oracles

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// bound is one min/max or pattern a vendor schema states on a member of a
// message: where it sits (steps from the message down, each the schema that
// holds the member and the member's name, "[]" for an array element) and
// what it says.
type bound struct {
	root    string // the message schema it was found under
	steps   []step
	keyword string // minItems, maxItems, minLength, maxLength, minimum, maximum, pattern (Bedrock: min, max, pattern)
	value   any
	target  any // the schema or shape the keyword is on
}

type step struct {
	holder any // the schema (or shape) the member belongs to
	key    string
}

func (b bound) path() string {
	var s strings.Builder
	for _, st := range b.steps {
		if st.key == "[]" {
			s.WriteString("[0]")
			continue
		}
		if s.Len() > 0 {
			s.WriteString(".")
		}
		s.WriteString(st.key)
	}
	return s.String()
}

func (b bound) String() string {
	return b.root + " " + b.path() + " " + b.keyword + " " + toString(b.value)
}

func toString(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func toInt(v any) int {
	switch x := v.(type) {
	case json.Number:
		n, _ := x.Int64()
		return int(n)
	case float64:
		return int(x)
	}
	return 0
}

// ---- OpenAI (OpenAPI, JSON Schema) ----

// openAPIWalker collects the bounds of the OpenAI OpenAPI spec below a
// message schema.
type openAPIWalker struct {
	schemas map[string]any
	out     []bound
	skip    map[string]string
}

func (w *openAPIWalker) resolve(s any) (map[string]any, string) {
	m, _ := s.(map[string]any)
	name := ""
	for m != nil && m["$ref"] != nil {
		ref, _ := m["$ref"].(string)
		name = ref[strings.LastIndex(ref, "/")+1:]
		m, _ = w.schemas[name].(map[string]any)
	}
	return m, name
}

func (w *openAPIWalker) walk(root string, s any, steps []step, seen map[string]bool) {
	m, name := w.resolve(s)
	if m == nil || seen[name] && name != "" {
		return
	}
	if _, skipped := w.skip[name]; skipped {
		return
	}
	if name != "" {
		seen = copySet(seen, name)
	}
	for _, k := range []string{"minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "pattern"} {
		if v, ok := m[k]; ok && len(steps) > 0 {
			w.out = append(w.out, bound{root: root, steps: steps, keyword: k, value: v, target: m})
		}
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		alts, _ := m[k].([]any)
		for _, a := range alts {
			w.walk(root, a, steps, seen)
		}
	}
	if items, ok := m["items"]; ok {
		w.walk(root, items, append(clone(steps), step{holder: m, key: "[]"}), seen)
	}
	props, _ := m["properties"].(map[string]any)
	for _, k := range sortedKeys(props) {
		w.walk(root, props[k], append(clone(steps), step{holder: m, key: k}), seen)
	}
}

// gen is a minimal value of schema s: the type discriminator and every
// required member of an object, the first alternative of a oneOf or anyOf,
// a string long enough for its minLength.
func (w *openAPIWalker) gen(s any, depth int) any {
	m, _ := w.resolve(s)
	if m == nil || depth > 8 {
		return "x"
	}
	if all, ok := m["allOf"].([]any); ok {
		out := map[string]any{}
		for _, a := range all {
			if g, ok := w.gen(a, depth+1).(map[string]any); ok {
				for k, v := range g {
					out[k] = v
				}
			}
		}
		own := w.genObject(m, depth)
		for k, v := range own {
			out[k] = v
		}
		return out
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := m[k].([]any); ok {
			for _, a := range alts {
				if am, _ := w.resolve(a); am["type"] != "null" {
					return w.gen(a, depth+1)
				}
			}
		}
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch m["type"] {
	case "object":
		return w.genObject(m, depth)
	case "array":
		return []any{}
	case "integer", "number":
		return 1.0
	case "boolean":
		return false
	}
	if _, ok := m["properties"]; ok {
		return w.genObject(m, depth)
	}
	return strings.Repeat("x", max(1, toInt(m["minLength"])))
}

func (w *openAPIWalker) genObject(m map[string]any, depth int) map[string]any {
	out := map[string]any{}
	props, _ := m["properties"].(map[string]any)
	req, _ := m["required"].([]any)
	for _, r := range req {
		k := r.(string)
		out[k] = w.gen(props[k], depth+1)
	}
	if t, ok := props["type"]; ok {
		out["type"] = w.gen(t, depth+1)
	}
	return out
}

// ---- Bedrock (Smithy service model) ----

type smithyWalker struct {
	shapes map[string]any
	out    []bound
}

func (w *smithyWalker) walk(root, name string, steps []step, seen map[string]bool) {
	sh, _ := w.shapes[name].(map[string]any)
	if sh == nil || seen[name] {
		return
	}
	seen = copySet(seen, name)
	for _, k := range []string{"min", "max", "pattern"} {
		if v, ok := sh[k]; ok && len(steps) > 0 {
			w.out = append(w.out, bound{root: root, steps: steps, keyword: k, value: v, target: sh})
		}
	}
	switch sh["type"] {
	case "structure":
		members, _ := sh["members"].(map[string]any)
		for _, k := range sortedKeys(members) {
			ms := members[k].(map[string]any)["shape"].(string)
			w.walk(root, ms, append(clone(steps), step{holder: sh, key: k}), seen)
		}
	case "list":
		ms := sh["member"].(map[string]any)["shape"].(string)
		w.walk(root, ms, append(clone(steps), step{holder: sh, key: "[]"}), seen)
	}
}

func (w *smithyWalker) gen(name string) any {
	sh, _ := w.shapes[name].(map[string]any)
	switch sh["type"] {
	case "structure":
		out := map[string]any{}
		members, _ := sh["members"].(map[string]any)
		if sh["union"] == true {
			return out
		}
		req, _ := sh["required"].([]any)
		for _, r := range req {
			k := r.(string)
			out[k] = w.gen(members[k].(map[string]any)["shape"].(string))
		}
		return out
	case "list":
		return []any{}
	case "document", "map":
		return map[string]any{}
	case "blob":
		return "AAAA"
	case "integer", "long", "float", "double":
		return 1.0
	case "boolean":
		return false
	}
	if e, ok := sh["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	return strings.Repeat("x", max(1, toInt(sh["min"])))
}

// ---- building a message that breaks one bound ----

// violation is a value that breaks the bound (nil when none can be made):
// one element too few or too many, one character too few or too many, one
// past the range, or a string the pattern refuses.
func violation(b bound, elem func() any) any {
	n := toInt(b.value)
	unit := kindOf(b)
	switch {
	case unit == "items" && strings.HasPrefix(b.keyword, "min"):
		return repeatElem(n-1, elem)
	case unit == "items":
		return repeatElem(n+1, elem)
	case unit == "chars" && strings.HasPrefix(b.keyword, "min"):
		return strings.Repeat("a", n-1)
	case unit == "chars":
		return strings.Repeat("a", n+1)
	case unit == "number" && strings.HasPrefix(b.keyword, "min"):
		return float64(n - 1)
	case unit == "number":
		return float64(n + 1)
	case b.keyword == "pattern":
		re := regexp.MustCompile("^(?:" + b.value.(string) + ")$")
		for _, c := range []string{"$bad name", "a!b", "http://x", "abc", "A"} {
			if !re.MatchString(c) {
				return c
			}
		}
	}
	return nil
}

func repeatElem(n int, elem func() any) []any {
	out := make([]any, max(n, 0))
	for i := range out {
		out[i] = elem()
	}
	return out
}

// kindOf says what a bound counts: items, chars or a number's value.
func kindOf(b bound) string {
	switch b.keyword {
	case "minItems", "maxItems":
		return "items"
	case "minLength", "maxLength":
		return "chars"
	case "minimum", "maximum":
		return "number"
	case "pattern":
		return "pattern"
	}
	t, _ := b.target.(map[string]any)
	switch t["type"] {
	case "list":
		return "items"
	case "integer", "long":
		return "number"
	}
	return "chars"
}

// place sets v at the bound's steps below msg, making each object and
// array on the way (an array element from gen, an object member from gen
// of its holder's member).
func place(msg map[string]any, steps []step, v any, elem func(i int) any) {
	var cur any = msg
	for i, st := range steps {
		last := i == len(steps)-1
		if st.key == "[]" {
			continue // handled by the member before
		}
		obj := cur.(map[string]any)
		if i+1 < len(steps) && steps[i+1].key == "[]" {
			if i+1 == len(steps)-1 {
				obj[st.key] = []any{v}
				return
			}
			e, _ := elem(i + 2).(map[string]any)
			if e == nil {
				e = map[string]any{}
			}
			obj[st.key] = []any{e}
			cur = e
			continue
		}
		if last {
			obj[st.key] = v
			return
		}
		next, _ := obj[st.key].(map[string]any)
		if next == nil {
			next, _ = elem(i + 1).(map[string]any)
			if next == nil {
				next = map[string]any{}
			}
			obj[st.key] = next
		}
		cur = next
	}
}

// TestCheck_everySpecBoundIsChecked walks the vendor specs of the formats
// whose lists toolerr checks (the OpenAI OpenAPI spec for Chat Completions
// messages and Responses input items, Mistral's OpenAPI spec for its chat
// messages, Bedrock's service model for Converse messages) and, for every
// minItems/maxItems/minLength/maxLength/minimum/maximum/pattern (Smithy
// min/max/pattern) stated on a member of a message, builds a message that
// breaks it and requires check to report it at that member. Nothing is
// copied from the specs into the core: the specs are read here, at test
// time, and a bound the core does not enforce fails the test.
//
// Left out, with their reasons: the tool definitions a Responses item may
// carry (Tool, in tool_search_output and additional_tools items: a tool
// list, not history, which a request body's tools member holds).
func TestCheck_everySpecBoundIsChecked(t *testing.T) {
	type suite struct {
		format, rules string
		bounds        []bound
		base          func(b bound) map[string]any
		elem          func(b bound) func(i int) any
		elemOf        func(b bound) func() any
	}
	var suites []suite

	spec := loadSpecDoc(t, "openai-openapi.yaml").(map[string]any)
	schemas := spec["components"].(map[string]any)["schemas"].(map[string]any)
	ow := &openAPIWalker{schemas: schemas, skip: map[string]string{"Tool": "tool definitions, not history"}}
	for _, root := range []string{"ChatCompletionRequestMessage", "InputItem"} {
		ow.walk(root, map[string]any{"$ref": "#/components/schemas/" + root}, nil, nil)
	}
	byRoot := map[string][]bound{}
	for _, b := range ow.out {
		byRoot[b.root] = append(byRoot[b.root], b)
	}
	openAIBase := func(b bound) map[string]any {
		// the message: the schema holding the first member, generated
		g, _ := ow.gen(b.steps[0].holder, 0).(map[string]any)
		if g == nil {
			g = map[string]any{}
		}
		return g
	}
	openAIElem := func(b bound) func(i int) any {
		return func(i int) any {
			// the element at step i: a minimal value of the schema holding steps[i]
			return ow.gen(b.steps[i].holder, 0)
		}
	}
	openAIElemOf := func(b bound) func() any {
		return func() any { return ow.gen(b.target.(map[string]any)["items"], 0) }
	}
	suites = append(suites,
		suite{format: "openai-chat", bounds: byRoot["ChatCompletionRequestMessage"], base: openAIBase, elem: openAIElem, elemOf: openAIElemOf},
		suite{format: "openai-responses", bounds: byRoot["InputItem"], base: openAIBase, elem: openAIElem, elemOf: openAIElemOf})

	mspec := loadSpecDoc(t, "mistral-openapi.yaml").(map[string]any)
	mschemas := mspec["components"].(map[string]any)["schemas"].(map[string]any)
	mw := &openAPIWalker{schemas: mschemas}
	mw.walk("ChatCompletionRequest.messages", mschemas["ChatCompletionRequest"].(map[string]any)["properties"].(map[string]any)["messages"], nil, nil)
	suites = append(suites, suite{format: "openai-chat", rules: "mistral", bounds: mw.out})

	bspec := loadSpecDoc(t, "aws-bedrock-runtime-2023-09-30-service-2.json").(map[string]any)
	shapes := bspec["shapes"].(map[string]any)
	bw := &smithyWalker{shapes: shapes}
	bw.walk("Message", "Message", nil, nil)
	shapeOf := func(holder any, key string) string {
		h := holder.(map[string]any)
		if key == "[]" {
			return h["member"].(map[string]any)["shape"].(string)
		}
		return h["members"].(map[string]any)[key].(map[string]any)["shape"].(string)
	}
	suites = append(suites, suite{format: "bedrock", bounds: bw.out,
		base: func(bound) map[string]any { return map[string]any{"role": "user", "content": []any{}} },
		elem: func(b bound) func(i int) any {
			return func(i int) any { return bw.gen(shapeOf(b.steps[i-1].holder, b.steps[i-1].key)) }
		},
		elemOf: func(b bound) func() any {
			return func() any { return bw.gen(shapeOf(b.target, "[]")) }
		}})

	checked := 0
	for _, s := range suites {
		if s.rules == "mistral" {
			// Mistral's spec states no bound on its messages, and toolerr
			// checks none on a Mistral list: the walk must agree
			assert.Empty(t, s.bounds, "Mistral's spec now states bounds on messages: check them")
			continue
		}
		require.NotEmpty(t, s.bounds, s.format)
		for _, b := range s.bounds {
			b := b
			t.Run(s.format+"/"+b.String(), func(t *testing.T) {
				msg := s.base(b)
				var v any
				if kindOf(b) == "items" {
					v = violation(b, s.elemOf(b))
				} else {
					v = violation(b, nil)
				}
				require.NotNil(t, v, "no value breaks %s", b)
				place(msg, b.steps, v, s.elem(b))
				fs, err := core.CheckWith(core.Format(s.format), []any{msg}, core.TranscriptOptions{IDRules: s.rules})
				require.NoError(t, err, "%v", msg)
				want := "messages[0]." + b.path()
				for _, f := range fs {
					if f.Path == want || f.Kind == "invalid_id" && strings.HasPrefix(want, f.Path) {
						return
					}
				}
				t.Errorf("check does not report %s: message %s, findings %+v", b, compact(msg), fs)
			})
			checked++
		}
	}
	t.Logf("%d bounds stated by the specs checked", checked)
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 400 {
		return string(b[:400]) + "..."
	}
	return string(b)
}

func clone(s []step) []step { return append([]step(nil), s...) }

func copySet(m map[string]bool, k string) map[string]bool {
	out := make(map[string]bool, len(m)+1)
	for x := range m {
		out[x] = true
	}
	out[k] = true
	return out
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
