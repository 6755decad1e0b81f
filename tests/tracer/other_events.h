/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A second system for the set_event and subsystem filter tests. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM net

#if !defined(OTHER_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define OTHER_EVENTS_H
#include <ringtrace/tracepoint.h>

TRACE_EVENT(net_send,
	TP_PROTO(unsigned int fd, int len),
	TP_ARGS(fd, len),
	TP_STRUCT__entry(
		__field(unsigned int, fd)
		__field(int, len)
	),
	TP_fast_assign(
		__entry->fd = fd;
		__entry->len = len;
	),
	TP_printk("fd=%u len=%d", __entry->fd, __entry->len)
);

/* No 'len' field: a subsystem filter on len leaves it alone */
TRACE_EVENT(net_close,
	TP_PROTO(unsigned int fd),
	TP_ARGS(fd),
	TP_STRUCT__entry(
		__field(unsigned int, fd)
	),
	TP_fast_assign(
		__entry->fd = fd;
	),
	TP_printk("fd=%u", __entry->fd)
);

#endif /* OTHER_EVENTS_H */

#define TRACE_INCLUDE_FILE other_events
#include <ringtrace/define_trace.h>
