/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Format: pages from ringbuf_read_page() decoded by libtraceevent's
 * kbuffer give exactly the events, payloads and time stamps our own
 * readers give (the iterator, run over the same data before read_page
 * consumes it), and the independent decoder agrees. Covers every size
 * class, TIME_EXTEND, absolute TIME_STAMPs, nested-writer stamps,
 * discarded events and missed events.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kbuffer.h>

#include "rbdecode.h"
#include "test.h"
#include "tu.h"

static struct rbd_page g_page;

struct expect {
	struct tu_ev *ev;
	size_t n;
};

/* Read everything from cpu 0 with read_page and compare, page by page,
 * kbuffer's view and ours with @exp. @missed_first: the expected
 * kbuffer_missed_events() of the first page (0: none). */
static struct rbd_page g_page2;

/*
 * @split_ts: after a discarded record, kbuffer adds the record's delta to
 * its running time and the kernel's readers (rb_update_read_stamp) do
 * not. With @split_ts the two views are each checked exactly against the
 * independent decoder in the matching mode; without it kbuffer must equal
 * our readers.
 */
static void compare_pages_mode(struct ringbuf *rb, const struct tu_ev *exp,
			       size_t nexp, long long missed_first,
			       bool split_ts)
{
	size_t psz = ringbuf_subbuf_size(rb), k = 0, kr = 0;
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8,
					   KBUFFER_ENDIAN_LITTLE);
	unsigned int pages = 0;
	char err[256];

	ASSERT_NOT_NULL(page);
	ASSERT_NOT_NULL(kb);
	while (ringbuf_read_page(rb, page, psz, 0, 0) == 0) {
		unsigned long long ts;
		void *data;
		int missed;
		unsigned int di = 0;

		if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
			RBT_FAIL("page %u: %s", pages, err);
		if (rbd_decode(page, psz, false, &g_page2, err, sizeof(err)))
			RBT_FAIL("page %u: %s", pages, err);
		ASSERT_EQ(kbuffer_load_subbuffer(kb, page), 0);
		missed = kbuffer_missed_events(kb);
		if (pages == 0 && missed_first) {
			if (missed_first > 0)
				ASSERT_TRUE(missed == -1 ||
					    missed == missed_first);
			else
				ASSERT_NE(missed, 0);
		} else {
			ASSERT_EQ(missed, 0);
		}
		for (data = kbuffer_read_event(kb, &ts); data;
		     data = kbuffer_next_event(kb, &ts)) {
			unsigned int len = (unsigned int)kbuffer_event_size(kb);
			unsigned int rec = (unsigned int)kbuffer_curr_size(kb);

			unsigned long long want = exp[k].ts;

			if (k >= nexp)
				RBT_FAIL("kbuffer: more events than the %zu "
					 "expected", nexp);
			while (di < g_page.nrec &&
			       g_page.recs[di].kind != RBD_DATA)
				di++;
			ASSERT_LT(di, g_page.nrec);
			if (split_ts) {
				/* ours follows one of the two conventions */
				if (exp[k].ts != g_page2.recs[di].ts &&
				    exp[k].ts != g_page.recs[di].ts)
					RBT_FAIL("event %zu: ours ts %llu is "
						 "neither %llu nor %llu", k,
						 (unsigned long long)exp[k].ts,
						 (unsigned long long)
							 g_page2.recs[di].ts,
						 (unsigned long long)
							 g_page.recs[di].ts);
				want = g_page.recs[di].ts;
			}
			di++;
			if (ts != want || len != exp[k].len ||
			    tu_hash(data, len) != exp[k].hash)
				RBT_FAIL("page %u, event %zu (seq %u): kbuffer "
					 "ts %llu len %u, ours ts %llu len %u%s",
					 pages, k, exp[k].seq, ts, len, want,
					 exp[k].len,
					 tu_hash(data, len) != exp[k].hash ?
						 ", payload differs" :
						 "");
			/* the whole record: header, length word if long */
			ASSERT_EQ(rec, len + 4 + (len > RINGBUF_MAX_SMALL_DATA ?
							  4 : 0));
			k++;
		}
		/* the independent decoder reads the page the same way */
		for (unsigned int i = 0; i < g_page.nrec; i++) {
			const struct rbd_rec *r = &g_page.recs[i];

			if (r->kind != RBD_DATA)
				continue;
			ASSERT_LT(kr, nexp);
			if (split_ts)
				ASSERT_TRUE(g_page2.recs[i].ts == exp[kr].ts ||
					    r->ts == exp[kr].ts);
			else
				ASSERT_EQ_U(r->ts, exp[kr].ts);
			ASSERT_EQ(r->len, exp[kr].len);
			ASSERT_EQ_U(tu_hash(r->payload, r->len), exp[kr].hash);
			kr++;
		}
		if (g_page.stored)
			ASSERT_EQ(missed, (long long)g_page.missed_count);
		else if (g_page.missed)
			ASSERT_EQ(missed, -1);
		pages++;
	}
	ASSERT_EQ(k, nexp);
	ASSERT_EQ(kr, nexp);
	ASSERT_GT(pages, 0);
	kbuffer_free(kb);
	ringbuf_free_read_page(rb, 0, page);
}

static void compare_pages(struct ringbuf *rb, const struct tu_ev *exp,
			  size_t nexp, long long missed_first)
{
	compare_pages_mode(rb, exp, nexp, missed_first, false);
}

static void check_rb(struct ringbuf *rb, size_t nexp, struct tu_ev *exp)
{
	(void)nexp;
	free(exp);
	tu_check_rb(rb);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	ringbuf_free(rb);
}

static void data_sizes(void)
{
	struct ringbuf *rb = tu_create(128, 0, 1, RINGBUF_PER_CPU);
	size_t max = ringbuf_max_event_size(rb), n = 0;
	struct tu_ev *exp = calloc(2000, sizeof(*exp));

	ASSERT_NOT_NULL(exp);
	ringbuf_test_set_cpu(0);
	for (uint32_t seq = 0; seq < 600; seq++) {
		size_t len = seq < 300 ? seq : (size_t)rbt_rand_range(0, 1200);

		if (seq % 97 == 0)
			len = max;
		tu_write_ok(rb, seq, len);
	}
	n = tu_iter_all(rb, 0, exp, 2000);
	ASSERT_EQ(n, 600);
	compare_pages(rb, exp, n, 0);
	check_rb(rb, n, exp);
}

static void time_extend(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	struct tu_ev *exp = calloc(64, sizeof(*exp));
	size_t n;

	ASSERT_NOT_NULL(exp);
	ringbuf_test_set_cpu(0);
	tu_write_ok(rb, 0, 16);
	rbt_msleep(150);
	tu_write_ok(rb, 1, 200); /* TIME_EXTEND + long record */
	tu_write_ok(rb, 2, 16);
	rbt_msleep(140);
	tu_write_ok(rb, 3, 0);
	n = tu_iter_all(rb, 0, exp, 64);
	ASSERT_EQ(n, 4);
	ASSERT_GT_U(exp[1].ts - exp[0].ts, 1ULL << 27);
	compare_pages(rb, exp, n, 0);
	check_rb(rb, n, exp);
}

static void abs_stamps(void)
{
	struct ringbuf *rb = tu_create(16, 0, 1, RINGBUF_PER_CPU);
	struct tu_ev *exp = calloc(512, sizeof(*exp));
	size_t n;

	ASSERT_NOT_NULL(exp);
	ringbuf_test_set_cpu(0);
	ringbuf_set_time_stamp_abs(rb, true);
	for (uint32_t seq = 0; seq < 300; seq++)
		tu_write_ok(rb, seq, (size_t)rbt_rand_range(8, 150));
	ringbuf_set_time_stamp_abs(rb, false);
	for (uint32_t seq = 300; seq < 400; seq++)
		tu_write_ok(rb, seq, 24);
	n = tu_iter_all(rb, 0, exp, 512);
	ASSERT_EQ(n, 400);
	compare_pages(rb, exp, n, 0);
	check_rb(rb, n, exp);
}

/* ---- discarded events (nested writer after the discarded one) -------- */

static struct ringbuf *g_rb;
static uint32_t g_seq;

static void nested_handler(int sig)
{
	unsigned char buf[64];
	int saved = errno;

	(void)sig;
	tu_fill(buf, g_seq, 40);
	(void)ringbuf_write(g_rb, 40, buf);
	errno = saved;
}

static void run_discarded(bool split_ts)
{
	struct ringbuf *rb = tu_create(8, 0, 1, RINGBUF_PER_CPU);
	struct tu_ev *exp = calloc(512, sizeof(*exp));
	struct sigaction sa;
	size_t n;

	ASSERT_NOT_NULL(exp);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nested_handler;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	g_rb = rb;
	ringbuf_test_set_cpu(0);
	for (uint32_t seq = 0; seq < 200; seq++) {
		struct ringbuf_event *ev;

		tu_write_ok(rb, seq, 24);
		switch (seq % 4) {
		case 0: /* discard the last event: space given back */
			ev = tu_reserve_ok(rb, 0xdead, 30);
			ringbuf_discard_commit(rb, ev);
			break;
		case 1: /* discard with a nested event after it: padding */
			ev = tu_reserve_ok(rb, 0xdead, 130);
			g_seq = 10000 + seq;
			ASSERT_EQ(raise(SIGUSR1), 0);
			ringbuf_discard_commit(rb, ev);
			break;
		default:
			break;
		}
	}
	n = tu_iter_all(rb, 0, exp, 512);
	ASSERT_EQ(n, 250);
	for (size_t i = 0; i < n; i++)
		ASSERT_NE(exp[i].seq, 0xdead);
	compare_pages_mode(rb, exp, n, 0, split_ts);
	check_rb(rb, n, exp);
}

static void discarded(void)
{
	run_discarded(true);
}

/* kbuffer (trace-cmd) and our readers must agree on the time of an event
 * that follows a discarded record. */
static void discarded_ts(void)
{
	run_discarded(false);
}

static void missed_events(void)
{
	struct ringbuf *rb = tu_create(4, RINGBUF_FL_OVERWRITE, 1,
				       RINGBUF_PER_CPU);
	struct tu_ev *exp = calloc(4096, sizeof(*exp));
	unsigned long overrun;
	size_t n;

	ASSERT_NOT_NULL(exp);
	ringbuf_test_set_cpu(0);
	/* 28-byte records leave room at each page end for the count */
	for (uint32_t seq = 0; seq < 2000; seq++)
		tu_write_ok(rb, seq, 24);
	overrun = ringbuf_overrun_cpu(rb, 0);
	ASSERT_GT(overrun, 0);
	n = tu_iter_all(rb, 0, exp, 4096);
	ASSERT_EQ(n, 2000 - overrun);
	compare_pages(rb, exp, n, (long long)overrun);
	/* loss in the middle of reading: a later page carries it */
	for (uint32_t seq = 0; seq < 300; seq++)
		tu_write_ok(rb, 5000 + seq, 24);
	n = tu_iter_all(rb, 0, exp, 4096);
	compare_pages(rb, exp, n, 0);
	check_rb(rb, n, exp);
}

/* ---- time stamps of nested writers (test hooks) ------------------------ */

static _Thread_local int t_in_hook;
static enum ringbuf_testpoint g_tp;
static int g_fire;

static void stamp_hook(struct ringbuf *rb, int cpu, enum ringbuf_testpoint tp,
		       void *arg)
{
	unsigned char buf[64];

	(void)cpu;
	(void)arg;
	if (t_in_hook || tp != g_tp || !g_fire)
		return;
	g_fire = 0;
	t_in_hook = 1;
	tu_fill(buf, g_seq++, 32);
	(void)ringbuf_write(rb, 32, buf);
	t_in_hook = 0;
}

static void nested_stamps(void)
{
	static const enum ringbuf_testpoint tps[] = {
		RINGBUF_TP_RESERVE_A_B, RINGBUF_TP_RESERVE_B_C,
		RINGBUF_TP_RESERVE_C_D, RINGBUF_TP_RESERVE_E,
		RINGBUF_TP_RESERVED,
	};
	struct ringbuf *rb = tu_create(8, 0, 1, RINGBUF_PER_CPU);
	struct tu_ev *exp = calloc(4096, sizeof(*exp));
	unsigned char buf[64];
	size_t n;

	ASSERT_NOT_NULL(exp);
	ringbuf_test_set_cpu(0);
	ringbuf_test_set_hook(stamp_hook, NULL);
	g_seq = 50000;
	for (uint32_t seq = 0; seq < 400; seq++) {
		g_tp = tps[seq % 5];
		g_fire = seq % 3 != 0;
		tu_fill(buf, seq, 24);
		ASSERT_EQ(ringbuf_write(rb, 24, buf), 0);
	}
	ringbuf_test_set_hook(NULL, NULL);
	n = tu_iter_all(rb, 0, exp, 4096);
	ASSERT_GT(n, 400);
	compare_pages(rb, exp, n, 0);
	check_rb(rb, n, exp);
}

static const struct rbt_case cases[] = {
	RBT_CASE(data_sizes),	 RBT_CASE(time_extend),
	RBT_CASE(abs_stamps),	 RBT_CASE(discarded),	 RBT_CASE(discarded_ts),
	RBT_CASE(missed_events), RBT_CASE(nested_stamps),
};
RBT_MAIN(cases)
