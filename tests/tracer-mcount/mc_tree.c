// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_tree.c - the program uftrace_oracle.sh records with uftrace and with
 * ringtrace: recursion, a call through a pointer, loops. Built twice,
 * -pg -mfentry -mrecord-mcount and -fpatchable-function-entry=5, and not
 * linked with libringtrace (ringtrace record preloads it).
 */
#include <stdio.h>

#define MC_FUNC __attribute__((noinline, noclone))

int mc_t_leaf(int x);
int mc_t_fib(int n);
int mc_t_twice(int (*f)(int), int x);
int mc_t_mid(int x);
int mc_t_outer(int x);

volatile int mc_t_sink;

MC_FUNC int mc_t_leaf(int x)
{
	mc_t_sink = x;
	return x + 1;
}

MC_FUNC int mc_t_fib(int n)
{
	return n < 2 ? mc_t_leaf(n) : mc_t_fib(n - 1) + mc_t_fib(n - 2);
}

MC_FUNC int mc_t_twice(int (*f)(int), int x)
{
	return f(x) + f(x + 1);
}

MC_FUNC int mc_t_mid(int x)
{
	int r = mc_t_twice(mc_t_leaf, x);

	mc_t_sink = r;
	return r;
}

MC_FUNC int mc_t_outer(int x)
{
	int r = mc_t_mid(x) + mc_t_fib(4);

	mc_t_sink = r;
	return r;
}

int main(void)
{
	int r = 0;

	for (int i = 0; i < 3; i++)
		r += mc_t_outer(i);
	printf("%d\n", r);
	return 0;
}
