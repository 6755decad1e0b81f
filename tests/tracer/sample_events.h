/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events of the tracer tests: one per field kind, a class shared by two
 * events, and events of a second system for the set_event and subsystem
 * filter tests.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sample

#if !defined(SAMPLE_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define SAMPLE_EVENTS_H
#include <ringtrace/tracepoint.h>

TRACE_EVENT(request,
	TP_PROTO(int id, const char *path),
	TP_ARGS(id, path),
	TP_STRUCT__entry(
		__field(int, id)
		__string(path, path)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str(path);
	),
	TP_printk("id=%d path=%s", __entry->id, __get_str(path))
);

/* Every integer width, signed and unsigned */
TRACE_EVENT(ints,
	TP_PROTO(long long v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(signed char, s8)
		__field(unsigned char, u8)
		__field(short, s16)
		__field(unsigned short, u16)
		__field(int, s32)
		__field(unsigned int, u32)
		__field(long long, s64)
		__field(unsigned long long, u64)
	),
	TP_fast_assign(
		__entry->s8 = (signed char)v;
		__entry->u8 = (unsigned char)v;
		__entry->s16 = (short)v;
		__entry->u16 = (unsigned short)v;
		__entry->s32 = (int)v;
		__entry->u32 = (unsigned int)v;
		__entry->s64 = v;
		__entry->u64 = (unsigned long long)v;
	),
	TP_printk("s8=%d u8=%u s16=%d u16=%u s32=%d u32=%u s64=%lld u64=%llu",
		  __entry->s8, __entry->u8, __entry->s16, __entry->u16,
		  __entry->s32, __entry->u32, __entry->s64, __entry->u64)
);

/* Fixed arrays: a string and integers; a dynamic array */
TRACE_EVENT(arrays,
	TP_PROTO(const char *name, int base, const unsigned char *bytes,
		 int nbytes),
	TP_ARGS(name, base, bytes, nbytes),
	TP_STRUCT__entry(
		__array(char, name, 16)
		__array(int, vals, 3)
		__dynamic_array(unsigned char, bytes, nbytes)
	),
	TP_fast_assign(
		memset(__entry->name, 0, sizeof(__entry->name));
		memcpy(__entry->name, name, strnlen(name, sizeof(__entry->name)));
		__entry->vals[0] = base;
		__entry->vals[1] = base + 1;
		__entry->vals[2] = base + 2;
		memcpy(__get_dynamic_array(bytes), bytes,
		       __get_dynamic_array_len(bytes));
	),
	TP_printk("name=%.16s vals=%d,%d,%d nbytes=%u first=%02x",
		  __entry->name, __entry->vals[0], __entry->vals[1],
		  __entry->vals[2], __get_dynamic_array_len(bytes),
		  __get_dynamic_array_len(bytes) ?
			  ((unsigned char *)__get_dynamic_array(bytes))[0] : 0)
);

/* Addresses printed as symbols */
TRACE_EVENT(callback,
	TP_PROTO(void *fn, unsigned long ip),
	TP_ARGS(fn, ip),
	TP_STRUCT__entry(
		__field(void *, fn)
		__field(unsigned long, ip)
	),
	TP_fast_assign(
		__entry->fn = fn;
		__entry->ip = ip;
	),
	TP_printk("fn=%ps ip=%pS", __entry->fn, (void *)__entry->ip)
);

DECLARE_EVENT_CLASS(io_class,
	TP_PROTO(unsigned int fd, long bytes),
	TP_ARGS(fd, bytes),
	TP_STRUCT__entry(
		__field(unsigned int, fd)
		__field(long, bytes)
	),
	TP_fast_assign(
		__entry->fd = fd;
		__entry->bytes = bytes;
	),
	TP_printk("fd=%u bytes=%ld", __entry->fd, __entry->bytes)
);
DEFINE_EVENT(io_class, io_read,
	TP_PROTO(unsigned int fd, long bytes),
	TP_ARGS(fd, bytes));
DEFINE_EVENT(io_class, io_write,
	TP_PROTO(unsigned int fd, long bytes),
	TP_ARGS(fd, bytes));

#endif /* SAMPLE_EVENTS_H */

#define TRACE_INCLUDE_FILE sample_events
#include <ringtrace/define_trace.h>
