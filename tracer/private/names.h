/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * names.h - the one table of the tracer's names: trace options, tracers
 *	and trace clocks, used by libringtrace, the ringtrace tool and
 *	tracefs alike (names.c, in rtctl)
 */
#ifndef RINGTRACE_NAMES_H
#define RINGTRACE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Options (trace_options), in the order of rt_opt_table. */
enum rt_opt {
	RT_OPT_PRINT_PARENT,
	RT_OPT_SYM_OFFSET,
	RT_OPT_SYM_ADDR,
	RT_OPT_VERBOSE,
	RT_OPT_RAW,
	RT_OPT_HEX,
	RT_OPT_BIN,
	RT_OPT_CONTEXT_INFO,
	RT_OPT_LATENCY_FMT,
	RT_OPT_RECORD_CMD,
	RT_OPT_RECORD_TGID,
	RT_OPT_OVERWRITE,
	RT_OPT_IRQ_INFO,
	RT_OPT_MARKERS,
	RT_OPT_FUNCGRAPH_OVERRUN,
	RT_OPT_FUNCGRAPH_CPU,
	RT_OPT_FUNCGRAPH_OVERHEAD,
	RT_OPT_FUNCGRAPH_PROC,
	RT_OPT_FUNCGRAPH_DURATION,
	RT_OPT_FUNCGRAPH_ABSTIME,
	RT_OPT_FUNCGRAPH_TAIL,
	RT_OPT_FUNCGRAPH_RETVAL,
	RT_OPT_FUNCGRAPH_RETVAL_HEX,
	RT_OPT_FUNCGRAPH_ARGS,
	RT_OPT_STACKTRACE,
	RT_OPT_DISABLE_ON_FREE,
	RT_OPT_FUNC_ARGS,
	RT_OPT_NR,
};
#define RT_OPT(o) (1ull << (o))

enum rt_tracer {
	RT_TRACER_NOP = 0,
	RT_TRACER_FUNCTION,
	RT_TRACER_GRAPH,
	RT_TRACER_USERSOFF,
	RT_TRACER_NR,
};

/* An option's name in trace_options and whether a new instance has it. */
struct rt_opt_name {
	const char *name;
	bool on;
};
extern const struct rt_opt_name rt_opt_table[RT_OPT_NR];

/* RT_OPT() bits of the options a new instance starts with. */
uint64_t rt_opt_defaults(void);

/* The option called @name (without "no"), or -1. */
int rt_opt_lookup(const char *name, size_t len);

/* A tracer's name ("nop" for an unknown number). */
const char *rt_tracer_name(int tracer);

/* The tracer called @name, or -1. */
int rt_tracer_lookup(const char *name);

/*
 * The trace clocks by name; @clock is a RINGBUF_CLOCK_* value. The first
 * RT_NR_SHOWN_CLOCKS are those trace_clock lists, the rest are other
 * names the kernel's users know, taken as the monotonic clock.
 */
struct rt_clock_name {
	const char *name;
	int clock;
};
#define RT_NR_CLOCK_NAMES 7
#define RT_NR_SHOWN_CLOCKS 4
extern const struct rt_clock_name rt_clocks[RT_NR_CLOCK_NAMES];

#endif
