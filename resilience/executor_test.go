package resilience

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// clock is a settable test clock.
type clock struct{ ms atomic.Int64 }

func (c *clock) now() time.Time   { return time.UnixMilli(c.ms.Load()) }
func (c *clock) advance(ms int64) { c.ms.Add(ms) }

func envErr(code core.Code, details map[string]any) error {
	e, err := core.NewEnvelope(code, "failed", details, core.SourceTool)
	if err != nil {
		panic(err) // the tests pass registry codes
	}
	return &Error{Envelope: e}
}

func newExec(c *clock, decisions *[]Decision) *Executor {
	var mu sync.Mutex
	return &Executor{
		Now:  c.now,
		Draw: func() float64 { return 0 },
		OnDecision: func(d Decision) {
			mu.Lock()
			*decisions = append(*decisions, d)
			mu.Unlock()
		},
	}
}

func kinds(ds []Decision) string {
	var s []string
	for _, d := range ds {
		k := d.Kind.String()
		if !d.Allowed {
			k += "!"
		}
		s = append(s, k)
	}
	return strings.Join(s, " ")
}

func TestExecutor_retriesRetryableThenSucceeds(t *testing.T) {
	c := &clock{}
	c.ms.Store(1_000_000)
	var ds []Decision
	x := newExec(c, &ds)
	calls := 0
	err := x.Do(context.Background(), "search", func(context.Context) error {
		calls++
		if calls < 3 {
			return envErr(core.CodeTransport, map[string]any{"status": 503})
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 3, calls)
	assert.Equal(t, "breaker call! retry breaker call! retry breaker call", kinds(ds))
}

// TestExecutor_retryableFalseNeverRetried is seed 000 checklist item 2
// through the executor: a 400 (INVALID_ARGS) is called once and returned.
func TestExecutor_retryableFalseNeverRetried(t *testing.T) {
	for _, code := range []core.Code{core.CodeInvalidArgs, core.CodeToolError, core.CodeAuthentication, core.CodeQuotaExhausted} {
		t.Run(string(code), func(t *testing.T) {
			c := &clock{}
			var ds []Decision
			x := newExec(c, &ds)
			x.Retry = core.RetryPolicy{MaxAttempts: 10}
			calls := 0
			err := x.Do(context.Background(), "search", func(context.Context) error {
				calls++
				return envErr(code, map[string]any{"retry_after_seconds": 1})
			})
			var te *Error
			require.ErrorAs(t, err, &te)
			assert.Equal(t, 1, calls)
			assert.Equal(t, code, te.Envelope.Code)
			assert.False(t, te.Envelope.Retryable)
			assert.Equal(t, "not_retryable", ds[len(ds)-1].Reason)
		})
	}
}

func TestExecutor_breakerOpensAndRefuses(t *testing.T) {
	c := &clock{}
	c.ms.Store(1_000_000)
	var ds []Decision
	x := newExec(c, &ds)
	x.Retry = core.RetryPolicy{MaxAttempts: 1}
	calls := 0
	fail := func(context.Context) error { calls++; return envErr(core.CodeTimeout, nil) }
	for i := 0; i < 3; i++ {
		require.Error(t, x.Do(context.Background(), "search", fail))
	}
	c.advance(10_000)
	err := x.Do(context.Background(), "search", fail)
	require.ErrorIs(t, err, ErrCircuitOpen)
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, int64(20), te.Envelope.Details["retry_after_seconds"])
	assert.Equal(t, 0, te.Attempts)
	assert.Equal(t, 3, calls)

	// Another tool has its own breaker.
	require.NoError(t, x.Do(context.Background(), "fetch", func(context.Context) error { return nil }))

	// After the hold: one probe, and two successes close.
	c.advance(20_000)
	ok := func(context.Context) error { calls++; return nil }
	require.NoError(t, x.Do(context.Background(), "search", ok))
	st, err := x.BreakerState(context.Background(), "search")
	require.NoError(t, err)
	assert.Equal(t, core.BreakerState{Phase: core.BreakerHalfOpen, Successes: 1}, st)
	require.NoError(t, x.Do(context.Background(), "search", ok))
	st, err = x.BreakerState(context.Background(), "search")
	require.NoError(t, err)
	assert.Equal(t, core.BreakerState{}, st)
}

func TestExecutor_invalidArgsDoNotOpenBreaker(t *testing.T) {
	c := &clock{}
	var ds []Decision
	x := newExec(c, &ds)
	for i := 0; i < 10; i++ {
		require.Error(t, x.Do(context.Background(), "search", func(context.Context) error { return envErr(core.CodeInvalidArgs, nil) }))
	}
	st, err := x.BreakerState(context.Background(), "search")
	require.NoError(t, err)
	assert.Equal(t, core.BreakerClosed, st.Phase)
}

func TestExecutor_contextCancelDuringSleep(t *testing.T) {
	x := &Executor{Draw: func() float64 { return 0.99 }, Retry: core.RetryPolicy{BaseMs: 60_000, CapMs: 60_000}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	start := time.Now()
	err := x.Do(ctx, "search", func(context.Context) error { return envErr(core.CodeTransport, nil) })
	assert.Less(t, time.Since(start), 5*time.Second)
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, core.CodeCancelled, te.Envelope.Code)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, te.Attempts)
}

func TestExecutor_budgetExhausted(t *testing.T) {
	c := &clock{}
	var ds []Decision
	x := newExec(c, &ds)
	x.Budget = NewBudget(core.BudgetLimits{Steps: 2})
	calls := 0
	err := x.Do(context.Background(), "search", func(context.Context) error { calls++; return envErr(core.CodeTransport, nil) })
	require.ErrorIs(t, err, ErrBudgetExhausted)
	assert.Equal(t, 2, calls)
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "steps", te.Envelope.Details["exhausted"])
	assert.False(t, te.Envelope.Retryable)
	assert.Equal(t, core.BudgetState{Steps: 2}, x.Budget.State())
}

func TestExecutor_defaultClassifyGoErrors(t *testing.T) {
	x := &Executor{Draw: func() float64 { return 0 }, Retry: core.RetryPolicy{MaxAttempts: 2}}
	calls := 0
	err := x.Do(context.Background(), "search", func(context.Context) error { calls++; return context.DeadlineExceeded })
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, core.CodeTimeout, te.Envelope.Code)
	assert.Equal(t, 2, calls)
	assert.Equal(t, "search", te.Envelope.Details["tool"])
}

// failingStore always errors, like Redis that cannot be reached.
type failingStore struct{}

func (failingStore) Load(context.Context, string) ([]byte, error) {
	return nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
}
func (failingStore) CompareAndSwap(context.Context, string, []byte, []byte) ([]byte, bool, error) {
	return nil, false, errors.New("dial tcp 127.0.0.1:1: connection refused")
}

func TestExecutor_storeFallbackKeepsDeciding(t *testing.T) {
	c := &clock{}
	var ds []Decision
	x := newExec(c, &ds)
	x.Store = failingStore{}
	x.Retry = core.RetryPolicy{MaxAttempts: 1}
	var buf bytes.Buffer
	x.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for i := 0; i < 3; i++ {
		require.Error(t, x.Do(context.Background(), "search", func(context.Context) error { return envErr(core.CodeTransport, nil) }))
	}
	// The replica's own breaker opened: no decision was lost.
	err := x.Do(context.Background(), "search", func(context.Context) error { return nil })
	require.ErrorIs(t, err, ErrCircuitOpen)
	var reasons []string
	for _, d := range ds {
		if d.Kind == DecisionFallback {
			reasons = append(reasons, d.Reason)
			if d.Reason == "store_error" {
				assert.Contains(t, d.Err.Error(), "connection refused")
			} else {
				assert.NoError(t, d.Err)
			}
		}
	}
	// The store failed once; within the back-off window it is not asked.
	assert.Equal(t, []string{"store_error", "backoff", "backoff", "backoff", "backoff", "backoff", "backoff"}, reasons)
	assert.Contains(t, buf.String(), "kind=fallback")
	assert.Contains(t, buf.String(), "code=CIRCUIT_OPEN")
}

func TestCall_returnsValue(t *testing.T) {
	x := &Executor{}
	v, err := Call(context.Background(), x, "add", func(context.Context) (int, error) { return 42, nil })
	require.NoError(t, err)
	assert.Equal(t, 42, v)
}

// A nil CallOption is skipped, the others still applied: Call(..., nil)
// panicked (a nil func called in readOptions) before.
func TestCall_nilOptionIsIgnored(t *testing.T) {
	x := &Executor{Budget: NewBudget(core.BudgetLimits{Tokens: 10})}
	v, err := Call(context.Background(), x, "add", func(context.Context) (int, error) { return 42, nil }, nil)
	require.NoError(t, err)
	assert.Equal(t, 42, v)
	_, err = Call(context.Background(), x, "add", func(context.Context) (int, error) { return 42, nil }, nil, Tokens(11), nil)
	require.ErrorIs(t, err, ErrBudgetExhausted)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "tokens", e.Envelope.Details["exhausted"])
}

func TestDecisionKind_String(t *testing.T) {
	assert.Equal(t, "fallback", DecisionFallback.String())
	assert.Equal(t, "unknown decision kind: 9", DecisionKind(9).String())
}

func TestError_format(t *testing.T) {
	env, err := core.NewEnvelope(core.CodeTimeout, "The call timed out", nil, core.SourceTool)
	require.NoError(t, err)
	e := &Error{Envelope: env}
	assert.Equal(t, "toolerr: TIMEOUT: The call timed out.", e.Error())
	assert.False(t, errors.Is(e, ErrCircuitOpen))
}

// TestExecutor_successfulCallAllocatesNothing: a call whose first attempt
// succeeds through a zero Executor takes its one step (the success decided
// ahead) without allocating: the scratch comes from a pool, the key is kept
// per tool, the MemoryStore lends its bytes.
func TestExecutor_successfulCallAllocatesNothing(t *testing.T) {
	x := &Executor{}
	ctx := context.Background()
	ok := func(context.Context) error { return nil }
	require.NoError(t, x.Do(ctx, "search", ok))
	assert.Equal(t, 0.0, testing.AllocsPerRun(200, func() {
		if err := x.Do(ctx, "search", ok); err != nil {
			t.Fatal(err)
		}
	}))
}

// TestExecutor_successAheadYieldsToAChangedBreaker: a call whose success
// was decided ahead on a fresh breaker, while another call of the same
// executor counts a failure meanwhile, sends its success step after all,
// which resets the count the other call left.
func TestExecutor_successAheadYieldsToAChangedBreaker(t *testing.T) {
	x := &Executor{Retry: core.RetryPolicy{MaxAttempts: 1}}
	ctx := context.Background()
	fail := func(context.Context) error { return envErr(core.CodeTransport, map[string]any{"status": 503}) }
	var inner error
	err := x.Do(ctx, "search", func(ctx context.Context) error {
		inner = x.Do(ctx, "search", fail)
		st, err := x.BreakerState(ctx, "search")
		require.NoError(t, err)
		require.Equal(t, int64(1), st.Failures, "the other call counted its failure")
		return nil
	})
	require.NoError(t, err)
	require.Error(t, inner)
	st, err := x.BreakerState(ctx, "search")
	require.NoError(t, err)
	assert.Equal(t, core.BreakerState{}, st, "the success step ran and reset the count")
}

// aheadChained asks a step for every answer decided ahead, chained.
const aheadChained = core.AheadSuccess | core.AheadSwapped | core.AheadSlept

// TestExecutor_retriedCallTakesTwoSteps: a call that fails retryably once
// and then succeeds, on a closed breaker with no deadline, takes two steps
// (its start, and its failure, whose cas, sleep, next call, success and
// its cas were decided ahead), where it took six: the clock, read once per
// step and once by the default classification, is read three times. With
// a timeout, the steps that read the clock are sent (five).
//
// The executor asks for a success's answer only by default (aheadFor 0):
// there the same call is six steps and seven reads, and leaves the same
// state (the decisions are the same: TestStep_decidedAhead_sameDecisions).
func TestExecutor_retriedCallTakesTwoSteps(t *testing.T) {
	for _, tc := range []struct {
		timeout time.Duration
		reads   int
		ahead   core.AheadKinds
	}{{0, 3, aheadChained}, {time.Minute, 6, aheadChained}, {0, 7, 0}, {time.Minute, 7, 0}} {
		reads := 0
		x := &Executor{Timeout: tc.timeout, Sleep: func(context.Context, time.Duration) error { return nil },
			Now: func() time.Time { reads++; return time.UnixMilli(1_000_000) }, aheadFor: tc.ahead}
		ctx := context.Background()
		n := 0
		flaky := func(context.Context) error {
			if n++; n%2 == 1 {
				return benchTimeout{}
			}
			return nil
		}
		require.NoError(t, x.Do(ctx, "search", flaky)) // the key written, then counted and reset
		reads = 0
		require.NoError(t, x.Do(ctx, "search", flaky))
		assert.Equal(t, tc.reads, reads, "timeout %v, ahead %b", tc.timeout, tc.ahead)
		st, err := x.BreakerState(ctx, "search")
		require.NoError(t, err)
		assert.Equal(t, core.BreakerState{}, st, "the success decided ahead reset the count")
	}
}

// TestExecutor_sleptAheadYieldsToABreakerOpenedMeanwhile: a call whose
// next attempt was decided ahead of its sleep on a closed breaker, while
// another call of the same executor opens the breaker during that sleep,
// sends its slept step after all and is refused (CIRCUIT_OPEN), as
// without answers decided ahead.
func TestExecutor_sleptAheadYieldsToABreakerOpenedMeanwhile(t *testing.T) {
	x := &Executor{aheadFor: aheadChained}
	ctx := context.Background()
	fail := func(context.Context) error { return benchTimeout{} }
	inner := 0
	x.Sleep = func(ctx context.Context, _ time.Duration) error {
		if inner++; inner == 1 {
			var te *Error
			require.ErrorAs(t, x.Do(ctx, "search", fail), &te)
			require.Equal(t, core.CodeCircuitOpen, te.Envelope.Code, "the other call opened the breaker")
		}
		return nil
	}
	calls := 0
	err := x.Do(ctx, "search", func(context.Context) error {
		calls++
		return benchTimeout{}
	})
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, core.CodeCircuitOpen, te.Envelope.Code)
	assert.Equal(t, 1, calls, "the open breaker refused the second attempt")
	assert.Equal(t, 1, te.Attempts)
}

// TestExecutor_successfulCallTakesNoStepOnceItsStartStood: the executor
// asks every start whether its answer stands (core.StepInput.Standing) and
// keeps the last one that did; a successful call whose load made ahead and
// replica are what it stood for applies it, and its success decided ahead,
// so it takes no step (the clock, read once per step, is not read) and
// logs the same decisions. A breaker another executor opened on the shared
// store, a caller's deadline and an executor timeout send the start step.
func TestExecutor_successfulCallTakesNoStepOnceItsStartStood(t *testing.T) {
	shared := NewMemoryStore()
	reads := 0
	var ds []Decision
	x := &Executor{Store: shared, Retry: core.RetryPolicy{MaxAttempts: 1}, OnDecision: func(d Decision) { ds = append(ds, d) },
		Now: func() time.Time { reads++; return time.UnixMilli(1_000_000) }}
	ctx := context.Background()
	ok := func(context.Context) error { return nil }
	require.NoError(t, x.Do(ctx, "search", ok))
	assert.Equal(t, 1, reads, "the first start is a step, its success decided ahead")
	first := ds
	for range 3 {
		reads, ds = 0, nil
		require.NoError(t, x.Do(ctx, "search", ok))
		assert.Equal(t, 0, reads, "the start that stood, applied: no step")
		assert.Equal(t, first, ds, "the same decisions as the step sent")
	}
	dctx, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	reads = 0
	require.NoError(t, x.Do(dctx, "search", ok))
	assert.Equal(t, 1, reads, "a caller's deadline: the start is a step")

	other := &Executor{Store: shared, Retry: core.RetryPolicy{MaxAttempts: 1}, Now: func() time.Time { return time.UnixMilli(1_000_000) }}
	fail := func(context.Context) error { return envErr(core.CodeTransport, map[string]any{"status": 503}) }
	for range 3 {
		require.Error(t, other.Do(ctx, "search", fail))
	}
	called := false
	err := x.Do(ctx, "search", func(context.Context) error { called = true; return nil })
	require.ErrorIs(t, err, ErrCircuitOpen, "the breaker the other executor opened refuses")
	assert.False(t, called)

	timed := &Executor{Timeout: time.Minute, Now: func() time.Time { reads++; return time.UnixMilli(1_000_000) }}
	require.NoError(t, timed.Do(ctx, "search", ok))
	reads = 0
	require.NoError(t, timed.Do(ctx, "search", ok))
	assert.Equal(t, 1, reads, "a timeout: every start is a step")
}

// loopErr is a tool error whose Unwrap chain leads back to itself.
type loopErr struct {
	msg  string
	next error
}

func (e *loopErr) Error() string { return e.msg }
func (e *loopErr) Unwrap() error { return e.next }

// TestExecutor_toolErrorThatUnwrapsToItself: the classification of a tool
// error reads its chain bounded (core.ErrorChain): errors.As here and
// errors.Is in core.ClassifyError followed a chain that leads back to
// itself for ever, and the call never returned.
func TestExecutor_toolErrorThatUnwrapsToItself(t *testing.T) {
	x := &Executor{Draw: func() float64 { return 0 }, Retry: core.RetryPolicy{MaxAttempts: 1}}
	e := &loopErr{msg: "search failed"}
	e.next = &loopErr{"dial tcp 127.0.0.1:9: connect: connection refused", e}
	done := make(chan error, 1)
	go func() { done <- x.Do(context.Background(), "search", func(context.Context) error { return e }) }()
	select {
	case err := <-done:
		var te *Error
		require.ErrorAs(t, err, &te)
		assert.Equal(t, []any{core.CodeTransport, "connection_refused"}, []any{te.Envelope.Code, te.Envelope.Details["cause"]})
	case <-time.After(20 * time.Second):
		t.Fatal("Do did not return for an error whose chain leads back to itself")
	}
}

// A Timeout under a millisecond is 1 ms (rounded up), not 0: before, 500µs
// truncated to 0 ms and the call ran with no deadline at all.
func TestExecutor_subMillisecondTimeoutRoundsUp(t *testing.T) {
	x := &Executor{Timeout: 500 * time.Microsecond}
	var had bool
	var left time.Duration
	err := x.Do(context.Background(), "t", func(ctx context.Context) error {
		var dl time.Time
		dl, had = ctx.Deadline()
		left = time.Until(dl)
		return nil
	})
	require.NoError(t, err)
	assert.True(t, had, "the attempt's ctx must carry the 1 ms bound")
	assert.LessOrEqual(t, left, time.Millisecond)
}

// ceilMs rounds up and stays exact at the largest Duration.
func TestCeilMs(t *testing.T) {
	assert.Equal(t, int64(1), ceilMs(time.Microsecond))
	assert.Equal(t, int64(2), ceilMs(time.Millisecond+time.Nanosecond))
	assert.Equal(t, int64(0), ceilMs(0))
	assert.Equal(t, int64(9223372036855), ceilMs(time.Duration(1<<63-1)))
}

// A negative Timeout or StoreBackoff is refused before any call, INVALID_INPUT
// naming the step op's member; before, `t > 0` ignored it (no timeout, the
// default back-off) and the tool was called.
func TestExecutor_negativeDurationsAreInvalidInput(t *testing.T) {
	for _, tc := range []struct {
		x    *Executor
		path string
	}{
		{&Executor{Timeout: -time.Millisecond}, "timeout_ms"},
		{&Executor{Timeout: -time.Nanosecond}, "timeout_ms"},
		{&Executor{StoreBackoff: -time.Second}, "store_backoff_ms"},
		{&Executor{Timeout: -1, StoreBackoff: -1}, "timeout_ms"},
	} {
		calls := 0
		err := tc.x.Do(context.Background(), "get_weather", func(context.Context) error { calls++; return nil })
		var te *Error
		require.ErrorAs(t, err, &te, tc.path)
		assert.Equal(t, core.CodeInvalidInput, te.Envelope.Code, tc.path)
		assert.Equal(t, core.SourceOrchestrator, te.Envelope.Source, tc.path)
		assert.Equal(t, map[string]any{"tool": "get_weather", "op": "step", "path": tc.path}, te.Envelope.Details, tc.path)
		assert.Contains(t, te.Envelope.Message, tc.path)
		assert.Equal(t, 0, calls, tc.path)
	}
}

// A refusal of what the user's Classify hook returned is the executor's
// failure to go on, INTERNAL, not the caller's bad input.
func TestExecutor_classifyHookRefusalStaysInternal(t *testing.T) {
	x := &Executor{Classify: func(error, string, int) core.Envelope { return core.Envelope{} }}
	err := x.Do(context.Background(), "t", func(context.Context) error { return errors.New("boom") })
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, core.CodeInternal, te.Envelope.Code, te.Envelope.Message)
}
