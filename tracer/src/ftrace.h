/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ftrace.h - the function tracers: the hooks of -finstrument-functions
 * (function.c) and the core's recording side (trace.c)
 *
 * function.c owns the entry/exit hooks, the per-thread shadow stack,
 * recursion protection, the stop switch and the set_ftrace_filter
 * family. trace.c owns the buffers: it writes the ftrace:function,
 * ftrace:funcgraph_entry and ftrace:funcgraph_exit records into every
 * instance whose current tracer asks for them.
 */
#ifndef RINGTRACE_FTRACE_H
#define RINGTRACE_FTRACE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ringbuf/frontend.h>

#include "entries.h"

/* Bits of rt_ftrace_enabled */
#define RT_FTRACE_FUNCTION (1u << 0) /* some instance runs "function" */
#define RT_FTRACE_GRAPH (1u << 1)    /* some instance runs "function_graph" */
#define RT_FTRACE_PROBE (1u << 2)    /* some function command is set */

/* ---- provided by trace.c (the core) ---------------------------------- */

/*
 * Which tracers are current in some instance with tracing on. The hooks
 * load it relaxed, first thing after the stop switch.
 */
extern _Atomic unsigned int rt_ftrace_enabled;

/*
 * Record one function entry (function tracer). @args: the six argument
 * registers as the entry trampoline saved them (rdi, rsi, rdx, rcx, r8,
 * r9), written for the instances with func-args; NULL where the hook has
 * none (-finstrument-functions). Leaves errno as it was.
 * Async-signal-safe.
 */
void rt_ftrace_function_event(unsigned long ip, unsigned long parent_ip,
			      const unsigned long *args);
/* The instances of the function tracer with the func-args option. */
extern _Atomic uint64_t rt_fn_args_mask;
/*
 * The function tracer's refuse word, which its fast path (rt_fn_write(),
 * fnwrite.h) tests instead of the words it stands for: the buffer of
 * instance N (rt_inst_rbs[N]) when the function tracer is on in
 * instance N alone, without func-args, no instance of the function
 * tracer has a set_ftrace_pid or set_ftrace_notrace_pid list and the
 * stop switch is clear; else NULL (the general path, which tests them
 * one by one). Kept by rt_fn_fast_update().
 */
extern struct ringbuf *_Atomic rt_fn_fast_rb;
/*
 * rt_fn_fast_update - recompute rt_fn_fast_rb from rt_fn_mask,
 * rt_fn_args_mask, rt_ftrace_pid_mask, rt_function_trace_stop and
 * rt_inst_rbs[]: the one definition of the word, called by every writer
 * of those after its store. Not async-signal-safe (a mutex of its own, a
 * leaf).
 */
void rt_fn_fast_update(void);
/*
 * Record a graph entry at @depth (0 = outermost), stamped @calltime
 * (rt_ftrace_clock()) where the buffer's clock is the default one.
 * @args: the six argument registers as the entry trampoline saved them
 * (rdi, rsi, rdx, rcx, r8, r9), written for the instances with
 * funcgraph-args; NULL where the hook has none (-finstrument-functions).
 * Leaves errno as it was. Async-signal-safe.
 */
void rt_ftrace_graph_entry_event(unsigned long func, int depth,
				 uint64_t calltime, const unsigned long *args);
/*
 * Record a graph return. @retval: the return register; @overrun has
 * RT_GRAPH_NO_RETVAL (entries.h) set where the hook has none. Leaves
 * errno as it was. Async-signal-safe.
 */
void rt_ftrace_graph_return_event(unsigned long func, int depth,
				  uint64_t calltime, uint64_t rettime,
				  unsigned int overrun, unsigned long retval);
/*
 * The clock of durations (the graph's calltime and rettime, critical
 * sections): nanoseconds, whatever the buffers' trace_clock. It is the
 * default buffer clock (CLOCK_MONOTONIC from one rdtsc where the TSC
 * is calibrated, ringbuf/src/clock.c), so that a graph record on that
 * clock is stamped with its calltime or rettime from one read.
 * Async-signal-safe.
 */
static inline __attribute__((always_inline, no_instrument_function)) uint64_t
rt_ftrace_clock(void)
{
	return ringbuf_fe_mono_ns();
}

/*
 * The same clock in two steps, for the hooks: rt_ftrace_clock_start()
 * reads the counter (the TSC where the default clock scales it; nothing
 * elsewhere), as early as the hook can, so that the read's latency runs
 * alongside the hook's bookkeeping; rt_ftrace_clock_at() makes it
 * nanoseconds when the time is needed, as rt_ftrace_clock() would have
 * at the read (or reads the clock then, where the scale does not take
 * the counter).
 */
static inline __attribute__((always_inline, no_instrument_function)) uint64_t
rt_ftrace_clock_start(void)
{
#if defined(__x86_64__)
	return ringbuf_fe_rdtsc();
#else
	return 0;
#endif
}

/* rt_ftrace_clock_at()'s common case alone: 0 where it would read the
 * clock again (no call: a caller's rare path does that). */
static inline __attribute__((always_inline, no_instrument_function)) uint64_t
rt_ftrace_clock_try(uint64_t start)
{
#if defined(__x86_64__)
	return ringbuf_fe_mono_read(start, true);
#else
	(void)start;
	return 0;
#endif
}

static inline __attribute__((always_inline, no_instrument_function)) uint64_t
rt_ftrace_clock_at(uint64_t start)
{
	uint64_t ns = rt_ftrace_clock_try(start);

	if (__builtin_expect(ns != 0, 1))
		return ns;
	return ringbuf_fe_mono_ns();
}

/* ---- provided by function.c ------------------------------------------ */

/*
 * The global stop switch (the kernel's function_trace_stop): when set,
 * the hooks return before anything else.
 */
extern _Atomic int rt_function_trace_stop;

/*
 * The filter lists, as the tracefs files of the same names:
 * set_ftrace_filter, set_ftrace_notrace, set_graph_function,
 * set_graph_notrace.
 */
enum rt_ftrace_list {
	RT_FTRACE_FILTER = 0,
	RT_FTRACE_NOTRACE,
	RT_GRAPH_FUNCTION,
	RT_GRAPH_NOTRACE,
	RT_FTRACE_NR_LISTS,
};

/* ---- control, provided by function.c ---------------------------------- */

#include <stdio.h>

/*
 * max_graph_depth: function_graph records no function deeper than this
 * (0, the default, means no limit). The hooks load it relaxed.
 */
extern _Atomic int rt_max_graph_depth;

/**
 * rt_ftrace_list_set - write a filter list, like echo > or >> to its file
 * @list: which list
 * @text: globs separated by white space; "!glob" removes what it matches.
 *	Empty (or NULL) clears the list when @append is false and does
 *	nothing when it is true.
 * @append: add to the list (">>") instead of replacing it (">")
 * @err: where an error is explained (may be NULL)
 * @errlen: the size of @err
 *
 * The globs have fnmatch() syntax ("foo", "foo*", "*foo", "*foo*",
 * "foo*bar", "?", "[...]") and are matched against every function symbol
 * of the program and of its shared objects. They are kept: when a shared
 * object is dlopen()ed the lists are matched again, so its functions can
 * be filtered. A function is in the list when the last glob naming it
 * added it. An empty set_ftrace_filter or set_graph_function means every
 * function, as in the kernel (so removing the last entry traces all).
 *
 * Context: any thread but a signal handler; blocks (takes the control
 * lock, waits for a grace period). Safe against the hooks running.
 * Return: 0, or a negative errno (errno set too): -EINVAL for a bad @list
 * or a glob that matches no function (the list is then unchanged and
 * @err says "no function matches 'glob'"), -ENOMEM.
 */
int rt_ftrace_list_set(enum rt_ftrace_list list, const char *text,
		       bool append, char *err, size_t errlen);

/**
 * rt_ftrace_list_show - read a filter list, like cat of its file
 * @list: which list
 * @buf: where the text goes (may be NULL when @len is 0)
 * @len: the size of @buf
 *
 * One function per line, in the order of available_filter_functions:
 * "name", or "name [module]" for a function of a shared object (module =
 * the object's file name).
 *
 * Context: any thread but a signal handler; takes the control lock.
 * Return: the length of the whole text, as snprintf(): @buf holds it when
 * the return is below @len, else a NUL-terminated prefix.
 */
size_t rt_ftrace_list_show(enum rt_ftrace_list list, char *buf, size_t len);

/**
 * rt_ftrace_available_functions - write available_filter_functions
 * @out: the stream
 *
 * Every function symbol of every loaded object, one per line: "name" for
 * the program's own, "name [module]" for a shared object's.
 *
 * Context: any thread but a signal handler; may block.
 * Return: 0, or a negative errno (-EINVAL for a NULL @out, -EIO when
 * writing failed).
 */
int rt_ftrace_available_functions(FILE *out);

/**
 * rt_ftrace_sites_update - patch the recorded call sites after a change
 *
 * The profiling-call sites (-pg -mrecord-mcount, -fpatchable-function-
 * entry; x86-64) are calls exactly while a function tracer runs and
 * their function passes set_ftrace_filter and set_ftrace_notrace: the
 * core calls this when rt_ftrace_enabled changes (the lists' writers do
 * it themselves). Nothing elsewhere.
 *
 * Context: any thread but a signal handler; blocks.
 */
void rt_ftrace_sites_update(void);

/**
 * rt_ftrace_enabled_functions - write enabled_functions: the sites that
 * are calls now, one "name (1)\ttramp: ..." a line
 * @out: the stream
 *
 * Return: 0, or a negative errno.
 */
int rt_ftrace_enabled_functions(FILE *out);

/**
 * rt_ftrace_site_errors - the recorded call sites that could not be
 * patched (left alone): the last 16, one "TS_NS\tMESSAGE\tSITE" line
 * each, TS_NS on CLOCK_MONOTONIC (for error_log)
 * @out: the stream
 *
 * Return: 0, or a negative errno.
 */
int rt_ftrace_site_errors(FILE *out);

/* ---- function commands ("func:command[:arg][:count]") ------------------ */

/*
 * The kernel's function probes: commands written to set_ftrace_filter
 * that run when a function is entered, whatever the current tracer
 * (the function's call site is patched for them alone if need be).
 * Userspace: the function lists are the process's, so the commands act
 * on the top instance, as the kernel's written to the top
 * set_ftrace_filter do.
 */
enum rt_fprobe_cmd {
	RT_FPROBE_TRACEON = 0,
	RT_FPROBE_TRACEOFF,
	RT_FPROBE_STACKTRACE,
	RT_FPROBE_ENABLE_EVENT,
	RT_FPROBE_DISABLE_EVENT,
	RT_FPROBE_NR,
};

/*
 * Provided by trace.c: run command @cmd (its count @count, -1 for
 * unlimited; its event @target for the event commands) for an entry of
 * a function whose stack starts at the frame that returns to @from.
 * Async-signal-safe.
 */
void rt_ftrace_probe_fire(int cmd, _Atomic long *count, void *target,
			  const void *from);
/*
 * Provided by trace.c: find event @system:@event for an event command
 * and put it in soft mode in the top instance (@enter), or take it out
 * (@enter false, *@target the event). Return: 0, or -ENOENT.
 */
int rt_ftrace_probe_target(const char *system, const char *event,
			   bool enter, void **target);
/* Provided by trace.c: a stack trace can be taken (rt_stack_prime()). */
void rt_ftrace_probe_prime(void);

/* Provided by instance.c: rt_ftrace_enabled and the call sites again,
 * after the function commands changed. */
void rt_ftrace_masks_update(void);

/* Provided by function.c: whether a function command is set. */
bool rt_ftrace_probes_on(void);
/* Provided by function.c: whether @ip has a function command (for the
 * call sites to patch). */
bool rt_ftrace_probe_at(unsigned long ip);
/* Provided by function.c: run the commands of function @ip. Called by the
 * hooks with RT_FTRACE_PROBE set; async-signal-safe. */
void rt_ftrace_probe_call(unsigned long ip, const void *from);
/*
 * Provided by function.c: the commands as set_ftrace_filter lists them
 * after its functions ("name:traceoff:unlimited", "name:traceon:count=3",
 * "name:enable_event:sys:event:unlimited"); as rt_ftrace_list_show().
 */
size_t rt_ftrace_probes_show(char *buf, size_t len);

#endif /* RINGTRACE_FTRACE_H */
