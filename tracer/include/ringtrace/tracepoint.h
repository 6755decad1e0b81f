/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/tracepoint.h - define trace events as the kernel does
 *
 * A trace header declares the events of one system:
 *
 *	#undef TRACE_SYSTEM
 *	#define TRACE_SYSTEM myapp
 *
 *	#if !defined(MYAPP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
 *	#define MYAPP_TRACE_H
 *	#include <ringtrace/tracepoint.h>
 *
 *	TRACE_EVENT(request,
 *		TP_PROTO(int id, const char *path),
 *		TP_ARGS(id, path),
 *		TP_STRUCT__entry(
 *			__field(int, id)
 *			__string(path, path)
 *		),
 *		TP_fast_assign(
 *			__entry->id = id;
 *			__assign_str(path);
 *		),
 *		TP_printk("id=%d path=%s", __entry->id, __get_str(path))
 *	);
 *	#endif
 *
 *	#define TRACE_INCLUDE_FILE myapp_trace
 *	#include <ringtrace/define_trace.h>
 *
 * Every file that traces includes the header and calls trace_request();
 * exactly one .c file defines CREATE_TRACE_POINTS before including it,
 * which creates the events. The header is found on the include path
 * as TRACE_INCLUDE_FILE.h (default: TRACE_SYSTEM.h), under
 * TRACE_INCLUDE_PATH if that is defined.
 *
 * Field macros: __field(type, name) for integers and pointers,
 * __array(type, name, len) for fixed arrays (a char array is a string),
 * __string(name, src) for a string copied at the write (__data_loc),
 * __dynamic_array(type, name, len). In TP_fast_assign: __entry,
 * __assign_str(name), __get_str(name), __get_dynamic_array(name),
 * __get_dynamic_array_len(name). In TP_printk, the printf conversions
 * plus %ps (symbol) and %pS (symbol+offset/size) for addresses.
 *
 * DECLARE_EVENT_CLASS() and DEFINE_EVENT() share one layout and format
 * between several events, as in the kernel.
 */
#ifndef RINGTRACE_TRACEPOINT_H
#define RINGTRACE_TRACEPOINT_H

#include <ringtrace/event.h>

#define TP_PROTO(...) __VA_ARGS__
#define TP_ARGS(...) __VA_ARGS__
#define PARAMS(...) __VA_ARGS__

#define __rt_stringify_1(...) #__VA_ARGS__
#define __rt_stringify(...) __rt_stringify_1(__VA_ARGS__)

/*
 * trace_<event>(): while the event is off, one relaxed load and a branch
 * predicted not taken. The load needs no ordering: the enable path
 * publishes everything the slow path reads through RCU before it sets
 * the bit (see rt_event_set_enabled()).
 */
/*
 * An event belongs to the object (program or shared library) that creates
 * it, so two libraries may each have an event of the same C name. To use
 * an object's events from another object, define RINGTRACE_EXPORT_EVENTS
 * in the creating file and in the users (the kernel's
 * EXPORT_TRACEPOINT_SYMBOL).
 */
#ifdef RINGTRACE_EXPORT_EVENTS
#define __RT_EVENT_VIS __attribute__((visibility("default")))
#else
#define __RT_EVENT_VIS __attribute__((visibility("hidden")))
#endif

/* The event and its write function have C linkage in C++ too, so a trace
 * header may be created in a C file and used from C++, or the reverse. */
#ifdef __cplusplus
#define __RT_EXTERN_C extern "C"
#else
#define __RT_EXTERN_C extern
#endif

#define __RT_DECLARE_TRACE(name, proto, args)                                \
	__RT_EXTERN_C __RT_EVENT_VIS struct ringtrace_event                  \
		__ringtrace_event_##name;                                    \
	__RT_EXTERN_C __RT_EVENT_VIS void __ringtrace_do_##name(proto);      \
	static inline __attribute__((always_inline, unused,                  \
				     no_instrument_function)) void           \
	trace_##name(proto)                                                  \
	{                                                                    \
		if (__builtin_expect(RINGTRACE_LOAD_RELAXED(                 \
				&__ringtrace_event_##name.enabled) != 0, 0)) \
			__ringtrace_do_##name(args);                         \
	}                                                                    \
	static inline __attribute__((always_inline, unused,                  \
				     no_instrument_function)) bool           \
	trace_##name##_enabled(void)                                         \
	{                                                                    \
		return RINGTRACE_LOAD_RELAXED(                               \
			&__ringtrace_event_##name.enabled) != 0;             \
	}

#endif /* RINGTRACE_TRACEPOINT_H */

/*
 * The declaring pass: outside the include guard, because define_trace.h
 * redefines these for its passes and restores them afterwards.
 */
#ifndef TRACE_HEADER_MULTI_READ
#include <ringtrace/trace_declare.h>
#endif
