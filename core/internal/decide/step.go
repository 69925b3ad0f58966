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
// Breaker events go through the shared byte store with compare-and-swap
// (SwapRound). What the replica last saw there, and when the store last
// failed, is its ReplicaState, kept by the runtime between calls: when the
// store fails, the event is decided on that state instead (fallback), and the
// store is left alone for a back-off window. See docs/resilience.md ("The
// step op").

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
	// The envelope is recorded and stopped with as it is given: the
	// classifier's (sanitized), or one the runtime built itself passed
	// through SafeFailure (the step op's readers do that for its error
	// member); a code that is no UPPER_SNAKE token or a source other than
	// the three is refused.
	Error *envelope.Envelope
	Draw  float64
	// Cancelled: "cancelled" or "deadline".
	Cause string
	// Start, success, failure, cancelled, slept: the store's answer to a
	// load of the tool's key the runtime made just before sending this
	// event (an EventLoaded or EventStoreError; nil: none). The step uses it
	// for the breaker event's load instead of asking for one, so a call
	// whose breaker state does not change takes one step per event; a step
	// that asks for no load (the store left alone in its back-off window,
	// the call stopped before the breaker) leaves it unused. A runtime
	// loads ahead only while its replica's DownUntilMs is 0, so that a
	// failed store is left alone as the unfused steps leave it.
	Loaded *StepEvent
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
// in a row (0: DefaultLoopThreshold). StoreBackoffMs is how long the shared
// store is left alone after it failed, in ms (0: DefaultStoreBackoffMs).
// StoreKey is Key() built ahead by a runtime that keeps it per tool, so that
// no step builds it again ("": built when needed; a StoreKey that is not
// KeyPrefix + Tool is ignored).
type StepConfig struct {
	Tool           string
	KeyPrefix      string
	Policy         RetryPolicy
	Settings       BreakerSettings
	TimeoutMs      int64
	Budget         *BudgetLimits
	Charge         BudgetCharge
	Loop           bool
	LoopThreshold  int64
	StoreBackoffMs int64
	StoreKey       string
}

// DefaultStoreBackoffMs is how long a replica leaves the shared store alone
// after it failed (an error, or no answer within the store's deadline): its
// breaker events are decided on its ReplicaState meanwhile, so an outage
// costs each replica one store deadline per window, not one per call.
const DefaultStoreBackoffMs = 1000

// ReplicaState is what one replica (one executor) knows of a tool's shared
// breaker between calls; the runtime keeps it, passes it to every step of
// the tool's calls and replaces it with StepResult.Replica when that is set.
// The zero value is a replica that has seen nothing.
//
// State is the breaker state the replica last saw in the shared store (its
// canonical bytes; nil: none seen), or, while the store fails, the state its
// own decisions made from it: the fallback starts from what the replica last
// knew, not from a closed breaker, and as it is one state per replica
// changed one step at a time, it admits at most one half-open probe per
// replica. DownUntilMs is when the store may be tried again after a failure
// (ms since the Unix epoch; 0: it has not failed). The window is one per
// replica for all its tools: the runtime keeps one DownUntilMs and one State
// per tool.
type ReplicaState struct {
	DownUntilMs int64
	State       []byte
}

// DefaultKeyPrefix goes before the tool name in a breaker's store key.
const DefaultKeyPrefix = "toolerr:breaker:"

// Key returns the store key of the tool's breaker: StoreKey when it is the
// key, else KeyPrefix + Tool built anew.
func (c StepConfig) Key() string {
	prefix := c.KeyPrefix
	if prefix == "" {
		prefix = DefaultKeyPrefix
	}
	if k := c.StoreKey; len(k) == len(prefix)+len(c.Tool) && k[:len(prefix)] == prefix && k[len(prefix):] == c.Tool {
		return k
	}
	return prefix + c.Tool
}

// StepState is one call's state between steps; it travels as JSON (Value,
// ReadStepState) and the zero value is a call not yet started.
//
// Attempt is the attempt in progress (1-based). DeadlineMs is when the call
// must end (0 = none). In PhaseBreaker, Event is the breaker event being
// applied on the shared store, Tries the compare-and-swaps lost so far and
// Pending the result a cas in flight will make true. Error and Draw are the failure being
// reported (Cancelled: it was a cancellation, so no retry follows). ArgsKey
// is the loop guard's key of the call's arguments.
type StepState struct {
	Phase      StepPhase
	Attempt    int64
	DeadlineMs int64
	Event      BreakerEvent
	Tries      int64
	Pending    *Pending
	Error      *envelope.Envelope
	Draw       float64
	Cancelled  bool
	ArgsKey    string
}

// Pending is the result of a breaker transition whose compare-and-swap is in
// flight: whether the allow was granted, the phases before and after, and
// the bytes being stored (the replica's State once they are).
type Pending struct {
	Allowed  bool
	From, To BreakerPhase
	New      []byte
}

// ActionKind is what Step asks the runtime to do.
type ActionKind int

// The actions.
const (
	ActionLoad  ActionKind = iota // read Key from the shared store; answer loaded or store_error
	ActionCAS                     // compare-and-swap Key in the shared store from Old (OldAbsent: no value) to New; answer cas or store_error
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
// them), the replica's state of the tool's breaker, the event and the time
// (ms since the Unix epoch).
//
// Records, when not nil, is a buffer for StepResult.Records: they are
// appended to Records[:0], so a runtime that passes the last step's
// Records back allocates none for them.
//
// Ahead, when not nil, asks for the answer to the event the step's action
// expects decided ahead, for the events AheadFor names (0: AheadSuccess
// alone, the step op's "on_success": true): a step writes it there when it
// can (StepResult.Ahead; see StepAhead), reusing Ahead.Result.Records as
// its buffer and the chain of buffers Ahead keeps for the answers decided
// ahead of that one.
//
// Standing asks a start step to say whether its answer stands
// (StepResult.Stands; the step op's "standing": true).
type StepInput struct {
	Config   StepConfig
	State    StepState
	Budget   BudgetState
	Loop     LoopState
	Replica  ReplicaState
	Event    StepEvent
	NowMs    int64
	Records  []Record
	Ahead    *StepAhead
	AheadFor AheadKinds
	Standing bool
}

// AheadKinds is a set of the events whose answers a step decides ahead
// (StepInput.AheadFor), each a member of the step op: AheadSuccess
// "on_success", AheadSwapped "on_swapped", AheadSlept "on_slept".
type AheadKinds uint8

// The events a step may decide ahead: the one its action expects next.
const (
	AheadSuccess AheadKinds = 1 << iota // the call succeeded (action call)
	AheadSwapped                        // the compare-and-swap stored the new bytes (action cas, swapped true)
	AheadSlept                          // the backoff sleep ended (action sleep)
)

// kinds returns the events in asks to decide ahead.
func (in *StepInput) kinds() AheadKinds {
	switch {
	case in.Ahead == nil:
		return 0
	case in.AheadFor == 0:
		return AheadSuccess
	}
	return in.AheadFor
}

// StepAhead is the answer the event a step's action expects will get,
// decided by that step (the step op's "on_success", "on_swapped" and
// "on_slept" members), so that a runtime whose action ends as expected
// applies it instead of sending the next step: its Result is that step's
// answer, byte for byte, its own Ahead included.
//
// Which event it answers follows from the action it comes with: a call's
// success (the success step with its load made ahead), a cas that swapped
// ({"kind": "cas", "swapped": true}), a sleep that ended (the slept step
// with its load made ahead). It holds while the replica's state is still
// {DownUntilMs 0, State Loaded} (nil: none) and, for a success or a sleep,
// the load made ahead after the action answers Loaded; for a cas, Loaded is
// the action's Old. The runtime checks both and otherwise sends the step
// as always.
//
// Step decides ahead only where neither the time the event comes at nor
// state another call may change can move the answer: no loop guard (its
// state is the run's), the store not in its back-off window, and
//
//   - success: the breaker fresh or absent (AheadSwapped asked too: closed
//     with no open or probe time, whose success writes failures 0 by a cas);
//   - swapped: no deadline (the retry's deadline check and the next call's
//     timeout read the clock), not a refused allow (its wait reads it), the
//     replica holding the action's Old;
//   - slept: no deadline and no budget (the next attempt's checks read the
//     clock and the run's budget), the breaker closed with no open or probe
//     time, or absent (its allow reads no clock then).
type StepAhead struct {
	Loaded []byte
	Result StepResult
	loaded StepEvent  // the load Result was decided on
	next   *StepAhead // the buffer of Result.Ahead, kept for reuse
}

// newAheadChain returns the first of a chain of linked StepAhead buffers
// in one allocation: as many as a chain decided ahead takes (StepAhead;
// the failure's cas, sleep, next call, success and that success's cas,
// whose stop step is given the fifth and leaves it empty).
func newAheadChain() *StepAhead {
	c := new(aheadChain)
	for i := range len(c.links) {
		if i+1 < len(c.links) {
			c.links[i].next = &c.links[i+1]
		}
		c.links[i].Result.Records = c.recs[i : i : i+1]
	}
	return &c.links[0]
}

// aheadChain is a chain's StepAhead buffers and a record for each (most
// answers decided ahead log one; more are appended elsewhere).
type aheadChain struct {
	links [5]StepAhead
	recs  [5]Record
}

// newStepAhead returns the StepInput.Ahead buffer for a step asked to
// decide ahead the answers to kinds: for AheadSuccess alone one StepAhead,
// else a chain of them allocated at once (newAheadChain).
func newStepAhead(kinds AheadKinds) *StepAhead {
	if kinds&^AheadSuccess == 0 {
		return &StepAhead{}
	}
	return newAheadChain()
}

// Reset empties a for reuse by another call: its results and their records
// go, the buffers of the chain stay.
func (a *StepAhead) Reset() {
	for ; a != nil; a = a.next {
		recs := a.Result.Records
		clear(recs[:cap(recs)])
		a.Loaded, a.loaded, a.Result = nil, StepEvent{}, StepResult{Records: recs[:0]}
	}
}

// StepResult is what one step decided: the next State, the Action, the
// Records to log or report, in order, and the run's next Budget and Loop
// states and the replica's next state when this step changed them (nil:
// unchanged).
//
// Ahead is StepInput.Ahead when this step decided ahead the answer to the
// event its action expects (nil otherwise; see StepAhead). Stands is set
// on a start step asked with StepInput.Standing whose answer stands (see
// Standing).
type StepResult struct {
	State   StepState
	Action  StepAction
	Records []Record
	Budget  *BudgetState
	Loop    LoopState
	Replica *ReplicaState
	Ahead   *StepAhead
	Stands  Standing
}

// Standing is a start step's promise that its answer stands (the step op's
// "stands": {"if_loaded"}): Holds says that a start step with the same
// input but for NowMs (and, in the step op, the event's "args") gets this
// answer, byte for byte, its answers decided ahead included, at any time,
// while the load made ahead answers Loaded (nil: the key holds none) and
// the replica's state is {DownUntilMs 0, State Loaded}. A runtime may then
// keep the answer and apply it to its next call of the tool whose load and
// replica are those, instead of sending the start step.
//
// Step declares it only where that is exact: the call has no deadline (no
// TimeoutMs, no event DeadlineMs), no budget and no loop guard (their
// state is the run's, and a budget's charge reads the clock), the replica
// is not in the store's back-off window, the event carries a load made
// ahead that answered and the step changes no replica (the load answered
// the replica's state), the state is that of a fresh breaker or none (its
// allow reads no clock, and its success writes nothing: a counted failure's
// state, rewritten by the next success, is left to its step), and the
// action is the call. The start's arguments matter to the loop guard only,
// so the step op drops them; a typed StepInput with Event.ArgsKey set (it
// goes into the state) never stands.
type Standing struct {
	Holds  bool
	Loaded []byte
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
//     The bytes the store holds (or now holds) become the replica's State.
//     Bytes that are not a breaker state are replaced: the event runs on a
//     fresh breaker, written over them (a repair record).
//   - a load made ahead: an event that carries the store's answer to a
//     load of the key (Loaded) has it used for the first load the step
//     would ask for, as if that load had been asked and answered at once;
//     a step that asks for none ignores it.
//   - fallback: when the store fails (store_error) the event is decided on
//     the replica's State, and the store is left alone until StoreBackoffMs
//     from now (DownUntilMs); meanwhile every event is decided there
//     (reason backoff). The first event after the window tries the store
//     and holds a new window while it does, so the replica's other calls do
//     not wait for it; an answer ends the window. After MaxCASAttempts lost
//     races (contention) the event is decided on the replica's State too.
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
	m := machine{in: in, s: in.State, loop: nil, rep: in.Replica, preload: in.Event.Loaded, records: in.Records[:0]}
	if err := m.step(); err != nil {
		return StepResult{}, err
	}
	r := StepResult{State: m.s, Action: m.action, Records: m.records, Budget: m.budget, Loop: m.loop}
	if m.repChanged {
		rep := m.rep
		r.Replica = &rep
	}
	if in.Ahead != nil {
		r.Ahead = decideAhead(in, r, m.rep, m.key)
	}
	if in.Standing && stands(in, r) {
		r.Stands = Standing{Holds: true, Loaded: in.Replica.State}
	}
	return r, nil
}

// stands reports whether r, in's answer, stands (Standing says when). Why
// it is the same answer at any time: with no deadline, budget or loop
// guard, a start reads the clock only for the breaker's allow and its
// store's back-off window; a fresh breaker (or none stored) is left as it
// is by Bound and Tick and its allow is granted, written nowhere, whatever
// the clock; the allow record holds no time; and the success decided ahead
// on it (decideAhead) reads no clock either.
func stands(in StepInput, r StepResult) bool {
	l, c, rep := in.Event.Loaded, in.Config, in.Replica
	return in.Event.Kind == EventStart && l != nil && l.Kind == EventLoaded &&
		!c.Loop && c.Budget == nil && c.TimeoutMs == 0 && in.Event.DeadlineMs == 0 && rep.DownUntilMs == 0 &&
		(rep.State == nil || string(rep.State) == freshState) &&
		r.Replica == nil && r.Budget == nil && r.Loop == nil && r.Action.Kind == ActionCall &&
		r.State.ArgsKey == "" && r.State.DeadlineMs == 0
}

// decideAhead decides the answer to the event r's action expects, as the
// step sending that event will decide it when the replica is still rep:
// into in.Ahead, or nil where the answer could depend on the time it comes
// at, or on state another call may change meanwhile (StepAhead says where).
//
// Why those answers are the same at any time: a closed breaker with no open
// or probe time (or none stored) is left as it is by Bound and Tick, its
// allow is granted and its success sets failures to 0 whatever the clock;
// a swapped cas reads the clock only for a refused allow's wait, the next
// call's timeout and the retry's deadline check; a slept step reads it only
// for the deadline, the budget and the store's back-off window; and with
// no loop guard nothing reads the run's loop state. The answer is the very
// step it stands for, run now (its own answers ahead included).
//
// key is the store key the step built ("" when it built none), given to
// the steps it runs so that they build it no more.
func decideAhead(in StepInput, r StepResult, rep ReplicaState, key string) *StepAhead {
	kinds := in.kinds()
	a := r.Action
	if kinds == 0 || in.Config.Loop || rep.DownUntilMs != 0 || a.Kind == ActionLoad || a.Kind == ActionStop {
		return nil
	}
	next := StepInput{Config: in.Config, State: r.State, Budget: in.Budget, Replica: rep, NowMs: in.NowMs, AheadFor: in.AheadFor}
	if r.Budget != nil {
		next.Budget = *r.Budget
	}
	if key != "" {
		next.Config.StoreKey = key // Key() answers it as it is prefix and tool
	}
	switch a.Kind {
	case ActionCall:
		if kinds&AheadSuccess == 0 {
			return nil
		}
		if kinds&AheadSwapped == 0 {
			if rep.State != nil && string(rep.State) != freshState {
				return nil
			}
		} else if !timeFree(rep.State) {
			return nil
		}
		next.Event.Kind = EventCallOK
	case ActionSleep:
		if kinds&AheadSlept == 0 || in.Config.Budget != nil || r.State.DeadlineMs != 0 || !timeFree(rep.State) {
			return nil
		}
		next.Event.Kind = EventSlept
	case ActionCAS:
		p := r.State.Pending
		if kinds&AheadSwapped == 0 || r.State.DeadlineMs != 0 || p == nil || r.State.Event == EventAllow && !p.Allowed ||
			a.OldAbsent != (rep.State == nil) || string(a.Old) != string(rep.State) {
			return nil
		}
		next.Event = StepEvent{Kind: EventCAS, Swapped: true}
	default:
		return nil
	}
	buf := in.Ahead
	if a.Kind != ActionCAS {
		buf.loaded = StepEvent{Kind: EventLoaded, Value: rep.State, Absent: rep.State == nil}
		next.Event.Loaded = &buf.loaded
	}
	next.Records = buf.Result.Records
	if in.AheadFor&^AheadSuccess != 0 {
		// The answer decided ahead is that step's whole answer, with what
		// it decides ahead in turn (a chain of at most four: swapped,
		// slept, success, swapped).
		if buf.next == nil {
			buf.next = newAheadChain()
		}
		next.Ahead = buf.next
	}
	res, err := Step(next)
	if err != nil || res.Budget != nil || res.Loop != nil {
		return nil
	}
	if len(res.Records) == 0 {
		res.Records = nil // none logged, as a step given no buffer answers
	}
	switch a.Kind {
	case ActionCall:
		if res.Replica != nil || res.Action.Kind != ActionStop && res.Action.Kind != ActionCAS {
			return nil
		}
	case ActionSleep:
		if res.Replica != nil || res.Action.Kind != ActionCall {
			return nil
		}
	}
	buf.Loaded, buf.Result = rep.State, res
	return buf
}

// timeFree reports whether stored bytes b (nil: none) are a breaker whose
// allow and success answer the same at any time: none, or closed with no
// open or probe time.
func timeFree(b []byte) bool {
	if b == nil || string(b) == freshState {
		return true
	}
	st, ok := parseCanonicalState(b)
	if !ok {
		var err error
		if st, err = ParseBreakerState(b); err != nil {
			return false
		}
	}
	return st.Phase == Closed && st.OpenUntilMs == 0 && st.ProbeUntilMs == 0
}

type machine struct {
	in         StepInput
	s          StepState
	action     StepAction
	records    []Record
	budget     *BudgetState
	loop       LoopState
	rep        ReplicaState
	repChanged bool
	preload    *StepEvent // the event's Loaded, until a breaker event uses it
	key        string     // Config.Key(), once asked
}

// storeKey returns the tool's store key, built once per step.
func (m *machine) storeKey() string {
	if m.key == "" {
		m.key = m.in.Config.Key()
	}
	return m.key
}

func (m *machine) step() error {
	ev := m.in.Event
	if p := ev.Loaded; p != nil {
		if p.Kind != EventLoaded && p.Kind != EventStoreError {
			return field.Errorf("event.loaded.kind", "is "+p.Kind.String()+"; want loaded or store_error (the answer to a load made ahead)")
		}
		if ev.Kind == EventLoaded || ev.Kind == EventCAS || ev.Kind == EventStoreError {
			return field.Errorf("event.loaded", "is not accepted with a "+ev.Kind.String()+" event (only start, success, failure, cancelled and slept)")
		}
	}
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
			m.storeFailed(ev.Message)
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
			if err := envelope.CheckTokens(*ev.Error, "event.error"); err != nil {
				return err // a Go runtime's hand-built envelope: the JSON event's reader refuses it already
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
		threshold := orDefault(c.LoopThreshold, DefaultLoopThreshold)
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

// breaker starts applying ev: on the shared store, unless it failed within
// the back-off window.
func (m *machine) breaker(ev BreakerEvent) {
	m.s.Phase, m.s.Event, m.s.Tries, m.s.Pending = PhaseBreaker, ev, 0, nil
	if d := m.rep.DownUntilMs; d != 0 {
		if m.in.NowMs < d {
			m.record(Record{Kind: RecordFallback, Event: ev, Reason: "backoff"})
			m.local()
			return
		}
		// The window is over: this event tries the store, and holds a new
		// window while it does (an answer ends it).
		m.setDown(addMs(m.in.NowMs, m.backoffMs()))
	}
	if p := m.preload; p != nil {
		m.preload = nil
		if p.Kind == EventStoreError {
			m.storeFailed(p.Message)
		} else {
			m.swap(p.Value, p.Absent)
		}
		return
	}
	m.action = StepAction{Kind: ActionLoad, Key: m.storeKey()}
}

func (m *machine) backoffMs() int64 {
	if b := m.in.Config.StoreBackoffMs; b > 0 {
		return b
	}
	return DefaultStoreBackoffMs
}

func (m *machine) setDown(t int64) {
	if m.rep.DownUntilMs != t {
		m.rep.DownUntilMs, m.repChanged = t, true
	}
}

// saw records b (absent: nil) as what the store holds, and that it answered.
// Bytes of an event are copied (the runtime's buffer may be reused); own
// bytes (a Pending's New, which Step made and nothing changes) are kept.
func (m *machine) saw(b []byte, absent, own bool) {
	m.setDown(0)
	if absent {
		b = nil
	}
	if absent != (m.rep.State == nil) || string(b) != string(m.rep.State) {
		m.repChanged = true
		switch {
		case absent:
			m.rep.State = nil
		case own:
			m.rep.State = b
		default:
			m.rep.State = append([]byte(nil), b...)
		}
	}
}

func (m *machine) failure() *envelope.Envelope {
	if m.s.Event == EventFailure {
		return m.s.Error
	}
	return nil
}

// swap runs one SwapRound on the bytes the shared store holds.
func (m *machine) swap(cur []byte, absent bool) {
	c := m.in.Config
	w, err := SwapRound(cur, absent, m.s.Event, m.in.NowMs, c.Settings, m.failure(), c.Tool)
	if err == nil {
		m.saw(cur, absent, false)
	} else {
		m.setDown(0)
		// Not a breaker state (a bug elsewhere, or another program's key):
		// replace it with a fresh one, to which the event applies.
		m.record(Record{Kind: RecordRepair, Event: m.s.Event, Message: sanitize.Message("the stored breaker state is unreadable: " + err.Error())})
		w, _ = SwapRound(nil, true, m.s.Event, m.in.NowMs, c.Settings, m.failure(), c.Tool)
		w.Next, w.Write = w.Result.State.AppendJSON(nil), true
	}
	r := w.Result
	if !w.Write {
		m.decided(r.Allowed, w.Prev.Phase, r.State.Phase, r.Error)
		return
	}
	m.s.Tries++
	m.s.Pending = &Pending{Allowed: r.Allowed, From: w.Prev.Phase, To: r.State.Phase, New: w.Next}
	m.action = StepAction{Kind: ActionCAS, Key: m.storeKey(), Old: cur, OldAbsent: absent, New: w.Next}
}

func (m *machine) casAnswer(ev StepEvent) {
	if ev.Swapped {
		if p := m.s.Pending; p != nil {
			m.s.Pending = nil
			m.saw(p.New, false, true)
			var refusal *envelope.Envelope
			if m.s.Event == EventAllow && !p.Allowed {
				// A refusal that wrote (the bound moved a hold): the same
				// refusal again from the bytes stored, which it leaves as they are.
				st, _ := ParseBreakerState(p.New)
				refusal = Breaker(st, EventAllow, m.in.NowMs, m.in.Config.Settings, nil, m.in.Config.Tool).Error
			}
			m.decided(p.Allowed, p.From, p.To, refusal)
			return
		}
	}
	if m.s.Tries >= MaxCASAttempts {
		m.setDown(0)
		m.record(Record{Kind: RecordFallback, Event: m.s.Event, Reason: "contention", Message: ErrContention.Error()})
		m.local()
		return
	}
	m.swap(ev.Value, ev.Absent)
}

// storeFailed decides the event on the replica's state and leaves the store
// alone for the back-off window.
func (m *machine) storeFailed(msg string) {
	m.setDown(addMs(m.in.NowMs, m.backoffMs()))
	m.record(Record{Kind: RecordFallback, Event: m.s.Event, Reason: "store_error", Message: sanitize.Message(msg)})
	m.local()
}

// local applies the event to the replica's own state, which only this step
// changes (no store, no race).
func (m *machine) local() {
	c, cur := m.in.Config, m.rep.State
	w, err := SwapRound(cur, cur == nil, m.s.Event, m.in.NowMs, c.Settings, m.failure(), c.Tool)
	if err != nil { // the runtime's copy is unreadable: start afresh
		w, _ = SwapRound(nil, true, m.s.Event, m.in.NowMs, c.Settings, m.failure(), c.Tool)
		w.Next, w.Write = w.Result.State.AppendJSON(nil), true
	}
	if w.Write {
		m.rep.State, m.repChanged = w.Next, true
	}
	m.s.Pending = nil
	m.decided(w.Result.Allowed, w.Prev.Phase, w.Result.State.Phase, w.Result.Error)
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

// SafeFailure is e, the envelope of a failed call that a runtime's own
// classifier built (a binding's classify hook, a Go Executor's Classify, a
// tool's hand-built envelope), with a message that holds a secret or a
// stack trace sanitized (sanitize.Message) and its details sanitized
// (sanitize.Details): the envelope the step records, retries on and stops
// with is what the runtime hands the model and logs. A clean message stays
// as it came (no sentence rule applied). The step op's readers make the
// error member of a failure event so; an envelope classify gave (the
// classify member, ClassifyError) is sanitized already and is not asked
// again, which saves a failure step about 1 µs of CPU.
func SafeFailure(e envelope.Envelope) envelope.Envelope {
	if !sanitize.Clean(e.Message) {
		e.Message = sanitize.Message(e.Message)
	}
	e.Details = sanitize.Details(e.Details)
	return e
}
