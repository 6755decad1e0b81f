// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_body.c - functions whose arguments and return values lie where
 * function_graph's own entry must leave them alone: the body is called by
 * the trampoline (ftrace_graph_body_caller_D), which drops the caller's
 * return and calls the body in its place, so the stack arguments must be
 * where the body expects them. Compiled twice (CMake sets MB_PREFIX):
 * -fpatchable-function-entry=5 (mb_p_) and -pg -mfentry -mrecord-mcount
 * (mb_f_).
 */
#include <stdarg.h>

#include "mc_body.h"

#define MB_FUNC __attribute__((noinline, noclone))

/* nine integer arguments (three on the stack) and a struct in memory */
MB_FUNC long MB(stack)(long a, long b, long c, long d, long e, long f,
		       long g, long h, long i, struct mb_trio t)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h +
	       9 * i + 10 * t.a + 11 * t.b + 12 * t.c;
}

/* ten doubles: eight in xmm0-7, two on the stack */
MB_FUNC double MB(fstack)(double a, double b, double c, double d, double e,
			  double f, double g, double h, double i, double j)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h +
	       9 * i + 10 * j;
}

/* @n pairs of (long, double): %al counts the vector registers used */
MB_FUNC double MB(var)(int n, ...)
{
	double sum = 0;
	va_list ap;

	va_start(ap, n);
	for (int k = 0; k < n; k++) {
		long l = va_arg(ap, long);
		double d = va_arg(ap, double);

		sum += (double)(l * (k + 1)) + d * (k + 2);
	}
	va_end(ap);
	return sum;
}

/* returned in %rax:%rdx */
MB_FUNC struct mb_pair MB(pair)(long x)
{
	return (struct mb_pair){ 3 * x, 5 * x + 1 };
}

/* returned in %xmm0:%xmm1 */
MB_FUNC struct mb_dpair MB(dpair)(double x, double y)
{
	return (struct mb_dpair){ x + y, x * y };
}

/* fgraph.c: the real return behind one of the tracer's (exported). */
unsigned long ringtrace_graph_ret_addr(unsigned long ret, unsigned long *retp);

/*
 * Its own return address as found in its slot; *@real: what
 * ringtrace_graph_ret_addr() says of it, asked while the frame is there
 */
MB_FUNC void *MB(ret)(unsigned long *real)
{
	void **fp = __builtin_frame_address(0);
	void *ret = __builtin_return_address(0);

	*real = ringtrace_graph_ret_addr((unsigned long)ret,
					 (unsigned long *)(fp + 1));
	return ret;
}
