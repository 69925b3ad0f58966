package resilience

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// TestExecutor_badConfigIsTheStepOpsError: every Go setting the step op
// refuses given as JSON (and that Go cannot mean as the member left out) is
// refused by Do before the tool is called, with the op's code and
// details.path for the same value; the op is asked the same start step
// through core.Invoke.
func TestExecutor_badConfigIsTheStepOpsError(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    func() *Executor
		opts []CallOption
		req  map[string]any // the step request's members for the same value
		path string
	}{
		{"retry max attempts -1", func() *Executor { return &Executor{Retry: core.RetryPolicy{MaxAttempts: -1}} }, nil,
			map[string]any{"policy": map[string]any{"max_attempts": -1}}, "policy.max_attempts"},
		{"retry cap 2^60", func() *Executor { return &Executor{Retry: core.RetryPolicy{CapMs: 1 << 60}} }, nil,
			map[string]any{"policy": map[string]any{"cap_ms": 1 << 60}}, "policy.cap_ms"},
		{"retry max wait -5", func() *Executor { return &Executor{Retry: core.RetryPolicy{MaxWaitMs: -5}} }, nil,
			map[string]any{"policy": map[string]any{"max_wait_ms": -5}}, "policy.max_wait_ms"},
		{"breaker open -1", func() *Executor { return &Executor{Breaker: core.BreakerSettings{OpenMs: -1}} }, nil,
			map[string]any{"settings": map[string]any{"open_ms": -1}}, "settings.open_ms"},
		{"breaker threshold -3", func() *Executor { return &Executor{Breaker: core.BreakerSettings{FailureThreshold: -3}} }, nil,
			map[string]any{"settings": map[string]any{"failure_threshold": -3}}, "settings.failure_threshold"},
		{"timeout -1ms", func() *Executor { return &Executor{Timeout: -time.Millisecond} }, nil,
			map[string]any{"timeout_ms": -1}, "timeout_ms"},
		{"store backoff -1s", func() *Executor { return &Executor{StoreBackoff: -time.Second} }, nil,
			map[string]any{"store_backoff_ms": -1000}, "store_backoff_ms"},
		{"budget steps -1", func() *Executor { return &Executor{Budget: NewBudget(core.BudgetLimits{Steps: -1})} }, nil,
			map[string]any{"budget": map[string]any{"limits": map[string]any{"steps": -1}}}, "budget.limits.steps"},
		{"budget wall 2^54", func() *Executor { return &Executor{Budget: NewBudget(core.BudgetLimits{WallMs: 1 << 54})} }, nil,
			map[string]any{"budget": map[string]any{"limits": map[string]any{"wall_ms": 1 << 54}}}, "budget.limits.wall_ms"},
		{"charge tokens -1", func() *Executor { return &Executor{Budget: NewBudget(core.BudgetLimits{})} }, []CallOption{Tokens(-1)},
			map[string]any{"budget": map[string]any{"limits": map[string]any{}, "charge": map[string]any{"tokens": -1}}}, "budget.charge.tokens"},
		{"loop threshold 2^40", func() *Executor { return &Executor{LoopGuard: NewLoopGuard(1 << 40)} }, nil,
			map[string]any{"loop": map[string]any{"threshold": 1 << 40}}, "loop.threshold"},
		{"retry and breaker both bad: the op's order", func() *Executor {
			return &Executor{Retry: core.RetryPolicy{BaseMs: -1}, Breaker: core.BreakerSettings{OpenMs: -1}}
		}, nil, map[string]any{"policy": map[string]any{"base_ms": -1}, "settings": map[string]any{"open_ms": -1}}, "policy.base_ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := map[string]any{"op": "step", "tool": "get_weather", "state": nil, "event": map[string]any{"kind": "start"}, "now_ms": 1000}
			for k, v := range tc.req {
				req[k] = v
			}
			b, err := json.Marshal(req)
			require.NoError(t, err)
			var resp struct {
				Error *core.Envelope `json:"error"`
			}
			require.NoError(t, json.Unmarshal(core.Invoke(b), &resp))
			require.NotNil(t, resp.Error, "the op accepts %s", b)
			assert.Equal(t, core.CodeInvalidInput, resp.Error.Code)
			assert.Equal(t, tc.path, resp.Error.Details["path"], "the op's path")

			calls := 0
			err = tc.x().Do(context.Background(), "get_weather", func(context.Context) error { calls++; return nil }, tc.opts...)
			var te *Error
			require.ErrorAs(t, err, &te)
			assert.Equal(t, resp.Error.Code, te.Envelope.Code, te.Envelope.Message)
			assert.Equal(t, resp.Error.Details["path"], te.Envelope.Details["path"], te.Envelope.Message)
			assert.Equal(t, "step", te.Envelope.Details["op"])
			assert.Equal(t, "get_weather", te.Envelope.Details["tool"])
			assert.Equal(t, core.SourceOrchestrator, te.Envelope.Source)
			assert.Contains(t, te.Envelope.Message, tc.path)
			if tc.path != "timeout_ms" && tc.path != "store_backoff_ms" { // a Duration's own message names the Go field
				assert.Equal(t, resp.Error.Message, te.Envelope.Message, "the op's wording")
			}
			assert.Equal(t, 0, calls, "the tool is not called")
		})
	}
}

// TestExecutor_zeroConfigIsTheDefault: Go's zero values are the members
// left out (RATIONALE.md), not refused although the op refuses a JSON 0
// for some of them (policy, settings, loop.threshold); NewLoopGuard's
// threshold below 0 is its documented default.
func TestExecutor_zeroConfigIsTheDefault(t *testing.T) {
	for _, x := range []*Executor{
		{},
		{Retry: core.RetryPolicy{}, Breaker: core.BreakerSettings{}, Budget: NewBudget(core.BudgetLimits{}), LoopGuard: NewLoopGuard(0)},
		{LoopGuard: NewLoopGuard(-4)},
		{LoopGuard: NewLoopGuard(1 << 31), Retry: core.RetryPolicy{CapMs: 1 << 53}},
	} {
		calls := 0
		require.NoError(t, x.Do(context.Background(), "get_weather", func(context.Context) error { calls++; return nil }, Tokens(0)))
		assert.Equal(t, 1, calls)
	}
}
