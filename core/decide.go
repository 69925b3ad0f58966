package core

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/decide"
	"github.com/toolerr/toolerr/core/internal/format"
)

// RetryPolicy bounds the retries of one tool call; a zero field takes its
// default. MaxAttempts counts every attempt including the first (default 3;
// 1 = never retry). BaseMs and CapMs, in milliseconds, shape the backoff
// ceiling min(CapMs, BaseMs*2^(attempt-1)) (defaults 500 and 8000).
// MaxWaitMs is the longest server wait hint accepted, in milliseconds
// (default 120000); a longer hint means no retry.
//
// See openai-python src/openai/_constants.py and _base_client.py
// (max_retries 2, 0.5 s initial, 8 s max, no retry on a hint above 120 s).
type RetryPolicy = decide.RetryPolicy

// RetryDecision says whether to retry (Retry), after how many milliseconds
// (DelayMs, 0 when not retrying) and why (Reason).
type RetryDecision = decide.RetryDecision

// RetryReason is why Retry decided as it did; String gives the snake_case
// name the retry op returns (not_retryable, attempts_exhausted,
// retry_after_too_long, backoff, retry_after).
type RetryReason = decide.RetryReason

// The retry reasons.
const (
	RetryNotRetryable      = decide.ReasonNotRetryable
	RetryAttemptsExhausted = decide.ReasonAttemptsExhausted
	RetryAfterTooLong      = decide.ReasonRetryAfterTooLong
	RetryBackoff           = decide.ReasonBackoff
	RetryAfterHint         = decide.ReasonRetryAfter
)

// Retry decides whether the orchestrator retries a call whose attempt number
// attempt (1-based, the attempt that just failed) ended in e, and after how
// long. draw is a uniform random number in [0, 1) from the caller. An
// attempt outside [1, 2^31], a negative policy member or one above 2^53, or
// a draw outside [0, 1) is a *RequestError (Path "attempt",
// "policy.max_attempts", ... or "draw"), exactly as the retry op reports it.
//
// Never retries when e.Retryable is false, nor once attempt reaches
// p.MaxAttempts, nor when details.retry_after_seconds asks for more than
// p.MaxWaitMs. Otherwise the delay is full jitter,
// floor(draw*min(CapMs, BaseMs*2^(attempt-1))), raised to the server's hint
// when the hint is longer.
//
// See https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
// and openai-python _base_client.py (_calculate_retry_timeout).
func Retry(e Envelope, attempt int, p RetryPolicy, draw float64) (RetryDecision, error) {
	if err := decide.CheckRetry(int64(attempt), p, draw); err != nil {
		return RetryDecision{}, requestError("retry", err)
	}
	return decide.Retry(e, int64(attempt), p, draw), nil
}

// BreakerState is the JSON-serializable state of one circuit breaker; the
// zero value is a new, closed breaker. Keep it wherever you like and pass it
// back on the next event. AppendJSON writes its canonical JSON and
// ParseBreakerState reads it.
type BreakerState = decide.BreakerState

// BreakerSettings configure a breaker; a zero field takes its default:
// FailureThreshold 3 consecutive counted failures, OpenMs 30000 ms held open
// (also the lease of a half-open probe), SuccessThreshold 2 successful
// probes.
//
// See https://martinfowler.com/bliki/CircuitBreaker.html and
// https://github.com/sony/gobreaker (Settings: MaxRequests, Timeout,
// ReadyToTrip).
type BreakerSettings = decide.BreakerSettings

// BreakerPhase is closed, open or half_open.
type BreakerPhase = decide.BreakerPhase

// The breaker phases.
const (
	BreakerClosed   = decide.Closed
	BreakerOpen     = decide.Open
	BreakerHalfOpen = decide.HalfOpen
)

// BreakerEvent is what a caller tells a breaker: BreakerAllow (may a call go
// now?), BreakerSuccess or BreakerFailure (how a call ended).
type BreakerEvent = decide.BreakerEvent

// The breaker events.
const (
	BreakerAllow   = decide.EventAllow
	BreakerSuccess = decide.EventSuccess
	BreakerFailure = decide.EventFailure
)

// BreakerResult is the next State, whether an allow may call (Allowed), and
// for a refused allow the CIRCUIT_OPEN envelope (Error) whose
// details.retry_after_seconds is the wait left.
type BreakerResult = decide.BreakerResult

// BreakerTransition is the pure transition of one breaker: state prev, event
// ev at nowMs (milliseconds since the Unix epoch), settings s. failure is
// the envelope of a failed call (BreakerFailure only; nil counts as
// unhealthy); tool, when not "", is named in the CIRCUIT_OPEN envelope.
// Inputs the breaker op refuses are a *RequestError with the op's path and
// wording: a phase or event outside the three, a negative count or time or
// one above 2^53 (Path "state.failures", ...), nowMs outside [0, 2^53]
// ("now_ms"), a negative setting ("settings.open_ms", ...; 0 is the
// default), a failure with another event ("error").
//
// Closed opens after FailureThreshold consecutive counted failures and holds
// OpenMs; then half-open lets exactly one probe through at a time (a probe
// that never reports loses its slot after OpenMs), closes after
// SuccessThreshold successful probes and reopens on a failed one. Only
// failures that say the tool is unhealthy count (BreakerCounts).
//
// See https://github.com/sony/gobreaker.
func BreakerTransition(prev BreakerState, ev BreakerEvent, nowMs int64, s BreakerSettings, failure *Envelope, tool string) (BreakerResult, error) {
	if err := decide.CheckBreaker(prev, ev, nowMs, s, failure); err != nil {
		return BreakerResult{}, requestError("breaker", err)
	}
	return decide.Breaker(prev, ev, nowMs, s, failure, tool), nil
}

// BreakerCounts reports whether a failure with envelope e counts toward
// opening a breaker: RATE_LIMITED, OVERLOADED, SERVER_ERROR, TRANSPORT and
// TIMEOUT do (the registry's retryable codes but CONFLICT and CIRCUIT_OPEN);
// INVALID_ARGS, TOOL_ERROR and every other terminal code do not. An
// unregistered code counts when e.Retryable.
func BreakerCounts(e Envelope) bool { return decide.Counts(e) }

// ParseBreakerState reads the JSON of a BreakerState (as AppendJSON writes
// it); empty input or null is a new breaker. Returns a *RequestError naming
// the member for bad input.
func ParseBreakerState(b []byte) (BreakerState, error) {
	s, err := decide.ParseBreakerState(b)
	if err != nil {
		return s, requestError("breaker", err)
	}
	return s, nil
}

// BudgetState is what one run has spent (Steps, Tokens) and when it started
// (StartedMs, ms since the Unix epoch; 0 = not started).
type BudgetState = decide.BudgetState

// BudgetLimits are a run's ceilings: Steps, Tokens and WallMs (milliseconds
// from the first charge). Zero means no limit.
type BudgetLimits = decide.BudgetLimits

// BudgetCharge is what the next step will spend; zero is one step.
type BudgetCharge = decide.BudgetCharge

// BudgetResult says whether the charge is Allowed, the next State (unchanged
// when refused) and, when refused, the BUDGET_EXHAUSTED Error (retryable
// false) whose details.exhausted names what ran out. Remaining returns what
// is left of each limited budget.
type BudgetResult = decide.BudgetResult

// Budget charges c against l before the step spends anything, at nowMs
// (milliseconds since the Unix epoch). Wall time is checked first, then
// steps, then tokens; a charge that would pass a ceiling is refused. A
// negative member of prev, l or c, one above 2^53, or nowMs outside
// [0, 2^53] is a *RequestError (Path "state.steps", "limits.wall_ms",
// "charge.tokens", "now_ms", ...), exactly as the budget op reports it.
//
// See docs/resilience.md, "budget" (a budget refuses the step that would
// pass a ceiling and says so with BUDGET_EXHAUSTED).
func Budget(prev BudgetState, l BudgetLimits, c BudgetCharge, nowMs int64) (BudgetResult, error) {
	if err := decide.CheckBudget(prev, l, c, nowMs); err != nil {
		return BudgetResult{}, requestError("budget", err)
	}
	return decide.Budget(prev, l, c, nowMs), nil
}

// Trace is a recorded failure trace for Replay: the tool's outcomes in call
// order (the last repeats once they run out), the Bound on tool calls, the
// orchestrator's retry Policy and the Tool name (default "search").
type Trace = decide.Trace

// ReplayResult is what a replayed run did: Calls (tool calls, orchestrator
// retries included), Turns (outcomes the model saw), Terminated (the model
// stopped by itself within the bound), Reason, and the Transcript of wire
// messages the model saw.
type ReplayResult = decide.ReplayResult

// ParseTrace reads a trace from its JSON (the "trace" member of the replay
// op). Returns a *RequestError naming the member for bad input.
func ParseTrace(b []byte) (Trace, error) {
	v, err := canonical.Parse(b)
	if err != nil {
		return Trace{}, requestError("replay", err)
	}
	t, err := decide.ReadTrace(v, "trace")
	if err != nil {
		return t, requestError("replay", err)
	}
	return t, nil
}

// Replay runs a trace against toolerr's scripted model, serializing what the
// model sees through format f: the orchestrator retries retryable failures
// within t.Policy; the model calls again on ambiguous feedback, fixes its
// arguments once per distinct INVALID_ARGS, and stops on a clear result or a
// terminal code. Returns a *RequestError for an unknown format, a
// serializer failure, or a transcript that would pass 32 MiB of JSON
// (Path "trace.bound").
//
// See https://dev.to/aws/how-to-prevent-ai-agent-reasoning-loops-from-wasting-tokens-2652
// (ambiguous tool feedback: 14 calls; clear states: 2).
func Replay(t Trace, f Format) (ReplayResult, error) {
	c, err := format.Named(string(f), "format")
	if err != nil {
		return ReplayResult{}, requestError("replay", err)
	}
	r, err := decide.Replay(t, c.Serialize)
	if err != nil {
		return r, requestError("replay", err)
	}
	return r, nil
}
