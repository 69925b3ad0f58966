// Package field reads typed members out of a parsed JSON request (the value
// tree of package canonical) and reports a missing or mistyped member with the
// JSON path of the member, so that every Invoke error says where it is. Every
// INVALID_INPUT error of the core is an *Error built here.
package field

import (
	"math"
	"strconv"
)

// Error is a member of a request that is missing or has the wrong type or
// value. Path is a dotted path from the request root, for example
// "http.status" or "results[2].call.id" ("" for the request itself).
type Error struct {
	Path string
	Msg  string
}

// Error returns "toolerr: <path>: <msg>", or "toolerr: <msg>" at the root.
func (e *Error) Error() string {
	if e.Path == "" {
		return "toolerr: " + e.Msg
	}
	return "toolerr: " + e.Path + ": " + e.Msg
}

// NewError returns an *Error at path saying msg ("is required", "must be an
// object, got string").
func NewError(path, msg string) error { return &Error{Path: path, Msg: msg} }

// Join returns the path of member key under parent.
func Join(parent, key string) string {
	switch parent {
	case "":
		return key
	case Unnamed:
		return Unnamed
	}
	return parent + "." + key
}

// Index returns the path of element i under parent.
func Index(parent string, i int) string {
	if parent == Unnamed {
		return Unnamed
	}
	return parent + "[" + strconv.Itoa(i) + "]"
}

// Unnamed is the path to give a reader when an error is not expected: Join
// and Index under it are Unnamed again, built without allocating, so a
// reader walking a large tree builds no path on the way. An error it
// returns has no usable path; the caller reads the same value again with
// its real path to get the error it reports (reading is deterministic).
const Unnamed = "\x00unnamed"

// Within returns err with its path moved under parent, for a reader that
// names members from its own root (a codec's Parse names "messages[2]")
// run on a member of a larger request: Within("batch[1]", err) turns
// "messages[2].content" into "batch[1].messages[2].content". An error that
// is not an *Error, or a parent of "", comes back as it is.
func Within(parent string, err error) error {
	fe, ok := err.(*Error)
	if !ok || parent == "" {
		return err
	}
	p := parent
	if fe.Path != "" {
		if fe.Path[0] == '[' {
			p = parent + fe.Path
		} else {
			p = parent + "." + fe.Path
		}
	}
	return &Error{Path: p, Msg: fe.Msg}
}

// Value is a JSON type of the value tree: string, bool, float64 (a number),
// []any (an array) or map[string]any (an object).
type Value interface {
	string | bool | float64 | []any | map[string]any
}

// As returns v as a T, or an *Error at path ("must be an object, got
// string").
func As[T Value](v any, path string) (T, error) {
	t, ok := v.(T)
	if !ok {
		return t, NewError(path, "must be "+typeWord[T]()+", got "+TypeName(v))
	}
	return t, nil
}

// Get returns member key of m (the object at path parent) as a T. A missing
// or null member gives the zero T and ok false, with no error; a member of
// another type is an *Error at the member's path.
func Get[T Value](m map[string]any, key, parent string) (t T, ok bool, err error) {
	v, present := m[key]
	if !present || v == nil {
		return t, false, nil
	}
	if t, ok = v.(T); !ok {
		return t, false, NewError(Join(parent, key), "must be "+typeWord[T]()+", got "+TypeName(v))
	}
	return t, true, nil
}

// typeWord names T with its article, as the error messages do.
func typeWord[T Value]() string {
	var t T
	switch any(t).(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "an array"
	}
	return "an object"
}

// TypeName names the JSON type of a value-tree value.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, int, int64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

// RequiredString is Get[string] with a missing member, or an empty string,
// as an *Error.
func RequiredString(m map[string]any, key, parent string) (string, error) {
	s, ok, err := Get[string](m, key, parent)
	if err != nil {
		return "", err
	}
	if !ok || s == "" {
		return "", NewError(Join(parent, key), "is required and must be a non-empty string")
	}
	return s, nil
}

// Tagged returns v, the element at path, as an object together with its
// member key as a non-empty string: the discriminator of a tagged element
// (a block's "type", a message's "role") or the id that names an object. A
// v that is not an object is the *Error of As at path; a missing, empty or
// non-string member is the *Error of RequiredString at path.key.
func Tagged(v any, key, path string) (map[string]any, string, error) {
	m, err := As[map[string]any](v, path)
	if err != nil {
		return nil, "", err
	}
	s, err := RequiredString(m, key, path)
	if err != nil {
		return nil, "", err
	}
	return m, s, nil
}

// MaxWhole is the largest whole number Int takes, 2^53: the largest a
// float64 (a JSON number as the value tree holds it) holds exactly with
// every whole number below it, so that no accepted value was rounded on
// the way. A max above it is taken as MaxWhole.
const MaxWhole = 1 << 53

// Int returns member key of m as an int64 in [min, max] (max at most
// MaxWhole): the reader of every member of a request that is a whole number
// (a count, milliseconds). A missing member gives ok false with no error;
// a null is an *Error at the member's path ("must be a number, got null"),
// not the member left out, since a host's NaN or infinity reaches the core
// as null (JSON.stringify, serde_json, toolerr's Python runtime) and must
// not become the default; a fraction, a NaN, an infinity or a value out of
// range is an *Error too (see InRange).
func Int(m map[string]any, key, parent string, min, max int64) (n int64, ok bool, err error) {
	v, present := m[key]
	if !present {
		return 0, false, nil
	}
	f, isNum := v.(float64)
	if !isNum {
		return 0, false, NewError(Join(parent, key), "must be a number, got "+TypeName(v))
	}
	if max > MaxWhole {
		max = MaxWhole
	}
	if f != math.Trunc(f) || f < float64(min) || f > float64(max) { // a NaN fails the first test
		return 0, false, rangeError(Join(parent, key), min, max)
	}
	return int64(f), true, nil
}

// InRange checks a whole number given in Go as Int checks one given in
// JSON: n outside [min, max] is the same *Error at path.
func InRange(path string, n, min, max int64) error {
	if n < min || n > max {
		return rangeError(path, min, max)
	}
	return nil
}

func rangeError(path string, min, max int64) error {
	return NewError(path, "must be a whole number from "+strconv.FormatInt(min, 10)+" to "+strconv.FormatInt(max, 10))
}

// The accessors below are the names of Get and As before they were one
// generic function; they remain for the packages not yet moved to Get.

// Errorf is NewError.
//
// Deprecated: use NewError.
func Errorf(path, msg string) error { return NewError(path, msg) }

// Object is As[map[string]any].
//
// Deprecated: use As.
func Object(v any, path string) (map[string]any, error) { return As[map[string]any](v, path) }

// String is Get[string].
//
// Deprecated: use Get.
func String(m map[string]any, key, parent string) (string, bool, error) {
	return Get[string](m, key, parent)
}

// Bool is Get[bool].
//
// Deprecated: use Get.
func Bool(m map[string]any, key, parent string) (bool, bool, error) {
	return Get[bool](m, key, parent)
}

// Number is Get[float64].
//
// Deprecated: use Get.
func Number(m map[string]any, key, parent string) (float64, bool, error) {
	return Get[float64](m, key, parent)
}

// Array is Get[[]any].
//
// Deprecated: use Get.
func Array(m map[string]any, key, parent string) ([]any, bool, error) {
	return Get[[]any](m, key, parent)
}

// Obj is Get[map[string]any].
//
// Deprecated: use Get.
func Obj(m map[string]any, key, parent string) (map[string]any, bool, error) {
	return Get[map[string]any](m, key, parent)
}
