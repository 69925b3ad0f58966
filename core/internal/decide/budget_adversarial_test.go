package decide

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A start time after now (clock skew between processes) never makes the
// remaining wall time larger than the limit.
func TestBudget_startAfterNowKeepsRemainingWithinLimit(t *testing.T) {
	r := Budget(BudgetState{Steps: 1, StartedMs: 100}, BudgetLimits{WallMs: 10}, BudgetCharge{}, 0)
	assert.True(t, r.Allowed)
	assert.Equal(t, int64(10), r.Remaining()["wall_ms"])
}

// Unlimited budgets add up without passing 2^53, the largest count
// ReadBudgetState accepts back.
func TestBudget_totalsSaturateAtMaxMs(t *testing.T) {
	r := Budget(BudgetState{Steps: maxMs, Tokens: maxMs, StartedMs: 1}, BudgetLimits{}, BudgetCharge{Steps: maxMs, Tokens: maxMs}, 2)
	require.True(t, r.Allowed)
	assert.Equal(t, BudgetState{Steps: maxMs, Tokens: maxMs, StartedMs: 1}, r.State)
	back, err := ReadBudgetState(jsonRoundTrip(t, r.State.Value()), "state")
	require.NoError(t, err, "the emitted state must be readable again")
	assert.Equal(t, r.State, back)
}
