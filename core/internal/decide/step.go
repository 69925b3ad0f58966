package decide

import (
	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// This file is the executor of one tool call as a pure state machine: the
// runtimes of every language (Go resilience.Executor, Python, Node, Rust)
// are a loop of I/O around Step. Each Step takes what the runtime just did
// (an event) and returns what it must do next (an action), the next state
// and the decisions to log. The order, for each attempt:
//
//	deadline → budget → loop guard (first attempt) → breaker allow →
//	call → breaker report → retry → sleep → next attempt
//
// Breaker events go through a byte store with compare-and-swap (SwapRound):
// first the shared store; when it fails, the runtime's local store
// (fallback). See docs/resilience.md ("The step op").

// StepPhase is what a call's state is waiting for.
type StepPhase int

// The phases of a call, in the order a call goes through them.
const (
	PhaseNew     StepPhase = iota // no step taken yet: the event must be start
	PhaseBreaker                  // waiting for the store's answer to a breaker event (loaded, cas, store_error)
	PhaseCall                     // waiting for the tool call's outcome (success, failure, cancelled)
	PhaseSleep                    // waiting for the backoff sleep to end (slept, cancelled)
	PhaseDone                     // the call has stopped; no event is accepted
)

var phaseNames = [...]string{"new", "breaker", "call", "sleep", "done"}

// String returns "new", "breaker", "call", "sleep", "done", or "unknown
// step phase: N".
func (p StepPhase) String() string { return enumName(phaseNames[:], int(p), "step phase") }

// enumName returns names[i], or "unknown <what>: i".
func enumName(names []string, i int, what string) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return "unknown " + what + ": " + itoa(int64(i))
}

// enumIndex returns the index of s in names, or -1.
func enumIndex(names []string, s string) int {
	for i, n := range names {
		if n == s {
			return i
		}
	}
	return -1
}

// StoreName names one of a runtime's two breaker stores.
type StoreName int

// The stores: the shared one (the configured store: Redis, or the runtime's
// own memory when none is configured) and the runtime's local in-memory
// store, used when the shared one fails.
const (
	StoreShared StoreName = iota
	StoreLocal
)

// String returns "shared" or "local".
func (s StoreName) String() string {
	if s == StoreLocal {
		return "local"
	}
	return "shared"
}

// EventKind is what the runtime reports to Step.
type EventKind int

// The events. Which ones a state accepts depends on its phase.
const (
	EventStart      EventKind = iota // begin a call (state new)
	EventLoaded                      // the store's answer to load: Value, or Absent
	EventCAS                         // the store's answer to cas: Swapped, else the Value now stored (or Absent)
	EventStoreError                  // the store failed (Message says how)
	EventCallOK                      // the tool call succeeded ("success")
	EventCallFailed                  // the tool call failed with Error; Draw is a uniform draw in [0, 1) ("failure")
	EventSlept                       // the backoff sleep ended
	EventCancelled                   // the caller cancelled (Cause "cancelled") or its deadline passed ("deadline")
)

var eventNames = [...]string{"start", "loaded", "cas", "store_error", "success", "failure", "slept", "cancelled"}

// String returns the event's name in the step op ("start", "loaded", "cas",
// "store_error", "success", "failure", "slept", "cancelled").
func (k EventKind) String() string { return enumName(eventNames[:], int(k), "step event") }

// StepEvent is one report from the runtime. Only the members of its Kind
// matter.
type StepEvent struct {
	Kind EventKind
	// Start: ArgsKey is LoopArgsKey of the call's arguments (the loop guard
	// compares it); DeadlineMs is the caller's own deadline, ms since the Unix
	// epoch (0 = none).
	ArgsKey    string
	DeadlineMs int64
	// Loaded, CAS: the bytes stored now, or Absent when the key holds none.
	Value  []byte
	Absent bool
	// CAS: whether the compare-and-swap stored the new bytes.
	Swapped bool
	// StoreError: the store's error text (sanitized before it is logged).
	Message string
	// Failure: the call's envelope and a uniform draw in [0, 1) for jitter.
	Error *envelope.Envelope
	Draw  float64
	// Cancelled: "cancelled" or "deadline".
	Cause string
}

// StepConfig is the executor's configuration, the same on every step of
// every call.
//
// Tool names the tool (its breaker key is KeyPrefix + Tool, KeyPrefix ""
// meaning "toolerr:breaker:"). Policy and Settings are the retry policy and
// breaker settings (zero fields: defaults). TimeoutMs bounds the whole call,
// retries and sleeps included, from the start event (0 = no bound). Budget,
// when not nil, is the run's limits: every attempt is charged Charge (zero:
// one step) first. Loop turns the loop guard on, with LoopThreshold failures
// in a row (0: DefaultLoopThreshold).
type StepConfig struct {
	Tool          string
	KeyPrefix     string
	Policy        RetryPolicy
	Settings      BreakerSettings
	TimeoutMs     int64
	Budget        *BudgetLimits
	Charge        BudgetCharge
	Loop          bool
	LoopThreshold int64
}

// DefaultKeyPrefix goes before the tool name in a breaker's store key.
const DefaultKeyPrefix = "toolerr:breaker:"

// Key returns the store key of the tool's breaker.
func (c StepConfig) Key() string {
	if c.KeyPrefix == "" {
		return DefaultKeyPrefix + c.Tool
	}
	return c.KeyPrefix + c.Tool
}

// StepState is one call's state between steps; it travels as JSON (Value,
// ReadStepState) and the zero value is a call not yet started.
//
// Attempt is the attempt in progress (1-based). DeadlineMs is when the call
// must end (0 = none). In PhaseBreaker, Event is the breaker event being
// applied on Store, Tries the compare-and-swaps lost so far and Pending the
// result a cas in flight will make true. Error and Draw are the failure being
// reported (Cancelled: it was a cancellation, so no retry follows). ArgsKey
// is the loop guard's key of the call's arguments.
type StepState struct {
	Phase      StepPhase
	Attempt    int64
	DeadlineMs int64
	Event      BreakerEvent
	Store      StoreName
	Tries      int64
	Pending    *Pending
	Error      *envelope.Envelope
	Draw       float64
	Cancelled  bool
	ArgsKey    string
}

// Pending is the result of a breaker transition whose compare-and-swap is in
// flight: whether the allow was granted, and the phases before and after.
type Pending struct {
	Allowed  bool
	From, To BreakerPhase
}

// ActionKind is what Step asks the runtime to do.
type ActionKind int

// The actions.
const (
	ActionLoad  ActionKind = iota // read Key from Store; answer loaded or store_error
	ActionCAS                     // compare-and-swap Key in Store from Old (OldAbsent: no value) to New; answer cas or store_error
	ActionCall                    // call the tool (attempt Attempt, within TimeoutMs when > 0); answer success, failure or cancelled
	ActionSleep                   // sleep DelayMs; answer slept or cancelled
	ActionStop                    // return: Error nil is success, else the envelope for the model; Attempts calls were made
)

var actionNames = [...]string{"load", "cas", "call", "sleep", "stop"}

// String returns "load", "cas", "call", "sleep" or "stop".
func (k ActionKind) String() string { return enumName(actionNames[:], int(k), "step action") }

// StepAction is what the runtime must do next; only the members of its Kind
// are set.
type StepAction struct {
	Kind      ActionKind
	Store     StoreName
	Key       string
	Old       []byte
	OldAbsent bool
	New       []byte
	Attempt   int64
	TimeoutMs int64
	DelayMs   int64
	Error     *envelope.Envelope
	Attempts  int64
}

// StepInput is everything one step reads: the configuration, the call's
// state, the run's budget and loop-guard states (read when Config enables
// them), the event and the time (ms since the Unix epoch).
type StepInput struct {
	Config StepConfig
	State  StepState
	Budget BudgetState
	Loop   LoopState
	Event  StepEvent
	NowMs  int64
}

// StepResult is what one step decided: the next State, the Action, the
// Records to log or report, in order, and the run's next Budget and Loop
// states when this step changed them (nil: unchanged).
type StepResult struct {
	State   StepState
	Action  StepAction
	Records []Record
	Budget  *BudgetState
	Loop    LoopState
}

// Step advances one call by one event. It returns an *field.Error (path
// "event..." or "state...") when the event does not fit the state's phase,
// for example a slept while the call waits for the store.
//
// The semantics, step by step (each the only place they are written):
//
//   - start: the deadline is the earlier of now + TimeoutMs and the event's
//     DeadlineMs; then attempt 1 begins.
//   - an attempt begins: past the deadline, stop with TIMEOUT; with a budget,
//     charge it (refused: stop with BUDGET_EXHAUSTED); on the first attempt
//     with the loop guard on, refuse a call that failed LoopThreshold times in
//     a row with the same arguments (stop with LOOP_DETECTED); then ask the
//     breaker (allow).
//   - a breaker event: load the tool's key from the shared store, apply the
//     event (SwapRound) and compare-and-swap when the state changes; a lost
//     race runs the event again on the bytes that won, up to MaxCASAttempts.
//     When the shared store fails (an error, unreadable bytes, contention)
//     the event runs again on the local store (a fallback record); when the
//     local one fails, on a fresh breaker, not stored.
//   - allow decided: refused, stop with CIRCUIT_OPEN; allowed, call.
//   - the call succeeded: report success to the breaker, then stop.
//   - the call failed: report the failure to the breaker, then ask Retry; a
//     retry whose delay would reach the deadline is refused (reason
//     "deadline"); a retry sleeps, then the next attempt begins; otherwise
//     stop with the failure's envelope.
//   - cancelled: during the call, it is the call's failure (CANCELLED, or
//     TIMEOUT for "deadline"), reported to the breaker, never retried; during
//     a sleep, stop with it; while a success or failure is being reported,
//     stop with that outcome.
//
// The loop guard counts a call's outcome (success or failure) when it stops
// after calling the tool at least once.
func Step(in StepInput) (StepResult, error) {
	m := machine{in: in, s: in.State, loop: nil}
	if err := m.step(); err != nil {
		return StepResult{}, err
	}
	return StepResult{State: m.s, Action: m.action, Records: m.records, Budget: m.budget, Loop: m.loop}, nil
}

type machine struct {
	in      StepInput
	s       StepState
	action  StepAction
	records []Record
	budget  *BudgetState
	loop    LoopState
}

func (m *machine) step() error {
	ev := m.in.Event
	switch m.s.Phase {
	case PhaseNew:
		if ev.Kind != EventStart {
			return wrongEvent(ev, "start (the state is null: the call has not started)")
		}
		m.s.ArgsKey = ev.ArgsKey
		if t := m.in.Config.TimeoutMs; t > 0 {
			m.s.DeadlineMs = addMs(m.in.NowMs, t)
		}
		if d := ev.DeadlineMs; d > 0 && (m.s.DeadlineMs == 0 || d < m.s.DeadlineMs) {
			m.s.DeadlineMs = d
		}
		m.begin(1)
	case PhaseBreaker:
		switch ev.Kind {
		case EventLoaded:
			m.swap(ev.Value, ev.Absent)
		case EventCAS:
			m.casAnswer(ev)
		case EventStoreError:
			m.storeFailed("store_error", ev.Message)
		case EventCancelled:
			m.cancelledDuringReport(ev.Cause)
		default:
			return wrongEvent(ev, "loaded, cas, store_error or cancelled (the call waits for the store)")
		}
	case PhaseCall:
		switch ev.Kind {
		case EventCallOK:
			m.record(Record{Kind: RecordCall, Allowed: true})
			m.breaker(EventSuccess)
		case EventCallFailed:
			if ev.Error == nil {
				return field.Errorf("event.error", "is required (the envelope of the failed call)")
			}
			if !(ev.Draw >= 0 && ev.Draw < 1) {
				return field.Errorf("event.draw", "is required: a uniform random number in [0, 1)")
			}
			e := *ev.Error
			m.record(Record{Kind: RecordCall, Envelope: &e})
			m.s.Error, m.s.Draw = &e, ev.Draw
			m.breaker(EventFailure)
		case EventCancelled:
			e := m.cancelEnvelope(ev.Cause)
			m.record(Record{Kind: RecordCall, Envelope: &e})
			m.s.Error, m.s.Cancelled = &e, true
			m.breaker(EventFailure)
		default:
			return wrongEvent(ev, "success, failure or cancelled (the call waits for the tool)")
		}
	case PhaseSleep:
		switch ev.Kind {
		case EventSlept:
			m.begin(m.s.Attempt + 1)
		case EventCancelled:
			e := m.cancelEnvelope(ev.Cause)
			m.stop(&e, m.s.Attempt)
		default:
			return wrongEvent(ev, "slept or cancelled (the call waits for its backoff sleep)")
		}
	default:
		return field.Errorf("state.phase", "is "+m.s.Phase.String()+": the call has stopped and takes no more events")
	}
	return nil
}

func wrongEvent(ev StepEvent, want string) error {
	return field.Errorf("event.kind", "is "+ev.Kind.String()+"; want "+want)
}

// begin starts attempt n: deadline, budget, loop guard, then the breaker.
func (m *machine) begin(n int64) {
	c, now := m.in.Config, m.in.NowMs
	m.s.Attempt = n
	if m.s.DeadlineMs > 0 && now >= m.s.DeadlineMs {
		e := m.cancelEnvelope("deadline")
		m.stop(&e, n-1)
		return
	}
	if c.Budget != nil {
		br := Budget(m.in.Budget, *c.Budget, c.Charge, now)
		rec := Record{Kind: RecordBudget, Allowed: br.Allowed, Envelope: br.Error}
		if br.Error != nil {
			rec.Reason, _ = br.Error.Details["exhausted"].(string)
		}
		m.record(rec)
		if !br.Allowed {
			m.stop(br.Error, n-1)
			return
		}
		st := br.State
		m.budget = &st
	}
	if n == 1 && c.Loop {
		failures := m.in.Loop.Failures(c.Tool, m.s.ArgsKey)
		threshold := c.LoopThreshold
		if threshold <= 0 {
			threshold = DefaultLoopThreshold
		}
		rec := Record{Kind: RecordLoopGuard, Allowed: failures < threshold, Failures: failures, Threshold: threshold}
		if !rec.Allowed {
			e := LoopDetected(c.Tool, failures, threshold)
			rec.Envelope = &e
			m.record(rec)
			m.stop(&e, 0)
			return
		}
		m.record(rec)
	}
	m.breaker(EventAllow)
}

// breaker starts applying ev on the shared store.
func (m *machine) breaker(ev BreakerEvent) {
	m.s.Phase, m.s.Event, m.s.Store, m.s.Tries, m.s.Pending = PhaseBreaker, ev, StoreShared, 0, nil
	m.action = StepAction{Kind: ActionLoad, Store: StoreShared, Key: m.in.Config.Key()}
}

func (m *machine) failure() *envelope.Envelope {
	if m.s.Event == EventFailure {
		return m.s.Error
	}
	return nil
}

// swap runs one SwapRound on the bytes the store holds.
func (m *machine) swap(cur []byte, absent bool) {
	c := m.in.Config
	w, err := SwapRound(cur, absent, m.s.Event, m.in.NowMs, c.Settings, m.failure(), c.Tool)
	if err != nil {
		if m.s.Store == StoreShared {
			m.storeFailed("bad_state", "the stored breaker state is unreadable: "+err.Error())
			return
		}
		// The local store is the runtime's own: overwrite what it cannot read.
		w, _ = SwapRound(nil, true, m.s.Event, m.in.NowMs, c.Settings, m.failure(), c.Tool)
		w.Next, w.Write = w.Result.State.AppendJSON(nil), true
	}
	r := w.Result
	if !w.Write {
		m.decided(r.Allowed, w.Prev.Phase, r.State.Phase, r.Error)
		return
	}
	m.s.Tries++
	m.s.Pending = &Pending{Allowed: r.Allowed, From: w.Prev.Phase, To: r.State.Phase}
	m.action = StepAction{Kind: ActionCAS, Store: m.s.Store, Key: c.Key(), Old: cur, OldAbsent: absent, New: w.Next}
}

func (m *machine) casAnswer(ev StepEvent) {
	if ev.Swapped {
		if p := m.s.Pending; p != nil {
			m.s.Pending = nil
			m.decided(p.Allowed, p.From, p.To, nil)
			return
		}
	}
	if m.s.Tries >= MaxCASAttempts {
		if m.s.Store == StoreShared {
			m.storeFailed("contention", ErrContention.Error())
			return
		}
		m.fresh()
		return
	}
	m.swap(ev.Value, ev.Absent)
}

// storeFailed falls back from the shared store to the local one, or, when
// the local store failed, decides on a fresh breaker without storing it.
func (m *machine) storeFailed(reason, msg string) {
	if m.s.Store == StoreLocal {
		m.fresh()
		return
	}
	m.record(Record{Kind: RecordFallback, Event: m.s.Event, Reason: reason, Message: sanitize.Message(msg)})
	m.s.Store, m.s.Tries, m.s.Pending = StoreLocal, 0, nil
	m.action = StepAction{Kind: ActionLoad, Store: StoreLocal, Key: m.in.Config.Key()}
}

func (m *machine) fresh() {
	c := m.in.Config
	r := Breaker(BreakerState{}, m.s.Event, m.in.NowMs, c.Settings, m.failure(), c.Tool)
	m.s.Pending = nil
	m.decided(r.Allowed, Closed, r.State.Phase, r.Error)
}

// decided continues once the breaker event is applied.
func (m *machine) decided(allowed bool, from, to BreakerPhase, refusal *envelope.Envelope) {
	rec := Record{Kind: RecordBreaker, Event: m.s.Event, Phase: to, From: from, Allowed: allowed}
	switch m.s.Event {
	case EventAllow:
		rec.Envelope = refusal
		m.record(rec)
		if !allowed {
			m.stop(refusal, m.s.Attempt-1)
			return
		}
		m.s.Phase, m.s.Pending = PhaseCall, nil
		m.action = StepAction{Kind: ActionCall, Attempt: m.s.Attempt}
		if m.s.DeadlineMs > 0 {
			m.action.TimeoutMs = max(m.s.DeadlineMs-m.in.NowMs, 1)
		}
	case EventSuccess:
		if from != to {
			m.record(rec)
		}
		m.countLoop(true)
		m.stop(nil, m.s.Attempt)
	default:
		if from != to {
			m.record(rec)
		}
		m.afterFailure()
	}
}

func (m *machine) afterFailure() {
	e, n := m.s.Error, m.s.Attempt
	if m.s.Cancelled {
		m.countLoop(false)
		m.stop(e, n)
		return
	}
	d := Retry(*e, n, m.in.Config.Policy, m.s.Draw)
	rec := Record{Kind: RecordRetry, Allowed: d.Retry, Reason: d.Reason.String(), DelayMs: d.DelayMs, Envelope: e}
	if d.Retry && m.s.DeadlineMs > 0 && m.in.NowMs+d.DelayMs >= m.s.DeadlineMs {
		rec.Allowed, rec.Reason = false, "deadline"
	}
	if !rec.Allowed && rec.Reason != "deadline" {
		rec.DelayMs = 0
	}
	m.record(rec)
	if !rec.Allowed {
		m.countLoop(false)
		m.stop(e, n)
		return
	}
	m.s.Phase, m.s.Error, m.s.Draw = PhaseSleep, nil, 0
	m.action = StepAction{Kind: ActionSleep, DelayMs: d.DelayMs}
}

// cancelledDuringReport stops a call cancelled while the store answers: an
// allow stops with the cancellation, a report with the outcome reported.
func (m *machine) cancelledDuringReport(cause string) {
	switch m.s.Event {
	case EventAllow:
		e := m.cancelEnvelope(cause)
		m.stop(&e, m.s.Attempt-1)
	case EventSuccess:
		m.stop(nil, m.s.Attempt)
	default:
		m.stop(m.s.Error, m.s.Attempt)
	}
}

func (m *machine) stop(e *envelope.Envelope, attempts int64) {
	m.s = StepState{Phase: PhaseDone, Attempt: m.s.Attempt, DeadlineMs: m.s.DeadlineMs, ArgsKey: m.s.ArgsKey}
	m.action = StepAction{Kind: ActionStop, Error: e, Attempts: max(attempts, 0)}
}

// countLoop records the call's outcome in the run's loop-guard state.
func (m *machine) countLoop(ok bool) {
	if !m.in.Config.Loop {
		return
	}
	m.loop = m.in.Loop.With(m.in.Config.Tool, m.s.ArgsKey, ok)
}

// cancelEnvelope is the envelope of a cancelled call: CANCELLED, or TIMEOUT
// for cause "deadline", as core.ClassifyError builds them for
// context.Canceled and context.DeadlineExceeded.
func (m *machine) cancelEnvelope(cause string) envelope.Envelope {
	c := classify.CauseCancelled
	if cause == "deadline" {
		c = classify.CauseTimeout
	}
	return classify.Cause(c, classify.Options{Source: envelope.SourceTool, Tool: m.in.Config.Tool,
		Attempt: m.s.Attempt, HasAttempt: m.s.Attempt > 0, NowMs: m.in.NowMs, HasNow: true})
}

func (m *machine) record(r Record) {
	r.Tool, r.Attempt = m.in.Config.Tool, m.s.Attempt
	r.Level = r.level()
	m.records = append(m.records, r)
}
