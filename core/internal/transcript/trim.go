package transcript

import (
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/field"
)

// Limit is a trim budget: MaxChars, characters (code points) of the canonical
// JSON of the whole list, and MaxMessages, elements of the list; 0 = no limit.
type Limit struct {
	MaxChars    int
	MaxMessages int
}

// The bounds of a Limit: MaxChars in [MinChars, MaxLimit], MaxMessages in
// [1, MaxLimit].
const (
	MinChars = 2
	MaxLimit = 1 << 40
)

// NewLimit checks a trim budget as the trim op and core.Trim take it (0 = no
// limit, one of the two required): a *field.Error at "max_chars" or
// "max_messages" for a bound out of range or when neither is set.
func NewLimit(maxChars, maxMessages int64) (Limit, error) {
	if maxChars != 0 {
		if err := field.InRange("max_chars", maxChars, MinChars, MaxLimit); err != nil {
			return Limit{}, err
		}
	}
	if maxMessages != 0 {
		if err := field.InRange("max_messages", maxMessages, 1, MaxLimit); err != nil {
			return Limit{}, err
		}
	}
	if maxChars == 0 && maxMessages == 0 {
		return Limit{}, field.NewError("max_chars", "give max_chars or max_messages (or both)")
	}
	return Limit{MaxChars: int(maxChars), MaxMessages: int(maxMessages)}, nil
}

// span is the messages [lo, hi) of a list.
type span struct{ lo, hi int }

// units splits a list into the pieces trim drops whole: a call turn with
// its reply region (and, for Responses, the reasoning and message items of
// the same model turn before it) is one unit; every other message is one.
func units(d *dialect.Dialect, msgs []Message) []span {
	var out []span
	gs := findGroups(d.Placement, msgs)
	gi := 0
	for i := 0; i < len(msgs); {
		if gi < len(gs) && gs[gi].at == i {
			end := max(gs[gi].hi, i+1)
			out = append(out, span{i, end})
			i = end
			gi++
			continue
		}
		if d.Placement == dialect.AfterCall && msgs[i].Role == RoleAssistant && gi < len(gs) {
			// reasoning or text right before the calls of one model turn
			j := i
			for j < len(msgs) && msgs[j].Role == RoleAssistant && j != gs[gi].at {
				j++
			}
			if j == gs[gi].at {
				end := max(gs[gi].hi, j+1)
				out = append(out, span{i, end})
				i = end
				gi++
				continue
			}
		}
		out = append(out, span{i, i + 1})
		i++
	}
	return out
}

// Trim drops the oldest units until the list fits lim; a leading system
// message is always kept. It returns the list and how many messages it
// dropped. When even the newest unit does not fit, everything but the
// system message goes.
func Trim(f Format, msgs []Message, lim Limit) ([]Message, int) {
	d := dialectOf(f)
	sizes := make([]int, len(msgs))
	for i := range msgs {
		w := dialect.Writer{D: d, Same: true}
		sizes[i] = utf8.RuneCountInString(dialect.CanonicalText(w.List(msgs[i : i+1])[0]))
	}
	start := 0
	if len(msgs) > 0 && msgs[0].Role == RoleSystem {
		start = 1
	}
	us := units(d, msgs[start:])
	total, count := 2, len(msgs)
	for i := range msgs {
		total += sizes[i]
	}
	if count > 1 {
		total += count - 1
	}
	fits := func() bool {
		return (lim.MaxChars <= 0 || total <= lim.MaxChars) && (lim.MaxMessages <= 0 || count <= lim.MaxMessages)
	}
	cut := start
	for _, u := range us {
		if fits() {
			break
		}
		for i := u.lo + start; i < u.hi+start; i++ {
			total -= sizes[i] + 1
			count--
		}
		cut = u.hi + start
	}
	out := make([]Message, 0, len(msgs)-cut+start)
	out = append(out, msgs[:start]...)
	out = append(out, msgs[cut:]...)
	return out, cut - start
}
