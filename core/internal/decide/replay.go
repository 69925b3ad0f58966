package decide

import (
	"bytes"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// ReplayReason says why a replayed run ended. Its string form is the
// snake_case "reason" of the replay op.
type ReplayReason int

// The ways a replayed run ends.
const (
	ReplayCompleted           ReplayReason = iota // the model got a clear result and stopped
	ReplayTerminalError                           // the model saw a terminal code and stopped
	ReplayRetriesExhausted                        // the orchestrator stopped retrying a retryable failure; the model stopped
	ReplayRepeatedInvalidArgs                     // the model fixed its arguments, got the same INVALID_ARGS again, and stopped
	ReplayBoundReached                            // the model would call again but the trace's bound of calls is used up
)

// String returns the snake_case name of r, or "unknown replay reason: N".
func (r ReplayReason) String() string { return enumName(replayReasonNames[:], int(r), "replay reason") }

var replayReasonNames = [...]string{"completed", "terminal_error", "retries_exhausted", "repeated_invalid_args", "bound_reached"}

// TraceStep is what the tool returned for one call: exactly one of Error (a
// failure envelope) and Result (a success) is set. Ambiguous marks a success
// whose feedback is not a terminal state ("3 results; more may be
// available", no code), which keeps the scripted model calling.
type TraceStep struct {
	Error     *envelope.Envelope
	Result    *outcome.Result
	Ambiguous bool
}

// Trace is a recorded failure trace: the tool's outcomes in call order, the
// most calls the run may make, and the orchestrator's retry policy.
//
// Tool is the function name (default "search"). Bound is the most tool calls
// (orchestrator retries included) before the run is stopped. Steps answer
// calls in order; once they run out, the last step answers every further
// call (a tool in a steady state).
type Trace struct {
	Description string
	Tool        string
	Bound       int64
	Policy      RetryPolicy
	Steps       []TraceStep
}

// MaxBound is the largest Trace.Bound accepted.
const MaxBound = 10000

// MaxTranscriptBytes is the largest transcript Replay builds, in bytes of
// canonical JSON (32 MiB, the request limit): a large result answered up to
// MaxBound times would otherwise turn one request into gigabytes.
const MaxTranscriptBytes = 32 << 20

// ReplayResult is the outcome of Replay. Calls counts every tool call,
// orchestrator retries included; Turns counts the outcomes the model saw;
// Terminated is true when the model stopped by itself within the bound;
// Transcript holds the wire messages the model saw, in order.
type ReplayResult struct {
	Calls      int64
	Turns      int64
	Terminated bool
	Reason     ReplayReason
	Transcript []any
}

// Replay runs t against a scripted, deterministic model and orchestrator and
// returns what happened. serialize turns one outcome the model sees into
// the provider's wire messages (a format codec's Serialize).
//
// The orchestrator retries a failure silently while Retry allows it (draw 0,
// so delays play no part), and the model sees only the outcome of its call
// after that. The model, as seed 000 describes it: on a clear result it
// stops; on ambiguous feedback it calls again; on INVALID_ARGS it fixes its
// arguments and calls again, but stops when the fixed call fails with the
// same envelope; on a retryable failure the orchestrator gave up on, and on
// any other terminal code, it stops. Call ids are call_1, call_2, ... by
// model turn.
//
// Returns the serializer's error, if any, and a *field.Error at
// "trace.bound" when the transcript would pass MaxTranscriptBytes.
//
// See docs/resilience.md, "Failure-trace replay" (an AWS post on reasoning loops:
// ambiguous tool feedback gave 14 calls, clear success states 2).
func Replay(t Trace, serialize func([]outcome.Outcome) ([]any, error)) (ReplayResult, error) {
	return replay(t, serialize, true)
}

// ReplaySummary is Replay without the transcript: the result's Transcript is
// empty, the counts and reason are Replay's, and each step is serialized only
// once (to report a serializer error), so its cost does not grow with the
// bound times the size of a result.
func ReplaySummary(t Trace, serialize func([]outcome.Outcome) ([]any, error)) (ReplayResult, error) {
	return replay(t, serialize, false)
}

func replay(t Trace, serialize func([]outcome.Outcome) ([]any, error), keep bool) (ReplayResult, error) {
	tool := t.Tool
	if tool == "" {
		tool = "search"
	}
	var r ReplayResult
	r.Transcript = []any{}
	if len(t.Steps) == 0 {
		return r, field.Errorf("trace.steps", "must hold at least one step")
	}
	attempt := int64(1)
	var lastInvalid []byte
	var size int       // canonical JSON bytes of the transcript so far
	var scratch []byte // reused to measure each turn's messages
	serialized := make([]bool, len(t.Steps))
	for i := 0; ; i++ {
		if r.Calls >= t.Bound {
			r.Reason = ReplayBoundReached
			return r, nil
		}
		si := min(i, len(t.Steps)-1)
		step := t.Steps[si]
		r.Calls++
		if step.Error != nil {
			if Retry(*step.Error, attempt, t.Policy, 0).Retry {
				attempt++
				continue
			}
		}
		attempt = 1
		r.Turns++
		o := outcome.Outcome{Call: outcome.Call{ID: "call_" + itoa(r.Turns), Name: tool}, Error: step.Error, Result: step.Result}
		if keep || !serialized[si] {
			msgs, err := serialize([]outcome.Outcome{o})
			if err != nil {
				return r, err
			}
			serialized[si] = true
			if keep {
				scratch, err = canonical.Append(scratch[:0], msgs)
				if err != nil {
					return r, err
				}
				if size += len(scratch); size > MaxTranscriptBytes {
					return r, field.Errorf("trace.bound", "the transcript would pass "+itoa(MaxTranscriptBytes)+" bytes of JSON after "+itoa(r.Turns)+" turns; lower the bound, shorten the results or leave the transcript out")
				}
				r.Transcript = append(r.Transcript, msgs...)
			}
		}
		switch {
		case step.Result != nil:
			if !step.Ambiguous {
				r.Terminated, r.Reason = true, ReplayCompleted
				return r, nil
			}
		case step.Error.Code == envelope.InvalidArgs:
			b := []byte(outcome.EnvelopeText(*step.Error))
			if lastInvalid != nil && bytes.Equal(b, lastInvalid) {
				r.Terminated, r.Reason = true, ReplayRepeatedInvalidArgs
				return r, nil
			}
			lastInvalid = b
		case step.Error.Retryable:
			r.Terminated, r.Reason = true, ReplayRetriesExhausted
			return r, nil
		default:
			r.Terminated, r.Reason = true, ReplayTerminalError
			return r, nil
		}
	}
}

// Value returns r as the replay op's result {"calls", "turns", "terminated",
// "reason", "transcript"}.
func (r ReplayResult) Value() map[string]any {
	return map[string]any{"calls": r.Calls, "turns": r.Turns, "terminated": r.Terminated, "reason": r.Reason.String(), "transcript": r.Transcript}
}

// ReadTrace reads a trace object at path: {"description"?, "tool"?, "bound",
// "policy"?, "steps": [{"error": <envelope>} | {"result": <result>,
// "feedback"?: "complete"|"ambiguous"}]}.
func ReadTrace(v any, path string) (Trace, error) {
	var t Trace
	m, err := field.Object(v, path)
	if err != nil {
		return t, err
	}
	if err := onlyKeys(m, path, "description", "tool", "bound", "policy", "steps"); err != nil {
		return t, err
	}
	if t.Description, _, err = field.String(m, "description", path); err != nil {
		return t, err
	}
	if t.Tool, _, err = field.String(m, "tool", path); err != nil {
		return t, err
	}
	bound, ok, err := field.Int(m, "bound", path, 1, MaxBound)
	if err != nil {
		return t, err
	}
	if !ok {
		return t, field.Errorf(field.Join(path, "bound"), "is required (the most tool calls the run may make)")
	}
	t.Bound = bound
	if t.Policy, err = readRetryPolicy(m, "policy", path); err != nil {
		return t, err
	}
	steps, ok, err := field.Array(m, "steps", path)
	if err != nil {
		return t, err
	}
	sp := field.Join(path, "steps")
	if !ok || len(steps) == 0 {
		return t, field.Errorf(sp, "is required and must hold at least one step")
	}
	for i, sv := range steps {
		ip := field.Index(sp, i)
		s, err := readStep(sv, ip)
		if err != nil {
			return t, err
		}
		t.Steps = append(t.Steps, s)
	}
	return t, nil
}

func readStep(v any, path string) (TraceStep, error) {
	var s TraceStep
	m, err := field.Object(v, path)
	if err != nil {
		return s, err
	}
	if err := onlyKeys(m, path, "error", "result", "feedback"); err != nil {
		return s, err
	}
	ev, hasErr := m["error"]
	rv, hasRes := m["result"]
	if hasErr == hasRes {
		return s, field.Errorf(path, "needs exactly one of error (an envelope) and result")
	}
	fb, hasFb, err := field.String(m, "feedback", path)
	if err != nil {
		return s, err
	}
	if hasErr {
		if hasFb {
			return s, field.Errorf(field.Join(path, "feedback"), "applies to a result only")
		}
		e, err := envelope.FromValue(ev, field.Join(path, "error"))
		if err != nil {
			return s, err
		}
		s.Error = &e
		return s, nil
	}
	res, err := outcome.ReadResult(rv, field.Join(path, "result"))
	if err != nil {
		return s, err
	}
	s.Result = &res
	switch fb {
	case "", "complete":
	case "ambiguous":
		s.Ambiguous = true
	default:
		return s, field.Errorf(field.Join(path, "feedback"), "must be complete or ambiguous")
	}
	return s, nil
}
