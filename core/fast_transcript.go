package core

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// convertOp is in every request fastConvert answers.
const convertOp = `"convert"`

// fastConvert answers the common convert request without a value tree of
// the request: {"op": "convert", "from": f, "to": t, "id_rules"?, "model"?,
// "messages": [...]}, members in any order but from before messages, from a
// format whose dialect has a Scan (openai-chat) to another format. The
// messages are read straight from the bytes into the neutral model
// (transcript.ScanList; a content array alone becomes a tree) and
// transcript.Convert writes them, as opConvert does, but with the result
// elements the target's codec writes kept as its bytes (Options.Encoded).
//
// It answers only a request it is sure of: any other member or shape, a
// duplicate member, a message Scan does not take, a bound reached, a value
// the op refuses or a same-format conversion (which writes messages back as
// read, from their trees) returns ok false, and Invoke takes the request
// through the general path, which gives the answer (or the error) it always
// did. TestFastConvert_sameAsGeneral and FuzzFastConvert hold it to that.
func fastConvert(request []byte) (response []byte, ok bool) {
	s := canonical.NewScanner(request)
	var (
		from, to, op string
		opts         TranscriptOptions
		msgs         []transcript.Message
	)
	// op, from, to and messages are required, and from comes before
	// messages: the list is read in its format
	const required = 1<<0 | 1<<1 | 1<<2 | 1<<5
	var seen uint64
	seen, ok = s.ReadObject([]string{"op", "from", "to", "id_rules", "model", "messages"}, func(i int) bool {
		switch i {
		case 0:
			return s.StringMember(&op) && op == "convert"
		case 1:
			return s.StringMember(&from)
		case 2:
			return s.StringMember(&to)
		case 3:
			return s.StringMember(&opts.IDRules)
		case 4:
			return s.StringMember(&opts.Model)
		}
		ff, err := transcript.FormatNamed(from, "from")
		if err != nil {
			return false
		}
		msgs, ok = transcript.ScanList(ff, s, 1)
		return ok
	})
	if !ok || seen&required != required || !s.End() || !s.InBudget() {
		return nil, false
	}
	ff, tt, o, err := convertOptions(Format(from), Format(to), opts)
	if err != nil || ff == tt {
		return nil, false
	}
	o.Encoded = true
	c := transcript.Convert(ff, tt, msgs, o)
	out := append(make([]byte, 0, responseCap(len(request))), okPrefix...)
	out, err = canonical.AppendMax(out, conversionValue(c, "messages", c.Messages), MaxResponseBytes-1)
	if err != nil {
		// past MaxResponseBytes: the general path, whose tree holds no
		// canonical.Text, says where it stopped
		return nil, false
	}
	return append(out, '}'), true
}
