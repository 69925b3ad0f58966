// Package bounds holds the checks that refuse an op's work before it is done
// when its response is known to pass MaxResponseBytes; core/limits.go
// documents every bound and turns an *Error into core's *LimitError. What
// the checks let through is still held to the bound while the response is
// written.
package bounds

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// MaxResponseBytes is the largest response Invoke writes, in bytes (32 MiB;
// core.MaxResponseBytes).
const MaxResponseBytes = 32 << 20

// ResponseBytes is the name of the bound, as details.bound gives it.
const ResponseBytes = "response_bytes"

// Error is work refused because its response would pass MaxResponseBytes:
// Count is the length it is known to reach, Msg says why.
type Error struct {
	Bound string
	Limit int64
	Count int64
	Msg   string
}

// Error returns "toolerr: <msg>".
func (e *Error) Error() string { return "toolerr: " + e.Msg }

func responseTooLarge(count int64, why string) *Error {
	return &Error{Bound: ResponseBytes, Limit: MaxResponseBytes, Count: count,
		Msg: "the response would be longer than " + strconv.Itoa(MaxResponseBytes) + " bytes (the limit): " + why}
}

// Repair is transcript.Repair with the response bound: it refuses, before
// the repair, a transcript with more unanswered calls than results fit in a
// response, and, before the repaired list is written, one whose synthesized
// results alone would pass MaxResponseBytes.
func Repair(f transcript.Format, msgs []transcript.Message, o transcript.Options) ([]transcript.Message, transcript.Changes, error) {
	if err := unanswered(msgs); err != nil {
		return nil, transcript.Changes{}, err
	}
	out, ch := transcript.Repair(f, msgs, o)
	if err := synthesized(f, out, ch.Synthesized); err != nil {
		return nil, transcript.Changes{}, err
	}
	return out, ch, nil
}

// MinResultBytes is the fewest bytes a result repair synthesizes adds to a
// response in any format: 214 in gemini, 227 to 249 in the others, for a call
// without id or name (TestRepairBound_minResultBytes checks each).
const MinResultBytes = 200

// repairWrapperBytes is what one serialized turn may add around its result
// (the message object of anthropic, gemini and bedrock), taken off each
// result's length when the response is estimated from single-result turns.
const repairWrapperBytes = 40

// unanswered refuses a repair of msgs that must synthesize more results
// than fit in a response: every call without a result gets one, so at least
// calls - results of them, each at least MinResultBytes long. It runs before
// the repair, on the read transcript.
func unanswered(msgs []transcript.Message) error {
	n := 0
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p.Kind {
			case transcript.KindCall:
				n++
			case transcript.KindResult:
				n--
			}
		}
	}
	if need := int64(n) * MinResultBytes; need > MaxResponseBytes {
		return responseTooLarge(need, "the transcript has "+strconv.Itoa(n)+" more calls than results, and each unanswered call gets a result of at least "+strconv.Itoa(MinResultBytes)+" bytes; repair it in parts")
	}
	return nil
}

// synthesized refuses a repaired transcript whose synthesized results
// alone would pass MaxResponseBytes, before it is written: each is
// serialized (bytes only, into one scratch buffer) to get its length.
func synthesized(f transcript.Format, msgs []transcript.Message, n int) error {
	if int64(n)*MinResultBytes <= MaxResponseBytes/4 {
		return nil // too few to matter: the write holds them to the bound
	}
	c := format.Lookup(string(f))
	if c == nil {
		return nil
	}
	var total int64
	var scratch []byte
	for _, m := range msgs {
		for i := range m.Parts {
			p := &m.Parts[i]
			if p.Kind != transcript.KindResult || p.Raw != nil || p.Result.Outcome.Error == nil || p.Result.Outcome.Error.Code != envelope.NoResult {
				continue
			}
			var err error
			if scratch, err = c.AppendSerialized(scratch[:0], []outcome.Outcome{p.Result.Outcome}); err != nil {
				total += MinResultBytes
				continue
			}
			total += int64(max(len(scratch)-repairWrapperBytes, MinResultBytes))
			if total > MaxResponseBytes {
				return responseTooLarge(total, "the "+strconv.Itoa(n)+" results to synthesize take more; repair the transcript in parts")
			}
		}
	}
	return nil
}
