/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The default clock (RINGBUF_CLOCK_MONO, ringbuf/src/clock.c): the
 * scale's arithmetic on made-up pairs, the clock against
 * clock_gettime(CLOCK_MONOTONIC) across its recalibrations, and the order
 * of records written by threads that hand a token to each other, read
 * back from every cpu buffer.
 *
 * On a machine whose TSC is not trusted the clock is clock_gettime()
 * itself and the last two cases still hold; they say which they saw.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test.h"
#include "tu.h"

static int64_t scaled(const struct ringbuf_fe_clock *c, uint64_t tsc)
{
	return (int64_t)ringbuf_fe_mono_scale(tsc, c->tsc0, c->ns0, c->mult);
}

static int64_t absdiff(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

/* A made-up TSC at 2.5 GHz (0.4 ns a cycle). */
#define HZ 2500000000ll
#define CYC(ns) ((uint64_t)((__int128)(ns) * HZ / 1000000000))

static void scale_math(void)
{
	struct ringbuf_fe_clock a, b, c;
	uint64_t t0 = 1000, t1, t2, t3;
	int64_t n0 = 1000000000, n1, n2;

	/* The first scale: anchored at the second pair, the rate between
	 * the two, due again one window later. */
	t1 = t0 + CYC(50000000);
	n1 = n0 + 50000000;
	ASSERT_TRUE(rb_clock_next(NULL, false, t0, n0, t1, n1, 200000000, &a));
	ASSERT_EQ_U(a.tsc0, t1);
	ASSERT_EQ(a.ns0, n1);
	ASSERT_LE(absdiff(scaled(&a, t1 + CYC(1000000000)), n1 + 1000000000), 1);
	ASSERT_LE(absdiff((int64_t)(a.tsc_end - t1), (int64_t)CYC(200000000)), 1);

	/* CLOCK_MONOTONIC ran 20 ppm fast over the window (NTP): the scale
	 * is 4 us behind. The next one starts where the old one stands (no
	 * step) and meets CLOCK_MONOTONIC at the end of its window, if the
	 * new rate holds. */
	t2 = t1 + CYC(200000000);
	n2 = n1 + 200000000 + 4000;
	ASSERT_TRUE(rb_clock_next(&a, true, t1, n1, t2, n2, 800000000, &b));
	ASSERT_EQ_U(b.tsc0, t2);
	ASSERT_EQ(b.ns0, scaled(&a, t2));
	ASSERT_LE(absdiff(absdiff(scaled(&a, t2), n2), 4000), 1);
	t3 = b.tsc_end;
	ASSERT_LE(absdiff(scaled(&b, t3), n2 + 800000000), 2);
	/* and never goes back */
	ASSERT_GE(scaled(&b, t2 + 1), scaled(&a, t2));

	/* An error beyond a millisecond (a suspend) is stepped. */
	ASSERT_TRUE(rb_clock_next(&a, true, t1, n1, t2, n2 + 5000000, 800000000,
				  &c));
	ASSERT_EQ(c.ns0, n2 + 5000000);

	/* A large error is slewed at 500 ppm at most. */
	ASSERT_TRUE(rb_clock_next(&a, true, t1, n1, t2, n1 + 200000000 + 900000,
				  50000000, &c));
	ASSERT_EQ(c.ns0, scaled(&a, t2));
	{
		int64_t over = scaled(&c, t2 + CYC(50000000)) - c.ns0;
		int64_t rate = (int64_t)((__int128)50000000 * 200900000 / 200000000);

		ASSERT_LE(absdiff(over, rate), rate / 2000 + 2);
		ASSERT_GE(absdiff(over, rate), rate / 2000 - 2);
	}

	/* No sane rate: a TSC that did not move, or one at 1 THz. */
	ASSERT_FALSE(rb_clock_next(NULL, false, t1, n1, t1, n1 + 1000, 1, &c));
	ASSERT_FALSE(rb_clock_next(NULL, false, 0, n1, 1000000000000ull,
				   n1 + 1000000, 1, &c));
	ASSERT_FALSE(rb_clock_next(NULL, false, t1, n1, t1 + 10, n1 - 5, 1, &c));
}

static bool clock_is_scaled(void)
{
	return !(__atomic_load_n(&ringbuf_fe_mono.seq, __ATOMIC_ACQUIRE) & 1);
}

/* How far the clock may lie from clock_gettime(): the calibration's
 * error over its first window, with room for a loaded machine. */
#define BOUND_NS 100000

static atomic_int tracks_failed;

/*
 * Read @n: a read of the clock between two clock_gettime() calls lies
 * between them, within BOUND_NS, and not before the last read (@last,
 * updated). Returns the second clock_gettime(), or -1 (said why).
 */
static int64_t tracks_read(unsigned long n, int64_t *last)
{
	int64_t m1 = rb_clock_mono_raw_ns();
	int64_t s = (int64_t)ringbuf_fe_mono_ns();
	int64_t m2 = rb_clock_mono_raw_ns();

	if (s < m1 - BOUND_NS || s > m2 + BOUND_NS || s < *last) {
		fprintf(stderr,
			"read %lu: %lld not within [%lld, %lld] +- %d, "
			"or before %lld\n", n, (long long)s, (long long)m1,
			(long long)m2, BOUND_NS, (long long)*last);
		return -1;
	}
	*last = s;
	return m2;
}

/* For 1.2 s (five calibrations: after 2, 10, 42, 170 and 682 ms), every read
 * lies between the clock_gettime() calls around it, within BOUND_NS, and
 * no read goes back. */
static void *tracks_thread(void *arg)
{
	int64_t start = rb_clock_mono_raw_ns(), last = 0, m2;
	unsigned long n = 0;

	(void)arg;
	for (;;) {
		m2 = tracks_read(n, &last);
		if (m2 < 0) {
			atomic_store(&tracks_failed, 1);
			return NULL;
		}
		if (m2 - start > 1200000000ll)
			break;
		if (++n % 64 == 0)
			sched_yield();
	}
	return NULL;
}

static void tracks_mono(void)
{
	pthread_t th;

	ASSERT_EQ(pthread_create(&th, NULL, tracks_thread, NULL), 0);
	tracks_thread(NULL);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_EQ(atomic_load(&tracks_failed), 0);
	fprintf(stderr, "the clock is %s\n",
		clock_is_scaled() ? "the scaled TSC" : "clock_gettime()");
}

/*
 * The change-over from clock_gettime() to the scaled TSC: the library
 * noted its first pair when it loaded, and the first read after the
 * first window (2 ms, passed by the time a case runs) publishes the
 * first scale. That read, and every read after it, is at or after every
 * clock_gettime() taken before it (the clock the reads gave until
 * then), and within BOUND_NS of it, for 100 ms (the second window's
 * calibration too).
 */
static void first_switch(void)
{
	int64_t before, start, last;
	bool was_scaled = clock_is_scaled();
	unsigned long n = 0;

	before = rb_clock_mono_raw_ns();
	last = (int64_t)ringbuf_fe_mono_ns();
	/* (a scale published earlier lies within its error, either side) */
	if (!was_scaled)
		ASSERT_GE(last, before);
	else
		ASSERT_GE(last, before - BOUND_NS);
	ASSERT_LE(last, rb_clock_mono_raw_ns() + BOUND_NS);
	start = before;
	for (;;) {
		int64_t m2 = tracks_read(n++, &last);

		ASSERT_GE(m2, 0);
		if (m2 - start > 100000000ll)
			break;
	}
	fprintf(stderr, "the clock was %s at the case's first read, then %s\n",
		was_scaled ? "the scaled TSC" : "clock_gettime()",
		clock_is_scaled() ? "the scaled TSC" : "clock_gettime()");
}

/* Two threads hand a token back and forth; each writes a record with
 * the token's count into a per-CPU buffer, then passes it on. Read back
 * from every cpu buffer, the records' stamps follow the counts: merged by
 * time stamp, the streams come out in the order they were written. The
 * run spans the first calibration, where the clock changes over. */
static struct ringbuf *order_rb;
static atomic_ulong order_token;
static atomic_int order_stop;
static int64_t order_start;
#define ORDER_MAX 400000ul

static void *order_thread(void *arg)
{
	unsigned long me = (unsigned long)(uintptr_t)arg;

	for (;;) {
		unsigned long tok = atomic_load(&order_token);
		uint64_t seq;

		if (atomic_load(&order_stop))
			return NULL;
		/* Stop after 150 ms (past the first calibration) and 1000
		 * records, however loaded the machine. */
		if (!me && tok >= 1000 &&
		    rb_clock_mono_raw_ns() - order_start > 150000000) {
			atomic_store(&order_stop, 1);
			return NULL;
		}
		if ((tok & 1) != me) {
			sched_yield();
			continue;
		}
#if defined(__x86_64__)
		/*
		 * The clock's rdtsc is not ordered after earlier loads: it may
		 * run while the load of the token that saw the other thread's
		 * record is still waiting for the line, and so read a TSC from
		 * before that record's (seen on a VM: 94 ns early). The fence
		 * makes the write follow the token as a lock would make it
		 * follow the other thread; the order tested is the clock's.
		 */
		__builtin_ia32_lfence();
#endif
		seq = tok;
		if (tok >= ORDER_MAX ||
		    ringbuf_write(order_rb, sizeof(seq), &seq) != 0) {
			atomic_store(&order_stop, 1);
			return NULL;
		}
		atomic_store(&order_token, tok + 1);
	}
}

static void ordered_across_threads(void)
{
	RINGBUF_OPTS(o, .size = 16u << 20, .model = RINGBUF_PER_CPU);
	uint64_t *ts;
	unsigned long n, i, seen = 0;
	pthread_t th;
	int cpu, nr;

	order_rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(order_rb);
	order_start = rb_clock_mono_raw_ns();
	ASSERT_EQ(pthread_create(&th, NULL, order_thread, (void *)(uintptr_t)1), 0);
	order_thread(NULL);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	n = atomic_load(&order_token);
	ASSERT_GT(n, 100);
	ts = calloc(n, sizeof(*ts));
	ASSERT_NOT_NULL(ts);
	nr = ringbuf_nr_cpus(order_rb);
	for (cpu = 0; cpu < nr; cpu++) {
		struct ringbuf_event *ev;
		uint64_t t;

		while ((ev = ringbuf_consume(order_rb, cpu, &t, NULL))) {
			uint64_t seq;

			ASSERT_GE(ringbuf_event_length(ev), sizeof(seq));
			memcpy(&seq, ringbuf_event_data(ev), sizeof(seq));
			ASSERT_LT_U(seq, n);
			ASSERT_EQ_U(ts[seq], 0);
			ts[seq] = t;
			seen++;
		}
	}
	ASSERT_EQ_U(seen, n);
	for (i = 1; i < n; i++) {
		if (ts[i] < ts[i - 1])
			fprintf(stderr, "record %lu at %llu, before record %lu "
				"at %llu\n", i, (unsigned long long)ts[i], i - 1,
				(unsigned long long)ts[i - 1]);
		ASSERT_GE_U(ts[i], ts[i - 1]);
	}
	fprintf(stderr, "%lu records in order; the clock is %s\n", n,
		clock_is_scaled() ? "the scaled TSC" : "clock_gettime()");
	free(ts);
	ringbuf_free(order_rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(scale_math),
	RBT_CASE(tracks_mono),
	RBT_CASE(first_switch),
	RBT_CASE(ordered_across_threads),
};
RBT_MAIN(cases)
