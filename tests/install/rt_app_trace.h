/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rt_app_trace.h - the events of the programs outside the tree */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM extapp

#if !defined(RT_APP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RT_APP_TRACE_H
#include <ringtrace/tracepoint.h>

TRACE_EVENT(request,
	TP_PROTO(int id, short delta, const char *path),
	TP_ARGS(id, delta, path),
	TP_STRUCT__entry(
		__field(int, id)
		__field(short, delta)
		__string(path, path)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->delta = delta;
		__assign_str(path);
	),
	TP_printk("id=%d delta=%d path=%s", __entry->id, __entry->delta,
		  __get_str(path))
);

/* A fixed-size record: written inline unless RINGTRACE_NO_INLINE_WRITE */
TRACE_EVENT(tick,
	TP_PROTO(int n, short delta),
	TP_ARGS(n, delta),
	TP_STRUCT__entry(
		__field(short, delta)
		__field(long long, n)
	),
	TP_fast_assign(
		__entry->delta = delta;
		__entry->n = n;
	),
	TP_printk("n=%lld delta=%d", __entry->n, __entry->delta)
);
#endif

#define TRACE_INCLUDE_FILE rt_app_trace
#include <ringtrace/define_trace.h>
