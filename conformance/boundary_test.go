package conformance

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// wasmTarget is a wasm runtime's instance of toolerr.wasm.
type wasmTarget interface {
	Target
	wasmABI
	InvokeLen(req []byte, n uint32) ([]byte, error)
	MemoryBytes() int
	ABIVersion() (uint32, error)
}

var (
	_ wasmTarget = (*Wazero)(nil)
	_ wasmTarget = (*Wasmtime)(nil)
)

// wasmTargets opens a fresh instance under each wasm runtime.
func wasmTargets(t *testing.T) []wasmTarget {
	var out []wasmTarget
	for _, mk := range builtinTargets() {
		if mk.name == "wazero" || mk.name == "wasmtime" {
			out = append(out, mk.open(t).(wasmTarget))
		}
	}
	return out
}

// invalidInput is the INVALID_INPUT response core gives a request that is
// not parsed at all: its message and details.
func invalidInput(details, message string) string {
	return `{"error":{"code":"INVALID_INPUT","details":` + details + `,"message":"` + message + `","retryable":false,"source":"orchestrator"}}`
}

func tooLarge(n uint64) string {
	return invalidInput(`{"bound":"request_bytes","count":`+strconv.FormatUint(n, 10)+`,"limit":33554432,"path":""}`, "toolerr: request is "+strconv.FormatUint(n, 10)+" bytes; the limit is 33554432.")
}

func nested(depth int) []byte {
	return []byte(`{"op":"canonicalize","value":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
}

// TestBoundary_badInput sends every kind of bad or extreme input through every
// target: each answers with the same bytes as core.Invoke, a structured
// response, never a trap or a crash.
func TestBoundary_badInput(t *testing.T) {
	megabyte := strings.Repeat("é", 1<<19) // 1 MiB of UTF-8 text
	tests := []struct {
		name string
		req  []byte
		want string // "" when only "same as native" is checked
	}{
		{"zero length", nil, invalidInput(`{"offset":0,"path":""}`, "toolerr: request is not valid JSON: empty input.")},
		{"not JSON", []byte("\x00\xffGIF89a"), ""},
		{"a UTF-8 byte-order mark first", []byte("\xEF\xBB\xBF{\"op\":\"version\"}"), invalidInput(`{"offset":0,"path":""}`, "toolerr: request is not valid JSON: invalid byte 0xEF (a UTF-8 byte-order mark, U+FEFF) looking for a value.")},
		{"a byte-order mark on spliced text", []byte("{\"op\":\"check\",\"format\":\"anthropic\",\"messages\":\xEF\xBB\xBF[],\"raw_len\":5}"), invalidInput(`{"offset":46,"path":"messages"}`, "toolerr: messages: must be exactly one JSON value: invalid byte 0xEF (a UTF-8 byte-order mark, U+FEFF) looking for a value.")},
		{"a non-ASCII byte for a value", []byte("{\"op\":\"canonicalize\",\"value\":\xC3\xA9}"), invalidInput(`{"offset":29,"path":""}`, "toolerr: request is not valid JSON: invalid byte 0xC3 looking for a value.")},
		{"a non-ASCII byte escaped", []byte("{\"op\":\"canonicalize\",\"value\":\"\\\xC3\xA9\"}"), invalidInput(`{"offset":32,"path":""}`, "toolerr: request is not valid JSON: invalid escape byte 0xC3.")},
		{"not an object", []byte(`"op"`), invalidInput(`{"path":""}`, "toolerr: request must be a JSON object, got string.")},
		{"raw invalid UTF-8 in a string", []byte("{\"op\":\"canonicalize\",\"value\":\"a\xffb\xc3\"}"), "{\"ok\":\"a\uFFFDb\uFFFD\"}"},
		{"raw invalid UTF-8 in a key", []byte("{\"op\":\"canonicalize\",\"value\":{\"\xed\xa0\x80\":1}}"), "{\"ok\":{\"\uFFFD\uFFFD\uFFFD\":1}}"},
		{"64 MiB request", bytes.Repeat([]byte(" "), 64<<20), tooLarge(64 << 20)},
		{"exactly MaxRequestBytes", append(append([]byte(`{"op":"version"}`), bytes.Repeat([]byte(" "), core.MaxRequestBytes-18)...), "\n\n"...), `{"ok":{"abi":1,"version":"0.1.0"}}`},
		{"1 MiB of text", []byte(`{"op":"canonicalize","value":"` + megabyte + `"}`), `{"ok":"` + megabyte + `"}`},
		{"nesting at the limit", nested(511), `{"ok":` + strings.Repeat("[", 511) + strings.Repeat("]", 511) + `}`},
		{"nesting 100000 deep", nested(100000), invalidInput(`{"bound":"depth","count":513,"limit":512,"offset":540,"path":""}`, "toolerr: request nests arrays and objects deeper than 512 levels (the limit).")},
	}
	targets := availableTargets(t)
	defer func() {
		for _, tg := range targets {
			tg.Close()
		}
	}()
	for _, tc := range tests {
		native := core.Invoke(tc.req)
		if tc.want != "" {
			require.Equal(t, tc.want, string(native), "%s: native", tc.name)
		}
		assert.True(t, bytes.HasPrefix(native, []byte(`{"ok":`)) || bytes.HasPrefix(native, []byte(`{"error":{"code":"INVALID_INPUT"`)), "%s: %.200s", tc.name, native)
		for _, tg := range targets {
			t.Run(tg.Name()+"/"+tc.name, func(t *testing.T) {
				got, err := tg.Invoke(tc.req)
				require.NoError(t, err)
				if !bytes.Equal(got, native) {
					t.Error(Mismatch(tc.name, tg.Name(), got, native))
				}
			})
		}
	}
}

// TestBoundary_wasmLengths calls the wasm exports the way a faulty host
// might: lengths that do not match the buffer, unknown pointers, bad sizes.
func TestBoundary_wasmLengths(t *testing.T) {
	for _, w := range wasmTargets(t) {
		t.Run(w.Name(), func(t *testing.T) {
			defer w.Close()
			v, err := w.ABIVersion()
			require.NoError(t, err)
			assert.Equal(t, uint32(core.ABIVersion), v)

			req := []byte(`{"op":"version"}trailing bytes the length leaves out`)
			got, err := w.InvokeLen(req, 16)
			require.NoError(t, err)
			assert.Equal(t, `{"ok":{"abi":1,"version":"0.1.0"}}`, string(got), "a length shorter than the buffer")

			for _, n := range []uint32{1 << 31, 1<<32 - 1, core.MaxRequestBytes + 1} {
				got, err = w.InvokeLen(req, n)
				require.NoError(t, err)
				assert.Equal(t, tooLarge(uint64(n)), string(got), "length %d over a %d-byte buffer", n, len(req))
			}
			got, err = w.InvokeLen(req, 1<<20)
			require.NoError(t, err)
			assert.Equal(t, invalidInput(`{"offset":0,"path":""}`, "toolerr: request is not valid JSON: empty input."), string(got), "a length past the buffer reads as empty")

			for _, size := range []int32{0, -1, -1 << 31, 4*core.MaxRequestBytes + 1} {
				p, err := w.alloc(size)
				require.NoError(t, err)
				assert.Zero(t, p, "toolerr_alloc(%d)", size)
			}
			for _, p := range []int32{0, 8, 1 << 20, -4} {
				require.NoError(t, w.free(p), "toolerr_free(%d) of an unknown pointer", p)
			}
			res, err := w.invoke(1<<20, 10)
			require.NoError(t, err)
			out := w.memory()[uint32(uint64(res)>>32) : uint32(uint64(res)>>32)+uint32(res)]
			assert.Equal(t, invalidInput(`{"offset":0,"path":""}`, "toolerr: request is not valid JSON: empty input."), string(out), "an unknown pointer reads as empty")
			require.NoError(t, w.free(int32(uint64(res)>>32)))
		})
	}
}

// TestBoundary_cLengths calls the C exports the way a faulty caller might.
func TestBoundary_cLengths(t *testing.T) {
	c := cshared(t)
	assert.Equal(t, uint32(core.ABIVersion), c.ABIVersion())
	req := []byte(`{"op":"version"}`)
	got, err := c.InvokeLen(req, 1<<40)
	require.NoError(t, err)
	assert.Equal(t, tooLarge(1<<40), string(got), "a length over the buffer, 1 TiB")
	got, err = c.InvokeLen(req, 1<<63)
	require.NoError(t, err)
	assert.Equal(t, tooLarge(1<<40), string(got), "a length past 1 TiB is reported as 1 TiB")
	got, err = c.InvokeLen(nil, 16)
	require.NoError(t, err)
	assert.Equal(t, invalidInput(`{"offset":0,"path":""}`, "toolerr: request is not valid JSON: empty input."), string(got), "NULL req with a length reads as empty")
	assert.True(t, c.InvokeNilOutLen(req), "out_len NULL returns NULL")
	c.FreeNil()
}

// typicalRequests is the mix the memory test and the benchmarks call.
var typicalRequests = [][]byte{
	[]byte(`{"op":"serialize","format":"openai-chat","call":{"id":"call_abc123","name":"get_weather"},"error":{"code":"RATE_LIMITED","details":{"retry_after_seconds":12,"status":429,"tool":"get_weather"},"message":"The get_weather tool was rate limited (HTTP 429); retry after 12 seconds.","retryable":true,"source":"tool"}}`),
	[]byte(`{"op":"envelope","code":"TIMEOUT","message":"Search timed out after 10 s"}`),
	[]byte(`{"op":"canonicalize","value":{"b":[1.5,"é",1e21],"a":null}}`),
	// codes allocates the most per call: a reactor that never finished a
	// collection grew by gigabytes on it (wasm/main.go yields for that).
	[]byte(`{"op":"codes"}`),
	[]byte(`{"op":`),
}

// rssBytes is this process's resident set size, or 0 where /proc is absent.
func rssBytes() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// settledRSS collects garbage, lets finalizers free their C memory (wasmtime-go
// frees its per-call types that way), returns free pages to the OS, then
// reads the RSS.
func settledRSS() int64 {
	for range 3 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	debug.FreeOSMemory()
	trimCHeap()
	return rssBytes()
}

// TestMemory_flat makes a million calls per target (capped at 120 s
// each) after a warm-up: the wasm linear memory must not grow the way a leak
// grows, and the process RSS stays within a slack. The linear memory is the
// Go heap's highest mark, which moves in steps with what is live when each
// collection ends: on a loaded machine a collection that ends late leaves a
// step of up to 24 pages once in a run (960 KiB after 1.94 million calls in
// a run of 2.5 million at load 14, 1.5 MiB after 980,000 in a CI run at load
// 9; none in 3 million calls under wazero at load 8), while a leak raises
// the live heap, and so the mark, all along. So the run is cut into ten
// spans of calls: the memory may grow in at most two of them and by at most
// 4 MiB in all (a leak of 4 bytes a call over a million calls exceeds it,
// and one of even a byte a call grows the mark in most spans). wasmtime-go
// gets a larger RSS slack: each Func.Call allocates C objects that Go
// finalizers free later, on whichever thread, so glibc's per-thread arenas
// hold more pages for a while (400 000 calls plateau at about +14 MiB; a
// leak of 1 KiB a call would still show).
func TestMemory_flat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the memory test makes up to a million calls per target")
	}
	const (
		maxCalls    = 1_000_000
		maxTime     = 120 * time.Second
		warmup      = 20_000
		rssSlack    = 24 << 20
		rssSlackWT  = 64 << 20
		linearSlack = 4 << 20 // 64 pages
		spans       = 10
		growthSpans = 2 // the spans the linear memory may grow in
	)
	for _, tg := range availableTargets(t) {
		t.Run(tg.Name(), func(t *testing.T) {
			defer tg.Close()
			call := func(i int) {
				if _, err := tg.Invoke(typicalRequests[i%len(typicalRequests)]); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			for i := range warmup {
				call(i)
			}
			w, isWasm := tg.(wasmTarget)
			linear0 := 0
			if isWasm {
				linear0 = w.MemoryBytes()
			}
			rss0 := settledRSS()
			// The spans end at fixed call counts, or early when the time cap
			// is reached (the last span is then shorter).
			const spanCalls = (maxCalls - warmup) / spans
			start, n := time.Now(), warmup
			var marks []int // the linear memory at the end of each span
			for ; n < maxCalls && (n%1024 != 0 || time.Since(start) < maxTime); n++ {
				call(n)
				if isWasm && (n-warmup+1)%spanCalls == 0 {
					marks = append(marks, w.MemoryBytes())
				}
			}
			rss1 := settledRSS()
			t.Logf("%d calls in %v; RSS %d -> %d KiB", n-warmup, time.Since(start).Round(time.Millisecond), rss0>>10, rss1>>10)
			if isWasm {
				linear1 := w.MemoryBytes()
				if len(marks) < spans { // the time cap ended the run inside a span
					marks = append(marks, linear1)
				}
				grew, prev := 0, linear0
				for _, m := range marks {
					if m > prev {
						grew++
					}
					prev = m
				}
				t.Logf("linear memory %d -> %d KiB, grew in %d of %d spans (%v KiB at their ends)", linear0>>10, linear1>>10, grew, len(marks), kib(marks))
				assert.LessOrEqual(t, linear1-linear0, linearSlack, "linear memory grew")
				assert.LessOrEqual(t, grew, growthSpans, "linear memory grew in %d spans of calls, as a leak grows", grew)
			}
			slack := int64(rssSlack)
			if tg.Name() == "wasmtime" {
				slack = rssSlackWT
			}
			assert.Less(t, rss1-rss0, slack, "RSS grew by %d KiB", (rss1-rss0)>>10)
		})
	}
}

// kib is each of bytes in KiB, for the test's log.
func kib(bytes []int) []int {
	out := make([]int, len(bytes))
	for i, b := range bytes {
		out[i] = b >> 10
	}
	return out
}

// TestCShared_concurrent calls toolerr_invoke from many goroutines (so many
// OS threads) at once, as toolerr.h allows: every answer is the native one.
func TestCShared_concurrent(t *testing.T) {
	c := cshared(t)
	want := make([][]byte, len(typicalRequests))
	for i, r := range typicalRequests {
		want[i] = core.Invoke(r)
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 2000 {
				k := (g + i) % len(typicalRequests)
				got, err := c.Invoke(typicalRequests[k])
				if err == nil && !bytes.Equal(got, want[k]) {
					err = errors.New(Mismatch("typical request "+strconv.Itoa(k), "cshared", got, want[k]))
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		require.NoError(t, <-errs)
	}
}

// hostBuffersAnswer is toolerr_invoke's answer while the buffers the host
// has not freed pass 2.25 GiB (wasm/main.go maxLive).
var hostBuffersAnswer = invalidInput(`{"bound":"host_buffers","limit":2415919104,"path":""}`, "toolerr: the host holds more than 2415919104 bytes of buffers it has not freed (toolerr_free), the limit; free them before the next call.")

// TestBoundary_wasmHostBuffers: a host that allocates and never frees is
// told so, never trapped. toolerr_alloc of 128 MiB, 31 times unfreed, ran
// the Go runtime out of wasm32's 4 GiB ("unreachable"; the instance closed
// with exit code 4, every later call failing); now toolerr_alloc answers 0
// once the unfreed buffers would pass 2.25 GiB, and toolerr_invoke answers
// INVALID_INPUT (one static buffer, allocating nothing) while they do.
func TestBoundary_wasmHostBuffers(t *testing.T) {
	for _, w := range wasmTargets(t) {
		t.Run(w.Name(), func(t *testing.T) {
			defer w.Close()
			var bufs []int32
			for range 40 {
				p, err := w.alloc(128 << 20)
				require.NoError(t, err, "toolerr_alloc(128 MiB) after %d unfreed", len(bufs))
				if p == 0 {
					break
				}
				bufs = append(bufs, p)
			}
			require.Len(t, bufs, 18, "128 MiB buffers handed out before toolerr_alloc answered 0")
			p, err := w.alloc(1)
			require.NoError(t, err)
			assert.Zero(t, p, "toolerr_alloc(1) at the limit")

			call := func() (int32, string) {
				copy(w.memory()[bufs[0]:], `{"op":"version"}`)
				res, err := w.invoke(bufs[0], 16)
				require.NoError(t, err)
				ptr, n := uint32(uint64(res)>>32), uint32(res)
				return int32(ptr), string(w.memory()[ptr : ptr+n])
			}
			ptr, got := call() // at exactly 2.25 GiB the call runs; its answer passes the limit
			assert.Equal(t, `{"ok":{"abi":1,"version":"0.1.0"}}`, got)
			for range 3 {
				refused, got := call()
				assert.Equal(t, hostBuffersAnswer, got)
				require.NoError(t, w.free(refused), "freeing the static answer is a no-op")
			}
			require.NoError(t, w.free(ptr))
			_, got = call()
			assert.Equal(t, `{"ok":{"abi":1,"version":"0.1.0"}}`, got, "after a toolerr_free")
			for _, p := range bufs {
				require.NoError(t, w.free(p))
			}
			got2, err := w.Invoke([]byte(`{"op":"version"}`))
			require.NoError(t, err)
			assert.Equal(t, `{"ok":{"abi":1,"version":"0.1.0"}}`, string(got2), "after every buffer was freed")
		})
	}
}
