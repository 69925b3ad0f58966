/* fork.c: calls toolerr in a child forked after the library was loaded
 * (argv[1] calls before the fork, 0 for none), then in the parent again.
 * A child that hangs is killed by its alarm: "child: signal 14". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "toolerr.h"

static const char version[] = "{\"op\":\"version\"}";

static void call(const char *who, const char *req) {
	size_t n = 0;
	uint8_t *p = toolerr_invoke((const uint8_t *)req, strlen(req), &n);
	printf("%s invoke: %.*s\n", who, (int)n, p ? (const char *)p : "(null)");
	toolerr_free(p);
	uint8_t buf[64];
	p = toolerr_invoke_into((const uint8_t *)req, strlen(req), buf, sizeof buf, &n);
	printf("%s into: %s %.*s\n", who, p ? "malloc" : "buf", (int)n, p ? (const char *)p : (const char *)buf);
	toolerr_free(p);
}

int main(int argc, char **argv) {
	int before = argc > 1 ? atoi(argv[1]) : 0;
	for (int i = 0; i < before; i++)
		call("parent", version);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(10);
		printf("child abi: %u\n", toolerr_abi_version());
		for (int i = 0; i < 200; i++) {
			size_t n = 0;
			uint8_t *p = toolerr_invoke((const uint8_t *)"{\"op\":\"codes\"}", 14, &n);
			toolerr_free(p);
		}
		call("child", version);
		fflush(stdout);
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		printf("child: signal %d\n", WTERMSIG(st));
	else
		printf("child: exit %d\n", WEXITSTATUS(st));
	call("parent", version);
	return 0;
}
