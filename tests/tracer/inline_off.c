// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The opt-out of the inline write: inl_out created with
 * RINGTRACE_NO_INLINE_WRITE, so that every write of it calls
 * ringtrace_write_record() (test_inline.c, opt_out).
 */
#define RINGTRACE_NO_INLINE_WRITE
#define CREATE_TRACE_POINTS
#include "inline_off_events.h"

void inline_off_write(char c, long long v, short s);

void inline_off_write(char c, long long v, short s)
{
	trace_inl_out(c, v, s);
}
