package loadgen

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

func ms(n ...int) []time.Duration {
	d := make([]time.Duration, len(n))
	for i, v := range n {
		d[i] = time.Duration(v) * time.Millisecond
	}
	return d
}

// TestSummarize: nearest-rank percentiles (the smallest value with at least
// p% of the set at or below it), the input left unsorted.
func TestSummarize(t *testing.T) {
	in := ms(10, 1, 9, 2, 8, 3, 7, 4, 6, 5)
	s := Summarize(in)
	if s.N != 10 || s.Min != ms(1)[0] || s.Max != ms(10)[0] || s.P50 != ms(5)[0] || s.P90 != ms(9)[0] || s.P99 != ms(10)[0] || s.Mean != 5500*time.Microsecond {
		t.Fatalf("Summarize = %+v", s)
	}
	if in[0] != ms(10)[0] {
		t.Fatal("Summarize sorted its input")
	}
	if got := Summarize(nil); got != (Stats{}) {
		t.Fatalf("Summarize(nil) = %+v", got)
	}
}

// TestParseStatus reads VmRSS and VmHWM in bytes, and fails without VmRSS.
func TestParseStatus(t *testing.T) {
	m, err := parseStatus([]byte("Name:\tx\nVmHWM:\t   30720 kB\nVmRSS:\t   20480 kB\nThreads:\t5\n"))
	if err != nil || m.RSS != 20<<20 || m.Peak != 30<<20 {
		t.Fatalf("parseStatus = %+v, %v", m, err)
	}
	if _, err := parseStatus([]byte("Name:\tx\n")); err == nil {
		t.Fatal("parseStatus accepted a status without VmRSS")
	}
	if _, err := parseStatus([]byte("VmRSS:\t12 MB\n")); err == nil {
		t.Fatal("parseStatus accepted a unit other than kB")
	}
	self, err := ReadMemory(os.Getpid())
	if err != nil || self.RSS <= 0 || self.Peak < self.RSS {
		t.Fatalf("ReadMemory(self) = %+v, %v", self, err)
	}
}

// TestParseStat adds utime and stime (fields 14 and 15), counting past a
// command name with spaces and parentheses.
func TestParseStat(t *testing.T) {
	raw := "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 75 0 0 20 0 9 0 100 1000000 500 18446744073709551615\n"
	d, err := parseStat([]byte(raw))
	if err != nil || d != 3250*time.Millisecond {
		t.Fatalf("parseStat = %v, %v; want 3.25s", d, err)
	}
	if _, err := parseStat([]byte("4242 (x) S 1 2")); err == nil {
		t.Fatal("parseStat accepted a short stat")
	}
	if _, err := ReadCPU(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

// TestInterleave: every round sends one request to each target, the rows
// stay paired, and a wrong answer counts as an error and drops its round.
func TestInterleave(t *testing.T) {
	var hits [2]atomic.Int64
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/b" {
			hits[1].Add(1)
			if n.Add(1) == 7 { // the 7th request to b answers wrong
				_, _ = io.WriteString(w, "nope")
				return
			}
		} else {
			hits[0].Add(1)
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	targets := []Target{{Name: "a", URL: srv.URL + "/a", Want: []byte("ok")}, {Name: "b", URL: srv.URL + "/b", Want: []byte("ok")}}
	res, err := Interleave(context.Background(), Client(4), targets, Options{Concurrency: 4, Requests: 40})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 1 || res.FirstError == nil {
		t.Fatalf("Errors = %d (%v), want 1", res.Errors, res.FirstError)
	}
	if len(res.Latency[0]) != 39 || len(res.Latency[1]) != 39 || len(res.Diff(1, 0)) != 39 {
		t.Fatalf("rows of %d and %d, want 39 paired", len(res.Latency[0]), len(res.Latency[1]))
	}
	if a, b := hits[0].Load(), hits[1].Load(); b != 40 || a < 39 || a > 40 {
		t.Fatalf("hits a=%d b=%d; want b=40 and a 39 or 40 (a round stops at its first error)", a, b)
	}
	if _, err := Load(context.Background(), Client(1), targets[0], Options{Concurrency: 1}); err == nil {
		t.Fatal("Load ran without a bound")
	}
}
