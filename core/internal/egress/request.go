package egress

import (
	"slices"

	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/request"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// Prepared is a request body made ready for its provider.
//
// Body is the body to send: the very body read (b.Raw) when Changed is
// false. Changes are repair's (synthesized NO_RESULT results, dropped
// orphans and duplicates, moved and merged results, filled empty text,
// renamed repeated ids, parts with two data fields split), Named the ids
// of results that named no function and now name their call's (Gemini),
// FlagsRestored the ids of results whose envelope
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
	Named         []string
	FlagsRestored []string
	Rewritten     int
	IDMap         map[string]string
	IDs           []string
	Findings      []transcript.Finding
}

// Prepare makes the body b ready for its provider, with the engine options
// o (completed by b.Options: the list path, the server-side state the body
// builds on, its model), in five steps over one reading of the list:
//
//  0. Names: a result that must name its function (Gemini's
//     functionResponse.name, required by content.proto) but names none
//     takes the name of the call its id answers.
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
	p, out := prepareList(b.Format, transcript.DialectFor(b.Format, o), msgs, o)
	if !p.Changed {
		p.Body = b.Raw
		return p, nil
	}
	p.Body = b.Write(transcript.Write(b.Format, out))
	return p, nil
}

// PrepareScanned is Prepare for the messages of a body read straight from
// its bytes (transcript.ScanList with lint, each Raw dialect.Scanned), o
// completed as Body.Options completes it. It answers only a body with
// nothing to change, whose bytes are then sent as they came (Body is nil):
// ok is false when a step would change the list, or when the format's
// results name their function or carry a failure flag (steps 0 and 1 read
// and write the raw elements, which a scan does not keep). The caller then
// reads the body as a tree and calls Prepare, which answers as it always
// did.
func PrepareScanned(f transcript.Format, msgs []transcript.Message, o transcript.Options) (p Prepared, ok bool) {
	d := transcript.DialectFor(f, o)
	if d.ResultName.Key != "" || d.Flagged != nil {
		return Prepared{}, false
	}
	p, _ = prepareList(f, d, msgs, o)
	return p, !p.Changed
}

// prepareList runs the steps of Prepare on msgs, a list of format f in the
// dialect d, and returns the report and the list to send.
func prepareList(f transcript.Format, d *dialect.Dialect, msgs []transcript.Message, o transcript.Options) (Prepared, []transcript.Message) {
	named := fillNames(d, msgs)
	restored := restoreFlags(d, msgs)
	out, ch := transcript.Repair(f, msgs, o)
	rules := o.IDRules
	if rules == "" {
		rules = string(f)
	}
	norm := transcript.NormalizeIDs(f, out, rules)
	p := Prepared{Changes: ch, Named: named, FlagsRestored: restored, Rewritten: len(norm), IDMap: chainIDs(ch.IDMap, norm)}
	p.IDs = touched(ch.IDs, slices.Concat(named, restored), norm)
	p.Findings = transcript.Check(f, out, o)
	p.Changed = len(named) > 0 || len(restored) > 0 || len(norm) > 0 || ch.Any()
	return p, out
}

// fillNames gives every result of msgs that names no function, in a
// dialect whose results name one (Dialect.ResultName), the name of the call
// of its own turn or before whose id it answers, in the raw element too,
// and returns their ids in order.
//
// See googleapis google/ai/generativelanguage/v1beta/content.proto
// (FunctionResponse.name: "Required").
func fillNames(d *dialect.Dialect, msgs []transcript.Message) []string {
	if d.ResultName.Key == "" {
		return nil
	}
	var ids []string
	names := map[string]string{}
	for i := range msgs {
		for j := range msgs[i].Parts {
			p := &msgs[i].Parts[j]
			switch {
			case p.Kind == transcript.KindCall && p.Call.ID != "" && p.Call.Name != "":
				names[p.Call.ID] = p.Call.Name
			case p.Kind == transcript.KindResult && p.Result.Outcome.Call.Name == "" && p.Result.ID() != "":
				name, ok := names[p.Result.ID()]
				if !ok {
					continue
				}
				p.Result.Outcome.Call.Name = name
				p.Raw = d.ResultName.With(p.Raw, name)
				msgs[i].Dirty = true
				ids = append(ids, p.Result.ID())
			}
		}
	}
	return ids
}

// restoreFlags marks for rewriting every result of msgs whose outcome is an
// envelope read from its content while its element lacks the failure flag
// of the dialect d (the list's, as its model and capabilities take it), and
// returns their call ids in order. The writer then encodes each through
// the format's codec, which sets the flag (and sanitizes the envelope, as
// every writer of a failed result does); the element's other members stay.
// A dialect without a flag (OpenAI's, Bedrock's for a model that takes no
// status) has nothing to restore: the envelope in the content is the
// failure.
func restoreFlags(d *dialect.Dialect, msgs []transcript.Message) []string {
	if d.Flagged == nil {
		return nil
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
