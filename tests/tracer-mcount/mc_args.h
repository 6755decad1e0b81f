/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mc_args.h - the functions of mc_args.c, under the prefix MCA_PREFIX
 * (fa_, fn_ or fi_: see there); included once per prefix, with
 * MCA_PREFIX and MCA undefined in between
 */
#ifndef MCA_PREFIX
#define MCA_PREFIX fa_
#endif
#define MCA_CAT2(p, n) p##n
#define MCA_CAT(p, n) MCA_CAT2(p, n)
#define MCA(n) MCA_CAT(MCA_PREFIX, n)

#ifndef MC_ARGS_TYPES
#define MC_ARGS_TYPES
enum mca_color { MCA_RED = -2, MCA_GREEN = 1 };
struct mca_pair {
	long a, b;
};
struct mca_big {
	long v[4];
};
#endif

int MCA(add)(int a, int b);
long MCA(neg)(long x);
int MCA(fail)(void);
unsigned int MCA(mix)(unsigned char c, short s, unsigned long u,
		      const char *p, enum mca_color e, _Bool b);
long MCA(seven)(long a, long b, long c, long d, long e, long f, long g);
long MCA(pair)(struct mca_pair p, int x);
int MCA(flt)(double d, int i);
long MCA(big)(struct mca_big b, int i);
int MCA(outer)(int n);
