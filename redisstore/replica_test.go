package redisstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/resilience"
)

// The replica protocol: the harness (the cross-language and chaos tests)
// drives each replica, a separate process in any language, with one JSON
// line per command on its standard input, and reads one JSON line per
// command from its standard output. Every language's replica program speaks
// it (this test binary re-executed for Go; conformance/redis/ for Python,
// Node and Rust):
//
//	{"cmd":"config","addr":"127.0.0.1:port","tool":"search","settings":{...},"store_timeout_ms":50,"store_backoff_ms":1000}
//	    -> {"ok":true}: build one executor over a Redis store (the
//	       language's own), retry max_attempts 1
//	{"cmd":"run","ms":N,"workers":W,"fail":bool,"hold_ms":H,"gap_ms":G}
//	    -> {"calls":[[start_ms, latency_us, reached, "CODE"|""], ...], "probes":[ms, ...]}:
//	       W concurrent workers call the tool through the executor for N ms,
//	       G ms apart; the tool holds H ms, then fails with a 503 (TRANSPORT)
//	       when fail, else succeeds. start_ms is the wall clock (ms since the
//	       epoch) when the executor was asked; latency_us is the time it took
//	       minus the tool's; reached is 1 when the tool ran; the code is the
//	       call's envelope code ("" on success). probes are the wall-clock
//	       times of the breaker records that admitted a half-open probe.
//	{"cmd":"quit"}

// replicaCall is one call a replica reports.
type replicaCall struct {
	StartMs   int64
	LatencyUs int64
	Reached   bool
	Code      string
}

func (c *replicaCall) UnmarshalJSON(b []byte) error {
	var a [4]json.RawMessage
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	var reached int
	for i, dst := range []any{&c.StartMs, &c.LatencyUs, &reached, &c.Code} {
		if err := json.Unmarshal(a[i], dst); err != nil {
			return fmt.Errorf("call member %d: %w", i, err)
		}
	}
	c.Reached = reached == 1
	return nil
}

// replicaResult is a replica's answer to run.
type replicaResult struct {
	Calls  []replicaCall `json:"calls"`
	Probes []int64       `json:"probes"`
}

// replica is one running replica process.
type replica struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
}

// startReplica starts argv as a replica and sends it cfg.
func startReplica(t *testing.T, name string, argv []string, env []string, cfg map[string]any) *replica {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = &prefixWriter{t: t, prefix: name + ": "}
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start(), "starting %s", name)
	r := &replica{name: name, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	r.out.Buffer(make([]byte, 1<<20), 64<<20)
	t.Cleanup(func() {
		_ = r.in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	var ok struct{ OK bool }
	r.send(t, map[string]any{"cmd": "config", "config": cfg}, &ok)
	require.True(t, ok.OK, "%s did not accept its configuration", name)
	return r
}

// send writes one command and reads its answer into v.
func (r *replica) send(t *testing.T, cmd map[string]any, v any) {
	t.Helper()
	b, err := json.Marshal(cmd)
	require.NoError(t, err)
	_, err = r.in.Write(append(b, '\n'))
	require.NoError(t, err, "%s: writing a command", r.name)
	r.read(t, v)
}

func (r *replica) write(t *testing.T, cmd map[string]any) {
	t.Helper()
	b, err := json.Marshal(cmd)
	require.NoError(t, err)
	_, err = r.in.Write(append(b, '\n'))
	require.NoError(t, err, "%s: writing a command", r.name)
}

func (r *replica) read(t *testing.T, v any) {
	t.Helper()
	require.True(t, r.out.Scan(), "%s ended without answering (%v)", r.name, r.out.Err())
	require.NoError(t, json.Unmarshal(r.out.Bytes(), v), "%s answered %q", r.name, r.out.Text())
}

// startRun sends the same run command to every replica at once; collect
// reads their answers.
func startRun(t *testing.T, rs []*replica, run map[string]any) {
	t.Helper()
	run["cmd"] = "run"
	for _, r := range rs {
		r.write(t, run)
	}
}

func collect(t *testing.T, rs []*replica) []replicaResult {
	t.Helper()
	out := make([]replicaResult, len(rs))
	for i, r := range rs {
		r.read(t, &out[i])
	}
	return out
}

func runAll(t *testing.T, rs []*replica, run map[string]any) []replicaResult {
	t.Helper()
	startRun(t, rs, run)
	return collect(t, rs)
}

type prefixWriter struct {
	t      *testing.T
	prefix string
	mu     sync.Mutex
}

func (w *prefixWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if l != "" {
			w.t.Log(w.prefix + l)
		}
	}
	return len(b), nil
}

// goReplicaArgv re-executes this test binary as a Go replica.
func goReplicaArgv() ([]string, []string) {
	return []string{os.Args[0], "-test.run=^TestGoReplica$", "-test.count=1"}, []string{"TOOLERR_REDIS_GO_REPLICA=1"}
}

// TestGoReplica is the Go replica program of the replica protocol; it does
// nothing unless TOOLERR_REDIS_GO_REPLICA is set.
func TestGoReplica(t *testing.T) {
	if os.Getenv("TOOLERR_REDIS_GO_REPLICA") == "" {
		t.Skip("the Go replica of the cross-language and chaos tests only")
	}
	if err := serveReplica(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
}

// replicaConfig is the config command's member.
type replicaConfig struct {
	Addr           string         `json:"addr"`
	Tool           string         `json:"tool"`
	Settings       map[string]int `json:"settings"`
	StoreTimeoutMs int64          `json:"store_timeout_ms"`
	StoreBackoffMs int64          `json:"store_backoff_ms"`
}

type replicaRun struct {
	Ms      int64 `json:"ms"`
	Workers int   `json:"workers"`
	Fail    bool  `json:"fail"`
	HoldMs  int64 `json:"hold_ms"`
	GapMs   int64 `json:"gap_ms"`
}

func serveReplica(stdin io.Reader, stdout io.Writer) error {
	sc := bufio.NewScanner(stdin)
	enc := json.NewEncoder(stdout)
	var x *resilience.Executor
	var tool string
	var probesMu sync.Mutex
	var probes []int64
	for sc.Scan() {
		var cmd struct {
			Cmd    string        `json:"cmd"`
			Config replicaConfig `json:"config"`
			replicaRun
		}
		if err := json.Unmarshal(sc.Bytes(), &cmd); err != nil {
			return err
		}
		switch cmd.Cmd {
		case "config":
			redis.SetLogger(quietLogger{}) // the pool's dial errors are the point of the chaos test
			c := cmd.Config
			client := redis.NewClient(&redis.Options{Addr: c.Addr, ContextTimeoutEnabled: true})
			defer client.Close()
			tool = c.Tool
			x = &resilience.Executor{
				Store:        New(client, WithTimeout(time.Duration(c.StoreTimeoutMs)*time.Millisecond)),
				StoreBackoff: time.Duration(c.StoreBackoffMs) * time.Millisecond,
				Retry:        core.RetryPolicy{MaxAttempts: 1},
				OnDecision: func(d resilience.Decision) {
					if v := d.Record.Value(); v["probe"] == true {
						probesMu.Lock()
						probes = append(probes, time.Now().UnixMilli())
						probesMu.Unlock()
					}
				},
				Breaker: core.BreakerSettings{FailureThreshold: int64(c.Settings["failure_threshold"]),
					OpenMs: int64(c.Settings["open_ms"]), SuccessThreshold: int64(c.Settings["success_threshold"])},
			}
			if err := enc.Encode(map[string]bool{"ok": true}); err != nil {
				return err
			}
		case "run":
			if x == nil {
				return errors.New("run before config")
			}
			probesMu.Lock()
			probes = []int64{}
			probesMu.Unlock()
			calls := runReplica(x, tool, cmd.replicaRun)
			probesMu.Lock()
			res := map[string]any{"calls": calls, "probes": probes}
			probesMu.Unlock()
			if err := enc.Encode(res); err != nil {
				return err
			}
		case "quit":
			return nil
		}
	}
	return sc.Err()
}

// runReplica runs one run command on x and returns its calls as the
// protocol's arrays.
func runReplica(x *resilience.Executor, tool string, r replicaRun) [][]any {
	var mu sync.Mutex
	var calls [][]any
	end := time.Now().Add(time.Duration(r.Ms) * time.Millisecond)
	var wg sync.WaitGroup
	for w := 0; w < max(r.Workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				var toolTime time.Duration
				reached := false
				start := time.Now()
				err := x.Do(context.Background(), tool, func(context.Context) error {
					reached = true
					t0 := time.Now()
					time.Sleep(time.Duration(r.HoldMs) * time.Millisecond)
					defer func() { toolTime = time.Since(t0) }()
					if r.Fail {
						return toolFailure(core.CodeTransport, "The tool is unavailable (HTTP 503).", map[string]any{"status": 503}, core.SourceTool)
					}
					return nil
				})
				lat := time.Since(start) - toolTime
				code := ""
				var te *resilience.Error
				if errors.As(err, &te) {
					code = string(te.Envelope.Code)
				}
				mu.Lock()
				calls = append(calls, []any{start.UnixMilli(), lat.Microseconds(), b2i(reached), code})
				mu.Unlock()
				time.Sleep(time.Duration(r.GapMs) * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	sort.Slice(calls, func(i, j int) bool { return calls[i][0].(int64) < calls[j][0].(int64) })
	return calls
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
