package decide

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// releaseFailureStep is a runtime's failure step (the Python runtime's, as
// core's BenchmarkInvoke_stepFailureChained sends it) with every answer
// decided ahead asked for, at now_ms now, failing with an exception of type
// typ.
func releaseFailureStep(now, typ string) string {
	return `{"policy":{"max_attempts":3,"base_ms":500,"cap_ms":8000},"settings":{"failure_threshold":3,"open_ms":30000,"success_threshold":2},"op":"step","tool":"search","on_success":true,"on_swapped":true,"on_slept":true,"standing":true,"state":{"attempt":1,"phase":"call"},"event":{"kind":"failure","classify":{"op":"classify_exception","exception":{"type":"` + typ + `","message":"upstream failed"},"tool":"search"},"draw":0.19405459538707315,"loaded":{"kind":"loaded","value":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}},"now_ms":` + now + `,"replica":{"down_until_ms":0,"state":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}}`
}

// answerOf scans req, steps it and writes the answer, with the chain the
// scan took, which it returns unreleased.
func answerOf(t *testing.T, req string) (string, *StepAhead) {
	t.Helper()
	in, ok := ScanStepRequest(req)
	require.True(t, ok, "the scan reads %s", req)
	require.NotNil(t, in.Ahead)
	r, err := Step(in)
	require.NoError(t, err)
	out, err := r.AppendJSON(nil)
	require.NoError(t, err)
	return string(out), in.Ahead
}

// TestReleaseAhead_emptiesTheChain: a chain given back holds nothing of the
// step it answered (no stored bytes, event, result or record: under cshared
// those would be views of the caller's request past the call), keeps its
// links, and a step scanned after it, into a chain that may be the one
// given back, answers exactly as into a fresh one.
func TestReleaseAhead_emptiesTheChain(t *testing.T) {
	first, a := answerOf(t, releaseFailureStep("1796188973193", "TimeoutError"))
	require.Contains(t, first, `"on_slept":{`)
	ReleaseAhead(a)
	links := 0
	for l := a; l != nil; l = l.next {
		links++
		assert.Nil(t, l.Loaded)
		assert.Equal(t, StepEvent{}, l.loaded)
		assert.Nil(t, l.Result.Ahead)
		assert.Empty(t, l.Result.Records)
		for _, rec := range l.Result.Records[:cap(l.Result.Records)] {
			assert.Equal(t, Record{}, rec, "a record kept past its step")
		}
		l.Result.Records = nil // compared below without the buffer
		assert.Equal(t, StepResult{}, l.Result)
	}
	assert.Equal(t, len(aheadChain{}.links), links, "the links stay")

	// Other steps after it (another clock, another failure): each answers
	// as the general path's fresh chain does.
	for _, c := range [][2]string{{"1796188973194", "ConnectionResetError"}, {"1700000000000", "TimeoutError"}} {
		req := releaseFailureStep(c[0], c[1])
		got, b := answerOf(t, req)
		v, err := canonical.ParseRequest([]byte(req))
		require.NoError(t, err)
		now, err := strconv.ParseInt(c[0], 10, 64)
		require.NoError(t, err)
		in, err := ReadStepInput(v.(map[string]any), now) // a fresh chain
		require.NoError(t, err)
		r, err := Step(in)
		require.NoError(t, err)
		want, err := r.AppendJSON(nil)
		require.NoError(t, err)
		assert.Equal(t, string(want), got)
		assert.True(t, strings.Contains(got, `"exception_type":"`+c[1]+`"`), "the answer names this step's failure")
		ReleaseAhead(b)
	}
	ReleaseAhead(nil)          // nothing to give back
	ReleaseAhead(&StepAhead{}) // a single answer ahead: left to the collector
}
