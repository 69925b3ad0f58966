package decide

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// DefaultLoopThreshold is how many failures in a row of the same call the
// runtimes' loop guard allows before refusing it (the loop_guard op's
// default).
const DefaultLoopThreshold = transcript.DefaultLoopThreshold

// LoopState is a run's loop-guard state: for each tool, the key of the
// arguments of its latest call and how many calls in a row with them
// failed. It is what the loop_guard op derives from a whole history (the
// first success of a tool, or a call of it with other arguments, ends the
// count), kept in a few bytes per tool. It travels as JSON
// {"<tool>": {"args": "<key>", "failures": n}}; nil is a run with no calls.
type LoopState map[string]LoopEntry

// LoopEntry is one tool's entry in a LoopState.
type LoopEntry struct {
	ArgsKey  string
	Failures int64
}

// Failures returns how many calls of tool with arguments key argsKey failed
// in a row.
func (s LoopState) Failures(tool, argsKey string) int64 {
	if e, ok := s[tool]; ok && e.ArgsKey == argsKey {
		return e.Failures
	}
	return 0
}

// With returns a copy of s with the outcome of one call of tool counted.
func (s LoopState) With(tool, argsKey string, ok bool) LoopState {
	out := make(LoopState, len(s)+1)
	for k, v := range s {
		out[k] = v
	}
	n := int64(0)
	if !ok {
		n = s.Failures(tool, argsKey) + 1
	}
	out[tool] = LoopEntry{ArgsKey: argsKey, Failures: n}
	return out
}

// LoopArgsKey returns the loop guard's key of a call's arguments (a value
// tree): the FNV-1a 64-bit hash, in 16 hex digits, of their canonical JSON,
// with a string holding a JSON object or array read as that value (OpenAI's
// arguments), as the loop_guard op compares them. nil (no arguments) has a
// key too: every call without arguments looks the same.
func LoopArgsKey(args any) string {
	k := transcript.ArgsKey(args)
	h := uint64(14695981039346656037)
	for i := 0; i < len(k); i++ {
		h ^= uint64(k[i])
		h *= 1099511628211
	}
	s := strconv.FormatUint(h, 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}

// LoopDetected is the LOOP_DETECTED envelope of the loop_guard op.
func LoopDetected(tool string, failures, threshold int64) envelope.Envelope {
	return transcript.LoopDetected(tool, int(failures), int(threshold))
}

// Value returns s as its JSON object.
func (s LoopState) Value() map[string]any {
	v := make(map[string]any, len(s))
	for k, e := range s {
		v[k] = map[string]any{"args": e.ArgsKey, "failures": e.Failures}
	}
	return v
}

// ReadLoopState reads a loop state value tree at path; nil is an empty one.
func ReadLoopState(v any, path string) (LoopState, error) {
	if v == nil {
		return nil, nil
	}
	m, err := field.Object(v, path)
	if err != nil {
		return nil, err
	}
	out := make(LoopState, len(m))
	for _, tool := range canonical.SortedKeys(m) {
		p := field.Join(path, tool)
		o, err := field.Object(m[tool], p)
		if err != nil {
			return nil, err
		}
		if err := onlyKeys(o, p, "args", "failures"); err != nil {
			return nil, err
		}
		args, err := field.RequiredString(o, "args", p)
		if err != nil {
			return nil, err
		}
		n, _, err := field.Int(o, "failures", p, 0, maxMs)
		if err != nil {
			return nil, err
		}
		out[tool] = LoopEntry{ArgsKey: args, Failures: n}
	}
	return out, nil
}
