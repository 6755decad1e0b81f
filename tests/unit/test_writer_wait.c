/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writers that wait for their consumer (ringbuf_set_writer_wait()): a
 * slow reader of a small producer/consumer buffer gets every record, in
 * order; a reader that stops costs the writer one wait, then records
 * drop (counted, the waits too); a nested writer never waits; the setting is kept in
 * the mapping and cleared by the view that set it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "tu.h"

#define NR_EVENTS 20000u

static struct ringbuf *g_rb;
static atomic_int g_done;
static atomic_uint g_read;

static void nap_us(long us)
{
	struct timespec ts = { 0, us * 1000 };

	nanosleep(&ts, NULL);
}

/* A reader slower than the writer: a page at a time, with naps. */
static void *slow_reader(void *arg)
{
	uint32_t next = 0;

	(void)arg;
	while (next < NR_EVENTS) {
		struct ringbuf_event *ev;
		uint64_t ts;

		ev = ringbuf_consume(g_rb, 0, &ts, NULL);
		if (!ev) {
			if (atomic_load(&g_done) && ringbuf_empty_cpu(g_rb, 0))
				break;
			nap_us(200);
			continue;
		}
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), next,
			 16);
		next++;
		atomic_store(&g_read, next);
		/* slower than the writer: a nap every 100 records */
		if (next % 100 == 0)
			nap_us(300);
	}
	return NULL;
}

/* A slow reader gets everything: the writer waited instead of dropping. */
static void slow_reader_gets_all(void)
{
	pthread_t th;
	uint32_t i;
	void *ret;

	g_rb = tu_create(4, 0, 1, RINGBUF_PER_THREAD);
	ASSERT_EQ(ringbuf_writer_wait(g_rb), 0);
	ASSERT_EQ(ringbuf_set_writer_wait(g_rb, 5000), 0);
	ASSERT_EQ(ringbuf_writer_wait(g_rb), 5000);
	atomic_store(&g_done, 0);
	ASSERT_EQ(pthread_create(&th, NULL, slow_reader, NULL), 0);
	for (i = 0; i < NR_EVENTS; i++)
		ASSERT_EQ(tu_write(g_rb, i, 16), 0);
	atomic_store(&g_done, 1);
	ASSERT_EQ(pthread_join(th, &ret), 0);
	ASSERT_NULL(ret);
	ASSERT_EQ(atomic_load(&g_read), NR_EVENTS);
	ASSERT_EQ(ringbuf_dropped_events_cpu(g_rb, 0), 0);
	ASSERT_EQ(ringbuf_entries_cpu(g_rb, 0), 0);
	ringbuf_free(g_rb);
}

/* Without the setting the same run drops, counted: the test can fail. */
static void no_wait_drops(void)
{
	uint64_t waits, ns;
	uint32_t i, ok = 0;

	g_rb = tu_create(4, 0, 1, RINGBUF_PER_THREAD);
	for (i = 0; i < NR_EVENTS; i++)
		if (tu_write(g_rb, i, 16) == 0)
			ok++;
	ASSERT_LT(ok, NR_EVENTS);
	ASSERT_EQ(ringbuf_dropped_events_cpu(g_rb, 0), NR_EVENTS - ok);
	/* nor counted as waits (ringbuf_room_waits_cpu()) */
	ASSERT_EQ(ringbuf_room_waits_cpu(g_rb, 0, &waits, &ns), 0);
	ASSERT_EQ(waits, 0);
	ASSERT_EQ(ns, 0);
	ringbuf_free(g_rb);
}

/* Nobody reads: the first full write waits once, the rest drop at once;
 * a read makes the next full write wait again. Every record is either
 * in the buffer or counted as dropped. */
static void stopped_reader_one_wait(void)
{
	struct timespec t0, t1;
	uint64_t waits, ns;
	uint32_t i, ok = 0;
	double ms;

	g_rb = tu_create(4, 0, 1, RINGBUF_PER_THREAD);
	ASSERT_EQ(ringbuf_set_writer_wait(g_rb, 50), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 2000; i++)
		if (tu_write(g_rb, i, 16) == 0)
			ok++;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	     (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	/* one wait of 50 ms, not one per dropped record (that would be
	 * minutes): a bound no load makes this fail */
	ASSERT_TRUE(ms >= 45.0);
	ASSERT_TRUE(ms < 2000.0 * 50 / 10);
	ASSERT_EQ(ringbuf_dropped_events_cpu(g_rb, 0), 2000 - ok);
	ASSERT_EQ(ringbuf_entries_cpu(g_rb, 0), ok);
	/* counted (ringbuf_room_waits_cpu()): one wait, to its deadline */
	ASSERT_EQ(ringbuf_room_waits_cpu(g_rb, 0, &waits, &ns), 0);
	ASSERT_EQ(waits, 1);
	ASSERT_GE_U(ns, 50000000u);
	/* the reader takes a page: a writer waits (in vain) once more */
	ASSERT_NOT_NULL(ringbuf_consume(g_rb, 0, NULL, NULL));
	for (i = 0; i < 300; i++)
		(void)tu_write(g_rb, 2000 + i, 16);
	ASSERT_EQ(ringbuf_room_waits_cpu(g_rb, 0, &waits, &ns), 0);
	ASSERT_EQ(waits, 2);
	ASSERT_GE_U(ns, 100000000u);
	/* given up again: the next full write drops at once, even with a
	 * wait of a minute set (a wait would outlast the bound below by
	 * 40 s, on any machine) */
	ASSERT_EQ(ringbuf_set_writer_wait(g_rb, 60000), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(tu_write(g_rb, 9999, 16), -ENOSPC);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	     (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	ASSERT_TRUE(ms < 20000.0);
	ASSERT_EQ(ringbuf_room_waits_cpu(g_rb, 0, &waits, &ns), 0);
	ASSERT_EQ(waits, 2);
	ASSERT_EQ(ringbuf_room_waits_cpu(NULL, 0, &waits, &ns), -EINVAL);
	ASSERT_EQ(ringbuf_room_waits_cpu(g_rb, 0, NULL, &ns), -EINVAL);
	ringbuf_free(g_rb);
}

/* Limits and the view that set it. */
static void setting(void)
{
	g_rb = tu_create(4, 0, 1, RINGBUF_PER_THREAD);
	ASSERT_EQ(ringbuf_set_writer_wait(NULL, 1), -EINVAL);
	ASSERT_EQ(ringbuf_writer_wait(NULL), -EINVAL);
	ASSERT_EQ(ringbuf_set_writer_wait(g_rb, RINGBUF_WRITER_WAIT_MAX_MS + 1),
		  -ERANGE);
	ASSERT_EQ(ringbuf_writer_wait(g_rb), 0);
	ASSERT_EQ(ringbuf_set_writer_wait(g_rb, RINGBUF_WRITER_WAIT_MAX_MS), 0);
	ASSERT_EQ(ringbuf_writer_wait(g_rb), (int)RINGBUF_WRITER_WAIT_MAX_MS);
	ASSERT_EQ(ringbuf_set_writer_wait(g_rb, 0), 0);
	ASSERT_EQ(ringbuf_writer_wait(g_rb), 0);
	ringbuf_free(g_rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(slow_reader_gets_all),
	RBT_CASE(no_wait_drops),
	RBT_CASE(stopped_reader_one_wait),
	RBT_CASE(setting),
};
RBT_MAIN(cases)
