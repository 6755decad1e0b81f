/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock.h - the clocks the baselines stamp their records with.
 *
 * The floor and the mutex ring must pay for the same clock read as the
 * ring buffer they are compared with: the time stamp counter for
 * RINGBUF_CLOCK_TSC, clock_gettime(CLOCK_MONOTONIC) for RINGBUF_CLOCK_MONO.
 */
#ifndef RINGBUF_BENCH_CLOCK_H
#define RINGBUF_BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "bench.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t bench_clock_tsc(void)
{
	return __rdtsc();
}
#else
/* No time stamp counter: what the library falls back to. */
static inline uint64_t bench_clock_tsc(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

static inline uint64_t bench_clock_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline __attribute__((always_inline)) uint64_t
bench_clock_read(enum bench_clock clk)
{
	return clk == BCLOCK_TSC ? bench_clock_tsc() : bench_clock_mono();
}

#endif /* RINGBUF_BENCH_CLOCK_H */
