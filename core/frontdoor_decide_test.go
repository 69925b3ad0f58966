package core

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/decide"
	"github.com/toolerr/toolerr/core/internal/envelope"
)

// The envelope, loop_guard, breaker and budget ops through NewEnvelope,
// LoopGuard, BreakerTransition and Budget, for TestTypedAPI_agreesWithOps:
// members decoded by type assertion alone, so that every value Go can hold
// (a negative count, an empty code, a now_ms before 1970) reaches the typed
// function's own check. A member Go cannot hold as the op reads it (a
// fraction, an unknown member or name, a missing required member, an
// explicit 0 where Go's zero means "absent") skips the fixture.
func init() {
	typedCalls["envelope"] = func(req map[string]any) (any, error, bool) {
		code, ok1 := str(req, "code")
		msg, ok2 := str(req, "message")
		src, ok3 := str(req, "source")
		details, ok4 := obj(req, "details")
		rv, hasR := req["retryable"]
		r, ok5 := rv.(bool)
		if !ok1 || !ok2 || !ok3 || !ok4 || hasR && !ok5 {
			return nil, nil, false
		}
		e, err := NewEnvelope(Code(code), msg, details, Source(src))
		if err != nil {
			return nil, err, true
		}
		if hasR {
			e.Retryable = r
		}
		return e, nil, true
	}
	typedCalls["loop_guard"] = func(req map[string]any) (any, error, bool) {
		hv, _ := req["history"]
		items, ok := hv.([]any)
		if hv != nil && !ok {
			return nil, nil, false
		}
		hist := make([]LoopAttempt, 0, len(items))
		for _, v := range items {
			a, ok := loopAttempt(v, true)
			if !ok {
				return nil, nil, false
			}
			hist = append(hist, a)
		}
		call, ok1 := loopAttempt(req["call"], false)
		th, ok2 := whole(req, "threshold")
		if !ok1 || !ok2 || present(req, "threshold") && th == 0 {
			return nil, nil, false
		}
		allow, e, err := LoopGuard(hist, call, int(th))
		if err != nil {
			return nil, err, true
		}
		if allow {
			return map[string]any{"allow": true}, nil, true
		}
		return map[string]any{"allow": false, "error": *e}, nil, true
	}
	typedCalls["breaker"] = func(req map[string]any) (any, error, bool) {
		raw, asBytes := req["state"].(string)
		var st BreakerState
		ok0 := true
		if asBytes {
			var err error
			if st, err = ParseBreakerState([]byte(raw)); err != nil {
				return nil, nil, false // ParseBreakerState names members from the bytes' root
			}
		} else {
			st, ok0 = breakerState(req["state"])
		}
		ev, ok1 := map[any]BreakerEvent{"allow": BreakerAllow, "success": BreakerSuccess, "failure": BreakerFailure}[req["event"]]
		now, ok2 := whole(req, "now_ms")
		s, ok3 := ints(req["settings"], true, "failure_threshold", "open_ms", "success_threshold")
		tool, ok4 := str(req, "tool")
		var failure *Envelope
		ok5 := true
		if v := req["error"]; v != nil {
			e, err := envelope.FromValue(v, "error")
			failure, ok5 = &e, err == nil
		}
		if !ok0 || !ok1 || !ok2 || !present(req, "now_ms") || !ok3 || !ok4 || !ok5 {
			return nil, nil, false
		}
		r, err := BreakerTransition(st, ev, now, BreakerSettings{FailureThreshold: s[0], OpenMs: s[1], SuccessThreshold: s[2]}, failure, tool)
		if err != nil {
			return nil, err, true
		}
		out := map[string]any{"state": r.State.Value()}
		if asBytes {
			out["state"] = string(r.State.AppendJSON(nil))
		}
		if ev == BreakerAllow {
			out["allowed"] = r.Allowed
		}
		if r.Error != nil {
			out["error"] = *r.Error
		}
		return out, nil, true
	}
	typedCalls["budget"] = func(req map[string]any) (any, error, bool) {
		st, ok1 := ints(req["state"], false, "steps", "tokens", "started_ms")
		l, ok2 := ints(req["limits"], false, "steps", "tokens", "wall_ms")
		c, ok3 := ints(req["charge"], false, "steps", "tokens")
		now, ok4 := whole(req, "now_ms")
		if !ok1 || !ok2 || req["limits"] == nil || !ok3 || !ok4 || !present(req, "now_ms") {
			return nil, nil, false
		}
		r, err := Budget(BudgetState{Steps: st[0], Tokens: st[1], StartedMs: st[2]}, BudgetLimits{Steps: l[0], Tokens: l[1], WallMs: l[2]}, BudgetCharge{Steps: c[0], Tokens: c[1]}, now)
		if err != nil {
			return nil, err, true
		}
		out := map[string]any{"allowed": r.Allowed, "state": r.State.Value(), "remaining": r.Remaining()}
		if r.Error != nil {
			out["error"] = *r.Error
		}
		return out, nil, true
	}
}

// obj returns req[k] as an object (nil when absent or null); ok is false for
// another type.
func obj(req map[string]any, k string) (map[string]any, bool) {
	v := req[k]
	m, ok := v.(map[string]any)
	return m, ok || v == nil
}

// asWhole returns v as an int64 when it is a whole number Go's int64 holds.
func asWhole(v any) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// whole returns req[k] as an int64 (0 when absent or null); ok is false for
// another type or a number int64 cannot hold.
func whole(req map[string]any, k string) (int64, bool) {
	if req[k] == nil {
		return 0, true
	}
	return asWhole(req[k])
}

// ints reads the whole-number members names of the object v (nil: all 0)
// in order; ok is false for an unknown member, another type, or (with
// zeroIsAbsent) an explicit 0, which Go's zero value cannot tell from a
// member left out.
func ints(v any, zeroIsAbsent bool, names ...string) ([]int64, bool) {
	out := make([]int64, len(names))
	if v == nil {
		return out, true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	known := 0
	for i, n := range names {
		x, has := m[n]
		if !has {
			continue
		}
		known++
		if out[i], ok = asWhole(x); !ok || zeroIsAbsent && out[i] == 0 {
			return nil, false
		}
	}
	return out, known == len(m)
}

// breakerState reads a breaker state object as decide.ReadBreakerState
// would, by type alone; an unknown phase name has no BreakerPhase.
func breakerState(v any) (BreakerState, bool) {
	n, ok := ints(withoutKey(v, "phase"), false, "failures", "successes", "open_until_ms", "probe_until_ms")
	if !ok {
		return BreakerState{}, false
	}
	st := BreakerState{Failures: n[0], Successes: n[1], OpenUntilMs: n[2], ProbeUntilMs: n[3]}
	m, _ := v.(map[string]any)
	switch m["phase"] {
	case nil, "closed":
	case "open":
		st.Phase = decide.Open
	case "half_open":
		st.Phase = decide.HalfOpen
	default:
		return st, false
	}
	return st, true
}

// withoutKey returns the object v without member k (v itself when it is
// not an object).
func withoutKey(v any, k string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	c := make(map[string]any, len(m))
	for kk, x := range m {
		if kk != k {
			c[kk] = x
		}
	}
	return c
}

// loopAttempt reads {"tool", "args", "ok"} by type alone; withOK says the
// op requires "ok" (a history item).
func loopAttempt(v any, withOK bool) (LoopAttempt, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return LoopAttempt{}, false
	}
	tool, ok1 := m["tool"].(string)
	okv, ok2 := m["ok"].(bool)
	if !ok1 || withOK && !ok2 {
		return LoopAttempt{}, false
	}
	return LoopAttempt{Tool: tool, Args: m["args"], OK: okv}, true
}

// TestTypedAPI_goOnlyValues: values only Go can pass (an event or phase
// outside the enum, arguments JSON cannot carry, a negative setting) are
// the same kind of *RequestError as the ops', with the member's path.
func TestTypedAPI_goOnlyValues(t *testing.T) {
	pathOf := func(err error) string {
		var re *RequestError
		require.ErrorAs(t, err, &re)
		return re.Op + " " + re.Path
	}
	_, err := BreakerTransition(BreakerState{Phase: 7}, BreakerAllow, 1, BreakerSettings{}, nil, "")
	assert.Equal(t, "breaker state.phase", pathOf(err))
	_, err = BreakerTransition(BreakerState{}, BreakerEvent(9), 1, BreakerSettings{}, nil, "")
	assert.Equal(t, "breaker event", pathOf(err))
	_, err = BreakerTransition(BreakerState{}, BreakerFailure, 1, BreakerSettings{SuccessThreshold: -2}, nil, "")
	assert.Equal(t, "breaker settings.success_threshold", pathOf(err))
	_, _, _, _, err = BreakerSwap(nil, true, BreakerAllow, -5, BreakerSettings{}, nil, "search")
	assert.Equal(t, "breaker now_ms", pathOf(err))
	_, err = Budget(BudgetState{}, BudgetLimits{WallMs: -1}, BudgetCharge{}, 1)
	assert.Equal(t, "budget limits.wall_ms", pathOf(err))
	_, _, err = LoopGuard([]LoopAttempt{{Tool: "search", Args: math.NaN()}}, LoopAttempt{Tool: "search"}, 0)
	assert.Equal(t, "loop_guard history[0].args", pathOf(err))
	_, _, err = LoopGuard(nil, LoopAttempt{Tool: "search", Args: func() {}}, 0)
	assert.Equal(t, "loop_guard call.args", pathOf(err))
	_, err = Retry(Envelope{Code: CodeTimeout, Retryable: true, Source: SourceTool}, 1, RetryPolicy{CapMs: -1}, 0.5)
	assert.Equal(t, "retry policy.cap_ms", pathOf(err))
	_, err = NewEnvelope(CodeTimeout, "Slow.", nil, "model")
	assert.Equal(t, "envelope source", pathOf(err))

	// Go's zero values are the defaults the ops give a member left out.
	r, err := BreakerTransition(BreakerState{}, BreakerFailure, 1, BreakerSettings{}, nil, "")
	require.NoError(t, err)
	assert.Equal(t, int64(1), r.State.Failures)
	allow, _, err := LoopGuard(nil, LoopAttempt{Tool: "search"}, 0)
	require.NoError(t, err)
	assert.True(t, allow)
}
