package resilience

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
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

// The kinds of decision, in the order Do takes them.
const (
	DecisionBudget   DecisionKind = iota // the budget allowed or refused an attempt
	DecisionBreaker                      // the breaker allowed or refused an attempt
	DecisionCall                         // the tool was called; Envelope is its failure, nil on success
	DecisionRetry                        // retry or not after a failure; DelayMs is the wait
	DecisionFallback                     // the Store failed; the decision used local state (Err says why)
)

// String returns "budget", "breaker", "call", "retry", "fallback", or
// "unknown decision kind: N".
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
	}
	return "unknown decision kind: " + strconv.Itoa(int(k))
}

// Decision is one step of Executor.Do, reported to OnDecision and the Logger.
//
// Allowed is: the attempt may go (budget, breaker), the call succeeded
// (call), a retry follows (retry). Reason is the retry reason or the
// breaker phase after the event. DelayMs is the wait before the retry, in
// milliseconds. Envelope is the refusal or failure, if any.
type Decision struct {
	Kind     DecisionKind
	Tool     string
	Attempt  int
	Allowed  bool
	Reason   string
	DelayMs  int64
	Envelope *core.Envelope
	Err      error
}

// Executor wraps tool calls with a budget, one breaker per tool, retries and
// classification. The zero value works: in-memory breakers with the seed
// defaults, the SDK retry defaults, no budget, no reporting. Set the fields
// before the first Do; an Executor is safe for concurrent use afterwards.
type Executor struct {
	// Store keeps breaker states; nil is a private MemoryStore. Use
	// redisstore.New to share breakers between replicas.
	Store Store
	// KeyPrefix goes before the tool name to make the store key; "" is
	// "toolerr:breaker:".
	KeyPrefix string
	// Breaker configures every tool's breaker (zero fields: 3 failures,
	// 30000 ms, 2 probes).
	Breaker core.BreakerSettings
	// Retry bounds retries (zero fields: 3 attempts, 500 ms base, 8000 ms
	// cap, 120000 ms longest accepted wait hint).
	Retry core.RetryPolicy
	// Budget, when set, is charged one step before every attempt.
	Budget *Budget
	// Classify turns a tool's error into an envelope; nil is
	// core.ClassifyError with SourceTool, the tool name and the attempt. An
	// error that is (or wraps) an *Error keeps its Envelope.
	Classify func(err error, tool string, attempt int) core.Envelope
	// OnDecision, when set, receives every decision, synchronously.
	OnDecision func(Decision)
	// Logger, when set, logs every decision at Debug (Warn for refusals,
	// failures and fallbacks).
	Logger *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Draw returns a uniform number in [0, 1) for jitter; nil is
	// math/rand/v2.Float64.
	Draw func() float64

	once  sync.Once
	local *MemoryStore
}

// Do calls fn for tool under the budget, the tool's breaker and the retry
// policy, and returns nil on success or an *Error carrying the envelope.
//
// Each attempt: charge the budget (refused: BUDGET_EXHAUSTED), ask the
// breaker (refused: CIRCUIT_OPEN with the wait left), call fn, report
// success or the classified failure to the breaker, then ask core.Retry;
// a retry sleeps DelayMs unless ctx ends first. An envelope with retryable
// false is never retried. When ctx ends, Do returns at once with the
// classification of ctx.Err() (CANCELLED or TIMEOUT).
func (x *Executor) Do(ctx context.Context, tool string, fn func(ctx context.Context) error) error {
	x.once.Do(func() { x.local = NewMemoryStore() })
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return &Error{Envelope: x.classify(err, tool, attempt), Attempts: attempt - 1, Err: err}
		}
		if x.Budget != nil {
			r := x.Budget.Charge(core.BudgetCharge{Steps: 1}, x.nowMs())
			x.report(ctx, Decision{Kind: DecisionBudget, Tool: tool, Attempt: attempt, Allowed: r.Allowed, Envelope: r.Error})
			if !r.Allowed {
				return &Error{Envelope: *r.Error, Attempts: attempt - 1}
			}
		}
		br := x.breaker(ctx, tool, attempt, core.BreakerAllow, nil)
		x.report(ctx, Decision{Kind: DecisionBreaker, Tool: tool, Attempt: attempt, Allowed: br.Allowed, Reason: br.State.Phase.String(), Envelope: br.Error})
		if !br.Allowed {
			return &Error{Envelope: *br.Error, Attempts: attempt - 1}
		}
		err := fn(ctx)
		if err == nil {
			x.breaker(ctx, tool, attempt, core.BreakerSuccess, nil)
			x.report(ctx, Decision{Kind: DecisionCall, Tool: tool, Attempt: attempt, Allowed: true})
			return nil
		}
		env := x.classify(err, tool, attempt)
		x.breaker(ctx, tool, attempt, core.BreakerFailure, &env)
		x.report(ctx, Decision{Kind: DecisionCall, Tool: tool, Attempt: attempt, Envelope: &env, Err: err})
		d, derr := core.Retry(env, attempt, x.Retry, x.draw())
		if derr != nil {
			return derr // a Draw outside [0, 1)
		}
		x.report(ctx, Decision{Kind: DecisionRetry, Tool: tool, Attempt: attempt, Allowed: d.Retry, Reason: d.Reason.String(), DelayMs: d.DelayMs, Envelope: &env})
		if !d.Retry {
			return &Error{Envelope: env, Attempts: attempt, Err: err}
		}
		if cerr := sleep(ctx, time.Duration(d.DelayMs)*time.Millisecond); cerr != nil {
			return &Error{Envelope: x.classify(cerr, tool, attempt), Attempts: attempt, Err: cerr}
		}
	}
}

// Call is Do for a function that returns a value.
func Call[T any](ctx context.Context, x *Executor, tool string, fn func(ctx context.Context) (T, error)) (T, error) {
	var out T
	err := x.Do(ctx, tool, func(ctx context.Context) error {
		v, err := fn(ctx)
		if err == nil {
			out = v
		}
		return err
	})
	return out, err
}

// BreakerState returns the stored state of tool's breaker (from the local
// fallback when the Store fails).
func (x *Executor) BreakerState(ctx context.Context, tool string) (core.BreakerState, error) {
	x.once.Do(func() { x.local = NewMemoryStore() })
	b, err := x.store().Load(ctx, x.key(tool))
	if err != nil {
		if b, err = x.local.Load(ctx, x.key(tool)); err != nil {
			return core.BreakerState{}, err
		}
	}
	return core.ParseBreakerState(b)
}

// breaker applies one event to tool's breaker; when the Store fails it
// reports a fallback and applies the event to local state instead, so no
// decision is lost.
func (x *Executor) breaker(ctx context.Context, tool string, attempt int, ev core.BreakerEvent, failure *core.Envelope) core.BreakerResult {
	now := x.nowMs()
	key := x.key(tool)
	r, err := Transition(ctx, x.store(), key, ev, now, x.Breaker, failure, tool)
	if err == nil {
		return r
	}
	x.report(ctx, Decision{Kind: DecisionFallback, Tool: tool, Attempt: attempt, Reason: ev.String(), Err: err})
	r, err = Transition(context.WithoutCancel(ctx), x.local, key, ev, now, x.Breaker, failure, tool)
	if err != nil { // local state is always well-formed; start afresh if not
		r = core.BreakerTransition(core.BreakerState{}, ev, now, x.Breaker, failure, tool)
	}
	return r
}

func (x *Executor) store() Store {
	if x.Store == nil {
		return x.local
	}
	return x.Store
}

func (x *Executor) key(tool string) string {
	if x.KeyPrefix == "" {
		return "toolerr:breaker:" + tool
	}
	return x.KeyPrefix + tool
}

func (x *Executor) classify(err error, tool string, attempt int) core.Envelope {
	var te *Error
	if errors.As(err, &te) {
		return te.Envelope
	}
	if x.Classify != nil {
		return x.Classify(err, tool, attempt)
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

func (x *Executor) report(ctx context.Context, d Decision) {
	if x.OnDecision != nil {
		x.OnDecision(d)
	}
	if x.Logger == nil {
		return
	}
	level := slog.LevelDebug
	if !d.Allowed && d.Kind != DecisionRetry || d.Kind == DecisionFallback {
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{slog.String("kind", d.Kind.String()), slog.String("tool", d.Tool), slog.Int("attempt", d.Attempt), slog.Bool("allowed", d.Allowed)}
	if d.Reason != "" {
		attrs = append(attrs, slog.String("reason", d.Reason))
	}
	if d.Kind == DecisionRetry && d.Allowed {
		attrs = append(attrs, slog.Int64("delay_ms", d.DelayMs))
	}
	if d.Envelope != nil {
		attrs = append(attrs, slog.String("code", string(d.Envelope.Code)), slog.Bool("retryable", d.Envelope.Retryable))
	}
	if d.Err != nil && d.Kind == DecisionFallback {
		attrs = append(attrs, slog.String("error", d.Err.Error()))
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
// core.Budget. A refused charge changes nothing.
func (b *Budget) Charge(c core.BudgetCharge, nowMs int64) core.BudgetResult {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := core.Budget(b.state, b.limits, c, nowMs)
	b.state = r.State
	return r
}

// State returns what has been spent so far.
func (b *Budget) State() core.BudgetState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}
