package core

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStep_startChecksConfigAsTheOp: the typed Step refuses on a start
// event every StepConfig the step op refuses given as JSON, with the op's
// path and message; zero fields are the members left out and pass.
func TestStep_startChecksConfigAsTheOp(t *testing.T) {
	for _, tc := range []struct {
		cfg  StepConfig
		req  string // the same values as the step request's members
		path string
	}{
		{StepConfig{Policy: RetryPolicy{MaxAttempts: -1}}, `"policy":{"max_attempts":-1}`, "policy.max_attempts"},
		{StepConfig{Policy: RetryPolicy{CapMs: 1 << 60}}, `"policy":{"cap_ms":1152921504606846976}`, "policy.cap_ms"},
		{StepConfig{Settings: BreakerSettings{SuccessThreshold: -1}}, `"settings":{"success_threshold":-1}`, "settings.success_threshold"},
		{StepConfig{TimeoutMs: -1}, `"timeout_ms":-1`, "timeout_ms"},
		{StepConfig{StoreBackoffMs: 1 << 54}, `"store_backoff_ms":18014398509481984`, "store_backoff_ms"},
		{StepConfig{Budget: &BudgetLimits{Tokens: -1}}, `"budget":{"limits":{"tokens":-1}}`, "budget.limits.tokens"},
		{StepConfig{Budget: &BudgetLimits{}, Charge: BudgetCharge{Steps: -2}}, `"budget":{"limits":{},"charge":{"steps":-2}}`, "budget.charge.steps"},
		{StepConfig{Loop: true, LoopThreshold: MaxStepLoopThreshold + 1}, `"loop":{"threshold":2147483649}`, "loop.threshold"},
		{StepConfig{Loop: true, LoopThreshold: -1}, `"loop":{"threshold":-1}`, "loop.threshold"},
	} {
		var resp struct{ Error *Envelope }
		req := `{"op":"step","tool":"t","state":null,"event":{"kind":"start"},"now_ms":5,` + tc.req + `}`
		require.NoError(t, json.Unmarshal(Invoke([]byte(req)), &resp))
		require.NotNil(t, resp.Error, req)
		assert.Equal(t, tc.path, resp.Error.Details["path"], req)

		tc.cfg.Tool = "t"
		_, err := Step(StepInput{Config: tc.cfg, Event: StepEvent{Kind: EventStart}, NowMs: 5})
		var re *RequestError
		require.True(t, errors.As(err, &re), "%s: %v", tc.path, err)
		assert.Equal(t, "step", re.Op)
		assert.Equal(t, tc.path, re.Path)
		assert.Equal(t, resp.Error.Message, re.envelope().Message, "the op's wording")
		assert.Equal(t, err, CheckStepConfig(tc.cfg))
	}
	for _, cfg := range []StepConfig{
		{Tool: "t"},
		{Tool: "t", Budget: &BudgetLimits{}, Loop: true, LoopThreshold: MaxStepLoopThreshold, Policy: RetryPolicy{CapMs: 1 << 53}},
	} {
		r, err := Step(StepInput{Config: cfg, Event: StepEvent{Kind: EventStart}, NowMs: 5})
		require.NoError(t, err)
		assert.Equal(t, ActionLoad, r.Action.Kind)
	}
}

// TestCheckStepConfig_allocatesNothing: a config that passes costs no
// allocation (the member's path is built only for an error).
func TestCheckStepConfig_allocatesNothing(t *testing.T) {
	cfg := StepConfig{Tool: "t", Policy: RetryPolicy{MaxAttempts: 5, CapMs: 100}, Settings: BreakerSettings{OpenMs: 10},
		TimeoutMs: 1000, Budget: &BudgetLimits{Steps: 10}, Charge: BudgetCharge{Tokens: 3}, Loop: true, LoopThreshold: 4}
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = CheckStepConfig(cfg) }))
}
