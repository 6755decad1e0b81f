/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events of the hist trigger tests: integer keys and values of each
 * sign, a fixed string, a dynamic string and an address.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hist

#if !defined(HIST_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define HIST_EVENTS_H
#include <ringtrace/tracepoint.h>

TRACE_EVENT(work,
	TP_PROTO(int worker, unsigned int bytes, long delta, const char *name,
		 const char *path, unsigned long fn),
	TP_ARGS(worker, bytes, delta, name, path, fn),
	TP_STRUCT__entry(
		__field(int, worker)
		__field(unsigned int, bytes)
		__field(long, delta)
		__array(char, name, 16)
		__string(path, path)
		__field(unsigned long, fn)
	),
	TP_fast_assign(
		__entry->worker = worker;
		__entry->bytes = bytes;
		__entry->delta = delta;
		memset(__entry->name, 0, sizeof(__entry->name));
		memcpy(__entry->name, name, strnlen(name, sizeof(__entry->name)));
		__assign_str(path);
		__entry->fn = fn;
	),
	TP_printk("worker=%d bytes=%u delta=%ld name=%.16s path=%s fn=%lx",
		  __entry->worker, __entry->bytes, __entry->delta,
		  __entry->name, __get_str(path), __entry->fn)
);

TRACE_EVENT(done,
	TP_PROTO(int worker),
	TP_ARGS(worker),
	TP_STRUCT__entry(
		__field(int, worker)
	),
	TP_fast_assign(
		__entry->worker = worker;
	),
	TP_printk("worker=%d", __entry->worker)
);

#endif /* HIST_EVENTS_H */

#define TRACE_INCLUDE_FILE hist_events
#include <ringtrace/define_trace.h>
