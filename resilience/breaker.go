package resilience

import (
	"bytes"
	"context"
	"errors"

	"github.com/toolerr/toolerr/core"
)

// ErrContention is returned by Transition when the stored state kept
// changing under it for MaxCASAttempts tries.
var ErrContention = errors.New("toolerr: breaker state kept changing; transition not applied")

// MaxCASAttempts bounds the compare-and-swap loop of Transition.
const MaxCASAttempts = 1000

// Transition applies one breaker event to the state stored under key in s,
// atomically: load, run core.BreakerTransition, compare-and-swap, and on a
// lost race run the transition again on the state that won. A transition
// that leaves the state unchanged writes nothing. It returns the result of
// the transition that was stored.
//
// The breaker logic is core's; the store only makes it atomic, so any number
// of replicas sharing s share one breaker per key, and exactly one of them
// gets a half-open probe. Returns the store's error, ErrContention, or a
// *core.RequestError when the stored bytes are not a breaker state.
func Transition(ctx context.Context, s Store, key string, ev core.BreakerEvent, nowMs int64, set core.BreakerSettings, failure *core.Envelope, tool string) (core.BreakerResult, error) {
	cur, err := s.Load(ctx, key)
	if err != nil {
		return core.BreakerResult{}, err
	}
	var buf []byte
	for i := 0; i < MaxCASAttempts; i++ {
		prev, err := core.ParseBreakerState(cur)
		if err != nil {
			return core.BreakerResult{}, err
		}
		r := core.BreakerTransition(prev, ev, nowMs, set, failure, tool)
		buf = r.State.AppendJSON(buf[:0])
		if cur != nil && bytes.Equal(buf, cur) || cur == nil && r.State == (core.BreakerState{}) {
			return r, nil
		}
		var swapped bool
		cur, swapped, err = s.CompareAndSwap(ctx, key, cur, buf)
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
