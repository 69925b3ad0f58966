package decide

import "github.com/toolerr/toolerr/core/internal/field"

// MaxNowMs is the largest now_ms the decisions take: 2^53 ms (about
// 285,000 years after the Unix epoch), the largest whole number a float64
// holds exactly, so JSON carries every accepted value exactly.
const MaxNowMs = maxMs

// CheckNowMs checks a clock reading as the ops and the typed Go API both
// take it: nowMs in [0, MaxNowMs], milliseconds since the Unix epoch (a
// *field.Error at "now_ms" otherwise).
func CheckNowMs(nowMs int64) error {
	return field.InRange("now_ms", nowMs, 0, MaxNowMs)
}

// checkInts checks whole numbers given in Go as readInts checks them given
// in JSON: each of ns, named by names under path, in [min, maxMs]. With
// zeroIsDefault a zero passes whatever min is (a Go zero value is a member
// left out of the JSON).
func checkInts(path string, min int64, zeroIsDefault bool, names []string, ns ...int64) error {
	for i, n := range ns {
		if n == 0 && zeroIsDefault || n >= min && n <= maxMs {
			continue // the path is joined only for an error: a check that passes allocates nothing
		}
		return field.InRange(field.Join(path, names[i]), n, min, maxMs)
	}
	return nil
}

// MaxStepLoopThreshold is the largest loop.threshold the step op and
// core.Step take: 2^31. It is not transcript.MaxLoopThreshold (2^20, the
// loop_guard op's): that op counts the failures in a history sent whole in
// one request, while the step's LoopState counts a run's failures across
// calls, as many as the run makes (a count of attempts, bounded as
// MaxAttempt is).
const MaxStepLoopThreshold = 1 << 31

// CheckStepConfig checks a step's configuration given in Go as
// ReadStepInput checks it given in JSON, in the op's order, with the op's
// paths and wording, a zero field being the member left out (its default):
// the retry policy (CheckRetry's rule, at "policy.max_attempts", ...), the
// breaker settings (CheckBreakerSettings at "settings"), TimeoutMs and
// StoreBackoffMs 0 or in [1, 2^53] ("timeout_ms", "store_backoff_ms"), the
// Budget's limits when set and the Charge in [0, 2^53]
// ("budget.limits.steps", "budget.charge.tokens", ...), and LoopThreshold 0
// or in [1, MaxStepLoopThreshold] ("loop.threshold"). Errors are
// *field.Error. Tool, KeyPrefix and StoreKey are not checked: every Go
// string has a JSON form the op takes, and a Go Tool "" keeps its breaker
// at KeyPrefix alone as it always has.
func CheckStepConfig(c StepConfig) error {
	if err := checkRetryPolicy(c.Policy, "policy"); err != nil {
		return err
	}
	if err := CheckBreakerSettings(c.Settings, "settings"); err != nil {
		return err
	}
	if err := checkInts("", 1, true, stepDurationMembers, c.TimeoutMs, c.StoreBackoffMs); err != nil {
		return err
	}
	if l := c.Budget; l != nil {
		if err := checkBudgetLimits(*l, "budget.limits"); err != nil {
			return err
		}
	}
	if err := checkBudgetCharge(c.Charge, "budget.charge"); err != nil {
		return err
	}
	if n := c.LoopThreshold; n != 0 {
		return field.InRange("loop.threshold", n, 1, MaxStepLoopThreshold)
	}
	return nil
}

// stepDurationMembers are the step request's durations, StepConfig's
// TimeoutMs and StoreBackoffMs.
var stepDurationMembers = []string{"timeout_ms", "store_backoff_ms"}
