/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtt.h - what the ringtrace tool's files share: the verb table's entry,
 *	the helpers every verb uses and the verbs themselves
 *
 * ringtrace.c holds the verb table and main(); each verb, or family of
 * verbs, has its file. Exit codes (ringtrace(1)): 0 ok, 1 runtime
 * failure, 2 bad usage or argument, 3 no such process or not traced,
 * 4 permission denied, 5 corrupt or truncated input.
 */
#ifndef RTT_RTT_H
#define RTT_RTT_H

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>

#include "client.h"
#include "entries.h"
#include "filter.h"
#include "print.h"
#include "profile.h"
#include "tep.h"
#include "names.h"
#include "tracedat.h"
#include "tracefs.h"

#ifndef RINGTRACE_VERSION
#define RINGTRACE_VERSION "0"
#endif

extern char **environ;

/* One verb: its name (and another one it answers to), what runs it, the
 * synopsis and the help text after it. */
struct rtt_verb {
	const char *name;
	const char *alias;
	int (*run)(const struct rtt_verb *v, int argc, char **argv);
	const char *synopsis;
	const char *help;
};

/* Counters summed over the cpu buffers of @rb. */
struct rtt_counts {
	unsigned long entries;
	unsigned long overrun;
	unsigned long commit_overrun;
	unsigned long dropped;
	unsigned long read;
	unsigned long torn;
};

struct rtt_strv {
	const char **v;
	int nr;
};



/* common.c */
void rtt_catch_signals(void);
void rtt_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
int rtt_help(const struct rtt_verb *v);
int rtt_usage(const struct rtt_verb *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int rtt_bad_option(const struct rtt_verb *v, char **argv, int c);

/* options.c */

/*
 * struct rtt_opt - one option of a verb, a row of the table rtt_options()
 *	parses (use the RTT_O_* macros below; the table ends with RTT_O_END)
 * @name: the long name ("": none)
 * @val: the short one; above 255: none
 * @kind: what the argument is and where it goes (enum rtt_opt_kind)
 * @out: bool *, const char **, unsigned long * or struct rtt_strv *, by
 *	@kind; @parse's own for RTT_OPT_PARSE
 * @parse: RTT_OPT_PARSE: reads the argument into @out; returns 0, 1 (the
 *	value is the default: for @conflicts as if not given) or -EINVAL
 * @min, @max: a number's range (RTT_OPT_UINT, RTT_OPT_LIST when @max)
 * @what: the message for a bad value, before it: "bad cpu" (the message
 *	is "bad cpu 'x' for -c/--cpu (HINT)")
 * @hint: what a good value is, in that message
 * @conflicts: the long names, blank-separated, of the options this one
 *	does not go with: both given is a usage error
 */
enum rtt_opt_kind {
	RTT_OPT_FLAG,		/* no argument: *out = true */
	RTT_OPT_STR,		/* *out = the argument */
	RTT_OPT_OPTIONAL,	/* --name[=ARG]: *out = ARG, or "" */
	RTT_OPT_UINT,		/* a whole number in [min, max] */
	RTT_OPT_LIST,		/* repeats: each argument added to the list */
	RTT_OPT_PARSE,		/* read by @parse */
};

struct rtt_opt {
	const char *name;
	int val;
	enum rtt_opt_kind kind;
	void *out;
	int (*parse)(const char *arg, void *out);
	unsigned long min, max;
	const char *what;
	const char *hint;
	const char *conflicts;
};

/* The pointers are checked for their type: (T *){ p } takes only a T *. */
#define RTT_O_FLAG(n, v, p, ...) \
	{ .name = (n), .val = (v), .kind = RTT_OPT_FLAG, \
	  .out = (bool *){ p }, __VA_ARGS__ }
#define RTT_O_STR(n, v, p, ...) \
	{ .name = (n), .val = (v), .kind = RTT_OPT_STR, \
	  .out = (const char **){ p }, __VA_ARGS__ }
#define RTT_O_OPTIONAL(n, v, p, ...) \
	{ .name = (n), .val = (v), .kind = RTT_OPT_OPTIONAL, \
	  .out = (const char **){ p }, __VA_ARGS__ }
#define RTT_O_UINT(n, v, p, lo, hi, w, h, ...) \
	{ .name = (n), .val = (v), .kind = RTT_OPT_UINT, \
	  .out = (unsigned long *){ p }, .min = (lo), .max = (hi), \
	  .what = (w), .hint = (h), __VA_ARGS__ }
#define RTT_O_LIST(n, v, p, ...) \
	{ .name = (n), .val = (v), .kind = RTT_OPT_LIST, \
	  .out = (struct rtt_strv *){ p }, __VA_ARGS__ }
#define RTT_O_PARSE(n, v, fn, p, w, h, ...) \
	{ .name = (n), .val = (v), .kind = RTT_OPT_PARSE, .parse = (fn), \
	  .out = (p), .what = (w), .hint = (h), __VA_ARGS__ }
/* The end of the table; @flags: RTT_OPTS_IN_ORDER or 0. */
#define RTT_O_END(flags) { .name = NULL, .val = (flags) }
/* The options stop at the first other argument (what follows it may
 * start with '-': a filter expression, a command's own options). */
#define RTT_OPTS_IN_ORDER 1
#define RTT_MAX_OPTS 20
#define RTT_OPTIONS_GO (-1)
int rtt_options(const struct rtt_verb *v, int argc, char **argv,
		const struct rtt_opt *o);
int rtt_options_pid(const struct rtt_verb *v, int argc, char **argv,
		    const struct rtt_opt *o, unsigned int flags,
		    struct rtt_proc *p);
int rtt_pid_arg(const struct rtt_verb *v, int argc);
int rtt_parse_uint(const char *s, unsigned long max, unsigned long *out);
int rtt_open_pid(const char *arg, unsigned int flags,
		 struct rtt_proc *p);
/* rtt_call() that says on stderr why a command failed. */
int rtt_cmd(struct rtt_proc *p, char **reply, const struct rt_cmd_args *c);
/* echo TEXT > FILE (@append: >> FILE) through the process's file table:
 * file_trunc (not for @append), then file_write. Return: 0 or a negative
 * errno with the process's message in @err. */
int rtt_file_write(struct rtt_proc *p, const char *inst, const char *file,
		   const char *text, bool append, char *err);
/* rtt_file_write() of echo TEXT > FILE that says on stderr why it
 * failed. */
int rtt_file_set(struct rtt_proc *p, const char *inst, const char *file,
		 const char *text);
int rtt_find_inst(struct rtt_proc *p, const char *inst);
int rtt_load_events(struct rtt_proc *p, struct rtt_events **out,
		    bool quiet);
int rtt_load_syms(struct rtt_proc *p, struct rtt_syms **out);
void rtt_get_cfg(struct rtt_proc *p, const char *inst,
		 struct rt_print_cfg *cfg);
int rtt_set_filter(struct rtt_proc *p, const struct rtt_events *ev,
		   const char *inst, const char *spec,
		   const char *expr);
/* An expression longer than a filter takes (RT_FILTER_MAX_LEN): says so
 * and returns true. */
bool rtt_filter_too_long(const char *spec, const char *expr);
int rtt_split_filter(const char *arg, char *spec, size_t len,
		     const char **expr);
void rtt_get_counts(struct ringbuf *rb, struct rtt_counts *c);
unsigned long rtt_lost(const struct rtt_counts *c);
/* @c less @base, the counts taken earlier: what happened in between. */
void rtt_counts_since(struct rtt_counts *c, const struct rtt_counts *base);
int rtt_strv_add(struct rtt_strv *s, const char *str);
/* A process's reply on stdout, ended with a newline. */
void rtt_print_reply(const char *reply);
/* Process @pid started with the variable @want ("NAME=VALUE"). */
bool rtt_environ_has(int pid, const char *want);
/* @arg is a trace option, or "no" and one. */
bool rtt_opt_ok(const char *arg);
/* Every event spec of specs[from..to) (set_event's syntax, "!" in front
 * allowed) is one of the process's events: else -ENOENT or -EINVAL after
 * a message naming it. */
int rtt_check_events(struct rtt_proc *p, int from, int to,
		     const char *const *specs);
/* The same against @ev, the events as read before. */
int rtt_check_events_in(struct rtt_proc *p, const struct rtt_events *ev,
			int from, int to, const char *const *specs);
int rtt_apply_settings(struct rtt_proc *p, const struct rtt_events *ev,
		       const char *inst, const struct rtt_strv *opts,
		       const struct rtt_strv *events,
		       const struct rtt_strv *filters);
extern volatile sig_atomic_t rtt_stop;

/*
 * struct rtt_out - the output of record -o or extract -o (output.c)
 * @arg: the path as given ("-": standard output)
 * @path: where the trace.dat is written: @arg, or @tmp for a stream
 * @fd: the stream (standard output or a FIFO) the file is copied to, or -1
 * @dir: the private temporary directory of a stream's file, or ""
 * @tmp: the file in it
 */
struct rtt_out {
	const char *arg;
	const char *path;
	int fd;
	char dir[PATH_MAX];
	char tmp[PATH_MAX + 16];
};

/* output.c */
/* Check the output @arg before anything runs (@allow_stream: "-" and a
 * FIFO with a reader are fine). Return: 0, or an exit code after a
 * message. */
int rtt_out_open(const char *arg, bool allow_stream, struct rtt_out *o);
/* Copy the finished file to the stream (when @ret is 0) and clean up.
 * Return: @ret, or a negative errno of the copy. */
int rtt_out_finish(struct rtt_out *o, int ret);
/* Clean up without copying: the temporary files, the stream. */
void rtt_out_close(struct rtt_out *o);
const char *rtt_out_name(const struct rtt_out *o);
/* The kind of file @st is ("a directory", "a FIFO" ...), for messages. */
const char *rtt_file_kind(const struct stat *st);

/* tdwrite.c */
int rtt_td_error(const char *path, int err);
void rtt_td_set_options(struct td_writer *w, const struct rtt_strv *opts);
void rtt_td_set_stats(struct td_writer *w, struct ringbuf *rb);
int rtt_td_open(const struct rtt_proc *p, const char *path,
		struct ringbuf *rb,
		const struct rtt_events *ev, const char *kallsyms,
		const char *cmdlines, const char *clock,
		struct td_writer **wp);
void rtt_td_set_kallsyms(struct td_writer *w, const char *path,
			 const char *kallsyms);
/* --compression's argument checked: 0, or the usage message's text. */
const char *rtt_compression_arg(const char *arg);
/* The compression of a trace.dat written to @o when none is given:
 * "zstd" for a named file, NULL (version 6) for a stream. */
const char *rtt_default_compression(const struct rtt_out *o);
/* @algo (NULL: none) set on the new writer @w of @path; @dflt: chosen
 * by default, so that a build without libzstd writes version 6 without
 * a word. Return: 0 or a negative errno (reported). */
int rtt_td_compress(struct td_writer *w, const char *path, const char *algo,
		    bool dflt);

/* list.c */
int rtt_do_list(const struct rtt_verb *v, int argc, char **argv);
extern const char rtt_list_help[];
int rtt_do_clean(const struct rtt_verb *v, int argc, char **argv);
extern const char rtt_clean_help[];

/* pipe.c */
int rtt_do_pipe(const struct rtt_verb *v, int argc, char **argv);
extern const char rtt_pipe_help[];

/* show.c */
int rtt_show_buffer(struct rtt_proc *p, const char *inst, int slot,
		    bool snap, bool raw);
int rtt_do_show(const struct rtt_verb *v, int argc, char **argv);
int rtt_do_stat(const struct rtt_verb *v, int argc, char **argv);
extern const char rtt_show_help[];
extern const char rtt_stat_help[];

/* ctl.c */
int rtt_do_enable(const struct rtt_verb *v, int argc, char **argv);
int rtt_do_filter(const struct rtt_verb *v, int argc, char **argv);
int rtt_do_simple(const struct rtt_verb *v, int argc, char **argv);
int rtt_do_snapshot(const struct rtt_verb *v, int argc, char **argv);
int rtt_do_options(const struct rtt_verb *v, int argc, char **argv);
int rtt_do_trigger(const struct rtt_verb *v, int argc, char **argv);
int rtt_do_file(const struct rtt_verb *v, int argc, char **argv);
int rtt_do_hist(const struct rtt_verb *v, int argc, char **argv);
int rtt_do_pids(const struct rtt_verb *v, int argc, char **argv);
extern const char rtt_enable_help[];
extern const char rtt_filter_help[];
extern const char rtt_snapshot_help[];
extern const char rtt_options_help[];
extern const char rtt_trigger_help[];
extern const char rtt_file_help[];
extern const char rtt_hist_help[];
extern const char rtt_pids_help[];
int rtt_do_instance(const struct rtt_verb *v, int argc, char **argv);
extern const char rtt_instance_help[];

/* record.c */
uint64_t rtt_self_wchar(uint64_t dflt);
int rtt_do_record(const struct rtt_verb *v, int argc, char **argv);
extern const char rtt_record_help[];

/* agent.c */
int rtt_do_agent(const struct rtt_verb *v, int argc, char **argv);
extern const char rtt_agent_help[];

/* extract.c */
int rtt_do_extract(const struct rtt_verb *v, int argc, char **argv);
extern const char rtt_extract_help[];

/* report.c */
int rtt_do_report(const struct rtt_verb *v, int argc, char **argv);
extern const char rtt_report_help[];

/* json.c: Chrome / Perfetto trace-event JSON (report --json) */

struct rtt_json;

/**
 * rtt_json_begin - start a {"traceEvents":[...]} document
 * @out: the stream
 * @ctx: the events, symbols and names (must outlive the document)
 * @ns: time stamps are nanoseconds (else clock ticks, written as they are)
 * @pid: the process every thread is shown in (0: each thread its own)
 *
 * function_graph entries and exits become "B"/"E" slices per thread,
 * other events "i" instants with their fields in "args", lost events an
 * instant "lost events" on the cpu's track.
 *
 * Context: any thread.
 * Return: the document, or NULL (out of memory).
 */
struct rtt_json *rtt_json_begin(FILE *out, const struct rtt_print_ctx *ctx,
				bool ns, int pid);

/* Buffers 0 .. @nr_cpu_bufs - 1 are CPUs ("cpu":N in a record's args),
 * the others spares ("spare":N, and "cpu":K where a CPU note says the
 * record was written on CPU K). */
void rtt_json_set_cpu_buffers(struct rtt_json *j, int nr_cpu_bufs);
/* One record of cpu buffer @cpu at time @ts, written on CPU @on (-1: the
 * buffer's, or not known). */
void rtt_json_record(struct rtt_json *j, int cpu, int on, uint64_t ts,
		     const void *rec, unsigned int len);
/* @count events lost on @cpu before @ts (TD_MISSED_UNKNOWN: unknown). */
void rtt_json_lost(struct rtt_json *j, int cpu, uint64_t ts,
		   unsigned long count);
/* Close the slices left open, name the threads, end the document.
 * Return: 0, or -EIO when writing failed. Frees @j. */
int rtt_json_end(struct rtt_json *j);

#endif
