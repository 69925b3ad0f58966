// Command cshared is core.Invoke as a C library (dist/libtoolerr.so and
// dist/libtoolerr.a). The public header is the hand-written toolerr.h beside
// this file, not the one cgo generates; header_test.go checks they agree.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"unsafe"

	"github.com/toolerr/toolerr/core"
)

// sink backs the length-only view of a request longer than MaxRequestBytes,
// which core.Invoke refuses without reading a byte.
var sink [1]byte

// maxView caps the length-only view so that it never wraps the address space.
const maxView = 1 << 40

func main() {}

//export toolerr_abi_version
func toolerr_abi_version() C.uint32_t { return core.ABIVersion }

//export toolerr_invoke
func toolerr_invoke(req *C.uint8_t, n C.size_t, outLen *C.size_t) *C.uint8_t {
	if outLen == nil {
		return nil
	}
	out := core.Invoke(request(req, uint64(n)))
	p := (*C.uint8_t)(C.malloc(C.size_t(len(out))))
	if p == nil {
		*outLen = 0
		return nil
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), len(out)), out)
	*outLen = C.size_t(len(out))
	return p
}

//export toolerr_invoke_into
func toolerr_invoke_into(req *C.uint8_t, n C.size_t, buf *C.uint8_t, size C.size_t, outLen *C.size_t) *C.uint8_t {
	if outLen == nil {
		return nil
	}
	out := core.Invoke(request(req, uint64(n)))
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

//export toolerr_free
func toolerr_free(buf *C.uint8_t) { C.free(unsafe.Pointer(buf)) }

// request views the caller's n bytes at req without copying (core.Invoke does
// not keep them). NULL reads as empty unless n alone is over MaxRequestBytes;
// either way core.Invoke answers with INVALID_INPUT.
func request(req *C.uint8_t, n uint64) []byte {
	if n > core.MaxRequestBytes {
		return unsafe.Slice(&sink[0], min(n, maxView))
	}
	if req == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(req)), n)
}
