package redisstore

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
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
	srv := newRedisServer(tb, dir)
	cleanup(srv.stop)
	srv.start(tb)
	return srv.addr
}

// redisServer is one redis-server on a loopback port that a test starts and
// stops (by pid), and may pause, resume, kill and restart on the same port.
type redisServer struct {
	bin, dir, addr string
	port           int
	cmd            *exec.Cmd
}

func newRedisServer(tb testing.TB, dir string) *redisServer {
	tb.Helper()
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
	return &redisServer{bin: bin, dir: dir, port: port, addr: "127.0.0.1:" + strconv.Itoa(port)}
}

// start starts the server and waits until it answers PING.
func (s *redisServer) start(tb testing.TB) {
	tb.Helper()
	s.cmd = exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--dir", s.dir)
	if err := s.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := c.Ping(context.Background()).Err(); err == nil {
			return
		} else if time.Now().After(deadline) {
			tb.Fatalf("redis-server on %s did not answer: %v", s.addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pause stops the server's process (SIGSTOP): connections stay open and
// nothing answers. resume continues it (SIGCONT).
func (s *redisServer) pause() error  { return s.cmd.Process.Signal(syscall.SIGSTOP) }
func (s *redisServer) resume() error { return s.cmd.Process.Signal(syscall.SIGCONT) }

// stop kills the server (SIGKILL, after SIGCONT in case it was paused) and
// waits for it; a stopped server may be started again on the same port.
func (s *redisServer) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT)
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}
