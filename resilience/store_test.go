package resilience

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

func TestMemoryStore_compareAndSwap(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	cur, ok, err := s.CompareAndSwap(ctx, "k", nil, []byte("a"))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Nil(t, cur)
	cur, ok, _ = s.CompareAndSwap(ctx, "k", nil, []byte("b"))
	assert.False(t, ok)
	assert.Equal(t, "a", string(cur))
	cur, ok, _ = s.CompareAndSwap(ctx, "k", []byte("x"), []byte("b"))
	assert.False(t, ok)
	assert.Equal(t, "a", string(cur))
	_, ok, _ = s.CompareAndSwap(ctx, "k", []byte("a"), []byte("b"))
	assert.True(t, ok)
	got, _ := s.Load(ctx, "k")
	assert.Equal(t, "b", string(got))
	missing, _ := s.Load(ctx, "none")
	assert.Nil(t, missing)
	_, ok, _ = s.CompareAndSwap(ctx, "none", []byte("a"), []byte("b"))
	assert.False(t, ok)
}

// HalfOpenRace lets n callers ask a half-open breaker at the same instant and
// returns how many were allowed. It is shared with the redisstore tests.
func halfOpenRace(t *testing.T, s Store, n int) int64 {
	ctx := context.Background()
	key := "toolerr:breaker:race"
	open := core.BreakerState{Phase: core.BreakerOpen, OpenUntilMs: 1000}
	_, ok, err := s.CompareAndSwap(ctx, key, nil, open.AppendJSON(nil))
	require.NoError(t, err)
	require.True(t, ok)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Transition(ctx, s, key, core.BreakerAllow, 2000, core.BreakerSettings{}, nil, "race")
			assert.NoError(t, err)
			if r.Allowed {
				allowed.Add(1)
			}
		}()
	}
	wg.Wait()
	return allowed.Load()
}

func TestTransition_exactlyOneHalfOpenProbe(t *testing.T) {
	for i := 0; i < 50; i++ {
		assert.Equal(t, int64(1), halfOpenRace(t, NewMemoryStore(), 32))
	}
}

func TestTransition_badStoredState(t *testing.T) {
	s := NewMemoryStore()
	_, _, _ = s.CompareAndSwap(context.Background(), "k", nil, []byte(`{"phase":"ajar"}`))
	_, err := Transition(context.Background(), s, "k", core.BreakerAllow, 1, core.BreakerSettings{}, nil, "")
	require.ErrorIs(t, err, core.ErrBadRequest)
}
