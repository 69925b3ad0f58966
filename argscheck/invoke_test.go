package argscheck

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolerr/toolerr/core"
)

func TestInvoke_validateArgs(t *testing.T) {
	const schema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","maximum":7}},"required":["city"]}`
	tests := []struct{ name, req, want string }{
		{"valid object", `{"op":"validate_args","tool":"get_weather","schema":` + schema + `,"args":{"city":"Paris"}}`,
			`{"ok":{"valid":true}}`},
		{"invalid object", `{"op":"validate_args","tool":"get_weather","schema":` + schema + `,"args":{"days":9}}`,
			`{"ok":{"error":{"code":"INVALID_ARGS","details":{"failures":[{"keyword":"required","path":"/city"},{"keyword":"maximum","path":"/days"}],"fields":["/city","/days"],"tool":"get_weather"},"message":"Fix the arguments for get_weather and call the tool again: /city is required; /days must be at most 7.","retryable":false,"source":"tool"},"valid":false}}`},
		{"args as a json string", `{"op":"validate_args","tool":"get_weather","schema":` + schema + `,"args":"{\"city\":\"Paris\",\"days\":3}"}`,
			`{"ok":{"valid":true}}`},
		{"broken json string", `{"op":"validate_args","tool":"get_weather","schema":` + schema + `,"args":"{\"city\":"}`,
			`{"ok":{"error":{"code":"INVALID_ARGS","details":{"failures":[{"keyword":"json","path":""}],"fields":[""],"tool":"get_weather"},"message":"Fix the arguments for get_weather and call the tool again: they are not valid JSON.","retryable":false,"source":"tool"},"valid":false}}`},
		{"no tool", `{"op":"validate_args","schema":{"type":"object"},"args":[]}`,
			`{"ok":{"error":{"code":"INVALID_ARGS","details":{"failures":[{"keyword":"type","path":""}],"fields":[""]},"message":"Fix the arguments and call the tool again: the arguments must be an object.","retryable":false,"source":"tool"},"valid":false}}`},
		{"missing schema", `{"op":"validate_args","args":{}}`,
			`{"error":{"code":"INVALID_INPUT","details":{"op":"validate_args","path":"schema"},"message":"toolerr: schema: is required.","retryable":false,"source":"orchestrator"}}`},
		{"missing args", `{"op":"validate_args","schema":{}}`,
			`{"error":{"code":"INVALID_INPUT","details":{"op":"validate_args","path":"args"},"message":"toolerr: args: is required (an object, or the arguments as a JSON string).","retryable":false,"source":"orchestrator"}}`},
		{"tool not a string", `{"op":"validate_args","schema":{},"args":{},"tool":1}`,
			`{"error":{"code":"INVALID_INPUT","details":{"op":"validate_args","path":"tool"},"message":"toolerr: tool: must be a string.","retryable":false,"source":"orchestrator"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(Invoke([]byte(tc.req))))
		})
	}
}

func TestInvoke_schemaDoesNotCompile(t *testing.T) {
	got := string(Invoke([]byte(`{"op":"validate_args","schema":{"type":5},"args":{}}`)))
	assert.Contains(t, got, `{"error":{"code":"INVALID_INPUT","details":{"op":"validate_args","path":"schema"},"message":"toolerr: schema: does not compile:`)
}

func TestInvoke_otherOpsGoToCore(t *testing.T) {
	for _, req := range []string{`{"op":"version"}`, `{"op":"args_error","failures":[{"path":"/a","keyword":"required"}]}`, `not json`, `{"op":"nope"}`} {
		assert.Equal(t, string(core.Invoke([]byte(req))), string(Invoke([]byte(req))), req)
	}
}
