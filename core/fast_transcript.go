package core

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// listOp is in every request fastList answers.
const listOp = `"messages"`

// fastList answers the common convert and check requests without a value
// tree of the request: {"op": "convert", "from": f, "to": t, "id_rules"?,
// "model"?, "messages": [...]} and {"op": "check", "format": f,
// "id_rules"?, "model"?, "messages": [...]}, members in any order but op and
// the list's format before messages, from a format whose dialect has a Scan
// (openai-chat). The messages are read straight from the bytes into the
// neutral model (transcript.ScanList; a content array alone becomes a tree)
// and the engine answers as opConvert and opCheck do; a conversion keeps the
// result elements the target's codec writes as its bytes (Options.Encoded).
//
// It answers only a request it is sure of: any other member or shape, a
// duplicate member, a message Scan does not take, a bound reached, a value
// the op refuses or a same-format conversion (which writes messages back as
// read, from their trees) returns ok false, and Invoke takes the request
// through the general path, which gives the answer (or the error) it always
// did. TestFastList_sameAsGeneral and FuzzFastList hold it to that.
func fastList(request []byte) (response []byte, ok bool) {
	s := canonical.NewScanner(request)
	var (
		op, from, to, format string
		opts                 TranscriptOptions
		msgs                 []transcript.Message
	)
	const mOp, mFrom, mTo, mFormat, mMessages = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6
	var seen uint64
	seen, ok = s.ReadObject([]string{"op", "from", "to", "format", "id_rules", "model", "messages"}, func(i int) bool {
		switch i {
		case 0:
			return s.StringMember(&op) && (op == "convert" || op == "check")
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
		}
		name := from
		if op == "check" {
			name = format
		}
		f, err := transcript.FormatNamed(name, "format")
		if op == "" || err != nil {
			return false
		}
		msgs, ok = transcript.ScanList(f, s, 1, op == "check")
		return ok
	})
	if !ok || seen&(mOp|mMessages) != mOp|mMessages || !s.End() || !s.InBudget() {
		return nil, false
	}
	// the list's own members: from and to for convert, format for check
	lists := seen & (mFrom | mTo | mFormat)
	var result any
	switch {
	case op == "convert" && lists == mFrom|mTo:
		ff, tt, o, err := convertOptions(Format(from), Format(to), opts)
		if err != nil || ff == tt {
			return nil, false
		}
		o.Encoded = true
		c := transcript.Convert(ff, tt, msgs, o)
		result = conversionValue(c, "messages", c.Messages)
	case op == "check" && lists == mFormat:
		tf, err := formatNamed("check", Format(format), "format")
		if err != nil {
			return nil, false
		}
		o, err := opts.engine("check", tf)
		if err != nil {
			return nil, false
		}
		result = map[string]any{"findings": findingsValue(transcript.Check(tf, msgs, o))}
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
