// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostile_traced.c - a traced program that turns against the tool that
 * reads it (the tool tests' hostile writer):
 *
 *   hostile_traced --ready FILE MODE...
 *
 * A thread writes trace_printk() records (a line every 200 us) into the
 * top buffer; once the buffer file is published FILE is written. At each
 * SIGUSR1 the writing stops (a truncated file would kill the program
 * itself) and the next MODE of hostile.h is applied to its own buffer
 * file in $RINGTRACE_DIR; "applied MODE" then goes to stdout. It lives
 * until it is killed.
 */
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ringtrace/tracer.h>

#include "hostile.h"

static atomic_bool stop;

static void *writer(void *arg)
{
	struct timespec ts = { 0, 200000 };
	unsigned int seq = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		ringtrace_printf("hostile line %u\n", seq++);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* The top buffer's file: <dir>/<pid>-<start>.top.*.buf. */
static int find_buf(char *path, size_t n)
{
	const char *dir = getenv("RINGTRACE_DIR");
	char pat[PATH_MAX];
	glob_t g;
	int ret = -1;

	if (!dir)
		return -1;
	snprintf(pat, sizeof(pat), "%s/%d-*.top.*.buf", dir, (int)getpid());
	if (!glob(pat, 0, NULL, &g) && g.gl_pathc == 1) {
		snprintf(path, n, "%s", g.gl_pathv[0]);
		ret = 0;
	}
	globfree(&g);
	return ret;
}

int main(int argc, char **argv)
{
	char buf[PATH_MAX];
	const char *ready = NULL;
	pthread_t th;
	sigset_t set;
	int i = 1, sig;
	FILE *f;

	if (argc > 2 && !strcmp(argv[1], "--ready")) {
		ready = argv[2];
		i = 3;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	ringtrace_printf("hostile start\n");
	for (int t = 0; find_buf(buf, sizeof(buf)); t++) {
		if (t == 500) {
			fprintf(stderr, "hostile_traced: no buffer file\n");
			return 1;
		}
		usleep(10000);
	}
	pthread_create(&th, NULL, writer, NULL);
	if (ready && (f = fopen(ready, "w"))) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	for (; i < argc; i++) {
		if (sigwait(&set, &sig))
			return 1;
		if (!atomic_exchange(&stop, true))
			pthread_join(th, NULL);
		if (hostile_apply(buf, argv[i], 300, 1))
			return 1;
		printf("applied %s\n", argv[i]);
		fflush(stdout);
	}
	for (;;)
		pause();
}
