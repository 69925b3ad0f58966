/*
 * toolerr_native.c: the optional N-API addon of the Node binding (the npm
 * package toolerr-native), core.Invoke over the C library (cshared/main.go,
 * dist/toolerr.h) with libtoolerr.a linked in, so the addon is one file
 * (toolerr_native.node) with the Go runtime inside it.
 *
 * It moves bytes only: every rule (codes, messages, wire shapes, canonical
 * JSON) is the core's, and the JavaScript layer above it (bindings/node/
 * core.js) is the wasm path's. Exports (N-API version 8, Node >= 12.22):
 *
 *   abiVersion: number   toolerr_abi_version() of the linked core (1)
 *   invoke(request: Uint8Array): Buffer
 *                        the request's UTF-8 JSON bytes in, a copy of the
 *                        response's canonical JSON bytes out
 *   invokeText(request: string): string
 *                        the same with a string: encoded to UTF-8 straight
 *                        into a kept buffer (lone surrogates become U+FFFD,
 *                        as TextEncoder makes them), the answer decoded
 *                        straight out of one
 *
 * Bad input is never a crash: a wrong argument (not a Uint8Array, not a
 * string, none) throws a TypeError with code ERR_INVALID_ARG_TYPE; anything
 * the core refuses (empty, not JSON, invalid UTF-8, over 32 MiB: the core
 * reads such a request's length only) is its {"error": ...} answer; an
 * allocation that fails is an {"error": {"code": "INTERNAL", ...}} answer, as
 * in the wasm path (bindings/node/core.js, OUT_OF_MEMORY).
 *
 * Threads: every worker_thread that loads the addon gets its own buffers
 * (napi_set_instance_data); the core keeps no state between calls and may be
 * called from every thread at once (toolerr.h, "Threads").
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "toolerr.h"

/* KEPT is the size of the answer buffer each thread keeps, and the largest
 * request buffer it keeps (64 KiB, the C library's own maxKept): a longer
 * request or answer gets a buffer of its own for the call. */
#define KEPT (64u << 10)

/* The answer when an allocation fails: the request was not the caller's
 * fault (the same envelope as the wasm path's OUT_OF_MEMORY, but naming the addon). */
static const char out_of_memory[] =
    "{\"error\":{\"code\":\"INTERNAL\",\"details\":{\"reason\":\"out of memory\"},"
    "\"message\":\"toolerr (Node addon): out of memory; it could not allocate the request or its answer.\","
    "\"retryable\":false,\"source\":\"orchestrator\"}}";

/* state is one thread's (one napi_env's) kept buffers. */
typedef struct {
  uint8_t *req; /* KEPT bytes for a request string */
  uint8_t *ans; /* KEPT bytes for an answer */
} state;

static void free_state(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  state *s = data;
  free(s->req);
  free(s->ans);
  free(s);
}

/* type_error throws a TypeError with code ERR_INVALID_ARG_TYPE, as Node's own
 * functions do for an argument of the wrong type; returns NULL for the caller
 * to return. */
static napi_value type_error(napi_env env, const char *msg) {
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
  return NULL;
}

/* failed returns NULL for a caller whose N-API call failed, after throwing an
 * Error (code ERR_TOOLERR_NATIVE) naming what when that call left no exception
 * pending: a function that returns NULL with none pending hands JavaScript
 * undefined, a silent wrong answer. */
static napi_value failed(napi_env env, const char *what) {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) != napi_ok || !pending)
    napi_throw_error(env, "ERR_TOOLERR_NATIVE", what);
  return NULL;
}

/* answer is a response: either the kept buffer or one the core malloc'd. */
typedef struct {
  const uint8_t *p;
  size_t n;
  uint8_t *owned; /* to toolerr_free after use, or NULL */
} answer;

/* run runs the n request bytes at req (NULL with n over
 * TOOLERR_MAX_REQUEST_BYTES: read by length only) into s->ans, or into a
 * buffer of the core's when the answer is longer than KEPT. */
static answer run(state *s, const uint8_t *req, size_t n) {
  answer a = {0};
  size_t out = 0;
  uint8_t *p = toolerr_invoke_into(req, n, s->ans, KEPT, &out);
  if (p != NULL) {
    a.p = p;
    a.n = out;
    a.owned = p;
  } else if (out == 0) { /* the core could not allocate a long answer */
    a.p = (const uint8_t *)out_of_memory;
    a.n = sizeof out_of_memory - 1;
  } else {
    a.p = s->ans;
    a.n = out;
  }
  return a;
}

static state *get_state(napi_env env) {
  void *data = NULL;
  if (napi_get_instance_data(env, &data) != napi_ok || data == NULL) {
    napi_throw_error(env, "ERR_TOOLERR_NATIVE", "toolerr-native: the addon's buffers are missing");
    return NULL;
  }
  return data;
}

/* invoke(request: Uint8Array): Buffer. */
static napi_value invoke(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok)
    return failed(env, "toolerr-native: the call's arguments could not be read");
  bool is_ta = false;
  if (argc < 1 || napi_is_typedarray(env, argv[0], &is_ta) != napi_ok || !is_ta)
    return type_error(env, "toolerr-native: invoke(request) takes the request's UTF-8 JSON bytes as a Uint8Array (or Buffer)");
  napi_typedarray_type type;
  size_t n = 0;
  void *data = NULL;
  napi_value ab;
  size_t offset = 0;
  if (napi_get_typedarray_info(env, argv[0], &type, &n, &data, &ab, &offset) != napi_ok)
    return failed(env, "toolerr-native: the request's bytes could not be read");
  if (type != napi_uint8_array)
    return type_error(env, "toolerr-native: invoke(request) takes a Uint8Array (or Buffer), not another typed array");
  state *s = get_state(env);
  if (s == NULL) return NULL;
  /* The core reads the request in place and the bytes must not change during
   * the call (toolerr.h): no JavaScript runs on this thread meanwhile, but a
   * SharedArrayBuffer may be written by another thread, so its bytes are
   * copied first. */
  bool plain = false;
  napi_is_arraybuffer(env, ab, &plain);
  uint8_t *copy = NULL;
  if (!plain && n > 0 && n <= TOOLERR_MAX_REQUEST_BYTES) {
    copy = malloc(n);
    if (copy == NULL) {
      napi_value out;
      napi_create_buffer_copy(env, sizeof out_of_memory - 1, out_of_memory, NULL, &out);
      return out;
    }
    memcpy(copy, data, n);
    data = copy;
  }
  answer a = run(s, data, n);
  free(copy);
  napi_value out = NULL;
  napi_status st = napi_create_buffer_copy(env, a.n, a.p, NULL, &out);
  toolerr_free(a.owned);
  return st == napi_ok ? out : failed(env, "toolerr-native: the answer could not be handed to JavaScript");
}

/* invokeText(request: string): string. */
static napi_value invoke_text(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok)
    return failed(env, "toolerr-native: the call's arguments could not be read");
  napi_valuetype t = napi_undefined;
  if (argc < 1 || napi_typeof(env, argv[0], &t) != napi_ok || t != napi_string)
    return type_error(env, "toolerr-native: invokeText(request) takes the request's JSON text as a string");
  state *s = get_state(env);
  if (s == NULL) return NULL;
  /* UTF-8 takes at most 3 bytes per UTF-16 unit: a short string fits the kept
   * buffer as it is; a longer one is measured exactly first. */
  size_t units = 0;
  if (napi_get_value_string_utf16(env, argv[0], NULL, 0, &units) != napi_ok)
    return failed(env, "toolerr-native: the request string could not be read");
  uint8_t *buf = s->req;
  size_t cap = KEPT;
  uint8_t *own = NULL;
  size_t n = 0;
  answer a;
  if (units > (KEPT - 1) / 3) {
    if (napi_get_value_string_utf8(env, argv[0], NULL, 0, &n) != napi_ok)
      return failed(env, "toolerr-native: the request string could not be read");
    if (n > TOOLERR_MAX_REQUEST_BYTES) {
      /* refused by its length alone, unread: nothing is encoded */
      a = run(s, NULL, n);
      goto done;
    }
    cap = n + 1;
    own = malloc(cap);
    if (own == NULL) {
      a.p = (const uint8_t *)out_of_memory;
      a.n = sizeof out_of_memory - 1;
      a.owned = NULL;
      goto done;
    }
    buf = own;
  }
  if (napi_get_value_string_utf8(env, argv[0], (char *)buf, cap, &n) != napi_ok) {
    free(own);
    return failed(env, "toolerr-native: the request string could not be read");
  }
  a = run(s, buf, n);
  free(own);
done:;
  napi_value out = NULL;
  napi_status st = napi_create_string_utf8(env, (const char *)a.p, a.n, &out);
  toolerr_free(a.owned);
  return st == napi_ok ? out : failed(env, "toolerr-native: the answer could not be handed to JavaScript");
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  if (toolerr_abi_version() != TOOLERR_ABI_VERSION) {
    napi_throw_error(env, "ERR_TOOLERR_NATIVE", "toolerr-native: the linked core has an unknown ABI version");
    return NULL;
  }
  state *s = calloc(1, sizeof *s);
  if (s != NULL) {
    s->req = malloc(KEPT);
    s->ans = malloc(KEPT);
  }
  if (s == NULL || s->req == NULL || s->ans == NULL) {
    if (s != NULL) free_state(env, s, NULL);
    napi_throw_error(env, "ERR_TOOLERR_NATIVE", "toolerr-native: out of memory while loading");
    return NULL;
  }
  if (napi_set_instance_data(env, s, free_state, NULL) != napi_ok) {
    free_state(env, s, NULL);
    return NULL;
  }
  napi_value v;
  napi_create_uint32(env, toolerr_abi_version(), &v);
  napi_set_named_property(env, exports, "abiVersion", v);
  napi_create_function(env, "invoke", NAPI_AUTO_LENGTH, invoke, NULL, &v);
  napi_set_named_property(env, exports, "invoke", v);
  napi_create_function(env, "invokeText", NAPI_AUTO_LENGTH, invoke_text, NULL, &v);
  napi_set_named_property(env, exports, "invokeText", v);
  return exports;
}
