package redisstore

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// startRedis starts a real redis-server on a free loopback port, with no
// persistence, and stops it when the test (or benchmark) ends. Without a
// redis-server it skips, unless CI is set, where it fails: CI installs one
// with scripts/setup-redis.sh.
func startRedis(tb testing.TB) string {
	tb.Helper()
	return startRedisIn(tb, tb.TempDir(), tb.Cleanup)
}

// startRedisShared starts a server that lives until the test binary exits
// (benchmarks share one across sub-benchmarks).
func startRedisShared(tb testing.TB) string {
	dir, err := os.MkdirTemp("", "toolerr-redis-bench")
	if err != nil {
		tb.Fatal(err)
	}
	return startRedisIn(tb, dir, func(stop func()) { sharedStop = stop })
}

// sharedStop stops the server of startRedisShared; TestMain calls it.
var sharedStop func()

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedStop != nil {
		sharedStop()
	}
	os.Exit(code)
}

func startRedisIn(tb testing.TB, dir string, cleanup func(func())) string {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("redis-server not found and CI=%s: run scripts/setup-redis.sh first", os.Getenv("CI"))
		}
		tb.Skipf("redis-server not found: run scripts/setup-redis.sh (apt-get install -y redis-server) to run the Redis tests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--dir", dir)
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := c.Ping(context.Background()).Err(); err == nil {
			return addr
		} else if time.Now().After(deadline) {
			tb.Fatalf("redis-server on %s did not answer: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
