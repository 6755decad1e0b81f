// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock.c - rt_ftrace_clock(), the clock of the graph's calltime and
 * rettime and of critical-section lengths
 *
 * The kernel takes calltime and rettime from trace_clock_local(), which
 * is sched_clock(): the TSC read without a fence, scaled to nanoseconds
 * by a multiplier the kernel calibrated at boot. Only differences of
 * these values are ever shown (a function's duration, a section's
 * length), so what matters is that it is cheap and counts nanoseconds.
 *
 * Userspace: there is no sched_clock(), and the kernel's TSC calibration
 * is not exported. The clock starts as CLOCK_MONOTONIC. Where the CPU
 * has an invariant TSC (a constant rate in every P- and C-state, CPUID
 * 0x80000007 EDX bit 8), the library notes a (TSC, CLOCK_MONOTONIC)
 * pair when it loads; the first read at least RT_CLOCK_CALIBRATE_NS
 * later notes a second pair and derives the multiplier from the two,
 * and from then on every read is one rdtsc, a multiplication and a
 * shift. The slope's error is the two clock_gettime() calls' jitter over
 * the interval (tens of nanoseconds over 50 ms, a few parts per million
 * of a duration). The values go on counting CLOCK_MONOTONIC nanoseconds
 * from the first pair; they drift from CLOCK_MONOTONIC as NTP slews it,
 * which no duration can see.
 *
 * clock_gettime() through the vDSO costs 20-25 ns under KVM, and a
 * traced call reads this clock twice; the scaled TSC costs a few.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define RT_CLOCK_HAVE_TSC 1
#else
#define RT_CLOCK_HAVE_TSC 0
#endif

#include "ftrace.h"

#define RT_NOTRACE __attribute__((no_instrument_function))

/* The calibration interval: long enough for a slope good to a few ppm. */
#define RT_CLOCK_CALIBRATE_NS 50000000ull

/**
 * struct rt_clock_scale - TSC to nanoseconds
 * @tsc0: the TSC at the first pair
 * @ns0: CLOCK_MONOTONIC at the first pair
 * @mult: nanoseconds per cycle, times 2^32
 */
struct rt_clock_scale {
	uint64_t tsc0;
	uint64_t ns0;
	uint64_t mult;
};

/* Written by the constructor (tsc0, ns0) and by the calibrating read
 * (mult) before it publishes the pointer; never changed after. */
static struct rt_clock_scale rt_clock_scale;
/* &rt_clock_scale once the multiplier is known, else NULL. */
static _Atomic(const struct rt_clock_scale *) rt_clock_ready;
/* The constructor noted the first pair: calibration may be tried. */
static _Atomic bool rt_clock_anchored;
/* Taken by the one read that calibrates (or gives up for good). */
static atomic_flag rt_clock_claim = ATOMIC_FLAG_INIT;

static RT_NOTRACE uint64_t rt_clock_mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

#if RT_CLOCK_HAVE_TSC
static RT_NOTRACE bool rt_clock_tsc_invariant(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return false;
	if (!__get_cpuid(0x80000007u, &a, &b, &c, &d))
		return false;
	return d & (1u << 8);
}

/* A (TSC, CLOCK_MONOTONIC) pair: the TSC taken on both sides of the
 * clock read, averaged. */
static RT_NOTRACE void rt_clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t t0 = __rdtsc();

	*ns = rt_clock_mono();
	*tsc = t0 + (__rdtsc() - t0) / 2;
}

__attribute__((constructor)) static RT_NOTRACE void rt_clock_init(void)
{
	if (!rt_clock_tsc_invariant())
		return;
	rt_clock_pair(&rt_clock_scale.tsc0, &rt_clock_scale.ns0);
	/* Release: the pair is written before a read may calibrate from
	 * it; pairs with the acquire load in rt_clock_calibrate(). */
	atomic_store_explicit(&rt_clock_anchored, true, memory_order_release);
}

/*
 * The second pair, @now after the first or later: derive the multiplier
 * and publish it. One read does it; the others go on with
 * clock_gettime() meanwhile.
 */
static RT_NOTRACE void rt_clock_calibrate(void)
{
	struct rt_clock_scale *s = &rt_clock_scale;
	uint64_t tsc, ns, cycles;

	/* Acquire: pairs with the release store in rt_clock_init(). */
	if (!atomic_load_explicit(&rt_clock_anchored, memory_order_acquire))
		return;
	/* Too early for a good slope. */
	if (rt_clock_mono() - s->ns0 < RT_CLOCK_CALIBRATE_NS)
		return;
	/*
	 * Relaxed: it only elects the one read that calibrates; what that
	 * read writes is published by the release store below. A loser
	 * keeps the slow clock until the winner publishes (for good if the
	 * winner gives up).
	 */
	if (atomic_flag_test_and_set_explicit(&rt_clock_claim,
					      memory_order_relaxed))
		return;
	rt_clock_pair(&tsc, &ns);
	cycles = tsc - s->tsc0;
	/* A rate outside 100 MHz .. 100 GHz is no TSC to trust. */
	if (tsc <= s->tsc0 || ns <= s->ns0 || cycles / 100 > ns - s->ns0 ||
	    cycles < (ns - s->ns0) / 10)
		return;
	s->mult = (uint64_t)(((unsigned __int128)(ns - s->ns0) << 32) / cycles);
	/* Release: the multiplier is written before a reader uses it;
	 * pairs with the acquire load in rt_ftrace_clock(). */
	atomic_store_explicit(&rt_clock_ready, s, memory_order_release);
}
#endif

/**
 * rt_ftrace_clock - the tracer's duration clock, in nanoseconds
 *
 * Context: any thread and signal handler; lock-free.
 * Return: nanoseconds on a clock that only differences are taken of.
 */
RT_NOTRACE uint64_t rt_ftrace_clock(void)
{
#if RT_CLOCK_HAVE_TSC
	/* Acquire: the multiplier is seen written; pairs with the release
	 * store in rt_clock_calibrate() (a plain load on x86). */
	const struct rt_clock_scale *s =
		atomic_load_explicit(&rt_clock_ready, memory_order_acquire);

	if (__builtin_expect(s != NULL, 1)) {
		/* Signed: another CPU's TSC may lag the first pair's by a
		 * few cycles. */
		int64_t d = (int64_t)(__rdtsc() - s->tsc0);

		return s->ns0 + (uint64_t)(((__int128)d * (__int128)s->mult) >> 32);
	}
	rt_clock_calibrate();
#endif
	return rt_clock_mono();
}
