package decide

import (
	"testing"

	"github.com/toolerr/toolerr/core/internal/envelope"
)

func BenchmarkRetry(b *testing.B) {
	e := env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": 2.0})
	for i := 0; i < b.N; i++ {
		_ = Retry(e, 1, RetryPolicy{}, 0.5)
	}
}

func BenchmarkBreaker_allowClosed(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = Breaker(BreakerState{}, EventAllow, int64(i), BreakerSettings{}, nil, "search")
	}
}

func BenchmarkBreaker_failureRoundTrip(b *testing.B) {
	buf := make([]byte, 0, 128)
	src := BreakerState{Failures: 1}.AppendJSON(nil)
	for i := 0; i < b.N; i++ {
		s, _ := ParseBreakerState(src)
		r := Breaker(s, EventFailure, int64(i), BreakerSettings{}, &fail503, "search")
		buf = r.State.AppendJSON(buf[:0])
	}
}

func BenchmarkBudget(b *testing.B) {
	l := BudgetLimits{Steps: 100, Tokens: 100000, WallMs: 60000}
	for i := 0; i < b.N; i++ {
		_ = Budget(BudgetState{Steps: 5, Tokens: 100, StartedMs: 1}, l, BudgetCharge{Steps: 1, Tokens: 10}, 1000)
	}
}
