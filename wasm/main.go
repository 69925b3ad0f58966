//go:build wasip1

// Command wasm is core.Invoke as a WASI reactor module (dist/toolerr.wasm):
// four go:wasmexport functions that move bytes in and out of linear memory.
// The ABI is in cshared/toolerr.h's WASM section and docs/targets.md.
package main

import (
	"runtime"
	"unsafe"

	"github.com/toolerr/toolerr/core"
)

// maxAlloc is the largest buffer toolerr_alloc hands out, in bytes (128 MiB):
// room for requests over MaxRequestBytes, so a host can send an oversized
// request and get core's structured INVALID_INPUT error.
const maxAlloc = 4 * core.MaxRequestBytes

// largeRequest is the request length, in bytes (1 MiB), above which invoke
// collects garbage first.
const largeRequest = 1 << 20

// memoryLimit is the soft limit of the Go heap, in bytes (3 GiB): the core's
// bounds keep a request well under it, and garbage is collected at any cost
// before the heap grows past it.
const memoryLimit = 3 << 30

// live keeps every buffer handed to the host reachable until toolerr_free,
// keyed by its address in linear memory (Go's GC does not move objects).
var live = map[uint32][]byte{}

// liveBytes is the length of the buffers in live.
var liveBytes int64

// maxLive is the most bytes of buffers the host may hold unfreed (2.25 GiB,
// eighteen of the largest toolerr_alloc buffers, so a host may still hold
// over 2 GiB and get pointers past 2^31, which bindings/node's
// unsigned.test.mjs holds): past it toolerr_alloc answers 0 and
// toolerr_invoke answers hostBuffersAnswer while they pass it, so that a
// host that never frees is told so. Without it, 31 unfreed 128 MiB buffers
// ran the Go runtime out of wasm32's 4 GiB: a trap, and every later call
// failed.
const maxLive = 18 * maxAlloc

// hostBuffersAnswer is toolerr_invoke's response while the host holds
// more than maxLive bytes: a static buffer (never in live, so toolerr_free of
// it is a no-op), and nothing allocated to answer.
var hostBuffersAnswer = []byte(`{"error":{"code":"INVALID_INPUT","details":{"bound":"host_buffers","limit":2415919104,"path":""},"message":"toolerr: the host holds more than 2415919104 bytes of buffers it has not freed (toolerr_free), the limit; free them before the next call.","retryable":false,"source":"orchestrator"}}`)

// sink backs the length-only view of a request longer than MaxRequestBytes,
// which core.Invoke refuses without reading a byte.
var sink [1]byte

func main() {}

// Below the 4 GiB where wasm32 memory ends (and the Go runtime dies with
// "out of memory"), the collector works harder instead of growing further.
func init() { setMemoryLimit(memoryLimit) }

// setMemoryLimit is runtime/debug.SetMemoryLimit's body, which the runtime
// provides under that name (runtime/mgcpacer.go). Importing runtime/debug
// itself would link fmt, reflect and os into the module (about 1 MB of code
// and data) for this one call.
//
//go:linkname setMemoryLimit runtime/debug.setMemoryLimit
func setMemoryLimit(limit int64) int64

//go:wasmexport toolerr_abi_version
func abiVersion() int32 { return core.ABIVersion }

//go:wasmexport toolerr_alloc
func alloc(size int32) int32 {
	if size <= 0 || size > maxAlloc || liveBytes+int64(size) > maxLive {
		return 0
	}
	return int32(keep(make([]byte, size)))
}

//go:wasmexport toolerr_free
func free(ptr int32) {
	if buf, ok := live[uint32(ptr)]; ok {
		liveBytes -= int64(len(buf))
		delete(live, uint32(ptr))
	}
}

// invoke runs core.Invoke on the n bytes at ptr (a toolerr_alloc buffer) and
// returns (out_ptr << 32) | out_len; the host frees out_ptr with toolerr_free.
//
//go:wasmexport toolerr_invoke
func invoke(ptr, n int32) int64 {
	if liveBytes > maxLive {
		return int64(uint32(uintptr(unsafe.Pointer(&hostBuffersAnswer[0]))))<<32 | int64(len(hostBuffersAnswer))
	}
	// Collect before a large request: the garbage of the last one is then
	// swept and its memory reused. Without it, 32 MiB requests one after
	// another grew linear memory by the peak of each (1 -> 2.7 -> 3.4 -> 3.9
	// GiB) until the 4 GiB of wasm32 ran out and the runtime died. Between
	// calls little is live, so the collection is cheap beside the request.
	if uint32(n) > largeRequest {
		runtime.GC()
	}
	out := core.AppendInvoke(nil, request(uint32(ptr), uint32(n)))
	// A reactor runs Go code only inside export calls, and a garbage
	// collection that a call starts is finished by background goroutines:
	// without a yield before returning they never run, and every allocation
	// stays live (linear memory grew by gigabytes in 60,000 calls). Yielding
	// here lets a pending collection finish; it costs nothing otherwise.
	runtime.Gosched()
	return int64(keep(out))<<32 | int64(len(out))
}

// request views the bytes the host passed as a string without copying:
// core.AppendInvoke reads a request in place and keeps no part of it past
// the call, and the buffer stays live (and unchanged: the host runs no code
// while the module does) until the host frees it after the call. A range
// outside any live buffer reads as empty unless its length alone is over
// MaxRequestBytes; either way core.AppendInvoke answers with INVALID_INPUT
// (the length-only view of a longer request is never read).
func request(ptr, n uint32) string {
	if buf, ok := live[ptr]; ok && uint64(n) <= uint64(len(buf)) {
		if n == 0 {
			return ""
		}
		return unsafe.String(&buf[0], n)
	}
	if n > core.MaxRequestBytes {
		return unsafe.String(&sink[0], n)
	}
	return ""
}

// keep registers buf in live and returns its address (0 for an empty buffer).
func keep(buf []byte) uint32 {
	if len(buf) == 0 {
		return 0
	}
	p := uint32(uintptr(unsafe.Pointer(&buf[0])))
	live[p] = buf
	liveBytes += int64(len(buf))
	return p
}
