/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CPU notes: a record written into a spare buffer says on which CPU it was
 * written. Two threads hold the two CPU buffers of a 2-CPU ring (reserved,
 * not committed), so that every write of the test's thread goes to a
 * spare, on a CPU the test forces and changes at random. Every reader
 * then gives each record's CPU: ringbuf_consume() (ringbuf_event_cpu()),
 * the iterator (ringbuf_iter_cpu()), and the pages of ringbuf_read_page(),
 * whole or copied from the middle of a page; in overwrite mode what is
 * left after the oldest pages went is right too. Notes are no entries,
 * no lost events, and no records to a reader.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "tu.h"

#define HELD_SEQ 1000000u /* the holders' records: HELD_SEQ + their CPU */

struct holder {
	struct ringbuf *rb;
	int cpu;
	pthread_barrier_t *held, *done;
};

static void *hold_cpu(void *arg)
{
	struct holder *h = arg;

	ringbuf_test_set_cpu(h->cpu);
	tu_reserve_ok(h->rb, HELD_SEQ + (uint32_t)h->cpu, 16);
	pthread_barrier_wait(h->held);
	pthread_barrier_wait(h->done);
	ASSERT_EQ(ringbuf_unlock_commit(h->rb), 0);
	return NULL;
}

struct run {
	struct ringbuf *rb;
	uint32_t n;
	int *cpu_of; /* the CPU each record was written on */
	pthread_t th[2];
	struct holder h[2];
	pthread_barrier_t held, done;
};

/* Record sizes from 8 to 215 bytes: small and long encodings, and page
 * ends met at every offset. */
static size_t rec_len(uint32_t i)
{
	return 8 + (i * 37u) % 208u;
}

/* Hold both CPU buffers, then write @n records from "CPU" 0 or 1. */
static void run_start(struct run *r, unsigned int flags, size_t pages,
		      uint32_t n)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(pages), .flags = flags,
		     .nr_cpus = 2, .model = RINGBUF_PER_CPU,
		     .spare_buffers = 2);
	uint32_t x = 2463534242u;
	int cpu = 0;

	r->rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(r->rb);
	r->n = n;
	r->cpu_of = calloc(n, sizeof(*r->cpu_of));
	ASSERT_NOT_NULL(r->cpu_of);
	ASSERT_EQ(pthread_barrier_init(&r->held, NULL, 3), 0);
	ASSERT_EQ(pthread_barrier_init(&r->done, NULL, 3), 0);
	for (int c = 0; c < 2; c++) {
		r->h[c] = (struct holder){ .rb = r->rb, .cpu = c,
					   .held = &r->held, .done = &r->done };
		ASSERT_EQ(pthread_create(&r->th[c], NULL, hold_cpu, &r->h[c]),
			  0);
	}
	pthread_barrier_wait(&r->held);
	for (uint32_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (x % 5 == 0)
			cpu ^= 1;
		r->cpu_of[i] = cpu;
		ringbuf_test_set_cpu(cpu);
		tu_write_ok(r->rb, i, rec_len(i));
	}
	ringbuf_test_set_cpu(-1);
	pthread_barrier_wait(&r->done);
	for (int c = 0; c < 2; c++)
		ASSERT_EQ(pthread_join(r->th[c], NULL), 0);
}

static void run_end(struct run *r)
{
	tu_check_rb(r->rb);
	pthread_barrier_destroy(&r->held);
	pthread_barrier_destroy(&r->done);
	free(r->cpu_of);
	ringbuf_free(r->rb);
}

/* Check one record a reader returned: @buf the cpu buffer, @on the CPU
 * the reader says. Returns its sequence number. */
static uint32_t check_rec(struct run *r, const void *data, unsigned int len,
			  int buf, int on)
{
	uint32_t seq = tu_seq(data);

	if (seq >= HELD_SEQ) {
		/* a holder's, in its CPU's buffer, no note needed */
		ASSERT_EQ((int)(seq - HELD_SEQ), buf);
		ASSERT_EQ(on, buf);
		return seq;
	}
	ASSERT_LT(seq, r->n);
	tu_check(data, len, seq, rec_len(seq));
	ASSERT_TRUE(ringbuf_is_spare(r->rb, buf));
	if (on != r->cpu_of[seq])
		RBT_FAIL("record %u of spare %d: written on cpu %d, the reader "
			 "says %d", seq, buf, r->cpu_of[seq], on);
	return seq;
}

/* Every record once, in order, each with its CPU; no entry or loss for
 * the notes. */
static void consume_notes(void)
{
	struct run r;
	struct ringbuf_event *ev;
	uint32_t next = 0, held = 0;
	int buf;

	run_start(&r, 0, 256, 4000);
	ASSERT_EQ(ringbuf_entries(r.rb), 4000 + 2);
	ASSERT_EQ(ringbuf_overruns(r.rb), 0);
	for (int c = 0; c < ringbuf_nr_cpus(r.rb); c++) {
		ASSERT_EQ(ringbuf_dropped_events_cpu(r.rb, c), 0);
		ASSERT_EQ(ringbuf_commit_overrun_cpu(r.rb, c), 0);
	}
	while ((ev = ringbuf_consume_next(r.rb, &buf, NULL, NULL))) {
		uint32_t seq = check_rec(&r, ringbuf_event_data(ev),
					 ringbuf_event_length(ev), buf,
					 ringbuf_event_cpu(ev));

		if (seq >= HELD_SEQ) {
			held++;
			continue;
		}
		ASSERT_EQ(seq, next);
		next++;
	}
	ASSERT_EQ(errno, ENODATA);
	ASSERT_EQ(next, 4000);
	ASSERT_EQ(held, 2);
	ASSERT_EQ(ringbuf_entries(r.rb), 0);
	/* not one of this thread's events */
	ASSERT_EQ(ringbuf_event_cpu(NULL), -1);
	run_end(&r);
}

/* The iterator, from the start and from the middle of a page a consumer
 * stopped in. */
static void iter_notes(void)
{
	struct run r;
	uint32_t next = 0;

	run_start(&r, 0, 256, 3000);
	for (int c = 0; c < ringbuf_nr_cpus(r.rb); c++) {
		struct ringbuf_iter *it;
		struct ringbuf_event *ev;
		uint64_t ts;

		if (!ringbuf_is_spare(r.rb, c) || ringbuf_entries_cpu(r.rb, c) == 0)
			continue;
		/* 7 records consumed: the iterator starts mid-page */
		for (int k = 0; k < 7; k++) {
			ev = ringbuf_consume(r.rb, c, NULL, NULL);
			ASSERT_NOT_NULL(ev);
			ASSERT_EQ(check_rec(&r, ringbuf_event_data(ev),
					    ringbuf_event_length(ev), c,
					    ringbuf_event_cpu(ev)), next);
			next++;
		}
		it = ringbuf_read_start(r.rb, c);
		ASSERT_NOT_NULL(it);
		while ((ev = ringbuf_iter_peek(it, &ts))) {
			ASSERT_EQ(check_rec(&r, ringbuf_event_data(ev),
					    ringbuf_event_length(ev), c,
					    ringbuf_iter_cpu(it)), next);
			next++;
			ringbuf_iter_advance(it);
		}
		ringbuf_read_finish(it);
	}
	ASSERT_EQ(next, 3000);
	run_end(&r);
}

/* A page of ringbuf_read_page(), decoded as a reader of the format does:
 * every data record checked with the CPU the last note before it names
 * (the page's own CPU, or -1, before any). */
static uint32_t check_page(struct run *r, const struct ringbuf_data_page *p,
			   int buf, uint32_t next)
{
	uint64_t size = p->commit & RINGBUF_COMMIT_MASK, pos = 0;
	/* a spare's page says the CPU of its first records: it never
	 * starts with a note (kbuffer reports a loss with a record at 0) */
	int on = ringbuf_page_cpu(p->commit);

	while (pos + 8 <= size) {
		const struct ringbuf_event *e = (const void *)(p->data + pos);
		unsigned int len;

		switch (e->type_len) {
		case RINGBUF_TYPE_PADDING: {
			int c = ringbuf_note_cpu(e, size - pos);

			ASSERT_TRUE(c < 0 || pos > 0);
			if (c >= 0)
				on = c;
			ASSERT_NE(e->array[0], 0);
			pos += 4 + e->array[0];
			continue;
		}
		case RINGBUF_TYPE_TIME_EXTEND:
		case RINGBUF_TYPE_TIME_STAMP:
			pos += 8;
			continue;
		case 0:
			len = e->array[0] - 4;
			ASSERT_EQ(check_rec(r, &e->array[1], len, buf, on), next);
			pos += 8 + ((len + 3) & ~3u);
			break;
		default:
			len = e->type_len * 4;
			ASSERT_EQ(check_rec(r, &e->array[0], len, buf, on), next);
			pos += 4 + len;
			break;
		}
		next++;
	}
	return next;
}

/* read_page, after a consumer stopped in the middle of a page (the rest
 * is copied out, its note put first again), then whole pages. */
static void read_page_notes(void)
{
	struct run r;
	uint32_t next = 0;

	run_start(&r, 0, 256, 3000);
	for (int c = 0; c < ringbuf_nr_cpus(r.rb); c++) {
		struct ringbuf_data_page *p;

		if (!ringbuf_is_spare(r.rb, c) || ringbuf_entries_cpu(r.rb, c) == 0)
			continue;
		for (int k = 0; k < 5; k++) {
			struct ringbuf_event *ev = ringbuf_consume(r.rb, c, NULL,
								   NULL);

			ASSERT_NOT_NULL(ev);
			ASSERT_EQ(check_rec(&r, ringbuf_event_data(ev),
					    ringbuf_event_length(ev), c,
					    ringbuf_event_cpu(ev)), next);
			next++;
		}
		p = ringbuf_alloc_read_page(r.rb, c);
		ASSERT_NOT_NULL(p);
		while (ringbuf_read_page(r.rb, p, 4096, c, 0) == 0)
			next = check_page(&r, p, c, next);
		ASSERT_EQ(errno, ENODATA);
		ringbuf_free_read_page(r.rb, c, p);
	}
	ASSERT_EQ(next, 3000);
	run_end(&r);
}

/* Overwrite mode: the oldest pages go, notes and all; every record left
 * still says its CPU (each page starts with a note). */
static void overwrite_notes(void)
{
	struct run r;
	struct ringbuf_event *ev;
	uint32_t next = 0, got = 0;
	int buf;

	run_start(&r, RINGBUF_FL_OVERWRITE, 8, 3000);
	ASSERT_GT(ringbuf_overruns(r.rb), 0);
	while ((ev = ringbuf_consume_next(r.rb, &buf, NULL, NULL))) {
		uint32_t seq = check_rec(&r, ringbuf_event_data(ev),
					 ringbuf_event_length(ev), buf,
					 ringbuf_event_cpu(ev));

		if (seq >= HELD_SEQ)
			continue;
		ASSERT_GE(seq, next);
		next = seq + 1;
		got++;
	}
	ASSERT_GT(got, 0);
	ASSERT_EQ(next, 3000);
	/* the conservation law: what was read plus what went is all */
	ASSERT_EQ(got + ringbuf_overruns(r.rb) + 2, 3000 + 2);
	run_end(&r);
}

static const struct rbt_case cases[] = {
	RBT_CASE(consume_notes),
	RBT_CASE(iter_notes),
	RBT_CASE(read_page_notes),
	RBT_CASE(overwrite_notes),
};
RBT_MAIN(cases)
