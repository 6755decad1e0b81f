/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program of an earlier release: built against that release's
 * installed headers (old_headers.sh takes them from git), run against
 * the library of this tree. It uses only what those headers declare.
 *
 * The case that changed meaning since: an inline write whose claim goes
 * to the library's slow path and comes back with a spare buffer. Another
 * thread holds the buffer of the CPU both threads are pinned to in the
 * middle of a write, so each inline write of the main thread takes a
 * spare. Every record must read back whole.
 *
 * Exit status: 0 pass, 1 fail, 77 skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

#include <ringbuf/frontend.h>

#define N 100

static struct ringbuf *rb;
static sem_t holds, done;
static cpu_set_t one;

static void *holder(void *arg)
{
	struct ringbuf_event *e;

	(void)arg;
	if (sched_setaffinity(0, sizeof(one), &one))
		return NULL;
	e = ringbuf_lock_reserve(rb, 8);
	if (e)
		memcpy(ringbuf_event_data(e), "holder..", 8);
	sem_post(&holds);
	while (sem_wait(&done) && errno == EINTR)
		;
	if (e)
		ringbuf_unlock_commit(rb);
	return NULL;
}

int main(void)
{
	RINGBUF_OPTS(o, .size = 16384, .model = RINGBUF_PER_CPU);
	cpu_set_t all;
	pthread_t t;
	int cpu, seen = 0, holder_seen = 0;
	struct ringbuf_event *e;

	if (sched_getaffinity(0, sizeof(all), &all))
		return 77;
	CPU_ZERO(&one);
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &all); cpu++)
		;
	if (cpu == CPU_SETSIZE)
		return 77;
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return 77;
	sem_init(&holds, 0, 0);
	sem_init(&done, 0, 0);
	rb = ringbuf_create(&o);
	if (!rb) {
		perror("ringbuf_create");
		return 1;
	}
	pthread_create(&t, NULL, holder, NULL);
	while (sem_wait(&holds) && errno == EINTR)
		;
	for (int i = 0; i < N; i++) {
		char rec[16];

		e = ringbuf_reserve_inline(rb, 8);
		if (!e) {
			fprintf(stderr, "FAIL: inline reserve %d refused\n", i);
			return 1;
		}
		snprintf(rec, sizeof(rec), "old%04d", i);
		memcpy(ringbuf_event_data_inline(e), rec, 8);
		if (ringbuf_commit_inline(rb)) {
			fprintf(stderr, "FAIL: inline commit %d\n", i);
			return 1;
		}
	}
	sem_post(&done);
	pthread_join(t, NULL);
	for (cpu = 0; cpu < ringbuf_nr_cpus(rb); cpu++) {
		uint64_t ts;

		while ((e = ringbuf_consume(rb, cpu, &ts, NULL))) {
			const char *d = ringbuf_event_data(e);
			char want[16];

			if (!memcmp(d, "holder..", 8)) {
				holder_seen++;
				continue;
			}
			snprintf(want, sizeof(want), "old%04d", seen);
			if (memcmp(d, want, 8)) {
				fprintf(stderr, "FAIL: record %d reads \"%.8s\"\n",
					seen, d);
				return 1;
			}
			seen++;
		}
	}
	if (seen != N || holder_seen != 1 || !ringbuf_record_is_on(rb)) {
		fprintf(stderr, "FAIL: %d of %d records, holder's %d, "
			"recording %d\n", seen, N, holder_seen,
			ringbuf_record_is_on(rb));
		return 1;
	}
	ringbuf_free(rb);
	printf("PASS: %d inline writes into a spare read back\n", N);
	return 0;
}
