package decide

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// textSerialize writes each outcome as one message carrying the result text,
// sharing the string as a real codec does.
func textSerialize(outs []outcome.Outcome) ([]any, error) {
	msgs := make([]any, 0, len(outs))
	for _, o := range outs {
		msgs = append(msgs, map[string]any{"id": o.Call.ID, "text": o.Result.Text})
	}
	return msgs, nil
}

func ambiguousTrace(bound int64, text string) Trace {
	r := outcome.ReadText(text)
	return Trace{Bound: bound, Steps: []TraceStep{{Result: &r, Ambiguous: true}}}
}

// A 1 MB result answered 10,000 times would make a 10 GB transcript (one
// request of 1 MB, tens of GB of memory): Replay stops with an error naming
// the bound once the transcript passes MaxTranscriptBytes.
func TestReplay_transcriptSizeIsBounded(t *testing.T) {
	_, err := Replay(ambiguousTrace(MaxBound, strings.Repeat("x", 1<<20)), textSerialize)
	var fe *field.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "trace.bound", fe.Path)
	assert.Contains(t, fe.Msg, "transcript")
}

// A transcript just under the limit is still returned whole.
func TestReplay_transcriptUnderTheLimitIsKept(t *testing.T) {
	r, err := Replay(ambiguousTrace(20, strings.Repeat("x", 1<<20)), textSerialize)
	require.NoError(t, err)
	assert.Len(t, r.Transcript, 20)
	b, err := canonical.Marshal(r.Transcript)
	require.NoError(t, err)
	assert.Less(t, len(b), MaxTranscriptBytes)
}

// Without the transcript, a step is serialized once (to surface a serializer
// error), not once per call: 10,000 calls of a large JSON result cost one
// serialization, and the counts are the same as with the transcript.
func TestReplaySummary_serializesEachStepOnce(t *testing.T) {
	calls := 0
	counting := func(outs []outcome.Outcome) ([]any, error) {
		calls++
		return textSerialize(outs)
	}
	r, err := ReplaySummary(ambiguousTrace(MaxBound, strings.Repeat("x", 1<<20)), counting)
	require.NoError(t, err)
	assert.Equal(t, 1, calls)
	assert.Equal(t, ReplayResult{Calls: MaxBound, Turns: MaxBound, Reason: ReplayBoundReached, Transcript: []any{}}, r)

	small := ambiguousTrace(7, "more may be available")
	full, err := Replay(small, textSerialize)
	require.NoError(t, err)
	sum, err := ReplaySummary(small, textSerialize)
	require.NoError(t, err)
	full.Transcript = []any{}
	assert.Equal(t, full, sum)
}
