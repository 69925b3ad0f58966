package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/toolerr/toolerr/core"
)

func ExampleClassifyHTTP() {
	header := http.Header{}
	header.Set("Retry-After", "12")
	// Naming the tool says a tool made the call: source tool.
	e := core.ClassifyHTTP(429, header, []byte(`{"error":{"message":"slow down"}}`), core.ClassifyOptions{Tool: "get_weather"})
	b, _ := json.Marshal(e)
	fmt.Println(string(b))
	// A tool's 400: the service's own sentence goes to details.tool_message.
	e = core.ClassifyHTTP(400, nil, []byte(`{"error":{"message":"days must be at most 7"}}`), core.ClassifyOptions{Tool: "get_weather"})
	fmt.Println(e.Code, e.Details["tool_message"])
	fmt.Println(e.Message)
	// Output:
	// {"code":"RATE_LIMITED","details":{"retry_after_seconds":12,"status":429,"tool":"get_weather"},"message":"The get_weather tool was rate limited (HTTP 429); retry after 12 seconds.","retryable":true,"source":"tool"}
	// INVALID_ARGS days must be at most 7.
	// The get_weather tool rejected the arguments (HTTP 400); fix the arguments before calling it again.
}

func ExampleClassifyHTTP_gemini() {
	body := `[{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[
	  {"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}]`
	e := core.ClassifyHTTP(429, nil, []byte(body), core.ClassifyOptions{})
	fmt.Println(e.Code, e.Retryable)
	fmt.Println(e.Message)
	// Output:
	// QUOTA_EXHAUSTED false
	// The Gemini API reported a used-up quota or spend limit (HTTP 429); do not retry until the quota resets.
}

func ExampleClassifySSE() {
	e := core.ClassifySSE("error", []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), true, core.ClassifyOptions{})
	fmt.Println(e.Code, e.Retryable, e.Details["partial_output"])
	// Output:
	// OVERLOADED true true
}

func ExampleClassifyError() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := core.ClassifyError(fmt.Errorf("search: %w", ctx.Err()), core.ClassifyOptions{Source: core.SourceTool, Tool: "search"})
	fmt.Println(e.Code, e.Retryable)
	e = core.ClassifyError(fmt.Errorf("search: %w", context.DeadlineExceeded), core.ClassifyOptions{Source: core.SourceTool, Tool: "search"})
	fmt.Println(e.Code, e.Retryable, e.Message)
	// Output:
	// CANCELLED false
	// TIMEOUT true The search tool timed out; retry later.
}

func ExampleClassifyText() {
	e := core.ClassifyText("upstream request failed: status code: 400, message: invalid tool id", core.ClassifyOptions{})
	fmt.Println(e.Code, e.Retryable, e.Details["status"])
	e = core.ClassifyText("dial tcp 127.0.0.1:9: connect: connection refused", core.ClassifyOptions{Source: core.SourceTool, Tool: "search"})
	fmt.Println(e.Code, e.Retryable, e.Message)
	// Output:
	// INVALID_REQUEST false 400
	// TRANSPORT true The search tool could not connect: the connection was refused; retry later.
}

func ExampleClassifyException() {
	tb := "Traceback (most recent call last):\n  File \"/srv/tools/search.py\", line 9, in run\n    raise ValueError(\"query must not be empty\")\nValueError: query must not be empty\n"
	e := core.ClassifyException("", "", tb, core.ClassifyOptions{Tool: "search"})
	b, _ := json.Marshal(e)
	fmt.Println(string(b))
	// Output:
	// {"code":"TOOL_ERROR","details":{"exception_type":"ValueError","tool":"search","tool_message":"query must not be empty."},"message":"The search tool raised ValueError; change the arguments or the approach, do not repeat the same call.","retryable":false,"source":"tool"}
}

func ExampleInvoke_classify() {
	resp := core.Invoke([]byte(`{"op":"classify","source":"tool","tool":"search","attempt":3,"http":{"status":503,"headers":{"retry-after":"2"}}}`))
	fmt.Println(string(resp))
	// Output:
	// {"ok":{"code":"TRANSPORT","details":{"attempt":3,"retry_after_seconds":2,"status":503,"tool":"search"},"message":"The search tool is unavailable (HTTP 503); retry after 2 seconds.","retryable":true,"source":"tool"}}
}
