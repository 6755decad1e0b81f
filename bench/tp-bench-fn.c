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
 *
 * Each copy also defines TPB_FN_NAME_call(), which calls TPB_FN_NAME()
 * and does nothing else: a call that is not a leaf, for the cases that
 * measure what a traced call costs when it calls a traced one.
 *
 * Each copy also defines TPB_FN_NAME_0 to TPB_FN_NAME_15, sixteen
 * functions of the same body (each its own store), for the cases that
 * call a different function each time, as a real program does: a
 * trampoline that all of them pass through sees its branches' targets
 * change with every call.
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

#define TPB_FN_PASTE2(a, b) a##_##b
#define TPB_FN_PASTE(a, b) TPB_FN_PASTE2(a, b)

void TPB_FN_PASTE(TPB_FN_NAME, call)(unsigned long seq, int a, int b);

__attribute__((noinline)) void TPB_FN_PASTE(TPB_FN_NAME, call)(unsigned long seq,
							     int a, int b)
{
	TPB_FN_NAME(seq, a, b);
	/* (not a tail call: the call returns here) */
	__asm__ volatile("");
}
#define TPB_FN_K(k)                                                         \
	void TPB_FN_PASTE(TPB_FN_NAME, k)(unsigned long seq, int a, int b); \
	__attribute__((noinline)) void TPB_FN_PASTE(TPB_FN_NAME, k)(        \
		unsigned long seq, int a, int b)                            \
	{                                                                   \
		tpb_fn_sink = seq + (unsigned long)a + (unsigned long)b + k; \
	}
TPB_FN_K(0) TPB_FN_K(1) TPB_FN_K(2) TPB_FN_K(3)
TPB_FN_K(4) TPB_FN_K(5) TPB_FN_K(6) TPB_FN_K(7)
TPB_FN_K(8) TPB_FN_K(9) TPB_FN_K(10) TPB_FN_K(11)
TPB_FN_K(12) TPB_FN_K(13) TPB_FN_K(14) TPB_FN_K(15)
