package core

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/classify"
)

// waitNowMs is the response time of the wait-hint table: 2025-01-01T00:00:00Z.
const waitNowMs = int64(1735689600000)

// waitForm writes a wait of secs seconds (a decimal integer, of any length)
// in one of the forms a server sends, as the http member of a classify
// request. A date form cannot hold a time past the year 9999: a longer wait
// is written as that latest date.
type waitForm struct {
	name string
	http func(secs string) map[string]any
}

func waitForms() []waitForm {
	dateFrom := func(secs string, layout string) string {
		t := time.UnixMilli(waitNowMs).UTC()
		n, err := strconv.ParseInt(secs, 10, 64)
		latest := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
		if err != nil || n > int64(latest.Sub(t)/time.Second) {
			return latest.Format(layout)
		}
		return t.Add(time.Duration(n) * time.Second).Format(layout)
	}
	openai429 := map[string]any{"error": map[string]any{"message": "m", "type": "requests", "param": nil, "code": "rate_limit_exceeded"}}
	anthropic429 := map[string]any{"type": "error", "error": map[string]any{"type": "rate_limit_error", "message": "m"}}
	return []waitForm{
		{"retry-after seconds", func(s string) map[string]any {
			return map[string]any{"status": 429, "headers": map[string]any{"retry-after": s}}
		}},
		{"retry-after HTTP-date", func(s string) map[string]any {
			return map[string]any{"status": 429, "headers": map[string]any{"retry-after": dateFrom(s, "Mon, 02 Jan 2006 15:04:05 GMT")}}
		}},
		{"retry-after-ms", func(s string) map[string]any {
			return map[string]any{"status": 429, "headers": map[string]any{"retry-after-ms": s + "000"}}
		}},
		{"x-amz-retry-after", func(s string) map[string]any {
			return map[string]any{"status": 429, "headers": map[string]any{"x-amz-retry-after": s + "000"}}
		}},
		{"RetryInfo", func(s string) map[string]any {
			return map[string]any{"status": 429, "body": map[string]any{"error": map[string]any{
				"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "m",
				"details": []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": s + "s"}}}}}
		}},
		{"x-ratelimit-reset duration", func(s string) map[string]any {
			return map[string]any{"status": 429, "body": openai429, "headers": map[string]any{
				"x-ratelimit-reset-tokens": s + "s", "x-ratelimit-remaining-tokens": "0"}}
		}},
		{"anthropic reset time", func(s string) map[string]any {
			return map[string]any{"status": 429, "body": anthropic429, "headers": map[string]any{
				"anthropic-ratelimit-tokens-reset": dateFrom(s, time.RFC3339), "anthropic-ratelimit-tokens-remaining": "0"}}
		}},
	}
}

// TestWaitHint_monotonic is issue 9 item 6: a wait hint above a retry
// policy's limit gives the same decision as the limit, whatever its size
// (1e9 s, 1e12 s, 1e308 s, a number no integer type holds) or form. Each hint
// goes through the classify op, then the retry op.
func TestWaitHint_monotonic(t *testing.T) {
	capSecs := classify.MaxWaitNs / 1e9
	magnitudes := []struct {
		name, secs string
	}{
		{"just below the default limit", "119"},
		{"the default limit", "120"},
		{"above the default limit", "121"},
		{"99999999", "99999999"},
		{"just below the classification cap", strconv.FormatInt(capSecs-1, 10)},
		{"the classification cap", strconv.FormatInt(capSecs, 10)},
		{"above the classification cap", strconv.FormatInt(capSecs+1, 10)},
		{"1e9", "1000000000"},
		{"1e12", "1000000000000"},
		{"1e308", "1" + strings.Repeat("0", 308)},
		{"overflow", strings.Repeat("9", 400)},
	}
	policies := []struct {
		name      string
		policy    map[string]any
		maxWaitMs int64
	}{
		{"default", nil, 120000},
		{"max_wait_ms at the classification cap", map[string]any{"max_wait_ms": capSecs * 1000}, capSecs * 1000},
	}
	for _, f := range waitForms() {
		for _, p := range policies {
			// Every hint above the policy's limit must get the decision of
			// the first one above it, and every hint at or above the
			// classification cap the decision of the cap.
			var aboveLimit, atCap map[string]any
			for _, m := range magnitudes {
				name := f.name + "/" + p.name + "/" + m.name
				req := map[string]any{"op": "classify", "now_ms": waitNowMs, "http": f.http(m.secs)}
				env := invokeOK(t, name, req)
				hint, ok := env["details"].(map[string]any)["retry_after_seconds"]
				require.True(t, ok, "%s: the hint is never dropped: %v", name, env)
				secs, _ := hint.(float64)
				assert.LessOrEqual(t, secs, float64(capSecs), name)
				retry := map[string]any{"op": "retry", "attempt": 1, "draw": 0.5, "error": env}
				if p.policy != nil {
					retry["policy"] = p.policy
				}
				d := invokeOK(t, name, retry)
				n, _ := strconv.ParseFloat(m.secs, 64) // +Inf past a float64
				hintMs := int64(secs * 1000)
				switch {
				case n*1000 <= float64(p.maxWaitMs):
					assert.Equal(t, map[string]any{"retry": true, "delay_ms": float64(hintMs), "reason": "retry_after"}, d, name)
				case aboveLimit == nil:
					aboveLimit = d
				default:
					assert.Equal(t, aboveLimit, d, "%s: same decision as just above the limit", name)
				}
				if n >= float64(capSecs) {
					if atCap == nil {
						atCap = d
					}
					assert.Equal(t, atCap, d, "%s: same decision as the cap", name)
					assert.Equal(t, float64(capSecs), secs, "%s: at least the cap is the cap", name)
				}
			}
			if p.maxWaitMs < capSecs*1000 {
				assert.Equal(t, map[string]any{"retry": false, "delay_ms": float64(0), "reason": "retry_after_too_long"}, aboveLimit, f.name)
			}
		}
	}
}

// invokeOK runs req through Invoke and returns its "ok" object.
func invokeOK(t *testing.T, name string, req map[string]any) map[string]any {
	t.Helper()
	b, err := canonical.Marshal(req)
	require.NoError(t, err, name)
	v, err := canonical.Parse(Invoke(b))
	require.NoError(t, err, name)
	ok, isOK := v.(map[string]any)["ok"].(map[string]any)
	require.True(t, isOK, "%s: %v", name, v)
	return ok
}
