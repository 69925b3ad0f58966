package decide

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
)

func env(code envelope.Code, retryable bool, details map[string]any) envelope.Envelope {
	return envelope.Envelope{Code: code, Message: "m.", Retryable: retryable, Details: details, Source: envelope.SourceTool}
}

func TestRetry_table(t *testing.T) {
	transport := env(envelope.Transport, true, map[string]any{"status": 503.0})
	tests := []struct {
		name    string
		e       envelope.Envelope
		attempt int64
		p       RetryPolicy
		draw    float64
		want    RetryDecision
	}{
		{"first retry draws from [0,500)", transport, 1, RetryPolicy{}, 0.5, RetryDecision{true, 250, ReasonBackoff}},
		{"second retry draws from [0,1000)", transport, 2, RetryPolicy{MaxAttempts: 5}, 0.5, RetryDecision{true, 500, ReasonBackoff}},
		{"ceiling capped at cap_ms", transport, 9, RetryPolicy{MaxAttempts: 10}, 0.5, RetryDecision{true, 4000, ReasonBackoff}},
		{"draw 0 gives no wait", transport, 1, RetryPolicy{}, 0, RetryDecision{true, 0, ReasonBackoff}},
		{"attempts exhausted at max_attempts", transport, 3, RetryPolicy{}, 0.5, RetryDecision{false, 0, ReasonAttemptsExhausted}},
		{"one attempt never retries", transport, 1, RetryPolicy{MaxAttempts: 1}, 0.5, RetryDecision{false, 0, ReasonAttemptsExhausted}},
		{"retryable false never retries", env(envelope.InvalidArgs, false, nil), 1, RetryPolicy{MaxAttempts: 9}, 0.5, RetryDecision{false, 0, ReasonNotRetryable}},
		{"retryable false beats a hint", env(envelope.RateLimited, false, map[string]any{"retry_after_seconds": 1.0}), 1, RetryPolicy{}, 0.5, RetryDecision{false, 0, ReasonNotRetryable}},
		{"hint longer than backoff wins", env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": 12.0}), 1, RetryPolicy{}, 0.99, RetryDecision{true, 12000, ReasonRetryAfter}},
		{"fractional hint rounds up to ms", env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": 1.2504}), 1, RetryPolicy{}, 0, RetryDecision{true, 1251, ReasonRetryAfter}},
		{"hint shorter than backoff keeps backoff", env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": 0.1}), 2, RetryPolicy{}, 0.5, RetryDecision{true, 500, ReasonBackoff}},
		{"hint of exactly 120 s is used", env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": 120.0}), 1, RetryPolicy{}, 0.5, RetryDecision{true, 120000, ReasonRetryAfter}},
		{"hint above 120 s gives up", env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": 121.0}), 1, RetryPolicy{}, 0.5, RetryDecision{false, 0, ReasonRetryAfterTooLong}},
		{"hint above max_wait_ms gives up", env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": 11.0}), 1, RetryPolicy{MaxWaitMs: 10000}, 0.5, RetryDecision{false, 0, ReasonRetryAfterTooLong}},
		{"negative hint is ignored", env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": -3.0}), 1, RetryPolicy{}, 0.5, RetryDecision{true, 250, ReasonBackoff}},
		{"non-number hint is ignored", env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": "12"}), 1, RetryPolicy{}, 0.5, RetryDecision{true, 250, ReasonBackoff}},
		{"int hint is read", env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": 7}), 1, RetryPolicy{}, 0.5, RetryDecision{true, 7000, ReasonRetryAfter}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Retry(tc.e, tc.attempt, tc.p, tc.draw))
		})
	}
}

func TestBackoffCeilingMs_huge(t *testing.T) {
	p := RetryPolicy{BaseMs: 1 << 40, CapMs: 1 << 52}.WithDefaults()
	assert.Equal(t, int64(1<<52), BackoffCeilingMs(1<<30, p))
	assert.Equal(t, int64(500), BackoffCeilingMs(0, RetryPolicy{}.WithDefaults()))
}

// TestRetry_retryableFalseNeverRetries is seed 000 checklist item 2 over
// random envelopes, attempts, policies and draws.
func TestRetry_retryableFalseNeverRetries(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2))
	codes := envelope.Codes()
	for i := 0; i < 20000; i++ {
		e := env(codes[rng.IntN(len(codes))].Code, false, map[string]any{"retry_after_seconds": float64(rng.IntN(200))})
		p := RetryPolicy{MaxAttempts: rng.Int64N(10), BaseMs: rng.Int64N(2000), CapMs: rng.Int64N(20000), MaxWaitMs: rng.Int64N(300000)}
		d := Retry(e, 1+rng.Int64N(10), p, rng.Float64())
		require.False(t, d.Retry)
		require.Equal(t, ReasonNotRetryable, d.Reason)
	}
}

// TestRetry_delayWithinBounds checks full jitter: 0 <= delay < ceiling, or
// exactly the hint when the hint wins.
func TestRetry_delayWithinBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 20000; i++ {
		p := RetryPolicy{MaxAttempts: 10, BaseMs: 1 + rng.Int64N(2000), CapMs: 1 + rng.Int64N(20000)}
		attempt := 1 + rng.Int64N(9)
		d := Retry(env(envelope.Timeout, true, nil), attempt, p, rng.Float64())
		require.True(t, d.Retry)
		ceil := BackoffCeilingMs(attempt, p.WithDefaults())
		require.GreaterOrEqual(t, d.DelayMs, int64(0))
		require.Less(t, d.DelayMs, max(ceil, 1))
	}
}

func TestRetryReason_String(t *testing.T) {
	assert.Equal(t, "retry_after_too_long", ReasonRetryAfterTooLong.String())
	assert.Equal(t, "unknown retry reason: 42", RetryReason(42).String())
}

func requireFieldError(t *testing.T, err error, path, msg string) {
	t.Helper()
	var fe *field.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, path, fe.Path)
	assert.Equal(t, msg, fe.Msg)
}

func TestReadRetryPolicy_errors(t *testing.T) {
	_, err := ReadRetryPolicy(map[string]any{"policy": map[string]any{"max_attempts": 0.0}}, "policy")
	requireFieldError(t, err, "policy.max_attempts", "must be a whole number from 1 to 9007199254740992")
	_, err = ReadRetryPolicy(map[string]any{"policy": map[string]any{"tries": 3.0}}, "policy")
	requireFieldError(t, err, "policy.tries", "is not a known member (want max_attempts, base_ms, cap_ms, max_wait_ms)")
	p, err := ReadRetryPolicy(map[string]any{"policy": map[string]any{"cap_ms": 100.0}}, "policy")
	require.NoError(t, err)
	assert.Equal(t, RetryPolicy{CapMs: 100}, p)
}
