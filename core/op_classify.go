package core

import "github.com/toolerr/toolerr/core/internal/classify"

// opClassify: exactly one of "http" {status, headers?, body?}, "sse_event"
// {event?, data?, content_emitted?} or "error_text" (string), plus the
// options "source"?, "provider"?, "tool"?, "attempt"?, "now_ms"? -> the
// envelope. The members are read and checked by classify.ReadRequest, the
// same checks the typed API runs.
func opClassify(req map[string]any) (any, error) {
	r, err := classify.ReadRequest(req, "")
	if err != nil {
		return nil, err
	}
	return r.Classify(), nil
}

// opClassifyException: {"exception": {type?, message?, traceback?}, "tool"?,
// "attempt"?, "source"? (tool)} -> the envelope (source tool).
func opClassifyException(req map[string]any) (any, error) {
	r, err := classify.ReadExceptionRequest(req, "")
	if err != nil {
		return nil, err
	}
	return r.Classify(), nil
}
