// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_patch.c - code built -fpatchable-function-entry=5: five NOPs at
 * each function's entry, recorded in __patchable_function_entries.
 */
#include "mc_sample.h"

#define MC_FUNC __attribute__((noinline, noclone))

_Thread_local volatile int mc_psink;

MC_FUNC int mc_pleaf(int x)
{
	mc_psink = x;
	return x + 1;
}

MC_FUNC int mc_pouter(int x)
{
	return mc_pleaf(x) + mc_pleaf(x + 2);
}

MC_FUNC int mc_pcall(int (*f)(int), int x)
{
	return f(x) + 1;
}
