// Command gatewaybench measures what toolerr's gateway adds to a request:
// client-side latency through the gateway beside the same request sent
// straight to the same upstream, at concurrency 1 and 64, the throughput,
// and the gateway's memory over a long bounded run (scripts/bench-gateway.sh
// runs it in `make bench`).
//
// The request is the fixture -fixture (bench/fixtures/openai-chat-40.json: a
// 40-message Chat Completions body with 10 tool calls, two parallel pairs
// among them, and 3 failed results carried as toolerr envelopes), sent as
// compact JSON. Before any figure, it goes once straight to the strict fake
// OpenAI upstream of gatewaycheck/fake (the vendor's rules, and the OpenAI
// OpenAPI schema when ../shared/specs is present) and once through the
// gateway to it: both must be accepted, and the body the fake received
// through the gateway must be the one sent (the request op has nothing to
// change in a valid transcript). The fake's answer becomes the fixed
// answer of the upstream the load runs against, a minimal loopback server
// that reads the body and writes those bytes, so that the upstream's own
// cost is the same small constant on both paths.
//
// Targets, all on 127.0.0.1:
//   - direct: the upstream itself;
//   - toolerr-gateway: the command (-gateway-bin), a process of its own,
//     with its default flags but the upstream's URL; its log goes to
//     -gateway-log;
//   - in-process handler: gateway.New's handler in an http.Server of this
//     process (which also runs the client and the upstream), at
//     concurrency 1 only, for the cost of a process of its own;
//   - baseline (optional, -baseline-bin): another toolerr-gateway binary,
//     a build from before a change, launched as the binary is and measured
//     in the same interleaved latency runs, so that a before and an after
//     meet the same load;
//   - litellm (optional, -litellm-cmd): the LiteLLM proxy launched by the
//     command given, pointed at the same upstream.
//
// Latency runs interleave the targets (each round one request to each, the
// first target rotating), so every target meets the same load and noise;
// the figures are each target's percentiles, the gateway's added latency
// per percentile (its percentile minus direct's), and the distribution of
// the paired differences (a round's gateway latency minus its direct one).
// Every response must be the upstream's answer byte for byte.
//
// The memory run sends -warmup then -load requests at concurrency 64 to
// toolerr-gateway, sampling its resident set (VmRSS of /proc/<pid>/status)
// every 100 ms, and reads its peak (VmHWM) at the end. The memory is flat
// when the largest sample of the load's second half (or the end) exceeds
// the largest of its first half by at most 10%: a leak grows with the
// requests served, a warm heap does not. The report ends with each goal of
// the gateway (added p50 <= 0.5 ms at concurrency 1 and 64, flat memory)
// met or not. Each run stops at -max-duration at the latest. Every process
// it starts is stopped by its pid (its process group) when it is done.
//
// Exit status: 0 when every run completed without an error (a goal not
// met is reported, not an error), 1 otherwise, 2 for a usage or setup
// error.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/toolerr/toolerr/bench/loadgen"
	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/gateway"
	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

type options struct {
	fixture, gatewayBin, baselineBin, baselineName, gatewayLog, litellmCmd, litellmKey, litellmModel, litellmLog, out, specs, cpuprofile string
	rounds1, rounds64, warmup, load, litellmLoad                                                                                         int
	maxDuration                                                                                                                          time.Duration
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gatewaybench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.fixture, "fixture", "fixtures/openai-chat-40.json", "the Chat Completions request body sent")
	fs.StringVar(&o.gatewayBin, "gateway-bin", "", "the toolerr-gateway binary (required)")
	fs.StringVar(&o.baselineBin, "baseline-bin", "", "another toolerr-gateway binary (a build before a change) measured beside -gateway-bin in the same interleaved latency runs. Empty: none")
	fs.StringVar(&o.baselineName, "baseline-name", "toolerr-gateway (baseline: -baseline-bin)", "the baseline's name in the report")
	fs.StringVar(&o.gatewayLog, "gateway-log", os.DevNull, "where the binary's log goes")
	fs.StringVar(&o.litellmCmd, "litellm-cmd", "", "a /bin/sh command that starts the LiteLLM proxy; it gets GWCHECK_OPENAI_URL (the upstream) and BENCH_PORT (where to listen) in its environment. Empty: LiteLLM is not measured")
	fs.StringVar(&o.litellmKey, "litellm-key", "", "the proxy's master key (sent as Bearer)")
	fs.StringVar(&o.litellmModel, "litellm-model", "gwcheck-openai-chat", "the model name the proxy maps to the upstream")
	fs.StringVar(&o.litellmLog, "litellm-log", os.DevNull, "where the proxy's output goes")
	fs.IntVar(&o.litellmLoad, "litellm-load", 5000, "requests of the LiteLLM throughput run (concurrency 64, each target)")
	fs.StringVar(&o.specs, "specs", "", "the vendor specs for the strict fake (default: $TOOLERR_SHARED/specs, then ../../shared/specs)")
	fs.StringVar(&o.out, "out", "", "also write the report (markdown) to this file")
	fs.IntVar(&o.rounds1, "rounds-c1", 3000, "interleaved rounds at concurrency 1")
	fs.IntVar(&o.rounds64, "rounds-c64", 20000, "interleaved rounds at concurrency 64")
	fs.IntVar(&o.warmup, "warmup", 10000, "requests of the memory run's warm-up (concurrency 64)")
	fs.IntVar(&o.load, "load", 100000, "requests of the memory run after the warm-up (concurrency 64)")
	fs.DurationVar(&o.maxDuration, "max-duration", 3*time.Minute, "the longest any one run may take")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of this process (client, upstream and in-process gateway) over the runs to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.gatewayBin == "" {
		fmt.Fprintln(stderr, "gatewaybench: -gateway-bin is required")
		return 2
	}
	b := &bench{o: o, stderr: stderr}
	defer b.stop()
	if err := b.setup(); err != nil {
		fmt.Fprintln(stderr, "gatewaybench:", err)
		return 2
	}
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			fmt.Fprintln(stderr, "gatewaybench:", err)
			return 2
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "gatewaybench:", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	failed := b.measure()
	report := b.report.String()
	_, _ = io.WriteString(stdout, report)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(report), 0o644); err != nil {
			fmt.Fprintln(stderr, "gatewaybench:", err)
			return 2
		}
	}
	if failed {
		return 1
	}
	return 0
}

// bench holds the servers and processes of one run.
type bench struct {
	o      options
	stderr io.Writer
	body   []byte // the fixture, compact
	answer []byte // the upstream's fixed answer

	upstream, inprocSrv   *http.Server
	upConns               atomic.Int64 // connections the upstream accepted
	launchRSS             int64        // the binary's resident set once ready, before any request
	upURL, inURL          string
	bin, baseBin, litellm *process
	binURL, llURL         string

	direct, gw, inproc loadgen.Target  // the upstream, the binary, the in-process handler
	base, ll           *loadgen.Target // the -baseline-bin binary, the LiteLLM proxy
	report             strings.Builder
	errs               int
}

func (b *bench) printf(format string, a ...any) { fmt.Fprintf(&b.report, format, a...) }

// setup reads the fixture, checks it against the strict fake, and starts
// the upstream and the targets.
func (b *bench) setup() error {
	raw, err := os.ReadFile(b.o.fixture)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return fmt.Errorf("%s: %w", b.o.fixture, err)
	}
	b.body = buf.Bytes()
	if b.answer, err = preflight(b.body, b.o.specs); err != nil {
		return err
	}

	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b.answer)))
		_, _ = w.Write(b.answer)
	})
	if b.upstream, b.upURL, err = serveCounting(up, &b.upConns); err != nil {
		return err
	}
	g, err := gateway.New(gateway.Config{
		Upstreams: map[string]string{gateway.FamilyOpenAI: b.upURL},
		Logger:    slog.New(slog.NewJSONHandler(io.Discard, nil)), // the binary's log format, written nowhere
	})
	if err != nil {
		return err
	}
	if b.inprocSrv, b.inURL, err = serve(g); err != nil {
		return err
	}
	hdr := benchHeader
	path := "/v1/chat/completions"
	b.direct = loadgen.Target{Name: "direct", URL: b.upURL + path, Header: hdr, Body: b.body, Want: b.answer}
	b.inproc = loadgen.Target{Name: "in-process handler", URL: b.inURL + path, Header: hdr, Body: b.body, Want: b.answer}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	b.binURL = "http://" + addr
	b.bin, err = launch([]string{b.o.gatewayBin, "-addr", addr, "-openai-base", b.upURL}, nil, b.o.gatewayLog, b.binURL+"/healthz", 30*time.Second)
	if err != nil {
		return fmt.Errorf("toolerr-gateway: %w", err)
	}
	if m, err := loadgen.ReadMemory(b.bin.cmd.Process.Pid); err == nil {
		b.launchRSS = m.RSS
	}
	b.gw = loadgen.Target{Name: "toolerr-gateway", URL: b.binURL + path, Header: hdr, Body: b.body, Want: b.answer}
	if b.o.baselineBin != "" {
		addr, err := freeAddr()
		if err != nil {
			return err
		}
		baseLog := os.DevNull // its log is written as the binary's is: to a file of its own, or nowhere
		if b.o.gatewayLog != os.DevNull {
			baseLog = b.o.gatewayLog + ".baseline"
		}
		b.baseBin, err = launch([]string{b.o.baselineBin, "-addr", addr, "-openai-base", b.upURL}, nil, baseLog, "http://"+addr+"/healthz", 30*time.Second)
		if err != nil {
			return fmt.Errorf("baseline toolerr-gateway: %w", err)
		}
		b.base = &loadgen.Target{Name: b.o.baselineName, URL: "http://" + addr + path, Header: hdr, Body: b.body, Want: b.answer}
	}
	if b.o.litellmCmd != "" {
		addr, err := freeAddr()
		if err != nil {
			return err
		}
		_, port, _ := net.SplitHostPort(addr)
		b.llURL = "http://" + addr
		env := []string{"GWCHECK_OPENAI_URL=" + b.upURL, "BENCH_PORT=" + port}
		b.litellm, err = launch([]string{"/bin/sh", "-c", b.o.litellmCmd}, env, b.o.litellmLog, b.llURL+"/health/liveliness", 180*time.Second)
		if err != nil {
			return fmt.Errorf("litellm: %w", err)
		}
		var req map[string]any
		if err := json.Unmarshal(b.body, &req); err != nil {
			return err
		}
		req["model"] = b.o.litellmModel
		llBody, _ := json.Marshal(req)
		llHdr := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + b.o.litellmKey}}
		b.ll = &loadgen.Target{Name: "litellm", URL: b.llURL + path, Header: llHdr, Body: llBody}
		if b.ll.Want, err = litellmAnswer(b.ll); err != nil {
			return fmt.Errorf("litellm: %w", err)
		}
	}
	return nil
}

// preflight sends body once straight to the strict fake OpenAI upstream
// and once through the gateway to it, and returns the fake's answer. It
// fails unless both are accepted (200, no rule broken) and the fake
// received through the gateway the very bytes sent.
func preflight(body []byte, specsDir string) ([]byte, error) {
	if specsDir == "" {
		shared := os.Getenv("TOOLERR_SHARED")
		if shared == "" {
			shared = filepath.Join("..", "..", "shared")
		}
		specsDir = filepath.Join(shared, "specs")
	}
	specs, err := fake.LoadSpecs(specsDir)
	if err != nil {
		return nil, err
	}
	strict := fake.New(fake.OpenAI, specs)
	srv, url, err := serve(strict)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	g, err := gateway.New(gateway.Config{Upstreams: map[string]string{gateway.FamilyOpenAI: url}, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		return nil, err
	}
	gsrv, gurl, err := serve(g)
	if err != nil {
		return nil, err
	}
	defer gsrv.Close()
	var answer []byte
	for _, base := range []string{url, gurl} {
		status, got, err := post(base+"/v1/chat/completions", benchHeader, body)
		if err != nil {
			return nil, err
		}
		hits := strict.Hits()
		last := hits[len(hits)-1]
		if last.Rejection != nil {
			return nil, fmt.Errorf("the strict fake rejected the fixture (%s): %s", last.Rejection.Rule, last.Rejection.Message)
		}
		if status != http.StatusOK {
			return nil, fmt.Errorf("the fixture got %d: %s", status, got)
		}
		if !bytes.Equal(last.Body, body) {
			return nil, errors.New("the gateway changed the fixture on its way (the request op should find nothing to change)")
		}
		if answer != nil && !bytes.Equal(got, answer) {
			return nil, errors.New("the gateway's answer differs from the upstream's")
		}
		answer = got
	}
	if specs == nil {
		fmt.Fprintln(os.Stderr, "gatewaybench: no vendor specs at", specsDir, "- the fixture was checked against the fake's encoded rules only")
	}
	return answer, nil
}

// benchHeader is the header of every request to the upstream and the
// gateway: JSON, and a placeholder key (the fake upstreams check only that
// one is there).
var benchHeader = http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer sk-bench-placeholder"}}

// post sends body to url once with header and returns the status and the
// whole response body.
func post(url string, header http.Header, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = header.Clone()
	resp, err := loadgen.Client(1).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	return resp.StatusCode, got, err
}

// litellmAnswer sends t's request once and returns the proxy's answer
// after checking it is a chat.completion.
func litellmAnswer(t *loadgen.Target) ([]byte, error) {
	status, got, err := post(t.URL, t.Header, t.Body)
	if err != nil {
		return nil, err
	}
	var v struct {
		Object string `json:"object"`
	}
	if status != http.StatusOK || json.Unmarshal(got, &v) != nil || v.Object != "chat.completion" {
		return nil, fmt.Errorf("the proxy answered %d: %.300s", status, got)
	}
	return nil, nil // the proxy writes its own id and timestamps: only the status is checked under load
}

// The goals of issue 10 the report checks.
const (
	goalAddedP50 = 500 * time.Microsecond // the gateway's added p50, at either concurrency
	flatSlack    = 0.10                   // memory is flat when it grows by at most this share once warm
)

// measure runs every phase and writes the report; failed is true when any
// run had an error.
func (b *bench) measure() (failed bool) {
	ctx := context.Background()
	b.printf("## toolerr-gateway: added latency and memory\n\n")
	p, _ := core.PrepareRequest(core.FormatOpenAIChat, b.body, core.TranscriptOptions{})
	b.printf("Request: %s, %d bytes compact (%d messages, %d tool calls); the request op changed it: %v. Upstream answer: %d bytes. %s, GOMAXPROCS %d, %d CPUs, load average at start %s.\n\n",
		filepath.Base(b.o.fixture), len(b.body), countMessages(b.body), countCalls(b.body), p.Changed, len(b.answer), runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), loadAverage())

	// At concurrency 1 the in-process handler runs beside the binary (the
	// difference is the cost of a process of its own); at 64 it would take
	// the binary's CPU, so only direct and the binary run.
	// A baseline binary runs beside the binary in both.
	var added [2]time.Duration
	runs := []struct {
		conc, rounds int
		targets      []loadgen.Target
	}{{1, b.o.rounds1, []loadgen.Target{b.direct, b.gw, b.inproc}}, {64, b.o.rounds64, []loadgen.Target{b.direct, b.gw}}}
	if b.base != nil {
		for i := range runs {
			runs[i].targets = append(runs[i].targets, *b.base)
		}
	}
	for i, c := range runs {
		opts := loadgen.Options{Concurrency: c.conc, Duration: b.o.maxDuration}
		warm := opts
		warm.Requests = max(200, c.rounds/20)
		b.check(loadgen.Interleave(ctx, loadgen.Client(c.conc), c.targets, warm))
		opts.Requests = c.rounds
		cpu0 := b.binariesCPU()
		res := b.check(loadgen.Interleave(ctx, loadgen.Client(c.conc), c.targets, opts))
		cpu1 := b.binariesCPU()
		added[i] = b.latencyTable(res, c.conc)
		if len(res.Latency) > 0 && len(res.Latency[0]) > 0 {
			n := time.Duration(len(res.Latency[0]))
			b.printf("CPU time (user + system, /proc/<pid>/stat) per request over this run: toolerr-gateway %s", us((cpu1[0]-cpu0[0])/n))
			if b.baseBin != nil {
				b.printf(", the baseline %s", us((cpu1[1]-cpu0[1])/n))
			}
			b.printf(".\n\n")
		}
	}

	b.printf("### Memory of the toolerr-gateway process over %d requests at concurrency 64 (after %d of warm-up)\n\n", b.o.load, b.o.warmup)
	mem := b.memoryRun(ctx)
	b.printf("### Throughput at concurrency 64\n\n| target | requests | throughput | p50 | p99 | upstream connections opened |\n|---|---|---|---|---|---|\n")
	before := b.upConns.Load()
	direct := b.check(loadgen.Load(ctx, loadgen.Client(64), b.direct, loadgen.Options{Concurrency: 64, Requests: b.o.load / 4, Duration: b.o.maxDuration}))
	b.throughputRow(direct, b.upConns.Load()-before)
	b.throughputRow(mem.res, mem.conns)
	if n, err := scrapeRequests(b.binURL); err != nil {
		b.printf("\n/metrics: %v\n", err)
		b.errs++
	} else {
		b.printf("\nThe binary's /metrics: %s{route=\"chat_completions\",status=\"200\"} = %d (every request it answered, warm-ups included).\n\n", gateway.MetricRequests, n)
	}

	b.printf("### Goals\n\n")
	for i, conc := range []int{1, 64} {
		b.printf("- added p50 at concurrency %d: %s (goal <= %s): **%s**\n", conc, ms(added[i]), ms(goalAddedP50), verdict(added[i] <= goalAddedP50))
	}
	b.printf("- memory over %d requests: RSS %s at start, %s after the warm-up, %s peak (VmHWM), %s at the end; growth once warm %+.1f%% (goal: flat, at most %.0f%%): **%s**\n\n",
		b.o.load, mib(mem.start), mib(mem.warm), mib(mem.peak), mib(mem.end), 100*mem.growth(), 100*flatSlack, verdict(mem.flat()))
	b.printf("Measured on a machine of %d CPUs shared with other work (load average now %s): the client, the fake upstream and the gateway share them. At concurrency 64 the gateway holds up to 64 requests, each needing %s of its CPU, so the added latency is mostly the wait for a CPU, not the work of one request.\n\n", runtime.NumCPU(), loadAverage(), us(mem.cpuPerRequest))

	if b.ll != nil {
		b.litellmRuns(ctx)
	}
	if b.errs > 0 {
		b.printf("\n**%d run(s) had errors**: see above.\n", b.errs)
	}
	return b.errs > 0
}

// binariesCPU reads the CPU time of the binary and of the baseline (0
// when there is none, or on a read error).
func (b *bench) binariesCPU() (cpu [2]time.Duration) {
	for i, p := range []*process{b.bin, b.baseBin} {
		if p != nil {
			cpu[i], _ = loadgen.ReadCPU(p.cmd.Process.Pid)
		}
	}
	return cpu
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "not met"
}

// check records a run's errors in the report and returns the result.
func (b *bench) check(res loadgen.Result, err error) loadgen.Result {
	if err != nil {
		b.printf("\nrun failed: %v\n", err)
		b.errs++
		return res
	}
	if res.Errors > 0 {
		b.printf("\n%d failed request(s) in a run of %v; the first: %v\n\n", res.Errors, res.Targets, res.FirstError)
		b.errs++
	}
	return res
}

// latencyTable writes the percentiles of an interleaved run and returns
// the added p50 of its second target (the binary): its p50 minus the
// first's (direct).
func (b *bench) latencyTable(res loadgen.Result, conc int) (added time.Duration) {
	if len(res.Latency) < 2 || len(res.Latency[0]) == 0 {
		return 0
	}
	n := len(res.Latency[0])
	b.printf("### Latency at concurrency %d (%d interleaved rounds in %.1f s)\n\n", conc, n, res.Elapsed.Seconds())
	b.printf("| target | p50 | p90 | p99 | p99.9 | mean | added p50 | added p99 | paired diff p50 | paired diff p90 | paired diff p99 |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	base := loadgen.Summarize(res.Latency[0])
	for t, name := range res.Targets {
		s := loadgen.Summarize(res.Latency[t])
		if t == 0 {
			b.printf("| %s | %s | %s | %s | %s | %s | | | | | |\n", name, ms(s.P50), ms(s.P90), ms(s.P99), ms(s.P999), ms(s.Mean))
			continue
		}
		if t == 1 {
			added = s.P50 - base.P50
		}
		d := loadgen.Summarize(res.Diff(t, 0))
		b.printf("| %s | %s | %s | %s | %s | %s | **%s** | %s | %s | %s | %s |\n", name, ms(s.P50), ms(s.P90), ms(s.P99), ms(s.P999), ms(s.Mean),
			ms(s.P50-base.P50), ms(s.P99-base.P99), ms(d.P50), ms(d.P90), ms(d.P99))
	}
	b.printf("\nadded pX: the target's pX minus direct's pX; paired diff: the percentiles of (target - direct) within each round.\n\n")
	return added
}

// memory is what memoryRun read of the binary's resident set, in bytes.
type memory struct {
	start, warm, peak, end int64
	// firstHalf and secondHalf are the largest samples of each half of
	// the load after the warm-up.
	firstHalf, secondHalf int64
	res                   loadgen.Result
	conns                 int64         // upstream connections opened during the load
	cpuPerRequest         time.Duration // the binary's CPU time (user + system) over the load, per request
}

// growth is how much the resident set grew once warm: the largest sample
// of the load's second half (or the end, if larger) over the largest of
// its first half, minus one.
func (m memory) growth() float64 {
	if m.firstHalf <= 0 {
		return 0
	}
	return float64(max(m.secondHalf, m.end))/float64(m.firstHalf) - 1
}

// flat is true when the memory grew by at most flatSlack once warm.
func (m memory) flat() bool { return m.firstHalf > 0 && m.growth() <= flatSlack }

// memoryRun sends the warm-up and then the load to the binary at
// concurrency 64, sampling its resident set every 100 ms, and writes the
// samples, one per tenth of the load.
func (b *bench) memoryRun(ctx context.Context) memory {
	pid := b.bin.cmd.Process.Pid
	read := func() loadgen.Memory {
		m, err := loadgen.ReadMemory(pid)
		if err != nil {
			b.printf("\nreading the memory of pid %d: %v\n", pid, err)
			b.errs++
		}
		return m
	}
	var m memory
	m.start = read().RSS
	opts := loadgen.Options{Concurrency: 64, Requests: b.o.warmup, Duration: b.o.maxDuration}
	b.check(loadgen.Load(ctx, loadgen.Client(64), b.gw, opts))
	m.warm = read().RSS

	var done atomic.Int64
	type sample struct {
		done int64
		rss  int64
	}
	var samples []sample
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if mm, err := loadgen.ReadMemory(pid); err == nil {
					samples = append(samples, sample{done.Load(), mm.RSS})
				}
			}
		}
	}()
	opts.Requests = b.o.load
	opts.Every = 100
	opts.Progress = func(n int) { done.Store(int64(n)) }
	before := b.upConns.Load()
	cpu0, err0 := loadgen.ReadCPU(pid)
	m.res = b.check(loadgen.Load(ctx, loadgen.Client(64), b.gw, opts))
	cpu1, err1 := loadgen.ReadCPU(pid)
	m.conns = b.upConns.Load() - before
	if n := len(m.res.Latency); err0 == nil && err1 == nil && n > 0 && len(m.res.Latency[0]) > 0 {
		m.cpuPerRequest = (cpu1 - cpu0) / time.Duration(len(m.res.Latency[0]))
	}
	close(stop)
	<-sampled
	last := read()
	m.end, m.peak = last.RSS, last.Peak

	// The largest sample of each tenth of the load, and of each half.
	tenth := int64(max(1, b.o.load/10))
	var tenths [10]int64
	for _, s := range samples {
		i := min(int(s.done/tenth), 9)
		tenths[i] = max(tenths[i], s.rss)
		if s.done < int64(b.o.load/2) {
			m.firstHalf = max(m.firstHalf, s.rss)
		} else {
			m.secondHalf = max(m.secondHalf, s.rss)
		}
	}
	b.printf("The process's RSS once ready, before any request: %.1f MiB; at the start of this run (after the latency runs): %.1f MiB.\n\n", mb(b.launchRSS), mb(m.start))
	b.printf("| | at start | after the warm-up | 1st tenth | 2nd | 3rd | 4th | 5th | 6th | 7th | 8th | 9th | 10th | at the end | peak (VmHWM) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n| RSS, MiB | %.1f | %.1f |", mb(m.start), mb(m.warm))
	for _, v := range tenths {
		b.printf(" %.1f |", mb(v))
	}
	b.printf(" %.1f | %.1f |\n\n", mb(m.end), mb(m.peak))
	b.printf("%d samples, every 100 ms; a tenth's figure is its largest sample. The load took %.1f s; toolerr-gateway used %s of CPU (user + system, /proc/<pid>/stat) per request.\n\n", len(samples), m.res.Elapsed.Seconds(), us(m.cpuPerRequest))
	return m
}

func (b *bench) throughputRow(res loadgen.Result, conns int64) {
	if len(res.Latency) == 0 {
		return
	}
	s := loadgen.Summarize(res.Latency[0])
	b.printf("| %s | %d in %.1f s | %.0f req/s | %s | %s | %d |\n", res.Targets[0], s.N, res.Elapsed.Seconds(), res.Throughput(0), ms(s.P50), ms(s.P99), conns)
}

// litellmRuns measures the LiteLLM proxy beside the binary (or the
// in-process handler): latency interleaved at concurrency 1, throughput at
// concurrency 64.
func (b *bench) litellmRuns(ctx context.Context) {
	ours := b.gw
	pair := []loadgen.Target{b.direct, ours, *b.ll}
	b.printf("### Beside the LiteLLM proxy (same upstream, same request)\n\n")
	rounds := max(200, b.o.litellmLoad/10)
	b.check(loadgen.Interleave(ctx, loadgen.Client(1), pair, loadgen.Options{Concurrency: 1, Requests: 50, Duration: b.o.maxDuration}))
	res := b.check(loadgen.Interleave(ctx, loadgen.Client(1), pair, loadgen.Options{Concurrency: 1, Requests: rounds, Duration: b.o.maxDuration}))
	b.latencyTable(res, 1)
	b.printf("| target | requests at concurrency 64 | throughput | p50 | p99 |\n|---|---|---|---|---|\n")
	var rps [2]float64
	for i, t := range []loadgen.Target{ours, *b.ll} {
		r := b.check(loadgen.Load(ctx, loadgen.Client(64), t, loadgen.Options{Concurrency: 64, Requests: b.o.litellmLoad, Duration: b.o.maxDuration}))
		if len(r.Latency) == 0 {
			continue
		}
		s := loadgen.Summarize(r.Latency[0])
		rps[i] = r.Throughput(0)
		b.printf("| %s | %d in %.1f s | %.0f req/s | %s | %s |\n", t.Name, s.N, r.Elapsed.Seconds(), rps[i], ms(s.P50), ms(s.P99))
	}
	if rps[1] > 0 {
		b.printf("\ntoolerr-gateway / LiteLLM throughput at concurrency 64: **%.1fx** (goal >= 10x): **%s**\n\n", rps[0]/rps[1], verdict(rps[0] >= 10*rps[1]))
	}
}

// scrapeRequests reads the binary's count of chat_completions requests
// answered 200 from /metrics.
func scrapeRequests(base string) (int64, error) {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	prefix := gateway.MetricRequests + `{route="chat_completions",status="200"} `
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			f, err := strconv.ParseFloat(v, 64)
			return int64(f), err
		}
	}
	return 0, fmt.Errorf("no %s line in /metrics", prefix)
}

func countMessages(body []byte) int {
	var v struct {
		Messages []json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(body, &v)
	return len(v.Messages)
}

func countCalls(body []byte) int {
	var v struct {
		Messages []struct {
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &v)
	n := 0
	for _, m := range v.Messages {
		n += len(m.ToolCalls)
	}
	return n
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/1e6) }

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/1e3) }

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", mb(n)) }

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// loadAverage is the 1-, 5- and 15-minute load averages of the machine
// (/proc/loadavg), "?" when unreadable: how busy the shared CPUs were.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(raw)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// serve serves h on a free loopback port and returns the server and its
// base URL.
func serve(h http.Handler) (*http.Server, string, error) {
	return serveCounting(h, nil)
}

// serveCounting is serve, counting in conns (when not nil) every
// connection the server accepts.
func serveCounting(h http.Handler, conns *atomic.Int64) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	if conns != nil {
		srv.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
	}
	go func() { _ = srv.Serve(ln) }()
	return srv, "http://" + ln.Addr().String(), nil
}

// freeAddr returns a loopback address no one listens on now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// process is a program gatewaybench started, in a process group of its
// own.
type process struct {
	cmd  *exec.Cmd
	done chan error
	log  *os.File
}

// launch starts argv with env added, its output to logPath, and waits until
// readyURL answers 200 or timeout passes.
func launch(argv, env []string, logPath, readyURL string, timeout time.Duration) (*process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	p := &process{cmd: cmd, done: make(chan error, 1), log: log}
	go func() { p.done <- cmd.Wait() }()
	c := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.done:
			p.done <- err
			log.Close()
			return nil, fmt.Errorf("exited before it was ready (%v); see %s", err, logPath)
		default:
		}
		if resp, err := c.Get(readyURL); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	p.stop()
	return nil, fmt.Errorf("not ready at %s after %v; see %s", readyURL, timeout, logPath)
}

// stop sends SIGTERM to the process group of the process started (by its
// pid), waits up to 10 s, then SIGKILL.
func (p *process) stop() {
	if p == nil {
		return
	}
	pid := p.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-p.done
	}
	p.log.Close()
}

func (b *bench) stop() {
	b.litellm.stop()
	b.baseBin.stop()
	b.bin.stop()
	for _, s := range []*http.Server{b.inprocSrv, b.upstream} {
		if s != nil {
			_ = s.Close()
		}
	}
}
