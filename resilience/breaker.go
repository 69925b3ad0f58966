package resilience

import (
	"context"

	"github.com/toolerr/toolerr/core"
)

// ErrContention is returned by Transition when the stored state kept
// changing under it for MaxCASAttempts tries (core.ErrContention).
var ErrContention = core.ErrContention

// MaxCASAttempts bounds the compare-and-swap loop of Transition
// (core.MaxCASAttempts).
const MaxCASAttempts = core.MaxCASAttempts

// Transition applies one breaker event to the state stored under key in s,
// atomically: load, then core.BreakerSwap (parse, transition, encode) and a
// compare-and-swap when the state changed; on a lost race BreakerSwap runs
// again on the state that won. A transition that leaves the state unchanged
// writes nothing. It returns the result of the transition that was stored.
//
// The breaker logic is core's, and so is the loop's (core.Step runs the same
// one for Executor and every other language's runtime); the store only
// makes it atomic, so any number of replicas sharing s share one breaker per
// key, and exactly one of them gets a half-open probe. Returns the store's
// error, ErrContention, or a *core.RequestError when the stored bytes are not
// a breaker state.
func Transition(ctx context.Context, s Store, key string, ev core.BreakerEvent, nowMs int64, set core.BreakerSettings, failure *core.Envelope, tool string) (core.BreakerResult, error) {
	cur, err := s.Load(ctx, key)
	if err != nil {
		return core.BreakerResult{}, err
	}
	for i := 0; i < MaxCASAttempts; i++ {
		_, r, next, write, err := core.BreakerSwap(cur, cur == nil, ev, nowMs, set, failure, tool)
		if err != nil || !write {
			return r, err
		}
		var swapped bool
		cur, swapped, err = s.CompareAndSwap(ctx, key, cur, next)
		if err != nil {
			return core.BreakerResult{}, err
		}
		if swapped {
			return r, nil
		}
		if err := ctx.Err(); err != nil {
			return core.BreakerResult{}, err
		}
	}
	return core.BreakerResult{}, ErrContention
}
