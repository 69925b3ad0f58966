//go:build !toolerr_nocontext

package core

import (
	"context"

	"github.com/toolerr/toolerr/core/internal/classify"
)

// contextCause returns the cause ClassifyError gives an error that is or
// wraps context.DeadlineExceeded (timeout) or context.Canceled (cancelled),
// and whether err is one: chain is err's ErrorChain (bounded, where
// errors.Is would follow a chain that leads back to itself for ever).
// classify_nocontext.go says why the wasm module is built without it.
func contextCause(chain []error) (string, bool) {
	switch {
	case chainIs(chain, context.DeadlineExceeded):
		return classify.CauseTimeout, true
	case chainIs(chain, context.Canceled):
		return classify.CauseCancelled, true
	}
	return "", false
}
