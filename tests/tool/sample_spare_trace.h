/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sample_spare_trace.h - the "sp" events of sample_spare: "hold" keeps
 * its CPU's buffer claimed while its record is assigned (a __string()
 * record is assigned in place), "rec" says on which CPU it was written.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sp

#if !defined(SAMPLE_SPARE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SAMPLE_SPARE_TRACE_H

#include <ringtrace/tracepoint.h>

/* the caller's hook runs while the record is reserved, not committed */
void sample_spare_hold(void);

TRACE_EVENT(hold,
	TP_PROTO(const char *why),
	TP_ARGS(why),
	TP_STRUCT__entry(
		__string(why, why)
	),
	TP_fast_assign(
		__assign_str(why, why);
		sample_spare_hold();
	),
	TP_printk("why=%s", __get_str(why))
);

TRACE_EVENT(rec,
	TP_PROTO(unsigned int seq, int cpu),
	TP_ARGS(seq, cpu),
	TP_STRUCT__entry(
		__field(unsigned int, seq)
		__field(int, on)
	),
	TP_fast_assign(
		__entry->seq = seq;
		__entry->on = cpu;
	),
	TP_printk("seq=%u on=%d", __entry->seq, __entry->on)
);

#endif /* SAMPLE_SPARE_TRACE_H */

#define TRACE_INCLUDE_FILE sample_spare_trace
#include <ringtrace/define_trace.h>
