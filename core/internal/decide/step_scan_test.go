package decide

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScanStepRequest_storedBytesReadOnce: the replica's state, the same
// escaped literal as the load made ahead, is not decoded again: the scan
// allocates no more than with no replica at all, and both hold the one
// slice of bytes.
func TestScanStepRequest_storedBytesReadOnce(t *testing.T) {
	const state = `"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"`
	withReplica := `{"op":"step","tool":"search","on_success":true,"state":{"attempt":1,"phase":"call"},` +
		`"event":{"kind":"failure","classify":{"op":"classify_exception","exception":{"type":"TimeoutError","message":"upstream timed out"},"tool":"search"},"draw":0.5,` +
		`"loaded":{"kind":"loaded","value":` + state + `}},"now_ms":1796188973193,"replica":{"down_until_ms":0,"state":` + state + `}}`
	noReplica := strings.Replace(withReplica, `{"down_until_ms":0,"state":`+state+`}`, "null", 1)
	require.NotEqual(t, withReplica, noReplica)

	in, ok := ScanStepRequest(withReplica)
	require.True(t, ok)
	require.Equal(t, `{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}`, string(in.Replica.State))
	require.Same(t, &in.Event.Loaded.Value[0], &in.Replica.State[0], "the replica's state shares the loaded bytes")
	_, ok = ScanStepRequest(noReplica)
	require.True(t, ok)

	with := testing.AllocsPerRun(200, func() { ScanStepRequest(withReplica) })
	without := testing.AllocsPerRun(200, func() { ScanStepRequest(noReplica) })
	require.Equal(t, without, with, "allocations with the replica's state read again")
}
