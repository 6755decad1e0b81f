/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event of the inline write test's opt-out case: inl_pad's record,
 * created in inline_off.c with RINGTRACE_NO_INLINE_WRITE.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM inl

#if !defined(INLINE_OFF_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define INLINE_OFF_EVENTS_H
#include <ringtrace/tracepoint.h>

#include "inline_record.h"

INL_PAD_EVENT(inl_out, v);

#endif /* INLINE_OFF_EVENTS_H */

#define TRACE_INCLUDE_FILE inline_off_events
#include <ringtrace/define_trace.h>
