/*
 * toolerr.h: the C ABI of toolerr (dist/libtoolerr.so, dist/libtoolerr.a).
 *
 * toolerr has one entry point, toolerr_invoke (and toolerr_invoke_into, the
 * same call answering into a caller's buffer): a JSON request in, a canonical
 * JSON response (RFC 8785) out. The request is {"op": "<name>", ...}; the
 * response is {"ok": <result>} or {"error": <envelope>}. Bad input (empty,
 * not JSON, over 32 MiB, unknown op, a missing member) is never a crash: it is
 * an {"error": {"code": "INVALID_INPUT", ...}} response. The ops are listed in
 * the README ("Invoke reference"); the ABI is described in docs/targets.md.
 *
 * Threads: every function may be called from any thread, concurrently.
 * toolerr keeps no state between calls.
 *
 * Fork: the library's Go runtime does not survive fork(), so in a child
 * forked after the library was loaded every call answers at once, without
 * running the core, with {"error": {"code": "UNSUPPORTED", "details":
 * {"cause": "forked"}, ...}} (toolerr_abi_version still returns the version;
 * toolerr_free still frees). Load the library in the child after exec (or
 * dlopen a copy of its own, as the Python binding does), or fork before
 * loading it. The parent is unaffected.
 *
 * Undefined: a req, buf or out_len that does not point at the bytes the
 * arguments say (a length past the caller's buffer), and freeing with
 * toolerr_free a pointer toolerr did not return, or one twice. Everything
 * else (NULL req or buf with any length, a length up to SIZE_MAX) is a
 * structured response, never a crash.
 *
 * Versioning: toolerr_abi_version() returns TOOLERR_ABI_VERSION of the build.
 * It grows by one on any incompatible change to the request or response of an
 * op; new ops and new optional members leave it unchanged. A binding checks it
 * once after loading the library and refuses a version it does not know.
 *
 * Linking: the shared library needs -ltoolerr; the static archive also needs
 * -lpthread (and -ldl on older glibc), as any Go c-archive does.
 *
 * The WebAssembly module (dist/toolerr.wasm, a WASI reactor) exports the same
 * three functions plus an allocator, in wasm32 types:
 *   toolerr_abi_version() -> i32
 *   toolerr_alloc(size i32) -> i32       size bytes the host writes the request
 *                                        into; 0 if size <= 0 or over 128 MiB,
 *                                        or if the buffers not yet freed would
 *                                        pass 2.25 GiB
 *   toolerr_invoke(ptr i32, len i32) -> i64   (out_ptr << 32) | out_len; while
 *                                        more than 2.25 GiB is unfreed, an
 *                                        INVALID_INPUT answer (details.bound
 *                                        "host_buffers") in a static buffer
 *   toolerr_free(ptr i32)                frees a toolerr_alloc or toolerr_invoke
 *                                        buffer; 0 or an unknown ptr is a no-op
 * The host calls _initialize once before anything else. Pointers and lengths
 * are unsigned 32-bit values in every one of them: an address past 2 GiB has
 * the top bit set, so a host whose i32 is signed (JavaScript) reads it as u32
 * (ptr >>> 0), never as a negative offset.
 */
#ifndef TOOLERR_H
#define TOOLERR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TOOLERR_ABI_VERSION is the ABI this header describes (core.ABIVersion). */
#define TOOLERR_ABI_VERSION 1

/* TOOLERR_MAX_REQUEST_BYTES is the largest request toolerr_invoke reads, in
 * bytes (32 MiB, core.MaxRequestBytes); a longer one gets INVALID_INPUT unread. */
#define TOOLERR_MAX_REQUEST_BYTES (32u << 20)

/*
 * toolerr_abi_version returns the ABI version of the loaded library, the same
 * number as the "abi" member of the response to {"op":"version"}.
 */
uint32_t toolerr_abi_version(void);

/*
 * toolerr_invoke runs one request and returns its response.
 *
 * req:     the request, len bytes of UTF-8 JSON. Owned by the caller: toolerr
 *          only reads it during the call, in place (no copy is made), never
 *          keeps or frees it; the bytes must not change until the call
 *          returns. May be NULL when len is 0.
 * len:     the length of req in bytes. 0, or more than
 *          TOOLERR_MAX_REQUEST_BYTES, gives an INVALID_INPUT response.
 * out_len: where the length of the response, in bytes, is written. Must not
 *          be NULL (if it is, toolerr_invoke returns NULL and does nothing).
 *
 * Returns the response: *out_len bytes of canonical JSON, NOT NUL-terminated,
 * allocated with malloc and owned by the caller, who frees it with
 * toolerr_free (never free req with toolerr_free). Returns NULL, with
 * *out_len set to 0, only when malloc fails.
 */
uint8_t *toolerr_invoke(const uint8_t *req, size_t len, size_t *out_len);

/*
 * toolerr_invoke_into runs one request as toolerr_invoke does and writes the
 * response into the caller's buffer when it fits, so that a call costs one
 * crossing and no allocation the caller must free.
 *
 * req, len: the request, as for toolerr_invoke.
 * buf:      size bytes owned by the caller, or NULL (then size is ignored).
 * out_len:  where the length of the response is written. Must not be NULL
 *           (if it is, toolerr_invoke_into returns NULL and does nothing).
 *
 * Returns NULL when the response (*out_len bytes) was written to buf. When it
 * is longer than size, returns it in a malloc'd buffer as toolerr_invoke does
 * (the caller frees it with toolerr_free) and leaves buf as it was. Returns
 * NULL with *out_len set to 0 only when that malloc fails (a response is never
 * empty).
 */
uint8_t *toolerr_invoke_into(const uint8_t *req, size_t len, uint8_t *buf, size_t size, size_t *out_len);

/*
 * toolerr_free frees a buffer returned by toolerr_invoke or toolerr_invoke_into. NULL is a no-op.
 * Freeing anything else, or the same buffer twice, is undefined behaviour.
 */
void toolerr_free(uint8_t *buf);

#ifdef __cplusplus
}
#endif

#endif /* TOOLERR_H */
