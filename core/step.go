package core

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/decide"
)

// The executor of one tool call, as a pure step: every language's runtime
// (resilience.Executor in Go, the Python, Node and Rust runtimes) is a loop
// of I/O around Step, so they all take the same decisions in the same order
// and log the same records. See docs/resilience.md ("The step op") and
// RATIONALE.md ("Why is the executor a pure step?").

// StepConfig is an executor's configuration: the tool, its breaker key
// (KeyPrefix + Tool, KeyPrefix "" meaning "toolerr:breaker:"), the retry
// Policy and breaker Settings (zero fields: defaults), TimeoutMs (the whole
// call's bound in milliseconds from its start, retries and sleeps included;
// 0 = none), the run's Budget limits (nil = no budget; every attempt is
// charged Charge, zero = one step) and the loop guard (Loop, with
// LoopThreshold failures in a row, 0 = 3).
type StepConfig = decide.StepConfig

// StepState is one call's state between steps; the zero value is a call not
// yet started. Phase says what it waits for.
type StepState = decide.StepState

// StepPhase is what a StepState waits for: PhaseNew (start), PhaseBreaker
// (the store's answer), PhaseCall (the call's outcome), PhaseSleep (the
// sleep's end), PhaseDone.
type StepPhase = decide.StepPhase

// The step phases.
const (
	PhaseNew     = decide.PhaseNew
	PhaseBreaker = decide.PhaseBreaker
	PhaseCall    = decide.PhaseCall
	PhaseSleep   = decide.PhaseSleep
	PhaseDone    = decide.PhaseDone
)

// StepEvent is what the runtime reports to Step: Kind and the members of
// that kind (StepEvent's field docs).
type StepEvent = decide.StepEvent

// StepEventKind names a StepEvent.
type StepEventKind = decide.EventKind

// The step events.
const (
	EventStart      = decide.EventStart      // begin a call; ArgsKey (LoopArgsKey), DeadlineMs
	EventLoaded     = decide.EventLoaded     // a load's answer: Value, or Absent
	EventCAS        = decide.EventCAS        // a cas's answer: Swapped, else Value (or Absent) now stored
	EventStoreError = decide.EventStoreError // a store failed: Message
	EventCallOK     = decide.EventCallOK     // the call succeeded
	EventCallFailed = decide.EventCallFailed // the call failed: Error, Draw in [0, 1)
	EventSlept      = decide.EventSlept      // the sleep ended
	EventCancelled  = decide.EventCancelled  // the caller cancelled: Cause "cancelled" or "deadline"
)

// StepAction is what Step asks the runtime to do next.
type StepAction = decide.StepAction

// StepActionKind names a StepAction.
type StepActionKind = decide.ActionKind

// The step actions.
const (
	ActionLoad  = decide.ActionLoad  // read Key from the shared store
	ActionCAS   = decide.ActionCAS   // compare-and-swap Key in the shared store from Old (OldAbsent: none) to New
	ActionCall  = decide.ActionCall  // call the tool (Attempt; within TimeoutMs when > 0)
	ActionSleep = decide.ActionSleep // sleep DelayMs milliseconds
	ActionStop  = decide.ActionStop  // return: Error nil is success, else the envelope; Attempts calls were made
)

// ReplicaState is what one replica knows of a tool's shared breaker between
// calls: State, the bytes it last saw in the store (or, while the store
// fails, the state its fallback decisions made from them), and DownUntilMs,
// until when it leaves a failed store alone. The runtime keeps one
// DownUntilMs and one State per tool, passes them to every step and takes
// StepResult.Replica back when set.
type ReplicaState = decide.ReplicaState

// DefaultStoreBackoffMs is how long a replica leaves the shared store alone
// after it failed, in ms (StepConfig.StoreBackoffMs 0).
const DefaultStoreBackoffMs = decide.DefaultStoreBackoffMs

// StepInput is one step's input: Config, the call's State, the run's Budget
// and Loop states (read when Config enables them), the Replica's state of
// the tool's breaker, the Event and NowMs (milliseconds since the Unix
// epoch); Ahead and AheadFor ask for answers decided ahead, Standing asks a
// start whether its answer stands (StepResult.Stands).
type StepInput = decide.StepInput

// Standing is a start step's promise that its answer stands (the step op's
// "stands"): Holds says that a start with the same StepInput but for NowMs
// gets this answer, byte for byte with its answers decided ahead, at any
// time, while the load made ahead answers Loaded (nil: the key holds none)
// and the replica is {DownUntilMs 0, State Loaded}. Declared only with no
// deadline, budget or loop guard, outside the store's back-off window, on
// a fresh breaker (or none stored) that the load made ahead found as the
// replica last saw it. See docs/resilience.md ("The step op").
type Standing = decide.Standing

// StepAhead is the answer the event a step's action expects will get
// (a call's success, a cas that swapped, a sleep that ended), decided by
// that step when StepInput.Ahead asks for it (AheadFor: the events; 0 is
// AheadSuccess, the step op's "on_success"): Result is that event's step's
// answer, byte for byte, while the replica's state is still {DownUntilMs 0,
// State Loaded} and, for a success or a sleep, the load made after it
// answers Loaded (nil: absent). A runtime that checks both applies Result
// instead of sending the step; Reset empties it for reuse.
type StepAhead = decide.StepAhead

// AheadKinds is a set of the events a step decides the answers to ahead
// (StepInput.AheadFor).
type AheadKinds = decide.AheadKinds

// The events a step may decide ahead.
const (
	AheadSuccess = decide.AheadSuccess // the call succeeded ("on_success")
	AheadSwapped = decide.AheadSwapped // the cas stored its bytes ("on_swapped")
	AheadSlept   = decide.AheadSlept   // the backoff sleep ended ("on_slept")
)

// StepResult is one step's output: the next State, the Action, the Records
// to log in order, and the run's Budget and Loop states and the Replica
// state when the step changed them (nil otherwise); Ahead, the answer to
// the event the action expects when decided ahead, and Stands, whether a
// start's answer stands (asked by StepInput.Standing).
type StepResult = decide.StepResult

// Record is one decision (budget, loop_guard, breaker, call, retry,
// fallback, repair), the same record in every runtime; Value gives its JSON and
// Level how loud to log it.
type Record = decide.Record

// RecordKind names a Record.
type RecordKind = decide.RecordKind

// The record kinds.
const (
	RecordBudget    = decide.RecordBudget
	RecordLoopGuard = decide.RecordLoopGuard
	RecordBreaker   = decide.RecordBreaker
	RecordCall      = decide.RecordCall
	RecordRetry     = decide.RecordRetry
	RecordFallback  = decide.RecordFallback
	RecordRepair    = decide.RecordRepair
)

// Level is how loud a Record is logged: LevelDebug, LevelInfo or LevelWarn.
type Level = decide.Level

// The record levels.
const (
	LevelDebug = decide.LevelDebug
	LevelInfo  = decide.LevelInfo
	LevelWarn  = decide.LevelWarn
)

// LoopState is a run's loop-guard state: per tool, the key of its latest
// arguments and the failures in a row with them.
type LoopState = decide.LoopState

// MaxCASAttempts bounds the compare-and-swap loop of one breaker event.
const MaxCASAttempts = decide.MaxCASAttempts

// ErrContention is the error of a breaker event whose stored state kept
// changing under it for MaxCASAttempts compare-and-swaps.
var ErrContention = decide.ErrContention

// MaxStepLoopThreshold is the largest StepConfig.LoopThreshold (the step
// op's loop.threshold): 2^31. The loop_guard op's bound, 2^20, is lower: it
// counts a history sent whole in one request, the step a run's failures
// across calls.
const MaxStepLoopThreshold = decide.MaxStepLoopThreshold

// CheckStepConfig checks c as the step op checks the same configuration
// given as JSON, with a zero field meaning the member left out (its
// default): a *RequestError (Op "step") at the op's path for a policy or
// breaker setting below 0 or above 2^53 ("policy.max_attempts",
// "settings.open_ms", ...), a TimeoutMs or StoreBackoffMs below 0 or above
// 2^53 ("timeout_ms", "store_backoff_ms"), a Budget limit or Charge below 0
// or above 2^53 ("budget.limits.steps", "budget.charge.tokens", ...) or a
// LoopThreshold below 0 or above MaxStepLoopThreshold ("loop.threshold");
// nil otherwise. Step runs it on every start event.
func CheckStepConfig(c StepConfig) error {
	if err := decide.CheckStepConfig(c); err != nil {
		return requestError("step", err)
	}
	return nil
}

// Step advances one call by one event and says what to do next; it is the
// typed form of the step op, the same code. It returns a *RequestError (Path
// "event.kind", ...) when the event does not fit the state, and on a start
// event (a call not yet started) CheckStepConfig's error for a Config the
// op would refuse.
//
// See docs/resilience.md ("The step op") for every transition.
func Step(in StepInput) (StepResult, error) {
	if in.Event.Kind == EventStart && in.State.Phase == PhaseNew {
		if err := CheckStepConfig(in.Config); err != nil {
			return StepResult{}, err
		}
	}
	r, err := decide.Step(in)
	if err != nil {
		return r, requestError("step", err)
	}
	return r, nil
}

// SafeFailure returns e, the envelope of a failed call that a runtime's own
// code built (a Classify hook's, a tool's hand-built one: not
// ClassifyError's, which is sanitized already), as StepEvent.Error takes
// it: a message that holds a secret or a stack trace sanitized as
// NewEnvelope sanitizes it (a clean message is kept as it came, without
// the sentence rule), every string in its details sanitized. The step op's
// readers make the error member of a failure event so; the typed Step
// takes the envelope as given, so that the Executor's own
// ClassifyError envelopes are not sanitized twice (about 1 µs of CPU a
// failure). Code and source are not read: Step refuses one that is no
// token (a *RequestError at event.error.code or event.error.source).
func SafeFailure(e Envelope) Envelope { return decide.SafeFailure(e) }

// LoopArgsKey returns the loop guard's key of a call's arguments given as
// JSON (nil or empty: no arguments): a 16-hex-digit FNV-1a hash of their
// canonical form, a string holding a JSON object or array counting as that
// value. Returns a *RequestError for bytes that are not JSON.
func LoopArgsKey(argsJSON []byte) (string, error) {
	if len(argsJSON) == 0 {
		return decide.LoopArgsKey(nil), nil
	}
	v, err := canonical.Parse(argsJSON)
	if err != nil {
		return "", requestError("step", err)
	}
	return decide.LoopArgsKey(v), nil
}

// BreakerSwap is one round of applying a breaker event to a state kept in a
// byte store with compare-and-swap: cur is what the store holds (absent:
// nothing). It returns the state read, the transition's result and, when
// the state changes, write true with the bytes to compare-and-swap in
// (next). Returns a *RequestError when cur is not a breaker state, or for
// an event, nowMs, settings or failure BreakerTransition refuses.
//
// The loop around it (read; BreakerSwap; compare-and-swap when write; on a
// lost race BreakerSwap again on the bytes that won, at most MaxCASAttempts
// times) is Step's; resilience.Transition runs it over a Go Store.
func BreakerSwap(cur []byte, absent bool, ev BreakerEvent, nowMs int64, s BreakerSettings, failure *Envelope, tool string) (prev BreakerState, r BreakerResult, next []byte, write bool, err error) {
	// The state comes from cur (SwapRound reads it); the rest is checked as
	// BreakerTransition checks it.
	if err := decide.CheckBreaker(BreakerState{}, ev, nowMs, s, failure); err != nil {
		return BreakerState{}, BreakerResult{}, nil, false, requestError("breaker", err)
	}
	w, err := decide.SwapRound(cur, absent, ev, nowMs, s, failure, tool)
	if err != nil {
		return BreakerState{}, BreakerResult{}, nil, false, requestError("breaker", err)
	}
	return w.Prev, w.Result, w.Next, w.Write, nil
}
