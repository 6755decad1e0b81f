// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_sample.c - code for the profiling-call tests to trace, built -pg
 * -mfentry -mrecord-mcount. Kept out of line and uncloned so that each
 * call is one traced call of the function's own address.
 */
#include <execinfo.h>
#include <pthread.h>
#include <setjmp.h>
#include <unistd.h>

#include "mc_sample.h"

#define MC_FUNC __attribute__((noinline, noclone))

_Thread_local volatile int mc_sink;

MC_FUNC int mc_leaf(int x)
{
	mc_sink = x;
	return x + 1;
}

MC_FUNC int mc_mid(int x)
{
	return mc_leaf(x) + mc_leaf(x + 1);
}

MC_FUNC int mc_outer(int x)
{
	return mc_mid(x) * 2;
}

MC_FUNC int mc_recurse(int n)
{
	int r = n ? mc_recurse(n - 1) + 1 : mc_leaf(0);

	mc_sink = r; /* not a tail call */
	return r;
}

MC_FUNC void mc_jump(sigjmp_buf *env, int depth)
{
	if (!depth)
		siglongjmp(*env, 1);
	mc_jump(env, depth - 1);
	mc_sink = depth;
}

MC_FUNC int mc_sig_leaf(int x)
{
	return mc_leaf(x) + 1;
}

MC_FUNC static void mc_cancel_inner(void)
{
	pthread_testcancel();
	mc_leaf(1);
}

MC_FUNC void mc_cancel_loop(void)
{
	for (;;) {
		mc_cancel_inner();
		mc_sink++;
	}
}

MC_FUNC static int mc_bt_inner(void **buf, int size)
{
	int n = backtrace(buf, size);

	mc_sink = n;
	return n;
}

MC_FUNC int mc_bt(void **buf, int size)
{
	int n = mc_bt_inner(buf, size);

	mc_sink = n;
	return n;
}

MC_FUNC double mc_float(double a, double b)
{
	return a * b + mc_leaf(1);
}

MC_FUNC long mc_args(long a, long b, long c, long d, long e, long f)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

/* fork() inside a traced frame: the child returns through it too. */
MC_FUNC int mc_fork(void)
{
	int pid = fork();

	mc_leaf(pid);
	return pid;
}
