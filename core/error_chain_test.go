package core_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// cycleErr unwraps to next, which may lead back to itself.
type cycleErr struct{ next error }

func (e *cycleErr) Error() string { return "cycle" }
func (e *cycleErr) Unwrap() error { return e.next }

// TestAppendErrorChain: the chain is appended after what dst holds, in
// errors.Is's depth-first order, the bound counts only the appended errors,
// and a chain that fits in the caller's buffer allocates nothing.
func TestAppendErrorChain(t *testing.T) {
	leaf1, leaf2 := errors.New("a"), io.EOF
	joined := errors.Join(leaf1, fmt.Errorf("wrapped: %w", leaf2))
	top := fmt.Errorf("top: %w", joined)
	wrapped := joined.(interface{ Unwrap() []error }).Unwrap()[1]
	want := []error{top, joined, leaf1, wrapped, leaf2}
	assert.Equal(t, want, core.ErrorChain(top))

	pre := errors.New("already here")
	got := core.AppendErrorChain([]error{pre}, top)
	assert.Equal(t, append([]error{pre}, want...), got)
	assert.Equal(t, []error{pre}, core.AppendErrorChain([]error{pre}, nil))
	assert.Nil(t, core.ErrorChain(nil))

	c := &cycleErr{}
	c.next = &cycleErr{next: c}
	got = core.AppendErrorChain([]error{pre, pre}, c)
	require.Len(t, got, 2+core.MaxErrorChain, "the bound counts the appended errors only")
	assert.Same(t, c, got[2])
	assert.Len(t, core.ErrorChain(c), core.MaxErrorChain)

	var buf [8]error
	allocs := testing.AllocsPerRun(100, func() {
		if n := len(core.AppendErrorChain(buf[:0], top)); n != 5 {
			t.Fatalf("chain of %d errors, want 5", n)
		}
	})
	assert.Equal(t, 0.0, allocs, "a chain that fits in the caller's buffer")
}
