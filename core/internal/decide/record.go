package decide

import (
	"github.com/toolerr/toolerr/core/internal/envelope"
)

// RecordKind says which decision a Record reports.
type RecordKind int

// The kinds of decision record, in the order an attempt meets them.
const (
	RecordBudget    RecordKind = iota // the budget allowed or refused an attempt
	RecordLoopGuard                   // the loop guard allowed or refused the call
	RecordBreaker                     // the breaker allowed or refused an attempt, or changed phase on a report
	RecordCall                        // the tool was called: Allowed is success, else Envelope is the failure
	RecordRetry                       // retry or not after a failure; DelayMs is the wait
	RecordFallback                    // the shared store failed (or is in its back-off window); the event is decided on the replica's state
	RecordRepair                      // the shared store held bytes that are not a breaker state; a fresh state replaces them
)

var recordNames = [...]string{"budget", "loop_guard", "breaker", "call", "retry", "fallback", "repair"}

// String returns "budget", "loop_guard", "breaker", "call", "retry",
// "fallback", "repair", or "unknown record kind: N".
func (k RecordKind) String() string { return enumName(recordNames[:], int(k), "record kind") }

// Level is how loud a record is logged: LevelDebug for the routine (an
// attempt allowed, a call that succeeded, a retry scheduled, a run out of
// retries, a fallback inside the store's back-off window), LevelInfo for a
// breaker recovering (half-open, closed), LevelWarn for a refusal, a failed
// call, a breaker opening, a store failure and a repair.
type Level int

// The levels.
const (
	LevelDebug Level = iota
	LevelInfo
	LevelWarn
)

// String returns "debug", "info" or "warn".
func (l Level) String() string {
	switch l {
	case LevelInfo:
		return "info"
	case LevelWarn:
		return "warn"
	}
	return "debug"
}

// Record is one decision of a call, as every runtime logs and reports it:
// defined here once so that logs read the same in every language. Only the
// members of its Kind are meaningful; Value gives its JSON.
//
// Tool and Attempt say where (Attempt 0: before any attempt). Allowed is: the
// attempt may go (budget, loop_guard, breaker allow), the call succeeded
// (call), a retry follows (retry). Event is the breaker event (breaker,
// fallback); Phase the breaker's phase after it and From the phase before.
// Reason is the retry reason, what ran out (budget) or why the event was
// decided on the replica's state (fallback: store_error, backoff,
// contention). DelayMs is the retry's wait.
// Envelope is the refusal or failure. Failures and Threshold are the loop
// guard's count. Message is the store's error text (fallback) or what was
// unreadable (repair), sanitized.
type Record struct {
	Kind      RecordKind
	Level     Level
	Tool      string
	Attempt   int64
	Allowed   bool
	Event     BreakerEvent
	Phase     BreakerPhase
	From      BreakerPhase
	Reason    string
	DelayMs   int64
	Envelope  *envelope.Envelope
	Failures  int64
	Threshold int64
	Message   string
}

func (r Record) level() Level {
	switch r.Kind {
	case RecordBreaker:
		switch {
		case r.Event == EventAllow && !r.Allowed, r.Phase == Open && r.From != Open:
			return LevelWarn
		case r.Phase != r.From:
			return LevelInfo
		}
	case RecordBudget, RecordLoopGuard, RecordCall:
		if !r.Allowed {
			return LevelWarn
		}
	case RecordFallback:
		if r.Reason != "backoff" {
			return LevelWarn
		}
	case RecordRepair:
		return LevelWarn
	}
	return LevelDebug
}

// Value returns the record as its JSON object. Every record has "kind",
// "level", "tool" and "attempt"; then, by kind:
//
//   - budget: "allowed"; refused: "reason" (steps, tokens or wall_ms),
//     "code", "retryable".
//   - loop_guard: "allowed", "failures", "threshold"; refused: "code",
//     "retryable".
//   - breaker: "event", "phase"; "from" when the phase changed; allow:
//     "allowed", and "probe": true for a half-open probe; refused: "code",
//     "retryable".
//   - call: "allowed"; failed: "code", "retryable".
//   - retry: "allowed", "reason", "delay_ms", "code", "retryable".
//   - fallback: "event", "reason", "error" (the store's error text; not for
//     backoff).
//   - repair: "event", "error" (why the stored bytes were unreadable).
func (r Record) Value() map[string]any {
	v := map[string]any{"kind": r.Kind.String(), "level": r.Level.String(), "tool": r.Tool, "attempt": r.Attempt}
	switch r.Kind {
	case RecordBudget:
		v["allowed"] = r.Allowed
		if r.Reason != "" {
			v["reason"] = r.Reason
		}
	case RecordLoopGuard:
		v["allowed"], v["failures"], v["threshold"] = r.Allowed, r.Failures, r.Threshold
	case RecordBreaker:
		v["event"], v["phase"] = r.Event.String(), r.Phase.String()
		if r.From != r.Phase {
			v["from"] = r.From.String()
		}
		if r.Event == EventAllow {
			v["allowed"] = r.Allowed
			if r.Allowed && r.Phase == HalfOpen {
				v["probe"] = true
			}
		}
	case RecordCall:
		v["allowed"] = r.Allowed
	case RecordRetry:
		v["allowed"], v["reason"], v["delay_ms"] = r.Allowed, r.Reason, r.DelayMs
	case RecordFallback:
		v["event"], v["reason"] = r.Event.String(), r.Reason
		if r.Message != "" {
			v["error"] = r.Message
		}
	case RecordRepair:
		v["event"], v["error"] = r.Event.String(), r.Message
	}
	if r.Envelope != nil {
		v["code"], v["retryable"] = string(r.Envelope.Code), r.Envelope.Retryable
	}
	return v
}
