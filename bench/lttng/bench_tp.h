/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_tp.h - the LTTng-UST tracepoint provider of the ringbuf-bench
 * LTTng baseline (lttng-ust 2.13 API).
 *
 * One event per payload size the bench offers (a fixed array of bytes, so
 * the record carries nothing but the payload), and one sequence event
 * for any other size (the record then also carries a length field).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ringbuf_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./bench_tp.h"

#if !defined(RINGBUF_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define RINGBUF_BENCH_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

#define RB_BENCH_TP_FIXED(_n)                                           \
	LTTNG_UST_TRACEPOINT_EVENT(ringbuf_bench, payload##_n,           \
		LTTNG_UST_TP_ARGS(const uint8_t *, buf),                  \
		LTTNG_UST_TP_FIELDS(                                      \
			lttng_ust_field_array(uint8_t, data, buf, _n)))

RB_BENCH_TP_FIXED(8)
RB_BENCH_TP_FIXED(16)
RB_BENCH_TP_FIXED(64)
RB_BENCH_TP_FIXED(256)

LTTNG_UST_TRACEPOINT_EVENT(ringbuf_bench, payload_var,
	LTTNG_UST_TP_ARGS(const uint8_t *, buf, unsigned int, len),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_sequence(uint8_t, data, buf, unsigned int, len)))

#endif /* RINGBUF_BENCH_TP_H */

#include <lttng/tracepoint-event.h>
