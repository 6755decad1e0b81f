/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * print.h - the trace and trace_pipe text of any buffer: this process's
 *	own instances, or the attached view of a traced process's buffer
 *	(the ringtrace tool)
 *
 * The caller supplies what only it knows: how to print an event of a
 * given id (a TP_printk function here, libtraceevent and the events file
 * in the tool), how to name an address, and how to find a thread's name.
 */
#ifndef RINGTRACE_PRINT_H
#define RINGTRACE_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ringbuf/ringbuf.h>

/* A growing text buffer (output.c, print.c). */
struct ringtrace_seq {
	char *buf;
	size_t len;
	size_t size;
	bool overflow;
};
void rt_seq_init(struct ringtrace_seq *s);
void rt_seq_free(struct ringtrace_seq *s);
void rt_seq_putc(struct ringtrace_seq *s, char c);
void rt_seq_puts(struct ringtrace_seq *s, const char *str);
void rt_seq_write(struct ringtrace_seq *s, const void *p, size_t n);

/**
 * struct rt_printer_ops - what the printer asks its caller
 * @event: print the text after "<name>: " for a record of a type that is
 *	not one of ftrace's own (function, graph, print, raw_data) into @s,
 *	and the event's name into @name (a copy: an event's definition may
 *	go away once the op returns, a dlclose()d library's); false for an
 *	unknown type
 * @sym: write @addr as "name" or, with @offset, "name+0x1a/0x50" (the
 *	kernel's %ps and %pS), "0x%lx" when unknown; returns the length
 * @comm: the name (16 bytes) and process id of thread @pid; false when
 *	unknown (printed "<...>")
 * @ctx: passed back to each
 * @proto: the prototype (fnproto.h) of the function at @func into @buf,
 *	for funcgraph-args; false when unknown (no debug information: the
 *	arguments are printed as raw registers). May be NULL.
 * @stop: if not NULL, asked every RT_PRINT_STOP_LINES lines of
 *	rt_print_view(): true ends it with -EINTR (a reader interrupted,
 *	a daemon ending)
 */
struct rt_printer_ops {
	bool (*event)(void *ctx, struct ringtrace_seq *s, const void *rec,
		      unsigned int len, struct ringtrace_seq *name);
	size_t (*sym)(void *ctx, char *buf, size_t len, unsigned long addr,
		      bool offset);
	bool (*comm)(void *ctx, int pid, char *comm, int *tgid);
	void *ctx;
	bool (*proto)(void *ctx, unsigned long func, char *buf, size_t len);
	bool (*stop)(void *ctx);
};

#define RT_PRINT_STOP_LINES 256u

/*
 * rt_print_fn_args - the kernel's print_function_args(): "(name=value,
 * ...)" for a function of prototype @proto (fnproto.h) called with the
 * argument registers @args (RT_GRAPH_NR_ARGS of them); @proto NULL (no
 * debug information): the registers as raw numbers, as libtraceevent
 * prints them without BTF.
 */
void rt_print_fn_args(struct ringtrace_seq *s, const char *proto,
		      const unsigned long *args);

/*
 * rt_print_fn_retval - " = ..." as the kernel's funcgraph-retval
 * prints @retval: hexadecimal, or a negative error code (-4095..-1, in
 * 64 or in 32 bits) in decimal unless @hex (funcgraph-retval-hex).
 */
void rt_print_fn_retval(struct ringtrace_seq *s, unsigned long retval,
			bool hex);

/**
 * struct rt_print_cfg - how to print
 * @opts: RT_OPT() bits (trace.h)
 * @tracer: enum rt_tracer
 * @time_start: the latency format's time origin (buffer clock)
 * @min_ts: records older than this are skipped (0: none)
 * @lat_start_ip: usersoff: where the worst section started (0: none)
 * @lat_end_ip: and where it ended
 * @lat_pid: the thread it ran in
 * @lat_cpu: the cpu it ended on
 * @max_latency_us: tracing_max_latency
 */
struct rt_print_cfg {
	uint64_t opts;
	int tracer;
	uint64_t time_start;
	uint64_t min_ts;
	unsigned long lat_start_ip;
	unsigned long lat_end_ip;
	int lat_pid;
	int lat_cpu;
	uint64_t max_latency_us;
};

/* What trace_pipe keeps between reads (the graph's per-cpu state). */
struct rt_pipe_state;
struct rt_pipe_state *rt_pipe_state_new(void);
void rt_pipe_state_free(struct rt_pipe_state *st);

/* cat trace: a non-consuming view of @rb with the header. 0 or -errno. */
int rt_print_view(struct ringbuf *rb, const struct rt_print_cfg *cfg,
		  const struct rt_printer_ops *ops, FILE *out);
/* per_cpu/cpuN/trace: the same, of cpu buffer @cpu alone
 * (RINGBUF_ALL_CPUS: all of them, as rt_print_view()). */
int rt_print_view_cpu(struct ringbuf *rb, int cpu,
		      const struct rt_print_cfg *cfg,
		      const struct rt_printer_ops *ops, FILE *out);
/* One read of trace_pipe: consume at most what @rb holds now (@cpu:
 * RINGBUF_ALL_CPUS or one cpu buffer), without a header. Returns the
 * lines written or -errno. Does not wait. */
int rt_print_pipe(struct ringbuf *rb, int cpu, const struct rt_print_cfg *cfg,
		  const struct rt_printer_ops *ops, struct rt_pipe_state *st,
		  FILE *out);

/**
 * struct rt_record_source - records from somewhere else than a ring
 *	buffer (the pages of a trace.dat file), one stream per cpu buffer,
 *	each in time order
 * @nr_cpus: streams 0..nr_cpus-1
 * @clock: the RINGBUF_CLOCK_* of the time stamps (RINGBUF_CLOCK_TSC
 *	prints them raw, the others as seconds)
 * @peek: the next record of @cpu without taking it: its time stamp, its
 *	data (valid until @advance) and length; and when @lost is not NULL,
 *	the events lost just before it (0, a count, or -1 when unknown);
 *	false at the end of @cpu
 * @advance: take the record @peek showed
 * @ctx: passed back to each
 * @nr_cpu_bufs: how many of the streams are CPUs; the others are
 *	spares, printed as such ("S<n>" where the CPU goes); 0: all are CPUs
 * @on_cpu: if not NULL, the CPU the record @peek last showed of @cpu was
 *	written on (a spare's CPU note), or -1; the CPU column shows it
 */
struct rt_record_source {
	int nr_cpus;
	int clock;
	bool (*peek)(void *ctx, int cpu, uint64_t *ts, const void **data,
		     unsigned int *len, long *lost);
	void (*advance)(void *ctx, int cpu);
	void *ctx;
	int nr_cpu_bufs;
	int (*on_cpu)(void *ctx, int cpu);
};

/* Print every record of @src (only cpu @cpu unless RINGBUF_ALL_CPUS)
 * merged by time, as trace_pipe does, without a header. Returns the
 * lines written or -errno. */
int rt_print_source(const struct rt_record_source *src, int cpu,
		    const struct rt_print_cfg *cfg,
		    const struct rt_printer_ops *ops, FILE *out);

#endif /* RINGTRACE_PRINT_H */
