package core

import (
	"sync"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/mcp"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// fastSerialize answers the common serialize request without a value tree:
// {"op": "serialize", "format": f, "results": [{"call": {"id", "name"},
// "error": envelope | "result": {"text": s}}, ...], "output_schema"?: b} or
// the one outcome at the top level ("call" and "error" | "result"), members
// in any order. Its members are read straight into outcomes and the codec
// writes the response, as opSerialize does. An envelope's details already in
// canonical form with every string clean (canonical.Scanner.Canonical,
// sanitize.QuietDetail), the form the bindings send, are not read into a
// tree at all: the codec copies their text (outcome.SafeDetails),
// and the envelope's message passes the sanitizer here, once, instead of in
// the codec. Other details become a tree, sanitized by the codec as always.
//
// It answers only a request it is sure of: any other member or shape, a
// duplicate member, a value the op refuses, a bound reached or a codec error
// returns ok false, and Invoke takes the request through the general path,
// which gives the answer (or the error) it always did. So the bytes are the
// same either way; TestFastSerialize_sameAsGeneral,
// TestFastSerialize_mutations and FuzzFastSerialize hold it to that.
//
// The response is appended to dst (a nil dst gets a buffer sized for it).
func fastSerialize(dst []byte, request string) (response []byte, ok bool) {
	// The first outcome is held in a fastOne reused from call to call: the
	// codec's interface takes the outcomes as a slice, which puts them on
	// the heap, and one allocation of them per call cost about a tenth of
	// the call. It is cleared before it goes back, so that no string of
	// this request (which AppendInvoke reads in place) is kept past the
	// call; a call that panics drops it.
	one := fastOnes.Get().(*fastOne)
	response, ok = serializeWith(dst, request, one)
	*one = fastOne{}
	fastOnes.Put(one)
	return response, ok
}

// serializeWith is fastSerialize with its first outcome held in one, zero.
func serializeWith(dst []byte, request string, one *fastOne) (response []byte, ok bool) {
	s := canonical.NewScanner(request)
	var (
		name   string
		outs   []outcome.Outcome
		schema bool
	)
	seen, ok := s.EachKey(topKeys, func(i int) bool {
		switch i {
		case kOp:
			v, ok := s.String()
			return ok && v == "serialize" && s.Str(v)
		case kFormat:
			var ok bool
			name, ok = s.String()
			return ok && s.Str(name)
		case kSchema:
			var ok bool
			schema, ok = s.Bool()
			return ok
		case kResults:
			var ok bool
			outs, ok = fastResults(s, one)
			return ok
		case kCall:
			return fastCall(s, &one.out[0].Call)
		case kError:
			return fastError(s, 2, &one.out[0], &one.slot)
		}
		return fastResult(s, &one.out[0], &one.slot) // kResult
	})
	const mOp, mFormat, mSchema = 1 << kOp, 1 << kFormat, 1 << kSchema
	if !ok || !s.End() || seen&(mOp|mFormat) != mOp|mFormat {
		return nil, false
	}
	switch seen &^ (mOp | mFormat | mSchema) {
	case 1 << kResults:
	case 1<<kCall | 1<<kError, 1<<kCall | 1<<kResult:
		outs = one.out[:]
	default:
		return nil, false
	}
	c := format.Lookup(name)
	if c == nil {
		return nil, false
	}
	if seen&mSchema != 0 {
		// As withOutputSchema: the member belongs to the mcp format only.
		m, isMCP := c.(mcp.Codec)
		if !isMCP {
			return nil, false
		}
		m.NoOutputSchema = !schema
		c = m
	}
	// The response is about as long as the request: the members it drops
	// (op, format) make room for each outcome's frame and the escapes of a
	// text-only format.
	if dst == nil {
		dst = make([]byte, 0, min(len(request)+96*len(outs), 64<<10)+len(okPrefix)+1)
	}
	b, err := c.AppendSerialized(append(dst, okPrefix...), outs)
	if err != nil || len(b)-len(dst)+1 > MaxResponseBytes {
		return nil, false
	}
	return append(b, '}'), true
}

// The members of the objects fastSerialize reads, as Keys and their
// indexes: the request's, an outcome's (an element of results), a call's,
// an envelope's and a result's.
var (
	topKeys     = canonical.NewKeys("op", "format", "output_schema", "results", "call", "error", "result")
	outcomeKeys = canonical.NewKeys("call", "error", "result")
	callKeys    = canonical.NewKeys("id", "name")
	errorKeys   = canonical.NewKeys("code", "message", "source", "retryable", "details")
	resultKeys  = canonical.NewKeys("text")
)

const (
	kOp = iota
	kFormat
	kSchema
	kResults
	kCall
	kError
	kResult
)

// fastOnes holds the *fastOne of fastSerialize calls, zero between them.
var fastOnes = sync.Pool{New: func() any { return new(fastOne) }}

// fastOne is the first outcome of a request, with what it points to: the
// one at the top level, or the first of its results.
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
// and "error" or "result". The first outcome is read into f (a list of one
// allocates nothing more); a second moves them to slices of their own.
func fastResults(s *canonical.Scanner, f *fastOne) ([]outcome.Outcome, bool) {
	if !s.Byte('[') {
		return nil, false
	}
	outs := f.out[:0]
	var slots []fastSlot
	for !s.Byte(']') {
		if len(outs) > 0 && !s.Byte(',') {
			return nil, false
		}
		var (
			o  *outcome.Outcome
			sl *fastSlot
		)
		switch len(outs) {
		case 0:
			outs, o, sl = f.out[:1], &f.out[0], &f.slot
		case 1:
			outs = append(make([]outcome.Outcome, 0, 4), f.out[0])
			slots = append(make([]fastSlot, 0, 4), f.slot)
			fallthrough
		default:
			outs = append(outs, outcome.Outcome{})
			slots = append(slots, fastSlot{})
			o, sl = &outs[len(outs)-1], &slots[len(slots)-1]
		}
		seen, ok := s.EachKey(outcomeKeys, func(i int) bool {
			switch i {
			case 0:
				return fastCall(s, &o.Call)
			case 1:
				return fastError(s, 4, o, sl)
			}
			return fastResult(s, o, sl)
		})
		if !ok || (seen != 0b011 && seen != 0b101) {
			return nil, false
		}
	}
	if len(outs) == 0 || !s.Array(len(outs)) {
		return nil, false
	}
	// The outcomes point into slots, which moved while they grew.
	for i := range slots {
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
	_, ok := s.EachKey(callKeys, func(i int) bool {
		if i == 0 {
			return s.StringMember(&c.ID)
		}
		return s.StringMember(&c.Name)
	})
	return ok
}

// fastResult reads an outcome's "result" (only {"text": s}) into o,
// pointing into sl.
func fastResult(s *canonical.Scanner, o *outcome.Outcome, sl *fastSlot) bool {
	var t string
	seen, ok := s.EachKey(resultKeys, func(int) bool { return s.StringMember(&t) })
	sl.r = outcome.TextResult(t)
	o.Result = &sl.r
	return ok && seen == 1
}

// fastError reads an outcome's "error" (an envelope) at nesting level depth
// into o, pointing into sl.
func fastError(s *canonical.Scanner, depth int, o *outcome.Outcome, sl *fastSlot) bool {
	e := &sl.e
	var safe string // the details' canonical JSON, when every string of them is quiet
	seen, ok := s.EachKey(errorKeys, func(i int) bool {
		switch i {
		case 0:
			v, ok := s.String()
			e.Code = envelope.Code(v)
			return ok && s.Str(v)
		case 1:
			return s.StringMember(&e.Message)
		case 2:
			v, ok := s.String()
			e.Source = envelope.Source(v)
			return ok && s.Str(v)
		case 3:
			var ok bool
			e.Retryable, ok = s.Bool()
			return ok
		}
		if s.Next() != '{' {
			return false
		}
		if raw, ok := s.Canonical(depth, sanitize.QuietDetail); ok {
			safe = raw
			return true
		}
		v, err := s.Value(depth)
		if err != nil {
			return false
		}
		e.Details = v.(map[string]any)
		return true
	})
	if !ok || seen != 31 || !envelope.ValidCodeToken(string(e.Code)) || !e.Source.Valid() {
		return false
	}
	if safe != "" {
		// What outcome.Safe does to it, done here once: the details need
		// nothing (QuietDetail accepted every string of them).
		if !sanitize.CleanMessage(e.Message) {
			e.Message = sanitize.Message(e.Message)
		}
	}
	call := o.Call
	*o = outcome.Recognized(e, safe, false)
	o.Call = call
	return true
}
