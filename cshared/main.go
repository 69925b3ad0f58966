// Command cshared is core.Invoke as a C library (dist/libtoolerr.so and
// dist/libtoolerr.a). The public header is the hand-written toolerr.h beside
// this file, not the one cgo generates; its functions are defined in
// entry.c, which answers in a forked child without entering Go and otherwise
// calls the two Go exports here (toolerr_go_invoke, toolerr_go_invoke_into);
// header_test.go checks they agree.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/toolerr/toolerr/core"
)

// sink backs the length-only view of a request longer than MaxRequestBytes,
// which core.Invoke refuses without reading a byte.
var sink [1]byte

// maxView caps the length-only view so that it never wraps the address space.
const maxView = 1 << 40

func main() {}

// toolerr_go_invoke is toolerr_invoke of toolerr.h (entry.c, which calls
// it unless the process was forked after the library was loaded).
//
//export toolerr_go_invoke
func toolerr_go_invoke(req *C.uint8_t, n C.size_t, outLen *C.size_t) *C.uint8_t {
	if outLen == nil {
		return nil
	}
	answer := answers.Get().(*[]byte)
	defer answers.Put(answer)
	out := invoke(answer, req, uint64(n))
	p := (*C.uint8_t)(C.malloc(C.size_t(len(out))))
	if p == nil {
		*outLen = 0
		return nil
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), len(out)), out)
	*outLen = C.size_t(len(out))
	return p
}

// toolerr_go_invoke_into is toolerr_invoke_into of toolerr.h (entry.c).
//
//export toolerr_go_invoke_into
func toolerr_go_invoke_into(req *C.uint8_t, n C.size_t, buf *C.uint8_t, size C.size_t, outLen *C.size_t) *C.uint8_t {
	if outLen == nil {
		return nil
	}
	answer := answers.Get().(*[]byte)
	defer answers.Put(answer)
	out := invoke(answer, req, uint64(n))
	*outLen = C.size_t(len(out))
	if buf != nil && uint64(len(out)) <= uint64(size) {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(buf)), len(out)), out)
		return nil
	}
	p := (*C.uint8_t)(C.malloc(C.size_t(len(out))))
	if p == nil {
		*outLen = 0
		return nil
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), len(out)), out)
	return p
}

// answers holds response buffers reused from call to call: every entry
// point copies the response out of it before it goes back.
var answers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// maxKept is the largest response buffer answers keeps (64 KiB): a larger
// one, the answer of a long transcript, is left to the collector.
const maxKept = 64 << 10

// invoke runs core.AppendInvoke on the caller's n bytes at req into the
// buffer *answer, which it keeps for the next call unless it grew past
// maxKept, and returns the response (valid until answer goes back to
// answers).
func invoke(answer *[]byte, req *C.uint8_t, n uint64) []byte {
	out := core.AppendInvoke((*answer)[:0], request(req, n))
	if cap(out) <= maxKept {
		*answer = out[:0]
	}
	return out
}

// request views the caller's n bytes at req as a string without copying:
// core.AppendInvoke reads a request in place and keeps no part of it past
// the call, and the header tells the caller not to change those bytes
// during it. NULL reads as empty unless n alone is over MaxRequestBytes;
// either way core.AppendInvoke answers with INVALID_INPUT (the length-only
// view of a longer request is never read).
func request(req *C.uint8_t, n uint64) string {
	if n > core.MaxRequestBytes {
		return unsafe.String(&sink[0], min(n, maxView))
	}
	if req == nil || n == 0 {
		return ""
	}
	return unsafe.String((*byte)(unsafe.Pointer(req)), n)
}
