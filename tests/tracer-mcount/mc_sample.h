/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mc_sample.h - the functions the profiling-call tests trace:
 * mc_sample.c is built -pg -mfentry -mrecord-mcount, mc_patch.c
 * -fpatchable-function-entry=5, mc_dl.c (a dlopen()ed module) -pg
 * -mfentry -mrecord-mcount, mc_exc.cc (C++) -pg -mfentry
 * -mrecord-mcount.
 */
#ifndef MC_SAMPLE_H
#define MC_SAMPLE_H

#include <setjmp.h>

int mc_leaf(int x);
int mc_mid(int x);
int mc_outer(int x);
int mc_recurse(int n);
void mc_jump(sigjmp_buf *env, int depth);
int mc_sig_leaf(int x);
void mc_cancel_loop(void);
int mc_bt(void **buf, int size);
int mc_fork(void);
double mc_float(double a, double b);
long mc_args(long a, long b, long c, long d, long e, long f);

int mc_pleaf(int x);
int mc_pouter(int x);
/* @f(@x) + 1 */
int mc_pcall(int (*f)(int), int x);

/* mc_exc.cc: throws through @depth traced frames, catches; returns the
 * number of calls that ran after the catch. */
int mc_cxx_catch(int depth);

#endif
