/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * INL_PAD_EVENT(name, v_value): an event with inl_pad's record (c at 8,
 * 7 bytes of padding, v at 16, s at 24, 6 bytes of padding), its v
 * assigned @v_value. inl_pad (inline_events.h) and inl_out
 * (inline_off_events.h) are two events of it, created in two files, the
 * second with RINGTRACE_NO_INLINE_WRITE.
 */
#ifndef INLINE_RECORD_H
#define INLINE_RECORD_H

#define INL_PAD_EVENT(name, v_value)                                        \
	TRACE_EVENT(name,                                                   \
		TP_PROTO(char c, long long v, short s),                     \
		TP_ARGS(c, v, s),                                           \
		TP_STRUCT__entry(                                           \
			__field(char, c)                                    \
			__field(long long, v)                               \
			__field(short, s)                                   \
		),                                                          \
		TP_fast_assign(                                             \
			__entry->c = c;                                     \
			__entry->v = v_value;                               \
			__entry->s = s;                                     \
		),                                                          \
		TP_printk("c=%d v=%lld s=%d", __entry->c, __entry->v,       \
			  __entry->s))

#endif /* INLINE_RECORD_H */
