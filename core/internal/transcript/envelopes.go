package transcript

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// nearEnvelopes counts the successful results of msgs whose content
// resembles an envelope without being the exact text toolerr writes for one
// (outcome.NearText, outcome.NearValue): a history that reformats toolerr's
// envelopes (pretty-printing, HTML escaping) or a tool whose output only
// looks like one. They are kept as successes; convert says how many.
func nearEnvelopes(msgs []Message) int {
	n := 0
	for i := range msgs {
		for j := range msgs[i].Parts {
			p := &msgs[i].Parts[j]
			if p.Kind != KindResult || p.Result.Failed || p.Result.Outcome.Result == nil {
				continue
			}
			switch r := p.Result.Outcome.Result; r.Kind {
			case outcome.Text:
				if outcome.NearText(r.Text) {
					n++
				}
			case outcome.JSON:
				if outcome.NearValue(r.JSON) {
					n++
				}
			}
		}
	}
	return n
}

// nearNote is convert's note for n results nearEnvelopes counted.
func nearNote(n int) string {
	return "kept results (" + strconv.Itoa(n) + ") as successes whose content resembles an envelope but is not the exact text toolerr writes for one: only that text restores a failure flag"
}
