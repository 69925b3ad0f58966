package transcript

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// DefaultLoopThreshold is how many failures in a row of the same call block
// it when no threshold is given.
const DefaultLoopThreshold = 3

// MaxLoopThreshold is the largest threshold LoopGuard takes.
const MaxLoopThreshold = 1 << 20

// Attempt is one earlier tool call: its tool name, arguments and whether it
// succeeded.
type Attempt struct {
	Tool string
	Args any
	OK   bool
}

// ArgsKey is the canonical JSON of arguments, so that key order and white
// space do not matter; a string holding a JSON object or array (OpenAI's
// arguments) counts as that value.
func ArgsKey(v any) string {
	if s, ok := v.(string); ok && len(s) > 0 && (s[0] == '{' || s[0] == '[') {
		if pv, err := canonical.Parse([]byte(s)); err == nil {
			v = pv
		}
	}
	b, err := canonical.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// CheckLoopGuard checks the inputs of LoopGuard as the loop_guard op and
// core.LoopGuard both take them, in the op's order: each attempt (history,
// then call) with a tool name (a *field.Error at "history[i].tool" or
// "call.tool") and arguments JSON can carry (at "history[i].args" or
// "call.args": a value outside the value tree, NaN or an infinity, cannot
// be compared with another call's), then threshold 0 (the default; a
// member left out of the JSON) or in [1, MaxLoopThreshold] (at
// "threshold").
func CheckLoopGuard(history []Attempt, call Attempt, threshold int64) error {
	for i, h := range history {
		if err := checkAttempt(h, field.Index("history", i)); err != nil {
			return err
		}
	}
	if err := checkAttempt(call, "call"); err != nil {
		return err
	}
	if threshold == 0 {
		return nil
	}
	return field.InRange("threshold", threshold, 1, MaxLoopThreshold)
}

func checkAttempt(a Attempt, path string) error {
	if a.Tool == "" {
		return field.NewError(field.Join(path, "tool"), "is required and must be a non-empty string")
	}
	if _, err := canonical.Marshal(a.Args); err != nil {
		return field.NewError(field.Join(path, "args"), "cannot be written as JSON: "+err.Error())
	}
	return nil
}

// LoopGuard decides whether call may run given history (oldest first). It
// counts, newest first, the attempts of the same tool that failed with the
// same canonical arguments; the first success of that tool or the first
// attempt of it with other arguments ends the count (attempts of other tools
// are skipped). When the count reaches threshold (<= 0 means
// DefaultLoopThreshold) it returns false and a LOOP_DETECTED envelope,
// retryable false, telling the model not to repeat the call. The envelope is
// sanitized: the tool name appears in the message only as displayName allows
// ("this tool" otherwise) and details.tool passes sanitize.Details.
func LoopGuard(history []Attempt, call Attempt, threshold int) (bool, *envelope.Envelope) {
	if threshold <= 0 {
		threshold = DefaultLoopThreshold
	}
	key := ArgsKey(call.Args)
	n := 0
	for i := len(history) - 1; i >= 0; i-- {
		h := history[i]
		if h.Tool != call.Tool {
			continue
		}
		if h.OK || ArgsKey(h.Args) != key {
			break
		}
		n++
	}
	if n < threshold {
		return true, nil
	}
	e := LoopDetected(call.Tool, n, threshold)
	return false, &e
}

// LoopDetected is the LOOP_DETECTED envelope (retryable false, source
// orchestrator) for tool after failures failures in a row at threshold,
// sanitized as LoopGuard describes; the runtimes' loop guard (decide.Step)
// returns the same one.
func LoopDetected(tool string, failures, threshold int) envelope.Envelope {
	name := dialect.DisplayName(tool)
	if name == "" {
		name = "this"
	}
	return outcome.Safe(envelope.Envelope{
		Code:      envelope.LoopDetected,
		Message:   "The " + name + " tool failed " + strconv.Itoa(failures) + " times in a row with these same arguments, so do not call it again with them; change the arguments or try another approach.",
		Retryable: false,
		Details:   map[string]any{"tool": tool, "failures": failures, "threshold": threshold},
		Source:    envelope.SourceOrchestrator,
	})
}
