/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hostile_trace.h - the events of the hostile traced program (hostile.c) */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hostile

#if !defined(HOSTILE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define HOSTILE_TRACE_H

#include <ringtrace/tracepoint.h>

TRACE_EVENT(note,
	TP_PROTO(unsigned int n, const char *what),
	TP_ARGS(n, what),
	TP_STRUCT__entry(
		__field(unsigned int, n)
		__string(what, what)
	),
	TP_fast_assign(
		__entry->n = n;
		__assign_str(what);
	),
	TP_printk("n=%u what=%s", __entry->n, __get_str(what))
);

TRACE_EVENT(pair,
	TP_PROTO(unsigned long x, long y),
	TP_ARGS(x, y),
	TP_STRUCT__entry(
		__field(unsigned long, x)
		__field(long, y)
	),
	TP_fast_assign(
		__entry->x = x;
		__entry->y = y;
	),
	TP_printk("x=%lu y=%ld", __entry->x, __entry->y)
);

#endif /* HOSTILE_TRACE_H */

#define TRACE_INCLUDE_FILE hostile_trace
#include <ringtrace/define_trace.h>
