package core_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolerr/toolerr/core"
)

func ExampleInvalidArgs() {
	e := core.InvalidArgs("get_weather", []core.ArgFailure{
		{Path: "/days", Keyword: "maximum", Message: "maximum: got 9, want 7", Expected: 7},
		{Path: "/city", Keyword: "required", Message: "missing property 'city'"},
	})
	b, _ := json.Marshal(e)
	fmt.Println(e.Message)
	fmt.Println(string(b))
	// Output:
	// Fix the arguments for get_weather and call the tool again: /city is required; /days must be at most 7.
	// {"code":"INVALID_ARGS","details":{"failures":[{"keyword":"required","path":"/city"},{"keyword":"maximum","path":"/days"}],"fields":["/city","/days"],"tool":"get_weather"},"message":"Fix the arguments for get_weather and call the tool again: /city is required; /days must be at most 7.","retryable":false,"source":"tool"}
}

func ExampleInvoke_argsError() {
	resp := core.Invoke([]byte(`{"op":"args_error","tool":"get_weather","failures":[
		{"path":"/units","keyword":"enum","message":"'kelvin' is not one of ['metric', 'imperial']","expected":["metric","imperial"]}]}`))
	fmt.Println(string(resp))
	// Output:
	// {"ok":{"code":"INVALID_ARGS","details":{"failures":[{"keyword":"enum","path":"/units"}],"fields":["/units"],"tool":"get_weather"},"message":"Fix the arguments for get_weather and call the tool again: /units must be one of \"metric\", \"imperial\".","retryable":false,"source":"tool"}}
}

func ExampleInvoke_sanitize() {
	resp := core.Invoke([]byte(`{"op":"sanitize","text":"GET https://example.com/v1?alt=sse&key=AIzaSyD-1234567890abcdefghijklmnopqrstu failed: Authorization: Bearer abc"}`))
	fmt.Println(string(resp))
	// Output:
	// {"ok":{"text":"GET https://example.com/v1?alt=sse&key=[REDACTED] failed: Authorization: Bearer [REDACTED]","truncated":false}}
}
