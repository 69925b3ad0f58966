package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// benchBlock is about 1 KB of what a failing tool returns: prose, a URL with
// a key, a bearer header, JSON with a secret, a percent-encoded query, a base64
// blob, a JWT and a traceback (the bodies are made up).
const benchBlock = "Weather API returned 503 after 3 attempts; the upstream said the service is unavailable for now.\n" +
	"GET https://api.example.test/v1/forecast?city=Paris&units=metric&key=FAKEFAKEFAKEFAKE0123 failed\n" +
	"request headers: {'Authorization': 'Bearer FAKE0123456789fakefake', 'Accept': 'application/json'}\n" +
	`body: {"error": {"code": 401, "message": "invalid api_key", "client_secret": "FAKE-EXAMPLE-secret"}}` + "\n" +
	"retrying with cursor=api%5Fkey%3Dsk%2DFAKEFAKEFAKEFAKEFAKEFAKE&page=2 and state c2stcHJvai1GQUtFRkFLRUZBS0VGQUtFRkFLRUZBS0U=\n" +
	"session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJGQUtFIn0.FAKEsignatureFAKEsignature expired at 12:00 UTC\n" +
	"Traceback (most recent call last):\n  File \"/srv/app/tool.py\", line 12, in run\n    data = fetch(url)\n" +
	"  File \"/srv/app/net.py\", line 40, in fetch\n    raise ConnectionError(\"upstream refused\")\n" +
	"ConnectionError: upstream refused the connection to db.internal:5432 with password hunter2fake\n" +
	"The tool will be retried later; nothing else is known about this failure at this time, see the logs.\n"

// BenchmarkSanitize runs Text, Message and a details string on 10 KB, 100 KB
// and 1 MB of benchBlock, and reports ns/byte: flat across the sizes when
// every scan is linear. "valid" is one pass of utf8.ValidString over the
// same bytes, the floor a single scan costs.
func BenchmarkSanitize(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"10KB", 10 << 10}, {"100KB", 100 << 10}, {"1MB", 1 << 20}} {
		s := strings.Repeat(benchBlock, size.n/len(benchBlock)+1)[:size.n]
		for _, f := range []struct {
			name string
			fn   func(string)
		}{
			{"valid", func(s string) { utf8.ValidString(s) }},
			{"text", func(s string) { Text(s) }},
			{"message", func(s string) { Message(s) }},
			{"details", func(s string) { detailString(s) }},
		} {
			b.Run(f.name+"/"+size.name, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					f.fn(s)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s)), "ns/byte")
			})
		}
	}
}

// BenchmarkMessageClean runs, on work item (b)'s messages, what an envelope
// reader and safeFailures asked of a message before MessageClean
// ("separate": CleanMessage, else Message, then Clean) beside MessageClean
// alone ("together"), in one binary so that -count interleaves them.
func BenchmarkMessageClean(b *testing.B) {
	for _, m := range []struct{ name, s string }{
		{"invalidArgs", "The arguments for book_flight are invalid: /frequent_flyer must match the pattern ^[A-Z]{2}-[0-9]{9}$."},
		{"quiet", "The booking service is unavailable (HTTP 503); retry later."},
	} {
		b.Run(m.name+"/separate", func(b *testing.B) {
			for b.Loop() {
				if !CleanMessage(m.s) && Message(m.s) != m.s || !Clean(m.s) {
					b.Fatal("not clean")
				}
			}
		})
		b.Run(m.name+"/together", func(b *testing.B) {
			for b.Loop() {
				if out, clean := MessageClean(m.s); out != m.s || !clean {
					b.Fatal("not clean")
				}
			}
		})
	}
}
