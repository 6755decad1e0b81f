// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tp-bench-outofline.c - the function ringtrace-tp-bench calls in its
 * tp-outofline case: trace_tpbench_outofline(), an event with
 * tpbench_call's record, created with RINGTRACE_NO_INLINE_WRITE (every
 * write a call of ringtrace_write_record(), as before the write was
 * compiled in by default).
 */
#define RINGTRACE_NO_INLINE_WRITE
#define CREATE_TRACE_POINTS
#include "tp-bench-outofline-events.h"

#include <stdbool.h>

/* The bench declares them itself (tp-bench.c). */
void tpb_tp_outofline(unsigned long seq, int a, int b);
bool tpb_outofline_on(void);

__attribute__((noinline)) void tpb_tp_outofline(unsigned long seq, int a, int b)
{
	trace_tpbench_outofline(seq, a, b);
}

bool tpb_outofline_on(void)
{
	return trace_tpbench_outofline_enabled();
}
