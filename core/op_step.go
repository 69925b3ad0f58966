package core

import "github.com/toolerr/toolerr/core/internal/decide"

// opStep: one step of the executor of a tool call (issue 14): {"tool",
// "key_prefix"?, "policy"?, "settings"?, "timeout_ms"?, "store_backoff_ms"?,
// "budget"?, "loop"?, "replica"?, "state", "event", "now_ms",
// "on_success"?} -> {"action", "decisions", "state", "budget"?, "loop"?,
// "replica"?, "on_success"?}. See docs/resilience.md ("The step op").
//
// "on_success": true asks a step that answers with the call to decide the
// call's success ahead where the clock cannot change it (a fresh or absent
// breaker, no back-off window, no loop guard): "on_success" {"action",
// "decisions", "if_loaded", "state"} is then the success step's answer,
// which a runtime applies verbatim instead of a second crossing when its
// load made ahead answers "if_loaded" and its replica is still
// {"down_until_ms": 0, "state": if_loaded}; else it sends the success step.
// Requests without it are answered as before
// (conformance/fixtures/step/on_success.json). Go's resilience.Executor
// uses it; for the bindings' runtimes it is one request member and one
// check before the success step.
func opStep(req map[string]any) (any, error) {
	now, err := readNowMs(req)
	if err != nil {
		return nil, err
	}
	in, err := decide.ReadStepInput(req, now)
	if err != nil {
		return nil, err
	}
	r, err := decide.Step(in)
	if err != nil {
		return nil, err
	}
	return stepResponse(r), nil
}

// stepResponse is the step op's answer: the whole response written by
// StepResult.AppendJSON (the bytes of its Value tree, without the tree), or
// the tree itself for one that would pass MaxResponseBytes, so that Invoke
// reports that bound as for any op.
func stepResponse(r decide.StepResult) any {
	if out, ok := appendStepResponse(r); ok {
		return out
	}
	return r.Value()
}

// appendStepResponse writes the whole response, ok false for one that
// would pass MaxResponseBytes (or that AppendJSON refuses).
func appendStepResponse(r decide.StepResult) (okResponse, bool) {
	n := 512
	if r.Ahead != nil {
		n = 1024
	}
	out, err := r.AppendJSON(append(make([]byte, 0, n), okPrefix...))
	if err != nil || len(out)+1 > MaxResponseBytes {
		return nil, false
	}
	return okResponse(append(out, '}')), true
}

// stepOp is in every request fastStep answers.
const stepOp = `"step"`

// fastStep answers a step request without a value tree: ScanStepRequest
// reads it into the step's input, Step decides, stepResponse writes the
// answer. It answers only what ScanStepRequest is sure of and Step accepts
// (ok false otherwise: Invoke takes the general path, which gives the same
// answer or the error); TestFastStep_sameAsGeneral holds the bytes equal.
func fastStep(request []byte) (response []byte, ok bool) {
	in, ok := decide.ScanStepRequest(request)
	if !ok {
		return nil, false
	}
	r, err := decide.Step(in)
	if err != nil {
		return nil, false
	}
	return appendStepResponse(r)
}
