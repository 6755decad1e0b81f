/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Faults a userspace writer or reader meets and a kernel one does not,
 * made deterministic with the test hooks. None of them may fire
 * RB_WARN_ON or switch recording off, lose or hide a healthy thread's
 * events, or leave a counter describing data that is not there:
 *
 *  reader_gives_up_on_update	a writer stopped while it holds UPDATE on
 *				the head link: the reader reports "busy"
 *				(EAGAIN), twice, and reads everything once
 *				the writer goes on
 *  stale_next_link		a writer stopped in rb_move_tail() after it
 *				read its next page, while the reader swaps
 *				that page and then the tail page out: the
 *				tail moves along the current link
 *  stale_head_link		the same, stopped after it found the head
 *				next (the buffer full): once the reader has
 *				its tail page, it reads the link again
 *  wait_after_room		the same with writers waiting for room
 *				(ringbuf_set_writer_wait()), while a reader
 *				of whole pages takes every page but the
 *				writer's: it writes, it does not wait in
 *				vain and drop
 *  cancel_per_thread		a writer cancelled between reserve and
 *  cancel_per_cpu		commit (its signal handler committed one
 *  exit_per_cpu		event inside the torn write), or exiting
 *				there: rolled back and counted torn; the
 *				next thread's writes are all readable,
 *				resize and reset work, counters drain to 0
 *  event_after_swap		an event from consume or peek keeps its
 *  event_after_reset		bytes across a swap, reset or resize of its
 *  event_after_resize		cpu buffer
 *  empty_is_enodata		NULL from an empty buffer says ENODATA
 *  wait_across_resize		blocking readers keep waiting while the
 *				buffer is resized under them
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "tu.h"

#define LEN 40u

/* ---- a writer parked at a test point ---------------------------------- */

static struct {
	pthread_t thread;
	enum ringbuf_testpoint tp;
	atomic_bool armed;
	atomic_bool release;
	sem_t parked;
} g_park;

static void park_hook(struct ringbuf *rb, int cpu, enum ringbuf_testpoint tp,
		      void *arg)
{
	(void)rb;
	(void)cpu;
	(void)arg;
	if (tp != g_park.tp || !pthread_equal(pthread_self(), g_park.thread) ||
	    !atomic_exchange(&g_park.armed, false))
		return;
	sem_post(&g_park.parked);
	/* Released by a flag, not a semaphore: a preempted thread resumes
	 * without any ordering edge, and the library must not need one. */
	while (!atomic_load_explicit(&g_park.release, memory_order_relaxed))
		sched_yield();
}

static void park_setup(enum ringbuf_testpoint tp)
{
	memset(&g_park, 0, sizeof(g_park));
	g_park.tp = tp;
	ASSERT_EQ(sem_init(&g_park.parked, 0, 0), 0);
	ringbuf_test_set_hook(park_hook, NULL);
}

static void park_done(void)
{
	ringbuf_test_set_hook(NULL, NULL);
	sem_destroy(&g_park.parked);
}

/* Consume cpu 0 to the end: seqs must run from @first, each once, each
 * payload intact. Returns the number read. */
static unsigned long drain_seqs(struct ringbuf *rb, uint32_t first,
				unsigned long *lost_total)
{
	struct ringbuf_event *ev;
	unsigned long n = 0, lost;
	uint32_t next = first;

	while ((ev = ringbuf_consume(rb, 0, NULL, &lost))) {
		uint32_t seq = tu_seq(ringbuf_event_data(ev));

		if (lost_total)
			*lost_total += lost;
		if (seq < next)
			RBT_FAIL("seq %u read after %u", seq, next);
		if (!lost_total && seq != next)
			RBT_FAIL("seq %u read, %u expected", seq, next);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), seq,
			 LEN);
		next = seq + 1;
		n++;
	}
	ASSERT_EQ(errno, ENODATA);
	return n;
}

/* ---- a writer stopped holding UPDATE ----------------------------------- */

struct wctx {
	struct ringbuf *rb;
	sem_t filled, go;
	uint32_t written;
};

static void *update_writer(void *arg)
{
	struct wctx *c = arg;

	ringbuf_test_set_cpu(0);
	/* two pages' worth, then the reader takes one page */
	for (; c->written < 200; c->written++)
		tu_write_ok(c->rb, c->written, LEN);
	sem_post(&c->filled);
	while (sem_wait(&c->go))
		;
	/* wrap until the head must be pushed: parks there */
	atomic_store(&g_park.armed, true);
	while (atomic_load(&g_park.armed))
		tu_write_ok(c->rb, c->written++, LEN);
	for (int i = 0; i < 10; i++)
		tu_write_ok(c->rb, c->written++, LEN);
	return NULL;
}

static void reader_gives_up_on_update(void)
{
	struct ringbuf *rb = tu_create(4, RINGBUF_FL_OVERWRITE, 1,
				       RINGBUF_PER_CPU);
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);
	struct wctx c = { .rb = rb };
	unsigned long read, lost = 0;
	int first;

	ASSERT_NOT_NULL(page);
	ASSERT_EQ(sem_init(&c.filled, 0, 0), 0);
	ASSERT_EQ(sem_init(&c.go, 0, 0), 0);
	park_setup(RINGBUF_TP_HEAD_UPDATE);
	ASSERT_EQ(pthread_create(&g_park.thread, NULL, update_writer, &c), 0);
	while (sem_wait(&c.filled))
		;
	/* one whole page: the reader page is used up */
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 1), 0);
	first = (int)tu_seq(((struct ringbuf_data_page *)page)->data + 4);
	ASSERT_EQ(first, 0);
	first = (int)ringbuf_read_events_cpu(rb, 0);
	ASSERT_GT(first, 0);
	sem_post(&c.go);
	while (sem_wait(&g_park.parked))
		;
	/* the swap cannot succeed while UPDATE is held: busy, twice */
	ASSERT_EQ(ringbuf_read_page(rb, page, psz, 0, 0), -EAGAIN);
	ASSERT_NULL_ERRNO(ringbuf_consume(rb, 0, NULL, NULL), EAGAIN);
	ASSERT_NULL_ERRNO(ringbuf_consume_next(rb, NULL, NULL, NULL), EAGAIN);
	ASSERT_FALSE(ringbuf_test_warned(rb));
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	atomic_store_explicit(&g_park.release, true, memory_order_relaxed);
	pthread_join(g_park.thread, NULL);
	park_done();

	read = drain_seqs(rb, 0, &lost);
	ASSERT_FALSE(ringbuf_test_warned(rb));
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	/* the page read first counts as read */
	ASSERT_EQ_U(ringbuf_read_events_cpu(rb, 0), (unsigned long)first + read);
	ASSERT_EQ_U(ringbuf_read_events_cpu(rb, 0) + ringbuf_overrun_cpu(rb, 0),
		    c.written);
	ASSERT_EQ_U(ringbuf_entries_cpu(rb, 0), 0);
	ASSERT_EQ_U(ringbuf_bytes_cpu(rb, 0), 0);
	ASSERT_EQ_U(lost, ringbuf_overrun_cpu(rb, 0));
	tu_check_rb(rb);
	tu_write_ok(rb, 7777, LEN);
	ASSERT_EQ(drain_seqs(rb, 7777, NULL), 1);
	sem_destroy(&c.filled);
	sem_destroy(&c.go);
	ringbuf_free_read_page(rb, 0, page);
	ringbuf_free(rb);
}

/* ---- a writer stopped in rb_move_tail() with a stale next page ---------- */

static atomic_uint g_seq;

static int stale_write(struct ringbuf *rb)
{
	return tu_write(rb, atomic_fetch_add(&g_seq, 1), LEN);
}

static atomic_ulong g_written;
static sem_t g_resumed;

/* On cpu 0, write until a write is refused (the buffer full). */
static void fill_until_refused(struct ringbuf *rb)
{
	ringbuf_test_set_cpu(0);
	while (stale_write(rb) == 0)
		atomic_fetch_add(&g_written, 1);
}

static void *stale_writer(void *arg)
{
	struct ringbuf *rb = arg;

	fill_until_refused(rb);
	atomic_store(&g_park.armed, true);
	if (stale_write(rb) == 0) /* parks in rb_move_tail() */
		atomic_fetch_add(&g_written, 1);
	sem_post(&g_resumed);
	return NULL;
}

/* Read cpu 0's pages (@full: whole ones only, as a recorder does),
 * checking every record. Returns the number read. */
static unsigned long drain_pages(struct ringbuf *rb, void *page, int full)
{
	unsigned long n = 0;
	int ret;

	while ((ret = ringbuf_read_page(rb, page, ringbuf_subbuf_size(rb), 0,
					full)) == 0) {
		const struct ringbuf_data_page *dp = page;
		uint64_t len = dp->commit & RINGBUF_COMMIT_MASK, off = 0;

		while (off + 8 <= len) {
			const struct ringbuf_event *ev =
				(const void *)(dp->data + off);

			if (ev->type_len == RINGBUF_TYPE_PADDING) {
				if (!ev->time_delta)
					break;
				off += 4 + ev->array[0];
				continue;
			}
			if (ev->type_len > RINGBUF_TYPE_DATA_TYPE_LEN_MAX) {
				off += 8;
				continue;
			}
			tu_check(ringbuf_event_data((struct ringbuf_event *)ev),
				 ringbuf_event_length((struct ringbuf_event *)ev),
				 tu_seq(ringbuf_event_data(
					 (struct ringbuf_event *)ev)),
				 LEN);
			off += 4 + ringbuf_event_length(
					   (struct ringbuf_event *)ev);
			n++;
		}
	}
	/* a busy answer is allowed while the writer is parked */
	if (ret != -ENODATA && ret != -EAGAIN)
		RBT_FAIL("read_page: %d", ret);
	return n;
}

static void stale_link(enum ringbuf_testpoint tp)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	struct ringbuf_test_state st;
	void *page = ringbuf_alloc_read_page(rb, 0);
	unsigned int T, R;
	unsigned long read = 0;

	ASSERT_NOT_NULL(page);
	atomic_store(&g_seq, 0);
	atomic_store(&g_written, 0);
	ASSERT_EQ(sem_init(&g_resumed, 0, 0), 0);
	park_setup(tp);
	ASSERT_EQ(pthread_create(&g_park.thread, NULL, stale_writer, rb), 0);
	while (sem_wait(&g_park.parked))
		;
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	T = st.tail_page;
	/* the reader takes everything, the writer's tail page included */
	read += drain_pages(rb, page, 0);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.reader_page, T);
	R = st.next[T];
	atomic_store_explicit(&g_park.release, true, memory_order_relaxed);
	while (sem_wait(&g_resumed))
		;
	pthread_join(g_park.thread, NULL);
	park_done();
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	/* along the link as it is now, not over the page the reader put in */
	ASSERT_EQ(st.tail_page, R);
	for (int i = 0; i < 20; i++)
		if (stale_write(rb) == 0)
			atomic_fetch_add(&g_written, 1);
	read += drain_pages(rb, page, 0);
	ASSERT_EQ_U(read, atomic_load(&g_written));
	ASSERT_EQ_U(ringbuf_entries_cpu(rb, 0), 0);
	ASSERT_FALSE(ringbuf_test_warned(rb));
	ASSERT_EQ(ringbuf_test_check_pages(rb, 0), 0);
	tu_check_rb(rb);
	sem_destroy(&g_resumed);
	ringbuf_free_read_page(rb, 0, page);
	ringbuf_free(rb);
}

/* Stopped before it looked at the head page. */
static void stale_next_link(void)
{
	stale_link(RINGBUF_TP_MOVE_TAIL);
}

/* Stopped after it found the head page next (the buffer full), before it
 * looked at where the commit is: by then the reader has its tail page, and
 * the commit-on-the-reader-page path must not take the old link. */
static void stale_head_link(void)
{
	stale_link(RINGBUF_TP_MOVE_TAIL_HEAD);
}

/* ---- a waiting writer whose room came before its wait ------------------ */

static atomic_int g_wait_ret;

static void *waiting_writer(void *arg)
{
	struct ringbuf *rb = arg;

	fill_until_refused(rb);
	/* from here on a full buffer waits (a short wait: nobody reads
	 * while it lasts, so a wait drops) */
	atomic_store(&g_wait_ret, ringbuf_set_writer_wait(rb, 100));
	atomic_store(&g_park.armed, true);
	/* parks in rb_move_tail(), after it found the head page next */
	if (stale_write(rb) == 0)
		atomic_fetch_add(&g_written, 1);
	else
		atomic_store(&g_wait_ret, -ENOSPC);
	sem_post(&g_resumed);
	return NULL;
}

/*
 * A writer that found its buffer full (the head page next) and is about
 * to wait for the reader, while the reader takes every whole page: the
 * head is then the writer's own page, which a reader of whole pages
 * leaves alone, so no page is taken after the writer starts waiting.
 * The writer must see that the head it found is gone and write, not
 * wait out its time and drop.
 */
static void wait_after_room(void)
{
	struct ringbuf *rb = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	void *page = ringbuf_alloc_read_page(rb, 0);
	unsigned long read = 0, dropped;

	ASSERT_NOT_NULL(page);
	atomic_store(&g_seq, 0);
	atomic_store(&g_written, 0);
	atomic_store(&g_wait_ret, 0);
	ASSERT_EQ(sem_init(&g_resumed, 0, 0), 0);
	park_setup(RINGBUF_TP_MOVE_TAIL_HEAD);
	ASSERT_EQ(pthread_create(&g_park.thread, NULL, waiting_writer, rb), 0);
	while (sem_wait(&g_park.parked))
		;
	dropped = ringbuf_dropped_events_cpu(rb, 0);
	ASSERT_EQ_U(dropped, 1);
	/* every whole page: all but the one the writer is on */
	read += drain_pages(rb, page, 1);
	ASSERT_TRUE(read > 0);
	atomic_store_explicit(&g_park.release, true, memory_order_relaxed);
	while (sem_wait(&g_resumed))
		;
	pthread_join(g_park.thread, NULL);
	park_done();
	ASSERT_EQ(atomic_load(&g_wait_ret), 0);
	ASSERT_EQ_U(ringbuf_dropped_events_cpu(rb, 0), dropped);
	read += drain_pages(rb, page, 0);
	ASSERT_EQ_U(read, atomic_load(&g_written));
	ASSERT_FALSE(ringbuf_test_warned(rb));
	ASSERT_EQ(ringbuf_test_check_pages(rb, 0), 0);
	tu_check_rb(rb);
	sem_destroy(&g_resumed);
	ringbuf_free_read_page(rb, 0, page);
	ringbuf_free(rb);
}

/* ---- a writer that leaves between reserve and commit -------------------- */

enum leave { LEAVE_CANCEL, LEAVE_EXIT };

static struct ringbuf *g_rb;
static sem_t g_reserved;
static enum leave g_leave;

static void nested_write(int sig)
{
	(void)sig;
	/* committed, but inside the outer write: lost with it */
	if (tu_write(g_rb, 500, LEN))
		_exit(90);
}

static void *victim(void *arg)
{
	(void)arg;
	ringbuf_test_set_cpu(0);
	tu_write_ok(g_rb, 0, LEN);
	tu_write_ok(g_rb, 1, LEN);
	tu_reserve_ok(g_rb, 2, LEN);
	raise(SIGUSR1);
	if (g_leave == LEAVE_EXIT)
		pthread_exit(NULL);
	sem_post(&g_reserved);
	for (;;)
		pthread_testcancel();
	return NULL;
}

static void *healthy(void *arg)
{
	(void)arg;
	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < 100; i++)
		tu_write_ok(g_rb, 10 + i, LEN);
	return NULL;
}

static void leave_mid_write(int model, enum leave how)
{
	struct sigaction sa;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nested_write;
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	g_rb = tu_create(4, 0, 1, model);
	g_leave = how;
	ASSERT_EQ(sem_init(&g_reserved, 0, 0), 0);
	ASSERT_EQ(pthread_create(&t, NULL, victim, NULL), 0);
	if (how == LEAVE_CANCEL) {
		while (sem_wait(&g_reserved))
			;
		ASSERT_EQ(pthread_cancel(t), 0);
	}
	ASSERT_EQ(pthread_join(t, NULL), 0);

	/* the handler's event, lost inside the interrupted write */
	ASSERT_EQ_U(ringbuf_torn_events_cpu(g_rb, 0), 1);
	ASSERT_EQ(drain_seqs(g_rb, 0, NULL), 2);
	ASSERT_EQ_U(ringbuf_entries_cpu(g_rb, 0), 0);
	ASSERT_EQ_U(ringbuf_bytes_cpu(g_rb, 0), 0);
	ASSERT_TRUE(ringbuf_empty(g_rb));

	/* the next thread gets the same cpu buffer, and every write of it
	 * is read */
	tu_run_thread(healthy, NULL);
	ASSERT_EQ(drain_seqs(g_rb, 10, NULL), 100);
	ASSERT_EQ_U(ringbuf_entries_cpu(g_rb, 0), 0);
	ASSERT_EQ_U(ringbuf_bytes_cpu(g_rb, 0), 0);
	ASSERT_EQ_U(ringbuf_dropped_events_cpu(g_rb, 0), 0);
	ASSERT_EQ_U(ringbuf_read_events_cpu(g_rb, 0), 102);
	tu_check_rb(g_rb);
	/* nobody is left writing: resize and reset do their work */
	ASSERT_EQ(ringbuf_resize(g_rb, TU_PAGES(8), RINGBUF_ALL_CPUS), 0);
	tu_run_thread(healthy, NULL);
	ringbuf_reset_cpu(g_rb, 0);
	ASSERT_EQ_U(ringbuf_entries_cpu(g_rb, 0), 0);
	ASSERT_TRUE(ringbuf_empty(g_rb));
	ASSERT_FALSE(ringbuf_test_warned(g_rb));
	ASSERT_TRUE(ringbuf_record_is_on(g_rb));
	sem_destroy(&g_reserved);
	ringbuf_free(g_rb);
	signal(SIGUSR1, SIG_DFL);
}

static void cancel_per_thread(void)
{
	leave_mid_write(RINGBUF_PER_THREAD, LEAVE_CANCEL);
}

static void cancel_per_cpu(void)
{
	leave_mid_write(RINGBUF_PER_CPU, LEAVE_CANCEL);
}

static void exit_per_cpu(void)
{
	leave_mid_write(RINGBUF_PER_CPU, LEAVE_EXIT);
}

/* ---- the lifetime of a consumed event ----------------------------------- */

enum what { W_SWAP, W_RESET, W_RESIZE };

static void event_after(enum what what, bool peek)
{
	struct ringbuf *a = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	struct ringbuf *b = tu_create(4, 0, 1, RINGBUF_PER_CPU);
	struct ringbuf_event *e;

	ringbuf_test_set_cpu(0);
	tu_write_ok(a, 1, LEN);
	for (uint32_t i = 0; i < 3; i++)
		tu_write_ok(b, 100 + i, LEN);
	e = peek ? ringbuf_peek(a, 0, NULL, NULL) :
		   ringbuf_consume(a, 0, NULL, NULL);
	ASSERT_NOT_NULL(e);
	switch (what) {
	case W_SWAP:
		ASSERT_EQ(ringbuf_swap_cpu(a, b, 0), 0);
		break;
	case W_RESET:
		ringbuf_reset_cpu(a, 0);
		for (uint32_t i = 0; i < 3; i++)
			tu_write_ok(a, 200 + i, LEN);
		break;
	case W_RESIZE:
		ASSERT_EQ(ringbuf_resize(a, TU_PAGES(16), 0), 0);
		break;
	}
	/* the bytes are the event's, whatever happened to its page */
	tu_check(ringbuf_event_data(e), ringbuf_event_length(e), 1, LEN);
	ringbuf_test_set_cpu(-1);
	ringbuf_free(a);
	ringbuf_free(b);
}

static void event_after_swap(void)
{
	event_after(W_SWAP, false);
	event_after(W_SWAP, true);
}

static void event_after_reset(void)
{
	event_after(W_RESET, false);
	event_after(W_RESET, true);
}

static void event_after_resize(void)
{
	event_after(W_RESIZE, false);
	event_after(W_RESIZE, true);
}

static void empty_is_enodata(void)
{
	struct ringbuf *rb = tu_create(4, 0, 2, RINGBUF_PER_CPU);

	ASSERT_NULL_ERRNO(ringbuf_consume(rb, 0, NULL, NULL), ENODATA);
	ASSERT_NULL_ERRNO(ringbuf_peek(rb, 1, NULL, NULL), ENODATA);
	ASSERT_NULL_ERRNO(ringbuf_consume_next(rb, NULL, NULL, NULL), ENODATA);
	ASSERT_NULL_ERRNO(ringbuf_consume(rb, 5, NULL, NULL), EINVAL);
	ringbuf_free(rb);
}

/* ---- a blocking reader across resizes ------------------------------------ */

static atomic_bool g_wait_stop;

static void *resize_waiter(void *arg)
{
	struct ringbuf *rb = arg;
	int ret = 0;

	/* each wait registers in the mapping, sleeps on a futex word in it
	 * and unregisters: a resize in between must not pull it away */
	while (!atomic_load(&g_wait_stop) && ret >= 0)
		ret = ringbuf_wait(rb, RINGBUF_ALL_CPUS, 0, 2);
	if (ret < 0)
		RBT_FAIL("ringbuf_wait: %d", ret);
	return NULL;
}

static void *resize_waiter_cpu(void *arg)
{
	struct ringbuf *rb = arg;

	while (!atomic_load(&g_wait_stop))
		if (ringbuf_wait(rb, 1, 50, 2) < 0)
			RBT_FAIL("ringbuf_wait(cpu 1) failed");
	return NULL;
}

static void wait_across_resize(void)
{
	struct ringbuf *rb = tu_create(4, 0, 2, RINGBUF_PER_CPU);
	pthread_t a, b;

	atomic_store(&g_wait_stop, false);
	ASSERT_EQ(pthread_create(&a, NULL, resize_waiter, rb), 0);
	ASSERT_EQ(pthread_create(&b, NULL, resize_waiter_cpu, rb), 0);
	for (int i = 0; i < 40; i++)
		ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(i % 2 ? 4 : 8),
					 RINGBUF_ALL_CPUS),
			  0);
	atomic_store(&g_wait_stop, true);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	/* every waiter is gone: the counts carried over came back to 0 */
	ringbuf_test_set_cpu(1);
	tu_write_ok(rb, 1, LEN);
	ringbuf_test_set_cpu(-1);
	ASSERT_EQ_U(ringbuf_entries_cpu(rb, 1), 1);
	ringbuf_free(rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(reader_gives_up_on_update),
	RBT_CASE(stale_next_link),
	RBT_CASE(stale_head_link),
	RBT_CASE(wait_after_room),
	RBT_CASE(cancel_per_thread),
	RBT_CASE(cancel_per_cpu),
	RBT_CASE(exit_per_cpu),
	RBT_CASE(event_after_swap),
	RBT_CASE(event_after_reset),
	RBT_CASE(event_after_resize),
	RBT_CASE(empty_is_enodata),
	RBT_CASE(wait_across_resize),
};
RBT_MAIN(cases)
