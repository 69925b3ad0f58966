package args

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
)

func f(path, keyword string, expected any) Failure {
	return Failure{Path: path, Keyword: keyword, Expected: expected, HasExpected: expected != nil}
}

func TestEnvelope_brief(t *testing.T) {
	e := Envelope("get_weather", []Failure{f("/days", "maximum", 7.0), f("/city", "required", nil)})
	assert.Equal(t, envelope.InvalidArgs, e.Code)
	assert.False(t, e.Retryable)
	assert.Equal(t, envelope.SourceTool, e.Source)
	assert.Equal(t, "Fix the arguments for get_weather and call the tool again: /city is required; /days must be at most 7.", e.Message)
	got, err := e.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `{"code":"INVALID_ARGS","details":{"failures":[{"keyword":"required","path":"/city"},{"keyword":"maximum","path":"/days"}],"fields":["/city","/days"],"tool":"get_weather"},"message":"Fix the arguments for get_weather and call the tool again: /city is required; /days must be at most 7.","retryable":false,"source":"tool"}`, string(got))
}

func TestEnvelope_orderDoesNotMatter(t *testing.T) {
	a := []Failure{f("/b", "type", "string"), f("/a", "minimum", 1.0), f("/a", "enum", []any{"x"}), f("/a", "minimum", 1.0)}
	b := []Failure{a[3], a[2], a[1], a[0]}
	ea, _ := Envelope("t", a).MarshalJSON()
	eb, _ := Envelope("t", b).MarshalJSON()
	assert.Equal(t, string(ea), string(eb))
	assert.Contains(t, string(ea), `"failures":[{"keyword":"enum","path":"/a"},{"keyword":"minimum","path":"/a"},{"keyword":"type","path":"/b"}]`)
	assert.Contains(t, string(ea), `"fields":["/a","/b"]`)
}

func TestPredicate_keywords(t *testing.T) {
	tests := []struct {
		name string
		in   Failure
		want string
	}{
		{"required", f("/city", "required", []any{"city"}), "/city is required"},
		{"additional property", f("/units_typo", "additionalProperties", false), "/units_typo is not allowed"},
		{"type one", f("/days", "type", "integer"), "/days must be an integer"},
		{"type many", f("/note", "type", []any{"string", "array", "null"}), "/note must be a string, an array or null"},
		{"type unknown", f("/days", "type", nil), "/days has the wrong type"},
		{"type root", f("", "type", "object"), "the arguments must be an object"},
		{"enum", f("/units", "enum", []any{"metric", "imperial"}), `/units must be one of "metric", "imperial"`},
		{"enum single", f("/units", "enum", []any{"metric"}), `/units must be "metric"`},
		{"const", f("/v", "const", 2.0), "/v must be 2"},
		{"minimum", f("/days", "minimum", 1.0), "/days must be at least 1"},
		{"maximum fraction", f("/t", "maximum", 0.5), "/t must be at most 0.5"},
		{"maximum int from Go", f("/days", "maximum", 7), "/days must be at most 7"},
		{"exclusive minimum", f("/t", "exclusiveMinimum", 0.0), "/t must be greater than 0"},
		{"exclusive maximum", f("/t", "exclusiveMaximum", 100.0), "/t must be less than 100"},
		{"multiple of", f("/n", "multipleOf", 5.0), "/n must be a multiple of 5"},
		{"min length", f("/city", "minLength", 1.0), "/city must be at least 1 character long"},
		{"max length", f("/city", "maxLength", 80.0), "/city must be at most 80 characters long"},
		{"min items", f("/stops", "minItems", 2.0), "/stops must have at least 2 items"},
		{"max properties", f("/tags", "maxProperties", 3.0), "/tags must have at most 3 properties"},
		{"pattern", f("/date", "pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"), "/date must match the pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
		{"format", f("/email", "format", "email"), "/email must be a valid email"},
		{"unique items", f("/ids", "uniqueItems", true), "/ids must not contain duplicate items"},
		{"one of", f("/loc", "oneOf", nil), "/loc must match exactly one of the allowed forms"},
		{"unknown keyword", f("/x", "x-custom", nil), "/x fails the x-custom rule"},
		{"escaped pointer", f("/a~1b/0", "type", "string"), "/a~1b/0 must be a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, phrase(normalize([]Failure{tc.in})[0]))
		})
	}
}

func TestMessage_json(t *testing.T) {
	e := Envelope("get_weather", []Failure{{Path: "", Keyword: KeywordJSON, Message: "unexpected end of JSON input"}})
	assert.Equal(t, "Fix the arguments for get_weather and call the tool again: they are not valid JSON.", e.Message)
	assert.Equal(t, []any{""}, e.Details["fields"])
}

func TestMessage_noTool(t *testing.T) {
	e := Envelope("", []Failure{f("/q", "required", nil)})
	assert.Equal(t, "Fix the arguments and call the tool again: /q is required.", e.Message)
	_, has := e.Details["tool"]
	assert.False(t, has)
}

func TestMessage_manyFailuresFit(t *testing.T) {
	var fs []Failure
	for i := range 150 {
		fs = append(fs, f("/field_"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+"/"+itoa(i), "required", nil))
	}
	e := Envelope("bulk", fs)
	assert.LessOrEqual(t, utf8.RuneCountInString(e.Message), 300)
	assert.True(t, strings.HasPrefix(e.Message, "Fix the arguments for bulk and call the tool again: "), e.Message)
	assert.True(t, strings.HasSuffix(e.Message, " more."), e.Message)
	assert.Contains(t, e.Message, "; and ")
	assert.Len(t, e.Details["failures"], MaxDetailFailures)
	assert.Equal(t, 50, e.Details["failures_omitted"])
}

func TestMessage_longPathClipped(t *testing.T) {
	e := Envelope("t", []Failure{f("/"+strings.Repeat("é", 500), "required", nil)})
	assert.LessOrEqual(t, utf8.RuneCountInString(e.Message), 300)
	assert.Contains(t, e.Message, "… is required.")
}

func TestMessage_secretInPathRedacted(t *testing.T) {
	e := Envelope("t", []Failure{f("/sk-abc123DEF456ghi789JKL012mno345PQR", "additionalProperties", false)})
	assert.NotContains(t, e.Message, "sk-abc123")
	assert.NotContains(t, e.Details["fields"].([]any)[0], "sk-abc123")
}

func itoa(i int) string {
	b, _ := canonical.Append(nil, float64(i))
	return string(b)
}

func TestFromValue_valid(t *testing.T) {
	v, err := canonical.Parse([]byte(`[{"path":"/days","keyword":"maximum","message":"maximum: got 9, want 7","expected":7},{"path":"","keyword":"json"},{"path":"/x","keyword":"const","expected":null}]`))
	require.NoError(t, err)
	got, err := FromValue(v, "failures")
	require.NoError(t, err)
	assert.Equal(t, []Failure{
		{Path: "/days", Keyword: "maximum", Message: "maximum: got 9, want 7", Expected: 7.0, HasExpected: true},
		{Path: "", Keyword: "json"},
		{Path: "/x", Keyword: "const"},
	}, got)
}

func TestFromValue_errors(t *testing.T) {
	tests := []struct{ name, in, path, msg string }{
		{"not array", `{}`, "failures", "must be an array, got object"},
		{"empty", `[]`, "failures", "must hold at least one failure"},
		{"item not object", `[1]`, "failures[0]", "must be an object, got number"},
		{"missing path", `[{"keyword":"type"}]`, "failures[0].path", `is required (a JSON Pointer, "" for the whole arguments)`},
		{"bad pointer", `[{"path":"city","keyword":"type"}]`, "failures[0].path", `must be an RFC 6901 JSON Pointer ("" or starting with '/', '~' only as ~0 or ~1), got "city"`},
		{"bad escape", `[{"path":"/a~2","keyword":"type"}]`, "failures[0].path", `must be an RFC 6901 JSON Pointer ("" or starting with '/', '~' only as ~0 or ~1), got "/a~2"`},
		{"missing keyword", `[{"path":"/a"}]`, "failures[0].keyword", "is required and must be a non-empty string"},
		{"bad keyword", `[{"path":"/a","keyword":"two words"}]`, "failures[0].keyword", `must be a JSON Schema keyword (letters, digits, $, _ or -), got "two words"`},
		{"unknown member", `[{"path":"/a","keyword":"type","keword":"x"}]`, "failures[0].keword", "is not a failure member (want path, keyword, message, expected)"},
		{"message type", `[{"path":"/a","keyword":"type","message":3}]`, "failures[0].message", "must be a string, got number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := canonical.Parse([]byte(tc.in))
			require.NoError(t, err)
			_, err = FromValue(v, "failures")
			var fe *field.Error
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.path, fe.Path)
			assert.Equal(t, tc.msg, fe.Msg)
		})
	}
}

// TestEnvelope_redactsBeforeCutting: every piece taken from the request is
// redacted before it is cut to its room. A JWT or key longer than the room
// used to be cut first, and the cut text no longer had the shape the
// sanitizer knows, so its head reached the model.
func TestEnvelope_redactsBeforeCutting(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + strings.Repeat("eyJzdWIiOiJFWEFNUExFIn0", 4) + "." + strings.Repeat("EXAMPLEsig", 6)
	key := "sk-proj-" + strings.Repeat("EXAMPLEexample0", 10)
	bedrock := "ABSK" + strings.Repeat("EXAMPLE/bedrock+", 8) // a '/' the pointer escapes as ~1
	for _, fl := range [][]Failure{
		{f("/token", "const", jwt)},
		{f("/token", "pattern", jwt)},
		{f("/token", "format", key)},
		{f("/token", "enum", []any{jwt, key})},
		{f("/token", "type", key)},
		{f("/"+key, "required", nil)},
		{f("/a/"+strings.ReplaceAll(bedrock, "/", "~1"), "required", nil)},
	} {
		e := Envelope(key, fl)
		got, err := e.MarshalJSON()
		require.NoError(t, err)
		for _, secret := range []string{jwt[37:49], key[8:20], "EXAMPLEsig", "EXAMPLEexample0", "bedrock+EXAMPLE"} {
			assert.NotContains(t, string(got), secret, "%v", fl)
		}
		assert.Contains(t, e.Message, "[REDACTED]")
	}
}
