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
	return r.Value(), nil
}
