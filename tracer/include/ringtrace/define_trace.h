/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/define_trace.h - create the events of a trace header
 *
 * Included at the end of every trace header, outside its include guard.
 * It does nothing unless the including .c file defined
 * CREATE_TRACE_POINTS; then it reads the trace header again once per
 * pass of <ringtrace/trace_events.h>, each pass giving TRACE_EVENT() and
 * the field macros another meaning (the record struct, the field list,
 * the format text, the print and write functions, the registration).
 */
#ifdef CREATE_TRACE_POINTS
#undef CREATE_TRACE_POINTS

#ifndef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE TRACE_SYSTEM
#define __RT_UNDEF_TRACE_INCLUDE_FILE
#endif

#ifndef TRACE_INCLUDE_PATH
#define __RT_TRACE_INCLUDE(system) __rt_stringify(system.h)
#define __RT_UNDEF_TRACE_INCLUDE_PATH
#else
#define __RT_TRACE_INCLUDE(system) __rt_stringify(TRACE_INCLUDE_PATH/system.h)
#endif
#define RT_TRACE_INCLUDE(system) __RT_TRACE_INCLUDE(system)

#define TRACE_HEADER_MULTI_READ
#include <ringtrace/trace_events.h>
#undef TRACE_HEADER_MULTI_READ

#undef RT_TRACE_INCLUDE
#undef __RT_TRACE_INCLUDE
#ifdef __RT_UNDEF_TRACE_INCLUDE_FILE
#undef TRACE_INCLUDE_FILE
#undef __RT_UNDEF_TRACE_INCLUDE_FILE
#endif
#ifdef __RT_UNDEF_TRACE_INCLUDE_PATH
#undef __RT_UNDEF_TRACE_INCLUDE_PATH
#endif

/* Back to the declaring meaning, for trace headers included later. */
#include <ringtrace/trace_declare.h>

#define CREATE_TRACE_POINTS
#endif /* CREATE_TRACE_POINTS */

/* The include-file names belong to the header just read. */
#ifndef TRACE_HEADER_MULTI_READ
#undef TRACE_INCLUDE_FILE
#undef TRACE_INCLUDE_PATH
#endif
