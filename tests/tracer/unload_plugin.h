/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The event of test_unload's plug-in (unload_plugin.c, dlopen()ed). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM plugin

#if !defined(UNLOAD_PLUGIN_H) || defined(TRACE_HEADER_MULTI_READ)
#define UNLOAD_PLUGIN_H
#include <ringtrace/tracepoint.h>

TRACE_EVENT(plugin_event_with_a_name_in_the_plugin,
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

#endif /* UNLOAD_PLUGIN_H */

#define TRACE_INCLUDE_FILE unload_plugin
#include <ringtrace/define_trace.h>
