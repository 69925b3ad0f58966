package core_test

import (
	"fmt"

	"github.com/toolerr/toolerr/core"
)

// A 503 from a tool is retried with full jitter; the 400 that follows goes
// to the model, never to a retry.
func ExampleRetry() {
	unavailable, _ := core.NewEnvelope(core.CodeTransport, "The search service answered 503.", map[string]any{"status": 503}, core.SourceTool)
	d, _ := core.Retry(unavailable, 1, core.RetryPolicy{}, 0.5) // draw from your RNG
	fmt.Println(d.Retry, d.DelayMs, d.Reason)

	badArgs, _ := core.NewEnvelope(core.CodeInvalidArgs, "The query is empty.", map[string]any{"status": 400}, core.SourceTool)
	d, _ = core.Retry(badArgs, 1, core.RetryPolicy{MaxAttempts: 10}, 0.5)
	fmt.Println(d.Retry, d.DelayMs, d.Reason)
	// Output:
	// true 250 backoff
	// false 0 not_retryable
}

// Three counted failures open the breaker for 30 s; the CIRCUIT_OPEN
// envelope says how long to wait.
func ExampleBreakerTransition() {
	var st core.BreakerState // a new, closed breaker
	fail, _ := core.NewEnvelope(core.CodeTimeout, "The search call timed out.", nil, core.SourceTool)
	for now := int64(1000); now <= 3000; now += 1000 {
		r, _ := core.BreakerTransition(st, core.BreakerFailure, now, core.BreakerSettings{}, &fail, "search")
		st = r.State
	}
	r, _ := core.BreakerTransition(st, core.BreakerAllow, 13000, core.BreakerSettings{}, nil, "search")
	fmt.Println(r.Allowed, r.Error.Code, r.Error.Details["retry_after_seconds"])
	fmt.Println(string(r.State.AppendJSON(nil)))

	// After the hold, exactly one probe may go.
	first, _ := core.BreakerTransition(r.State, core.BreakerAllow, 33000, core.BreakerSettings{}, nil, "search")
	second, _ := core.BreakerTransition(first.State, core.BreakerAllow, 33001, core.BreakerSettings{}, nil, "search")
	fmt.Println(first.Allowed, second.Allowed)

	// Inputs the breaker op refuses are refused here too.
	_, err := core.BreakerTransition(st, core.BreakerAllow, -1, core.BreakerSettings{}, nil, "search")
	fmt.Println(err)
	// Output:
	// false CIRCUIT_OPEN 20
	// {"failures":0,"open_until_ms":33000,"phase":"open","probe_until_ms":0,"successes":0}
	// true false
	// toolerr: now_ms: must be a whole number from 0 to 9007199254740992
}

// A step budget refuses the charge that would pass its ceiling.
func ExampleBudget() {
	limits := core.BudgetLimits{Steps: 2, Tokens: 1000}
	var st core.BudgetState
	for i := 1; i <= 3; i++ {
		r, err := core.Budget(st, limits, core.BudgetCharge{Steps: 1, Tokens: 300}, int64(i)*1000)
		if err != nil {
			panic(err) // only for inputs the budget op refuses (a negative charge, say)
		}
		st = r.State
		if !r.Allowed {
			fmt.Println(i, r.Error.Code, r.Error.Details["exhausted"], r.Error.Retryable)
			continue
		}
		fmt.Println(i, "allowed", r.Remaining())
	}
	// Output:
	// 1 allowed map[steps:1 tokens:700]
	// 2 allowed map[steps:0 tokens:400]
	// 3 BUDGET_EXHAUSTED steps false
}

// The breaker op over Invoke: state in, state out, as a binding uses it.
func ExampleInvoke_breaker() {
	resp := core.Invoke([]byte(`{"op":"breaker","state":{"phase":"half_open","probe_until_ms":63000},"event":"allow","now_ms":34000,"tool":"search"}`))
	fmt.Println(string(resp))
	// Output:
	// {"ok":{"allowed":false,"error":{"code":"CIRCUIT_OPEN","details":{"retry_after_seconds":29,"state":"half_open","tool":"search"},"message":"The circuit breaker for tool search is testing recovery with one probe call; wait 29 seconds before calling it again.","retryable":true,"source":"orchestrator"},"state":{"failures":0,"open_until_ms":0,"phase":"half_open","probe_until_ms":63000,"successes":0}}}
}

// The retry op over Invoke.
func ExampleInvoke_retry() {
	resp := core.Invoke([]byte(`{"op":"retry","attempt":1,"draw":0.3,"error":{"code":"RATE_LIMITED","message":"Slow down.","retryable":true,"details":{"retry_after_seconds":12},"source":"provider"}}`))
	fmt.Println(string(resp))
	// Output:
	// {"ok":{"delay_ms":12000,"reason":"retry_after","retry":true}}
}
