package argscheck

import (
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

const weatherSchema = `{
  "type": "object",
  "properties": {
    "city":   {"type": "string", "minLength": 1},
    "days":   {"type": "integer", "minimum": 1, "maximum": 7},
    "units":  {"enum": ["metric", "imperial"]},
    "stops":  {"type": "array", "maxItems": 3,
               "items": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
    "filter": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}},
    "a/b~c":  {"type": "boolean"}
  },
  "required": ["city"],
  "additionalProperties": false
}`

type fail struct{ path, keyword string }

func TestValidate_cases(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		fails   []fail
		message string
	}{
		{"required", `{"days": 3}`, []fail{{"/city", "required"}},
			"Fix the arguments for get_weather and call the tool again: /city is required."},
		{"type", `{"city": 5}`, []fail{{"/city", "type"}},
			"Fix the arguments for get_weather and call the tool again: /city must be a string."},
		{"integer type", `{"city": "Paris", "days": 2.5}`, []fail{{"/days", "type"}},
			"Fix the arguments for get_weather and call the tool again: /days must be an integer."},
		{"enum", `{"city": "Paris", "units": "kelvin"}`, []fail{{"/units", "enum"}},
			`Fix the arguments for get_weather and call the tool again: /units must be one of "metric", "imperial".`},
		{"maximum", `{"city": "Paris", "days": 9}`, []fail{{"/days", "maximum"}},
			"Fix the arguments for get_weather and call the tool again: /days must be at most 7."},
		{"minimum", `{"city": "Paris", "days": 0}`, []fail{{"/days", "minimum"}},
			"Fix the arguments for get_weather and call the tool again: /days must be at least 1."},
		{"min length", `{"city": ""}`, []fail{{"/city", "minLength"}},
			"Fix the arguments for get_weather and call the tool again: /city must be at least 1 character long."},
		{"additional properties", `{"city": "Paris", "zip": "75001", "country": "FR"}`, []fail{{"/country", "additionalProperties"}, {"/zip", "additionalProperties"}},
			"Fix the arguments for get_weather and call the tool again: /country is not allowed; /zip is not allowed."},
		{"nested array item", `{"city": "Paris", "stops": [{"name": "Lyon"}, {}]}`, []fail{{"/stops/1/name", "required"}},
			"Fix the arguments for get_weather and call the tool again: /stops/1/name is required."},
		{"nested object array", `{"city": "Paris", "filter": {"tags": ["a", 3]}}`, []fail{{"/filter/tags/1", "type"}},
			"Fix the arguments for get_weather and call the tool again: /filter/tags/1 must be a string."},
		{"max items", `{"city": "P", "stops": [{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"}]}`, []fail{{"/stops", "maxItems"}},
			"Fix the arguments for get_weather and call the tool again: /stops must have at most 3 items."},
		{"escaped pointer", `{"city": "P", "a/b~c": "yes"}`, []fail{{"/a~1b~0c", "type"}},
			"Fix the arguments for get_weather and call the tool again: /a~1b~0c must be a boolean."},
		{"root type", `[1, 2]`, []fail{{"", "type"}},
			"Fix the arguments for get_weather and call the tool again: the arguments must be an object."},
		{"several sorted", `{"days": 9, "units": "kelvin"}`, []fail{{"/city", "required"}, {"/days", "maximum"}, {"/units", "enum"}},
			`Fix the arguments for get_weather and call the tool again: /city is required; /days must be at most 7; /units must be one of "metric", "imperial".`},
		{"broken json", `{"city": "Paris"`, []fail{{"", "json"}},
			"Fix the arguments for get_weather and call the tool again: they are not valid JSON."},
		{"trailing garbage", `{"city": "Paris"} x`, []fail{{"", "json"}},
			"Fix the arguments for get_weather and call the tool again: they are not valid JSON."},
	}
	v := new(Validator)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, ok, err := v.Validate([]byte(weatherSchema), []byte(tc.args), "get_weather")
			require.NoError(t, err)
			require.False(t, ok)
			assert.Equal(t, core.CodeInvalidArgs, env.Code)
			assert.False(t, env.Retryable)
			assert.Equal(t, core.SourceTool, env.Source)
			assert.Equal(t, tc.message, env.Message)
			var got []fail
			for _, f := range env.Details["failures"].([]any) {
				m := f.(map[string]any)
				got = append(got, fail{m["path"].(string), m["keyword"].(string)})
			}
			assert.Equal(t, tc.fails, got)
			assert.Equal(t, "get_weather", env.Details["tool"])
		})
	}
	assert.Equal(t, 1, v.cached(), "one schema compiled once")
}

func TestValidate_valid(t *testing.T) {
	env, ok, err := Validate([]byte(weatherSchema), []byte(`{"city": "Paris", "days": 7, "units": "metric", "stops": [{"name": "Lyon"}]}`), "get_weather")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, core.Envelope{}, env)
}

func TestValidate_badSchema(t *testing.T) {
	for name, schema := range map[string]string{
		"not json":       `{"type": `,
		"bad keyword":    `{"type": 5}`,
		"external ref":   `{"$ref": "file:///etc/passwd"}`,
		"relative ref":   `{"$ref": "other.json"}`,
		"unknown format": `{"$schema": "https://example.com/not-a-draft"}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, ok, err := Validate([]byte(schema), []byte(`{}`), "t")
			assert.False(t, ok)
			assert.True(t, errors.Is(err, ErrSchema), "%v", err)
		})
	}
}

func TestValidate_draft7(t *testing.T) {
	schema := `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
	  "properties": {"n": {"type": "number", "exclusiveMaximum": 10}}, "dependencies": {"a": ["b"]}}`
	env, ok, err := Validate([]byte(schema), []byte(`{"n": 10, "a": 1}`), "t")
	require.NoError(t, err)
	require.False(t, ok)
	assert.Equal(t, "Fix the arguments for t and call the tool again: /b is required; /n must be less than 10.", env.Message)
}

// TestValidate_sameAsArgsError shows the neutral path: the failures argscheck
// derives, handed to the core op args_error as any binding would, give the
// same bytes.
func TestValidate_sameAsArgsError(t *testing.T) {
	env, ok, err := Validate([]byte(weatherSchema), []byte(`{"days": 9, "units": "kelvin", "x": 1}`), "get_weather")
	require.NoError(t, err)
	require.False(t, ok)
	direct, err := env.MarshalJSON()
	require.NoError(t, err)

	req := `{"op":"args_error","tool":"get_weather","failures":[
		{"path":"/x","keyword":"additionalProperties","message":"Additional properties are not allowed ('x' was unexpected)","expected":false},
		{"path":"/units","keyword":"enum","message":"'kelvin' is not one of ['metric', 'imperial']","expected":["metric","imperial"]},
		{"path":"/days","keyword":"maximum","message":"9 is greater than the maximum of 7","expected":7},
		{"path":"/city","keyword":"required","message":"'city' is a required property","expected":["city"]}]}`
	assert.Equal(t, `{"ok":`+string(direct)+`}`, string(core.Invoke([]byte(req))))
}

func TestFailures_neutralForm(t *testing.T) {
	sch, err := new(Validator).compile([]byte(weatherSchema))
	require.NoError(t, err)
	err = sch.Validate(map[string]any{"days": json.Number("9"), "units": "kelvin"})
	var ve *jsonschema.ValidationError
	require.ErrorAs(t, err, &ve)
	got := Failures(ve)
	sort.Slice(got, func(i, j int) bool { return got[i].Path < got[j].Path })
	assert.Equal(t, []core.ArgFailure{
		{Path: "/city", Keyword: "required", Message: "missing property 'city'"},
		{Path: "/days", Keyword: "maximum", Message: "maximum: got 9, want 7", Expected: 7.0},
		{Path: "/units", Keyword: "enum", Message: "value must be one of 'metric', 'imperial'", Expected: []any{"metric", "imperial"}},
	}, got)
}

func TestValidator_concurrent(t *testing.T) {
	v := new(Validator)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			schema := `{"type":"object","properties":{"n":{"maximum":` + strconv.Itoa(i%4) + `}}}`
			_, ok, err := v.Validate([]byte(schema), []byte(`{"n": 100}`), "t")
			assert.NoError(t, err)
			assert.False(t, ok)
		}()
	}
	wg.Wait()
	assert.Equal(t, 4, v.cached())
}

func TestValidator_evicts(t *testing.T) {
	v := new(Validator)
	for i := range MaxCachedSchemas + 5 {
		_, _, err := v.Validate([]byte(`{"maximum":`+strconv.Itoa(i)+`}`), []byte(`1`), "")
		require.NoError(t, err)
	}
	assert.Equal(t, MaxCachedSchemas, v.cached())
}
