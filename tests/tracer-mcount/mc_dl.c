// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_dl.c - a module the tests dlopen() and dlclose(), built -pg
 * -mfentry -mrecord-mcount. Its destructor loads and unloads another
 * object, inside the dlclose() that unloads it (as a plugin closing its
 * own dependency does).
 */
#include <dlfcn.h>

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

__attribute__((destructor)) static void mc_dl_fini(void)
{
	void *h = dlopen("libm.so.6", RTLD_NOW);

	if (h)
		dlclose(h);
}
