/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event of the inline write test's opt-out case: inl_pad's record,
 * created in inline_off.c with RINGTRACE_NO_INLINE_WRITE.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM inl

#if !defined(INLINE_OFF_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define INLINE_OFF_EVENTS_H
#include <ringtrace/tracepoint.h>

TRACE_EVENT(inl_out,
	TP_PROTO(char c, long long v, short s),
	TP_ARGS(c, v, s),
	TP_STRUCT__entry(
		__field(char, c)
		__field(long long, v)
		__field(short, s)
	),
	TP_fast_assign(
		__entry->c = c;
		__entry->v = v;
		__entry->s = s;
	),
	TP_printk("c=%d v=%lld s=%d", __entry->c, __entry->v, __entry->s)
);

#endif /* INLINE_OFF_EVENTS_H */

#define TRACE_INCLUDE_FILE inline_off_events
#include <ringtrace/define_trace.h>
