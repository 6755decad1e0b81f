// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * files.c - the tracefs files the library serves itself, one table
 *
 * As the kernel's init_tracer_tracefs() makes each file of a tracing
 * directory with trace_create_file() (a name, a mode, its file
 * operations), each row here is one file of an instance: its name, its
 * mode, whether only the top instance has it, the text a read gives and
 * what a write does, through the ringtrace_* API. Everything that serves
 * files reads this table: ringtrace_file_read() and ringtrace_file_write()
 * for a program, the control protocol's file_ls, file_read and file_write
 * commands for the tool ('ringtrace file') and for 'ringtrace mount',
 * which shows every row as a file. A new file is one row and its
 * functions here; the mount and the tool then have it with no change.
 *
 * Write validation runs here, in the process, as in the kernel: a bad
 * value is -EINVAL with a message, and nothing changes.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ringbuf/ringbuf.h>
#include <ringtrace/tracer.h>

#include "ctl.h"
#include "files.h"
#include "ftrace.h"
#include "names.h"
#include "trace.h"

/* A number written to a file: decimal, as the kernel's kstrtoul(.., 10),
 * surrounded by blanks at most. 0 or -EINVAL. */
static int rt_file_ul(const char *text, unsigned long *v)
{
	char *end;

	text += strspn(text, " \t");
	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoul(text, &end, 10);
	end += strspn(end, " \t\n");
	return errno || *end ? -EINVAL : 0;
}

static void rt_file_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void rt_file_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* A name written to a file: one word, the blanks around it (echo's
 * newline) dropped. 0 with the word in @word, or -EINVAL. */
static int rt_file_word(const char *text, char *word, size_t size)
{
	size_t n;

	text += strspn(text, " \t\n");
	n = strcspn(text, " \t\n");
	if (!n || n >= size || text[n + strspn(text + n, " \t\n")])
		return -EINVAL;
	memcpy(word, text, n);
	word[n] = '\0';
	return 0;
}

/* The length of @text's first line, at most 64 bytes: what a message
 * quotes of a value written. */
static int rt_file_line(const char *text)
{
	size_t n = strcspn(text, "\n");

	return n > 64 ? 64 : (int)n;
}

/* tracing_on */
static int rt_show_tracing_on(struct ringtrace_instance *tr, char *buf,
			      size_t len)
{
	return snprintf(buf, len, "%d\n", ringtrace_tracing_is_on(tr) ? 1 : 0);
}

static int rt_write_tracing_on(struct ringtrace_instance *tr,
			       const char *text, char *err, size_t errlen)
{
	unsigned long v;

	if (rt_file_ul(text, &v)) {
		rt_file_err(err, errlen, "tracing_on: a number (0: off)");
		return -EINVAL;
	}
	ringtrace_tracing_on(tr, v != 0);
	return 0;
}

/* buffer_size_kb: every cpu buffer's size; "X" when they differ, as
 * tracefs (per_cpu/cpuN/buffer_size_kb is the mount's) */
static int rt_show_buffer_size(struct ringtrace_instance *tr, char *buf,
			       size_t len)
{
	size_t kb = ringtrace_buffer_size_kb_cpu(tr, RINGTRACE_ALL_CPUS);

	return kb ? snprintf(buf, len, "%zu\n", kb) : snprintf(buf, len, "X\n");
}

static int rt_write_buffer_size(struct ringtrace_instance *tr,
				const char *text, char *err, size_t errlen)
{
	unsigned long v;
	int ret = rt_file_ul(text, &v);

	if (!ret && (!v || v > (1ul << 30)))
		ret = -EINVAL;
	if (!ret)
		ret = ringtrace_set_buffer_size_kb_cpu(tr, RINGTRACE_ALL_CPUS,
						       (size_t)v);
	if (ret == -EINVAL)
		rt_file_err(err, errlen,
			    "buffer_size_kb: a size from 1 to 2^30 KiB per cpu buffer");
	else if (ret)
		rt_file_err(err, errlen, "buffer_size_kb %lu: %s", v,
			    strerror(-ret));
	return ret;
}

/* buffer_total_size_kb: the sum of the cpu buffers' sizes */
static int rt_show_total_size(struct ringtrace_instance *tr, char *buf,
			      size_t len)
{
	int n = ringbuf_nr_cpus(ringtrace_buffer(tr));
	size_t kb = 0;

	for (int c = 0; c < n; c++)
		kb += ringtrace_buffer_size_kb_cpu(tr, c);
	return snprintf(buf, len, "%zu\n", kb);
}

/* buffer_percent */
static int rt_show_buffer_percent(struct ringtrace_instance *tr, char *buf,
				  size_t len)
{
	return snprintf(buf, len, "%d\n", ringtrace_buffer_percent(tr));
}

static int rt_write_buffer_percent(struct ringtrace_instance *tr,
				   const char *text, char *err, size_t errlen)
{
	unsigned long v;

	if (rt_file_ul(text, &v) || v > 100 ||
	    ringtrace_set_buffer_percent(tr, (int)v)) {
		rt_file_err(err, errlen, "buffer_percent takes 0 to 100");
		return -EINVAL;
	}
	return 0;
}

/* current_tracer */
static int rt_show_tracer(struct ringtrace_instance *tr, char *buf,
			  size_t len)
{
	return snprintf(buf, len, "%s\n", ringtrace_current_tracer(tr));
}

static int rt_write_tracer(struct ringtrace_instance *tr, const char *text,
			   char *err, size_t errlen)
{
	char name[64];

	if (rt_file_word(text, name, sizeof(name)) ||
	    ringtrace_set_tracer(tr, name)) {
		rt_file_err(err, errlen,
			    "unknown tracer '%.*s' (nop, function, function_graph, usersoff)",
			    rt_file_line(text), text);
		return -EINVAL;
	}
	return 0;
}

/* trace_clock */
static int rt_show_clock(struct ringtrace_instance *tr, char *buf,
			 size_t len)
{
	return (int)ringtrace_show_clock(tr, buf, len);
}

static int rt_write_clock(struct ringtrace_instance *tr, const char *text,
			  char *err, size_t errlen)
{
	char name[64];

	if (rt_file_word(text, name, sizeof(name)) ||
	    ringtrace_set_clock(tr, name)) {
		rt_file_err(err, errlen,
			    "unknown clock '%.*s' (mono, mono_raw, boot, x86-tsc)",
			    rt_file_line(text), text);
		return -EINVAL;
	}
	return 0;
}

/* tracing_cpumask */
static int rt_show_cpumask(struct ringtrace_instance *tr, char *buf,
			   size_t len)
{
	return (int)ringtrace_show_tracing_cpumask(tr, buf, len);
}

static int rt_write_cpumask(struct ringtrace_instance *tr, const char *text,
			    char *err, size_t errlen)
{
	char mask[512];

	if (rt_file_word(text, mask, sizeof(mask)) ||
	    ringtrace_set_tracing_cpumask(tr, mask)) {
		rt_file_err(err, errlen,
			    "tracing_cpumask '%.*s': a hexadecimal mask of the %d cpu buffers",
			    rt_file_line(text), text,
			    ringbuf_nr_cpus(ringtrace_buffer(tr)));
		return -EINVAL;
	}
	return 0;
}

/* buffer_subbuf_size_kb */
static int rt_show_subbuf_size(struct ringtrace_instance *tr, char *buf,
			       size_t len)
{
	return snprintf(buf, len, "%zu\n", ringtrace_subbuf_size_kb(tr));
}

static int rt_write_subbuf_size(struct ringtrace_instance *tr,
				const char *text, char *err, size_t errlen)
{
	unsigned long v;
	int ret = rt_file_ul(text, &v);

	if (!ret)
		ret = ringtrace_set_subbuf_size_kb(tr, v);
	if (ret == -EINVAL)
		rt_file_err(err, errlen,
			    "buffer_subbuf_size_kb: a size from 1 to 512 KiB");
	return ret;
}

/* saved_cmdlines_size: the slots of the process's saved_cmdlines table,
 * a fixed number here (the kernel's can be resized) */
static int rt_show_cmdlines_size(struct ringtrace_instance *tr, char *buf,
				 size_t len)
{
	(void)tr;
	return snprintf(buf, len, "%d\n", RT_CTL_CMDLINES);
}

static int rt_write_cmdlines_size(struct ringtrace_instance *tr,
				  const char *text, char *err, size_t errlen)
{
	unsigned long v;

	(void)tr;
	if (rt_file_ul(text, &v) || v != RT_CTL_CMDLINES) {
		rt_file_err(err, errlen,
			    "saved_cmdlines_size: the table has %d slots, and keeps them",
			    RT_CTL_CMDLINES);
		return -EINVAL;
	}
	return 0;
}

/* printk_formats: the formats trace_bprintk() records by address; the
 * library's ringtrace_printf() records the text: none */
static int rt_show_printk_formats(struct ringtrace_instance *tr, char *buf,
				  size_t len)
{
	(void)tr;
	if (len)
		buf[0] = '\0';
	return 0;
}

/* timestamp_mode: the records' time stamps are deltas from the previous
 * record, with an absolute stamp where a delta does not fit (the kernel
 * turns on "absolute" for histograms of common_timestamp) */
static int rt_show_timestamp_mode(struct ringtrace_instance *tr, char *buf,
				  size_t len)
{
	(void)tr;
	return snprintf(buf, len, "[delta] absolute\n");
}

/* trace_options: every option as "name" or "noname"; a write sets each
 * word, and is refused for the first unknown one (the others are set) */
static int rt_show_trace_options(struct ringtrace_instance *tr, char *buf,
				 size_t len)
{
	return (int)ringtrace_show_options(tr, buf, len);
}

static int rt_write_trace_options(struct ringtrace_instance *tr,
				  const char *text, char *err, size_t errlen)
{
	int ret = 0;

	while (*(text += strspn(text, " \t\n"))) {
		size_t n = strcspn(text, " \t\n");
		char opt[64];

		snprintf(opt, sizeof(opt), "%.*s", (int)n, text);
		if (n >= sizeof(opt) || ringtrace_set_option(tr, opt)) {
			if (!ret)
				rt_file_err(err, errlen, "unknown option '%.*s'",
					    n > 64 ? 64 : (int)n, text);
			ret = -EINVAL;
		}
		text += n;
	}
	return ret;
}

/* tracing_thresh (top only): the usersoff tracer's threshold, in
 * microseconds (0: keep every new maximum) */
static int rt_show_thresh(struct ringtrace_instance *tr, char *buf,
			  size_t len)
{
	/* Relaxed: a value shown, as a read of the file. */
	return snprintf(buf, len, "%llu\n",
			(unsigned long long)atomic_load_explicit(
				&tr->thresh_ns, memory_order_relaxed) / 1000);
}

static int rt_write_thresh(struct ringtrace_instance *tr, const char *text,
			   char *err, size_t errlen)
{
	unsigned long v;

	if (rt_file_ul(text, &v)) {
		rt_file_err(err, errlen, "tracing_thresh: microseconds");
		return -EINVAL;
	}
	ringtrace_set_thresh(tr, v);
	return 0;
}

/* tracing_max_latency: the longest critical section seen, in
 * microseconds; a write sets it (0 rearms) */
static int rt_show_max_latency(struct ringtrace_instance *tr, char *buf,
			       size_t len)
{
	return snprintf(buf, len, "%llu\n",
			(unsigned long long)ringtrace_max_latency(tr));
}

static int rt_write_max_latency(struct ringtrace_instance *tr,
				const char *text, char *err, size_t errlen)
{
	unsigned long v;

	if (rt_file_ul(text, &v)) {
		rt_file_err(err, errlen, "tracing_max_latency: microseconds");
		return -EINVAL;
	}
	ringtrace_set_max_latency(tr, v);
	return 0;
}

/* max_graph_depth (top only): how deep function_graph follows calls (0:
 * no limit) */
static int rt_show_graph_depth(struct ringtrace_instance *tr, char *buf,
			       size_t len)
{
	(void)tr;
	/* Relaxed: as tracing_thresh. */
	return snprintf(buf, len, "%d\n",
			atomic_load_explicit(&rt_max_graph_depth,
					     memory_order_relaxed));
}

static int rt_write_graph_depth(struct ringtrace_instance *tr,
				const char *text, char *err, size_t errlen)
{
	unsigned long v;

	(void)tr;
	if (rt_file_ul(text, &v) || v > INT_MAX) {
		rt_file_err(err, errlen, "max_graph_depth: a depth (0: no limit)");
		return -EINVAL;
	}
	return ringtrace_set_max_graph_depth((int)v);
}

/* eval_map (top only): the enum names TRACE_DEFINE_ENUM() gives the
 * print formats, "NAME VALUE (SYSTEM)"; a TP_printk() here is compiled
 * with its enums' values: none */
static int rt_show_eval_map(struct ringtrace_instance *tr, char *buf,
			    size_t len)
{
	(void)tr;
	if (len)
		buf[0] = '\0';
	return 0;
}

/* available_tracers: the tracers current_tracer takes, the last
 * registered first, as the kernel lists them */
static int rt_show_available_tracers(struct ringtrace_instance *tr,
				     char *buf, size_t len)
{
	size_t n = 0;

	(void)tr;
	for (int t = RT_TRACER_NR - 1; t >= 0; t--) {
		int k = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
				 "%s%c", rt_tracer_name(t), t ? ' ' : '\n');

		n += (size_t)k;
	}
	return (int)n;
}

/*
 * free_buffer (write only): shrink every cpu buffer to its least size,
 * tracing turned off first with disable_on_free.
 * Userspace: the kernel shrinks at the file's release, so that a tracing
 * program that holds the file open frees the buffer even when killed; a
 * library file has no release (no open file reaches the process), so the
 * write frees: 'echo > free_buffer' does the same either way.
 */
static int rt_write_free_buffer(struct ringtrace_instance *tr,
				const char *text, char *err, size_t errlen)
{
	int ret = ringtrace_free_buffer(tr);

	(void)text;
	if (ret)
		rt_file_err(err, errlen, "free_buffer: %s", strerror(-ret));
	return ret;
}

/*
 * set_event_pid, set_event_notrace_pid, set_ftrace_pid and
 * set_ftrace_notrace_pid: the thread-id lists, one id a line. As the
 * kernel's: a write adds its ids to the list, and opening the file with
 * O_TRUNC ('>') empties it first; a word that is not a thread id is
 * -EINVAL and the list stays as it was.
 */
static int rt_show_pid_list(struct ringtrace_instance *tr,
			    enum ringtrace_pid_list list, char *buf, size_t len)
{
	return (int)ringtrace_show_pids(tr, list, buf, len);
}

static int rt_write_pid_list(struct ringtrace_instance *tr,
			     enum ringtrace_pid_list list, const char *text,
			     char *err, size_t errlen)
{
	return ringtrace_set_pids(tr, list, text, true, err, errlen);
}

static int rt_trunc_pid_list(struct ringtrace_instance *tr,
			     enum ringtrace_pid_list list)
{
	return ringtrace_set_pids(tr, list, "", false, NULL, 0);
}

/* The row functions of each list: RT_PID_FILE(event, RINGTRACE_PID_EVENT) */
#define RT_PID_FILE(name, list)						\
	static int rt_show_##name(struct ringtrace_instance *tr, char *buf,\
				  size_t len)				\
	{								\
		return rt_show_pid_list(tr, list, buf, len);		\
	}								\
	static int rt_write_##name(struct ringtrace_instance *tr,	\
				   const char *text, char *err,		\
				   size_t errlen)			\
	{								\
		return rt_write_pid_list(tr, list, text, err, errlen);	\
	}								\
	static int rt_trunc_##name(struct ringtrace_instance *tr)	\
	{								\
		return rt_trunc_pid_list(tr, list);			\
	}
RT_PID_FILE(event_pid, RINGTRACE_PID_EVENT)
RT_PID_FILE(event_notrace_pid, RINGTRACE_PID_EVENT_NOTRACE)
RT_PID_FILE(ftrace_pid, RINGTRACE_PID_FTRACE)
RT_PID_FILE(ftrace_notrace_pid, RINGTRACE_PID_FTRACE_NOTRACE)
#undef RT_PID_FILE

#define RT_PID_ROW(name)						\
	{ "set_" #name, 0644, false, rt_show_##name, rt_write_##name,	\
	  rt_trunc_##name }

/* The table: one row per file, sorted by name. */
static const struct rt_file rt_files[] = {
	{ "available_tracers", 0444, false, rt_show_available_tracers, NULL,
	  NULL },
	{ "buffer_percent", 0644, false, rt_show_buffer_percent,
	  rt_write_buffer_percent, NULL },
	{ "buffer_size_kb", 0644, false, rt_show_buffer_size,
	  rt_write_buffer_size, NULL },
	{ "buffer_subbuf_size_kb", 0644, false, rt_show_subbuf_size,
	  rt_write_subbuf_size, NULL },
	{ "buffer_total_size_kb", 0444, false, rt_show_total_size, NULL,
	  NULL },
	{ "current_tracer", 0644, false, rt_show_tracer, rt_write_tracer,
	  NULL },
	{ "eval_map", 0444, true, rt_show_eval_map, NULL, NULL },
	{ "free_buffer", 0200, false, NULL, rt_write_free_buffer, NULL },
	{ "max_graph_depth", 0644, true, rt_show_graph_depth,
	  rt_write_graph_depth, NULL },
	{ "printk_formats", 0444, true, rt_show_printk_formats, NULL, NULL },
	{ "saved_cmdlines_size", 0644, true, rt_show_cmdlines_size,
	  rt_write_cmdlines_size, NULL },
	RT_PID_ROW(event_notrace_pid),
	RT_PID_ROW(event_pid),
	RT_PID_ROW(ftrace_notrace_pid),
	RT_PID_ROW(ftrace_pid),
	{ "timestamp_mode", 0444, false, rt_show_timestamp_mode, NULL,
	  NULL },
	{ "trace_clock", 0644, false, rt_show_clock, rt_write_clock, NULL },
	{ "trace_options", 0644, false, rt_show_trace_options,
	  rt_write_trace_options, NULL },
	{ "tracing_cpumask", 0644, false, rt_show_cpumask, rt_write_cpumask,
	  NULL },
	{ "tracing_max_latency", 0644, false, rt_show_max_latency,
	  rt_write_max_latency, NULL },
	{ "tracing_on", 0644, false, rt_show_tracing_on, rt_write_tracing_on,
	  NULL },
	{ "tracing_thresh", 0644, true, rt_show_thresh, rt_write_thresh,
	  NULL },
};

#define RT_NR_FILES (sizeof(rt_files) / sizeof(rt_files[0]))

const struct rt_file *rt_file_lookup(const char *name)
{
	for (size_t i = 0; name && i < RT_NR_FILES; i++)
		if (!strcmp(rt_files[i].name, name))
			return &rt_files[i];
	return NULL;
}

const struct rt_file *rt_file_at(size_t i)
{
	return i < RT_NR_FILES ? &rt_files[i] : NULL;
}

const char *ringtrace_file_name(size_t i, unsigned int *mode, bool *top_only)
{
	const struct rt_file *f = rt_file_at(i);

	if (!f)
		return NULL;
	if (mode)
		*mode = f->mode;
	if (top_only)
		*top_only = f->top_only;
	return f->name;
}

/* The row @name of @tr's directory, or NULL (a file the top instance
 * alone has is not an instance's). */
static const struct rt_file *rt_file_of(struct ringtrace_instance *tr,
					const char *name)
{
	const struct rt_file *f = rt_file_lookup(name);

	if (f && f->top_only && tr && tr != ringtrace_top())
		return NULL;
	return f;
}

long ringtrace_file_read(struct ringtrace_instance *tr, const char *name,
			 char *buf, size_t len)
{
	const struct rt_file *f = rt_file_of(tr, name);
	char none;
	int n;

	if (!f)
		return -ENOENT;
	if (!f->show)
		return -EACCES;
	n = f->show(tr ? tr : ringtrace_top(), buf ? buf : &none,
		    buf ? len : 0);
	return n;
}

int ringtrace_file_trunc(struct ringtrace_instance *tr, const char *name)
{
	const struct rt_file *f = rt_file_of(tr, name);

	if (!f)
		return -ENOENT;
	if (!f->write)
		return -EACCES;
	return f->trunc ? f->trunc(tr ? tr : ringtrace_top()) : 0;
}

int ringtrace_file_write(struct ringtrace_instance *tr, const char *name,
			 const char *text, char *err, size_t errlen)
{
	const struct rt_file *f = rt_file_of(tr, name);

	if (err && errlen)
		err[0] = '\0';
	if (!f)
		return -ENOENT;
	if (!f->write || !text)
		return -EACCES;
	return f->write(tr ? tr : ringtrace_top(), text, err, errlen);
}
