package resilience

import (
	"bytes"
	"context"
	"sync"
)

// Store keeps breaker states by key as opaque bytes (the canonical JSON of a
// core.BreakerState) and changes them atomically.
//
// Load returns the stored bytes, or nil when the key has none. CompareAndSwap
// stores next only if the stored bytes still equal old (nil old: only if the
// key has none); it returns swapped, and when not swapped the bytes stored
// now (nil for none), so the caller can retry its transition without another
// Load. Implementations must be safe for concurrent use.
//
// See https://github.com/sony/gobreaker (v2 SharedDataStore), which locks
// instead; a compare-and-swap needs no lock and no lease.
type Store interface {
	Load(ctx context.Context, key string) ([]byte, error)
	CompareAndSwap(ctx context.Context, key string, old, next []byte) (current []byte, swapped bool, err error)
}

// MemoryStore is the in-process Store: a map under a mutex. The zero value is
// ready to use.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Load returns a copy of the bytes stored under key, or nil.
func (s *MemoryStore) Load(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.m[key]), nil
}

// view returns the bytes stored under key, or nil, without a copy: the
// stored slices are never changed in place (CompareAndSwap stores a copy of
// next), so a caller that only reads them may share them.
func (s *MemoryStore) view(key string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key]
}

// CompareAndSwap stores next under key if the stored bytes equal old.
func (s *MemoryStore) CompareAndSwap(_ context.Context, key string, old, next []byte) ([]byte, bool, error) {
	cur, swapped := s.swap(key, old, bytes.Clone(next))
	return bytes.Clone(cur), swapped, nil
}

// swap is CompareAndSwap without copies: it stores next itself and returns
// the stored bytes themselves, for a caller that changes neither (view).
func (s *MemoryStore) swap(key string, old, next []byte) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.m[key]
	if (old == nil && ok) || (old != nil && (!ok || !bytes.Equal(cur, old))) {
		return cur, false
	}
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[key] = next
	return nil, true
}
