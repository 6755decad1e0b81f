/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mc_body.h - the functions of mc_body.c, under the prefix MB_PREFIX
 * (mb_p_ or mb_f_); included once per prefix, with MB_PREFIX and MB
 * undefined in between
 */
#ifndef MB_PREFIX
#define MB_PREFIX mb_p_
#endif
#define MB_CAT2(p, n) p##n
#define MB_CAT(p, n) MB_CAT2(p, n)
#define MB(n) MB_CAT(MB_PREFIX, n)

#ifndef MC_BODY_TYPES
#define MC_BODY_TYPES
struct mb_trio {
	long a, b, c;
};
struct mb_pair {
	long a, b;
};
struct mb_dpair {
	double a, b;
};
#endif

long MB(stack)(long a, long b, long c, long d, long e, long f, long g, long h,
	       long i, struct mb_trio t);
double MB(fstack)(double a, double b, double c, double d, double e, double f,
		  double g, double h, double i, double j);
double MB(var)(int n, ...);
struct mb_pair MB(pair)(long x);
struct mb_dpair MB(dpair)(double x, double y);
void *MB(ret)(unsigned long *real);
