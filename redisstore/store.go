// Package redisstore shares toolerr's circuit breakers between replicas
// through Redis: a resilience.Store whose compare-and-swap is one Lua script,
// so the breaker logic stays core's pure transition (run in Go by
// resilience.Transition) and Redis only makes it atomic. It is its own Go
// module so that importing toolerr never pulls in go-redis.
//
// See https://github.com/sony/gobreaker (v2/redis, its Redis store in its own
// module) and docs/resilience.md ("Redis").
package redisstore

import (
	"context"
	_ "embed"
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/toolerr/toolerr/resilience"
)

// CASScript is the compare-and-swap Lua script (cas.lua beside this file),
// the one every language's Redis store runs: it compares the value at
// KEYS[1] with ARGV[2] (ARGV[1] = "1": the key must be absent) and, when
// equal, sets it to ARGV[3]. It returns {1} on a swap, {0} when the key is
// absent, {0, current} otherwise.
//
//go:embed cas.lua
var CASScript string

var casScript = redis.NewScript(CASScript)

// Store is a resilience.Store over a go-redis client (a *redis.Client,
// *redis.ClusterClient or *redis.Ring). Every transition is a GET then, only
// when the state changes, one EVALSHA of a compare-and-swap script, so any
// number of replicas share one breaker per key and exactly one of them gets a
// half-open probe at a time. Keys have no expiry.
//
// When Redis cannot be reached, Load and CompareAndSwap return the client's
// error; resilience.Executor then decides on local in-memory state and
// reports a DecisionFallback (see docs/resilience.md, "Redis unreachable").
type Store struct {
	client redis.UniversalClient
}

var _ resilience.Store = (*Store)(nil)

// New returns a Store over client; the caller keeps ownership of the client.
func New(client redis.UniversalClient) *Store { return &Store{client: client} }

// Load returns the bytes stored under key, or nil when there are none.
func (s *Store) Load(ctx context.Context, key string) ([]byte, error) {
	b, err := s.client.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	return b, err
}

// CompareAndSwap stores next under key if the stored bytes equal old (nil
// old: if the key is absent), atomically in Redis. When it does not swap it
// returns the bytes stored now.
func (s *Store) CompareAndSwap(ctx context.Context, key string, old, next []byte) ([]byte, bool, error) {
	absent := "0"
	if old == nil {
		absent = "1"
	}
	res, err := casScript.Run(ctx, s.client, []string{key}, absent, old, next).Slice()
	if err != nil {
		return nil, false, err
	}
	if len(res) == 0 {
		return nil, false, errors.New("redisstore: empty reply from the compare-and-swap script")
	}
	if n, _ := res[0].(int64); n == 1 {
		return nil, true, nil
	}
	if len(res) > 1 {
		if cur, ok := res[1].(string); ok {
			return []byte(cur), false, nil
		}
	}
	return nil, false, nil
}
