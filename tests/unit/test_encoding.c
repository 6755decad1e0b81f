/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event encoding: every type_len case, the maximum event, sub-buffer
 * orders, TIME_EXTEND, absolute TIME_STAMP mode, end-of-page padding and
 * discarded events, checked through the readers and by decoding the
 * pages ringbuf_read_page() returns.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbdecode.h"
#include "test.h"
#include "tu.h"

static struct rbd_page g_page;

/* read_page() until -ENODATA, decoding each page into *recs (data only) */
struct decoded {
	size_t n;
	struct rbd_rec rec[8192];
	unsigned char *store; /* payload copies (pages are reused) */
	size_t store_used;
	unsigned int pages;
};

static struct decoded *decode_all(struct ringbuf *rb, int cpu,
				  void (*per_page)(const struct rbd_page *))
{
	struct decoded *d = calloc(1, sizeof(*d));
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, cpu);
	char err[256];
	int ret;

	ASSERT_NOT_NULL(d);
	ASSERT_NOT_NULL(page);
	d->store = malloc(1 << 22);
	ASSERT_NOT_NULL(d->store);
	while ((ret = ringbuf_read_page(rb, page, psz, cpu, 0)) >= 0) {
		ASSERT_EQ(ret, 0);
		if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
			RBT_FAIL("page %u: %s", d->pages, err);
		if (per_page)
			per_page(&g_page);
		for (unsigned int i = 0; i < g_page.nrec; i++) {
			struct rbd_rec *r = &g_page.recs[i];

			if (r->kind != RBD_DATA)
				continue;
			ASSERT_LT(d->n, 8192);
			d->rec[d->n] = *r;
			memcpy(d->store + d->store_used, r->payload, r->len);
			d->rec[d->n].payload = d->store + d->store_used;
			d->store_used += r->len;
			d->n++;
		}
		d->pages++;
	}
	ASSERT_EQ(ret, -ENODATA);
	ringbuf_free_read_page(rb, cpu, page);
	return d;
}

static void free_decoded(struct decoded *d)
{
	free(d->store);
	free(d);
}

static size_t g_lens[] = { 0,   1,   2,   3,   4,   5,   6,   7,   8,
			   9,   11,  12,  13,  16,  17,  20,  24,  100,
			   104, 108, 109, 110, 111, 112, 113, 114, 115,
			   116, 117, 120, 300, 301, 1000, 2048 };
#define NLENS (sizeof(g_lens) / sizeof(g_lens[0]))

static void check_encoded(struct ringbuf_event *ev, uint32_t seq, size_t len)
{
	unsigned int tl = tu_type_len(len);

	if (ev->type_len != tl)
		RBT_FAIL("payload %zu: type_len %u, expected %u", len,
			 ev->type_len, tl);
	if (tl == 0)
		ASSERT_EQ(ev->array[0], ((len + 3) & ~(size_t)3) + 4);
	else
		ASSERT_EQ(ev->type_len * 4, ringbuf_event_length(ev));
	ASSERT_GE(ringbuf_event_length(ev), (len + 3) & ~(size_t)3);
	tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), seq, len);
}

static void payload_sizes(void)
{
	struct ringbuf *rb = tu_create(16, 0, 1, RINGBUF_PER_CPU);
	size_t max = ringbuf_max_event_size(rb);
	struct ringbuf_event *ev;
	uint64_t ts, last_ts = 0;
	uint32_t seq;

	ringbuf_test_set_cpu(0);
	/* every size through the consume path */
	for (seq = 0; seq < NLENS; seq++)
		tu_write_ok(rb, seq, g_lens[seq]);
	tu_write_ok(rb, seq, max);
	ASSERT_EQ(ringbuf_entries(rb), NLENS + 1);
	for (seq = 0; seq <= NLENS; seq++) {
		size_t len = seq < NLENS ? g_lens[seq] : max;

		ev = ringbuf_consume(rb, 0, &ts, NULL);
		ASSERT_NOT_NULL(ev);
		check_encoded(ev, seq, len);
		ASSERT_GE_U(ts, last_ts);
		last_ts = ts;
	}
	ASSERT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	tu_check_rb(rb);

	/* the same through read_page and the independent decoder */
	for (seq = 0; seq < NLENS; seq++)
		tu_write_ok(rb, seq, g_lens[seq]);
	tu_write_ok(rb, seq, max);
	struct decoded *d = decode_all(rb, 0, NULL);

	ASSERT_EQ(d->n, NLENS + 1);
	for (seq = 0; seq <= NLENS; seq++) {
		size_t len = seq < NLENS ? g_lens[seq] : max;

		ASSERT_EQ(d->rec[seq].type_len, tu_type_len(len));
		ASSERT_EQ(d->rec[seq].size, tu_record_size(len));
		tu_check(d->rec[seq].payload, d->rec[seq].len, seq, len);
	}
	/* records are packed back to back: offsets follow the sizes */
	for (seq = 1; seq < NLENS; seq++)
		if (d->rec[seq].offset != 0)
			ASSERT_EQ(d->rec[seq].offset,
				  d->rec[seq - 1].offset + d->rec[seq - 1].size);
	/* the maximum event goes to a page of its own */
	ASSERT_EQ(d->rec[NLENS].offset, 0);
	ASSERT_EQ(d->rec[NLENS].size, tu_record_size(max));
	free_decoded(d);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 2 * (NLENS + 1));
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void max_event_size(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	size_t max = ringbuf_max_event_size(rb);
	struct ringbuf_event *ev;

	ringbuf_test_set_cpu(0);
	ASSERT_EQ(ringbuf_subbuf_size(rb), 4096);
	/* The kernel allows 4072 (sub-buffer data minus the header and the
	 * length word) and 4064 in absolute mode (room for a TIME_STAMP);
	 * this library documents no number: accept that range. */
	ASSERT_LE(max, 4096 - 16 - 8);
	ASSERT_GE(max, 4096 - 16 - 8 - 8);
	ASSERT_WERR(tu_write(rb, 1, max + 1), EINVAL);
	ASSERT_RESERVE_NULL(ringbuf_lock_reserve(rb, max + 1));
	ASSERT_RESERVE_NULL(ringbuf_lock_reserve(rb, 1UL << 40));
	ASSERT_EQ(ringbuf_entries(rb), 0);
	tu_write_ok(rb, 7, max);
	tu_write_ok(rb, 8, max);
	ev = ringbuf_consume(rb, 0, NULL, NULL);
	ASSERT_NOT_NULL(ev);
	check_encoded(ev, 7, max);
	ev = ringbuf_consume(rb, 0, NULL, NULL);
	ASSERT_NOT_NULL(ev);
	check_encoded(ev, 8, max);

	/* absolute stamps need 8 more bytes per event: the maximum must
	 * leave room for the TIME_STAMP record */
	ringbuf_set_time_stamp_abs(rb, true);
	ASSERT_TRUE(ringbuf_time_stamp_abs(rb));
	size_t amax = ringbuf_max_event_size(rb);

	ASSERT_LE(amax, 4096 - 16 - 8 - 8);
	ASSERT_WERR(tu_write(rb, 9, amax + 1), EINVAL);
	tu_write_ok(rb, 9, amax);
	tu_write_ok(rb, 10, amax);
	ev = ringbuf_consume(rb, 0, NULL, NULL);
	ASSERT_NOT_NULL(ev);
	check_encoded(ev, 9, amax);
	ev = ringbuf_consume(rb, 0, NULL, NULL);
	ASSERT_NOT_NULL(ev);
	check_encoded(ev, 10, amax);
	ringbuf_set_time_stamp_abs(rb, false);
	ASSERT_FALSE(ringbuf_time_stamp_abs(rb));
	ASSERT_EQ(ringbuf_max_event_size(rb), max);
	tu_write_ok(rb, 11, max);
	ev = ringbuf_consume(rb, 0, NULL, NULL);
	ASSERT_NOT_NULL(ev);
	check_encoded(ev, 11, max);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void subbuf_orders(void)
{
	for (unsigned int order = 0; order <= 7; order++) {
		size_t psz = (size_t)4096 << order;
		RINGBUF_OPTS(o, .size = 3 * (psz - 16), .subbuf_order = order,
			     .nr_cpus = 1);
		struct ringbuf *rb = ringbuf_create(&o);
		struct ringbuf_test_state st;
		struct ringbuf_event *ev;
		size_t max;

		if (!rb)
			RBT_FAIL("order %u: create failed: %s", order,
				 strerror(errno));
		ringbuf_test_set_cpu(0);
		ASSERT_EQ(ringbuf_subbuf_size(rb), psz);
		max = ringbuf_max_event_size(rb);
		ASSERT_LE(max, psz - 24);
		ASSERT_GE(max, psz - 32);
		ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
		ASSERT_EQ(st.nr_pages, 3);
		ASSERT_TRUE(ringbuf_size(rb, 0) == 3 * psz ||
			    ringbuf_size(rb, 0) == 3 * (psz - 16));
		tu_write_ok(rb, 1, 100);
		tu_write_ok(rb, 2, max);
		if (5000 <= max)
			tu_write_ok(rb, 3, 5000);
		else
			ASSERT_WERR(tu_write(rb, 3, 5000), EINVAL);
		ASSERT_WERR(tu_write(rb, 4, max + 1), EINVAL);
		ev = ringbuf_consume(rb, 0, NULL, NULL);
		ASSERT_NOT_NULL(ev);
		check_encoded(ev, 1, 100);
		ev = ringbuf_consume(rb, 0, NULL, NULL);
		ASSERT_NOT_NULL(ev);
		check_encoded(ev, 2, max);
		ev = ringbuf_consume(rb, 0, NULL, NULL);
		if (5000 <= max) {
			ASSERT_NOT_NULL(ev);
			check_encoded(ev, 3, 5000);
		} else {
			ASSERT_NULL(ev);
		}
		tu_check_rb(rb);
		ringbuf_free(rb);
	}
}

static const struct rbd_rec *find_data(const struct rbd_page *p, unsigned int n,
				       unsigned int *idx)
{
	unsigned int seen = 0;

	for (unsigned int i = 0; i < p->nrec; i++)
		if (p->recs[i].kind == RBD_DATA && seen++ == n) {
			*idx = i;
			return &p->recs[i];
		}
	RBT_FAIL("data record %u not on the page", n);
}

static void time_extend(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct tu_ev ev[3];
	const struct rbd_rec *a, *b, *c, *x;
	unsigned int ia, ib, ic;
	char err[256];

	ASSERT_NOT_NULL(page);
	ringbuf_test_set_cpu(0);
	ASSERT_EQ(ringbuf_clock(rb), RINGBUF_CLOCK_MONO);
	tu_write_ok(rb, 0, 16);
	rbt_msleep(150); /* > 2^27 ns: the delta no longer fits 27 bits */
	tu_write_ok(rb, 1, 16);
	tu_write_ok(rb, 2, 16);
	ASSERT_EQ(tu_iter_all(rb, 0, ev, 3), 3);
	ASSERT_GE_U(ev[1].ts - ev[0].ts, 150000000ULL);
	ASSERT_GT_U(ev[1].ts - ev[0].ts, 1ULL << 27);

	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	a = find_data(&g_page, 0, &ia);
	b = find_data(&g_page, 1, &ib);
	c = find_data(&g_page, 2, &ic);
	ASSERT_EQ(g_page.ndata, 3);
	/* A is the first record, then TIME_EXTEND, then B, then C */
	ASSERT_EQ(ia, 0);
	ASSERT_EQ(ib, 2);
	ASSERT_EQ(ic, 3);
	x = &g_page.recs[1];
	if (x->kind != RBD_EXTEND) {
		rbd_dump(&g_page);
		RBT_FAIL("record before B is not a TIME_EXTEND");
	}
	ASSERT_EQ(x->size, 8);
	ASSERT_EQ_U(x->value + b->delta, ev[1].ts - ev[0].ts);
	ASSERT_EQ(b->delta, 0); /* kernel: the whole delta goes in the extend */
	ASSERT_EQ_U(g_page.time_stamp, ev[0].ts);
	ASSERT_EQ_U(a->ts, ev[0].ts);
	ASSERT_EQ_U(b->ts, ev[1].ts);
	ASSERT_EQ_U(c->ts, ev[2].ts);
	ASSERT_LT_U(c->delta, 1ULL << 27);
	tu_check(a->payload, a->len, 0, 16);
	tu_check(b->payload, b->len, 1, 16);
	tu_check(c->payload, c->len, 2, 16);
	ringbuf_free_read_page(rb, 0, page);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void abs_timestamps(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct tu_ev ev[8];
	char err[256];
	unsigned int i, k = 0;

	ASSERT_NOT_NULL(page);
	ringbuf_test_set_cpu(0);
	ASSERT_FALSE(ringbuf_time_stamp_abs(rb));
	ringbuf_set_time_stamp_abs(rb, true);
	ASSERT_TRUE(ringbuf_time_stamp_abs(rb));
	for (i = 0; i < 6; i++) {
		tu_write_ok(rb, i, 8 + 40 * i);
		rbt_msleep(1);
	}
	ASSERT_EQ(tu_iter_all(rb, 0, ev, 8), 6);
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	ASSERT_EQ(g_page.ndata, 6);
	ASSERT_EQ(g_page.nrec, 12);
	/* every event is preceded by an absolute TIME_STAMP of its time */
	for (i = 0; i < g_page.nrec; i += 2) {
		const struct rbd_rec *s = &g_page.recs[i];
		const struct rbd_rec *d = &g_page.recs[i + 1];

		if (s->kind != RBD_STAMP || d->kind != RBD_DATA) {
			rbd_dump(&g_page);
			RBT_FAIL("record %u: expected TIME_STAMP then data", i);
		}
		ASSERT_EQ_U(s->value + d->delta, ev[k].ts & ((1ULL << 59) - 1));
		ASSERT_EQ(d->delta, 0);
		ASSERT_EQ_U(d->ts, ev[k].ts);
		tu_check(d->payload, d->len, k, 8 + 40 * k);
		k++;
	}
	/* back to deltas: no more TIME_STAMP records */
	ringbuf_set_time_stamp_abs(rb, false);
	ASSERT_FALSE(ringbuf_time_stamp_abs(rb));
	tu_write_ok(rb, 100, 16);
	tu_write_ok(rb, 101, 16);
	tu_write_ok(rb, 102, 16);
	ASSERT_EQ(tu_iter_all(rb, 0, ev, 8), 3);
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	ASSERT_EQ(g_page.ndata, 3);
	k = 0;
	for (i = 0; i < g_page.nrec; i++) {
		const struct rbd_rec *r = &g_page.recs[i];

		/* the first event after the switch may carry one stamp */
		if (r->kind == RBD_STAMP && k == 0)
			continue;
		ASSERT_EQ(r->kind, RBD_DATA);
		ASSERT_EQ_U(r->ts, ev[k].ts);
		k++;
	}
	ringbuf_free_read_page(rb, 0, page);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void page_end_padding(void)
{
	/* payload 24 -> 28-byte records: 145 fill 4060 bytes, 20 left */
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct ringbuf_test_state st0, st1;
	char err[256];
	unsigned int i;

	ASSERT_NOT_NULL(page);
	ringbuf_test_set_cpu(0);
	ASSERT_EQ(tu_record_size(24), 28);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st0), 0);
	for (i = 0; i < 145; i++)
		tu_write_ok(rb, i, 24);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st1), 0);
	ASSERT_EQ(st1.tail_page, st0.tail_page);
	ASSERT_EQ(st1.write, 4060);
	tu_write_ok(rb, 145, 24); /* does not fit: next page */
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st1), 0);
	ASSERT_NE(st1.tail_page, st0.tail_page);
	ASSERT_EQ(st1.tail_page, st0.next[st0.tail_page]);
	ASSERT_EQ(st1.write, 28);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 146);
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 0), 146 * 28 + 20);

	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	ASSERT_EQ(g_page.ndata, 145);
	for (i = 0; i < 145; i++) {
		ASSERT_EQ(g_page.recs[i].kind, RBD_DATA);
		ASSERT_EQ(g_page.recs[i].offset, i * 28);
		tu_check(g_page.recs[i].payload, g_page.recs[i].len, i, 24);
	}
	/* the kernel either ends the page at the last event or copies the
	 * padding record that covers the 20 unused bytes */
	if (g_page.commit == 4060) {
		ASSERT_EQ(g_page.nrec, 145);
	} else {
		ASSERT_EQ(g_page.commit, 4080);
		ASSERT_EQ(g_page.nrec, 146);
		ASSERT_TRUE(g_page.recs[145].kind == RBD_DISCARD ||
			    g_page.recs[145].kind == RBD_PAD_END);
		ASSERT_EQ(g_page.recs[145].offset, 4060);
		ASSERT_EQ(g_page.recs[145].size, 20);
	}
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	ASSERT_EQ(g_page.ndata, 1);
	ASSERT_EQ(g_page.commit, 28);
	tu_check(g_page.recs[0].payload, g_page.recs[0].len, 145, 24);
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), -ENODATA);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	ringbuf_free_read_page(rb, 0, page);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

/* ---- discard ------------------------------------------------------------ */

static struct ringbuf *g_rb;
static uint32_t g_sig_seq;
static size_t g_sig_len;
static volatile sig_atomic_t g_sig_ret;

static void nested_write_handler(int sig)
{
	unsigned char buf[512];
	int saved = errno;

	(void)sig;
	tu_fill(buf, g_sig_seq, g_sig_len);
	g_sig_ret = ringbuf_write(g_rb, g_sig_len, buf);
	errno = saved;
}

/* Write one event from a signal handler, nested in whatever the thread
 * holds on the buffer (like an interrupt). */
static void nested_write(struct ringbuf *rb, uint32_t seq, size_t len)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nested_write_handler;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	g_rb = rb;
	g_sig_seq = seq;
	g_sig_len = len;
	g_sig_ret = 1;
	ASSERT_EQ(raise(SIGUSR1), 0);
	ASSERT_EQ(g_sig_ret, 0);
}

static void discard_last(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct ringbuf_test_state st;
	struct ringbuf_event *ev;
	char err[256];

	ASSERT_NOT_NULL(page);
	ringbuf_test_set_cpu(0);
	tu_write_ok(rb, 0, 24);
	ev = tu_reserve_ok(rb, 1, 40);
	ringbuf_discard_commit(rb, ev);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 1);
	/* nothing was written after it: its space is given back */
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.write, 28);
	ASSERT_EQ(st.commit, 28);
	tu_write_ok(rb, 2, 24);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 2);
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	/* No discarded record: the next record starts where the discarded
	 * event did. As in the kernel, the discard invalidates the saved
	 * write stamp, so the next event may start with a TIME_STAMP. */
	if (g_page.ndata != 2 ||
	    !(g_page.nrec == 2 ||
	      (g_page.nrec == 3 && g_page.recs[1].kind == RBD_STAMP)))
		rbd_dump(&g_page);
	ASSERT_EQ(g_page.ndata, 2);
	ASSERT_EQ(g_page.recs[1].offset, 28);
	ASSERT_NE(g_page.recs[1].kind, RBD_DISCARD);
	{
		const struct rbd_rec *c = &g_page.recs[g_page.nrec - 1];

		tu_check(g_page.recs[0].payload, g_page.recs[0].len, 0, 24);
		tu_check(c->payload, c->len, 2, 24);
		ASSERT_GE_U(c->ts, g_page.recs[0].ts);
	}
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 2);
	ringbuf_free_read_page(rb, 0, page);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void discard_not_last(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct ringbuf_event *ev;
	char err[256];

	ASSERT_NOT_NULL(page);
	ringbuf_test_set_cpu(0);
	tu_write_ok(rb, 0, 24);
	ev = tu_reserve_ok(rb, 1, 40);
	nested_write(rb, 2, 32); /* lands after the reserved event */
	ringbuf_discard_commit(rb, ev);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 2);
	tu_write_ok(rb, 3, 16);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 3);
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	if (g_page.nrec != 4 || g_page.recs[1].kind != RBD_DISCARD) {
		rbd_dump(&g_page);
		RBT_FAIL("expected data, discarded, data, data");
	}
	ASSERT_EQ(g_page.recs[1].offset, 28);
	ASSERT_EQ(g_page.recs[1].size, tu_record_size(40));
	ASSERT_NE(g_page.recs[1].delta, 0);
	ASSERT_EQ(g_page.recs[2].offset, 28 + tu_record_size(40));
	tu_check(g_page.recs[0].payload, g_page.recs[0].len, 0, 24);
	tu_check(g_page.recs[2].payload, g_page.recs[2].len, 2, 32);
	tu_check(g_page.recs[3].payload, g_page.recs[3].len, 3, 16);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 3);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	ringbuf_free_read_page(rb, 0, page);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void discard_iter(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	struct tu_ev it[8], co[8];
	struct ringbuf_event *ev;
	size_t n;

	ringbuf_test_set_cpu(0);
	tu_write_ok(rb, 0, 24);
	ev = tu_reserve_ok(rb, 1, 200);
	nested_write(rb, 2, 24);
	ringbuf_discard_commit(rb, ev);
	tu_write_ok(rb, 3, 150);
	ev = tu_reserve_ok(rb, 4, 20);
	ringbuf_discard_commit(rb, ev);
	ev = tu_reserve_ok(rb, 5, 300);
	ringbuf_discard_commit(rb, ev);
	tu_write_ok(rb, 6, 8);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 4);
	n = tu_iter_all(rb, 0, it, 8);
	ASSERT_EQ(n, 4);
	ASSERT_EQ(it[0].seq, 0);
	ASSERT_EQ(it[1].seq, 2);
	ASSERT_EQ(it[2].seq, 3);
	ASSERT_EQ(it[3].seq, 6);
	n = tu_consume_all(rb, 0, co, 8);
	tu_assert_same(it, 4, co, n);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 4);
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 0), 0);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

/* Discarding the last event gives its space back but (as in the kernel)
 * leaves its TIME_STAMP, and forces the next event to carry one: a run of
 * reserve+discard piles up time records. Readers must still get to the
 * next event, without a warning, and recording must stay on. */
static void discard_repeated(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	struct ringbuf_event *ev;
	struct tu_ev it[4], co[4];

	ringbuf_test_set_cpu(0);
	tu_write_ok(rb, 0, 16);
	for (unsigned int i = 0; i < 8; i++) {
		ev = tu_reserve_ok(rb, 100 + i, 16);
		ringbuf_discard_commit(rb, ev);
	}
	tu_write_ok(rb, 1, 16);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 2);
	ASSERT_EQ(tu_iter_all(rb, 0, it, 4), 2);
	ASSERT_EQ(tu_consume_all(rb, 0, co, 4), 2);
	tu_assert_same(it, 2, co, 2);
	ASSERT_EQ(co[1].seq, 1);
	ASSERT_FALSE(ringbuf_test_warned(rb));
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	tu_write_ok(rb, 2, 16);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(discard_repeated),
	RBT_CASE(payload_sizes),    RBT_CASE(max_event_size),
	RBT_CASE(subbuf_orders),    RBT_CASE(time_extend),
	RBT_CASE(abs_timestamps),   RBT_CASE(page_end_padding),
	RBT_CASE(discard_last),     RBT_CASE(discard_not_last),
	RBT_CASE(discard_iter),
};
RBT_MAIN(cases)
