package core

import (
	"errors"

	"github.com/toolerr/toolerr/core/internal/decide"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
)

// readNowMs decodes the required now_ms member as a whole number within
// decide.CheckNowMs's range (the typed functions the ops call check it
// again).
func readNowMs(req map[string]any) (int64, error) {
	n, ok, err := field.Int(req, "now_ms", "", 0, decide.MaxNowMs)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, field.Errorf("now_ms", "is required (milliseconds since the Unix epoch)")
	}
	return n, nil
}

// opRetry: {"error": <envelope>, "attempt": n, "policy"?, "draw": u} ->
// {"retry", "delay_ms", "reason"}.
func opRetry(req map[string]any) (any, error) {
	ev, ok := req["error"]
	if !ok {
		return nil, field.Errorf("error", "is required (the envelope of the failed attempt)")
	}
	e, err := envelope.FromValue(ev, "error")
	if err != nil {
		return nil, err
	}
	attempt, ok, err := field.Int(req, "attempt", "", 1, decide.MaxAttempt)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, field.Errorf("attempt", "is required (1-based number of the attempt that just failed)")
	}
	p, err := decide.ReadRetryPolicy(req, "policy")
	if err != nil {
		return nil, err
	}
	draw, ok, err := field.Number(req, "draw", "")
	if err != nil {
		return nil, err
	}
	if !ok {
		draw = -1 // missing: Retry reports it as out of range
	}
	d, err := Retry(e, int(attempt), p, draw)
	if err != nil {
		return nil, err
	}
	return d.Value(), nil
}

// opBreaker: {"state": <state>|null, "event": "allow"|"success"|"failure",
// "now_ms", "settings"?, "error"?, "tool"?} -> {"state", "allowed"?, "error"?}.
//
// "state" may also be a string holding the state's canonical bytes (""
// for a new breaker): the response's "state" is then those bytes too,
// exactly as a store compares them, so that a runtime in any language writes
// what the Go runtime would.
func opBreaker(req map[string]any) (any, error) {
	raw, asBytes := req["state"].(string)
	var st decide.BreakerState
	var err error
	if asBytes {
		st, err = decide.ParseBreakerState([]byte(raw))
		err = prefixPath(err, "state")
	} else {
		st, err = decide.ReadBreakerState(req["state"], "state")
	}
	if err != nil {
		return nil, err
	}
	name, err := field.RequiredString(req, "event", "")
	if err != nil {
		return nil, err
	}
	var ev decide.BreakerEvent
	switch name {
	case "allow":
		ev = decide.EventAllow
	case "success":
		ev = decide.EventSuccess
	case "failure":
		ev = decide.EventFailure
	default: // a name with no BreakerEvent: nothing to pass on
		return nil, field.Errorf("event", "must be allow, success or failure")
	}
	now, err := readNowMs(req)
	if err != nil {
		return nil, err
	}
	s, err := decide.ReadBreakerSettings(req, "settings")
	if err != nil {
		return nil, err
	}
	var failure *envelope.Envelope
	if v, ok := req["error"]; ok && v != nil {
		e, err := envelope.FromValue(v, "error")
		if err != nil {
			return nil, err
		}
		failure = &e
	}
	tool, _, err := field.String(req, "tool", "")
	if err != nil {
		return nil, err
	}
	r, err := BreakerTransition(st, ev, now, s, failure, tool)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"state": r.State.Value()}
	if asBytes {
		out["state"] = string(r.State.AppendJSON(nil))
	}
	if ev == decide.EventAllow {
		out["allowed"] = r.Allowed
	}
	if r.Error != nil {
		out["error"] = *r.Error
	}
	return out, nil
}

// opBudget: {"state"?, "limits", "charge"?, "now_ms"} -> {"allowed", "state",
// "remaining", "error"?}.
func opBudget(req map[string]any) (any, error) {
	st, err := decide.ReadBudgetState(req["state"], "state")
	if err != nil {
		return nil, err
	}
	lv, ok := req["limits"]
	if !ok {
		return nil, field.Errorf("limits", "is required ({\"steps\", \"tokens\", \"wall_ms\"}, 0 or absent = no limit)")
	}
	l, err := decide.ReadBudgetLimits(lv, "limits")
	if err != nil {
		return nil, err
	}
	c, err := decide.ReadBudgetCharge(req["charge"], "charge")
	if err != nil {
		return nil, err
	}
	now, err := readNowMs(req)
	if err != nil {
		return nil, err
	}
	r, err := Budget(st, l, c, now)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"allowed": r.Allowed, "state": r.State.Value(), "remaining": r.Remaining()}
	if r.Error != nil {
		out["error"] = *r.Error
	}
	return out, nil
}

// opReplay: {"trace": <trace>, "format": P, "transcript"?: bool} ->
// {"calls", "turns", "terminated", "reason", "transcript"}; "transcript":
// false leaves the transcript out of the response (each step is then
// serialized once, to report a serializer error).
func opReplay(req map[string]any) (any, error) {
	c, err := codecOf(req)
	if err != nil {
		return nil, err
	}
	tv, ok := req["trace"]
	if !ok {
		return nil, field.Errorf("trace", "is required")
	}
	t, err := decide.ReadTrace(tv, "trace")
	if err != nil {
		return nil, err
	}
	withTranscript, ok, err := field.Bool(req, "transcript", "")
	if err != nil {
		return nil, err
	}
	run := decide.Replay
	if ok && !withTranscript {
		run = decide.ReplaySummary // no transcript to build: each step is serialized once
	}
	r, err := run(t, c.Serialize)
	if err != nil {
		return nil, err
	}
	v := r.Value()
	if ok && !withTranscript {
		delete(v, "transcript")
	}
	return v, nil
}

// prefixPath turns an error reading bytes at path into a *field.Error there
// (a *field.Error already names its member).
func prefixPath(err error, path string) error {
	if err == nil {
		return nil
	}
	if _, isField := errors.AsType[*field.Error](err); isField {
		return err
	}
	return field.Errorf(path, "is not the JSON of a breaker state: "+err.Error())
}
