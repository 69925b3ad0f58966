package core

import "github.com/toolerr/toolerr/core/internal/decide"

// opStep: one step of the executor of a tool call (issue 14): {"tool",
// "key_prefix"?, "policy"?, "settings"?, "timeout_ms"?, "store_backoff_ms"?,
// "budget"?, "loop"?, "replica"?, "state", "event", "now_ms",
// "on_success"?, "on_swapped"?, "on_slept"?, "standing"?} -> {"action",
// "decisions", "state", "budget"?, "loop"?, "replica"?, "on_success"? |
// "on_swapped"? | "on_slept"?, "stands"?}. See docs/resilience.md ("The
// step op").
//
// "on_success", "on_swapped" and "on_slept": true ask a step to decide
// ahead, where neither the clock nor another call can change it, the
// answer to the event its action expects: a call's success, a cas that
// swapped, a sleep that ended. The member named after that event is then
// {"action", "decisions", "if_loaded", "state", "replica"?, and what it
// decides ahead in turn}, which a runtime applies verbatim instead of a
// crossing when its replica is still {"down_until_ms": 0, "state":
// if_loaded} and the event came as expected (a success or a sleep's load
// made ahead answering if_loaded, a cas swapped); else it sends the step.
// A failure event may carry "classify" (the classify or classify_exception
// request the runtime would have sent) instead of "error", classified in
// the same step. "standing": true asks a start step to answer, where its
// answer is the same start's answer at any time (other now_ms, other
// args), with "stands": {"if_loaded"}, which a runtime keeps and applies to
// its next call whose load made ahead answers if_loaded with the replica at
// {0, if_loaded} and no deadline (decide.Standing says where). Requests
// without these members are answered as before
// (conformance/fixtures/step/on_success.json, ahead.json, classify.json,
// standing.json).
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
	if out, ok := appendStepResponse(nil, r); ok {
		return okResponse(out)
	}
	return r.Value()
}

// appendStepResponse appends the whole response to dst (nil: a buffer of
// its own), ok false for one that would pass MaxResponseBytes (or that
// AppendJSON refuses).
func appendStepResponse(dst []byte, r decide.StepResult) ([]byte, bool) {
	// About what the answer takes, so that it is written in one buffer: each
	// answer decided ahead is about 400 bytes of members and records around
	// its stored bytes, which it holds about four times (if_loaded, a cas's
	// old and new, the replica, a pending new), escaped.
	n := 512
	for a := r.Ahead; a != nil; a = a.Result.Ahead {
		n += 400 + 5*len(a.Loaded)
	}
	if cap(dst)-len(dst) < n {
		dst = append(make([]byte, 0, len(dst)+n), dst...)
	}
	start := len(dst)
	out, err := r.AppendJSON(append(dst, okPrefix...))
	if err != nil || len(out)-start+1 > MaxResponseBytes {
		return nil, false
	}
	return append(out, '}'), true
}

// stepOp is in every request fastStep answers.
const stepOp = `"step"`

// fastStep appends the answer to a step request to dst (nil: a buffer of
// its own) without a value tree: ScanStepRequest reads it into the step's
// input, Step decides, appendStepResponse writes the answer, straight into
// dst's spare room when it has enough (cshared's reused buffer). It answers
// only what ScanStepRequest is sure of and Step accepts (ok false
// otherwise: Invoke takes the general path, which gives the same answer or
// the error); TestFastStep_sameAsGeneral holds the bytes equal.
func fastStep(dst []byte, request string) (response []byte, ok bool) {
	in, ok := decide.ScanStepRequest(request)
	if !ok {
		return nil, false
	}
	r, err := decide.Step(in)
	if err != nil {
		return nil, false
	}
	return appendStepResponse(dst, r)
}
