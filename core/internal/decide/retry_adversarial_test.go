package decide

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolerr/toolerr/core/internal/envelope"
)

// A server wait hint too large to convert to milliseconds (1e13 s, 1e308 s)
// is still a hint longer than any max_wait_ms: Retry must give up, not fall
// back to a short backoff as if the server had said nothing.
func TestRetry_hugeRetryAfterGivesUp(t *testing.T) {
	tests := []struct {
		name string
		secs float64
		p    RetryPolicy
	}{
		{"1e13 s default policy", 1e13, RetryPolicy{}},
		{"1e308 s default policy", 1e308, RetryPolicy{}},
		{"1e308 s largest max_wait_ms", 1e308, RetryPolicy{MaxWaitMs: maxMs}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": tc.secs})
			assert.Equal(t, RetryDecision{false, 0, ReasonRetryAfterTooLong}, Retry(e, 1, tc.p, 0.5))
		})
	}
}

// A hint above 1e12 s but within 2^53 ms and the largest max_wait_ms is
// waited for, not silently dropped.
func TestRetry_largestHintIsUsed(t *testing.T) {
	e := env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": 9007199254740.0})
	assert.Equal(t, RetryDecision{true, 9007199254740000, ReasonRetryAfter}, Retry(e, 1, RetryPolicy{MaxWaitMs: maxMs}, 0.5))
}
