/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t g_seed;
static bool g_seed_set;
static struct rbt_rng g_rng;
static bool g_rng_init;
static const char *g_current = "?";

const char *rbt_current(void)
{
	return g_current;
}

void rbt_set_current(const char *name)
{
	g_current = name;
}

static void print_context(void)
{
	fprintf(stderr, "  test: %s\n  seed: %" PRIu64
			" (replay with RB_TEST_SEED=%" PRIu64 ")\n",
		g_current, rbt_seed(), rbt_seed());
}

void rbt_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	print_context();
	fflush(stderr);
	/* Other threads may still run: do not run atexit handlers. */
	_exit(1);
}

void rbt_skip(const char *why)
{
	printf("SKIP %s: %s\n", g_current, why);
	fflush(stdout);
	_exit(77);
}

void rbt_note(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "[%s] ", g_current);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* splitmix64: good enough, tiny, and fully determined by the seed. */
void rbt_rng_init(struct rbt_rng *r, uint64_t seed)
{
	r->s = seed ^ 0x6a09e667f3bcc909ULL;
}

uint64_t rbt_rng_next(struct rbt_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t rbt_rng_range(struct rbt_rng *r, uint64_t lo, uint64_t hi)
{
	uint64_t span = hi - lo + 1;

	if (span == 0) /* full 64-bit range */
		return rbt_rng_next(r);
	return lo + rbt_rng_next(r) % span;
}

uint64_t rbt_seed(void)
{
	if (!g_seed_set) {
		const char *env = getenv("RB_TEST_SEED");

		if (env && *env) {
			g_seed = strtoull(env, NULL, 0);
		} else {
			g_seed = rbt_now_ns() ^ ((uint64_t)getpid() << 32);
			g_seed &= 0xffffffffffffULL; /* short enough to type */
		}
		g_seed_set = true;
	}
	return g_seed;
}

void rbt_set_seed(uint64_t seed)
{
	g_seed = seed;
	g_seed_set = true;
	g_rng_init = false;
}

uint64_t rbt_rand(void)
{
	if (!g_rng_init) {
		rbt_rng_init(&g_rng, rbt_seed());
		g_rng_init = true;
	}
	return rbt_rng_next(&g_rng);
}

uint64_t rbt_rand_range(uint64_t lo, uint64_t hi)
{
	if (!g_rng_init) {
		rbt_rng_init(&g_rng, rbt_seed());
		g_rng_init = true;
	}
	return rbt_rng_range(&g_rng, lo, hi);
}

unsigned int rbt_timeout_mult(void)
{
	const char *env = getenv("RB_TIMEOUT_MULT");
	long v;

	if (!env || !*env)
		return 1;
	v = strtol(env, NULL, 10);
	return v >= 1 && v <= 1000 ? (unsigned int)v : 1;
}

void rbt_msleep(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

uint64_t rbt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int rbt_main(int argc, char **argv, const struct rbt_case *cases, size_t n)
{
	size_t i;

	if (argc > 1 && strcmp(argv[1], "--list") == 0) {
		for (i = 0; i < n; i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("seed=%" PRIu64 "\n", rbt_seed());
	for (i = 0; i < n; i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		rbt_set_current(cases[i].name);
		/* every case starts from the same PRNG state */
		rbt_set_seed(rbt_seed());
		printf("RUN  %s\n", cases[i].name);
		cases[i].fn();
		printf("PASS %s\n", cases[i].name);
		if (argc > 1)
			return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "unknown test case '%s' (try --list)\n",
			argv[1]);
		return 2;
	}
	return 0;
}
