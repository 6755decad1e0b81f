/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The hammer's chaos mode (hammer --chaos): faults thrown at writers and
 * readers while they run, then exact accounting.
 *
 * Three buffers: A (anonymous; the one swapped, reset and resized), S (A's
 * snapshot partner for ringbuf_swap_cpu()) and B (a named file, read by
 * reader processes as well). Writer threads and their signal handlers
 * write to A and B; a consumer thread reads A, S and B with consume,
 * consume_next and read_page. Meanwhile a chaos thread:
 *  - stops a writer thread for 2 to 5 s (a signal handler that sleeps:
 *    SIGSTOP would stop the whole process), wherever it is, mid-write
 *    included;
 *  - cancels a writer thread between reserve and commit (it reaches a
 *    cancellation point while it fills the payload), then starts a new one;
 *  - swaps a cpu buffer of A with S, resets one of A or S, resizes both;
 * and a reaper thread starts reader processes (hammer --chaos-reader) that
 * consume cpu buffer 0 of B and kills them with SIGKILL at random points;
 * between two of them the creator reads that cpu buffer itself.
 *
 * The run is cut into rounds (--rounds N: N of them, each until the chaos
 * it must see happened, however slow the machine: ch_round_targets[];
 * else rounds of --round seconds for --seconds). At the end of each,
 * everything stops, the buffers are drained, and:
 *  - every (stream, sequence) a writer committed was read exactly once,
 *    with its payload, or is counted lost: read twice, or read without
 *    being committed, is an error;
 *  - unread = overrun (A, S, B, and what each reset found) + what the
 *    resets dropped;
 *  - torn events = the writes cancelled mid-write;
 *  - every cpu buffer reports no entries and no bytes, every buffer is
 *    empty, recording is on and no RB_WARN_ON fired.
 *
 * A reader process notes the event it is about to consume; if it is killed
 * after consuming it, that event is read by nobody else and counts as read.
 * A signal handler does not write inside a write that may be cancelled, so
 * each cancelled write loses only itself (tests/scenario covers a handler's
 * event lost inside one).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chaos.h"
#include "rbdecode.h"
#include "test.h"
#include "tu.h"

#define CH_MAGIC 0x43484153u
#define CH_MAX_INC 64u			/* writer incarnations per round */
#define CH_MAX_STREAMS (2u * CH_MAX_INC)
#define CH_SEQ_CAP (1u << 20)		/* sequences per stream per round */
#define CH_WORDS (CH_SEQ_CAP / 64u)
#define CH_MIN_LEN 16u
#define CH_MAX_LEN 200u
#define CH_MAX_PENDING 4096u

extern char **environ;

enum {
	CH_OP_SWAP = 1, CH_OP_RESET = 2, CH_OP_RESIZE = 4, CH_OP_STALL = 8,
	CH_OP_CANCEL = 16, CH_OP_KILL = 32, CH_OP_SIGNAL = 64,
	CH_OP_ALL = 127,
};
static const char *const ch_op_names[] = { "swap", "reset", "resize",
					    "stall", "cancel", "kill",
					    "signal" };

#if defined(__SANITIZE_THREAD__)
#define CH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CH_TSAN 1
#endif
#endif
#ifndef CH_TSAN
#define CH_TSAN 0
#endif

struct ch_payload {
	uint32_t magic;
	uint16_t stream;
	uint16_t len;
	uint32_t seq;
	uint32_t csum;
};

/* Shared with the reader processes (a memfd they map). */
struct ch_shared {
	_Atomic uint64_t seen[CH_MAX_STREAMS][CH_WORDS];
	_Atomic uint64_t pending;	/* (stream << 32 | seq) + 1, or 0 */
	_Atomic uint64_t child_read;
	_Atomic uint64_t errors;
	_Atomic uint64_t dups;
};

struct ch_writer {
	pthread_t tid;
	unsigned int inc;		/* incarnation: streams 2 inc, 2 inc + 1 */
	struct rbt_rng rng, sig_rng;
	uint32_t next[2];		/* next sequence per stream */
	atomic_bool no_nest;		/* in a write that may be cancelled */
	atomic_bool dying;
	atomic_bool stalled;
	_Atomic unsigned int stall_ms;
	bool died_in_write;		/* cancelled inside a write */
};

static struct {
	/* configuration */
	double seconds, round_secs;
	unsigned int nrounds;		/* --rounds: rounds end on targets */
	unsigned int ops;		/* CH_OP_* the chaos thread may do */
	int nthreads;
	uint64_t seed;
	unsigned int pages;
	bool overwrite, base_overwrite, both_modes;
	int model, base_model;
	const char *self;

	/* this round */
	struct ringbuf *a, *s, *b;
	char bname[128];
	struct ch_shared *sh;
	int shfd;
	uint64_t *written;		/* [CH_MAX_STREAMS][CH_WORDS] */
	struct ch_writer *w[CH_MAX_INC];
	unsigned int nr_inc;
	int live[64];			/* writer slots -> incarnation */
	pthread_mutex_t wlock;
	atomic_bool stop, stop_writers, stop_consumer;
	pid_t child;
	uint64_t pending[CH_MAX_PENDING];
	unsigned int npending;

	uint64_t round_start;		/* ns */
	double pace;			/* writes per ns and writer thread */

	/* what the resets found (the hook runs in the chaos thread) */
	uint64_t reset_unread, reset_overrun, reset_torn;

	/* totals over the run */
	_Atomic uint64_t events, read, stalls, cancels, kills, swaps, resets,
		resizes, nested, busy, errors;
	uint64_t rounds;
} C;

static _Thread_local struct ch_writer *t_w;

static void ch_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void ch_error(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&C.errors, 1) < 20) {
		va_start(ap, fmt);
		fprintf(stderr, "chaos: ERROR: ");
		vfprintf(stderr, fmt, ap);
		fprintf(stderr, "\n");
		va_end(ap);
	}
}

static uint32_t ch_csum(const unsigned char *p, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = sizeof(struct ch_payload); i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static void ch_fill(unsigned char *p, unsigned int stream, uint32_t seq,
		    unsigned int len)
{
	struct ch_payload h = { .magic = CH_MAGIC, .stream = (uint16_t)stream,
				.len = (uint16_t)len, .seq = seq };

	for (unsigned int i = sizeof(h); i < len; i++)
		p[i] = (unsigned char)(seq * 131u + i * 7u + stream);
	h.csum = ch_csum(p, len);
	memcpy(p, &h, sizeof(h));
}

/*
 * Check a payload and mark (stream, seq) read. Also used by the reader
 * processes, on the shared bitmaps. Returns the key (stream << 32 | seq),
 * or UINT64_MAX for a bad payload.
 */
static uint64_t ch_check(struct ch_shared *sh, const unsigned char *p,
			 unsigned int len, bool mark)
{
	struct ch_payload h;
	uint64_t bit, old;

	if (len < sizeof(h)) {
		atomic_fetch_add(&sh->errors, 1);
		return UINT64_MAX;
	}
	memcpy(&h, p, sizeof(h));
	if (h.magic != CH_MAGIC || h.len != len || h.stream >= CH_MAX_STREAMS ||
	    h.seq >= CH_SEQ_CAP || h.csum != ch_csum(p, len)) {
		atomic_fetch_add(&sh->errors, 1);
		fprintf(stderr, "chaos: bad payload: magic %#x stream %u seq %u"
			" len %u/%u\n", h.magic, h.stream, h.seq, h.len, len);
		return UINT64_MAX;
	}
	if (mark) {
		bit = 1ull << (h.seq % 64);
		old = atomic_fetch_or(&sh->seen[h.stream][h.seq / 64], bit);
		if (old & bit) {
			atomic_fetch_add(&sh->dups, 1);
			fprintf(stderr, "chaos: stream %u seq %u read twice\n",
				h.stream, h.seq);
		}
	}
	return (uint64_t)h.stream << 32 | h.seq;
}

/* ---- writers ------------------------------------------------------------ */

static void ch_cancelled(void *arg)
{
	((struct ch_writer *)arg)->died_in_write = true;
}

static void ch_write(struct ch_writer *w, int which, struct rbt_rng *rng,
		     bool may_cancel)
{
	unsigned int stream = 2 * w->inc + (unsigned int)which;
	struct ringbuf *rb = rbt_rng_range(rng, 0, 3) ? C.a : C.b;
	/* a multiple of 4: the length a reader sees is rounded up to it */
	unsigned int len = (unsigned int)rbt_rng_range(rng, CH_MIN_LEN,
						       CH_MAX_LEN) & ~3u;
	uint32_t seq = w->next[which];
	struct ringbuf_event *ev;

	if (seq >= CH_SEQ_CAP)
		return;
	/* taken before the write: a cancelled write's number is never used */
	w->next[which] = seq + 1;
	/* no handler writes inside a write that may be cancelled */
	if (may_cancel)
		atomic_store(&w->no_nest, true);
	ev = ringbuf_lock_reserve(rb, len);
	if (!ev) {
		atomic_store(&w->no_nest, false);
		return;
	}
	ch_fill(ringbuf_event_data(ev), stream, seq, len);
	if (may_cancel) {
		/* a cancellation point in the payload code, as a printf to a
		 * pipe or any blocking call would be */
		pthread_cleanup_push(ch_cancelled, w);
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		pthread_testcancel();
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		pthread_cleanup_pop(0);
	}
	if (ringbuf_unlock_commit(rb) == 0) {
		atomic_fetch_or_explicit(
			(_Atomic uint64_t *)&C.written[stream * CH_WORDS +
						       seq / 64],
			1ull << (seq % 64), memory_order_relaxed);
		atomic_fetch_add_explicit(&C.events, 1, memory_order_relaxed);
	} else {
		ch_error("commit of stream %u seq %u failed", stream, seq);
	}
	atomic_store(&w->no_nest, false);
}

static void ch_sig_write(int sig)
{
	struct ch_writer *w = t_w;
	int saved = errno;

	(void)sig;
	if (w && !atomic_load(&w->no_nest)) {
		ch_write(w, 1, &w->sig_rng, false);
		atomic_fetch_add_explicit(&C.nested, 1, memory_order_relaxed);
	}
	errno = saved;
}

/* The thread stops where it is, for the time the chaos thread chose. */
static void ch_sig_stall(int sig)
{
	struct ch_writer *w = t_w;
	int saved = errno;

	(void)sig;
	if (w) {
		unsigned int ms = atomic_load(&w->stall_ms);
		struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
		int state;

		/* The stop is a preemption, not a place to be cancelled:
		 * nanosleep() is a cancellation point, and a stop that lands
		 * in the writer's cancellable window would be cancelled inside
		 * this handler. Under ThreadSanitizer that unwinds through its
		 * nanosleep interceptor, and it then reported the next owner's
		 * first record against the rolled-back one (no such report
		 * with the cancellation after the handler, and the default
		 * and ASan runs account for every record either way). */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		pthread_setcancelstate(state, NULL);
		atomic_store(&w->stalled, false);
	}
	errno = saved;
}

static void *ch_writer_main(void *arg)
{
	struct ch_writer *w = arg;
	sigset_t set;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	t_w = w;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	while (!atomic_load_explicit(&C.stop_writers, memory_order_relaxed)) {
		/* paced so that a round never runs out of sequence numbers */
		if (w->next[0] >= (rbt_now_ns() - C.round_start) * C.pace) {
			struct timespec ts = { 0, 100000 };

			nanosleep(&ts, NULL);
			continue;
		}
		ch_write(w, 0, &w->rng,
			 atomic_load(&w->dying) ||
				 rbt_rng_range(&w->rng, 0, 15) == 0);
	}
	/* no handler may write once the thread is gone */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	t_w = NULL;
	return NULL;
}

/* Start a writer in slot @slot; false when the round has no incarnation
 * left. Writer lock held. */
static bool ch_spawn(int slot)
{
	struct ch_writer *w;

	if (C.nr_inc >= CH_MAX_INC)
		return false;
	w = calloc(1, sizeof(*w));
	if (!w)
		RBT_FAIL("calloc");
	w->inc = C.nr_inc;
	rbt_rng_init(&w->rng, C.seed ^ (0x9e3779b97f4a7c15ull * (w->inc + 1)));
	rbt_rng_init(&w->sig_rng, C.seed ^ (0xc2b2ae3d27d4eb4full * (w->inc + 1)));
	C.w[C.nr_inc++] = w;
	C.live[slot] = (int)w->inc;
	if (pthread_create(&w->tid, NULL, ch_writer_main, w))
		RBT_FAIL("pthread_create");
	return true;
}

/* ---- the consumer ------------------------------------------------------- */

static struct rbd_page g_page;

static void ch_account(const unsigned char *p, unsigned int len)
{
	if (ch_check(C.sh, p, len, true) != UINT64_MAX)
		atomic_fetch_add_explicit(&C.read, 1, memory_order_relaxed);
}

/* One read from @rb (cpu buffers from @first on). Returns events read,
 * -1 when busy. */
static int ch_read_one(struct ringbuf *rb, int first, int how, int cpu)
{
	struct ringbuf_event *ev;
	int n = ringbuf_nr_cpus(rb);

	if (cpu < first)
		cpu = first;
	if (cpu >= n)
		cpu = n - 1;
	switch (how) {
	case 0:
		if (first) /* B's cpu 0 belongs to the reader processes */
			break;
		ev = ringbuf_consume_next(rb, NULL, NULL, NULL);
		if (!ev)
			return errno == EAGAIN ? -1 : 0;
		ch_account(ringbuf_event_data(ev), ringbuf_event_length(ev));
		return 1;
	case 1: {
		static unsigned char page[1 << 16];
		char err[256];
		int ret;

		if (ringbuf_subbuf_size(rb) > sizeof(page))
			break;
		ret = ringbuf_read_page(rb, page, ringbuf_subbuf_size(rb), cpu, 0);
		if (ret < 0)
			return ret == -EAGAIN ? -1 : 0;
		if (rbd_decode(page, ringbuf_subbuf_size(rb), true, &g_page, err,
			       sizeof(err))) {
			ch_error("read_page: %s", err);
			return 0;
		}
		for (unsigned int i = 0; i < g_page.nrec; i++)
			if (g_page.recs[i].kind == RBD_DATA)
				ch_account(g_page.recs[i].payload,
					   g_page.recs[i].len);
		return (int)g_page.ndata;
	}
	default:
		break;
	}
	ev = ringbuf_consume(rb, cpu, NULL, NULL);
	if (!ev)
		return errno == EAGAIN ? -1 : 0;
	ch_account(ringbuf_event_data(ev), ringbuf_event_length(ev));
	return 1;
}

static void *ch_consumer(void *arg)
{
	struct rbt_rng rng;

	(void)arg;
	rbt_rng_init(&rng, C.seed ^ 0x5555);
	/* until the writers are gone: a writer being cancelled may need
	 * room to reach its next write */
	while (!atomic_load(&C.stop_consumer)) {
		int got = 0, r;

		for (int i = 0; i < 3; i++) {
			struct ringbuf *rb = i == 0 ? C.a : i == 1 ? C.s : C.b;

			r = ch_read_one(rb, rb == C.b, (int)rbt_rng_range(&rng, 0, 2),
					(int)rbt_rng_range(&rng, 0, 63));
			if (r < 0)
				atomic_fetch_add(&C.busy, 1);
			else
				got += r;
		}
		if (!got)
			rbt_msleep(1);
	}
	return NULL;
}

/* ---- reader processes --------------------------------------------------- */

/* hammer --chaos-reader NAME FD: consume cpu buffer 0 of B until killed. */
int chaos_reader_main(int argc, char **argv)
{
	struct ringbuf *v;
	struct ch_shared *sh;
	struct timespec ts = { 0, 200000 };

	if (argc < 4)
		return 2;
	/* killed with the thread that started us, if it goes first */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED,
		  atoi(argv[3]), 0);
	if (sh == MAP_FAILED)
		return 3;
	v = ringbuf_attach(argv[2], 0);
	if (!v) {
		fprintf(stderr, "chaos reader: attach %s: %s\n", argv[2],
			strerror(errno));
		atomic_fetch_add(&sh->errors, 1);
		return 4;
	}
	for (;;) {
		struct ringbuf_event *ev = ringbuf_peek(v, 0, NULL, NULL);
		uint64_t key;

		if (!ev) {
			nanosleep(&ts, NULL);
			continue;
		}
		key = ch_check(sh, ringbuf_event_data(ev),
			       ringbuf_event_length(ev), false);
		if (key == UINT64_MAX)
			return 5;
		/* noted before it is consumed: if we die after, it is ours */
		atomic_store(&sh->pending, key + 1);
		ev = ringbuf_consume(v, 0, NULL, NULL);
		if (!ev || ch_check(sh, ringbuf_event_data(ev),
				    ringbuf_event_length(ev), true) != key) {
			fprintf(stderr, "chaos reader: consume gave another "
				"event than peek\n");
			atomic_fetch_add(&sh->errors, 1);
			return 6;
		}
		atomic_fetch_add(&sh->child_read, 1);
		atomic_store(&sh->pending, 0);
	}
}

static pid_t ch_start_reader(void)
{
	char fdarg[16], *args[5];
	pid_t pid;

	snprintf(fdarg, sizeof(fdarg), "%d", C.shfd);
	args[0] = (char *)C.self;
	args[1] = (char *)"--chaos-reader";
	args[2] = C.bname;
	args[3] = fdarg;
	args[4] = NULL;
	if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ))
		RBT_FAIL("posix_spawn: %s", strerror(errno));
	return pid;
}

/* The page ring of cpu buffer @cpu of @rb as it is now, on stderr: what a
 * reader process that gave up (it could not attach, or found a bad
 * record) left, and what the writers made of it since. */
static void ch_dump_ring(struct ringbuf *rb, int cpu, const char *what)
{
	struct ringbuf_test_state st;
	char line[64 * 16 + 1], *p = line;

	if (ringbuf_test_state(rb, cpu, &st))
		return;
	line[0] = '\0';
	for (unsigned int i = 0; i <= st.nr_pages && i < 64; i++)
		p += snprintf(p, sizeof(line) - (size_t)(p - line), " %u->%u%s",
			      i, st.next[i],
			      st.flags[i] & RINGBUF_TEST_PAGE_UPDATE ? "[U]" :
			      st.flags[i] & RINGBUF_TEST_PAGE_HEAD ? "[H]" :
									  "");
	fprintf(stderr, "chaos: %s, cpu buffer %d now: %u pages, head hint %u, "
		"tail %u, commit %u, reader page %u, overrun %lu; links:%s\n",
		what, cpu, st.nr_pages, st.head_page, st.tail_page,
		st.commit_page, st.reader_page, st.overrun, line);
}

static void ch_stop_reader(void)
{
	int st;
	uint64_t p;

	if (C.child <= 0)
		return;
	kill(C.child, SIGKILL);
	waitpid(C.child, &st, 0);
	if (!WIFSIGNALED(st)) {
		ch_error("reader process ended by itself (status %#x)", st);
		ch_dump_ring(C.b, 0, "B, read by the reader process");
	}
	C.child = 0;
	p = atomic_exchange(&C.sh->pending, 0);
	if (p && C.npending < CH_MAX_PENDING)
		C.pending[C.npending++] = p - 1;
	atomic_fetch_add(&C.kills, 1);
}

static void *ch_reaper(void *arg)
{
	struct rbt_rng rng;

	(void)arg;
	rbt_rng_init(&rng, C.seed ^ 0x7777);
	while (!atomic_load(&C.stop)) {
		if (!(C.ops & CH_OP_KILL)) {
			rbt_msleep(10);
			continue;
		}
		C.child = ch_start_reader();
		rbt_msleep((unsigned int)rbt_rng_range(&rng, 1, 60));
		ch_stop_reader();
		/*
		 * The creator reads that cpu buffer too, after the dead one.
		 * Not under ThreadSanitizer: the reader processes' lock and
		 * swaps order our reads before the writers' next lap on those
		 * pages, and TSan cannot see another process's side.
		 */
		if (!CH_TSAN)
			for (int i = (int)rbt_rng_range(&rng, 0, 50); i > 0; i--)
				if (ch_read_one(C.b, 0, 2, 0) <= 0)
					break;
	}
	return NULL;
}

/* ---- the chaos thread ----------------------------------------------------- */

static void ch_hook(struct ringbuf *rb, int cpu, enum ringbuf_testpoint tp,
		    void *arg)
{
	struct ringbuf_test_state st;

	(void)arg;
	if (tp != RINGBUF_TP_RESET_CPU || ringbuf_test_state(rb, cpu, &st))
		return;
	C.reset_unread += st.unread;
	C.reset_overrun += st.overrun;
	C.reset_torn += st.torn;
}

static void ch_stall(struct rbt_rng *rng)
{
	int slot = (int)rbt_rng_range(rng, 0, (uint64_t)C.nthreads - 1);
	struct ch_writer *w;

	pthread_mutex_lock(&C.wlock);
	w = C.w[C.live[slot]];
	if (!atomic_load(&w->dying) && !atomic_exchange(&w->stalled, true)) {
		atomic_store(&w->stall_ms,
			     (unsigned int)rbt_rng_range(rng, 2000, 5000));
		pthread_kill(w->tid, SIGUSR2);
		atomic_fetch_add(&C.stalls, 1);
	}
	pthread_mutex_unlock(&C.wlock);
}

static void ch_cancel(struct rbt_rng *rng)
{
	int slot = (int)rbt_rng_range(rng, 0, (uint64_t)C.nthreads - 1);
	struct ch_writer *w;

	pthread_mutex_lock(&C.wlock);
	if (C.nr_inc >= CH_MAX_INC) {
		pthread_mutex_unlock(&C.wlock);
		return;
	}
	w = C.w[C.live[slot]];
	atomic_store(&w->dying, true);
	pthread_cancel(w->tid);
	pthread_mutex_unlock(&C.wlock);
	/* it dies at its next write that may be cancelled */
	pthread_join(w->tid, NULL);
	if (!w->died_in_write)
		ch_error("writer %u cancelled outside a write", w->inc);
	atomic_fetch_add(&C.cancels, 1);
	pthread_mutex_lock(&C.wlock);
	ch_spawn(slot);
	pthread_mutex_unlock(&C.wlock);
}

static void *ch_chaos(void *arg)
{
	struct rbt_rng rng;
	static const unsigned int sizes[] = { 8, 16, 32 };

	(void)arg;
	rbt_rng_init(&rng, C.seed ^ 0x3333);
	while (!atomic_load(&C.stop)) {
		int cpu = (int)rbt_rng_range(&rng, 0,
					     (uint64_t)ringbuf_nr_cpus(C.a) - 1);

		rbt_msleep((unsigned int)rbt_rng_range(&rng, 5, 40));
		static const unsigned int op_of[10] = {
			CH_OP_SWAP, CH_OP_SWAP, CH_OP_SWAP, CH_OP_RESET,
			CH_OP_RESET, CH_OP_RESIZE, CH_OP_STALL, CH_OP_STALL,
			CH_OP_CANCEL, CH_OP_CANCEL,
		};
		unsigned int pick = (unsigned int)rbt_rng_range(&rng, 0, 9);

		if (!(C.ops & op_of[pick]))
			continue;
		switch (pick) {
		case 0:
		case 1:
		case 2:
			if (ringbuf_swap_cpu(C.a, C.s, cpu) == 0)
				atomic_fetch_add(&C.swaps, 1);
			break;
		case 3:
		case 4:
			ringbuf_reset_cpu(rbt_rng_range(&rng, 0, 1) ? C.a : C.s,
					  cpu);
			atomic_fetch_add(&C.resets, 1);
			break;
		case 5: {
			size_t sz = TU_PAGES(sizes[rbt_rng_range(&rng, 0, 2)]);

			if (ringbuf_resize(C.a, sz, RINGBUF_ALL_CPUS) == 0 &&
			    ringbuf_resize(C.s, sz, RINGBUF_ALL_CPUS) == 0)
				atomic_fetch_add(&C.resizes, 1);
			break;
		}
		case 6:
		case 7:
			ch_stall(&rng);
			break;
		default:
			ch_cancel(&rng);
			break;
		}
	}
	return NULL;
}

static void *ch_signaller(void *arg)
{
	struct rbt_rng rng;
	struct timespec ts = { 0, 150000 };

	(void)arg;
	rbt_rng_init(&rng, C.seed ^ 0x1111);
	while (!atomic_load(&C.stop)) {
		int slot = (int)rbt_rng_range(&rng, 0, (uint64_t)C.nthreads - 1);
		struct ch_writer *w;

		pthread_mutex_lock(&C.wlock);
		w = C.w[C.live[slot]];
		if (!atomic_load(&w->dying) && (C.ops & CH_OP_SIGNAL))
			pthread_kill(w->tid, SIGUSR1);
		pthread_mutex_unlock(&C.wlock);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* ---- a round ------------------------------------------------------------ */

/*
 * What a round of --rounds must have seen before it ends (a fifth to a
 * tenth of what five seconds of an idle machine see): each fault at least
 * this many times, the ops not given to --ops excepted. A slow machine
 * takes longer, not less; CH_ROUND_GUARD_S (stretched by RB_TIMEOUT_MULT)
 * bounds the wait against a hang, the error saying what was missing.
 */
#define CH_ROUND_GUARD_S 120
static const struct {
	unsigned int op;
	const char *what;
	uint64_t min;
} ch_round_targets[] = {
	{ CH_OP_SWAP, "swaps", 4 },	  { CH_OP_RESET, "resets", 2 },
	{ CH_OP_RESIZE, "resizes", 1 },	  { CH_OP_STALL, "stalls", 2 },
	{ CH_OP_CANCEL, "cancels", 2 },	  { CH_OP_KILL, "reader kills", 20 },
	{ CH_OP_SIGNAL, "signal handler writes", 20 },
};
#define CH_NR_TARGETS (sizeof(ch_round_targets) / sizeof(ch_round_targets[0]))

/* The round's count of each target's fault so far. */
static void ch_counts(uint64_t n[CH_NR_TARGETS])
{
	n[0] = atomic_load(&C.swaps);
	n[1] = atomic_load(&C.resets);
	n[2] = atomic_load(&C.resizes);
	n[3] = atomic_load(&C.stalls);
	n[4] = atomic_load(&C.cancels);
	n[5] = atomic_load(&C.kills);
	n[6] = atomic_load(&C.nested);
}

/* Whether every target was met since @start (the counts at the round's
 * start); @say: report the missing ones as an error. */
static bool ch_round_done(const uint64_t start[CH_NR_TARGETS], bool say)
{
	uint64_t n[CH_NR_TARGETS];
	bool done = true;

	ch_counts(n);
	for (unsigned int i = 0; i < CH_NR_TARGETS; i++) {
		if (!(C.ops & ch_round_targets[i].op) ||
		    n[i] - start[i] >= ch_round_targets[i].min)
			continue;
		done = false;
		if (say)
			ch_error("round %" PRIu64 ": %" PRIu64 " %s in %u s, "
				 "not %" PRIu64, C.rounds, n[i] - start[i],
				 ch_round_targets[i].what,
				 CH_ROUND_GUARD_S * rbt_timeout_mult(),
				 ch_round_targets[i].min);
	}
	return done;
}

static struct ringbuf *ch_create(const char *path)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(C.pages),
		     .flags = C.overwrite ? RINGBUF_FL_OVERWRITE : 0,
		     .model = C.model,
		     .nr_cpus = C.model == RINGBUF_PER_THREAD ? C.nthreads + 1 : 2,
		     .path = path);
	struct ringbuf *rb = ringbuf_create(&o);

	if (!rb)
		RBT_FAIL("ringbuf_create: %s", strerror(errno));
	return rb;
}

static void ch_drain(struct ringbuf *rb)
{
	for (int tries = 0; tries < 100000; tries++) {
		int any = 0, busy = 0;

		for (int c = 0; c < ringbuf_nr_cpus(rb); c++) {
			int r;

			while ((r = ch_read_one(rb, 0, 2, c)) > 0)
				any += r;
			busy |= r < 0;
		}
		if (!any && !busy)
			return;
		if (!any)
			rbt_msleep(1);
	}
	ch_error("the drain did not end");
}

static unsigned long ch_sum(unsigned long (*fn)(struct ringbuf *, int))
{
	struct ringbuf *bufs[3] = { C.a, C.s, C.b };
	unsigned long n = 0;

	for (int i = 0; i < 3; i++)
		for (int c = 0; c < ringbuf_nr_cpus(bufs[i]); c++)
			n += fn(bufs[i], c);
	return n;
}

static void ch_round(void)
{
	pthread_t chaos, reaper, consumer, signaller;
	struct ringbuf *bufs[3];
	uint64_t unseen = 0, alien = 0, dead_read = 0, overrun, torn;
	unsigned int died = 0;
	uint64_t t_end, start[CH_NR_TARGETS];
	int sizes_ok = 1;

	/* the models take turns, round by round, the modes every other
	 * round: in four rounds, each pair */
	C.overwrite = C.base_overwrite ^
		      (C.both_modes && ((C.rounds ^ (C.rounds >> 1)) & 1));
	C.model = C.rounds & 1 ?
			  (C.base_model == RINGBUF_PER_CPU ? RINGBUF_PER_THREAD :
							     RINGBUF_PER_CPU) :
			  C.base_model;
	snprintf(C.bname, sizeof(C.bname), "rbchaos-%d-%" PRIu64, (int)getpid(),
		 C.rounds);
	C.a = ch_create(NULL);
	C.s = ch_create(NULL);
	C.b = ch_create(C.bname);
	C.shfd = memfd_create("rbchaos", 0);
	if (C.shfd < 0 || ftruncate(C.shfd, sizeof(struct ch_shared)))
		RBT_FAIL("memfd: %s", strerror(errno));
	C.sh = mmap(NULL, sizeof(struct ch_shared), PROT_READ | PROT_WRITE,
		    MAP_SHARED, C.shfd, 0);
	C.written = calloc((size_t)CH_MAX_STREAMS * CH_WORDS, sizeof(uint64_t));
	if (C.sh == MAP_FAILED || !C.written)
		RBT_FAIL("round memory");
	C.reset_unread = C.reset_overrun = C.reset_torn = 0;
	C.npending = 0;
	C.nr_inc = 0;
	atomic_store(&C.stop, false);
	atomic_store(&C.stop_writers, false);
	atomic_store(&C.stop_consumer, false);
	C.round_start = rbt_now_ns();
	C.pace = 0.7 * CH_SEQ_CAP / (C.round_secs * 1e9 + 20e9);
	ch_counts(start);

	pthread_mutex_lock(&C.wlock);
	for (int i = 0; i < C.nthreads; i++)
		ch_spawn(i);
	pthread_mutex_unlock(&C.wlock);
	pthread_create(&consumer, NULL, ch_consumer, NULL);
	pthread_create(&signaller, NULL, ch_signaller, NULL);
	pthread_create(&chaos, NULL, ch_chaos, NULL);
	pthread_create(&reaper, NULL, ch_reaper, NULL);

	if (C.nrounds) {
		/* until the round's chaos happened (a look every 50 ms) */
		t_end = rbt_now_ns() + (uint64_t)CH_ROUND_GUARD_S *
					       rbt_timeout_mult() * 1000000000ull;
		while (!ch_round_done(start, false)) {
			if (rbt_now_ns() >= t_end) {
				ch_round_done(start, true);
				break;
			}
			rbt_msleep(50); /* the poll interval */
		}
	} else {
		/* --seconds (the soak run): rounds of --round seconds of
		 * chaos, a look at the time every 50 ms */
		t_end = rbt_now_ns() + (uint64_t)(C.round_secs * 1e9);
		while (rbt_now_ns() < t_end)
			rbt_msleep(50);
	}

	atomic_store(&C.stop, true);
	pthread_join(chaos, NULL);
	pthread_join(reaper, NULL);
	pthread_join(signaller, NULL);
	atomic_store(&C.stop_writers, true);
	for (int i = 0; i < C.nthreads; i++)
		pthread_join(C.w[C.live[i]]->tid, NULL);
	atomic_store(&C.stop_consumer, true);
	pthread_join(consumer, NULL);

	/* everything stopped: read what is left */
	ch_drain(C.a);
	ch_drain(C.s);
	ch_drain(C.b);

	/* events a killed reader consumed before it died */
	for (unsigned int i = 0; i < C.npending; i++) {
		unsigned int st = (unsigned int)(C.pending[i] >> 32);
		uint32_t seq = (uint32_t)C.pending[i];
		uint64_t bit = 1ull << (seq % 64);

		if (!(atomic_load(&C.sh->seen[st][seq / 64]) & bit) &&
		    (C.written[st * CH_WORDS + seq / 64] & bit)) {
			atomic_fetch_or(&C.sh->seen[st][seq / 64], bit);
			dead_read++;
		}
	}
	for (unsigned int st = 0; st < 2 * C.nr_inc; st++) {
		for (unsigned int wd = 0; wd < CH_WORDS; wd++) {
			uint64_t wr = C.written[st * CH_WORDS + wd];
			uint64_t rd = atomic_load(&C.sh->seen[st][wd]);

			unseen += (uint64_t)__builtin_popcountll(wr & ~rd);
			alien += (uint64_t)__builtin_popcountll(rd & ~wr);
		}
	}
	for (unsigned int i = 0; i < C.nr_inc; i++)
		died += C.w[i]->died_in_write;

	overrun = ch_sum(ringbuf_overrun_cpu) + C.reset_overrun;
	torn = ch_sum(ringbuf_torn_events_cpu) + C.reset_torn;
	if (alien)
		ch_error("%" PRIu64 " events read that no writer committed", alien);
	if (atomic_load(&C.sh->dups))
		ch_error("%" PRIu64 " events read twice",
			 (uint64_t)atomic_load(&C.sh->dups));
	if (atomic_load(&C.sh->errors))
		ch_error("%" PRIu64 " bad payloads or reader errors",
			 (uint64_t)atomic_load(&C.sh->errors));
	if (unseen != overrun + C.reset_unread)
		ch_error("%" PRIu64 " committed events never read, but overrun"
			 " %" PRIu64 " + dropped by resets %" PRIu64 " (mode %s)",
			 unseen, overrun, C.reset_unread,
			 C.overwrite ? "overwrite" : "producer/consumer");
	if (torn != died)
		ch_error("torn events %" PRIu64 ", writes cancelled %u", torn,
			 died);
	bufs[0] = C.a;
	bufs[1] = C.s;
	bufs[2] = C.b;
	for (int i = 0; i < 3; i++) {
		for (int c = 0; c < ringbuf_nr_cpus(bufs[i]); c++)
			if (ringbuf_entries_cpu(bufs[i], c) ||
			    ringbuf_bytes_cpu(bufs[i], c)) {
				struct ringbuf_test_state st;

				ch_error("buffer %d cpu %d after the drain: "
					 "entries %lu bytes %lu", i, c,
					 ringbuf_entries_cpu(bufs[i], c),
					 ringbuf_bytes_cpu(bufs[i], c));
				sizes_ok = 0;
				if (!ringbuf_test_state(bufs[i], c, &st)) {
					fprintf(stderr, "chaos: head %u tail %u "
						"commit %u reader %u\n",
						st.head_page, st.tail_page,
						st.commit_page, st.reader_page);
					for (unsigned int p = 0;
					     p <= st.nr_pages && p < 64; p++)
						fprintf(stderr, "chaos:  page %u"
							" next %u flags %u write"
							" %lu commit %lu\n", p,
							st.next[p], st.flags[p],
							st.page_write[p],
							st.page_commit[p]);
				}
			}
		if (sizes_ok && !ringbuf_empty(bufs[i]))
			ch_error("buffer %d not empty after the drain", i);
		if (!ringbuf_record_is_on(bufs[i]))
			ch_error("buffer %d: recording is off", i);
		if (ringbuf_test_warned(bufs[i]))
			ch_error("buffer %d: RB_WARN_ON fired", i);
	}
	atomic_fetch_add(&C.read, atomic_load(&C.sh->child_read) + dead_read);
	printf("chaos: round %" PRIu64 " (%s, %s): %u writer threads, "
	       "%u cancelled in a write, %u reader kills so far, unseen %"
	       PRIu64 " = overrun %" PRIu64 " + reset %" PRIu64 ", torn %"
	       PRIu64 "\n", C.rounds,
	       C.overwrite ? "overwrite" : "producer/consumer",
	       C.model == RINGBUF_PER_CPU ? "per-CPU" : "per-thread", C.nr_inc,
	       died, (unsigned int)atomic_load(&C.kills), unseen, overrun,
	       C.reset_unread, torn);

	for (unsigned int i = 0; i < C.nr_inc; i++)
		free(C.w[i]);
	ringbuf_free(C.a);
	ringbuf_free(C.s);
	ringbuf_free(C.b);
	munmap(C.sh, sizeof(struct ch_shared));
	close(C.shfd);
	free(C.written);
	C.rounds++;
}

int chaos_main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t set;
	uint64_t t0, secs_done = 0;

	C.self = argv[0];
	C.seconds = 15;
	C.round_secs = 5;
	C.nthreads = 4;
	C.pages = 8;
	C.overwrite = true;
	C.model = RINGBUF_PER_CPU;
	C.ops = CH_OP_ALL;
	C.both_modes = true;
	C.seed = rbt_seed();
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			goto usage;
		i++;
		if (!strcmp(a, "--seconds"))
			C.seconds = atof(v);
		else if (!strcmp(a, "--rounds"))
			C.nrounds = (unsigned int)atoi(v);
		else if (!strcmp(a, "--round"))
			C.round_secs = atof(v);
		else if (!strcmp(a, "--threads"))
			C.nthreads = atoi(v);
		else if (!strcmp(a, "--seed"))
			C.seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--mode")) {
			/* the first round's mode; "only" keeps it */
			C.overwrite = !strncmp(v, "overwrite", 9);
			C.both_modes = !strstr(v, "-only");
		}
		else if (!strcmp(a, "--ops")) {
			C.ops = 0;
			for (unsigned int k = 0; k < 7; k++)
				if (strstr(v, ch_op_names[k]))
					C.ops |= 1u << k;
		} else if (!strcmp(a, "--model"))
			C.model = !strcmp(v, "perthread") ? RINGBUF_PER_THREAD :
							    RINGBUF_PER_CPU;
		else
			goto usage;
	}
	if (C.nthreads < 1 || C.nthreads > 32 || C.seconds <= 0 ||
	    C.round_secs <= 0)
		goto usage;
	C.base_overwrite = C.overwrite;
	C.base_model = C.model;
	rbt_set_seed(C.seed);
	if (C.nrounds)
		printf("chaos: seed %" PRIu64 " (replay with --seed), %d writer "
		       "threads, %u rounds\n", C.seed, C.nthreads, C.nrounds);
	else
		printf("chaos: seed %" PRIu64 " (replay with --seed), %d writer "
		       "threads, %.0f s in rounds of %.0f s\n", C.seed,
		       C.nthreads, C.seconds, C.round_secs);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ch_sig_write;
	sigfillset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = ch_sig_stall;
	sigaction(SIGUSR2, &sa, NULL);
	/* only writer threads take them (they unblock them) */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_mutex_init(&C.wlock, NULL);
	ringbuf_test_set_hook(ch_hook, NULL);

	t0 = rbt_now_ns();
	while (C.nrounds ? C.rounds < C.nrounds :
			   secs_done < (uint64_t)C.seconds) {
		ch_round();
		secs_done = (rbt_now_ns() - t0) / 1000000000ull;
	}
	ringbuf_test_set_hook(NULL, NULL);
	printf("chaos: %" PRIu64 " s, %" PRIu64 " rounds: %" PRIu64
	       " events committed, %" PRIu64 " read (%" PRIu64
	       " from signal handlers), %" PRIu64 " stalls of 2-5 s, %" PRIu64
	       " cancels, %" PRIu64 " reader kills, %" PRIu64 " swaps, %" PRIu64
	       " resets, %" PRIu64 " resizes, %" PRIu64 " busy reads, %" PRIu64
	       " errors\n",
	       secs_done, C.rounds, (uint64_t)atomic_load(&C.events),
	       (uint64_t)atomic_load(&C.read), (uint64_t)atomic_load(&C.nested),
	       (uint64_t)atomic_load(&C.stalls),
	       (uint64_t)atomic_load(&C.cancels),
	       (uint64_t)atomic_load(&C.kills), (uint64_t)atomic_load(&C.swaps),
	       (uint64_t)atomic_load(&C.resets),
	       (uint64_t)atomic_load(&C.resizes),
	       (uint64_t)atomic_load(&C.busy),
	       (uint64_t)atomic_load(&C.errors));
	if (atomic_load(&C.errors))
		RBT_FAIL("chaos: %" PRIu64 " errors (seed %" PRIu64 ")",
			 (uint64_t)atomic_load(&C.errors), C.seed);
	return 0;
usage:
	fprintf(stderr, "usage: hammer --chaos [--rounds N | --seconds S "
			"[--round S]] "
			"[--threads N] [--seed N] "
			"[--mode overwrite|pc|overwrite-only|pc-only] "
			"[--model percpu|perthread] "
			"[--ops swap,reset,resize,stall,cancel,kill,signal]\n");
	return 2;
}
