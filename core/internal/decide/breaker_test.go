package decide

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
)

var (
	fail503    = env(envelope.Transport, true, map[string]any{"status": 503.0})
	badArgs    = env(envelope.InvalidArgs, false, nil)
	defaultSet = BreakerSettings{}
)

// step applies one event and returns the result.
func step(s BreakerState, ev BreakerEvent, now int64, failure *envelope.Envelope) BreakerResult {
	return Breaker(s, ev, now, defaultSet, failure, "search")
}

func TestBreaker_opensAfterThreeCountedFailures(t *testing.T) {
	var s BreakerState
	for i := int64(1); i <= 2; i++ {
		s = step(s, EventFailure, 1000*i, &fail503).State
		assert.Equal(t, BreakerState{Phase: Closed, Failures: i}, s)
	}
	s = step(s, EventFailure, 3000, &fail503).State
	assert.Equal(t, BreakerState{Phase: Open, OpenUntilMs: 33000}, s)

	r := step(s, EventAllow, 13000, nil)
	assert.False(t, r.Allowed)
	require.NotNil(t, r.Error)
	assert.Equal(t, envelope.Envelope{
		Code:      envelope.CircuitOpen,
		Message:   "The circuit breaker for tool search is open after repeated failures; wait 20 seconds before calling it again.",
		Retryable: true,
		Details:   map[string]any{"retry_after_seconds": int64(20), "state": "open", "tool": "search"},
		Source:    envelope.SourceOrchestrator,
	}, *r.Error)
}

func TestBreaker_table(t *testing.T) {
	open := BreakerState{Phase: Open, OpenUntilMs: 30000}
	half := BreakerState{Phase: HalfOpen}
	probing := BreakerState{Phase: HalfOpen, ProbeUntilMs: 60000}
	tests := []struct {
		name        string
		prev        BreakerState
		ev          BreakerEvent
		now         int64
		failure     *envelope.Envelope
		want        BreakerState
		allowed     bool
		retryAfterS int64 // 0: no CIRCUIT_OPEN error
	}{
		{"closed allows", BreakerState{}, EventAllow, 5, nil, BreakerState{}, true, 0},
		{"invalid args do not count", BreakerState{Failures: 2}, EventFailure, 5, &badArgs, BreakerState{Failures: 2}, false, 0},
		{"tool error does not count", BreakerState{Failures: 2}, EventFailure, 5, ptr(env(envelope.ToolError, false, nil)), BreakerState{Failures: 2}, false, 0},
		{"rate limit counts", BreakerState{Failures: 1}, EventFailure, 5, ptr(env(envelope.RateLimited, true, nil)), BreakerState{Failures: 2}, false, 0},
		{"failure without envelope counts", BreakerState{Failures: 2}, EventFailure, 5, nil, BreakerState{Phase: Open, OpenUntilMs: 30005}, false, 0},
		{"success resets consecutive failures", BreakerState{Failures: 2}, EventSuccess, 5, nil, BreakerState{}, false, 0},
		{"open refuses with hold left rounded up", open, EventAllow, 29001, nil, open, false, 1},
		{"open ignores a late success", open, EventSuccess, 10, nil, open, false, 0},
		{"open ignores a late failure", open, EventFailure, 10, &fail503, open, false, 0},
		{"hold over: allow takes the probe slot", open, EventAllow, 30000, nil, BreakerState{Phase: HalfOpen, ProbeUntilMs: 60000}, true, 0},
		{"second allow while a probe is out is refused", probing, EventAllow, 31000, nil, probing, false, 29},
		{"probe lease expiry frees the slot", probing, EventAllow, 60000, nil, BreakerState{Phase: HalfOpen, ProbeUntilMs: 90000}, true, 0},
		{"first probe success counts", probing, EventSuccess, 31000, nil, BreakerState{Phase: HalfOpen, Successes: 1}, false, 0},
		{"second probe success closes", BreakerState{Phase: HalfOpen, Successes: 1, ProbeUntilMs: 70000}, EventSuccess, 41000, nil, BreakerState{}, false, 0},
		{"failed probe reopens", probing, EventFailure, 31000, &fail503, BreakerState{Phase: Open, OpenUntilMs: 61000}, false, 0},
		{"uncounted probe failure frees the slot", probing, EventFailure, 31000, &badArgs, half, false, 0},
		{"success with no probe out is ignored", half, EventSuccess, 31000, nil, half, false, 0},
		{"failure with no probe out is ignored", half, EventFailure, 31000, &fail503, half, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Breaker(tc.prev, tc.ev, tc.now, defaultSet, tc.failure, "")
			assert.Equal(t, tc.want, r.State)
			assert.Equal(t, tc.allowed, r.Allowed)
			if tc.retryAfterS == 0 {
				assert.Nil(t, r.Error)
				return
			}
			require.NotNil(t, r.Error)
			assert.Equal(t, tc.retryAfterS, r.Error.Details["retry_after_seconds"])
		})
	}
}

func ptr(e envelope.Envelope) *envelope.Envelope { return &e }

func TestCounts_registry(t *testing.T) {
	var counted []string
	for _, ci := range envelope.Codes() {
		if Counts(envelope.Envelope{Code: ci.Code}) {
			counted = append(counted, string(ci.Code))
		}
	}
	assert.Equal(t, []string{"RATE_LIMITED", "OVERLOADED", "SERVER_ERROR", "TRANSPORT", "TIMEOUT"}, counted)
	for _, ci := range envelope.Codes() {
		rule := ci.Retryable && ci.Code != envelope.Conflict && ci.Code != envelope.CircuitOpen
		assert.Equal(t, rule, Counts(envelope.Envelope{Code: ci.Code}), ci.Code)
	}
	assert.True(t, Counts(envelope.Envelope{Code: "NEW_CODE", Retryable: true}))
	assert.False(t, Counts(envelope.Envelope{Code: "NEW_CODE"}))
}

func TestBreakerState_json(t *testing.T) {
	s := BreakerState{Phase: HalfOpen, Failures: 0, Successes: 1, OpenUntilMs: 0, ProbeUntilMs: 1700000000000}
	want, err := canonical.Marshal(s.Value())
	require.NoError(t, err)
	assert.Equal(t, string(want), string(s.AppendJSON(nil)))
	assert.Equal(t, `{"failures":0,"open_until_ms":0,"phase":"half_open","probe_until_ms":1700000000000,"successes":1}`, string(want))
	back, err := ParseBreakerState(want)
	require.NoError(t, err)
	assert.Equal(t, s, back)
	for _, in := range []string{"", "null", "{}"} {
		got, err := ParseBreakerState([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, BreakerState{}, got)
	}
}

func TestReadBreakerState_errors(t *testing.T) {
	_, err := ReadBreakerState(map[string]any{"phase": "ajar"}, "state")
	requireFieldError(t, err, "state.phase", "must be closed, open or half_open")
	_, err = ReadBreakerState(map[string]any{"failures": -1.0}, "state")
	requireFieldError(t, err, "state.failures", "must be a whole number from 0 to 9007199254740992")
	_, err = ReadBreakerState(map[string]any{"probes": 1.0}, "state")
	requireFieldError(t, err, "state.probes", "is not a known member (want phase, failures, successes, open_until_ms, probe_until_ms)")
	_, err = ReadBreakerState("open", "state")
	requireFieldError(t, err, "state", "must be an object, got string")
}

func TestBreakerPhase_String(t *testing.T) {
	assert.Equal(t, "half_open", HalfOpen.String())
	assert.Equal(t, "unknown breaker phase: 7", BreakerPhase(7).String())
	assert.Equal(t, "unknown breaker event: 9", BreakerEvent(9).String())
}

// TestBreaker_properties drives many random event sequences through the pure
// transition and checks, after every event: at most one probe is in flight
// (no allow passes in half-open while an earlier probe holds an unexpired
// lease); the breaker closes from half-open only after SuccessThreshold
// probe successes; and an open breaker whose hold has passed is never still
// open after the next event.
func TestBreaker_properties(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 6))
	for seq := 0; seq < 3000; seq++ {
		set := BreakerSettings{FailureThreshold: 1 + rng.Int64N(4), OpenMs: 1 + rng.Int64N(5000), SuccessThreshold: 1 + rng.Int64N(3)}
		var s BreakerState
		now := int64(rng.Int64N(1000))
		var probeLeases []int64 // lease ends of probes allowed in half-open and not yet reported
		successesSinceHalfOpen := int64(0)
		for i := 0; i < 200; i++ {
			now += rng.Int64N(set.OpenMs/2 + 2)
			var ev BreakerEvent
			var failure *envelope.Envelope
			switch rng.IntN(4) {
			case 0, 1:
				ev = EventAllow
			case 2:
				ev = EventSuccess
			default:
				ev = EventFailure
				if rng.IntN(3) == 0 {
					failure = &badArgs
				} else {
					failure = &fail503
				}
			}
			prev := s
			r := Breaker(s, ev, now, set, failure, "")
			s = r.State

			// Never still open past the hold plus this event.
			if prev.Phase == Open && now >= prev.OpenUntilMs {
				require.NotEqual(t, Open, s.Phase, "seq %d event %d: open past its hold", seq, i)
			}
			// Live probe leases: drop the expired ones; a report ends the probe
			// in flight; leaving half-open ends every probe.
			live := probeLeases[:0]
			for _, l := range probeLeases {
				if l > now {
					live = append(live, l)
				}
			}
			probeLeases = live
			probeWasOut := len(probeLeases) > 0
			if ev != EventAllow {
				probeLeases = nil
			}
			if ev == EventAllow && r.Allowed && s.Phase == HalfOpen {
				require.Empty(t, probeLeases, "seq %d event %d: second probe let through", seq, i)
				probeLeases = append(probeLeases, now+set.OpenMs)
			}
			if s.Phase != HalfOpen {
				probeLeases = nil
			}
			// Closing from half-open needs SuccessThreshold successful probes.
			if ev == EventSuccess && probeWasOut {
				successesSinceHalfOpen++
			}
			if prev.Phase == HalfOpen && s.Phase == Closed {
				require.Equal(t, set.SuccessThreshold, successesSinceHalfOpen, "seq %d event %d: closed without M successes", seq, i)
			}
			if s.Phase != HalfOpen {
				successesSinceHalfOpen = 0
			}
			ticked := Tick(prev, now)
			// An allow while closed always passes; while open never.
			if ev == EventAllow && ticked.Phase == Closed {
				require.True(t, r.Allowed)
			}
			if ev == EventAllow && ticked.Phase == Open {
				require.False(t, r.Allowed)
				require.NotNil(t, r.Error)
			}
			require.Equal(t, ev == EventAllow && !r.Allowed, r.Error != nil)
		}
	}
}

func TestParseBreakerState_fastPathAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 5000; i++ {
		s := BreakerState{Phase: BreakerPhase(rng.IntN(3)), Failures: rng.Int64N(10), Successes: rng.Int64N(10), OpenUntilMs: rng.Int64N(1 << 45), ProbeUntilMs: rng.Int64N(1 << 45)}
		b := s.AppendJSON(nil)
		fast, ok := parseCanonicalState(b)
		require.True(t, ok, string(b))
		require.Equal(t, s, fast)
		slow, err := ReadBreakerState(mustParse(t, b), "state")
		require.NoError(t, err)
		require.Equal(t, s, slow)
	}
	for _, in := range []string{`{"failures":01,"open_until_ms":0,"phase":"open","probe_until_ms":0,"successes":0}`,
		`{"failures":1,"open_until_ms":0,"phase":"ajar","probe_until_ms":0,"successes":0}`,
		`{"failures":1,"open_until_ms":0,"phase":"open","probe_until_ms":0,"successes":0} `,
		`{"failures":99999999999999999,"open_until_ms":0,"phase":"open","probe_until_ms":0,"successes":0}`} {
		_, ok := parseCanonicalState([]byte(in))
		assert.False(t, ok, in)
	}
}

func mustParse(t *testing.T, b []byte) any {
	t.Helper()
	v, err := canonical.Parse(b)
	require.NoError(t, err)
	return v
}
