package redisstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCrossLanguage_oneBreaker runs one replica per language (Go, and
// Python, Node and Rust when scripts/test-redis.sh points at their
// runtimes), each a separate process with two concurrent callers and its
// language's own Redis store, on one breaker for one tool on a real
// redis-server: the tool fails and the breaker opens for all of them; after
// open_ms exactly one probe is admitted across all replicas, and its success
// closes the breaker for all.
func TestCrossLanguage_oneBreaker(t *testing.T) {
	srv := newRedisServer(t, t.TempDir())
	t.Cleanup(srv.stop)
	srv.start(t)
	const openMs = 1500
	cfg := map[string]any{"addr": srv.addr, "tool": "search",
		"settings": map[string]int{"failure_threshold": 3, "open_ms": openMs, "success_threshold": 1},
		// A loaded 2-core machine: no fallback in this test, only sharing.
		"store_timeout_ms": 1000, "store_backoff_ms": 1000}
	rs := replicas(t, cfg, 1)
	var names []string
	for _, r := range rs {
		names = append(names, r.name)
	}
	t.Logf("replicas: %s", strings.Join(names, ", "))
	key := "toolerr:breaker:search"
	c := client(t, srv.addr)

	// The tool fails: three counted failures, from whichever replicas, open
	// the breaker for all.
	res := runAll(t, rs, map[string]any{"ms": 800, "workers": 2, "fail": true, "gap_ms": 10})
	reached := 0
	for i, r := range res {
		require.NotEmpty(t, r.Calls, rs[i].name)
		refused := 0
		for _, call := range r.Calls {
			if call.Reached {
				reached++
			}
			if call.Code == "CIRCUIT_OPEN" {
				refused++
			}
		}
		assert.Equal(t, "CIRCUIT_OPEN", r.Calls[len(r.Calls)-1].Code, "%s: the breaker is not open for it", rs[i].name)
		assert.NotZero(t, refused, "%s was never refused", rs[i].name)
	}
	// 3 failures open it; calls already past the allow when it opened may
	// still reach the tool (at most one per caller).
	assert.GreaterOrEqual(t, reached, 3)
	assert.LessOrEqual(t, reached, 3+2*len(rs), "calls reached the failing tool after the breaker opened")
	st, err := c.Get(context.Background(), key).Result()
	require.NoError(t, err)
	assert.Contains(t, st, `"phase":"open"`)

	// The tool recovers and holds each call 300 ms: after open_ms one probe
	// goes, the others are refused while it is out, and its success closes
	// the breaker for all.
	res = runAll(t, rs, map[string]any{"ms": openMs + 1500, "workers": 2, "fail": false, "hold_ms": 300, "gap_ms": 10})
	probes, firstReach := 0, int64(0)
	var reachedAt []int64
	for i, r := range res {
		probes += len(r.Probes)
		last := r.Calls[len(r.Calls)-1]
		assert.Equal(t, "", last.Code, "%s: its last call did not pass (the breaker did not close for it)", rs[i].name)
		for _, call := range r.Calls {
			if call.Reached {
				reachedAt = append(reachedAt, call.StartMs)
				if firstReach == 0 || call.StartMs < firstReach {
					firstReach = call.StartMs
				}
			}
		}
	}
	assert.Equal(t, 1, probes, "probes admitted across all replicas in half-open")
	// Nothing else reached the tool while the probe (300 ms) was out.
	for _, at := range reachedAt {
		assert.False(t, at > firstReach && at < firstReach+250, "a call reached the tool %d ms after the probe started", at-firstReach)
	}
	st, err = c.Get(context.Background(), key).Result()
	require.NoError(t, err)
	assert.Equal(t, `{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}`, st)
	t.Logf("%d replicas: %d failing calls reached the tool before it opened for all; %d probe across all; closed for all", len(rs), reached, probes)
	_ = time.Now
}
