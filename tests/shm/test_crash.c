/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A writing process that dies, and readers that wait on a buffer another
 * process writes (ringbuf_wait() across processes).
 *
 *  writer_killed	the flight recorder: a forked writer creates a named
 *			buffer and writes in a tight loop, logging the last
 *			committed sequence number in a shared page; it is
 *			SIGKILLed at a random moment; a reader attaches (or
 *			was attached before the kill) and reads everything:
 *			payloads verify, sequence numbers are the writer's,
 *			the counters add up, at most one torn event
 *  wait_watermark	a reader in another process waits: full=0 wakes
 *			on the first event (latency well under the 100 ms
 *			slice: the futex wake is not lost); full=50 does not
 *			wake on a few events, wakes at half the pages
 *  wait_timeout		an empty buffer: the wait times out on time
 *  wait_writer_exit	the writing process exits or is killed while a
 *			reader waits: -ESRCH (1 first if it left data)
 *  wait_many		2000 write-on-request rounds between two processes:
 *			no wait may fall back to the slice (a lost wake-up)
 *
 * Every file this program makes is named "rbtest-<pid>-..." (pid of the
 * program). main() runs the cases in a child process group; when it ends,
 * the group is killed and every such file is removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/membarrier.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "shm_util.h"
#include "tu.h"

/* ------------------------------------------------------------------ */
/* Names, clean-up, time limits                                        */








static int64_t now_us(void)
{
	return (int64_t)(rbt_now_ns() / 1000u);
}

static void sleep_us(int64_t us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ */
/* Process helpers                                                     */



/* whether @fd has something to read (or end of file) right now */
static bool readable_now(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}





static void *shared_page(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		RBT_FAIL("mmap(MAP_SHARED|MAP_ANONYMOUS): %s",
			 strerror(errno));
	memset(p, 0, n);
	return p;
}

static struct ringbuf *create_named(const char *name, size_t pages,
				    unsigned int flags, int nr_cpus)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(pages), .flags = flags,
		     .nr_cpus = nr_cpus, .spare_buffers = RINGBUF_NO_SPARES,
		     .path = name);
	struct ringbuf *rb = ringbuf_create(&o);

	if (!rb)
		RBT_FAIL("ringbuf_create(path %s) failed: %s", name,
			 strerror(errno));
	return rb;
}

static struct ringbuf *attach_ok(const char *path)
{
	struct ringbuf *v = ringbuf_attach(path, 0);

	if (!v)
		RBT_FAIL("ringbuf_attach(%s) failed: %s", path,
			 strerror(errno));
	return v;
}

/* Whether a waiter across processes can rely on the writer's wake-up (the
 * library sleeps in 2 ms slices without MEMBARRIER_CMD_GLOBAL_EXPEDITED,
 * which hides a lost wake-up). */
static bool have_global_membarrier(void)
{
	long r = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	return r > 0 && (r & MEMBARRIER_CMD_GLOBAL_EXPEDITED);
}

/* Read and verify one tu_fill() event; returns its sequence number. */
static uint32_t check_event(struct ringbuf_event *ev, const char *what)
{
	const void *p = ringbuf_event_data(ev);
	unsigned int len = ringbuf_event_length(ev);

	if (len < 8)
		RBT_FAIL("%s: event of %u bytes, every one has at least 8",
			 what, len);
	if (tu_len(p) < 8 || tu_len(p) > 300 ||
	    tu_event_len(tu_len(p)) != len)
		RBT_FAIL("%s: event seq %u: len field %u, event length %u",
			 what, tu_seq(p), tu_len(p), len);
	tu_check(p, len, tu_seq(p), tu_len(p));
	return tu_seq(p);
}

/* ------------------------------------------------------------------ */
/* 1. writer_killed                                                    */

#define WK_ROUNDS 32
#define WK_OW_PAGES 64
/* producer/consumer: big enough that the writer rarely fills it within
 * the kill delay (if it does, it stops and waits to be killed) */
#define WK_PC_PAGES 8192
#define WK_NONE UINT64_MAX

struct wk_log {
	_Atomic uint64_t last;	  /* last committed seq, WK_NONE: none */
	_Atomic uint64_t full;	  /* p/c: the buffer filled, writer stopped */
	_Atomic uint64_t started; /* the writer is in its loop */
};

static _Noreturn void wk_writer(const char *name, bool overwrite,
				uint64_t seed, struct wk_log *log, int ready)
{
	struct ringbuf *rb;
	struct rbt_rng rng;
	char c = 'r';

	rb = create_named(name, overwrite ? WK_OW_PAGES : WK_PC_PAGES,
			  overwrite ? RINGBUF_FL_OVERWRITE : 0, 1);
	rbt_rng_init(&rng, seed);
	write_full(ready, &c, 1, "writer ready");
	atomic_store(&log->started, 1);
	for (uint32_t seq = 0;; seq++) {
		size_t len = (size_t)rbt_rng_range(&rng, 8, 300);
		struct ringbuf_event *ev = ringbuf_lock_reserve(rb, len);

		if (!ev) {
			if (overwrite)
				RBT_FAIL("writer: reserve failed in "
					 "overwrite mode at seq %u", seq);
			/* full: stop and wait for the kill */
			atomic_store(&log->full, 1);
			for (;;)
				pause();
		}
		tu_fill(ringbuf_event_data(ev), seq, len);
		if (ringbuf_unlock_commit(rb) != 0)
			RBT_FAIL("writer: commit failed at seq %u", seq);
		/* the log: stored after the commit returned */
		atomic_store_explicit(&log->last, seq, memory_order_release);
	}
}

struct wk_result {
	uint64_t nread;
	uint64_t first, last; /* WK_NONE if nothing was read */
	unsigned long lost_sum;
};

static void wk_read_all(struct ringbuf *v, struct wk_result *r,
			const char *what)
{
	struct ringbuf_event *ev;
	unsigned long lost;
	uint64_t ts, prev_ts = 0;
	int cpu;

	while ((ev = ringbuf_consume_next(v, &cpu, &ts, &lost))) {
		uint32_t seq = check_event(ev, what);

		ASSERT_EQ(cpu, 0);
		if (r->last != WK_NONE && seq <= r->last)
			RBT_FAIL("%s: seq %u after seq %" PRIu64
				 " (not strictly increasing)", what, seq,
				 r->last);
		if (r->nread && ts < prev_ts)
			RBT_FAIL("%s: time stamp goes back at seq %u", what,
				 seq);
		if (r->first == WK_NONE)
			r->first = seq;
		r->last = seq;
		r->lost_sum += lost;
		r->nread++;
		prev_ts = ts;
	}
}

static void wk_round(int round, bool overwrite, bool attach_before,
		     uint64_t delay_us, uint64_t wseed, int *n_full,
		     unsigned long *n_torn)
{
	struct wk_log *log = shared_page(4096);
	struct wk_result r = { .first = WK_NONE, .last = WK_NONE };
	struct ringbuf *v = NULL;
	char sfx[32], name[128], path[4096], what[160], c;
	uint64_t logged;
	unsigned long torn, over;
	int rp[2], st, wret;
	pid_t pid;

	snprintf(sfx, sizeof(sfx), "wk%d", round);
	name_of(name, sizeof(name), sfx);
	shm_path_of(path, sizeof(path), sfx);
	snprintf(what, sizeof(what),
		 "round %d (%s, attach %s, kill after %" PRIu64 " us, "
		 "writer seed %" PRIu64 ")",
		 round, overwrite ? "overwrite" : "producer/consumer",
		 attach_before ? "before the kill" : "after the kill",
		 delay_us, wseed);
	atomic_store(&log->last, WK_NONE);
	pipe_ok(rp);

	set_step("writer_killed: start the writer");
	pid = fork_ok();
	if (pid == 0) {
		close(rp[0]);
		wk_writer(name, overwrite, wseed, log, rp[1]);
	}
	close(rp[1]);
	read_full(rp[0], &c, 1, 5000, "writer_killed: writer ready");
	close(rp[0]);
	if (attach_before)
		v = attach_ok(name);
	while (!atomic_load(&log->started))
		sched_yield();
	sleep_us((int64_t)delay_us);
	set_step("writer_killed: kill the writer");
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	st = wait_child(pid, 10, "writer_killed: killed writer");
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
		RBT_FAIL("%s: the writer was not killed by SIGKILL (status "
			 "0x%x; see its messages above)", what, st);
	}
	logged = atomic_load(&log->last);
	if (atomic_load(&log->full))
		(*n_full)++;

	/* the file is left behind by the crash */
	if (!exists_nofollow(path))
		RBT_FAIL("%s: %s is gone after the crash", what, path);

	set_step("writer_killed: attach and read");
	if (!v)
		v = attach_ok(name);
	wk_read_all(v, &r, what);
	if (attach_before) {
		/* the view was attached while the writer lived: the wait
		 * sees the writer gone and makes what it left readable */
		set_step("writer_killed: wait on the dead writer");
		for (int i = 0;; i++) {
			wret = ringbuf_wait(v, RINGBUF_ALL_CPUS, 0, 2000);
			if (wret == -ESRCH)
				break;
			if (wret != 1 || i > 2)
				RBT_FAIL("%s: ringbuf_wait() on a dead writer "
					 "returned %d (try %d)", what, wret, i);
			wk_read_all(v, &r, what);
		}
	}
	ASSERT_NULL(ringbuf_consume_next(v, NULL, NULL, NULL));
	torn = ringbuf_torn_events_cpu(v, 0);
	over = ringbuf_overruns(v);
	*n_torn += torn;
	if (torn > 1)
		RBT_FAIL("%s: %lu torn events (one write was interrupted)",
			 what, torn);

	if (logged == WK_NONE) {
		/* killed before its first commit was logged: seq 0 at most */
		if (r.nread > 1 || (r.nread == 1 && r.last != 0))
			RBT_FAIL("%s: nothing logged, but read %" PRIu64
				 " events up to seq %" PRIu64, what, r.nread,
				 r.last);
	} else {
		if (r.nread == 0)
			RBT_FAIL("%s: the writer logged seq %" PRIu64
				 " committed, nothing was read", what,
				 logged);
		if (r.last < logged || r.last > logged + 1)
			RBT_FAIL("%s: last seq read %" PRIu64 ", the writer "
				 "logged %" PRIu64 " (expected it or one "
				 "more)", what, r.last, logged);
	}
	if (r.nread) {
		/* no gaps: the events read are first..last */
		if (r.last - r.first + 1 != r.nread)
			RBT_FAIL("%s: read %" PRIu64 " events, seq %" PRIu64
				 "..%" PRIu64 ": gaps", what, r.nread,
				 r.first, r.last);
		if (overwrite) {
			if (r.nread + over != r.last + 1)
				RBT_FAIL("%s: read %" PRIu64 " + overruns %lu "
					 "!= last seq %" PRIu64 " + 1 (first "
					 "seq read %" PRIu64 ", lost events "
					 "reported %lu, torn %lu, logged %"
					 PRIu64 ")", what, r.nread, over,
					 r.last, r.first, r.lost_sum, torn,
					 logged);
			if (r.lost_sum != over)
				RBT_FAIL("%s: lost events reported %lu, "
					 "overruns %lu", what, r.lost_sum,
					 over);
		} else {
			if (r.first != 0)
				RBT_FAIL("%s: first seq %" PRIu64 ", expected 0",
					 what, r.first);
			ASSERT_EQ_U(over, 0);
			ASSERT_EQ_U(r.lost_sum, 0);
		}
	}
	ringbuf_free(v);
	/* detaching leaves the file; the reader removes it */
	if (!exists_nofollow(path))
		RBT_FAIL("%s: detaching removed %s", what, path);
	ASSERT_EQ(unlink(path), 0);
	munmap(log, 4096);
}

/*
 * A writing process killed in the middle of a write in which its signal
 * handler wrote and committed an event of its own (only the outermost
 * write moves the commit, so that event is lost with the write). After
 * the reader recovers and drains the buffer, the counters describe an
 * empty buffer and the lost event is counted torn.
 */
static struct ringbuf *g_nested_rb;

static void nested_commit(int sig)
{
	(void)sig;
	if (tu_write(g_nested_rb, 1000, 40))
		_exit(91);
}

static void writer_dies_nested(void)
{
	char name[128], path[4096], c;
	struct ringbuf *v;
	struct ringbuf_event *ev;
	uint32_t next = 0;
	int rp[2], st;
	pid_t pid;

	name_of(name, sizeof(name), "nest");
	shm_path_of(path, sizeof(path), "nest");
	pipe_ok(rp);
	pid = fork_ok();
	if (pid == 0) {
		close(rp[0]);
		signal(SIGUSR1, nested_commit);
		ringbuf_test_set_cpu(0);
		g_nested_rb = create_named(name, 4, 0, 1);
		for (uint32_t i = 0; i < 10; i++)
			tu_write_ok(g_nested_rb, i, 40);
		tu_reserve_ok(g_nested_rb, 10, 40);
		raise(SIGUSR1);
		write_full(rp[1], "x", 1, "writer_dies_nested: ready");
		for (;;)
			pause();
	}
	close(rp[1]);
	read_full(rp[0], &c, 1, 5000, "writer_dies_nested: writer ready");
	close(rp[0]);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	st = wait_child(pid, 10, "writer_dies_nested: killed writer");
	ASSERT_TRUE(WIFSIGNALED(st));

	v = attach_ok(name);
	while ((ev = ringbuf_consume(v, 0, NULL, NULL))) {
		ASSERT_EQ(tu_seq(ringbuf_event_data(ev)), next);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), next,
			 40);
		next++;
	}
	ASSERT_EQ(errno, ENODATA);
	ASSERT_EQ(next, 10);
	ASSERT_TRUE(ringbuf_empty(v));
	ASSERT_EQ_U(ringbuf_entries_cpu(v, 0), 0);
	ASSERT_EQ_U(ringbuf_bytes_cpu(v, 0), 0);
	/* the handler's event: counted as written, lost with the write */
	ASSERT_EQ_U(ringbuf_torn_events_cpu(v, 0), 1);
	ASSERT_EQ_U(ringbuf_read_events_cpu(v, 0) + ringbuf_overrun_cpu(v, 0) +
			    ringbuf_torn_events_cpu(v, 0),
		    11);
	ringbuf_free(v);
	ASSERT_EQ(unlink(path), 0);
}

static void writer_killed(void)
{
	struct rbt_rng rng;
	uint64_t seed = rbt_seed();
	unsigned long torn = 0;
	int full = 0;
	int64_t t0 = now_us();

	arm_alarm(60);
	rbt_rng_init(&rng, seed ^ 0x6b696c6cULL);
	printf("writer_killed: seed %" PRIu64 " (RB_TEST_SEED=%" PRIu64
	       " replays it)\n",
	       seed, seed);
	for (int i = 0; i < WK_ROUNDS; i++) {
		uint64_t delay = rbt_rng_range(&rng, 500, 30000);
		uint64_t wseed = rbt_rng_next(&rng);

		wk_round(i, !(i & 1), (i & 2) != 0, delay, wseed, &full,
			 &torn);
	}
	printf("writer_killed: %d rounds in %" PRId64 " ms; %lu torn "
	       "events; %d p/c rounds filled the buffer before the kill\n",
	       WK_ROUNDS, (now_us() - t0) / 1000, torn, full);
	arm_alarm(0);
}

/* ------------------------------------------------------------------ */
/* Waiting readers                                                     */

/* what a waiting child reports: the wait's result and when it returned */
struct wait_rep {
	int ret;
	int err;
	int64_t t_call; /* us, CLOCK_MONOTONIC (shared by the processes) */
	int64_t t_ret;
	uint64_t consumed;
};

/* ------------------------------------------------------------------ */
/* 2. wait_watermark                                                   */

#define WM_PAGES 16
#define WM_LEN 200

static void wm_reader(const char *name, int ready, int rep)
{
	struct ringbuf *v = attach_ok(name);
	struct wait_rep r;
	char c = 'w';

	/* (a) full = 0 on an empty buffer */
	memset(&r, 0, sizeof(r));
	write_full(ready, &c, 1, "reader: about to wait (full 0)");
	r.t_call = now_us();
	r.ret = ringbuf_wait(v, 0, 0, 5000);
	r.t_ret = now_us();
	r.err = errno;
	while (ringbuf_consume(v, 0, NULL, NULL))
		r.consumed++;
	write_full(rep, &r, sizeof(r), "reader: report (full 0)");

	/* (b) full = 50 */
	memset(&r, 0, sizeof(r));
	write_full(ready, &c, 1, "reader: about to wait (full 50)");
	r.t_call = now_us();
	r.ret = ringbuf_wait(v, 0, 50, 5000);
	r.t_ret = now_us();
	r.err = errno;
	while (ringbuf_consume(v, 0, NULL, NULL))
		r.consumed++;
	write_full(rep, &r, sizeof(r), "reader: report (full 50)");
	ringbuf_free(v);
	exit(0);
}

static void wait_watermark(void)
{
	char name[128], c;
	struct ringbuf *rb;
	struct wait_rep r;
	int ready[2], rep[2];
	int64_t t_w, lat_us;
	uint32_t seq = 0;
	unsigned int n_few = 0;
	pid_t pid;

	arm_alarm(30);
	name_of(name, sizeof(name), "wm");
	rb = create_named(name, WM_PAGES, 0, 1);
	pipe_ok(ready);
	pipe_ok(rep);
	pid = fork_ok();
	if (pid == 0) {
		close(ready[0]);
		close(rep[0]);
		wm_reader(name, ready[1], rep[1]);
	}
	close(ready[1]);
	close(rep[1]);

	/* (a): the reader waits on the empty buffer; the first event wakes
	 * it. 250 ms: half way through the reader's third 100 ms slice, so
	 * a lost wake-up would show as ~50 ms of latency. */
	set_step("wait_watermark: full 0");
	read_full(ready[0], &c, 1, 5000, "reader ready (full 0)");
	rbt_msleep(250);
	ASSERT_FALSE(readable_now(rep[0])); /* still waiting */
	t_w = now_us();
	tu_write_ok(rb, seq++, WM_LEN);
	read_full(rep[0], &r, sizeof(r), 1000, "reader woken (full 0)");
	if (r.ret != 1)
		RBT_FAIL("full 0: ringbuf_wait() returned %d (errno %d), "
			 "expected 1", r.ret, r.err);
	ASSERT_EQ_U(r.consumed, 1);
	lat_us = r.t_ret - t_w;
	printf("wait_watermark: full 0 waited %" PRId64 " ms, woken %" PRId64
	       " us after the write\n",
	       (r.t_ret - r.t_call) / 1000, lat_us);
	if (r.t_ret - r.t_call < 200000)
		RBT_FAIL("full 0: returned after %" PRId64 " us, before the "
			 "write", r.t_ret - r.t_call);
	if (lat_us > 50000 * (int64_t)rbt_timeout_mult())
		RBT_FAIL("full 0: woken %" PRId64 " us after the write: a "
			 "lost wake-up (the 100 ms slice woke it)%s",
			 lat_us,
			 have_global_membarrier() ? "" :
			 " [no MEMBARRIER_CMD_GLOBAL_EXPEDITED here]");

	/* (b): full = 50 on 16 pages: five pages' worth (with the page
	 * being written, at most 7 of 16 pages hold data) must not wake it;
	 * ten must. */
	set_step("wait_watermark: full 50, below");
	read_full(ready[0], &c, 1, 5000, "reader ready (full 50)");
	rbt_msleep(50);
	for (size_t b = 0; b + 2 * tu_record_size(WM_LEN) < 5 * TU_PAGE_DATA;
	     b += tu_record_size(WM_LEN), n_few++)
		tu_write_ok(rb, seq++, WM_LEN);
	rbt_msleep(300);
	if (readable_now(rep[0])) {
		read_full(rep[0], &r, sizeof(r), 1000, "early report");
		RBT_FAIL("full 50: %u events (under 5 of %d pages) woke the "
			 "reader (returned %d)", n_few, WM_PAGES, r.ret);
	}
	set_step("wait_watermark: full 50, above");
	t_w = now_us();
	for (size_t b = 0; b < 5 * TU_PAGE_DATA; b += tu_record_size(WM_LEN))
		tu_write_ok(rb, seq++, WM_LEN);
	read_full(rep[0], &r, sizeof(r), 1000, "reader woken (full 50)");
	if (r.ret != 1)
		RBT_FAIL("full 50: ringbuf_wait() returned %d (errno %d), "
			 "expected 1", r.ret, r.err);
	if (r.t_ret < t_w)
		RBT_FAIL("full 50: returned %" PRId64 " us before the pages "
			 "were filled", t_w - r.t_ret);
	/* the reader consumed after waking: everything written (the writes
	 * finish within microseconds of the wake) */
	ASSERT_LE_U(r.consumed, seq - 1);
	printf("wait_watermark: full 50 woken %" PRId64 " us after the "
	       "half-filling writes began (%u events below the mark)\n",
	       r.t_ret - t_w, n_few);
	expect_exit0(wait_child(pid, 10, "reader"), "reader");
	ringbuf_free(rb);
	arm_alarm(0);
}

/* ------------------------------------------------------------------ */
/* 3. wait_timeout                                                     */

static void wait_timeout(void)
{
	char name[128];
	struct ringbuf *rb, *v;
	int64_t t0, el;
	int ret;

	arm_alarm(20);
	name_of(name, sizeof(name), "wt");
	rb = create_named(name, 4, 0, 2);
	v = attach_ok(name);
	for (int i = 0; i < 3; i++) {
		struct ringbuf *b = i == 1 ? rb : v;
		int cpu = i == 2 ? 1 : RINGBUF_ALL_CPUS;

		t0 = now_us();
		ret = ringbuf_wait(b, cpu, 0, 300);
		el = now_us() - t0;
		if (ret != 0)
			RBT_FAIL("wait %d on an empty buffer returned %d", i,
				 ret);
		printf("wait_timeout: %s, cpu %d: %" PRId64 " us\n",
		       b == rb ? "creator" : "view", cpu, el);
		ASSERT_GE(el, 299000);
		/* it ends once its time is out, not at some later slice:
		 * the bound is wide enough for a loaded machine */
		ASSERT_LT(el, 300000 + 2000000 * (int64_t)rbt_timeout_mult());
	}
	/* a zero timeout returns without sleeping */
	t0 = now_us();
	ASSERT_EQ(ringbuf_wait(v, 0, 0, 0), 0);
	ASSERT_LT(now_us() - t0, 1000000 * (int64_t)rbt_timeout_mult());
	ringbuf_free(v);
	ringbuf_free(rb);
	arm_alarm(0);
}

/* ------------------------------------------------------------------ */
/* 4. wait_writer_exit                                                 */

enum { WX_EXIT, WX_EXIT_DATA, WX_KILL, WX_KILL_DATA };
#define WX_PRE 50  /* events written before the reader drains */
#define WX_POST 30 /* events written before exiting (the _DATA ways) */

struct wx_log {
	_Atomic int64_t t_exit; /* us, just before the exit/kill */
};

static _Noreturn void wx_writer(const char *name, int how, int ready,
				int go, struct wx_log *log)
{
	struct ringbuf *rb = create_named(name, 8, 0, 1);
	char c = 'r';

	for (uint32_t i = 0; i < WX_PRE; i++)
		tu_write_ok(rb, i, 8 + i);
	write_full(ready, &c, 1, "writer ready");
	read_full(go, &c, 1, 10000, "writer go");
	rbt_msleep(350); /* the reader is waiting by now, mid-slice */
	if (how == WX_EXIT_DATA || how == WX_KILL_DATA)
		for (uint32_t i = 0; i < WX_POST; i++)
			tu_write_ok(rb, WX_PRE + i, 8 + i);
	atomic_store(&log->t_exit, now_us());
	if (how == WX_KILL || how == WX_KILL_DATA)
		raise(SIGKILL);
	_exit(0); /* no ringbuf_free(): the file stays */
}

static void wait_writer_exit(void)
{
	static const char *const hows[] = { "exit", "exit with data",
					    "SIGKILL", "SIGKILL with data" };

	arm_alarm(40);
	for (int how = 0; how < 4; how++) {
		struct wx_log *log = shared_page(4096);
		char sfx[16], name[128], path[4096], c = 'g';
		struct ringbuf *v;
		int ready[2], go[2], ret, st;
		uint64_t n = 0, want;
		int64_t t_ret, lat;
		pid_t pid;

		snprintf(sfx, sizeof(sfx), "wx%d", how);
		name_of(name, sizeof(name), sfx);
		shm_path_of(path, sizeof(path), sfx);
		pipe_ok(ready);
		pipe_ok(go);
		set_step(hows[how]);
		pid = fork_ok();
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			wx_writer(name, how, ready[1], go[0], log);
		}
		close(ready[1]);
		close(go[0]);
		read_full(ready[0], &c, 1, 5000, "writer ready");
		v = attach_ok(name);
		/* drain what it wrote first */
		ASSERT_EQ(ringbuf_wait(v, 0, 0, 1000), 1);
		while (ringbuf_consume(v, 0, NULL, NULL))
			n++;
		ASSERT_EQ_U(n, WX_PRE);
		write_full(go[1], &c, 1, "go");
		ret = ringbuf_wait(v, 0, 0, 5000);
		t_ret = now_us();
		if (how == WX_EXIT_DATA || how == WX_KILL_DATA) {
			if (ret != 1)
				RBT_FAIL("%s: ringbuf_wait() returned %d, "
					 "expected 1 (data left)", hows[how],
					 ret);
			/* the first events may wake us while it still
			 * writes: drain and wait until it is gone */
			for (int i = 0; ret == 1; i++) {
				if (i > WX_POST + 1)
					RBT_FAIL("%s: ringbuf_wait() keeps "
						 "returning 1 with nothing to "
						 "read", hows[how]);
				while (ringbuf_consume(v, 0, NULL, NULL))
					n++;
				ret = ringbuf_wait(v, 0, 0, 5000);
				t_ret = now_us();
			}
		}
		if (ret != -ESRCH)
			RBT_FAIL("%s: ringbuf_wait() returned %d, expected "
				 "-ESRCH (%d)", hows[how], ret, -ESRCH);
		ASSERT_EQ(errno, ESRCH);
		ASSERT_GT(atomic_load(&log->t_exit), 0);
		lat = t_ret - atomic_load(&log->t_exit);
		printf("wait_writer_exit: %s: -ESRCH %" PRId64 " us after the "
		       "exit\n", hows[how], lat);
		if (lat > 500000 * (int64_t)rbt_timeout_mult())
			RBT_FAIL("%s: -ESRCH %" PRId64 " us after the exit",
				 hows[how], lat);
		/* again: at once */
		ASSERT_EQ(ringbuf_wait(v, RINGBUF_ALL_CPUS, 0, 5000), -ESRCH);
		want = WX_PRE + ((how == WX_EXIT_DATA || how == WX_KILL_DATA) ?
					 WX_POST : 0);
		ASSERT_EQ_U(n, want);
		ASSERT_EQ_U(ringbuf_torn_events_cpu(v, 0), 0);
		st = wait_child(pid, 10, "writer");
		if (how == WX_KILL || how == WX_KILL_DATA) {
			if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
				RBT_FAIL("%s: writer status 0x%x", hows[how],
					 st);
		} else {
			expect_exit0(st, "writer");
		}
		ringbuf_free(v);
		ASSERT_EQ(unlink(path), 0);
		close(ready[0]);
		close(go[1]);
		munmap(log, 4096);
	}
	arm_alarm(0);
}

/* ------------------------------------------------------------------ */
/* 5. wait_many                                                        */

#define WMANY_ITERS 2000

/*
 * The reader sleeps in rounds of an hour (ringbuf_test_set_wait_slice()),
 * so a lost wake-up is not rescued by the next round's look: its wait
 * runs out the timeout and returns 0. No time is judged: the latencies
 * are printed for the reader of the log only.
 */
static void wmany_reader(const char *name, int req)
{
	struct ringbuf *v = attach_ok(name);
	int64_t worst = 0;
	int worst_i = -1;
	char c = 'w';

	ringbuf_test_set_wait_slice(3600 * 1000);
	for (int i = 0; i < WMANY_ITERS; i++) {
		/* alternate one cpu buffer and all of them */
		int cpu = (i & 1) ? RINGBUF_ALL_CPUS : 0;
		struct ringbuf_event *ev;
		int64_t t0, dt;
		int ret;

		write_full(req, &c, 1, "reader: about to wait");
		t0 = now_us();
		ret = ringbuf_wait(v, cpu, 0, 5000 * rbt_timeout_mult());
		dt = now_us() - t0;
		if (ret == 0)
			RBT_FAIL("iteration %d: ringbuf_wait(cpu %d) was not "
				 "woken: a lost wake-up%s", i, cpu,
				 have_global_membarrier() ? "" :
				 " [no MEMBARRIER_CMD_GLOBAL_EXPEDITED here]");
		if (ret != 1)
			RBT_FAIL("iteration %d: ringbuf_wait(cpu %d) returned "
				 "%d after %" PRId64 " us", i, cpu, ret, dt);
		if (dt > worst) {
			worst = dt;
			worst_i = i;
		}
		ev = ringbuf_consume(v, 0, NULL, NULL);
		ASSERT_NOT_NULL(ev);
		if (check_event(ev, "wait_many") != (uint32_t)i)
			RBT_FAIL("iteration %d: read seq %u", i,
				 tu_seq(ringbuf_event_data(ev)));
		ASSERT_NULL(ringbuf_consume(v, 0, NULL, NULL));
	}
	printf("wait_many: %d waits, longest %" PRId64 " us (iteration %d)\n",
	       WMANY_ITERS, worst, worst_i);
	ringbuf_free(v);
	exit(0);
}

static void wait_many(void)
{
	char name[128], c;
	struct ringbuf *rb;
	struct rbt_rng rng;
	int req[2];
	pid_t pid;

	arm_alarm(40);
	if (!have_global_membarrier())
		printf("wait_many: no MEMBARRIER_CMD_GLOBAL_EXPEDITED: the "
		       "library polls in 2 ms slices, lost wake-ups cannot "
		       "show\n");
	name_of(name, sizeof(name), "wmany");
	rb = create_named(name, 4, 0, 1);
	pipe_ok(req);
	pid = fork_ok();
	if (pid == 0) {
		close(req[0]);
		wmany_reader(name, req[1]);
	}
	close(req[1]);
	set_step("wait_many: serve requests");
	rbt_rng_init(&rng, rbt_seed());
	for (uint32_t i = 0; i < WMANY_ITERS; i++) {
		uint64_t spin;

		read_full(req[0], &c, 1, 5000, "wait_many: request");
		/* spread the write over the reader's way into its sleep:
		 * at once, or up to 200 us later */
		spin = rbt_rng_range(&rng, 0, 3) ? rbt_rng_range(&rng, 0, 200) :
						   0;
		for (uint64_t t0 = rbt_now_ns();
		     rbt_now_ns() - t0 < spin * 1000;)
			;
		tu_write_ok(rb, i, 8 + (i % 64));
	}
	close(req[0]);
	expect_exit0(wait_child(pid, 20, "wait_many reader"),
		     "wait_many reader");
	ringbuf_free(rb);
	arm_alarm(0);
}

/* ------------------------------------------------------------------ */

static const struct rbt_case cases[] = {
	RBT_CASE(writer_killed),
	RBT_CASE(writer_dies_nested),
	RBT_CASE(wait_watermark),
	RBT_CASE(wait_timeout),
	RBT_CASE(wait_writer_exit),
	RBT_CASE(wait_many),
};

int main(int argc, char **argv)
{
	return shm_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]),
			     shm_clean_all);
}
