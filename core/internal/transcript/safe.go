package transcript

import (
	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// safeFailures makes every failure in msgs what a model may read, as every
// envelope toolerr writes is: an envelope passes outcome.Safe, and the text
// of a failed result (its text blocks too) sanitize.FailureText, which
// redacts secrets and reduces a stack trace. A part that changes is marked
// Dirty, and its message, so that every writer rebuilds it rather than
// reuse it as read; a clean failure is left byte for byte. A successful
// result is the tool's own output and is not touched.
func safeFailures(msgs []Message) {
	for i := range msgs {
		for j := range msgs[i].Parts {
			p := &msgs[i].Parts[j]
			if p.Kind == KindResult && safeResult(&p.Result) {
				p.Dirty, msgs[i].Dirty = true, true
			}
		}
	}
}

// safeResult sanitizes one result in place and reports whether it changed.
func safeResult(r *Result) bool {
	o := &r.Outcome
	if o.Error != nil {
		// Its reader may have found it clean (outcome.FoundClean) in the
		// pass that recognized it; else it is asked here.
		if outcome.FoundClean(o) || sanitize.Clean(o.Error.Message) && sanitize.DetailsClean(o.Error.Details) {
			return false
		}
		e := outcome.Safe(*o.Error)
		*o = outcome.Outcome{Call: o.Call, Error: &e, Result: o.Result}
		return true
	}
	if !r.Failed || o.Result == nil {
		return false
	}
	switch o.Result.Kind {
	case outcome.Text:
		if t := sanitize.FailureText(o.Result.Text); t != o.Result.Text {
			res := *o.Result
			res.Text = t
			o.Result = &res
			return true
		}
	case outcome.Blocks:
		var bs []outcome.Block
		for k, b := range o.Result.Blocks {
			if b.Type != "text" {
				continue
			}
			if t := sanitize.FailureText(b.Text); t != b.Text {
				if bs == nil {
					bs = append([]outcome.Block(nil), o.Result.Blocks...)
				}
				bs[k].Text = t
			}
		}
		if bs != nil {
			res := *o.Result
			res.Blocks = bs
			o.Result = &res
			return true
		}
	}
	return false
}
