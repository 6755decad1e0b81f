// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sample.c - code for the function tracer tests to trace; the only file
 * of the test program compiled with -finstrument-functions. Every
 * function is kept out of line and uncloned so that each call is one
 * entry and one exit with the function's own address.
 */
#include <errno.h>
#include <time.h>

#include "sample.h"

#ifdef __clang__
#define RTFS_FUNC __attribute__((noinline))
#else
#define RTFS_FUNC __attribute__((noinline, noclone))
#endif

_Thread_local volatile int rtfs_sink;

RTFS_FUNC void rtfs_b(void)
{
	rtfs_sink += 1;
}

RTFS_FUNC void rtfs_c(void)
{
	rtfs_sink += 2;
}

RTFS_FUNC void rtfs_a(void)
{
	rtfs_b();
	rtfs_c();
}

RTFS_FUNC void rtfs_d(int n)
{
	rtfs_sink += 3;
	if (n > 1)
		rtfs_d(n - 1);
	rtfs_sink += 4;
}

RTFS_FUNC void rtfs_main(void)
{
	rtfs_a();
	rtfs_d(3);
}

RTFS_FUNC void rtfs_leaf(void)
{
	rtfs_sink += 5;
}

RTFS_FUNC void rtfs_probe(void)
{
	rtfs_sink += 6;
}

RTFS_FUNC void rtfs_mid(void (*cb)(void))
{
	rtfs_b();
	cb();
	rtfs_c();
}

/*
 * The big frame puts this function's entry below that of rtfs_main()
 * called from the same place, so that an entry of rtfs_main() after
 * tracing stopped inside this one finds its frames stale.
 */
RTFS_FUNC void rtfs_toggle(void (*cb)(void))
{
	volatile char pad[512];

	pad[0] = 1;
	rtfs_mid(cb);
	rtfs_a();
	rtfs_sink += pad[0];
}

/*
 * A short sleep: where most signals land, and a place where
 * ThreadSanitizer delivers them.
 */
RTFS_FUNC void rtfs_work(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 50000 };

	rtfs_b();
	nanosleep(&ts, NULL);
}

RTFS_FUNC void rtfs_loop(_Atomic int *stop)
{
	while (!atomic_load_explicit(stop, memory_order_relaxed))
		rtfs_work();
}

RTFS_FUNC void rtfs_handler_body(void)
{
	rtfs_c();
	rtfs_sink += 7;
}

RTFS_FUNC int rtfs_errno_get(void)
{
	return errno;
}
