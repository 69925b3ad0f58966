package core

import (
	"errors"
	"math"
	"strconv"

	"github.com/toolerr/toolerr/core/internal/bounds"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// listOp is in every request fastList answers.
const listOp = `"messages"`

// fastList answers the common convert, check and repair requests without a
// value tree of the request: {"op": "convert", "from": f, "to": t,
// "id_rules"?, "model"?, "messages": [...]} and {"op": "check" | "repair",
// "format": f, "id_rules"?, "model"?, "messages": [...]}, members in any
// order but op and the list's format (and, for a same-format conversion,
// to) before messages, from a format whose dialect has a Scan
// (openai-chat). The messages are read straight from the bytes into the
// neutral model (transcript.ScanList; a content array alone becomes a tree),
// each Raw what the op needs of it (dialect.ScanRaw: nothing, what lint
// reads, or the element's canonical JSON to write back), and the engine
// answers as opConvert, opCheck and opRepair do; a conversion to another
// format writes the converted list straight as its canonical JSON
// (Options.Encoded). A request with "body" (a whole request body of the
// format, before or in place of which op and the format come) in place of
// "messages" is read in the same pass and answered as the body ops answer
// (core/fast_body.go).
//
// It answers only a request it is sure of: any other member or shape, a
// duplicate member, a message Scan does not take, a bound reached or a value
// the op refuses returns ok false, and Invoke takes the request through the
// general path, which gives the answer (or the error) it always did.
// TestFastList_sameAsGeneral and FuzzFastList hold it to that.
func fastList(request string) (response []byte, ok bool) {
	s := canonical.NewScanner(request)
	s.ShareStrings()
	// the messages' arena: nothing read from it is left in the response,
	// which is written into buffers of its own before fastList returns
	arena := dialect.NewParts()
	defer arena.Release()
	var (
		op, from, to, format string
		opts                 TranscriptOptions
		msgs                 []transcript.Message
		scanned              dialect.ScanRaw // what the messages' Raw hold
	)
	const mOp, mFrom, mTo, mFormat, mMessages, mBody = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6, 1 << 8
	// a list given as text (readSplice): the fast path reads it only where
	// the framing holds, its list exactly the text
	sp, framed, bad := readSplice(request)
	if bad != nil || framed && sp.key != "messages" && sp.key != "body" {
		return nil, false
	}
	var bodyAt scannedBody
	var body *scannedBody // the request's body (&bodyAt), when it gives one
	var seen uint64
	seen, ok = s.ReadObject([]string{"op", "from", "to", "format", "id_rules", "model", "messages", "raw_len", "body"}, func(i int) bool {
		switch i {
		case 0:
			return s.StringMember(&op) && (op == "convert" || op == "check" || op == "repair")
		case 1:
			return s.StringMember(&from)
		case 2:
			return s.StringMember(&to)
		case 3:
			return s.StringMember(&format)
		case 4:
			return s.StringMember(&opts.IDRules)
		case 5:
			return s.StringMember(&opts.Model)
		case 7:
			return framed && s.Skip(1) == nil // its value is read by readSplice
		}
		name, raw := from, dialect.RawNone
		defer func() { scanned = raw }()
		switch op {
		case "":
			return false
		case "check":
			name, raw = format, dialect.RawLint
		case "repair":
			name, raw = format, dialect.RawText
		}
		f, err := transcript.FormatNamed(name, "format")
		if err != nil {
			return false
		}
		if op == "convert" {
			if t, err := transcript.FormatNamed(to, "to"); err == nil && t == f {
				raw = dialect.RawText // written back as read
			}
		}
		start := len(request) - s.Rest()
		if i == 8 {
			// a whole body: its other members kept for the ops that
			// write it back or carry them to another format
			keep := bodySkip
			switch {
			case raw == dialect.RawText:
				keep = bodyText
			case op == "convert" && carryTarget(transcript.Format(to)):
				keep = bodyCarry // to before the body: its writer is known
			case op == "convert":
				keep = bodyTree
			}
			body = &bodyAt
			ok := scanBody(s, f, raw, arena, keep, body)
			msgs = body.msgs
			return ok && (!framed || sp.key == "body" && sp.spans(request, start, len(request)-s.Rest()))
		}
		msgs, ok = transcript.ScanList(f, s, 1, raw, arena)
		return ok && (!framed || sp.key == "messages" && sp.spans(request, start, len(request)-s.Rest()))
	})
	if !ok || seen&mOp == 0 || seen&(mMessages|mBody) != mMessages && seen&(mMessages|mBody) != mBody || !s.End() || !s.InBudget() {
		return nil, false
	}
	// the list's own members: from and to for convert, format for check
	lists := seen & (mFrom | mTo | mFormat)
	var result any
	switch {
	case op == "convert" && lists == mFrom|mTo:
		ff, tt, o, err := convertOptions(Format(from), Format(to), opts)
		if err != nil || ff == tt && scanned != dialect.RawText {
			return nil, false
		}
		if ff != tt && body != nil && body.carried {
			return carriedBody(request, ff, tt, body, msgs, o)
		}
		if ff != tt && body != nil {
			return convertedBody(request, ff, tt, body, msgs, o)
		}
		if ff != tt {
			return convertedList(request, ff, tt, msgs, o)
		}
		if body != nil {
			// request.Convert to the body's own format
			if o = body.options(o); transcript.CheckConvert(ff, tt, o) != nil {
				return nil, false
			}
			c := transcript.Convert(ff, tt, msgs, o)
			return body.appendConverted(responseCap(len(request)), Conversion{IDMap: c.IDMap, NameMap: c.NameMap, Notes: c.Notes}, c.Messages)
		}
		c := transcript.Convert(ff, tt, msgs, o)
		result = conversionValue(c, "messages", c.Messages)
	case op == "repair" && lists == mFormat:
		tf, o, err := listOptions("repair", format, opts)
		if err != nil {
			return nil, false
		}
		if body != nil {
			o = body.options(o)
		}
		out, ch, err := bounds.Repair(tf, msgs, o)
		if err != nil {
			return nil, false
		}
		if body != nil {
			// {"body", "changes"}: opRepairBody's answer, no id_map
			b := append(make([]byte, 0, responseCap(len(request))), okPrefix+`{"body":`...)
			if b, ok = body.appendBody(b, transcript.WriteWith(tf, out, o)); !ok {
				return nil, false
			}
			if b = append(appendChanges(append(b, `,"changes":`...), ch), "}}"...); len(b) > MaxResponseBytes {
				return nil, false
			}
			return b, true
		}
		if len(ch.IDMap) > 0 {
			result = repairValue(transcript.WriteWith(tf, out, o), ch)
			break
		}
		// {"changes", "messages"} in RFC 8785 order, written as bytes
		b := append(make([]byte, 0, responseCap(len(request))), okPrefix+`{"changes":`...)
		b = append(appendChanges(b, ch), `,"messages":[`...)
		for i, e := range transcript.WriteWith(tf, out, o) {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = canonical.AppendMax(b, e, MaxResponseBytes-2); err != nil {
				return nil, false // past MaxResponseBytes: the general path says where it stopped
			}
		}
		if b = append(b, "]}}"...); len(b) > MaxResponseBytes {
			return nil, false
		}
		return b, true
	case op == "check" && lists == mFormat:
		tf, o, err := listOptions("check", format, opts)
		if err != nil {
			return nil, false
		}
		if body != nil {
			o = body.options(o)
		}
		o.MaxBytes = MaxResponseBytes // the findings past those cannot be written
		fs := transcript.Check(tf, msgs, o)
		out := append(make([]byte, 0, responseCap(len(request))), okPrefix+`{"findings":`...)
		out, past := appendFindingsMax(out, fs, maxResult)
		if len(out)+len("}}") > MaxResponseBytes {
			// the error writeOK gives the general path's tree of the same
			// findings, without the tree
			return limitResponse(responseTooLarge(op, findingsCount(out, fs, past), "")), true
		}
		return append(out, "}}"...), true
	default:
		return nil, false
	}
	out := append(make([]byte, 0, responseCap(len(request))), okPrefix...)
	out, err := canonical.AppendMax(out, result, MaxResponseBytes-1)
	if err != nil {
		// past MaxResponseBytes: the general path, whose tree holds no
		// canonical.Text, says where it stopped
		return nil, false
	}
	return append(out, '}'), true
}

// listOptions reads a check or repair list's format and options for the
// engine, as CheckWith and RepairWith do (capabilities aside: fastList
// takes none).
func listOptions(op, format string, opts TranscriptOptions) (transcript.Format, transcript.Options, error) {
	tf, err := formatNamed(op, Format(format), "format")
	if err != nil {
		return "", transcript.Options{}, err
	}
	o, err := opts.engine(op, tf)
	return tf, o, err
}

// appendFindings appends the canonical JSON of fs to dst: what
// canonical.Append writes for findingsValue(fs), without the tree.
func appendFindings(dst []byte, fs []Finding) []byte {
	dst, _ = appendFindingsMax(dst, fs, math.MaxInt)
	return dst
}

// appendFindingsMax is appendFindings that also returns where the first
// finding that takes dst past max bytes begins in it (at, and its index i
// in fs; i is -1 when none does), for findingsCount.
func appendFindingsMax(dst []byte, fs []Finding, max int) (_ []byte, past crossing) {
	past.i = -1
	dst = append(dst, '[')
	for i := range fs {
		if i > 0 {
			dst = append(dst, ',')
		}
		n := len(dst)
		if dst = appendFinding(dst, &fs[i]); past.i < 0 && len(dst) > max {
			past = crossing{i, n}
		}
	}
	return append(dst, ']'), past
}

// crossing is where a list written by appendFindingsMax first passed its
// bound: the index of the finding that took it past and the offset in the
// list's bytes where that finding begins (i -1: none did).
type crossing struct{ i, at int }

// maxResult is writeOK's bound for the result, before its closing '}'.
const maxResult = MaxResponseBytes - 1

// appendFinding appends the canonical JSON of f to dst: what
// canonical.Append writes for findingValue(f).
func appendFinding(dst []byte, f *Finding) []byte {
	dst = append(dst, `{"ids":[`...)
	for j, id := range f.IDs {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = canonical.AppendString(dst, id)
	}
	dst = append(dst, ']')
	if f.Index >= 0 {
		dst = strconv.AppendInt(append(dst, `,"index":`...), int64(f.Index), 10)
	}
	dst = canonical.AppendString(append(dst, `,"kind":`...), f.Kind)
	dst = canonical.AppendString(append(dst, `,"message":`...), f.Message)
	if f.Path != "" {
		dst = canonical.AppendString(append(dst, `,"path":`...), f.Path)
	}
	return append(dst, '}')
}

// findingsCount returns the count writeOK's error gives for the result
// {"findings": findingsValue(fs)} whose response passes MaxResponseBytes,
// dst its bytes up to the findings' closing ']' as appendFindingsMax wrote
// them with maxResult, and past where they first passed it:
// canonical.AppendMax stops at the first check it fails, which a finding
// written whole within the bound never does, so only the finding that
// passes it is written again, through AppendMax, over its own bytes.
func findingsCount(dst []byte, fs []Finding, past crossing) int64 {
	if past.i >= 0 {
		_, err := canonical.AppendMax(dst[:past.at], findingValue(&fs[past.i]), maxResult)
		if le, isLimit := errors.AsType[*canonical.LimitError](err); isLimit {
			return le.Count
		}
		return int64(len(dst)) // not reached: the finding passes maxResult
	}
	if len(dst) > maxResult {
		return int64(len(dst)) // the list's ']'
	}
	return int64(len(dst) + 1) // the '}' of the result
}

// appendChanges appends the canonical JSON of a repair's changes to dst:
// what canonical.Append writes for changesValue(c), without the tree.
func appendChanges(dst []byte, c RepairChanges) []byte {
	dst = strconv.AppendInt(append(dst, `{"dropped_duplicates":`...), int64(c.DroppedDuplicates), 10)
	dst = strconv.AppendInt(append(dst, `,"dropped_orphans":`...), int64(c.DroppedOrphans), 10)
	dst = strconv.AppendInt(append(dst, `,"filled":`...), int64(c.Filled), 10)
	dst = append(dst, `,"ids":[`...)
	for i, id := range c.IDs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = canonical.AppendString(dst, id)
	}
	dst = strconv.AppendInt(append(dst, `],"merged":`...), int64(c.Merged), 10)
	dst = strconv.AppendInt(append(dst, `,"moved":`...), int64(c.Moved), 10)
	dst = strconv.AppendInt(append(dst, `,"renamed":`...), int64(c.Renamed), 10)
	dst = strconv.AppendInt(append(dst, `,"split":`...), int64(c.Split), 10)
	dst = strconv.AppendInt(append(dst, `,"synthesized":`...), int64(c.Synthesized), 10)
	return append(dst, '}')
}
