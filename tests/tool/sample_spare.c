// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sample_spare.c - records written into spare buffers, on known CPUs.
 *
 * sample_spare N [hang]: on each of the first two CPUs the process may run on, a
 * holder thread claims that CPU's buffer and keeps it (an "sp:hold"
 * record whose assignment waits). The main thread then writes N "sp:rec"
 * records, moving between those CPUs now and then: each record goes to a
 * spare, and says in its "on" field the CPU it was written on. Then the
 * holders commit. Prints "rec N" and the CPUs used on stdout. With
 * "hang", it prints that and waits to be killed, the holders' writes
 * unfinished.
 *
 * sample_spare N exec: writes N "sp:rec" records (no holders), then
 * exec()s itself as "sample_spare 0 done", which writes nothing: a
 * program that registered its events, wrote and exec()ed at once.
 * sample_spare N term | fail: writes N "sp:rec" records, then ends by
 * SIGTERM, or with exit status 3.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "sample_spare_trace.h"

static sem_t held, release;

void sample_spare_hold(void)
{
	sem_post(&held);
	while (sem_wait(&release))
		;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void *holder(void *arg)
{
	if (pin((int)(long)arg))
		exit(3);
	trace_hold("claim");
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 1000;
	int cpus[2], nr = 0;
	pthread_t th[2];
	cpu_set_t set;
	unsigned int x = 2463534242u;

	if (argc > 2 && !strcmp(argv[2], "done"))
		return 0;
	if (argc > 2 && (!strcmp(argv[2], "exec") || !strcmp(argv[2], "term") ||
			 !strcmp(argv[2], "fail"))) {
		for (unsigned int i = 0; i < n; i++)
			trace_rec(i, sched_getcpu());
		if (!strcmp(argv[2], "term"))
			raise(SIGTERM);
		if (!strcmp(argv[2], "fail"))
			return 3;
		execl("/proc/self/exe", argv[0], "0", "done", (char *)NULL);
		return 127;
	}
	if (sched_getaffinity(0, sizeof(set), &set))
		return 3;
	for (int c = 0; c < CPU_SETSIZE && nr < 2; c++)
		if (CPU_ISSET(c, &set))
			cpus[nr++] = c;
	if (!nr || sem_init(&held, 0, 0) || sem_init(&release, 0, 0))
		return 3;
	for (int i = 0; i < nr; i++) {
		if (pthread_create(&th[i], NULL, holder, (void *)(long)cpus[i]))
			return 3;
		while (sem_wait(&held))
			;
	}
	for (unsigned int i = 0, k = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (i == 0 || x % 7 == 0) {
			k = (k + 1) % (unsigned int)nr;
			if (pin(cpus[k]))
				return 3;
		}
		trace_rec(i, sched_getcpu());
	}
	if (argc > 2 && !strcmp(argv[2], "hang")) {
		printf("rec %u cpus %d\n", n, nr);
		fflush(stdout);
		for (;;)
			pause();
	}
	for (int i = 0; i < nr; i++)
		sem_post(&release);
	for (int i = 0; i < nr; i++)
		pthread_join(th[i], NULL);
	printf("rec %u cpus %d\n", n, nr);
	return 0;
}
