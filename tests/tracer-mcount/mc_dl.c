// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_dl.c - a module the tests dlopen() and dlclose(), built -pg
 * -mfentry -mrecord-mcount.
 */
int mc_dl_leaf(int x);
int mc_dl_fn(int x);

_Thread_local volatile int mc_dl_sink;

__attribute__((noinline, noclone)) int mc_dl_leaf(int x)
{
	mc_dl_sink = x;
	return x * 3;
}

__attribute__((noinline, noclone)) int mc_dl_fn(int x)
{
	return mc_dl_leaf(x) + 1;
}
