/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event of ringtrace-tp-bench's tp-inline case: the fields of
 * tpbench_call (tp-bench-events.h), created in tp-bench-inline.c with
 * RINGTRACE_INLINE_WRITE.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpbench

#if !defined(TP_BENCH_INLINE_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define TP_BENCH_INLINE_EVENTS_H
#include <ringtrace/tracepoint.h>

TRACE_EVENT(tpbench_inline,
	TP_PROTO(unsigned long seq, int a, int b),
	TP_ARGS(seq, a, b),
	TP_STRUCT__entry(
		__field(unsigned long, seq)
		__field(int, a)
		__field(int, b)
	),
	TP_fast_assign(
		__entry->seq = seq;
		__entry->a = a;
		__entry->b = b;
	),
	TP_printk("seq=%lu a=%d b=%d", __entry->seq, __entry->a, __entry->b)
);

#endif /* TP_BENCH_INLINE_EVENTS_H */

#define TRACE_INCLUDE_FILE tp-bench-inline-events
#include <ringtrace/define_trace.h>
