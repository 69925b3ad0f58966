package resilience

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// An envelope the Executor did not classify itself (its Classify hook's, or
// a hand-built *Error the tool returns) reaches what the caller hands the
// model (the returned *Error's Envelope and its Error text), the decisions
// and the log only after the core's step sanitized it: the secret in its
// message and details is redacted. Before, both came back as they were
// built ("failed with sk-proj-...").
func TestExecutor_aHandBuiltEnvelopeIsSanitized(t *testing.T) {
	const secret = "sk-proj-AbCdEf0123456789AbCdEf0123456789xyz"
	built := core.Envelope{Code: core.CodeToolError, Message: "failed with " + secret, Source: core.SourceTool,
		Details: map[string]any{"stderr": "token " + secret}}
	for _, tc := range []struct {
		name string
		x    func(*Executor)
		err  error
	}{
		{"Classify hook", func(x *Executor) {
			x.Classify = func(error, string, int) core.Envelope { return built }
		}, errors.New("boom")},
		{"hand-built *Error", func(*Executor) {}, fmt.Errorf("wrapped: %w", &Error{Envelope: built})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			var ds []Decision
			x := &Executor{Logger: slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
				OnDecision: func(d Decision) { ds = append(ds, d) }}
			tc.x(x)
			err := x.Do(context.Background(), "search", func(context.Context) error { return tc.err })
			var te *Error
			require.ErrorAs(t, err, &te)
			assert.Equal(t, core.CodeToolError, te.Envelope.Code)
			assert.Equal(t, "failed with [REDACTED].", te.Envelope.Message)
			assert.Equal(t, map[string]any{"stderr": "token [REDACTED]"}, te.Envelope.Details)
			assert.NotContains(t, err.Error(), secret)
			for _, d := range ds {
				if d.Envelope != nil {
					assert.NotContains(t, d.Envelope.Message, secret)
				}
			}
			assert.NotContains(t, log.String(), secret)
		})
	}
}

// A Classify hook whose envelope's code is no UPPER_SNAKE token (or whose
// source is not one of the three) gets the executor's INTERNAL failure
// naming the member, as the step op refuses the same envelope as JSON,
// instead of that free text handed on as the code.
func TestExecutor_aClassifyHooksFreeTextCodeIsRefused(t *testing.T) {
	for _, env := range []core.Envelope{
		{Code: "tool failed badly", Message: "m.", Source: core.SourceTool},
		{Code: core.CodeToolError, Message: "m.", Source: "the search backend"},
		{Code: "key sk-proj-AbCdEf0123456789AbCdEf0123456789xyz", Message: "m.", Source: core.SourceTool},
	} {
		x := &Executor{Classify: func(error, string, int) core.Envelope { return env }}
		err := x.Do(context.Background(), "search", func(context.Context) error { return errors.New("boom") })
		var te *Error
		require.ErrorAs(t, err, &te)
		assert.Equal(t, core.CodeInternal, te.Envelope.Code, "%+v", te.Envelope)
		assert.Equal(t, core.SourceOrchestrator, te.Envelope.Source)
		assert.Contains(t, te.Envelope.Message, "event.error.")
		assert.NotContains(t, err.Error(), "sk-proj-AbCdEf0123456789AbCdEf0123456789xyz")
	}
}
