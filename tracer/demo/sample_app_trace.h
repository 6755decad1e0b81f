/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sample_app_trace.h - the "app" events of the tool tests' sample
 * program: a small record, one over 112 bytes (the ring buffer's long
 * record form), and one written from a signal handler.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM app

#if !defined(SAMPLE_APP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SAMPLE_APP_TRACE_H

#include <ringtrace/tracepoint.h>

TRACE_EVENT(work,
	TP_PROTO(int worker, unsigned long long seq, long value),
	TP_ARGS(worker, seq, value),
	TP_STRUCT__entry(
		__field(int, worker)
		__field(unsigned long long, seq)
		__field(long, value)
	),
	TP_fast_assign(
		__entry->worker = worker;
		__entry->seq = seq;
		__entry->value = value;
	),
	TP_printk("worker=%d seq=%llu value=%ld", __entry->worker,
		  __entry->seq, __entry->value)
);

/* 8 + 8 + 160 bytes of payload: the type_len 0 record form */
TRACE_EVENT(big,
	TP_PROTO(unsigned long long seq, const char *text),
	TP_ARGS(seq, text),
	TP_STRUCT__entry(
		__field(unsigned long long, seq)
		__array(char, text, 160)
	),
	TP_fast_assign(
		__entry->seq = seq;
		memset(__entry->text, 0, sizeof(__entry->text));
		memcpy(__entry->text, text,
		       strnlen(text, sizeof(__entry->text) - 1));
	),
	TP_printk("seq=%llu text=%s", __entry->seq, __entry->text)
);

TRACE_EVENT(tick,
	TP_PROTO(unsigned long long seq, int signo),
	TP_ARGS(seq, signo),
	TP_STRUCT__entry(
		__field(unsigned long long, seq)
		__field(int, signo)
	),
	TP_fast_assign(
		__entry->seq = seq;
		__entry->signo = signo;
	),
	TP_printk("seq=%llu signo=%d", __entry->seq, __entry->signo)
);

#endif /* SAMPLE_APP_TRACE_H */

#define TRACE_INCLUDE_FILE sample_app_trace
#include <ringtrace/define_trace.h>
