package decide

import (
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
)

// BudgetState is what one agent run has spent so far; it travels as JSON
// {"steps", "tokens", "started_ms"}. The zero value is a run that has not
// started: the first charge sets StartedMs to its now_ms.
//
// Steps and Tokens are the totals charged and allowed so far. StartedMs is
// when the run started, in ms since the Unix epoch (0 = not started).
type BudgetState struct {
	Steps     int64
	Tokens    int64
	StartedMs int64
}

// BudgetLimits are the ceilings of one run. A zero field means no limit.
//
// Steps is the most tool calls (or agent steps) the run may charge, Tokens
// the most tokens, WallMs the longest the run may last from its first
// charge, in milliseconds.
//
// See docs/resilience.md, "Budget" (step counters catch loops that
// wall-clock timeouts miss; token budgets catch expensive single steps).
type BudgetLimits struct {
	Steps  int64
	Tokens int64
	WallMs int64
}

// BudgetCharge is what the next step is about to spend: Steps (default 1
// when both are zero) and Tokens (an estimate, before spending).
type BudgetCharge struct {
	Steps  int64
	Tokens int64
}

// BudgetResult is the outcome of Budget: whether the charge is allowed, the
// next state (unchanged when refused), and, when refused, the
// BUDGET_EXHAUSTED envelope naming what ran out.
type BudgetResult struct {
	Allowed bool
	State   BudgetState
	Limits  BudgetLimits
	NowMs   int64
	Error   *envelope.Envelope
}

// Budget charges c against the limits before the step spends anything.
//
// The checks, in order: wall time (refused once nowMs - StartedMs >=
// WallMs), steps (refused when Steps + c.Steps > limit), tokens (likewise).
// A refused charge leaves the state unchanged and carries a BUDGET_EXHAUSTED
// envelope (retryable false, source orchestrator) whose details say which
// budget ran out ("exhausted": "wall_ms", "steps" or "tokens"), its limit,
// what was used and what was asked for. An allowed charge adds c to the state.
// A zero limit is no limit. A zero charge counts as one step.
func Budget(prev BudgetState, l BudgetLimits, c BudgetCharge, nowMs int64) BudgetResult {
	if c.Steps == 0 && c.Tokens == 0 {
		c.Steps = 1
	}
	st := prev
	if st.StartedMs == 0 {
		st.StartedMs = nowMs
	}
	r := BudgetResult{State: prev, Limits: l, NowMs: nowMs}
	switch {
	case l.WallMs > 0 && elapsedMs(st.StartedMs, nowMs) >= l.WallMs:
		r.Error = exhausted("wall_ms", "time", l.WallMs, elapsedMs(st.StartedMs, nowMs), 0)
	case l.Steps > 0 && st.Steps+c.Steps > l.Steps:
		r.Error = exhausted("steps", "step", l.Steps, st.Steps, c.Steps)
	case l.Tokens > 0 && st.Tokens+c.Tokens > l.Tokens:
		r.Error = exhausted("tokens", "token", l.Tokens, st.Tokens, c.Tokens)
	default:
		st.Steps = addMs(st.Steps, c.Steps)
		st.Tokens = addMs(st.Tokens, c.Tokens)
		r.State = st
		r.Allowed = true
	}
	return r
}

func exhausted(what, noun string, limit, used, requested int64) *envelope.Envelope {
	var msg string
	switch what {
	case "wall_ms":
		msg = "The time budget of " + itoa(limit) + " ms is spent; stop calling tools and answer with what you have."
	default:
		msg = "The " + noun + " budget of " + itoa(limit) + " is spent (" + itoa(used) + " used, " + itoa(requested) + " more requested); stop calling tools and answer with what you have."
	}
	d := map[string]any{"exhausted": what, "limit": limit, "used": used}
	if what != "wall_ms" {
		d["requested"] = requested
	}
	return &envelope.Envelope{Code: envelope.BudgetExhausted, Message: msg, Retryable: false, Details: d, Source: envelope.SourceOrchestrator}
}

// Remaining returns what is left of each limited budget after r, as
// {"steps", "tokens", "wall_ms"}; an unlimited budget is absent and nothing
// is below zero.
func (r BudgetResult) Remaining() map[string]any {
	out := map[string]any{}
	left := func(limit, used int64) int64 {
		if used >= limit {
			return 0
		}
		return limit - used
	}
	if r.Limits.Steps > 0 {
		out["steps"] = left(r.Limits.Steps, r.State.Steps)
	}
	if r.Limits.Tokens > 0 {
		out["tokens"] = left(r.Limits.Tokens, r.State.Tokens)
	}
	if r.Limits.WallMs > 0 {
		start := r.State.StartedMs
		if start == 0 {
			start = r.NowMs
		}
		out["wall_ms"] = left(r.Limits.WallMs, elapsedMs(start, r.NowMs))
	}
	return out
}

// elapsedMs returns nowMs - startedMs, or 0 when the start lies in the future
// (clocks of two processes disagree): the run has not used any wall time yet.
func elapsedMs(startedMs, nowMs int64) int64 {
	if nowMs < startedMs {
		return 0
	}
	return nowMs - startedMs
}

// Value returns s as {"steps", "tokens", "started_ms"}.
func (s BudgetState) Value() map[string]any {
	return map[string]any{"steps": s.Steps, "tokens": s.Tokens, "started_ms": s.StartedMs}
}

// CheckBudget checks the inputs of Budget as the budget op and core.Budget
// both take them, in the op's order: prev's members, the limits and the
// charge in [0, 2^53] ("state.steps", "limits.wall_ms", "charge.tokens",
// ...), then nowMs (CheckNowMs). Errors are *field.Error with the op's
// wording.
func CheckBudget(prev BudgetState, l BudgetLimits, c BudgetCharge, nowMs int64) error {
	if err := checkInts("state", 0, false, []string{"steps", "tokens", "started_ms"}, prev.Steps, prev.Tokens, prev.StartedMs); err != nil {
		return err
	}
	if err := checkBudgetLimits(l, "limits"); err != nil {
		return err
	}
	if err := checkBudgetCharge(c, "charge"); err != nil {
		return err
	}
	return CheckNowMs(nowMs)
}

// checkBudgetLimits checks limits given in Go as ReadBudgetLimits checks
// them given in JSON at path: each in [0, 2^53].
func checkBudgetLimits(l BudgetLimits, path string) error {
	return checkInts(path, 0, false, budgetLimitsMembers, l.Steps, l.Tokens, l.WallMs)
}

// checkBudgetCharge checks a charge given in Go as ReadBudgetCharge checks
// one given in JSON at path: each member in [0, 2^53].
func checkBudgetCharge(c BudgetCharge, path string) error {
	return checkInts(path, 0, false, budgetChargeMembers, c.Steps, c.Tokens)
}

// budgetLimitsMembers and budgetChargeMembers are the members of a
// budget's limits and charge, BudgetLimits' and BudgetCharge's fields in
// order (their readers and checks).
var (
	budgetLimitsMembers = []string{"steps", "tokens", "wall_ms"}
	budgetChargeMembers = []string{"steps", "tokens"}
)

// ReadBudgetState reads a state value tree at path; nil is a run not yet
// started. Members are optional, non-negative whole numbers.
func ReadBudgetState(v any, path string) (BudgetState, error) {
	var s BudgetState
	err := readIntObject(v, path, true, []string{"steps", "tokens", "started_ms"}, &s.Steps, &s.Tokens, &s.StartedMs)
	return s, err
}

// ReadBudgetLimits reads {"steps", "tokens", "wall_ms"} (each optional,
// 0 = no limit) at path.
func ReadBudgetLimits(v any, path string) (BudgetLimits, error) {
	var l BudgetLimits
	err := readIntObject(v, path, false, budgetLimitsMembers, &l.Steps, &l.Tokens, &l.WallMs)
	return l, err
}

// ReadBudgetCharge reads {"steps", "tokens"} (each optional) at path; nil is
// one step.
func ReadBudgetCharge(v any, path string) (BudgetCharge, error) {
	var c BudgetCharge
	err := readIntObject(v, path, true, budgetChargeMembers, &c.Steps, &c.Tokens)
	return c, err
}

// readInts reads the named optional whole-number members of m (>= min) into
// dsts, refusing any other member.
func readInts(m map[string]any, path string, min int64, names []string, dsts ...*int64) error {
	if err := onlyKeys(m, path, names...); err != nil {
		return err
	}
	return readIntMembers(m, path, min, names, dsts...)
}

// optionalObject reads the object at path whose members are all among
// keys: nil (with no error) when v is nil, else an *field.Error for a value
// that is not an object or for an unknown member.
func optionalObject(v any, path string, keys ...string) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	m, err := field.Object(v, path)
	if err != nil {
		return nil, err
	}
	return m, onlyKeys(m, path, keys...)
}

// readIntObject reads the object at path of the non-negative whole numbers
// names into dsts (each optional, 0 when absent); nilOK says nil is an
// empty object (else field.Object's error).
func readIntObject(v any, path string, nilOK bool, names []string, dsts ...*int64) error {
	if v == nil && nilOK {
		return nil
	}
	m, err := field.Object(v, path)
	if err != nil {
		return err
	}
	return readInts(m, path, 0, names, dsts...)
}

// readIntMembers is readInts without the check for unknown members.
func readIntMembers(m map[string]any, path string, min int64, names []string, dsts ...*int64) error {
	for i, n := range names {
		v, _, err := field.Int(m, n, path, min, maxMs)
		if err != nil {
			return err
		}
		*dsts[i] = v
	}
	return nil
}
