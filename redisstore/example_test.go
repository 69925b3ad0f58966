package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/redisstore"
	"github.com/toolerr/toolerr/resilience"
)

// twoReplicas is the README's Redis example (Resilience): two executors,
// standing for two replicas, share one breaker through the Redis at url;
// replica A's three failures open it and replica B is refused without
// calling the tool.
func twoReplicas(url string) error {
	opt, err := redis.ParseURL(url) // e.g. redis://127.0.0.1:6379/0
	if err != nil {
		return err
	}
	calls := 0
	search := func(ctx context.Context) (any, error) { // the search service is down: every call gets a 503
		calls++
		return nil, &resilience.Error{Envelope: core.ClassifyHTTP(503, nil, nil, core.ClassifyOptions{Tool: "search"})}
	}
	prefix := fmt.Sprintf("example:%d:", os.Getpid()) // a fresh breaker per run; the replicas of one service share one prefix
	a := &resilience.Executor{Store: redisstore.New(redis.NewClient(opt)), KeyPrefix: prefix, Retry: core.RetryPolicy{MaxAttempts: 1}}
	b := &resilience.Executor{Store: redisstore.New(redis.NewClient(opt)), KeyPrefix: prefix, Retry: core.RetryPolicy{MaxAttempts: 1}}
	var te *resilience.Error
	for i := 1; i <= 3; i++ { // 3 counted failures open the breaker (the default failure_threshold)
		if _, err := resilience.Call(context.Background(), a, "search", search); !errors.As(err, &te) {
			return err
		}
		fmt.Printf("replica A, call %d: %s\n", i, te.Envelope.Code)
	}
	if _, err := resilience.Call(context.Background(), b, "search", search); !errors.As(err, &te) { // refused without calling it
		return err
	}
	fmt.Println("replica B:", te.Envelope.Code, "- the tool ran", calls, "times")
	return nil
}

// TestReadmeExample_twoReplicas runs the README's Redis example against a
// real redis-server on a loopback port and checks what it prints: the same
// lines as the Python, Node and Rust examples (scripts/test-packages.sh).
func TestReadmeExample_twoReplicas(t *testing.T) {
	addr := redisstore.StartRedis(t)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	runErr := twoReplicas("redis://" + addr + "/0")
	os.Stdout = stdout
	require.NoError(t, w.Close())
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, runErr)
	require.Equal(t, []string{
		"replica A, call 1: TRANSPORT",
		"replica A, call 2: TRANSPORT",
		"replica A, call 3: TRANSPORT",
		"replica B: CIRCUIT_OPEN - the tool ran 3 times",
	}, strings.Split(strings.TrimRight(string(out), "\n"), "\n"))
}
