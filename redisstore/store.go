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
	"fmt"
	"strings"
	"sync/atomic"
	"time"

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

// WrongTypeState is the text a key of another Redis type than a string (a
// list, a hash: GET answers WRONGTYPE) reads as, in Load and in cas.lua
// alike: not a breaker state, so the executor repairs it (a fresh state
// written over it by compare-and-swap from this text) instead of failing
// every operation on the key, each a store_error that left the store alone
// for every tool for a back-off window. Every language's store reads it so.
const WrongTypeState = "toolerr: the key holds another Redis type than a string (WRONGTYPE)"

// DefaultTimeout is the deadline of each store operation when New is given
// none: long enough for a loopback or same-zone Redis (a GET or EVALSHA
// takes well under a millisecond there), short enough that a paused or
// unreachable server costs a caller little. The executor then leaves the
// store alone for its back-off window (resilience.Executor.StoreBackoff).
const DefaultTimeout = 50 * time.Millisecond

// DefaultConnectTimeout is the deadline of each operation of a store that
// has had no answer from Redis yet (WithConnectTimeout): its first
// operation dials, and for RESP3 sends HELLO (and CLIENT SETINFO) before its
// GET, about three round trips where the others take one, and on a loaded
// machine that missed DefaultTimeout: a fresh replica's first decision fell
// back to a local closed breaker while the shared one was open. Once Redis
// has answered (a reply, redis.Nil or a Redis error reply), every operation
// has the store's deadline again: a connection dropped later (a paused or
// restarted server) costs DefaultTimeout, as before. Until then, a Redis
// that cannot be reached costs a caller at most this once per back-off
// window (resilience.Executor.StoreBackoff).
const DefaultConnectTimeout = 500 * time.Millisecond

// Store is a resilience.Store over a go-redis client (a *redis.Client,
// *redis.ClusterClient or *redis.Ring). Every transition is a GET then, only
// when the state changes, one EVALSHA of a compare-and-swap script, so any
// number of replicas share one breaker per key and exactly one of them gets a
// half-open probe at a time. Keys have no expiry.
//
// Each operation ends within the store's deadline (DefaultTimeout, or
// WithTimeout) or returns an error; resilience.Executor then decides on the
// last state it saw and leaves the store alone for a back-off window (see
// docs/resilience.md, "Redis unreachable").
type Store struct {
	client         redis.UniversalClient
	timeout        time.Duration
	connectTimeout time.Duration
	honorsCtx      bool
	answered       atomic.Bool // Redis has answered an operation
}

var _ resilience.Store = (*Store)(nil)

// Option configures a Store.
type Option func(*Store)

// WithTimeout sets the deadline of each operation (d <= 0: DefaultTimeout).
func WithTimeout(d time.Duration) Option {
	return func(s *Store) {
		if d > 0 {
			s.timeout = d
		}
	}
}

// WithConnectTimeout sets the deadline of each operation until Redis first
// answers (d <= 0: DefaultConnectTimeout; never shorter than the store's
// deadline).
func WithConnectTimeout(d time.Duration) Option {
	return func(s *Store) {
		if d > 0 {
			s.connectTimeout = d
		}
	}
}

// New returns a Store over client; the caller keeps ownership of the
// client.
//
// # Notes
//
// go-redis bounds a command by a context's deadline only when the client's
// ContextTimeoutEnabled option is set; otherwise by its own ReadTimeout
// (3 s by default, and MaxRetries more tries). Set ContextTimeoutEnabled on
// a client made for the store. For a client without it, the store still
// returns at its deadline, but the command goes on in the background until
// the client's own timeout, holding a pooled connection.
func New(client redis.UniversalClient, opts ...Option) *Store {
	s := &Store{client: client, timeout: DefaultTimeout, connectTimeout: DefaultConnectTimeout}
	for _, o := range opts {
		o(s)
	}
	switch c := client.(type) {
	case *redis.Client:
		s.honorsCtx = c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		s.honorsCtx = c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		s.honorsCtx = c.Options().ContextTimeoutEnabled
	}
	return s
}

// run runs op within the store's deadline, or its connect deadline while
// Redis has not answered yet.
func run[T any](ctx context.Context, s *Store, op func(ctx context.Context) (T, error)) (T, error) {
	timeout := s.timeout
	if !s.answered.Load() {
		timeout = max(s.timeout, s.connectTimeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if s.honorsCtx {
		v, err := guarded(ctx, op)
		s.saw(err)
		return v, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := guarded(ctx, op)
		s.saw(err)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// guarded runs op, a panic in it returned as an error: go-redis v9 panics
// reading a reply whose length does not fit an allocation ("$" or "*" with
// 19 digits: makeslice: len out of range, in proto.Reader), which took the
// whole process down (in the caller's goroutine, or in run's own, where no
// caller can recover it). The error names the panic's value, never the
// reply's bytes. go-redis has given the connection back to its pool by
// then, with the rest of the reply unread: a server that sends such a
// reply is not Redis, and what it sends next is no more trusted.
func guarded[T any](ctx context.Context, op func(ctx context.Context) (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, fmt.Errorf("redisstore: the Redis client panicked reading the reply (%v)", r)
		}
	}()
	return op(ctx)
}

// saw records that Redis answered when err is none, redis.Nil or an error
// reply of Redis's own (redis.Error).
func (s *Store) saw(err error) {
	var reply redis.Error
	if !s.answered.Load() && (err == nil || errors.As(err, &reply)) {
		s.answered.Store(true)
	}
}

// Load returns the bytes stored under key, or nil when there are none;
// WrongTypeState for a key of another Redis type.
func (s *Store) Load(ctx context.Context, key string) ([]byte, error) {
	b, err := run(ctx, s, func(ctx context.Context) ([]byte, error) { return s.client.Get(ctx, key).Bytes() })
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if wrongType(err) {
		return []byte(WrongTypeState), nil
	}
	return b, err
}

// wrongType reports whether err is Redis's WRONGTYPE reply (the key holds
// another type than a string).
func wrongType(err error) bool {
	var reply redis.Error
	return errors.As(err, &reply) && strings.HasPrefix(reply.Error(), "WRONGTYPE")
}

// CompareAndSwap stores next under key if the stored bytes equal old (nil
// old: if the key is absent), atomically in Redis. When it does not swap it
// returns the bytes stored now.
func (s *Store) CompareAndSwap(ctx context.Context, key string, old, next []byte) ([]byte, bool, error) {
	absent := "0"
	if old == nil {
		absent = "1"
	}
	res, err := run(ctx, s, func(ctx context.Context) (any, error) {
		return casScript.Run(ctx, s.client, []string{key}, absent, old, next).Result()
	})
	if err != nil {
		return nil, false, err
	}
	return casReply(res)
}

// casReply reads the script's reply as go-redis gives it: [1] swapped, [0]
// the key is absent, [0, bulk string] the bytes stored now. Any other shape
// (a server not running cas.lua) is an error naming the shape, never the
// bytes, so the executor falls back and backs off instead of retrying.
func casReply(res any) ([]byte, bool, error) {
	if a, ok := res.([]any); ok {
		switch {
		case len(a) == 1 && a[0] == int64(1):
			return nil, true, nil
		case len(a) == 1 && a[0] == int64(0):
			return nil, false, nil
		case len(a) == 2 && a[0] == int64(0):
			if cur, ok := a[1].(string); ok {
				return []byte(cur), false, nil
			}
		}
	}
	return nil, false, fmt.Errorf("redisstore: the compare-and-swap script gave an unexpected reply %s (want [1], [0] or [0, bulk string])", replyShape(res, true))
}

// replyShape names a go-redis reply's type, an array's by its elements'.
func replyShape(v any, top bool) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case int64:
		return "integer"
	case string:
		return "bulk string"
	case []any:
		if !top || len(v) > 4 {
			return fmt.Sprintf("array of %d", len(v))
		}
		names := make([]string, len(v))
		for i, e := range v {
			names[i] = replyShape(e, false)
		}
		return "[" + strings.Join(names, ", ") + "]"
	default:
		return fmt.Sprintf("%T", v)
	}
}
