// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nest_sample.c - call patterns that -O2 code gives the hooks, compiled
 * with -O2 -finstrument-functions (tests/tracer-nest/CMakeLists.txt).
 * GCC calls the hooks for inlined callees too, from the caller's frame:
 * an inlined callee's entry and exit arrive inside its caller's pair, at
 * the same machine-stack place and with the caller's return address as
 * their call site.
 */
#include <setjmp.h>
#include <signal.h>

#include "nest_sample.h"

/* ---- inlined callees ---- */
static inline __attribute__((always_inline)) int ai_leaf(int x)
{
	return x * 2 + 1;
}

/* static and called from one place: GCC inlines it at -O2 */
static int st_helper(int x)
{
	return x ^ 0x55;
}

__attribute__((noinline)) int nest_inline(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += ai_leaf(i);
	return s + st_helper(n);
}

/* an inlined callee that itself calls a real function and an inlined one */
__attribute__((noinline)) int nest_real_leaf(int x)
{
	return x + 7;
}

static inline __attribute__((always_inline)) int ai_mid(int x)
{
	return nest_real_leaf(x) + ai_leaf(x);
}

__attribute__((noinline)) int nest_deep_inline(int n)
{
	return ai_mid(n) + ai_mid(n + 1);
}

__attribute__((noinline)) int nest_static(int n)
{
	return st_helper(n) + ai_leaf(n);
}

/* ---- recursion ---- */
__attribute__((noinline)) int nest_rec(int n)
{
	if (n <= 0)
		return 0;
	return 1 + nest_rec(n - 1);
}

/* ---- calls in tail position ---- */
__attribute__((noinline)) int nest_tail_b(int x)
{
	return x + 2;
}

__attribute__((noinline)) int nest_tail(int x)
{
	return nest_tail_b(x * 2);
}

/* ---- longjmp out of several frames ---- */
static jmp_buf nest_env;

__attribute__((noinline)) void nest_lj_c(void)
{
	longjmp(nest_env, 1);
}

__attribute__((noinline)) void nest_lj_b(void)
{
	nest_lj_c();
}

__attribute__((noinline)) void nest_lj_a(void)
{
	nest_lj_b();
}

__attribute__((noinline)) int nest_lj_after(int x)
{
	return x + 1;
}

__attribute__((noinline)) void nest_longjmp(int twice)
{
	volatile int round = 0;

	while (round < (twice ? 2 : 1)) {
		if (!setjmp(nest_env))
			nest_lj_a();
		round++;
	}
	nest_lj_after(round);
}

/* ---- a signal handler interrupting a call ---- */
__attribute__((noinline)) int nest_sig_inner(int x)
{
	return x * 3;
}

__attribute__((noinline)) void nest_sig_handler(int sig)
{
	nest_sig_inner(sig);
}

__attribute__((noinline)) void nest_signal(int sig)
{
	struct sigaction sa = { .sa_handler = nest_sig_handler };

	sigaction(sig, &sa, 0);
	raise(sig);
}

/* ---- the tracer switched off and on in the middle of a call ---- */
__attribute__((noinline)) void nest_switch_leaf(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void nest_switch_victim(void (*mid)(void))
{
	nest_switch_leaf();
	mid();
	nest_switch_leaf();
}
