/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/trace_declare.h - the declaring meaning of TRACE_EVENT() and
 *	its relatives: trace_<event>() and its prototypes, nothing defined
 *
 * Included by <ringtrace/tracepoint.h> and, after its passes, by
 * <ringtrace/define_trace.h>. No include guard: it restores these
 * definitions every time.
 */
#undef TRACE_EVENT
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef __RT_EVENT_CLASS
#undef __RT_DEFINE_EVENT
/*
 * The macros a trace header uses, the same in every pass: each pass of
 * <ringtrace/trace_events.h> redefines only __RT_EVENT_CLASS() and
 * __RT_DEFINE_EVENT(). Every expansion ends in an unfinished declaration
 * that the header's own ';' completes, so that the kernel's idiom
 * (a ';' after each TRACE_EVENT() at file scope) is ISO C: no empty
 * declaration for -Wpedantic to refuse.
 */
#ifndef __RT_SEMICOLON
#define __RT_SEMICOLON struct ringtrace_trace_event_semicolon
#endif
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)              \
	__RT_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), \
			 PARAMS(assign), PARAMS(print))                     \
	__RT_DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))          \
	__RT_SEMICOLON
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)      \
	__RT_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), \
			 PARAMS(assign), PARAMS(print))                     \
	__RT_SEMICOLON
#define DEFINE_EVENT(template, name, proto, args)                           \
	__RT_DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))      \
	__RT_SEMICOLON
/* The declaring meaning: trace_<event>() and its prototypes. */
#define __RT_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define __RT_DEFINE_EVENT(template, name, proto, args)                      \
	__RT_DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
