/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events of the inline write test (test_inline.c): fixed-size records,
 * one with padding after a char and at its end.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM inl

#if !defined(INLINE_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define INLINE_EVENTS_H
#include <ringtrace/tracepoint.h>

/* Called by TP_fast_assign(): the test's hook inside a write. */
long long inline_test_hook(long long v);

#include "inline_record.h"

/* c at 8, 7 bytes of padding, v at 16, s at 24, 6 bytes of padding */
INL_PAD_EVENT(inl_pad, inline_test_hook(v));

/* The same size, every byte set: what the padding must not show */
TRACE_EVENT(inl_ones,
	TP_PROTO(long long a),
	TP_ARGS(a),
	TP_STRUCT__entry(
		__field(long long, a)
		__field(long long, b)
		__field(long long, c)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = a;
		__entry->c = a;
	),
	TP_printk("a=%lld", __entry->a)
);

/* A dynamic array of constant length: a record size the compiler knows,
 * but not the struct's; assigned in place, never on the stack */
TRACE_EVENT(inl_dyn4,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(int, v)
		__dynamic_array(int, arr, 4)
	),
	TP_fast_assign(
		int *__a = (int *)__get_dynamic_array(arr);
		__entry->v = v;
		__a[0] = v + 1;
		__a[1] = v + 2;
		__a[2] = v + 3;
		__a[3] = v + 4;
	),
	TP_printk("v=%d", __entry->v)
);

#endif /* INLINE_EVENTS_H */

#define TRACE_INCLUDE_FILE inline_events
#include <ringtrace/define_trace.h>
