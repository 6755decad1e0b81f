// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tp-bench-inline.c - the function ringtrace-tp-bench calls in its
 * tp-inline case: trace_tpbench_inline(), an event with tpbench_call's
 * record, created with RINGTRACE_INLINE_WRITE (the write compiled in
 * here, <ringtrace/inline_write.h>).
 */
#define RINGTRACE_INLINE_WRITE
#define CREATE_TRACE_POINTS
#include "tp-bench-inline-events.h"

#include <stdbool.h>

/* The bench declares them itself (tp-bench.c). */
void tpb_tp_inline(unsigned long seq, int a, int b);
bool tpb_inline_on(void);

__attribute__((noinline)) void tpb_tp_inline(unsigned long seq, int a, int b)
{
	trace_tpbench_inline(seq, a, b);
}

bool tpb_inline_on(void)
{
	return trace_tpbench_inline_enabled();
}
