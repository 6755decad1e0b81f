// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock.c - the default clock (RINGBUF_CLOCK_MONO): CLOCK_MONOTONIC
 * nanoseconds for one rdtsc, a multiplication and a shift
 *
 * The kernel stamps its ring buffer with trace_clock_local(), that is
 * sched_clock(): the TSC scaled to nanoseconds by a multiplier calibrated
 * at boot, with no fence and no sequence count. CLOCK_MONOTONIC through
 * the vDSO does the same arithmetic with the timekeeper's multiplier but
 * adds an ordered TSC read and a sequence-count loop; under KVM that
 * costs 20-25 ns where the bare rdtsc costs about half.
 *
 * Userspace: the timekeeper's multiplier is not an interface. Writers
 * convert the TSC with a scale of our own instead, calibrated against
 * clock_gettime(CLOCK_MONOTONIC), so that every reader (consume,
 * iterator, read_page, trace.dat, attached processes) still sees
 * CLOCK_MONOTONIC nanoseconds and needs no conversion. The scale is
 * used only where the TSC can be trusted across CPUs and power states:
 * an invariant TSC (CPUID 0x80000007 EDX bit 8) that the kernel itself
 * uses as its clocksource (it stops doing so when it finds the CPUs'
 * TSCs out of step). Elsewhere the clock stays clock_gettime().
 *
 * Calibration. The library notes a (TSC, CLOCK_MONOTONIC) pair when it
 * loads. Until RB_CLOCK_FIRST_NS have passed the clock is
 * clock_gettime(); the first read after that notes a second pair and
 * publishes the scale, if the two pairs' widths (the TSC read on both
 * sides of the clock read) bound its rate's error to RB_CLOCK_FIRST_PPM;
 * otherwise (a pair taken across a preemption) it stays clock_gettime()
 * and the next read a window later tries again over the longer span
 * from the first pair. The first window is short, so that a short
 * program's records are stamped by the TSC too (a clock_gettime() a
 * record costs about as much as the rest of the write): its rate's
 * error is what the next window measures and slews away, as it does
 * NTP's. Each scale is due again after a window four times
 * longer than the last one, up to RB_CLOCK_MAX_WINDOW_NS: the read that
 * finds it due notes a new pair, measures the rate over the last window
 * (which follows NTP's frequency corrections of CLOCK_MONOTONIC) and
 * publishes a scale that starts where the old one stood at that TSC, so
 * the clock never steps, and whose rate is corrected to absorb the
 * error against CLOCK_MONOTONIC over the next window (a slew, as NTP
 * does, bounded by RB_CLOCK_MAX_SLEW_PPB). An error beyond
 * RB_CLOCK_STEP_NS (the machine was suspended, say) is stepped instead.
 *
 * The scale is one block under a sequence count, the vDSO's scheme: a
 * reader that sees the count odd or changed, or the TSC past the
 * block's end, takes the slow path (ringbuf_clock_mono_slow()).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#include "internal.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

/* The first calibration window: a short program's start-up (the
 * library's symbols and patching take longer), long enough for a rate
 * good to RB_CLOCK_FIRST_PPM with pairs ~100 ns wide. */
#define RB_CLOCK_FIRST_NS 2000000ll
/* The first scale's rate error, bounded by the pairs' widths over the
 * span between them: 100 ppm is 0.8 us over the second window, which
 * that window's slew absorbs (it measures the rate again). */
#define RB_CLOCK_FIRST_PPM 100
/* Windows grow four times each, up to a minute. */
#define RB_CLOCK_MAX_WINDOW_NS 60000000000ll
/* A slew corrects the rate by at most 500 ppm (NTP's own bound). */
#define RB_CLOCK_MAX_SLEW_PPB 500000ll
/* An error above 1 ms is stepped, not slewed. */
#define RB_CLOCK_STEP_NS 1000000ll

/* Seq 1 (odd): no scale yet; readers use clock_gettime(). */
RINGBUF_API struct ringbuf_fe_clock ringbuf_fe_mono = { .seq = 1 };

/*
 * The calibrator's own state, written only by the read that holds
 * rb_clock_busy: the last pair noted and the window that followed it.
 */
static struct {
	uint64_t tsc;
	int64_t ns;
	int64_t window;
	/* the noted pair's width, in TSC cycles */
	uint64_t width;
	bool usable;
} rb_clock_cal;

/* 1 while one read calibrates; the others go on with the old scale. */
static atomic_int rb_clock_busy;

/* CLOCK_MONOTONIC when the next calibration is due; INT64_MAX: never
 * (no trusted TSC, or no sane rate). Lets a read of the slow path see
 * with the one clock_gettime() it makes anyway whether to calibrate. */
static _Atomic int64_t rb_clock_due = INT64_MAX;

int64_t rb_clock_mono_raw_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/*
 * rb_clock_next - the scale that follows @cur at the pair (@tsc, @ns),
 * the previous pair being (@tsc_prev, @ns_prev), due again after
 * @window nanoseconds. @cur NULL (or @valid false): the first scale,
 * anchored at the pair itself. Pure arithmetic, for the unit tests too.
 * Returns false if the pairs give no sane rate (100 MHz .. 100 GHz).
 */
bool rb_clock_next(const struct ringbuf_fe_clock *cur, bool valid,
		   uint64_t tsc_prev, int64_t ns_prev, uint64_t tsc,
		   int64_t ns, int64_t window, struct ringbuf_fe_clock *next)
{
	uint64_t cycles = tsc - tsc_prev;
	int64_t span = ns - ns_prev;
	__int128 mult, slew;
	int64_t now = ns, err = 0;

	if (tsc <= tsc_prev || span <= 0 || cycles / 100 > (uint64_t)span ||
	    cycles < (uint64_t)span / 10)
		return false;
	/* nanoseconds per cycle, times 2^32 */
	mult = ((__int128)span << 32) / cycles;
	if (valid) {
		/* Where the published scale stands now: start there. */
		now = (int64_t)cur->ns0 +
		      (int64_t)(((__int128)(int64_t)(tsc - cur->tsc0) *
				 (__int128)cur->mult) >> 32);
		err = now - ns;
		if (err > RB_CLOCK_STEP_NS || err < -RB_CLOCK_STEP_NS) {
			now = ns;
			err = 0;
		}
	}
	/* Run slower (ahead) or faster (behind) to meet CLOCK_MONOTONIC at
	 * the end of the next window: rate * (1 - err / window). */
	slew = (__int128)err * 1000000000 / window;
	if (slew > RB_CLOCK_MAX_SLEW_PPB)
		slew = RB_CLOCK_MAX_SLEW_PPB;
	if (slew < -RB_CLOCK_MAX_SLEW_PPB)
		slew = -RB_CLOCK_MAX_SLEW_PPB;
	mult -= mult * slew / 1000000000;

	next->tsc0 = tsc;
	next->ns0 = (uint64_t)now;
	next->mult = (uint64_t)mult;
	/* cycles of the window at the measured rate */
	next->tsc_end = tsc + (uint64_t)(((__int128)window * cycles) / span);
	return true;
}

#if defined(__x86_64__)
/* A (TSC, CLOCK_MONOTONIC) pair: the best of three, the TSC taken on
 * both sides of the clock read and averaged; @before (may be NULL) gets
 * that pair's first TSC, which is not after the TSC the clock read.
 * Returns the pair's width in cycles (its TSC's uncertainty). */
static uint64_t rb_clock_pair(uint64_t *tsc, int64_t *ns, uint64_t *before)
{
	uint64_t best = UINT64_MAX;

	*tsc = 0;
	*ns = 0;
	for (int i = 0; i < 3; i++) {
		uint64_t t0 = __rdtsc();
		int64_t n = rb_clock_mono_raw_ns();
		uint64_t t1 = __rdtsc();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = n;
			if (before)
				*before = t0;
		}
	}
	return best;
}

static bool rb_clock_tsc_trusted(void)
{
	unsigned int a, b, c, d;
	char name[32] = "";
	FILE *f;

	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u ||
	    !__get_cpuid(0x80000007u, &a, &b, &c, &d) || !(d & (1u << 8)))
		return false;
	f = fopen("/sys/devices/system/clocksource/clocksource0/"
		  "current_clocksource", "re");
	if (!f)
		return false;
	if (!fgets(name, sizeof(name), f))
		name[0] = 0;
	fclose(f);
	return strcmp(name, "tsc\n") == 0;
}

/* Publish @next under the sequence count. Only the rb_clock_busy holder
 * writes; the count goes odd, the block is written, the count goes even. */
static void rb_clock_publish(const struct ringbuf_fe_clock *next)
{
	struct ringbuf_fe_clock *c = &ringbuf_fe_mono;
	/* Relaxed: only the busy holder writes the count. */
	uint32_t seq = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);

	/* Relaxed: odd says "being rewritten"; the release fence below
	 * orders it before the block's stores. */
	__atomic_store_n(&c->seq, seq | 1, __ATOMIC_RELAXED);
	/* Release fence: the odd count before the block's new words; pairs
	 * with the acquire fence in ringbuf_fe_mono_ns() before its second
	 * load of the count. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&c->tsc0, next->tsc0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->ns0, next->ns0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->mult, next->mult, __ATOMIC_RELAXED);
	__atomic_store_n(&c->tsc_end, next->tsc_end, __ATOMIC_RELAXED);
	/* Release: the block before the even count; pairs with the acquire
	 * load of the count in ringbuf_fe_mono_ns(). */
	__atomic_store_n(&c->seq, (seq | 1) + 1, __ATOMIC_RELEASE);
}

/* The read that found the scale due (or absent): note a pair and publish
 * the next scale if the window has passed. */
static void rb_clock_calibrate(void)
{
	struct ringbuf_fe_clock cur, next;
	uint64_t tsc = 0, before = 0, width;
	int64_t ns = 0, window;
	bool valid;
	int zero = 0;

	/*
	 * Acquire: the winner sees the calibrator state the last holder
	 * wrote; pairs with the release store that ends the hold below. A
	 * loser does not retry: it goes on with the scale it has (or
	 * clock_gettime()) and a later read calibrates.
	 */
	if (!atomic_compare_exchange_strong_explicit(&rb_clock_busy, &zero, 1,
						     memory_order_acquire,
						     memory_order_relaxed))
		return;
	if (!rb_clock_cal.usable)
		goto out;
	width = rb_clock_pair(&tsc, &ns, &before);
	if (ns - rb_clock_cal.ns < rb_clock_cal.window)
		goto out;
	/* Only the holder writes the block: plain copies of it are exact. */
	cur = ringbuf_fe_mono;
	valid = !(cur.seq & 1);
	/*
	 * The first scale over a short span: only if the pairs' widths
	 * bound its rate to RB_CLOCK_FIRST_PPM. Otherwise keep the first
	 * pair and clock_gettime(), and try again a window later over
	 * the longer span (a wide pair is rare: a preemption inside it).
	 */
	if (!valid && tsc > rb_clock_cal.tsc &&
	    (__int128)(rb_clock_cal.width + width) * 1000000 >
		    (__int128)(tsc - rb_clock_cal.tsc) * RB_CLOCK_FIRST_PPM) {
		/* Relaxed: a hint (see rb_clock_due). */
		atomic_store_explicit(&rb_clock_due, ns + rb_clock_cal.window,
				      memory_order_relaxed);
		goto out;
	}
	window = rb_clock_cal.window * 4;
	if (window > RB_CLOCK_MAX_WINDOW_NS)
		window = RB_CLOCK_MAX_WINDOW_NS;
	if (rb_clock_next(&cur, valid, rb_clock_cal.tsc, rb_clock_cal.ns, tsc,
			  ns, window, &next)) {
		/*
		 * The first scale takes over from clock_gettime(): anchor it
		 * at the TSC read before the clock read (the midpoint may be
		 * after the TSC the kernel read, by up to half the pair's
		 * width), so that it stands at or ahead of every value
		 * clock_gettime() gave before it and the clock never steps
		 * back at the change-over. Later scales start where the last
		 * one stood, so the clock stays continuous.
		 */
		if (!valid)
			next.tsc0 = before;
		rb_clock_publish(&next);
	} else if (!valid) {
		/* No sane rate at the first try: keep clock_gettime(). */
		rb_clock_cal.usable = false;
		/* Relaxed: a hint (see rb_clock_due). */
		atomic_store_explicit(&rb_clock_due, INT64_MAX,
				      memory_order_relaxed);
		goto out;
	}
	rb_clock_cal.tsc = tsc;
	rb_clock_cal.ns = ns;
	rb_clock_cal.width = width;
	rb_clock_cal.window = window;
	/* Relaxed: a hint (see rb_clock_due). */
	atomic_store_explicit(&rb_clock_due, ns + window, memory_order_relaxed);
out:
	/* Release: the calibrator state before the next holder reads it;
	 * pairs with the acquire cmpxchg above. */
	atomic_store_explicit(&rb_clock_busy, 0, memory_order_release);
}

static void rb_clock_atfork_child(void)
{
	/* A parent thread may have held the calibration at the fork. */
	atomic_store_explicit(&rb_clock_busy, 0, memory_order_relaxed);
}

__attribute__((constructor)) static void rb_clock_init(void)
{
	if (secure_getenv("RINGBUF_CLOCK_NO_TSC") || !rb_clock_tsc_trusted())
		return;
	rb_clock_cal.width = rb_clock_pair(&rb_clock_cal.tsc, &rb_clock_cal.ns,
					   NULL);
	rb_clock_cal.window = RB_CLOCK_FIRST_NS;
	rb_clock_cal.usable = true;
	/* Relaxed: set before any other thread runs (constructor). */
	atomic_store_explicit(&rb_clock_due, rb_clock_cal.ns + RB_CLOCK_FIRST_NS,
			      memory_order_relaxed);
	pthread_atfork(NULL, NULL, rb_clock_atfork_child);
}
#endif /* __x86_64__ */

/**
 * ringbuf_clock_mono_slow - ringbuf_fe_mono_ns()'s slow path
 *
 * Calibrates the scale if it is due, then reads the clock: the scale if
 * there is one (past its end too, while another read recalibrates),
 * clock_gettime(CLOCK_MONOTONIC) otherwise.
 */
uint64_t ringbuf_clock_mono_slow(void)
{
	int64_t now = rb_clock_mono_raw_ns();
#if defined(__x86_64__)
	/* Relaxed: a hint; the calibration runs under rb_clock_busy and
	 * checks the time again. Before it is due a read costs this one
	 * clock_gettime(). */
	if (now >= atomic_load_explicit(&rb_clock_due, memory_order_relaxed))
		rb_clock_calibrate();
	/* Relaxed: odd is no scale (before the first one, or none here):
	 * clock_gettime() as read. */
	if (!(__atomic_load_n(&ringbuf_fe_mono.seq, __ATOMIC_RELAXED) & 1)) {
		/* Bounded: the scale is rewritten only by the calibrating
		 * read, once a window; a reader that keeps losing the race
		 * falls back to clock_gettime(). The scale past its end, while
		 * another read recalibrates, keeps the clock continuous. */
		for (int tries = 0; tries < 4; tries++) {
			uint64_t ns = ringbuf_fe_mono_read(__rdtsc(), false);

			if (ns)
				return ns;
		}
	}
#endif
	return (uint64_t)now;
}
