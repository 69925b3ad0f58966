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
 *   invokeBytesText(request: Uint8Array): string
 *                        the request's bytes in, as invoke; the answer as
 *                        text, as invokeText (core.js sends a transcript op's
 *                        spliced JSON text so, without a Buffer to decode)
 *
 * Strings cross as UTF-16, transcoded here (utf16_to_utf8, utf8_to_utf16):
 * V8's own UTF-8 paths (String::WriteUtf8, String::NewFromUtf8) take 3-4x as
 * long on a transcript whose text is not all ASCII (measured: 40 us against
 * 10 us for the 8.8 KB answer of issue 12's work item (b)); an ASCII answer
 * is made a one-byte string by napi_create_string_latin1, a copy.
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
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

/* SHORT is the longest request string (in UTF-16 units) encoded through
 * the kept buffers: its UTF-8 (at most 3 bytes a unit) fits KEPT. */
#define SHORT ((KEPT - 1) / 3)

/* state is one thread's (one napi_env's) kept buffers. */
typedef struct {
  uint8_t *req;  /* KEPT bytes for a request string */
  uint8_t *ans;  /* KEPT bytes for an answer */
  uint16_t *u16; /* KEPT UTF-16 units: a short request string, or an answer of at most KEPT bytes, as text */
} state;

static void free_state(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  state *s = data;
  free(s->req);
  free(s->ans);
  free(s->u16);
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

/* ascii8 is whether none of the 8 bytes at p has its high bit set. */
static inline bool ascii8(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return (w & 0x8080808080808080ull) == 0;
}

/* utf16_to_utf8 writes the n UTF-16 units at u as UTF-8 at out, which has
 * room for 3 bytes a unit, and returns the bytes written. A lone surrogate
 * becomes U+FFFD, as napi_get_value_string_utf8 (String::WriteUtf8 with
 * REPLACE_INVALID_UTF8) and TextEncoder make it. */
static size_t utf16_to_utf8(const uint16_t *u, size_t n, uint8_t *out) {
  uint8_t *o = out;
  size_t i = 0;
  while (i < n) {
    while (i + 4 <= n) { /* four ASCII units at a time */
      uint64_t w;
      memcpy(&w, u + i, 8);
      if (w & 0xFF80FF80FF80FF80ull) break;
      o[0] = (uint8_t)u[i];
      o[1] = (uint8_t)u[i + 1];
      o[2] = (uint8_t)u[i + 2];
      o[3] = (uint8_t)u[i + 3];
      o += 4;
      i += 4;
    }
    if (i == n) break;
    uint32_t c = u[i++];
    if (c < 0x80) {
      *o++ = (uint8_t)c;
    } else if (c < 0x800) {
      *o++ = (uint8_t)(0xC0 | c >> 6);
      *o++ = (uint8_t)(0x80 | (c & 0x3F));
    } else if (c >= 0xD800 && c <= 0xDBFF && i < n && u[i] >= 0xDC00 && u[i] <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (u[i++] - 0xDC00u);
      *o++ = (uint8_t)(0xF0 | c >> 18);
      *o++ = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
      *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
      *o++ = (uint8_t)(0x80 | (c & 0x3F));
    } else {
      if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD; /* a lone surrogate */
      *o++ = (uint8_t)(0xE0 | c >> 12);
      *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
      *o++ = (uint8_t)(0x80 | (c & 0x3F));
    }
  }
  return (size_t)(o - out);
}

/* utf8_to_utf16 writes the n bytes at p as UTF-16 at out, which has room
 * for n units, and returns the units written; SIZE_MAX when the bytes are
 * not well-formed UTF-8 (an overlong form, a surrogate, past U+10FFFF, a
 * sequence cut short), for the caller to leave them to V8's decoder and its
 * replacement characters (the core's answers are always well-formed). */
static size_t utf8_to_utf16(const uint8_t *p, size_t n, uint16_t *out) {
  uint16_t *o = out;
  size_t i = 0;
  while (i < n) {
    while (i + 8 <= n && ascii8(p + i)) { /* eight ASCII bytes at a time */
      for (int k = 0; k < 8; k++) o[k] = p[i + k];
      o += 8;
      i += 8;
    }
    if (i == n) break;
    uint32_t c = p[i];
    if (c < 0x80) {
      *o++ = (uint16_t)c;
      i++;
      continue;
    }
    uint32_t lo = 0x80, hi = 0xBF; /* the range of the second byte */
    size_t len;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      c &= 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;      /* not overlong */
      else if (c == 0xED) hi = 0x9F; /* not a surrogate */
      c &= 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;      /* not overlong */
      else if (c == 0xF4) hi = 0x8F; /* not past U+10FFFF */
      c &= 0x07;
    } else {
      return SIZE_MAX;
    }
    if (n - i < len || p[i + 1] < lo || p[i + 1] > hi) return SIZE_MAX;
    c = c << 6 | (p[i + 1] & 0x3Fu);
    for (size_t k = 2; k < len; k++) {
      if ((p[i + k] & 0xC0) != 0x80) return SIZE_MAX;
      c = c << 6 | (p[i + k] & 0x3Fu);
    }
    i += len;
    if (c < 0x10000) {
      *o++ = (uint16_t)c;
    } else {
      c -= 0x10000;
      *o++ = (uint16_t)(0xD800 | c >> 10);
      *o++ = (uint16_t)(0xDC00 | (c & 0x3FF));
    }
  }
  return (size_t)(o - out);
}

/* text_of makes the n answer bytes at p a string: a one-byte string (a
 * copy) when they are all ASCII, else a two-byte one from their UTF-16,
 * transcoded into s->u16 (or a buffer of its own for an answer over KEPT
 * bytes); napi_create_string_utf8 when they are not well-formed UTF-8 or
 * that buffer cannot be had. */
static napi_status text_of(napi_env env, state *s, const uint8_t *p, size_t n, napi_value *out) {
  size_t i = 0;
  while (i + 8 <= n && ascii8(p + i)) i += 8;
  while (i < n && p[i] < 0x80) i++;
  if (i == n) return napi_create_string_latin1(env, (const char *)p, n, out);
  uint16_t *u = n <= KEPT ? s->u16 : malloc(n * sizeof *u);
  size_t units = u == NULL ? SIZE_MAX : utf8_to_utf16(p, n, u);
  napi_status st = units == SIZE_MAX ? napi_create_string_utf8(env, (const char *)p, n, out)
                                     : napi_create_string_utf16(env, u, units, out);
  if (u != s->u16) free(u);
  return st;
}

static state *get_state(napi_env env) {
  void *data = NULL;
  if (napi_get_instance_data(env, &data) != napi_ok || data == NULL) {
    napi_throw_error(env, "ERR_TOOLERR_NATIVE", "toolerr-native: the addon's buffers are missing");
    return NULL;
  }
  return data;
}

/* run_bytes runs the request Uint8Array that is the call's first argument
 * (invoke and invokeBytesText): sets *a to the answer and returns true, or
 * returns false with an exception thrown (a wrong argument: a TypeError). */
static bool run_bytes(napi_env env, napi_callback_info info, const char *name, state **sp, answer *a) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
    failed(env, "toolerr-native: the call's arguments could not be read");
    return false;
  }
  char msg[160];
  bool is_ta = false;
  if (argc < 1 || napi_is_typedarray(env, argv[0], &is_ta) != napi_ok || !is_ta) {
    snprintf(msg, sizeof msg, "toolerr-native: %s(request) takes the request's UTF-8 JSON bytes as a Uint8Array (or Buffer)", name);
    type_error(env, msg);
    return false;
  }
  napi_typedarray_type type;
  size_t n = 0;
  void *data = NULL;
  napi_value ab;
  size_t offset = 0;
  if (napi_get_typedarray_info(env, argv[0], &type, &n, &data, &ab, &offset) != napi_ok) {
    failed(env, "toolerr-native: the request's bytes could not be read");
    return false;
  }
  if (type != napi_uint8_array) {
    snprintf(msg, sizeof msg, "toolerr-native: %s(request) takes a Uint8Array (or Buffer), not another typed array", name);
    type_error(env, msg);
    return false;
  }
  state *s = get_state(env);
  if (s == NULL) return false;
  *sp = s;
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
      a->p = (const uint8_t *)out_of_memory;
      a->n = sizeof out_of_memory - 1;
      a->owned = NULL;
      return true;
    }
    memcpy(copy, data, n);
    data = copy;
  }
  *a = run(s, data, n);
  free(copy);
  return true;
}

/* invoke(request: Uint8Array): Buffer. */
static napi_value invoke(napi_env env, napi_callback_info info) {
  state *s = NULL;
  answer a;
  if (!run_bytes(env, info, "invoke", &s, &a)) return NULL;
  napi_value out = NULL;
  napi_status st = napi_create_buffer_copy(env, a.n, a.p, NULL, &out);
  toolerr_free(a.owned);
  return st == napi_ok ? out : failed(env, "toolerr-native: the answer could not be handed to JavaScript");
}

/* invokeBytesText(request: Uint8Array): string. */
static napi_value invoke_bytes_text(napi_env env, napi_callback_info info) {
  state *s = NULL;
  answer a;
  if (!run_bytes(env, info, "invokeBytesText", &s, &a)) return NULL;
  napi_value out = NULL;
  napi_status st = text_of(env, s, a.p, a.n, &out);
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
  size_t units = 0;
  if (napi_get_value_string_utf16(env, argv[0], NULL, 0, &units) != napi_ok)
    return failed(env, "toolerr-native: the request string could not be read");
  size_t n = 0;
  answer a;
  if (units <= SHORT) {
    /* a short string: its UTF-16 copied into s->u16, transcoded into s->req */
    if (napi_get_value_string_utf16(env, argv[0], s->u16, SHORT + 1, &units) != napi_ok)
      return failed(env, "toolerr-native: the request string could not be read");
    n = utf16_to_utf8(s->u16, units, s->req);
    a = run(s, s->req, n);
    goto done;
  }
  /* a longer one is measured exactly first and encoded by V8 into a buffer of its own */
  if (napi_get_value_string_utf8(env, argv[0], NULL, 0, &n) != napi_ok)
    return failed(env, "toolerr-native: the request string could not be read");
  if (n > TOOLERR_MAX_REQUEST_BYTES) {
    /* refused by its length alone, unread: nothing is encoded */
    a = run(s, NULL, n);
    goto done;
  }
  uint8_t *own = malloc(n + 1);
  if (own == NULL) {
    a.p = (const uint8_t *)out_of_memory;
    a.n = sizeof out_of_memory - 1;
    a.owned = NULL;
    goto done;
  }
  if (napi_get_value_string_utf8(env, argv[0], (char *)own, n + 1, &n) != napi_ok) {
    free(own);
    return failed(env, "toolerr-native: the request string could not be read");
  }
  a = run(s, own, n);
  free(own);
done:;
  napi_value out = NULL;
  napi_status st = text_of(env, s, a.p, a.n, &out);
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
    s->u16 = malloc(KEPT * sizeof *s->u16);
  }
  if (s == NULL || s->req == NULL || s->ans == NULL || s->u16 == NULL) {
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
  napi_create_function(env, "invokeBytesText", NAPI_AUTO_LENGTH, invoke_bytes_text, NULL, &v);
  napi_set_named_property(env, exports, "invokeBytesText", v);
  return exports;
}
