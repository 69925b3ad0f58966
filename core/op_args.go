package core

import (
	"github.com/toolerr/toolerr/core/internal/args"
	"github.com/toolerr/toolerr/core/internal/field"
)

// opArgsError: {"tool"?: string, "failures": [{"path", "keyword", "message"?,
// "expected"?}, ...]} -> the INVALID_ARGS envelope (see InvalidArgs).
func opArgsError(req map[string]any) (any, error) {
	tool, _, err := field.Get[string](req, "tool", "")
	if err != nil {
		return nil, err
	}
	v, ok := req["failures"]
	if !ok || v == nil {
		return nil, field.NewError("failures", "is required")
	}
	fs, err := args.FromValue(v, "failures")
	if err != nil {
		return nil, err
	}
	return args.Envelope(tool, fs), nil
}
