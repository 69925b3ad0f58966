package decide

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/envelope"
)

func TestBudget_table(t *testing.T) {
	limits := BudgetLimits{Steps: 3, Tokens: 1000, WallMs: 60000}
	tests := []struct {
		name      string
		prev      BudgetState
		charge    BudgetCharge
		now       int64
		allowed   bool
		want      BudgetState
		exhausted string
		remaining map[string]any
	}{
		{"first charge starts the clock", BudgetState{}, BudgetCharge{Steps: 1, Tokens: 200}, 5000, true, BudgetState{1, 200, 5000}, "", map[string]any{"steps": int64(2), "tokens": int64(800), "wall_ms": int64(60000)}},
		{"zero charge is one step", BudgetState{1, 200, 5000}, BudgetCharge{}, 6000, true, BudgetState{2, 200, 5000}, "", map[string]any{"steps": int64(1), "tokens": int64(800), "wall_ms": int64(59000)}},
		{"last step fits exactly", BudgetState{2, 200, 5000}, BudgetCharge{Steps: 1, Tokens: 800}, 7000, true, BudgetState{3, 1000, 5000}, "", map[string]any{"steps": int64(0), "tokens": int64(0), "wall_ms": int64(58000)}},
		{"one step too many is refused", BudgetState{3, 100, 5000}, BudgetCharge{Steps: 1}, 7000, false, BudgetState{3, 100, 5000}, "steps", map[string]any{"steps": int64(0), "tokens": int64(900), "wall_ms": int64(58000)}},
		{"tokens over the ceiling are refused", BudgetState{1, 900, 5000}, BudgetCharge{Steps: 1, Tokens: 101}, 7000, false, BudgetState{1, 900, 5000}, "tokens", map[string]any{"steps": int64(2), "tokens": int64(100), "wall_ms": int64(58000)}},
		{"wall time checked first", BudgetState{3, 1000, 5000}, BudgetCharge{Steps: 1}, 65000, false, BudgetState{3, 1000, 5000}, "wall_ms", map[string]any{"steps": int64(0), "tokens": int64(0), "wall_ms": int64(0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Budget(tc.prev, limits, tc.charge, tc.now)
			assert.Equal(t, tc.allowed, r.Allowed)
			assert.Equal(t, tc.want, r.State)
			assert.Equal(t, tc.remaining, r.Remaining())
			if tc.exhausted == "" {
				assert.Nil(t, r.Error)
				return
			}
			require.NotNil(t, r.Error)
			assert.Equal(t, envelope.BudgetExhausted, r.Error.Code)
			assert.False(t, r.Error.Retryable)
			assert.Equal(t, envelope.SourceOrchestrator, r.Error.Source)
			assert.Equal(t, tc.exhausted, r.Error.Details["exhausted"])
		})
	}
}

func TestBudget_messageSaysWhatRanOut(t *testing.T) {
	r := Budget(BudgetState{Steps: 10, StartedMs: 1}, BudgetLimits{Steps: 10}, BudgetCharge{Steps: 1}, 2)
	require.NotNil(t, r.Error)
	assert.Equal(t, "The step budget of 10 is spent (10 used, 1 more requested); stop calling tools and answer with what you have.", r.Error.Message)
	assert.Equal(t, map[string]any{"exhausted": "steps", "limit": int64(10), "used": int64(10), "requested": int64(1)}, r.Error.Details)
	r = Budget(BudgetState{StartedMs: 1000}, BudgetLimits{WallMs: 500}, BudgetCharge{}, 1700)
	require.NotNil(t, r.Error)
	assert.Equal(t, "The time budget of 500 ms is spent; stop calling tools and answer with what you have.", r.Error.Message)
	assert.Equal(t, map[string]any{"exhausted": "wall_ms", "limit": int64(500), "used": int64(700)}, r.Error.Details)
}

func TestBudget_unlimited(t *testing.T) {
	r := Budget(BudgetState{Steps: 1 << 40}, BudgetLimits{}, BudgetCharge{Steps: 5, Tokens: 9}, 10)
	assert.True(t, r.Allowed)
	assert.Equal(t, map[string]any{}, r.Remaining())
}

func TestReadBudget_errors(t *testing.T) {
	_, err := ReadBudgetLimits(map[string]any{"steps": 1.5}, "limits")
	requireFieldError(t, err, "limits.steps", "must be a whole number from 0 to 9007199254740992")
	_, err = ReadBudgetCharge(map[string]any{"cost": 1.0}, "charge")
	requireFieldError(t, err, "charge.cost", "is not a known member (want steps, tokens)")
	_, err = ReadBudgetState([]any{}, "state")
	requireFieldError(t, err, "state", "must be an object, got array")
	s, err := ReadBudgetState(map[string]any{"steps": 2.0, "started_ms": 9.0}, "state")
	require.NoError(t, err)
	assert.Equal(t, BudgetState{Steps: 2, StartedMs: 9}, s)
}
