// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A known call tree for the function tracer tests; this file alone is
 * compiled with -finstrument-functions.
 *
 *	fg_main
 *	  fg_a
 *	    fg_b            (leaf)
 *	    fg_c
 *	      dl_leaf       (in a dlopen()ed object)
 *	  fg_d(3)           (recursion: fg_d -> fg_d -> fg_d)
 */
#include "fgraph_sample.h"

static volatile int sink;

void (*fg_dl_leaf)(int);

__attribute__((noinline)) void fg_b(int x)
{
	sink += x;
}

__attribute__((noinline)) void fg_c(int x)
{
	if (fg_dl_leaf)
		fg_dl_leaf(x);
	sink -= x;
}

__attribute__((noinline)) void fg_a(int x)
{
	fg_b(x);
	fg_c(x);
}

__attribute__((noinline)) void fg_d(int n)
{
	if (n > 1)
		fg_d(n - 1);
	sink++;
}

__attribute__((noinline)) void fg_main(void)
{
	fg_a(1);
	fg_d(3);
}
