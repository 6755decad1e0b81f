/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hello_trace.h - the events of the "hello" system, used by the examples
 * hello-events.c and instances.c.
 *
 * Every file that traces includes this header and calls trace_greet()
 * or trace_tick(). Exactly one .c file of a program defines
 * CREATE_TRACE_POINTS before including it: that file gets the code that
 * writes, prints and registers the events.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hello

#if !defined(HELLO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define HELLO_TRACE_H

#include <ringtrace/tracepoint.h>

/* A string copied into the record, and an integer */
TRACE_EVENT(greet,
	TP_PROTO(const char *name, int times),
	TP_ARGS(name, times),
	TP_STRUCT__entry(
		__string(name, name)
		__field(int, times)
	),
	TP_fast_assign(
		__assign_str(name);
		__entry->times = times;
	),
	TP_printk("name=%s times=%d", __get_str(name), __entry->times)
);

/* Integers only; the address is printed as a symbol name */
TRACE_EVENT(tick,
	TP_PROTO(unsigned int seq, long value, void *caller),
	TP_ARGS(seq, value, caller),
	TP_STRUCT__entry(
		__field(unsigned int, seq)
		__field(long, value)
		__field(void *, caller)
	),
	TP_fast_assign(
		__entry->seq = seq;
		__entry->value = value;
		__entry->caller = caller;
	),
	TP_printk("seq=%u value=%ld caller=%ps", __entry->seq,
		  __entry->value, __entry->caller)
);

#endif /* HELLO_TRACE_H */

/* Outside the guard: read again once per pass when creating the events */
#define TRACE_INCLUDE_FILE hello_trace
#include <ringtrace/define_trace.h>
