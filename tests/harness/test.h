/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test.h - the ringtrace test harness: assertions that print where and
 * what failed and exit non-zero, a seeded PRNG (RB_TEST_SEED), the
 * sanitizer timeout multiplier (RB_TIMEOUT_MULT) and a tiny case runner.
 */
#ifndef RBT_TEST_H
#define RBT_TEST_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- failure reporting ---------------------------------------------- */

/* Print "FAIL file:line: message", the test name and the seed, exit(1). */
void rbt_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

/* Non-fatal note printed with the current test name (for diagnostics). */
void rbt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define RBT_FAIL(...) rbt_fail(__FILE__, __LINE__, __VA_ARGS__)

#define ASSERT_TRUE(c)                                                      \
	do {                                                                \
		if (!(c))                                                   \
			rbt_fail(__FILE__, __LINE__, "ASSERT_TRUE(%s)", #c); \
	} while (0)

#define ASSERT_FALSE(c)                                                      \
	do {                                                                 \
		if (c)                                                       \
			rbt_fail(__FILE__, __LINE__, "ASSERT_FALSE(%s)", #c); \
	} while (0)

/* Integer comparisons. Values are compared as 64-bit integers (signed for
 * the ordering macros, unsigned for the _U ones) and printed in decimal
 * and hex. */
#define RBT_CMP_(a, b, op, T, fmt, name)                                    \
	do {                                                                \
		T a_ = (T)(a), b_ = (T)(b);                                 \
		if (!(a_ op b_))                                            \
			rbt_fail(__FILE__, __LINE__,                        \
				 name "(%s, %s): " fmt " (0x%llx) vs " fmt  \
				      " (0x%llx)",                          \
				 #a, #b, a_, (unsigned long long)a_, b_,    \
				 (unsigned long long)b_);                   \
	} while (0)

#define ASSERT_EQ(a, b) RBT_CMP_(a, b, ==, long long, "%lld", "ASSERT_EQ")
#define ASSERT_NE(a, b) RBT_CMP_(a, b, !=, long long, "%lld", "ASSERT_NE")
#define ASSERT_LT(a, b) RBT_CMP_(a, b, <, long long, "%lld", "ASSERT_LT")
#define ASSERT_LE(a, b) RBT_CMP_(a, b, <=, long long, "%lld", "ASSERT_LE")
#define ASSERT_GT(a, b) RBT_CMP_(a, b, >, long long, "%lld", "ASSERT_GT")
#define ASSERT_GE(a, b) RBT_CMP_(a, b, >=, long long, "%lld", "ASSERT_GE")
#define ASSERT_EQ_U(a, b) \
	RBT_CMP_(a, b, ==, unsigned long long, "%llu", "ASSERT_EQ_U")
#define ASSERT_LT_U(a, b) \
	RBT_CMP_(a, b, <, unsigned long long, "%llu", "ASSERT_LT_U")
#define ASSERT_LE_U(a, b) \
	RBT_CMP_(a, b, <=, unsigned long long, "%llu", "ASSERT_LE_U")
#define ASSERT_GE_U(a, b) \
	RBT_CMP_(a, b, >=, unsigned long long, "%llu", "ASSERT_GE_U")
#define ASSERT_GT_U(a, b) \
	RBT_CMP_(a, b, >, unsigned long long, "%llu", "ASSERT_GT_U")

#define ASSERT_NULL(p)                                                       \
	do {                                                                 \
		const void *p_ = (const void *)(p);                          \
		if (p_)                                                      \
			rbt_fail(__FILE__, __LINE__,                         \
				 "ASSERT_NULL(%s): got %p", #p, p_);         \
	} while (0)

#define ASSERT_NOT_NULL(p)                                                   \
	do {                                                                 \
		if (!(p))                                                    \
			rbt_fail(__FILE__, __LINE__,                         \
				 "ASSERT_NOT_NULL(%s) (errno %d: %s)", #p,   \
				 errno, strerror(errno));                    \
	} while (0)

#define ASSERT_MEM_EQ(a, b, n)                                               \
	do {                                                                 \
		size_t n_ = (n);                                             \
		const unsigned char *a_ = (const unsigned char *)(a);        \
		const unsigned char *b_ = (const unsigned char *)(b);        \
		for (size_t i_ = 0; i_ < n_; i_++)                           \
			if (a_[i_] != b_[i_])                                \
				rbt_fail(__FILE__, __LINE__,                 \
					 "ASSERT_MEM_EQ(%s, %s, %zu): byte "  \
					 "%zu differs: 0x%02x vs 0x%02x",    \
					 #a, #b, n_, i_, a_[i_], b_[i_]);    \
	} while (0)

/* ASSERT_ERR(expr, E): expr returns -E (and errno == E). */
#define ASSERT_ERR(expr, e)                                                  \
	do {                                                                 \
		errno = 0;                                                   \
		long long r_ = (long long)(expr);                            \
		int errno_ = errno;                                          \
		if (r_ != -(long long)(e))                                   \
			rbt_fail(__FILE__, __LINE__,                         \
				 "ASSERT_ERR(%s, %s): returned %lld, "       \
				 "expected %d",                              \
				 #expr, #e, r_, -(int)(e));                  \
		if (errno_ != (e))                                           \
			rbt_fail(__FILE__, __LINE__,                         \
				 "ASSERT_ERR(%s, %s): errno %d, expected %d", \
				 #expr, #e, errno_, (int)(e));               \
	} while (0)

/* The write functions (reserve, commit, discard, write) never change errno
 * (a signal handler that writes must leave it alone); they return the
 * reason. ASSERT_WERR(expr, E): expr returns -E and errno is untouched. */
#define RBT_ERRNO_SENTINEL EDOM
#define ASSERT_WERR(expr, e)                                                 \
	do {                                                                 \
		errno = RBT_ERRNO_SENTINEL;                                  \
		long long r_ = (long long)(expr);                            \
		int errno_ = errno;                                          \
		if (r_ != -(long long)(e))                                   \
			rbt_fail(__FILE__, __LINE__,                         \
				 "ASSERT_WERR(%s, %s): returned %lld, "      \
				 "expected %d",                              \
				 #expr, #e, r_, -(int)(e));                  \
		if (errno_ != RBT_ERRNO_SENTINEL)                            \
			rbt_fail(__FILE__, __LINE__,                         \
				 "ASSERT_WERR(%s, %s): errno changed to %d", \
				 #expr, #e, errno_);                         \
	} while (0)

/* ASSERT_RESERVE_NULL(expr): a reserve fails and leaves errno alone. */
#define ASSERT_RESERVE_NULL(expr)                                            \
	do {                                                                 \
		errno = RBT_ERRNO_SENTINEL;                                  \
		const void *p_ = (const void *)(expr);                       \
		int errno_ = errno;                                          \
		if (p_)                                                      \
			rbt_fail(__FILE__, __LINE__,                         \
				 "ASSERT_RESERVE_NULL(%s): got %p", #expr,   \
				 p_);                                        \
		if (errno_ != RBT_ERRNO_SENTINEL)                            \
			rbt_fail(__FILE__, __LINE__,                         \
				 "ASSERT_RESERVE_NULL(%s): errno changed to " \
				 "%d", #expr, errno_);                       \
	} while (0)

/* ASSERT_NULL_ERRNO(expr, E): a pointer-returning expr gives NULL, errno E */
#define ASSERT_NULL_ERRNO(expr, e)                                           \
	do {                                                                 \
		errno = 0;                                                   \
		const void *p_ = (const void *)(expr);                       \
		int errno_ = errno;                                          \
		if (p_)                                                      \
			rbt_fail(__FILE__, __LINE__,                         \
				 "ASSERT_NULL_ERRNO(%s, %s): got %p",        \
				 #expr, #e, p_);                             \
		if (errno_ != (e))                                           \
			rbt_fail(__FILE__, __LINE__,                         \
				 "ASSERT_NULL_ERRNO(%s, %s): errno %d (%s)", \
				 #expr, #e, errno_, strerror(errno_));       \
	} while (0)

/* Skip the running case (exit code 77, registered as SKIP_RETURN_CODE). */
void rbt_skip(const char *why) __attribute__((noreturn));

/* ThreadSanitizer delays asynchronous signals to its own safe points, so a
 * signal raised inside a handler is not delivered nested in it. */
#if defined(__SANITIZE_THREAD__)
#define RBT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RBT_TSAN 1
#endif
#endif

/* ---- seeded PRNG ------------------------------------------------------ */

/* The run's seed: RB_TEST_SEED if set, else derived from time and pid.
 * Printed on failure so a run can be replayed. */
uint64_t rbt_seed(void);
/* Override the seed (e.g. from a --seed option). */
void rbt_set_seed(uint64_t seed);

struct rbt_rng {
	uint64_t s;
};
void rbt_rng_init(struct rbt_rng *r, uint64_t seed);
uint64_t rbt_rng_next(struct rbt_rng *r);
/* Uniform in [lo, hi] (inclusive). */
uint64_t rbt_rng_range(struct rbt_rng *r, uint64_t lo, uint64_t hi);

/* The process-wide generator (seeded with rbt_seed()); not thread-safe. */
uint64_t rbt_rand(void);
uint64_t rbt_rand_range(uint64_t lo, uint64_t hi);

/* ---- time ------------------------------------------------------------- */

/* RB_TIMEOUT_MULT (1 if unset): sanitizer builds are that much slower. */
unsigned int rbt_timeout_mult(void);
void rbt_msleep(unsigned int ms);
uint64_t rbt_now_ns(void); /* CLOCK_MONOTONIC */

/* ---- case runner ------------------------------------------------------ */

struct rbt_case {
	const char *name;
	void (*fn)(void);
};
#define RBT_CASE(fn) { #fn, fn }

/* argv[1]: a case name (run only it), "--list", or nothing (run all). */
int rbt_main(int argc, char **argv, const struct rbt_case *cases, size_t n);
#define RBT_MAIN(cases)                                                     \
	int main(int argc, char **argv)                                     \
	{                                                                   \
		return rbt_main(argc, argv, cases,                          \
				sizeof(cases) / sizeof((cases)[0]));        \
	}

/* Name of the running case (for messages). */
const char *rbt_current(void);
void rbt_set_current(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* RBT_TEST_H */
