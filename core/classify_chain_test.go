package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chained is an error of conformance/exceptions: its own message, and the
// next cause under it (Unwrap), which Error() leaves out.
type chained struct {
	msg   string
	cause error
}

func (e *chained) Error() string { return e.msg }
func (e *chained) Unwrap() error { return e.cause }

// TestClassifyError_causeChains: the chains of conformance/exceptions,
// built as Go errors (an error type whose Error() leaves out the error it
// wraps), give ClassifyError the decision every binding gives; a case
// resting on a cause's type name or code, or on a message read apart from
// its causes, is skipped (a Go error is classified by its text). Before,
// only err.Error() was read: "search failed" over a refused connection was
// TOOL_ERROR, not retryable.
func TestClassifyError_causeChains(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "conformance", "exceptions", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	ran := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		var cases []struct {
			Description string   `json:"description"`
			Needs       []string `json:"needs"`
			Error       struct {
				Message string `json:"message"`
			} `json:"error"`
			Causes []struct {
				Message string `json:"message"`
			} `json:"causes"`
			Expect struct {
				Code      string `json:"code"`
				Retryable bool   `json:"retryable"`
				Cause     string `json:"cause"`
			} `json:"expect"`
		}
		require.NoError(t, json.Unmarshal(data, &cases))
		for _, c := range cases {
			if len(c.Needs) > 0 {
				continue
			}
			var e error
			for _, cause := range slices.Backward(c.Causes) {
				e = &chained{cause.Message, e}
			}
			env := ClassifyError(&chained{c.Error.Message, e}, ClassifyOptions{Source: SourceTool, Tool: "search"})
			cause, _ := env.Details["cause"].(string)
			assert.Equal(t, []any{c.Expect.Code, c.Expect.Retryable, c.Expect.Cause}, []any{string(env.Code), env.Retryable, cause}, "%s: %s", p, c.Description)
			ran++
		}
	}
	assert.GreaterOrEqual(t, ran, 7)
}

// TestClassifyError_chainOfItself: an error that unwraps to itself is read
// at most 8 causes deep (errors.Unwrap would loop for ever).
func TestClassifyError_chainOfItself(t *testing.T) {
	e := &chained{msg: "search failed"}
	e.cause = &chained{"connect ECONNREFUSED 127.0.0.1:9", e}
	env := ClassifyError(e, ClassifyOptions{Source: SourceTool, Tool: "search"})
	assert.Equal(t, []any{"TRANSPORT", "connection_refused"}, []any{string(env.Code), env.Details["cause"]})
	assert.Equal(t, "search failed: connect ECONNREFUSED 127.0.0.1:9", errorChainText(e))
}
