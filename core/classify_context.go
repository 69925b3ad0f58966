//go:build !toolerr_nocontext

package core

import (
	"context"
	"errors"

	"github.com/toolerr/toolerr/core/internal/classify"
)

// contextCause returns the cause ClassifyError gives an error that is or
// wraps context.DeadlineExceeded (timeout) or context.Canceled (cancelled),
// and whether err is one. classify_nocontext.go says why the wasm module is
// built without it.
func contextCause(err error) (string, bool) {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return classify.CauseTimeout, true
	case errors.Is(err, context.Canceled):
		return classify.CauseCancelled, true
	}
	return "", false
}
