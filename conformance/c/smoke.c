/* smoke.c: toolerr.h used from C exactly as the header documents, linked
 * against dist/libtoolerr.a and dist/libtoolerr.so (csmoke_test.go). Prints
 * each response on its own line; exits non-zero on any broken promise. */
#include <stdio.h>
#include <string.h>

#include "toolerr.h"

static int run(const char *req, size_t len) {
  size_t out_len = 12345;
  uint8_t *out = toolerr_invoke((const uint8_t *)req, len, &out_len);
  if (out == NULL) return 0;
  fwrite(out, 1, out_len, stdout); /* not NUL-terminated: write out_len bytes */
  fputc('\n', stdout);
  toolerr_free(out);
  return 1;
}

int main(void) {
  const char *version = "{\"op\":\"version\"}";
  if (toolerr_abi_version() != TOOLERR_ABI_VERSION) return 2;
  if (!run(version, strlen(version))) return 3;
  if (!run(NULL, 0)) return 4;                  /* NULL with len 0: INVALID_INPUT */
  if (!run("{\"op\":", 6)) return 5;            /* not JSON */
  if (!run(version, (size_t)1 << 36)) return 6; /* 64 GiB claimed: refused unread */
  if (toolerr_invoke((const uint8_t *)version, strlen(version), NULL) != NULL) return 7;
  toolerr_free(NULL);
  return 0;
}
