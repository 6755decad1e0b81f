/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * TPB_RECORD_EVENT(name): an event with ringtrace-tp-bench's record, three
 * integers, 24 bytes with the common header. tpbench_call
 * (tp-bench-events.h) and tpbench_outofline (tp-bench-outofline-events.h)
 * are two events of it, created in two files, the second with
 * RINGTRACE_NO_INLINE_WRITE. The TRACE_EVENT() passes expand it each time.
 */
#ifndef TP_BENCH_RECORD_H
#define TP_BENCH_RECORD_H

#define TPB_RECORD_EVENT(name)                                              \
	TRACE_EVENT(name,                                                   \
		TP_PROTO(unsigned long seq, int a, int b),                  \
		TP_ARGS(seq, a, b),                                         \
		TP_STRUCT__entry(                                           \
			__field(unsigned long, seq)                         \
			__field(int, a)                                     \
			__field(int, b)                                     \
		),                                                          \
		TP_fast_assign(                                             \
			__entry->seq = seq;                                 \
			__entry->a = a;                                     \
			__entry->b = b;                                     \
		),                                                          \
		TP_printk("seq=%lu a=%d b=%d", __entry->seq, __entry->a,    \
			  __entry->b))

#endif /* TP_BENCH_RECORD_H */
