// Package args turns argument-validation failures, in one neutral form that
// any JSON Schema validator can produce, into the INVALID_ARGS envelope the
// model reads. It validates nothing itself: the validator (a large library)
// stays outside the core, in package argscheck for Go and in each binding's
// own ecosystem elsewhere, and every one of them hands its failures here, so
// the same failures give the same bytes on every target.
//
// See docs/args.md and https://json-schema.org/draft/2020-12/json-schema-core
// (12.3, instance locations) and RFC 6901 (JSON Pointer).
package args

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// KeywordJSON is the keyword of the one failure reported for arguments that
// are not JSON at all; its path is "".
const KeywordJSON = "json"

// MaxDetailFailures is the most failures the envelope's details list; the
// count of the rest goes into details.failures_omitted.
const MaxDetailFailures = 100

// Failure is one argument that failed its schema, in the neutral form.
//
// Path is the RFC 6901 JSON Pointer of the failing value in the arguments
// ("" is the arguments object itself); for "required", "dependentRequired"
// and "additionalProperties" it points at the missing or extra property
// (/city), not at its parent. Keyword is the JSON Schema keyword that failed
// ("required", "type", "maximum", ...) or "json" for arguments that do not
// parse. Message is the validator's own text, kept for logs and never shown
// to the model (validators word it differently). Expected is the value of the
// failing keyword in the schema (7 for maximum, ["metric","imperial"] for
// enum, "string" for type), used in the model's message; HasExpected says
// whether it was given.
type Failure struct {
	Path        string
	Keyword     string
	Message     string
	Expected    any
	HasExpected bool
}

// ValidPointer reports whether p is an RFC 6901 JSON Pointer: "" or a
// sequence of "/"-prefixed tokens in which '~' is always followed by '0' or '1'.
func ValidPointer(p string) bool {
	if p != "" && p[0] != '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return false
		}
	}
	return true
}

// ValidKeyword reports whether k can be a JSON Schema keyword here: 1 to 64
// ASCII letters, digits, '$', '_' or '-'.
func ValidKeyword(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '$' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// FromValue reads the "failures" array of an args_error request: each item
// {"path": string, "keyword": string, "message"?: string, "expected"?: any}
// with no other member; an "expected" of null counts as absent. path prefixes the *field.Error it returns.
func FromValue(v any, path string) ([]Failure, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, field.Errorf(path, "must be an array, got "+field.TypeName(v))
	}
	if len(arr) == 0 {
		return nil, field.Errorf(path, "must hold at least one failure")
	}
	out := make([]Failure, 0, len(arr))
	for i, item := range arr {
		p := field.Index(path, i)
		m, err := field.Object(item, p)
		if err != nil {
			return nil, err
		}
		// The smallest unknown member is named, so the error does not depend
		// on map order.
		bad, found := "", false
		for k := range m {
			switch k {
			case "path", "keyword", "message", "expected":
			default:
				if !found || k < bad {
					bad, found = k, true
				}
			}
		}
		if found {
			return nil, field.Errorf(field.Join(p, bad), "is not a failure member (want path, keyword, message, expected)")
		}
		var f Failure
		var has bool
		if f.Path, has, err = field.String(m, "path", p); err != nil {
			return nil, err
		} else if !has {
			return nil, field.Errorf(field.Join(p, "path"), `is required (a JSON Pointer, "" for the whole arguments)`)
		}
		if !ValidPointer(f.Path) {
			return nil, field.Errorf(field.Join(p, "path"), "must be an RFC 6901 JSON Pointer (\"\" or starting with '/', '~' only as ~0 or ~1), got "+strconv.Quote(f.Path))
		}
		if f.Keyword, err = field.RequiredString(m, "keyword", p); err != nil {
			return nil, err
		}
		if !ValidKeyword(f.Keyword) {
			return nil, field.Errorf(field.Join(p, "keyword"), "must be a JSON Schema keyword (letters, digits, $, _ or -), got "+strconv.Quote(f.Keyword))
		}
		if f.Message, _, err = field.String(m, "message", p); err != nil {
			return nil, err
		}
		f.Expected = m["expected"]
		f.HasExpected = f.Expected != nil // null is unknown, as nil is in the Go API
		out = append(out, f)
	}
	return out, nil
}

// Envelope returns the INVALID_ARGS envelope for the failures of tool's
// arguments: retryable false, source tool, details {tool, fields,
// failures: [{path, keyword}]} and a message naming each field and what to
// fix. Failures are sorted by path, then keyword, then expected value, and
// exact repeats dropped, so the order a validator reports them in does not
// matter. tool "" is left out.
func Envelope(tool string, failures []Failure) envelope.Envelope {
	fs := normalize(failures)
	fields := make([]any, 0, len(fs))
	list := make([]any, 0, min(len(fs), MaxDetailFailures))
	for i, f := range fs {
		if len(fields) == 0 || fields[len(fields)-1] != f.Path {
			fields = append(fields, f.Path)
		}
		if i < MaxDetailFailures {
			list = append(list, map[string]any{"path": f.Path, "keyword": f.Keyword})
		}
	}
	d := map[string]any{"fields": fields, "failures": list}
	if len(fs) > MaxDetailFailures {
		d["failures_omitted"] = len(fs) - MaxDetailFailures
	}
	if tool != "" {
		d["tool"] = tool
	}
	return envelope.Envelope{
		Code:      envelope.InvalidArgs,
		Message:   message(tool, fs),
		Retryable: false,
		Details:   sanitize.Details(d),
		Source:    envelope.SourceTool,
	}
}

// sorted is a failure with its expected value rendered once, for ordering.
type sorted struct {
	Failure
	exp string
}

func normalize(failures []Failure) []sorted {
	fs := make([]sorted, 0, len(failures))
	for _, f := range failures {
		f.Path = safePointer(f.Path)
		s := sorted{Failure: f}
		if f.HasExpected {
			b, err := canonical.Append(nil, f.Expected)
			if err == nil {
				s.exp = string(b)
			} else {
				s.HasExpected = false
			}
		}
		fs = append(fs, s)
	}
	slices.SortStableFunc(fs, func(a, b sorted) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Keyword, b.Keyword); c != 0 {
			return c
		}
		return strings.Compare(a.exp, b.exp)
	})
	out := fs[:0]
	for i, f := range fs {
		if i > 0 {
			p := fs[i-1]
			if p.Path == f.Path && p.Keyword == f.Keyword && p.exp == f.exp {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// message builds the model's message within sanitize.MaxMessageChars, one
// sentence with the instruction first, so that it is what sanitize.Message
// leaves as it is (an envelope toolerr writes must read back byte for byte,
// and a second sentence would be cut): "Fix the arguments for <tool> and call
// the tool again: /city is required; /days must be at most 7." Failures that
// do not fit are counted ("; and 3 more"). Every piece taken from the request
// (tool name, path, expected value) is redacted before it is cut to its room
// (safe): a cut secret no longer has the shape the sanitizer knows it by.
// The result passes sanitize.Message last, so an expected value that holds a
// sentence end cuts the list there, not the instruction.
func message(tool string, fs []sorted) string {
	head := "Fix the arguments"
	if tool != "" {
		head += " for " + safe(tool, 64)
	}
	head += " and call the tool again: "
	if len(fs) > 0 && allJSON(fs) {
		return sanitize.Message(head + "they are not valid JSON.")
	}
	if len(fs) == 0 {
		return sanitize.Message(head + "they are invalid.")
	}
	room := sanitize.MaxMessageChars - chars(head) - chars(".")
	var b strings.Builder
	b.WriteString(head)
	used := 0
	for i, f := range fs {
		item := sanitize.Text(phrase(f))
		sep := ""
		if i > 0 {
			sep = "; "
		}
		more := ""
		if rest := len(fs) - i - 1; rest > 0 {
			more = "; and " + strconv.Itoa(rest) + " more" // the most that may follow
		}
		if used+chars(sep+item)+chars(more) > room {
			if i == 0 {
				item = clip(item, room-chars(more))
				b.WriteString(item + more)
				break
			}
			b.WriteString("; and " + strconv.Itoa(len(fs)-i) + " more")
			break
		}
		b.WriteString(sep + item)
		used += chars(sep + item)
	}
	b.WriteString(".")
	return sanitize.Message(b.String())
}

func allJSON(fs []sorted) bool {
	for _, f := range fs {
		if f.Keyword != KeywordJSON {
			return false
		}
	}
	return true
}

func chars(s string) int { return utf8.RuneCountInString(s) }

// safePointer returns the JSON Pointer p with each reference token redacted
// in its decoded form (RFC 6901, 3: "~1" is '/', "~0" is '~') and encoded
// again, so a secret whose '/' the pointer escapes is still found.
func safePointer(p string) string {
	if p == "" {
		return p
	}
	toks := strings.Split(p[1:], "/")
	changed := false
	for i, t := range toks {
		dec := strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		if r := sanitize.Text(dec); r != dec {
			toks[i], changed = strings.ReplaceAll(strings.ReplaceAll(r, "~", "~0"), "/", "~1"), true
		}
	}
	if !changed {
		return p
	}
	return "/" + strings.Join(toks, "/")
}

// safe returns s redacted (sanitize.Text) and then clipped to n characters:
// redact first, cut after.
func safe(s string, n int) string { return clip(sanitize.Text(s), n) }

// clip shortens s to at most n characters, ending in "…" when cut.
func clip(s string, n int) string {
	if chars(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	i, k := 0, 0
	for i = range s {
		if k == n-1 {
			break
		}
		k++
	}
	return s[:i] + "…"
}

// phrase says what is wrong with one field: "/days must be at most 7".
func phrase(f sorted) string {
	subject := safe(f.Path, 80)
	root := f.Path == ""
	if root {
		subject = "the arguments"
	}
	p := predicate(f)
	if root {
		if rest, ok := strings.CutPrefix(p, "is "); ok {
			p = "are " + rest
		}
	}
	return subject + " " + p
}

// predicate is the keyword's rule in words, with the expected value where
// the keyword has one.
func predicate(f sorted) string {
	exp, has := f.Expected, f.HasExpected
	num := func(prefix, fallback string) string {
		if n, ok := asFloat(exp); ok && has {
			b, err := canonical.AppendFloat(nil, n)
			if err == nil {
				return prefix + string(b)
			}
		}
		return fallback
	}
	count := func(prefix, unit, suffix, fallback string) string {
		if n, ok := asFloat(exp); ok && has && n >= 0 && n <= 1<<53 && n == float64(int64(n)) {
			u := unit + "s"
			if strings.HasSuffix(unit, "y") {
				u = unit[:len(unit)-1] + "ies"
			}
			if n == 1 {
				u = unit
			}
			return prefix + strconv.FormatInt(int64(n), 10) + " " + u + suffix
		}
		return fallback
	}
	switch f.Keyword {
	case "required", "dependentRequired", "dependencies":
		return "is required"
	case "additionalProperties", "unevaluatedProperties", "false":
		return "is not allowed"
	case "type":
		return typePredicate(exp, has)
	case "enum":
		if a, ok := exp.([]any); ok && has && len(a) > 0 {
			if len(a) == 1 {
				return "must be " + render(a[0])
			}
			parts := make([]string, len(a))
			for i, v := range a {
				parts[i] = render(v)
			}
			return "must be one of " + clip(strings.Join(parts, ", "), 120) // each part is safe
		}
		return "is not one of the allowed values"
	case "const":
		if has {
			return "must be " + render(exp)
		}
		return "must be the one allowed value"
	case "minimum":
		return num("must be at least ", "is too small")
	case "maximum":
		return num("must be at most ", "is too large")
	case "exclusiveMinimum":
		return num("must be greater than ", "is too small")
	case "exclusiveMaximum":
		return num("must be less than ", "is too large")
	case "multipleOf":
		return num("must be a multiple of ", "is not an allowed multiple")
	case "minLength":
		return count("must be at least ", "character", " long", "is too short")
	case "maxLength":
		return count("must be at most ", "character", " long", "is too long")
	case "minItems":
		return count("must have at least ", "item", "", "has too few items")
	case "maxItems":
		return count("must have at most ", "item", "", "has too many items")
	case "minProperties":
		return count("must have at least ", "property", "", "has too few properties")
	case "maxProperties":
		return count("must have at most ", "property", "", "has too many properties")
	case "minContains", "contains":
		return "must contain an item that matches the schema"
	case "maxContains":
		return "contains too many matching items"
	case "uniqueItems":
		return "must not contain duplicate items"
	case "pattern":
		if s, ok := exp.(string); ok && has {
			return "must match the pattern " + safe(s, 80)
		}
		return "does not match the required pattern"
	case "format":
		if s, ok := exp.(string); ok && has {
			return "must be a valid " + safe(s, 40)
		}
		return "is not in the required format"
	case "propertyNames":
		return "has a property name that is not allowed"
	case "oneOf":
		return "must match exactly one of the allowed forms"
	case "anyOf":
		return "must match at least one of the allowed forms"
	case "not":
		return "matches a form that is not allowed"
	case KeywordJSON:
		return "is not valid JSON"
	}
	return "fails the " + f.Keyword + " rule"
}

// asFloat reads a number given as float64 (the value tree) or as an integer
// (the Go API).
func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// typePredicate: "must be a string", "must be an integer or null".
func typePredicate(exp any, has bool) string {
	var names []string
	switch x := exp.(type) {
	case string:
		names = []string{x}
	case []any:
		for _, v := range x {
			if s, ok := v.(string); ok {
				names = append(names, s)
			}
		}
	}
	if !has || len(names) == 0 {
		return "has the wrong type"
	}
	for i, n := range names {
		switch n {
		case "null":
		case "integer", "array", "object":
			names[i] = "an " + n
		default:
			names[i] = "a " + safe(n, 20)
		}
	}
	if len(names) == 1 {
		return "must be " + names[0]
	}
	return "must be " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// render writes a schema value for the message as canonical JSON, clipped.
func render(v any) string {
	b, err := canonical.Append(nil, v)
	if err != nil {
		return "the allowed value"
	}
	return safe(string(b), 60)
}
