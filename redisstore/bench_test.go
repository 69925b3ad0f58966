package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/resilience"
)

// gobreakerStore is gobreaker v2's SharedDataStore over the same go-redis
// client, as gobreaker's own v2/redis store does it: a lock per name (SET NX
// PX with a random token, released by a compare-and-delete script: the
// single-instance Redlock that redsync implements), GET and SET for the
// data. Its Lock retries every 100 µs for up to 5 s, which is kinder to
// gobreaker than redsync's default retry delay of 50-250 ms.
type gobreakerStore struct {
	c      *redis.Client
	mu     sync.Mutex
	tokens map[string]string
}

var _ gobreaker.SharedDataStore = (*gobreakerStore)(nil)

var unlockScript = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

func (s *gobreakerStore) Lock(name string) error {
	var b [16]byte
	_, _ = rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	deadline := time.Now().Add(5 * time.Second)
	for {
		ok, err := s.c.SetNX(context.Background(), name, tok, 5*time.Second).Result()
		if err != nil {
			return err
		}
		if ok {
			s.mu.Lock()
			s.tokens[name] = tok
			s.mu.Unlock()
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("lock timeout")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func (s *gobreakerStore) Unlock(name string) error {
	s.mu.Lock()
	tok := s.tokens[name]
	delete(s.tokens, name)
	s.mu.Unlock()
	return unlockScript.Run(context.Background(), s.c, []string{name}, tok).Err()
}

func (s *gobreakerStore) GetData(name string) ([]byte, error) {
	b, err := s.c.Get(context.Background(), name).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	return b, err
}

func (s *gobreakerStore) SetData(name string, data []byte) error {
	return s.c.Set(context.Background(), name, data, 0).Err()
}

// runReplicas splits b.N protected calls over replicas goroutines, each with
// its own client and breaker (a replica), and reports decisions per second.
func runReplicas(b *testing.B, replicas int, newReplica func(c *redis.Client) func() error) {
	addr := benchRedis(b)
	calls := make([]func() error, replicas)
	for i := range calls {
		c := redis.NewClient(&redis.Options{Addr: addr})
		b.Cleanup(func() { c.Close() })
		calls[i] = newReplica(c)
	}
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < replicas; i++ {
		n := b.N / replicas
		if i < b.N%replicas {
			n++
		}
		wg.Add(1)
		go func(call func() error, n int) {
			defer wg.Done()
			for j := 0; j < n; j++ {
				if err := call(); err != nil {
					b.Error(err)
					return
				}
			}
		}(calls[i], n)
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "decisions/s")
}

var (
	benchOnce sync.Once
	benchAddr string
)

// benchRedis starts one redis-server for every benchmark in the run.
func benchRedis(b *testing.B) string {
	benchOnce.Do(func() { benchAddr = startRedisShared(b) })
	if benchAddr == "" {
		b.Skip("no redis-server")
	}
	return benchAddr
}

// BenchmarkBreakerRedis compares one protected call (ask the breaker, run a
// no-op tool, report success) through toolerr's CAS store and through
// gobreaker v2's DistributedCircuitBreaker, on the same Redis server, with 1,
// 4 and 16 replicas. Both breakers are closed throughout, the common case.
func BenchmarkBreakerRedis(b *testing.B) {
	for _, replicas := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("toolerr/replicas=%d", replicas), func(b *testing.B) {
			key := fmt.Sprintf("toolerr:breaker:bench%d", replicas)
			runReplicas(b, replicas, func(c *redis.Client) func() error {
				// The bound gobreaker's store has (go-redis's 3 s read
				// timeout), not DefaultTimeout: on a machine short of CPU a
				// 50 ms deadline fails the benchmark, which measures throughput.
				s := New(c, WithTimeout(3*time.Second))
				ctx := context.Background()
				return func() error {
					now := time.Now().UnixMilli()
					r, err := resilience.Transition(ctx, s, key, core.BreakerAllow, now, core.BreakerSettings{}, nil, "bench")
					if err != nil || !r.Allowed {
						return fmt.Errorf("allow: %v %v", r.Allowed, err)
					}
					_, err = resilience.Transition(ctx, s, key, core.BreakerSuccess, now, core.BreakerSettings{}, nil, "bench")
					return err
				}
			})
		})
		b.Run(fmt.Sprintf("gobreaker/replicas=%d", replicas), func(b *testing.B) {
			name := fmt.Sprintf("bench%d", replicas)
			runReplicas(b, replicas, func(c *redis.Client) func() error {
				cb, err := gobreaker.NewDistributedCircuitBreaker[any](&gobreakerStore{c: c, tokens: map[string]string{}}, gobreaker.Settings{
					Name:        name,
					MaxRequests: 1,
					Timeout:     30 * time.Second,
					ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 3 },
				})
				if err != nil {
					b.Fatal(err)
				}
				return func() error {
					_, err := cb.Execute(func() (any, error) { return nil, nil })
					return err
				}
			})
		})
	}
}

// upstreamTimeout is the benchmark tool's retryable failure (a net.Error's
// Timeout, which core.ClassifyError reads as TIMEOUT).
type upstreamTimeout struct{}

func (upstreamTimeout) Error() string { return "upstream timed out" }
func (upstreamTimeout) Timeout() bool { return true }

// failingTool returns the benchmark's tool: every fifth attempt fails with
// upstreamTimeout (20% of attempts), the rest succeed.
func failingTool() (fn func(context.Context) error, attempts *int) {
	n := 0
	return func(context.Context) error {
		n++
		if n%5 == 0 {
			return upstreamTimeout{}
		}
		return nil
	}, &n
}

// plainRetry is the loop a caller writes without a library: up to 3
// attempts while the error is upstreamTimeout.
func plainRetry(call func() error) error {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if err = call(); !errors.As(err, new(upstreamTimeout)) {
			return err
		}
	}
	return err
}

// BenchmarkExecutorInProcess is the decision overhead of one protected call
// in process on the work of scripts/bench-runtime.sh (every fifth attempt
// fails retryably, up to 3 attempts, the breaker stays closed, sleeping
// switched off): resilience.Executor (retry and breaker, its MemoryStore)
// beside gobreaker v2's CircuitBreaker under the plain retry loop, and the
// plain loop alone. scripts/bench-decide.sh runs the three in interleaved
// rounds and prints the medians of the per-round ratios.
func BenchmarkExecutorInProcess(b *testing.B) {
	check := func(b *testing.B, attempts int) {
		if want := b.N + b.N/4; attempts < want-1 || attempts > want+1 {
			b.Fatalf("%d attempts for %d calls, want %d", attempts, b.N, want)
		}
	}
	b.Run("plain", func(b *testing.B) {
		fn, attempts := failingTool()
		ctx := context.Background()
		for i := 0; i < b.N; i++ {
			if err := plainRetry(func() error { return fn(ctx) }); err != nil {
				b.Fatal(err)
			}
		}
		check(b, *attempts)
	})
	b.Run("toolerr", func(b *testing.B) {
		fn, attempts := failingTool()
		x := &resilience.Executor{Sleep: func(context.Context, time.Duration) error { return nil }}
		ctx := context.Background()
		for i := 0; i < b.N; i++ {
			if err := x.Do(ctx, "search", fn); err != nil {
				b.Fatal(err)
			}
		}
		check(b, *attempts)
	})
	b.Run("gobreaker", func(b *testing.B) {
		fn, attempts := failingTool()
		cb := gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{
			Name:        "search",
			MaxRequests: 2,
			Timeout:     30 * time.Second,
			ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 3 },
		})
		ctx := context.Background()
		for i := 0; i < b.N; i++ {
			err := plainRetry(func() error {
				_, err := cb.Execute(func() (struct{}, error) { return struct{}{}, fn(ctx) })
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		check(b, *attempts)
	})
}
