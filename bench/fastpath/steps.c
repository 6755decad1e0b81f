// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * steps.c - what each piece of the inline write adds to the clock read.
 *
 * Usage: ringbuf-steps c|t [ROUNDS [CPU]]: the ring's case in the per-CPU
 * or the per-thread model, TSC clock, 16-byte records, ROUNDS rounds
 * (default 10000) on CPU (default: the first the thread may run on).
 * x86-64.
 *
 * The floor (bench/floor.c) is bound by its clock read; the ring buffer's
 * write adds some 120 instructions to it. Each step below is a loop that
 * writes the floor's record (the same header, delta and payload, the
 * same 4096-byte pages) with one more piece of the ring's inline write
 * (<ringbuf/frontend.h>) than the step before, on state laid out as the
 * ring keeps it, in memory: a model for measuring, not a ring (no reader,
 * no nesting, no loss; a page ends in an out-of-line call):
 *
 *   S0 floor    the floor's record, its write index and last stamp in
 *               memory rather than in registers
 *   S1 +slot    the thread's depth and frame, the slot key, the cpu
 *               buffer's active count up and down
 *   S2 +index   rb_start_commit()'s two counts, the tail page's write
 *               index taken by a local add (A, C) and checked
 *   S3 +stamps  the before and write stamps loaded and compared, stored
 *               at B and D
 *   S4 +counts  the page's and the buffer's entries and bytes
 *   S5 +commit  rb_end_commit()'s common case and the waiters test
 *
 * and beside them: S5 with the clock read after the reservation (C), as
 * the kernel's interrupted path does (with the check that nothing was
 * reserved after it); S5 with the clock read first, before the slot,
 * raised to the last stamp if it lies before it; S5 with the cpu buffer kept beside the slot key
 * and the tail page's control block and data kept in the cpu buffer (no
 * lookups); S5 and S0 with no clock (the stamp is the last one plus
 * one); S0 with 100 independent adds, and with a chain of 50 adds that
 * starts from the stamp; and the ring itself (ringbuf_reserve_inline(),
 * ringbuf_commit_inline()).
 *
 * Every round runs each loop for 2048 records, so that all of them see
 * the same state of the host: where the host's sibling hyperthread takes
 * issue slots from ours for seconds at a time (README.md, "Slow spells of
 * the host"), the least and the tenth percentile are the rounds it left
 * alone and the median the others, if they are the most. Printed per
 * loop, ns a record.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ringbuf/frontend.h>

#define ST_PAGE 4096u
#define ST_NPAGES 1024u
#define ST_WIN 2048u
#define ST_LEN 20u		/* a 16-byte payload's record */
#define ST_DELTA_BITS 27

#define st_likely(x) __builtin_expect(!!(x), 1)
#define st_unlikely(x) __builtin_expect(!!(x), 0)
/* As ringbuf_fe_barrier(): orders against our own signal handlers. */
#define st_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define st_read(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define st_set(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* The model's state: the fields of the ring's that the fast path touches. */
struct st_page {
	uint64_t write;
	uint64_t entries;
};

struct st_meta {
	uint32_t tail_page;
	uint32_t commit_page;
	uint64_t before_stamp;
	uint64_t write_stamp;
	uint64_t entries;
	uint64_t entries_bytes;
	uint32_t waiters;
};

struct st_cpu {
	uint64_t committing;
	uint64_t commits;
	uint64_t active;
	struct st_meta *meta;
	struct st_page *pages;
	unsigned char *data;
	uint32_t subbuf_shift;
	/* (ST_SHORT) the tail page's control block and data, kept here */
	struct st_page *tail_ctl;
	unsigned char *tail_data;
};

struct st_buffer {
	int fe_slow;
	uint32_t bsize;
	uint64_t uid;
	struct st_cpu **buffers;
};

struct st_tls {
	unsigned int depth;
	uint64_t slot;
	uintptr_t frame[RINGBUF_FE_MAX_FRAMES];
	/* (ST_SHORT) the slot's cpu buffer, beside its key */
	struct st_cpu *cb;
};

static __thread struct st_tls st_tls __attribute__((tls_model("initial-exec")));
static struct st_page st_pages[ST_NPAGES];
static struct st_meta st_meta;
static struct st_cpu st_cpu0;
static struct st_cpu *st_cpus[1] = { &st_cpu0 };
static struct st_buffer st_buf = { 0, ST_PAGE - RINGBUF_PAGE_HDR_SIZE, 7, st_cpus };
/* the probe's and the chain's registers, kept out of the compiler's hands */
static uint64_t st_sink;

static uint64_t st_rdtsc(void)
{
	return ringbuf_fe_rdtsc();
}

static void st_init(unsigned char *mem)
{
	st_cpu0.meta = &st_meta;
	st_cpu0.pages = st_pages;
	st_cpu0.data = mem;
	st_cpu0.subbuf_shift = 12;
	st_tls.slot = st_buf.uid << RINGBUF_FE_SLOT_IDX_BITS;
	st_tls.cb = &st_cpu0;
	st_cpu0.tail_ctl = &st_pages[0];
	st_cpu0.tail_data = mem;
	st_meta.before_stamp = st_meta.write_stamp = st_rdtsc();
}

/* The next page, stamped (the ring's rb_move_tail(), reduced to that). */
static __attribute__((noinline)) void st_next_page(struct st_cpu *cb)
{
	struct st_meta *m = cb->meta;
	uint32_t np = (m->tail_page + 1) % ST_NPAGES;
	uint64_t ts = st_rdtsc();

	cb->pages[np].write = 0;
	m->tail_page = np;
	m->commit_page = np;
	cb->tail_ctl = &cb->pages[np];
	cb->tail_data = cb->data + ((size_t)np << cb->subbuf_shift);
	memcpy(cb->data + ((size_t)np << cb->subbuf_shift), &ts, 8);
	m->before_stamp = ts;
	m->write_stamp = ts;
}

/* The stamps out of step (a step without them ran before): made equal. */
static __attribute__((noinline)) void st_stamps_fix(struct st_meta *m)
{
	m->before_stamp = m->write_stamp;
}

/* What the model never expects: reported once, the loop ends. */
static __attribute__((noinline)) uint64_t st_fail(const char *what)
{
	fprintf(stderr, "ringbuf-steps: the model's %s failed\n", what);
	exit(1);
}

enum {
	ST_SLOT = 1,
	ST_INDEX = 2,
	ST_STAMPS = 4,
	ST_COUNTS = 8,
	ST_COMMIT = 16,
	ST_LATE = 32,		/* the clock read after C */
	ST_NOCLOCK = 64,	/* the last stamp plus one */
	ST_ADDS = 128,		/* 100 independent adds */
	ST_CHAIN = 256,		/* 50 adds in a chain from the stamp */
	ST_SHORT = 512,		/* cpu buffer and tail page without lookups */
	ST_EARLY = 1024,	/* the clock read first, clamped to the last stamp */
};

/* ten adds on four registers that no other code uses (their chains run
 * on from record to record, 25 adds deep each a record, below the clock
 * read's time) */
#define ST_ADD10()                                                          \
	__asm__ __volatile__("add $1,%%r8\n\tadd $1,%%r9\n\tadd $1,%%r10\n\t"  \
			     "add $1,%%r11\n\tadd $1,%%r8\n\tadd $1,%%r9\n\t"  \
			     "add $1,%%r10\n\tadd $1,%%r11\n\tadd $1,%%r8\n\t" \
			     "add $1,%%r9"                                   \
			     : : : "r8", "r9", "r10", "r11", "cc")
#define ST_CHAIN10(a)                                                       \
	__asm__ __volatile__("add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\t"      \
			     "add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\t"      \
			     "add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\t"      \
			     "add $1,%0"                                     \
			     : "+r"(a))

static inline __attribute__((always_inline)) void st_adds(void)
{
	ST_ADD10();
	ST_ADD10();
	ST_ADD10();
	ST_ADD10();
	ST_ADD10();
	ST_ADD10();
	ST_ADD10();
	ST_ADD10();
	ST_ADD10();
	ST_ADD10();
}

static inline __attribute__((always_inline)) uint64_t
st_loop(unsigned int n, uint64_t seq, const unsigned int fl)
{
	static const uint64_t second = 0x1234;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct st_tls *t = &st_tls;
		struct st_cpu *cb = &st_cpu0;
		uint64_t ts = 0, before = 0, after, w, write, tail, delta;
		unsigned int d = 0;
		struct st_page *tp;
		struct st_meta *m;
		unsigned char *ev;
		unsigned char *page;
		uint32_t hdr;

		if (fl & ST_EARLY)
			ts = st_rdtsc();
		if (fl & ST_SLOT) {
			uint64_t key;

			d = t->depth;
			if (st_unlikely(d >= RINGBUF_FE_MAX_NEST))
				return st_fail("depth");
			t->depth = d + 1;
			st_barrier();
			key = st_read(&t->slot);
			if (st_unlikely(key >> RINGBUF_FE_SLOT_IDX_BITS != st_buf.uid))
				return st_fail("slot");
			if (fl & ST_SHORT)
				cb = t->cb;
			else
				cb = st_buf.buffers[key & ((1u << RINGBUF_FE_SLOT_IDX_BITS) - 1)];
			ringbuf_fe_local_add(1, &cb->active);
			t->frame[d] = (uintptr_t)cb;
			st_barrier();
			if (st_unlikely(__atomic_load_n(&st_buf.fe_slow, __ATOMIC_ACQUIRE)))
				return st_fail("fe_slow");
		}
		m = cb->meta;
		if (fl & ST_INDEX) {
			ringbuf_fe_local_add(1, &cb->committing);
			ringbuf_fe_local_add(1, &cb->commits);
		}
		if (fl & ST_SHORT) {
			tp = cb->tail_ctl;
			page = cb->tail_data;
		} else {
			uint32_t tpg = st_read(&m->tail_page);

			tp = &cb->pages[tpg];
			page = cb->data + ((size_t)tpg << cb->subbuf_shift);
		}
		/*A*/ w = st_read(&tp->write);
		st_barrier();
		if (fl & ST_STAMPS)
			before = st_read(&m->before_stamp);
		after = st_read(&m->write_stamp);
		st_barrier();
		if (fl & ST_EARLY) {
			if (st_unlikely(ts < after))
				ts = after;
		} else if (!(fl & ST_LATE)) {
			ts = (fl & ST_NOCLOCK) ? after + 1 : st_rdtsc();
		}
		if ((fl & ST_STAMPS) && !(fl & ST_LATE)) {
			delta = ts - after;
			if (st_unlikely(((before ^ after) |
					 (delta >> ST_DELTA_BITS)) != 0) && w) {
				st_stamps_fix(m);
				goto out;
			}
			/*B*/ st_set(&m->before_stamp, ts);
		}
		if ((fl & ST_STAMPS) && (fl & ST_LATE) && st_unlikely(before != after)) {
			st_stamps_fix(m);
			goto out;
		}
		/*C*/
		if (fl & ST_INDEX) {
			write = ringbuf_fe_local_add_return(ST_LEN, &tp->write);
		} else {
			write = w + ST_LEN;
			st_set(&tp->write, write);
		}
		tail = write - ST_LEN;
		if (st_unlikely(write > st_buf.bsize)) {
			/* (the record is not written: the page ends) */
			st_next_page(cb);
			goto out;
		}
		if ((fl & ST_INDEX) && st_unlikely(tail != w))
			return st_fail("index");
		if (fl & ST_LATE) {
			ts = (fl & ST_NOCLOCK) ? after + 1 : st_rdtsc();
			if (fl & ST_STAMPS)
				/*B*/ st_set(&m->before_stamp, ts);
			st_barrier();
		}
		delta = ts - after;
		/* the late clock: nothing reserved after us since C */
		if ((fl & ST_LATE) &&
		    st_unlikely((st_read(&tp->write) != write) | ((delta >> ST_DELTA_BITS) != 0)))
			delta = 0;
		/*D*/ st_set(&m->write_stamp, ts);
		ev = page + RINGBUF_PAGE_HDR_SIZE + tail;
		if (fl & ST_COUNTS) {
			ringbuf_fe_local_add(1, &tp->entries);
			ringbuf_fe_local_add(ST_LEN, &m->entries_bytes);
		}
		if (fl & ST_ADDS)
			st_adds();
		if (fl & ST_CHAIN) {
			uint64_t a = ts;

			ST_CHAIN10(a);
			ST_CHAIN10(a);
			ST_CHAIN10(a);
			ST_CHAIN10(a);
			ST_CHAIN10(a);
			st_sink += a;
		}
		hdr = ((ST_LEN - RINGBUF_EVENT_HDR_SIZE) / 4) | (uint32_t)(delta << 5);
		if (st_unlikely(!tail)) {
			memcpy(page, &ts, 8);
			hdr = (ST_LEN - RINGBUF_EVENT_HDR_SIZE) / 4;
		}
		seq++;
		memcpy(ev, &hdr, 4);
		memcpy(ev + 4, &seq, 8);
		memcpy(ev + 12, &second, 8);
		if (fl & ST_COUNTS)
			ringbuf_fe_local_add(1, &m->entries);
		if (fl & ST_COMMIT) {
			uint64_t commits = st_read(&cb->commits);
			uint32_t c;

			st_barrier();
			if (st_unlikely(st_read(&cb->committing) != 1))
				return st_fail("committing");
			c = st_read(&m->commit_page);
			if (st_unlikely(c != st_read(&m->tail_page)))
				return st_fail("commit page");
			__atomic_store_n((uint64_t *)(cb->data + ((size_t)c << cb->subbuf_shift) + 8),
					 st_read(&cb->pages[c].write), __ATOMIC_RELEASE);
			st_set(&cb->committing, 0);
			st_barrier();
			if (st_unlikely(st_read(&cb->commits) != commits))
				return st_fail("commits");
			st_barrier();
			if (st_unlikely(st_read(&m->waiters)))
				return st_fail("waiters");
		}
out:
		if (fl & ST_INDEX)
			st_set(&cb->committing, 0);
		if (fl & ST_SLOT) {
			st_barrier();
			ringbuf_fe_local_add((uint64_t)-1, &cb->active);
			t->frame[d] = 0;
			st_barrier();
			t->depth = d;
			st_barrier();
		}
	}
	return seq;
}

#define ST_STEP(name, fl)                                                   \
	static __attribute__((noinline)) uint64_t name(unsigned int n,       \
						       uint64_t seq)         \
	{                                                                   \
		return st_loop(n, seq, fl);                                  \
	}
ST_STEP(st_s0, 0)
ST_STEP(st_s1, ST_SLOT)
ST_STEP(st_s2, ST_SLOT | ST_INDEX)
ST_STEP(st_s3, ST_SLOT | ST_INDEX | ST_STAMPS)
ST_STEP(st_s4, ST_SLOT | ST_INDEX | ST_STAMPS | ST_COUNTS)
ST_STEP(st_s5, ST_SLOT | ST_INDEX | ST_STAMPS | ST_COUNTS | ST_COMMIT)
ST_STEP(st_s5_late, ST_SLOT | ST_INDEX | ST_STAMPS | ST_COUNTS | ST_COMMIT | ST_LATE)
ST_STEP(st_s5_early, ST_SLOT | ST_INDEX | ST_STAMPS | ST_COUNTS | ST_COMMIT | ST_EARLY)
ST_STEP(st_s5_short, ST_SLOT | ST_INDEX | ST_STAMPS | ST_COUNTS | ST_COMMIT | ST_SHORT)
ST_STEP(st_s5_noclock, ST_SLOT | ST_INDEX | ST_STAMPS | ST_COUNTS | ST_COMMIT | ST_NOCLOCK)
ST_STEP(st_s0_noclock, ST_NOCLOCK)
ST_STEP(st_s0_adds, ST_ADDS)
ST_STEP(st_s0_chain, ST_CHAIN)

static struct ringbuf *st_rb;

static __attribute__((noinline)) uint64_t st_ring(unsigned int n, uint64_t seq)
{
	static const uint64_t second = 0x1234;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ringbuf_event *ev = ringbuf_reserve_inline(st_rb, 16);

		seq++;
		if (st_likely(ev != NULL)) {
			unsigned char *p = ringbuf_event_data_inline(ev);

			memcpy(p, &seq, 8);
			memcpy(p + 8, &second, 8);
			ringbuf_commit_inline(st_rb);
		}
	}
	return seq;
}

static const struct {
	const char *name;
	uint64_t (*fn)(unsigned int n, uint64_t seq);
} st_steps[] = {
	{ "S0 floor", st_s0 },
	{ "S1 +slot", st_s1 },
	{ "S2 +index", st_s2 },
	{ "S3 +stamps", st_s3 },
	{ "S4 +counts", st_s4 },
	{ "S5 +commit", st_s5 },
	{ "S5, clock after C", st_s5_late },
	{ "S5, clock read first", st_s5_early },
	{ "S5, shorter lookups", st_s5_short },
	{ "S5, no clock", st_s5_noclock },
	{ "S0, no clock", st_s0_noclock },
	{ "S0 +100 adds", st_s0_adds },
	{ "S0 +50 adds on the stamp", st_s0_chain },
	{ "ring", st_ring },
};
#define ST_NSTEPS (sizeof(st_steps) / sizeof(st_steps[0]))

static double st_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int st_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The value of rank @q (0..1) of @n values, sorted in place. */
static double st_rank(double *v, unsigned int n, double q)
{
	qsort(v, n, sizeof(*v), st_cmp);
	return v[(unsigned int)(q * (n - 1))];
}

int main(int argc, char **argv)
{
	int model = argc > 1 && argv[1][0] == 't' ? RINGBUF_PER_THREAD :
						    RINGBUF_PER_CPU;
	unsigned int rounds = argc > 2 ? (unsigned int)atoi(argv[2]) : 10000;
	int cpu = argc > 3 ? atoi(argv[3]) : -1;
	RINGBUF_OPTS(o, .size = ST_NPAGES * ST_PAGE,
		     .flags = RINGBUF_FL_OVERWRITE, .model = model,
		     .clock = RINGBUF_CLOCK_TSC);
	unsigned char *mem;
	double *t;
	unsigned int i, k;
	uint64_t seq = 0;
	cpu_set_t set;

	if ((argc > 1 && strcmp(argv[1], "c") && strcmp(argv[1], "t")) ||
	    rounds < 10 || rounds > 10000000) {
		fprintf(stderr, "usage: ringbuf-steps c|t [ROUNDS [CPU]]\n");
		return 2;
	}
	if (cpu < 0 && !sched_getaffinity(0, sizeof(set), &set))
		for (cpu = 0; cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set); cpu++)
			;
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("ringbuf-steps: sched_setaffinity");
		return 1;
	}
	st_rb = ringbuf_create(&o);
	mem = aligned_alloc(ST_PAGE, ST_NPAGES * ST_PAGE);
	t = calloc((size_t)ST_NSTEPS * rounds, sizeof(*t));
	if (!st_rb || !mem || !t) {
		perror("ringbuf-steps");
		return 1;
	}
	memset(mem, 0, ST_NPAGES * ST_PAGE);
	st_init(mem);
	/* a lap of every buffer first (of a few rounds: as many) */
	for (k = 0; k < 300 && k < rounds; k++)
		for (i = 0; i < ST_NSTEPS; i++)
			seq = st_steps[i].fn(ST_WIN, seq);
	for (k = 0; k < rounds; k++)
		for (i = 0; i < ST_NSTEPS; i++) {
			double t0 = st_now();

			seq = st_steps[i].fn(ST_WIN, seq);
			t[i * rounds + k] = (st_now() - t0) / ST_WIN;
		}
	printf("%s model, TSC, 16 B: %u rounds of %u records a loop\n",
	       model == RINGBUF_PER_CPU ? "per-CPU" : "per-thread", rounds, ST_WIN);
	printf("%-26s %7s %7s %7s   ns a record\n", "", "least", "10 %", "median");
	for (i = 0; i < ST_NSTEPS; i++) {
		double *v = t + (size_t)i * rounds;

		printf("%-26s %7.2f %7.2f %7.2f\n", st_steps[i].name,
		       st_rank(v, rounds, 0), st_rank(v, rounds, 0.1),
		       st_rank(v, rounds, 0.5));
	}
	/* keeps the records and the adds observable */
	printf("(%llu)\n", (unsigned long long)(seq + st_sink + mem[RINGBUF_PAGE_HDR_SIZE + 5]));
	ringbuf_free(st_rb);
	free(t);
	free(mem);
	return 0;
}
