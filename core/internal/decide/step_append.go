package decide

import (
	"bytes"
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
)

// The step op's answer written straight to canonical JSON (RFC 8785),
// without the maps of Value: members in the order RFC 8785 sorts them
// (their names are ASCII, so byte order), integers as decimal (every one is
// in [0, 2^53], where that is the canonical number). The bytes equal
// canonical.Marshal of the Value trees; TestStepResultAppendJSON_sameAsValue
// holds them to that on every step fixture.

// AppendJSON appends the canonical JSON of r.Value() to dst.
func (r StepResult) AppendJSON(dst []byte) ([]byte, error) {
	var w storedText
	return r.appendJSON(dst, nil, &w)
}

// appendJSON writes r; of, when not nil, is the StepAhead r is the Result
// of, whose "if_loaded" member goes in after "decisions". w keeps the
// stored bytes already written (an answer decided ahead repeats the same
// breaker bytes in its if_loaded, replica, cas and pending members).
func (r StepResult) appendJSON(dst []byte, of *StepAhead, w *storedText) ([]byte, error) {
	dst = append(dst, `{"action":`...)
	dst, err := r.Action.appendJSON(dst, w)
	if err != nil {
		return dst, err
	}
	if r.Budget != nil {
		dst = append(dst, `,"budget":`...)
		dst = r.Budget.appendJSON(dst)
	}
	dst = append(dst, `,"decisions":[`...)
	for i, rec := range r.Records {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = rec.AppendJSON(dst)
	}
	dst = append(dst, ']')
	if of != nil {
		dst = append(dst, `,"if_loaded":`...)
		dst = w.append(dst, of.Loaded, of.Loaded == nil)
	}
	if r.Loop != nil {
		dst = append(dst, `,"loop":`...)
		if dst, err = canonical.Append(dst, r.Loop.Value()); err != nil {
			return dst, err
		}
	}
	if a := r.Ahead; a != nil {
		dst = append(dst, `,"`...)
		dst = append(dst, aheadMember(r.Action.Kind)...)
		dst = append(dst, `":`...)
		if dst, err = a.Result.appendJSON(dst, a, w); err != nil {
			return dst, err
		}
	}
	if r.Replica != nil {
		dst = append(dst, `,"replica":`...)
		dst = r.Replica.appendJSON(dst, w)
	}
	if r.Stands.Holds {
		dst = append(dst, `,"stands":{"if_loaded":`...)
		dst = w.append(dst, r.Stands.Loaded, r.Stands.Loaded == nil)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"state":`...)
	if dst, err = r.State.appendJSON(dst, w); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// storedText remembers where in an answer being written the JSON strings
// of the stored bytes already written are (the first four distinct ones),
// so that the same bytes again are a copy of that text instead of another
// conversion and escaping: a failure's answer, its cas, sleep, next call,
// success and that success's cas decided ahead, holds a breaker's bytes
// about a dozen times. A nil *storedText writes every one afresh. The
// offsets are into the dst the answer is appended to, which only grows
// while it is written. It remembers the first error envelope written too:
// a failure's state carries the same envelope (one pointer) into every
// state decided ahead after it, three times in that answer.
type storedText struct {
	n    int
	raw  [4][]byte
	text [4][2]int // the start and end of raw's JSON string in dst

	env     *envelope.Envelope // the first envelope written, nil before
	envText [2]int             // the start and end of env's JSON in dst
}

// append appends stored bytes b as a JSON string to dst (null when absent).
func (w *storedText) append(dst []byte, b []byte, absent bool) []byte {
	if absent {
		return append(dst, "null"...)
	}
	if w == nil {
		return canonical.AppendString(dst, string(b))
	}
	for i := range w.n {
		if bytes.Equal(w.raw[i], b) {
			return append(dst, dst[w.text[i][0]:w.text[i][1]]...)
		}
	}
	start := len(dst)
	dst = canonical.AppendBytesString(dst, b)
	if w.n < len(w.raw) {
		w.raw[w.n], w.text[w.n] = b, [2]int{start, len(dst)}
		w.n++
	}
	return dst
}

// appendEnvelope appends the canonical JSON of e to dst: a copy of the text
// written for the same envelope (the same pointer) earlier in the answer,
// else afresh (always so with a nil w).
func (w *storedText) appendEnvelope(dst []byte, e *envelope.Envelope) ([]byte, error) {
	if w != nil && w.env == e {
		return append(dst, dst[w.envText[0]:w.envText[1]]...), nil
	}
	start := len(dst)
	dst, err := e.AppendCanonical(dst)
	if err == nil && w != nil && w.env == nil {
		w.env, w.envText = e, [2]int{start, len(dst)}
	}
	return dst, err
}

// appendJSON writes {"started_ms", "steps", "tokens"} (Value's members).
func (s BudgetState) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"started_ms":`...)
	dst = strconv.AppendInt(dst, s.StartedMs, 10)
	dst = append(dst, `,"steps":`...)
	dst = strconv.AppendInt(dst, s.Steps, 10)
	dst = append(dst, `,"tokens":`...)
	dst = strconv.AppendInt(dst, s.Tokens, 10)
	return append(dst, '}')
}

// appendJSON writes {"down_until_ms", "state"} (Value's members).
func (r ReplicaState) appendJSON(dst []byte, w *storedText) []byte {
	dst = append(dst, `{"down_until_ms":`...)
	dst = strconv.AppendInt(dst, r.DownUntilMs, 10)
	dst = append(dst, `,"state":`...)
	dst = w.append(dst, r.State, r.State == nil)
	return append(dst, '}')
}

// AppendJSON appends the canonical JSON of a.Value() to dst.
func (a StepAction) AppendJSON(dst []byte) ([]byte, error) { return a.appendJSON(dst, nil) }

// appendJSON is AppendJSON, the stored bytes through w (see storedText).
func (a StepAction) appendJSON(dst []byte, w *storedText) ([]byte, error) {
	switch a.Kind {
	case ActionLoad:
		dst = append(dst, `{"key":`...)
		dst = canonical.AppendString(dst, a.Key)
		dst = append(dst, `,"kind":"load"`...)
	case ActionCAS:
		dst = append(dst, `{"key":`...)
		dst = canonical.AppendString(dst, a.Key)
		dst = append(dst, `,"kind":"cas","new":`...)
		dst = w.append(dst, a.New, false)
		dst = append(dst, `,"old":`...)
		dst = w.append(dst, a.Old, a.OldAbsent)
	case ActionCall:
		dst = append(dst, `{"attempt":`...)
		dst = strconv.AppendInt(dst, a.Attempt, 10)
		dst = append(dst, `,"kind":"call"`...)
		if a.TimeoutMs > 0 {
			dst = append(dst, `,"timeout_ms":`...)
			dst = strconv.AppendInt(dst, a.TimeoutMs, 10)
		}
	case ActionSleep:
		dst = append(dst, `{"delay_ms":`...)
		dst = strconv.AppendInt(dst, a.DelayMs, 10)
		dst = append(dst, `,"kind":"sleep"`...)
	default:
		dst = append(dst, `{"attempts":`...)
		dst = strconv.AppendInt(dst, a.Attempts, 10)
		if a.Error != nil {
			dst = append(dst, `,"error":`...)
			var err error
			if dst, err = w.appendEnvelope(dst, a.Error); err != nil {
				return dst, err
			}
		}
		dst = append(dst, `,"kind":"stop"`...)
	}
	return append(dst, '}'), nil
}

// AppendJSON appends the canonical JSON of s.Value() to dst.
func (s StepState) AppendJSON(dst []byte) ([]byte, error) { return s.appendJSON(dst, nil) }

// appendJSON is AppendJSON, the stored bytes through w (see storedText).
func (s StepState) appendJSON(dst []byte, w *storedText) ([]byte, error) {
	dst = append(dst, '{')
	if s.ArgsKey != "" {
		dst = append(dst, `"args":`...)
		dst = canonical.AppendString(dst, s.ArgsKey)
		dst = append(dst, ',')
	}
	dst = append(dst, `"attempt":`...)
	dst = strconv.AppendInt(dst, s.Attempt, 10)
	if s.Error != nil && s.Cancelled {
		dst = append(dst, `,"cancelled":true`...)
	}
	if s.DeadlineMs > 0 {
		dst = append(dst, `,"deadline_ms":`...)
		dst = strconv.AppendInt(dst, s.DeadlineMs, 10)
	}
	if s.Error != nil && !s.Cancelled {
		dst = append(dst, `,"draw":`...)
		var err error
		if dst, err = canonical.AppendFloat(dst, s.Draw); err != nil {
			return dst, err
		}
	}
	if s.Error != nil {
		dst = append(dst, `,"error":`...)
		var err error
		if dst, err = w.appendEnvelope(dst, s.Error); err != nil {
			return dst, err
		}
	}
	if s.Phase == PhaseBreaker {
		dst = append(dst, `,"event":"`...)
		dst = append(dst, s.Event.String()...)
		dst = append(dst, '"')
	}
	if p := s.Pending; p != nil {
		dst = append(dst, `,"pending":{"allowed":`...)
		dst = strconv.AppendBool(dst, p.Allowed)
		dst = append(dst, `,"from":"`...)
		dst = append(dst, p.From.String()...)
		dst = append(dst, `","new":`...)
		dst = w.append(dst, p.New, false)
		dst = append(dst, `,"to":"`...)
		dst = append(dst, p.To.String()...)
		dst = append(dst, `"}`...)
	}
	dst = append(dst, `,"phase":"`...)
	dst = append(dst, s.Phase.String()...)
	dst = append(dst, '"')
	if s.Phase == PhaseBreaker {
		dst = append(dst, `,"tries":`...)
		dst = strconv.AppendInt(dst, s.Tries, 10)
	}
	return append(dst, '}'), nil
}

// AppendJSON appends the canonical JSON of r.Value() to dst.
func (r Record) AppendJSON(dst []byte) []byte {
	hasAllowed := false
	switch r.Kind {
	case RecordBudget, RecordLoopGuard, RecordCall, RecordRetry:
		hasAllowed = true
	case RecordBreaker:
		hasAllowed = r.Event == EventAllow
	}
	dst = append(dst, '{')
	if hasAllowed {
		dst = append(dst, `"allowed":`...)
		dst = strconv.AppendBool(dst, r.Allowed)
		dst = append(dst, ',')
	}
	dst = append(dst, `"attempt":`...)
	dst = strconv.AppendInt(dst, r.Attempt, 10)
	if r.Envelope != nil {
		dst = append(dst, `,"code":`...)
		dst = canonical.AppendString(dst, string(r.Envelope.Code))
	}
	if r.Kind == RecordRetry {
		dst = append(dst, `,"delay_ms":`...)
		dst = strconv.AppendInt(dst, r.DelayMs, 10)
	}
	if (r.Kind == RecordFallback && r.Message != "") || r.Kind == RecordRepair {
		dst = append(dst, `,"error":`...)
		dst = canonical.AppendString(dst, r.Message)
	}
	if r.Kind == RecordBreaker || r.Kind == RecordFallback || r.Kind == RecordRepair {
		dst = append(dst, `,"event":"`...)
		dst = append(dst, r.Event.String()...)
		dst = append(dst, '"')
	}
	if r.Kind == RecordLoopGuard {
		dst = append(dst, `,"failures":`...)
		dst = strconv.AppendInt(dst, r.Failures, 10)
	}
	if r.Kind == RecordBreaker && r.From != r.Phase {
		dst = append(dst, `,"from":"`...)
		dst = append(dst, r.From.String()...)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"kind":"`...)
	dst = append(dst, r.Kind.String()...)
	dst = append(dst, `","level":"`...)
	dst = append(dst, r.Level.String()...)
	dst = append(dst, '"')
	if r.Kind == RecordBreaker {
		dst = append(dst, `,"phase":"`...)
		dst = append(dst, r.Phase.String()...)
		dst = append(dst, '"')
		if r.Event == EventAllow && r.Allowed && r.Phase == HalfOpen {
			dst = append(dst, `,"probe":true`...)
		}
	}
	if (r.Kind == RecordBudget && r.Reason != "") || r.Kind == RecordRetry || r.Kind == RecordFallback {
		dst = append(dst, `,"reason":`...)
		dst = canonical.AppendString(dst, r.Reason)
	}
	if r.Envelope != nil {
		dst = append(dst, `,"retryable":`...)
		dst = strconv.AppendBool(dst, r.Envelope.Retryable)
	}
	if r.Kind == RecordLoopGuard {
		dst = append(dst, `,"threshold":`...)
		dst = strconv.AppendInt(dst, r.Threshold, 10)
	}
	dst = append(dst, `,"tool":`...)
	dst = canonical.AppendString(dst, r.Tool)
	return append(dst, '}')
}
