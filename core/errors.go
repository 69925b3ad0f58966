package core

import (
	"errors"

	"github.com/toolerr/toolerr/core/internal/field"
)

// ErrUnknownOp is matched (errors.Is) by the *RequestError for an Invoke
// request whose "op" this build does not know.
var ErrUnknownOp = errors.New("toolerr: unknown op")

// ErrBadRequest is matched (errors.Is) by every *RequestError.
var ErrBadRequest = errors.New("toolerr: bad request")

// RequestError is a request toolerr cannot act on: malformed JSON, a missing
// or mistyped member, an unknown op or format.
//
// Op is the request's op ("" when unknown). Path names the member, dotted from
// the request root ("http.status", "results[1].call.id"); it is "" for JSON
// that does not parse, where Offset is the byte offset of the syntax error
// (-1 otherwise). Across Invoke it becomes an INVALID_INPUT envelope with
// source orchestrator and details {op, path, offset}.
type RequestError struct {
	Op     string
	Path   string
	Offset int64
	Msg    string
	err    error
}

// Error returns "toolerr: <path>: <msg>".
func (e *RequestError) Error() string {
	s := "toolerr: "
	if e.Path != "" {
		s += e.Path + ": "
	}
	return s + e.Msg
}

// Is matches ErrBadRequest, and ErrUnknownOp for an unknown op.
func (e *RequestError) Is(target error) bool {
	return target == ErrBadRequest || (target == ErrUnknownOp && e.err == ErrUnknownOp)
}

// Unwrap returns the underlying cause, if any.
func (e *RequestError) Unwrap() error { return e.err }

// requestError converts an internal error into a *RequestError for op.
func requestError(op string, err error) *RequestError {
	if re, isRequest := errors.AsType[*RequestError](err); isRequest {
		if re.Op == "" {
			re.Op = op
		}
		return re
	}
	if fe, isField := errors.AsType[*field.Error](err); isField {
		return &RequestError{Op: op, Path: fe.Path, Offset: -1, Msg: fe.Msg, err: err}
	}
	return &RequestError{Op: op, Offset: -1, Msg: err.Error(), err: err}
}
