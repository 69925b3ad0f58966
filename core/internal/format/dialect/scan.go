package dialect

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Parts hands out the part slices of the messages one list's Scan reads,
// and the canonical JSON of its elements for RawText, from blocks shared by
// many messages instead of one allocation each. A part slice it returns has
// no spare capacity (appending to it copies), so a message may treat its
// parts as its own; a text is never written to again. The zero value is
// ready.
type Parts struct {
	block   []Part           // what is left of the current block
	free    []byte           // the unwritten end of the text buffer (length 0)
	texts   []canonical.Text // what is left of the current block of Raw texts
	results []outcome.Result // what is left of the current block of results
	errors  []envelope.Envelope
	// textHint is the size of the next text buffer Buf makes, when more
	// than textBlock (SizeText)
	textHint int
}

// The sizes of the blocks: the parts of about 40 messages of a
// transcript (Spare holds at least 4 of them), the texts of as many
// elements, and 8 KiB of text.
const (
	partsBlock   = 48
	textsBlock   = 64
	spareParts   = 4
	resultsBlock = 16
	errorsBlock  = 4
	textBlock    = 8 << 10
)

// SizeText says that the canonical JSON of the elements will take about n
// bytes (for RawText, ScanList gives one and a half times the request's
// bytes left from the list on), so that the text buffer Buf makes first
// holds them all; a text that outgrows it takes another as before.
func (a *Parts) SizeText(n int) { a.textHint = n }

// Spare returns an empty slice at the head of the arena's free parts
// (room for at least spareParts) for a Scan to build one message's parts
// in: Keep then takes those it appended without copying them, as long as
// they did not outgrow it. It is the Scan's until its next Keep or Spare.
func (a *Parts) Spare() []Part {
	if len(a.block) < spareParts {
		a.block = make([]Part, partsBlock)
	}
	return a.block[:0]
}

// Keep returns ps in the arena (nil for none): where they are when they
// were built at the head of Spare, else a copy.
func (a *Parts) Keep(ps ...Part) []Part {
	n := len(ps)
	if n == 0 {
		return nil
	}
	if n <= len(a.block) && &ps[0] == &a.block[0] {
		out := a.block[:n:n]
		a.block = a.block[n:]
		return out
	}
	if n > len(a.block) {
		a.block = make([]Part, max(n, partsBlock))
	}
	out := a.block[:n:n]
	a.block = a.block[n:]
	copy(out, ps)
	return out
}

// Buf returns an empty slice at the end of the text buffer with room for
// at least n bytes, to append one element's canonical JSON to (it may grow
// past them); Used or Text then says how far it was written.
func (a *Parts) Buf(n int) []byte {
	if cap(a.free) < n {
		a.free = make([]byte, 0, max(n, textBlock, a.textHint))
		a.textHint = 0
	}
	return a.free
}

// Used marks b, appended to what Buf returned, as written.
func (a *Parts) Used(b []byte) { a.free = b[len(b):] }

// Text marks b as written (see Used) and returns b[at:] as a Raw: a
// *canonical.Text, which a pointer holds in an interface without an
// allocation of its own.
func (a *Parts) Text(b []byte, at int) *canonical.Text {
	a.Used(b)
	if len(a.texts) == 0 {
		a.texts = make([]canonical.Text, textsBlock)
	}
	t := &a.texts[0]
	a.texts = a.texts[1:]
	*t = b[at:len(b):len(b)]
	return t
}

// Envelope returns a pointer to a copy of e in the arena; a nil arena
// allocates it.
func (a *Parts) Envelope(e envelope.Envelope) *envelope.Envelope {
	if a == nil {
		p := new(envelope.Envelope) // not &e: e would be on the heap for every call
		*p = e
		return p
	}
	return take(&a.errors, errorsBlock, e)
}

// Result returns a pointer to a copy of r in the arena; a nil arena
// allocates it.
func (a *Parts) Result(r outcome.Result) *outcome.Result {
	if a == nil {
		p := new(outcome.Result) // not &r: r would be on the heap for every call
		*p = r
		return p
	}
	return take(&a.results, resultsBlock, r)
}

// take returns a pointer to a copy of v at the head of *block (a new block
// of n when it is empty) and moves the block's head past it.
func take[T any](block *[]T, n int, v T) *T {
	if len(*block) == 0 {
		*block = make([]T, n)
	}
	p := &(*block)[0]
	*block = (*block)[1:]
	*p = v
	return p
}
