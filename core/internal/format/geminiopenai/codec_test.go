package geminiopenai

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/openaichat"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

func TestCodec_isOpenAIChat(t *testing.T) {
	outs := []outcome.Outcome{
		{Call: outcome.Call{ID: "c1"}, Error: &envelope.Envelope{Code: envelope.RateLimited, Message: "Slow down.", Retryable: true, Details: map[string]any{}, Source: envelope.SourceProvider}},
		{Call: outcome.Call{ID: "c2"}, Result: &outcome.Result{Kind: outcome.Blocks, Blocks: []outcome.Block{{Type: "image", MediaType: "image/png", Data: "AAAA"}}}},
	}
	got, err := Codec{}.Serialize(outs)
	require.NoError(t, err)
	want, err := openaichat.Codec{}.Serialize(outs)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Len(t, got, 3, "two tool messages and the image carrier")
	back, err := Codec{}.Parse(got)
	require.NoError(t, err)
	assert.Equal(t, outs, back)
}
