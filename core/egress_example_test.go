package core_test

import (
	"fmt"
	"net/http"

	"github.com/toolerr/toolerr/core"
)

// An Anthropic 429 with Retry-After, answered to a client that speaks the
// OpenAI Chat API (openai-python raises RateLimitError for it).
func ExampleEgressHTTPError() {
	h := http.Header{}
	h.Set("Retry-After", "7")
	body := []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`)
	r, err := core.EgressHTTPError(core.FormatOpenAIChat, 429, h, body, core.EgressOptions{Upstream: "anthropic"})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Status, r.Header["retry-after"], r.Header["retry-after-ms"], r.Header["x-should-retry"])
	fmt.Println(string(r.Body))
	// Output:
	// 429 7 7000 true
	// {"error":{"code":"rate_limit_exceeded","message":"Number of request tokens has exceeded your per-minute rate limit.","param":null,"toolerr":{"code":"RATE_LIMITED","details":{"provider":"anthropic","provider_type":"rate_limit_error","retry_after_seconds":7,"status":429},"message":"The Anthropic API was rate limited (HTTP 429); retry after 7 seconds.","retryable":true,"source":"provider"},"type":"rate_limit_error"}}
}

// An overload inside an Anthropic stream, answered as the stream event the
// Anthropic SDK raises its APIStatusError from (error.type overloaded_error).
func ExampleEgressStreamError() {
	r, _ := core.EgressStreamError(core.FormatAnthropic, "error", []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), core.EgressOptions{DropUpstreamMessage: true})
	fmt.Printf("event: %s\ndata: %s\n", r.Event, r.Body)
	// Output:
	// event: error
	// data: {"error":{"message":"The Anthropic API is overloaded in the response stream; retry later.","toolerr":{"code":"OVERLOADED","details":{"provider":"anthropic","provider_type":"overloaded_error"},"message":"The Anthropic API is overloaded in the response stream; retry later.","retryable":true,"source":"provider"},"type":"overloaded_error"},"type":"error"}
}

// A history whose tool_result carries the envelope but lost is_error on the
// way (an OpenAI-shaped history translated by a proxy), with a second call
// left unanswered: the body to send gets the flag and a NO_RESULT failure.
func ExamplePrepareRequest() {
	body := []byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[
	  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"search","input":{}},{"type":"tool_use","id":"toolu_B","name":"search","input":{}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"Search timed out.\",\"retryable\":true,\"source\":\"tool\"}"}]}]}`)
	p, err := core.PrepareRequest(core.FormatAnthropic, body, core.TranscriptOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Changed, p.FlagsRestored, p.Changes.Synthesized)
	// Output:
	// true [toolu_A] 1
}
