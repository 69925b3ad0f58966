package decide

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/envelope"
)

// driver is a minimal runtime for tests: one map as the shared store, one as
// the local store, a clock moved by sleeps, scripted outcomes.
type driver struct {
	shared, local map[string][]byte
	now           int64
	sleeps        []int64
	records       []Record
	budget        BudgetState
	loop          LoopState
}

func newDriver() *driver {
	return &driver{shared: map[string][]byte{}, local: map[string][]byte{}, now: 1_000_000}
}

// run drives one call; outcomes[i] answers call i (nil = success).
func (d *driver) run(t *testing.T, c StepConfig, outcomes []*envelope.Envelope) StepAction {
	t.Helper()
	var st StepState
	ev := StepEvent{Kind: EventStart}
	calls := 0
	for i := 0; i < 100; i++ {
		r, err := Step(StepInput{Config: c, State: st, Budget: d.budget, Loop: d.loop, Event: ev, NowMs: d.now})
		require.NoError(t, err)
		st = r.State
		d.records = append(d.records, r.Records...)
		if r.Budget != nil {
			d.budget = *r.Budget
		}
		if r.Loop != nil {
			d.loop = r.Loop
		}
		a := r.Action
		store := d.shared
		if a.Store == StoreLocal {
			store = d.local
		}
		switch a.Kind {
		case ActionLoad:
			v, ok := store[a.Key]
			ev = StepEvent{Kind: EventLoaded, Value: v, Absent: !ok}
		case ActionCAS:
			v, ok := store[a.Key]
			if ok == !a.OldAbsent && string(v) == string(a.Old) {
				store[a.Key] = a.New
				ev = StepEvent{Kind: EventCAS, Swapped: true}
			} else {
				ev = StepEvent{Kind: EventCAS, Value: v, Absent: !ok}
			}
		case ActionCall:
			e := outcomes[calls]
			calls++
			if e == nil {
				ev = StepEvent{Kind: EventCallOK}
			} else {
				ev = StepEvent{Kind: EventCallFailed, Error: e, Draw: 0.5}
			}
		case ActionSleep:
			d.sleeps = append(d.sleeps, a.DelayMs)
			d.now += a.DelayMs
			ev = StepEvent{Kind: EventSlept}
		case ActionStop:
			return a
		}
	}
	t.Fatal("the call never stopped")
	return StepAction{}
}

func kindsOf(rs []Record) []string {
	var out []string
	for _, r := range rs {
		s := r.Kind.String()
		if !r.Allowed && r.Kind != RecordFallback {
			s += "!"
		}
		out = append(out, s)
	}
	return out
}

var (
	env503 = &envelope.Envelope{Code: envelope.Transport, Message: "503", Retryable: true, Details: map[string]any{"status": 503}, Source: envelope.SourceTool}
	env400 = &envelope.Envelope{Code: envelope.InvalidArgs, Message: "400", Details: map[string]any{"status": 400}, Source: envelope.SourceTool}
)

// TestStep_seedWorkedExample: 503, 503, 400 is two silent retries, then the
// INVALID_ARGS envelope for the model after three calls.
func TestStep_seedWorkedExample(t *testing.T) {
	d := newDriver()
	a := d.run(t, StepConfig{Tool: "search"}, []*envelope.Envelope{env503, env503, env400})
	require.NotNil(t, a.Error)
	assert.Equal(t, envelope.InvalidArgs, a.Error.Code)
	assert.Equal(t, int64(3), a.Attempts)
	assert.Equal(t, []int64{250, 500}, d.sleeps)
	assert.Equal(t, []string{"breaker", "call!", "retry", "breaker", "call!", "retry", "breaker", "call!", "retry!"}, kindsOf(d.records))
	assert.Equal(t, `{"failures":2,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}`, string(d.shared["toolerr:breaker:search"]))
}

// TestStep_breakerAcrossCalls: three failing calls open the breaker, the
// fourth is refused without a call, and after the hold one probe closes it
// halfway (successes 1).
func TestStep_breakerAcrossCalls(t *testing.T) {
	d := newDriver()
	c := StepConfig{Tool: "search", Policy: RetryPolicy{MaxAttempts: 1}}
	for i := 0; i < 3; i++ {
		d.run(t, c, []*envelope.Envelope{env503})
	}
	a := d.run(t, c, nil)
	require.NotNil(t, a.Error)
	assert.Equal(t, envelope.CircuitOpen, a.Error.Code)
	assert.Equal(t, int64(0), a.Attempts)
	d.now += 30_000
	d.records = nil
	a = d.run(t, c, []*envelope.Envelope{nil})
	assert.Nil(t, a.Error)
	assert.Equal(t, RecordBreaker, d.records[0].Kind)
	assert.Equal(t, Open, d.records[0].From)
	assert.Equal(t, HalfOpen, d.records[0].Phase)
	assert.Equal(t, `{"failures":0,"open_until_ms":0,"phase":"half_open","probe_until_ms":0,"successes":1}`, string(d.shared["toolerr:breaker:search"]))
}

// TestStep_oneProbeForInterleavedCalls: two calls ask a breaker whose hold
// ended, their loads interleaved; exactly one wins the probe.
func TestStep_oneProbeForInterleavedCalls(t *testing.T) {
	stored := []byte(`{"failures":0,"open_until_ms":999000,"phase":"open","probe_until_ms":0,"successes":0}`)
	c := StepConfig{Tool: "search"}
	start := func() StepState {
		r, err := Step(StepInput{Config: c, Event: StepEvent{Kind: EventStart}, NowMs: 1_000_000})
		require.NoError(t, err)
		return r.State
	}
	a, b := start(), start()
	ra, err := Step(StepInput{Config: c, State: a, Event: StepEvent{Kind: EventLoaded, Value: stored}, NowMs: 1_000_000})
	require.NoError(t, err)
	rb, err := Step(StepInput{Config: c, State: b, Event: StepEvent{Kind: EventLoaded, Value: stored}, NowMs: 1_000_000})
	require.NoError(t, err)
	require.Equal(t, ActionCAS, ra.Action.Kind)
	require.Equal(t, ActionCAS, rb.Action.Kind)
	// a's compare-and-swap wins; b's loses and sees a's bytes.
	won, err := Step(StepInput{Config: c, State: ra.State, Event: StepEvent{Kind: EventCAS, Swapped: true}, NowMs: 1_000_000})
	require.NoError(t, err)
	lost, err := Step(StepInput{Config: c, State: rb.State, Event: StepEvent{Kind: EventCAS, Value: ra.Action.New}, NowMs: 1_000_000})
	require.NoError(t, err)
	assert.Equal(t, ActionCall, won.Action.Kind)
	assert.Equal(t, ActionStop, lost.Action.Kind)
	assert.Equal(t, envelope.CircuitOpen, lost.Action.Error.Code)
}

// TestStep_fallbackThenLocal: a failing shared store sends every breaker
// event to the local store, so the local breaker opens.
func TestStep_fallbackThenLocal(t *testing.T) {
	c := StepConfig{Tool: "search", Policy: RetryPolicy{MaxAttempts: 1}}
	d := newDriver()
	// A shared store that always fails: wrap run by swapping the shared map
	// for a sentinel the driver cannot use.
	fails := 0
	for i := 0; i < 4; i++ {
		var st StepState
		ev := StepEvent{Kind: EventStart}
		for {
			r, err := Step(StepInput{Config: c, State: st, Event: ev, NowMs: d.now})
			require.NoError(t, err)
			st = r.State
			for _, rec := range r.Records {
				if rec.Kind == RecordFallback {
					fails++
					assert.Equal(t, "store_error", rec.Reason)
				}
			}
			a := r.Action
			if a.Kind == ActionStop {
				if i == 3 {
					require.NotNil(t, a.Error)
					assert.Equal(t, envelope.CircuitOpen, a.Error.Code)
				}
				break
			}
			switch {
			case (a.Kind == ActionLoad || a.Kind == ActionCAS) && a.Store == StoreShared:
				ev = StepEvent{Kind: EventStoreError, Message: "connection refused"}
			case a.Kind == ActionLoad:
				v, ok := d.local[a.Key]
				ev = StepEvent{Kind: EventLoaded, Value: v, Absent: !ok}
			case a.Kind == ActionCAS:
				d.local[a.Key] = a.New
				ev = StepEvent{Kind: EventCAS, Swapped: true}
			case a.Kind == ActionCall:
				ev = StepEvent{Kind: EventCallFailed, Error: env503, Draw: 0}
			}
		}
	}
	assert.Equal(t, 7, fails) // 3 x (allow + failure) + 1 allow
}

func TestStep_loopGuardAcrossCalls(t *testing.T) {
	d := newDriver()
	c := StepConfig{Tool: "search", Loop: true, LoopThreshold: 2}
	for i := 0; i < 2; i++ {
		a := d.run(t, c, []*envelope.Envelope{env400})
		assert.Equal(t, envelope.InvalidArgs, a.Error.Code)
	}
	a := d.run(t, c, nil)
	require.NotNil(t, a.Error)
	assert.Equal(t, envelope.LoopDetected, a.Error.Code)
	assert.Equal(t, int64(2), d.loop["search"].Failures)
}

func TestLoopArgsKey_canonical(t *testing.T) {
	a := LoopArgsKey(map[string]any{"a": 1.0, "b": "x"})
	assert.Equal(t, a, LoopArgsKey(`{"b": "x", "a": 1}`))
	assert.NotEqual(t, a, LoopArgsKey(map[string]any{"a": 2.0, "b": "x"}))
	assert.Len(t, LoopArgsKey(nil), 16)
}

func TestStepEnums_String(t *testing.T) {
	assert.Equal(t, "unknown step phase: 9", StepPhase(9).String())
	assert.Equal(t, "unknown step event: 9", EventKind(9).String())
	assert.Equal(t, "unknown step action: 9", ActionKind(9).String())
	assert.Equal(t, "unknown record kind: 9", RecordKind(9).String())
	assert.Equal(t, "local", StoreLocal.String())
	assert.Equal(t, "info", LevelInfo.String())
}
