/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events of test_unload: one of a fixed size, one with a string (its
 * record assigned in place, instance by instance). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM unload

#if !defined(UNLOAD_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define UNLOAD_EVENTS_H
#include <ringtrace/tracepoint.h>

TRACE_EVENT(unload_fixed,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(int, v)
	),
	TP_fast_assign(
		__entry->v = v;
	),
	TP_printk("v=%d", __entry->v)
);

TRACE_EVENT(unload_str,
	TP_PROTO(const char *s),
	TP_ARGS(s),
	TP_STRUCT__entry(
		__string(s, s)
	),
	TP_fast_assign(
		__assign_str(s, s);
	),
	TP_printk("s=%s", __get_str(s))
);

#endif /* UNLOAD_EVENTS_H */

#define TRACE_INCLUDE_FILE unload_events
#include <ringtrace/define_trace.h>
