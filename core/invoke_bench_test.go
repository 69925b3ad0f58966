package core

import "testing"

// The typical requests of issue 3 (serialize) and of the classify binding
// benchmarks: allocs/op is the figure to watch, since every allocation is
// expensive in the WASI build.
var (
	benchSerializeAnthropic = []byte(`{"op":"serialize","format":"anthropic","call":{"id":"toolu_01","name":"get_weather"},"error":{"code":"TIMEOUT","message":"Weather service timed out after 10s.","retryable":true,"details":{"timeout_ms":10000},"source":"tool"}}`)
	benchClassifyOpenAI429  = []byte(`{"op":"classify","provider":"openai","tool":"chat","attempt":1,"now_ms":1700000000000,"http":{"status":429,"headers":{"retry-after":"12","x-ratelimit-reset-requests":"1s","x-ratelimit-reset-tokens":"6m0s"},"body":{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}}}`)
)

func benchInvoke(b *testing.B, req []byte) {
	if out := Invoke(req); len(out) < 6 || string(out[:6]) != `{"ok":` {
		b.Fatalf("request failed: %s", out)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Invoke(req)
	}
}

func BenchmarkInvoke_serializeAnthropic(b *testing.B) { benchInvoke(b, benchSerializeAnthropic) }

func BenchmarkInvoke_classifyOpenAI429(b *testing.B) { benchInvoke(b, benchClassifyOpenAI429) }

var benchSerializeResults = []byte(`{"op":"serialize","format":"openai-chat","results":[{"call":{"id":"call_abc123","name":"get_weather"},"error":{"code":"TIMEOUT","details":{"timeout_ms":10000},"message":"Weather service timed out after 10s.","retryable":true,"source":"tool"}},{"call":{"id":"call_def456","name":"search_web"},"result":{"text":"Found 3 results."}}]}`)

func BenchmarkInvoke_serializeResults(b *testing.B) { benchInvoke(b, benchSerializeResults) }
