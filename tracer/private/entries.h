/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * entries.h - the records the tracer writes for itself (function,
 *	function_graph, markers, stack traces, raw data) as they are in
 *	the buffer: written by libringtrace, read by the printer, the tool
 *	and tracefs; defined once, in entries_list.h
 */
#ifndef RINGTRACE_ENTRIES_H
#define RINGTRACE_ENTRIES_H

#include <ringtrace/event.h>

/* Ids of the built-in ftrace events (the kernel's TRACE_* values). */
enum {
	RT_TYPE_FN = 1,
	RT_TYPE_STACK = 4,
	RT_TYPE_PRINT = 5,
	RT_TYPE_GRAPH_RET = 10,
	RT_TYPE_GRAPH_ENT = 11,
	RT_TYPE_RAW_DATA = 19, /* 18 before Linux 6.13 added TRACE_GRAPH_RETADDR_ENT */
	RT_TYPE_FIRST_DYNAMIC = 32,
};

/* The built-in records: their structures, from the list */
#define RT_FE_ALIGNED
#define RT_FE_PACKED __attribute__((packed, aligned(4)))
#define RT_FE_FIELD(type, name, kind) type name;
#define RT_FE_ARRAY(type, name, kind) type name[];
#define RT_FTRACE_ENTRY(ev_name, ev_struct, ev_id, ev_attr, ev_fields,    \
			ev_fmt, ev_print)                                    \
	struct ev_attr ev_struct {                                           \
		struct ringtrace_entry ent;                                  \
		ev_fields                                                    \
	};
#include "entries_list.h"
#undef RT_FTRACE_ENTRY
#undef RT_FE_ARRAY
#undef RT_FE_FIELD

/* The longest text of a print record in a buffer whose largest record
 * is @max_event bytes (ringbuf_max_event_size()): a longer trace_marker
 * write is cut there (by the library, and by the mount, which answers
 * the write with the count taken, as tracefs does). */
static inline size_t rt_marker_max_len(size_t max_event)
{
	return max_event - sizeof(struct rt_print_entry) - 2;
}

#endif
