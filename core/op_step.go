package core

import "github.com/toolerr/toolerr/core/internal/decide"

// opStep: one step of the executor of a tool call (issue 14): {"tool",
// "key_prefix"?, "policy"?, "settings"?, "timeout_ms"?, "budget"?, "loop"?,
// "state", "event", "now_ms"} -> {"action", "decisions", "state",
// "budget"?, "loop"?}. See docs/resilience.md ("The step op").
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
	out, err := r.AppendJSON(append(make([]byte, 0, 512), okPrefix...))
	if err != nil || len(out)+1 > MaxResponseBytes {
		return r.Value()
	}
	return okResponse(append(out, '}'))
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
	out, ok := stepResponse(r).(okResponse)
	return out, ok
}
