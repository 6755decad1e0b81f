/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * entries_list.h - the tracer's own records, each defined once (the
 *	kernel's FTRACE_ENTRY() list, trace_entries.h)
 *
 * No include guard: each includer defines RT_FTRACE_ENTRY(), RT_FE_FIELD()
 * and RT_FE_ARRAY() for what it makes of the list, includes this file,
 * and undefines them (entries.h: the structures; events.c: the fields,
 * format and id of each ftrace event; print.c: the printer hooks and the
 * shortest record of each type).
 *
 * RT_FTRACE_ENTRY(name, struct_name, id, attr, fields, print_fmt, print)
 *	@name: the event's name (events/ftrace/NAME)
 *	@struct_name: its record's structure (struct rt_*_entry)
 *	@id: its type (RT_TYPE_*, the kernel's TRACE_* value)
 *	@attr: RT_FE_PACKED for a record packed as the kernel's
 *		FTRACE_ENTRY_PACKED(), else RT_FE_ALIGNED
 *	@fields: the fields after the common header, in the record's order
 *	@print_fmt: the "print fmt:" text of its format file
 *	@print: its hook in the trace text (print.c), or RT_FE_NO_PRINT for
 *		the records the function_graph printer prints
 * RT_FE_FIELD(type, name, kind): a field of that C type
 *	(RINGTRACE_FIELD_<kind>)
 * RT_FE_ARRAY(type, name, kind): the record's last field, an array of
 *	that element type that runs to the record's end
 * RT_FE_ARRAY_PACKED(type, name, kind): the same in a packed record,
 *	where it starts at the next 4-byte boundary, not at its type's
 *
 * The list's order is the order of the events in the registry.
 */

/* With func-args the six argument registers follow (entries.h:
 * RT_FN_ARGS_SIZE), as Linux 6.15's function record. */
RT_FTRACE_ENTRY(function, rt_fn_entry, RT_TYPE_FN, RT_FE_ALIGNED,
	RT_FE_FIELD(unsigned long, ip, PTR)
	RT_FE_FIELD(unsigned long, parent_ip, PTR)
	RT_FE_ARRAY(unsigned long, args, ARRAY),
	"\" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip",
	rt_print_fn_entry)

RT_FTRACE_ENTRY(print, rt_print_entry, RT_TYPE_PRINT, RT_FE_ALIGNED,
	RT_FE_FIELD(unsigned long, ip, PTR)
	RT_FE_ARRAY(char, buf, STRING),
	"\"%ps: %s\", (void *)REC->ip, REC->buf",
	rt_print_print_entry)

/* What both exits of a graph call (below) hold after @func (and
 * @retval), and the start of their print fmt. */
#define RT_GRAPH_EXIT_FIELDS                                                 \
	RT_FE_FIELD(int, depth, INT)                                         \
	RT_FE_FIELD(unsigned int, overrun, INT)                              \
	RT_FE_FIELD(unsigned long long, calltime, INT)                       \
	RT_FE_FIELD(unsigned long long, rettime, INT)
#define RT_GRAPH_EXIT_FMT "<-- %ps (%d) (start: %llx  end: %llx) over: %d"
#define RT_GRAPH_EXIT_ARGS                                                   \
	"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, "       \
	"REC->depth"

/* Linux 6.12's without CONFIG_FUNCTION_GRAPH_RETVAL: packed, 40 bytes;
 * the exit of a call whose return value is not recorded (funcgraph-retval
 * off, the default; the -finstrument-functions hooks). */
RT_FTRACE_ENTRY(funcgraph_exit, rt_graph_exit_entry, RT_TYPE_GRAPH_RET,
	RT_FE_PACKED,
	RT_FE_FIELD(unsigned long, func, PTR)
	RT_GRAPH_EXIT_FIELDS,
	"\"" RT_GRAPH_EXIT_FMT "\", " RT_GRAPH_EXIT_ARGS,
	RT_FE_NO_PRINT)

/* The exit with the return value (funcgraph-retval on): Linux 6.12's
 * funcgraph_exit with CONFIG_FUNCTION_GRAPH_RETVAL, packed, @retval after
 * @func, 48 bytes, under a name and id of its own (entries.h:
 * RT_TYPE_GRAPH_RETVAL, rt_graph_ret_read()). */
RT_FTRACE_ENTRY(fgraph_retval_exit, rt_graph_ret_entry, RT_TYPE_GRAPH_RETVAL,
	RT_FE_PACKED,
	RT_FE_FIELD(unsigned long, func, PTR)
	RT_FE_FIELD(unsigned long, retval, INT)
	RT_GRAPH_EXIT_FIELDS,
	"\"" RT_GRAPH_EXIT_FMT " retval: %lx\", " RT_GRAPH_EXIT_ARGS
	", REC->retval",
	RT_FE_NO_PRINT)

#undef RT_GRAPH_EXIT_ARGS
#undef RT_GRAPH_EXIT_FMT
#undef RT_GRAPH_EXIT_FIELDS

/* Packed, as the kernel's (FTRACE_ENTRY_PACKED): 20 bytes, not 24, in
 * the record a traced call writes first; with funcgraph-args the six
 * argument registers follow (entries.h: RT_GRAPH_ENT_ARGS_SIZE). */
RT_FTRACE_ENTRY(funcgraph_entry, rt_graph_ent_entry, RT_TYPE_GRAPH_ENT,
	RT_FE_PACKED,
	RT_FE_FIELD(unsigned long, func, PTR)
	RT_FE_FIELD(int, depth, INT)
	RT_FE_ARRAY_PACKED(unsigned long, args, ARRAY),
	"\"--> %ps (%d)\", (void *)REC->func, REC->depth",
	RT_FE_NO_PRINT)

RT_FTRACE_ENTRY(raw_data, rt_raw_data_entry, RT_TYPE_RAW_DATA, RT_FE_ALIGNED,
	RT_FE_FIELD(unsigned int, id, INT)
	RT_FE_ARRAY(char, buf, ARRAY),
	"\"id:%04x %08x\", REC->id, (int)REC->buf[0]",
	rt_print_raw_data_entry)

RT_FTRACE_ENTRY(kernel_stack, rt_stack_entry, RT_TYPE_STACK, RT_FE_ALIGNED,
	RT_FE_FIELD(int, size, INT)
	RT_FE_ARRAY(unsigned long, caller, ARRAY),
	"\"\\t=> %ps\\n\", (void *)REC->caller[0]",
	rt_print_stack_entry)
