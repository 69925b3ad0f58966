package decide

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
)

// ReadStepInput reads the members of a step request (docs/resilience.md,
// "The step op"): "tool", "key_prefix"?, "policy"?, "settings"?,
// "timeout_ms"?, "store_backoff_ms"?, "budget"? {"limits", "state"?,
// "charge"?}, "loop"? {"threshold"?, "state"?}, "replica"? {"down_until_ms"?,
// "state"?}, "state" (null for a new call), "event", "now_ms" and
// "on_success"?, "on_swapped"?, "on_slept"? (true: decide the answer to the
// event the action expects ahead, StepInput.Ahead and AheadFor) and
// "standing"? (true: say whether a start's answer stands, StepInput.Standing).
// Errors are *field.Error with the member's path.
func ReadStepInput(req map[string]any, nowMs int64) (StepInput, error) {
	in := StepInput{NowMs: nowMs}
	c := &in.Config
	var err error
	if c.Tool, err = field.RequiredString(req, "tool", ""); err != nil {
		return in, err
	}
	if c.KeyPrefix, _, err = field.String(req, "key_prefix", ""); err != nil {
		return in, err
	}
	if c.Policy, err = ReadRetryPolicy(req, "policy"); err != nil {
		return in, err
	}
	if c.Settings, err = ReadBreakerSettings(req, "settings"); err != nil {
		return in, err
	}
	if c.TimeoutMs, _, err = field.Int(req, "timeout_ms", "", 1, maxMs); err != nil {
		return in, err
	}
	if c.StoreBackoffMs, _, err = field.Int(req, "store_backoff_ms", "", 1, maxMs); err != nil {
		return in, err
	}
	if in.Replica, err = ReadReplicaState(req["replica"], "replica"); err != nil {
		return in, err
	}
	if err := readRun(req, &in); err != nil {
		return in, err
	}
	if in.State, err = ReadStepState(req["state"], "state"); err != nil {
		return in, err
	}
	ev, ok := req["event"]
	if !ok {
		return in, field.Errorf("event", "is required (what the runtime just did; {\"kind\": \"start\"} for a new call)")
	}
	if in.Event, err = ReadStepEvent(ev, "event"); err != nil {
		return in, err
	}
	if !c.Loop {
		in.Event.ArgsKey = "" // the arguments matter to the loop guard only
	}
	for _, k := range aheadMembers {
		if ahead, _, err := field.Bool(req, k.name, ""); err != nil {
			return in, err
		} else if ahead {
			in.AheadFor |= k.kind
		}
	}
	if in.AheadFor != 0 {
		in.Ahead = newStepAhead(in.AheadFor)
	}
	if in.Standing, _, err = field.Bool(req, "standing", ""); err != nil {
		return in, err
	}
	return in, nil
}

// aheadMembers are the request's members that ask for answers decided
// ahead, with the events they name.
var aheadMembers = [...]struct {
	name string
	kind AheadKinds
}{{"on_success", AheadSuccess}, {"on_swapped", AheadSwapped}, {"on_slept", AheadSlept}}

// aheadMember returns the answer's member that holds the answer decided
// ahead of action k: "on_success" (call), "on_swapped" (cas), "on_slept"
// (sleep).
func aheadMember(k ActionKind) string {
	switch k {
	case ActionCAS:
		return "on_swapped"
	case ActionSleep:
		return "on_slept"
	}
	return "on_success"
}

// readRun reads the run's members of a step request into in: "budget"?
// {"limits", "state"?, "charge"?} and "loop"? {"threshold"?, "state"?}.
func readRun(req map[string]any, in *StepInput) error {
	c := &in.Config
	if b, ok, err := field.Obj(req, "budget", ""); err != nil {
		return err
	} else if ok {
		if err := onlyKeys(b, "budget", "limits", "state", "charge"); err != nil {
			return err
		}
		lv, ok := b["limits"]
		if !ok {
			return field.Errorf("budget.limits", "is required ({\"steps\", \"tokens\", \"wall_ms\"}, 0 or absent = no limit)")
		}
		l, err := ReadBudgetLimits(lv, "budget.limits")
		if err != nil {
			return err
		}
		c.Budget = &l
		if in.Budget, err = ReadBudgetState(b["state"], "budget.state"); err != nil {
			return err
		}
		if c.Charge, err = ReadBudgetCharge(b["charge"], "budget.charge"); err != nil {
			return err
		}
	}
	if l, ok, err := field.Obj(req, "loop", ""); err != nil {
		return err
	} else if ok {
		if err := onlyKeys(l, "loop", "threshold", "state"); err != nil {
			return err
		}
		c.Loop = true
		if c.LoopThreshold, _, err = field.Int(l, "threshold", "loop", 1, MaxStepLoopThreshold); err != nil {
			return err
		}
		if in.Loop, err = ReadLoopState(l["state"], "loop.state"); err != nil {
			return err
		}
	}
	return nil
}

// readName reads the optional string member key of m as the index of its
// name in names, absent or "" being the first; another string is an error
// at path.key saying it must be one of them.
func readName(m map[string]any, key, path string, names []string) (int, error) {
	s, _, err := field.String(m, key, path)
	if err != nil || s == "" {
		return 0, err
	}
	if i := enumIndex(names, s); i >= 0 {
		return i, nil
	}
	last := len(names) - 1
	return 0, field.Errorf(field.Join(path, key), "must be "+strings.Join(names[:last], ", ")+" or "+names[last])
}

func readPhaseName(m map[string]any, key, path string) (BreakerPhase, error) {
	i, err := readName(m, key, path, breakerPhaseNames[:])
	return BreakerPhase(i), err
}

func readBreakerEventName(m map[string]any, key, path string) (BreakerEvent, error) {
	i, err := readName(m, key, path, breakerEventNames[:])
	return BreakerEvent(i), err
}

// ReadReplicaState reads a replica's state value tree at path:
// {"down_until_ms"?, "state"?} (state: the breaker's canonical bytes as a
// string, or null); nil is a replica that has seen nothing. The bytes are
// not parsed here: unreadable ones are started afresh when used.
func ReadReplicaState(v any, path string) (ReplicaState, error) {
	var r ReplicaState
	m, err := optionalObject(v, path, "down_until_ms", "state")
	if m == nil || err != nil {
		return r, err
	}
	if r.DownUntilMs, _, err = field.Int(m, "down_until_ms", path, 0, maxMs); err != nil {
		return r, err
	}
	if b, absent, err := readStoreValue(m, "state", path); err != nil {
		return r, err
	} else if !absent {
		r.State = b
	}
	return r, nil
}

// Value returns the replica's state as its JSON object: {"down_until_ms",
// "state"} (state null when none was seen).
func (r ReplicaState) Value() map[string]any {
	return map[string]any{"down_until_ms": r.DownUntilMs, "state": storeValue(r.State, r.State == nil)}
}

// ReadStepState reads a call's state value tree at path (as Value writes it);
// nil is a call not yet started.
func ReadStepState(v any, path string) (StepState, error) {
	var s StepState
	m, err := optionalObject(v, path, "phase", "attempt", "deadline_ms", "args", "event", "tries", "pending", "error", "draw", "cancelled")
	if m == nil || err != nil {
		return s, err
	}
	ph, err := field.RequiredString(m, "phase", path)
	if err != nil {
		return s, err
	}
	i := enumIndex(phaseNames[:], ph)
	s.Phase = StepPhase(i)
	if i <= int(PhaseNew) {
		return s, field.Errorf(field.Join(path, "phase"), "must be breaker, call, sleep or done (a new call's state is null)")
	}
	if err := readIntMembers(m, path, 0, []string{"attempt", "deadline_ms", "tries"}, &s.Attempt, &s.DeadlineMs, &s.Tries); err != nil {
		return s, err
	}
	if s.ArgsKey, _, err = field.String(m, "args", path); err != nil {
		return s, err
	}
	if s.Event, err = readBreakerEventName(m, "event", path); err != nil {
		return s, err
	}
	if p, ok, err := field.Obj(m, "pending", path); err != nil {
		return s, err
	} else if ok {
		pp := field.Join(path, "pending")
		if err := onlyKeys(p, pp, "allowed", "from", "to", "new"); err != nil {
			return s, err
		}
		s.Pending = &Pending{}
		n, err := field.RequiredString(p, "new", pp)
		if err != nil {
			return s, err
		}
		s.Pending.New = []byte(n)
		if s.Pending.Allowed, _, err = field.Bool(p, "allowed", pp); err != nil {
			return s, err
		}
		if s.Pending.From, err = readPhaseName(p, "from", pp); err != nil {
			return s, err
		}
		if s.Pending.To, err = readPhaseName(p, "to", pp); err != nil {
			return s, err
		}
	}
	if ev, ok := m["error"]; ok && ev != nil {
		e, err := envelope.FromValue(ev, field.Join(path, "error"))
		if err != nil {
			return s, err
		}
		s.Error = &e
	}
	if s.Draw, err = readDraw(m, path, false); err != nil {
		return s, err
	}
	if s.Cancelled, _, err = field.Bool(m, "cancelled", path); err != nil {
		return s, err
	}
	if s.Phase == PhaseBreaker && s.Event == EventFailure && s.Error == nil {
		return s, field.Errorf(field.Join(path, "error"), "is required while a failure is reported to the breaker")
	}
	return s, nil
}

func readDraw(m map[string]any, path string, required bool) (float64, error) {
	d, ok, err := field.Number(m, "draw", path)
	if err != nil {
		return 0, err
	}
	if !ok && !required {
		return 0, nil
	}
	if !ok || d < 0 || d >= 1 {
		return 0, field.Errorf(field.Join(path, "draw"), "is required: a uniform random number in [0, 1)")
	}
	return d, nil
}

// readStoreValue reads the stored bytes under key: a string, or null (or
// absent) for a key that holds none.
func readStoreValue(m map[string]any, key, path string) ([]byte, bool, error) {
	s, ok, err := field.String(m, key, path)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return nil, true, nil
	}
	return []byte(s), false, nil
}

// ReadStepEvent reads an event value tree at path.
func ReadStepEvent(v any, path string) (StepEvent, error) {
	var e StepEvent
	m, err := field.Object(v, path)
	if err != nil {
		return e, err
	}
	k, err := field.RequiredString(m, "kind", path)
	if err != nil {
		return e, err
	}
	i := enumIndex(eventNames[:], k)
	e.Kind = EventKind(i)
	if i < 0 {
		return e, field.Errorf(field.Join(path, "kind"), "must be start, loaded, cas, store_error, success, failure, slept or cancelled")
	}
	keys := map[EventKind][]string{
		EventStart: {"kind", "args", "deadline_ms", "loaded"}, EventLoaded: {"kind", "value"}, EventCAS: {"kind", "swapped", "current"},
		EventStoreError: {"kind", "message"}, EventCallOK: {"kind", "loaded"}, EventCallFailed: {"kind", "error", "classify", "draw", "loaded"},
		EventSlept: {"kind", "loaded"}, EventCancelled: {"kind", "cause", "loaded"},
	}[e.Kind]
	if err := onlyKeys(m, path, keys...); err != nil {
		return e, err
	}
	if lv, ok := m["loaded"]; ok && lv != nil {
		lp := field.Join(path, "loaded")
		l, err := ReadStepEvent(lv, lp)
		if err != nil {
			return e, err
		}
		if l.Kind != EventLoaded && l.Kind != EventStoreError {
			return e, field.Errorf(field.Join(lp, "kind"), "must be loaded or store_error (the answer to a load made ahead)")
		}
		e.Loaded = &l
	}
	switch e.Kind {
	case EventStart:
		e.ArgsKey = LoopArgsKey(m["args"])
		if e.DeadlineMs, _, err = field.Int(m, "deadline_ms", path, 0, maxMs); err != nil {
			return e, err
		}
	case EventLoaded:
		e.Value, e.Absent, err = readStoreValue(m, "value", path)
	case EventCAS:
		var ok bool
		if e.Swapped, ok, err = field.Bool(m, "swapped", path); err != nil {
			return e, err
		} else if !ok {
			return e, field.Errorf(field.Join(path, "swapped"), "is required (did the compare-and-swap store the new bytes?)")
		}
		e.Value, e.Absent, err = readStoreValue(m, "current", path)
	case EventStoreError:
		e.Message, _, err = field.String(m, "message", path)
	case EventCallFailed:
		ev, ok := m["error"]
		cv, classified := m["classify"]
		var env envelope.Envelope
		switch {
		case ok && classified:
			return e, field.Errorf(field.Join(path, "classify"), "is not accepted with error (the failure's envelope, or the request that classifies it)")
		case classified:
			if env, err = Classified(cv, field.Join(path, "classify")); err != nil {
				return e, err
			}
		case !ok || ev == nil:
			return e, field.Errorf(field.Join(path, "error"), "is required (the envelope of the failed call)")
		default:
			if env, err = envelope.FromValue(ev, field.Join(path, "error")); err != nil {
				return e, err
			}
			env = SafeFailure(env) // the runtime's own envelope
		}
		e.Error = &env
		e.Draw, err = readDraw(m, path, true)
		return e, err
	case EventCancelled:
		if e.Cause, _, err = field.String(m, "cause", path); err != nil {
			return e, err
		}
		switch e.Cause {
		case "":
			e.Cause = "cancelled"
		case "cancelled", "deadline":
		default:
			return e, field.Errorf(field.Join(path, "cause"), "must be cancelled or deadline")
		}
	}
	return e, err
}

// Value returns the step op's result: {"action", "decisions", "state",
// "budget"? (the run's budget state, when this step charged it), "loop"?
// (the run's loop-guard state, when this step changed it), "replica"? (the
// replica's state of the tool's breaker, when this step changed it),
// "on_success"?, "on_swapped"? or "on_slept"? (the answer to the event the
// action expects, decided ahead: that answer's members and "if_loaded", the
// stored bytes it holds for, null for none; the member is named by the
// action: call, cas, sleep), "stands"? ({"if_loaded"}: the start's answer
// stands, for the stored bytes if_loaded, null for none; see Standing)}.
func (r StepResult) Value() map[string]any {
	recs := make([]any, len(r.Records))
	for i, rec := range r.Records {
		recs[i] = rec.Value()
	}
	out := map[string]any{"action": r.Action.Value(), "decisions": recs, "state": r.State.Value()}
	if r.Budget != nil {
		out["budget"] = r.Budget.Value()
	}
	if r.Loop != nil {
		out["loop"] = r.Loop.Value()
	}
	if r.Replica != nil {
		out["replica"] = r.Replica.Value()
	}
	if a := r.Ahead; a != nil {
		v := a.Result.Value()
		v["if_loaded"] = storeValue(a.Loaded, a.Loaded == nil)
		out[aheadMember(r.Action.Kind)] = v
	}
	if r.Stands.Holds {
		out["stands"] = map[string]any{"if_loaded": storeValue(r.Stands.Loaded, r.Stands.Loaded == nil)}
	}
	return out
}

// Classified returns the envelope a failure event's "classify" member
// stands for: v is the request the runtime would otherwise have sent to
// the classify or classify_exception op ("op" included), and the envelope
// is that op's answer, read and classified by the same code. Errors are the
// op's own, under path.
func Classified(v any, path string) (envelope.Envelope, error) {
	m, err := field.Object(v, path)
	if err != nil {
		return envelope.Envelope{}, err
	}
	op, err := field.RequiredString(m, "op", path)
	if err != nil {
		return envelope.Envelope{}, err
	}
	switch op {
	case "classify":
		r, err := classify.ReadRequest(m, path)
		if err != nil {
			return envelope.Envelope{}, err
		}
		return r.Classify(), nil
	case "classify_exception":
		r, err := classify.ReadExceptionRequest(m, path)
		if err != nil {
			return envelope.Envelope{}, err
		}
		return r.Classify(), nil
	}
	return envelope.Envelope{}, field.Errorf(field.Join(path, "op"), "must be classify or classify_exception")
}

func storeValue(b []byte, absent bool) any {
	if absent {
		return nil
	}
	return string(b)
}

// Value returns the action as its JSON object (docs/resilience.md).
func (a StepAction) Value() map[string]any {
	v := map[string]any{"kind": a.Kind.String()}
	switch a.Kind {
	case ActionLoad:
		v["key"] = a.Key
	case ActionCAS:
		v["key"], v["old"], v["new"] = a.Key, storeValue(a.Old, a.OldAbsent), string(a.New)
	case ActionCall:
		v["attempt"] = a.Attempt
		if a.TimeoutMs > 0 {
			v["timeout_ms"] = a.TimeoutMs
		}
	case ActionSleep:
		v["delay_ms"] = a.DelayMs
	case ActionStop:
		v["attempts"] = a.Attempts
		if a.Error != nil {
			v["error"] = *a.Error
		}
	}
	return v
}

// Value returns the state as its JSON object; only the members its phase
// uses are written.
func (s StepState) Value() map[string]any {
	v := map[string]any{"phase": s.Phase.String(), "attempt": s.Attempt}
	if s.DeadlineMs > 0 {
		v["deadline_ms"] = s.DeadlineMs
	}
	if s.ArgsKey != "" {
		v["args"] = s.ArgsKey
	}
	if s.Phase == PhaseBreaker {
		v["event"], v["tries"] = s.Event.String(), s.Tries
	}
	if p := s.Pending; p != nil {
		v["pending"] = map[string]any{"allowed": p.Allowed, "from": p.From.String(), "to": p.To.String(), "new": string(p.New)}
	}
	if s.Error != nil {
		v["error"] = *s.Error
		if s.Cancelled {
			v["cancelled"] = true
		} else {
			v["draw"] = s.Draw
		}
	}
	return v
}
