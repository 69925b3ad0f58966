package redisstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/resilience"
)

func client(tb testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr})
	tb.Cleanup(func() { c.Close() })
	return c
}

func TestStore_compareAndSwap(t *testing.T) {
	ctx := context.Background()
	s := New(client(t, startRedis(t)))
	got, err := s.Load(ctx, "k")
	require.NoError(t, err)
	assert.Nil(t, got)
	cur, ok, err := s.CompareAndSwap(ctx, "k", []byte("x"), []byte("a"))
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Nil(t, cur)
	_, ok, err = s.CompareAndSwap(ctx, "k", nil, []byte("a"))
	require.NoError(t, err)
	assert.True(t, ok)
	cur, ok, _ = s.CompareAndSwap(ctx, "k", nil, []byte("b"))
	assert.False(t, ok)
	assert.Equal(t, "a", string(cur))
	cur, ok, _ = s.CompareAndSwap(ctx, "k", []byte("z"), []byte("b"))
	assert.False(t, ok)
	assert.Equal(t, "a", string(cur))
	_, ok, _ = s.CompareAndSwap(ctx, "k", []byte("a"), []byte("b"))
	assert.True(t, ok)
	got, _ = s.Load(ctx, "k")
	assert.Equal(t, "b", string(got))
}

// probeLoop is one replica: for d it asks the shared breaker for a call; an
// allowed call is a half-open probe, which raises the shared in-flight
// counter (it must then be 1), holds the probe briefly, lowers the counter
// and reports success. success_threshold is huge, so the breaker stays
// half-open and every allowed call is a probe. It returns the probes it made
// and the largest in-flight count it saw.
func probeLoop(ctx context.Context, addr, key string, d time.Duration) (probes, maxInFlight int64, err error) {
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	s := New(c)
	set := core.BreakerSettings{SuccessThreshold: 1 << 40}
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		r, err := resilience.Transition(ctx, s, key, core.BreakerAllow, time.Now().UnixMilli(), set, nil, "probe")
		if err != nil {
			return probes, maxInFlight, err
		}
		if !r.Allowed {
			continue
		}
		if r.State.Phase != core.BreakerHalfOpen {
			return probes, maxInFlight, fmt.Errorf("allowed in phase %v", r.State.Phase)
		}
		n, err := c.Incr(ctx, key+":inflight").Result()
		if err != nil {
			return probes, maxInFlight, err
		}
		maxInFlight = max(maxInFlight, n)
		probes++
		time.Sleep(200 * time.Microsecond)
		if err := c.Decr(ctx, key+":inflight").Err(); err != nil {
			return probes, maxInFlight, err
		}
		if _, err := resilience.Transition(ctx, s, key, core.BreakerSuccess, time.Now().UnixMilli(), set, nil, "probe"); err != nil {
			return probes, maxInFlight, err
		}
	}
	return probes, maxInFlight, nil
}

// openBreaker stores a breaker whose hold has just ended: the next allow is
// a half-open probe.
func openBreaker(t *testing.T, addr, key string) {
	st := core.BreakerState{Phase: core.BreakerOpen, OpenUntilMs: time.Now().UnixMilli() - 1}
	require.NoError(t, client(t, addr).Set(context.Background(), key, st.AppendJSON(nil), 0).Err())
}

func TestStore_oneProbeAtATime_goroutines(t *testing.T) {
	addr := startRedis(t)
	for _, replicas := range []int{2, 8, 16} {
		t.Run(fmt.Sprint(replicas), func(t *testing.T) {
			key := fmt.Sprintf("toolerr:breaker:g%d", replicas)
			openBreaker(t, addr, key)
			var probes, maxIn atomic.Int64
			var wg sync.WaitGroup
			for i := 0; i < replicas; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					p, m, err := probeLoop(context.Background(), addr, key, 700*time.Millisecond)
					assert.NoError(t, err)
					probes.Add(p)
					for cur := maxIn.Load(); m > cur && !maxIn.CompareAndSwap(cur, m); cur = maxIn.Load() {
					}
				}()
			}
			wg.Wait()
			assert.Equal(t, int64(1), maxIn.Load(), "two probes were in flight at once")
			assert.Greater(t, probes.Load(), int64(20), "too few probes to show anything")
			t.Logf("%d replicas: %d probes, never more than %d in flight", replicas, probes.Load(), maxIn.Load())
		})
	}
}

// TestStore_oneProbeAtATime_processes runs the replicas as separate
// processes: the test binary re-executed with TOOLERR_REDIS_REPLICA set.
func TestStore_oneProbeAtATime_processes(t *testing.T) {
	addr := startRedis(t)
	key := "toolerr:breaker:procs"
	openBreaker(t, addr, key)
	const replicas = 6
	var cmds []*exec.Cmd
	var outs []*bufio.Scanner
	for i := 0; i < replicas; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReplicaProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TOOLERR_REDIS_REPLICA="+addr+"|"+key)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
		outs = append(outs, bufio.NewScanner(out))
	}
	// Release every replica at once.
	c := client(t, addr)
	time.Sleep(200 * time.Millisecond)
	for i := 0; i < replicas; i++ {
		require.NoError(t, c.RPush(context.Background(), key+":go", "1").Err())
	}
	var total, maxIn int64
	for i, sc := range outs {
		var p, m int64
		found := false
		for sc.Scan() {
			if n, _ := fmt.Sscanf(sc.Text(), "REPLICA probes=%d max_in_flight=%d", &p, &m); n == 2 {
				found = true
			}
		}
		require.NoError(t, cmds[i].Wait())
		require.True(t, found, "replica %d printed no result", i)
		total += p
		maxIn = max(maxIn, m)
	}
	assert.Equal(t, int64(1), maxIn, "two probes were in flight at once across processes")
	assert.Greater(t, total, int64(20))
	t.Logf("%d processes: %d probes, never more than %d in flight", replicas, total, maxIn)
}

// TestReplicaProcess is the child side of the process test; it does nothing
// unless TOOLERR_REDIS_REPLICA is set.
func TestReplicaProcess(t *testing.T) {
	spec := os.Getenv("TOOLERR_REDIS_REPLICA")
	if spec == "" {
		t.Skip("child process of TestStore_oneProbeAtATime_processes only")
	}
	addr, key, _ := strings.Cut(spec, "|")
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	require.NoError(t, c.BLPop(context.Background(), 20*time.Second, key+":go").Err())
	p, m, err := probeLoop(context.Background(), addr, key, 1500*time.Millisecond)
	require.NoError(t, err)
	fmt.Printf("REPLICA probes=%d max_in_flight=%d\n", p, m)
}

// TestExecutor_sharedBreaker shows replicas sharing one breaker: failures
// seen by three executors open it for a fourth.
func TestExecutor_sharedBreaker(t *testing.T) {
	addr := startRedis(t)
	fail := func(context.Context) error {
		return &resilience.Error{Envelope: core.NewEnvelope(core.CodeTransport, "503", nil, core.SourceTool)}
	}
	for i := 0; i < 3; i++ {
		x := &resilience.Executor{Store: New(client(t, addr)), Retry: core.RetryPolicy{MaxAttempts: 1}}
		require.Error(t, x.Do(context.Background(), "search", fail))
	}
	calls := 0
	x := &resilience.Executor{Store: New(client(t, addr))}
	err := x.Do(context.Background(), "search", func(context.Context) error { calls++; return nil })
	require.ErrorIs(t, err, resilience.ErrCircuitOpen)
	assert.Equal(t, 0, calls)
}

// TestExecutor_redisUnreachableFallsBack: with Redis gone, decisions go on
// from local state, each reported as a fallback; nothing panics.
func TestExecutor_redisUnreachableFallsBack(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	defer c.Close()
	var fallbacks atomic.Int64
	x := &resilience.Executor{
		Store: New(c),
		Retry: core.RetryPolicy{MaxAttempts: 1},
		OnDecision: func(d resilience.Decision) {
			if d.Kind == resilience.DecisionFallback {
				fallbacks.Add(1)
			}
		},
	}
	require.NoError(t, x.Do(context.Background(), "search", func(context.Context) error { return nil }))
	for i := 0; i < 3; i++ {
		require.Error(t, x.Do(context.Background(), "search", func(context.Context) error {
			return &resilience.Error{Envelope: core.NewEnvelope(core.CodeTimeout, "slow", nil, core.SourceTool)}
		}))
	}
	err := x.Do(context.Background(), "search", func(context.Context) error { return nil })
	require.True(t, errors.Is(err, resilience.ErrCircuitOpen), "the local breaker opened: %v", err)
	assert.Equal(t, int64(9), fallbacks.Load()) // 2 + 3*2 + 1
}
