package conformance

import (
	"github.com/toolerr/toolerr/core"
)

// Target is one build of toolerr the fixtures run through.
//
// Invoke hands req to the target's toolerr_invoke (or core.Invoke) unchanged
// and returns the response bytes. An error means the call itself failed (a
// trap, a crash, a missing output), never a toolerr error response.
type Target interface {
	Name() string
	Invoke(req []byte) ([]byte, error)
	Close() error
}

// Native is core.Invoke in this process.
type Native struct{}

// Name returns "native".
func (Native) Name() string { return "native" }

// Invoke calls core.Invoke.
func (Native) Invoke(req []byte) ([]byte, error) { return core.Invoke(req), nil }

// Close does nothing.
func (Native) Close() error { return nil }

var _ Target = Native{}
