package decide

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
)

// driver is a minimal runtime for tests: one map as the shared store (which
// fails every call while down is set), the replica's state per key, a clock
// moved by sleeps, scripted outcomes.
type driver struct {
	shared      map[string][]byte
	down        bool
	storeCalls  int
	downUntilMs int64
	seen        map[string][]byte
	now         int64
	sleeps      []int64
	records     []Record
	budget      BudgetState
	loop        LoopState
	// ahead: load the key before each event that may carry the answer
	// (Loaded), while the replica's window is 0, as the runtimes do.
	ahead bool
	// aheadFor: the answers every step asks to decide ahead (0: on_success
	// alone); apply: use an answer decided ahead instead of its step when
	// it holds, as the runtimes do.
	aheadFor AheadKinds
	apply    bool
	steps    int
	applied  int        // answers decided ahead applied instead of a step
	pending  StepResult // the last answer, whose Ahead the next event may use
	// standing: ask every start step whether its answer stands, keep the
	// last one that stood (per key, with the config it stood for) and
	// apply it to a start it holds for, as the runtimes do.
	standing bool
	kept     map[string]keptStart
	stood    int // standing answers applied instead of a start step
}

// keptStart is a start's answer that stood, and the config it stood for.
type keptStart struct {
	c StepConfig
	r StepResult
}

func newDriver() *driver {
	return &driver{shared: map[string][]byte{}, seen: map[string][]byte{}, now: 1_000_000}
}

func (d *driver) replica(key string) ReplicaState {
	return ReplicaState{DownUntilMs: d.downUntilMs, State: d.seen[key]}
}

// step runs one step with the driver's run and replica states.
func (d *driver) step(t *testing.T, c StepConfig, st StepState, ev StepEvent) StepResult {
	t.Helper()
	if d.ahead && d.downUntilMs == 0 && ev.Kind != EventLoaded && ev.Kind != EventCAS && ev.Kind != EventStoreError {
		l := d.store(StepAction{Kind: ActionLoad, Key: c.Key()})
		ev.Loaded = &l
	}
	if r, ok := d.decided(c, ev); ok {
		d.keep(c, r)
		return r
	}
	if r, ok := d.standingFor(c, ev); ok {
		d.keep(c, r)
		d.pending = r
		return r
	}
	d.steps++
	in := StepInput{Config: c, State: st, Budget: d.budget, Loop: d.loop, Replica: d.replica(c.Key()), Event: ev, NowMs: d.now, Ahead: &StepAhead{}, AheadFor: d.aheadFor, Standing: d.standing}
	r, err := Step(in)
	require.NoError(t, err)
	sameAsValue(t, r)
	if r.Stands.Holds {
		standsHolds(t, in, r)
		if d.kept == nil {
			d.kept = map[string]keptStart{}
		}
		d.kept[c.Key()] = keptStart{c: c, r: r}
	} else if d.standing && ev.Kind == EventStart && r.Action.Kind == ActionCall && r.Replica == nil && !c.Loop && c.Budget == nil &&
		c.TimeoutMs == 0 && ev.DeadlineMs == 0 && ev.Loaded != nil && ev.Loaded.Kind == EventLoaded && in.Replica.DownUntilMs == 0 &&
		(in.Replica.State == nil || string(in.Replica.State) == freshState) {
		t.Fatalf("a fresh breaker's start with no deadline, budget or loop guard, loaded ahead, does not stand: %+v", r)
	}
	if a := r.Ahead; a != nil {
		aheadHolds(t, c, d.aheadFor, r, d.budget, d.loop, d.now)
	} else if r.Action.Kind == ActionCall && !c.Loop {
		rep := d.replica(c.Key())
		if r.Replica != nil {
			rep = *r.Replica
		}
		require.False(t, rep.DownUntilMs == 0 && (rep.State == nil || string(rep.State) == freshState), "a fresh breaker's call comes with its success decided ahead")
	}
	d.keep(c, r)
	d.pending = r
	return r
}

// decided returns the answer the last step decided ahead for ev, when the
// driver applies them and it holds (docs/resilience.md): the replica is
// still {0, if_loaded} and ev is the event it answers (a success or slept
// whose load made ahead answered if_loaded, a cas that swapped).
func (d *driver) decided(c StepConfig, ev StepEvent) (StepResult, bool) {
	last := d.pending
	d.pending = StepResult{}
	a := last.Ahead
	if !d.apply || a == nil {
		return StepResult{}, false
	}
	rep := d.replica(c.Key())
	if rep.DownUntilMs != 0 || (rep.State == nil) != (a.Loaded == nil) || string(rep.State) != string(a.Loaded) {
		return StepResult{}, false
	}
	switch last.Action.Kind {
	case ActionCall, ActionSleep:
		want := EventCallOK
		if last.Action.Kind == ActionSleep {
			want = EventSlept
		}
		l := ev.Loaded
		if ev.Kind != want || l == nil || l.Kind != EventLoaded || l.Absent != (a.Loaded == nil) || string(l.Value) != string(a.Loaded) {
			return StepResult{}, false
		}
	case ActionCAS:
		if ev.Kind != EventCAS || !ev.Swapped {
			return StepResult{}, false
		}
	}
	d.applied++
	d.pending = a.Result
	return a.Result, true
}

// standingFor returns the start answer the driver kept for c's key, when it
// applies them and it holds for ev (docs/resilience.md, "The step op"):
// the same config, a start with no deadline whose load made ahead answered
// exactly the bytes it stood for, and the replica at {0, those bytes}.
func (d *driver) standingFor(c StepConfig, ev StepEvent) (StepResult, bool) {
	k, ok := d.kept[c.Key()]
	if !d.standing || !d.apply || !ok || k.c != c || ev.Kind != EventStart || ev.DeadlineMs != 0 || ev.ArgsKey != "" {
		return StepResult{}, false
	}
	want, l, rep := k.r.Stands.Loaded, ev.Loaded, d.replica(c.Key())
	if l == nil || l.Kind != EventLoaded || l.Absent != (want == nil) || string(l.Value) != string(want) ||
		rep.DownUntilMs != 0 || (rep.State == nil) != (want == nil) || string(rep.State) != string(want) {
		return StepResult{}, false
	}
	d.stood++
	return k.r, true
}

// keep takes r's records and the run's and replica's states it changed.
func (d *driver) keep(c StepConfig, r StepResult) {
	d.records = append(d.records, r.Records...)
	if r.Budget != nil {
		d.budget = *r.Budget
	}
	if r.Loop != nil {
		d.loop = r.Loop
	}
	if r.Replica != nil {
		d.downUntilMs, d.seen[c.Key()] = r.Replica.DownUntilMs, r.Replica.State
	}
}

// store answers a load or cas action.
func (d *driver) store(a StepAction) StepEvent {
	d.storeCalls++
	if d.down {
		return StepEvent{Kind: EventStoreError, Message: "connection refused"}
	}
	v, ok := d.shared[a.Key]
	if a.Kind == ActionLoad {
		return StepEvent{Kind: EventLoaded, Value: v, Absent: !ok}
	}
	if ok == !a.OldAbsent && string(v) == string(a.Old) {
		d.shared[a.Key] = a.New
		return StepEvent{Kind: EventCAS, Swapped: true}
	}
	return StepEvent{Kind: EventCAS, Value: v, Absent: !ok}
}

// run drives one call; outcomes[i] answers call i (nil = success).
func (d *driver) run(t *testing.T, c StepConfig, outcomes []*envelope.Envelope) StepAction {
	t.Helper()
	var st StepState
	ev := StepEvent{Kind: EventStart}
	calls := 0
	for i := 0; i < 100; i++ {
		r := d.step(t, c, st, ev)
		st = r.State
		a := r.Action
		switch a.Kind {
		case ActionLoad, ActionCAS:
			ev = d.store(a)
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

// TestStep_fallbackThenLocal: with the store failing, the replica's own
// state opens the breaker; the store is tried once per back-off window.
func TestStep_fallbackThenLocal(t *testing.T) {
	c := StepConfig{Tool: "search", Policy: RetryPolicy{MaxAttempts: 1}}
	d := newDriver()
	d.down = true
	for i := 0; i < 3; i++ {
		d.run(t, c, []*envelope.Envelope{env503})
		d.now += 10
	}
	a := d.run(t, c, nil)
	require.NotNil(t, a.Error)
	assert.Equal(t, envelope.CircuitOpen, a.Error.Code)
	assert.Equal(t, 1, d.storeCalls, "the store is left alone within the back-off window")
	var reasons []string
	for _, r := range d.records {
		if r.Kind == RecordFallback {
			reasons = append(reasons, r.Reason)
		}
	}
	assert.Equal(t, []string{"store_error", "backoff", "backoff", "backoff", "backoff", "backoff", "backoff"}, reasons)
	assert.Equal(t, int64(1_000_000+DefaultStoreBackoffMs), d.downUntilMs)
	// After the window the store is tried again; an answer ends the window.
	d.down = false
	d.now = d.downUntilMs
	a = d.run(t, c, []*envelope.Envelope{nil})
	assert.Nil(t, a.Error, "the shared breaker, never opened, decides again")
	assert.Equal(t, int64(0), d.downUntilMs)
	assert.Equal(t, 3, d.storeCalls) // one load for the allow, one for the success
}

// TestStep_fallbackStartsFromLastSeen: a replica that saw the breaker open
// keeps refusing when the store fails, instead of starting from a closed one.
func TestStep_fallbackStartsFromLastSeen(t *testing.T) {
	c := StepConfig{Tool: "search"}
	d := newDriver()
	open := BreakerState{Phase: Open, OpenUntilMs: d.now + 20_000}.AppendJSON(nil)
	d.shared[c.Key()] = open
	a := d.run(t, c, nil)
	require.NotNil(t, a.Error)
	assert.Equal(t, string(open), string(d.seen[c.Key()]))
	d.down = true
	calls := 0
	for i := 0; i < 5; i++ {
		a = d.run(t, c, []*envelope.Envelope{nil})
		require.NotNil(t, a.Error)
		assert.Equal(t, envelope.CircuitOpen, a.Error.Code)
		calls += int(a.Attempts)
	}
	assert.Equal(t, 0, calls)
}

// TestStep_oneProbePerReplicaInFallback: in the back-off window, two calls of
// one replica ask a breaker whose hold ended; only one is a probe.
func TestStep_oneProbePerReplicaInFallback(t *testing.T) {
	c := StepConfig{Tool: "search"}
	d := newDriver()
	d.seen[c.Key()] = BreakerState{Phase: Open, OpenUntilMs: d.now - 1}.AppendJSON(nil)
	d.downUntilMs = d.now + 500
	a := d.step(t, c, StepState{}, StepEvent{Kind: EventStart})
	b := d.step(t, c, StepState{}, StepEvent{Kind: EventStart})
	assert.Equal(t, ActionCall, a.Action.Kind)
	assert.Equal(t, ActionStop, b.Action.Kind)
	assert.Equal(t, envelope.CircuitOpen, b.Action.Error.Code)
	assert.Equal(t, 0, d.storeCalls)
	assert.Equal(t, HalfOpen, d.records[1].Phase)
	assert.True(t, d.records[1].Allowed)
}

// TestStep_repairsUnreadableState: bytes that are not a breaker state are
// replaced by a fresh state (the event applied), logged as a repair.
func TestStep_repairsUnreadableState(t *testing.T) {
	c := StepConfig{Tool: "search"}
	d := newDriver()
	d.shared[c.Key()] = []byte("{not json")
	a := d.run(t, c, []*envelope.Envelope{nil})
	assert.Nil(t, a.Error)
	assert.Equal(t, `{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}`, string(d.shared[c.Key()]))
	require.Equal(t, RecordRepair, d.records[0].Kind)
	assert.Equal(t, LevelWarn, d.records[0].Level)
	assert.Contains(t, d.records[0].Value()["error"], "unreadable")
}

// TestStep_boundsSharedTimes: a hold written by a replica whose clock runs an
// hour fast lasts at most open_ms on this one, and is written back bounded.
func TestStep_boundsSharedTimes(t *testing.T) {
	c := StepConfig{Tool: "search"}
	d := newDriver()
	d.shared[c.Key()] = BreakerState{Phase: Open, OpenUntilMs: d.now + 3_600_000 + 30_000}.AppendJSON(nil)
	a := d.run(t, c, nil)
	require.NotNil(t, a.Error)
	assert.Equal(t, int64(30), a.Error.Details["retry_after_seconds"])
	assert.Equal(t, BreakerState{Phase: Open, OpenUntilMs: d.now + 30_000}.AppendJSON(nil), d.shared[c.Key()])
	d.now += 30_000
	a = d.run(t, c, []*envelope.Envelope{nil})
	assert.Nil(t, a.Error, "half-open after open_ms, not after an hour")
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
	assert.Equal(t, "repair", RecordRepair.String())
	assert.Equal(t, "info", LevelInfo.String())
}

// sameAsValue checks that r's AppendJSON writes the bytes of its Value tree
// through the canonical encoder (TestStepResultAppendJSON_sameAsValue: every
// step of every test here goes through it).
func sameAsValue(t *testing.T, r StepResult) {
	t.Helper()
	want, err := canonical.Marshal(r.Value())
	require.NoError(t, err)
	got, err := r.AppendJSON(nil)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// aheadCall is one call of a scenario: its config, the tool's outcomes
// (nil: success), whether the store is down, how far the clock moves first.
type aheadCall struct {
	c        StepConfig
	outcomes []*envelope.Envelope
	down     bool
	advance  int64
}

// aheadScenarios are runs of calls that the tests of loads made ahead and
// answers decided ahead play both ways: the seed's 503, 503, 400; a
// breaker opening, refusing and probing; the store failing and coming
// back; a budget refusing; the loop guard; a retried call with and
// without a deadline.
func aheadScenarios() map[string][]aheadCall {
	type call = aheadCall
	one := StepConfig{Tool: "search", Policy: RetryPolicy{MaxAttempts: 1}}
	budget := StepConfig{Tool: "search", Budget: &BudgetLimits{Steps: 3}}
	loop := StepConfig{Tool: "search", Loop: true, Policy: RetryPolicy{MaxAttempts: 1}}
	return map[string][]call{
		"seed":     {{c: StepConfig{Tool: "search"}, outcomes: []*envelope.Envelope{env503, env503, env400}}, {c: StepConfig{Tool: "search"}, outcomes: []*envelope.Envelope{nil}}},
		"breaker":  {{c: one, outcomes: []*envelope.Envelope{env503}}, {c: one, outcomes: []*envelope.Envelope{env503}}, {c: one, outcomes: []*envelope.Envelope{env503}}, {c: one}, {c: one, outcomes: []*envelope.Envelope{nil}, advance: 30_000}, {c: one, outcomes: []*envelope.Envelope{nil}}, {c: one, outcomes: []*envelope.Envelope{nil}}},
		"outage":   {{c: one, outcomes: []*envelope.Envelope{nil}}, {c: one, outcomes: []*envelope.Envelope{env503}, down: true}, {c: one, outcomes: []*envelope.Envelope{nil}, down: true, advance: 10}, {c: one, outcomes: []*envelope.Envelope{nil}, advance: 2_000}, {c: one, outcomes: []*envelope.Envelope{nil}}},
		"budget":   {{c: budget, outcomes: []*envelope.Envelope{env503, env503, env503}}, {c: budget, outcomes: []*envelope.Envelope{nil}}},
		"loop":     {{c: loop, outcomes: []*envelope.Envelope{env400}}, {c: loop, outcomes: []*envelope.Envelope{env400}}, {c: loop, outcomes: []*envelope.Envelope{env400}}, {c: loop}},
		"success":  {{c: one, outcomes: []*envelope.Envelope{nil}}, {c: one, outcomes: []*envelope.Envelope{nil}}},
		"cancel":   {{c: StepConfig{Tool: "search"}, outcomes: []*envelope.Envelope{env503, nil}}},
		"retried":  {{c: StepConfig{Tool: "search"}, outcomes: []*envelope.Envelope{env503, nil}}, {c: StepConfig{Tool: "search"}, outcomes: []*envelope.Envelope{nil}}, {c: StepConfig{Tool: "search"}, outcomes: []*envelope.Envelope{env503, env503, nil}}},
		"deadline": {{c: StepConfig{Tool: "search", TimeoutMs: 60_000}, outcomes: []*envelope.Envelope{env503, nil}}, {c: StepConfig{Tool: "search", TimeoutMs: 60_000}, outcomes: []*envelope.Envelope{nil}}},
		"opening":  {{c: StepConfig{Tool: "search"}, outcomes: []*envelope.Envelope{env503, env503, env503}}, {c: StepConfig{Tool: "search"}}, {c: StepConfig{Tool: "search"}, outcomes: []*envelope.Envelope{nil}, advance: 30_000}},
	}
}

// playCalls runs calls through a new driver with d's options (ahead,
// aheadFor, apply) and returns it with each call's stop.
func playCalls(t *testing.T, opts *driver, calls []aheadCall) (*driver, []StepAction) {
	t.Helper()
	d := newDriver()
	d.ahead, d.aheadFor, d.apply, d.standing = opts.ahead, opts.aheadFor, opts.apply, opts.standing
	var stops []StepAction
	for _, c := range calls {
		d.down = c.down
		d.now += c.advance
		stops = append(stops, d.run(t, c.c, c.outcomes))
	}
	return d, stops
}

// sameRun asserts that two drivers played the same calls to the same
// stops, records, sleeps, stored bytes and replica states.
func sameRun(t *testing.T, want, got *driver, wantStops, gotStops []StepAction) {
	t.Helper()
	assert.Equal(t, wantStops, gotStops)
	assert.Equal(t, want.records, got.records)
	assert.Equal(t, want.sleeps, got.sleeps)
	assert.Equal(t, want.shared, got.shared)
	assert.Equal(t, want.seen, got.seen)
	assert.Equal(t, want.downUntilMs, got.downUntilMs)
}

// TestStep_loadedAhead_sameDecisions: calls whose events carry a load made
// ahead (Loaded) take the decisions, sleeps, stops and stored bytes of the
// same calls stepped one load at a time, in fewer steps: a closed
// breaker's successful call is two steps instead of four (aheadScenarios).
func TestStep_loadedAhead_sameDecisions(t *testing.T) {
	scenarios := aheadScenarios()
	for name, calls := range scenarios {
		if name == "retried" || name == "deadline" || name == "opening" {
			continue // TestStep_decidedAhead_sameDecisions
		}
		t.Run(name, func(t *testing.T) {
			one, oneStops := playCalls(t, &driver{}, calls)
			ahead, aheadStops := playCalls(t, &driver{ahead: true}, calls)
			sameRun(t, one, ahead, oneStops, aheadStops)
			assert.Less(t, ahead.steps, one.steps)
			t.Logf("%d steps one load at a time, %d with loads made ahead", one.steps, ahead.steps)
		})
	}
	d := newDriver()
	d.ahead = true
	d.run(t, StepConfig{Tool: "search"}, []*envelope.Envelope{nil}) // absent key: nothing written
	d.steps = 0
	d.shared["toolerr:breaker:search"] = BreakerState{}.AppendJSON(nil)
	d.seen["toolerr:breaker:search"] = d.shared["toolerr:breaker:search"]
	d.run(t, StepConfig{Tool: "search"}, []*envelope.Envelope{nil})
	assert.Equal(t, 2, d.steps, "a closed breaker's successful call takes two steps")
}

// TestStep_decidedAhead_sameDecisions: calls whose steps ask for every
// answer decided ahead (on_success, on_swapped, on_slept) and apply each
// one that holds instead of its step take the decisions, sleeps, stops and
// stored bytes of the same calls stepped with loads made ahead alone, in
// fewer steps; aheadHolds checks every answer decided ahead against its
// step sent up to a day later. A retried call (a 503, then a success) is
// two steps instead of six; with a deadline, a budget or the loop guard
// the answers that would read them are not decided ahead.
func TestStep_decidedAhead_sameDecisions(t *testing.T) {
	const all = AheadSuccess | AheadSwapped | AheadSlept
	for name, calls := range aheadScenarios() {
		t.Run(name, func(t *testing.T) {
			base, baseStops := playCalls(t, &driver{ahead: true}, calls)
			for _, kinds := range []AheadKinds{AheadSuccess, all} {
				got, gotStops := playCalls(t, &driver{ahead: true, aheadFor: kinds, apply: true}, calls)
				sameRun(t, base, got, baseStops, gotStops)
				assert.Equal(t, base.steps, got.steps+got.applied)
				t.Logf("ahead %03b: %d steps, %d answers decided ahead applied (%d steps without)", kinds, got.steps, got.applied, base.steps)
				if kinds == all && name != "loop" && name != "budget" {
					assert.Less(t, got.steps, base.steps)
				}
			}
		})
	}
	retried := func(c StepConfig, kinds AheadKinds) int {
		d := newDriver()
		d.ahead, d.aheadFor, d.apply = true, kinds, true
		d.run(t, c, []*envelope.Envelope{nil}) // the key written fresh
		d.run(t, c, []*envelope.Envelope{env503, nil})
		d.steps = 0
		stop := d.run(t, c, []*envelope.Envelope{env503, nil})
		require.Equal(t, StepAction{Kind: ActionStop, Attempts: 2}, stop)
		return d.steps
	}
	c := StepConfig{Tool: "search"}
	assert.Equal(t, 6, retried(c, 0), "a retried call, loads made ahead")
	assert.Equal(t, 6, retried(c, AheadSuccess), "on_success alone: the first success failed, the second writes")
	assert.Equal(t, 2, retried(c, all), "every answer decided ahead: the start and the failure")
	c.TimeoutMs = 60_000
	assert.Equal(t, 5, retried(c, all), "a deadline: the retry, the next attempt and its call read the clock")
}

// TestFreshState_isZeroState holds SwapRound's shortcut to the bytes a fresh
// breaker is written as, and read back from.
func TestFreshState_isZeroState(t *testing.T) {
	require.Equal(t, freshState, string(BreakerState{}.AppendJSON(nil)))
	st, ok := parseCanonicalState([]byte(freshState))
	require.True(t, ok)
	require.Equal(t, BreakerState{}, st)
}

var aheads int // answers decided ahead that aheadHolds checked

// aheadHolds checks that the answer r decided ahead (and each one that
// answer decided in turn) is the answer of the step it stands for, sent
// later (the clock moved on) with the replica at {0, if_loaded}: for a
// call, its success with the load made ahead answering if_loaded; for a
// cas, swapped; for a sleep, slept with that load.
func aheadHolds(t *testing.T, c StepConfig, kinds AheadKinds, r StepResult, budget BudgetState, loop LoopState, now int64) {
	t.Helper()
	a := r.Ahead
	if a == nil {
		return
	}
	if r.Budget != nil {
		budget = *r.Budget
	}
	rep := ReplicaState{State: a.Loaded}
	loaded := StepEvent{Kind: EventLoaded, Value: a.Loaded, Absent: a.Loaded == nil}
	ev := map[ActionKind]StepEvent{
		ActionCall:  {Kind: EventCallOK, Loaded: &loaded},
		ActionSleep: {Kind: EventSlept, Loaded: &loaded},
		ActionCAS:   {Kind: EventCAS, Swapped: true},
	}[r.Action.Kind]
	require.NotZero(t, ev.Kind, "an answer decided ahead comes with a call, a cas or a sleep, not %s", r.Action.Kind)
	if r.Action.Kind == ActionCAS {
		require.Equal(t, r.Action.Old, a.Loaded, "a swapped cas holds for the replica at the bytes it swaps from")
	}
	aheads++
	want0 := a.Result.appendTest(t)
	// Past any deadline, open or probe time, and a clock set back.
	for _, later := range []int64{0, 1, 30_000, 86_400_000, -1, -86_400_000} {
		in := StepInput{Config: c, State: r.State, Budget: budget, Loop: loop, Replica: rep, Event: ev, NowMs: max(now+later, 0), Ahead: &StepAhead{}, AheadFor: kinds}
		want, err := Step(in)
		require.NoError(t, err)
		require.Equal(t, string(want.appendTest(t)), string(want0), "the answer decided ahead is its step's answer, %d ms later", later)
		require.Equal(t, want.State, a.Result.State)
		require.Equal(t, want.Action, a.Result.Action)
		require.Equal(t, want.Records, a.Result.Records)
		require.Equal(t, want.Replica, a.Result.Replica)
	}
	aheadHolds(t, c, kinds, a.Result, budget, loop, now)
}

var standings int // standing answers that standsHolds checked

// standsHolds checks that r, in's answer, which stands, is the answer of
// the same start sent at other times (earlier, later, up to a day either
// way), byte for byte with its answers decided ahead, and that it holds
// for the bytes in's replica and load made ahead are.
func standsHolds(t *testing.T, in StepInput, r StepResult) {
	t.Helper()
	require.Equal(t, EventStart, in.Event.Kind)
	require.Equal(t, in.Replica.State, r.Stands.Loaded, "a standing answer holds for the replica's state")
	require.Nil(t, r.Replica, "a standing answer changes no replica")
	standings++
	want0 := r.appendTest(t)
	for _, shift := range []int64{1, -1, 30_000, 86_400_000, -86_400_000, 1 << 40} {
		at := in
		at.NowMs = min(max(in.NowMs+shift, 0), MaxNowMs)
		at.Ahead = &StepAhead{}
		at.Records = nil
		got, err := Step(at)
		require.NoError(t, err)
		require.Equal(t, string(want0), string(got.appendTest(t)), "a standing answer is the same start's answer %d ms later", shift)
		require.Equal(t, r.Stands, got.Stands)
	}
}

// appendTest is r's canonical JSON, which must be written.
func (r StepResult) appendTest(t *testing.T) []byte {
	t.Helper()
	b, err := r.AppendJSON(nil)
	require.NoError(t, err)
	return b
}

// TestStep_standing_sameDecisions: calls whose start steps ask whether
// their answer stands, with a runtime that keeps the last one that stood
// and applies it to the next start it holds for (the same config, the load
// made ahead and the replica at the bytes it stood for, no deadline), take
// the decisions, sleeps, stops and stored bytes of the same calls with
// every start sent; standsHolds checks every answer that stood against the
// same start sent up to a day earlier and later. A fresh breaker's
// successful call is then no step at all once an answer stands; a budget,
// the loop guard or a timeout keep every start a step.
func TestStep_standing_sameDecisions(t *testing.T) {
	const all = AheadSuccess | AheadSwapped | AheadSlept
	before := standings
	for name, calls := range aheadScenarios() {
		t.Run(name, func(t *testing.T) {
			base, baseStops := playCalls(t, &driver{ahead: true}, calls)
			for _, kinds := range []AheadKinds{AheadSuccess, all} {
				got, gotStops := playCalls(t, &driver{ahead: true, aheadFor: kinds, apply: true, standing: true}, calls)
				sameRun(t, base, got, baseStops, gotStops)
				assert.Equal(t, base.steps, got.steps+got.applied+got.stood)
				t.Logf("ahead %03b: %d steps, %d answers decided ahead and %d standing applied (%d steps without)", kinds, got.steps, got.applied, got.stood, base.steps)
				switch name {
				case "budget", "loop", "deadline":
					assert.Zero(t, got.stood, "no start stands with a budget, the loop guard or a timeout")
				case "success", "retried":
					assert.Positive(t, got.stood)
				}
			}
		})
	}
	assert.Greater(t, standings, before, "standing answers were checked")

	successes := func(c StepConfig, kinds AheadKinds, standing bool) (steps, stood int) {
		d := newDriver()
		d.ahead, d.aheadFor, d.apply, d.standing = true, kinds, true, standing
		d.run(t, c, []*envelope.Envelope{nil}) // the key written fresh, or left absent
		d.steps, d.applied = 0, 0
		for range 3 {
			require.Equal(t, StepAction{Kind: ActionStop, Attempts: 1}, d.run(t, c, []*envelope.Envelope{nil}))
		}
		return d.steps, d.stood
	}
	c := StepConfig{Tool: "search"}
	for _, kinds := range []AheadKinds{AheadSuccess, all} {
		steps, _ := successes(c, kinds, false)
		assert.Equal(t, 3, steps, "three successful calls, the start of each a step")
		steps, stood := successes(c, kinds, true)
		assert.Equal(t, 0, steps, "three successful calls once the first start stood: no step")
		assert.Equal(t, 3, stood)
	}
	c.TimeoutMs = 60_000
	steps, stood := successes(c, all, true)
	assert.Equal(t, 3, steps, "with a timeout every start is a step")
	assert.Zero(t, stood)
}

// TestStep_standing_whereNot: a start asked with Standing stands only where
// its answer is the same at any time; each case here is the fresh breaker's
// start loaded ahead, which stands, with one thing changed, which does not;
// a step not asked with Standing never says it.
func TestStep_standing_whereNot(t *testing.T) {
	fresh := []byte(freshState)
	start := func() StepInput {
		return StepInput{Config: StepConfig{Tool: "search"}, Replica: ReplicaState{State: fresh}, NowMs: 1_000_000, Standing: true,
			Event: StepEvent{Kind: EventStart, Loaded: &StepEvent{Kind: EventLoaded, Value: fresh}}}
	}
	r, err := Step(start())
	require.NoError(t, err)
	require.Equal(t, Standing{Holds: true, Loaded: fresh}, r.Stands)
	absent := start()
	absent.Replica.State, absent.Event.Loaded = nil, &StepEvent{Kind: EventLoaded, Absent: true}
	r, err = Step(absent)
	require.NoError(t, err)
	require.Equal(t, Standing{Holds: true}, r.Stands, "an absent key stands, for null")
	counted := BreakerState{Failures: 1}.AppendJSON(nil)
	open := BreakerState{Phase: Open, OpenUntilMs: 1_030_000}.AppendJSON(nil)
	half := BreakerState{Phase: HalfOpen}.AppendJSON(nil)
	cases := map[string]func(*StepInput){
		"not asked":           func(in *StepInput) { in.Standing = false },
		"budget":              func(in *StepInput) { in.Config.Budget = &BudgetLimits{Steps: 10} },
		"loop guard":          func(in *StepInput) { in.Config.Loop = true },
		"timeout":             func(in *StepInput) { in.Config.TimeoutMs = 5_000 },
		"deadline":            func(in *StepInput) { in.Event.DeadlineMs = 2_000_000 },
		"typed arguments":     func(in *StepInput) { in.Event.ArgsKey = LoopArgsKey(map[string]any{"q": "x"}) },
		"no load made ahead":  func(in *StepInput) { in.Event.Loaded = nil },
		"store error":         func(in *StepInput) { in.Event.Loaded = &StepEvent{Kind: EventStoreError, Message: "down"} },
		"back-off":            func(in *StepInput) { in.Replica.DownUntilMs = 1_000_500 },
		"back-off over":       func(in *StepInput) { in.Replica.DownUntilMs = 999_000 },
		"replica moved":       func(in *StepInput) { in.Replica.State = nil },
		"counted failure":     func(in *StepInput) { in.Replica.State, in.Event.Loaded.Value = counted, counted },
		"open":                func(in *StepInput) { in.Replica.State, in.Event.Loaded.Value = open, open },
		"half-open":           func(in *StepInput) { in.Replica.State, in.Event.Loaded.Value = half, half },
		"unreadable (repair)": func(in *StepInput) { in.Replica.State, in.Event.Loaded.Value = []byte("x"), []byte("x") },
	}
	for name, change := range cases {
		in := start()
		change(&in)
		r, err := Step(in)
		require.NoError(t, err, name)
		assert.Equal(t, Standing{}, r.Stands, name)
		if name == "not asked" {
			want, err := Step(start())
			require.NoError(t, err)
			want.Stands = Standing{}
			assert.Equal(t, string(want.appendTest(t)), string(r.appendTest(t)), "without Standing the answer is as before")
		}
	}
}
