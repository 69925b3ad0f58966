package resilience

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// flakyStore is a MemoryStore whose every nth operation fails, so that the
// executor's back-off window opens and closes while calls run.
type flakyStore struct {
	mem MemoryStore
	n   int64
	ops atomic.Int64
}

func (s *flakyStore) fail() error {
	if s.ops.Add(1)%s.n == 0 {
		return errors.New("connection refused")
	}
	return nil
}

func (s *flakyStore) Load(ctx context.Context, key string) ([]byte, error) {
	if err := s.fail(); err != nil {
		return nil, err
	}
	return s.mem.Load(ctx, key)
}

func (s *flakyStore) CompareAndSwap(ctx context.Context, key string, old, next []byte) ([]byte, bool, error) {
	if err := s.fail(); err != nil {
		return nil, false, err
	}
	return s.mem.CompareAndSwap(ctx, key, old, next)
}

// TestExecutor_manyGoroutinesRegisterToolsDuringCalls: 16 goroutines call
// one executor 300 times each, on tools that appear while the others run
// (each tool's first call copies the tools map), through a store that
// fails every 13th operation (the back-off window, 1 ms, opens and closes
// under them). Under go test -race: no data race; every tool registered
// once and found after; a tool that always succeeds is never refused
// (neither by another tool's breaker nor by a lost registration); a tool
// that always fails gets only its own TIMEOUT or CIRCUIT_OPEN; and each
// failing tool's breaker opened (some of its calls refused CIRCUIT_OPEN).
// Not that the shared state is open at the end: at this call rate a store
// that fails every 13th operation re-opens the 1 ms back-off window before
// it ends, so the calls decide on the replica's fallback and a tool's
// failures may never reach the store (CI failed on that, 1 run in 2 of a
// plain go test: tool-3's key never written).
func TestExecutor_manyGoroutinesRegisterToolsDuringCalls(t *testing.T) {
	const goroutines, calls = 16, 300
	x := &Executor{Store: &flakyStore{n: 13}, StoreBackoff: time.Millisecond, Retry: core.RetryPolicy{MaxAttempts: 1}}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	var refused [61]atomic.Int64 // CIRCUIT_OPEN answers per tool
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				n := (g*7 + i) % (2 + i/5) // new tools keep appearing as i grows: up to 61
				tool := fmt.Sprintf("tool-%d", n)
				if n%2 == 0 {
					if err := x.Do(context.Background(), tool, func(context.Context) error { return nil }); err != nil {
						errs <- fmt.Errorf("%s (always succeeds) gave %w", tool, err)
						return
					}
					continue
				}
				err := x.Do(context.Background(), tool, func(context.Context) error { return envErr(core.CodeTimeout, nil) })
				var te *Error
				if !errors.As(err, &te) || (te.Envelope.Code != core.CodeTimeout && te.Envelope.Code != core.CodeCircuitOpen) {
					errs <- fmt.Errorf("%s (always fails) gave %v", tool, err)
					return
				}
				if te.Envelope.Code == core.CodeCircuitOpen {
					refused[n].Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tools := *x.replica.tools.Load()
	require.Len(t, tools, 61)
	for n := range 61 {
		tool := fmt.Sprintf("tool-%d", n)
		v := x.replica.find(tool)
		require.NotNil(t, v, tool)
		assert.Equal(t, core.StepConfig{Tool: tool}.Key(), v.key)
	}
	for _, n := range []int{1, 3, 5} { // 319, 180 and 213 calls each, every one failing
		assert.Positive(t, refused[n].Load(), "tool-%d never refused CIRCUIT_OPEN", n)
	}
}
