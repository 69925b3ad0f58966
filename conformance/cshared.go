package conformance

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

typedef uint32_t (*toolerr_abi_version_fn)(void);
typedef uint8_t *(*toolerr_invoke_fn)(const uint8_t *, size_t, size_t *);
typedef void (*toolerr_free_fn)(uint8_t *);

static uint32_t call_abi_version(void *f) { return ((toolerr_abi_version_fn)f)(); }
static uint8_t *call_invoke(void *f, const uint8_t *req, size_t n, size_t *out_len) {
	return ((toolerr_invoke_fn)f)(req, n, out_len);
}
static void call_free(void *f, uint8_t *p) { ((toolerr_free_fn)f)(p); }

#ifdef __GLIBC__
#include <malloc.h>
static void trim_c_heap(void) { malloc_trim(0); }
#else
static void trim_c_heap(void) {}
#endif
*/
import "C"

import (
	"errors"
	"unsafe"
)

// CShared is dist/libtoolerr.so loaded with dlopen and called through the
// three functions of toolerr.h. Safe for concurrent use.
type CShared struct {
	handle                   unsafe.Pointer
	fVersion, fInvoke, fFree unsafe.Pointer
}

var _ Target = (*CShared)(nil)

// OpenCShared dlopens the library at path and looks up its exports.
func OpenCShared(path string) (*CShared, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	h := C.dlopen(cpath, C.RTLD_NOW|C.RTLD_LOCAL)
	if h == nil {
		return nil, errors.New("dlopen " + path + ": " + C.GoString(C.dlerror()))
	}
	c := &CShared{handle: h}
	for _, s := range []struct {
		name string
		dst  *unsafe.Pointer
	}{{"toolerr_abi_version", &c.fVersion}, {"toolerr_invoke", &c.fInvoke}, {"toolerr_free", &c.fFree}} {
		cname := C.CString(s.name)
		*s.dst = C.dlsym(h, cname)
		C.free(unsafe.Pointer(cname))
		if *s.dst == nil {
			return nil, errors.New(path + " does not export " + s.name)
		}
	}
	return c, nil
}

// Name returns "cshared".
func (c *CShared) Name() string { return "cshared" }

// Invoke runs req through toolerr_invoke.
func (c *CShared) Invoke(req []byte) ([]byte, error) { return c.InvokeLen(req, uint64(len(req))) }

// InvokeLen passes n as the length of req (a lying caller, for boundary
// tests); req may be empty, which passes NULL.
func (c *CShared) InvokeLen(req []byte, n uint64) ([]byte, error) {
	var p *C.uint8_t
	if len(req) > 0 {
		p = (*C.uint8_t)(C.CBytes(req))
		defer C.free(unsafe.Pointer(p))
	}
	var outLen C.size_t
	out := C.call_invoke(c.fInvoke, p, C.size_t(n), &outLen)
	if out == nil {
		return nil, errors.New("toolerr_invoke returned NULL")
	}
	defer C.call_free(c.fFree, out)
	return C.GoBytes(unsafe.Pointer(out), C.int(outLen)), nil
}

// InvokeNilOutLen calls toolerr_invoke with out_len NULL and reports whether
// it returned NULL, as toolerr.h promises.
func (c *CShared) InvokeNilOutLen(req []byte) bool {
	p := (*C.uint8_t)(C.CBytes(append(req, 0)))
	defer C.free(unsafe.Pointer(p))
	return C.call_invoke(c.fInvoke, p, C.size_t(len(req)), nil) == nil
}

// FreeNil calls toolerr_free(NULL), which toolerr.h makes a no-op.
func (c *CShared) FreeNil() { C.call_free(c.fFree, nil) }

// ABIVersion calls toolerr_abi_version.
func (c *CShared) ABIVersion() uint32 { return uint32(C.call_abi_version(c.fVersion)) }

// Close leaves the library loaded: a Go runtime cannot be unloaded.
func (c *CShared) Close() error { return nil }

// trimCHeap returns the C heap's free pages to the OS (glibc malloc_trim), so
// that an RSS measurement sees live memory, not malloc's free lists.
func trimCHeap() { C.trim_c_heap() }
