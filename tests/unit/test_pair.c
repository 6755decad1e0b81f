/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two records in one reservation (<ringbuf/frontend.h>,
 * ringbuf_reserve_pair_inline()): readers see two ordinary records, with
 * their own headers and stamps; the first is stamped with its own time,
 * raised to the buffer's last stamp; a signal handler nests in a pair as
 * in one record; a full buffer refuses the pair whole and counts two
 * drops; with writers and a reader at once, read + lost == written.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ringbuf/frontend.h>

#include "test.h"
#include "tu.h"

/* The graph tracer's sizes: a 20-byte entry and a 40-byte exit. */
#define LEN1 20u
#define LEN2 40u

/* Reserve a pair of @seq (its records seq*2 and seq*2+1), fill, commit. */
static bool write_pair(struct ringbuf *rb, uint32_t seq, uint64_t ts1,
		       uint64_t ts2, int *err)
{
	struct ringbuf_event *e2 = NULL;
	struct ringbuf_event *e1 = ringbuf_reserve_pair_inline(rb, LEN1, LEN2,
							       ts1, ts2, &e2,
							       err);

	if (!e1)
		return false;
	ASSERT_NOT_NULL(e2);
	ASSERT_EQ(ringbuf_event_data_inline(e1), ringbuf_event_data(e1));
	ASSERT_EQ(ringbuf_event_data_inline(e2), ringbuf_event_data(e2));
	ASSERT_EQ(ringbuf_event_length(e1), tu_event_len(LEN1));
	ASSERT_EQ(ringbuf_event_length(e2), tu_event_len(LEN2));
	tu_fill(ringbuf_event_data(e1), seq * 2, LEN1);
	tu_fill(ringbuf_event_data(e2), seq * 2 + 1, LEN2);
	ASSERT_EQ(ringbuf_commit_pair_inline(rb), 0);
	return true;
}

/* One record of @seq, stamped @ts (ringbuf_reserve_inline_at()). */
static void write_one_at(struct ringbuf *rb, uint32_t seq, uint64_t ts)
{
	struct ringbuf_event *e = ringbuf_reserve_inline_at(rb, LEN2, ts);

	ASSERT_NOT_NULL(e);
	tu_fill(ringbuf_event_data_inline(e), seq, LEN2);
	ASSERT_EQ(ringbuf_commit_inline(rb), 0);
}

/* Read the next record, check it is @seq of @len, return its stamp. */
static uint64_t read_one(struct ringbuf *rb, uint32_t seq, size_t len)
{
	struct ringbuf_event *ev;
	uint64_t ts;
	int cpu;

	ASSERT_NOT_NULL(ev = ringbuf_consume_next(rb, &cpu, &ts, NULL));
	tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), seq, len);
	return ts;
}

/*
 * Pairs across pages: two records each, in order, with the payloads
 * written; the first stamped with its own time (300 ns before the
 * second's) unless the pair opens a page (then both take the page's
 * stamp) or crosses to the next (both at the reservation's stamp, the
 * second's time); the second with its own time or
 * later; every time read back monotonic; the counters count two records
 * a pair.
 */
static void pair_model(int model)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(8), .nr_cpus = 1, .model = model);
	struct ringbuf *rb = ringbuf_create(&o);
	uint64_t ts2[150], last = 0;
	uint32_t n, exact = 0;
	int err;

	ASSERT_NOT_NULL(rb);
	for (n = 0; n < 150; n++) {
		/* a microsecond apart, so that the first time does not lie
		 * before the last pair's (bounded: the clock moves) */
		do
			ts2[n] = ringbuf_fe_mono_ns();
		while (n && ts2[n] < ts2[n - 1] + 1000);
		ASSERT_TRUE(write_pair(rb, n, ts2[n] - 300, ts2[n], &err));
	}
	ASSERT_EQ(ringbuf_entries(rb), 2 * n);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = read_one(rb, i * 2, LEN1);
		uint64_t b = read_one(rb, i * 2 + 1, LEN2);

		ASSERT_GE_U(a, last);
		ASSERT_GE_U(b, ts2[i]);
		ASSERT_LE_U(a, b);
		if (a == ts2[i] - 300) {
			ASSERT_EQ_U(b, ts2[i]);
			exact++;
		} else {
			/* opened or crossed a page, or raised to the last */
			ASSERT_TRUE(a == b || a == last);
		}
		last = b;
	}
	/* a few open or cross a page, the rest are exact */
	ASSERT_GT(exact, n - 12);
	ASSERT_TRUE(ringbuf_empty(rb));
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 2 * n);
	ringbuf_free(rb);
}

static void pair_per_thread(void)
{
	pair_model(RINGBUF_PER_THREAD);
}

static void pair_per_cpu(void)
{
	pair_model(RINGBUF_PER_CPU);
}

/*
 * A record written late with the time it stands for keeps that time
 * when it does not fit the tail page: the page move (out of line) does
 * not read the clock again, so the record's stamp never lies after the
 * stamp of one the thread writes next with its own, earlier time (a
 * function_graph entry held back, then its callee's, each on another
 * CPU's buffer when the thread migrated in between). Each record is
 * stamped 10 ns after the last, all long before now.
 */
static void stamp_kept_model(int model)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(8), .nr_cpus = 1, .model = model);
	struct ringbuf *rb = ringbuf_create(&o);
	struct timespec nap = { 0, 2000000 };
	uint64_t base;
	uint32_t n;

	ASSERT_NOT_NULL(rb);
	base = ringbuf_fe_mono_ns();
	/* now lies 2 ms after every stamp below */
	nanosleep(&nap, NULL);
	/* four pages and more: page moves */
	for (n = 0; n < 600; n++)
		write_one_at(rb, n, base + 10ull * n);
	ASSERT_GT(ringbuf_read_events_cpu(rb, 0) + ringbuf_entries(rb), 0);
	for (uint32_t i = 0; i < n; i++)
		ASSERT_EQ_U(read_one(rb, i, LEN2), base + 10ull * i);
	ASSERT_TRUE(ringbuf_empty(rb));
	ringbuf_free(rb);
}

static void stamp_kept_per_thread(void)
{
	stamp_kept_model(RINGBUF_PER_THREAD);
}

static void stamp_kept_per_cpu(void)
{
	stamp_kept_model(RINGBUF_PER_CPU);
}

struct spare_arg {
	struct ringbuf *rb;
	uint64_t base;
	/* a nested write (seq 1000, 5 ns before) interrupts this record's
	 * reservation between B and C; none if 0 */
	uint32_t interrupt;
};

static struct spare_arg *g_spare;
static int g_spare_armed;

/* A signal handler's write, between B and C of the reservation armed. */
static void spare_interrupt(struct ringbuf *rb, int cpu,
			    enum ringbuf_testpoint tp, void *arg)
{
	(void)cpu, (void)arg;
	if (tp != RINGBUF_TP_RESERVE_B_C || !g_spare_armed)
		return;
	g_spare_armed = 0;
	write_one_at(rb, 1000, g_spare->base + 10ull * g_spare->interrupt - 5);
}

/* A thread of the CPU whose buffer is held (the forced CPU 0): its
 * records go to the spare, each 10 ns after the last, then a pair. */
static void *spare_writer(void *p)
{
	struct spare_arg *a = p;
	int err;

	ringbuf_test_set_cpu(0);
	for (uint32_t n = 0; n < 200; n++) {
		if (a->interrupt && n == a->interrupt) {
			g_spare = a;
			g_spare_armed = 1;
			ringbuf_test_set_hook(spare_interrupt, NULL);
		}
		write_one_at(a->rb, n, a->base + 10ull * n);
		ringbuf_test_set_hook(NULL, NULL);
		ASSERT_EQ(g_spare_armed, 0);
	}
	ASSERT_TRUE(write_pair(a->rb, 100, a->base + 2000, a->base + 2005,
			       &err));
	ringbuf_test_set_cpu(-1);
	return NULL;
}

/*
 * The same in a spare (the out-of-line rare path, and the CPU notes
 * that open the spare's pages): a per-CPU writer whose CPU buffer is
 * not to be had (held by another thread, or its claim's restartable
 * sequence aborted by preemptions) writes there, and its records keep
 * the times they were given, all long before now; read back before the
 * holder's record, reserved earlier but stamped now.
 */
static void stamp_kept_spare_at(uint32_t interrupt)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(8), .nr_cpus = 1,
		     .spare_buffers = 1, .model = RINGBUF_PER_CPU);
	struct ringbuf *rb = ringbuf_create(&o);
	struct timespec nap = { 0, 2000000 };
	struct spare_arg a = { .rb = rb, .interrupt = interrupt };
	struct ringbuf_event *ev;
	uint64_t ts, t1, t2;
	pthread_t th;
	int cpu;

	ASSERT_NOT_NULL(rb);
	a.base = ringbuf_fe_mono_ns();
	/* now lies 2 ms after every stamp of the spare */
	nanosleep(&nap, NULL);
	ringbuf_test_set_cpu(0);
	ev = ringbuf_reserve_inline(rb, LEN2);
	ASSERT_NOT_NULL(ev);
	tu_fill(ringbuf_event_data_inline(ev), 1000, LEN2);
	ASSERT_EQ(pthread_create(&th, NULL, spare_writer, &a), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_EQ(ringbuf_commit_inline(rb), 0);
	ringbuf_test_set_cpu(-1);
	for (uint32_t i = 0; i < 200; i++) {
		if (interrupt && i == interrupt)
			/* the handler's record, before the one it
			 * interrupted, with its own time */
			ASSERT_EQ_U(read_one(rb, 1000, LEN2),
				    a.base + 10ull * i - 5);
		ASSERT_NOT_NULL(ev = ringbuf_consume_next(rb, &cpu, &ts, NULL));
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), i,
			 LEN2);
		ASSERT_TRUE(ringbuf_is_spare(rb, cpu));
		ASSERT_EQ_U(ts, a.base + 10ull * i);
	}
	/* the pair: its own times, or both the second's where it opens a
	 * page (after the page's note) */
	t1 = read_one(rb, 200, LEN1);
	t2 = read_one(rb, 201, LEN2);
	ASSERT_EQ_U(t2, a.base + 2005);
	ASSERT_TRUE(t1 == a.base + 2000 || t1 == t2);
	ASSERT_GT_U(read_one(rb, 1000, LEN2), a.base + 2005);
	ASSERT_TRUE(ringbuf_empty(rb));
	ringbuf_free(rb);
}

static void stamp_kept_spare(void)
{
	stamp_kept_spare_at(0);
}

/*
 * A reservation interrupted between B and C by a write of the same
 * thread (a signal handler's: the hook of the test point) keeps the
 * time it was given too (rb_reserve_interrupted()), rather than a
 * second read of the clock.
 */
static void stamp_kept_interrupted(void)
{
	stamp_kept_spare_at(50);
}

struct clamp_arg {
	struct ringbuf *rb;
};

/* Another thread's record on the same CPU buffer (the forced CPU 0),
 * stamped now. */
static void *clamp_other(void *p)
{
	struct clamp_arg *a = p;

	ringbuf_test_set_cpu(0);
	write_one_at(a->rb, 1000, ringbuf_fe_mono_ns());
	ringbuf_test_set_cpu(-1);
	return NULL;
}

/*
 * Per-CPU: the pair's first time lies before a record another thread
 * wrote to the CPU buffer meanwhile (a writer preempted in the call):
 * the first record is raised to that record's time (delta 0), the second
 * keeps its own; read back monotonic.
 */
static void pair_clamp(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(8), .nr_cpus = 2,
		     .model = RINGBUF_PER_CPU);
	struct ringbuf *rb = ringbuf_create(&o);
	struct clamp_arg a = { .rb = rb };
	uint64_t t0, t1, ts1, t, other;
	pthread_t th;
	int err;

	ASSERT_NOT_NULL(rb);
	ringbuf_test_set_cpu(0);
	/* an ordinary pair first (it opens the page: the next one does
	 * not) */
	t0 = ringbuf_fe_mono_ns();
	ASSERT_TRUE(write_pair(rb, 0, t0 - 100, t0, &err));
	/* our call begins; the other thread writes; our call ends */
	ts1 = ringbuf_fe_mono_ns();
	ASSERT_EQ(pthread_create(&th, NULL, clamp_other, &a), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	t1 = ringbuf_fe_mono_ns();
	ASSERT_TRUE(write_pair(rb, 1, ts1, t1, &err));
	ringbuf_test_set_cpu(-1);
	read_one(rb, 0, LEN1);
	ASSERT_GE_U(read_one(rb, 1, LEN2), t0);
	other = read_one(rb, 1000, LEN2);
	ASSERT_GT_U(other, ts1);
	/* raised to the other thread's record */
	t = read_one(rb, 2, LEN1);
	ASSERT_EQ_U(t, other);
	ASSERT_EQ_U(read_one(rb, 3, LEN2), t1);
	ASSERT_TRUE(ringbuf_empty(rb));
	ringbuf_free(rb);
}

static struct ringbuf *g_rb;
static volatile sig_atomic_t g_handler_ret;

static void nest_handler(int sig)
{
	int err;

	(void)sig;
	/* a pair of its own inside ours */
	g_handler_ret = write_pair(g_rb, 7, ringbuf_fe_mono_ns(),
				   ringbuf_fe_mono_ns(), &err) ?
				1 :
				-1;
}

/*
 * A signal handler writes a pair while the thread holds its pair
 * reserved: it nests as for one record (after ours, visible with our
 * commit), every record whole and the times monotonic.
 */
static void pair_nest(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .model = RINGBUF_PER_CPU);
	struct sigaction sa = { .sa_handler = nest_handler };
	struct ringbuf_event *e1, *e2;
	uint64_t t, a, b, c, d;
	int err;

	tu_pin_here();
	g_rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(g_rb);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	t = ringbuf_fe_mono_ns();
	e1 = ringbuf_reserve_pair_inline(g_rb, LEN1, LEN2, t, t + 10, &e2,
					 &err);
	ASSERT_NOT_NULL(e1);
	tu_fill(ringbuf_event_data(e1), 0, LEN1);
	raise(SIGUSR1);
	ASSERT_EQ(g_handler_ret, 1);
	ASSERT_TRUE(ringbuf_empty(g_rb));
	tu_fill(ringbuf_event_data(e2), 1, LEN2);
	ASSERT_EQ(ringbuf_commit_pair_inline(g_rb), 0);
	ASSERT_EQ(ringbuf_entries(g_rb), 4);
	a = read_one(g_rb, 0, LEN1);
	b = read_one(g_rb, 1, LEN2);
	c = read_one(g_rb, 14, LEN1);
	d = read_one(g_rb, 15, LEN2);
	ASSERT_LE_U(a, b);
	ASSERT_LE_U(b, c);
	ASSERT_LE_U(c, d);
	ASSERT_TRUE(ringbuf_empty(g_rb));
	signal(SIGUSR1, SIG_DFL);
	ringbuf_free(g_rb);
}

/*
 * A full producer/consumer buffer refuses the pair whole (no half pair is
 * ever read) and counts two drops for it; a pair too large for one small
 * record is refused with -E2BIG, nothing counted.
 */
static void pair_full(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(3), .nr_cpus = 1,
		     .model = RINGBUF_PER_THREAD);
	struct ringbuf *rb = ringbuf_create(&o);
	struct ringbuf_event *e2;
	unsigned long dropped;
	uint32_t n = 0;
	int err = 0;

	ASSERT_NOT_NULL(rb);
	while (write_pair(rb, n, ringbuf_fe_mono_ns(), ringbuf_fe_mono_ns(),
			  &err))
		n++;
	ASSERT_EQ(err, -ENOSPC);
	ASSERT_GT(n, 10);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 2);
	ASSERT_FALSE(write_pair(rb, n, 1, 2, &err));
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 4);
	dropped = ringbuf_dropped_events_cpu(rb, 0);
	ASSERT_NULL(ringbuf_reserve_pair_inline(rb, 60, 60, 1, 2, &e2, &err));
	ASSERT_EQ(err, -E2BIG);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), dropped);
	ASSERT_EQ(ringbuf_entries(rb), 2 * n);
	for (uint32_t i = 0; i < n; i++) {
		read_one(rb, i * 2, LEN1);
		read_one(rb, i * 2 + 1, LEN2);
	}
	ASSERT_TRUE(ringbuf_empty(rb));
	ringbuf_free(rb);
}

/* ---- a writer that waits for room ---------------------------------------- */

#define WAIT_PAIRS 5000u

static atomic_int w_done;
static atomic_uint w_read;

/* A reader slower than the writer: naps every 100 records. */
static void *wait_reader(void *arg)
{
	struct ringbuf *rb = arg;
	uint32_t next = 0;

	while (next < 2 * WAIT_PAIRS) {
		struct ringbuf_event *ev = ringbuf_consume(rb, 0, NULL, NULL);

		if (!ev) {
			if (atomic_load(&w_done) && ringbuf_empty_cpu(rb, 0))
				break;
			usleep(200);
			continue;
		}
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), next,
			 next & 1 ? LEN2 : LEN1);
		next++;
		atomic_store(&w_read, next);
		if (next % 100 == 0)
			usleep(300);
	}
	return NULL;
}

/*
 * A producer/consumer buffer whose writers wait for room
 * (ringbuf_set_writer_wait()): a pair that finds the buffer full waits
 * for the reader as one record does, then goes in whole; a slow reader
 * gets every record in order, none dropped.
 */
static void pair_wait(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .nr_cpus = 1,
		     .model = RINGBUF_PER_THREAD);
	struct ringbuf *rb = ringbuf_create(&o);
	pthread_t th;
	int err;

	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringbuf_set_writer_wait(rb, 5000), 0);
	atomic_store(&w_done, 0);
	ASSERT_EQ(pthread_create(&th, NULL, wait_reader, rb), 0);
	for (uint32_t i = 0; i < WAIT_PAIRS; i++) {
		uint64_t t = ringbuf_fe_mono_ns();

		ASSERT_TRUE(write_pair(rb, i, t, t, &err));
	}
	atomic_store(&w_done, 1);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_EQ(atomic_load(&w_read), 2 * WAIT_PAIRS);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 0);
	ringbuf_free(rb);
}

/* ---- the conservation law under load ----------------------------------- */

#define STRESS_WRITERS 3
#define STRESS_PAIRS 40000u

static struct ringbuf *s_rb;
static atomic_ulong s_written, s_failed;

static void *stress_writer(void *p)
{
	uint32_t id = (uint32_t)(uintptr_t)p;

	for (uint32_t i = 0; i < STRESS_PAIRS; i++) {
		uint64_t t = ringbuf_fe_mono_ns();
		int err;

		/* seq: the writer in the top bits, the pair's records
		 * even and odd */
		if (write_pair(s_rb, (id << 20) | i, t, t + (i & 63), &err))
			atomic_fetch_add(&s_written, 2);
		else
			atomic_fetch_add(&s_failed, 2);
	}
	return NULL;
}

/*
 * Writers of pairs on a small overwriting per-CPU buffer, a reader
 * consuming at once: every record read is whole, and the counters keep
 * the conservation law with two records a pair: read + overrun ==
 * written, and the failed reservations' records == dropped + commit
 * overrun.
 */
static void pair_stress(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .flags = RINGBUF_FL_OVERWRITE,
		     .model = RINGBUF_PER_CPU);
	pthread_t th[STRESS_WRITERS];
	bool joined[STRESS_WRITERS] = { false };
	unsigned long read = 0, overrun, dropped, cover;
	int left = STRESS_WRITERS;

	s_rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(s_rb);
	for (uintptr_t i = 0; i < STRESS_WRITERS; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, stress_writer,
					 (void *)i),
			  0);
	/* bounded: the writers end; then one more drain */
	for (;;) {
		struct ringbuf_event *ev;
		bool last = !left;
		int cpu;

		while ((ev = ringbuf_consume_next(s_rb, &cpu, NULL, NULL))) {
			const void *d = ringbuf_event_data(ev);
			uint32_t seq = tu_seq(d);

			tu_check(d, ringbuf_event_length(ev), seq,
				 seq & 1 ? LEN2 : LEN1);
			read++;
		}
		if (last)
			break;
		for (int i = 0; i < STRESS_WRITERS; i++)
			if (!joined[i] && pthread_tryjoin_np(th[i], NULL) == 0) {
				joined[i] = true;
				left--;
			}
		sched_yield();
	}
	overrun = ringbuf_overruns(s_rb);
	dropped = tu_sum(s_rb, ringbuf_dropped_events_cpu);
	cover = tu_sum(s_rb, ringbuf_commit_overrun_cpu);
	ASSERT_EQ(read + overrun, atomic_load(&s_written));
	ASSERT_EQ(dropped + cover, atomic_load(&s_failed));
	ASSERT_EQ(atomic_load(&s_written) + atomic_load(&s_failed),
		  2ul * STRESS_WRITERS * STRESS_PAIRS);
	ringbuf_free(s_rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(pair_per_thread), RBT_CASE(pair_per_cpu),
	RBT_CASE(pair_clamp),	   RBT_CASE(pair_nest),
	RBT_CASE(pair_full),	   RBT_CASE(pair_wait),
	RBT_CASE(pair_stress),	   RBT_CASE(stamp_kept_per_thread),
	RBT_CASE(stamp_kept_per_cpu), RBT_CASE(stamp_kept_spare),
	RBT_CASE(stamp_kept_interrupted),
};
RBT_MAIN(cases)
