package canonical

import (
	"errors"
	"strconv"
)

// MaxDepth is the deepest nesting of arrays and objects Parse accepts. Deeper
// input is refused with a *LimitError (Bound "depth") rather than risking the
// stack.
const MaxDepth = 512

// TreeBytesPerInputByte is how many bytes of memory the value tree of one
// Parse may take per byte of input (24). Parse counts the memory as it builds
// the tree (see the cost constants below) and refuses input whose tree would
// take more, with a *LimitError (Bound "value_bytes"), before it is built.
//
// Text of a transcript or an error body takes 2 to 9 bytes per byte as a tree,
// a Gemini turn of parallel calls with empty arguments 19; a long run of tiny
// objects ([{"":0},{"":0},...]) takes 51, and is what this bound refuses.
const TreeBytesPerInputByte = 24

// MinTreeBudgetInput is the request length, in bytes, below which
// ParseRequest budgets as if the request were this long (16 KiB): a short
// request may always build a tree of TreeBytesPerInputByte * 16 KiB =
// 384 KiB, enough for the deepest nesting of objects MaxDepth allows (511
// levels of {"a": ...} take 172 KiB).
const MinTreeBudgetInput = 16 << 10

// MaxTreeBytes is the most bytes of value tree ParseRequest builds, whatever
// the request's length (384 MiB): 12 per byte of a 32 MiB request. It bounds
// the memory of the largest requests absolutely, so that a WASI module
// (4 GiB of wasm32 memory at most) has room for an op's work on top of the
// tree: a transcript op's work takes up to about three times its tree.
const MaxTreeBytes = 384 << 20

// TreeBudget returns the most bytes of value tree ParseRequest builds for a
// request of n bytes: TreeBytesPerInputByte * max(n, MinTreeBudgetInput),
// and at most MaxTreeBytes.
func TreeBudget(n int) int64 {
	return min(TreeBytesPerInputByte*int64(max(n, MinTreeBudgetInput)), MaxTreeBytes)
}

// TextTreeSlack is what Parse allows a JSON text found inside a request (a
// tool's arguments, a JSON result, an error body) beyond
// TreeBytesPerInputByte per byte of it, in bytes (1 KiB): a small object
// such as {"a":{"b":1}} costs more than 24 per byte of its text. It is small,
// not a floor like MinTreeBudgetInput, because a request may hold many such
// texts and each would get it.
const TextTreeSlack = 1 << 10

// MaxTextTreeBytes is the most bytes of value tree Parse builds for one text
// (128 MiB).
const MaxTextTreeBytes = 128 << 20

// TextTreeBudget returns the most bytes of value tree Parse builds for a
// text of n bytes: TreeBytesPerInputByte * n + TextTreeSlack, and at most
// MaxTextTreeBytes.
func TextTreeBudget(n int) int64 {
	return min(TreeBytesPerInputByte*int64(n)+TextTreeSlack, MaxTextTreeBytes)
}

// The memory Parse charges for each part of the tree, in bytes, as the Go
// runtime (go1.24 and later, 64-bit words, wasm included) allocates it:
// measured by TestTreeCost_tracksTheHeap.
const (
	costObject       = 48  // an empty map[string]any
	costObjectGroup  = 288 // its first group of 8 slots, at the first member
	costObjectMember = 82  // each member past the 8th (tables of groups, grown by doubling)
	costArray        = 24  // the slice header boxed in an interface
	costElement      = 24  // one slot of []any, and half again for append's spare capacity
	costString       = 16  // the string header boxed in an interface
	costNumber       = 8   // a boxed float64 (0 to 1023 are preboxed: no cost)
)

// ErrLimit is matched (errors.Is) by every *LimitError.
var ErrLimit = errors.New("canonical: limit exceeded")

// LimitError is input Parse refuses because a bound would be passed, not
// because it is malformed.
//
// Bound names the bound: "depth" (MaxDepth) or "value_bytes" (TreeBudget).
// Limit is its value for this input and Count what the input reached when
// Parse stopped: the nesting level, or the bytes of tree counted so far (the
// whole tree would take more). Offset is the byte offset at which it stopped.
type LimitError struct {
	Bound  string
	Limit  int64
	Count  int64
	Offset int64
}

// Error returns "canonical: <what> at byte offset N".
func (e *LimitError) Error() string {
	return "canonical: " + e.Msg() + " at byte offset " + strconv.FormatInt(e.Offset, 10)
}

// Msg says which bound was passed, without the offset.
func (e *LimitError) Msg() string {
	switch e.Bound {
	case "depth":
		return "nesting deeper than " + strconv.FormatInt(e.Limit, 10) + " levels of arrays and objects (the limit)"
	case "value_bytes":
		return "the JSON would take more than " + strconv.FormatInt(e.Limit, 10) +
			" bytes of memory as values (" + strconv.Itoa(TreeBytesPerInputByte) +
			" per byte of input, the limit): too many small objects, arrays or strings"
	}
	return e.Bound + " over the limit of " + strconv.FormatInt(e.Limit, 10)
}

// Is reports whether target is ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }
