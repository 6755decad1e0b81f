// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mutex.c - the baseline a user would write by hand: one ring of
 * variable-length records behind one pthread mutex, shared by every
 * writer.
 *
 * A record is a 32-bit length, a 64-bit time stamp read under the lock
 * (so that records are in time order) and the payload, 4-byte aligned. A
 * record never wraps: when it does not fit before the end of the ring, a
 * wrap marker fills the rest and the record starts at offset 0. In
 * overwrite mode the writer pushes the oldest records out (and counts
 * them); otherwise it refuses the new one (and counts it). The reader
 * takes the lock for one record, or for up to a page of whole records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clock.h"

#define MR_WRAP 0xffffffffu	/* length word of a wrap marker */
#define MR_HDR 12u		/* length + time stamp */
#define MR_PAGE 4096u

struct mring {
	pthread_mutex_t lock;
	unsigned char *mem;
	uint64_t size;		/* power of two */
	uint64_t head, tail;	/* free-running byte offsets */
	uint64_t written, overrun, dropped, read;
	bool overwrite;
	enum bench_clock clock;
	/* reader side, touched by the consumer only */
	uint64_t cons_events, cons_bytes, cons_bad;
};

static uint32_t mr_len_at(const struct mring *m, uint64_t off)
{
	uint32_t len;

	memcpy(&len, m->mem + (off & (m->size - 1)), 4);
	return len;
}

/* Bytes the record at @off occupies, a wrap marker included. */
static uint64_t mr_rec_size(const struct mring *m, uint64_t off)
{
	uint32_t len = mr_len_at(m, off);

	if (len == MR_WRAP)
		return m->size - (off & (m->size - 1));
	return MR_HDR + bench_align4(len);
}

/* Push the oldest record out. Called with the lock held. */
static void mr_drop_oldest(struct mring *m)
{
	if (mr_len_at(m, m->tail) != MR_WRAP)
		m->overrun++;
	m->tail += mr_rec_size(m, m->tail);
}

static inline __attribute__((always_inline)) bool
mr_write(struct mring *m, const unsigned char *src, unsigned int len,
	 uint64_t seq, enum bench_clock clk)
{
	uint64_t need = MR_HDR + bench_align4(len);
	uint64_t off, room_to_end, now;
	unsigned char *p;

	pthread_mutex_lock(&m->lock);
	now = bench_clock_read(clk);
	off = m->head & (m->size - 1);
	room_to_end = m->size - off;
	/* Space for the record, plus the wrap marker if it must wrap. */
	if (room_to_end < need + 4) {
		uint64_t total = room_to_end + need;

		while (m->head + total - m->tail > m->size) {
			if (!m->overwrite || m->head == m->tail)
				goto full;
			mr_drop_oldest(m);
		}
		{
			uint32_t wrap = MR_WRAP;

			memcpy(m->mem + off, &wrap, 4);
		}
		m->head += room_to_end;
		off = 0;
	} else {
		while (m->head + need - m->tail > m->size) {
			if (!m->overwrite || m->head == m->tail)
				goto full;
			mr_drop_oldest(m);
		}
	}
	p = m->mem + off;
	{
		uint32_t l = len;

		memcpy(p, &l, 4);
		memcpy(p + 4, &now, 8);
	}
	bench_put_payload(p + MR_HDR, src, len, seq);
	m->head += need;
	m->written++;
	pthread_mutex_unlock(&m->lock);
	return true;
full:
	m->dropped++;
	pthread_mutex_unlock(&m->lock);
	return false;
}

static inline __attribute__((always_inline)) void
mr_loop(struct bench_writer *w, unsigned int len, enum bench_clock clk)
{
	struct mring *m = w->impl;
	uint64_t seq = 0, ok = 0, miss = 0;

	while (!atomic_load_explicit(&bench_stop, memory_order_relaxed)) {
		seq++;
		if (__builtin_expect(mr_write(m, w->src, len, seq, clk), 1))
			ok++;
		else
			miss++;
	}
	w->attempts = seq;
	w->written = ok;
	w->missed = miss;
}

static void mr_loop_tsc(struct bench_writer *w)
{
#define BODY(L) mr_loop(w, L, BCLOCK_TSC)
	BENCH_PAYLOAD_SWITCH(w->c->payload, BODY);
#undef BODY
}

static void mr_loop_mono(struct bench_writer *w)
{
#define BODY(L) mr_loop(w, L, BCLOCK_MONO)
	BENCH_PAYLOAD_SWITCH(w->c->payload, BODY);
#undef BODY
}

static void mr_loop_fn(struct bench_writer *w)
{
	if (w->c->clock == BCLOCK_TSC)
		mr_loop_tsc(w);
	else
		mr_loop_mono(w);
}

/* Account one record copied out by the reader. */
static void mr_account(struct mring *m, const unsigned char *rec,
		       unsigned int expect)
{
	uint32_t len;

	memcpy(&len, rec, 4);
	m->cons_events++;
	m->cons_bytes += MR_HDR + bench_align4(len);
	if (len != expect)
		m->cons_bad++;
}

/*
 * Take up to @max bytes of whole records out of the ring into @out.
 * Returns the number of records taken.
 */
static unsigned int mr_take(struct mring *m, unsigned char *out, size_t max,
			    unsigned int max_records, unsigned int expect)
{
	unsigned int n = 0;
	size_t used = 0;

	pthread_mutex_lock(&m->lock);
	while (m->tail != m->head && n < max_records) {
		uint64_t off = m->tail & (m->size - 1);
		uint32_t len = mr_len_at(m, m->tail);
		uint64_t sz;

		if (len == MR_WRAP) {
			m->tail += m->size - off;
			continue;
		}
		sz = MR_HDR + bench_align4(len);
		if (used + sz > max)
			break;
		memcpy(out + used, m->mem + off, sz);
		used += sz;
		m->tail += sz;
		m->read++;
		n++;
	}
	pthread_mutex_unlock(&m->lock);
	/* Look at the copies outside the lock, as a reader would. */
	for (size_t at = 0; at < used;) {
		uint32_t len;

		memcpy(&len, out + at, 4);
		mr_account(m, out + at, expect);
		at += MR_HDR + bench_align4(len);
	}
	return n;
}

static void mr_consumer(struct bench_team *t)
{
	struct mring *m = t->impl;
	unsigned char page[MR_PAGE] __attribute__((aligned(16)));
	bool by_page = t->c->consumer != CONS_EVENT;
	unsigned int expect = t->c->payload;

	while (!atomic_load_explicit(&t->cons_stop, memory_order_acquire)) {
		unsigned int n;

		if (by_page)
			n = mr_take(m, page, sizeof(page), ~0u, expect);
		else
			n = mr_take(m, page, sizeof(page), 1, expect);
		if (!n)
			bench_sleep_ns(bench_consumer_sleep_us * 1000ull);
	}
}

void bench_run_mutex(const struct bench_case *c, struct bench_result *r)
{
	struct bench_team t;
	struct mring m;
	uint64_t size = 4096;

	memset(&t, 0, sizeof(t));
	memset(&m, 0, sizeof(m));
	/* One ring for everybody, as big as the cpu buffers of all writers. */
	while (size < (uint64_t)c->size * (c->writers ? c->writers : 1))
		size <<= 1;
	m.size = size;
	m.mem = aligned_alloc(4096, size);
	if (!m.mem) {
		r->skipped = true;
		snprintf(r->why, sizeof(r->why), "out of memory");
		return;
	}
	memset(m.mem, 0, size);
	pthread_mutex_init(&m.lock, NULL);
	m.overwrite = c->overwrite;
	m.clock = c->clock;

	if (bench_team_init(&t, c, r))
		goto out;
	t.impl = &m;
	t.loop = mr_loop_fn;
	if (c->consumer != CONS_NONE)
		t.consumer = mr_consumer;
	if (bench_team_run(&t, r))
		goto out;
	bench_team_sum(&t, r);
	r->read = m.cons_events;
	r->read_bytes = m.cons_bytes;
	r->bad_records = m.cons_bad;
	r->overrun = m.overrun;
	r->dropped = m.dropped;
	r->lib_read = m.read;
	r->have_lib_counters = true;
	r->entries = m.written - m.read - m.overrun;
	r->consumer_secs = (double)t.cons_ns / 1e9;
out:
	pthread_mutex_destroy(&m.lock);
	free(m.mem);
	free(t.w);
}
