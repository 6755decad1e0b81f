/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Page-list invariants: ringbuf_test_check_pages() and an independent
 * walk of ringbuf_test_state() after every operation of long random
 * sequences, with conservation of the counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbdecode.h"
#include "test.h"
#include "tu.h"

static void initial_state(void)
{
	for (unsigned int n = 2; n <= 9; n++) {
		struct ringbuf *rb = tu_create(n, 0, 2, RINGBUF_PER_CPU);
		struct ringbuf_test_state st;

		for (int cpu = 0; cpu < 2; cpu++) {
			ASSERT_EQ(ringbuf_test_state(rb, cpu, &st), 0);
			ASSERT_EQ(st.nr_pages, n);
			/* empty: head, tail and commit on one page, reader
			 * page outside the ring */
			ASSERT_EQ(st.tail_page, st.commit_page);
			ASSERT_EQ(st.head_page, st.tail_page);
			ASSERT_NE(st.reader_page, st.head_page);
			ASSERT_EQ(st.write, 0);
			ASSERT_EQ(st.commit, 0);
			ASSERT_EQ(st.committing, 0);
			ASSERT_EQ(st.flags[st.reader_page], 0);
		}
		tu_check_rb(rb);
		ringbuf_free(rb);
	}
}

struct model {
	unsigned long written[4]; /* committed since the last reset */
	unsigned long consumed[4];
	uint32_t next_seq[4];     /* next seq expected by a reader */
	bool have_next[4];
	uint32_t seq[4];          /* next seq to write, per cpu */
};

/* seq = cpu << 24 | per-cpu count: gaps only where events were lost */
static void verify_event(struct model *m, struct ringbuf *rb, int cpu,
			 struct ringbuf_event *ev)
{
	const unsigned char *p = ringbuf_event_data(ev);
	uint32_t seq = tu_seq(p), len = tu_len(p);

	tu_check(p, ringbuf_event_length(ev), seq, len);
	ASSERT_EQ(seq >> 24, cpu);
	if (m->have_next[cpu]) {
		if (ringbuf_overrun_cpu(rb, cpu))
			ASSERT_GE(seq, m->next_seq[cpu]);
		else
			ASSERT_EQ(seq, m->next_seq[cpu]);
	}
	m->next_seq[cpu] = seq + 1;
	m->have_next[cpu] = true;
	m->consumed[cpu]++;
}

static void random_ops(unsigned int flags)
{
	const int ncpu = 2;
	const unsigned int ops = 4000;
	bool overwrite = flags & RINGBUF_FL_OVERWRITE;
	struct ringbuf *rb = tu_create(5, flags, ncpu, RINGBUF_PER_CPU);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct model m;
	struct ringbuf_event *ev;
	unsigned int i;

	ASSERT_NOT_NULL(page);
	memset(&m, 0, sizeof(m));
	for (int c = 0; c < ncpu; c++)
		m.seq[c] = (uint32_t)c << 24;
	for (i = 0; i < ops; i++) {
		int cpu = (int)rbt_rand_range(0, ncpu - 1);
		unsigned int op = (unsigned int)rbt_rand_range(0, 99);

		if (getenv("RBT_TRACE"))
			fprintf(stderr, "op %u: cpu %d op %u\n", i, cpu, op);

		ringbuf_test_set_cpu(cpu);
		if (op < 55) { /* write a burst */
			unsigned int n = (unsigned int)rbt_rand_range(1, 40);

			for (unsigned int k = 0; k < n; k++) {
				size_t len = 8 + rbt_rand_range(0, 400);

				if (tu_write(rb, m.seq[cpu], len) == 0) {
					m.seq[cpu]++;
					m.written[cpu]++;
				}
			}
		} else if (op < 60) { /* reserve and discard */
			ev = ringbuf_lock_reserve(rb, 8 + rbt_rand_range(0, 300));
			if (ev)
				ringbuf_discard_commit(rb, ev);
		} else if (op < 75) { /* consume a few */
			unsigned int n = (unsigned int)rbt_rand_range(1, 60);

			for (unsigned int k = 0; k < n; k++) {
				ev = ringbuf_consume(rb, cpu, NULL, NULL);
				if (!ev)
					break;
				verify_event(&m, rb, cpu, ev);
			}
		} else if (op < 85) { /* read a page */
			if (ringbuf_read_page(rb, page, psz, cpu,
					      (int)rbt_rand_range(0, 1)) == 0) {
				/* decode inline: data records only */
				const unsigned char *d =
					(const unsigned char *)page + 16;
				uint64_t commit;
				unsigned int pos = 0;

				memcpy(&commit, (const char *)page + 8, 8);
				commit &= RINGBUF_COMMIT_MASK;
				while (pos < commit) {
					struct ringbuf_event *e =
						(struct ringbuf_event *)(d + pos);
					unsigned int tl = e->type_len, sz;

					if (tl == RINGBUF_TYPE_PADDING) {
						if (!e->time_delta)
							break;
						sz = 4 + e->array[0];
					} else if (tl >= RINGBUF_TYPE_TIME_EXTEND) {
						sz = 8;
					} else {
						verify_event(&m, rb, cpu, e);
						sz = 4 + ringbuf_event_length(e) +
						     (tl ? 0 : 4);
					}
					pos += sz;
				}
			}
		} else if (op < 90) { /* peek */
			ev = ringbuf_peek(rb, cpu, NULL, NULL);
			if (ev)
				tu_check(ringbuf_event_data(ev),
					 ringbuf_event_length(ev),
					 tu_seq(ringbuf_event_data(ev)),
					 tu_len(ringbuf_event_data(ev)));
		} else if (op < 95) { /* a short iteration */
			struct ringbuf_iter *it = ringbuf_read_start(rb, cpu);

			ASSERT_NOT_NULL(it);
			for (unsigned int k = 0; k < 30; k++) {
				ev = ringbuf_iter_peek(it, NULL);
				if (!ev)
					break;
				tu_check(ringbuf_event_data(ev),
					 ringbuf_event_length(ev),
					 tu_seq(ringbuf_event_data(ev)),
					 tu_len(ringbuf_event_data(ev)));
				ringbuf_iter_advance(it);
			}
			ringbuf_read_finish(it);
		} else if (op < 97) { /* flip the mode back and forth */
			ringbuf_change_overwrite(rb, !overwrite);
			for (unsigned int k = 0; k < 5; k++)
				if (tu_write(rb, m.seq[cpu], 32) == 0) {
					m.seq[cpu]++;
					m.written[cpu]++;
				}
			ringbuf_change_overwrite(rb, overwrite);
		} else if (op < 98 && !overwrite) {
			ringbuf_reset_cpu(rb, cpu);
			m.written[cpu] = 0;
			m.consumed[cpu] = 0;
			m.have_next[cpu] = false;
		}
		/* the invariants hold after every operation */
		tu_check_rb(rb);
		for (int c = 0; c < ncpu; c++) {
			ASSERT_EQ(ringbuf_read_events_cpu(rb, c), m.consumed[c]);
			ASSERT_EQ(ringbuf_entries_cpu(rb, c) +
					  ringbuf_overrun_cpu(rb, c) +
					  ringbuf_read_events_cpu(rb, c),
				  m.written[c]);
			ASSERT_EQ(ringbuf_commit_overrun_cpu(rb, c), 0);
		}
	}
	/* drain and conserve */
	for (int c = 0; c < ncpu; c++) {
		while ((ev = ringbuf_consume(rb, c, NULL, NULL)))
			verify_event(&m, rb, c, ev);
		ASSERT_EQ(ringbuf_entries_cpu(rb, c), 0);
		ASSERT_EQ(ringbuf_read_events_cpu(rb, c) +
				  ringbuf_overrun_cpu(rb, c),
			  m.written[c]);
	}
	tu_check_rb(rb);
	ringbuf_free_read_page(rb, 0, page);
	ringbuf_free(rb);
}

static void random_ops_pc(void)
{
	random_ops(0);
}

static void random_ops_overwrite(void)
{
	random_ops(RINGBUF_FL_OVERWRITE);
}

static struct rbd_page g_page;

static void reader_page_cycle(void)
{
	char err[128];
	struct ringbuf *rb = tu_create(3, 0, 1, RINGBUF_PER_CPU);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct ringbuf_test_state st;
	unsigned int readers_seen = 0, seen_mask = 0;
	uint32_t seq = 0, next = 0;

	ASSERT_NOT_NULL(page);
	ringbuf_test_set_cpu(0);
	for (unsigned int round = 0; round < 60; round++) {
		unsigned int n = 100 + (round % 7) * 40;

		/* one pause longer than a delta holds: a time extend */
		if (round == 10)
			rbt_msleep(140);
		for (unsigned int k = 0; k < n; k++)
			tu_write_ok(rb, seq++, 16);
		tu_check_rb(rb);
		if (round % 2) {
			struct ringbuf_event *ev;

			while ((ev = ringbuf_consume(rb, 0, NULL, NULL)))
				tu_check(ringbuf_event_data(ev),
					 ringbuf_event_length(ev), next++, 16);
		} else {
			/* decoded: a pause between writes (a loaded
			 * machine, a sanitizer) puts a time extend before a
			 * record */
			while (ringbuf_read_page(rb, page, psz, 0, 0) == 0) {
				if (rbd_decode(page, psz, true, &g_page, err,
					       sizeof(err)))
					RBT_FAIL("%s", err);
				for (unsigned int i = 0; i < g_page.nrec; i++)
					if (g_page.recs[i].kind == RBD_DATA)
						tu_check(g_page.recs[i].payload,
							 g_page.recs[i].len,
							 next++, 16);
			}
		}
		ASSERT_EQ(next, seq);
		ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
		if (!(seen_mask & (1u << st.reader_page))) {
			seen_mask |= 1u << st.reader_page;
			readers_seen++;
		}
		tu_check_rb(rb);
	}
	/* the reader page rotates through all the pages */
	ASSERT_EQ(readers_seen, 4);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), seq);
	ringbuf_free_read_page(rb, 0, page);
	ringbuf_free(rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(initial_state),
	RBT_CASE(random_ops_pc),
	RBT_CASE(random_ops_overwrite),
	RBT_CASE(reader_page_cycle),
};
RBT_MAIN(cases)
