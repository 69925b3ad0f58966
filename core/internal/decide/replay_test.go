package decide

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// fakeSerialize stands in for a wire codec: one message per outcome naming
// the call id and either the envelope code or "ok".
func fakeSerialize(outs []outcome.Outcome) ([]any, error) {
	msgs := make([]any, 0, len(outs))
	for _, o := range outs {
		what := "ok"
		if o.Error != nil {
			what = string(o.Error.Code)
		}
		msgs = append(msgs, o.Call.ID+":"+o.Call.Name+":"+what)
	}
	return msgs, nil
}

func ok() TraceStep {
	return TraceStep{Result: &outcome.Result{Kind: outcome.Text, Text: "3 results."}}
}
func ambiguous() TraceStep {
	return TraceStep{Result: &outcome.Result{Kind: outcome.Text, Text: "Found 3 results; more may be available."}, Ambiguous: true}
}
func fails(e envelope.Envelope) TraceStep { return TraceStep{Error: &e} }

func TestReplay_table(t *testing.T) {
	e503 := env(envelope.Transport, true, map[string]any{"status": 503.0})
	e400 := env(envelope.InvalidArgs, false, map[string]any{"status": 400.0, "path": "query"})
	e400b := env(envelope.InvalidArgs, false, map[string]any{"status": 400.0, "path": "limit"})
	auth := env(envelope.Authentication, false, map[string]any{"status": 401.0})
	long := env(envelope.RateLimited, true, map[string]any{"retry_after_seconds": 600.0})
	amb13 := make([]TraceStep, 0, 14)
	for i := 0; i < 13; i++ {
		amb13 = append(amb13, ambiguous())
	}
	tests := []struct {
		name       string
		trace      Trace
		calls      int64
		turns      int64
		terminated bool
		reason     ReplayReason
		transcript []any
	}{
		{"ambiguous feedback keeps the model calling", Trace{Bound: 20, Steps: append(amb13, ok())}, 14, 14, true, ReplayCompleted, nil},
		{"clear codes stop in two calls", Trace{Bound: 20, Steps: []TraceStep{fails(e503), ok()}}, 2, 1, true, ReplayCompleted, []any{"call_1:search:ok"}},
		{"seed worked example 503 503 400", Trace{Bound: 10, Steps: []TraceStep{fails(e503), fails(e503), fails(e400), ok()}}, 4, 2, true, ReplayCompleted, []any{"call_1:search:INVALID_ARGS", "call_2:search:ok"}},
		{"terminal code stops at once", Trace{Bound: 10, Tool: "fetch", Steps: []TraceStep{fails(auth)}}, 1, 1, true, ReplayTerminalError, []any{"call_1:fetch:AUTHENTICATION"}},
		{"retries exhausted then the model stops", Trace{Bound: 10, Steps: []TraceStep{fails(e503)}}, 3, 1, true, ReplayRetriesExhausted, []any{"call_1:search:TRANSPORT"}},
		{"policy of five attempts", Trace{Bound: 10, Policy: RetryPolicy{MaxAttempts: 5}, Steps: []TraceStep{fails(e503)}}, 5, 1, true, ReplayRetriesExhausted, []any{"call_1:search:TRANSPORT"}},
		{"hint beyond max wait is not retried", Trace{Bound: 10, Steps: []TraceStep{fails(long)}}, 1, 1, true, ReplayRetriesExhausted, []any{"call_1:search:RATE_LIMITED"}},
		{"same invalid args twice stops", Trace{Bound: 10, Steps: []TraceStep{fails(e400)}}, 2, 2, true, ReplayRepeatedInvalidArgs, []any{"call_1:search:INVALID_ARGS", "call_2:search:INVALID_ARGS"}},
		{"a different invalid arg is fixed too", Trace{Bound: 10, Steps: []TraceStep{fails(e400), fails(e400b), ok()}}, 3, 3, true, ReplayCompleted, []any{"call_1:search:INVALID_ARGS", "call_2:search:INVALID_ARGS", "call_3:search:ok"}},
		{"endless ambiguity hits the bound", Trace{Bound: 5, Steps: []TraceStep{ambiguous()}}, 5, 5, false, ReplayBoundReached, nil},
		{"bound stops orchestrator retries too", Trace{Bound: 2, Policy: RetryPolicy{MaxAttempts: 9}, Steps: []TraceStep{fails(e503)}}, 2, 0, false, ReplayBoundReached, []any{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Replay(tc.trace, fakeSerialize)
			require.NoError(t, err)
			assert.Equal(t, tc.calls, r.Calls)
			assert.Equal(t, tc.turns, r.Turns)
			assert.Equal(t, tc.terminated, r.Terminated)
			assert.Equal(t, tc.reason, r.Reason)
			assert.Len(t, r.Transcript, int(tc.turns))
			if tc.transcript != nil {
				assert.Equal(t, tc.transcript, r.Transcript)
			}
			assert.LessOrEqual(t, r.Calls, tc.trace.Bound)
		})
	}
}

func TestReplay_serializerError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Replay(Trace{Bound: 3, Steps: []TraceStep{ok()}}, func([]outcome.Outcome) ([]any, error) { return nil, boom })
	require.ErrorIs(t, err, boom)
}

func TestReadTrace_errors(t *testing.T) {
	tests := []struct {
		name, path, msg string
		v               any
	}{
		{"no bound", "trace.bound", "is required (the most tool calls the run may make)", map[string]any{"steps": []any{map[string]any{"result": map[string]any{}}}}},
		{"no steps", "trace.steps", "is required and must hold at least one step", map[string]any{"bound": 3.0, "steps": []any{}}},
		{"both error and result", "trace.steps[0]", "needs exactly one of error (an envelope) and result", map[string]any{"bound": 3.0, "steps": []any{map[string]any{}}}},
		{"bad feedback", "trace.steps[0].feedback", "must be complete or ambiguous", map[string]any{"bound": 3.0, "steps": []any{map[string]any{"result": map[string]any{"text": "x"}, "feedback": "vague"}}}},
		{"feedback on an error", "trace.steps[0].feedback", "applies to a result only", map[string]any{"bound": 3.0, "steps": []any{map[string]any{"error": env(envelope.Timeout, true, nil).Value(), "feedback": "ambiguous"}}}},
		{"bound too large", "trace.bound", "must be a whole number from 1 to 10000", map[string]any{"bound": 10001.0, "steps": []any{}}},
		{"unknown member", "trace.model", "is not a known member (want description, tool, bound, policy, steps)", map[string]any{"model": "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTrace(tc.v, "trace")
			requireFieldError(t, err, tc.path, tc.msg)
		})
	}
}

func TestReplayReason_String(t *testing.T) {
	assert.Equal(t, "repeated_invalid_args", ReplayRepeatedInvalidArgs.String())
	assert.Equal(t, "unknown replay reason: 99", ReplayReason(99).String())
}
