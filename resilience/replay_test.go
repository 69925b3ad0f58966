package resilience

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// TestExecutor_recordedTracesTerminate is seed 000 checklist item 6 through
// the executor: every trace in conformance/fixtures/replay is played against
// a tool that answers with the trace's steps, an Executor whose step budget
// is the trace's bound, and a second, independent scripted model. Each run
// ends within its bound with the calls and reason core's replay op pinned.
func TestExecutor_recordedTracesTerminate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "conformance", "fixtures", "replay", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, tc := range fixtureTests(t, b) {
			req := tc["request"].(map[string]any)
			want := tc["response"].(map[string]any)["ok"].(map[string]any)
			trace, err := core.ParseTrace(marshal(t, req["trace"]))
			require.NoError(t, err)
			t.Run(filepath.Base(f)+"/"+tc["description"].(string), func(t *testing.T) {
				calls, reason := runTrace(t, trace)
				assert.LessOrEqual(t, calls, trace.Bound)
				assert.Equal(t, want["calls"], float64(calls))
				assert.Equal(t, want["reason"], reason)
				if reason != "bound_reached" {
					assert.Equal(t, true, want["terminated"])
				}
			})
			n++
		}
	}
	assert.Greater(t, n, 10)
}

func runTrace(t *testing.T, trace core.Trace) (int64, string) {
	x := &Executor{
		Retry:  trace.Policy,
		Budget: NewBudget(core.BudgetLimits{Steps: trace.Bound}),
		Draw:   func() float64 { return 0 },
	}
	var calls int64
	tool := func(context.Context) error {
		s := trace.Steps[min(int(calls), len(trace.Steps)-1)]
		calls++
		if s.Error != nil {
			return &Error{Envelope: *s.Error}
		}
		if s.Ambiguous {
			return errAmbiguous
		}
		return nil
	}
	var lastInvalid string
	for turn := 0; turn < 100000; turn++ {
		err := x.Do(context.Background(), "search", tool)
		var te *Error
		switch {
		case err == nil:
			return calls, "completed"
		case errors.As(err, &te) && te.Envelope.Code == errAmbiguous.Envelope.Code:
			continue // the model calls again
		case errors.Is(err, ErrBudgetExhausted):
			return calls, "bound_reached"
		case errors.As(err, &te) && te.Envelope.Code == core.CodeInvalidArgs:
			b, _ := te.Envelope.MarshalJSON()
			if string(b) == lastInvalid {
				return calls, "repeated_invalid_args"
			}
			lastInvalid = string(b)
		case errors.As(err, &te) && te.Envelope.Retryable:
			return calls, "retries_exhausted"
		default:
			return calls, "terminal_error"
		}
	}
	t.Fatal("the model never stopped")
	return 0, ""
}

// errAmbiguous is a success whose feedback is ambiguous; the executor sees
// it as a non-retryable outcome handed to the model.
var errAmbiguous = &Error{Envelope: core.Envelope{Code: "AMBIGUOUS_RESULT", Message: "Found 3 results; more may be available.", Source: core.SourceTool}}
