/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sample_io_trace.h - the "io" events of the tool tests' sample program:
 * a __data_loc string and plain integers.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM io

#if !defined(SAMPLE_IO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SAMPLE_IO_TRACE_H

#include <ringtrace/tracepoint.h>

TRACE_EVENT(request,
	TP_PROTO(unsigned long long seq, int fd, const char *path),
	TP_ARGS(seq, fd, path),
	TP_STRUCT__entry(
		__field(unsigned long long, seq)
		__field(int, fd)
		__string(path, path)
	),
	TP_fast_assign(
		__entry->seq = seq;
		__entry->fd = fd;
		__assign_str(path);
	),
	TP_printk("seq=%llu fd=%d path=%s", __entry->seq, __entry->fd,
		  __get_str(path))
);

TRACE_EVENT(done,
	TP_PROTO(unsigned long long seq, int fd, long bytes),
	TP_ARGS(seq, fd, bytes),
	TP_STRUCT__entry(
		__field(unsigned long long, seq)
		__field(int, fd)
		__field(long, bytes)
	),
	TP_fast_assign(
		__entry->seq = seq;
		__entry->fd = fd;
		__entry->bytes = bytes;
	),
	TP_printk("seq=%llu fd=%d bytes=%ld", __entry->seq, __entry->fd,
		  __entry->bytes)
);

#endif /* SAMPLE_IO_TRACE_H */

#define TRACE_INCLUDE_FILE sample_io_trace
#include <ringtrace/define_trace.h>
