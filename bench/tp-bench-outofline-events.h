/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event of ringtrace-tp-bench's tp-outofline case: the fields of
 * tpbench_call (tp-bench-events.h), created in tp-bench-outofline.c with
 * RINGTRACE_NO_INLINE_WRITE.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpbench

#if !defined(TP_BENCH_OUTOFLINE_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define TP_BENCH_OUTOFLINE_EVENTS_H
#include <ringtrace/tracepoint.h>

#include "tp-bench-record.h"

TPB_RECORD_EVENT(tpbench_outofline);

#endif /* TP_BENCH_OUTOFLINE_EVENTS_H */

#define TRACE_INCLUDE_FILE tp-bench-outofline-events
#include <ringtrace/define_trace.h>
