// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringbuf-bench - throughput of libringbuf, with its alternatives
 * measured side by side in the same run.
 *
 * The shape follows the kernel's ring buffer benchmark: producer threads
 * write fixed-size events for a set time while a consumer thread reads
 * them, then a report of time, entries written and read, overruns,
 * drops, entries per millisecond and nanoseconds per entry. Every case
 * is measured several times; the runs of all cases are interleaved
 * (case A run 1, case B run 1, ..., case A run 2, ...) so that a noisy
 * moment of the machine hits every case alike, and the median is
 * reported with the min and max. Ratios are ours / baseline, both
 * medians of this run.
 *
 * See bench/README.md for how to read the output and
 * Documentation/bench.rst for the method.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>

#include "bench.h"

atomic_bool bench_stop;
int bench_verbose;
unsigned int bench_consumer_sleep_us = 20;
unsigned long long bench_warmup_events = ~0ull;	/* auto */

static cpu_set_t orig_affinity;
static int allowed_cpus[CPU_SETSIZE];
static int nr_allowed;

/* ---------------------------------------------------------------------- */
/* Helpers                                                                 */

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t bench_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000u),
		.tv_nsec = (long)(ns % 1000000000u),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int bench_nr_cpus_allowed(void)
{
	return nr_allowed;
}

int bench_cpu_for(unsigned int idx)
{
	return allowed_cpus[idx % (unsigned int)nr_allowed];
}

int bench_pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return pthread_setaffinity_np(pthread_self(), sizeof(orig_affinity),
					      &orig_affinity);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void bench_fill_payload(unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(0xa5 ^ (i * 7));
}

void bench_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static void init_cpus(void)
{
	int i;

	CPU_ZERO(&orig_affinity);
	if (sched_getaffinity(0, sizeof(orig_affinity), &orig_affinity)) {
		for (i = 0; i < (int)sysconf(_SC_NPROCESSORS_ONLN) && i < CPU_SETSIZE; i++)
			CPU_SET(i, &orig_affinity);
	}
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &orig_affinity))
			allowed_cpus[nr_allowed++] = i;
	if (!nr_allowed)
		allowed_cpus[nr_allowed++] = 0;
}

/* ---------------------------------------------------------------------- */
/* The writer/consumer harness                                             */

static void *team_writer(void *arg)
{
	struct bench_writer *w = arg;
	struct bench_team *t = w->team;
	uint64_t t0, c0;

	if (w->cpu >= 0)
		bench_pin_self(w->cpu);
	bench_fill_payload(w->src, sizeof(w->src));
	if (t->warmup)
		t->warmup(w);
	pthread_barrier_wait(&t->warm);
	pthread_barrier_wait(&t->go);
	t0 = bench_now_ns();
	c0 = bench_thread_cpu_ns();
	t->loop(w);
	w->cpu_ns = bench_thread_cpu_ns() - c0;
	w->wall_ns = bench_now_ns() - t0;
	return NULL;
}

static void *team_consumer(void *arg)
{
	struct bench_team *t = arg;
	uint64_t t0;

	if (t->consumer_cpu >= 0)
		bench_pin_self(t->consumer_cpu);
	pthread_barrier_wait(&t->go);
	t0 = bench_now_ns();
	t->consumer(t);
	t->cons_ns = bench_now_ns() - t0;
	return NULL;
}

/*
 * A thread that does not come back within 30 s of the stop is stuck (a
 * livelock in the code under test): say which case, and abort so that
 * a core dump or a debugger shows where, instead of hanging the run.
 */
static void join_or_die(const struct bench_team *t, pthread_t tid, const char *what)
{
	struct timespec ts;
	int ret;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 30;
	ret = pthread_timedjoin_np(tid, NULL, &ts);
	if (ret == ETIMEDOUT) {
		fprintf(stderr, "ringbuf-bench: case %s: a %s thread did not stop within 30 s"
			" of the end of the run; aborting\n", t->c->id, what);
		abort();
	}
	if (ret)
		pthread_join(tid, NULL);
}

int bench_team_init(struct bench_team *t, const struct bench_case *c,
		    struct bench_result *r)
{
	t->c = c;
	t->nw = c->writers;
	t->w = calloc(c->writers, sizeof(*t->w));
	if (t->w)
		return 0;
	r->skipped = true;
	snprintf(r->why, sizeof(r->why), "out of memory");
	return -1;
}

static int bench_team_run_threads(struct bench_team *t);

int bench_team_run(struct bench_team *t, struct bench_result *r)
{
	if (!bench_team_run_threads(t))
		return 0;
	r->skipped = true;
	snprintf(r->why, sizeof(r->why), "could not run the writers");
	return -1;
}

static int bench_team_run_threads(struct bench_team *t)
{
	const struct bench_case *c = t->c;
	pthread_t cons;
	uint64_t start;
	unsigned int i;

	atomic_store(&bench_stop, false);
	atomic_store(&t->cons_stop, false);
	t->consumer_cpu = -1;
	if (c->pin && t->consumer && (int)t->nw < nr_allowed)
		t->consumer_cpu = bench_cpu_for(t->nw);
	pthread_barrier_init(&t->warm, NULL, t->nw + 1);
	pthread_barrier_init(&t->go, NULL, t->nw + 1 + (t->consumer ? 1 : 0));
	for (i = 0; i < t->nw; i++) {
		struct bench_writer *w = &t->w[i];

		w->idx = i;
		w->c = c;
		w->team = t;
		w->impl = t->impl;
		w->cpu = c->pin ? bench_cpu_for(i) : -1;
		if (pthread_create(&w->tid, NULL, team_writer, w)) {
			/* The barriers cannot be unwound: this is fatal. */
			fprintf(stderr, "ringbuf-bench: pthread_create: %s\n",
				strerror(errno));
			exit(1);
		}
	}
	if (t->consumer && pthread_create(&cons, NULL, team_consumer, t)) {
		fprintf(stderr, "ringbuf-bench: pthread_create: %s\n", strerror(errno));
		exit(1);
	}
	pthread_barrier_wait(&t->warm);
	if (t->between)
		t->between(t);
	pthread_barrier_wait(&t->go);
	start = bench_now_ns();
	bench_sleep_ns((uint64_t)(c->duration * 1e9));
	atomic_store(&bench_stop, true);
	for (i = 0; i < t->nw; i++)
		join_or_die(t, t->w[i].tid, "writer");
	t->secs = (double)(bench_now_ns() - start) / 1e9;
	if (t->consumer) {
		atomic_store_explicit(&t->cons_stop, true, memory_order_release);
		join_or_die(t, cons, "consumer");
	}
	pthread_barrier_destroy(&t->warm);
	pthread_barrier_destroy(&t->go);
	return 0;
}

void bench_team_sum(const struct bench_team *t, struct bench_result *r)
{
	double ns = 0, cpu = 0;
	unsigned int i, n = 0;

	r->secs = t->secs;
	for (i = 0; i < t->nw; i++) {
		const struct bench_writer *w = &t->w[i];
		uint64_t ev = w->attempts + w->nested_ok + w->nested_missed;

		r->attempts += ev;
		r->written += w->written + w->nested_ok;
		r->missed += w->missed + w->nested_missed;
		r->nested += w->nested_ok;
		r->nested_signals += w->nested_ok + w->nested_missed;
		if (ev) {
			ns += (double)w->wall_ns / (double)ev;
			cpu += (double)w->cpu_ns / (double)ev;
			n++;
		}
	}
	r->ns_per_event = n ? ns / n : 0;
	r->cpu_ns_per_event = n ? cpu / n : 0;
}

/* ---------------------------------------------------------------------- */
/* Cases                                                                   */

static const char *const impl_names[IMPL_NR] = {
	[IMPL_RINGBUF] = "ringbuf", [IMPL_DRAIN] = "drain",
	[IMPL_FLOOR] = "floor", [IMPL_MUTEX] = "mutex",
	[IMPL_LTTNG] = "lttng", [IMPL_KERNEL] = "kernel",
};
/* As a skipped case names what could not run. */
static const char *const skip_names[IMPL_NR] = {
	[IMPL_RINGBUF] = "ringbuf", [IMPL_DRAIN] = "ringbuf",
	[IMPL_FLOOR] = "floor", [IMPL_MUTEX] = "mutex ring",
	[IMPL_LTTNG] = "lttng-ust", [IMPL_KERNEL] = "kernel trace_marker_raw",
};
static const char *const cons_names[] = { "none", "event", "page", "merge" };
static const char *const cons_titles[] = {
	"none", "event by event (consume)", "read_page",
	"merged across buffers (consume_next)",
};

struct opts {
	double duration;
	unsigned int runs;
	size_t size;
	bool size_set;			/* -s given */
	const char *suite;
	const char **globs;
	unsigned int nglobs;
	bool list;
	bool json, text;
	/* the custom matrix */
	bool custom;
	unsigned int impls;		/* bit mask of enum bench_impl */
	unsigned int payloads[16], npayloads;
	unsigned int writers[16], nwriters;
	int models[2], nmodels;
	enum bench_clock clocks[2];
	int nclocks;
	enum bench_consumer consumers[4];
	int nconsumers;
	int overwrite;			/* -1 default */
	int pin;			/* -1 default */
	unsigned int signal_hz;
	int nr_buffers;			/* 0: the library's default */
	int spare_buffers;		/* 0: the library's default; -1 none */
	double max_noise;		/* percent of the CPUs others may take */
	double max_slow;		/* percent a timed CPU may run slower */
	unsigned int retries;		/* repeats of a run that was noisier */
	double wait_idle;		/* seconds to wait for a quiet machine */
};

static struct bench_case *cases;
static unsigned int ncases, cases_cap;

static void case_id(struct bench_case *c)
{
	char extra[40] = "";

	if (c->signal_hz)
		snprintf(extra, sizeof(extra), "-sig%u", c->signal_hz);
	if (c->nr_buffers && (c->impl == IMPL_RINGBUF || c->impl == IMPL_DRAIN))
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), "-nb%d",
			 c->nr_buffers);
	if (c->spare_buffers && (c->impl == IMPL_RINGBUF || c->impl == IMPL_DRAIN) &&
	    c->model == RINGBUF_PER_CPU)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), "-sp%d",
			 c->spare_buffers < 0 ? 0 : c->spare_buffers);
	switch (c->impl) {
	case IMPL_RINGBUF:
		snprintf(c->id, sizeof(c->id), "rb-%s-%s-%uB-%uw%s-%s-%s%s",
			 c->model == RINGBUF_PER_CPU ? "pcpu" : "pthr",
			 c->clock == BCLOCK_TSC ? "tsc" : "mono", c->payload,
			 c->writers, c->pin ? "" : "-float", cons_names[c->consumer],
			 c->overwrite ? "ow" : "pc", extra);
		break;
	case IMPL_DRAIN:
		snprintf(c->id, sizeof(c->id), "drain-%s-%s-%uB-%s%s",
			 c->model == RINGBUF_PER_CPU ? "pcpu" : "pthr",
			 c->clock == BCLOCK_TSC ? "tsc" : "mono", c->payload,
			 cons_names[c->consumer], extra);
		break;
	case IMPL_FLOOR:
		snprintf(c->id, sizeof(c->id), "floor-%s-%uB-%uw%s",
			 c->clock == BCLOCK_TSC ? "tsc" : "mono", c->payload,
			 c->writers, c->pin ? "" : "-float");
		break;
	case IMPL_MUTEX:
		snprintf(c->id, sizeof(c->id), "mutex-%s-%uB-%uw%s-%s-%s",
			 c->clock == BCLOCK_TSC ? "tsc" : "mono", c->payload,
			 c->writers, c->pin ? "" : "-float", cons_names[c->consumer],
			 c->overwrite ? "ow" : "pc");
		break;
	case IMPL_LTTNG:
		snprintf(c->id, sizeof(c->id), "lttng-%uB-%uw%s", c->payload,
			 c->writers, c->pin ? "" : "-float");
		break;
	case IMPL_KERNEL:
		snprintf(c->id, sizeof(c->id), "kernel-%uB-%uw%s-%s", c->payload,
			 c->writers, c->pin ? "" : "-float", cons_names[c->consumer]);
		break;
	case IMPL_NR:
		break;
	}
}

static struct bench_case *find_case(const char *id)
{
	unsigned int i;

	for (i = 0; i < ncases; i++)
		if (!strcmp(cases[i].id, id))
			return &cases[i];
	return NULL;
}

static void add_case(const struct opts *o, enum bench_impl impl, int model,
		     enum bench_clock clk, unsigned int payload,
		     unsigned int writers, bool pin, bool overwrite,
		     enum bench_consumer cons, unsigned int signal_hz,
		     const char *note)
{
	struct bench_case c;
	unsigned int i;

	memset(&c, 0, sizeof(c));
	c.impl = impl;
	c.model = model;
	c.clock = clk;
	c.payload = payload;
	c.writers = writers;
	c.pin = pin;
	c.overwrite = overwrite;
	c.consumer = cons;
	c.signal_hz = signal_hz;
	c.duration = o->duration;
	c.size = o->size;
	c.nr_buffers = (impl == IMPL_RINGBUF || impl == IMPL_DRAIN) ? o->nr_buffers : 0;
	c.spare_buffers = (impl == IMPL_RINGBUF || impl == IMPL_DRAIN) ? o->spare_buffers : 0;
	c.note = note;
	/* Fields that do not apply to an implementation do not split it. */
	if (impl == IMPL_FLOOR) {
		c.model = 0;
		c.overwrite = true;
		c.consumer = CONS_NONE;
		c.signal_hz = 0;
	} else if (impl == IMPL_MUTEX) {
		c.model = 0;
		c.signal_hz = 0;
	} else if (impl == IMPL_LTTNG) {
		c.model = 0;
		c.clock = BCLOCK_MONO;
		c.overwrite = false;
		c.consumer = CONS_PAGE;
		c.signal_hz = 0;
	} else if (impl == IMPL_KERNEL) {
		c.model = 0;
		c.signal_hz = 0;
		if (c.consumer != CONS_NONE)
			c.consumer = CONS_PAGE;
	} else if (impl == IMPL_DRAIN) {
		c.writers = 1;
		c.overwrite = false;
		c.signal_hz = 0;
		if (c.consumer == CONS_NONE)
			c.consumer = CONS_PAGE;
	}
	/* A live reader in producer/consumer mode: the cpu buffer holds
	 * about 50 ms of a writer at full speed (16 B records at 20 ns),
	 * what the reader may be kept off its CPU without a loss. */
	if (impl == IMPL_RINGBUF && !c.overwrite && c.consumer != CONS_NONE &&
	    !o->size_set && o->size < BENCH_LIVE_SIZE)
		c.size = BENCH_LIVE_SIZE;
	case_id(&c);
	if (find_case(c.id))
		return;
	if (o->nglobs) {
		bool keep = false;

		for (i = 0; i < o->nglobs; i++)
			if (!fnmatch(o->globs[i], c.id, 0))
				keep = true;
		if (!keep)
			return;
	}
	if (ncases == cases_cap) {
		struct bench_case *n;

		cases_cap = cases_cap ? cases_cap * 2 : 32;
		n = realloc(cases, cases_cap * sizeof(*cases));
		if (!n) {
			perror("realloc");
			exit(1);
		}
		cases = n;
	}
	cases[ncases++] = c;
}

#define PCPU RINGBUF_PER_CPU
#define PTHR RINGBUF_PER_THREAD
#define TSC BCLOCK_TSC
#define MONO BCLOCK_MONO

/*
 * The default suite: what the target lines need, each baseline
 * next to the case it is compared with.
 */
static void suite_default(const struct opts *o)
{
	unsigned int ncpu = (unsigned int)nr_allowed;
	unsigned int two = ncpu >= 2 ? 2 : 1;

	/* 1 writer, 16 B, consumer reading pages: the headline */
	add_case(o, IMPL_FLOOR, 0, TSC, 16, 1, true, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PTHR, TSC, 16, 1, true, true, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 16, 1, true, true, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_FLOOR, 0, MONO, 16, 1, true, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PTHR, MONO, 16, 1, true, true, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, MONO, 16, 1, true, true, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_MUTEX, 0, TSC, 16, 1, true, true, CONS_PAGE, 0,
		 "the hand-written equivalent of the headline cases");
	add_case(o, IMPL_LTTNG, 0, MONO, 16, 1, true, false, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_KERNEL, 0, TSC, 16, 1, true, true, CONS_PAGE, 0, NULL);
	/* producer/consumer mode with a live reader: nothing may be lost */
	add_case(o, IMPL_RINGBUF, PTHR, TSC, 16, 1, true, false, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 16, 1, true, false, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 16, 1, true, false, CONS_EVENT, 0, NULL);
	/* how fast the reader empties a full buffer */
	add_case(o, IMPL_DRAIN, PCPU, TSC, 16, 1, true, false, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_DRAIN, PTHR, TSC, 16, 1, true, false, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_DRAIN, PCPU, TSC, 16, 1, true, false, CONS_EVENT, 0, NULL);
	/* writer scaling: no consumer, 1 then 2 writers on their own CPUs */
	add_case(o, IMPL_FLOOR, 0, TSC, 16, two, true, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PTHR, TSC, 16, 1, true, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PTHR, TSC, 16, two, true, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 16, 1, true, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 16, two, true, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_MUTEX, 0, TSC, 16, 1, true, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_MUTEX, 0, TSC, 16, two, true, true, CONS_NONE, 0, NULL);
	/* oversubscribed: 4 writers per CPU, unpinned */
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 16, 4 * ncpu, false, true, CONS_NONE, 0,
		 "writers preempted mid-write push the others to another buffer");
	add_case(o, IMPL_RINGBUF, PTHR, TSC, 16, 4 * ncpu, false, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_MUTEX, 0, TSC, 16, 4 * ncpu, false, true, CONS_NONE, 0, NULL);
	/* nested writes from a signal handler */
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 16, 1, true, true, CONS_PAGE, 1000,
		 "a timer signal writes one nested event 1000 times a second");
}

/* Payload sweep: every payload size, the baselines next to ours. */
static void suite_payloads(const struct opts *o)
{
	static const unsigned int sizes[] = { 8, 16, 64, 256 };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		unsigned int p = sizes[i];

		add_case(o, IMPL_FLOOR, 0, TSC, p, 1, true, true, CONS_NONE, 0, NULL);
		add_case(o, IMPL_RINGBUF, PTHR, TSC, p, 1, true, true, CONS_PAGE, 0, NULL);
		add_case(o, IMPL_RINGBUF, PCPU, TSC, p, 1, true, true, CONS_PAGE, 0, NULL);
		add_case(o, IMPL_MUTEX, 0, TSC, p, 1, true, true, CONS_PAGE, 0, NULL);
		add_case(o, IMPL_LTTNG, 0, MONO, p, 1, true, false, CONS_PAGE, 0, NULL);
		add_case(o, IMPL_KERNEL, 0, TSC, p, 1, true, true, CONS_PAGE, 0, NULL);
		add_case(o, IMPL_DRAIN, PCPU, TSC, p, 1, true, false, CONS_PAGE, 0, NULL);
	}
}

/*
 * Smoke: every mode once, briefly, with a small buffer so that overwrite,
 * full buffers and page crossings all happen. Checks the accounting only.
 */
static void suite_smoke(const struct opts *o)
{
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 16, 1, true, true, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PTHR, MONO, 16, 1, true, false, CONS_EVENT, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 64, 1, true, true, CONS_MERGE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PTHR, TSC, 256, 1, true, false, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 8, 2, true, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PTHR, TSC, 8, 1, true, true, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, MONO, 120, 1, true, false, CONS_EVENT, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 16, 4, false, true, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_RINGBUF, PTHR, TSC, 16, 4, false, false, CONS_EVENT, 0, NULL);
	add_case(o, IMPL_RINGBUF, PCPU, TSC, 16, 1, true, true, CONS_PAGE, 2000, NULL);
	add_case(o, IMPL_RINGBUF, PTHR, TSC, 16, 2, true, false, CONS_PAGE, 1000, NULL);
	add_case(o, IMPL_DRAIN, PCPU, TSC, 16, 1, true, false, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_DRAIN, PTHR, TSC, 16, 1, true, false, CONS_EVENT, 0, NULL);
	add_case(o, IMPL_FLOOR, 0, TSC, 16, 1, true, true, CONS_NONE, 0, NULL);
	add_case(o, IMPL_MUTEX, 0, TSC, 16, 2, true, true, CONS_PAGE, 0, NULL);
	add_case(o, IMPL_MUTEX, 0, MONO, 16, 1, true, false, CONS_EVENT, 0, NULL);
}

/* The matrix the knobs describe, with the baselines matching each case. */
static void suite_custom(const struct opts *o)
{
	int m, k, cs;
	unsigned int p, w, impl;
	bool ow = o->overwrite < 0 ? true : o->overwrite;

	for (p = 0; p < o->npayloads; p++)
		for (w = 0; w < o->nwriters; w++)
			for (k = 0; k < o->nclocks; k++)
				for (cs = 0; cs < o->nconsumers; cs++)
					for (impl = 0; impl < IMPL_NR; impl++) {
						unsigned int pl = o->payloads[p];
						unsigned int nw = o->writers[w];
						bool pin = o->pin < 0 ? nw <= (unsigned int)nr_allowed
								      : o->pin;

						if (!(o->impls & (1u << impl)))
							continue;
						if (impl != IMPL_RINGBUF && impl != IMPL_DRAIN) {
							add_case(o, impl, 0, o->clocks[k], pl, nw, pin,
								 ow, o->consumers[cs], 0, NULL);
							continue;
						}
						for (m = 0; m < o->nmodels; m++)
							add_case(o, impl, o->models[m], o->clocks[k],
								 pl, nw, pin, ow, o->consumers[cs],
								 o->signal_hz, NULL);
					}
}

/* ---------------------------------------------------------------------- */
/* Running and aggregating                                                 */

struct agg {
	struct bench_result *runs;
	unsigned int n;		/* runs that were not skipped */
	double med, min, max;	/* ns per event */
	double cpu_med;
	const struct bench_result *mid;	/* the median run */
	double noise_max;	/* highest foreign CPU share of a kept run, or -1 */
	unsigned int retries;	/* runs repeated because of noise */
	double slow_max;	/* slowest timed CPU of a kept run (%), or -1 */
	unsigned int slow_retries;	/* runs repeated because a CPU ran slow */
	bool skipped;
	bool consistent;
	char why[256];
	char inconsistency[288];
};

static struct agg *aggs;

static void check(const struct bench_case *c, struct bench_result *r)
{
	char *msg = r->inconsistency;
	size_t len = sizeof(r->inconsistency);

	if (c->impl == IMPL_LTTNG || c->impl == IMPL_FLOOR)
		return;	/* checked where measured */
	r->consistent = true;
	/* libringbuf: after a full drain nothing may be left counted, and
	 * each writer stream's records are read once or counted lost. */
	if (r->drained && r->entries) {
		r->consistent = false;
		snprintf(msg, len, "%llu events still counted after a full drain",
			 (unsigned long long)r->entries);
		return;
	}
	if (r->drained && (r->seq_dup || r->seq_alien ||
			   r->seq_unseen != r->overrun)) {
		r->consistent = false;
		snprintf(msg, len,
			 "per stream: %llu read twice, %llu not written by any writer,"
			 " %llu committed and never read but overrun %llu",
			 (unsigned long long)r->seq_dup,
			 (unsigned long long)r->seq_alien,
			 (unsigned long long)r->seq_unseen,
			 (unsigned long long)r->overrun);
		return;
	}
	if (r->written != r->read + r->overrun + r->entries) {
		r->consistent = false;
		snprintf(msg, len, "written %llu != read %llu + overrun %llu + entries %llu"
			 " (the library counts %llu read)",
			 (unsigned long long)r->written, (unsigned long long)r->read,
			 (unsigned long long)r->overrun, (unsigned long long)r->entries,
			 (unsigned long long)r->lib_read);
		return;
	}
	if (c->impl != IMPL_KERNEL && r->missed != r->dropped + r->commit_overrun) {
		r->consistent = false;
		snprintf(msg, len,
			 "refused writes %llu != dropped %llu + commit_overrun %llu",
			 (unsigned long long)r->missed, (unsigned long long)r->dropped,
			 (unsigned long long)r->commit_overrun);
		return;
	}
	/* Refusals and overwrites at the ends of the stream leave no jump,
	 * hence at most; written = read + overrun + entries is the exact check. */
	if (r->seq_checked && r->seq_missing > r->missed + r->overrun) {
		r->consistent = false;
		snprintf(msg, len,
			 "the writer's counter skipped %llu events in %llu places; refused %llu +"
			 " overrun %llu explain %llu",
			 (unsigned long long)r->seq_missing, (unsigned long long)r->seq_gaps,
			 (unsigned long long)r->missed, (unsigned long long)r->overrun,
			 (unsigned long long)(r->missed + r->overrun));
		return;
	}
	if (r->bad_records) {
		r->consistent = false;
		snprintf(msg, len, "%llu records of the wrong size or a corrupt page",
			 (unsigned long long)r->bad_records);
		return;
	}
	if (r->attempts != r->written + r->missed) {
		r->consistent = false;
		snprintf(msg, len, "attempts %llu != written %llu + refused %llu",
			 (unsigned long long)r->attempts, (unsigned long long)r->written,
			 (unsigned long long)r->missed);
	}
}

static void run_case(const struct bench_case *c, struct bench_result *r)
{
	memset(r, 0, sizeof(*r));
	switch (c->impl) {
	case IMPL_RINGBUF:
		bench_run_ringbuf(c, r);
		break;
	case IMPL_DRAIN:
		bench_run_drain(c, r);
		break;
	case IMPL_FLOOR:
		bench_run_floor(c, r);
		break;
	case IMPL_MUTEX:
		bench_run_mutex(c, r);
		break;
	case IMPL_LTTNG:
		bench_run_lttng(c, r);
		break;
	case IMPL_KERNEL:
		bench_run_kernel(c, r);
		break;
	case IMPL_NR:
		break;
	}
	if (!r->skipped)
		check(c, r);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void aggregate(unsigned int ci, unsigned int runs)
{
	struct agg *a = &aggs[ci];
	double v[256], cpu[256];
	unsigned int i, n = 0;

	a->consistent = true;
	a->noise_max = -1;
	a->slow_max = -1;
	for (i = 0; i < runs; i++) {
		struct bench_result *r = &a->runs[i];

		if (r->skipped) {
			snprintf(a->why, sizeof(a->why), "%s", r->why);
			continue;
		}
		if (!r->consistent && a->consistent) {
			a->consistent = false;
			snprintf(a->inconsistency, sizeof(a->inconsistency),
				 "run %u: %s", i + 1, r->inconsistency);
		}
		a->retries += r->retries;
		if (r->foreign_pct > a->noise_max)
			a->noise_max = r->foreign_pct;
		a->slow_retries += r->slow_retries;
		if (r->slow_pct > a->slow_max)
			a->slow_max = r->slow_pct;
		if (n < 256) {
			v[n] = r->ns_per_event;
			cpu[n] = r->cpu_ns_per_event;
			n++;
		}
	}
	a->n = n;
	if (!n) {
		a->skipped = true;
		return;
	}
	qsort(v, n, sizeof(v[0]), cmp_double);
	qsort(cpu, n, sizeof(cpu[0]), cmp_double);
	a->min = v[0];
	a->max = v[n - 1];
	a->med = (n & 1) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	a->cpu_med = (n & 1) ? cpu[n / 2] : (cpu[n / 2 - 1] + cpu[n / 2]) / 2;
	/* The run whose ns/event is closest to the median gives the counters. */
	{
		double best = -1;

		for (i = 0; i < runs; i++) {
			const struct bench_result *r = &a->runs[i];
			double d;

			if (r->skipped)
				continue;
			d = r->ns_per_event > a->med ? r->ns_per_event - a->med
						     : a->med - r->ns_per_event;
			if (best < 0 || d < best) {
				best = d;
				a->mid = r;
			}
		}
	}
}

/* ---------------------------------------------------------------------- */
/* Reporting                                                               */

static const struct agg *agg_of(const char *id)
{
	const struct bench_case *c = find_case(id);

	if (!c)
		return NULL;
	return &aggs[c - cases];
}

/* Median ns/event of a case by id, or 0 when absent or skipped. */
static double med_of(const char *id)
{
	const struct agg *a = agg_of(id);

	return a && !a->skipped ? a->med : 0;
}

/* Build the id of @c with some fields replaced (for baseline lookups). */
static void id_like(const struct bench_case *c, enum bench_impl impl,
		    enum bench_consumer cons, char *out, size_t len)
{
	struct bench_case b = *c;

	b.impl = impl;
	b.consumer = cons;
	b.signal_hz = 0;
	b.nr_buffers = 0;
	b.spare_buffers = 0;
	if (impl == IMPL_FLOOR) {
		b.model = 0;
		b.overwrite = true;
		b.consumer = CONS_NONE;
	} else if (impl == IMPL_LTTNG) {
		b.clock = BCLOCK_MONO;
		b.overwrite = false;
		b.consumer = CONS_PAGE;
	} else if (impl == IMPL_KERNEL) {
		if (b.consumer != CONS_NONE)
			b.consumer = CONS_PAGE;
	}
	case_id(&b);
	snprintf(out, len, "%s", b.id);
}

static void title(const struct bench_case *c, char *out, size_t len)
{
	char w[64];

	snprintf(w, sizeof(w), "%u writer%s%s", c->writers, c->writers == 1 ? "" : "s",
		 c->pin ? " (pinned)" : " (not pinned)");
	switch (c->impl) {
	case IMPL_RINGBUF:
		snprintf(out, len, "ringbuf %s, %s clock, %u B, %s, consumer: %s, %s%s",
			 c->model == RINGBUF_PER_CPU ? "per-CPU" : "per-thread",
			 c->clock == BCLOCK_TSC ? "TSC" : "CLOCK_MONOTONIC", c->payload, w,
			 cons_titles[c->consumer],
			 c->overwrite ? "overwrite" : "producer/consumer",
			 c->signal_hz ? ", nested signal writes" : "");
		break;
	case IMPL_DRAIN:
		snprintf(out, len,
			 "ringbuf %s, %s clock, %u B: consumer alone draining a full buffer, %s",
			 c->model == RINGBUF_PER_CPU ? "per-CPU" : "per-thread",
			 c->clock == BCLOCK_TSC ? "TSC" : "CLOCK_MONOTONIC", c->payload,
			 cons_titles[c->consumer]);
		break;
	case IMPL_FLOOR:
		snprintf(out, len, "floor: plain stores, %s clock, %u B, %s",
			 c->clock == BCLOCK_TSC ? "TSC" : "CLOCK_MONOTONIC", c->payload, w);
		break;
	case IMPL_MUTEX:
		snprintf(out, len, "mutex ring, %s clock, %u B, %s, consumer: %s, %s",
			 c->clock == BCLOCK_TSC ? "TSC" : "CLOCK_MONOTONIC", c->payload, w,
			 c->consumer == CONS_PAGE ? "a page of records per lock"
						  : cons_titles[c->consumer],
			 c->overwrite ? "overwrite" : "producer/consumer");
		break;
	case IMPL_LTTNG:
		snprintf(out, len,
			 "LTTng-UST tracepoint, %u B, %s, live session (discard mode, lttng-consumerd reading)",
			 c->payload, w);
		break;
	case IMPL_KERNEL:
		snprintf(out, len, "kernel ring buffer via trace_marker_raw, %u B, %s, consumer: %s, %s",
			 c->payload, w,
			 c->consumer == CONS_NONE ? "none" : "trace_pipe_raw pages",
			 c->overwrite ? "overwrite" : "producer/consumer");
		break;
	case IMPL_NR:
		out[0] = '\0';
		break;
	}
}

static void print_ratio(FILE *f, const char *label, double ours, double base,
			bool *first)
{
	if (ours <= 0 || base <= 0)
		return;
	fprintf(f, "%s%s %.2f", *first ? "  Ratio (ours/base): " : ", ", label, ours / base);
	if (ours < base)
		fprintf(f, " (%.1fx faster)", base / ours);
	*first = false;
}

struct ratios {
	double floor, mutex, lttng, kernel;
};

static void ratios_of(const struct bench_case *c, double ours, struct ratios *rt)
{
	char id[64];

	memset(rt, 0, sizeof(*rt));
	if (ours <= 0 || (c->impl != IMPL_RINGBUF && c->impl != IMPL_MUTEX))
		return;
	id_like(c, IMPL_FLOOR, CONS_NONE, id, sizeof(id));
	rt->floor = med_of(id);
	if (c->impl != IMPL_RINGBUF)
		return;
	id_like(c, IMPL_MUTEX, c->consumer == CONS_MERGE ? CONS_PAGE : c->consumer,
		id, sizeof(id));
	rt->mutex = med_of(id);
	id_like(c, IMPL_LTTNG, CONS_PAGE, id, sizeof(id));
	rt->lttng = med_of(id);
	id_like(c, IMPL_KERNEL, c->consumer, id, sizeof(id));
	rt->kernel = med_of(id);
}

static void print_text(FILE *f, const struct bench_case *c, const struct agg *a,
		       unsigned int runs)
{
	const struct bench_result *r = a->mid;
	char t[256];
	struct ratios rt;
	bool first = true;

	title(c, t, sizeof(t));
	fprintf(f, "\n[%s] %s\n", c->id, t);
	if (c->note)
		fprintf(f, "  (%s)\n", c->note);
	if (a->skipped) {
		fprintf(f, "  %s: skipped: %s\n", skip_names[c->impl], a->why);
		return;
	}
	if (c->impl == IMPL_DRAIN) {
		double ev_s = r->ns_per_event > 0 ? 1e9 / r->ns_per_event : 0;

		fprintf(f, "  Time:           %.0f us draining (%s)\n", r->secs * 1e6, r->why);
		fprintf(f, "  Written:        %llu\n", (unsigned long long)r->written);
		fprintf(f, "  Read:           %llu (%s)\n", (unsigned long long)r->read,
			cons_titles[c->consumer]);
		fprintf(f, "  Entries:        %llu (left in the buffer)\n",
			(unsigned long long)r->entries);
		fprintf(f, "  Drain rate:     %.0f entries per ms, %.1f MB/s\n", ev_s / 1000,
			r->consumer_secs > 0 ? (double)r->read_bytes / r->consumer_secs / 1e6 : 0);
		fprintf(f, "  ns per entry:   %.2f median (min %.2f, max %.2f) over %u runs\n",
			a->med, a->min, a->max, a->n);
	} else {
		fprintf(f, "  Time:           %.0f us\n", r->secs * 1e6);
		fprintf(f, "  Written:        %llu", (unsigned long long)r->written);
		if (c->signal_hz)
			fprintf(f, " (%llu nested in signal handlers: %.0f signals/s per writer"
				" of the %u asked)", (unsigned long long)r->nested,
				r->secs > 0 ? (double)r->nested_signals / r->secs / c->writers : 0,
				c->signal_hz);
		fprintf(f, "\n  Missed:         %llu (writes refused)\n",
			(unsigned long long)r->missed);
		if (c->impl == IMPL_FLOOR) {
			fprintf(f, "  Read:           - (no reader)\n");
		} else if (c->impl == IMPL_LTTNG) {
			fprintf(f, "  Recorded:       %llu (%s)\n", (unsigned long long)r->read, r->why);
			fprintf(f, "  Discarded:      %llu (events lost)\n",
				(unsigned long long)r->dropped);
		} else {
			fprintf(f, "  Read:           %llu (%s)\n", (unsigned long long)r->read,
				c->consumer == CONS_NONE ? "no consumer"
				: c->impl == IMPL_MUTEX && c->consumer == CONS_PAGE
				? "a page of records per lock"
				: c->impl == IMPL_KERNEL ? "trace_pipe_raw pages"
				: cons_titles[c->consumer]);
			fprintf(f, "  Overruns:       %llu\n", (unsigned long long)r->overrun);
			fprintf(f, "  Dropped:        %llu", (unsigned long long)r->dropped);
			if (r->commit_overrun)
				fprintf(f, " (+ %llu commit overruns)",
					(unsigned long long)r->commit_overrun);
			fprintf(f, "\n  Entries:        %llu (still in the buffer)\n",
				(unsigned long long)r->entries);
			fprintf(f, "  Total:          %llu = read + overruns + entries\n",
				(unsigned long long)(r->read + r->overrun + r->entries));
		}
		fprintf(f, "  Entries per ms: %.0f (all writers)\n",
			r->secs > 0 ? (double)r->written / (r->secs * 1000) : 0);
		fprintf(f, "  ns per entry:   %.2f median (min %.2f, max %.2f) over %u runs,"
			" per writer; %.2f on-CPU\n", a->med, a->min, a->max, a->n, a->cpu_med);
		if (c->impl != IMPL_FLOOR && c->impl != IMPL_LTTNG && c->consumer != CONS_NONE &&
		    r->consumer_secs > 0) {
			fprintf(f, "  Consumer:       %.1f MB/s",
				(double)r->read_bytes / r->consumer_secs / 1e6);
			if (r->cons_longest_pass_ns)
				fprintf(f, "; longest: pass over the buffers %.2f ms, stretch"
					" without data %.2f ms, nap %.2f ms",
					(double)r->cons_longest_pass_ns / 1e6,
					(double)r->cons_longest_idle_ns / 1e6,
					(double)r->cons_longest_nap_ns / 1e6);
			fputc('\n', f);
		}
		if (c->impl == IMPL_KERNEL)
			fprintf(f, "  Note:           %s\n", r->why);
	}
	if (a->noise_max >= 1 || a->retries)
		fprintf(f, "  Noise:          other programs took up to %.0f%% of the CPUs during a kept run;"
			" %u run%s repeated\n", a->noise_max < 0 ? 0 : a->noise_max, a->retries,
			a->retries == 1 ? "" : "s");
	if (a->slow_max >= 1 || a->slow_retries)
		fprintf(f, "  Slow CPU:       a timed CPU ran up to %.0f%% slower than its best around"
			" a kept run; %u run%s repeated\n", a->slow_max < 0 ? 0 : a->slow_max,
			a->slow_retries, a->slow_retries == 1 ? "" : "s");
	if (c->impl != IMPL_FLOOR) {
		if (a->consistent)
			fprintf(f, "  Check:          consistent%s\n",
				c->impl == IMPL_LTTNG ? " (fired = recorded + discarded)"
				: " (written = read + overruns + entries; refused = dropped"
				  " + commit overruns)");
		else
			fprintf(f, "  Check:          INCONSISTENT: %s\n", a->inconsistency);
		if (r->have_lib_counters && c->impl == IMPL_RINGBUF && r->lib_read != r->read)
			fprintf(f, "  Note:           the library counts %llu read events\n",
				(unsigned long long)r->lib_read);
	}
	ratios_of(c, a->med, &rt);
	print_ratio(f, "floor", a->med, rt.floor, &first);
	print_ratio(f, "mutex", a->med, rt.mutex, &first);
	print_ratio(f, "lttng-ust", a->med, rt.lttng, &first);
	print_ratio(f, "kernel", a->med, rt.kernel, &first);
	if (!first)
		fputc('\n', f);
	(void)runs;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void print_json(FILE *f, const struct bench_case *c, const struct agg *a)
{
	const struct bench_result *r = a->mid;
	struct ratios rt;

	fprintf(f, "{\"bench\":\"ringbuf-bench\",\"case\":\"%s\",\"impl\":\"%s\"", c->id,
		impl_names[c->impl]);
	if (c->impl == IMPL_RINGBUF || c->impl == IMPL_DRAIN)
		fprintf(f, ",\"model\":\"%s\"",
			c->model == RINGBUF_PER_CPU ? "per-cpu" : "per-thread");
	fprintf(f, ",\"clock\":\"%s\",\"payload\":%u,\"writers\":%u,\"pinned\":%s,"
		"\"overwrite\":%s,\"consumer\":\"%s\",\"signal_hz\":%u,\"duration_s\":%.3f,"
		"\"size\":%zu",
		c->clock == BCLOCK_TSC ? "tsc" : "mono", c->payload, c->writers,
		c->pin ? "true" : "false", c->overwrite ? "true" : "false",
		cons_names[c->consumer], c->signal_hz, c->duration, c->size);
	if (a->skipped) {
		fprintf(f, ",\"skipped\":");
		json_str(f, a->why);
		fprintf(f, "}\n");
		return;
	}
	fprintf(f, ",\"runs\":%u,\"ns_per_event\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f},"
		"\"cpu_ns_per_event\":%.3f,\"time_us\":%.0f,\"entries_per_ms\":%.1f,"
		"\"written\":%llu,\"missed\":%llu,\"nested\":%llu,\"read\":%llu,"
		"\"overrun\":%llu,\"dropped\":%llu,\"commit_overrun\":%llu,\"entries\":%llu,"
		"\"consumer_mb_s\":%.1f,\"consumer_longest_idle_ms\":%.3f,"
		"\"consumer_longest_nap_ms\":%.3f,\"noise_pct_max\":%.1f,\"retries\":%u,"
		"\"slow_pct_max\":%.1f,\"slow_retries\":%u,\"consistent\":%s",
		a->n, a->med, a->min, a->max, a->cpu_med, r->secs * 1e6,
		r->secs > 0 ? (double)r->written / (r->secs * 1000) : 0,
		(unsigned long long)r->written, (unsigned long long)r->missed,
		(unsigned long long)r->nested, (unsigned long long)r->read,
		(unsigned long long)r->overrun, (unsigned long long)r->dropped,
		(unsigned long long)r->commit_overrun, (unsigned long long)r->entries,
		r->consumer_secs > 0 ? (double)r->read_bytes / r->consumer_secs / 1e6 : 0,
		(double)r->cons_longest_idle_ns / 1e6, (double)r->cons_longest_nap_ns / 1e6,
		a->noise_max, a->retries, a->slow_max, a->slow_retries,
		a->consistent ? "true" : "false");
	if (!a->consistent) {
		fprintf(f, ",\"inconsistency\":");
		json_str(f, a->inconsistency);
	}
	ratios_of(c, a->med, &rt);
	if (rt.floor > 0 || rt.mutex > 0 || rt.lttng > 0 || rt.kernel > 0) {
		bool first = true;

		fprintf(f, ",\"ratio\":{");
#define RATIO(name, v)                                                        \
		if ((v) > 0) {                                                \
			fprintf(f, "%s\"%s\":%.3f", first ? "" : ",", name,   \
				a->med / (v));                                \
			first = false;                                        \
		}
		RATIO("floor", rt.floor);
		RATIO("mutex", rt.mutex);
		RATIO("lttng", rt.lttng);
		RATIO("kernel", rt.kernel);
#undef RATIO
		fprintf(f, "}");
	}
	fprintf(f, "}\n");
}

/* ---------------------------------------------------------------------- */
/* Targets (the default suite)                                             */

struct target_line {
	const char *name;
	char text[320];
	int status;	/* 1 met, 0 missed, -1 not measured */
	double value;
};

static struct target_line tlines[32];
static unsigned int ntlines;

static void target(const char *name, int status, double value, const char *text)
{
	struct target_line *t;

	if (ntlines >= sizeof(tlines) / sizeof(tlines[0]))
		return;
	t = &tlines[ntlines++];
	t->name = name;
	t->status = status;
	t->value = value;
	snprintf(t->text, sizeof(t->text), "%s", text);
}

static void targets_headline(const char *name, const char *id, const char *floor_id,
			     double max_ns, double max_floor)
{
	double ours = med_of(id), fl = med_of(floor_id), lt = med_of("lttng-16B-1w");
	char buf[320];

	if (ours <= 0 || fl <= 0) {
		target(name, -1, 0, "not measured");
		return;
	}
	snprintf(buf, sizeof(buf), "%.2f ns/event (target <= %.0f), %.2fx the floor (target <= %gx)",
		 ours, max_ns, ours / fl, max_floor);
	target(name, ours <= max_ns && ours / fl <= max_floor, ours / fl, buf);
	if (lt > 0) {
		snprintf(buf, sizeof(buf), "%.1fx faster than LTTng-UST (%.2f ns/event; target >= 6x)",
			 lt / ours, lt);
		target(name, lt / ours >= 6.0, lt / ours, buf);
	} else {
		const struct agg *a = agg_of("lttng-16B-1w");

		snprintf(buf, sizeof(buf), "vs LTTng-UST: not measured%s%s",
			 a && a->skipped ? ": " : "", a && a->skipped ? a->why : "");
		target(name, -1, 0, buf);
	}
}

static void compute_targets(void)
{
	char buf[320];
	unsigned int ncpu = (unsigned int)nr_allowed;
	char id[64];
	const struct agg *a;
	int m;

	if (!find_case("rb-pthr-tsc-16B-1w-page-ow"))
		return;	/* not the default suite */

	targets_headline("16 B, TSC, 1 writer + read_page consumer, per-thread",
			 "rb-pthr-tsc-16B-1w-page-ow", "floor-tsc-16B-1w", 15, 1.35);
	targets_headline("16 B, TSC, 1 writer + read_page consumer, per-CPU",
			 "rb-pcpu-tsc-16B-1w-page-ow", "floor-tsc-16B-1w", 20, 1.4);

	for (m = 0; m < 2; m++) {
		const char *ours_id = m ? "rb-pcpu-mono-16B-1w-page-ow" : "rb-pthr-mono-16B-1w-page-ow";
		double ours = med_of(ours_id), fl = med_of("floor-mono-16B-1w");

		if (ours > 0 && fl > 0) {
			snprintf(buf, sizeof(buf), "%.2f ns/event, %.2fx the floor %.2f ns (target <= 1.5x)",
				 ours, ours / fl, fl);
			target(m ? "CLOCK_MONOTONIC, per-CPU" : "CLOCK_MONOTONIC, per-thread",
			       ours / fl <= 1.5, ours / fl, buf);
		} else {
			target(m ? "CLOCK_MONOTONIC, per-CPU" : "CLOCK_MONOTONIC, per-thread", -1,
			       0, "not measured");
		}
	}

	if (ncpu >= 2) {
		static const char *const model[] = { "pthr", "pcpu" };

		for (m = 0; m < 2; m++) {
			char id1[64], id2[64];
			double one, two;

			snprintf(id1, sizeof(id1), "rb-%s-tsc-16B-1w-none-ow", model[m]);
			snprintf(id2, sizeof(id2), "rb-%s-tsc-16B-2w-none-ow", model[m]);
			one = med_of(id1);
			two = med_of(id2);
			if (one > 0 && two > 0) {
				snprintf(buf, sizeof(buf),
					 "per-writer cost %.2f ns with 2 writers vs %.2f with 1: %.2fx (target <= 1.1x)",
					 two, one, two / one);
				target(m ? "2 writers on 2 CPUs, per-CPU" : "2 writers on 2 CPUs, per-thread",
				       two / one <= 1.1, two / one, buf);
			}
		}
		{
			double one = med_of("mutex-tsc-16B-1w-none-ow");
			double two = med_of("mutex-tsc-16B-2w-none-ow");
			double f1 = med_of("floor-tsc-16B-1w"), f2 = med_of("floor-tsc-16B-2w");

			if (one > 0 && two > 0) {
				snprintf(buf, sizeof(buf),
					 "mutex ring: %.2f ns with 2 writers vs %.2f with 1: %.2fx"
					 " (the floor: %.2fx)", two, one, two / one,
					 f1 > 0 && f2 > 0 ? f2 / f1 : 0.0);
				target("2 writers on 2 CPUs, reference", -1, two / one, buf);
			}
		}
	}

	snprintf(id, sizeof(id), "rb-pcpu-tsc-16B-%uw-float-none-ow", 4 * ncpu);
	a = agg_of(id);
	if (a && !a->skipped) {
		const struct bench_result *r = a->mid;
		double pct = r->attempts ? 100.0 * (double)r->missed / (double)r->attempts : 0;
		bool counted = r->missed == r->dropped + r->commit_overrun;

		snprintf(buf, sizeof(buf),
			 "%u writers on %u CPUs: %llu of %llu writes lost (%.4f%%, target <= 0.01%%), %s",
			 4 * ncpu, ncpu, (unsigned long long)r->missed,
			 (unsigned long long)r->attempts, pct,
			 counted ? "every one counted (dropped + commit overruns)"
				 : "NOT all counted");
		target("oversubscribed per-CPU writers", pct <= 0.01 && counted && a->consistent,
		       pct, buf);
	}

	for (m = 0; m < 2; m++) {
		const char *drain_id = m ? "drain-pcpu-tsc-16B-page" : "drain-pthr-tsc-16B-page";
		const char *prod_id = m ? "rb-pcpu-tsc-16B-1w-page-pc" : "rb-pthr-tsc-16B-1w-page-pc";
		const char *name = m ? "read_page drain vs 1 writer, per-CPU"
				     : "read_page drain vs 1 writer, per-thread";
		double drain = med_of(drain_id), prod = med_of(prod_id);
		const struct agg *pa = agg_of(prod_id);

		if (drain > 0 && prod > 0) {
			snprintf(buf, sizeof(buf),
				 "consumer drains %.1fx the single-writer rate (%.2f vs %.2f ns/event; target >= 3x)",
				 prod / drain, drain, prod);
			target(name, prod / drain >= 3.0, prod / drain, buf);
		}
		if (pa && !pa->skipped) {
			unsigned long long lost = 0;
			unsigned int i;

			uint64_t nap = 0;

			/* every run, not only the median one */
			for (i = 0; i < pa->n; i++) {
				if (pa->runs[i].skipped)
					continue;
				lost += pa->runs[i].missed;
				if (pa->runs[i].missed && pa->runs[i].cons_longest_nap_ns > nap)
					nap = pa->runs[i].cons_longest_nap_ns;
			}
			if (nap)
				snprintf(buf, sizeof(buf),
					 "producer/consumer mode with a live reader at full speed: %llu events lost over %u runs (target 0);"
					 " in a losing run the reader's wait lasted %.1f ms",
					 lost, pa->n, (double)nap / 1e6);
			else
				snprintf(buf, sizeof(buf),
					 "producer/consumer mode with a live reader at full speed: %llu events lost over %u runs (target 0)",
					 lost, pa->n);
			target(m ? "live reader loses nothing, per-CPU" : "live reader loses nothing, per-thread",
			       lost == 0, (double)lost, buf);
		}
	}
}

static void print_targets(FILE *f, bool text, bool json)
{
	unsigned int i;
	static const char *const st[] = { "MISSED", "met", "-" };

	if (!ntlines)
		return;
	if (text) {
		fprintf(f, "\n== Targets (medians of this run; ratios are ours / baseline) ==\n");
		for (i = 0; i < ntlines; i++)
			fprintf(f, "  [%-6s] %s: %s\n",
				st[tlines[i].status < 0 ? 2 : tlines[i].status], tlines[i].name,
				tlines[i].text);
	}
	if (json)
		for (i = 0; i < ntlines; i++) {
			fprintf(f, "{\"bench\":\"ringbuf-bench\",\"target\":");
			json_str(f, tlines[i].name);
			fprintf(f, ",\"status\":\"%s\",\"value\":%.4f,\"text\":",
				tlines[i].status < 0 ? "n/a" : tlines[i].status ? "met" : "missed",
				tlines[i].value);
			json_str(f, tlines[i].text);
			fprintf(f, "}\n");
		}
}

/* ---------------------------------------------------------------------- */
/* Options                                                                 */

static void usage(FILE *f)
{
	fprintf(f,
"usage: ringbuf-bench [options]\n"
"\n"
"Throughput of libringbuf next to its baselines, measured in the same run.\n"
"Without case options it runs the default suite and checks the targets.\n"
"\n"
"Run:\n"
"  -d, --duration SEC     seconds per run (default 0.5)\n"
"  -r, --runs N           runs per case; median, min and max (default 5)\n"
"  -s, --size BYTES       bytes per cpu buffer, K/M suffixes (default 4M;\n"
"                         64M for producer/consumer cases with a reader)\n"
"      --suite NAME       default | payloads | smoke\n"
"      --smoke            the smoke suite, short: checks the accounting only\n"
"  -c, --case GLOB        only the cases whose id matches (repeatable)\n"
"  -l, --list             list the cases and exit\n"
"      --json             JSON lines only (one per case and target)\n"
"      --no-json          text report only\n"
"  -v, --verbose          progress on stderr\n"
"\n"
"Case options (any of them builds a matrix instead of a suite; lists are\n"
"comma-separated):\n"
"      --impl LIST        ringbuf,drain,floor,mutex,lttng,kernel\n"
"                         (default ringbuf,floor,mutex,lttng,kernel)\n"
"  -p, --payload LIST     payload bytes (default 16)\n"
"  -w, --writers LIST     writer threads (default 1)\n"
"  -m, --model LIST       per-cpu,per-thread (default both)\n"
"  -k, --clock LIST       tsc,mono (default tsc)\n"
"  -C, --consumer LIST    none,event,page,merge (default page)\n"
"      --overwrite on|off (default on)\n"
"      --pin on|off       pin writers and consumer to CPUs (default: on\n"
"                         when there are no more writers than CPUs)\n"
"      --signal-hz N      nested writes from a timer signal handler, per\n"
"                         writer per second (ringbuf cases)\n"
"      --nr-buffers N     cpu buffers (per-CPU) or thread slots (per-thread)\n"
"                         of the ring buffers; default: the library's\n"
"      --spare-buffers N  per-CPU model: spare cpu buffers for writers whose\n"
"                         CPU buffer a preempted writer holds (0: none);\n"
"                         default: the library's\n"
"\n"
"Noise:\n"
"      --max-noise PCT    repeat a run during which other programs took more\n"
"                         than PCT %% of the CPUs (default 10)\n"
"      --max-slow PCT     repeat a run around which a CPU whose threads are\n"
"                         timed ran more than PCT %% slower than its best\n"
"                         (another virtual machine on its core; default 5)\n"
"      --retries N        at most N times per run (default 3; 0: never)\n"
"      --wait-idle SEC    first wait up to SEC seconds for the CPUs to be\n"
"                         less than 10 %% busy (default 0)\n"
"\n"
"Tuning:\n"
"      --consumer-sleep-us N  consumer nap when it finds nothing (default 20)\n"
"      --warmup N         events each writer writes before the buffer is\n"
"                         reset and the clock starts (default: one lap)\n"
"      --lttng-user NAME  user the LTTng processes run as when root (nobody)\n"
"      --lttng-helper PATH  the ringbuf-bench-lttng program\n"
"      --tracefs PATH     tracefs mount point (default: from /proc/mounts)\n");
}

static size_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*end == 'k' || *end == 'K')
		v *= 1024;
	else if (*end == 'm' || *end == 'M')
		v *= 1024 * 1024;
	else if (*end == 'g' || *end == 'G')
		v *= 1024.0 * 1024 * 1024;
	return (size_t)v;
}

static void bad(const char *what, const char *val)
{
	fprintf(stderr, "ringbuf-bench: bad %s '%s'\n", what, val);
	exit(2);
}

/* Split @s on commas and call @fn for every item. */
static void each_item(const char *s, void (*fn)(struct opts *, const char *),
		      struct opts *o)
{
	char *copy = strdup(s), *save = NULL, *tok;

	if (!copy)
		exit(1);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		fn(o, tok);
	free(copy);
}

static void add_impl(struct opts *o, const char *v)
{
	unsigned int i;

	for (i = 0; i < IMPL_NR; i++)
		if (!strcmp(v, impl_names[i])) {
			o->impls |= 1u << i;
			return;
		}
	bad("implementation", v);
}

static void add_payload(struct opts *o, const char *v)
{
	unsigned long n = strtoul(v, NULL, 0);

	if (!n || n > BENCH_MAX_PAYLOAD || o->npayloads >= 16)
		bad("payload", v);
	o->payloads[o->npayloads++] = (unsigned int)n;
}

static void add_writers(struct opts *o, const char *v)
{
	unsigned long n = strtoul(v, NULL, 0);

	if (!n || n > BENCH_MAX_WRITERS || o->nwriters >= 16)
		bad("writer count", v);
	o->writers[o->nwriters++] = (unsigned int)n;
}

static void add_model(struct opts *o, const char *v)
{
	if (o->nmodels >= 2)
		bad("model list", v);
	if (!strcmp(v, "per-cpu") || !strcmp(v, "pcpu"))
		o->models[o->nmodels++] = RINGBUF_PER_CPU;
	else if (!strcmp(v, "per-thread") || !strcmp(v, "pthr"))
		o->models[o->nmodels++] = RINGBUF_PER_THREAD;
	else
		bad("model", v);
}

static void add_clock(struct opts *o, const char *v)
{
	if (o->nclocks >= 2)
		bad("clock list", v);
	if (!strcmp(v, "tsc"))
		o->clocks[o->nclocks++] = BCLOCK_TSC;
	else if (!strcmp(v, "mono"))
		o->clocks[o->nclocks++] = BCLOCK_MONO;
	else
		bad("clock", v);
}

static void add_consumer(struct opts *o, const char *v)
{
	int i;

	if (o->nconsumers >= 4)
		bad("consumer list", v);
	for (i = 0; i < 4; i++)
		if (!strcmp(v, cons_names[i])) {
			o->consumers[o->nconsumers++] = (enum bench_consumer)i;
			return;
		}
	bad("consumer", v);
}

static int on_off(const char *what, const char *v)
{
	if (!strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "0"))
		return 0;
	bad(what, v);
	return 0;
}

enum {
	OPT_SUITE = 256, OPT_SMOKE, OPT_JSON, OPT_NO_JSON, OPT_IMPL, OPT_OVERWRITE,
	OPT_PIN, OPT_SIGNAL, OPT_SLEEP, OPT_WARMUP, OPT_LTTNG_USER, OPT_LTTNG_HELPER,
	OPT_TRACEFS, OPT_NR_BUFFERS, OPT_SPARE_BUFFERS, OPT_MAX_NOISE, OPT_RETRIES,
	OPT_WAIT_IDLE, OPT_MAX_SLOW,
};

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "runs", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 's' },
		{ "suite", required_argument, NULL, OPT_SUITE },
		{ "smoke", no_argument, NULL, OPT_SMOKE },
		{ "case", required_argument, NULL, 'c' },
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "no-json", no_argument, NULL, OPT_NO_JSON },
		{ "verbose", no_argument, NULL, 'v' },
		{ "impl", required_argument, NULL, OPT_IMPL },
		{ "payload", required_argument, NULL, 'p' },
		{ "writers", required_argument, NULL, 'w' },
		{ "model", required_argument, NULL, 'm' },
		{ "clock", required_argument, NULL, 'k' },
		{ "consumer", required_argument, NULL, 'C' },
		{ "overwrite", required_argument, NULL, OPT_OVERWRITE },
		{ "pin", required_argument, NULL, OPT_PIN },
		{ "signal-hz", required_argument, NULL, OPT_SIGNAL },
		{ "consumer-sleep-us", required_argument, NULL, OPT_SLEEP },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "lttng-user", required_argument, NULL, OPT_LTTNG_USER },
		{ "lttng-helper", required_argument, NULL, OPT_LTTNG_HELPER },
		{ "tracefs", required_argument, NULL, OPT_TRACEFS },
		{ "nr-buffers", required_argument, NULL, OPT_NR_BUFFERS },
		{ "spare-buffers", required_argument, NULL, OPT_SPARE_BUFFERS },
		{ "max-noise", required_argument, NULL, OPT_MAX_NOISE },
		{ "max-slow", required_argument, NULL, OPT_MAX_SLOW },
		{ "retries", required_argument, NULL, OPT_RETRIES },
		{ "wait-idle", required_argument, NULL, OPT_WAIT_IDLE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool smoke = false, dur_set = false, runs_set = false, size_set = false;
	bool retries_set = false;
	int ch;

	memset(o, 0, sizeof(*o));
	o->duration = 0.5;
	o->runs = 5;
	o->size = 4u << 20;
	o->suite = NULL;
	o->json = o->text = true;
	o->overwrite = -1;
	o->pin = -1;
	o->max_noise = 10;
	o->max_slow = 5;
	o->retries = 3;
	while ((ch = getopt_long(argc, argv, "d:r:s:c:lvp:w:m:k:C:h", lo, NULL)) != -1) {
		switch (ch) {
		case 'd':
			o->duration = strtod(optarg, NULL);
			if (!(o->duration > 0) || o->duration > 3600)
				bad("duration", optarg);
			dur_set = true;
			break;
		case 'r':
			o->runs = (unsigned int)strtoul(optarg, NULL, 0);
			if (!o->runs || o->runs > 256)
				bad("run count", optarg);
			runs_set = true;
			break;
		case 's':
			o->size = parse_size(optarg);
			if (o->size < 8192)
				bad("size", optarg);
			size_set = true;
			o->size_set = true;
			break;
		case OPT_SUITE:
			o->suite = optarg;
			break;
		case OPT_SMOKE:
			smoke = true;
			break;
		case 'c': {
			const char **g = realloc(o->globs, (o->nglobs + 1) * sizeof(*g));

			if (!g)
				exit(1);
			o->globs = g;
			o->globs[o->nglobs++] = optarg;
			break;
		}
		case 'l':
			o->list = true;
			break;
		case OPT_JSON:
			o->text = false;
			o->json = true;
			break;
		case OPT_NO_JSON:
			o->json = false;
			o->text = true;
			break;
		case 'v':
			bench_verbose++;
			break;
		case OPT_IMPL:
			each_item(optarg, add_impl, o);
			o->custom = true;
			break;
		case 'p':
			each_item(optarg, add_payload, o);
			o->custom = true;
			break;
		case 'w':
			each_item(optarg, add_writers, o);
			o->custom = true;
			break;
		case 'm':
			each_item(optarg, add_model, o);
			o->custom = true;
			break;
		case 'k':
			each_item(optarg, add_clock, o);
			o->custom = true;
			break;
		case 'C':
			each_item(optarg, add_consumer, o);
			o->custom = true;
			break;
		case OPT_OVERWRITE:
			o->overwrite = on_off("--overwrite", optarg);
			o->custom = true;
			break;
		case OPT_PIN:
			o->pin = on_off("--pin", optarg);
			o->custom = true;
			break;
		case OPT_SIGNAL:
			o->signal_hz = (unsigned int)strtoul(optarg, NULL, 0);
			if (o->signal_hz > 1000000)
				bad("signal rate", optarg);
			o->custom = true;
			break;
		case OPT_SLEEP:
			bench_consumer_sleep_us = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case OPT_WARMUP:
			bench_warmup_events = strtoull(optarg, NULL, 0);
			break;
		case OPT_LTTNG_USER:
			bench_lttng_user = optarg;
			break;
		case OPT_LTTNG_HELPER:
			bench_lttng_helper = optarg;
			break;
		case OPT_TRACEFS:
			bench_tracefs = optarg;
			break;
		case OPT_NR_BUFFERS:
			o->nr_buffers = atoi(optarg);
			if (o->nr_buffers < 0 || o->nr_buffers > 4096)
				bad("buffer count", optarg);
			break;
		case OPT_MAX_NOISE:
			o->max_noise = strtod(optarg, NULL);
			if (!(o->max_noise >= 0) || o->max_noise > 100)
				bad("noise limit", optarg);
			break;
		case OPT_MAX_SLOW:
			o->max_slow = strtod(optarg, NULL);
			if (!(o->max_slow >= 0) || o->max_slow > 1000)
				bad("slow CPU limit", optarg);
			break;
		case OPT_RETRIES:
			o->retries = (unsigned int)strtoul(optarg, NULL, 0);
			if (o->retries > 100)
				bad("retry count", optarg);
			retries_set = true;
			break;
		case OPT_WAIT_IDLE:
			o->wait_idle = strtod(optarg, NULL);
			if (!(o->wait_idle >= 0) || o->wait_idle > 86400)
				bad("wait", optarg);
			break;
		case OPT_SPARE_BUFFERS:
			/* 0 here means none; the library's 0 is its default */
			o->spare_buffers = atoi(optarg);
			if (o->spare_buffers < 0 || o->spare_buffers > 4096)
				bad("spare buffer count", optarg);
			if (!o->spare_buffers)
				o->spare_buffers = RINGBUF_NO_SPARES;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ringbuf-bench: unexpected argument '%s'\n", argv[optind]);
		exit(2);
	}
	if (smoke)
		o->suite = "smoke";
	if (o->suite && !strcmp(o->suite, "smoke")) {
		/* Short and small: a few seconds in all. */
		if (!dur_set)
			o->duration = 0.1;
		if (!runs_set)
			o->runs = 1;
		if (!size_set)
			o->size = 256u << 10;
		/* small buffers in every case, so that pages fill and wrap */
		o->size_set = true;
		/* accounting only: a noisy run is as good as a quiet one */
		if (!retries_set)
			o->retries = 0;
	}
	if (!o->suite)
		o->suite = o->custom ? "custom" : "default";
	if (o->custom) {
		if (!o->impls)
			o->impls = (1u << IMPL_RINGBUF) | (1u << IMPL_FLOOR) |
				   (1u << IMPL_MUTEX) | (1u << IMPL_LTTNG) |
				   (1u << IMPL_KERNEL);
		/* The floor is what every ratio is to. */
		o->impls |= 1u << IMPL_FLOOR;
		if (!o->npayloads)
			o->payloads[o->npayloads++] = 16;
		if (!o->nwriters)
			o->writers[o->nwriters++] = 1;
		if (!o->nmodels) {
			o->models[o->nmodels++] = RINGBUF_PER_THREAD;
			o->models[o->nmodels++] = RINGBUF_PER_CPU;
		}
		if (!o->nclocks)
			o->clocks[o->nclocks++] = BCLOCK_TSC;
		if (!o->nconsumers)
			o->consumers[o->nconsumers++] = CONS_PAGE;
	}
}

/* ---------------------------------------------------------------------- */

static void on_fatal_signal(int sig)
{
	/* Do not leave a session daemon or a tracing instance behind. */
	bench_lttng_shutdown();
	bench_kernel_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Sum of the non-idle and of all jiffies in /proc/stat's "cpu" line. */
static int read_cpu_jiffies(unsigned long long *busy, unsigned long long *total);

/* CPU time of this process and of its reaped children, in jiffies. */
static int read_self_jiffies(unsigned long long *j)
{
	char buf[1024], *p;
	unsigned long long ut, st, cut, cst;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the command name may hold spaces */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &ut, &st, &cut, &cst) != 4)
		return -1;
	*j = ut + st + cut + cst;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* How fast the timed CPUs run                                             */

/*
 * Work of another virtual machine on the physical core under one of our
 * CPUs (the host's sibling hyperthread) shows neither in /proc/stat nor
 * as steal time, comes and goes within seconds, and takes issue slots
 * from whatever runs there. A write path of some 150 instructions a
 * record runs up to twice as slow in such a spell while the floor, bound
 * by its clock read, hardly moves: measured on a 2-CPU virtual machine,
 * the per-CPU write went from 11.2 ns a record to 16.4 or 19.6 ns for
 * seconds at a time with nothing else running in the machine, and its
 * ratio to the floor from 1.2-1.3 to 1.7-2.2 (Documentation/bench.rst,
 * "Noise"). So a fixed piece of independent integer work is timed on
 * each CPU whose threads a case times, just before and just after each
 * run, against the fastest it ever took there: a run around which one
 * took more than --max-slow percent longer is repeated, as a noisy one.
 */
#define PROBE_ITERS 16384u
#define PROBE_REPEAT 5
#define PROBE_MAX_CPUS 8

/* The fastest probe seen on allowed_cpus[i], ns; 0 before the first. */
static double probe_best[PROBE_MAX_CPUS];

/* ns of PROBE_ITERS rounds of four independent adds on this thread's
 * CPU, the fastest of PROBE_REPEAT: an interrupt slows one of them, a
 * busy sibling every one. */
static double probe_here(void)
{
	double best = 0;
	unsigned int k, i;

	for (k = 0; k < PROBE_REPEAT; k++) {
		uint64_t a = 1, b = 2, c = 3, d = 4, t0 = bench_now_ns(), t;

		for (i = 0; i < PROBE_ITERS; i++) {
			a += i;
			b += i;
			c += i;
			d += i;
			/* kept as four adds a round, in registers */
			__asm__ __volatile__("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
		}
		t = bench_now_ns() - t0;
		if (!k || (double)t < best)
			best = (double)t;
	}
	return best;
}

/* The indexes (in allowed_cpus) of the CPUs whose threads case @c times:
 * its pinned writers', the consumer's of a drain case, every allowed CPU
 * (up to PROBE_MAX_CPUS) for unpinned threads. */
static unsigned int probe_cpus(const struct bench_case *c, unsigned int *idx)
{
	unsigned int n = 0, i, max = (unsigned int)nr_allowed;

	if (max > PROBE_MAX_CPUS)
		max = PROBE_MAX_CPUS;
	if (!c->pin) {
		for (i = 0; i < max; i++)
			idx[n++] = i;
		return n;
	}
	if (c->impl == IMPL_DRAIN) {
		idx[n++] = nr_allowed > 1 ? 1 : 0;
		return n;
	}
	for (i = 0; i < c->writers && i < max; i++)
		idx[n++] = i % (unsigned int)nr_allowed;
	return n;
}

/*
 * Probe the CPUs that case @c times; returns how much slower than its
 * best the slowest of them ran, in percent (0: as fast as ever). The
 * bests learn from every probe. The calling thread is left on all its
 * CPUs again, so that the threads it creates next are not pinned.
 */
static double probe_slow_pct(const struct bench_case *c)
{
	unsigned int idx[PROBE_MAX_CPUS], n = probe_cpus(c, idx), i;
	double worst = 0;

	for (i = 0; i < n; i++) {
		double t;

		if (bench_pin_self(allowed_cpus[idx[i]]))
			continue;
		t = probe_here();
		if (!probe_best[idx[i]] || t < probe_best[idx[i]])
			probe_best[idx[i]] = t;
		if (100.0 * (t / probe_best[idx[i]] - 1) > worst)
			worst = 100.0 * (t / probe_best[idx[i]] - 1);
	}
	bench_pin_self(-1);
	return worst;
}

/*
 * The bests before the first run: every CPU probed every 10 ms for a
 * second, so that a spell of a busy sibling at the start (they last
 * seconds) does not become the yardstick.
 */
static void probe_calibrate(void)
{
	struct bench_case all = { .pin = false };
	uint64_t until = bench_now_ns() + 1000000000ull;

	while (bench_now_ns() < until) {
		(void)probe_slow_pct(&all);
		bench_sleep_ns(10 * 1000000ull);
	}
}

/*
 * Probe as probe_slow_pct() does; while a CPU runs more than @limit
 * percent slower than its best, again every 20 ms, for a second at most:
 * a run starts once the spell is over, if it ends soon.
 */
static double probe_wait_fast(const struct bench_case *c, double limit)
{
	uint64_t until = bench_now_ns() + 1000000000ull;
	double slow;

	while ((slow = probe_slow_pct(c)) > limit && bench_now_ns() < until)
		bench_sleep_ns(20 * 1000000ull);
	return slow;
}

/*
 * Run one case once, and again (up to --retries times) while other
 * programs took more than --max-noise percent of the CPUs meanwhile
 * (busy jiffies of the whole machine minus our own), or while a CPU it
 * times ran more than --max-slow percent slower than its best, probed
 * just before (once it is not, or after a second of waiting for it:
 * probe_wait_fast()) and just after the run.
 */
static void run_measured(const struct bench_case *c, struct bench_result *r,
			 const struct opts *o)
{
	unsigned int tries = 0, slow_tries = 0;

	for (;;) {
		unsigned long long b0, t0, s0, b1, t1, s1;
		/* (no waiting where no run is repeated: the smoke suite) */
		double slow = o->retries ? probe_wait_fast(c, o->max_slow) : probe_slow_pct(c);
		bool ok = !read_cpu_jiffies(&b0, &t0) && !read_self_jiffies(&s0);
		bool noisy;

		run_case(c, r);
		r->retries = tries;
		r->slow_retries = slow_tries;
		r->foreign_pct = -1;
		r->slow_pct = -1;
		if (r->skipped)
			return;
		{
			double after = probe_slow_pct(c);

			r->slow_pct = after > slow ? after : slow;
		}
		noisy = r->slow_pct > o->max_slow;
		/* lttng-consumerd works for the case but is not our child */
		if (ok && c->impl != IMPL_LTTNG && !read_cpu_jiffies(&b1, &t1) &&
		    !read_self_jiffies(&s1) && t1 > t0) {
			long long foreign = (long long)(b1 - b0) - (long long)(s1 - s0);

			r->foreign_pct = foreign > 0 ? 100.0 * (double)foreign / (double)(t1 - t0) : 0;
			if (r->foreign_pct > o->max_noise)
				noisy = true;
		}
		if (!noisy || tries + slow_tries >= o->retries)
			return;
		if (r->foreign_pct > o->max_noise) {
			tries++;
			if (bench_verbose)
				fprintf(stderr, "  other programs took %.0f%% of the CPUs: again (%u/%u)\n",
					r->foreign_pct, tries + slow_tries, o->retries);
		} else {
			slow_tries++;
			if (bench_verbose)
				fprintf(stderr, "  a timed CPU ran %.0f%% slower than its best: again (%u/%u)\n",
					r->slow_pct, tries + slow_tries, o->retries);
		}
	}
}

static int read_cpu_jiffies(unsigned long long *busy, unsigned long long *total)
{
	unsigned long long v[10] = { 0 };
	FILE *p = fopen("/proc/stat", "r");
	int n, i;

	if (!p)
		return -1;
	n = fscanf(p, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	fclose(p);
	if (n < 5)
		return -1;
	*total = 0;
	for (i = 0; i < 8; i++)	/* guest time is already in user time */
		*total += v[i];
	*busy = *total - v[3] - v[4];	/* minus idle and iowait */
	return 0;
}

/*
 * How busy the machine is before we start, over a quarter of a second:
 * a measure of the noise other programs will add (the load average would
 * also count the bench's own previous runs).
 */
static double cpu_busy_percent(void)
{
	unsigned long long b0, t0, b1, t1;

	if (read_cpu_jiffies(&b0, &t0))
		return -1;
	bench_sleep_ns(250 * 1000000ull);
	if (read_cpu_jiffies(&b1, &t1) || t1 == t0)
		return -1;
	return 100.0 * (double)(b1 - b0) / (double)(t1 - t0);
}

static void header(FILE *f, const struct opts *o, int argc, char **argv)
{
	struct utsname u;
	char model[256] = "unknown", cs[64] = "unknown";
	double busy;
	FILE *p;
	int i;

	p = fopen("/proc/cpuinfo", "r");
	if (p) {
		char line[512];

		while (fgets(line, sizeof(line), p))
			if (!strncmp(line, "model name", 10)) {
				char *c = strchr(line, ':');

				if (c) {
					snprintf(model, sizeof(model), "%s", c + 2);
					model[strcspn(model, "\n")] = '\0';
				}
				break;
			}
		fclose(p);
	}
	p = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (p) {
		if (fgets(cs, sizeof(cs), p))
			cs[strcspn(cs, "\n")] = '\0';
		fclose(p);
	}
	uname(&u);
	busy = cpu_busy_percent();
	fprintf(f, "ringbuf-bench (ringtrace %s, %s build):", RINGBUF_BENCH_VERSION,
		RINGBUF_BENCH_BUILD_TYPE);
	for (i = 1; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fprintf(f, "\n  machine: %s, %d CPUs usable, %s %s, clocksource %s\n",
		model, nr_allowed, u.sysname, u.release, cs);
	if (busy >= 0)
		fprintf(f, "  CPUs busy before the start: %.0f%%%s\n", busy,
			busy > 10 ? " (something else runs: expect noise)" : "");
	fprintf(f, "  suite %s: %u cases, %u runs of %.2f s each (interleaved), %zu KiB per cpu buffer\n",
		o->suite, ncases, o->runs, o->duration, o->size >> 10);
}

int main(int argc, char **argv)
{
	struct opts o;
	unsigned int i, run;
	int status = 0;
	bool smoke;

	init_cpus();
	parse_opts(argc, argv, &o);
	smoke = !strcmp(o.suite, "smoke");
	if (!strcmp(o.suite, "default"))
		suite_default(&o);
	else if (!strcmp(o.suite, "payloads"))
		suite_payloads(&o);
	else if (smoke)
		suite_smoke(&o);
	else if (!strcmp(o.suite, "custom"))
		suite_custom(&o);
	else
		bad("suite", o.suite);

	if (o.list) {
		for (i = 0; i < ncases; i++) {
			char t[256];

			title(&cases[i], t, sizeof(t));
			printf("%-36s %s\n", cases[i].id, t);
		}
		return 0;
	}
	if (!ncases) {
		fprintf(stderr, "ringbuf-bench: no case matches\n");
		return 2;
	}

	atexit(bench_lttng_shutdown);
	signal(SIGINT, on_fatal_signal);
	signal(SIGTERM, on_fatal_signal);
	signal(SIGHUP, on_fatal_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);

	aggs = calloc(ncases, sizeof(*aggs));
	if (!aggs)
		return 1;
	for (i = 0; i < ncases; i++) {
		aggs[i].runs = calloc(o.runs, sizeof(struct bench_result));
		if (!aggs[i].runs)
			return 1;
	}
	if (o.wait_idle > 0) {
		uint64_t until = bench_now_ns() + (uint64_t)(o.wait_idle * 1e9);
		double busy;

		while ((busy = cpu_busy_percent()) > 10 && bench_now_ns() < until) {
			if (bench_verbose)
				fprintf(stderr, "waiting for quiet CPUs (%.0f%% busy)\n", busy);
			bench_sleep_ns(750 * 1000000ull);
		}
	}
	if (o.text)
		header(stdout, &o, argc, argv);
	/* (the smoke suite's accounting does not care how fast) */
	if (!smoke && o.max_slow < 1000)
		probe_calibrate();

	/* Interleaved: every case once per round. */
	for (run = 0; run < o.runs; run++) {
		for (i = 0; i < ncases; i++) {
			struct bench_result *r = &aggs[i].runs[run];

			/* A baseline that cannot run will not run later either. */
			if (run > 0 && aggs[i].runs[0].skipped) {
				*r = aggs[i].runs[0];
				continue;
			}
			if (bench_verbose)
				fprintf(stderr, "run %u/%u: %s\n", run + 1, o.runs, cases[i].id);
			run_measured(&cases[i], r, &o);
			if (bench_verbose && r->skipped)
				fprintf(stderr, "  skipped: %s\n", r->why);
		}
	}
	bench_lttng_shutdown();

	for (i = 0; i < ncases; i++) {
		aggregate(i, o.runs);
		if (!aggs[i].skipped && !aggs[i].consistent)
			status = 1;
		/* In the smoke suite, libringbuf itself must run. */
		if (smoke && aggs[i].skipped &&
		    (cases[i].impl == IMPL_RINGBUF || cases[i].impl == IMPL_DRAIN))
			status = 1;
	}
	for (i = 0; i < ncases; i++) {
		if (o.text)
			print_text(stdout, &cases[i], &aggs[i], o.runs);
		if (o.json)
			print_json(stdout, &cases[i], &aggs[i]);
	}
	compute_targets();
	print_targets(stdout, o.text, o.json);
	if (o.text) {
		unsigned int rep = 0, noisy = 0, srep = 0, slow = 0, k;

		for (i = 0; i < ncases; i++) {
			rep += aggs[i].retries;
			srep += aggs[i].slow_retries;
			for (k = 0; k < o.runs; k++) {
				if (!aggs[i].runs[k].skipped && aggs[i].runs[k].foreign_pct > o.max_noise)
					noisy++;
				if (!aggs[i].runs[k].skipped && aggs[i].runs[k].slow_pct > o.max_slow)
					slow++;
			}
		}
		printf("\nNoise: %u run%s repeated because other programs took more than %.0f%% of the CPUs;"
		       " %u kept run%s still above it.\n", rep, rep == 1 ? "" : "s", o.max_noise,
		       noisy, noisy == 1 ? "" : "s");
		printf("Slow CPU: %u run%s repeated because a timed CPU ran more than %.0f%% slower than"
		       " its best (a probe of %u x 4 independent adds:", srep, srep == 1 ? "" : "s",
		       o.max_slow, PROBE_ITERS);
		for (k = 0; k < PROBE_MAX_CPUS && k < (unsigned int)nr_allowed; k++)
			printf(" CPU %d %.1f us", allowed_cpus[k], probe_best[k] / 1e3);
		printf("); %u kept run%s still above it.\n", slow, slow == 1 ? "" : "s");
	}
	if (o.text) {
		if (status)
			printf("\nringbuf-bench: INCONSISTENT accounting in at least one case (see Check lines)\n");
		else if (smoke)
			printf("\nringbuf-bench: smoke: every case ran and its accounting is consistent\n");
	}
	for (i = 0; i < ncases; i++)
		free(aggs[i].runs);
	free(aggs);
	free(cases);
	free(o.globs);
	return status;
}
