package decide

import (
	"bytes"
	"errors"

	"github.com/toolerr/toolerr/core/internal/envelope"
)

// MaxCASAttempts bounds the compare-and-swap loop of one breaker event: after
// this many lost races on a store the event gives up (ErrContention).
const MaxCASAttempts = 1000

// ErrContention is the error of a breaker event whose stored state kept
// changing under it for MaxCASAttempts compare-and-swaps.
var ErrContention = errors.New("toolerr: breaker state kept changing; transition not applied")

// freshState is the canonical JSON of a fresh breaker (BreakerState{}, closed
// with nothing counted), the bytes SwapRound reads most: comparing them is
// cheaper than parsing them (TestFreshState_isZeroState).
const freshState = `{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}`

// Swap is the outcome of SwapRound: the state read (Prev), the transition's
// Result and, when the state changes, Write true and the bytes to store
// (Next).
type Swap struct {
	Prev   BreakerState
	Result BreakerResult
	Next   []byte
	Write  bool
}

// SwapRound is one round of applying a breaker event to a state kept in a
// byte store with compare-and-swap: cur is what the store holds now (absent:
// nothing); when the state changes, the caller compare-and-swaps cur ->
// Next. A transition that changes nothing writes nothing, so a closed
// breaker's allow and success cost one read and no write.
//
// Returns an error (*field.Error or *canonical.SyntaxError) when cur is not a
// breaker state (ParseBreakerState).
//
// The loop around it: read the key; SwapRound; if write, compare-and-swap;
// on a lost race SwapRound again on the bytes that won, at most
// MaxCASAttempts times. Step runs that loop for the runtimes; the Go
// resilience.Transition runs it over a resilience.Store.
func SwapRound(cur []byte, absent bool, ev BreakerEvent, nowMs int64, s BreakerSettings, failure *envelope.Envelope, tool string) (Swap, error) {
	var w Swap
	canonicalCur := false
	if !absent {
		var ok bool
		if string(cur) == freshState { // BreakerState{}: the state of almost every call
			canonicalCur = true
		} else if w.Prev, ok = parseCanonicalState(cur); ok {
			canonicalCur = true
		} else {
			var err error
			if w.Prev, err = ParseBreakerState(cur); err != nil {
				return Swap{}, err
			}
		}
	}
	w.Result = Breaker(w.Prev, ev, nowMs, s, failure, tool)
	if (absent || canonicalCur) && w.Result.State == w.Prev {
		// Unchanged, and cur is exactly the bytes AppendJSON would write
		// (parseCanonicalState reads only those), or absent and still new:
		// nothing to write, nothing to encode.
		return w, nil
	}
	w.Next = w.Result.State.AppendJSON(make([]byte, 0, 96))
	w.Write = absent || !bytes.Equal(w.Next, cur)
	if !w.Write {
		w.Next = nil
	}
	return w, nil
}
