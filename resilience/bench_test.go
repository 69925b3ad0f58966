package resilience

import (
	"context"
	"testing"
	"time"
)

// benchTimeout is the benchmarks' retryable failure (a net.Error's Timeout,
// which core.ClassifyError reads as TIMEOUT).
type benchTimeout struct{}

func (benchTimeout) Error() string { return "upstream timed out" }
func (benchTimeout) Timeout() bool { return true }

// benchDo runs b.N calls of a tool through a zero Executor (its
// MemoryStore, sleeping switched off) where attempt n fails retryably when
// fails(n), and reports allocations; noStanding sends every start step
// instead of applying the one that stood.
func benchDo(b *testing.B, fails func(n int) bool, noStanding ...bool) {
	x := &Executor{Sleep: func(context.Context, time.Duration) error { return nil }, noStanding: len(noStanding) > 0}
	n := 0
	fn := func(context.Context) error {
		n++
		if fails(n) {
			return benchTimeout{}
		}
		return nil
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := x.Do(ctx, "search", fn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecutor_success is one call whose first attempt succeeds, the
// breaker closed: the executor's cost per successful call.
func BenchmarkExecutor_success(b *testing.B) { benchDo(b, func(int) bool { return false }) }

// BenchmarkExecutor_everyFifthFails is the work of scripts/bench-runtime.sh
// and redisstore's BenchmarkExecutorInProcess: every fifth attempt fails
// retryably (a quarter of the calls are retried once).
func BenchmarkExecutor_everyFifthFails(b *testing.B) {
	benchDo(b, func(n int) bool { return n%5 == 0 })
}

// BenchmarkExecutor_everyFifthFailsNoStanding is
// BenchmarkExecutor_everyFifthFails with every start step sent (the
// executor before it kept the start answer that stood).
func BenchmarkExecutor_everyFifthFailsNoStanding(b *testing.B) {
	benchDo(b, func(n int) bool { return n%5 == 0 }, true)
}

// BenchmarkExecutor_successNoStanding is BenchmarkExecutor_success with
// every start step sent.
func BenchmarkExecutor_successNoStanding(b *testing.B) {
	benchDo(b, func(int) bool { return false }, true)
}

// BenchmarkExecutor_retried is one call whose first attempt fails
// retryably and whose second succeeds, the breaker closed: the executor's
// cost per retried call (its failure counted, then reset).
func BenchmarkExecutor_retried(b *testing.B) { benchDo(b, func(n int) bool { return n%2 == 1 }) }
