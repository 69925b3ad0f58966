package canonical

import "testing"

var benchRequest = []byte(`{"op":"serialize","format":"anthropic","call":{"id":"toolu_01","name":"get_weather"},"error":{"code":"TIMEOUT","message":"Weather service timed out after 10s.","retryable":true,"details":{"timeout_ms":10000},"source":"tool"}}`)

func BenchmarkParse_request(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(benchRequest); err != nil {
			b.Fatal(err)
		}
	}
}
