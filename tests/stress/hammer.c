/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hammer - a stress test in the spirit of the kernel's ring buffer
 * start-up test: writer threads (more than CPUs) that migrate between
 * CPUs, signal handlers that write nested events at a high rate, random
 * discards and preemption mid-write, and a live consumer mixing
 * consume_next, consume and read_page. Every payload carries its stream,
 * sequence, length and checksum; the consumer verifies each one, the
 * per-(stream, cpu buffer) ordering and the per-cpu time order. At the end
 * the buffer is drained and the counters must conserve exactly.
 *
 *   hammer [--seconds S] [--seed N] [--mode overwrite|pc]
 *          [--model percpu|perthread] [--threads T] [--pages P]
 *          [--discard PERMILLE] [--no-signals] [--no-migrate]
 *   hammer --chaos ...	faults while it runs (chaos.c)
 *   hammer --attach ...	views attached while the head moves (attach.c)
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "chaos.h"
#include "rbdecode.h"
#include "test.h"
#include "tu.h"

#define MAGIC_LIVE 0x4c495645u
#define MAGIC_DISC 0x44495343u
#define MIN_LEN 24u
#define MAX_LEN 320u
#define MAX_THREADS 64

struct payload_hdr {
	uint32_t magic;
	uint16_t stream;
	uint16_t len;
	uint64_t seq;
	uint64_t csum;
};

/* per writer thread; streams 3i (thread), 3i+1 (SIGUSR1), 3i+2 (SIGUSR2) */
struct wstate {
	int id;
	pthread_t tid;
	struct rbt_rng rng;     /* the thread's */
	struct rbt_rng sig_rng; /* its handlers' (they never nest in each
				 * other: each blocks both signals) */
	uint64_t committed[3];
	uint64_t failed[3];
	uint64_t discarded[3];
	uint64_t commit_errors;
	uint64_t migrations;
	uint64_t signals;
};

static struct {
	struct ringbuf *rb;
	bool overwrite;
	int model;
	int nthreads;
	int nr_cpus;
	double seconds;
	unsigned int pages;
	bool signals;
	bool migrate;
	unsigned int discard; /* per mille of the thread's reservations */
	uint64_t seed;
	cpu_set_t allowed;
	int nallowed;
	int allowed_list[CPU_SETSIZE];

	struct wstate ws[MAX_THREADS];
	atomic_bool stop_writers;
	atomic_bool stop_timer;
	atomic_bool writers_done;
	atomic_int ready;

	/* consumer */
	int64_t *last_seq; /* [stream * nr_cpus + cpu], -1 = none yet */
	uint64_t *last_ts; /* [cpu] */
	uint64_t *read_per_stream;
	uint64_t *seqsum_per_stream;
	uint64_t read_total;
	uint64_t lost_reported;
	uint64_t pages_read;
	atomic_ulong errors;
} H;

static _Thread_local struct wstate *t_ws;

static void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void error(const char *fmt, ...)
{
	va_list ap;
	unsigned long n = atomic_fetch_add(&H.errors, 1);

	if (n >= 20)
		return;
	fprintf(stderr, "hammer ERROR: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint8_t fillbyte(unsigned int stream, uint64_t seq, size_t i)
{
	return (uint8_t)(stream * 29u + (unsigned int)seq * 113u +
			 (unsigned int)i * 7u + 3u);
}

static uint64_t payload_csum(const unsigned char *p, size_t len)
{
	/* FNV-1a over everything but the csum field */
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		if (i >= offsetof(struct payload_hdr, csum) &&
		    i < offsetof(struct payload_hdr, csum) + 8)
			continue;
		h = (h ^ p[i]) * 0x100000001b3ULL;
	}
	return h;
}

static void make_payload(unsigned char *p, uint32_t magic, unsigned int stream,
			 uint64_t seq, size_t len)
{
	struct payload_hdr h = { .magic = magic,
				 .stream = (uint16_t)stream,
				 .len = (uint16_t)len,
				 .seq = seq };

	for (size_t i = sizeof(h); i < len; i++)
		p[i] = fillbyte(stream, seq, i);
	memcpy(p, &h, sizeof(h));
	h.csum = payload_csum(p, len);
	memcpy(p + offsetof(struct payload_hdr, csum), &h.csum, 8);
}

/* One write of stream @s (0 thread, 1 SIGUSR1, 2 SIGUSR2) of thread @ws. */
static void write_one(struct wstate *ws, int s, struct rbt_rng *rng)
{
	unsigned int stream = (unsigned int)(ws->id * 3 + s);
	size_t len = (size_t)rbt_rng_range(rng, MIN_LEN, MAX_LEN);
	unsigned int dice = (unsigned int)rbt_rng_range(rng, 0, 999);
	struct ringbuf_event *ev;

	if (dice < 20) { /* ringbuf_write() */
		unsigned char buf[MAX_LEN];

		make_payload(buf, MAGIC_LIVE, stream, ws->committed[s], len);
		if (ringbuf_write(H.rb, len, buf) == 0)
			ws->committed[s]++;
		else
			ws->failed[s]++;
		return;
	}
	ev = ringbuf_lock_reserve(H.rb, len);
	if (!ev) {
		ws->failed[s]++;
		return;
	}
	if (dice < 20 + H.discard) { /* discard: must never be read */
		make_payload(ringbuf_event_data(ev), MAGIC_DISC, stream, 0, len);
			if (s == 0 && dice < 20 + H.discard / 3)
			sched_yield(); /* let handlers land after it */
		ringbuf_discard_commit(H.rb, ev);
		ws->discarded[s]++;
		return;
	}
	make_payload(ringbuf_event_data(ev), MAGIC_LIVE, stream,
		     ws->committed[s], len);
	/* preempted mid-write: the buffer stays claimed, other threads
	 * must go elsewhere */
	if (s == 0 && dice >= 995)
		sched_yield();
	if (ringbuf_unlock_commit(H.rb) == 0)
		ws->committed[s]++;
	else
		ws->commit_errors++;
}

static void sig_handler(int sig)
{
	struct wstate *ws = t_ws;
	int saved = errno;

	if (ws) {
		ws->signals++;
		write_one(ws, sig == SIGUSR1 ? 1 : 2, &ws->sig_rng);
	}
	errno = saved;
}

static void migrate(struct wstate *ws)
{
	cpu_set_t set;
	int cpu;

	if (H.nallowed < 2)
		return;
	cpu = H.allowed_list[rbt_rng_range(&ws->rng, 0,
					   (uint64_t)H.nallowed - 1)];
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == 0)
		ws->migrations++;
}

static void *writer(void *arg)
{
	struct wstate *ws = arg;
	uint64_t next_migrate = 0;

	t_ws = ws;
	atomic_fetch_add(&H.ready, 1);
	while (!atomic_load_explicit(&H.stop_writers, memory_order_relaxed)) {
		for (int i = 0; i < 64; i++)
			write_one(ws, 0, &ws->rng);
		if (H.migrate) {
			uint64_t now = rbt_now_ns();

			if (now >= next_migrate) {
				migrate(ws);
				next_migrate = now + 1000000ULL *
					rbt_rng_range(&ws->rng, 1, 5);
			}
		}
	}
	/* no signal may find t_ws gone: block them before leaving */
	{
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigaddset(&set, SIGUSR2);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	}
	return NULL;
}

static void *timer(void *arg)
{
	struct rbt_rng rng;
	struct timespec ts = { 0, 0 };

	(void)arg;
	rbt_rng_init(&rng, H.seed ^ 0x7133);
	while (!atomic_load(&H.stop_timer)) {
		int t = (int)rbt_rng_range(&rng, 0, (uint64_t)H.nthreads - 1);
		int sig = rbt_rng_range(&rng, 0, 1) ? SIGUSR1 : SIGUSR2;

		pthread_kill(H.ws[t].tid, sig);
		ts.tv_nsec = (long)rbt_rng_range(&rng, 20000, 150000);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* ---- the consumer -------------------------------------------------------- */

static void verify(int cpu, const unsigned char *p, unsigned int evlen,
		   uint64_t ts)
{
	struct payload_hdr h;
	unsigned int nstreams = (unsigned int)H.nthreads * 3;
	int64_t *last;

	H.read_total++;
	if (cpu < 0 || cpu >= H.nr_cpus) {
		error("event from bad cpu %d", cpu);
		return;
	}
	if (ts < H.last_ts[cpu])
		error("cpu %d: time goes backwards: %" PRIu64 " after %" PRIu64,
		      cpu, ts, H.last_ts[cpu]);
	H.last_ts[cpu] = ts;
	if (evlen < sizeof(h)) {
		error("cpu %d: event of %u bytes", cpu, evlen);
		return;
	}
	memcpy(&h, p, sizeof(h));
	if (h.magic == MAGIC_DISC) {
		error("cpu %d: a discarded event was read (stream %u)", cpu,
		      h.stream);
		return;
	}
	if (h.magic != MAGIC_LIVE || h.stream >= nstreams || h.len < MIN_LEN ||
	    h.len > MAX_LEN) {
		error("cpu %d: garbage event: magic %08x stream %u len %u",
		      cpu, h.magic, h.stream, h.len);
		return;
	}
	if (evlen != ((h.len + 3u) & ~3u)) {
		error("cpu %d stream %u seq %" PRIu64 ": event length %u for "
		      "payload %u", cpu, h.stream, h.seq, evlen, h.len);
		return;
	}
	if (payload_csum(p, h.len) != h.csum) {
		error("cpu %d stream %u seq %" PRIu64 ": bad checksum", cpu,
		      h.stream, h.seq);
		return;
	}
	for (size_t i = sizeof(h); i < h.len; i++)
		if (p[i] != fillbyte(h.stream, h.seq, i)) {
			error("cpu %d stream %u seq %" PRIu64 ": byte %zu bad",
			      cpu, h.stream, h.seq, i);
			return;
		}
	last = &H.last_seq[h.stream * (unsigned int)H.nr_cpus + (unsigned int)cpu];
	if ((int64_t)h.seq <= *last)
		error("cpu %d stream %u: seq %" PRIu64 " after %" PRId64
		      " (duplicate or reordered)", cpu, h.stream, h.seq, *last);
	*last = (int64_t)h.seq;
	H.read_per_stream[h.stream]++;
	H.seqsum_per_stream[h.stream] += h.seq;
}

static unsigned int do_consume_next(void)
{
	struct ringbuf_event *ev;
	unsigned long lost;
	unsigned int n = 0;
	uint64_t ts;
	int cpu;

	while (n < 64 && (ev = ringbuf_consume_next(H.rb, &cpu, &ts, &lost))) {
		H.lost_reported += lost;
		verify(cpu, ringbuf_event_data(ev), ringbuf_event_length(ev), ts);
		n++;
	}
	return n;
}

static unsigned int do_consume(int cpu)
{
	struct ringbuf_event *ev;
	unsigned long lost;
	unsigned int n = 0;
	uint64_t ts;

	while (n < 64 && (ev = ringbuf_consume(H.rb, cpu, &ts, &lost))) {
		H.lost_reported += lost;
		verify(cpu, ringbuf_event_data(ev), ringbuf_event_length(ev), ts);
		n++;
	}
	return n;
}

static struct rbd_page g_page;
static unsigned long g_busy; /* read_page said busy (consumer thread only) */

static unsigned int do_read_page(int cpu, void *page, int full)
{
	size_t psz = ringbuf_subbuf_size(H.rb);
	char err[256];
	unsigned int n = 0;
	int ret = ringbuf_read_page(H.rb, page, psz, cpu, full);

	if (ret == -ENODATA)
		return 0;
	/* busy: a writer held the head page's link for longer than the
	 * reader waits (a loaded machine); the documented "try again" */
	if (ret == -EAGAIN) {
		g_busy++;
		return 0;
	}
	if (ret != 0) {
		error("read_page(cpu %d) = %d", cpu, ret);
		return 0;
	}
	H.pages_read++;
	/* the library's readers follow the kernel's: a discarded record's
	 * delta is not added */
	if (rbd_decode(page, psz, false, &g_page, err, sizeof(err))) {
		error("cpu %d: bad page: %s", cpu, err);
		return 0;
	}
	if (g_page.stored)
		H.lost_reported += g_page.missed_count;
	/* a page may hold only discarded records: no data is fine */
	for (unsigned int i = 0; i < g_page.nrec; i++) {
		const struct rbd_rec *r = &g_page.recs[i];

		if (r->kind != RBD_DATA)
			continue;
		verify(cpu, r->payload, r->len, r->ts);
		n++;
	}
	return n;
}

static void *consumer(void *arg)
{
	struct rbt_rng rng;
	void *page = ringbuf_alloc_read_page(H.rb, 0);

	(void)arg;
	if (!page) {
		error("alloc_read_page failed");
		return NULL;
	}
	rbt_rng_init(&rng, H.seed ^ 0xc0c0);
	while (!atomic_load(&H.writers_done)) {
		unsigned int dice = (unsigned int)rbt_rng_range(&rng, 0, 99);
		int cpu = (int)rbt_rng_range(&rng, 0, (uint64_t)H.nr_cpus - 1);
		unsigned int n;

		if (dice < 50)
			n = do_consume_next();
		else if (dice < 75)
			n = do_consume(cpu);
		else
			n = do_read_page(cpu, page, dice >= 90);
		if (!n) {
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
		}
	}
	/* drain: every way, until nothing is left and nothing was busy
	 * (the writers are done: busy cannot last) */
	for (unsigned int idle = 0; idle < 1000;) {
		unsigned long busy = g_busy;
		unsigned int n = do_consume_next();

		for (int cpu = 0; cpu < H.nr_cpus; cpu++) {
			n += do_read_page(cpu, page, 0);
			n += do_consume(cpu);
		}
		if (n)
			idle = 0;
		else if (g_busy == busy)
			break;
		else
			idle++;
	}
	ringbuf_free_read_page(H.rb, 0, page);
	return NULL;
}

/* ---- main ------------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr, "usage: hammer [--seconds S] [--seed N] [--mode "
			"overwrite|pc] [--model percpu|perthread] [--threads T] "
			"[--pages P] [--discard PERMILLE] [--no-signals] "
			"[--no-migrate]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t tt, ct;
	struct sigaction sa;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	setvbuf(stdout, NULL, _IOLBF, 0);
	rbt_set_current("hammer");
#ifdef RINGBUF_TESTHOOKS
	/* the chaos mode needs the test hooks (it accounts for resets) */
	if (argc > 1 && !strcmp(argv[1], "--chaos-reader"))
		return chaos_reader_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "--chaos"))
		return chaos_main(argc, argv);
	/* (it forces the writer's cpu buffer) */
	if (argc > 1 && !strcmp(argv[1], "--attach"))
		return attach_main(argc, argv);
#endif
	H.seconds = 3;
	H.overwrite = true;
	H.model = RINGBUF_PER_CPU;
	H.nthreads = ncpu + 3;
	H.pages = 16;
	H.signals = true;
	H.migrate = true;
	H.discard = 30;
	H.seed = rbt_seed();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--no-signals")) {
			H.signals = false;
			continue;
		}
		if (!strcmp(a, "--no-migrate")) {
			H.migrate = false;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--seconds"))
			H.seconds = atof(v);
		else if (!strcmp(a, "--seed"))
			H.seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--threads"))
			H.nthreads = atoi(v);
		else if (!strcmp(a, "--discard"))
			H.discard = (unsigned int)atoi(v);
		else if (!strcmp(a, "--pages"))
			H.pages = (unsigned int)atoi(v);
		else if (!strcmp(a, "--mode") && !strcmp(v, "overwrite"))
			H.overwrite = true;
		else if (!strcmp(a, "--mode") && !strcmp(v, "pc"))
			H.overwrite = false;
		else if (!strcmp(a, "--model") && !strcmp(v, "percpu"))
			H.model = RINGBUF_PER_CPU;
		else if (!strcmp(a, "--model") && !strcmp(v, "perthread"))
			H.model = RINGBUF_PER_THREAD;
		else
			usage();
	}
	if (H.nthreads < 1 || H.nthreads > MAX_THREADS || H.pages < 2 ||
	    H.seconds <= 0)
		usage();
	rbt_set_seed(H.seed);

	CPU_ZERO(&H.allowed);
	if (sched_getaffinity(0, sizeof(H.allowed), &H.allowed) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &H.allowed))
				H.allowed_list[H.nallowed++] = c;

	{
		RINGBUF_OPTS(o, .size = TU_PAGES(H.pages),
			     .flags = H.overwrite ? RINGBUF_FL_OVERWRITE : 0,
			     .model = H.model);

		H.rb = ringbuf_create(&o);
		if (!H.rb)
			RBT_FAIL("ringbuf_create: %s", strerror(errno));
	}
	H.nr_cpus = ringbuf_nr_cpus(H.rb);
	printf("hammer: seed=%" PRIu64 " mode=%s model=%s threads=%d cpus=%d "
	       "buffers=%d pages=%u seconds=%.1f signals=%d migrate=%d "
	       "discard=%u\n",
	       H.seed, H.overwrite ? "overwrite" : "pc",
	       H.model == RINGBUF_PER_CPU ? "percpu" : "perthread", H.nthreads,
	       ncpu, H.nr_cpus, H.pages, H.seconds, H.signals, H.migrate,
	       H.discard);

	{
		size_t ns = (size_t)H.nthreads * 3;

		H.last_seq = malloc(ns * (size_t)H.nr_cpus * sizeof(*H.last_seq));
		H.last_ts = calloc((size_t)H.nr_cpus, sizeof(*H.last_ts));
		H.read_per_stream = calloc(ns, sizeof(*H.read_per_stream));
		H.seqsum_per_stream = calloc(ns, sizeof(*H.seqsum_per_stream));
		if (!H.last_seq || !H.last_ts || !H.read_per_stream ||
		    !H.seqsum_per_stream)
			RBT_FAIL("out of memory");
		for (size_t i = 0; i < ns * (size_t)H.nr_cpus; i++)
			H.last_seq[i] = -1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	sigaddset(&sa.sa_mask, SIGUSR2);
	if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR2, &sa, NULL))
		RBT_FAIL("sigaction: %s", strerror(errno));

	ASSERT_EQ(pthread_create(&ct, NULL, consumer, NULL), 0);
	for (int i = 0; i < H.nthreads; i++) {
		struct wstate *ws = &H.ws[i];

		ws->id = i;
		rbt_rng_init(&ws->rng, H.seed + 1000u * (unsigned int)i);
		rbt_rng_init(&ws->sig_rng, H.seed + 1000u * (unsigned int)i + 7);
		ASSERT_EQ(pthread_create(&ws->tid, NULL, writer, ws), 0);
	}
	while (atomic_load(&H.ready) < H.nthreads)
		rbt_msleep(1);
	if (H.signals)
		ASSERT_EQ(pthread_create(&tt, NULL, timer, NULL), 0);

	rbt_msleep((unsigned int)(H.seconds * 1000));

	if (H.signals) {
		atomic_store(&H.stop_timer, true);
		pthread_join(tt, NULL);
	}
	atomic_store(&H.stop_writers, true);
	for (int i = 0; i < H.nthreads; i++)
		pthread_join(H.ws[i].tid, NULL);
	atomic_store(&H.writers_done, true);
	pthread_join(ct, NULL);

	/* ---- totals and conservation ---- */
	uint64_t committed = 0, failed = 0, discarded = 0, commit_errors = 0,
		 migrations = 0, signals = 0, nested = 0;
	unsigned long overrun = ringbuf_overruns(H.rb);
	unsigned long dropped = tu_sum(H.rb, ringbuf_dropped_events_cpu);
	unsigned long cover = tu_sum(H.rb, ringbuf_commit_overrun_cpu);
	unsigned long read_ev = tu_sum(H.rb, ringbuf_read_events_cpu);

	for (int i = 0; i < H.nthreads; i++) {
		struct wstate *ws = &H.ws[i];

		for (int s = 0; s < 3; s++) {
			unsigned int stream = (unsigned int)(i * 3 + s);

			committed += ws->committed[s];
			failed += ws->failed[s];
			discarded += ws->discarded[s];
			if (s)
				nested += ws->committed[s];
			if (H.read_per_stream[stream] > ws->committed[s])
				error("stream %u: read %" PRIu64 " of %" PRIu64
				      " committed", stream,
				      H.read_per_stream[stream],
				      ws->committed[s]);
			if (!H.overwrite) {
				uint64_t n = ws->committed[s];

				/* nothing lost: every seq exactly once */
				if (H.read_per_stream[stream] != n ||
				    H.seqsum_per_stream[stream] !=
					    (n ? n * (n - 1) / 2 : 0))
					error("stream %u: read %" PRIu64
					      " events (seq sum %" PRIu64
					      "), committed %" PRIu64,
					      stream, H.read_per_stream[stream],
					      H.seqsum_per_stream[stream], n);
			}
		}
		commit_errors += ws->commit_errors;
		migrations += ws->migrations;
		signals += ws->signals;
	}
	if (commit_errors)
		error("%" PRIu64 " commits failed", commit_errors);
	if (ringbuf_entries(H.rb) != 0)
		error("entries %lu after draining", ringbuf_entries(H.rb));
	if (read_ev != H.read_total)
		error("read_events_cpu sum %lu, consumer read %" PRIu64, read_ev,
		      H.read_total);
	if (H.overwrite) {
		if (H.read_total + overrun != committed)
			error("overwrite: read %" PRIu64 " + overrun %lu != "
			      "committed %" PRIu64, H.read_total, overrun,
			      committed);
	} else {
		if (H.read_total != committed)
			error("pc: read %" PRIu64 " != committed %" PRIu64,
			      H.read_total, committed);
		if (overrun)
			error("pc: overrun %lu", overrun);
	}
	/* A commit overrun is the tail wrapping onto a page whose commit is
	 * still pending: only a writer nested in the one that has it
	 * pending can do that, and without signal handlers nothing nests
	 * (two writers in one cpu buffer at once would, if the claim let
	 * them). */
	if (!H.signals && cover)
		error("commit overrun %lu in a run without nesting", cover);
	if (failed != dropped + cover)
		error("failed reserves %" PRIu64 " != dropped %lu + commit "
		      "overrun %lu", failed, dropped, cover);
	if (H.lost_reported > overrun)
		error("lost events reported %" PRIu64 " > overrun %lu",
		      H.lost_reported, overrun);
#ifdef RINGBUF_TESTHOOKS
	for (int cpu = 0; cpu < H.nr_cpus; cpu++)
		if (ringbuf_test_check_pages(H.rb, cpu))
			error("cpu %d: page list check failed", cpu);
	if (ringbuf_test_warned(H.rb))
		error("RB_WARN_ON fired");
#endif
	printf("hammer: written=%" PRIu64 " (nested %" PRIu64 ") read=%" PRIu64
	       " overrun=%lu lost_reported=%" PRIu64 " failed=%" PRIu64
	       " (dropped %lu, commit_overrun %lu) discarded=%" PRIu64
	       " pages_read=%" PRIu64 " signals=%" PRIu64 " migrations=%" PRIu64
	       " errors=%lu\n",
	       committed, nested, H.read_total, overrun, H.lost_reported, failed,
	       dropped, cover, discarded, H.pages_read, signals, migrations,
	       atomic_load(&H.errors));
	ringbuf_free(H.rb);
	free(H.last_seq);
	free(H.last_ts);
	free(H.read_per_stream);
	free(H.seqsum_per_stream);
	if (atomic_load(&H.errors)) {
		fprintf(stderr, "hammer FAILED: %lu errors (replay with --seed %"
				PRIu64 " or RB_TEST_SEED=%" PRIu64 ")\n",
			atomic_load(&H.errors), H.seed, H.seed);
		return 1;
	}
	printf("hammer: PASS\n");
	return 0;
}
