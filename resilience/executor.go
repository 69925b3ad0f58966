package resilience

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolerr/toolerr/core"
)

// ErrCircuitOpen is matched (errors.Is) by an *Error whose envelope is
// CIRCUIT_OPEN: the tool's breaker refused the call.
var ErrCircuitOpen = errors.New("toolerr: circuit open")

// ErrBudgetExhausted is matched (errors.Is) by an *Error whose envelope is
// BUDGET_EXHAUSTED: the run's budget refused the call.
var ErrBudgetExhausted = errors.New("toolerr: budget exhausted")

// Error is a tool call that did not succeed: Envelope is what to hand the
// model (or act on), Attempts how many calls were made (0 when the budget or
// the breaker refused the first), Err the last error the tool returned (nil
// for a refusal).
type Error struct {
	Envelope core.Envelope
	Attempts int
	Err      error
}

// Error returns "toolerr: <CODE>: <message>".
func (e *Error) Error() string {
	return "toolerr: " + string(e.Envelope.Code) + ": " + e.Envelope.Message
}

// Unwrap returns the tool's last error.
func (e *Error) Unwrap() error { return e.Err }

// Is matches ErrCircuitOpen and ErrBudgetExhausted by envelope code.
func (e *Error) Is(target error) bool {
	return target == ErrCircuitOpen && e.Envelope.Code == core.CodeCircuitOpen ||
		target == ErrBudgetExhausted && e.Envelope.Code == core.CodeBudgetExhausted
}

// DecisionKind says which step of Executor.Do a Decision reports.
type DecisionKind int

// The kinds of decision, in the order Do takes them (DecisionLoopGuard, which
// comes between the budget and the breaker, was added last).
const (
	DecisionBudget    DecisionKind = iota // the budget allowed or refused an attempt
	DecisionBreaker                       // the breaker allowed or refused an attempt, or changed phase
	DecisionCall                          // the tool was called; Envelope is its failure, nil on success
	DecisionRetry                         // retry or not after a failure; DelayMs is the wait
	DecisionFallback                      // the Store failed (or is left alone after failing); the decision used the replica's own state (Err says why)
	DecisionLoopGuard                     // the loop guard allowed or refused the call
	DecisionRepair                        // the Store held bytes that are not a breaker state; a fresh state replaced them
)

// String returns "budget", "breaker", "call", "retry", "fallback",
// "loop_guard", "repair", or "unknown decision kind: N".
func (k DecisionKind) String() string {
	switch k {
	case DecisionBudget:
		return "budget"
	case DecisionBreaker:
		return "breaker"
	case DecisionCall:
		return "call"
	case DecisionRetry:
		return "retry"
	case DecisionFallback:
		return "fallback"
	case DecisionLoopGuard:
		return "loop_guard"
	case DecisionRepair:
		return "repair"
	}
	return "unknown decision kind: " + strconv.Itoa(int(k))
}

var decisionKinds = map[core.RecordKind]DecisionKind{
	core.RecordBudget: DecisionBudget, core.RecordLoopGuard: DecisionLoopGuard, core.RecordBreaker: DecisionBreaker,
	core.RecordCall: DecisionCall, core.RecordRetry: DecisionRetry, core.RecordFallback: DecisionFallback,
	core.RecordRepair: DecisionRepair,
}

// Decision is one step of Executor.Do, reported to OnDecision and the Logger:
// core's Record (the same record every language's runtime reports; its
// Value is the JSON other runtimes log) with Go's error values attached.
//
// Allowed is: the attempt may go (budget, loop guard, breaker), the call
// succeeded (call), a retry follows (retry). Reason is the retry reason, the
// breaker phase after the event, what ran out (budget) or why the store
// failed (fallback). DelayMs is the wait before the retry, in milliseconds.
// Envelope is the refusal or failure, if any. Err is the tool's error (call)
// or the store's (fallback, with reason store_error).
type Decision struct {
	Kind     DecisionKind
	Tool     string
	Attempt  int
	Allowed  bool
	Reason   string
	DelayMs  int64
	Envelope *core.Envelope
	Err      error
	Record   core.Record
}

// Executor wraps tool calls with a budget, a loop guard, one breaker per
// tool, retries and classification. The zero value works: in-memory
// breakers with the seed defaults, the SDK retry defaults, no budget, no
// loop guard, no reporting. Set the fields before the first Do; an Executor
// is safe for concurrent use afterwards. A setting the step op refuses given
// as JSON (a negative Retry or Breaker field, Budget limit, Tokens charge,
// Timeout or StoreBackoff, a field above 2^53 ms, a LoopGuard threshold
// above core.MaxStepLoopThreshold) makes every Do return INVALID_INPUT, with
// the op's member in details.path ("policy.max_attempts", "loop.threshold",
// ...; core.CheckStepConfig), before the tool is called.
//
// The decisions are core.Step's (the step op every language's runtime
// uses); Do only performs the actions Step asks for: store reads and
// compare-and-swaps, the call, sleeping.
type Executor struct {
	// Store keeps breaker states; nil is a private MemoryStore. Use
	// redisstore.New to share breakers between replicas. Its operations
	// should end within a short deadline of their own (redisstore: 50 ms):
	// a failed one sends the executor's breaker decisions to its own copy
	// of the state for StoreBackoff.
	Store Store
	// StoreBackoff is how long the Store is left alone after it failed (0:
	// core.DefaultStoreBackoffMs, 1 s); meanwhile every breaker decision is
	// made on the last state this executor saw there.
	StoreBackoff time.Duration
	// KeyPrefix goes before the tool name to make the store key; "" is
	// "toolerr:breaker:".
	KeyPrefix string
	// Breaker configures every tool's breaker (zero fields: 3 failures,
	// 30000 ms, 2 probes).
	Breaker core.BreakerSettings
	// Retry bounds retries (zero fields: 3 attempts, 500 ms base, 8000 ms
	// cap, 120000 ms longest accepted wait hint).
	Retry core.RetryPolicy
	// Timeout bounds each Do, retries and backoff sleeps included (0: no
	// bound beyond ctx's deadline). A retry whose sleep would pass it is not
	// taken; each attempt's ctx carries what is left.
	Timeout time.Duration
	// Budget, when set, is charged one step (and Tokens) before every attempt.
	Budget *Budget
	// LoopGuard, when set, refuses a call (LOOP_DETECTED) that failed its
	// threshold of times in a row with the same Args.
	LoopGuard *LoopGuard
	// Classify turns a tool's error into an envelope; nil is
	// core.ClassifyError with SourceTool, the tool name and the attempt. An
	// error that is (or wraps) an *Error keeps its Envelope. Either is
	// passed through core.SafeFailure (a secret in its message or details
	// redacted); a code that is no UPPER_SNAKE token, or a source other
	// than the three, makes Do return the executor's INTERNAL failure.
	Classify func(err error, tool string, attempt int) core.Envelope
	// OnDecision, when set, receives every decision, synchronously.
	OnDecision func(Decision)
	// Logger, when set, logs every decision as "toolerr decision" with the
	// record's members as attributes, at the record's level (Debug, Info,
	// Warn).
	Logger *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Draw returns a uniform number in [0, 1) for jitter; nil is
	// math/rand/v2.Float64.
	Draw func() float64
	// Sleep waits d or until ctx ends (then returning ctx.Err()); nil is a
	// timer.
	Sleep func(ctx context.Context, d time.Duration) error

	once    sync.Once
	mem     *MemoryStore // the Store when none is set
	replica replica
	// aheadFor is the answers decided ahead the steps are asked for; 0,
	// the default, is core.AheadSuccess, a call's success only. A Go step
	// is a typed core.Step (a lock and a clock read, no crossing), so
	// deciding a cas's and a sleep's answers ahead too (core.AheadSwapped,
	// core.AheadSlept) saves no crossing and runs nested steps instead: the
	// bench's work took 3.80 against 2.40 µs of CPU per call with them in
	// one run and the same in another (README, issue 14). The bindings,
	// whose every step crosses into the
	// core, ask for all three; the decisions are the same either way
	// (TestStep_decidedAhead_sameDecisions). Tests set all three to drive
	// the chained answers through this executor.
	aheadFor core.AheadKinds
	// noStanding turns off asking a start whether its answer stands and
	// keeping the one that stood (core.Standing), for the tests and the
	// benchmark that compare the two.
	noStanding bool
}

// replica is what this executor knows of the shared breakers between calls
// (core.ReplicaState): one back-off window, and per tool its store key and
// the last state seen there.
//
// downUntilMs is written under mu and read without it where a call only
// asks whether the Store may be tried (storeUp); tools is replaced, never
// changed, under mu (a tool's first call copies it), so that a call finds
// its tool's view without taking mu.
type replica struct {
	mu          sync.Mutex
	downUntilMs atomic.Int64
	tools       atomic.Pointer[map[string]*toolView]
}

// toolView is one tool's part of the replica: its store key (built once),
// the breaker state last seen (core.ReplicaState.State), and the last start
// answer that stood (core.Standing) with the config it stood for: a copy
// of its own, which no call changes.
type toolView struct {
	key     string
	seen    []byte
	stood   *core.StepResult
	stoodIn core.StepConfig
}

// view returns tool's part, made on its first call (under rp.mu, in a
// copy of the map that then replaces it).
func (rp *replica) view(tool, prefix string) *toolView {
	if v := rp.find(tool); v != nil {
		return v
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	old := *rp.tools.Load()
	if v := old[tool]; v != nil {
		return v
	}
	v := &toolView{key: core.StepConfig{Tool: tool, KeyPrefix: prefix}.Key()}
	m := make(map[string]*toolView, len(old)+1)
	for k, w := range old {
		m[k] = w
	}
	m[tool] = v
	rp.tools.Store(&m)
	return v
}

// find returns tool's part, or nil before its first call.
func (rp *replica) find(tool string) *toolView { return (*rp.tools.Load())[tool] }

// callScratch is the memory one Do reuses for every step: the load made
// ahead, the last step's answer, the records' buffer and the chain of
// answers decided ahead. Do takes one from scratchPool and puts it back, so
// a call allocates none of them.
type callScratch struct {
	loaded  core.StepEvent
	result  core.StepResult
	recs    []core.Record
	used    int  // the most records a step wrote into recs
	stepped bool // a step ran (result and ahead hold its answers)
	ahead   core.StepAhead
	// failure is the last failed attempt's envelope, which its event
	// points to: Step copies what it keeps (records, state) and keeps no
	// pointer to it, so the next failure may write over it.
	failure core.Envelope
}

var scratchPool = sync.Pool{New: func() any {
	return &callScratch{recs: make([]core.Record, 0, 8), ahead: core.StepAhead{Result: core.StepResult{Records: make([]core.Record, 0, 2)}}}
}}

// CallOption adds a fact about one call to Do or Call. A nil CallOption is
// ignored (an option a caller leaves out conditionally, as Call(ctx, x, tool,
// fn, nil) passes one), never called.
type CallOption func(*callOptions)

type callOptions struct {
	args   any
	tokens int64
}

// Args gives the call's arguments to the loop guard, which compares their
// canonical JSON (encoding/json writes them first).
func Args(v any) CallOption { return func(o *callOptions) { o.args = v } }

// Tokens charges n tokens (an estimate, before spending) to the budget with
// each attempt's step.
func Tokens(n int64) CallOption { return func(o *callOptions) { o.tokens = n } }

// Do calls fn for tool under the budget, the loop guard, the tool's breaker
// and the retry policy, and returns nil on success or an *Error carrying the
// envelope.
//
// Each attempt: charge the budget (refused: BUDGET_EXHAUSTED); on the first,
// ask the loop guard (refused: LOOP_DETECTED); ask the breaker (refused:
// CIRCUIT_OPEN with the wait left); call fn; report success or the
// classified failure to the breaker, then ask core.Retry; a retry sleeps
// DelayMs unless ctx ends first. An envelope with retryable false is never
// retried. When ctx ends, Do returns at once with CANCELLED (or TIMEOUT for
// a deadline). These decisions are core.Step's.
func (x *Executor) Do(ctx context.Context, tool string, fn func(ctx context.Context) error, opts ...CallOption) error {
	x.once.Do(x.init)
	if x.Timeout < 0 || x.StoreBackoff < 0 {
		return x.configError(tool)
	}
	var o callOptions
	if len(opts) > 0 {
		o = readOptions(opts)
	}
	cfg := core.StepConfig{Tool: tool, KeyPrefix: x.KeyPrefix, Policy: x.Retry, Settings: x.Breaker,
		TimeoutMs: ceilMs(x.Timeout), Charge: core.BudgetCharge{Tokens: o.tokens},
		StoreBackoffMs: ceilMs(x.StoreBackoff)}
	if x.Budget != nil {
		cfg.Budget = &x.Budget.limits
	}
	if x.LoopGuard != nil {
		cfg.Loop, cfg.LoopThreshold = true, int64(x.LoopGuard.threshold)
	}
	if err := core.CheckStepConfig(cfg); err != nil { // once per Do: the steps take the same cfg
		return stepConfigError(tool, err)
	}
	ev := core.StepEvent{Kind: core.EventStart}
	if cfg.Loop {
		b, err := json.Marshal(o.args)
		if err == nil {
			ev.ArgsKey, err = core.LoopArgsKey(b)
		}
		if err != nil {
			return orchestratorError(core.CodeInvalidInput, "The call's arguments cannot be written as JSON for the loop guard.", tool, err)
		}
	}
	if dl, ok := ctx.Deadline(); ok {
		ev.DeadlineMs = dl.UnixMilli()
	}
	var st core.StepState
	var stopErr, storeErr error // the error a stop returns (the tool's, or ctx's) and the store's last
	sctx := ctx                 // the executor's own MemoryStore reads no ctx
	if x.Store != nil {
		sctx = storeCtx(ctx)
	}
	sc := scratchPool.Get().(*callScratch)
	defer putScratch(sc)
	view, up := x.replica.view(tool, x.KeyPrefix), x.storeUp()
	reporting := x.OnDecision != nil || x.Logger != nil
	cfg.StoreKey = view.key
	var ahead *core.StepAhead // the answer to the event the last action expects, decided ahead (nil: none)
	var aheadOf core.StepActionKind
	for {
		// An event that may carry a load made ahead gets one while the
		// store is not in its back-off window: the step uses it for the
		// breaker's load, so a call whose breaker state does not change
		// takes one step per event.
		if ev.Kind == core.EventStart || ev.Kind == core.EventCallOK || ev.Kind == core.EventCallFailed ||
			ev.Kind == core.EventSlept || (ev.Kind == core.EventCancelled && st.Phase == core.PhaseCall) {
			if ev.Kind != core.EventStart {
				up = x.storeUp()
			}
			if up {
				b, err := x.load(sctx, view.key)
				sc.loaded = core.StepEvent{Kind: core.EventLoaded, Value: b, Absent: b == nil}
				if err != nil {
					sc.loaded, storeErr = core.StepEvent{Kind: core.EventStoreError, Message: err.Error()}, err
				}
				ev.Loaded = &sc.loaded
			}
		}
		// r is read, never changed, and read up to the next step only: it
		// is a buffer of sc (the answer decided ahead, the step's) or the
		// start answer that stood, which no call changes.
		var r *core.StepResult
		if ahead != nil && x.aheadHolds(view, ahead, aheadOf, ev) {
			r = &ahead.Result // the step's answer, decided by the step before it
		} else if k := x.kept(view, cfg, ev); k != nil {
			r = k // the start's answer that stood, kept since
		} else {
			r, sc.stepped = &sc.result, true
			if err := x.step(r, cfg, view, st, ev, sc.recs, &sc.ahead); err != nil { // a Draw outside [0, 1), or a bug in this loop
				return orchestratorError(core.CodeInternal, "toolerr's executor could not take its next step: "+err.Error(), tool, err)
			}
			sc.recs, sc.used = r.Records, max(sc.used, len(r.Records))
		}
		st, ahead, aheadOf = r.State, r.Ahead, r.Action.Kind
		if reporting {
			for _, rec := range r.Records {
				x.report(ctx, rec, stopErr, storeErr)
			}
		}
		a := &r.Action
		switch a.Kind {
		case core.ActionLoad:
			b, err := x.load(sctx, a.Key)
			ev = core.StepEvent{Kind: core.EventLoaded, Value: b, Absent: b == nil}
			if err != nil {
				ev, storeErr = core.StepEvent{Kind: core.EventStoreError, Message: err.Error()}, err
			}
		case core.ActionCAS:
			var old []byte
			if !a.OldAbsent {
				old = a.Old
				if old == nil {
					old = []byte{}
				}
			}
			cur, swapped, err := x.cas(sctx, a.Key, old, a.New)
			ev = core.StepEvent{Kind: core.EventCAS, Swapped: swapped, Value: cur, Absent: cur == nil}
			if err != nil {
				ev, storeErr = core.StepEvent{Kind: core.EventStoreError, Message: err.Error()}, err
			}
		case core.ActionCall:
			cctx, cancel := ctx, context.CancelFunc(func() {})
			if a.TimeoutMs > 0 {
				cctx, cancel = context.WithTimeout(ctx, time.Duration(a.TimeoutMs)*time.Millisecond)
			}
			err := fn(cctx)
			cancel()
			switch {
			case err == nil:
				ev, stopErr = core.StepEvent{Kind: core.EventCallOK}, nil
			case ctx.Err() != nil:
				ev, stopErr = core.StepEvent{Kind: core.EventCancelled, Cause: cause(ctx.Err())}, err
			default:
				sc.failure = x.classify(err, tool, int(a.Attempt))
				ev, stopErr = core.StepEvent{Kind: core.EventCallFailed, Error: &sc.failure, Draw: x.draw()}, err
			}
		case core.ActionSleep:
			if err := x.sleep(ctx, time.Duration(a.DelayMs)*time.Millisecond); err != nil {
				ev, stopErr = core.StepEvent{Kind: core.EventCancelled, Cause: cause(err)}, err
			} else {
				ev, stopErr = core.StepEvent{Kind: core.EventSlept}, nil
			}
		default: // core.ActionStop
			if a.Error == nil {
				return nil
			}
			return &Error{Envelope: *a.Error, Attempts: int(a.Attempts), Err: stopErr}
		}
	}
}

// step runs core.Step with the run's budget and loop-guard states and the
// replica's state of the tool's breaker, holding their locks so that
// concurrent calls charge, count and decide locally one at a time, and
// writes its answer to r.
func (x *Executor) step(r *core.StepResult, cfg core.StepConfig, view *toolView, st core.StepState, ev core.StepEvent, recs []core.Record, ahead *core.StepAhead) error {
	in := core.StepInput{Config: cfg, State: st, Event: ev, NowMs: x.nowMs(), Records: recs, Ahead: ahead, AheadFor: x.aheadFor,
		Standing: ev.Kind == core.EventStart && !x.noStanding}
	if b := x.Budget; b != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		in.Budget = b.state
	}
	if g := x.LoopGuard; g != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		in.Loop = g.state
	}
	rp := &x.replica
	rp.mu.Lock()
	defer rp.mu.Unlock()
	in.Replica = core.ReplicaState{DownUntilMs: rp.downUntilMs.Load(), State: view.seen}
	var err error
	if *r, err = core.Step(in); err != nil {
		return err
	}
	if r.Budget != nil {
		x.Budget.state = *r.Budget
	}
	if r.Loop != nil {
		x.LoopGuard.state = r.Loop
	}
	if n := r.Replica; n != nil {
		view.seen = n.State
		rp.downUntilMs.Store(n.DownUntilMs)
	}
	if r.Stands.Holds {
		view.stood, view.stoodIn = keepStart(r), cfg
	}
	return nil
}

// keepStart copies r, a start's answer that stood, out of the call's
// scratch buffers (its records and the success decided ahead), so that it
// can be applied to later calls.
func keepStart(r *core.StepResult) *core.StepResult {
	k := *r
	k.Records = slices.Clone(r.Records)
	if a := r.Ahead; a != nil {
		c := *a
		c.Result.Records = slices.Clone(a.Result.Records)
		k.Ahead = &c
	}
	return &k
}

// kept returns the start answer that stood for view's tool when it holds
// for ev (docs/resilience.md, "A start answer that stands"): ev is a start
// with no deadline, the config is the one it stood for, its load made
// ahead answered exactly the bytes it stood for and the replica's state
// is {0, those bytes}. Else nil (the step is sent).
func (x *Executor) kept(view *toolView, cfg core.StepConfig, ev core.StepEvent) *core.StepResult {
	l := ev.Loaded
	if ev.Kind != core.EventStart || ev.DeadlineMs != 0 || ev.ArgsKey != "" || l == nil || l.Kind != core.EventLoaded {
		return nil
	}
	rp := &x.replica
	rp.mu.Lock()
	defer rp.mu.Unlock()
	k := view.stood
	if k == nil || view.stoodIn != cfg || rp.downUntilMs.Load() != 0 || !sameStored(l.Value, l.Absent, k.Stands.Loaded) ||
		!sameStored(view.seen, view.seen == nil, k.Stands.Loaded) {
		return nil
	}
	return k
}

// aheadHolds reports whether a, decided ahead by the step that asked for
// an action of kind of, is the answer to ev now (core.StepAhead): ev is
// the event it answers (a success or slept whose load made ahead answered
// a.Loaded, a cas that swapped) and the replica's state is still {0,
// a.Loaded}. When it holds, the replica takes the state a's answer gives,
// under the same lock, as a step would.
func (x *Executor) aheadHolds(view *toolView, a *core.StepAhead, of core.StepActionKind, ev core.StepEvent) bool {
	switch of {
	case core.ActionCall, core.ActionSleep:
		want := core.EventCallOK
		if of == core.ActionSleep {
			want = core.EventSlept
		}
		l := ev.Loaded
		if ev.Kind != want || l == nil || l.Kind != core.EventLoaded || !sameStored(l.Value, l.Absent, a.Loaded) {
			return false
		}
	case core.ActionCAS:
		if ev.Kind != core.EventCAS || !ev.Swapped {
			return false
		}
	default:
		return false
	}
	rp := &x.replica
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.downUntilMs.Load() != 0 || !sameStored(view.seen, view.seen == nil, a.Loaded) {
		return false
	}
	if n := a.Result.Replica; n != nil {
		view.seen = n.State
		rp.downUntilMs.Store(n.DownUntilMs)
	}
	return true
}

// sameStored reports whether stored bytes b (absent: none) are want (nil:
// none).
func sameStored(b []byte, absent bool, want []byte) bool {
	if absent || want == nil {
		return absent && want == nil
	}
	return string(b) == string(want)
}

// putScratch returns a call's scratch to the pool, without what it points
// to (the store's bytes, the records' envelopes); a call that took no step
// wrote only its load made ahead.
func putScratch(sc *callScratch) {
	sc.loaded = core.StepEvent{}
	if sc.stepped {
		sc.result, sc.failure = core.StepResult{}, core.Envelope{}
		clear(sc.recs[:sc.used])
		sc.recs, sc.used, sc.stepped = sc.recs[:0], 0, false
		sc.ahead.Reset()
	}
	scratchPool.Put(sc)
}

// readOptions applies a call's options.
func readOptions(opts []CallOption) callOptions {
	var o callOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// storeUp reports whether the Store is outside its back-off window (the
// replica's down_until_ms is 0), when a load may be made ahead.
func (x *Executor) storeUp() bool { return x.replica.downUntilMs.Load() == 0 }

func cause(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "deadline"
	}
	return "cancelled"
}

// Call is Do for a function that returns a value.
func Call[T any](ctx context.Context, x *Executor, tool string, fn func(ctx context.Context) (T, error), opts ...CallOption) (T, error) {
	var out T
	err := x.Do(ctx, tool, func(ctx context.Context) error {
		v, err := fn(ctx)
		if err == nil {
			out = v
		}
		return err
	}, opts...)
	return out, err
}

// BreakerState returns the stored state of tool's breaker, or, when the
// Store fails, the last state this executor saw (or made, while the Store
// failed).
func (x *Executor) BreakerState(ctx context.Context, tool string) (core.BreakerState, error) {
	x.once.Do(x.init)
	b, err := x.store().Load(ctx, x.key(tool))
	if err != nil {
		x.replica.mu.Lock()
		if v := x.replica.find(tool); v != nil {
			b = v.seen
		}
		x.replica.mu.Unlock()
	}
	return core.ParseBreakerState(b)
}

func (x *Executor) init() {
	x.mem = NewMemoryStore()
	x.replica.tools.Store(&map[string]*toolView{})
}

// load reads key from the Store; the executor's own MemoryStore lends its
// bytes without a copy (Step copies what it keeps, and neither changes them).
func (x *Executor) load(ctx context.Context, key string) ([]byte, error) {
	if x.Store == nil {
		return x.mem.view(key), nil
	}
	return x.Store.Load(ctx, key)
}

// cas compare-and-swaps key in the Store; the executor's own MemoryStore
// keeps next without a copy (Step made it, and nothing changes it) and
// lends the bytes that won a race as load does.
func (x *Executor) cas(ctx context.Context, key string, old, next []byte) ([]byte, bool, error) {
	if x.Store == nil {
		cur, swapped := x.mem.swap(key, old, next)
		return cur, swapped, nil
	}
	return x.Store.CompareAndSwap(ctx, key, old, next)
}

func (x *Executor) store() Store {
	if x.Store == nil {
		return x.mem
	}
	return x.Store
}

// storeCtx is ctx for a store operation, without its cancellation: a
// cancelled call's report still reaches the store (which bounds each
// operation with its own deadline), and a caller's cancellation is not
// taken for the store failing.
func storeCtx(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

func (x *Executor) key(tool string) string {
	return core.StepConfig{Tool: tool, KeyPrefix: x.KeyPrefix}.Key()
}

func (x *Executor) classify(err error, tool string, attempt int) core.Envelope {
	// An envelope not ClassifyError's (a tool's hand-built *Error, the
	// Classify hook's) is sanitized before the step records and stops with
	// it: it is what the caller hands the model.
	var buf [8]error                                        // most chains fit: no allocation for them
	for _, e := range core.AppendErrorChain(buf[:0], err) { // errors.As, bounded: a tool's error may lead back to itself
		if te, ok := e.(*Error); ok {
			return core.SafeFailure(te.Envelope)
		}
	}
	if x.Classify != nil {
		return core.SafeFailure(x.Classify(err, tool, attempt))
	}
	return core.ClassifyError(err, core.ClassifyOptions{Source: core.SourceTool, Tool: tool, Attempt: attempt, NowMs: x.nowMs()})
}

func (x *Executor) nowMs() int64 {
	if x.Now != nil {
		return x.Now().UnixMilli()
	}
	return time.Now().UnixMilli()
}

func (x *Executor) draw() float64 {
	if x.Draw != nil {
		return x.Draw()
	}
	return rand.Float64()
}

func (x *Executor) sleep(ctx context.Context, d time.Duration) error {
	if x.Sleep != nil {
		return x.Sleep(ctx, d)
	}
	return sleep(ctx, d)
}

// report hands one record to OnDecision and the Logger; toolErr and storeErr
// are the Go errors behind a call or fallback record.
func (x *Executor) report(ctx context.Context, rec core.Record, toolErr, storeErr error) {
	d := Decision{Kind: decisionKinds[rec.Kind], Tool: rec.Tool, Attempt: int(rec.Attempt), Allowed: rec.Allowed,
		Reason: rec.Reason, DelayMs: rec.DelayMs, Envelope: rec.Envelope, Record: rec}
	switch rec.Kind {
	case core.RecordBreaker:
		d.Reason = rec.Phase.String()
	case core.RecordCall:
		if !rec.Allowed {
			d.Err = toolErr
		}
	case core.RecordFallback:
		if rec.Reason == "store_error" {
			d.Err = storeErr
		}
	}
	if x.OnDecision != nil {
		x.OnDecision(d)
	}
	if x.Logger == nil {
		return
	}
	level := slog.LevelDebug
	switch rec.Level {
	case core.LevelInfo:
		level = slog.LevelInfo
	case core.LevelWarn:
		level = slog.LevelWarn
	}
	if !x.Logger.Enabled(ctx, level) {
		return
	}
	v := rec.Value()
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	attrs := make([]slog.Attr, 0, len(keys))
	for _, k := range keys {
		attrs = append(attrs, slog.Any(k, v[k]))
	}
	x.Logger.LogAttrs(ctx, level, "toolerr decision", attrs...)
}

// sleep waits for d or until ctx ends, whichever is first; it returns
// ctx.Err() in the second case.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// LoopGuard is one run's loop guard, safe for concurrent use: it refuses a
// call of a tool (LOOP_DETECTED) that failed threshold times in a row with
// the same arguments (Args); a success, or other arguments, end the count.
// The decisions are core.Step's.
type LoopGuard struct {
	mu        sync.Mutex
	threshold int
	state     core.LoopState
}

// NewLoopGuard returns a loop guard refusing after threshold failures in a
// row (0 or less: 3, the loop_guard op's default). A threshold above
// core.MaxStepLoopThreshold (2^31) makes Do return INVALID_INPUT at
// loop.threshold, as the step op refuses it.
func NewLoopGuard(threshold int) *LoopGuard { return &LoopGuard{threshold: max(threshold, 0)} }

// State returns a copy of the failures in a row counted so far, per tool.
func (g *LoopGuard) State() core.LoopState {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(core.LoopState, len(g.state))
	for k, v := range g.state {
		out[k] = v
	}
	return out
}

// Budget is one run's step, token and wall-time budget, safe for concurrent
// use; the decisions are core.Budget's.
type Budget struct {
	mu     sync.Mutex
	limits core.BudgetLimits
	state  core.BudgetState
}

// NewBudget returns a budget with limits l (a zero field is no limit).
func NewBudget(l core.BudgetLimits) *Budget { return &Budget{limits: l} }

// Charge charges c at nowMs (ms since the Unix epoch) before spending; see
// core.Budget. A refused charge changes nothing; a charge, limit or nowMs
// the budget op refuses is core.Budget's *core.RequestError.
func (b *Budget) Charge(c core.BudgetCharge, nowMs int64) (core.BudgetResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := core.Budget(b.state, b.limits, c, nowMs)
	if err != nil {
		return r, err
	}
	b.state = r.State
	return r, nil
}

// State returns what has been spent so far.
func (b *Budget) State() core.BudgetState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

// ceilMs returns d in whole milliseconds rounded up, as the step op takes
// timeout_ms and store_backoff_ms: 500µs is 1 ms, never 0 (which is the
// default: no timeout). A Duration (at most about 9.2e12 ms) is always
// under the op's largest, 2^53 ms.
func ceilMs(d time.Duration) int64 {
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond > 0 {
		ms++
	}
	return ms
}

// configError is the INVALID_INPUT *Error of an Executor whose Timeout or
// StoreBackoff is negative, which no call can keep: details.path names the
// step op's member (timeout_ms, store_backoff_ms), as the op names the one
// it refuses, and details.tool the tool. The Timeout is checked first.
func (x *Executor) configError(tool string) *Error {
	path, name, d := "timeout_ms", "Timeout", x.Timeout
	if d >= 0 {
		path, name, d = "store_backoff_ms", "StoreBackoff", x.StoreBackoff
	}
	e, _ := core.NewEnvelope(core.CodeInvalidInput,
		"toolerr: "+path+": the Executor's "+name+" is "+d.String()+"; it must be 0 (the default) or more.",
		map[string]any{"tool": tool, "op": "step", "path": path}, core.SourceOrchestrator)
	return &Error{Envelope: e}
}

// stepConfigError is the INVALID_INPUT *Error of an Executor (or a Do's
// options) whose settings the step op refuses given as JSON
// (core.CheckStepConfig's *core.RequestError err): the op's message,
// details.path and details.op, and details.tool the tool.
func stepConfigError(tool string, err error) *Error {
	path, msg := "", err.Error()
	if re, ok := errors.AsType[*core.RequestError](err); ok {
		path = re.Path
	}
	e, _ := core.NewEnvelope(core.CodeInvalidInput, msg, map[string]any{"tool": tool, "op": "step", "path": path}, core.SourceOrchestrator)
	return &Error{Envelope: e}
}

// orchestratorError is the *Error of a failure of the executor itself,
// naming the tool; cause is the Go error behind it. The code is a
// registered one and the source orchestrator, which core.NewEnvelope always
// accepts.
func orchestratorError(code core.Code, msg, tool string, cause error) *Error {
	e, _ := core.NewEnvelope(code, msg, map[string]any{"tool": tool}, core.SourceOrchestrator)
	return &Error{Envelope: e, Err: cause}
}
