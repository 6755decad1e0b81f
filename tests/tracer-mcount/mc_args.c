// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_args.c - functions whose arguments and return values
 * funcgraph-args and funcgraph-retval show (mc_args.h). Built three
 * times, each with its own prefix: fa_ -pg -mfentry -mrecord-mcount with
 * debug information, fn_ the same without (-g0: raw registers), fi_
 * -finstrument-functions (no arguments, no return value).
 *
 * noipa: GCC must not clone them with fewer or other parameters than
 * their DWARF lists (a .constprop or .isra copy is called so).
 */
#include "mc_args.h"

#define MCA_FN __attribute__((noipa))

MCA_FN int MCA(add)(int a, int b)
{
	return a + b;
}

MCA_FN long MCA(neg)(long x)
{
	return -x;
}

MCA_FN int MCA(fail)(void)
{
	return -22;
}

MCA_FN unsigned int MCA(mix)(unsigned char c, short s, unsigned long u,
			    const char *p, enum mca_color e, _Bool b)
{
	return (unsigned int)(c + s + u + (p ? 1 : 0) + e + b);
}

MCA_FN long MCA(seven)(long a, long b, long c, long d, long e, long f,
		       long g)
{
	return a + b + c + d + e + f + g;
}

MCA_FN long MCA(pair)(struct mca_pair p, int x)
{
	return p.a + p.b + x;
}

MCA_FN int MCA(flt)(double d, int i)
{
	return (int)d + i;
}

MCA_FN long MCA(big)(struct mca_big b, int i)
{
	return b.v[0] + b.v[3] + i;
}

MCA_FN int MCA(outer)(int n)
{
	return MCA(add)(n, 1) * 2;
}
