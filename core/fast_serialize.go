package core

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// fastSerialize answers the common serialize request without a value tree:
// {"op": "serialize", "format": f, "results": [{"call": {"id", "name"},
// "error": envelope | "result": {"text": s}}, ...]} or the one outcome at the
// top level ("call" and "error" | "result"), members in any order. Its
// members are read straight into outcomes (only an envelope's details
// become a tree) and the codec writes the response, as opSerialize does.
//
// It answers only a request it is sure of: any other member or shape, a
// duplicate member, a value the op refuses, a bound reached or a codec error
// returns ok false, and Invoke takes the request through the general path,
// which gives the answer (or the error) it always did. So the bytes are the
// same either way; TestFastSerialize_sameAsGeneral holds it to that.
func fastSerialize(request []byte) (response []byte, ok bool) {
	s := canonical.NewScanner(request)
	if !s.Byte('{') {
		return nil, false
	}
	var (
		seen    uint8
		name    string
		outs    []outcome.Outcome
		one     *fastOne // the top-level outcome, allocated once it is met
		members int
	)
	const (
		mOp = 1 << iota
		mFormat
		mResults
		mCall
		mError
		mResult
	)
	for ; ; members++ {
		key, more, ok := s.Member(members)
		if !ok {
			return nil, false
		}
		if !more {
			break
		}
		var bit uint8
		switch key {
		case "op":
			bit = mOp
			v, ok := s.String()
			if !ok || v != "serialize" || !s.Str(v) {
				return nil, false
			}
		case "format":
			bit = mFormat
			if name, ok = s.String(); !ok || !s.Str(name) {
				return nil, false
			}
		case "results":
			bit = mResults
			if outs, ok = fastResults(s); !ok {
				return nil, false
			}
		case "call":
			bit = mCall
			if one == nil {
				one = new(fastOne)
			}
			if !fastCall(s, &one.out[0].Call) {
				return nil, false
			}
		case "error", "result":
			bit = mError
			if key == "result" {
				bit = mResult
			}
			if one == nil {
				one = new(fastOne)
			}
			if !fastPayload(s, key, 2, &one.out[0], &one.slot) {
				return nil, false
			}
		default:
			return nil, false
		}
		if seen&bit != 0 {
			return nil, false
		}
		seen |= bit
	}
	if !s.End() || !s.Object(members) || seen&(mOp|mFormat) != mOp|mFormat {
		return nil, false
	}
	switch seen &^ (mOp | mFormat) {
	case mResults:
	case mCall | mError, mCall | mResult:
		outs = one.out[:]
	default:
		return nil, false
	}
	c := format.Lookup(name)
	if c == nil {
		return nil, false
	}
	buf := append(make([]byte, 0, min(512*len(outs), 64<<10)+len(okPrefix)+1), okPrefix...)
	b, err := c.AppendSerialized(buf, outs)
	if err != nil || len(b)+1 > MaxResponseBytes {
		return nil, false
	}
	return append(b, '}'), true
}

// fastOne is the outcome of a request that gives one at the top level, with
// what it points to.
type fastOne struct {
	out  [1]outcome.Outcome
	slot fastSlot
}

// fastSlot holds what one outcome points to.
type fastSlot struct {
	e envelope.Envelope
	r outcome.Result
}

// fastResults reads the results array: each element an object of "call"
// and "error" or "result".
func fastResults(s *canonical.Scanner) ([]outcome.Outcome, bool) {
	if !s.Byte('[') {
		return nil, false
	}
	var outs []outcome.Outcome
	var slots []fastSlot
	for !s.Byte(']') {
		if len(outs) > 0 && !s.Byte(',') {
			return nil, false
		}
		if !s.Byte('{') {
			return nil, false
		}
		outs = append(outs, outcome.Outcome{})
		slots = append(slots, fastSlot{})
		o, sl := &outs[len(outs)-1], &slots[len(slots)-1]
		hasCall, hasPayload := false, false
		for n := 0; ; n++ {
			key, more, ok := s.Member(n)
			if !ok {
				return nil, false
			}
			if !more {
				break
			}
			switch {
			case key == "call" && !hasCall:
				hasCall = fastCall(s, &o.Call)
				if !hasCall {
					return nil, false
				}
			case (key == "error" || key == "result") && !hasPayload:
				hasPayload = fastPayload(s, key, 4, o, sl)
				if !hasPayload {
					return nil, false
				}
			default:
				return nil, false
			}
		}
		if !hasCall || !hasPayload || !s.Object(2) {
			return nil, false
		}
	}
	if len(outs) == 0 || !s.Array(len(outs)) {
		return nil, false
	}
	// The outcomes point into slots, which moved while they grew.
	for i := range outs {
		if outs[i].Error != nil {
			outs[i].Error = &slots[i].e
		} else {
			outs[i].Result = &slots[i].r
		}
	}
	return outs, true
}

// fastCall reads {"id": s, "name": s}, either or both.
func fastCall(s *canonical.Scanner, c *outcome.Call) bool {
	if !s.Byte('{') {
		return false
	}
	var seen uint8
	n := 0
	for ; ; n++ {
		key, more, ok := s.Member(n)
		if !ok {
			return false
		}
		if !more {
			break
		}
		v, ok := s.String()
		if !ok || !s.Str(v) {
			return false
		}
		switch {
		case key == "id" && seen&1 == 0:
			c.ID, seen = v, seen|1
		case key == "name" && seen&2 == 0:
			c.Name, seen = v, seen|2
		default:
			return false
		}
	}
	return s.Object(n)
}

// fastPayload reads an outcome's "error" (an envelope) or "result" (only
// {"text": s}) at nesting level depth into o, pointing into sl.
func fastPayload(s *canonical.Scanner, key string, depth int, o *outcome.Outcome, sl *fastSlot) bool {
	if key == "result" {
		if !s.Byte('{') {
			return false
		}
		if k, ok := s.String(); !ok || k != "text" || !s.Byte(':') {
			return false
		}
		t, ok := s.String()
		if !ok || !s.Str(t) || !s.Byte('}') || !s.Object(1) {
			return false
		}
		sl.r = outcome.TextResult(t)
		o.Result = &sl.r
		return true
	}
	if !s.Byte('{') {
		return false
	}
	var seen uint8
	e := &sl.e
	n := 0
	for ; ; n++ {
		key, more, ok := s.Member(n)
		if !ok {
			return false
		}
		if !more {
			break
		}
		var bit uint8
		switch key {
		case "code", "message", "source":
			v, ok := s.String()
			if !ok || !s.Str(v) {
				return false
			}
			switch key {
			case "code":
				bit, e.Code = 1, envelope.Code(v)
			case "message":
				bit, e.Message = 2, v
			default:
				bit, e.Source = 4, envelope.Source(v)
			}
		case "retryable":
			if e.Retryable, ok = s.Bool(); !ok {
				return false
			}
			bit = 8
		case "details":
			if s.Next() != '{' {
				return false
			}
			v, err := s.Value(depth)
			if err != nil {
				return false
			}
			e.Details, bit = v.(map[string]any), 16
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	if seen != 31 || !s.Object(n) || !envelope.ValidCodeToken(string(e.Code)) || !e.Source.Valid() {
		return false
	}
	o.Error = e
	return true
}
