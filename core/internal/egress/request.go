package egress

import (
	"slices"

	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/request"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// Prepared is a request body made ready for its provider.
//
// Body is the body to send: the very body read (b.Raw) when Changed is
// false. Changes are repair's (synthesized NO_RESULT results, dropped
// orphans and duplicates, moved and merged results, filled empty text,
// renamed repeated ids), FlagsRestored the ids of results whose envelope
// travelled without the format's failure flag and now carry it, Rewritten
// the number of ids normalize_ids rewrote for the target's rules, and
// IDMap every new id to the original id of the body (repair's renames and
// the rewrites together, chained). IDs lists every id touched, in order.
// Findings are what check still finds in the body to send: what no rule
// of the request op repairs (an unknown role, a name the format rejects,
// an output of a server-side call kept unverified).
type Prepared struct {
	Body          map[string]any
	Changed       bool
	Changes       transcript.Changes
	FlagsRestored []string
	Rewritten     int
	IDMap         map[string]string
	IDs           []string
	Findings      []transcript.Finding
}

// Prepare makes the body b ready for its provider, with the engine options
// o (completed by b.Options: the list path, the server-side state the body
// builds on, its model), in four steps over one reading of the list:
//
//  1. Flags: a result whose content is a toolerr envelope (recognised as
//     the transcript layer recognises one: exactly the five typed keys,
//     dialect.TextOutcome and ValueOutcome) but whose element lacks the
//     format's failure flag (Dialect.Flagged) is written again through the
//     format's codec, which sets the flag: Anthropic is_error, Bedrock
//     status "error", Gemini response.error. A failure flagged without an
//     envelope, and every result that is no envelope, is left as it is.
//  2. Repair (transcript.Repair): every call answered once where the
//     format requires, an unanswered call with a NO_RESULT failure, flag
//     set; orphans and second results dropped; split Gemini responses
//     merged where the model requires one content.
//  3. Ids (transcript.NormalizeIDs) to o.IDRules ("" = the format's own):
//     every id the target rejects rewritten from a hash of the original,
//     so later requests of the same conversation map it the same way, and
//     distinct ids stay distinct (call:abc/1 and call_abc_1 do not
//     collide).
//  4. Check (transcript.Check) of what will be sent, for Findings.
//
// Everything the steps do not change is the value read, reasoning data
// included (thinking and redacted_thinking blocks, reasoning items,
// thoughtSignature): the transcript layer keeps every part it does not
// model as read. A list of the wrong shape is a *field.Error at its path.
//
// See docs/egress.md, "The request op".
func Prepare(b *request.Body, o transcript.Options) (Prepared, error) {
	msgs, err := b.Messages()
	if err != nil {
		return Prepared{}, err
	}
	o = b.Options(o)
	restored := restoreFlags(b.Format, msgs, o.Model)
	out, ch := transcript.Repair(b.Format, msgs, o)
	rules := o.IDRules
	if rules == "" {
		rules = string(b.Format)
	}
	norm := transcript.NormalizeIDs(b.Format, out, rules)
	p := Prepared{Changes: ch, FlagsRestored: restored, Rewritten: len(norm), IDMap: chainIDs(ch.IDMap, norm)}
	p.IDs = touched(ch.IDs, restored, norm)
	p.Findings = transcript.Check(b.Format, out, o)
	p.Changed = len(restored) > 0 || len(norm) > 0 || repaired(ch)
	if !p.Changed {
		p.Body = b.Raw
		return p, nil
	}
	p.Body = b.Write(transcript.Write(b.Format, out))
	return p, nil
}

// restoreFlags marks for rewriting every result of msgs whose outcome is an
// envelope read from its content while its element lacks the failure flag
// of format f as model (the body's, "" when unknown) takes it, and returns
// their call ids in order. The writer then encodes each through the
// format's codec, which sets the flag (and sanitizes the envelope, as every
// writer of a failed result does); the element's other members stay.
func restoreFlags(f transcript.Format, msgs []transcript.Message, model string) []string {
	d := format.Dialect(string(f))
	if d != nil && d.ForModel != nil && model != "" {
		d.ForModel(d, model) // the dialect as the model takes it, as the transcript engine reads it
	}
	if d == nil || d.Flagged == nil {
		return nil // no flag in the format: the envelope in the content is the failure
	}
	var ids []string
	for i := range msgs {
		for j := range msgs[i].Parts {
			p := &msgs[i].Parts[j]
			if p.Kind != transcript.KindResult || p.Result.Outcome.Error == nil || p.Raw == nil {
				continue
			}
			if elem, ok := p.Raw.(map[string]any); ok && !d.Flagged(elem) {
				p.Dirty, msgs[i].Dirty = true, true
				ids = append(ids, resultID(p))
			}
		}
	}
	return ids
}

// resultID names a result in the report: its call id, or for a Gemini
// response without one its function name.
func resultID(p *transcript.Part) string {
	if id := p.Result.ID(); id != "" {
		return id
	}
	return p.Result.Outcome.Call.Name
}

// repaired reports whether repair changed anything.
func repaired(c transcript.Changes) bool {
	return c.Synthesized+c.DroppedOrphans+c.DroppedDuplicates+c.Moved+c.Merged+c.Filled+c.Renamed > 0
}

// chainIDs returns the map from every id of the body to send to the body's
// original: norm (new -> the id after repair) followed by renamed (repair's
// new -> original), and repair's renames normalize_ids kept.
func chainIDs(renamed, norm map[string]string) map[string]string {
	if len(renamed) == 0 && len(norm) == 0 {
		return nil
	}
	out := make(map[string]string, len(renamed)+len(norm))
	for k, v := range renamed {
		out[k] = v
	}
	for k, v := range norm {
		if orig, ok := renamed[v]; ok {
			delete(out, v)
			v = orig
		}
		out[k] = v
	}
	return out
}

// touched lists the ids repair touched, then the restored ones, then the
// rewritten originals (sorted: a map has no order), each once.
func touched(repairIDs, restored []string, norm map[string]string) []string {
	seen := map[string]bool{}
	out := []string{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, id := range repairIDs {
		add(id)
	}
	for _, id := range restored {
		add(id)
	}
	orig := make([]string, 0, len(norm))
	for _, v := range norm {
		orig = append(orig, v)
	}
	slices.Sort(orig)
	for _, id := range orig {
		add(id)
	}
	return out
}
