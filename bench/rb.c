// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb.c - the cases that measure libringbuf itself.
 *
 * bench_run_ringbuf(): writer threads reserve, fill and commit fixed-size
 * events for the duration while a consumer thread (optional) reads them
 * event by event, a page at a time, or merged across cpu buffers.
 * Optionally a per-thread POSIX timer interrupts every writer at a given
 * rate and its signal handler writes one more event, nested in whatever
 * the writer was doing.
 *
 * bench_run_drain(): how fast the consumer empties a full buffer. A
 * writer thread fills the buffer (producer/consumer mode, until a write
 * is refused), then the consumer drains it on another CPU; only the
 * draining is timed, over as many fill/drain rounds as fit in the
 * duration.
 */
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/frontend.h>
#include <ringbuf/ringbuf.h>

#include "bench.h"

/* glibc before 2.41 names the field only through the union. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

struct rb_shared {
	struct ringbuf *rb;
	int nr_cpus;
	size_t subbuf;
	/* consumer side */
	uint64_t cons_events, cons_bytes, cons_bad, cons_lost, cons_corrupt;
	/* one writer: its counters must arrive in order (see page.c) */
	bool check_seq;
	uint64_t last_seq, seq_gaps, seq_missing;
	unsigned int gap_reports;
	uint64_t prev_commit, prev_events, prev_ts;	/* the page read before */
	uint64_t longest_pass_ns, longest_idle_ns;	/* consumer stalls */
	uint64_t longest_nap_ns;			/* its longest nap */
	/* the last pass found every buffer empty, up to the writer's page
	 * (no pass ended for its batch limit) */
	bool caught_up;
	/* (stream, sequence) read: a bitmap per stream, by the consumer */
	struct rb_seen {
		uint64_t *bits;
		uint64_t words;
		uint64_t count;
	} *seen;
	unsigned int nr_streams;
	uint64_t seq_dup, seq_alien;
};

/*
 * The first 8 payload bytes: the stream in the top 16 bits (writer i's
 * thread is 2i + 1, its signal handler 2i + 2; 0 is the warm-up, reset
 * before the run) and the stream's sequence, from 1, below.
 */
#define RB_SEQ_BITS 48
#define RB_SEQ_MASK ((1ull << RB_SEQ_BITS) - 1)

static inline uint64_t rb_stream_tag(unsigned int stream)
{
	return (uint64_t)stream << RB_SEQ_BITS;
}

static void rb_seen_mark(void *ctx, uint64_t word)
{
	struct rb_shared *s = ctx;
	unsigned int stream = (unsigned int)(word >> RB_SEQ_BITS);
	uint64_t seq = word & RB_SEQ_MASK, w = seq / 64;
	struct rb_seen *sn;

	if (!stream || stream > s->nr_streams || !seq) {
		s->seq_alien++;
		return;
	}
	sn = &s->seen[stream - 1];
	if (w >= sn->words) {
		uint64_t n = w * 2 + 1024;
		uint64_t *b = realloc(sn->bits, n * sizeof(*b));

		if (!b) {
			s->seq_alien++;
			return;
		}
		memset(b + sn->words, 0, (n - sn->words) * sizeof(*b));
		sn->bits = b;
		sn->words = n;
	}
	if (sn->bits[w] & (1ull << (seq % 64))) {
		s->seq_dup++;
		return;
	}
	sn->bits[w] |= 1ull << (seq % 64);
	sn->count++;
}

/* ---------------------------------------------------------------------- */
/* Writers                                                                 */

static _Thread_local struct bench_writer *tls_writer;
static _Thread_local timer_t tls_timer;
static _Thread_local volatile sig_atomic_t tls_timer_on;

/* Nested write from the timer signal: same event, same buffer. */
static void rb_sig_handler(int sig)
{
	struct bench_writer *w = tls_writer;
	struct rb_shared *s;
	struct ringbuf_event *ev;
	int saved = errno;

	(void)sig;
	/*
	 * Past the end of the run, disarm: at a rate the machine cannot
	 * deliver, the thread would otherwise spend all its time taking
	 * signals and never see the stop flag (timer_settime() is
	 * async-signal-safe).
	 */
	if (tls_timer_on && atomic_load_explicit(&bench_stop, memory_order_relaxed)) {
		struct itimerspec off;

		memset(&off, 0, sizeof(off));
		timer_settime(tls_timer, 0, &off, NULL);
		tls_timer_on = 0;
	}
	if (!w) {
		errno = saved;
		return;
	}
	s = w->impl;
	ev = ringbuf_reserve_inline(s->rb, w->c->payload);
	if (ev) {
		bench_put_payload(ringbuf_event_data_inline(ev), w->src,
				  w->c->payload, rb_stream_tag(2 * w->idx + 2) | (w->nested_ok + 1));
		ringbuf_commit_inline(s->rb);
		w->nested_ok++;
	} else {
		w->nested_missed++;
	}
	errno = saved;
}

static int rb_sig_install(void)
{
	static bool done;
	struct sigaction sa;

	if (done)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rb_sig_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGRTMIN + 1, &sa, NULL))
		return -errno;
	done = true;
	return 0;
}

/* A timer that sends SIGRTMIN+1 to the calling thread @hz times a second. */
static int rb_timer_start(unsigned int hz, timer_t *tm)
{
	struct sigevent sev;
	struct itimerspec its;
	long period = (long)(1000000000ull / hz);

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGRTMIN + 1;
	sev.sigev_notify_thread_id = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, tm))
		return -errno;
	/* From the first expiry on, the handler may disarm it (see there). */
	tls_timer_on = 1;
	if (period < 1)
		period = 1;
	its.it_interval.tv_sec = period / 1000000000L;
	its.it_interval.tv_nsec = period % 1000000000L;
	its.it_value = its.it_interval;
	if (timer_settime(*tm, 0, &its, NULL)) {
		int e = errno;

		tls_timer_on = 0;
		timer_delete(*tm);
		return -e;
	}
	return 0;
}

static inline __attribute__((always_inline)) void
rb_loop(struct bench_writer *w, unsigned int len)
{
	struct rb_shared *s = w->impl;
	struct ringbuf *rb = s->rb;
	uint64_t seq = 0, ok = 0, miss = 0, tag = rb_stream_tag(2 * w->idx + 1);

	while (!atomic_load_explicit(&bench_stop, memory_order_relaxed)) {
		struct ringbuf_event *ev = ringbuf_reserve_inline(rb, len);

		seq++;
		if (__builtin_expect(ev != NULL, 1)) {
			bench_put_payload(ringbuf_event_data_inline(ev), w->src, len,
					  tag | seq);
			ringbuf_commit_inline(rb);
			ok++;
		} else {
			miss++;
		}
	}
	w->attempts = seq;
	w->written = ok;
	w->missed = miss;
}

static void rb_loop_fn(struct bench_writer *w)
{
	bool timer = false;

	tls_writer = w;
	if (w->c->signal_hz) {
		int ret;

		tls_timer_on = 0;
		ret = rb_timer_start(w->c->signal_hz, &tls_timer);
		if (ret)
			w->error = -ret;
		else
			timer = true;
	}
#define BODY(L) rb_loop(w, L)
	BENCH_PAYLOAD_SWITCH(w->c->payload, BODY);
#undef BODY
	if (timer) {
		sigset_t set, old;

		/* No signal may land once the counters are read. */
		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN + 1);
		pthread_sigmask(SIG_BLOCK, &set, &old);
		tls_timer_on = 0;
		timer_delete(tls_timer);
	}
	tls_writer = NULL;
}

/*
 * Warm-up: touch the pages of this writer's buffer and the code paths,
 * without the timer. The buffer is reset before the measurement.
 */
static void rb_warmup(struct bench_writer *w)
{
	struct rb_shared *s = w->impl;
	unsigned long long n = bench_warmup_events;
	unsigned long long i;
	uint64_t per_buf = w->c->size / (4u + bench_align4(w->c->payload)) + 1;

	if (!n)
		return;
	/* Enough to wrap the buffer once, unless told otherwise. */
	if (n == ~0ull)
		n = per_buf + per_buf / 4;
	for (i = 0; i < n; i++) {
		struct ringbuf_event *ev =
			ringbuf_reserve_inline(s->rb, w->c->payload);

		if (!ev)
			break;
		bench_put_payload(ringbuf_event_data_inline(ev), w->src,
				  w->c->payload, i);
		ringbuf_commit_inline(s->rb);
	}
}

static void rb_between(struct bench_team *t)
{
	struct rb_shared *s = t->impl;

	ringbuf_reset(s->rb);
}

/* ---------------------------------------------------------------------- */
/* Consumers                                                               */

static void rb_account_event(struct rb_shared *s, struct ringbuf_event *ev,
			     unsigned int expect)
{
	unsigned int len = ringbuf_event_length(ev);

	if (s->seen && len >= 8) {
		uint64_t word;

		memcpy(&word, ringbuf_event_data(ev), sizeof(word));
		rb_seen_mark(s, word);
	}
	s->cons_events++;
	s->cons_bytes += RINGBUF_EVENT_HDR_SIZE + len +
			 (len > RINGBUF_MAX_SMALL_DATA ? 4u : 0u);
	if (len != bench_record_payload(expect))
		s->cons_bad++;
}

/* Returns the number of events read. */
static uint64_t rb_consume_pass(struct rb_shared *s, enum bench_consumer mode,
				void *page, unsigned int expect, int full)
{
	uint64_t before = s->cons_events;
	unsigned long lost;
	unsigned int n;
	int cpu;

	s->caught_up = true;
	switch (mode) {
	case CONS_EVENT:
		for (cpu = 0; cpu < s->nr_cpus; cpu++) {
			struct ringbuf_event *ev;

			for (n = 0; n < 1024 &&
			     (ev = ringbuf_consume(s->rb, cpu, NULL, &lost)); n++) {
				s->cons_lost += lost;
				rb_account_event(s, ev, expect);
			}
			if (n == 1024)
				s->caught_up = false;
		}
		break;
	case CONS_MERGE: {
		struct ringbuf_event *ev;

		for (n = 0; n < 4096 &&
		     (ev = ringbuf_consume_next(s->rb, &cpu, NULL, &lost)); n++) {
			s->cons_lost += lost;
			rb_account_event(s, ev, expect);
		}
		if (n == 4096)
			s->caught_up = false;
		break;
	}
	case CONS_PAGE:
		for (cpu = 0; cpu < s->nr_cpus; cpu++) {
			for (n = 0; n < 64 &&
			     ringbuf_read_page(s->rb, page, s->subbuf, cpu, full) >= 0;
			     n++) {
				struct page_stats st;

				memset(&st, 0, sizeof(st));
				if (s->seen) {
					st.mark = rb_seen_mark;
					st.mark_ctx = s;
				}
				st.check_seq = s->check_seq;
				st.last_seq = s->last_seq;
				bench_parse_page(page, s->subbuf, expect, &st);
				s->last_seq = st.last_seq;
				s->seq_gaps += st.seq_gaps;
				s->seq_missing += st.seq_missing;
				if (st.seq_gaps && bench_verbose > 1 && s->gap_reports++ < 10) {
					const struct ringbuf_data_page *dp = page;

					fprintf(stderr, "seq gap: cpu %d, page commit %#llx ts %llu, %llu events,"
						" first jump at event %llu, %llu missing; previous page:"
						" commit %#llx, %llu events, ts %llu\n", cpu,
						(unsigned long long)dp->commit,
						(unsigned long long)dp->time_stamp,
						(unsigned long long)st.events,
						(unsigned long long)st.first_gap_at,
						(unsigned long long)st.seq_missing,
						(unsigned long long)s->prev_commit,
						(unsigned long long)s->prev_events,
						(unsigned long long)s->prev_ts);
				}
				s->prev_commit = ((const struct ringbuf_data_page *)page)->commit;
				s->prev_ts = ((const struct ringbuf_data_page *)page)->time_stamp;
				s->prev_events = st.events;
				s->cons_events += st.events;
				s->cons_bytes += st.bytes;
				s->cons_bad += st.bad;
				s->cons_lost += st.lost;
				s->cons_corrupt += st.corrupt;
			}
			if (n == 64)
				s->caught_up = false;
		}
		break;
	case CONS_NONE:
		break;
	}
	return s->cons_events - before;
}

static void rb_consumer(struct bench_team *t)
{
	struct rb_shared *s = t->impl;
	void *page = NULL;

	if (t->c->consumer == CONS_PAGE) {
		page = ringbuf_alloc_read_page(s->rb, 0);
		if (!page) {
			fprintf(stderr, "ringbuf-bench: ringbuf_alloc_read_page: %s\n",
				strerror(errno));
			return;
		}
	}
	uint64_t last = bench_now_ns();

	while (!atomic_load_explicit(&t->cons_stop, memory_order_acquire)) {
		uint64_t t0 = bench_now_ns(), t1;
		uint64_t n = rb_consume_pass(s, t->c->consumer, page, t->c->payload, 1);

		t1 = bench_now_ns();
		if (t1 - t0 > s->longest_pass_ns)
			s->longest_pass_ns = t1 - t0;
		if (n) {
			/* the longest time without getting anything */
			if (t0 - last > s->longest_idle_ns)
				s->longest_idle_ns = t0 - last;
			last = t1;
		}
		/*
		 * In overwrite mode the reader naps whenever the pass caught
		 * up with the writers, as the kernel's benchmark reader sleeps
		 * once the buffer is empty: another pass at once would only
		 * look at the pages the writers are on, whose lines they
		 * write at every record (a miss at each writer's next record
		 * per look). In producer/consumer mode the reader blocks
		 * when it found nothing, until the writer's commit crosses
		 * the watermark (it wakes us), or 1 ms passed (to see
		 * cons_stop); nothing is refused during an overwrite nap.
		 */
		if (!n || (t->c->overwrite && s->caught_up)) {
			if (!t->c->overwrite)
				(void)ringbuf_wait(s->rb, RINGBUF_ALL_CPUS,
						   BENCH_LIVE_WATERMARK, 1);
			else
				bench_sleep_ns(bench_consumer_sleep_us * 1000ull);
			t0 = bench_now_ns();
			if (t0 - t1 > s->longest_nap_ns)
				s->longest_nap_ns = t0 - t1;
		}
	}
	ringbuf_free_read_page(s->rb, 0, page);
}

/* ---------------------------------------------------------------------- */
/* Setup and accounting                                                    */

static struct ringbuf *rb_create(const struct bench_case *c, struct bench_result *r)
{
	struct ringbuf *rb;
	RINGBUF_OPTS(o, .size = c->size,
		     .flags = c->overwrite ? RINGBUF_FL_OVERWRITE : 0,
		     .model = c->model, .nr_cpus = c->nr_buffers,
		     .spare_buffers = c->model == RINGBUF_PER_CPU ? c->spare_buffers : 0,
		     .clock = c->clock == BCLOCK_TSC ? RINGBUF_CLOCK_TSC
						     : RINGBUF_CLOCK_MONO);

	rb = ringbuf_create(&o);
	if (!rb) {
		r->skipped = true;
		snprintf(r->why, sizeof(r->why), "ringbuf_create: %s",
			 strerror(errno));
	}
	return rb;
}

/*
 * After the writers stopped: read everything left, then account each
 * writer stream. An event the buffer counts but nobody can read then shows
 * as entries left after the drain, and one the buffer lost without saying
 * so as more unseen records than overrun.
 */
static void rb_drain_check(struct bench_team *t, struct rb_shared *s,
			   struct bench_result *r)
{
	enum bench_consumer mode = t->c->consumer == CONS_NONE ? CONS_EVENT :
								 t->c->consumer;
	void *page = mode == CONS_PAGE ? ringbuf_alloc_read_page(s->rb, 0) : NULL;
	unsigned int i;

	if (mode == CONS_PAGE && !page)
		return;
	while (rb_consume_pass(s, mode, page, t->c->payload, 0))
		;
	ringbuf_free_read_page(s->rb, 0, page);
	r->drained = true;
	if (!s->seen)
		return;
	for (i = 0; i < t->nw; i++) {
		uint64_t thr = t->w[i].written, sig = t->w[i].nested_ok;

		r->seq_unseen += thr - s->seen[2 * i].count;
		r->seq_unseen += sig - s->seen[2 * i + 1].count;
	}
	r->seq_dup = s->seq_dup;
	r->seq_alien = s->seq_alien;
}

static void rb_collect(struct rb_shared *s, struct bench_result *r)
{
	int cpu;

	r->have_lib_counters = true;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		r->overrun += ringbuf_overrun_cpu(s->rb, cpu);
		r->dropped += ringbuf_dropped_events_cpu(s->rb, cpu);
		r->commit_overrun += ringbuf_commit_overrun_cpu(s->rb, cpu);
		r->entries += ringbuf_entries_cpu(s->rb, cpu);
		r->lib_read += ringbuf_read_events_cpu(s->rb, cpu);
	}
	r->read = s->cons_events;
	r->read_bytes = s->cons_bytes;
	r->bad_records = s->cons_bad + s->cons_corrupt;
}

void bench_run_ringbuf(const struct bench_case *c, struct bench_result *r)
{
	struct bench_team t;
	struct rb_shared s;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	memset(&s, 0, sizeof(s));
	if (c->signal_hz && rb_sig_install()) {
		r->skipped = true;
		snprintf(r->why, sizeof(r->why), "sigaction: %s", strerror(errno));
		return;
	}
	s.rb = rb_create(c, r);
	if (!s.rb)
		return;
	s.nr_cpus = ringbuf_nr_cpus(s.rb);
	s.subbuf = ringbuf_subbuf_size(s.rb);
	if (c->payload > ringbuf_max_event_size(s.rb)) {
		r->skipped = true;
		snprintf(r->why, sizeof(r->why), "payload %u > max event size %zu",
			 c->payload, ringbuf_max_event_size(s.rb));
		goto out;
	}

	if (bench_team_init(&t, c, r))
		goto out;
	if (c->payload >= 8) {
		s.nr_streams = 2 * t.nw;
		s.seen = calloc(s.nr_streams, sizeof(*s.seen));
	}
	/*
	 * One pinned writer, no signals: its counter must reach the reader in
	 * order, skipping only what was refused or overwritten (checked in
	 * read_page mode, where the records are walked anyway).
	 */
	s.check_seq = c->consumer == CONS_PAGE && c->writers == 1 && !c->signal_hz &&
		      c->pin;
	t.impl = &s;
	t.warmup = rb_warmup;
	t.between = rb_between;
	t.loop = rb_loop_fn;
	if (c->consumer != CONS_NONE)
		t.consumer = rb_consumer;
	if (bench_team_run(&t, r))
		goto out;
	for (i = 0; i < t.nw; i++) {
		if (t.w[i].error) {
			r->skipped = true;
			snprintf(r->why, sizeof(r->why), "writer setup: %s",
				 strerror(t.w[i].error));
			goto out;
		}
	}
	bench_team_sum(&t, r);
	rb_drain_check(&t, &s, r);
	rb_collect(&s, r);
	r->consumer_secs = (double)t.cons_ns / 1e9;
	r->cons_longest_pass_ns = s.longest_pass_ns;
	r->cons_longest_idle_ns = s.longest_idle_ns;
	r->cons_longest_nap_ns = s.longest_nap_ns;
	r->seq_checked = s.check_seq;
	r->seq_gaps = s.seq_gaps;
	r->seq_missing = s.seq_missing;
out:
	for (i = 0; s.seen && i < s.nr_streams; i++)
		free(s.seen[i].bits);
	free(s.seen);
	free(t.w);
	ringbuf_free(s.rb);
}

/* ---------------------------------------------------------------------- */
/* Drain                                                                   */

struct drain_filler {
	struct rb_shared *s;
	const struct bench_case *c;
	sem_t go, done;
	bool quit;
	int cpu;
	uint64_t filled;	/* events written in the last round */
	uint64_t missed;	/* refused writes (one per round) */
	unsigned char src[BENCH_MAX_PAYLOAD];
};

static void *drain_filler_fn(void *arg)
{
	struct drain_filler *f = arg;
	uint64_t seq = 0;

	if (f->cpu >= 0)
		bench_pin_self(f->cpu);
	for (;;) {
		while (sem_wait(&f->go) && errno == EINTR)
			;
		if (f->quit)
			break;
		f->filled = 0;
		for (;;) {
			struct ringbuf_event *ev =
				ringbuf_reserve_inline(f->s->rb, f->c->payload);

			if (!ev) {
				f->missed++;
				break;
			}
			bench_put_payload(ringbuf_event_data_inline(ev), f->src,
					  f->c->payload, ++seq);
			ringbuf_commit_inline(f->s->rb);
			f->filled++;
		}
		sem_post(&f->done);
	}
	return NULL;
}

void bench_run_drain(const struct bench_case *c, struct bench_result *r)
{
	struct bench_case pc = *c;
	struct rb_shared s;
	struct drain_filler f;
	pthread_t tid;
	void *page = NULL;
	uint64_t drain_ns = 0, written = 0, t_end, rounds = 0;
	int cons_cpu = -1;

	memset(&s, 0, sizeof(s));
	memset(&f, 0, sizeof(f));
	/* The filler must stop at full: producer/consumer mode. */
	pc.overwrite = false;
	s.rb = rb_create(&pc, r);
	if (!s.rb)
		return;
	s.nr_cpus = ringbuf_nr_cpus(s.rb);
	s.subbuf = ringbuf_subbuf_size(s.rb);
	if (c->consumer == CONS_PAGE) {
		page = ringbuf_alloc_read_page(s.rb, 0);
		if (!page) {
			r->skipped = true;
			snprintf(r->why, sizeof(r->why), "ringbuf_alloc_read_page: %s",
				 strerror(errno));
			goto out_rb;
		}
	}
	f.s = &s;
	f.c = c;
	f.cpu = c->pin ? bench_cpu_for(0) : -1;
	bench_fill_payload(f.src, sizeof(f.src));
	sem_init(&f.go, 0, 0);
	sem_init(&f.done, 0, 0);
	if (c->pin && bench_nr_cpus_allowed() > 1)
		cons_cpu = bench_cpu_for(1);
	if (pthread_create(&tid, NULL, drain_filler_fn, &f)) {
		r->skipped = true;
		snprintf(r->why, sizeof(r->why), "pthread_create failed");
		goto out_sem;
	}
	if (cons_cpu >= 0)
		bench_pin_self(cons_cpu);

	t_end = bench_now_ns() + (uint64_t)(c->duration * 1e9);
	do {
		uint64_t t0, n;

		sem_post(&f.go);
		while (sem_wait(&f.done) && errno == EINTR)
			;
		written += f.filled;
		t0 = bench_now_ns();
		/* Whole pages first, then the partial last page. */
		do {
			n = rb_consume_pass(&s, c->consumer, page, c->payload, 1);
		} while (n);
		do {
			n = rb_consume_pass(&s, c->consumer, page, c->payload, 0);
		} while (n);
		drain_ns += bench_now_ns() - t0;
		rounds++;
	} while (bench_now_ns() < t_end);

	f.quit = true;
	sem_post(&f.go);
	pthread_join(tid, NULL);
	if (cons_cpu >= 0)
		bench_pin_self(-1);

	r->secs = (double)drain_ns / 1e9;
	r->consumer_secs = r->secs;
	r->written = written;
	r->attempts = written + f.missed;
	r->missed = f.missed;
	rb_collect(&s, r);
	/* ns per event consumed: the consumer's cost, which is the point here */
	r->ns_per_event = s.cons_events ? (double)drain_ns / (double)s.cons_events : 0;
	r->cpu_ns_per_event = r->ns_per_event;
	snprintf(r->why, sizeof(r->why), "%llu fill/drain rounds",
		 (unsigned long long)rounds);
out_sem:
	sem_destroy(&f.go);
	sem_destroy(&f.done);
	ringbuf_free_read_page(s.rb, 0, page);
out_rb:
	ringbuf_free(s.rb);
}
