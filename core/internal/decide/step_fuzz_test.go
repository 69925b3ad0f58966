package decide

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/envelope"
)

// fuzzBytes hands out a fuzz input's bytes one at a time, 0 once spent.
type fuzzBytes struct {
	b []byte
	i int
}

func (f *fuzzBytes) next() byte {
	if f.i >= len(f.b) {
		return 0
	}
	c := f.b[f.i]
	f.i++
	return c
}

// pick returns one of xs, chosen by the next byte.
func pick[T any](f *fuzzBytes, xs ...T) T { return xs[int(f.next())%len(xs)] }

// fuzzCall is one call in flight: its state, the event its last action
// got, and the answer decided ahead its last step left (the driver's
// pending while it steps).
type fuzzCall struct {
	c       StepConfig
	st      StepState
	ev      StepEvent
	pending StepResult
}

// playFuzz plays the run data describes through a new driver with opts's
// options (ahead, aheadFor, apply): up to two calls of one replica in
// flight at once, stepped in the order data gives, each action answered
// as data says (the tool's outcome, a cancellation, the sleep's end), and
// between actions another replica writing the shared key, the store going
// down or coming back, and the clock jumping (backwards too). What happens
// is keyed on the actions the runtime performs, not on the steps it sends,
// so a driver that applies answers decided ahead lives the same run as one
// that sends every step exactly when those answers are right. It returns
// the driver and the stops in the order they came.
func playFuzz(t *testing.T, opts *driver, data []byte) (*driver, []StepAction) {
	t.Helper()
	f := &fuzzBytes{b: data}
	d := newDriver()
	d.ahead, d.aheadFor, d.apply, d.standing = opts.ahead, opts.aheadFor, opts.apply, opts.standing
	c := StepConfig{Tool: "search"}
	c.TimeoutMs = pick[int64](f, 0, 0, 60_000, 2_000)
	c.Policy.MaxAttempts = pick[int64](f, 0, 1, 5)
	c.Settings.FailureThreshold = pick[int64](f, 0, 1, 2)
	c.Settings.OpenMs = pick[int64](f, 0, 1_000)
	if f.next()%4 == 0 {
		c.Budget = &BudgetLimits{Steps: 6}
	}
	if f.next()%4 == 0 {
		c.Loop = true
	}
	key := c.Key()
	others := func() []byte { // what another replica may write
		open := BreakerState{Phase: Open, OpenUntilMs: d.now + 5_000}.AppendJSON(nil)
		probe := BreakerState{Phase: HalfOpen, ProbeUntilMs: d.now + 1_000}.AppendJSON(nil)
		return pick(f, nil, []byte(freshState), BreakerState{Failures: 1}.AppendJSON(nil), open,
			BreakerState{Phase: HalfOpen}.AppendJSON(nil), probe, []byte("not a breaker"), []byte{}, []byte("\xff\xfe"), BreakerState{Failures: 1, OpenUntilMs: d.now}.AppendJSON(nil))
	}
	var calls []*fuzzCall
	var stops []StepAction
	started := 0
	for range 300 {
		op := f.next()
		switch {
		case op%16 == 0:
			if b := others(); b == nil {
				delete(d.shared, key)
			} else {
				d.shared[key] = b
			}
			continue
		case op%16 == 1:
			d.now = max(d.now+pick[int64](f, -5_000, -1, 1, 1_000, 30_000, 86_400_000), 0)
			continue
		case op%16 == 2:
			d.down = !d.down
			continue
		}
		if len(calls) < 2 && started < 6 && (len(calls) == 0 || op&0x80 != 0) {
			calls = append(calls, &fuzzCall{c: c, ev: StepEvent{Kind: EventStart}})
			started++
		}
		if len(calls) == 0 {
			break
		}
		i := int(op>>4) % len(calls)
		k := calls[i]
		d.pending = k.pending
		r := d.step(t, k.c, k.st, k.ev)
		k.pending, d.pending = d.pending, StepResult{}
		k.st = r.State
		switch a := r.Action; a.Kind {
		case ActionLoad, ActionCAS:
			k.ev = d.store(a)
			if f.next()%16 == 0 {
				k.ev = StepEvent{Kind: EventCancelled, Cause: pick(f, "cancelled", "deadline")}
			}
		case ActionCall:
			switch f.next() % 8 {
			case 0, 1, 2:
				k.ev = StepEvent{Kind: EventCallOK}
			case 3:
				k.ev = StepEvent{Kind: EventCancelled, Cause: pick(f, "cancelled", "deadline")}
			default:
				k.ev = StepEvent{Kind: EventCallFailed, Error: pick(f, env503, env503, env400, envWait), Draw: float64(f.next()) / 256}
			}
		case ActionSleep:
			d.sleeps = append(d.sleeps, a.DelayMs)
			d.now += a.DelayMs
			k.ev = StepEvent{Kind: EventSlept}
			if f.next()%8 == 0 {
				k.ev = StepEvent{Kind: EventCancelled}
			}
		case ActionStop:
			stops = append(stops, a)
			calls = append(calls[:i], calls[i+1:]...)
		}
	}
	return d, stops
}

// envWait is a retryable failure with a wait hint.
var envWait = &envelope.Envelope{Code: envelope.RateLimited, Message: "429", Retryable: true, Details: map[string]any{"retry_after_ms": 1500}, Source: envelope.SourceTool}

// FuzzStep_decidedAhead: whatever the run (interleaved calls of one
// replica, another replica writing the shared key between actions, the
// store failing, the clock jumping either way, cancellations), a runtime
// that asks for every answer decided ahead and applies each one that holds
// makes the decisions, sleeps, stops, stored bytes and replica states of
// one that sends every step, and each answer decided ahead is its step's
// answer sent later or earlier (aheadHolds, on every step).
func FuzzStep_decidedAhead(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0x13, 4, 0x23, 5, 0x13, 5, 5, 5, 5, 5})
	f.Add([]byte{1, 1, 1, 1, 1, 0x83, 0x93, 0x13, 4, 0x03, 0x13, 4, 0x10, 3, 0x03, 0x33, 0x03, 0x03})
	f.Add([]byte{2, 0, 2, 0, 3, 0x80, 0x90, 0x03, 0x13, 0x10, 5, 0x23, 6, 2, 0x03, 0x33, 0x23, 0x13, 0x03})
	f.Add([]byte{0, 0, 0, 1, 1, 0x83, 0x83, 0x93, 7, 0x10, 6, 0x03, 0x13, 0x01, 4, 0x13, 0x03, 0x13, 0x03})
	addRandomRuns(f, 1, 2)
	f.Fuzz(func(t *testing.T, data []byte) { sameRunFuzzed(t, data, false) })
}

// addRandomRuns seeds f with 16 runs of 400 bytes from a PCG seeded with
// a and b.
func addRandomRuns(f *testing.F, a, b uint64) {
	rng := rand.New(rand.NewPCG(a, b))
	for range 16 {
		data := make([]byte, 400)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		f.Add(data)
	}
}

// sameRunFuzzed plays data with every step sent and then, for on_success
// alone and for all three answers decided ahead, with each one that holds
// applied (and, with standing, each start that stood kept and applied),
// and requires the same run, the same store calls and the steps saved.
func sameRunFuzzed(t *testing.T, data []byte, standing bool) {
	base, baseStops := playFuzz(t, &driver{ahead: true}, data)
	for _, kinds := range []AheadKinds{AheadSuccess, AheadSuccess | AheadSwapped | AheadSlept} {
		got, gotStops := playFuzz(t, &driver{ahead: true, aheadFor: kinds, apply: true, standing: standing}, data)
		sameRun(t, base, got, baseStops, gotStops)
		require.Equal(t, base.storeCalls, got.storeCalls, "the same store calls")
		require.Equal(t, base.steps, got.steps+got.applied+got.stood)
	}
}

// FuzzStep_standing: whatever the run (FuzzStep_decidedAhead's), a runtime
// that asks every start whether its answer stands, keeps the last one that
// stood and applies it to the next start it holds for (besides every
// answer decided ahead that holds) makes the decisions, sleeps, stops,
// stored bytes and replica states of one that sends every step, with the
// same store calls; and each answer that stood is the same start's answer
// sent up to a day earlier or later (standsHolds, on every step).
func FuzzStep_standing(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 3, 3, 0x13, 3, 3, 0x13, 3, 3, 3})
	f.Add([]byte{0, 0, 0, 0, 0, 3, 3, 0x10, 1, 3, 3, 0x12, 3, 3, 0x12, 3, 3, 3})
	addRandomRuns(f, 3, 4)
	f.Fuzz(func(t *testing.T, data []byte) { sameRunFuzzed(t, data, true) })
}
