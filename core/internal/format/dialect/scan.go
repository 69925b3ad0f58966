package dialect

import (
	"sync"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Parts hands out the part slices of the messages one list's Scan reads,
// and the canonical JSON of its elements for RawText, from blocks shared by
// many messages instead of one allocation each. A part slice it returns has
// no spare capacity (appending to it copies), so a message may treat its
// parts as its own; a text is never written to again. The zero value is
// ready; NewParts returns one whose first blocks are reused from list to
// list (see Release).
type Parts struct {
	block   []Part           // what is left of the current block
	free    []byte           // the unwritten end of the text buffer (length 0)
	texts   []canonical.Text // what is left of the current block of Raw texts
	results []outcome.Result // what is left of the current block of results
	errors  []envelope.Envelope
	// textHint is the size of the next text buffer Buf makes, when more
	// than textBlock (SizeText)
	textHint int
	// room is where the first blocks came from (NewParts), nil for an
	// arena whose blocks are the collector's alone
	room *room
	// how many parts, Raw texts, results and envelopes the arena handed
	// out, and its last text buffer, for Release to size the room's
	// blocks for the next list
	nParts, nTexts, nResults, nErrors int
	lastText                          []byte
}

// room is the first block of each kind of a Parts from NewParts, and of
// the list's messages (Messages), kept in rooms between lists.
type room struct {
	parts   []Part
	text    []byte
	texts   []canonical.Text
	results []outcome.Result
	errors  []envelope.Envelope
	msgs    []Message
}

// rooms holds the rooms of the arenas released, zeroed but for their text
// bytes (which hold no pointers).
var rooms = sync.Pool{New: func() any { return new(room) }}

// The most a room keeps from one list to the next: a list that takes more
// takes blocks of its own beyond them, left to the collector, so that one
// long list does not keep its memory for every later one.
const (
	roomParts = 512
	roomText  = 256 << 10
	roomMsgs  = 512
)

// NewParts returns an empty arena whose first blocks (and the list of
// messages Messages returns) are those of an arena released before, so
// that a caller reading one list after another allocates them once. Its
// caller calls Release when nothing it handed out is read any more.
func NewParts() *Parts {
	r := rooms.Get().(*room)
	return &Parts{block: r.parts, free: r.text[:0], texts: r.texts, results: r.results, errors: r.errors, room: r}
}

// Messages returns an empty list with room for at least n messages: the
// room's when it has them, else a new one. The caller hands the list it
// appended to back with KeepMessages, so that Release reuses it.
func (a *Parts) Messages(n int) []Message {
	if a.room != nil && cap(a.room.msgs) >= n {
		return a.room.msgs[:0]
	}
	return make([]Message, 0, n)
}

// KeepMessages says that ms, built on what Messages returned, is the
// list's: Release keeps the larger of it and the room's (within roomMsgs).
func (a *Parts) KeepMessages(ms []Message) {
	if a.room != nil && cap(ms) > cap(a.room.msgs) && cap(ms) <= roomMsgs {
		a.room.msgs = ms[:0]
	}
}

// Release returns the arena's room to be reused by the next NewParts,
// cleared (nothing it held is kept alive by it) and grown to what this
// list took, within the room's bounds. Every part, text, result, envelope
// and message the arena handed out is then no longer the caller's: it may
// be written over by the next list. An arena not from NewParts, or one
// released already, is left as it is.
func (a *Parts) Release() {
	r := a.room
	if r == nil {
		return
	}
	a.room = nil
	clear(r.parts)
	clear(r.texts)
	clear(r.results)
	clear(r.errors)
	clear(r.msgs[:cap(r.msgs)])
	grow(&r.parts, a.nParts+spareParts, roomParts)
	grow(&r.texts, a.nTexts, roomParts)
	grow(&r.results, a.nResults, roomParts)
	grow(&r.errors, a.nErrors, roomParts)
	if c := cap(a.lastText); c > cap(r.text) && c <= roomText {
		r.text = a.lastText[:0] // none of its texts is read any more
	}
	*a = Parts{}
	rooms.Put(r)
}

// grow makes *block a new block of n when it is shorter and n is at most
// most.
func grow[T any](block *[]T, n, most int) {
	if n > len(*block) && n <= most {
		*block = make([]T, n)
	}
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
func (a *Parts) SizeText(n int) {
	if cap(a.free) < n {
		a.free, a.textHint = nil, n // the room's buffer is too small: one of n
	}
}

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
	a.nParts += n
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
		a.textHint, a.lastText = 0, a.free
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
	a.nTexts++
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
	a.nErrors++
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
	a.nResults++
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
