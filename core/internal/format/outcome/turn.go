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

// ParseTurns reads back the outcomes of messages written by a Turn codec
// (and their foreign look-alikes): ReadMessages walks msgs (the blocks under
// key; isBlock tells a bare block from a message; a message's role may be
// absent when roleOptional), and elem appends what each block holds to the
// outcomes, in order. A list holding none is a *field.Error at "messages"
// naming what it lacks (none: "tool_result block").
func ParseTurns(msgs []any, key string, roleOptional bool, isBlock func(map[string]any) bool, elem func(outs []Outcome, m map[string]any, path string) ([]Outcome, error), none string) ([]Outcome, error) {
	var outs []Outcome
	err := ReadMessages(msgs, key, roleOptional, isBlock, func(m map[string]any, p string) (err error) {
		outs, err = elem(outs, m, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(outs) == 0 {
		return nil, field.NewError("messages", "holds no "+none)
	}
	return outs, nil
}

// TurnCodec is the whole codec of such a format: Serialize and
// AppendSerialized write through Turn, Parse reads through ParseTurns with
// Key, RoleOptional, IsBlock, ParseElem and None. It is what the provider
// table's Codec needs; each room states only its frame, its element writer
// and reader, and the vendor rules they follow.
type TurnCodec struct {
	Turn
	Key          string
	RoleOptional bool
	IsBlock      func(m map[string]any) bool
	ParseElem    func(outs []Outcome, m map[string]any, path string) ([]Outcome, error)
	None         string
}

// Serialize returns the one message of the turn as value trees (Values).
func (c TurnCodec) Serialize(outs []Outcome) ([]any, error) { return c.Values(outs) }

// AppendSerialized appends the canonical JSON of what Serialize returns
// (AppendArray).
func (c TurnCodec) AppendSerialized(dst []byte, outs []Outcome) ([]byte, error) {
	return c.AppendArray(dst, outs)
}

// Parse reads such messages back (ParseTurns).
func (c TurnCodec) Parse(msgs []any) ([]Outcome, error) {
	return ParseTurns(msgs, c.Key, c.RoleOptional, c.IsBlock, c.ParseElem, c.None)
}
