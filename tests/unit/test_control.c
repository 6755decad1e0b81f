/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Control: resize (per cpu, all cpus, with an iterator open, while other
 * threads write and read), reset/reset_cpu, swap_cpu, the record
 * switches and change_overwrite.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbdecode.h"
#include "test.h"
#include "tu.h"

#define EPP 204u /* 20-byte records per page */

static unsigned int nr_pages(struct ringbuf *rb, int cpu)
{
	struct ringbuf_test_state st;

	ASSERT_EQ(ringbuf_test_state(rb, cpu, &st), 0);
	return st.nr_pages;
}

/* write 16-byte events from seq until the buffer refuses one */
static unsigned int fill(struct ringbuf *rb, uint32_t seq)
{
	unsigned int n = 0;

	while (tu_write(rb, seq + n, 16) == 0)
		n++;
	return n;
}

static void expect_seqs(struct ringbuf *rb, int cpu, uint32_t first,
			unsigned int n, size_t len)
{
	struct ringbuf_event *ev;

	for (unsigned int i = 0; i < n; i++) {
		ev = ringbuf_consume(rb, cpu, NULL, NULL);
		if (!ev)
			RBT_FAIL("cpu %d: event %u of %u missing", cpu, i, n);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 first + i, len);
	}
	ASSERT_NULL(ringbuf_consume(rb, cpu, NULL, NULL));
}

static void resize_grow_shrink(void)
{
	struct ringbuf *rb = tu_create(4, 0, 2, RINGBUF_PER_CPU);
	size_t sz1;

	ringbuf_test_set_cpu(0);
	for (unsigned int i = 0; i < 10; i++)
		tu_write_ok(rb, i, 16);
	ringbuf_test_set_cpu(1);
	for (unsigned int i = 0; i < 7; i++)
		tu_write_ok(rb, 100 + i, 32);
	sz1 = ringbuf_size(rb, 1);
	ASSERT_TRUE(sz1 == 4 * 4096 || sz1 == 4 * TU_PAGE_DATA);

	/* grow cpu 0: its unread events go to overrun, cpu 1 keeps data */
	ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(8), 0), 0);
	ASSERT_EQ(nr_pages(rb, 0), 8);
	ASSERT_EQ(nr_pages(rb, 1), 4);
	ASSERT_EQ(ringbuf_size(rb, 0), 2 * sz1);
	ASSERT_EQ(ringbuf_size(rb, 1), sz1);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), 10);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 1), 7);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 1), 0);
	tu_check_rb(rb);
	ringbuf_test_set_cpu(0);
	ASSERT_EQ(fill(rb, 1000), 8 * EPP);
	expect_seqs(rb, 0, 1000, 8 * EPP, 16);
	expect_seqs(rb, 1, 100, 7, 32);

	/* shrink cpu 0 */
	ringbuf_test_set_cpu(0);
	for (unsigned int i = 0; i < 20; i++)
		tu_write_ok(rb, i, 16);
	unsigned long ov = ringbuf_overrun_cpu(rb, 0);

	ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(2), 0), 0);
	ASSERT_EQ(nr_pages(rb, 0), 2);
	ASSERT_EQ(ringbuf_size(rb, 0), sz1 / 2);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), ov + 20);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	tu_check_rb(rb);
	ASSERT_EQ(fill(rb, 2000), 2 * EPP);
	expect_seqs(rb, 0, 2000, 2 * EPP, 16);
	/* a size below two pages gives two pages */
	ASSERT_EQ(ringbuf_resize(rb, 1, 0), 0);
	ASSERT_EQ(nr_pages(rb, 0), 2);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void resize_all(void)
{
	struct ringbuf *rb = tu_create(3, RINGBUF_FL_OVERWRITE, 2,
				       RINGBUF_PER_CPU);

	for (int cpu = 0; cpu < 2; cpu++) {
		ringbuf_test_set_cpu(cpu);
		for (unsigned int i = 0; i < 50; i++)
			tu_write_ok(rb, i, 16);
	}
	ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(6), RINGBUF_ALL_CPUS), 0);
	for (int cpu = 0; cpu < 2; cpu++) {
		ASSERT_EQ(nr_pages(rb, cpu), 6);
		ASSERT_EQ(ringbuf_entries_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_overrun_cpu(rb, cpu), 50);
	}
	ASSERT_TRUE(ringbuf_empty(rb));
	tu_check_rb(rb);
	for (int cpu = 0; cpu < 2; cpu++) {
		ringbuf_test_set_cpu(cpu);
		for (unsigned int i = 0; i < 7 * EPP; i++)
			tu_write_ok(rb, i, 16);
		/* 7 whole pages into a ring of 6: the first page is lost */
		ASSERT_EQ(ringbuf_overrun_cpu(rb, cpu), 50 + EPP);
	}
	ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(2), RINGBUF_ALL_CPUS), 0);
	for (int cpu = 0; cpu < 2; cpu++) {
		ASSERT_EQ(nr_pages(rb, cpu), 2);
		ASSERT_EQ(ringbuf_overrun_cpu(rb, cpu), 50 + 7 * EPP);
	}
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void resize_busy_iter(void)
{
	struct ringbuf *rb = tu_create(4, 0, 2, RINGBUF_PER_CPU);
	struct ringbuf_iter *it;

	ringbuf_test_set_cpu(0);
	for (unsigned int i = 0; i < 30; i++)
		tu_write_ok(rb, i, 16);
	it = ringbuf_read_start(rb, 0);
	ASSERT_NOT_NULL(it);
	ASSERT_ERR(ringbuf_resize(rb, TU_PAGES(8), 0), EBUSY);
	ASSERT_ERR(ringbuf_resize(rb, TU_PAGES(8), RINGBUF_ALL_CPUS), EBUSY);
	ASSERT_EQ(nr_pages(rb, 0), 4);
	ASSERT_EQ(nr_pages(rb, 1), 4);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 30);
	/* the iterator still works */
	for (unsigned int i = 0; i < 30; i++) {
		struct ringbuf_event *ev = ringbuf_iter_peek(it, NULL);

		ASSERT_NOT_NULL(ev);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), i,
			 16);
		ringbuf_iter_advance(it);
	}
	ringbuf_read_finish(it);
	ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(8), 0), 0);
	ASSERT_EQ(nr_pages(rb, 0), 8);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

/* ---- resize/reset while others write and read ------------------------ */

struct conc {
	struct ringbuf *rb;
	atomic_bool stop;
	atomic_ulong written;
	atomic_ulong read;
	atomic_ulong bad;
	int nr_cpus;
	uint64_t seed;
};

static void *conc_writer(void *arg)
{
	struct conc *c = arg;
	struct rbt_rng rng;
	uint32_t seq = 0;

	rbt_rng_init(&rng, c->seed);
	while (!atomic_load(&c->stop)) {
		size_t len = 8 + rbt_rng_range(&rng, 0, 300);

		ringbuf_test_set_cpu((int)rbt_rng_range(&rng, 0,
						       (uint64_t)c->nr_cpus - 1));
		if (tu_write(c->rb, seq, len) == 0) {
			seq++;
			atomic_fetch_add(&c->written, 1);
		}
	}
	return NULL;
}

static bool check_payload(const unsigned char *p, unsigned int evlen)
{
	uint32_t seq, len;

	if (evlen < 8)
		return false;
	seq = tu_seq(p);
	len = tu_len(p);
	if (len < 8 || len > 308 || tu_event_len(len) != evlen)
		return false;
	for (size_t i = 8; i < len; i++)
		if (p[i] != tu_pattern(seq, i))
			return false;
	return true;
}

/* A resize rebuilds the mapping (event pointers from consume become
 * invalid) and a reset hands pages back to writers: the concurrent
 * reader therefore reads copies, with read_page, and checks those. */
static struct rbd_page g_cpage;

static unsigned int read_one_page(struct conc *c, int cpu, void *page)
{
	size_t psz = ringbuf_subbuf_size(c->rb);
	char err[256];
	unsigned int n = 0;

	if (ringbuf_read_page(c->rb, page, psz, cpu, 0) != 0)
		return 0;
	if (rbd_decode(page, psz, false, &g_cpage, err, sizeof(err))) {
		rbt_note("bad page: %s", err);
		atomic_fetch_add(&c->bad, 1);
		return 1;
	}
	for (unsigned int i = 0; i < g_cpage.nrec; i++) {
		const struct rbd_rec *r = &g_cpage.recs[i];

		if (r->kind != RBD_DATA)
			continue;
		if (!check_payload(r->payload, r->len))
			atomic_fetch_add(&c->bad, 1);
		atomic_fetch_add(&c->read, 1);
		n++;
	}
	return n + 1;
}

static void *conc_reader(void *arg)
{
	struct conc *c = arg;
	void *page = malloc(ringbuf_subbuf_size(c->rb));
	int cpu = 0;

	ASSERT_NOT_NULL(page);
	while (!atomic_load(&c->stop)) {
		if (!read_one_page(c, cpu, page))
			rbt_msleep(1);
		cpu = (cpu + 1) % c->nr_cpus;
	}
	free(page);
	return NULL;
}

static void conc_finish(struct conc *c, pthread_t *w, pthread_t *r)
{
	void *page = malloc(ringbuf_subbuf_size(c->rb));

	ASSERT_NOT_NULL(page);
	atomic_store(&c->stop, true);
	pthread_join(*w, NULL);
	pthread_join(*r, NULL);
	for (int cpu = 0; cpu < c->nr_cpus; cpu++)
		while (read_one_page(c, cpu, page))
			;
	free(page);
	ASSERT_EQ(atomic_load(&c->bad), 0);
	ASSERT_EQ(ringbuf_entries(c->rb), 0);
	tu_check_rb(c->rb);
}

static void resize_concurrent(void)
{
	struct conc c = { 0 };
	pthread_t w, r;
	unsigned int rounds = 40;

	c.nr_cpus = 2;
	c.seed = rbt_rand();
	c.rb = tu_create(4, RINGBUF_FL_OVERWRITE, 2, RINGBUF_PER_CPU);
	ASSERT_EQ(pthread_create(&w, NULL, conc_writer, &c), 0);
	ASSERT_EQ(pthread_create(&r, NULL, conc_reader, &c), 0);
	for (unsigned int i = 0; i < rounds; i++) {
		int cpu = (int)rbt_rand_range(0, 2) - 1; /* -1 = all */
		unsigned int pages = (unsigned int)rbt_rand_range(2, 12);

		ASSERT_EQ(ringbuf_resize(c.rb, TU_PAGES(pages), cpu), 0);
		if (cpu >= 0)
			ASSERT_EQ(nr_pages(c.rb, cpu), pages);
		else
			ASSERT_EQ(nr_pages(c.rb, 1), pages);
		rbt_msleep(2);
	}
	conc_finish(&c, &w, &r);
	/* nothing committed is unaccounted for */
	ASSERT_EQ(atomic_load(&c.read), tu_sum(c.rb, ringbuf_read_events_cpu));
	ASSERT_EQ(atomic_load(&c.written),
		  atomic_load(&c.read) + ringbuf_overruns(c.rb));
	ASSERT_GT(atomic_load(&c.written), 0);
	printf("resize_concurrent: written %lu read %lu overrun %lu\n",
	       atomic_load(&c.written), atomic_load(&c.read),
	       ringbuf_overruns(c.rb));
	ringbuf_free(c.rb);
}

static void reset_concurrent(void)
{
	struct conc c = { 0 };
	pthread_t w, r;

	c.nr_cpus = 2;
	c.seed = rbt_rand();
	c.rb = tu_create(4, RINGBUF_FL_OVERWRITE, 2, RINGBUF_PER_CPU);
	ASSERT_EQ(pthread_create(&w, NULL, conc_writer, &c), 0);
	ASSERT_EQ(pthread_create(&r, NULL, conc_reader, &c), 0);
	for (unsigned int i = 0; i < 60; i++) {
		if (i % 10 == 9)
			ringbuf_reset(c.rb);
		else
			ringbuf_reset_cpu(c.rb, (int)(i % 2));
		rbt_msleep(1);
	}
	conc_finish(&c, &w, &r);
	ASSERT_GT(atomic_load(&c.written), 0);
	ringbuf_free(c.rb);
}

static void reset_cpu(void)
{
	struct ringbuf *rb = tu_create(4, 0, 2, RINGBUF_PER_CPU);

	ringbuf_test_set_cpu(0);
	for (unsigned int i = 0; i < 300; i++)
		tu_write_ok(rb, i, 16);
	ringbuf_test_set_cpu(1);
	for (unsigned int i = 0; i < 5; i++)
		tu_write_ok(rb, 100 + i, 40);
	for (unsigned int i = 0; i < 2; i++)
		ASSERT_NOT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ringbuf_test_set_cpu(0);
	ASSERT_GT(fill(rb, 400) + 0u, 0);
	ASSERT_GT(ringbuf_dropped_events_cpu(rb, 0), 0);

	ringbuf_reset_cpu(rb, 0);
	ASSERT_TRUE(ringbuf_empty_cpu(rb, 0));
	ASSERT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_commit_overrun_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 0), 0);
	ASSERT_EQ_U(ringbuf_oldest_event_ts(rb, 0), 0);
	ASSERT_EQ(nr_pages(rb, 0), 4);
	tu_check_rb(rb);
	/* the whole buffer is usable again */
	ASSERT_EQ(fill(rb, 7000), 4 * EPP);
	expect_seqs(rb, 0, 7000, 4 * EPP, 16);
	/* cpu 1 untouched */
	ASSERT_EQ(ringbuf_entries_cpu(rb, 1), 5);
	expect_seqs(rb, 1, 100, 5, 40);
	/* a bad cpu changes nothing */
	ringbuf_test_set_cpu(1);
	tu_write_ok(rb, 9, 16);
	ringbuf_reset_cpu(rb, 999);
	ringbuf_reset_cpu(rb, -1);
	ringbuf_reset_cpu(rb, 2);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 1), 1);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void reset_all(void)
{
	struct ringbuf *rb = tu_create(4, RINGBUF_FL_OVERWRITE, 3,
				       RINGBUF_PER_CPU);

	for (int cpu = 0; cpu < 3; cpu++) {
		ringbuf_test_set_cpu(cpu);
		for (unsigned int i = 0; i < 1000; i++)
			tu_write_ok(rb, i, 16);
		ASSERT_NOT_NULL(ringbuf_consume(rb, cpu, NULL, NULL));
	}
	ASSERT_GT(ringbuf_overruns(rb), 0);
	ringbuf_reset(rb);
	ASSERT_TRUE(ringbuf_empty(rb));
	ASSERT_EQ(ringbuf_entries(rb), 0);
	ASSERT_EQ(ringbuf_overruns(rb), 0);
	for (int cpu = 0; cpu < 3; cpu++) {
		ASSERT_EQ(ringbuf_read_events_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_bytes_cpu(rb, cpu), 0);
		ASSERT_NULL(ringbuf_consume(rb, cpu, NULL, NULL));
	}
	ASSERT_NULL(ringbuf_consume_next(rb, NULL, NULL, NULL));
	tu_check_rb(rb);
	ringbuf_test_set_cpu(2);
	tu_write_ok(rb, 77, 16);
	expect_seqs(rb, 2, 77, 1, 16);
	ringbuf_free(rb);
}

static void swap_cpu(void)
{
	struct ringbuf *a = tu_create(4, 0, 2, RINGBUF_PER_CPU);
	struct ringbuf *b = tu_create(4, 0, 2, RINGBUF_PER_CPU);

	ringbuf_test_set_cpu(0);
	for (unsigned int i = 0; i < 10; i++)
		tu_write_ok(a, i, 16);
	for (unsigned int i = 0; i < 3; i++)
		tu_write_ok(b, 100 + i, 24);
	ringbuf_test_set_cpu(1);
	for (unsigned int i = 0; i < 4; i++)
		tu_write_ok(a, 200 + i, 32);

	ASSERT_EQ(ringbuf_swap_cpu(a, b, 0), 0);
	/* b has what a recorded; a goes on in b's old pages */
	ASSERT_EQ(ringbuf_entries_cpu(b, 0), 10);
	ASSERT_EQ(ringbuf_entries_cpu(a, 0), 3);
	ASSERT_EQ(ringbuf_entries_cpu(a, 1), 4);
	ASSERT_EQ(ringbuf_entries_cpu(b, 1), 0);
	tu_check_rb(a);
	tu_check_rb(b);
	ringbuf_test_set_cpu(0);
	tu_write_ok(a, 103, 24);
	expect_seqs(b, 0, 0, 10, 16);
	expect_seqs(a, 0, 100, 4, 24);
	expect_seqs(a, 1, 200, 4, 32);
	/* both keep working at full size: the rest of the (read) reader
	 * page, then the four ring pages */
	ASSERT_EQ(fill(a, 0), (TU_PAGE_DATA - 4 * 28) / 20 + 4 * EPP);
	ASSERT_EQ(fill(b, 0), (TU_PAGE_DATA - 10 * 20) / 20 + 4 * EPP);
	tu_check_rb(a);
	tu_check_rb(b);
	ringbuf_free(a);
	ringbuf_free(b);
}

static void swap_cpu_errors(void)
{
	struct ringbuf *a = tu_create(4, 0, 2, RINGBUF_PER_CPU);
	struct ringbuf *b_pages = tu_create(5, 0, 2, RINGBUF_PER_CPU);
	struct ringbuf *b_cpus = tu_create(4, 0, 3, RINGBUF_PER_CPU);
	RINGBUF_OPTS(o, .size = 4 * (8192 - 16), .subbuf_order = 1,
		     .nr_cpus = 2);
	struct ringbuf *b_order = ringbuf_create(&o);
	struct ringbuf *b = tu_create(4, 0, 2, RINGBUF_PER_CPU);
	struct ringbuf_iter *it;

	ASSERT_NOT_NULL(b_order);
	ringbuf_test_set_cpu(0);
	for (unsigned int i = 0; i < 10; i++)
		tu_write_ok(a, i, 16);
	ASSERT_ERR(ringbuf_swap_cpu(a, b_pages, 0), EINVAL);
	ASSERT_ERR(ringbuf_swap_cpu(a, b_cpus, 0), EINVAL);
	ASSERT_ERR(ringbuf_swap_cpu(a, b_order, 0), EINVAL);
	ASSERT_ERR(ringbuf_swap_cpu(a, b, 2), EINVAL);
	ASSERT_ERR(ringbuf_swap_cpu(a, b, -1), EINVAL);
	ASSERT_ERR(ringbuf_swap_cpu(a, b, 999), EINVAL);
	it = ringbuf_read_start(a, 0);
	ASSERT_NOT_NULL(it);
	ASSERT_ERR(ringbuf_swap_cpu(a, b, 0), EBUSY);
	ASSERT_ERR(ringbuf_swap_cpu(b, a, 0), EBUSY);
	ringbuf_read_finish(it);
	/* nothing moved */
	ASSERT_EQ(ringbuf_entries_cpu(a, 0), 10);
	ASSERT_EQ(ringbuf_entries_cpu(b, 0), 0);
	/* but a different size on another cpu does not matter */
	ASSERT_EQ(ringbuf_resize(b, TU_PAGES(6), 1), 0);
	ASSERT_EQ(ringbuf_swap_cpu(a, b, 0), 0);
	expect_seqs(b, 0, 0, 10, 16);
	tu_check_rb(a);
	tu_check_rb(b);
	ringbuf_free(a);
	ringbuf_free(b);
	ringbuf_free(b_pages);
	ringbuf_free(b_cpus);
	ringbuf_free(b_order);
}

static void record_disable_enable(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);

	ringbuf_test_set_cpu(0);
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	tu_write_ok(rb, 0, 16);
	ringbuf_record_disable(rb);
	ASSERT_FALSE(ringbuf_record_is_on(rb));
	ASSERT_WERR(tu_write(rb, 1, 16), EAGAIN);
	ASSERT_RESERVE_NULL(ringbuf_lock_reserve(rb, 16));
	ringbuf_record_disable(rb); /* nests */
	ringbuf_record_enable(rb);
	ASSERT_FALSE(ringbuf_record_is_on(rb));
	ASSERT_WERR(tu_write(rb, 2, 16), EAGAIN);
	ringbuf_record_enable(rb);
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	tu_write_ok(rb, 3, 16);
	ASSERT_EQ(ringbuf_entries(rb), 2);
	ASSERT_EQ(ringbuf_overruns(rb), 0);
	/* a reservation made before the disable still commits */
	ringbuf_test_set_cpu(0);
	ASSERT_NOT_NULL(tu_reserve_ok(rb, 4, 16));
	ringbuf_record_disable(rb);
	ASSERT_EQ(ringbuf_unlock_commit(rb), 0);
	ringbuf_record_enable(rb);
	ASSERT_NOT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ASSERT_NOT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	struct ringbuf_event *ev = ringbuf_consume(rb, 0, NULL, NULL);

	ASSERT_NOT_NULL(ev);
	tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), 4, 16);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void record_off_on(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);

	ringbuf_test_set_cpu(0);
	ringbuf_record_off(rb);
	ASSERT_FALSE(ringbuf_record_is_on(rb));
	ASSERT_WERR(tu_write(rb, 1, 16), EAGAIN);
	ringbuf_record_off(rb); /* does not nest */
	ringbuf_record_on(rb);
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	tu_write_ok(rb, 2, 16);
	/* off and disable combine: both must be undone */
	ringbuf_record_off(rb);
	ringbuf_record_disable(rb);
	ringbuf_record_on(rb);
	ASSERT_FALSE(ringbuf_record_is_on(rb));
	ASSERT_WERR(tu_write(rb, 3, 16), EAGAIN);
	ringbuf_record_enable(rb);
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	tu_write_ok(rb, 4, 16);
	ringbuf_record_on(rb); /* already on: stays on */
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	ASSERT_EQ(ringbuf_entries(rb), 2);
	struct ringbuf_event *ev = ringbuf_consume(rb, 0, NULL, NULL);

	ASSERT_NOT_NULL(ev);
	tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), 2, 16);
	expect_seqs(rb, 0, 4, 1, 16);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void record_disable_cpu(void)
{
	struct ringbuf *rb = tu_create(4, 0, 2, RINGBUF_PER_CPU);

	ringbuf_test_set_cpu(0);
	ringbuf_record_disable_cpu(rb, 0);
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	/* the writer goes to another buffer */
	tu_write_ok(rb, 1, 16);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 1), 1);
	ringbuf_record_disable_cpu(rb, 0); /* nests */
	ringbuf_record_enable_cpu(rb, 0);
	tu_write_ok(rb, 2, 16);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	ringbuf_record_enable_cpu(rb, 0);
	tu_write_ok(rb, 3, 16);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 1);
	/* both disabled: nowhere to write */
	ringbuf_record_disable_cpu(rb, 0);
	ringbuf_record_disable_cpu(rb, 1);
	ASSERT_LT(tu_write(rb, 4, 16), 0);
	ringbuf_record_enable_cpu(rb, 1);
	ringbuf_record_enable_cpu(rb, 0);
	tu_write_ok(rb, 5, 16);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 2);
	/* bad cpus are ignored */
	ringbuf_record_disable_cpu(rb, 999);
	ringbuf_record_disable_cpu(rb, -1);
	ringbuf_record_enable_cpu(rb, 999);
	tu_write_ok(rb, 6, 16);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 3);
	expect_seqs(rb, 1, 1, 2, 16);
	/* cpu 0 holds 3, 5 and 6 (4 had nowhere to go) */
	{
		static const uint32_t want[] = { 3, 5, 6 };

		for (unsigned int i = 0; i < 3; i++) {
			struct ringbuf_event *ev =
				ringbuf_consume(rb, 0, NULL, NULL);

			ASSERT_NOT_NULL(ev);
			tu_check(ringbuf_event_data(ev),
				 ringbuf_event_length(ev), want[i], 16);
		}
		ASSERT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	}
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void record_disable_cpu_perthread(void)
{
	struct ringbuf *rb = tu_create(4, 0, 4, RINGBUF_PER_THREAD);
	int slot = -1;

	tu_write_ok(rb, 1, 16);
	for (int cpu = 0; cpu < 4; cpu++)
		if (ringbuf_entries_cpu(rb, cpu)) {
			ASSERT_EQ(slot, -1);
			slot = cpu;
		}
	ASSERT_GE(slot, 0);
	ringbuf_record_disable_cpu(rb, slot);
	/* per-thread: the thread's slot is off, the write fails */
	ASSERT_LT(tu_write(rb, 2, 16), 0);
	ASSERT_EQ(ringbuf_entries(rb), 1);
	ringbuf_record_enable_cpu(rb, slot);
	tu_write_ok(rb, 3, 16);
	ASSERT_EQ(ringbuf_entries_cpu(rb, slot), 2);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void change_overwrite(void)
{
	struct ringbuf *rb = tu_create(2, 0, 1, RINGBUF_PER_CPU);
	unsigned int n;

	ringbuf_test_set_cpu(0);
	n = fill(rb, 0);
	ASSERT_EQ(n, 2 * EPP);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 1);
	ringbuf_change_overwrite(rb, 1);
	/* the next write crosses a page: it now drops the oldest page */
	tu_write_ok(rb, n, 16);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), EPP);
	ringbuf_change_overwrite(rb, 0);
	/* the rest of the new page, then full again */
	ASSERT_EQ(fill(rb, n + 1), EPP - 1);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 2);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), EPP);
	expect_seqs(rb, 0, EPP, 2 * EPP, 16);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0) + ringbuf_overrun_cpu(rb, 0),
		  3 * EPP);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(resize_grow_shrink),
	RBT_CASE(resize_all),
	RBT_CASE(resize_busy_iter),
	RBT_CASE(resize_concurrent),
	RBT_CASE(reset_cpu),
	RBT_CASE(reset_all),
	RBT_CASE(reset_concurrent),
	RBT_CASE(swap_cpu),
	RBT_CASE(swap_cpu_errors),
	RBT_CASE(record_disable_enable),
	RBT_CASE(record_off_on),
	RBT_CASE(record_disable_cpu),
	RBT_CASE(record_disable_cpu_perthread),
	RBT_CASE(change_overwrite),
};
RBT_MAIN(cases)
