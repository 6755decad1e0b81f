/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench.h - shared declarations of ringbuf-bench.
 *
 * A "case" is one configuration (implementation, payload, writers, ...)
 * measured "runs" times; every run yields a struct bench_result. The
 * implementations (ringbuf, the floor, the mutex ring, LTTng-UST, the
 * kernel's trace_marker_raw) each provide one run function.
 */
#ifndef RINGBUF_BENCH_H
#define RINGBUF_BENCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_MAX_WRITERS 256
#define BENCH_MAX_PAYLOAD 4000u

enum bench_impl {
	IMPL_RINGBUF = 0,	/* libringbuf, writers + optional consumer */
	IMPL_DRAIN,		/* libringbuf, consumer alone on a full buffer */
	IMPL_FLOOR,		/* plain stores, no atomics, no reader */
	IMPL_MUTEX,		/* mutex-protected ring of variable-length records */
	IMPL_LTTNG,		/* LTTng-UST tracepoint in a live session */
	IMPL_KERNEL,		/* the kernel's ring buffer via trace_marker_raw */
	IMPL_NR
};

enum bench_clock {
	BCLOCK_TSC = 0,
	BCLOCK_MONO,
};

enum bench_consumer {
	CONS_NONE = 0,		/* no reader */
	CONS_EVENT,		/* event by event, per cpu buffer (consume) */
	CONS_PAGE,		/* a sub-buffer at a time (read_page) */
	CONS_MERGE,		/* oldest first across buffers (consume_next) */
};

/** struct bench_case - one configuration */
struct bench_case {
	char id[64];		/* short name, used by --case and in JSON */
	enum bench_impl impl;
	int model;		/* RINGBUF_PER_CPU or RINGBUF_PER_THREAD */
	enum bench_clock clock;
	unsigned int payload;	/* payload bytes of every event */
	unsigned int writers;	/* writer threads */
	bool pin;		/* pin writers (and the consumer) to CPUs */
	bool overwrite;		/* overwrite mode (else producer/consumer) */
	enum bench_consumer consumer;
	unsigned int signal_hz;	/* nested writes per second per writer */
	double duration;	/* seconds per run */
	size_t size;		/* bytes per cpu buffer */
	int nr_buffers;		/* ringbuf_opts.nr_cpus; 0 = the default */
	int spare_buffers;	/* ringbuf_opts.spare_buffers; 0 = the default */
	const char *note;	/* shown under the title; may be NULL */
};

/** struct bench_result - what one run measured */
struct bench_result {
	bool skipped;
	char why[256];		/* skipped: why; or a note on the run */
	double foreign_pct;	/* CPU share other programs took meanwhile, or -1 */
	unsigned int retries;	/* times the run was repeated because of them */
	/* How much slower than its best the slowest timed CPU ran around the
	 * run (percent; bench_cpu_slow_pct()), or -1 when not probed; and
	 * the times the run was repeated because of that. */
	double slow_pct;
	unsigned int slow_retries;
	double secs;		/* wall time of the writing phase */
	uint64_t attempts;	/* writes tried (thread + nested) */
	uint64_t written;	/* writes that succeeded */
	uint64_t missed;	/* writes refused */
	uint64_t nested;	/* of written: from signal handlers */
	uint64_t nested_signals; /* signal handler runs (written or not) */
	uint64_t read;		/* events the consumer got */
	uint64_t read_bytes;	/* bytes the consumer got (records) */
	uint64_t bad_records;	/* consumer saw a record of a wrong size */
	/* After the run the buffer was drained: every record each writer
	 * stream committed was either read (once) or is counted lost. */
	bool drained;
	uint64_t seq_dup;	/* (stream, sequence) read more than once */
	uint64_t seq_unseen;	/* committed, never read: must equal overrun */
	uint64_t seq_alien;	/* a stream or sequence no writer wrote */
	bool seq_checked;	/* one writer: its counter was followed */
	uint64_t seq_gaps, seq_missing;	/* jumps in it, events they skipped */
	uint64_t overrun;	/* events overwritten (library counters) */
	uint64_t dropped;	/* dropped_events (library counters) */
	uint64_t commit_overrun;
	uint64_t entries;	/* still in the buffer at the end */
	uint64_t lib_read;	/* read_events (library counters) */
	bool have_lib_counters;
	double ns_per_event;	/* per writer: wall ns / attempts, averaged */
	double cpu_ns_per_event; /* per writer: thread cpu ns / attempts */
	double consumer_secs;	/* consumer active time (drain: draining) */
	uint64_t cons_longest_pass_ns;	/* longest pass over the buffers */
	uint64_t cons_longest_idle_ns;	/* longest time it got nothing */
	uint64_t cons_longest_nap_ns;	/* longest nap (asked: 20 us) */
	/* consistency: written == read + overrun + entries, and more */
	bool consistent;
	char inconsistency[256];
};

/**
 * struct bench_writer - one writer thread of a run
 *
 * The hot loop of an implementation fills in the counters; the harness
 * fills in the times.
 */
struct bench_writer {
	unsigned int idx;
	int cpu;			/* pinned to this CPU, or -1 */
	const struct bench_case *c;
	void *impl;			/* the implementation's shared state */
	void *priv;			/* the implementation's per-writer state */
	uint64_t attempts, written, missed;
	uint64_t nested_ok, nested_missed; /* written by the signal handler */
	uint64_t wall_ns, cpu_ns;
	int error;			/* setup failed: errno */
	pthread_t tid;
	struct bench_team *team;
	unsigned char src[BENCH_MAX_PAYLOAD] __attribute__((aligned(16)));
};

/**
 * struct bench_team - writers (and a consumer) run by bench_team_run()
 *
 * The order: writers start, pin and run @warmup; @between runs on the
 * main thread with every writer waiting; then writers and the consumer
 * are released together, the main thread sleeps for the duration and
 * raises bench_stop; the writers return from @loop and are joined; the
 * consumer is stopped (cons_stop) and joined last.
 */
struct bench_team {
	const struct bench_case *c;
	unsigned int nw;
	struct bench_writer *w;
	void *impl;
	void (*warmup)(struct bench_writer *w);		/* may be NULL */
	void (*between)(struct bench_team *t);		/* may be NULL */
	void (*loop)(struct bench_writer *w);
	void (*consumer)(struct bench_team *t);		/* may be NULL */
	int consumer_cpu;
	atomic_bool cons_stop;
	uint64_t cons_ns;				/* consumer wall time */
	pthread_barrier_t warm, go;
	double secs;					/* writing phase */
};

/* Allocate the writers of @t for @c; 0, or -1 with @r marked skipped. */
int bench_team_init(struct bench_team *t, const struct bench_case *c,
		    struct bench_result *r);
/* Run the team; 0, or -1 with @r marked skipped. */
int bench_team_run(struct bench_team *t, struct bench_result *r);
void bench_team_sum(const struct bench_team *t, struct bench_result *r);

/* Write @seq then the rest of the payload pattern: what every writer stores. */
static inline __attribute__((always_inline)) void
bench_put_payload(void *dst, const unsigned char *src, unsigned int len,
		  uint64_t seq)
{
	if (len >= 8) {
		__builtin_memcpy(dst, &seq, 8);
		__builtin_memcpy((unsigned char *)dst + 8, src + 8, len - 8);
	} else {
		__builtin_memcpy(dst, &seq, len);
	}
}

/*
 * Call BODY(len) with @len a compile-time constant for the payload sizes
 * the bench offers, so that every implementation's loop copies its
 * payload the way a tracepoint with a fixed record would.
 */
#define BENCH_PAYLOAD_SWITCH(len, BODY)                                     \
	do {                                                                \
		switch (len) {                                              \
		case 8: BODY(8u); break;                                    \
		case 16: BODY(16u); break;                                  \
		case 64: BODY(64u); break;                                  \
		case 256: BODY(256u); break;                                \
		default: BODY(len); break;                                  \
		}                                                           \
	} while (0)

/** The stop flag every writer loop polls (relaxed). */
extern atomic_bool bench_stop;

/* --- helpers (ringbuf-bench.c) --- */
uint64_t bench_now_ns(void);
uint64_t bench_thread_cpu_ns(void);
void bench_sleep_ns(uint64_t ns);
int bench_nr_cpus_allowed(void);
int bench_cpu_for(unsigned int idx);
int bench_pin_self(int cpu);
void bench_fill_payload(unsigned char *buf, size_t len);
/* snprintf for messages, where truncation is fine */
void bench_msg(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
extern int bench_verbose;
extern unsigned int bench_consumer_sleep_us;
/* The producer/consumer cases' cpu buffers when -s is not given (50 ms of
 * a writer at full speed) and the ringbuf reader's watermark (percent):
 * a tenth, as ringtrace record's, so that nine tenths of the buffer
 * (45 ms) are the time the reader may be kept off its CPU once woken (at
 * a quarter, three quarters: a reader kept waiting 35 ms lost records on
 * a loaded machine); a wake each 6 MiB costs the writer nothing it can
 * measure */
#define BENCH_LIVE_SIZE ((size_t)64 << 20)
#define BENCH_LIVE_WATERMARK 10
extern unsigned long long bench_warmup_events;

/* --- page parsing (page.c) --- */
struct page_stats {
	uint64_t events;	/* data records */
	uint64_t bytes;		/* record bytes, headers included */
	uint64_t bad;		/* data records whose payload was not the expected size */
	uint64_t lost;		/* missed events stored after the data */
	bool missed;		/* RINGBUF_MISSED_EVENTS was set */
	bool corrupt;		/* the walk left the page */
	/* sequence check (one writer): the payload starts with its counter */
	bool check_seq;
	uint64_t last_seq;	/* carried from page to page by the caller */
	uint64_t seq_gaps;	/* places where the counter jumped */
	uint64_t seq_missing;	/* events the jumps skipped */
	uint64_t first_gap_at;	/* index in the page of the first jump, + 1 */
	/* if set, called with the first 8 payload bytes of each data record */
	void (*mark)(void *ctx, uint64_t word);
	void *mark_ctx;
};
void bench_parse_page(const void *page, size_t page_size,
		      unsigned int expect_payload, struct page_stats *st);

/* --- implementations --- */
void bench_run_ringbuf(const struct bench_case *c, struct bench_result *r);
void bench_run_drain(const struct bench_case *c, struct bench_result *r);
void bench_run_floor(const struct bench_case *c, struct bench_result *r);
void bench_run_mutex(const struct bench_case *c, struct bench_result *r);
void bench_run_lttng(const struct bench_case *c, struct bench_result *r);
void bench_run_kernel(const struct bench_case *c, struct bench_result *r);

/* LTTng: the daemon is started once and stopped at exit. */
void bench_lttng_shutdown(void);
void bench_kernel_cleanup(void);
extern const char *bench_lttng_user;
extern const char *bench_lttng_helper;
extern const char *bench_tracefs;

/* Round a payload up to the record alignment. */
static inline unsigned int bench_align4(unsigned int n)
{
	return (n + 3u) & ~3u;
}

/*
 * The payload bytes of the record the ring buffer stores for @len bytes
 * (what ringbuf_event_length() reports): 4-byte aligned, and as in the
 * kernel never a 12-byte record, which could not be turned into a time
 * extend plus padding; so an 8-byte payload takes a 12-byte slot.
 */
static inline unsigned int bench_record_payload(unsigned int len)
{
	unsigned int p = bench_align4(len ? len : 1);

	if (p > 112u)
		return p;
	return p == 8u ? 12u : p;
}

#endif /* RINGBUF_BENCH_H */
