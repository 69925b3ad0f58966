/*
 * entry.c: the public functions of toolerr.h. Each answers in C when the
 * process was forked from the one that loaded the library, and otherwise
 * calls the Go exports of main.go (toolerr_go_*).
 *
 * A Go runtime does not survive fork: its threads (the scheduler's, the
 * collector's) stay behind in the parent, so a child that calls into Go
 * waits forever, on its first call when the runtime had not finished
 * starting, or at its first garbage collection. The child handler that
 * pthread_atfork runs in every forked child marks the copy, and every call
 * there answers at once with an UNSUPPORTED error instead of entering Go.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "toolerr.h"
#include "_cgo_export.h"

/* forked is set in a child forked after the library was loaded. */
static volatile int forked;

/* forked_answer is every call's response in such a child. */
static const char forked_answer[] =
	"{\"error\":{\"code\":\"UNSUPPORTED\",\"details\":{\"cause\":\"forked\"},"
	"\"message\":\"toolerr: this process was forked from the one that loaded the library, "
	"and its Go runtime does not survive fork; load the library in the child (after exec), "
	"or before any fork in a process of its own.\",\"retryable\":false,\"source\":\"orchestrator\"}}";

static void mark_forked(void) { forked = 1; }

__attribute__((constructor)) static void watch_fork(void) { pthread_atfork(NULL, NULL, mark_forked); }

/* answer_forked writes forked_answer into buf when it fits (returning NULL),
 * else into a malloc'd copy, as toolerr_invoke_into answers. */
static uint8_t *answer_forked(uint8_t *buf, size_t size, size_t *out_len) {
	size_t n = sizeof forked_answer - 1;
	if (buf != NULL && n <= size) {
		memcpy(buf, forked_answer, n);
		*out_len = n;
		return NULL;
	}
	uint8_t *p = malloc(n);
	if (p == NULL) {
		*out_len = 0;
		return NULL;
	}
	memcpy(p, forked_answer, n);
	*out_len = n;
	return p;
}

uint32_t toolerr_abi_version(void) { return TOOLERR_ABI_VERSION; }

uint8_t *toolerr_invoke(const uint8_t *req, size_t len, size_t *out_len) {
	if (out_len == NULL)
		return NULL;
	if (forked)
		return answer_forked(NULL, 0, out_len);
	return toolerr_go_invoke((uint8_t *)req, len, out_len);
}

uint8_t *toolerr_invoke_into(const uint8_t *req, size_t len, uint8_t *buf, size_t size, size_t *out_len) {
	if (out_len == NULL)
		return NULL;
	if (forked)
		return answer_forked(buf, size, out_len);
	return toolerr_go_invoke_into((uint8_t *)req, len, buf, size, out_len);
}

void toolerr_free(uint8_t *buf) { free(buf); }
