// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_patch_m.c - built twice with NOPs before the entry: -fpatchable-
 * function-entry=9,2 as mc_pm_leaf() (seven NOPs at the entry: patched
 * there) and =5,2 as mc_ps_leaf() (three at the entry: too few for a
 * call, reported and left alone). MC_PM_NAME names the function.
 */
int MC_PM_NAME(int x);

_Thread_local volatile int MC_PM_SINK;

__attribute__((noinline, noclone)) int MC_PM_NAME(int x)
{
	MC_PM_SINK = x;
	return x + 1;
}
