/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event of ringtrace-tp-bench: three integers, a 24-byte record with
 * the common header, as small as a useful tracepoint gets. The filter
 * cases test field a, which the bench always passes as 1.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpbench

#if !defined(TP_BENCH_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define TP_BENCH_EVENTS_H
#include <ringtrace/tracepoint.h>

#include "tp-bench-record.h"

TPB_RECORD_EVENT(tpbench_call);

#endif /* TP_BENCH_EVENTS_H */

#define TRACE_INCLUDE_FILE tp-bench-events
#include <ringtrace/define_trace.h>
