package core_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolerr/toolerr/core"
)

func ExampleInvoke() {
	resp := core.Invoke([]byte(`{"op":"envelope","code":"TIMEOUT","message":"Search timed out after 10 s","details":{"tool":"search","timeout_ms":10000}}`))
	fmt.Println(string(resp))
	// Output:
	// {"ok":{"code":"TIMEOUT","details":{"timeout_ms":10000,"tool":"search"},"message":"Search timed out after 10 s.","retryable":true,"source":"tool"}}
}

func ExampleInvoke_badRequest() {
	resp := core.Invoke([]byte(`{"op":"sanitize","text":42}`))
	fmt.Println(string(resp))
	// Output:
	// {"error":{"code":"INVALID_INPUT","details":{"op":"sanitize","path":"text"},"message":"toolerr: text: must be a string, got number.","retryable":false,"source":"orchestrator"}}
}

func ExampleNewEnvelope() {
	e, err := core.NewEnvelope(core.CodeRateLimited, "Weather API returned 429 after 3 attempts.",
		map[string]any{"status": 429, "retry_after_seconds": 12, "tool": "get_weather"}, core.SourceTool)
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(e)
	fmt.Println(string(b))

	// A code or source the envelope op refuses is refused here too.
	_, err = core.NewEnvelope("rate limited", "Slow down.", nil, core.SourceTool)
	fmt.Println(err)
	// Output:
	// {"code":"RATE_LIMITED","details":{"retry_after_seconds":12,"status":429,"tool":"get_weather"},"message":"Weather API returned 429 after 3 attempts.","retryable":true,"source":"tool"}
	// toolerr: code: must be an UPPER_SNAKE token, got "rate limited"
}

func ExampleEnvelope_UnmarshalJSON() {
	var e core.Envelope
	err := json.Unmarshal([]byte(`{"code":"TIMEOUT","message":"slow","retryable":true,"details":{},"source":"tool","extra":1}`), &e)
	fmt.Println(err)
	// Output:
	// toolerr: extra: is not an envelope field (want code, message, retryable, details, source)
}

func ExampleRequestError() {
	_, err := core.Serialize("carrier-pigeon", nil)
	fmt.Println(err, errors.Is(err, core.ErrBadRequest))
	// Output:
	// toolerr: format: unknown format "carrier-pigeon"; known: openai-chat, openai-responses, anthropic, gemini, gemini-openai, bedrock, mcp true
}

func ExampleCodes() {
	for _, c := range core.Codes()[:3] {
		fmt.Println(c.Code, c.Retryable, c.Statuses)
	}
	// Output:
	// RATE_LIMITED true [429]
	// QUOTA_EXHAUSTED false [402]
	// OVERLOADED true [529]
}
