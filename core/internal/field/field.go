// Package field reads typed members out of a parsed JSON request (the value
// tree of package canonical) and reports a missing or mistyped member with the
// JSON path of the member, so that every Invoke error says where it is.
package field

import "math"

// Error is a member of a request that is missing or has the wrong type or
// value. Path is a JSON-pointer-like dotted path from the request root, for
// example "http.status" or "results[2].call.id".
type Error struct {
	Path string
	Msg  string
}

// Error returns "toolerr: <path>: <msg>".
func (e *Error) Error() string {
	if e.Path == "" {
		return "toolerr: " + e.Msg
	}
	return "toolerr: " + e.Path + ": " + e.Msg
}

// Errorf builds an *Error at path.
func Errorf(path, msg string) error { return &Error{Path: path, Msg: msg} }

// Join returns the path of member key under parent.
func Join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// Index returns the path of element i under parent.
func Index(parent string, i int) string {
	return parent + "[" + itoa(i) + "]"
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}

// Object returns v as an object, or an *Error at path.
func Object(v any, path string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, Errorf(path, "must be an object, got "+TypeName(v))
	}
	return m, nil
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

// String returns m[key] as a string. A missing or null member gives "" and
// ok=false with no error; a member of another type is an *Error.
func String(m map[string]any, key, parent string) (s string, ok bool, err error) {
	v, present := m[key]
	if !present || v == nil {
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, Errorf(Join(parent, key), "must be a string, got "+TypeName(v))
	}
	return s, true, nil
}

// RequiredString is String with a missing member, or an empty string, as an *Error.
func RequiredString(m map[string]any, key, parent string) (string, error) {
	s, ok, err := String(m, key, parent)
	if err != nil {
		return "", err
	}
	if !ok || s == "" {
		return "", Errorf(Join(parent, key), "is required and must be a non-empty string")
	}
	return s, nil
}

// Bool returns m[key] as a bool; see String for the missing case.
func Bool(m map[string]any, key, parent string) (b bool, ok bool, err error) {
	v, present := m[key]
	if !present || v == nil {
		return false, false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, false, Errorf(Join(parent, key), "must be a boolean, got "+TypeName(v))
	}
	return b, true, nil
}

// Number returns m[key] as a float64; see String for the missing case.
func Number(m map[string]any, key, parent string) (f float64, ok bool, err error) {
	v, present := m[key]
	if !present || v == nil {
		return 0, false, nil
	}
	f, isNum := v.(float64)
	if !isNum {
		return 0, false, Errorf(Join(parent, key), "must be a number, got "+TypeName(v))
	}
	return f, true, nil
}

// Int returns m[key] as an int64 in [min, max]; a fraction or a value out of
// range is an *Error. See String for the missing case.
func Int(m map[string]any, key, parent string, min, max int64) (n int64, ok bool, err error) {
	f, ok, err := Number(m, key, parent)
	if err != nil || !ok {
		return 0, ok, err
	}
	if f != math.Trunc(f) || f < float64(min) || f > float64(max) {
		return 0, false, Errorf(Join(parent, key), "must be a whole number from "+itoa64(min)+" to "+itoa64(max))
	}
	return int64(f), true, nil
}

func itoa64(n int64) string {
	if n >= math.MinInt && n <= math.MaxInt {
		return itoa(int(n))
	}
	return "?"
}

// Array returns m[key] as an array; see String for the missing case.
func Array(m map[string]any, key, parent string) (a []any, ok bool, err error) {
	v, present := m[key]
	if !present || v == nil {
		return nil, false, nil
	}
	a, isArr := v.([]any)
	if !isArr {
		return nil, false, Errorf(Join(parent, key), "must be an array, got "+TypeName(v))
	}
	return a, true, nil
}

// Obj returns m[key] as an object; see String for the missing case.
func Obj(m map[string]any, key, parent string) (o map[string]any, ok bool, err error) {
	v, present := m[key]
	if !present || v == nil {
		return nil, false, nil
	}
	o, isObj := v.(map[string]any)
	if !isObj {
		return nil, false, Errorf(Join(parent, key), "must be an object, got "+TypeName(v))
	}
	return o, true, nil
}
