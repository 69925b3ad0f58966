package core

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTypedAPI_cyclicValues: a Go value that holds itself (a map or a slice
// in its own tree), which no JSON can carry, is refused with an error by
// every typed front door that takes caller values; it used to overflow the
// stack (a fatal error no recover catches) in the canonical writer.
func TestTypedAPI_cyclicValues(t *testing.T) {
	m := map[string]any{}
	m["self"] = m
	s := []any{nil}
	s[0] = s

	for name, args := range map[string]any{"map": m, "slice": s, "nested": map[string]any{"a": []any{m}}} {
		_, _, err := LoopGuard(nil, LoopAttempt{Tool: "t", Args: args}, 1)
		require.Error(t, err, name)
		var re *RequestError
		assert.True(t, errors.As(err, &re), "%s: %T %v", name, err, err)

		_, err = NewEnvelope("TIMEOUT", "m", map[string]any{"c": args}, "")
		require.True(t, errors.As(err, &re), "%s: %T %v", name, err, err)
		assert.Equal(t, "details", re.Path, name)

		// An envelope built by hand with such details is refused where it
		// is written, not walked forever by the sanitizer.
		_, err = Serialize(FormatAnthropic, []Outcome{{Call: Call{ID: "toolu_1", Name: "t"}, Error: &Envelope{Code: "TIMEOUT", Message: "m", Details: map[string]any{"c": args}, Source: SourceTool}}})
		require.Error(t, err, name)
	}
	// The transcript front doors refuse such a list or body before reading it.
	loop := map[string]any{"role": "user"}
	loop["content"] = []any{loop}
	_, err := Check(FormatOpenAIChat, []any{loop}, "")
	var re *RequestError
	require.True(t, errors.As(err, &re), "%T %v", err, err)
	assert.Equal(t, "messages", re.Path)
	_, err = CheckBody(FormatOpenAIChat, map[string]any{"messages": []any{loop}}, TranscriptOptions{})
	require.True(t, errors.As(err, &re), "%T %v", err, err)
	assert.Equal(t, "body", re.Path)

	for name, v := range map[string]any{"NaN": math.NaN(), "Inf": math.Inf(1), "chan": make(chan int), "func": func() {}} {
		_, err := NewEnvelope("TIMEOUT", "m", map[string]any{"v": v}, "")
		require.True(t, errors.As(err, &re), "%s: %T %v", name, err, err)
		assert.Equal(t, "details", re.Path, name)
	}
	e, err := NewEnvelope("TIMEOUT", "m", map[string]any{"deep": []any{map[string]any{"n": 1.0}}}, "")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"deep": []any{map[string]any{"n": 1.0}}}, e.Details)
}
