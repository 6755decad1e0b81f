/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sample_syms_trace.h - the "sy" event of sample_syms: an address, named
 * by %ps when the record is printed.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sy

#if !defined(SAMPLE_SYMS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SAMPLE_SYMS_TRACE_H

#include <ringtrace/tracepoint.h>

TRACE_EVENT(addr,
	TP_PROTO(const char *what, unsigned long ip),
	TP_ARGS(what, ip),
	TP_STRUCT__entry(
		__string(what, what)
		__field(unsigned long, ip)
	),
	TP_fast_assign(
		__assign_str(what, what);
		__entry->ip = ip;
	),
	TP_printk("%s=%ps", __get_str(what), (void *)__entry->ip)
);

#endif /* SAMPLE_SYMS_TRACE_H */

#define TRACE_INCLUDE_FILE sample_syms_trace
#include <ringtrace/define_trace.h>
