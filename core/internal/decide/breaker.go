package decide

import (
	"bytes"
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// BreakerPhase is where a circuit breaker stands.
type BreakerPhase int

// The three phases of a breaker.
const (
	Closed   BreakerPhase = iota // calls pass; consecutive counted failures are counted
	Open                         // calls are refused until OpenUntilMs
	HalfOpen                     // one probe call at a time may pass
)

// String returns "closed", "open", "half_open", or "unknown breaker phase: N".
func (p BreakerPhase) String() string { return enumName(breakerPhaseNames[:], int(p), "breaker phase") }

var breakerPhaseNames = [...]string{"closed", "open", "half_open"}

// BreakerState is the whole state of one breaker; it travels as JSON (see
// Value and ReadBreakerState) and the zero value is a new, closed breaker.
//
// Failures is the number of consecutive counted failures while closed.
// Successes is the number of successful probes while half-open. OpenUntilMs
// is when an open breaker becomes half-open (ms since the Unix epoch; 0 when
// not open). ProbeUntilMs is when the lease of the probe in flight expires
// (0 when no probe is out).
type BreakerState struct {
	Phase        BreakerPhase
	Failures     int64
	Successes    int64
	OpenUntilMs  int64
	ProbeUntilMs int64
}

// BreakerEvent is what happened: a caller asks to call the tool, or reports
// how a call ended.
type BreakerEvent int

// The breaker events.
const (
	EventAllow   BreakerEvent = iota // may a call go now? (takes the probe slot when half-open)
	EventSuccess                     // a call ended well
	EventFailure                     // a call failed; counted only when its code says the tool is unhealthy
)

// String returns "allow", "success", "failure", or "unknown breaker event: N".
func (e BreakerEvent) String() string { return enumName(breakerEventNames[:], int(e), "breaker event") }

var breakerEventNames = [...]string{"allow", "success", "failure"}

// The breaker defaults, from the Cordum breaker guide quoted in seed 000.
const (
	DefaultFailureThreshold = 3     // consecutive counted failures that open the breaker
	DefaultOpenMs           = 30000 // how long an open breaker holds, in ms
	DefaultSuccessThreshold = 2     // successful probes that close a half-open breaker
)

// BreakerSettings configure a breaker. A zero field takes its default.
//
// FailureThreshold is the number of consecutive counted failures that open a
// closed breaker (default 3). OpenMs is how long it then stays open, in
// milliseconds (default 30000); it is also the lease of a half-open probe: a
// probe that has not reported back after OpenMs no longer holds the slot, so
// a lost probe cannot wedge the breaker. SuccessThreshold is the number of
// successful probes that close a half-open breaker (default 2).
//
// See docs/resilience.md, "Circuit breaker" (a published agent breaker that opens
// after 3 failures, holds 30 s and closes after 2 successful probes).
type BreakerSettings struct {
	FailureThreshold int64
	OpenMs           int64
	SuccessThreshold int64
}

// WithDefaults returns s with every zero field set to its default.
func (s BreakerSettings) WithDefaults() BreakerSettings {
	s.FailureThreshold = orDefault(s.FailureThreshold, DefaultFailureThreshold)
	s.OpenMs = orDefault(s.OpenMs, DefaultOpenMs)
	s.SuccessThreshold = orDefault(s.SuccessThreshold, DefaultSuccessThreshold)
	return s
}

// BreakerResult is the outcome of one transition: the next state, whether an
// allow event may call the tool, and, for a refused allow, the CIRCUIT_OPEN
// envelope to hand back instead of calling.
type BreakerResult struct {
	State   BreakerState
	Allowed bool
	Error   *envelope.Envelope
}

// Counts reports whether a failure ending in code c says the tool is
// unhealthy and so counts toward opening the breaker.
//
// A registered code counts when the registry marks it retryable (the call
// might work later, so the service is what is failing), except CONFLICT (a
// clash of one request with another) and CIRCUIT_OPEN (the breaker's own
// refusal): that is RATE_LIMITED, OVERLOADED, SERVER_ERROR, TRANSPORT and
// TIMEOUT. Terminal codes (INVALID_ARGS, TOOL_ERROR, INVALID_REQUEST,
// AUTHENTICATION, ...) are the caller's or the model's fault and do not
// count. An unregistered code counts when the envelope says retryable.
//
// See core/internal/envelope/codes.go (the registry).
func Counts(e envelope.Envelope) bool {
	switch e.Code {
	case envelope.RateLimited, envelope.Overloaded, envelope.ServerError, envelope.Transport, envelope.Timeout:
		return true // the registry's rule, unrolled for speed; TestCounts_registry keeps them equal
	}
	if _, ok := envelope.Lookup(e.Code); ok {
		return false
	}
	return e.Retryable
}

// Breaker is the pure transition of one breaker: given the state prev, an
// event, the time nowMs (ms since the Unix epoch) and the settings, it
// returns the next state and, for EventAllow, whether the call may go.
//
// failure is the envelope of a failed call (EventFailure only); nil counts
// as unhealthy. tool, when not "", goes into the CIRCUIT_OPEN details.
//
// First the settings bound the stored times (Bound: a hold or a probe lease
// never ends later than OpenMs from now, whichever replica's clock wrote
// it), then the clock applies: an open breaker whose hold has passed is
// half-open, and a probe whose lease has passed frees its slot. Then:
//
//   - allow: closed passes; open is refused with CIRCUIT_OPEN
//     (retry_after_seconds = the hold left, rounded up); half-open passes one
//     probe and takes the slot for OpenMs, and refuses every other allow
//     while the slot is taken (retry_after_seconds = the lease left).
//   - success: closed resets the failure count; half-open with a probe out
//     counts a successful probe and closes after SuccessThreshold; otherwise
//     nothing changes (a late report from before the breaker opened).
//   - failure that Counts: closed counts it and opens at FailureThreshold;
//     half-open with a probe out reopens for OpenMs. A failure that does not
//     count changes nothing but frees a half-open probe slot.
//
// See https://github.com/sony/gobreaker (v2/gobreaker.go) and
// docs/resilience.md, "Circuit breaker".
func Breaker(prev BreakerState, ev BreakerEvent, nowMs int64, s BreakerSettings, failure *envelope.Envelope, tool string) BreakerResult {
	s = s.WithDefaults()
	st := Tick(Bound(prev, nowMs, s), nowMs)
	switch ev {
	case EventAllow:
		switch st.Phase {
		case Closed:
			return BreakerResult{State: st, Allowed: true}
		case Open:
			return BreakerResult{State: st, Error: circuitOpen(st, st.OpenUntilMs-nowMs, tool)}
		default:
			if st.ProbeUntilMs != 0 {
				return BreakerResult{State: st, Error: circuitOpen(st, st.ProbeUntilMs-nowMs, tool)}
			}
			st.ProbeUntilMs = addMs(nowMs, s.OpenMs)
			return BreakerResult{State: st, Allowed: true}
		}
	case EventSuccess:
		switch st.Phase {
		case Closed:
			st.Failures = 0
		case HalfOpen:
			if st.ProbeUntilMs != 0 {
				st.ProbeUntilMs = 0
				st.Successes++
				if st.Successes >= s.SuccessThreshold {
					st = BreakerState{}
				}
			}
		}
		return BreakerResult{State: st}
	default:
		counted := failure == nil || Counts(*failure)
		switch st.Phase {
		case Closed:
			if counted {
				st.Failures++
				if st.Failures >= s.FailureThreshold {
					st = BreakerState{Phase: Open, OpenUntilMs: addMs(nowMs, s.OpenMs)}
				}
			}
		case HalfOpen:
			if st.ProbeUntilMs != 0 {
				if counted {
					st = BreakerState{Phase: Open, OpenUntilMs: addMs(nowMs, s.OpenMs)}
				} else {
					st.ProbeUntilMs = 0
				}
			}
		}
		return BreakerResult{State: st}
	}
}

// Bound clamps the times of s to what settings allow from nowMs: an
// OpenUntilMs or ProbeUntilMs later than nowMs + OpenMs becomes nowMs +
// OpenMs. A breaker shared by replicas holds times written by their clocks;
// without the bound, one replica whose clock runs an hour fast would keep
// every replica open, or its probe slot taken, for an hour. s must have its
// defaults (WithDefaults).
func Bound(st BreakerState, nowMs int64, s BreakerSettings) BreakerState {
	limit := addMs(max(nowMs, 0), s.OpenMs)
	st.OpenUntilMs = min(st.OpenUntilMs, limit)
	st.ProbeUntilMs = min(st.ProbeUntilMs, limit)
	return st
}

// Tick applies the clock to s: an open breaker whose hold ended at or before
// nowMs becomes half-open with no probe out, and a half-open probe lease that
// ended at or before nowMs is released.
func Tick(s BreakerState, nowMs int64) BreakerState {
	if s.Phase == Open && nowMs >= s.OpenUntilMs {
		return BreakerState{Phase: HalfOpen}
	}
	if s.Phase == HalfOpen && s.ProbeUntilMs != 0 && nowMs >= s.ProbeUntilMs {
		s.ProbeUntilMs = 0
	}
	return s
}

// circuitOpen builds the CIRCUIT_OPEN envelope for a refused call; waitMs is
// the time until the refusal may end.
func circuitOpen(st BreakerState, waitMs int64, tool string) *envelope.Envelope {
	secs := (waitMs + 999) / 1000
	if secs < 1 {
		secs = 1
	}
	d := map[string]any{"retry_after_seconds": secs, "state": st.Phase.String()}
	name := "this tool"
	if tool != "" {
		d["tool"] = tool
		name = "tool " + tool
	}
	msg := "The circuit breaker for " + name + " is open after repeated failures; wait " + itoa(secs) + " seconds before calling it again."
	if st.Phase == HalfOpen {
		msg = "The circuit breaker for " + name + " is testing recovery with one probe call; wait " + itoa(secs) + " seconds before calling it again."
	}
	// The tool name comes from the caller and reaches the model: sanitize it
	// like every other envelope text (secrets, stack traces).
	return &envelope.Envelope{Code: envelope.CircuitOpen, Message: sanitize.Message(msg), Retryable: true, Details: sanitize.Details(d), Source: envelope.SourceOrchestrator}
}

// addMs returns a + b (both in [0, maxMs]) capped at maxMs, the largest
// timestamp or count ReadBreakerState and ReadBudgetState accept back.
func addMs(a, b int64) int64 {
	if a > maxMs-b {
		return maxMs
	}
	return a + b
}

// Value returns s as its JSON object: {"phase", "failures", "successes",
// "open_until_ms", "probe_until_ms"}, all members always present.
func (s BreakerState) Value() map[string]any {
	return map[string]any{
		"phase":          s.Phase.String(),
		"failures":       s.Failures,
		"successes":      s.Successes,
		"open_until_ms":  s.OpenUntilMs,
		"probe_until_ms": s.ProbeUntilMs,
	}
}

// AppendJSON appends the canonical JSON of s to dst without building a map;
// the bytes equal canonical.Marshal(s.Value()).
func (s BreakerState) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"failures":`...)
	dst = appendInt(dst, s.Failures)
	dst = append(dst, `,"open_until_ms":`...)
	dst = appendInt(dst, s.OpenUntilMs)
	dst = append(dst, `,"phase":"`...)
	dst = append(dst, s.Phase.String()...)
	dst = append(dst, `","probe_until_ms":`...)
	dst = appendInt(dst, s.ProbeUntilMs)
	dst = append(dst, `,"successes":`...)
	dst = appendInt(dst, s.Successes)
	return append(dst, '}')
}

func appendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// ParseBreakerState reads the JSON bytes of a state; empty input or "null"
// is a new breaker. Errors are *field.Error or *canonical.SyntaxError.
func ParseBreakerState(b []byte) (BreakerState, error) {
	if len(b) == 0 {
		return BreakerState{}, nil
	}
	if s, ok := parseCanonicalState(b); ok {
		return s, nil
	}
	v, err := canonical.Parse(b)
	if err != nil {
		return BreakerState{}, err
	}
	return ReadBreakerState(v, "state")
}

// parseCanonicalState reads exactly the bytes AppendJSON writes, without
// building a value tree (the store's hot path); anything else is false.
func parseCanonicalState(b []byte) (BreakerState, bool) {
	var s BreakerState
	rest, ok := cutPrefix(b, `{"failures":`)
	if s.Failures, rest, ok = cutInt(rest, ok); !ok {
		return s, false
	}
	rest, ok = cutPrefix(rest, `,"open_until_ms":`)
	if s.OpenUntilMs, rest, ok = cutInt(rest, ok); !ok {
		return s, false
	}
	rest, ok = cutPrefix(rest, `,"phase":"`)
	switch {
	case !ok:
		return s, false
	case bytes.HasPrefix(rest, []byte(`closed"`)):
		rest = rest[len(`closed"`):]
	case bytes.HasPrefix(rest, []byte(`open"`)):
		s.Phase, rest = Open, rest[len(`open"`):]
	case bytes.HasPrefix(rest, []byte(`half_open"`)):
		s.Phase, rest = HalfOpen, rest[len(`half_open"`):]
	default:
		return s, false
	}
	rest, ok = cutPrefix(rest, `,"probe_until_ms":`)
	if s.ProbeUntilMs, rest, ok = cutInt(rest, ok); !ok {
		return s, false
	}
	rest, ok = cutPrefix(rest, `,"successes":`)
	if s.Successes, rest, ok = cutInt(rest, ok); !ok {
		return s, false
	}
	return s, len(rest) == 1 && rest[0] == '}'
}

func cutPrefix(b []byte, p string) ([]byte, bool) {
	if !bytes.HasPrefix(b, []byte(p)) {
		return nil, false
	}
	return b[len(p):], true
}

// cutInt reads a canonical non-negative integer (no leading zero) of at most
// 16 digits from the front of b.
func cutInt(b []byte, ok bool) (int64, []byte, bool) {
	if !ok || len(b) == 0 || b[0] < '0' || b[0] > '9' {
		return 0, nil, false
	}
	i, n := 0, int64(0)
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if i == 16 || (i == 1 && b[0] == '0') {
			return 0, nil, false
		}
		n = n*10 + int64(b[i]-'0')
	}
	if n > maxMs {
		return 0, nil, false
	}
	return n, b[i:], true
}

// CheckBreaker checks the inputs of Breaker as the breaker op and
// core.BreakerTransition both take them, in the op's order: prev's phase
// one of the three ("state.phase") and its counts and times in [0, 2^53]
// ("state.failures", ...); ev allow, success or failure ("event"); nowMs
// (CheckNowMs); each setting 0 (its default) or in [1, 2^53]
// ("settings.failure_threshold", ...); a failure envelope only with a
// failure event ("error"). Errors are *field.Error with the op's wording.
func CheckBreaker(prev BreakerState, ev BreakerEvent, nowMs int64, s BreakerSettings, failure *envelope.Envelope) error {
	if prev.Phase != Closed && prev.Phase != Open && prev.Phase != HalfOpen {
		return field.NewError("state.phase", "must be closed, open or half_open")
	}
	if err := checkInts("state", 0, false, []string{"failures", "successes", "open_until_ms", "probe_until_ms"}, prev.Failures, prev.Successes, prev.OpenUntilMs, prev.ProbeUntilMs); err != nil {
		return err
	}
	if ev != EventAllow && ev != EventSuccess && ev != EventFailure {
		return field.NewError("event", "must be allow, success or failure")
	}
	if err := CheckNowMs(nowMs); err != nil {
		return err
	}
	if err := CheckBreakerSettings(s, "settings"); err != nil {
		return err
	}
	if failure != nil && ev != EventFailure {
		return field.NewError("error", "applies to failure events only")
	}
	return nil
}

// CheckBreakerSettings checks settings given in Go as ReadBreakerSettings
// checks them given in JSON under path: each 0 (its default) or in [1, 2^53].
func CheckBreakerSettings(s BreakerSettings, path string) error {
	return checkInts(path, 1, true, breakerSettingsMembers, s.FailureThreshold, s.OpenMs, s.SuccessThreshold)
}

// ReadBreakerState reads a state value tree at path; nil is a new breaker.
// Every member is optional (zero when absent); unknown members, a negative
// number or an unknown phase are an *field.Error.
func ReadBreakerState(v any, path string) (BreakerState, error) {
	var s BreakerState
	m, err := optionalObject(v, path, "phase", "failures", "successes", "open_until_ms", "probe_until_ms")
	if m == nil || err != nil {
		return s, err
	}
	if s.Phase, err = readPhaseName(m, "phase", path); err != nil {
		return s, err
	}
	err = readIntMembers(m, path, 0, []string{"failures", "successes", "open_until_ms", "probe_until_ms"}, &s.Failures, &s.Successes, &s.OpenUntilMs, &s.ProbeUntilMs)
	return s, err
}

// breakerSettingsMembers are the breaker settings' members,
// BreakerSettings' fields in order (ReadBreakerSettings, and
// ScanStepRequest's "settings").
var breakerSettingsMembers = []string{"failure_threshold", "open_ms", "success_threshold"}

// ReadBreakerSettings reads {"failure_threshold", "open_ms",
// "success_threshold"} (all optional) under key of m.
func ReadBreakerSettings(m map[string]any, key string) (BreakerSettings, error) {
	var s BreakerSettings
	o, ok, err := field.Obj(m, key, "")
	if err != nil || !ok {
		return s, err
	}
	err = readInts(o, key, 1, breakerSettingsMembers, &s.FailureThreshold, &s.OpenMs, &s.SuccessThreshold)
	return s, err
}
