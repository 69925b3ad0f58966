package transcript

import (
	"sync"

	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// engineRoom is what one conversion's engine works in: the analysis, its
// arrays of ints, locs and result places, regroup's and joinUserSide's
// lists of turns and parts, and the writer with its arguments' space. A conversion whose turns nobody reads after it
// returns (Options.Encoded: the list is written as bytes before Convert
// returns) takes one from engineRooms and gives it back cleared
// (release), so that a caller converting one list after another allocates
// these arrays once; any other conversion works in a nil room, whose
// arrays are new ones for the turns it hands out.
type engineRoom struct {
	a      analysis
	ints   []int
	locs   []loc
	res    []resInfo
	used   []bool
	turns  []Message
	parts  []Part
	joined []Message
	w      dialect.Writer
	// how many turns, parts and joined messages the list wrote into the
	// room's arrays, for release to clear no more (-1: not known, all)
	nTurns, nParts, nJoined int
}

// engineRooms holds the rooms released, cleared.
var engineRooms = sync.Pool{New: func() any { return new(engineRoom) }}

// roomMost is the most elements a room keeps of one kind from one list to
// the next (the turns of about 500 messages): a longer list takes arrays
// of its own beyond it, left to the collector, so that one long list does
// not keep its memory for every later one.
const roomMost = 512

// takeEngineRoom returns a room from engineRooms; its caller calls release
// when nothing the room held is read any more.
func takeEngineRoom() *engineRoom {
	r := engineRooms.Get().(*engineRoom)
	r.nTurns, r.nParts, r.nJoined = -1, -1, -1
	return r
}

// release clears r (it keeps nothing of the list alive) and puts it back
// in engineRooms. A nil room is left alone.
func (r *engineRoom) release() {
	if r == nil {
		return
	}
	r.a = analysis{}
	clear(r.res)
	clear(r.turns[:written(r.nTurns, cap(r.turns))])
	clear(r.parts[:written(r.nParts, cap(r.parts))])
	clear(r.joined[:written(r.nJoined, cap(r.joined))])
	r.w.Reset(nil)
	engineRooms.Put(r)
}

// written is how many elements of an array of capacity c a list wrote:
// n, or all of them when n is not known (-1).
func written(n, c int) int {
	if n < 0 || n > c {
		return c
	}
	return n
}

// analysis returns the room's analysis, or a new one for a nil room.
func (r *engineRoom) analysis() *analysis {
	if r == nil {
		return new(analysis)
	}
	return &r.a
}

// writer returns the room's writer, reset for d, or a new one for a nil
// room.
func (r *engineRoom) writer(d *dialect.Dialect) *dialect.Writer {
	if r == nil {
		return &dialect.Writer{D: d}
	}
	r.w.Reset(d)
	return &r.w
}

// zeroed returns a slice of n zero values: the first n of *kept, cleared,
// when it has room for them, else a new slice, which *kept then keeps when
// n is at most roomMost. A nil kept (no room) gets a new slice.
func zeroed[T any](kept *[]T, n int) []T {
	if kept != nil && cap(*kept) >= n {
		s := (*kept)[:n]
		clear(s)
		return s
	}
	s := make([]T, n)
	if kept != nil && n <= roomMost {
		*kept = s
	}
	return s
}

// empty returns a slice of length 0 with room for n: *kept's when it has
// that room (its elements are zero: release cleared them), else a new
// one, which *kept then keeps when n is at most roomMost. A nil kept (no
// room) gets a new slice.
func empty[T any](kept *[]T, n int) []T {
	if kept != nil && cap(*kept) >= n {
		return (*kept)[:0]
	}
	s := make([]T, 0, n)
	if kept != nil && n <= roomMost {
		*kept = s
	}
	return s
}
