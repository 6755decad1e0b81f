/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)              \
	__RT_DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args)                           \
	__RT_DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
