// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * names.c - the tracer's names of options, tracers and clocks (names.h)
 */
#include <string.h>

#include <ringbuf/ringbuf.h>

#include "names.h"

const struct rt_opt_name rt_opt_table[RT_OPT_NR] = {
	[RT_OPT_PRINT_PARENT] = { "print-parent", true },
	[RT_OPT_SYM_OFFSET] = { "sym-offset", false },
	[RT_OPT_SYM_ADDR] = { "sym-addr", false },
	[RT_OPT_VERBOSE] = { "verbose", false },
	[RT_OPT_RAW] = { "raw", false },
	[RT_OPT_HEX] = { "hex", false },
	[RT_OPT_BIN] = { "bin", false },
	[RT_OPT_CONTEXT_INFO] = { "context-info", true },
	[RT_OPT_LATENCY_FMT] = { "latency-format", false },
	[RT_OPT_RECORD_CMD] = { "record-cmd", true },
	[RT_OPT_RECORD_TGID] = { "record-tgid", false },
	[RT_OPT_OVERWRITE] = { "overwrite", true },
	[RT_OPT_IRQ_INFO] = { "irq-info", true },
	[RT_OPT_MARKERS] = { "markers", true },
	[RT_OPT_FUNCGRAPH_OVERRUN] = { "funcgraph-overrun", false },
	[RT_OPT_FUNCGRAPH_CPU] = { "funcgraph-cpu", true },
	[RT_OPT_FUNCGRAPH_OVERHEAD] = { "funcgraph-overhead", true },
	[RT_OPT_FUNCGRAPH_PROC] = { "funcgraph-proc", false },
	[RT_OPT_FUNCGRAPH_DURATION] = { "funcgraph-duration", true },
	[RT_OPT_FUNCGRAPH_ABSTIME] = { "funcgraph-abstime", false },
	[RT_OPT_FUNCGRAPH_TAIL] = { "funcgraph-tail", false },
	[RT_OPT_FUNCGRAPH_RETVAL] = { "funcgraph-retval", false },
	[RT_OPT_FUNCGRAPH_RETVAL_HEX] = { "funcgraph-retval-hex", false },
	[RT_OPT_FUNCGRAPH_ARGS] = { "funcgraph-args", false },
	[RT_OPT_STACKTRACE] = { "stacktrace", false },
	[RT_OPT_DISABLE_ON_FREE] = { "disable_on_free", false },
	[RT_OPT_FUNC_ARGS] = { "func-args", false },
};

uint64_t rt_opt_defaults(void)
{
	uint64_t opts = 0;
	int i;

	for (i = 0; i < RT_OPT_NR; i++)
		if (rt_opt_table[i].on)
			opts |= RT_OPT(i);
	return opts;
}

int rt_opt_lookup(const char *name, size_t len)
{
	int i;

	for (i = 0; i < RT_OPT_NR; i++)
		if (strlen(rt_opt_table[i].name) == len &&
		    !strncmp(rt_opt_table[i].name, name, len))
			return i;
	return -1;
}

static const char *const rt_tracer_names[RT_TRACER_NR] = {
	[RT_TRACER_NOP] = "nop",
	[RT_TRACER_FUNCTION] = "function",
	[RT_TRACER_GRAPH] = "function_graph",
	[RT_TRACER_USERSOFF] = "usersoff",
};

const char *rt_tracer_name(int tracer)
{
	return tracer >= 0 && tracer < RT_TRACER_NR ? rt_tracer_names[tracer] :
						      "nop";
}

int rt_tracer_lookup(const char *name)
{
	int i;

	for (i = 0; i < RT_TRACER_NR; i++)
		if (!strcmp(rt_tracer_names[i], name))
			return i;
	return -1;
}

const struct rt_clock_name rt_clocks[RT_NR_CLOCK_NAMES] = {
	{ "mono", RINGBUF_CLOCK_MONO },	    { "mono_raw", RINGBUF_CLOCK_MONO_RAW },
	{ "boot", RINGBUF_CLOCK_BOOT },	    { "x86-tsc", RINGBUF_CLOCK_TSC },
	{ "local", RINGBUF_CLOCK_MONO },    { "global", RINGBUF_CLOCK_MONO },
	{ "perf", RINGBUF_CLOCK_MONO },
};
