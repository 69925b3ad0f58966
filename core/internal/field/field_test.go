package field

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// obj is a request with one member of every JSON type.
func obj() map[string]any {
	return map[string]any{
		"s": "x", "e": "", "b": true, "n": 2.5, "i": 7.0, "a": []any{1.0}, "o": map[string]any{}, "z": nil,
	}
}

// errAt asserts err is an *Error with path and message.
func errAt(t *testing.T, err error, path, msg string) {
	t.Helper()
	var fe *Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, path, fe.Path)
	assert.Equal(t, msg, fe.Msg)
}

func TestGet_everyTypeAgainstEveryMember(t *testing.T) {
	m := obj()
	got := map[string]string{}
	check := func(name string, err error, ok bool) {
		if err != nil {
			got[name] = err.(*Error).Msg
		} else if !ok {
			got[name] = "absent"
		} else {
			got[name] = "ok"
		}
	}
	for _, k := range []string{"s", "b", "n", "a", "o", "z", "missing"} {
		_, ok, err := Get[string](m, k, "req")
		check("string/"+k, err, ok)
		_, ok, err = Get[bool](m, k, "req")
		check("bool/"+k, err, ok)
		_, ok, err = Get[float64](m, k, "req")
		check("number/"+k, err, ok)
		_, ok, err = Get[[]any](m, k, "req")
		check("array/"+k, err, ok)
		_, ok, err = Get[map[string]any](m, k, "req")
		check("object/"+k, err, ok)
	}
	want := map[string]string{
		"string/s": "ok", "bool/s": "must be a boolean, got string", "number/s": "must be a number, got string",
		"array/s": "must be an array, got string", "object/s": "must be an object, got string",
		"string/b": "must be a string, got boolean", "bool/b": "ok", "number/b": "must be a number, got boolean",
		"array/b": "must be an array, got boolean", "object/b": "must be an object, got boolean",
		"string/n": "must be a string, got number", "bool/n": "must be a boolean, got number", "number/n": "ok",
		"array/n": "must be an array, got number", "object/n": "must be an object, got number",
		"string/a": "must be a string, got array", "bool/a": "must be a boolean, got array", "number/a": "must be a number, got array",
		"array/a": "ok", "object/a": "must be an object, got array",
		"string/o": "must be a string, got object", "bool/o": "must be a boolean, got object", "number/o": "must be a number, got object",
		"array/o": "must be an array, got object", "object/o": "ok",
	}
	for _, k := range []string{"z", "missing"} { // null and missing are both absent, never an error
		for _, ty := range []string{"string", "bool", "number", "array", "object"} {
			want[ty+"/"+k] = "absent"
		}
	}
	assert.Equal(t, want, got)
}

func TestGet_pathOfTheMember(t *testing.T) {
	_, _, err := Get[string](obj(), "n", "results[2].call")
	errAt(t, err, "results[2].call.n", "must be a string, got number")
	_, _, err = Get[string](obj(), "n", "")
	errAt(t, err, "n", "must be a string, got number")
	s, ok, err := Get[string](obj(), "s", "")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "x", s)
}

func TestAs(t *testing.T) {
	_, err := As[map[string]any]("text", "messages[3]")
	errAt(t, err, "messages[3]", "must be an object, got string")
	_, err = As[[]any](nil, "messages")
	errAt(t, err, "messages", "must be an array, got null")
	a, err := As[[]any]([]any{1.0}, "messages")
	require.NoError(t, err)
	assert.Len(t, a, 1)
}

func TestRequiredString(t *testing.T) {
	for _, tc := range []struct{ key, path, msg string }{
		{"missing", "p.missing", "is required and must be a non-empty string"},
		{"z", "p.z", "is required and must be a non-empty string"},
		{"e", "p.e", "is required and must be a non-empty string"},
		{"n", "p.n", "must be a string, got number"},
	} {
		_, err := RequiredString(obj(), tc.key, "p")
		errAt(t, err, tc.path, tc.msg)
	}
	s, err := RequiredString(obj(), "s", "p")
	require.NoError(t, err)
	assert.Equal(t, "x", s)
}

func TestTagged(t *testing.T) {
	_, _, err := Tagged([]any{}, "type", "blocks[2]")
	errAt(t, err, "blocks[2]", "must be an object, got array")
	_, _, err = Tagged(obj(), "e", "blocks[2]")
	errAt(t, err, "blocks[2].e", "is required and must be a non-empty string")
	_, _, err = Tagged(obj(), "n", "blocks[2]")
	errAt(t, err, "blocks[2].n", "must be a string, got number")
	m, s, err := Tagged(obj(), "s", "blocks[2]")
	require.NoError(t, err)
	assert.Equal(t, "x", s)
	assert.Equal(t, obj(), m)
}

func TestInt(t *testing.T) {
	m := map[string]any{"frac": 1.5, "low": 0.0, "high": 11.0, "ok": 10.0, "s": "3"}
	for _, k := range []string{"frac", "low", "high"} {
		_, _, err := Int(m, k, "policy", 1, 10)
		errAt(t, err, "policy."+k, "must be a whole number from 1 to 10")
	}
	_, _, err := Int(m, "s", "policy", 1, 10)
	errAt(t, err, "policy.s", "must be a number, got string")
	n, ok, err := Int(m, "ok", "policy", 1, 10)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, int64(10), n)
	_, ok, err = Int(m, "missing", "policy", 1, 10)
	require.NoError(t, err)
	assert.False(t, ok)
	_, _, err = Int(map[string]any{"n": 1e300}, "n", "", 0, 1<<53)
	errAt(t, err, "n", "must be a whole number from 0 to 9007199254740992")
}

// TestInt_nullIsNoNumber: a null where a whole number goes is refused with
// the member's path, not taken as the member left out (JSON.stringify
// writes a NaN or an infinity as null, so a host's NaN timeout was
// silently no timeout); NaN, infinities, -0.5 and 2^53+2 are refused too,
// and no max lets a number past 2^53 through (a float64 holds no larger
// whole number exactly).
func TestInt_nullIsNoNumber(t *testing.T) {
	_, _, err := Int(map[string]any{"timeout_ms": nil}, "timeout_ms", "", 1, 1<<53)
	errAt(t, err, "timeout_ms", "must be a number, got null")
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -0.5, 1<<53 + 2, 0x1p63} {
		_, _, err := Int(map[string]any{"n": f}, "n", "loop", 0, 1<<62)
		errAt(t, err, "loop.n", "must be a whole number from 0 to 9007199254740992")
	}
	n, ok, err := Int(map[string]any{"n": float64(1 << 53)}, "n", "", 1, 1<<62)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, int64(1<<53), n)
}

func TestInRange_agreesWithInt(t *testing.T) {
	for _, n := range []int64{-1, 0, 1, 2, 1 << 40, 1<<40 + 1} {
		_, _, jsonErr := Int(map[string]any{"max_chars": float64(n)}, "max_chars", "", 2, 1<<40)
		goErr := InRange("max_chars", n, 2, 1<<40)
		assert.Equal(t, jsonErr, goErr, "n=%d", n)
	}
}

func TestPaths(t *testing.T) {
	assert.Equal(t, "http", Join("", "http"))
	assert.Equal(t, "http.status", Join("http", "status"))
	assert.Equal(t, "results[12]", Index("results", 12))
	assert.Equal(t, "failures[2].http.status", Join(Join(Index("failures", 2), "http"), "status"))
	assert.Equal(t, "toolerr: results[0].call.id: is required", NewError("results[0].call.id", "is required").Error())
	assert.Equal(t, "toolerr: request must be an object", NewError("", "request must be an object").Error())
}

func TestTypeName(t *testing.T) {
	for v, want := range map[any]string{nil: "null", true: "boolean", 1.0: "number", 3: "number", int64(3): "number", "s": "string"} {
		assert.Equal(t, want, TypeName(v))
	}
	assert.Equal(t, "array", TypeName([]any{}))
	assert.Equal(t, "object", TypeName(map[string]any{}))
	assert.Equal(t, "unknown", TypeName(struct{}{}))
}

func TestWithin(t *testing.T) {
	errAt(t, Within("batch[1]", NewError("messages[2].content", "must be a string, got number")), "batch[1].messages[2].content", "must be a string, got number")
	errAt(t, Within("failures[2]", NewError("", "needs an error or a result")), "failures[2]", "needs an error or a result")
	errAt(t, Within("items", NewError("[3].id", "is required")), "items[3].id", "is required")
	errAt(t, Within("", NewError("http.status", "is required")), "http.status", "is required")
	plain := assert.AnError
	assert.Equal(t, plain, Within("batch[0]", plain))
	assert.Nil(t, Within("batch[0]", nil))
}
