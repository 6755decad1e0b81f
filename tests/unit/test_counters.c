/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Counters and full-buffer behaviour with exact numbers: producer/consumer
 * and overwrite mode, every per-cpu counter, commit overrun and nesting
 * limits, the wakes of a blocked reader.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test.h"
#include "tu.h"

/* 16-byte payloads make 20-byte records: 204 fill a 4080-byte page */
#define EPP 204u

static void pc_full_exact(void)
{
	const unsigned int npages = 4;
	struct ringbuf *rb = tu_create(npages, 0, 1, RINGBUF_PER_CPU);
	struct ringbuf_test_state st;
	unsigned int ok = 0, i;
	struct ringbuf_event *ev;
	int ret;

	ringbuf_test_set_cpu(0);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.nr_pages, npages);
	ASSERT_EQ(tu_record_size(16), 20);
	while ((ret = tu_write(rb, ok, 16)) == 0)
		ok++;
	ASSERT_EQ(ret, -ENOSPC);
	ASSERT_EQ(ok, npages * EPP);
	for (i = 0; i < 10; i++)
		ASSERT_WERR(tu_write(rb, ok, 16), ENOSPC);
	ASSERT_RESERVE_NULL(ringbuf_lock_reserve(rb, 16));
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 12);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), ok);
	ASSERT_EQ(ringbuf_entries(rb), ok);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_overruns(rb), 0);
	ASSERT_EQ(ringbuf_commit_overrun_cpu(rb, 0), 0);
	tu_check_rb(rb);

	/* read one page worth: exactly one page of room comes back */
	for (i = 0; i < EPP; i++) {
		ev = ringbuf_consume(rb, 0, NULL, NULL);
		ASSERT_NOT_NULL(ev);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), i,
			 16);
	}
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), EPP);
	unsigned int more = 0;

	while (tu_write(rb, ok + more, 16) == 0)
		more++;
	ASSERT_EQ(more, EPP);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 13);
	/* everything is still there, in order */
	for (i = EPP; i < ok + more; i++) {
		ev = ringbuf_consume(rb, 0, NULL, NULL);
		ASSERT_NOT_NULL(ev);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), i,
			 16);
	}
	ASSERT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), ok + more);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), 0);
	ASSERT_TRUE(ringbuf_empty(rb));
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void overwrite_full_exact(void)
{
	const unsigned int npages = 4, W = 2000;
	struct ringbuf *rb = tu_create(npages, RINGBUF_FL_OVERWRITE, 1,
				       RINGBUF_PER_CPU);
	unsigned int pages_written = (W + EPP - 1) / EPP;
	unsigned long overrun = (unsigned long)(pages_written - npages) * EPP;
	struct ringbuf_event *ev;
	unsigned long lost;
	unsigned int i, n = 0;

	ringbuf_test_set_cpu(0);
	for (i = 0; i < W; i++)
		tu_write_ok(rb, i, 16);
	/* whole pages were dropped, the oldest first */
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), overrun);
	ASSERT_EQ(ringbuf_overruns(rb), overrun);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), W - overrun);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_commit_overrun_cpu(rb, 0), 0);
	tu_check_rb(rb);
	while ((ev = ringbuf_consume(rb, 0, NULL, &lost))) {
		/* what is left is the newest events, without gaps */
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 (uint32_t)(overrun + n), 16);
		ASSERT_EQ(lost, n == 0 ? overrun : 0);
		n++;
	}
	ASSERT_EQ(n, W - overrun);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0) + ringbuf_overrun_cpu(rb, 0),
		  W);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void counters_all(void)
{
	struct ringbuf *rb = tu_create(4, 0, 2, RINGBUF_PER_CPU);
	unsigned int i, fails = 0;

	ASSERT_EQ(ringbuf_nr_cpus(rb), 2);
	for (int cpu = 0; cpu < 2; cpu++) {
		ASSERT_EQ(ringbuf_entries_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_overrun_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_commit_overrun_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_dropped_events_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_read_events_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_bytes_cpu(rb, cpu), 0);
		ASSERT_EQ_U(ringbuf_oldest_event_ts(rb, cpu), 0);
		ASSERT_TRUE(ringbuf_empty_cpu(rb, cpu));
	}
	ringbuf_test_set_cpu(0);
	for (i = 0; i < 10; i++)
		tu_write_ok(rb, i, 16);
	ringbuf_test_set_cpu(1);
	for (i = 0; i < 5; i++)
		tu_write_ok(rb, 100 + i, 40);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 10);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 1), 5);
	ASSERT_EQ(ringbuf_entries(rb), 15);
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 0), 10 * 20);
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 1), 5 * 44);
	ASSERT_FALSE(ringbuf_empty(rb));
	ASSERT_FALSE(ringbuf_empty_cpu(rb, 0));

	for (i = 0; i < 3; i++)
		ASSERT_NOT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 3);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 1), 0);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 7);
	ASSERT_EQ(ringbuf_entries(rb), 12);

	/* fill cpu 1 (producer/consumer): the refusals are its drops */
	ringbuf_test_set_cpu(1);
	for (i = 0; i < 4 * EPP + 50; i++)
		if (tu_write(rb, 1000 + i, 16) != 0)
			fails++;
	ASSERT_GT(fails, 0);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 1), fails);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 1), 5 + 4 * EPP + 50 - fails);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 1), 0);
	ASSERT_EQ(ringbuf_entries(rb), 7 + ringbuf_entries_cpu(rb, 1));

	/* overwrite: overruns show up, entries stay consistent */
	ringbuf_change_overwrite(rb, 1);
	for (i = 0; i < 3 * EPP; i++)
		tu_write_ok(rb, 5000 + i, 16);
	ASSERT_GT(ringbuf_overrun_cpu(rb, 1), 0);
	ASSERT_EQ(ringbuf_overruns(rb), ringbuf_overrun_cpu(rb, 1));
	unsigned long written1 = 5 + 4 * EPP + 50 - fails + 3 * EPP;

	ASSERT_EQ(ringbuf_entries_cpu(rb, 1),
		  written1 - ringbuf_overrun_cpu(rb, 1));
	size_t drained = tu_drain(rb);

	ASSERT_EQ(drained, 7 + written1 - ringbuf_overrun_cpu(rb, 1));
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 10);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 1) + ringbuf_overrun_cpu(rb, 1),
		  written1);
	ASSERT_EQ(ringbuf_entries(rb), 0);
	ASSERT_TRUE(ringbuf_empty(rb));
	ASSERT_EQ(ringbuf_commit_overrun_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_commit_overrun_cpu(rb, 1), 0);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void bytes_and_oldest_ts(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	struct tu_ev ev[3 * EPP];
	unsigned int i;

	ringbuf_test_set_cpu(0);
	ASSERT_EQ_U(ringbuf_oldest_event_ts(rb, 0), 0);
	/* 28-byte records: 145 per page, 20 bytes of padding at the end */
	for (i = 0; i < 146; i++)
		tu_write_ok(rb, i, 24);
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 0), 146 * 28 + 20);
	while (ringbuf_consume(rb, 0, NULL, NULL))
		;
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 146);
	ringbuf_reset_cpu(rb, 0);
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 0), 0);
	ASSERT_EQ_U(ringbuf_oldest_event_ts(rb, 0), 0);

	/* 20-byte records: pages of exactly 204 */
	for (i = 0; i < 2 * EPP + 10; i++)
		tu_write_ok(rb, i, 16);
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 0), (2 * EPP + 10) * 20);
	ASSERT_EQ(tu_iter_all(rb, 0, ev, 3 * EPP), 2 * EPP + 10);
	ASSERT_EQ_U(ringbuf_oldest_event_ts(rb, 0), ev[0].ts);
	ASSERT_NOT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	/* the oldest unread page is still the first */
	ASSERT_EQ_U(ringbuf_oldest_event_ts(rb, 0), ev[0].ts);
	for (i = 1; i < EPP; i++)
		ASSERT_NOT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ASSERT_EQ_U(ringbuf_oldest_event_ts(rb, 0), ev[EPP].ts);
	for (i = 0; i < EPP; i++)
		ASSERT_NOT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ASSERT_EQ_U(ringbuf_oldest_event_ts(rb, 0), ev[2 * EPP].ts);
	while (ringbuf_consume(rb, 0, NULL, NULL))
		;
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 0), 0);
	ASSERT_EQ_U(ringbuf_oldest_event_ts(rb, 0), 0);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void read_events(void)
{
	struct ringbuf *rb = tu_create(8, 0, 1, RINGBUF_PER_CPU);
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct ringbuf_iter *it;
	unsigned int i;

	ASSERT_NOT_NULL(page);
	ringbuf_test_set_cpu(0);
	for (i = 0; i < 3 * EPP; i++)
		tu_write_ok(rb, i, 16);
	/* peek and the iterator do not consume */
	ASSERT_NOT_NULL(ringbuf_peek(rb, 0, NULL, NULL));
	ASSERT_NOT_NULL(ringbuf_peek(rb, 0, NULL, NULL));
	it = ringbuf_read_start(rb, 0);
	ASSERT_NOT_NULL(it);
	for (i = 0; i < 300; i++) {
		ASSERT_NOT_NULL(ringbuf_iter_peek(it, NULL));
		ringbuf_iter_advance(it);
	}
	ringbuf_read_finish(it);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 3 * EPP);
	/* consume counts one by one */
	for (i = 0; i < 10; i++)
		ASSERT_NOT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 10);
	/* read_page counts the events it took */
	ASSERT_EQ(ringbuf_read_page(rb, page, ringbuf_subbuf_size(rb), 0, 0),
		  0);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), EPP);
	ASSERT_EQ(ringbuf_read_page(rb, page, ringbuf_subbuf_size(rb), 0, 0),
		  0);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 2 * EPP);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), EPP);
	/* consume_next counts too */
	for (i = 0; i < 5; i++)
		ASSERT_NOT_NULL(ringbuf_consume_next(rb, NULL, NULL, NULL));
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 2 * EPP + 5);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), EPP - 5);
	ringbuf_free_read_page(rb, 0, page);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

/* ---- nested writers from signal handlers ------------------------------ */

static struct ringbuf *g_rb;
static volatile sig_atomic_t g_written, g_failed, g_fail_errno, g_depth,
	g_max_depth, g_commit_errs;

/* commit_overrun: the handler fills the buffer while the thread holds a
 * reservation: it stops at the pending commit */
static void fill_handler(int sig)
{
	unsigned char buf[16];
	int saved = errno;

	(void)sig;
	for (;;) {
		int ret;

		tu_fill(buf, (uint32_t)(1 + g_written), 16);
		errno = EDOM;
		ret = ringbuf_write(g_rb, 16, buf);
		if (errno != EDOM)
			g_commit_errs++;
		if (ret != 0) {
			g_fail_errno = -ret;
			break;
		}
		g_written++;
	}
	for (int i = 0; i < 4; i++) {
		tu_fill(buf, 0xdead, 16);
		if (ringbuf_write(g_rb, 16, buf) != 0)
			g_failed++;
	}
	g_failed++;
	errno = saved;
}

static void commit_overrun(void)
{
	struct ringbuf *rb = tu_create(2, RINGBUF_FL_OVERWRITE, 1,
				       RINGBUF_PER_CPU);
	struct sigaction sa;
	struct ringbuf_event *ev;
	unsigned int i;

	ringbuf_test_set_cpu(0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fill_handler;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	g_rb = rb;
	g_commit_errs = 0;
	ev = tu_reserve_ok(rb, 0, 16);
	ASSERT_EQ(raise(SIGUSR1), 0);
	ASSERT_EQ(g_commit_errs, 0); /* errno untouched */
	/* outer event + nested ones fill both pages exactly */
	ASSERT_EQ(g_written, 2 * EPP - 1);
	ASSERT_EQ(g_failed, 5);
	ASSERT_EQ(g_fail_errno, ENOSPC);
	ASSERT_EQ(ringbuf_commit_overrun_cpu(rb, 0), 5);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_unlock_commit(rb), 0);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 2 * EPP);
	for (i = 0; i < 2 * EPP; i++) {
		ev = ringbuf_consume(rb, 0, NULL, NULL);
		ASSERT_NOT_NULL(ev);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), i,
			 16);
	}
	ASSERT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	tu_check_rb(rb);
	/* the buffer works normally afterwards */
	for (i = 0; i < 3 * EPP; i++)
		tu_write_ok(rb, i, 16);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0) + ringbuf_overrun_cpu(rb, 0),
		  3 * EPP);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

/* Nesting: each handler level reserves, raises the next level (SIGUSR1
 * with SA_NODEFER), then commits. */
static void nest_handler(int sig)
{
	struct ringbuf_event *ev;
	int saved = errno;
	sig_atomic_t level = ++g_depth; /* 2, 3, ... (the thread is 1) */

	(void)sig;
	errno = EDOM;
	ev = ringbuf_lock_reserve(g_rb, 16);
	if (errno != EDOM)
		g_commit_errs++;
	if (!ev) {
		unsigned char b[16];

		/* the reason, from a write at the same depth (a second
		 * refusal, counted too) */
		tu_fill(b, 0xbad, 16);
		g_failed++;
		g_fail_errno = -ringbuf_write(g_rb, 16, b);
	} else {
		tu_fill(ringbuf_event_data(ev), (uint32_t)level, 16);
		if (level > g_max_depth)
			g_max_depth = level;
		if (level < 9)
			raise(SIGUSR1);
		if (ringbuf_unlock_commit(g_rb) != 0)
			g_commit_errs++;
	}
	g_depth--;
	errno = saved;
}

static void run_nesting(bool nest_start, int expect_levels)
{
#ifdef RBT_TSAN
	rbt_skip("ThreadSanitizer does not deliver signals nested in a "
		 "handler");
#endif
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	struct sigaction sa;
	struct ringbuf_event *ev;
	int i;

	ringbuf_test_set_cpu(0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nest_handler;
	sa.sa_flags = SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	g_rb = rb;
	g_depth = 1;
	g_max_depth = 1;
	g_failed = 0;
	g_commit_errs = 0;
	tu_write_ok(rb, 0, 16); /* not nested: first on the page */
	ev = tu_reserve_ok(rb, 1, 16);
	(void)ev;
	if (nest_start)
		ringbuf_nest_start(rb);
	ASSERT_EQ(raise(SIGUSR1), 0);
	if (nest_start)
		ringbuf_nest_end(rb);
	ASSERT_EQ(ringbuf_unlock_commit(rb), 0);
	ASSERT_EQ(ringbuf_unlock_commit(rb), -EINVAL);
	ASSERT_EQ(g_commit_errs, 0);
	ASSERT_EQ(g_max_depth, expect_levels);
	ASSERT_EQ(g_failed, 1);
	ASSERT_EQ(g_fail_errno, EBUSY);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 2);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 1 + expect_levels);
	/* on the page in reservation order: outermost first */
	for (i = 0; i <= expect_levels; i++) {
		ev = ringbuf_consume(rb, 0, NULL, NULL);
		ASSERT_NOT_NULL(ev);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 (uint32_t)i, 16);
	}
	ASSERT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	tu_check_rb(rb);
	/* and the thread can write normally again */
	tu_write_ok(rb, 42, 16);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 1);
	ringbuf_free(rb);
}

static void nesting_depth(void)
{
	run_nesting(false, 5);
}

static void nest_start_depth(void)
{
	run_nesting(true, 6);
}

/*
 * A reader asleep in ringbuf_wait() is woken once per sleep: the commits
 * after the one that woke it (until it unregisters) make no futex call.
 * The registration is made by hand, as a waiter that went to sleep and
 * has not run since leaves it.
 */
static void wake_once_per_sleep(void)
{
	struct ringbuf *rb = tu_create(16, 0, 1, RINGBUF_PER_CPU);
	struct rb_cpu_meta *m;
	uint32_t seq0;
	unsigned int i;

	ringbuf_test_set_cpu(0);
	m = rb->buffers[0]->meta;
	atomic_store(&m->wait_full, 0);
	atomic_store(&m->wake_armed, 1);
	atomic_store(&m->waiters, 1);
	seq0 = atomic_load(&m->wake_seq);
	for (i = 0; i < 100; i++)
		ASSERT_EQ(tu_write(rb, i, 16), 0);
	ASSERT_EQ(atomic_load(&m->wake_seq) - seq0, 1);
	/* it slept again: the next commit wakes it, once */
	atomic_store(&m->wake_armed, 1);
	for (; i < 200; i++)
		ASSERT_EQ(tu_write(rb, i, 16), 0);
	ASSERT_EQ(atomic_load(&m->wake_seq) - seq0, 2);
	atomic_store(&m->waiters, 0);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 200);
	ringbuf_free(rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(pc_full_exact),  RBT_CASE(overwrite_full_exact),
	RBT_CASE(counters_all),   RBT_CASE(bytes_and_oldest_ts),
	RBT_CASE(read_events),    RBT_CASE(commit_overrun),
	RBT_CASE(nesting_depth),  RBT_CASE(nest_start_depth),
	RBT_CASE(wake_once_per_sleep),
};
RBT_MAIN(cases)
