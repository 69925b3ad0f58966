package core

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// listHead is how the answer of a conversion without an id_map starts: the
// converted list is the first member of the result (RFC 8785 order: id_map
// alone sorts before messages).
const listHead = okPrefix + `{"messages":`

// convertedList answers fastList's conversion of msgs from ff to another
// format tt, the converted list written straight into the response buffer
// after listHead (Options.Encoded, Options.Into), the other members of the
// result (name_map, notes, system) after it, written as the encoder writes
// conversionValue's tree of them, without the tree. With an id_map, the list is copied after it. ok is false,
// for the general path to answer, when a value cannot be encoded or the
// answer would reach MaxResponseBytes.
func convertedList(request string, ff, tt transcript.Format, msgs []transcript.Message, o transcript.Options) (response []byte, ok bool) {
	o.Encoded = true
	o.Into = append(make([]byte, 0, responseCap(len(request))), listHead...)
	c := transcript.Convert(ff, tt, msgs, o)
	if c.List == nil || len(c.List) >= MaxResponseBytes {
		return nil, false
	}
	if len(c.IDMap) > 0 {
		out := append(make([]byte, 0, len(c.List)+256), okPrefix...)
		out, err := canonical.AppendMax(out, conversionValue(c, "messages", c.List[len(listHead):]), MaxResponseBytes-1)
		if err != nil {
			return nil, false
		}
		return append(out, '}'), true
	}
	// the members after messages in RFC 8785 order, each after its ',', as
	// canonical.Append writes conversionValue's tree of them
	out, ok := appendConversionMembers([]byte(c.List), nil, c.NameMap, c.Notes)
	if !ok {
		return nil, false
	}
	if c.System != "" {
		out = canonical.AppendString(append(out, `,"system":`...), c.System)
	}
	if out = append(out, "}}"...); len(out) > MaxResponseBytes-2 {
		return nil, false // near the bound: the general path says where it stops
	}
	return out, true
}
