package redisstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
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
	// The probes' semantics, not the store's deadline, are under test: 16
	// replicas in one compare-and-swap loop on a loaded machine can take
	// longer than DefaultTimeout (50 ms) for one operation.
	s := New(c, WithTimeout(5*time.Second))
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
		return toolFailure(core.CodeTransport, "503", nil, core.SourceTool)
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
// from the replica's own state; the store is asked once per back-off window.
func TestExecutor_redisUnreachableFallsBack(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	defer c.Close()
	var reasons []string
	x := &resilience.Executor{
		Store: New(c),
		Retry: core.RetryPolicy{MaxAttempts: 1},
		OnDecision: func(d resilience.Decision) {
			if d.Kind == resilience.DecisionFallback {
				reasons = append(reasons, d.Reason)
			}
		},
	}
	require.NoError(t, x.Do(context.Background(), "search", func(context.Context) error { return nil }))
	for i := 0; i < 3; i++ {
		require.Error(t, x.Do(context.Background(), "search", func(context.Context) error {
			return toolFailure(core.CodeTimeout, "slow", nil, core.SourceTool)
		}))
	}
	err := x.Do(context.Background(), "search", func(context.Context) error { return nil })
	require.True(t, errors.Is(err, resilience.ErrCircuitOpen), "the replica's breaker opened: %v", err)
	require.Len(t, reasons, 9) // 2 + 3*2 + 1
	assert.Equal(t, "store_error", reasons[0])
	for _, r := range reasons[1:] {
		assert.Equal(t, "backoff", r)
	}
}

// TestStore_deadlineOnPausedServer: a paused server (SIGSTOP) costs one
// store deadline, then nothing for the back-off window, with a client that
// honours contexts and with one that does not.
func TestStore_deadlineOnPausedServer(t *testing.T) {
	srv := newRedisServer(t, t.TempDir())
	t.Cleanup(srv.stop)
	srv.start(t)
	for _, honours := range []bool{true, false} {
		t.Run(fmt.Sprintf("ContextTimeoutEnabled=%v", honours), func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: srv.addr, ContextTimeoutEnabled: honours})
			defer c.Close()
			fellBack := false
			x := &resilience.Executor{Store: New(c, WithTimeout(30*time.Millisecond)), StoreBackoff: 300 * time.Millisecond,
				OnDecision: func(d resilience.Decision) { fellBack = fellBack || d.Kind == resilience.DecisionFallback }}
			ok := func(context.Context) error { return nil }
			// Warmed until one call is answered by the store: on a loaded
			// machine a 30 ms deadline can be missed, and that call's
			// fallback opens a back-off window in which the measured call
			// would never ask the paused server. The window is waited out.
			for i := 0; ; i++ {
				fellBack = false
				require.NoError(t, x.Do(context.Background(), "paused", ok))
				if !fellBack {
					break
				}
				require.Less(t, i, 20, "the store missed its 30 ms deadline on 20 calls in a row")
				time.Sleep(350 * time.Millisecond)
			}
			require.NoError(t, srv.pause())
			defer func() { require.NoError(t, srv.resume()) }()
			start := time.Now()
			require.NoError(t, x.Do(context.Background(), "paused", ok))
			first := time.Since(start)
			start = time.Now()
			for i := 0; i < 100; i++ {
				require.NoError(t, x.Do(context.Background(), "paused", ok))
			}
			rest := time.Since(start)
			assert.GreaterOrEqual(t, first, 30*time.Millisecond)
			assert.Less(t, first, 300*time.Millisecond, "one call waited past the store's deadline")
			assert.Less(t, rest, 100*time.Millisecond, "100 calls within the back-off window asked the paused store")
		})
	}
}

// TestExecutor_fastClockIsBounded: a replica whose clock runs an hour fast
// opens the shared breaker; the others wait open_ms, not an hour.
func TestExecutor_fastClockIsBounded(t *testing.T) {
	addr := startRedis(t)
	set := core.BreakerSettings{OpenMs: 300}
	fail := func(context.Context) error {
		return toolFailure(core.CodeTransport, "503", nil, core.SourceTool)
	}
	fast := &resilience.Executor{Store: New(client(t, addr)), Breaker: set, Retry: core.RetryPolicy{MaxAttempts: 1},
		Now: func() time.Time { return time.Now().Add(time.Hour) }}
	for i := 0; i < 3; i++ {
		require.Error(t, fast.Do(context.Background(), "skew", fail))
	}
	x := &resilience.Executor{Store: New(client(t, addr)), Breaker: set}
	err := x.Do(context.Background(), "skew", func(context.Context) error { return nil })
	var te *resilience.Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, core.CodeCircuitOpen, te.Envelope.Code)
	assert.Equal(t, int64(1), te.Envelope.Details["retry_after_seconds"], "the hour-ahead hold is bounded to open_ms")
	st, err := x.BreakerState(context.Background(), "skew")
	require.NoError(t, err)
	assert.LessOrEqual(t, st.OpenUntilMs, time.Now().UnixMilli()+300, "the bounded hold is written back")
	time.Sleep(350 * time.Millisecond)
	require.NoError(t, x.Do(context.Background(), "skew", func(context.Context) error { return nil }), "half-open after open_ms")
}

// TestExecutor_repairsCorruptKey: bytes that are not a breaker state are
// replaced by a fresh one, and the repair is reported.
func TestExecutor_repairsCorruptKey(t *testing.T) {
	addr := startRedis(t)
	c := client(t, addr)
	require.NoError(t, c.Set(context.Background(), "toolerr:breaker:corrupt", "{\"phase\":\"ajar\"", 0).Err())
	var repairs []resilience.Decision
	x := &resilience.Executor{Store: New(c), OnDecision: func(d resilience.Decision) {
		if d.Kind == resilience.DecisionRepair {
			repairs = append(repairs, d)
		}
	}}
	require.NoError(t, x.Do(context.Background(), "corrupt", func(context.Context) error { return nil }))
	got, err := c.Get(context.Background(), "toolerr:breaker:corrupt").Result()
	require.NoError(t, err)
	assert.Equal(t, `{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}`, got)
	require.Len(t, repairs, 1)
	assert.Contains(t, repairs[0].Record.Value()["error"], "unreadable")
}

// toolFailure is the *resilience.Error a tool returns for a failure with
// code (a registry constant, which core.NewEnvelope always accepts).
func toolFailure(code core.Code, msg string, details map[string]any, src core.Source) error {
	e, err := core.NewEnvelope(code, msg, details, src)
	if err != nil {
		panic(err)
	}
	return &resilience.Error{Envelope: e}
}

// TestCasReply: the script's three replies are read as they are; any other
// shape (a server not running cas.lua) is an error naming the shape, never
// the bytes it holds.
func TestCasReply(t *testing.T) {
	cur, ok, err := casReply([]any{int64(1)})
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Nil(t, cur)
	cur, ok, err = casReply([]any{int64(0)})
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Nil(t, cur)
	cur, ok, err = casReply([]any{int64(0), "held"})
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, "held", string(cur))
	for reply, shape := range map[string]any{
		"[integer, integer]":            []any{int64(0), int64(5)},
		"[integer, bulk string]":        []any{int64(1), "secret"},
		"[integer, bulk string, nil]":   []any{int64(0), "secret", nil},
		"[integer, nil]":                []any{int64(0), nil},
		"[integer]":                     []any{int64(2)},
		"[bulk string]":                 []any{"1"},
		"[]":                            []any{},
		"[integer, array of 1]":         []any{int64(0), []any{"secret"}},
		"array of 5":                    []any{int64(0), "a", "b", "c", "d"},
		"bulk string":                   "secret",
		"integer":                       int64(1),
		"nil":                           nil,
		"[integer, float64]":            []any{int64(0), 1.5},
		"map[interface {}]interface {}": map[any]any{"secret": "x"},
	} {
		cur, ok, err := casReply(shape)
		require.Error(t, err, reply)
		assert.False(t, ok, reply)
		assert.Nil(t, cur, reply)
		assert.Equal(t, "redisstore: the compare-and-swap script gave an unexpected reply "+reply+
			" (want [1], [0] or [0, bulk string])", err.Error())
		assert.NotContains(t, err.Error(), "secret")
	}
}

// malformedCAS is a go-redis hook that replaces the reply of every
// compare-and-swap (EVALSHA or EVAL) with [0, 5] and counts them.
type malformedCAS struct{ n atomic.Int32 }

func (*malformedCAS) DialHook(next redis.DialHook) redis.DialHook { return next }
func (*malformedCAS) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *malformedCAS) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if c, ok := cmd.(*redis.Cmd); ok && (cmd.Name() == "evalsha" || cmd.Name() == "eval") {
			h.n.Add(1)
			c.SetVal([]any{int64(0), int64(5)})
			c.SetErr(nil)
			return nil
		}
		return err
	}
}

// TestExecutor_malformedReplyFallsBack: a malformed compare-and-swap reply
// from a real redis-server's connection is a store error at once (one
// round trip, not MaxCASAttempts): the executor falls back and backs off.
func TestExecutor_malformedReplyFallsBack(t *testing.T) {
	c := client(t, startRedis(t))
	h := &malformedCAS{}
	c.AddHook(h)
	var reasons []string
	x := &resilience.Executor{
		Store: New(c, WithTimeout(time.Second)),
		Retry: core.RetryPolicy{MaxAttempts: 1},
		OnDecision: func(d resilience.Decision) {
			if d.Kind == resilience.DecisionFallback {
				reasons = append(reasons, d.Reason)
			}
		},
	}
	require.Error(t, x.Do(context.Background(), "search", func(context.Context) error {
		return toolFailure(core.CodeTimeout, "slow", nil, core.SourceTool)
	}))
	assert.Equal(t, int32(1), h.n.Load())
	require.NotEmpty(t, reasons)
	assert.Equal(t, "store_error", reasons[0])
}

// slowStart is a go-redis hook that makes each dial take dial and, once
// slowCommands is set, each command take 150 ms (both give up with their
// context).
type slowStart struct {
	dial         time.Duration
	slowCommands atomic.Bool
}

func wait(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *slowStart) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := wait(ctx, h.dial); err != nil {
			return nil, err
		}
		return next(ctx, network, addr)
	}
}
func (*slowStart) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *slowStart) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.slowCommands.Load() {
			if err := wait(ctx, 150*time.Millisecond); err != nil {
				return err
			}
		}
		return next(ctx, cmd)
	}
}

// TestStore_firstConnectDeadline: a store's operations have
// DefaultConnectTimeout until Redis first answers, then the store's
// deadline. A first dial of 150 ms (a loaded machine) made a fresh replica's
// first Load miss the 50 ms deadline, so it decided alone from a closed
// breaker while the shared one was open (TestExecutor_sharedBreaker and
// TestReadmeExample_twoReplicas failed so once).
func TestStore_firstConnectDeadline(t *testing.T) {
	addr := startRedis(t)
	for _, honours := range []bool{true, false} {
		t.Run(fmt.Sprintf("ContextTimeoutEnabled=%v", honours), func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: honours, MaxRetries: -1})
			defer c.Close()
			h := &slowStart{dial: 150 * time.Millisecond}
			c.AddHook(h)
			s := New(c)
			start := time.Now()
			_, err := s.Load(context.Background(), "first")
			require.NoError(t, err, "the first Load, dial included, within DefaultConnectTimeout")
			assert.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
			h.slowCommands.Store(true)
			start = time.Now()
			_, err = s.Load(context.Background(), "first")
			require.ErrorIs(t, err, context.DeadlineExceeded, "once Redis answered, the store's deadline")
			assert.Less(t, time.Since(start), 140*time.Millisecond)
		})
	}
}

// TestStore_connectDeadlineOnSilentServer: a server that accepts and never
// answers costs a store that never had an answer its connect deadline per
// operation (the executor asks once per back-off window), not more.
func TestStore_connectDeadlineOnSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open and silent until the test ends
		}
	}()
	c := redis.NewClient(&redis.Options{Addr: ln.Addr().String(), ContextTimeoutEnabled: true, MaxRetries: -1})
	defer c.Close()
	s := New(c, WithConnectTimeout(200*time.Millisecond))
	for range 2 {
		start := time.Now()
		_, err := s.Load(context.Background(), "k")
		require.Error(t, err) // go-redis's read deadline, set from the context: "i/o timeout"
		took := time.Since(start)
		assert.GreaterOrEqual(t, took, 200*time.Millisecond)
		assert.Less(t, took, 400*time.Millisecond)
	}
}

// notRedis listens on loopback and answers each GET, EVALSHA and EVAL
// with reply (HELLO with an error reply, as a RESP2 server does, and
// anything else with OK), until the test ends.
func notRedis(t *testing.T, reply string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go func() {
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if !strings.HasPrefix(line, "*") {
						continue
					}
					r.ReadString('\n') // the command's name: its length, then the name
					name, _ := r.ReadString('\n')
					out := "+OK\r\n" // the handshake's CLIENT SETINFO
					switch strings.ToUpper(strings.TrimSpace(name)) {
					case "HELLO":
						out = "-ERR unknown command 'HELLO'\r\n" // a RESP2 server: go-redis goes on without it
					case "GET", "EVALSHA", "EVAL":
						out = reply
					}
					if _, err := c.Write([]byte(out)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// A server whose reply gives a length no allocation can hold made go-redis
// panic (makeslice: len out of range) and the process with it: the store
// returns an error instead, on both of run's paths, and the executor falls
// back on it.
func TestStore_replyLengthPastAllocationIsAnError(t *testing.T) {
	for _, reply := range []string{"$9000000000000000000\r\n", "*9000000000000000000\r\n"} {
		for _, honors := range []bool{true, false} {
			t.Run(fmt.Sprintf("%q/ContextTimeoutEnabled=%v", reply[:2], honors), func(t *testing.T) {
				c := redis.NewClient(&redis.Options{Addr: notRedis(t, reply),
					ContextTimeoutEnabled: honors, MaxRetries: -1})
				defer c.Close()
				s := New(c)
				_, err := s.Load(context.Background(), "k")
				if reply[0] == '$' {
					require.EqualError(t, err, "redisstore: the Redis client panicked reading the reply (runtime error: makeslice: len out of range)")
				} else {
					require.Error(t, err) // GET's reader refuses an array before its length is used
				}
				_, _, err = s.CompareAndSwap(context.Background(), "k", nil, []byte("x"))
				require.Error(t, err)
				if reply[0] == '*' {
					assert.EqualError(t, err, "redisstore: the Redis client panicked reading the reply (runtime error: makeslice: len out of range)")
				}
				var reasons []string
				x := &resilience.Executor{Store: s, Retry: core.RetryPolicy{MaxAttempts: 1},
					OnDecision: func(d resilience.Decision) { reasons = append(reasons, d.Reason) }}
				assert.NoError(t, x.Do(context.Background(), "search", func(context.Context) error { return nil }))
				assert.Contains(t, reasons, "store_error")
			})
		}
	}
}

// TestExecutor_repairsWrongTypeKey: a key of another Redis type than a
// string (a list, a hash, a set) at a breaker's key is an unreadable state,
// repaired as bytes that are not one: GET's WRONGTYPE error is read as
// WrongTypeState, as cas.lua reads it, so the fresh state replaces the key.
// Before, every GET and EVALSHA failed: a store_error for that tool each
// back-off window, forever, and the executor's one window left the store
// alone for every other tool too (their failures never reached Redis).
func TestExecutor_repairsWrongTypeKey(t *testing.T) {
	addr := startRedis(t)
	c := client(t, addr)
	ctx := context.Background()
	for typ, put := range map[string]func(key string) error{
		"list": func(k string) error { return c.RPush(ctx, k, "a").Err() },
		"hash": func(k string) error { return c.HSet(ctx, k, "phase", "closed").Err() },
		"set":  func(k string) error { return c.SAdd(ctx, k, "a").Err() },
	} {
		t.Run(typ, func(t *testing.T) {
			key := "toolerr:breaker:" + typ
			require.NoError(t, put(key))
			var kinds []string
			x := &resilience.Executor{Store: New(c, WithTimeout(time.Second)), Retry: core.RetryPolicy{MaxAttempts: 1},
				OnDecision: func(d resilience.Decision) {
					if d.Kind == resilience.DecisionRepair || d.Kind == resilience.DecisionFallback {
						kinds = append(kinds, d.Kind.String()+" "+d.Reason)
					}
				}}
			require.NoError(t, x.Do(ctx, typ, func(context.Context) error { return nil }))
			assert.Equal(t, []string{"repair "}, kinds)
			assert.Equal(t, "string", c.Type(ctx, key).Val())
			assert.Equal(t, `{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}`, c.Get(ctx, key).Val())
			// The store is not in a back-off window: another tool's failure is shared.
			require.Error(t, x.Do(ctx, typ+"-other", func(context.Context) error {
				return toolFailure(core.CodeTransport, "503", nil, core.SourceTool)
			}))
			assert.Equal(t, []string{"repair "}, kinds)
			assert.Equal(t, `{"failures":1,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}`, c.Get(ctx, key+"-other").Val())
		})
	}
}

// TestStore_wrongTypeReadsAsCASScriptDoes: Load reads a key of another
// Redis type as WrongTypeState, the text cas.lua compares it as, so a
// compare-and-swap from what Load returned replaces the key.
func TestStore_wrongTypeReadsAsCASScriptDoes(t *testing.T) {
	ctx := context.Background()
	c := client(t, startRedis(t))
	s := New(c)
	assert.Contains(t, CASScript, "'"+WrongTypeState+"'")
	require.NoError(t, c.RPush(ctx, "k", "a").Err())
	got, err := s.Load(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, WrongTypeState, string(got))
	cur, ok, err := s.CompareAndSwap(ctx, "k", []byte("other"), []byte("a"))
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, WrongTypeState, string(cur))
	_, ok, err = s.CompareAndSwap(ctx, "k", got, []byte("a"))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "a", c.Get(ctx, "k").Val())
}
