// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tp-bench-fn.c - the function ringtrace-tp-bench calls in its function
 * tracer cases.
 *
 * This file is compiled twice: once with -finstrument-functions, as
 * tpb_fn_traced(), whose entry and exit call the function tracers' hooks;
 * once without, as tpb_fn_plain(), the same code with nothing added. The
 * difference between the two is what the hooks cost; CMake sets
 * TPB_FN_NAME. On x86-64 twice more: -fpatchable-function-entry=5 as
 * tpb_fn_patch(), -pg -mfentry -mrecord-mcount as tpb_fn_pg(). The body is a store of its arguments' sum, so that the
 * call does a little work and cannot be dropped.
 */
#ifndef TPB_FN_NAME
#error "TPB_FN_NAME must name the function (tpb_fn_traced, tpb_fn_plain, ...)"
#endif

/* The bench declares both names itself (tp-bench.c). */
void TPB_FN_NAME(unsigned long seq, int a, int b);

static volatile unsigned long tpb_fn_sink;

__attribute__((noinline)) void TPB_FN_NAME(unsigned long seq, int a, int b)
{
	tpb_fn_sink = seq + (unsigned long)a + (unsigned long)b;
}
