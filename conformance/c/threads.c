/* threads.c: toolerr.h from several threads at once (cthreads_test.go).
 *
 * Usage: threads CASES THREADS ROUNDS. CASES is a file of test cases, each
 * two lines: a request, then the response core.Invoke gives it (a request
 * line "-" is a NULL request of length 0, "=" one of 64 GiB claimed). Each of
 * THREADS threads runs every case ROUNDS times, starting at its own offset,
 * through toolerr_invoke or toolerr_invoke_into (into no buffer, one too
 * small, one just large enough, one larger); every malloc'd answer is
 * compared with the expected response and then handed to one of two freeing
 * threads, which free it with toolerr_free while the callers go on, the
 * freed buffer checked byte for byte against what the caller read (an
 * answer changed after it was returned is a data race on it). Prints
 * "calls N mismatches M" and exits 0 only when M is 0. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolerr.h"

typedef struct {
  char *req;
  size_t req_len;
  int kind; /* 0: bytes, 1: NULL with 0, 2: 64 GiB claimed */
  char *want;
  size_t want_len;
} test_case;

static test_case *cases;
static size_t ncases;
static int rounds;

/* A queue of answers for the freeing threads. */
typedef struct {
  uint8_t *buf;
  size_t len;
  size_t c; /* the case: its want is what buf must still hold */
} answer;

static answer *queue;
static size_t qcap, qhead, qtail;
static int producers_left;
static pthread_mutex_t qmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t qspace = PTHREAD_COND_INITIALIZER;

static pthread_mutex_t countmu = PTHREAD_MUTEX_INITIALIZER;
static long calls, mismatches;

static void mismatch(size_t c, const char *how, const uint8_t *got, size_t got_len) {
  pthread_mutex_lock(&countmu);
  if (mismatches < 5)
    fprintf(stderr, "case %zu (%s): got %zu bytes %.*s\n", c, how, got_len, (int)(got_len < 200 ? got_len : 200),
            got ? (const char *)got : "(null)");
  mismatches++;
  pthread_mutex_unlock(&countmu);
}

static void push(uint8_t *buf, size_t len, size_t c) {
  pthread_mutex_lock(&qmu);
  while ((qtail + 1) % qcap == qhead) pthread_cond_wait(&qspace, &qmu);
  queue[qtail] = (answer){buf, len, c};
  qtail = (qtail + 1) % qcap;
  pthread_cond_signal(&qcond);
  pthread_mutex_unlock(&qmu);
}

static void *freer(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&qmu);
    while (qhead == qtail && producers_left > 0) pthread_cond_wait(&qcond, &qmu);
    if (qhead == qtail) {
      pthread_mutex_unlock(&qmu);
      return NULL;
    }
    answer a = queue[qhead];
    qhead = (qhead + 1) % qcap;
    pthread_cond_signal(&qspace);
    pthread_mutex_unlock(&qmu);
    if (a.len != cases[a.c].want_len || memcmp(a.buf, cases[a.c].want, a.len) != 0)
      mismatch(a.c, "changed before it was freed", a.buf, a.len);
    toolerr_free(a.buf);
  }
}

static void check(size_t c, const char *how, const uint8_t *got, size_t got_len) {
  if (got == NULL || got_len != cases[c].want_len || memcmp(got, cases[c].want, got_len) != 0)
    mismatch(c, how, got, got_len);
}

static void *caller(void *arg) {
  size_t id = (size_t)arg;
  uint8_t *buf = malloc(1 << 16);
  long n = 0;
  for (int r = 0; r < rounds; r++) {
    for (size_t i = 0; i < ncases; i++) {
      size_t c = (i + id * 7 + (size_t)r) % ncases;
      test_case *tc = &cases[c];
      const uint8_t *req = tc->kind == 1 ? NULL : (const uint8_t *)tc->req;
      size_t len = tc->kind == 1 ? 0 : tc->kind == 2 ? (size_t)1 << 36 : tc->req_len;
      size_t out_len = 7;
      int mode = (int)((id + i + (size_t)r) % 5);
      uint8_t *out;
      if (mode == 0) {
        out = toolerr_invoke(req, len, &out_len);
        check(c, "invoke", out, out_len);
      } else {
        /* into: no buffer, one byte short, exactly large enough, larger */
        size_t size = mode == 1 ? 0 : mode == 2 ? tc->want_len - 1 : mode == 3 ? tc->want_len : (size_t)1 << 16;
        if (size > (size_t)1 << 16) size = (size_t)1 << 16;
        memset(buf, 0xAA, size < 64 ? size : 64);
        out = toolerr_invoke_into(req, len, mode == 1 ? NULL : buf, size, &out_len);
        if (out == NULL) {
          if (mode == 1 || size < tc->want_len) mismatch(c, "into: NULL for a buffer too small", NULL, out_len);
          else check(c, "into buf", buf, out_len);
        } else {
          if (mode != 1 && size >= tc->want_len) mismatch(c, "into: malloc'd though it fit", out, out_len);
          check(c, "into malloc", out, out_len);
        }
      }
      if (out != NULL) push(out, out_len, c);
      n++;
    }
  }
  free(buf);
  pthread_mutex_lock(&countmu);
  calls += n;
  pthread_mutex_unlock(&countmu);
  pthread_mutex_lock(&qmu);
  producers_left--;
  pthread_cond_broadcast(&qcond);
  pthread_mutex_unlock(&qmu);
  return NULL;
}

static char *read_line(FILE *f, size_t *len) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, f);
  if (n <= 0) {
    free(line);
    return NULL;
  }
  if (line[n - 1] == '\n') line[--n] = 0;
  *len = (size_t)n;
  return line;
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  FILE *f = fopen(argv[1], "r");
  if (f == NULL) return 2;
  int nthreads = atoi(argv[2]);
  rounds = atoi(argv[3]);
  if (nthreads < 1 || nthreads > 64 || rounds < 1) return 2;
  size_t cap = 16;
  cases = malloc(cap * sizeof *cases);
  for (;;) {
    size_t rl, wl;
    char *req = read_line(f, &rl);
    if (req == NULL) break;
    char *want = read_line(f, &wl);
    if (want == NULL) return 3;
    if (ncases == cap) cases = realloc(cases, (cap *= 2) * sizeof *cases);
    int kind = strcmp(req, "-") == 0 ? 1 : strcmp(req, "=") == 0 ? 2 : 0;
    cases[ncases++] = (test_case){req, rl, kind, want, wl};
  }
  fclose(f);
  if (ncases == 0) return 3;
  if (toolerr_abi_version() != TOOLERR_ABI_VERSION) return 4;
  qcap = 256;
  queue = malloc(qcap * sizeof *queue);
  producers_left = nthreads;
  pthread_t threads[64], freers[2];
  for (int i = 0; i < 2; i++) pthread_create(&freers[i], NULL, freer, NULL);
  for (int i = 0; i < nthreads; i++) pthread_create(&threads[i], NULL, caller, (void *)(size_t)i);
  for (int i = 0; i < nthreads; i++) pthread_join(threads[i], NULL);
  for (int i = 0; i < 2; i++) pthread_join(freers[i], NULL);
  toolerr_free(NULL);
  printf("calls %ld mismatches %ld\n", calls, mismatches);
  return mismatches == 0 ? 0 : 1;
}
