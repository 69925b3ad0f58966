package outcome

import "github.com/toolerr/toolerr/core/internal/field"

// Turn is the writer of a format whose turn of outcomes is one message
// (Anthropic's user message of tool_result blocks, Bedrock's of toolResult
// blocks, Gemini's user Content of functionResponse parts): Head, one
// element per outcome, comma separated, in call order, then Tail. Each
// outcome is first held to Check, then written by Elem; a codec's three
// writers (the message, AppendSerialized's array of it, Serialize's value
// trees) are Append, AppendArray and Values.
type Turn struct {
	Head, Tail string
	Elem       func(dst []byte, i int, o *Outcome) ([]byte, error)
}

// Append appends the canonical JSON of the message to dst. It returns a
// *field.Error at "results" when outs is empty, Check's error, and the
// first error of Elem; on error dst may hold a partial message.
func (t Turn) Append(dst []byte, outs []Outcome) ([]byte, error) {
	if len(outs) == 0 {
		return dst, field.NewError("results", "must hold at least one outcome")
	}
	dst = append(dst, t.Head...)
	for i := range outs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if err := Check(i, &outs[i]); err != nil {
			return dst, err
		}
		var err error
		if dst, err = t.Elem(dst, i, &outs[i]); err != nil {
			return dst, err
		}
	}
	return append(dst, t.Tail...), nil
}

// AppendArray appends "[", the message, and "]": the AppendSerialized of
// such a codec (the messages to append for one turn). Errors are Append's.
func (t Turn) AppendArray(dst []byte, outs []Outcome) ([]byte, error) {
	dst, err := t.Append(append(dst, '['), outs)
	if err != nil {
		return dst, err
	}
	return append(dst, ']'), nil
}

// Values returns what AppendArray writes as value trees (see Values), the
// Serialize of such a codec. Errors are Append's.
func (t Turn) Values(outs []Outcome) ([]any, error) { return Values(outs, t.AppendArray) }
