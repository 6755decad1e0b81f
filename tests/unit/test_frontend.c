/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The inline write path of <ringbuf/frontend.h>, compiled into this
 * program against the release shared library: records written with
 * ringbuf_reserve_inline()/ringbuf_commit_inline() read back exactly,
 * across pages, through each out-of-line continuation (page crossing,
 * absolute stamps, records over 112 bytes, a signal handler nesting
 * inside a reservation), and mixed with the out-of-line functions.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ringbuf/frontend.h>

#include "test.h"
#include "tu.h"

static const size_t g_lens[] = { 0, 1, 4, 8, 12, 16, 24, 100, 112, 113, 200, 1000 };
#define NLENS (sizeof(g_lens) / sizeof(g_lens[0]))

/* The runs without glibc's rseq area say so: the fallback is what runs. */
static void check_rseq(void)
{
	if (getenv("RB_TEST_NO_RSEQ"))
		ASSERT_EQ(ringbuf_fe_rseq_ok, 0);
}

/* Write one tu_fill() record inline; returns whether it was written. */
static bool write_inline(struct ringbuf *rb, uint32_t seq, size_t len)
{
	struct ringbuf_event *ev = ringbuf_reserve_inline(rb, len);

	if (!ev)
		return false;
	tu_fill(ringbuf_event_data_inline(ev), seq, len);
	ASSERT_EQ(ringbuf_event_data_inline(ev), ringbuf_event_data(ev));
	ASSERT_EQ(ringbuf_commit_inline(rb), 0);
	return true;
}

/* Read everything back, in order, and check every record. */
static void check_all(struct ringbuf *rb, uint32_t first, uint32_t n)
{
	struct ringbuf_event *ev;
	uint32_t seq = first;
	uint64_t ts, last = 0;
	int cpu;

	while ((ev = ringbuf_consume_next(rb, &cpu, &ts, NULL))) {
		size_t len = g_lens[seq % NLENS];

		ASSERT_GE_U(ts, last);
		last = ts;
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), seq,
			 len);
		seq++;
	}
	ASSERT_EQ(seq - first, n);
	ASSERT_TRUE(ringbuf_empty(rb));
}

/* Several rounds over a small producer/consumer buffer: the inline path
 * crosses pages, fills the buffer and gets NULL, then goes on after a
 * drain. */
static void pages_model(int model)
{
	/* per-CPU: a buffer for every CPU (the restartable-sequence claim) */
	RINGBUF_OPTS(o, .size = TU_PAGES(6),
		     .nr_cpus = model == RINGBUF_PER_CPU ? 0 : 1, .model = model);
	struct ringbuf *rb = ringbuf_create(&o);
	uint32_t seq = 0;

	check_rseq();
	ASSERT_NOT_NULL(rb);
	for (int round = 0; round < 4; round++) {
		uint32_t first = seq;

		while (write_inline(rb, seq, g_lens[seq % NLENS]))
			seq++;
		ASSERT_GT(seq - first, 20);
		ASSERT_EQ(ringbuf_entries(rb), seq - first);
		check_all(rb, first, seq - first);
	}
	ringbuf_free(rb);
}

static void pages_per_thread(void)
{
	pages_model(RINGBUF_PER_THREAD);
}

static void pages_per_cpu(void)
{
	pages_model(RINGBUF_PER_CPU);
}

/* Absolute stamps: every record takes the out-of-line stamp path. */
static void abs_stamps(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(16), .nr_cpus = 1,
		     .model = RINGBUF_PER_THREAD);
	struct ringbuf *rb = ringbuf_create(&o);
	uint32_t n = 0;

	ASSERT_NOT_NULL(rb);
	ringbuf_set_time_stamp_abs(rb, true);
	for (; n < 200; n++)
		ASSERT_TRUE(write_inline(rb, n, g_lens[n % NLENS]));
	check_all(rb, 0, n);
	ringbuf_free(rb);
}

/*
 * A stamp that lies before the last record's (read on another CPU just
 * after a hand-over) is raised to it, on a page's first record (the
 * buffer's first, inline; after a crossing, out of line) as on the
 * others: the times read back never go back. The cpu buffers' last
 * stamp is moved far ahead to make every clock read lie before it.
 */
static void stamp_behind(void)
{
	for (int model = 0; model < 2; model++) {
		RINGBUF_OPTS(o, .size = TU_PAGES(16), .nr_cpus = 1,
			     .clock = RINGBUF_CLOCK_TSC,
			     .model = model ? RINGBUF_PER_CPU : RINGBUF_PER_THREAD);
		struct ringbuf *rb = ringbuf_create(&o);
		const struct ringbuf_fe_buffer *b;
		struct ringbuf_event *ev;
		uint64_t ahead, ts;
		uint32_t n;
		int cpu;

		ASSERT_NOT_NULL(rb);
		b = (const struct ringbuf_fe_buffer *)(const void *)rb;
		ahead = ringbuf_time_stamp(rb) + (1ULL << 40);
		for (int c = 0; c < ringbuf_nr_cpus(rb); c++) {
			b->buffers[c]->meta->before_stamp = ahead;
			b->buffers[c]->meta->write_stamp = ahead;
		}
		/* past a page crossing */
		for (n = 0; n < 60; n++)
			ASSERT_TRUE(write_inline(rb, n, g_lens[n % NLENS]));
		for (uint32_t i = 0; i < n; i++) {
			ASSERT_NOT_NULL(ev = ringbuf_consume_next(rb, &cpu, &ts, NULL));
			tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), i,
				 g_lens[i % NLENS]);
			ASSERT_EQ(ts, ahead);
		}
		ASSERT_TRUE(ringbuf_empty(rb));
		ringbuf_free(rb);
	}
}

/* The buffer's count of reasons for the out-of-line reserve. */
static int fe_slow(struct ringbuf *rb)
{
	return __atomic_load_n(&((const struct ringbuf_fe_buffer *)(const void *)rb)->fe_slow,
			       __ATOMIC_RELAXED);
}

/*
 * The reasons a write leaves the inline path are counted in one word
 * (fe_slow): it rises with each one and comes back to where it was when
 * each is undone, however the calls pair (a second record_off, an extra
 * enable, absolute stamps set twice, a resize and a reset in between);
 * while one holds, writes go out of line and still read back.
 */
static void slow_reasons(void)
{
	for (int model = 0; model < 2; model++) {
		RINGBUF_OPTS(o, .size = TU_PAGES(16), .nr_cpus = 1,
			     .model = model ? RINGBUF_PER_CPU : RINGBUF_PER_THREAD);
		struct ringbuf *rb = ringbuf_create(&o);
		int base = ringbuf_fe_writer_fence ? 1 : 0;
		uint32_t n = 0;

		ASSERT_NOT_NULL(rb);
		ASSERT_EQ(fe_slow(rb), base);
		/* off is a switch (one reason however often), disable a count;
		 * an enable more than the disables is clamped */
		for (int k = 0; k < 2; k++) {
			void (*off)(struct ringbuf *) = k ? ringbuf_record_disable :
							    ringbuf_record_off;
			void (*on)(struct ringbuf *) = k ? ringbuf_record_enable :
							   ringbuf_record_on;

			off(rb);
			off(rb);
			ASSERT_EQ(fe_slow(rb), base + 1 + k);
			ASSERT_NULL(ringbuf_reserve_inline(rb, 8));
			on(rb);
			on(rb);
			on(rb);
			ASSERT_EQ(fe_slow(rb), base);
		}

		/* a cpu buffer's disable is a count too, an extra enable
		 * clamped; per-thread, the thread's slot disabled refuses the
		 * inline write (the only load of the cpu buffer's word the
		 * write makes is behind fe_slow) */
		ASSERT_TRUE(write_inline(rb, n, g_lens[n % NLENS]));
		n++;
		for (int c = 0; c < ringbuf_nr_cpus(rb); c++) {
			if (ringbuf_entries_cpu(rb, c) == 0)
				continue;
			ringbuf_record_disable_cpu(rb, c);
			ringbuf_record_disable_cpu(rb, c);
			ASSERT_EQ(fe_slow(rb), base + 2);
			if (!model)
				ASSERT_NULL(ringbuf_reserve_inline(rb, 8));
			ringbuf_record_enable_cpu(rb, c);
			ASSERT_EQ(fe_slow(rb), base + 1);
			ringbuf_record_enable_cpu(rb, c);
			ringbuf_record_enable_cpu(rb, c);
			ASSERT_EQ(fe_slow(rb), base);
		}
		ringbuf_record_enable_cpu(rb, 999);
		ASSERT_EQ(fe_slow(rb), base);

		ringbuf_set_time_stamp_abs(rb, true);
		ringbuf_set_time_stamp_abs(rb, true);
		ASSERT_EQ(fe_slow(rb), base + 1);
		for (; n < 50; n++)
			ASSERT_TRUE(write_inline(rb, n, g_lens[n % NLENS]));
		ringbuf_set_time_stamp_abs(rb, false);
		ringbuf_set_time_stamp_abs(rb, false);
		ASSERT_EQ(fe_slow(rb), base);
		for (; n < 100; n++)
			ASSERT_TRUE(write_inline(rb, n, g_lens[n % NLENS]));
		check_all(rb, 0, n);

		ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(32), RINGBUF_ALL_CPUS), 0);
		ringbuf_reset(rb);
		ASSERT_EQ(fe_slow(rb), base);
		for (n = 0; n < 50; n++)
			ASSERT_TRUE(write_inline(rb, n, g_lens[n % NLENS]));
		check_all(rb, 0, n);
		ringbuf_free(rb);
	}
}


static struct ringbuf *g_rb;
static volatile sig_atomic_t g_handler_ret;

static void nest_handler(int sig)
{
	(void)sig;
	/* seq 1 of g_lens[1]: one byte */
	g_handler_ret = write_inline(g_rb, 1, g_lens[1]) ? 1 : -1;
}

/* A signal handler writes inline while the thread holds an inline
 * reservation: the records nest as the kernel's contexts do. */
static void signal_nest(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .model = RINGBUF_PER_CPU);
	struct sigaction sa = { .sa_handler = nest_handler };
	struct ringbuf_event *ev;
	uint64_t ts[2];
	uint32_t seqs[2];
	int cpu, n = 0;

	check_rseq();
	/* Pinned: after a migration between the reservation and the
	 * signal, the handler may write as the outermost writer of its new
	 * CPU's buffer (allowed, and committed at once), not nest. */
	tu_pin_here();
	g_rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(g_rb);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	ev = ringbuf_reserve_inline(g_rb, g_lens[0]);
	ASSERT_NOT_NULL(ev);
	tu_fill(ringbuf_event_data_inline(ev), 0, g_lens[0]);
	raise(SIGUSR1);
	ASSERT_EQ(g_handler_ret, 1);
	/* the handler's record is not visible before the outer commit */
	ASSERT_TRUE(ringbuf_empty(g_rb));
	ASSERT_EQ(ringbuf_commit_inline(g_rb), 0);
	while ((ev = ringbuf_consume_next(g_rb, &cpu, &ts[n], NULL))) {
		ASSERT_LT(n, 2);
		seqs[n] = (uint32_t)n;
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 seqs[n], g_lens[n]);
		n++;
	}
	ASSERT_EQ(n, 2);
	ASSERT_GE_U(ts[1], ts[0]);
	signal(SIGUSR1, SIG_DFL);
	ringbuf_free(g_rb);
}

/* Inline and out-of-line calls pair with each other, in both orders and
 * nested; a commit without a reservation and a write while recording is
 * off are refused. */
static void mixed(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .nr_cpus = 2,
		     .model = RINGBUF_PER_CPU);
	struct ringbuf *rb = ringbuf_create(&o);
	struct ringbuf_event *a, *b;
	uint32_t seq = 0;

	check_rseq();
	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringbuf_commit_inline(rb), -EINVAL);
	a = ringbuf_reserve_inline(rb, g_lens[seq % NLENS]);
	ASSERT_NOT_NULL(a);
	tu_fill(ringbuf_event_data_inline(a), seq, g_lens[seq % NLENS]);
	seq++;
	ASSERT_EQ(ringbuf_unlock_commit(rb), 0);
	a = ringbuf_lock_reserve(rb, g_lens[seq % NLENS]);
	ASSERT_NOT_NULL(a);
	tu_fill(ringbuf_event_data(a), seq, g_lens[seq % NLENS]);
	seq++;
	ASSERT_EQ(ringbuf_commit_inline(rb), 0);
	/* nested on one thread: the inner one commits first */
	a = ringbuf_reserve_inline(rb, g_lens[seq % NLENS]);
	ASSERT_NOT_NULL(a);
	tu_fill(ringbuf_event_data_inline(a), seq, g_lens[seq % NLENS]);
	b = ringbuf_lock_reserve(rb, g_lens[(seq + 1) % NLENS]);
	ASSERT_NOT_NULL(b);
	tu_fill(ringbuf_event_data(b), seq + 1, g_lens[(seq + 1) % NLENS]);
	ASSERT_EQ(ringbuf_commit_inline(rb), 0);
	ASSERT_EQ(ringbuf_commit_inline(rb), 0);
	seq += 2;
	ASSERT_EQ(ringbuf_commit_inline(rb), -EINVAL);
	check_all(rb, 0, seq);

	ringbuf_record_off(rb);
	ASSERT_NULL(ringbuf_reserve_inline(rb, 8));
	ASSERT_EQ(ringbuf_commit_inline(rb), -EINVAL);
	ringbuf_record_on(rb);
	ASSERT_NULL(ringbuf_reserve_inline(rb, ringbuf_max_event_size(rb) + 1));
	ASSERT_TRUE(write_inline(rb, 0, g_lens[0]));
	check_all(rb, 0, 1);
	ringbuf_free(rb);
}


/* Whether the buffer claims its CPU buffers by restartable sequence. */
static bool rseq_claims(struct ringbuf *rb)
{
	return ((const struct ringbuf_fe_buffer *)(const void *)rb)->rseq_claim;
}

/* Pin the calling thread to the CPU it runs on; returns that CPU. */
/*
 * A default per-CPU buffer claims by restartable sequence exactly where
 * glibc registered rseq on x86-64 (under ThreadSanitizer too, which is
 * told of the claim's acquire); the sequence itself: claimed on our CPU,
 * refused when the word is taken, aborted on another CPU number, and
 * nothing stored unless claimed.
 */
static void rseq_claim(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .model = RINGBUF_PER_CPU);
	struct ringbuf *rb = ringbuf_create(&o);
	bool want = ringbuf_fe_rseq_ok != 0;

	check_rseq();
	ASSERT_NOT_NULL(rb);
#if !defined(RINGBUF_FE_RSEQ_ASM)
	want = false;
#endif
	ASSERT_EQ(rseq_claims(rb), want);
	ringbuf_free(rb);
#ifdef RINGBUF_FE_RSEQ_ASM
	if (ringbuf_fe_rseq_ok) {
		uint32_t owner = 0;
		int cpu = tu_pin_here(), r = -1;

		/* a preemption between the check and the store aborts: try
		 * a few times */
		for (int i = 0; i < 100 && r < 0; i++)
			r = ringbuf_fe_rseq_claim(&owner, cpu, 1234);
		ASSERT_EQ(r, 1);
		ASSERT_EQ(owner, 1234);
		r = -1;
		for (int i = 0; i < 100 && r < 0; i++)
			r = ringbuf_fe_rseq_claim(&owner, cpu, 99);
		ASSERT_EQ(r, 0);
		ASSERT_EQ(owner, 1234);
		owner = 0;
		ASSERT_EQ(ringbuf_fe_rseq_claim(&owner, cpu + 1, 99), -1);
		ASSERT_EQ(owner, 0);
	}
#endif
}

struct holder {
	struct ringbuf *rb;
	int cpu;
	pthread_barrier_t ready, held, written;
};

static void *other_writer(void *arg)
{
	struct holder *h = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(h->cpu, &set);
	ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
	/* a first write (the thread's first takes the slow path), so that
	 * the one below takes the inline claim */
	tu_write_ok(h->rb, 1, 16);
	/* (that write is over before the other thread reserves: preempted
	 * inside it, it would send the other's reserve to a spare) */
	pthread_barrier_wait(&h->ready);
	pthread_barrier_wait(&h->held);
	tu_write_ok(h->rb, 2, 16);
	pthread_barrier_wait(&h->written);
	return NULL;
}

/*
 * While a thread holds its CPU's buffer (between reserve and commit),
 * another thread on the same CPU never writes into it: it takes a spare.
 */
static void claim_exclusive(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .model = RINGBUF_PER_CPU);
	struct holder h = { .rb = ringbuf_create(&o) };
	struct ringbuf_event *ev;
	int where[3] = { -1, -1, -1 }, on[3] = { -2, -2, -2 }, cpu, n = 0;
	pthread_t th;
	uint64_t ts;

	check_rseq();
	ASSERT_NOT_NULL(h.rb);
	h.cpu = tu_pin_here();
	ASSERT_EQ(pthread_barrier_init(&h.ready, NULL, 2), 0);
	ASSERT_EQ(pthread_barrier_init(&h.held, NULL, 2), 0);
	ASSERT_EQ(pthread_barrier_init(&h.written, NULL, 2), 0);
	ASSERT_EQ(pthread_create(&th, NULL, other_writer, &h), 0);
	pthread_barrier_wait(&h.ready);
	ev = ringbuf_reserve_inline(h.rb, 16);
	ASSERT_NOT_NULL(ev);
	tu_fill(ringbuf_event_data_inline(ev), 0, 16);
	pthread_barrier_wait(&h.held);
	pthread_barrier_wait(&h.written);
	ASSERT_EQ(ringbuf_commit_inline(h.rb), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	while ((ev = ringbuf_consume_next(h.rb, &cpu, &ts, NULL))) {
		uint32_t seq = tu_seq(ringbuf_event_data(ev));

		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), seq,
			 16);
		ASSERT_LT(seq, 3);
		where[seq] = cpu;
		on[seq] = ringbuf_event_cpu(ev);
		n++;
	}
	ASSERT_EQ(n, 3);
	ASSERT_EQ(where[0], h.cpu);
	/* written while we held our CPU's buffer: a spare */
	ASSERT_NE(where[2], h.cpu);
	ASSERT_TRUE(ringbuf_is_spare(h.rb, where[2]));
	/* every record says it was written on this CPU, the spare's too
	 * (its CPU note) */
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(on[i], h.cpu);
	pthread_barrier_destroy(&h.ready);
	pthread_barrier_destroy(&h.held);
	pthread_barrier_destroy(&h.written);
	ringbuf_free(h.rb);
}

/*
 * The CPU hint of the per-CPU claim (ringbuf_tls.cpu_hint): on each CPU
 * the thread may run on, in turn, a write after the hint was set wrong
 * (another CPU, one without a buffer, the no-hint value) still lands in
 * that CPU's buffer, and the hint follows the CPU where the buffer
 * claims by restartable sequence (the only claim that reads it).
 */
static void cpu_hint(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(16), .model = RINGBUF_PER_CPU);
	struct ringbuf *rb = ringbuf_create(&o);
	static const uint16_t wrong[] = { 0, 1, 9999, RINGBUF_FE_NO_HINT };
	cpu_set_t allowed, one;
	struct ringbuf_event *ev;
	uint32_t seq = 0, n;
	int cpu, cpus = 0;
	uint64_t ts;

	check_rseq();
	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
		ASSERT_EQ(sched_getcpu(), c);
		for (size_t k = 0; k < sizeof(wrong) / sizeof(wrong[0]); k++) {
			uint32_t first = seq;

			ringbuf_tls.cpu_hint = wrong[k];
			ASSERT_TRUE(write_inline(rb, seq++, 16));
			if (rseq_claims(rb))
				ASSERT_EQ(ringbuf_tls.cpu_hint, c);
			ASSERT_TRUE(write_inline(rb, seq++, 16));
			n = 0;
			while ((ev = ringbuf_consume_next(rb, &cpu, &ts, NULL))) {
				ASSERT_EQ(tu_seq(ringbuf_event_data(ev)), first + n);
				tu_check(ringbuf_event_data(ev),
					 ringbuf_event_length(ev), first + n, 16);
				ASSERT_EQ(cpu, c);
				n++;
			}
			ASSERT_EQ(n, 2);
		}
		cpus++;
	}
	ASSERT_GE(cpus, 1);
	ASSERT_EQ(sched_setaffinity(0, sizeof(allowed), &allowed), 0);
	ringbuf_free(rb);
}

#ifdef RINGBUF_FE_RSEQ_ASM
/* The cpu buffer of @cpu as the fast path sees it. */
static struct ringbuf_fe_cpu *fe_cpu(struct ringbuf *rb, int cpu)
{
	return ((const struct ringbuf_fe_buffer *)(const void *)rb)->buffers[cpu];
}

/* The CPU buffer index (or spare) of the one record in @rb, consumed. */
static int one_record_cpu(struct ringbuf *rb, uint32_t seq)
{
	struct ringbuf_event *ev;
	int cpu = -1, n = 0;
	uint64_t ts;

	while ((ev = ringbuf_consume_next(rb, &cpu, &ts, NULL))) {
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), seq,
			 16);
		n++;
	}
	ASSERT_EQ(n, 1);
	return cpu;
}

/* ringbuf_fe_rseq_enter() for thread @tid, tried again while a
 * preemption aborts it. */
static int enter_retry(uint32_t *owner, uint64_t *active, int cpu,
		       uint32_t tid)
{
	int r = -1;

	for (int i = 0; i < 100 && r < 0; i++)
		r = ringbuf_fe_rseq_enter(owner, active, cpu,
					  tid | RINGBUF_FE_KEPT);
	return r;
}

struct kept {
	struct ringbuf *rb;
	int cpu;
	bool leave; /* exit with the write open */
};

static void *kept_writer(void *arg)
{
	struct kept *k = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(k->cpu, &set);
	ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
	ASSERT_TRUE(write_inline(k->rb, 10, 16));
	if (k->leave) {
		/* a second write, left open: the exit destructor rolls it
		 * back and lowers active */
		ASSERT_NOT_NULL(ringbuf_reserve_inline(k->rb, 16));
		pthread_exit(NULL);
	}
	return NULL;
}
#endif

/*
 * The claim kept between writes, where CPU buffers are claimed by
 * restartable sequence: the sequence that starts a write (raises active
 * where the owner word holds our kept id on our CPU; refuses another id,
 * aborts on another CPU, stores nothing then); a write leaves the owner
 * word with our kept id and active 0; another thread on the CPU takes
 * the claim over (its record in the CPU's buffer, not a spare) and the
 * first thread takes it back; a thread that leaves inside a write in a
 * kept buffer has it rolled back, so the next thread takes it over.
 */
static void kept_claim(void)
{
#ifdef RINGBUF_FE_RSEQ_ASM
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .model = RINGBUF_PER_CPU);
	struct ringbuf *rb;
	struct kept k;
	uint32_t tidk;
	pthread_t th;

	check_rseq();
	if (!ringbuf_fe_rseq_ok)
		return;
	k.cpu = tu_pin_here();
	{
		uint32_t owner = 77 | RINGBUF_FE_KEPT;
		uint64_t active = 0;

		ASSERT_EQ(enter_retry(&owner, &active, k.cpu, 77), 1);
		ASSERT_EQ(active, 1);
		ASSERT_EQ(enter_retry(&owner, &active, k.cpu, 77), 1);
		ASSERT_EQ(active, 2);
		ASSERT_EQ(enter_retry(&owner, &active, k.cpu, 78), 0);
		ASSERT_EQ(ringbuf_fe_rseq_enter(&owner, &active, k.cpu + 1,
						77 | RINGBUF_FE_KEPT), -1);
		ASSERT_EQ(active, 2);
		ASSERT_EQ(owner, 77 | RINGBUF_FE_KEPT);
	}
	rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(rb);
	k.rb = rb;
	if (!rseq_claims(rb)) {
		ringbuf_free(rb);
		return;
	}
	ASSERT_TRUE(write_inline(rb, 0, 16));
	ASSERT_TRUE(write_inline(rb, 1, 16));
	tidk = ringbuf_tls.tid | RINGBUF_FE_KEPT;
	ASSERT_EQ(fe_cpu(rb, k.cpu)->owner, tidk);
	ASSERT_EQ(fe_cpu(rb, k.cpu)->active, 0);
	while (ringbuf_consume_next(rb, NULL, NULL, NULL))
		;
	for (int leave = 0; leave < 2; leave++) {
		k.leave = leave;
		ASSERT_EQ(pthread_create(&th, NULL, kept_writer, &k), 0);
		ASSERT_EQ(pthread_join(th, NULL), 0);
		/* its record in the CPU's buffer: it took our claim over */
		ASSERT_EQ(one_record_cpu(rb, 10), k.cpu);
		ASSERT_NE(fe_cpu(rb, k.cpu)->owner, tidk);
		ASSERT_EQ(fe_cpu(rb, k.cpu)->owner & RINGBUF_FE_KEPT,
			  RINGBUF_FE_KEPT);
		ASSERT_EQ(fe_cpu(rb, k.cpu)->active, 0);
		ASSERT_EQ(ringbuf_torn_events_cpu(rb, k.cpu), (uint64_t)leave);
		/* and back: ours again, in the CPU's buffer */
		ASSERT_TRUE(write_inline(rb, 2, 16));
		ASSERT_EQ(one_record_cpu(rb, 2), k.cpu);
		ASSERT_EQ(fe_cpu(rb, k.cpu)->owner, tidk);
	}
	ringbuf_free(rb);
#endif
}

/*
 * The claim of the earlier headers' inline code (its slow path,
 * ringbuf_fe_claim_noted_slow()) on a buffer whose CPU buffer a thread
 * keeps: a claim for one write (a plain thread id, bit 0 of the frame
 * word: given back at commit), active left to the caller; while it is
 * held, another thread on the CPU does not take it over (its write goes
 * to a spare), and after its release (owner 0) the next write keeps it.
 */
static void legacy_claim(void)
{
#ifdef RINGBUF_FE_RSEQ_ASM
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .model = RINGBUF_PER_CPU);
	struct ringbuf *rb;
	struct ringbuf_fe_cpu *cb;
	struct kept k = { 0 };
	uintptr_t f = 0;
	pthread_t th;
	int err = 0;

	check_rseq();
	if (!ringbuf_fe_rseq_ok)
		return;
	k.cpu = tu_pin_here();
	rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(rb);
	k.rb = rb;
	if (!rseq_claims(rb)) {
		ringbuf_free(rb);
		return;
	}
	ASSERT_TRUE(write_inline(rb, 0, 16));
	cb = fe_cpu(rb, k.cpu);
	ASSERT_EQ(cb->owner, ringbuf_tls.tid | RINGBUF_FE_KEPT);
	while (ringbuf_consume_next(rb, NULL, NULL, NULL))
		;
	for (int i = 0; i < 100 && !(f & 1); i++)
		f = ringbuf_fe_claim_noted_slow(rb, k.cpu, &err);
	ASSERT_EQ(RINGBUF_FE_FRAME_CB(f), (uintptr_t)cb);
	ASSERT_EQ(f & 1, 1);
	ASSERT_EQ(cb->owner, ringbuf_tls.tid);
	ASSERT_EQ(cb->active, 0);
	/* held for one write: another thread of the CPU takes a spare */
	ASSERT_EQ(pthread_create(&th, NULL, kept_writer, &k), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_TRUE(ringbuf_is_spare(rb, one_record_cpu(rb, 10)));
	ASSERT_EQ(cb->owner, ringbuf_tls.tid);
	/* the earlier headers' release */
	__atomic_store_n(&cb->owner, 0, __ATOMIC_RELEASE);
	ASSERT_TRUE(write_inline(rb, 1, 16));
	ASSERT_EQ(one_record_cpu(rb, 1), k.cpu);
	ASSERT_EQ(cb->owner, ringbuf_tls.tid | RINGBUF_FE_KEPT);
	ringbuf_free(rb);
#endif
}

/*
 * The claim kept between writes on a CPU buffer that gets disabled: the
 * thread's next write goes to a spare (ringbuf_record_disable_cpu()),
 * the claim stays, and the buffer takes its writes again once enabled.
 * (Without rseq, the claim for one write does the same.)
 */
static void kept_disabled(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .model = RINGBUF_PER_CPU,
		     .spare_buffers = 1);
	struct ringbuf *rb;
	int cpu = tu_pin_here();

	check_rseq();
	rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(rb);
	ASSERT_TRUE(write_inline(rb, 0, 16));
	ASSERT_TRUE(write_inline(rb, 1, 16));
	ASSERT_EQ(ringbuf_entries_cpu(rb, cpu), 2);
	if (rseq_claims(rb))
		ASSERT_EQ(fe_cpu(rb, cpu)->owner,
			  ringbuf_tls.tid | RINGBUF_FE_KEPT);
	ringbuf_record_disable_cpu(rb, cpu);
	ASSERT_TRUE(write_inline(rb, 2, 16));
	ASSERT_TRUE(write_inline(rb, 3, 16));
	ASSERT_EQ(ringbuf_entries_cpu(rb, cpu), 2);
	ASSERT_EQ(ringbuf_entries(rb), 4);
	ASSERT_EQ(fe_cpu(rb, cpu)->active, 0);
	ringbuf_record_enable_cpu(rb, cpu);
	ASSERT_TRUE(write_inline(rb, 4, 16));
	ASSERT_EQ(ringbuf_entries_cpu(rb, cpu), 3);
	ringbuf_free(rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(pages_per_thread),
	RBT_CASE(pages_per_cpu),
	RBT_CASE(abs_stamps), RBT_CASE(stamp_behind), RBT_CASE(slow_reasons),
	RBT_CASE(signal_nest),
	RBT_CASE(mixed),
	RBT_CASE(rseq_claim),
	RBT_CASE(claim_exclusive), RBT_CASE(cpu_hint),
	RBT_CASE(kept_claim), RBT_CASE(kept_disabled), RBT_CASE(legacy_claim),
};
RBT_MAIN(cases)
