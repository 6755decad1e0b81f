/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * entries.h - the records the tracer writes for itself (function,
 *	function_graph, markers, stack traces, raw data) as they are in
 *	the buffer: written by libringtrace, read by the printer, the tool
 *	and tracefs; defined once, in entries_list.h
 */
#ifndef RINGTRACE_ENTRIES_H
#define RINGTRACE_ENTRIES_H

#include <stdbool.h>
#include <string.h>

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
#define RT_FE_ARRAY_PACKED(type, name, kind) type name[];
#define RT_FTRACE_ENTRY(ev_name, ev_struct, ev_id, ev_attr, ev_fields,    \
			ev_fmt, ev_print)                                    \
	struct ev_attr ev_struct {                                           \
		struct ringtrace_entry ent;                                  \
		ev_fields                                                    \
	};
#include "entries_list.h"
#undef RT_FTRACE_ENTRY
#undef RT_FE_ARRAY_PACKED
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

/*
 * funcgraph_entry with funcgraph-args goes on with the six argument
 * registers (@args, RT_GRAPH_NR_ARGS words; the kernel's
 * FTRACE_REGS_MAX_ARGS), as Linux 6.15's funcgraph_entry does; a record
 * without them is sizeof(struct rt_graph_ent_entry) long.
 *
 * Userspace: Linux 6.15 unpacked the record for the array (and made
 * depth unsigned), so its args start at 24; ours keep 6.12's packed
 * layout and start at 20: the format file says where (readers that go
 * by the format, trace-cmd's among them, find them either way) and a
 * call without arguments keeps its 20 bytes.
 */
#define RT_GRAPH_NR_ARGS 6
/* The payload of a funcgraph_entry record that carries the arguments. */
#define RT_GRAPH_ENT_ARGS_SIZE                                                \
	(sizeof(struct rt_graph_ent_entry) +                                  \
	 RT_GRAPH_NR_ARGS * sizeof(unsigned long))

/*
 * function with func-args goes on with the same six registers (@args),
 * as Linux 6.15's function record (its __dynamic_array args, which runs
 * to the record's end); a record without them is sizeof(struct
 * rt_fn_entry) long, as before the option.
 */
#define RT_FN_NR_ARGS RT_GRAPH_NR_ARGS
#define RT_FN_ARGS_SIZE                                                       \
	(sizeof(struct rt_fn_entry) + RT_FN_NR_ARGS * sizeof(unsigned long))

/*
 * funcgraph_exit's @retval is the return register (%rax) as
 * return_to_handler found it (the kernel's funcgraph_exit with
 * CONFIG_FUNCTION_GRAPH_RETVAL, 6.12: packed, 48 bytes).
 *
 * Userspace: the -finstrument-functions hooks never see the return
 * value; their records set RT_GRAPH_NO_RETVAL in @overrun (a count that
 * never gets near 2^31) and the printers then print no return value.
 */
#define RT_GRAPH_NO_RETVAL (1u << 31)

/*
 * rt_graph_ret_read - a funcgraph_exit record of @len bytes into @r: this
 * layout, or the 40 bytes of the one without @retval (Linux 6.12 without
 * CONFIG_FUNCTION_GRAPH_RETVAL; ringtrace's own files before it), read
 * as a record without a return value. Records are exactly their
 * payload's length, so the length tells the two apart. False: too short.
 */
static inline bool rt_graph_ret_read(const void *rec, unsigned int len,
				     struct rt_graph_ret_entry *r)
{
	const char *p = (const char *)rec;

	if (len >= sizeof(*r)) {
		memcpy(r, rec, sizeof(*r));
		return true;
	}
	if (len < sizeof(*r) - sizeof(r->retval))
		return false;
	/* func at 8, then depth, overrun, calltime, rettime */
	memcpy(&r->ent, p, sizeof(r->ent));
	memcpy(&r->func, p + 8, sizeof(r->func));
	memcpy(&r->depth, p + 16, sizeof(r->depth));
	memcpy(&r->overrun, p + 20, sizeof(r->overrun));
	memcpy(&r->calltime, p + 24, sizeof(r->calltime));
	memcpy(&r->rettime, p + 32, sizeof(r->rettime));
	r->retval = 0;
	r->overrun |= RT_GRAPH_NO_RETVAL;
	return true;
}

#endif
