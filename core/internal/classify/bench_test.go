package classify

import (
	"encoding/json"
	"testing"
)

// A typical OpenAI 429: the body of a tokens-per-minute rate limit and the
// headers the API sends with it.
var (
	bench429Body   = []byte(`{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 18928, Requested 11159. Please try again in 174ms. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`)
	bench429Header = Header{
		"Content-Type":                   {"application/json"},
		"Date":                           {"Wed, 01 Jan 2025 00:00:00 GMT"},
		"Retry-After":                    {"1"},
		"X-Request-Id":                   {"req_7be4715c3ee32aa406eacb68c7cc966e"},
		"X-Ratelimit-Limit-Requests":     {"30000"},
		"X-Ratelimit-Limit-Tokens":       {"30000"},
		"X-Ratelimit-Remaining-Requests": {"29999"},
		"X-Ratelimit-Remaining-Tokens":   {"0"},
		"X-Ratelimit-Reset-Requests":     {"2ms"},
		"X-Ratelimit-Reset-Tokens":       {"174ms"},
		"Openai-Processing-Ms":           {"15"},
		"Strict-Transport-Security":      {"max-age=31536000; includeSubDomains; preload"},
	}
)

// BenchmarkClassifyHTTP classifies the OpenAI 429 from its raw bytes: parse
// the body, read the headers, build the envelope.
func BenchmarkClassifyHTTP(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		e := HTTP(429, bench429Header, ParseBody(bench429Body), Options{})
		if e.Code != "RATE_LIMITED" {
			b.Fatal(e.Code)
		}
	}
}

// BenchmarkClassifyHTTP_encodingJSON is the baseline: encoding/json
// unmarshalling the same body into the OpenAI ErrorResponse struct, nothing
// more.
func BenchmarkClassifyHTTP_encodingJSON(b *testing.B) {
	type apiError struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	var resp struct {
		Error apiError `json:"error"`
	}
	b.ReportAllocs()
	for b.Loop() {
		resp.Error = apiError{}
		if err := json.Unmarshal(bench429Body, &resp); err != nil {
			b.Fatal(err)
		}
	}
}
