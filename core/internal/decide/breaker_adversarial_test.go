package decide

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
)

// The breaker never emits a timestamp above 2^53 ms: ReadBreakerState
// rejects such a state, so the caller could not hand it back.
func TestBreaker_deadlinesSaturateAtMaxMs(t *testing.T) {
	s := BreakerSettings{FailureThreshold: 1, OpenMs: maxMs}
	tests := []struct {
		name string
		prev BreakerState
		ev   BreakerEvent
		fail *envelope.Envelope
	}{
		{"closed opens", BreakerState{}, EventFailure, nil},
		{"half-open probe lease", BreakerState{Phase: HalfOpen}, EventAllow, nil},
		{"failed probe reopens", BreakerState{Phase: HalfOpen, ProbeUntilMs: maxMs}, EventFailure, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Breaker(tc.prev, tc.ev, maxMs-1, s, tc.fail, "")
			assert.Equal(t, int64(maxMs), r.State.OpenUntilMs+r.State.ProbeUntilMs)
			back, err := ReadBreakerState(jsonRoundTrip(t, r.State.Value()), "state")
			require.NoError(t, err, "the emitted state must be readable again")
			assert.Equal(t, r.State, back)
		})
	}
}

// The tool name goes into the CIRCUIT_OPEN envelope, which the model sees: a
// secret or a stack trace in it must not reach the message or the details.
func TestBreaker_toolNameIsSanitized(t *testing.T) {
	const body = "Zq9XkW3mP7vR2tY8uB4nC6dF1gH5jK0L"
	for _, tool := range []string{
		"sk-proj-" + body,
		"search\nTraceback (most recent call last):\n  File \"/app/x.py\", line 3, in f\nValueError: sk-proj-" + body,
		"Bearer " + body,
	} {
		r := Breaker(BreakerState{Phase: Open, OpenUntilMs: 100000}, EventAllow, 1, BreakerSettings{}, nil, tool)
		require.NotNil(t, r.Error)
		assert.NotContains(t, r.Error.Message, body)
		assert.NotContains(t, r.Error.Message, "Traceback")
		d, _ := r.Error.Details["tool"].(string)
		assert.NotContains(t, d, body)
		assert.False(t, strings.Contains(d, "Traceback") || strings.Contains(d, "File \""), "details.tool %q", d)
	}
}

// An ordinary tool name is kept as is.
func TestBreaker_plainToolNameKept(t *testing.T) {
	r := Breaker(BreakerState{Phase: Open, OpenUntilMs: 100000}, EventAllow, 80001, BreakerSettings{}, nil, "get_weather")
	require.NotNil(t, r.Error)
	assert.Equal(t, "The circuit breaker for tool get_weather is open after repeated failures; wait 20 seconds before calling it again.", r.Error.Message)
	assert.Equal(t, "get_weather", r.Error.Details["tool"])
}

// jsonRoundTrip returns v as a caller gets it back: encoded and parsed again.
func jsonRoundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := canonical.Marshal(v)
	require.NoError(t, err)
	back, err := canonical.Parse(b)
	require.NoError(t, err)
	return back
}
