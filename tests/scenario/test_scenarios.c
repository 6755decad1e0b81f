/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Scenarios of the lockless design, made deterministic with the test
 * hooks: a hook runs at a test point on the writer's (or reader's) thread
 * and injects a nested write there, as an interrupt arriving at that
 * instruction would in the kernel. After each scenario: the page list is
 * valid, no RB_WARN_ON fired, every event is read back with its payload
 * in the expected order, and the counters conserve.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ringbuf/frontend.h>

#include "rbdecode.h"
#include "test.h"
#include "tu.h"

#define EPP 204u /* 16-byte payloads: 20-byte records, 204 per page */

/* ---- the injection machinery ------------------------------------------- */

typedef void (*action_fn)(struct ringbuf *rb);

struct step {
	enum ringbuf_testpoint tp;
	int depth;	  /* actions running on the thread when it fires */
	action_fn fn;
	atomic_bool done; /* each step fires once */
};

static struct {
	struct step steps[4];
	int nsteps;
	atomic_int count[RINGBUF_TP_MAX]; /* hits per test point */
	atomic_int fired;
} g;

/* How many actions run on this thread: the recursion guard. A nested
 * write passes the same test points again; only a step planned for that
 * depth fires there. */
static _Thread_local int t_depth;

static void hook(struct ringbuf *rb, int cpu, enum ringbuf_testpoint tp,
		 void *arg)
{
	(void)cpu;
	(void)arg;
	if ((unsigned int)tp >= RINGBUF_TP_MAX)
		RBT_FAIL("hook called with bad test point %d", (int)tp);
	atomic_fetch_add(&g.count[tp], 1);
	for (int i = 0; i < g.nsteps; i++) {
		struct step *s = &g.steps[i];

		if (s->tp != tp || s->depth != t_depth ||
		    atomic_load(&s->done))
			continue;
		if (atomic_exchange(&s->done, true))
			continue;
		t_depth++;
		s->fn(rb);
		t_depth--;
		atomic_fetch_add(&g.fired, 1);
		return;
	}
}

static void plan_reset(void)
{
	ringbuf_test_set_hook(NULL, NULL);
	memset(&g, 0, sizeof(g));
}

/* Arm: the hook starts calling actions. */
static void plan(enum ringbuf_testpoint tp, int depth, action_fn fn)
{
	struct step *s = &g.steps[g.nsteps++];

	s->tp = tp;
	s->depth = depth;
	s->fn = fn;
	atomic_store(&s->done, false);
	ringbuf_test_set_hook(hook, NULL);
}

static void plan_all_fired(void)
{
	for (int i = 0; i < g.nsteps; i++)
		if (!atomic_load(&g.steps[i].done))
			RBT_FAIL("planned injection %d (test point %d, depth "
				 "%d) never fired", i, (int)g.steps[i].tp,
				 g.steps[i].depth);
	ringbuf_test_set_hook(NULL, NULL);
}

/* Writes with a stack buffer: actions run inside another write of the
 * same thread, so no shared buffer. */
static int w_try(struct ringbuf *rb, uint32_t seq, size_t len)
{
	unsigned char buf[512];

	tu_fill(buf, seq, len);
	return ringbuf_write(rb, len, buf);
}

static void w(struct ringbuf *rb, uint32_t seq, size_t len)
{
	int ret = w_try(rb, seq, len);

	if (ret)
		RBT_FAIL("write of seq %u (len %zu) at depth %d failed: %d",
			 seq, len, t_depth, ret);
}

static void w_range(struct ringbuf *rb, uint32_t first, unsigned int n,
		    size_t len)
{
	for (unsigned int i = 0; i < n; i++)
		w(rb, first + i, len);
}

/* ---- checking --------------------------------------------------------- */

static uint32_t *g_exp;
static size_t g_nexp;

static void exp_reset(void)
{
	free(g_exp);
	g_exp = NULL;
	g_nexp = 0;
}

static void exp_add(uint32_t first, unsigned int n)
{
	g_exp = realloc(g_exp, (g_nexp + n) * sizeof(*g_exp));
	ASSERT_NOT_NULL(g_exp);
	for (unsigned int i = 0; i < n; i++)
		g_exp[g_nexp++] = first + i;
}

/* Consume cpu 0 and compare with the expected seqs; payloads must be
 * intact (16 bytes unless a seq >= 1000 says otherwise: all the same). */
static void expect_consume(struct ringbuf *rb, size_t len)
{
	struct ringbuf_event *ev;
	uint64_t ts, last = 0;
	size_t i = 0;

	while ((ev = ringbuf_consume(rb, 0, &ts, NULL))) {
		uint32_t seq = tu_seq(ringbuf_event_data(ev));

		if (i >= g_nexp)
			RBT_FAIL("extra event seq %u after %zu expected", seq,
				 g_nexp);
		if (seq != g_exp[i])
			RBT_FAIL("event %zu: seq %u, expected %u", i, seq,
				 g_exp[i]);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), seq,
			 len);
		ASSERT_GE_U(ts, last);
		last = ts;
		i++;
	}
	if (i != g_nexp)
		RBT_FAIL("read %zu events, expected %zu (next seq %u)", i,
			 g_nexp, g_exp[i]);
}

/* After each scenario. @written: events written successfully. */
static void finish(struct ringbuf *rb, unsigned long written)
{
	tu_check_rb(rb);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 0);
	/* every byte counted in was read or pushed out with its page */
	ASSERT_EQ(ringbuf_bytes_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0) + ringbuf_overrun_cpu(rb, 0),
		  written);
	ASSERT_EQ(ringbuf_commit_overrun_cpu(rb, 0), 0);
	ASSERT_EQ(ringbuf_dropped_events_cpu(rb, 0), 0);
	/* the buffer goes on working */
	w(rb, 99999, 16);
	ASSERT_NOT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	tu_check_rb(rb);
	plan_reset();
	exp_reset();
	ringbuf_free(rb);
}

static struct ringbuf *setup(size_t pages, unsigned int flags)
{
	plan_reset();
	exp_reset();
	ringbuf_test_set_cpu(0);
	return tu_create(pages, flags, 1, RINGBUF_PER_CPU);
}

static void *run_set_cpu0(void)
{
	ringbuf_test_set_cpu(0);
	return NULL;
}

/* ---- (a) reader swap while the commit page is on the reader page ------ */

struct reader_ctx {
	struct ringbuf *rb;
	uint32_t seqs[64];
	unsigned int n;
	int page_ret;
	struct rbd_page *page;
};

static void *reader_consume_all(void *arg)
{
	struct reader_ctx *c = arg;
	struct ringbuf_event *ev;

	c->n = 0;
	while ((ev = ringbuf_consume(c->rb, 0, NULL, NULL)) && c->n < 64)
		c->seqs[c->n++] = tu_seq(ringbuf_event_data(ev));
	return NULL;
}

static void *reader_read_page(void *arg)
{
	struct reader_ctx *c = arg;
	size_t psz = ringbuf_subbuf_size(c->rb);
	void *page = ringbuf_alloc_read_page(c->rb, 0);
	char err[256];

	ASSERT_NOT_NULL(page);
	c->n = 0;
	c->page_ret = ringbuf_read_page(c->rb, page, psz, 0, 0);
	if (c->page_ret == 0) {
		if (rbd_decode(page, psz, true, c->page, err, sizeof(err)))
			RBT_FAIL("%s", err);
		for (unsigned int i = 0; i < c->page->nrec; i++)
			if (c->page->recs[i].kind == RBD_DATA)
				c->seqs[c->n++] =
					tu_seq(c->page->recs[i].payload);
	}
	ringbuf_free_read_page(c->rb, 0, page);
	return NULL;
}

static void reader_swap_commit_on_reader(void)
{
	struct ringbuf *rb = setup(4, 0);
	struct reader_ctx c = { .rb = rb };
	struct ringbuf_test_state st;
	struct ringbuf_event *ev;

	c.page = malloc(sizeof(*c.page));
	ASSERT_NOT_NULL(c.page);
	w(rb, 0, 16);
	w(rb, 1, 16);
	ev = tu_reserve_ok(rb, 2, 16); /* pending on the same page */
	(void)ev;
	/* the reader swaps that page in and must stop at the pending event */
	tu_run_thread(reader_consume_all, &c);
	ASSERT_EQ(c.n, 2);
	ASSERT_EQ(c.seqs[0], 0);
	ASSERT_EQ(c.seqs[1], 1);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.commit_page, st.reader_page);
	ASSERT_EQ(st.tail_page, st.reader_page);
	ASSERT_EQ(st.committing, 1);
	tu_run_thread(reader_consume_all, &c);
	ASSERT_EQ(c.n, 0);
	ASSERT_EQ(ringbuf_unlock_commit(rb), 0);
	tu_run_thread(reader_consume_all, &c);
	ASSERT_EQ(c.n, 1);
	ASSERT_EQ(c.seqs[0], 2);

	/* the writer goes on on the reader page; read_page sees only what
	 * is committed */
	w(rb, 3, 16);
	ev = tu_reserve_ok(rb, 4, 16);
	tu_run_thread(reader_read_page, &c);
	ASSERT_EQ(c.page_ret, 0);
	ASSERT_EQ(c.n, 1);
	ASSERT_EQ(c.seqs[0], 3);
	tu_run_thread(reader_read_page, &c);
	ASSERT_EQ(c.page_ret, -ENODATA);
	ASSERT_EQ(ringbuf_unlock_commit(rb), 0);
	tu_run_thread(reader_read_page, &c);
	ASSERT_EQ(c.page_ret, 0);
	ASSERT_EQ(c.n, 1);
	ASSERT_EQ(c.seqs[0], 4);
	tu_check_rb(rb);

	/* the writer leaves the reader page for the ring: all of it is read
	 * in order */
	w_range(rb, 5, 3 * EPP, 16);
	exp_add(5, 3 * EPP);
	expect_consume(rb, 16);
	free(c.page);
	finish(rb, 5 + 3 * EPP);
}

/* ---- (b) the reader retries while a writer pushes the head ------------- */

struct waiter {
	struct ringbuf *rb;
	sem_t go;
	atomic_bool done;
	uint32_t seq;
	unsigned long lost;
	bool got;
	int swaps_seen;
	bool done_during_update;
};

static struct waiter g_wait;

static void *waiting_reader(void *arg)
{
	struct waiter *wt = arg;
	struct ringbuf_event *ev;

	run_set_cpu0();
	while (sem_wait(&wt->go) != 0)
		;
	/* a reader that waited its while for the writer says busy
	 * (EAGAIN): the caller tries again, as the API says */
	for (int i = 0; i < 10000; i++) {
		errno = 0;
		ev = ringbuf_consume(wt->rb, 0, NULL, &wt->lost);
		if (ev || errno != EAGAIN)
			break;
		rbt_msleep(1);
	}
	if (ev) {
		wt->got = true;
		wt->seq = tu_seq(ringbuf_event_data(ev));
	}
	atomic_store(&wt->done, true);
	return NULL;
}

/* At HEAD_UPDATE (the old head link is UPDATE): let the reader go and
 * watch it fail its swap and retry, without succeeding. */
static void release_reader(struct ringbuf *rb)
{
	int base = atomic_load(&g.count[RINGBUF_TP_READER_SWAP]);
	uint64_t deadline = rbt_now_ns() + 1500000000ULL;

	(void)rb;
	sem_post(&g_wait.go);
	while (atomic_load(&g.count[RINGBUF_TP_READER_SWAP]) - base < 3 &&
	       !atomic_load(&g_wait.done) && rbt_now_ns() < deadline)
		rbt_msleep(1);
	g_wait.swaps_seen = atomic_load(&g.count[RINGBUF_TP_READER_SWAP]) -
			    base;
	g_wait.done_during_update = atomic_load(&g_wait.done);
}

static void reader_waits_for_update(void)
{
	struct ringbuf *rb = setup(3, RINGBUF_FL_OVERWRITE);
	pthread_t t;

	memset(&g_wait, 0, sizeof(g_wait));
	g_wait.rb = rb;
	ASSERT_EQ(sem_init(&g_wait.go, 0, 0), 0);
	w_range(rb, 0, 3 * EPP, 16); /* the ring is full */
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), 0);
	ASSERT_EQ(pthread_create(&t, NULL, waiting_reader, &g_wait), 0);
	plan(RINGBUF_TP_HEAD_UPDATE, 0, release_reader);
	w(rb, 1000, 16); /* crosses into the head page: pushes it */
	pthread_join(t, NULL);
	plan_all_fired();
	ASSERT_FALSE(g_wait.done_during_update);
	ASSERT_GE(g_wait.swaps_seen, 2); /* it tried and retried */
	/* then it swapped the new head: the oldest page is gone */
	ASSERT_TRUE(g_wait.got);
	ASSERT_EQ(g_wait.seq, EPP);
	ASSERT_EQ(g_wait.lost, EPP);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), EPP);
	exp_add(EPP + 1, 2 * EPP - 1);
	exp_add(1000, 1);
	expect_consume(rb, 16);
	sem_destroy(&g_wait.go);
	finish(rb, 3 * EPP + 1);
}

/* At READER_SWAP (reader page spliced, before its cmpxchg): a write that
 * fills the tail page and pushes the head the reader is about to take. */
static void push_head_under_reader(struct ringbuf *rb)
{
	w_range(rb, 2000, EPP, 16);
}

static void *swap_reader(void *arg)
{
	struct waiter *wt = arg;
	struct ringbuf_event *ev;

	run_set_cpu0(); /* the injected writes go to buffer 0 */
	ev = ringbuf_consume(wt->rb, 0, NULL, &wt->lost);
	if (ev) {
		wt->got = true;
		wt->seq = tu_seq(ringbuf_event_data(ev));
	}
	return NULL;
}

static void reader_swap_retry(void)
{
	struct ringbuf *rb = setup(3, RINGBUF_FL_OVERWRITE);

	memset(&g_wait, 0, sizeof(g_wait));
	g_wait.rb = rb;
	w_range(rb, 0, 3 * EPP, 16);
	plan(RINGBUF_TP_READER_SWAP, 0, push_head_under_reader);
	tu_run_thread(swap_reader, &g_wait);
	plan_all_fired();
	/* the swap failed once and was retried */
	ASSERT_GE(atomic_load(&g.count[RINGBUF_TP_READER_SWAP]), 2);
	ASSERT_TRUE(g_wait.got);
	ASSERT_EQ(g_wait.seq, EPP);
	ASSERT_EQ(g_wait.lost, EPP);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), EPP);
	exp_add(EPP + 1, 2 * EPP - 1);
	exp_add(2000, EPP);
	expect_consume(rb, 16);
	finish(rb, 4 * EPP);
}

/* ---- (c) a nested writer moves the tail ------------------------------ */

static void nested_fill_300(struct ringbuf *rb)
{
	w_range(rb, 2000, 300, 16);
}

static void nested_tail_case(enum ringbuf_testpoint tp)
{
	struct ringbuf *rb = setup(4, 0);
	struct ringbuf_test_state st0, st;

	w_range(rb, 0, EPP - 1, 16); /* 4060 bytes used, 20 left */
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st0), 0);
	plan(tp, 0, nested_fill_300);
	w(rb, 1000, 16 + 24); /* 44 bytes: does not fit, moves the tail */
	plan_all_fired();
	/* the nested writes moved the tail twice; the outer event retried
	 * on the newest tail, after them */
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.tail_page, st0.next[st0.next[st0.tail_page]]);
	exp_add(0, EPP - 1);
	exp_add(2000, 300);
	exp_add(1000, 1);
	/* payload lengths differ: check seqs, then lengths separately */
	{
		struct ringbuf_event *ev;
		size_t i = 0;

		while ((ev = ringbuf_consume(rb, 0, NULL, NULL))) {
			uint32_t seq = tu_seq(ringbuf_event_data(ev));

			ASSERT_LT(i, g_nexp);
			if (seq != g_exp[i])
				RBT_FAIL("event %zu: seq %u, expected %u", i,
					 seq, g_exp[i]);
			tu_check(ringbuf_event_data(ev),
				 ringbuf_event_length(ev), seq,
				 seq == 1000 ? 40 : 16);
			i++;
		}
		ASSERT_EQ(i, g_nexp);
	}
	finish(rb, EPP - 1 + 300 + 1);
}

static void nested_move_tail(void)
{
	nested_tail_case(RINGBUF_TP_MOVE_TAIL);
}

static void nested_tail_update(void)
{
	nested_tail_case(RINGBUF_TP_TAIL_UPDATE);
}

/* ---- (d) a nested writer sees UPDATE and sets the new head ------------ */

static void nested_one(struct ringbuf *rb)
{
	w(rb, 2000, 16);
}

static unsigned int flagged_head(struct ringbuf *rb)
{
	struct ringbuf_test_state st;
	unsigned int n = 0, to = 0;

	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	for (unsigned int i = 0; i <= st.nr_pages; i++) {
		if (i == st.reader_page)
			continue;
		if (st.flags[i]) {
			ASSERT_EQ(st.flags[i], RINGBUF_TEST_PAGE_HEAD);
			n++;
			to = st.next[i];
		}
	}
	ASSERT_EQ(n, 1);
	return to;
}

static void nested_sees_update(void)
{
	struct ringbuf *rb = setup(4, RINGBUF_FL_OVERWRITE);
	struct ringbuf_test_state st0;
	unsigned int head0;

	w_range(rb, 0, 4 * EPP, 16); /* full ring */
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st0), 0);
	head0 = flagged_head(rb);
	plan(RINGBUF_TP_HEAD_UPDATE, 0, nested_one);
	w(rb, 1000, 16);
	plan_all_fired();
	/* one page lost, counted once; the head moved by exactly one page */
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), EPP);
	ASSERT_EQ(flagged_head(rb), st0.next[head0]);
	tu_check_rb(rb);
	exp_add(EPP, 3 * EPP);
	exp_add(2000, 1);
	exp_add(1000, 1);
	expect_consume(rb, 16);
	finish(rb, 4 * EPP + 2);
}

/* ---- (e) three deep: the first writer must reset a stale HEAD --------- */

static void nested_page_and_more(struct ringbuf *rb)
{
	w_range(rb, 3000, EPP + 5, 16);
}

static void three_deep_stale_head(void)
{
	struct ringbuf *rb = setup(4, RINGBUF_FL_OVERWRITE);
	struct ringbuf_test_state st0;
	unsigned int head0;

	w_range(rb, 0, 4 * EPP, 16);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st0), 0);
	head0 = flagged_head(rb);
	/* outer crosses into the head: at HEAD_UPDATE a nested writer comes
	 * in, sees UPDATE and sets the new head; right then (HEAD_NEW, one
	 * level down) a third writer fills a page and pushes the head on */
	plan(RINGBUF_TP_HEAD_UPDATE, 0, nested_one);
	plan(RINGBUF_TP_HEAD_NEW, 1, nested_page_and_more);
	w(rb, 1000, 16);
	plan_all_fired();
	/* two pages lost, each counted once; exactly one HEAD, two pages on */
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), 2 * EPP);
	ASSERT_EQ(flagged_head(rb), st0.next[st0.next[head0]]);
	tu_check_rb(rb);
	exp_add(2 * EPP, 2 * EPP);
	exp_add(3000, EPP + 5);
	exp_add(2000, 1);
	exp_add(1000, 1);
	expect_consume(rb, 16);
	finish(rb, 4 * EPP + EPP + 5 + 2);
}

/* ---- (f) pending commits complete with the outermost writer ------------ */

static struct {
	struct ringbuf *rb;
	struct reader_ctx rc;
	struct ringbuf_test_state st;
} g_pend;

static void nested_commit_then_look(struct ringbuf *rb)
{
	w(rb, 2000, 16);
	/* committed, but behind the outer pending event: not visible */
	ASSERT_EQ(ringbuf_test_state(rb, 0, &g_pend.st), 0);
	g_pend.rc.rb = rb;
	tu_run_thread(reader_consume_all, &g_pend.rc);
}

static void pending_commit(void)
{
	struct ringbuf *rb = setup(4, 0);
	struct ringbuf_event *ev;

	w(rb, 0, 16);
	w(rb, 1, 16);
	plan(RINGBUF_TP_RESERVED, 0, nested_commit_then_look);
	ev = tu_reserve_ok(rb, 1000, 16); /* the hook runs inside */
	plan_all_fired();
	ASSERT_EQ(g_pend.st.committing, 1);
	ASSERT_LT(g_pend.st.commit, g_pend.st.write);
	/* the reader got what was committed before the outer event only */
	ASSERT_EQ(g_pend.rc.n, 2);
	ASSERT_EQ(g_pend.rc.seqs[0], 0);
	ASSERT_EQ(g_pend.rc.seqs[1], 1);
	tu_run_thread(reader_consume_all, &g_pend.rc);
	ASSERT_EQ(g_pend.rc.n, 0);
	(void)ev;
	ASSERT_EQ(ringbuf_unlock_commit(rb), 0);
	/* now both, in reservation order */
	exp_add(1000, 1);
	exp_add(2000, 1);
	expect_consume(rb, 16);
	finish(rb, 4);
}

/* Nested writes arriving inside the outer commit: before the commit page
 * moves, and after committing dropped but before the re-check. */
static void nested_commit_a(struct ringbuf *rb)
{
	w(rb, 2000, 16);
}

static void nested_commit_b(struct ringbuf *rb)
{
	w(rb, 3000, 16);
}

static void nested_commit_points(void)
{
	struct ringbuf *rb = setup(4, 0);
	struct ringbuf_test_state st;

	w(rb, 0, 16);
	plan(RINGBUF_TP_COMMIT, 0, nested_commit_a);
	w(rb, 1000, 16);
	plan_all_fired();
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.committing, 0);
	ASSERT_EQ(st.commit, st.write); /* everything visible */
	plan_reset();
	plan(RINGBUF_TP_COMMIT_END, 0, nested_commit_b);
	w(rb, 1001, 16);
	plan_all_fired();
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.committing, 0);
	ASSERT_EQ(st.commit, st.write);
	tu_check_rb(rb);
	exp_add(0, 1);
	exp_add(1000, 1);
	exp_add(2000, 1);
	exp_add(1001, 1);
	exp_add(3000, 1);
	expect_consume(rb, 16);
	finish(rb, 5);
}

/* ---- (g) nested time stamps ---------------------------------------------- */

static struct rbd_page g_page;

static void nested_i1(struct ringbuf *rb)
{
	w(rb, 2000, 16);
}

static void nested_i2(struct ringbuf *rb)
{
	w(rb, 2001, 16);
}

/* write P; arm; write O (seq 1000) with the injections; write F; decode
 * the page and return it with the data records' seqs in @order. */
static void ts_case(enum ringbuf_testpoint tp, bool also_e, const char **kinds,
		    unsigned int nkinds, const uint32_t *order)
{
	struct ringbuf *rb = setup(4, 0);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct tu_ev it[8];
	char err[256], got[256] = "";
	unsigned int i, k = 0;
	uint64_t last = 0;

	ASSERT_NOT_NULL(page);
	w(rb, 0, 16);
	plan(tp, 0, nested_i1);
	if (also_e)
		plan(RINGBUF_TP_RESERVE_E, 0, nested_i2);
	w(rb, 1000, 16);
	plan_all_fired();
	w(rb, 3000, 16);
	ASSERT_EQ(tu_iter_all(rb, 0, it, 8), nkinds == 0 ? 0 : 4 + also_e);
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), 0);
	if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
		RBT_FAIL("%s", err);
	for (i = 0; i < g_page.nrec; i++) {
		const struct rbd_rec *r = &g_page.recs[i];
		char one[32];

		if (r->kind == RBD_DATA)
			snprintf(one, sizeof(one), "%s%u", i ? " " : "",
				 tu_seq(r->payload));
		else
			snprintf(one, sizeof(one), "%s%s", i ? " " : "",
				 r->kind == RBD_STAMP	 ? "TS" :
				 r->kind == RBD_EXTEND ? "TE" :
							 "PAD");
		strncat(got, one, sizeof(got) - strlen(got) - 1);
	}
	/* time never goes backwards in page order, and the decoded times
	 * are what the iterator reported */
	for (i = 0; i < g_page.nrec; i++) {
		const struct rbd_rec *r = &g_page.recs[i];

		if (r->kind != RBD_DATA)
			continue;
		if (r->ts < last) {
			rbd_dump(&g_page);
			RBT_FAIL("time goes backwards at record %u (%s)", i,
				 got);
		}
		last = r->ts;
		ASSERT_LT(k, 8);
		ASSERT_EQ(tu_seq(r->payload), order[k]);
		ASSERT_EQ_U(r->ts, it[k].ts);
		tu_check(r->payload, r->len, order[k], 16);
		k++;
	}
	ASSERT_EQ(k, 4 + also_e);
	/* the record layout the kernel's algorithm gives */
	{
		char want[256] = "";

		for (i = 0; i < nkinds; i++) {
			strncat(want, i ? " " : "", sizeof(want) - strlen(want) - 1);
			strncat(want, kinds[i], sizeof(want) - strlen(want) - 1);
		}
		if (strcmp(want, got) != 0) {
			rbd_dump(&g_page);
			RBT_FAIL("page records: got \"%s\", expected \"%s\"", got,
				 want);
		}
	}
	if (also_e) {
		/* O was interrupted between C and F: delta 0, the time of
		 * the event before it */
		for (i = 0; i < g_page.nrec; i++)
			if (g_page.recs[i].kind == RBD_DATA &&
			    tu_seq(g_page.recs[i].payload) == 1000) {
				ASSERT_EQ(g_page.recs[i].delta, 0);
				ASSERT_EQ_U(g_page.recs[i].ts,
					    g_page.recs[i - 1].ts);
			}
	}
	ringbuf_free_read_page(rb, 0, page);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 4 + also_e);
	finish(rb, 4 + also_e);
}

static void ts_nested_a_b(void)
{
	/* I interrupts before B: normal delta for it; O takes the slow
	 * path with a fresh time; F follows a slow-path event whose write
	 * stamp was not saved, so it gets an absolute stamp */
	static const char *k[] = { "0", "2000", "1000", "TS", "3000" };
	static const uint32_t o[] = { 0, 2000, 1000, 3000 };

	ts_case(RINGBUF_TP_RESERVE_A_B, false, k, 5, o);
}

static void ts_nested_b_c(void)
{
	/* I interrupts between B and C: before != after, so it carries an
	 * absolute stamp; O then takes the slow path */
	static const char *k[] = { "0", "TS", "2000", "1000", "TS", "3000" };
	static const uint32_t o[] = { 0, 2000, 1000, 3000 };

	ts_case(RINGBUF_TP_RESERVE_B_C, false, k, 6, o);
}

static void ts_nested_c_d(void)
{
	/* O has its space; I interrupts before O's write stamp: I gets an
	 * absolute stamp, and so does F (the write stamp is O's, older) */
	static const char *k[] = { "0", "1000", "TS", "2000", "TS", "3000" };
	static const uint32_t o[] = { 0, 1000, 2000, 3000 };

	ts_case(RINGBUF_TP_RESERVE_C_D, false, k, 6, o);
}

static void ts_nested_e(void)
{
	/* I1 before B sends O down the slow path; I2 interrupts it at E:
	 * I2 gets an absolute stamp, O delta 0; I2 left before and write
	 * stamps equal, so F is a plain delta */
	static const char *k[] = { "0", "2000", "1000", "TS", "2001",
				   "3000" };
	static const uint32_t o[] = { 0, 2000, 1000, 2001, 3000 };

	ts_case(RINGBUF_TP_RESERVE_A_B, true, k, 6, o);
}

/* ---- (h) the thread's slot cache and its cpu buffer ------------------------ */

/* Two per-thread buffers of one slot each, and the thread's first cache
 * entry (key and cpu buffer) as a write found it. */
static struct ringbuf *g_sa, *g_sb;

static void slot_expect(struct ringbuf *rb, const uint32_t *seqs, unsigned int n)
{
	exp_reset();
	for (unsigned int i = 0; i < n; i++)
		exp_add(seqs[i], 1);
	expect_consume(rb, 16);
}

static void slot_pair_nested(struct ringbuf *rb)
{
	(void)rb;
	w(g_sa, 2000, 16);
	w(g_sb, 2001, 16);
}

/*
 * The outermost write puts b's slot first in the cache: a handler between
 * its store of b's cpu buffer and its store of b's key (or one before
 * the pointer) must not find a's key with b's cpu buffer, nor b's key
 * with a's: each of its writes lands in its own buffer.
 */
static void slot_cache_pair(void)
{
	static const uint32_t in_a[] = { 0, 2000, 1 }, in_b[] = { 2001, 1000, 1001 };

	plan_reset();
	g_sa = tu_create(4, 0, 1, RINGBUF_PER_THREAD);
	g_sb = tu_create(4, 0, 1, RINGBUF_PER_THREAD);
	w(g_sa, 0, 16);
	plan(RINGBUF_TP_SLOT_CACHE, 0, slot_pair_nested);
	w(g_sb, 1000, 16);
	plan_all_fired();
	w(g_sa, 1, 16);
	w(g_sb, 1001, 16);
	slot_expect(g_sa, in_a, 3);
	slot_expect(g_sb, in_b, 3);
	finish(g_sa, 3);
	finish(g_sb, 3);
}

static void slot_nested_write(struct ringbuf *rb)
{
	uint64_t key = __atomic_load_n(&ringbuf_tls.slot[0], __ATOMIC_RELAXED);
	struct ringbuf_fe_cpu *cb = __atomic_load_n(&ringbuf_tls.slot_cb,
						    __ATOMIC_RELAXED);

	(void)rb;
	w(g_sb, 2000, 16);
	/* the interrupted write may have loaded the pair: a handler's write
	 * leaves it as it found it */
	ASSERT_EQ(__atomic_load_n(&ringbuf_tls.slot[0], __ATOMIC_RELAXED), key);
	ASSERT_TRUE(__atomic_load_n(&ringbuf_tls.slot_cb, __ATOMIC_RELAXED) == cb);
}

/* A handler writes to another per-thread buffer inside a write to a. */
static void slot_cache_nested(void)
{
	static const uint32_t in_a[] = { 0, 1000, 1 }, in_b[] = { 2000, 2 };

	plan_reset();
	g_sa = tu_create(4, 0, 1, RINGBUF_PER_THREAD);
	g_sb = tu_create(4, 0, 1, RINGBUF_PER_THREAD);
	w(g_sa, 0, 16);
	plan(RINGBUF_TP_RESERVED, 0, slot_nested_write);
	w(g_sa, 1000, 16);
	plan_all_fired();
	w(g_sa, 1, 16);
	w(g_sb, 2, 16);
	slot_expect(g_sa, in_a, 3);
	slot_expect(g_sb, in_b, 2);
	finish(g_sa, 3);
	finish(g_sb, 2);
}

static const struct rbt_case cases[] = {
	RBT_CASE(reader_swap_commit_on_reader),
	RBT_CASE(reader_waits_for_update),
	RBT_CASE(reader_swap_retry),
	RBT_CASE(nested_move_tail),
	RBT_CASE(nested_tail_update),
	RBT_CASE(nested_sees_update),
	RBT_CASE(three_deep_stale_head),
	RBT_CASE(pending_commit),
	RBT_CASE(nested_commit_points),
	RBT_CASE(ts_nested_a_b),
	RBT_CASE(ts_nested_b_c),
	RBT_CASE(ts_nested_c_d),
	RBT_CASE(ts_nested_e),
	RBT_CASE(slot_cache_pair),
	RBT_CASE(slot_cache_nested),
};
RBT_MAIN(cases)
