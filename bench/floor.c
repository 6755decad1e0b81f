// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * floor.c - the floor: what recording an event costs at the least.
 *
 * Every writer has a private, preallocated and prefaulted buffer of the
 * same size as a ring buffer's cpu buffer, laid out in the same 4096-byte
 * pages. Per event it reads the same clock, stores the same 4-byte record
 * header (type_len, time_delta; the extra length word above 112 bytes)
 * and the same payload, and closes a page when the next record does not
 * fit. No atomics, no reader, no overwrite bookkeeping, no loss: the
 * ring buffer's cost above this is the price of being a ring buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ringbuf/event.h>

#include "bench.h"
#include "clock.h"

#define FLOOR_PAGE 4096u

struct floor_buf {
	unsigned char *mem;
	size_t npages;
	size_t page;		/* current page index */
	unsigned char *pos;	/* next record */
	unsigned char *end;	/* end of the current page */
	uint64_t last;		/* time of the previous record */
};

static unsigned char *floor_page(struct floor_buf *f, size_t i)
{
	return f->mem + i * FLOOR_PAGE;
}

static void floor_open_page(struct floor_buf *f, uint64_t now)
{
	unsigned char *pg = floor_page(f, f->page);
	uint64_t zero = 0;

	memcpy(pg, &now, 8);
	memcpy(pg + 8, &zero, 8);
	f->pos = pg + RINGBUF_PAGE_HDR_SIZE;
	f->end = pg + FLOOR_PAGE;
	f->last = now;
}

/* Not inlined: it runs once per page. */
static __attribute__((noinline)) void floor_next_page(struct floor_buf *f,
						       uint64_t now)
{
	unsigned char *pg = floor_page(f, f->page);
	uint64_t commit = (uint64_t)(f->pos - (pg + RINGBUF_PAGE_HDR_SIZE));

	memcpy(pg + 8, &commit, 8);
	if (++f->page == f->npages)
		f->page = 0;
	floor_open_page(f, now);
}

static __attribute__((noinline)) unsigned char *
floor_extend(unsigned char *pos, uint64_t delta)
{
	uint32_t ext[2];

	ext[0] = RINGBUF_TYPE_TIME_EXTEND | (uint32_t)((delta & ((1u << 27) - 1)) << 5);
	ext[1] = (uint32_t)(delta >> 27);
	memcpy(pos, ext, 8);
	return pos + 8;
}

static inline __attribute__((always_inline)) void
floor_loop(struct bench_writer *w, unsigned int len, enum bench_clock clk)
{
	struct floor_buf *f = w->priv;
	/* the record size the ring buffer would use, 8-byte payload rule included */
	unsigned int plen = bench_record_payload(len);
	unsigned int big = plen > RINGBUF_MAX_SMALL_DATA;
	unsigned int rec = RINGBUF_EVENT_HDR_SIZE + (big ? 4u : 0u) + plen;
	/* The write position lives in registers, as it would in a hand-made loop. */
	unsigned char *pos = f->pos, *end = f->end;
	uint64_t last = f->last, seq = 0;

	while (!atomic_load_explicit(&bench_stop, memory_order_relaxed)) {
		uint64_t now = bench_clock_read(clk);
		uint64_t delta;
		uint32_t hdr;

		/* room for the record and a possible time extend */
		if (__builtin_expect(pos + rec + 8 > end, 0)) {
			f->pos = pos;
			floor_next_page(f, now);
			pos = f->pos;
			end = f->end;
			last = now;
		}
		delta = now - last;
		if (__builtin_expect(delta >> 27, 0)) {
			pos = floor_extend(pos, delta);
			delta = 0;
		}
		last = now;
		seq++;
		if (big) {
			hdr = (uint32_t)delta << 5;
			memcpy(pos, &hdr, 4);
			hdr = plen + 4;
			memcpy(pos + 4, &hdr, 4);
			bench_put_payload(pos + 8, w->src, len, seq);
		} else {
			hdr = (plen / 4u) | (uint32_t)delta << 5;
			memcpy(pos, &hdr, 4);
			bench_put_payload(pos + 4, w->src, len, seq);
		}
		pos += rec;
	}
	f->pos = pos;
	f->last = last;
	w->attempts = seq;
	w->written = seq;
	w->missed = 0;
}

static void floor_loop_tsc(struct bench_writer *w)
{
#define BODY(L) floor_loop(w, L, BCLOCK_TSC)
	BENCH_PAYLOAD_SWITCH(w->c->payload, BODY);
#undef BODY
}

static void floor_loop_mono(struct bench_writer *w)
{
#define BODY(L) floor_loop(w, L, BCLOCK_MONO)
	BENCH_PAYLOAD_SWITCH(w->c->payload, BODY);
#undef BODY
}

/* The buffer is allocated and prefaulted by its own writer (NUMA-local). */
static void floor_warmup(struct bench_writer *w)
{
	struct floor_buf *f = w->priv;

	f->npages = w->c->size / FLOOR_PAGE;
	if (f->npages < 2)
		f->npages = 2;
	f->mem = aligned_alloc(FLOOR_PAGE, f->npages * FLOOR_PAGE);
	if (!f->mem) {
		w->error = ENOMEM;
		f->npages = 0;
		return;
	}
	memset(f->mem, 0, f->npages * FLOOR_PAGE);
	f->page = 0;
	floor_open_page(f, bench_clock_read(w->c->clock));
}

static void floor_loop_fn(struct bench_writer *w)
{
	if (w->error)
		return;
	if (w->c->clock == BCLOCK_TSC)
		floor_loop_tsc(w);
	else
		floor_loop_mono(w);
}

void bench_run_floor(const struct bench_case *c, struct bench_result *r)
{
	struct bench_team t;
	struct floor_buf *bufs;
	unsigned int i;
	uint64_t sink = 0;

	memset(&t, 0, sizeof(t));
	t.c = c;
	t.nw = c->writers;
	t.w = calloc(c->writers, sizeof(*t.w));
	bufs = calloc(c->writers, sizeof(*bufs));
	if (!t.w || !bufs) {
		r->skipped = true;
		snprintf(r->why, sizeof(r->why), "out of memory");
		goto out;
	}
	for (i = 0; i < c->writers; i++)
		t.w[i].priv = &bufs[i];
	t.warmup = floor_warmup;
	t.loop = floor_loop_fn;
	if (bench_team_run(&t, r))
		goto out;
	bench_team_sum(&t, r);
	/* No reader: everything written is still "in the buffer". */
	r->entries = r->written;
	r->consistent = true;
	for (i = 0; i < c->writers; i++) {
		if (bufs[i].mem)
			sink += bufs[i].mem[RINGBUF_PAGE_HDR_SIZE + 5];
		free(bufs[i].mem);
	}
	/* Keep the stores observable. */
	__asm__ __volatile__("" : : "r"(sink) : "memory");
out:
	free(bufs);
	free(t.w);
}
