/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tu.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ringbuf *tu_create(size_t pages, unsigned int flags, int nr_cpus,
			  int model)
{
	/* deterministic tests: exactly @nr_cpus buffers, no spares */
	RINGBUF_OPTS(o, .size = TU_PAGES(pages), .flags = flags,
		     .nr_cpus = nr_cpus, .model = model,
		     .spare_buffers = model == RINGBUF_PER_CPU ?
					      RINGBUF_NO_SPARES :
					      0);
	struct ringbuf *rb = ringbuf_create(&o);

	if (!rb)
		RBT_FAIL("ringbuf_create(%zu pages, flags %u, %d cpus, model %d)"
			 " failed: %s", pages, flags, nr_cpus, model,
			 strerror(errno));
	return rb;
}

uint8_t tu_pattern(uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 131u + (uint32_t)i * 7u + 1u);
}

void tu_fill(void *buf, uint32_t seq, size_t len)
{
	unsigned char *p = buf;
	size_t i = 0;

	if (len >= 8) {
		uint32_t l = (uint32_t)len;

		memcpy(p, &seq, 4);
		memcpy(p + 4, &l, 4);
		i = 8;
	}
	for (; i < len; i++)
		p[i] = tu_pattern(seq, i);
}

uint32_t tu_seq(const void *payload)
{
	uint32_t v;

	memcpy(&v, payload, 4);
	return v;
}

uint32_t tu_len(const void *payload)
{
	uint32_t v;

	memcpy(&v, (const char *)payload + 4, 4);
	return v;
}

int tu_write(struct ringbuf *rb, uint32_t seq, size_t len)
{
	static _Thread_local unsigned char buf[65536];
	unsigned char *p = buf;
	int ret;

	if (len > sizeof(buf)) {
		p = malloc(len);
		if (!p)
			RBT_FAIL("tu_write: out of memory");
	}
	tu_fill(p, seq, len);
	ret = ringbuf_write(rb, len, p);
	if (p != buf)
		free(p);
	return ret;
}

void tu_write_ok(struct ringbuf *rb, uint32_t seq, size_t len)
{
	int ret = tu_write(rb, seq, len);

	if (ret != 0)
		RBT_FAIL("ringbuf_write(seq %u, len %zu) = %d (%s)", seq, len,
			 ret, strerror(-ret));
}

struct ringbuf_event *tu_reserve_ok(struct ringbuf *rb, uint32_t seq,
				    size_t len)
{
	struct ringbuf_event *ev = ringbuf_lock_reserve(rb, len);

	if (!ev)
		RBT_FAIL("ringbuf_lock_reserve(seq %u, len %zu) failed", seq,
			 len);
	tu_fill(ringbuf_event_data(ev), seq, len);
	return ev;
}

unsigned int tu_event_len(size_t len)
{
	size_t l = len ? len : 1;

	if (l > RINGBUF_MAX_SMALL_DATA)
		return (unsigned int)((l + 3) & ~(size_t)3);
	return tu_record_size(len) - 4;
}

unsigned int tu_record_size(size_t len)
{
	size_t l = len ? len : 1;
	size_t total;

	if (l > RINGBUF_MAX_SMALL_DATA)
		return (unsigned int)(((l + 3) & ~(size_t)3) + 8);
	total = (l + 4 + 3) & ~(size_t)3;
	if (total == 12)
		total = 16;
	return (unsigned int)total;
}

unsigned int tu_type_len(size_t len)
{
	size_t l = len ? len : 1;

	if (l > RINGBUF_MAX_SMALL_DATA)
		return 0;
	return (tu_record_size(len) - 4) / 4;
}

void tu_check_at(const char *file, int line, const void *payload,
		 unsigned int evlen, uint32_t seq, size_t len)
{
	const unsigned char *p = payload;
	size_t i = 0;

	if (evlen != tu_event_len(len))
		rbt_fail(file, line, "event seq %u: length %u, expected %u "
			 "(payload %zu)", seq, evlen, tu_event_len(len), len);
	if (len >= 8) {
		if (tu_seq(p) != seq)
			rbt_fail(file, line, "event: seq %u, expected %u",
				 tu_seq(p), seq);
		if (tu_len(p) != len)
			rbt_fail(file, line, "event seq %u: len field %u, "
				 "expected %zu", seq, tu_len(p), len);
		i = 8;
	}
	for (; i < len; i++)
		if (p[i] != tu_pattern(seq, i))
			rbt_fail(file, line, "event seq %u len %zu: byte %zu is "
				 "0x%02x, expected 0x%02x", seq, len, i, p[i],
				 tu_pattern(seq, i));
}

uint64_t tu_hash(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

void tu_ev_from(struct tu_ev *e, struct ringbuf_event *ev, uint64_t ts,
		int cpu)
{
	const unsigned char *p = ringbuf_event_data(ev);

	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->len = ringbuf_event_length(ev);
	e->seq = e->len >= 8 ? tu_seq(p) : 0;
	e->cpu = cpu;
	e->hash = tu_hash(p, e->len);
}

size_t tu_consume_all(struct ringbuf *rb, int cpu, struct tu_ev *out,
		      size_t max)
{
	struct ringbuf_event *ev;
	unsigned long lost;
	uint64_t ts;
	size_t n = 0;

	while ((ev = ringbuf_consume(rb, cpu, &ts, &lost))) {
		if (n >= max)
			RBT_FAIL("tu_consume_all: more than %zu events", max);
		tu_ev_from(&out[n], ev, ts, cpu);
		out[n].lost = lost;
		n++;
	}
	return n;
}

size_t tu_iter_all(struct ringbuf *rb, int cpu, struct tu_ev *out,
		   size_t max)
{
	struct ringbuf_iter *it = ringbuf_read_start(rb, cpu);
	struct ringbuf_event *ev;
	uint64_t ts;
	size_t n = 0;

	if (!it)
		RBT_FAIL("ringbuf_read_start(%d): %s", cpu, strerror(errno));
	while ((ev = ringbuf_iter_peek(it, &ts))) {
		if (n >= max)
			RBT_FAIL("tu_iter_all: more than %zu events", max);
		tu_ev_from(&out[n++], ev, ts, cpu);
		ringbuf_iter_advance(it);
	}
	if (!ringbuf_iter_empty(it))
		RBT_FAIL("iterator: peek returned NULL but iter_empty false");
	ringbuf_read_finish(it);
	return n;
}

size_t tu_drain(struct ringbuf *rb)
{
	size_t n = 0;

	for (int cpu = 0; cpu < ringbuf_nr_cpus(rb); cpu++)
		while (ringbuf_consume(rb, cpu, NULL, NULL))
			n++;
	return n;
}

void tu_assert_same_at(const char *file, int line, const struct tu_ev *a,
		       size_t na, const struct tu_ev *b, size_t nb)
{
	size_t i;

	for (i = 0; i < na && i < nb; i++) {
		if (a[i].ts != b[i].ts || a[i].len != b[i].len ||
		    a[i].hash != b[i].hash || a[i].seq != b[i].seq)
			rbt_fail(file, line, "event %zu differs: ts %llu/%llu "
				 "len %u/%u seq %u/%u hash %llx/%llx", i,
				 (unsigned long long)a[i].ts,
				 (unsigned long long)b[i].ts, a[i].len,
				 b[i].len, a[i].seq, b[i].seq,
				 (unsigned long long)a[i].hash,
				 (unsigned long long)b[i].hash);
	}
	if (na != nb)
		rbt_fail(file, line, "event counts differ: %zu vs %zu", na, nb);
}

unsigned long tu_sum(struct ringbuf *rb,
		     unsigned long (*fn)(struct ringbuf *, int))
{
	unsigned long s = 0;

	for (int cpu = 0; cpu < ringbuf_nr_cpus(rb); cpu++)
		s += fn(rb, cpu);
	return s;
}

#ifdef RINGBUF_TESTHOOKS
void tu_check_state_at(const char *file, int line, struct ringbuf *rb,
		       int cpu, bool idle)
{
	struct ringbuf_test_state st;
	unsigned int seen[65] = { 0 };
	unsigned int id, i, nflag = 0, flag_to = ~0u;
	int ret = ringbuf_test_state(rb, cpu, &st);

	if (ret)
		rbt_fail(file, line, "ringbuf_test_state(%d) = %d", cpu, ret);
	if (st.nr_pages < 2)
		rbt_fail(file, line, "cpu %d: %u pages (< 2)", cpu, st.nr_pages);
	if (st.nr_pages > 63)
		return; /* links beyond the first 64 are not reported */
	if (st.reader_page > st.nr_pages || st.head_page > st.nr_pages ||
	    st.tail_page > st.nr_pages || st.commit_page > st.nr_pages)
		rbt_fail(file, line, "cpu %d: page id out of range (head %u "
			 "tail %u commit %u reader %u, %u pages)", cpu,
			 st.head_page, st.tail_page, st.commit_page,
			 st.reader_page, st.nr_pages);
	/* walk the ring from the head: nr_pages distinct pages, back to head,
	 * reader page not among them, exactly one flagged link, to head */
	id = st.head_page;
	for (i = 0; i < st.nr_pages; i++) {
		if (id > st.nr_pages)
			rbt_fail(file, line, "cpu %d: link to bad id %u", cpu,
				 id);
		if (id == st.reader_page)
			rbt_fail(file, line, "cpu %d: reader page %u is in the "
				 "ring", cpu, id);
		if (seen[id]++)
			rbt_fail(file, line, "cpu %d: page %u twice in the ring",
				 cpu, id);
		if (st.flags[id] & (RINGBUF_TEST_PAGE_HEAD |
				    RINGBUF_TEST_PAGE_UPDATE)) {
			nflag++;
			flag_to = st.next[id];
		}
		id = st.next[id];
	}
	if (id != st.head_page)
		rbt_fail(file, line, "cpu %d: ring of %u pages does not close "
			 "(ends at %u, head %u)", cpu, st.nr_pages, id,
			 st.head_page);
	if (nflag != 1)
		rbt_fail(file, line, "cpu %d: %u links carry HEAD/UPDATE", cpu,
			 nflag);
	/* head_page is a hint (as in the kernel, the writer moves the HEAD
	 * flag and readers resync the hint): it must be a ring page, which
	 * the walk above checked; the flagged link names the real head. */
	(void)flag_to;
	if (!seen[st.tail_page] && st.tail_page != st.reader_page)
		rbt_fail(file, line, "cpu %d: tail page %u neither in the ring "
			 "nor the reader page", cpu, st.tail_page);
	if (!seen[st.commit_page] && st.commit_page != st.reader_page)
		rbt_fail(file, line, "cpu %d: commit page %u neither in the "
			 "ring nor the reader page", cpu, st.commit_page);
	if (idle) {
		for (i = 0; i <= st.nr_pages; i++)
			if (st.flags[i] & RINGBUF_TEST_PAGE_UPDATE)
				rbt_fail(file, line, "cpu %d: UPDATE flag left "
					 "on page %u's link", cpu, i);
		if (st.commit_page != st.tail_page)
			rbt_fail(file, line, "cpu %d: idle but commit page %u "
				 "!= tail page %u", cpu, st.commit_page,
				 st.tail_page);
		if (st.write != st.commit)
			rbt_fail(file, line, "cpu %d: idle but write %lu != "
				 "commit %lu", cpu, st.write, st.commit);
		/* commits is a generation counter (it only grows) */
		if (st.committing != 0)
			rbt_fail(file, line, "cpu %d: idle but committing %lu",
				 cpu, st.committing);
	}
}

void tu_check_rb_at(const char *file, int line, struct ringbuf *rb)
{
	for (int cpu = 0; cpu < ringbuf_nr_cpus(rb); cpu++) {
		int ret = ringbuf_test_check_pages(rb, cpu);

		if (ret != 0)
			rbt_fail(file, line, "ringbuf_test_check_pages(cpu %d)"
				 " = %d", cpu, ret);
		tu_check_state_at(file, line, rb, cpu, true);
	}
	if (ringbuf_test_warned(rb))
		rbt_fail(file, line, "RB_WARN_ON fired (ringbuf_test_warned)");
}
#endif

void tu_run_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int ret = pthread_create(&t, NULL, fn, arg);

	if (ret)
		RBT_FAIL("pthread_create: %s", strerror(ret));
	pthread_join(t, NULL);
}

int tu_pin_here(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	ASSERT_GE(cpu, 0);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
	return cpu;
}
