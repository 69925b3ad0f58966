package decide

import (
	"math"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
)

// RetryReason says why Retry decided as it did. Its string form is the
// snake_case "reason" of the retry op.
type RetryReason int

// The retry reasons, in the order Retry checks them.
const (
	ReasonNotRetryable      RetryReason = iota // the envelope says retryable false: the model must act
	ReasonAttemptsExhausted                    // attempt reached Policy.MaxAttempts
	ReasonRetryAfterTooLong                    // the server's wait hint exceeds Policy.MaxWaitMs
	ReasonBackoff                              // retry after a full-jitter backoff delay
	ReasonRetryAfter                           // retry after the server's wait hint (longer than the backoff)
)

// String returns the snake_case name of r, or "unknown retry reason: N".
func (r RetryReason) String() string { return enumName(retryReasonNames[:], int(r), "retry reason") }

var retryReasonNames = [...]string{"not_retryable", "attempts_exhausted", "retry_after_too_long", "backoff", "retry_after"}

// The retry policy defaults (used for a zero or absent field).
const (
	// DefaultMaxAttempts is 3 attempts in all (2 retries): openai-python and
	// anthropic-sdk-python max_retries=2, botocore standard mode 3 attempts.
	DefaultMaxAttempts = 3
	// DefaultBaseMs is 500 ms: openai-python INITIAL_RETRY_DELAY 0.5 s.
	DefaultBaseMs = 500
	// DefaultCapMs is 8000 ms: openai-python MAX_RETRY_DELAY 8 s.
	DefaultCapMs = 8000
	// DefaultMaxWaitMs is 120000 ms: openai-python gives up at once when the
	// server asks for more than 120 s.
	DefaultMaxWaitMs = 120000
)

// RetryPolicy bounds retries of one tool call. A zero field takes its default.
//
// MaxAttempts counts every attempt including the first (default 3); 1 means
// never retry. BaseMs and CapMs shape the backoff ceiling
// min(CapMs, BaseMs * 2^(attempt-1)) in milliseconds (defaults 500 and 8000).
// MaxWaitMs is the longest server wait hint (retry_after_seconds) the
// orchestrator accepts, in milliseconds (default 120000); a longer hint means
// no retry.
//
// See the official SDKs' retry rules: openai-python and anthropic-sdk-python
// `_base_client.py` (2 retries, x-should-retry), google-genai
// `HttpRetryOptions` (none by default), botocore's standard retry mode.
type RetryPolicy struct {
	MaxAttempts int64
	BaseMs      int64
	CapMs       int64
	MaxWaitMs   int64
}

// WithDefaults returns p with every zero field set to its default.
func (p RetryPolicy) WithDefaults() RetryPolicy {
	p.MaxAttempts = orDefault(p.MaxAttempts, DefaultMaxAttempts)
	p.BaseMs = orDefault(p.BaseMs, DefaultBaseMs)
	p.CapMs = orDefault(p.CapMs, DefaultCapMs)
	p.MaxWaitMs = orDefault(p.MaxWaitMs, DefaultMaxWaitMs)
	return p
}

// orDefault is v, or d when v is zero or negative: a setting left zero
// takes its default (RetryPolicy, BreakerSettings, the loop threshold).
func orDefault(v, d int64) int64 {
	if v <= 0 {
		return d
	}
	return v
}

// RetryDecision is the outcome of Retry: whether to retry, after how many
// milliseconds, and why.
type RetryDecision struct {
	Retry   bool
	DelayMs int64
	Reason  RetryReason
}

// MaxAttempt is the largest attempt number the retry op and core.Retry take.
const MaxAttempt = 1 << 31

// CheckRetry checks the inputs of Retry as the retry op and core.Retry both
// take them, in the op's order: attempt in [1, MaxAttempt] (a *field.Error
// at "attempt"), each policy member 0 (its default) or in [1, 2^53]
// ("policy.max_attempts", ...) and draw in [0, 1) (at "draw").
func CheckRetry(attempt int64, p RetryPolicy, draw float64) error {
	if attempt < 1 || attempt > MaxAttempt {
		return field.Errorf("attempt", "must be a whole number from 1 to "+strconv.FormatInt(MaxAttempt, 10))
	}
	if err := checkRetryPolicy(p, "policy"); err != nil {
		return err
	}
	if !(draw >= 0 && draw < 1) {
		return field.Errorf("draw", "is required: a uniform random number in [0, 1)")
	}
	return nil
}

// checkRetryPolicy checks a policy given in Go as ReadRetryPolicy checks
// one given in JSON under path: each member 0 (its default) or in [1, 2^53].
func checkRetryPolicy(p RetryPolicy, path string) error {
	return checkInts(path, 1, true, retryPolicyMembers, p.MaxAttempts, p.BaseMs, p.CapMs, p.MaxWaitMs)
}

// Retry decides whether the orchestrator retries a call whose attempt number
// attempt (1-based: the attempt that just failed) ended in e.
//
// draw is a uniform random number in [0, 1) supplied by the caller. The
// decision, in order:
//
//  1. e.Retryable false: no retry, ever (seed 000 checklist item 2).
//  2. attempt >= MaxAttempts: no retry.
//  3. a wait hint details.retry_after_seconds above MaxWaitMs: no retry
//     (openai-python's give-up rule).
//  4. otherwise retry after max(full jitter, hint): full jitter is
//     floor(draw * min(CapMs, BaseMs * 2^(attempt-1))), the hint is
//     ceil(retry_after_seconds * 1000).
//
// Exponent convention: the first retry (after attempt 1) draws from
// [0, BaseMs), the second from [0, 2*BaseMs), as botocore's
// min(2^(attempt-1), cap) and openai-python's 0.5*2^retries.
//
// See https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
// ("Full Jitter") and the SDK retry rules named at RetryPolicy.
func Retry(e envelope.Envelope, attempt int64, p RetryPolicy, draw float64) RetryDecision {
	p = p.WithDefaults()
	if !e.Retryable {
		return RetryDecision{Reason: ReasonNotRetryable}
	}
	if attempt >= p.MaxAttempts {
		return RetryDecision{Reason: ReasonAttemptsExhausted}
	}
	hintMs, hasHint := RetryAfterMs(e)
	if hasHint && hintMs > p.MaxWaitMs {
		return RetryDecision{Reason: ReasonRetryAfterTooLong}
	}
	delay := int64(math.Floor(draw * float64(BackoffCeilingMs(attempt, p))))
	if hasHint && hintMs > delay {
		return RetryDecision{Retry: true, DelayMs: hintMs, Reason: ReasonRetryAfter}
	}
	return RetryDecision{Retry: true, DelayMs: delay, Reason: ReasonBackoff}
}

// BackoffCeilingMs returns min(p.CapMs, p.BaseMs * 2^(attempt-1)) in
// milliseconds, without overflow; attempt below 1 counts as 1. p should have
// its defaults applied.
func BackoffCeilingMs(attempt int64, p RetryPolicy) int64 {
	if attempt < 1 {
		attempt = 1
	}
	c := p.BaseMs
	for i := int64(1); i < attempt && c < p.CapMs; i++ {
		c *= 2
	}
	if c > p.CapMs {
		c = p.CapMs
	}
	return c
}

// RetryAfterMs returns details.retry_after_seconds of e in whole milliseconds
// (rounded up), and false when it is absent, not a number, or negative. A hint
// above 2^53 ms (including +Inf) saturates at math.MaxInt64, longer than any
// MaxWaitMs, so it still means "give up" rather than "no hint".
func RetryAfterMs(e envelope.Envelope) (int64, bool) {
	v, ok := e.Details["retry_after_seconds"]
	if !ok {
		return 0, false
	}
	var s float64
	switch x := v.(type) {
	case float64:
		s = x
	case int:
		s = float64(x)
	case int64:
		s = float64(x)
	default:
		return 0, false
	}
	if s < 0 || math.IsNaN(s) {
		return 0, false
	}
	ms := math.Ceil(s * 1000)
	if ms > maxMs {
		return math.MaxInt64, true
	}
	return int64(ms), true
}

// ReadRetryPolicy reads the policy object {"max_attempts", "base_ms",
// "cap_ms", "max_wait_ms"} (all optional, each >= 1) under key of m; an
// absent policy is all defaults.
func ReadRetryPolicy(m map[string]any, key string) (RetryPolicy, error) {
	return readRetryPolicy(m, key, "")
}

func readRetryPolicy(m map[string]any, key, parent string) (RetryPolicy, error) {
	var p RetryPolicy
	o, ok, err := field.Obj(m, key, parent)
	if err != nil || !ok {
		return p, err
	}
	err = readInts(o, field.Join(parent, key), 1, retryPolicyMembers, &p.MaxAttempts, &p.BaseMs, &p.CapMs, &p.MaxWaitMs)
	return p, err
}

// retryPolicyMembers are a retry policy's members, RetryPolicy's fields in
// order (ReadRetryPolicy, and ScanStepRequest's "policy").
var retryPolicyMembers = []string{"max_attempts", "base_ms", "cap_ms", "max_wait_ms"}

// maxMs is the largest millisecond value a request may carry (about 285,000
// years): integers up to it are exact in a float64.
const maxMs = 1 << 53

// Value returns d as the retry op's result {"retry", "delay_ms", "reason"}.
func (d RetryDecision) Value() map[string]any {
	return map[string]any{"retry": d.Retry, "delay_ms": d.DelayMs, "reason": d.Reason.String()}
}

// onlyKeys returns an *field.Error naming the first member of o not in keys.
func onlyKeys(o map[string]any, path string, keys ...string) error {
	for _, k := range canonical.SortedKeys(o) {
		known := false
		for _, want := range keys {
			if k == want {
				known = true
				break
			}
		}
		if !known {
			return field.Errorf(field.Join(path, k), "is not a known member (want "+strings.Join(keys, ", ")+")")
		}
	}
	return nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
