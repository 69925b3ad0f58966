// Package loadgen sends one fixed HTTP request to one or more targets over
// keep-alive connections (net/http) and records the client-side latency of
// every request: from the moment the request is handed to the client to the
// last byte of its response body read.
//
// Two kinds of run:
//
//   - Interleave sends the same request to every target in turn, one round
//     per ticket, the starting target rotating from round to round, so that
//     every target meets the same load, the same moment and the same noise;
//     the latencies of one round are paired (Result.Diff).
//   - Load sends the request to one target only, as fast as the workers go,
//     for throughput and for the memory of a long run.
//
// Every response must have the expected status and body, byte for byte (or
// only the status, for a target whose answers differ every time): a
// run that gets anything else counts it in Errors and keeps the first error
// for the report.
package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Target is one endpoint the request goes to.
type Target struct {
	// Name labels the target in reports ("direct", "gateway").
	Name string
	// URL is the request's absolute URL.
	URL string
	// Header is sent with every request (Content-Type and the credentials).
	Header http.Header
	// Body is the request body; the same bytes every time.
	Body []byte
	// Want is the response body expected, byte for byte (nil: any body),
	// with WantStatus (0 means 200).
	Want       []byte
	WantStatus int
}

// Options bound a run. A run stops at whichever of Requests and Duration
// comes first; at least one must be set.
type Options struct {
	// Concurrency is the number of workers, each with its requests in
	// sequence (so at most Concurrency requests are in flight per target
	// for Load, and Concurrency in all for Interleave).
	Concurrency int
	// Requests is the number of tickets: requests for Load, rounds (one
	// request to every target) for Interleave. 0: no count bound.
	Requests int
	// Duration bounds the run's time. 0: no time bound.
	Duration time.Duration
	// Progress, when not nil, is called with the number of tickets done
	// each time another Every tickets are done (from a worker goroutine;
	// keep it short).
	Progress func(done int)
	Every    int
}

// Result is what a run recorded.
type Result struct {
	// Targets names the targets, in the order given.
	Targets []string
	// Latency[t][i] is the latency of ticket i's request to target t
	// (tickets in completion order). Rounds with an error are left out
	// of every target, so the rows stay paired.
	Latency [][]time.Duration
	// Elapsed is the wall time of the run.
	Elapsed time.Duration
	// Errors counts the requests that failed or answered other than
	// expected; FirstError is the first of them.
	Errors     int
	FirstError error
}

// Client returns an HTTP client for concurrency workers: keep-alive, one
// idle connection per worker kept per host (net/http keeps 2 by
// default, which would close and reopen connections under load), no
// compression asked (the body is read as it comes), no proxy from the
// environment (every target is on loopback), and a 2-minute bound on a
// request that bounds a stuck one, not a slow one: on a shared machine
// under heavy load a request of the long tail may wait many seconds for a
// CPU, which the percentiles should show rather than the run fail.
func Client(concurrency int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        2 * concurrency,
		MaxIdleConnsPerHost: concurrency,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}, Timeout: 2 * time.Minute}
}

// Interleave runs opts.Requests rounds (or for opts.Duration), each round
// one request to every target in turn, the first target of round k being
// targets[k mod len(targets)].
func Interleave(ctx context.Context, c *http.Client, targets []Target, opts Options) (Result, error) {
	return run(ctx, c, targets, opts)
}

// Load runs opts.Requests requests to t (or for opts.Duration).
func Load(ctx context.Context, c *http.Client, t Target, opts Options) (Result, error) {
	return run(ctx, c, []Target{t}, opts)
}

func run(ctx context.Context, c *http.Client, targets []Target, opts Options) (Result, error) {
	if len(targets) == 0 {
		return Result{}, errors.New("loadgen: no target")
	}
	if opts.Concurrency < 1 {
		return Result{}, fmt.Errorf("loadgen: concurrency %d; want at least 1", opts.Concurrency)
	}
	if opts.Requests <= 0 && opts.Duration <= 0 {
		return Result{}, errors.New("loadgen: neither Requests nor Duration bounds the run")
	}
	if opts.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Duration)
		defer cancel()
	}
	n := len(targets)
	res := Result{Targets: make([]string, n), Latency: make([][]time.Duration, n)}
	for i, t := range targets {
		res.Targets[i] = t.Name
		if opts.Requests > 0 {
			res.Latency[i] = make([]time.Duration, 0, opts.Requests)
		}
	}
	var (
		tickets atomic.Int64
		done    atomic.Int64
		mu      sync.Mutex
		wg      sync.WaitGroup
	)
	start := time.Now()
	for w := 0; w < opts.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 4096)
			round := make([]time.Duration, n)
			for ctx.Err() == nil {
				k := tickets.Add(1) - 1
				if opts.Requests > 0 && k >= int64(opts.Requests) {
					return
				}
				var err error
				for j := 0; j < n && err == nil; j++ {
					t := (int(k) + j) % n
					round[t], buf, err = once(ctx, c, &targets[t], buf)
				}
				mu.Lock()
				if err != nil {
					if ctx.Err() == nil { // a request cut by the end of the run is no error
						res.Errors++
						if res.FirstError == nil {
							res.FirstError = err
						}
					}
				} else {
					for t := range round {
						res.Latency[t] = append(res.Latency[t], round[t])
					}
				}
				mu.Unlock()
				if d := done.Add(1); opts.Progress != nil && opts.Every > 0 && d%int64(opts.Every) == 0 {
					opts.Progress(int(d))
				}
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	return res, nil
}

// once sends one request and reads its response whole; buf is reused for
// the body.
func once(ctx context.Context, c *http.Client, t *Target, buf []byte) (time.Duration, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(t.Body))
	if err != nil {
		return 0, buf, err
	}
	for k, v := range t.Header {
		req.Header[k] = v
	}
	req.ContentLength = int64(len(t.Body))
	begin := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, buf, fmt.Errorf("%s: %w", t.Name, err)
	}
	buf, err = readAll(resp.Body, buf[:0])
	_ = resp.Body.Close()
	d := time.Since(begin)
	if err != nil {
		return 0, buf, fmt.Errorf("%s: reading the response: %w", t.Name, err)
	}
	want := t.WantStatus
	if want == 0 {
		want = http.StatusOK
	}
	if resp.StatusCode != want || (t.Want != nil && !bytes.Equal(buf, t.Want)) {
		return 0, buf, fmt.Errorf("%s: got status %d and a %d-byte body, want %d and the expected %d bytes: %.300q", t.Name, resp.StatusCode, len(buf), want, len(t.Want), buf)
	}
	return d, buf, nil
}

// readAll appends r's bytes to buf, as io.ReadAll does into a buffer of
// its own.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// Throughput is the requests per second of target t over the run
// (successful requests / Elapsed).
func (r Result) Throughput(t int) float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(len(r.Latency[t])) / r.Elapsed.Seconds()
}

// Diff returns, for every round, the latency of target t minus that of
// target base in the same round: the paired distribution of what t adds.
func (r Result) Diff(t, base int) []time.Duration {
	d := make([]time.Duration, len(r.Latency[t]))
	for i := range d {
		d[i] = r.Latency[t][i] - r.Latency[base][i]
	}
	return d
}

// Stats are the order statistics of a set of durations.
type Stats struct {
	N                              int
	Mean, P50, P90, P99, P999, Max time.Duration
	Min                            time.Duration
}

// Summarize returns the statistics of d (left as it is): each percentile
// the nearest-rank value (the smallest value with at least p% of the set
// at or below it). An empty set gives zero Stats.
func Summarize(d []time.Duration) Stats {
	if len(d) == 0 {
		return Stats{}
	}
	d = slices.Clone(d)
	slices.Sort(d)
	var sum time.Duration
	for _, v := range d {
		sum += v
	}
	return Stats{N: len(d), Mean: sum / time.Duration(len(d)), Min: d[0], Max: d[len(d)-1],
		P50: Percentile(d, 50), P90: Percentile(d, 90), P99: Percentile(d, 99), P999: Percentile(d, 99.9)}
}

// Percentile is the nearest-rank p-th percentile (0 < p <= 100) of sorted,
// which must be sorted ascending and not empty.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}
