package resilience_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/resilience"
)

// A search tool that fails twice with a connection reset, then answers: the
// executor classifies each failure (TRANSPORT, retryable), retries with full
// jitter, and returns the result; OnDecision sees every decision.
func ExampleCall() {
	x := &resilience.Executor{
		Retry: core.RetryPolicy{MaxAttempts: 3, BaseMs: 1, CapMs: 2}, // tiny waits for the example
		Draw:  func() float64 { return 0.5 },
		OnDecision: func(d resilience.Decision) {
			if d.Envelope != nil {
				fmt.Println(d.Kind, d.Envelope.Code, d.Envelope.Retryable)
			}
		},
	}
	calls := 0
	out, err := resilience.Call(context.Background(), x, "search", func(ctx context.Context) (string, error) {
		calls++
		if calls < 3 {
			return "", errors.New("read tcp 10.0.0.1:443: connection reset by peer")
		}
		return "3 hits", nil
	})
	fmt.Println(out, err, calls)
	// Output:
	// call TRANSPORT true
	// retry TRANSPORT true
	// call TRANSPORT true
	// retry TRANSPORT true
	// 3 hits <nil> 3
}
