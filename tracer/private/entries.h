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
	/* ringtrace's own: funcgraph_exit with the return value (past the
	 * kernel's TRACE_FUNC_REPEATS, 20) */
	RT_TYPE_GRAPH_RETVAL = 21,
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
 * A graph call's exit is one of two records, as the kernel's is one of
 * two layouts by CONFIG_FUNCTION_GRAPH_RETVAL: funcgraph_exit (struct
 * rt_graph_exit_entry, 40 bytes) without the return value, written when
 * funcgraph-retval is off (the default) and by the hooks that have none;
 * fgraph_retval_exit (struct rt_graph_ret_entry, 48 bytes: the kernel's
 * funcgraph_exit with the option), with @retval the return register
 * (%rax) as return_to_handler found it, written when the instance has
 * funcgraph-retval on. The option is read at each write, so switching it
 * mid-run switches the records from the next call's exit on.
 *
 * Userspace: the kernel writes one layout per build and funcgraph-retval
 * only decides what is printed; here the option decides what is written
 * (a call's exit without it is 8 bytes shorter), so a record written
 * while it was off has no return value to print when it is turned on.
 * The layouts differ in name and id, so that the format trace-cmd and
 * KernelShark read for a type fits every record of it (trace-cmd 3.1.6's
 * function_graph layout folds only funcgraph_exit records; it prints
 * fgraph_retval_exit's with their print fmt), as Linux 6.13 gave its
 * funcgraph-retaddr entries a name and id of their own
 * (fgraph_retaddr_entry).
 *
 * RT_GRAPH_NO_RETVAL in @overrun: a call's exit with no return value
 * (handed to the write by the -finstrument-functions hooks, which never
 * see it; set by rt_graph_ret_read() for a record without one); the
 * records themselves never hold it (a count that never gets near 2^31).
 */
#define RT_GRAPH_NO_RETVAL (1u << 31)

/* Whether @type is a graph call's exit, either layout. */
static inline bool rt_type_graph_exit(unsigned int type)
{
	return type == RT_TYPE_GRAPH_RET || type == RT_TYPE_GRAPH_RETVAL;
}

/*
 * rt_graph_ret_read - a graph call's exit record of @len bytes into @r:
 * fgraph_retval_exit's layout (and funcgraph_exit's before it went
 * without the return value: ringtrace's own files until then, Linux 6.12
 * with CONFIG_FUNCTION_GRAPH_RETVAL), or funcgraph_exit's, read as a
 * record without a return value (@retval 0, RT_GRAPH_NO_RETVAL set in
 * @overrun). Records are exactly their payload's length, so the length
 * tells the two apart, whatever the type. False: too short.
 */
static inline bool rt_graph_ret_read(const void *rec, unsigned int len,
				     struct rt_graph_ret_entry *r)
{
	struct rt_graph_exit_entry x;

	if (len >= sizeof(*r)) {
		memcpy(r, rec, sizeof(*r));
		return true;
	}
	if (len < sizeof(x))
		return false;
	memcpy(&x, rec, sizeof(x));
	r->ent = x.ent;
	r->func = x.func;
	r->retval = 0;
	r->depth = x.depth;
	r->overrun = x.overrun | RT_GRAPH_NO_RETVAL;
	r->calltime = x.calltime;
	r->rettime = x.rettime;
	return true;
}

#endif
