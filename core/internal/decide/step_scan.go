package decide

import (
	"math"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/envelope"
)

// ScanStepRequest reads a whole step request (the JSON text, "op": "step"
// included) straight into a StepInput, without the value tree
// ReadStepInput reads: the members a runtime sends on every step ("op",
// "tool", "key_prefix", "timeout_ms", "store_backoff_ms", "replica",
// "state", "event", "now_ms", "on_success", "on_swapped", "on_slept",
// "standing", "policy", "settings") are scanned into their fields, and only
// the rest ("budget", "loop", an envelope, a failure's "classify", the
// start's "args") become small trees for the readers ReadStepInput uses.
//
// It answers only a request it is sure of: a member or shape it does not
// know, a duplicate member, a null where it expects a value, a number out
// of range, or any error returns ok false, and the caller reads the request
// through canonical.ParseRequest and ReadStepInput instead, which answer (or
// refuse) it as they always did. So the input is the same either way;
// TestScanStepRequest_sameAsTree holds it to that.
func ScanStepRequest(request string) (in StepInput, ok bool) {
	s := canonical.NewScanner(request)
	var (
		seen uint16
		rest map[string]any // budget, loop, as trees
		args any            // the start event's arguments
	)
	const (
		mOp = 1 << iota
		mTool
		mPrefix
		mTimeout
		mBackoff
		mReplica
		mState
		mEvent
		mNow
		mAhead // and the next two bits: on_success, on_swapped, on_slept
		_
		_
		mStanding
		mPolicy
		mSettings
	)
	c := &in.Config
	var stored storedRead // the first stored bytes read, shared by the same bytes read again
	seen, ok = canonical.EachOnce(s, func(key string) (uint16, bool) {
		var ok bool
		switch key {
		case "op":
			v, ok := s.String()
			return mOp, ok && v == "step" && s.Str(v)
		case "tool":
			c.Tool, ok = s.String()
			return mTool, ok && c.Tool != "" && s.Str(c.Tool)
		case "key_prefix":
			c.KeyPrefix, ok = s.String()
			return mPrefix, ok && s.Str(c.KeyPrefix)
		case "timeout_ms":
			c.TimeoutMs, ok = scanInt(s, 1, maxMs)
			return mTimeout, ok
		case "store_backoff_ms":
			c.StoreBackoffMs, ok = scanInt(s, 1, maxMs)
			return mBackoff, ok
		case "on_success", "on_swapped", "on_slept":
			v, err := s.Value(1)
			b, ok := v.(bool)
			bit := uint16(mAhead)
			for i, k := range aheadMembers {
				if k.name == key {
					if b && err == nil {
						in.AheadFor |= k.kind
					}
					bit <<= i
				}
			}
			return bit, ok && err == nil
		case "standing":
			v, err := s.Value(1)
			b, ok := v.(bool)
			in.Standing = b && ok && err == nil
			return mStanding, ok && err == nil
		case "now_ms":
			in.NowMs, ok = scanInt(s, 0, MaxNowMs)
			return mNow, ok
		case "replica":
			in.Replica, ok = scanReplica(s, &stored)
			return mReplica, ok
		case "state":
			in.State, ok = scanState(s)
			return mState, ok
		case "event":
			in.Event, args, ok = scanEvent(s, 1, true, &stored)
			return mEvent, ok
		case "policy":
			p := &c.Policy
			return mPolicy, scanInts(s, 1, retryPolicyMembers, &p.MaxAttempts, &p.BaseMs, &p.CapMs, &p.MaxWaitMs)
		case "settings":
			st := &c.Settings
			return mSettings, scanInts(s, 1, breakerSettingsMembers, &st.FailureThreshold, &st.OpenMs, &st.SuccessThreshold)
		case "budget", "loop":
			// No bit: the map of these trees is what refuses a duplicate.
			v, err := s.Value(1)
			if err != nil || v == nil {
				return 0, false
			}
			if rest == nil {
				rest = make(map[string]any, 4)
			} else if _, dup := rest[key]; dup {
				return 0, false
			}
			rest[key] = v
			return 0, true
		}
		return 0, false
	})
	const need = mOp | mTool | mState | mEvent | mNow
	if !ok || !s.End() || seen&need != need {
		return in, false
	}
	if in.AheadFor != 0 {
		in.Ahead = newStepAhead(in.AheadFor)
	}
	if rest != nil {
		if readRun(rest, &in) != nil {
			return in, false
		}
	}
	if c.Loop && in.Event.Kind == EventStart {
		in.Event.ArgsKey = LoopArgsKey(args) // the arguments matter to the loop guard only
	}
	return in, true
}

// scanClassified reads a failure event's "classify" member when it is the
// classify_exception request a runtime writes ({"op", "exception": {"type"?,
// "message"?, "traceback"?}, "tool"?, "provider"?, "source"?, "attempt"?},
// each member once, each string a string) and returns the envelope that op
// answers, as Classified does with the tree. Anything else (the classify
// op's HTTP request, another member, a null, a request the op refuses) is
// ok false, and the caller reads it again as a tree.
func scanClassified(s *canonical.Scanner) (envelope.Envelope, bool) {
	var r classify.ExceptionRequest
	str := func(dst *string) bool {
		v, ok := s.String()
		*dst = v
		return ok && s.Str(v)
	}
	seen, ok := canonical.EachOnce(s, func(key string) (uint8, bool) {
		switch key {
		case "op":
			var op string
			return 1, str(&op) && op == "classify_exception"
		case "exception":
			_, ok := s.ReadObject(exceptionMembers, func(i int) bool {
				return str([...]*string{&r.Type, &r.Message, &r.Traceback}[i])
			})
			return 2, ok
		case "tool":
			return 4, str(&r.Tool)
		case "provider":
			return 8, str(&r.Provider)
		case "source":
			var src string
			ok := str(&src)
			r.Source = envelope.Source(src)
			return 16, ok
		case "attempt":
			var ok bool
			r.Attempt, ok = scanInt(s, 0, classify.MaxAttempt)
			r.HasAttempt = true
			return 32, ok
		}
		return 0, false
	})
	if !ok || seen&3 != 3 || r.Check("event.classify") != nil {
		return envelope.Envelope{}, false
	}
	return r.Classify(), true
}

// exceptionMembers are a classify_exception request's "exception" members
// (scanClassified).
var exceptionMembers = []string{"type", "message", "traceback"}

// scanInts reads an object whose members are among names, each a whole
// number in [min, maxMs] (readInts' rule) read into dsts[i] for names[i];
// ok false for anything else (a null, an unknown or duplicate member),
// which the tree's reader answers instead.
func scanInts(s *canonical.Scanner, min int64, names []string, dsts ...*int64) bool {
	_, ok := s.ReadObject(names, func(i int) bool {
		var ok bool
		*dsts[i], ok = scanInt(s, min, maxMs)
		return ok
	})
	return ok
}

// scanInt reads a number that is a whole number in [min, max], as field.Int
// accepts it (unboxed: Scanner.Number).
func scanInt(s *canonical.Scanner, min, max int64) (int64, bool) {
	f, ok := s.Number()
	if !ok || f != math.Trunc(f) || f < float64(min) || f > float64(max) {
		return 0, false
	}
	return int64(f), true
}

// scanStored reads stored bytes: a string, or null for none. A request
// mostly carries the same bytes twice (the replica's state and the load
// made ahead): first holds the first bytes read, and the same literal met
// again is not decoded again but shares them (Step changes neither),
// charged as its first reading was (Scanner.Again).
func scanStored(s *canonical.Scanner, first *storedRead) (b []byte, absent, ok bool) {
	if s.Next() == 'n' {
		v, err := s.Value(2)
		return nil, true, err == nil && v == nil
	}
	if first.b != nil && s.Again(first.lit, first.cost) {
		return first.b, false, true
	}
	cost := s.Cost()
	str, ok := s.String()
	if !ok || !s.Str(str) {
		return nil, false, false
	}
	lit, _ := s.Quoted()
	if first.b != nil && string(first.b) == str {
		return first.b, false, true
	}
	b = []byte(str)
	if first.b == nil {
		*first = storedRead{b: b, lit: lit, cost: s.Cost() - cost}
	}
	return b, false, true
}

// storedRead is the first stored bytes a request's scan read (scanStored),
// with the literal they were read from (a slice of the request, kept for
// the scan only) and what reading it charged.
type storedRead struct {
	b    []byte
	lit  string
	cost int64
}

// scanNull reads a null at the top level of the request if one is next
// (null true, ok whether it was the literal null).
func scanNull(s *canonical.Scanner) (null, ok bool) {
	if s.Next() != 'n' {
		return false, true
	}
	v, err := s.Value(1)
	return true, err == nil && v == nil
}

// scanReplica reads "replica": null, or {"down_until_ms"?, "state"?}.
func scanReplica(s *canonical.Scanner, stored *storedRead) (r ReplicaState, ok bool) {
	if null, ok := scanNull(s); null {
		return r, ok
	}
	_, ok = canonical.EachOnce(s, func(key string) (uint16, bool) {
		var ok bool
		switch key {
		case "down_until_ms":
			r.DownUntilMs, ok = scanInt(s, 0, maxMs)
			return 1, ok
		case "state":
			b, absent, ok := scanStored(s, stored)
			if ok && !absent {
				r.State = b
			}
			return 2, ok
		}
		return 0, false
	})
	return r, ok
}

// scanEnvelope reads an envelope at depth as envelope.FromValue does.
func scanEnvelope(s *canonical.Scanner, depth int, path string) (*envelope.Envelope, bool) {
	v, err := s.Value(depth)
	if err != nil || v == nil {
		return nil, false
	}
	e, err := envelope.FromValue(v, path)
	if err != nil {
		return nil, false
	}
	return &e, true
}

// scanName reads a string that is one of names ("" being the first).
func scanName(s *canonical.Scanner, names []string) (int, bool) {
	v, ok := s.String()
	if !ok || !s.Str(v) {
		return 0, false
	}
	if v == "" {
		return 0, true
	}
	i := enumIndex(names, v)
	return i, i >= 0
}

// scanDraw reads a draw: a number in [0, 1).
func scanDraw(s *canonical.Scanner) (float64, bool) {
	f, ok := s.Number()
	return f, ok && f >= 0 && f < 1
}

// scanState reads "state": null, or a call's state as ReadStepState reads
// it.
func scanState(s *canonical.Scanner) (st StepState, ok bool) {
	if null, ok := scanNull(s); null {
		return st, ok
	}
	var seen uint16
	seen, ok = canonical.EachOnce(s, func(key string) (uint16, bool) {
		var ok bool
		switch key {
		case "phase":
			i, ok := scanName(s, phaseNames[:])
			st.Phase = StepPhase(i)
			return 1 << 0, ok && i > int(PhaseNew)
		case "attempt":
			st.Attempt, ok = scanInt(s, 0, maxMs)
			return 1 << 1, ok
		case "deadline_ms":
			st.DeadlineMs, ok = scanInt(s, 0, maxMs)
			return 1 << 2, ok
		case "tries":
			st.Tries, ok = scanInt(s, 0, maxMs)
			return 1 << 3, ok
		case "args":
			st.ArgsKey, ok = s.String()
			return 1 << 4, ok && s.Str(st.ArgsKey)
		case "event":
			i, ok := scanName(s, breakerEventNames[:])
			st.Event = BreakerEvent(i)
			return 1 << 5, ok
		case "pending":
			st.Pending, ok = scanPending(s)
			return 1 << 6, ok
		case "error":
			st.Error, ok = scanEnvelope(s, 2, "state.error")
			return 1 << 7, ok
		case "draw":
			st.Draw, ok = scanDraw(s)
			return 1 << 8, ok
		case "cancelled":
			st.Cancelled, ok = s.Bool()
			return 1 << 9, ok
		}
		return 0, false
	})
	if !ok || seen&1 == 0 {
		return st, false
	}
	return st, !(st.Phase == PhaseBreaker && st.Event == EventFailure && st.Error == nil)
}

// scanPending reads a state's "pending" object.
func scanPending(s *canonical.Scanner) (*Pending, bool) {
	p := &Pending{}
	seen, ok := canonical.EachOnce(s, func(key string) (uint16, bool) {
		var ok bool
		switch key {
		case "allowed":
			p.Allowed, ok = s.Bool()
			return 1, ok
		case "from":
			i, ok := scanName(s, breakerPhaseNames[:])
			p.From = BreakerPhase(i)
			return 2, ok
		case "to":
			i, ok := scanName(s, breakerPhaseNames[:])
			p.To = BreakerPhase(i)
			return 4, ok
		case "new":
			v, ok := s.String()
			p.New = []byte(v)
			return 8, ok && s.Str(v)
		}
		return 0, false
	})
	return p, ok && seen&8 != 0
}

// scanEvent reads an event object at depth (1: the request's "event"; 2:
// its "loaded") as ReadStepEvent reads it; outer says a "loaded" member may
// be in it; stored is scanStored's first bytes.
func scanEvent(s *canonical.Scanner, depth int, outer bool, stored *storedRead) (e StepEvent, args any, ok bool) {
	var (
		seen             uint16
		kind             = -1
		swapped, swapSet bool
	)
	seen, ok = canonical.EachOnce(s, func(key string) (uint16, bool) {
		var ok bool
		switch key {
		case "kind":
			v, ok := s.String()
			if !ok || !s.Str(v) {
				return 0, false
			}
			kind = enumIndex(eventNames[:], v)
			return 1 << 0, kind >= 0
		case "args":
			v, err := s.Value(depth + 1)
			args = v
			return 1 << 1, err == nil
		case "deadline_ms":
			e.DeadlineMs, ok = scanInt(s, 0, maxMs)
			return 1 << 2, ok
		case "value", "current":
			e.Value, e.Absent, ok = scanStored(s, stored)
			if key == "current" {
				return 1 << 4, ok
			}
			return 1 << 3, ok
		case "swapped":
			swapped, ok = s.Bool()
			swapSet = true
			return 1 << 5, ok
		case "message":
			e.Message, ok = s.String()
			return 1 << 6, ok && s.Str(e.Message)
		case "cause":
			e.Cause, ok = s.String()
			return 1 << 7, ok && s.Str(e.Cause)
		case "error":
			if e.Error, ok = scanEnvelope(s, depth+1, "event.error"); ok {
				*e.Error = SafeFailure(*e.Error) // the runtime's own envelope
			}
			return 1 << 8, ok
		case "draw":
			e.Draw, ok = scanDraw(s)
			return 1 << 9, ok
		case "classify":
			at := s.Mark()
			env, ok := scanClassified(s)
			if !ok { // another request (the classify op's), read as a tree
				s.Back(at)
				v, err := s.Value(depth + 1)
				if err != nil {
					return 0, false
				}
				if env, err = Classified(v, "event.classify"); err != nil {
					return 0, false
				}
			}
			e.Error = &env
			return 1 << 11, true
		case "loaded":
			if !outer {
				return 0, false
			}
			l, _, ok := scanEvent(s, depth+1, false, stored)
			e.Loaded = &l
			return 1 << 10, ok && (l.Kind == EventLoaded || l.Kind == EventStoreError)
		}
		return 0, false
	})
	if !ok || kind < 0 {
		return e, nil, false
	}
	e.Kind = EventKind(kind)
	if seen&^eventMembers[e.Kind] != 0 {
		return e, nil, false
	}
	switch e.Kind {
	case EventLoaded, EventCAS:
		if seen&(1<<3|1<<4) == 0 {
			e.Absent = true
		}
		if e.Kind == EventCAS {
			if !swapSet {
				return e, nil, false
			}
			e.Swapped = swapped
		}
	case EventCallFailed:
		if e.Error == nil || seen&(1<<9) == 0 || seen&(1<<8|1<<11) == 1<<8|1<<11 {
			return e, nil, false
		}
	case EventCancelled:
		switch e.Cause {
		case "":
			e.Cause = "cancelled"
		case "cancelled", "deadline":
		default:
			return e, nil, false
		}
	}
	return e, args, true
}

// eventMembers are the members each event kind takes (ReadStepEvent's
// lists) as scanEvent's bits: kind 0, args 1, deadline_ms 2, value 3,
// current 4, swapped 5, message 6, cause 7, error 8, draw 9, loaded 10,
// classify 11.
var eventMembers = [...]uint16{
	EventStart: 1 | 1<<1 | 1<<2 | 1<<10, EventLoaded: 1 | 1<<3, EventCAS: 1 | 1<<4 | 1<<5,
	EventStoreError: 1 | 1<<6, EventCallOK: 1 | 1<<10, EventCallFailed: 1 | 1<<8 | 1<<9 | 1<<10 | 1<<11,
	EventSlept: 1 | 1<<10, EventCancelled: 1 | 1<<7 | 1<<10,
}
