/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/tracer.h - the tracer's control and output API
 *
 * Each call stands for one tracefs file; its comment names it. An
 * instance is a trace array: the top-level one (ringtrace_top()) or one
 * made with ringtrace_instance_create() (mkdir instances/NAME). Control
 * calls take the instance's control lock and may block; they never block
 * a writer. Every call that can fail returns 0 or a negative errno, and
 * where a message helps, writes it to @err (@errlen bytes, may be NULL).
 * The show calls fill @buf as snprintf() does and return the length the
 * whole text needs; a NULL @buf asks for that length only.
 *
 * Context: by section, unless a function's comment says otherwise.
 *  - instances, events, tracers and options, output, the latency
 *    tracer's settings: any thread, not a signal handler (they take the
 *    instance's control lock, allocate, or write to a FILE); a control
 *    call may wait for the writers in flight (a grace period), so it
 *    must not run inside a record's write (a TP_fast_assign()).
 *  - markers, signal handlers, ringtrace_critical_start()/_end(): any
 *    thread and any signal handler, lock-free and without allocating,
 *    as a trace point's write is (ringtrace_printf() formats on the
 *    stack).
 *  - messages: ringtrace_set_print() from any thread; the callback
 *    itself runs in whatever context a message arises.
 */
#ifndef RINGTRACE_TRACER_H
#define RINGTRACE_TRACER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <ringtrace/event.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ringtrace_instance;

/* ---- instances ---------------------------------------------------------- */

/* The top-level instance, made at the first call. NULL with errno set if
 * its buffer cannot be made. */
RINGTRACE_API struct ringtrace_instance *ringtrace_top(void);
/* mkdir instances/NAME. NULL with errno: EEXIST, EINVAL, ENOSPC (64
 * instances), ENOMEM. */
RINGTRACE_API struct ringtrace_instance *ringtrace_instance_create(
	const char *name);
/* An existing instance by name; "" or NULL is the top one. */
RINGTRACE_API struct ringtrace_instance *ringtrace_instance_lookup(
	const char *name);
/* rmdir instances/NAME: -EINVAL for the top instance. */
RINGTRACE_API int ringtrace_instance_destroy(struct ringtrace_instance *tr);
RINGTRACE_API const char *ringtrace_instance_name(
	struct ringtrace_instance *tr);

/* ---- publication --------------------------------------------------------- */

/*
 * A setuid or setgid program (or one with file capabilities: the
 * kernel's AT_SECURE) is not published: the user who runs it would
 * read its buffers and command it through the ringtrace tool with the
 * program's privileges in play. Such a program does not read the
 * caller's RINGTRACE_* variables either (secure_getenv()), and its
 * tracer starts at its first call, not when the library loads.
 * ringtrace_publish_allow_secure() lets it be published as any program
 * is (in /dev/shm/ringtrace-<effective uid>, the files its effective
 * uid's): call it first in main(), before any other ringtrace call.
 * Without AT_SECURE it changes nothing. Added after 0.1.0 (see the
 * list in ringtrace.map).
 *
 * Return: 0, or -EBUSY when the tracer started already (too late).
 */
RINGTRACE_API int ringtrace_publish_allow_secure(void);

/* ---- events ------------------------------------------------------------- */

/* echo SPEC >> set_event: "sys:event", "sys:*", "*:*", "event", "sys",
 * each prefixed with '!' to disable; several separated by blanks or
 * commas. -ENOENT (with @err naming the spec) if one matches nothing. */
RINGTRACE_API int ringtrace_set_event(struct ringtrace_instance *tr,
				      const char *spec, char *err,
				      size_t errlen);
/* echo > set_event: disable every event of the instance. */
RINGTRACE_API void ringtrace_clear_events(struct ringtrace_instance *tr);
/* cat set_event: the enabled events as "sys:event" lines. */
RINGTRACE_API size_t ringtrace_show_set_event(struct ringtrace_instance *tr,
					      char *buf, size_t len);
/* events/SYS/EVENT/enable (event NULL: events/SYS/enable; system NULL
 * too: events/enable). */
RINGTRACE_API int ringtrace_event_enable(struct ringtrace_instance *tr,
					 const char *system,
					 const char *event, bool on);
/* events/SYS/EVENT/filter (event NULL: the subsystem filter, set on every
 * event of SYS that has the fields, others keep theirs; system NULL too:
 * every event). "0" or "" clears. On a parse error -EINVAL and @err holds
 * the kernel-style report with the caret under the error. */
RINGTRACE_API int ringtrace_set_filter(struct ringtrace_instance *tr,
				       const char *system, const char *event,
				       const char *expr, char *err,
				       size_t errlen);
/* cat events/SYS/EVENT/filter ("none" when there is none). */
RINGTRACE_API size_t ringtrace_show_filter(struct ringtrace_instance *tr,
					   const char *system,
					   const char *event, char *buf,
					   size_t len);
/*
 * echo TEXT > events/SYS/EVENT/trigger: one trigger,
 * "CMD[:N] [if FILTER]" with CMD traceon, traceoff, snapshot (of the
 * instance), stacktrace (a stack record after the event's), or
 * enable_event:SYS:EVENT / disable_event:SYS:EVENT (switch that event in
 * the instance). N limits the firings (traceon and traceoff count only
 * the ones that change the state, enable_event and disable_event the
 * ones that switch the event); FILTER, in the filter file's grammar,
 * limits them to the records of the event that match it. "!CMD" removes
 * the trigger (count and filter are not needed). The event does not have
 * to be enabled: a trigger arms it, as in the kernel, and it records only
 * if it is enabled. @system may be NULL. Return: -EINVAL for a bad
 * trigger or filter (@err says what, a filter error with the caret),
 * -ENOENT for an unknown event, -EEXIST for a trigger of the same kind
 * already set (traceon and traceoff are one kind, enable_event and
 * disable_event of one target another; "!CMD" removes the one of its
 * kind), -ENOSPC for a 17th trigger on one event.
 */
RINGTRACE_API int ringtrace_set_trigger(struct ringtrace_instance *tr,
					const char *system, const char *event,
					const char *text, char *err,
					size_t errlen);
/* cat events/SYS/EVENT/trigger: one trigger per line, as the kernel
 * shows them ("traceoff:unlimited", "traceon:count=3 if id > 4",
 * "enable_event:app:work:unlimited"); with none, the kernel's two
 * comment lines that list the commands. */
RINGTRACE_API size_t ringtrace_show_trigger(struct ringtrace_instance *tr,
					    const char *system,
					    const char *event, char *buf,
					    size_t len);
/*
 * echo TEXT >> synthetic_events: "NAME TYPE FIELD[; TYPE FIELD...]" makes
 * the event synthetic:NAME (types s8..u64, char, short, int, long,
 * unsigned ones, pid_t, gfp_t, bool, "char FIELD[N]" and "char FIELD[]",
 * a dynamic string), "!NAME" removes it (-EBUSY while a hist action
 * writes it). Process-wide, as the kernel's. Return: 0, -EINVAL or
 * -EEXIST with the kernel's error_log entry in @err ("synthetic_events:
 * error: Invalid type", the command, the caret), -ENOENT.
 */
RINGTRACE_API int ringtrace_synthetic_event(const char *text, char *err,
					    size_t errlen);
/* echo > synthetic_events: remove every synthetic event not in use
 * (-EBUSY if one is, the others removed). */
RINGTRACE_API int ringtrace_synthetic_events_clear(char *err, size_t errlen);
/* cat synthetic_events: one event per line, "NAME\tTYPE FIELD; ...". */
RINGTRACE_API size_t ringtrace_show_synthetic_events(char *buf, size_t len);
/*
 * The calling thread's records carry the id of thread @pid (another
 * process's; its name and process id read from /proc and kept in the
 * saved cmdlines), as a program that relays another's events needs them;
 * 0 gives it its own id back. Return: 0, -ESRCH when /proc has no such
 * thread (its records keep their own id).
 */
RINGTRACE_API int ringtrace_write_as(int pid);
/*
 * cat events/SYS/EVENT/hist: the tables of the event's hist triggers
 * ("hist:keys=...[:vals=...][:sort=...][:size=N][:name=...][:pause]
 * [:cont][:clear][:nohitcount] [if FILTER]", set with
 * ringtrace_set_trigger()) as the kernel prints them: "# event
 * histogram", the trigger line, one "{ key: ... } hitcount: ..." line per
 * entry in sort order, "Totals:" with Hits, Entries and Dropped; several
 * tables apart by an empty line. Empty without a hist trigger.
 * Return: the length of the whole text, as snprintf() (a NULL @buf with
 * @len 0 asks for it).
 * Context: any thread but a signal handler; allocates.
 */
RINGTRACE_API size_t ringtrace_show_hist(struct ringtrace_instance *tr,
					 const char *system, const char *event,
					 char *buf, size_t len);
/* The events a trigger arms in the instance (soft mode: its own, or
 * the target of an enable_event or disable_event), as "sys:event"
 * lines; their enable files show a '*' after 0 or 1. */
RINGTRACE_API size_t ringtrace_show_soft_events(struct ringtrace_instance *tr,
						char *buf, size_t len);
/* cat events/SYS/EVENT/format. -ENOENT for an unknown event. */
RINGTRACE_API ssize_t ringtrace_event_format(const char *system,
					     const char *event, char *buf,
					     size_t len);
/* cat events/SYS/EVENT/id */
RINGTRACE_API int ringtrace_event_id(const char *system, const char *event);
/* cat available_events */
RINGTRACE_API void ringtrace_available_events(FILE *out);

/* ---- tracers and options ------------------------------------------------ */

/* echo NAME > current_tracer: "nop", "function", "function_graph",
 * "usersoff" (the critical-section latency tracer). */
RINGTRACE_API int ringtrace_set_tracer(struct ringtrace_instance *tr,
				       const char *name);
RINGTRACE_API const char *ringtrace_current_tracer(
	struct ringtrace_instance *tr);
/*
 * The function tracers' filter lists, shared by all instances (the
 * kernel has them per instance): set_ftrace_filter, set_ftrace_notrace,
 * set_graph_function, set_graph_notrace. @globs: blank-separated globs,
 * "!glob" removes; @append is ">>" rather than ">". A glob that matches
 * no function is -EINVAL and leaves the list as it was. Functions of
 * shared objects loaded later with dlopen() are matched when they load.
 */
enum ringtrace_ftrace_list {
	RINGTRACE_FTRACE_FILTER = 0,
	RINGTRACE_FTRACE_NOTRACE,
	RINGTRACE_GRAPH_FUNCTION,
	RINGTRACE_GRAPH_NOTRACE,
};
RINGTRACE_API int ringtrace_set_ftrace_list(enum ringtrace_ftrace_list list,
					    const char *globs, bool append,
					    char *err, size_t errlen);
/* cat of the list: one function per line, "name [module]" for a shared
 * object's. Returns the length as snprintf() does. */
RINGTRACE_API size_t ringtrace_show_ftrace_list(enum ringtrace_ftrace_list list,
						char *buf, size_t len);
/* cat available_filter_functions */
RINGTRACE_API int ringtrace_available_filter_functions(FILE *out);
/* cat enabled_functions: the recorded call sites (-pg -mrecord-mcount,
 * -fpatchable-function-entry; x86-64) that are calls now, one
 * "name (1)\ttramp: ..." a line; empty elsewhere. Added in 0.1.x. */
RINGTRACE_API int ringtrace_enabled_functions(FILE *out);
/* The recorded call sites that could not be patched and were left alone
 * (a text page that takes no write, a function too short for a call):
 * the last 16, one "TS_NS\tMESSAGE\tSITE" line each, TS_NS on
 * CLOCK_MONOTONIC; what the mount's error_log shows. Added after 0.1.0. */
RINGTRACE_API int ringtrace_ftrace_site_errors(FILE *out);
/* max_graph_depth (0: no limit) */
RINGTRACE_API int ringtrace_set_max_graph_depth(int depth);
/* The global stop switch (function_trace_stop): no function is recorded
 * while it is set, whatever the tracers. Setting it is async-signal-safe
 * (a crash handler may); clearing it takes a lock. */
RINGTRACE_API void ringtrace_function_trace_stop(bool stop);

/*
 * The thread-id lists of an instance: set_event_pid (only these threads'
 * events are recorded), set_event_notrace_pid (these threads' events are
 * not), set_ftrace_pid and set_ftrace_notrace_pid (the same for the
 * function tracers' records). An empty list filters nothing, as in the
 * kernel. A thread left out by them fires no trigger either.
 */
enum ringtrace_pid_list {
	RINGTRACE_PID_EVENT = 0,
	RINGTRACE_PID_EVENT_NOTRACE,
	RINGTRACE_PID_FTRACE,
	RINGTRACE_PID_FTRACE_NOTRACE,
};
/* echo PIDS > FILE (@append: >>): thread ids separated by blanks; ""
 * with !@append clears. -EINVAL (with @err naming the word) for a word
 * that is not a thread id; the list is then unchanged. */
RINGTRACE_API int ringtrace_set_pids(struct ringtrace_instance *tr,
				     enum ringtrace_pid_list list,
				     const char *pids, bool append, char *err,
				     size_t errlen);
/* cat FILE: one id per line, ascending. */
RINGTRACE_API size_t ringtrace_show_pids(struct ringtrace_instance *tr,
					 enum ringtrace_pid_list list,
					 char *buf, size_t len);

/* echo OPT > trace_options ("noOPT" clears); -EINVAL for unknown. */
RINGTRACE_API int ringtrace_set_option(struct ringtrace_instance *tr,
				       const char *opt);
/* cat options/OPT: 1, 0, or -EINVAL. */
RINGTRACE_API int ringtrace_option(struct ringtrace_instance *tr,
				   const char *opt);
/* cat trace_options */
RINGTRACE_API size_t ringtrace_show_options(struct ringtrace_instance *tr,
					    char *buf, size_t len);

/* tracing_on */
RINGTRACE_API void ringtrace_tracing_on(struct ringtrace_instance *tr,
					bool on);
RINGTRACE_API bool ringtrace_tracing_is_on(struct ringtrace_instance *tr);
/* buffer_size_kb (per cpu buffer) */
RINGTRACE_API int ringtrace_set_buffer_size_kb(struct ringtrace_instance *tr,
					       size_t kb);
RINGTRACE_API size_t ringtrace_buffer_size_kb(struct ringtrace_instance *tr);
/* One cpu buffer's (per_cpu/cpuN/buffer_size_kb), resized in place;
 * cpu -1 (RINGTRACE_ALL_CPUS): every one. ringtrace_buffer_size_kb_cpu()
 * of -1 is 0 when they differ (tracefs shows "X"). */
#define RINGTRACE_ALL_CPUS (-1)
RINGTRACE_API int ringtrace_set_buffer_size_kb_cpu(struct ringtrace_instance *tr,
						   int cpu, size_t kb);
RINGTRACE_API size_t ringtrace_buffer_size_kb_cpu(struct ringtrace_instance *tr,
						  int cpu);
/* buffer_subbuf_size_kb (the kernel's since 6.8): the sub-buffer size,
 * @kb rounded up to a power of two from 4 to 512 (-EINVAL above). A new
 * size replaces the instance's buffers: what they held is lost. */
RINGTRACE_API int ringtrace_set_subbuf_size_kb(struct ringtrace_instance *tr,
					       size_t kb);
RINGTRACE_API size_t ringtrace_subbuf_size_kb(struct ringtrace_instance *tr);
/* tracing_cpumask: which cpu buffers record, as the kernel's file: a
 * hexadecimal mask, 32-bit groups separated by commas, one bit per cpu
 * buffer (-EINVAL for a bit past the last one). The show is snprintf()-like.
 */
RINGTRACE_API int ringtrace_set_tracing_cpumask(struct ringtrace_instance *tr,
						const char *mask);
RINGTRACE_API size_t
ringtrace_show_tracing_cpumask(struct ringtrace_instance *tr, char *buf,
			       size_t len);
/* free_buffer: shrink every cpu buffer to its least size (buffer_size_kb
 * 7), turning tracing off first with the disable_on_free option. */
RINGTRACE_API int ringtrace_free_buffer(struct ringtrace_instance *tr);
/* buffer_percent: how full a cpu buffer is before a raw (page) reader
 * blocked on it wakes. */
RINGTRACE_API int ringtrace_set_buffer_percent(struct ringtrace_instance *tr,
					       int percent);
RINGTRACE_API int ringtrace_buffer_percent(struct ringtrace_instance *tr);
/* What a trace_pipe_raw reader blocks in: wait until cpu buffer @cpu
 * (RINGBUF_ALL_CPUS: any) is buffer_percent full, or @timeout_ms passes
 * (-1: forever). Return: 1 data, 0 timeout, negative errno. */
RINGTRACE_API int ringtrace_buffer_wait(struct ringtrace_instance *tr, int cpu,
					int timeout_ms);
/* trace_clock: "mono" (also "local", "global", "perf"), "mono_raw",
 * "boot", "x86-tsc". Changing it clears the buffer. */
RINGTRACE_API int ringtrace_set_clock(struct ringtrace_instance *tr,
				      const char *name);
RINGTRACE_API size_t ringtrace_show_clock(struct ringtrace_instance *tr,
					  char *buf, size_t len);
/* echo > trace: empty the buffer. */
RINGTRACE_API void ringtrace_clear(struct ringtrace_instance *tr);
/* echo N > snapshot: 0 frees the snapshot buffer, 1 allocates it and
 * swaps it with the live buffer, 2 clears it. */
RINGTRACE_API int ringtrace_snapshot(struct ringtrace_instance *tr, int cmd);
/* The instance's ring buffer (for raw readers). */
RINGTRACE_API struct ringbuf *ringtrace_buffer(struct ringtrace_instance *tr);

/* ---- the files the library serves ------------------------------------ */

/* The tracefs files of the library's own table, which the mount and the
 * tool serve too ('ringtrace file', 'ringtrace mount'): file @i's name,
 * its mode and whether the top instance alone has it, or NULL past the
 * last. */
RINGTRACE_API const char *ringtrace_file_name(size_t i, unsigned int *mode,
					      bool *top_only);
/* cat FILE: the text into @buf (snprintf()-like). Return: the length the
 * whole text needs, -ENOENT (no such file in @tr's directory) or -EACCES
 * (a file that cannot be read). */
RINGTRACE_API long ringtrace_file_read(struct ringtrace_instance *tr,
				       const char *name, char *buf,
				       size_t len);
/* A write of TEXT to the open FILE: 0, -ENOENT, -EACCES (read-only) or
 * the file's error (-EINVAL for a bad value, with a message in @err). A
 * value replaces the file's; a list (set_event_pid, ...) adds to itself,
 * as echo TEXT >> FILE: echo TEXT > FILE is ringtrace_file_trunc() first. */
RINGTRACE_API int ringtrace_file_write(struct ringtrace_instance *tr,
				       const char *name, const char *text,
				       char *err, size_t errlen);
/* What opening FILE with O_TRUNC does ('>'): a list is emptied, a value
 * is left alone. 0, -ENOENT or -EACCES (read-only). */
RINGTRACE_API int ringtrace_file_trunc(struct ringtrace_instance *tr,
				       const char *name);

/* ---- output ------------------------------------------------------------- */

/* cat trace: a non-consuming view with the header. */
RINGTRACE_API int ringtrace_print_trace(struct ringtrace_instance *tr,
					FILE *out);
/* cat snapshot */
RINGTRACE_API int ringtrace_print_snapshot(struct ringtrace_instance *tr,
					   FILE *out);
/* One read of trace_pipe: waits up to @timeout_ms (-1: forever) for a
 * record, then consumes what the buffer held when the read began and
 * writes the lines to @out (records that arrive meanwhile are left for
 * the next read). buffer_percent does not apply, as in the kernel, whose
 * trace_pipe wakes at the first record. Return: lines written, 0 on
 * timeout, or a negative errno. */
RINGTRACE_API int ringtrace_read_pipe(struct ringtrace_instance *tr,
				      FILE *out, int timeout_ms);

/* ---- markers ------------------------------------------------------------ */

/* echo TEXT > trace_marker: a ftrace:print record shown as
 * "tracing_mark_write: TEXT". No system call. -EINVAL if the markers
 * option is off, -ENOSPC if the buffer refused it (tracing off, or a
 * full buffer without overwrite). */
RINGTRACE_API int ringtrace_marker_write(struct ringtrace_instance *tr,
					 const char *text, size_t len);
/* trace_printk(): a ftrace:print record shown as "caller: TEXT". */
RINGTRACE_API int ringtrace_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* trace_marker_raw: an id and a binary payload (ftrace:raw_data). */
RINGTRACE_API int ringtrace_marker_raw(struct ringtrace_instance *tr,
				       unsigned int id, const void *data,
				       size_t len);

/* ---- signal handlers ---------------------------------------------------- */

/* Mark a signal handler's body, so its records show 'h' in the flags
 * (the kernel's irq_enter()/irq_exit()). Records made while another
 * record of the same thread is being written are marked anyway. */
RINGTRACE_API void ringtrace_irq_enter(void);
RINGTRACE_API void ringtrace_irq_exit(void);

/* ---- the usersoff latency tracer --------------------------------------- */

/* Begin and end a critical section on this thread. With the usersoff
 * tracer current, the longest section (over tracing_thresh) becomes the
 * snapshot and tracing_max_latency. In a signal handler (marked with
 * ringtrace_irq_enter()) or inside another record's write, the end
 * records the maximum but takes no snapshot, which would have to wait
 * for locks and writers. */
RINGTRACE_API void ringtrace_critical_start(void);
RINGTRACE_API void ringtrace_critical_end(void);
/* tracing_max_latency, in microseconds; writing 0 rearms. */
RINGTRACE_API uint64_t ringtrace_max_latency(struct ringtrace_instance *tr);
RINGTRACE_API void ringtrace_set_max_latency(struct ringtrace_instance *tr,
					     uint64_t usecs);
/* tracing_thresh, in microseconds (0: keep every new maximum). */
RINGTRACE_API void ringtrace_set_thresh(struct ringtrace_instance *tr,
					uint64_t usecs);

/* ---- messages ----------------------------------------------------------- */

/* How much a message of the tracer matters. */
enum ringtrace_print_level {
	RINGTRACE_PRINT_WARN,
	RINGTRACE_PRINT_INFO,
	RINGTRACE_PRINT_DEBUG,
};

/* A callback that takes the tracer's messages (as libbpf_set_print());
 * it may run in a constructor, on the write path or in a signal handler. */
typedef int (*ringtrace_print_fn)(enum ringtrace_print_level level,
				  const char *fmt, va_list ap);

/* Where the tracer's messages go: @fn, or NULL for the default (standard
 * error, formatted on the stack, one write(2)). Returns the callback set
 * before. libringbuf's messages: ringbuf_set_print(). */
RINGTRACE_API ringtrace_print_fn ringtrace_set_print(ringtrace_print_fn fn);

#ifdef __cplusplus
}
#endif

#endif /* RINGTRACE_TRACER_H */
