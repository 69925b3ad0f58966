// Package argscheck validates a tool call's arguments against the tool's JSON
// Schema with github.com/santhosh-tekuri/jsonschema/v6 and turns what fails
// into toolerr's INVALID_ARGS envelope.
//
// It lives outside core on purpose: the validator and what it pulls in
// (encoding/json, regexp, math/big, x/text) add about 3.3 MB to a WASI build
// of the core (docs/args.md has the measurement).
// The core keeps only the part every target needs, the Invoke op
// "args_error", which takes failures in one neutral form (a JSON Pointer and
// the keyword that failed); this package produces that form from the
// validator's error tree and calls core.InvalidArgs, so a Python or Node
// binding that validates with its own ecosystem's validator and hands over
// the same failures gets byte-identical output.
//
// See docs/args.md, https://json-schema.org/draft/2020-12 and
// https://pkg.go.dev/github.com/santhosh-tekuri/jsonschema/v6.
package argscheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/toolerr/toolerr/core"
)

// MaxCachedSchemas is how many compiled schemas a Validator keeps; when full,
// the oldest entry is dropped.
//
// See Validator.
const MaxCachedSchemas = 256

// schemaURL names the schema inside its private compiler. Relative $refs
// resolve against it and, since no loader is set, anything not inside the
// schema itself fails to compile: a schema never makes toolerr read a file
// or the network.
const schemaURL = "mem://toolerr/schema.json"

// ErrSchema is matched (errors.Is) by the *SchemaError Validate returns for a
// schema that is not JSON or does not compile.
//
// See https://pkg.go.dev/github.com/santhosh-tekuri/jsonschema/v6#Compiler.Compile.
var ErrSchema = errors.New("toolerr: invalid JSON Schema")

// SchemaError is a schema Validate cannot use. Err is the parser's or
// compiler's error (a *jsonschema.SchemaValidationError, a
// *jsonschema.LoadURLError for an external $ref, ...).
//
// See https://pkg.go.dev/github.com/santhosh-tekuri/jsonschema/v6.
type SchemaError struct {
	Err error
}

// Error returns "toolerr: invalid JSON Schema: <cause>".
func (e *SchemaError) Error() string { return "toolerr: invalid JSON Schema: " + e.Err.Error() }

// Is matches ErrSchema.
func (e *SchemaError) Is(target error) bool { return target == ErrSchema }

// Unwrap returns the cause.
func (e *SchemaError) Unwrap() error { return e.Err }

// Validator validates arguments and caches compiled schemas by their bytes
// (at most MaxCachedSchemas). The zero value is ready to use and is safe for
// concurrent use.
//
// See https://pkg.go.dev/github.com/santhosh-tekuri/jsonschema/v6#Compiler.
type Validator struct {
	mu    sync.Mutex
	cache map[string]*jsonschema.Schema
	order []string
}

// Validate checks args, the JSON arguments of one call of tool, against
// schema, a JSON Schema (draft 2020-12 unless the schema's "$schema" names
// another draft), compiling it at most once per distinct bytes.
//
// It returns ok true and a zero Envelope when the arguments are valid, and ok
// false with the INVALID_ARGS envelope of core.InvalidArgs when they are not:
// one failure per leaf of the validator's error tree, with the instance
// location as an RFC 6901 JSON Pointer and the JSON Schema keyword that
// failed. Arguments that are not JSON (the model sent broken JSON) are one
// failure with path "" and keyword "json". err is non-nil, a *SchemaError,
// only when the schema is not JSON or does not compile.
//
// See docs/args.md.
func (v *Validator) Validate(schema, args []byte, tool string) (env core.Envelope, ok bool, err error) {
	sch, err := v.compile(schema)
	if err != nil {
		return core.Envelope{}, false, err
	}
	return validate(sch, args, tool)
}

// Validate is Validator.Validate with no cache: the schema is compiled on
// every call. Keep a Validator to validate many calls.
//
// See docs/args.md.
func Validate(schema, args []byte, tool string) (env core.Envelope, ok bool, err error) {
	return new(Validator).Validate(schema, args, tool)
}

func (v *Validator) compile(schema []byte) (*jsonschema.Schema, error) {
	key := string(schema)
	v.mu.Lock()
	sch, hit := v.cache[key]
	v.mu.Unlock()
	if hit {
		return sch, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, &SchemaError{Err: err}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, &SchemaError{Err: err}
	}
	sch, err = c.Compile(schemaURL)
	if err != nil {
		return nil, &SchemaError{Err: err}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cache == nil {
		v.cache = make(map[string]*jsonschema.Schema)
	}
	if _, dup := v.cache[key]; !dup {
		if len(v.order) >= MaxCachedSchemas {
			delete(v.cache, v.order[0])
			v.order = v.order[1:]
		}
		v.cache[key] = sch
		v.order = append(v.order, key)
	}
	return sch, nil
}

// cached reports how many compiled schemas v holds.
func (v *Validator) cached() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.cache)
}

func validate(sch *jsonschema.Schema, args []byte, tool string) (core.Envelope, bool, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return core.InvalidArgs(tool, []core.ArgFailure{{Path: "", Keyword: "json", Message: err.Error()}}), false, nil
	}
	err = sch.Validate(inst)
	if err == nil {
		return core.Envelope{}, true, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return core.Envelope{}, false, err
	}
	return core.InvalidArgs(tool, Failures(ve)), false, nil
}

// Failures returns the neutral failures of a validation error tree: one per
// leaf, with its instance location as a JSON Pointer and the keyword that
// failed. "required", "dependentRequired" and "additionalProperties" give one
// failure per property, pointing at the property. Expected carries the
// keyword's value from the schema where the error kind holds it, with
// numbers as float64. Message is the validator's English text for the leaf.
//
// See https://pkg.go.dev/github.com/santhosh-tekuri/jsonschema/v6#ValidationError
// and RFC 6901.
func Failures(ve *jsonschema.ValidationError) []core.ArgFailure {
	var out []core.ArgFailure
	collect(ve, &out)
	return out
}

func collect(e *jsonschema.ValidationError, out *[]core.ArgFailure) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, out)
		}
		return
	}
	loc := pointer(e.InstanceLocation)
	msg := leafMessage(e.ErrorKind)
	add := func(path, keyword string, expected any) {
		*out = append(*out, core.ArgFailure{Path: path, Keyword: keyword, Message: msg, Expected: expected})
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			add(loc+"/"+escape(m), "required", nil)
		}
	case *kind.DependentRequired:
		for _, m := range k.Missing {
			add(loc+"/"+escape(m), "dependentRequired", nil)
		}
	case *kind.Dependency:
		for _, m := range k.Missing {
			add(loc+"/"+escape(m), "dependencies", nil)
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			add(loc+"/"+escape(p), "additionalProperties", false)
		}
	case *kind.Type:
		if len(k.Want) == 1 {
			add(loc, "type", k.Want[0])
		} else {
			want := make([]any, len(k.Want))
			for i, w := range k.Want {
				want[i] = w
			}
			add(loc, "type", want)
		}
	case *kind.Enum:
		add(loc, "enum", tree(k.Want))
	case *kind.Const:
		add(loc, "const", tree(k.Want))
	case *kind.Minimum:
		add(loc, "minimum", ratFloat(k.Want))
	case *kind.Maximum:
		add(loc, "maximum", ratFloat(k.Want))
	case *kind.ExclusiveMinimum:
		add(loc, "exclusiveMinimum", ratFloat(k.Want))
	case *kind.ExclusiveMaximum:
		add(loc, "exclusiveMaximum", ratFloat(k.Want))
	case *kind.MultipleOf:
		add(loc, "multipleOf", ratFloat(k.Want))
	case *kind.MinLength:
		add(loc, "minLength", float64(k.Want))
	case *kind.MaxLength:
		add(loc, "maxLength", float64(k.Want))
	case *kind.MinItems:
		add(loc, "minItems", float64(k.Want))
	case *kind.MaxItems:
		add(loc, "maxItems", float64(k.Want))
	case *kind.MinProperties:
		add(loc, "minProperties", float64(k.Want))
	case *kind.MaxProperties:
		add(loc, "maxProperties", float64(k.Want))
	case *kind.Pattern:
		add(loc, "pattern", k.Want)
	case *kind.Format:
		add(loc, "format", k.Want)
	default:
		kw := "false" // the false schema has no keyword path
		if p := e.ErrorKind.KeywordPath(); len(p) > 0 {
			kw = p[0]
		}
		add(loc, kw, nil)
	}
}

// leafMessage is the validator's own English text for one error kind.
func leafMessage(k jsonschema.ErrorKind) string {
	s := (&jsonschema.ValidationError{ErrorKind: k}).Error()
	return strings.TrimPrefix(s, "at '': ")
}

// pointer joins instance-location tokens into an RFC 6901 JSON Pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return b.String()
}

// escape encodes one reference token: '~' as ~0, then '/' as ~1 (RFC 6901, 3).
func escape(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

func ratFloat(r *big.Rat) any {
	if r == nil {
		return nil
	}
	f, _ := r.Float64()
	return f
}

// tree converts a schema value decoded with json.Number into the value tree
// core accepts (numbers as float64).
func tree(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = tree(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = tree(e)
		}
		return out
	}
	return v
}
