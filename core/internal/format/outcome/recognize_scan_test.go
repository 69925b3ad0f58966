package outcome

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// scanSeeds are envelope texts and near ones: what toolerr writes (nested
// and empty details, numbers, arrays, escapes, non-ASCII), the shapes the
// rule refuses (white space, order, exponents, secrets, unfinished
// messages, unregistered codes), and the work item (b)'s three failures.
var scanSeeds = []string{
	timeoutText,
	`{"code":"TIMEOUT","details":{"timeout_ms":10000,"tool":"get_weather_forecast"},"message":"The weather service did not answer within 10 seconds.","retryable":true,"source":"tool"}`,
	`{"code":"TRANSPORT","details":{"retry_after_seconds":30,"status":503,"tool":"book_hotel"},"message":"The hotel booking service is unavailable.","retryable":true,"source":"provider"}`,
	`{"code":"INVALID_ARGS","details":{"fields":["/frequent_flyer"],"tool":"book_flight"},"message":"The frequent flyer number is not valid.","retryable":false,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{},"message":"","retryable":true,"source":"tool"}`,
	`{"code":"INVALID_ARGS","details":{"fields":["/frequent_flyer"],"tool":"book_flight"},"message":"The arguments for book_flight are invalid: /frequent_flyer must match the pattern ^[A-Z]{2}-[0-9]{9}$.","retryable":false,"source":"tool"}`,
	`{"code":"TRANSPORT","details":{},"message":"The upstream said: Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789.","retryable":true,"source":"tool"}`,
	`{"code":"TRANSPORT","details":{},"message":"First line.\nSecond line.","retryable":true,"source":"tool"}`,
	`{"code":"DISK_FULL","details":{},"message":"Full.","retryable":false,"source":"tool"}`,
	`{"code":"Disk full","details":{},"message":"Full.","retryable":false,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"a":{"b":[1,-2,0,true,false,null,{"c":"d"}]},"e":[]},"message":"Nested.","retryable":false,"source":"orchestrator"}`,
	`{"code":"TIMEOUT","details":{"n":1.5,"m":-0,"x":1e400},"message":"Numbers.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"n":123456789012345678},"message":"A long integer.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"b":1,"a":2},"message":"Out of order.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"a":1,"a":2},"message":"A duplicate.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"path":"a\"b"},"message":"An escape.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"city":"Zürich"},"message":"Weather in Zürich timed out.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{},"message":"Say \"hi\".","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{},"message":"Two sentences. Here.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{},"message":"Two  spaces.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"api_key":"abc"},"message":"","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"note":"token sk-ant-abcdefghijklmnopqrstuvwxyz012345"},"message":"Leaked.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{},"message":"Uses key sk-ant-abcdefghijklmnopqrstuvwxyz012345 here.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{},"message":"","retryable":true,"source":"user"}`,
	`{"code":"TIMEOUT","details":{},"message":"","retryable":1,"source":"tool"}`,
	`{"code":"TIMEOUT","details":[],"message":"","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":"x","message":"","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{},"message":"","retryable":true,"source":"tool","x":1}`,
	`{"code":"TIMEOUT","details":{},"message":"","retryable":true,"retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","message":"","details":{},"retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details": {},"message":"","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{} ,"message":"","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"a": 1},"message":"","retryable":true,"source":"tool"}`,
	timeoutText + " ",
	`{"code":"TIMEOUT","details":{"s":"` + strings.Repeat("x", 3000) + `"},"message":"Long.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"d":` + strings.Repeat(`{"d":`, 70) + `1` + strings.Repeat("}", 70) + `},"message":"Deep.","retryable":true,"source":"tool"}`,
	`{"code":"TIMEOUT","details":{"l":[` + strings.Repeat(`[],`, 400) + `[]]},"message":"Many.","retryable":true,"source":"tool"}`,
	"{\"code\":\"TIMEOUT\",\"details\":{\"s\":\"\xff\"},\"message\":\"Bad bytes.\",\"retryable\":true,\"source\":\"tool\"}",
	"{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"A tab\there.\",\"retryable\":true,\"source\":\"tool\"}",
}

// recognizedSame holds recognizeScan to recognizeParse, the rule itself,
// for s under both flags: where the scan is sure, the same envelope, its
// details and their text; and either way, the clean it reports is what
// safeFailures asks of the envelope (sanitize.Clean of its message,
// sanitize.DetailsClean of its details).
func recognizedSame(t *testing.T, s string) (sure int) {
	for _, f := range []Flag{Unflagged, Flagged} {
		_, safe, want, wantClean, isOne := recognizeParse(s, f)
		if isOne {
			assert.Equal(t, sanitize.Clean(safe.Message) && sanitize.DetailsClean(safe.Details), wantClean, "clean of %q by the rule", s)
		}
		e, details, clean, ok, isSure := recognizeScan(s, f)
		if !isSure {
			continue
		}
		sure++
		require.Equal(t, isOne, ok, "the scan and the rule disagree on %q (flag %d)", s, f)
		if !ok {
			continue
		}
		assert.Equal(t, safe, e, "%q", s)
		assert.Equal(t, string(want), string(details), "%q", s)
		assert.Equal(t, wantClean, clean, "clean of %q", s)
		assert.Equal(t, s, EnvelopeText(e))
	}
	return sure
}

// TestRecognizeScan_sameAsParse: the member-by-member reading of an
// envelope text agrees with parsing it where it answers, and it answers
// for the envelopes toolerr writes (so the fast path is the one taken) and
// for envelope texts whose message the sanitizer would change.
func TestRecognizeScan_sameAsParse(t *testing.T) {
	sure := 0
	for _, s := range scanSeeds {
		sure += recognizedSame(t, s)
	}
	for _, s := range scanSeeds[:4] {
		_, _, _, ok, sure := recognizeScan(s, Flagged)
		assert.True(t, ok && sure, "the scan reads %q", s)
		e, ok := RecognizeText(s, Flagged)
		assert.True(t, ok)
		assert.Equal(t, s, EnvelopeText(e))
	}
	assert.Greater(t, sure, 10)
}

// FuzzRecognizeScan: whatever the text, recognizeScan agrees with the
// rule where it answers.
func FuzzRecognizeScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		recognizedSame(t, s)
	})
}
