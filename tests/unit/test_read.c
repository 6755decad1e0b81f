/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Readers: iterator vs consume vs peek, read_page contents decoded
 * independently, missed-event flags and stored counts, lost events,
 * the consume_next merge, and the iterator noticing overwrites.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbdecode.h"
#include "test.h"
#include "tu.h"

#define EPP 204u /* 20-byte records per page */

static struct rbd_page g_page;

/* Write @n events of random length 0..@maxlen with one long pause (a
 * TIME_EXTEND) and a few discards; returns the lengths by seq. */
static size_t *write_mix(struct ringbuf *rb, unsigned int n, size_t maxlen)
{
	size_t *lens = calloc(n, sizeof(*lens));

	ASSERT_NOT_NULL(lens);
	for (unsigned int i = 0; i < n; i++) {
		lens[i] = (size_t)rbt_rand_range(0, maxlen);
		if (i == n / 2)
			rbt_msleep(140);
		if (i % 37 == 5) {
			struct ringbuf_event *ev =
				tu_reserve_ok(rb, 0xd15c, 1 + i % 200);

			ringbuf_discard_commit(rb, ev);
		}
		tu_write_ok(rb, i, lens[i]);
	}
	return lens;
}

static void iter_vs_consume(void)
{
	const unsigned int n = 600;
	struct ringbuf *rb = tu_create(32, 0, 1, RINGBUF_PER_CPU);
	struct tu_ev *it = calloc(n + 1, sizeof(*it));
	struct tu_ev *it2 = calloc(n + 1, sizeof(*it2));
	struct tu_ev *co = calloc(n + 1, sizeof(*co));
	struct ringbuf_iter *iter;
	struct ringbuf_event *ev;
	size_t *lens, ni, i;
	uint64_t ts;

	ASSERT_TRUE(it && it2 && co);
	ringbuf_test_set_cpu(0);
	lens = write_mix(rb, n, 200);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), n);
	ni = tu_iter_all(rb, 0, it, n + 1);
	ASSERT_EQ(ni, n);

	/* iter_reset goes back to the oldest event */
	iter = ringbuf_read_start(rb, 0);
	ASSERT_NOT_NULL(iter);
	ASSERT_FALSE(ringbuf_iter_empty(iter));
	for (i = 0; i < 250; i++)
		ringbuf_iter_advance(iter);
	ringbuf_iter_reset(iter);
	for (i = 0; (ev = ringbuf_iter_peek(iter, &ts)); i++) {
		ASSERT_LT(i, n);
		tu_ev_from(&it2[i], ev, ts, 0);
		/* peek twice: same event */
		ASSERT_TRUE(ringbuf_iter_peek(iter, NULL) != NULL);
		ringbuf_iter_advance(iter);
	}
	ASSERT_TRUE(ringbuf_iter_empty(iter));
	ringbuf_read_finish(iter);
	tu_assert_same(it, ni, it2, i);
	/* the iterator consumed nothing */
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), n);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 0);

	/* consume gives the same sequence, with the written payloads */
	for (i = 0; (ev = ringbuf_consume(rb, 0, &ts, NULL)); i++) {
		ASSERT_LT(i, n);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 (uint32_t)i, lens[i]);
		tu_ev_from(&co[i], ev, ts, 0);
		if (i)
			ASSERT_GE_U(co[i].ts, co[i - 1].ts);
	}
	tu_assert_same(it, ni, co, i);
	/* the long pause shows in the time stamps */
	ASSERT_GE_U(co[n / 2].ts - co[n / 2 - 1].ts, 140000000ULL);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), n);
	tu_check_rb(rb);
	free(lens);
	free(it);
	free(it2);
	free(co);
	ringbuf_free(rb);
}

static void peek_vs_consume(void)
{
	struct ringbuf *rb = tu_create(8, 0, 1, RINGBUF_PER_CPU);
	struct ringbuf_event *ev;
	struct tu_ev a, b, c;
	uint64_t ts;
	size_t *lens;
	unsigned int i;

	ringbuf_test_set_cpu(0);
	lens = write_mix(rb, 100, 300);
	for (i = 0; i < 100; i++) {
		ev = ringbuf_peek(rb, 0, &ts, NULL);
		ASSERT_NOT_NULL(ev);
		tu_ev_from(&a, ev, ts, 0);
		ev = ringbuf_peek(rb, 0, &ts, NULL);
		ASSERT_NOT_NULL(ev);
		tu_ev_from(&b, ev, ts, 0);
		ev = ringbuf_consume(rb, 0, &ts, NULL);
		ASSERT_NOT_NULL(ev);
		tu_ev_from(&c, ev, ts, 0);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), i,
			 lens[i]);
		tu_assert_same(&a, 1, &b, 1);
		tu_assert_same(&a, 1, &c, 1);
	}
	ASSERT_NULL(ringbuf_peek(rb, 0, NULL, NULL));
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 100);
	free(lens);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

/* read_page until -ENODATA; compare every data record to @exp */
static size_t read_pages_compare(struct ringbuf *rb, int cpu, size_t len,
				 const struct tu_ev *exp, size_t nexp,
				 unsigned int *pages)
{
	size_t psz = ringbuf_subbuf_size(rb), k = 0;
	void *page = ringbuf_alloc_read_page(rb, cpu);
	char err[256];
	int ret;

	ASSERT_NOT_NULL(page);
	*pages = 0;
	while ((ret = ringbuf_read_page(rb, page, len, cpu, 0)) >= 0) {
		ASSERT_EQ(ret, 0);
		if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
			RBT_FAIL("page %u: %s", *pages, err);
		ASSERT_LE(g_page.commit + RINGBUF_PAGE_HDR_SIZE, len);
		ASSERT_GT(g_page.ndata, 0);
		/* the bytes after the data are zero */
		for (size_t o = RINGBUF_PAGE_HDR_SIZE + g_page.commit +
				(g_page.stored ? 8 : 0);
		     o < len; o++)
			if (((unsigned char *)page)[o])
				RBT_FAIL("page %u: byte %zu after the data is "
					 "not zero", *pages, o);
		for (unsigned int i = 0; i < g_page.nrec; i++) {
			const struct rbd_rec *r = &g_page.recs[i];
			struct tu_ev e;

			if (r->kind != RBD_DATA)
				continue;
			ASSERT_LT(k, nexp);
			memset(&e, 0, sizeof(e));
			e.ts = r->ts;
			e.len = r->len;
			e.seq = r->len >= 8 ? tu_seq(r->payload) : 0;
			e.hash = tu_hash(r->payload, r->len);
			if (e.ts != exp[k].ts || e.hash != exp[k].hash ||
			    e.len != exp[k].len) {
				rbd_dump(&g_page);
				RBT_FAIL("page %u record %u (event %zu): ts %llu "
					 "len %u, expected ts %llu len %u",
					 *pages, i, k,
					 (unsigned long long)e.ts, e.len,
					 (unsigned long long)exp[k].ts,
					 exp[k].len);
			}
			k++;
		}
		(*pages)++;
	}
	ASSERT_EQ(ret, -ENODATA);
	ringbuf_free_read_page(rb, cpu, page);
	return k;
}

static void read_page_decode(void)
{
	const unsigned int n = 600;
	struct ringbuf *rb = tu_create(40, 0, 1, RINGBUF_PER_CPU);
	struct tu_ev *exp = calloc(n, sizeof(*exp));
	unsigned int pages;
	size_t *lens;

	ASSERT_NOT_NULL(exp);
	ringbuf_test_set_cpu(0);
	lens = write_mix(rb, n, 260);
	ASSERT_EQ(tu_iter_all(rb, 0, exp, n), n);
	ASSERT_EQ(read_pages_compare(rb, 0, ringbuf_subbuf_size(rb), exp, n,
				     &pages),
		  n);
	ASSERT_GT(pages, 5);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), n);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	ASSERT_TRUE(ringbuf_empty_cpu(rb, 0));
	tu_check_rb(rb);

	/* partly consumed reader page: read_page takes the rest */
	ringbuf_reset_cpu(rb, 0);
	for (unsigned int i = 0; i < 50; i++)
		tu_write_ok(rb, i, 16);
	for (unsigned int i = 0; i < 20; i++)
		ASSERT_NOT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ASSERT_EQ(tu_iter_all(rb, 0, exp, n), 30);
	ASSERT_EQ(exp[0].seq, 20);
	ASSERT_EQ(read_pages_compare(rb, 0, ringbuf_subbuf_size(rb), exp, 30,
				     &pages),
		  30);
	ASSERT_EQ(pages, 1);
	/* a smaller len takes fewer whole events */
	for (unsigned int i = 0; i < 100; i++)
		tu_write_ok(rb, i, 16);
	ASSERT_EQ(tu_iter_all(rb, 0, exp, n), 100);
	ASSERT_EQ(read_pages_compare(rb, 0, 16 + 20 * 30 + 7, exp, 100,
				     &pages),
		  100);
	ASSERT_EQ(pages, 4); /* 30 + 30 + 30 + 10 */
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 50 + 100);
	tu_check_rb(rb);
	free(lens);
	free(exp);
	ringbuf_free(rb);
}

static void read_page_full(void)
{
	struct ringbuf *rb = tu_create(8, 0, 1, RINGBUF_PER_CPU);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	char err[256];
	unsigned int i, seq = 0;

	ASSERT_NOT_NULL(page);
	ringbuf_test_set_cpu(0);
	for (i = 0; i < 2 * EPP + EPP / 2; i++)
		tu_write_ok(rb, i, 16);
	for (int p = 0; p < 2; p++) {
		ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 1), 0);
		if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
			RBT_FAIL("%s", err);
		ASSERT_EQ(g_page.ndata, EPP);
		ASSERT_FALSE(g_page.missed);
		for (i = 0; i < g_page.nrec; i++)
			tu_check(g_page.recs[i].payload, g_page.recs[i].len,
				 seq++, 16);
	}
	/* the writer is still on the last page: not whole */
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 1), -ENODATA);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), EPP / 2);
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	ASSERT_EQ(g_page.ndata, EPP / 2);
	for (i = 0; i < g_page.nrec; i++)
		tu_check(g_page.recs[i].payload, g_page.recs[i].len, seq++, 16);
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), -ENODATA);
	/* the writer goes on on that page; a reader picks up after */
	for (i = 0; i < 10; i++)
		tu_write_ok(rb, seq + i, 16);
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 1), -ENODATA);
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	ASSERT_EQ(g_page.ndata, 10);
	for (i = 0; i < g_page.nrec; i++)
		tu_check(g_page.recs[i].payload, g_page.recs[i].len, seq++, 16);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), seq);
	ringbuf_free_read_page(rb, 0, page);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

/* overwrite mode, 4 pages, 2000 x 20-byte events: 6 pages are lost */
static struct ringbuf *wrapped(unsigned long *overrun)
{
	struct ringbuf *rb = tu_create(4, RINGBUF_FL_OVERWRITE, 1,
				       RINGBUF_PER_CPU);

	ringbuf_test_set_cpu(0);
	for (unsigned int i = 0; i < 2000; i++)
		tu_write_ok(rb, i, 16);
	*overrun = ringbuf_overrun_cpu(rb, 0);
	ASSERT_EQ(*overrun, 6 * EPP);
	return rb;
}

static void read_page_missed(void)
{
	unsigned long overrun;
	struct ringbuf *rb = wrapped(&overrun);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	char err[256];
	uint32_t seq = (uint32_t)overrun;
	unsigned int i, pages = 0;

	ASSERT_NOT_NULL(page);
	while (ringbuf_read_page(rb, page, psz, 0, 0) == 0) {
		if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
			RBT_FAIL("%s", err);
		if (pages == 0) {
			ASSERT_TRUE(g_page.missed);
			if (g_page.stored)
				ASSERT_EQ_U(g_page.missed_count, overrun);
		} else {
			ASSERT_FALSE(g_page.missed);
			ASSERT_FALSE(g_page.stored);
		}
		for (i = 0; i < g_page.nrec; i++)
			tu_check(g_page.recs[i].payload, g_page.recs[i].len,
				 seq++, 16);
		pages++;
	}
	ASSERT_EQ(seq, 2000);
	ASSERT_EQ(pages, 4);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0) + overrun, 2000);

	/* more loss after a read: the next page says so */
	for (i = 0; i < 6 * EPP; i++)
		tu_write_ok(rb, 5000 + i, 16);
	unsigned long lost = ringbuf_overrun_cpu(rb, 0) - overrun;

	ASSERT_GT(lost, 0);
	/* The rest of the current reader page comes first; the loss is
	 * flagged on the first page after the gap, and only there. */
	uint32_t prev = 4999;
	unsigned int flagged = 0;

	while (ringbuf_read_page(rb, page, psz, 0, 0) == 0) {
		if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
			RBT_FAIL("%s", err);
		ASSERT_GT(g_page.ndata, 0);
		uint32_t first = tu_seq(g_page.recs[0].payload);

		if (g_page.missed) {
			flagged++;
			ASSERT_EQ(first - prev - 1, lost);
			if (g_page.stored)
				ASSERT_EQ_U(g_page.missed_count, lost);
		} else {
			ASSERT_EQ(first, prev + 1);
		}
		for (i = 0; i < g_page.nrec; i++)
			tu_check(g_page.recs[i].payload, g_page.recs[i].len,
				 first + i, 16);
		prev = first + g_page.nrec - 1;
	}
	ASSERT_EQ(flagged, 1);
	ASSERT_EQ(prev, 5000 + 6 * EPP - 1);
	ringbuf_free_read_page(rb, 0, page);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void read_page_missed_stored(void)
{
	unsigned long overrun;
	struct ringbuf *rb = wrapped(&overrun);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	char err[256];
	unsigned int i;

	ASSERT_NOT_NULL(page);
	/* half a page: room after the data for the count */
	ASSERT_EQ(ringbuf_read_page(rb, page, psz / 2, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	ASSERT_EQ(g_page.ndata, (psz / 2 - 16) / 20);
	ASSERT_TRUE(g_page.missed);
	ASSERT_TRUE(g_page.stored);
	ASSERT_EQ_U(g_page.missed_count, overrun);
	for (i = 0; i < g_page.nrec; i++)
		tu_check(g_page.recs[i].payload, g_page.recs[i].len,
			 (uint32_t)overrun + i, 16);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), g_page.ndata);
	/* the rest of that page has no missed flag */
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	ASSERT_FALSE(g_page.missed);
	ASSERT_EQ(g_page.ndata, EPP - (psz / 2 - 16) / 20);
	ringbuf_free_read_page(rb, 0, page);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void consume_lost_events(void)
{
	unsigned long overrun, lost;
	struct ringbuf *rb = wrapped(&overrun);
	struct ringbuf_event *ev;
	uint64_t ts;

	ev = ringbuf_peek(rb, 0, &ts, &lost);
	ASSERT_NOT_NULL(ev);
	ASSERT_EQ(lost, overrun);
	ev = ringbuf_consume(rb, 0, &ts, &lost);
	ASSERT_NOT_NULL(ev);
	ASSERT_EQ(lost, overrun);
	tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
		 (uint32_t)overrun, 16);
	ev = ringbuf_consume(rb, 0, &ts, &lost);
	ASSERT_NOT_NULL(ev);
	ASSERT_EQ(lost, 0);
	/* more loss while reading: reported once at the next event */
	for (unsigned int i = 0; i < 8 * EPP; i++)
		tu_write_ok(rb, 10000 + i, 16);
	unsigned long more = ringbuf_overrun_cpu(rb, 0) - overrun;
	unsigned long sum = 0, n = 0;
	int cpu = -1;

	ASSERT_GT(more, 0);
	while ((ev = ringbuf_consume_next(rb, &cpu, &ts, &lost))) {
		ASSERT_EQ(cpu, 0);
		sum += lost;
		n++;
	}
	/* what was on the reader page is read first: the loss shows at
	 * the first event of the next page */
	ASSERT_EQ(sum, more);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0) + ringbuf_overrun_cpu(rb, 0),
		  2000 + 8 * EPP);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void consume_next_merge(void)
{
	const unsigned int n = 300;
	struct ringbuf *rb = tu_create(8, 0, 3, RINGBUF_PER_CPU);
	int where[300];
	uint32_t last[3] = { 0, 0, 0 };
	bool seen_any[3] = { false, false, false };
	struct ringbuf_event *ev;
	uint64_t ts, last_ts = 0;
	unsigned int i, got = 0;
	int cpu;

	for (i = 0; i < n; i++) {
		where[i] = (int)rbt_rand_range(0, 2);
		ringbuf_test_set_cpu(where[i]);
		tu_write_ok(rb, i, 8 + i % 100);
	}
	ringbuf_test_set_cpu(0);
	for (cpu = 0; cpu < 3; cpu++) {
		unsigned long c = 0;

		for (i = 0; i < n; i++)
			c += where[i] == cpu;
		ASSERT_EQ(ringbuf_entries_cpu(rb, cpu), c);
	}
	while ((ev = ringbuf_consume_next(rb, &cpu, &ts, NULL))) {
		uint32_t seq = tu_seq(ringbuf_event_data(ev));

		ASSERT_LT(seq, n);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), seq,
			 8 + seq % 100);
		ASSERT_EQ(cpu, where[seq]);
		ASSERT_GE_U(ts, last_ts);
		/* written one after the other: merged order is write order
		 * unless two time stamps are equal */
		if (ts != last_ts)
			ASSERT_EQ(seq, got);
		if (seen_any[cpu])
			ASSERT_GT(seq, last[cpu]);
		seen_any[cpu] = true;
		last[cpu] = seq;
		last_ts = ts;
		got++;
	}
	ASSERT_EQ(got, n);
	ASSERT_TRUE(ringbuf_empty(rb));
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void iter_dropped(void)
{
	struct ringbuf *rb = tu_create(4, RINGBUF_FL_OVERWRITE, 1,
				       RINGBUF_PER_CPU);
	struct ringbuf_iter *it;
	struct ringbuf_event *ev;
	uint64_t ts, last_ts;
	unsigned int i, n;

	ringbuf_test_set_cpu(0);
	for (i = 0; i < 300; i++)
		tu_write_ok(rb, i, 16);
	it = ringbuf_read_start(rb, 0);
	ASSERT_NOT_NULL(it);
	for (i = 0; i < 5; i++) {
		ev = ringbuf_iter_peek(it, NULL);
		ASSERT_NOT_NULL(ev);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), i,
			 16);
		ringbuf_iter_advance(it);
	}
	ASSERT_FALSE(ringbuf_iter_dropped(it));
	/* overwrite the page under the iterator (and more) */
	for (i = 300; i < 2000; i++)
		tu_write_ok(rb, i, 16);
	unsigned long overrun = ringbuf_overrun_cpu(rb, 0);

	ASSERT_GE(overrun, 300);
	ev = ringbuf_iter_peek(it, &ts);
	ASSERT_NOT_NULL(ev);
	/* it restarted from the oldest data and says so, once */
	ASSERT_TRUE(ringbuf_iter_dropped(it));
	ASSERT_FALSE(ringbuf_iter_dropped(it));
	tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
		 (uint32_t)overrun, 16);
	last_ts = ts;
	n = 0;
	while ((ev = ringbuf_iter_peek(it, &ts))) {
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 (uint32_t)(overrun + n), 16);
		ASSERT_GE_U(ts, last_ts);
		last_ts = ts;
		ringbuf_iter_advance(it);
		n++;
	}
	ASSERT_EQ(n, 2000 - overrun);
	ASSERT_FALSE(ringbuf_iter_dropped(it));
	ringbuf_read_finish(it);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

/*
 * A writer that overwrites the ring faster than the iterator reads sends
 * it back to the oldest data at every step: the iteration still ends,
 * after about two laps' worth of page moves and restarts (a traced
 * program that writes fast must not keep 'show' reading forever).
 */
static void iter_overtaken(void)
{
	struct ringbuf *rb = tu_create(4, RINGBUF_FL_OVERWRITE, 1,
				       RINGBUF_PER_CPU);
	struct ringbuf_iter *it;
	struct ringbuf_event *ev;
	unsigned int i, n = 0, dropped = 0, seq = 0;

	ringbuf_test_set_cpu(0);
	for (; seq < 300; seq++)
		tu_write_ok(rb, seq, 16);
	it = ringbuf_read_start(rb, 0);
	ASSERT_NOT_NULL(it);
	/* a whole buffer written between two steps: every step restarts */
	while (n < 100000 && (ev = ringbuf_iter_peek(it, NULL))) {
		ASSERT_EQ(ringbuf_event_length(ev), 16);
		dropped += ringbuf_iter_dropped(it);
		ringbuf_iter_advance(it);
		for (i = 0; i < 300; i++, seq++)
			tu_write_ok(rb, seq, 16);
		n++;
	}
	ASSERT_NULL(ringbuf_iter_peek(it, NULL));
	ASSERT_GT(dropped, 0);
	/* at most one record per page move or restart of two laps */
	ASSERT_LE(n, 2 * (ringbuf_size(rb, 0) / ringbuf_subbuf_size(rb) + 2));
	/* asked for, a reset starts a new iteration */
	ringbuf_iter_reset(it);
	ASSERT_NOT_NULL(ringbuf_iter_peek(it, NULL));
	ringbuf_read_finish(it);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(iter_vs_consume),
	RBT_CASE(peek_vs_consume),
	RBT_CASE(read_page_decode),
	RBT_CASE(read_page_full),
	RBT_CASE(read_page_missed),
	RBT_CASE(read_page_missed_stored),
	RBT_CASE(consume_lost_events),
	RBT_CASE(consume_next_merge),
	RBT_CASE(iter_dropped),
	RBT_CASE(iter_overtaken),
};
RBT_MAIN(cases)
