package mcptool_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/mcptool"
	"github.com/toolerr/toolerr/resilience"
)

// A hand-built *resilience.Error whose envelope the core refuses to write
// (a code or source that is free text, details JSON cannot carry) is still
// answered as a failure, isError true, in the core's shape, and none of its
// free text reaches the model: the code and source become TOOL_ERROR and
// tool when they are no tokens, and the message passes the sanitizer.
// Before, Result answered such an envelope with an empty success
// (isError false) and For's typed path with the raw message as the text.
func TestResult_anEnvelopeTheCoreRefusesIsStillASafeFailure(t *testing.T) {
	const secret = "sk-proj-AbCdEf0123456789AbCdEf0123456789xyz"
	rows := []struct {
		name       string
		env        core.Envelope
		code       core.Code
		source     core.Source
		retryable  bool
		hasDetails bool
	}{
		{"code free text", core.Envelope{Code: core.Code("key " + secret), Message: "failed with " + secret, Retryable: true, Source: core.SourceProvider},
			core.CodeToolError, core.SourceProvider, true, false},
		{"source free text", core.Envelope{Code: core.CodeTimeout, Message: "failed with " + secret, Source: core.Source(secret), Details: map[string]any{"n": 1}},
			core.CodeTimeout, core.SourceTool, false, false},
		{"details NaN", core.Envelope{Code: core.CodeTimeout, Message: "failed with " + secret, Source: core.SourceTool, Details: map[string]any{"x": math.NaN()}},
			core.CodeTimeout, core.SourceTool, false, false},
	}
	for _, r := range rows {
		for _, tool := range []*mcp.Tool{nil, {Name: "search"}} {
			res := mcptool.Result(r.env, tool)
			b, err := json.Marshal(res)
			require.NoError(t, err)
			assert.NotContains(t, string(b), secret, r.name)
			require.True(t, res.IsError, "%s: %s", r.name, b)
			require.Len(t, res.Content, 1, r.name)
			var got core.Envelope
			require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got), r.name)
			assert.Equal(t, r.code, got.Code, r.name)
			assert.Equal(t, r.source, got.Source, r.name)
			assert.Equal(t, r.retryable, got.Retryable, r.name)
			assert.Equal(t, "failed with [REDACTED].", got.Message, r.name)
			assert.Empty(t, got.Details, r.name)
		}

		// For's typed path, an output schema declared: the SDK sends the error's text.
		tool := &mcp.Tool{Name: "search"}
		h := mcptool.For(tool, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{ N int }, error) {
			return nil, struct{ N int }{}, &resilience.Error{Envelope: r.env}
		}, nil)
		_, _, err := h(context.Background(), &mcp.CallToolRequest{}, struct{}{})
		require.Error(t, err, r.name)
		assert.NotContains(t, err.Error(), secret, r.name)
		var got core.Envelope
		require.NoError(t, json.Unmarshal([]byte(err.Error()), &got), "%s: %s", r.name, err)
		assert.Equal(t, r.code, got.Code, r.name)
	}
}
