// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs.c - a traced process's tracing directory over FUSE (libfuse3)
 *
 * Every path names a node: the top instance's files at the root, an
 * instance's under instances/NAME/, the events tree under events/, the
 * options under options/, the cpu buffers under per_cpu/cpuN/. A file is
 * a row of rtfs_files: its name, its mode, what reading it shows (made
 * at open, into the open file's text: reads then serve that text, as
 * seq_file does), what a write does (each write() is one command to the
 * process, through the same control path the tool's verbs use) and what
 * opening it with O_TRUNC does.
 *
 * trace_pipe is the exception: its reads consume the buffer. One
 * consuming reader per instance and cpu is shared by every open of the
 * file, with the text printed but not yet read kept with it: a reader
 * killed in the middle leaves that text to the next one.
 *
 * The process's exit is watched (a pidfd): trace_pipe readers then get
 * what was left and end of file, commands fail with ENODEV, and the file
 * system unmounts itself once no trace_pipe is open.
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>

#include "client.h"
#include "entries.h"
#include "print.h"
#include "tep.h"
#include "tracedat.h"
#include "tracefs.h"

#define RTFS_ERRLOG_MAX 16 /* entries kept per instance, as the kernel */

/* ---- the state of the mount --------------------------------------------- */

struct rtfs_errlog {
	char inst[64];
	uint64_t ts_ns;
	char loc[64];
	char msg[256];
	char cmd[512];
	int pos;
};

/*
 * The mount's consumer mark on one buffer file (rtt_mark_take(), the
 * tool's mark), shared by all of its readers that consume it
 * (trace_pipe, trace_pipe_raw): a description of the file of its own,
 * which the daemon closing other descriptors of the file (a reader's
 * view freed, a trace read) leaves marked.
 */
struct rtfs_mark {
	dev_t dev;
	ino_t ino;
	int fd;
	int users;
	struct rtfs_mark *next;
};

struct rtfs_pipe {
	char inst[64];
	int cpu; /* RINGBUF_ALL_CPUS for trace_pipe */
	int slot;
	int users;
	uint32_t gen;
	struct ringbuf *rb;
	struct rtfs_mark *mark; /* while a reader has it open */
	struct rt_pipe_state *st;
	struct rt_print_cfg cfg;
	char *pend; /* printed, not yet read */
	size_t plen, poff;
	pthread_mutex_t lock; /* one reader consumes at a time */
	struct fuse_pollhandle *ph; /* a poll() waiting for text (fs.lock) */
	struct rtfs_pipe *next;
};

/* The most files of the library's table the mount shows. */
#define RTFS_MAX_LIB_FILES 64

static struct rtfs {
	int pid;
	const char *dir;
	struct rtt_proc p;
	int nr_cpus; /* buffers: the real CPUs', then the spares */
	int nr_cpu_bufs; /* the real CPUs' */
	uid_t uid;
	gid_t gid;
	struct timespec mounted;
	_Atomic bool dead;
	_Atomic bool stop; /* the loop ended: the watcher returns */
	int wake[2]; /* a pipe: written when stop is set, the watcher's poll */
	struct fuse *fuse;

	pthread_mutex_t lock; /* errlog, pipes, events cache */
	struct rtfs_errlog errlog[RTFS_ERRLOG_MAX];
	int nr_err, next_err;
	/* the top error_log was last cleared then: the process's call site
	 * errors from before are not shown */
	uint64_t site_err_cleared;
	struct rtfs_pipe *pipes;
	int pipes_open;
	struct rtfs_fh *fhs; /* open files */
	struct rtfs_mark *marks; /* under mark_lock */
	pthread_mutex_t mark_lock;
	/* the hist files a poll() waits on (their hist_ph set) */
	pthread_mutex_t hist_lock;
	struct rtfs_fh *hist_polls;

	/* printing: libtraceevent and the printer are not thread-safe */
	pthread_mutex_t print_lock;
	struct rtt_events *ev;
	struct rtt_syms *syms;
	uint32_t ev_gen;
	size_t ev_live; /* fs.ev's first ev_live events are registered now;
			 * the others are kept for their records */
	bool syms_loaded;
	struct rtt_print_ctx ctx;
	struct rt_printer_ops ops;
} fs = {
	.wake = { -1, -1 },
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.print_lock = PTHREAD_MUTEX_INITIALIZER,
	.mark_lock = PTHREAD_MUTEX_INITIALIZER,
	.hist_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* The SIGINT, SIGTERM or SIGHUP that came (rtfs_on_end()), 0 before: the
 * loop is ending, and a request that waits gives up (libfuse waits for
 * its workers). Relaxed: a flag the request threads poll; nothing else is
 * published with it (the loop's end is fuse_exit()'s). An atomic, not a
 * sig_atomic_t: the handler runs on one thread, the readers on others. */
static _Atomic int rtfs_signalled;
#define RTFS_SIGNALLED() \
	atomic_load_explicit(&rtfs_signalled, memory_order_relaxed)

/* A trace being made for a reader that was interrupted, or while the
 * daemon ends, is given up (-EINTR). */
static bool rtfs_print_stop(void *ctx)
{
	(void)ctx;
	return fuse_interrupted() || RTFS_SIGNALLED();
}

static bool rtfs_dead(void)
{
	/* Relaxed: a flag polled by readers; what it stands for (the
	 * process is gone) is checked again by every command. */
	return atomic_load_explicit(&fs.dead, memory_order_relaxed);
}

/* ---- commands ----------------------------------------------------------- */

/* The name of an instance in the error log: "-" for the top one. */
static const char *rtfs_iarg(const char *inst)
{
	return inst && *inst ? inst : "-";
}

/* The directory of buffer @cpu under per_cpu/: cpuN for a real CPU's,
 * spareN for spare N (a spare is no CPU's). */
static void rtfs_cpu_name(int cpu, char *buf, size_t len)
{
	if (cpu >= fs.nr_cpu_bufs)
		snprintf(buf, len, "spare%d", cpu - fs.nr_cpu_bufs);
	else
		snprintf(buf, len, "cpu%d", cpu);
}

/* A command to the process; its reply text (or error) in *@reply when
 * not NULL. The errno a file operation returns. */
static int rtfs_cmd(char **reply, char err[RTT_ERR_MAX],
		    const struct rt_cmd_args *c)
{
	char e[RTT_ERR_MAX];
	int ret;

	if (reply)
		*reply = NULL;
	if (rtfs_dead())
		return -ENODEV;
	ret = rtt_call(&fs.p, RTT_CMD_TIMEOUT_MS, c, reply, err ? err : e);
	if (ret == -ESRCH || ret == -ETIMEDOUT) {
		if (ret == -ESRCH || rtt_proc_state(&fs.p) != RTT_ALIVE)
			return -ENODEV;
	}
	return ret;
}

/* ---- events (cached, reloaded when the process registers more) ---------- */

/* Under print_lock. */
static void rtfs_refresh_events(void)
{
	char err[RTT_ERR_MAX], *text;
	struct rtt_events *ev;
	uint32_t gen = rtt_ctl_gen(&fs.p);
	size_t len;

	if (fs.ev && gen == fs.ev_gen)
		return;
	if (rtt_events_text(&fs.p, &text, &len, err))
		return;
	ev = rtt_events_new();
	if (!ev) {
		free(text);
		return;
	}
	if (rtt_events_parse_file(ev, text, err, sizeof(err))) {
		free(text);
		rtt_events_free(ev);
		return;
	}
	free(text);
	fs.ev_live = ev->nr;
	if (fs.ev)
		rtt_events_keep(ev, fs.ev); /* records of gone events */
	rtt_events_set_syms(ev, fs.syms);
	rtt_events_free(fs.ev);
	fs.ev = ev;
	fs.ev_gen = gen;
	fs.ctx.ev = ev;
	fs.syms_loaded = false;
}

/* The symbols, for the function tracers' records. Under print_lock. */
static void rtfs_refresh_syms(void)
{
	char err[RTT_ERR_MAX], *text = NULL;
	struct rtt_syms *syms = NULL;
	size_t len;

	if (fs.syms_loaded || rtfs_dead())
		return;
	if (rtt_syms_text(&fs.p, &text, &len, err) || !text)
		return;
	if (!rtt_syms_parse(text, &syms)) {
		rtt_syms_free(fs.syms);
		fs.syms = syms;
		fs.ctx.syms = syms;
		if (fs.ev)
			rtt_events_set_syms(fs.ev, syms);
		fs.syms_loaded = true;
	}
	free(text);
}

/* The tracer's own records (ftrace:*): they have formats and ids, but
 * are not events one enables or filters. As in the kernel, they are not
 * in available_events, and events/ftrace/NAME/ holds only their format
 * and id. */
static bool rtfs_internal(const struct rtt_event *e)
{
	return !strcmp(e->system, "ftrace");
}

static bool rtfs_internal_sys(const char *sys)
{
	return !strcmp(sys, "ftrace");
}

/* ftrace:print, the marker records, takes triggers (trace_marker writes
 * run them), as the kernel's events/ftrace/print/trigger. */
static bool rtfs_has_trigger(const char *sys, const char *ev)
{
	return !rtfs_internal_sys(sys) || !strcmp(ev, "print");
}

/* Is there an event SYS:NAME (NAME NULL: any event of SYS), the
 * tracer's own records included? */
static bool rtfs_event_exists(const char *sys, const char *name)
{
	bool found = false;
	size_t i;

	pthread_mutex_lock(&fs.print_lock);
	rtfs_refresh_events();
	for (i = 0; fs.ev && i < fs.ev_live && !found; i++)
		found = !strcmp(fs.ev->v[i].system, sys) &&
			(!name || !strcmp(fs.ev->v[i].name, name));
	pthread_mutex_unlock(&fs.print_lock);
	return found;
}

/* ---- error_log ---------------------------------------------------------- */

static uint64_t rtfs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void rtfs_log_err(const char *inst, const char *loc, const char *msg,
			 const char *cmd, int pos)
{
	struct rtfs_errlog *e;

	pthread_mutex_lock(&fs.lock);
	e = &fs.errlog[fs.next_err];
	fs.next_err = (fs.next_err + 1) % RTFS_ERRLOG_MAX;
	if (fs.nr_err < RTFS_ERRLOG_MAX)
		fs.nr_err++;
	snprintf(e->inst, sizeof(e->inst), "%s", rtfs_iarg(inst));
	e->ts_ns = rtfs_now_ns();
	snprintf(e->loc, sizeof(e->loc), "%s", loc);
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
	snprintf(e->cmd, sizeof(e->cmd), "%s", cmd);
	e->pos = pos;
	pthread_mutex_unlock(&fs.lock);
}

/*
 * A filter the process refused: its report is the expression, a line
 * with the caret under the error, and "parse_error: MESSAGE". Logged as
 * the kernel logs it.
 */
static void rtfs_log_filter_err(const char *inst, const char *expr,
				const char *report)
{
	const char *caret = strchr(report, '\n'), *msg;
	char text[256];
	int pos = 0;

	if (caret) {
		caret++;
		while (caret[pos] == ' ')
			pos++;
		if (caret[pos] != '^')
			pos = 0;
	}
	msg = strstr(report, "parse_error: ");
	msg = msg ? msg + strlen("parse_error: ") : report;
	snprintf(text, sizeof(text), "%.*s", (int)strcspn(msg, "\n"), msg);
	rtfs_log_err(inst, "event filter parse error", text, expr, pos);
}

/* ---- the open files ----------------------------------------------------- */

struct rtfs_node;

struct rtfs_file_ops {
	const char *name;
	mode_t mode;
	bool top_only;
	int (*show)(const struct rtfs_node *n, FILE *out);
	int (*write)(const struct rtfs_node *n, char *buf);
	int (*trunc)(const struct rtfs_node *n);
};

/* The files of the process's own table (file_ls), read at mount. */
static struct {
	struct rtfs_file_ops f[RTFS_MAX_LIB_FILES];
	char names[RTFS_MAX_LIB_FILES][64];
	int nr;
} rtfs_lib;

enum rtfs_kind {
	RTFS_DIR_INST,	  /* the root, or instances/NAME */
	RTFS_DIR_INSTANCES,
	RTFS_DIR_EVENTS,
	RTFS_DIR_SYS,
	RTFS_DIR_EVENT,
	RTFS_DIR_OPTIONS,
	RTFS_DIR_PER_CPU,
	RTFS_DIR_CPU,
	RTFS_FILE,
};

struct rtfs_node {
	enum rtfs_kind kind;
	char inst[64]; /* "" for the top instance */
	char sys[128];
	char ev[128];
	char opt[64];
	int cpu;
	const struct rtfs_file_ops *f;
};

/* What an open file keeps. */
struct rtfs_fh {
	struct rtfs_node n;
	char *text;
	size_t len;
	struct rtfs_pipe *pipe;
	/* trace_pipe_raw: its own consuming reader, the page being read */
	struct ringbuf *raw;
	struct rtfs_mark *raw_mark;
	uint32_t raw_gen;
	int raw_slot;
	void *page;
	size_t page_len, page_off;
	pthread_mutex_t raw_lock;
	/* events/SYS/EVENT/hist: its counts when it was read (the open's
	 * text) and when poll() last reported POLLPRI, as the kernel's
	 * hist_file_data; a poll() waiting (fs.hist_lock) */
	uint64_t hist_read, hist_act;
	struct fuse_pollhandle *hist_ph;
	struct rtfs_fh *hist_next;
	/* the open files (fs.fhs, under fs.lock): the ones still open when
	 * the daemon ends (SIGTERM) are freed then */
	struct rtfs_fh *prev, *next;
};

/* Each writes a command's reply (or its own text) to @out. */
static int rtfs_show_reply(FILE *out, const struct rt_cmd_args *c)
{
	char *reply = NULL;
	int ret;

	ret = rtfs_cmd(&reply, NULL, c);
	if (!ret && reply) {
		fputs(reply, out);
		if (reply[0] && reply[strlen(reply) - 1] != '\n')
			fputc('\n', out);
	}
	free(reply);
	return ret;
}

/* Parse a number written to a file: 0 or -EINVAL. */
static int rtfs_parse_ul(const char *s, unsigned long *v)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10); /* decimal, as the kernel's kstrtoul(.., 10) */
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	return errno || *end ? -EINVAL : 0;
}

static void rtfs_chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

static int rtfs_show_text(const struct rtfs_node *n, FILE *out)
{
	(void)n;
	(void)out;
	return 0;
}

static int rtfs_write_ignore(const struct rtfs_node *n, char *buf)
{
	(void)n;
	(void)buf;
	return 0;
}

static int rtfs_trunc_none(const struct rtfs_node *n)
{
	(void)n;
	return 0;
}

/* available_events */
static int rtfs_show_available_events(const struct rtfs_node *n, FILE *out)
{
	size_t i;

	(void)n;
	pthread_mutex_lock(&fs.print_lock);
	rtfs_refresh_events();
	for (i = 0; fs.ev && i < fs.ev_live; i++)
		if (!rtfs_internal(&fs.ev->v[i]))
			fprintf(out, "%s:%s\n", fs.ev->v[i].system,
				fs.ev->v[i].name);
	pthread_mutex_unlock(&fs.print_lock);
	return 0;
}

/* set_event */
static int rtfs_show_set_event(const struct rtfs_node *n, FILE *out)
{
	char *reply = NULL;
	int ret = rtfs_cmd(&reply, NULL, &RT_CALL(SHOW_SET_EVENT, n->inst));

	if (!ret && reply)
		fputs(reply, out);
	free(reply);
	return ret;
}

static int rtfs_write_set_event(const struct rtfs_node *n, char *buf)
{
	char *save = NULL, *tok;
	int ret = 0, r;

	for (tok = strtok_r(buf, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		r = rtfs_cmd(NULL, NULL,
			     &RT_CALL(SET_EVENT, n->inst, RT_S(0, tok)));
		/* the kernel: no event matched is EINVAL */
		if (r == -ENOENT)
			r = -EINVAL;
		if (r && !ret)
			ret = r;
	}
	return ret;
}

static int rtfs_trunc_set_event(const struct rtfs_node *n)
{
	int ret = rtfs_cmd(NULL, NULL,
			   &RT_CALL(SET_EVENT, n->inst, RT_S(0, "!*:*")));

	return ret == -ENOENT ? 0 : ret; /* no events at all */
}

/* enable at the top of events/, of a system, of an event */
static int rtfs_show_enable(const struct rtfs_node *n, FILE *out)
{
	char *reply = NULL, *line, *save = NULL;
	size_t i, total = 0, on = 0;
	int ret;

	ret = rtfs_cmd(&reply, NULL, &RT_CALL(SHOW_SET_EVENT, n->inst));
	if (ret)
		return ret;
	pthread_mutex_lock(&fs.print_lock);
	rtfs_refresh_events();
	for (i = 0; fs.ev && i < fs.ev->nr; i++) {
		const struct rtt_event *e = &fs.ev->v[i];

		if ((n->sys[0] && strcmp(e->system, n->sys)) ||
		    (n->ev[0] && strcmp(e->name, n->ev)) || rtfs_internal(e))
			continue;
		total++;
	}
	pthread_mutex_unlock(&fs.print_lock);
	for (line = reply ? strtok_r(reply, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		if ((n->sys[0] && strcmp(line, n->sys)) ||
		    (n->ev[0] && strcmp(colon + 1, n->ev)))
			continue;
		on++;
	}
	free(reply);
	fputs(!on ? "0" : on >= total ? "1" : "X", out);
	/* an event armed by a trigger: '*', as the kernel's soft mode */
	reply = NULL;
	if (n->ev[0] &&
	    !rtfs_cmd(&reply, NULL, &RT_CALL(SHOW_SOFT, n->inst)) && reply) {
		char want[300];

		snprintf(want, sizeof(want), "\n%s:%s\n", n->sys, n->ev);
		if (!strncmp(reply, want + 1, strlen(want + 1)) ||
		    strstr(reply, want))
			fputc('*', out);
	}
	free(reply);
	fputc('\n', out);
	return 0;
}

static int rtfs_write_enable(const struct rtfs_node *n, char *buf)
{
	unsigned long v;
	int ret;

	if (rtfs_parse_ul(buf, &v) || v > 1)
		return -EINVAL;
	ret = rtfs_cmd(NULL, NULL,
		       &RT_CALL_ID(v ? RT_CMD_ENABLE : RT_CMD_DISABLE, n->inst,
				   RT_S(0, n->sys[0] ? n->sys : NULL),
				   RT_S(1, n->ev[0] ? n->ev : NULL)));
	return ret == -ENOENT && !n->sys[0] ? 0 : ret;
}

/* filter of an event or of a system */
static int rtfs_show_filter(const struct rtfs_node *n, FILE *out)
{
	if (!n->ev[0]) {
		/* the kernel keeps no filter text for a system: the file
		 * shows what it is for (the events' filter files show the
		 * filter a write to it set) */
		fputs("### global filter ###\n"
		      "# Use this to set filters for multiple events.\n"
		      "# Only events with the given fields will be affected.\n"
		      "# If no events are modified, an error message will be displayed here\n",
		      out);
		return 0;
	}
	return n->ev[0] ? rtfs_show_reply(out, &RT_CALL(SHOW_FILTER, n->inst,
							RT_S(0, n->sys),
							RT_S(1, n->ev))) :
			  rtfs_show_reply(out, &RT_CALL(SHOW_FILTER, n->inst,
							RT_S(0, n->sys)));
}

static int rtfs_write_filter(const struct rtfs_node *n, char *buf)
{
	char err[RTT_ERR_MAX];
	int ret;

	rtfs_chomp(buf);
	if (!buf[0])
		snprintf(buf, 2, "0");
	ret = rtfs_cmd(NULL, err,
		       &RT_CALL(FILTER, n->inst, RT_S(0, n->sys),
				RT_S(1, n->ev[0] ? n->ev : NULL),
				RT_S(2, buf)));
	if (ret == -EINVAL && strstr(err, "parse_error"))
		rtfs_log_filter_err(n->inst, buf, err);
	else if (ret == -EINVAL)
		rtfs_log_err(n->inst, "event filter parse error", err, buf, 0);
	return ret;
}

/* events/SYS/EVENT/trigger */
static int rtfs_show_trigger(const struct rtfs_node *n, FILE *out)
{
	return rtfs_show_reply(out, &RT_CALL(SHOW_TRIGGER, n->inst,
					     RT_S(0, n->sys), RT_S(1, n->ev)));
}

static bool rtfs_log_kernel_err(const char *inst, const char *report);

/* synthetic_events: one line, one event (the process's) */
static int rtfs_show_synth(const struct rtfs_node *n, FILE *out)
{
	(void)n;
	return rtfs_show_reply(out, &RT_CALL(SHOW_SYNTH, NULL));
}

static int rtfs_write_synth(const struct rtfs_node *n, char *buf)
{
	char err[RTT_ERR_MAX], *line, *save = NULL;
	int ret = 0, r;

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!line[strspn(line, " \t")])
			continue;
		r = rtfs_cmd(NULL, err, &RT_CALL(SYNTH, NULL, RT_S(0, line)));
		if (r && !rtfs_log_kernel_err(n->inst, err) && r == -EINVAL)
			rtfs_log_err(n->inst, "synthetic_events", err, line, 0);
		if (r && !ret)
			ret = r;
	}
	return ret;
}

/*
 * dynamic_events: of the kernel's dynamic events, the synthetic ones
 * ("s:[synthetic/]NAME FIELDS", "-:[synthetic/]NAME"); a process has no
 * probes
 */
static int rtfs_show_dyn(const struct rtfs_node *n, FILE *out)
{
	char *reply = NULL, *line, *save = NULL;
	int ret = rtfs_cmd(&reply, NULL, &RT_CALL(SHOW_SYNTH, NULL));

	(void)n;
	for (line = ret || !reply ? NULL : strtok_r(reply, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t l = strcspn(line, "\t");

		fprintf(out, "s:synthetic/%.*s %s\n", (int)l, line,
			line[l] ? line + l + 1 : "");
	}
	free(reply);
	return ret;
}

static int rtfs_write_dyn(const struct rtfs_node *n, char *buf)
{
	char err[RTT_ERR_MAX], cmd[4096], *line, *save = NULL, *name;
	int ret = 0, r;

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (!*line)
			continue;
		if ((line[0] != 's' && line[0] != '-') || line[1] != ':') {
			r = -EINVAL; /* no probes here */
		} else {
			name = line + 2;
			if (strchr(name, '/') &&
			    strchr(name, '/') < name + strcspn(name, " \t")) {
				if (strncmp(name, "synthetic/", 10)) {
					rtfs_log_err(n->inst, "synthetic_events",
						     "Command must be of the form: s or -:[synthetic/]<name> field[;field] ...",
						     line, 0);
					r = -EINVAL;
					goto next;
				}
				name += 10;
			}
			snprintf(cmd, sizeof(cmd), "%s%s",
				 line[0] == '-' ? "!" : "", name);
			r = rtfs_cmd(NULL, err, &RT_CALL(SYNTH, NULL, RT_S(0, cmd)));
			if (r && !rtfs_log_kernel_err(n->inst, err) &&
			    r == -EINVAL)
				rtfs_log_err(n->inst, "synthetic_events", err,
					     line, 0);
		}
next:
		if (r && !ret)
			ret = r;
	}
	return ret;
}

static int rtfs_trunc_synth(const struct rtfs_node *n)
{
	(void)n;
	return rtfs_cmd(NULL, NULL, &RT_CALL(SYNTH_CLEAR, NULL));
}

/* events/SYS/EVENT/hist */
static int rtfs_show_hist(const struct rtfs_node *n, FILE *out)
{
	return rtfs_show_reply(out, &RT_CALL(SHOW_HIST, n->inst,
					     RT_S(0, n->sys), RT_S(1, n->ev)));
}

/*
 * A line the process refused with the kernel's error log entry as its
 * report, "LOC: error: MESSAGE", "  Command: COMMAND" and the caret line
 * (hist triggers, synthetic events). Logged as the kernel logs it.
 * Return: false for another report.
 */
static bool rtfs_log_kernel_err(const char *inst, const char *report)
{
	const char *msg = strstr(report, ": error: "), *cmd, *caret;
	char loc[128], text[256], command[4096];
	int pos = 0;

	if (!msg || strchr(report, '\n') < msg)
		return false;
	cmd = strstr(msg, "\n  Command: ");
	if (!cmd)
		return false;
	caret = strchr(cmd + 1, '\n');
	snprintf(loc, sizeof(loc), "%.*s", (int)(msg - report), report);
	msg += strlen(": error: ");
	snprintf(text, sizeof(text), "%.*s", (int)(cmd - msg), msg);
	cmd += strlen("\n  Command: ");
	snprintf(command, sizeof(command), "%.*s",
		 (int)(caret ? caret - cmd : (long)strlen(cmd)), cmd);
	if (caret) {
		caret++;
		while (caret[pos] == ' ')
			pos++;
		pos = caret[pos] == '^' && pos >= 11 ? pos - 11 : 0;
	}
	rtfs_log_err(inst, loc, text, command, pos);
	return true;
}

static int rtfs_write_trigger(const struct rtfs_node *n, char *buf)
{
	char err[RTT_ERR_MAX];
	const char *expr;
	int ret;

	rtfs_chomp(buf);
	if (!buf[strspn(buf, " \t\n")])
		return 0; /* echo > trigger: nothing to do, as the kernel */
	ret = rtfs_cmd(NULL, err,
		       &RT_CALL(TRIGGER, n->inst, RT_S(0, n->sys),
				RT_S(1, n->ev), RT_S(2, buf)));
	/* a filter error: the caret is under the filter after "if" */
	expr = strstr(buf, " if ");
	expr = expr ? expr + 4 + strspn(expr + 4, " \t") : buf;
	if (ret && rtfs_log_kernel_err(n->inst, err))
		return ret;
	if (ret == -EINVAL && strstr(err, "parse_error"))
		rtfs_log_filter_err(n->inst, expr, err);
	else if (ret == -EINVAL)
		rtfs_log_err(n->inst, "event trigger parse error", err, buf, 0);
	return ret;
}

static int rtfs_show_format(const struct rtfs_node *n, FILE *out)
{
	size_t i;

	pthread_mutex_lock(&fs.print_lock);
	rtfs_refresh_events();
	for (i = 0; fs.ev && i < fs.ev->nr; i++)
		if (!strcmp(fs.ev->v[i].system, n->sys) &&
		    !strcmp(fs.ev->v[i].name, n->ev)) {
			const char *f = fs.ev->v[i].format;

			fputs(f, out);
			if (f[0] && f[strlen(f) - 1] != '\n')
				fputc('\n', out);
			break;
		}
	pthread_mutex_unlock(&fs.print_lock);
	return 0;
}

static int rtfs_show_id(const struct rtfs_node *n, FILE *out)
{
	size_t i;

	pthread_mutex_lock(&fs.print_lock);
	rtfs_refresh_events();
	for (i = 0; fs.ev && i < fs.ev->nr; i++)
		if (!strcmp(fs.ev->v[i].system, n->sys) &&
		    !strcmp(fs.ev->v[i].name, n->ev)) {
			fprintf(out, "%d\n", fs.ev->v[i].id);
			break;
		}
	pthread_mutex_unlock(&fs.print_lock);
	return 0;
}

/* per_cpu/cpuN/buffer_size_kb: that cpu buffer alone (the top
 * buffer_size_kb, the library's, then reads "X", as the kernel's) */
static int rtfs_write_buffer_size(const struct rtfs_node *n, char *buf)
{
	unsigned long v;

	if (rtfs_parse_ul(buf, &v) || !v || v > (1ul << 30))
		return -EINVAL;
	return rtfs_cmd(NULL, NULL,
			&RT_CALL(BUFFER_SIZE_KB, n->inst, RT_U(0, v),
				 RT_U(1, (unsigned int)n->cpu)));
}

/* The size of cpu buffer @cpu, in kB. */
static int rtfs_cpu_size_kb(const struct rtfs_node *n, int cpu,
			    unsigned long *kb)
{
	char *reply = NULL, *p;
	int ret = rtfs_cmd(&reply, NULL,
			   &RT_CALL(GET, n->inst,
				    RT_S(0, "per_cpu_buffer_size_kb")));

	*kb = 0;
	p = reply;
	for (int c = 0; !ret && p && *p; c++) {
		unsigned long v = strtoul(p, &p, 10);

		if (cpu == c)
			*kb += v;
		p += strspn(p, "\n");
	}
	free(reply);
	return ret;
}

static int rtfs_show_cpu_size(const struct rtfs_node *n, FILE *out)
{
	unsigned long kb;
	int ret = rtfs_cpu_size_kb(n, n->cpu, &kb);

	if (!ret)
		fprintf(out, "%lu\n", kb);
	return ret;
}

/* The sub-buffer size of @n's instance, from its live buffer: 0 or a
 * negative errno. */
static int rtfs_subbuf_size(const struct rtfs_node *n, size_t *size)
{
	char err[RTT_ERR_MAX];
	struct ringbuf *rb;
	int slot = rtt_inst_find(&fs.p, n->inst), ret;

	if (slot < 0)
		return -ENOENT;
	ret = rtt_attach(&fs.p, slot, false, 0, NULL, &rb, err);
	if (ret)
		return ret;
	*size = ringbuf_subbuf_size(rb);
	ringbuf_free(rb);
	return 0;
}

/* events/header_page: the page header of the instance's sub-buffers, in
 * the text trace.dat files carry (libtraceevent and libtracefs parse it) */
static int rtfs_show_header_page(const struct rtfs_node *n, FILE *out)
{
	size_t size;
	int ret = rtfs_subbuf_size(n, &size);

	if (!ret)
		fputs(td_default_header_page((unsigned int)size), out);
	return ret;
}

/* events/header_event: the record header, the kernel's */
static int rtfs_show_header_event(const struct rtfs_node *n, FILE *out)
{
	(void)n;
	fputs(td_default_header_event(), out);
	return 0;
}

/* options/NAME (trace_options is the library's) */
static int rtfs_show_option(const struct rtfs_node *n, FILE *out)
{
	char *reply = NULL, *line, *save = NULL;
	int ret = rtfs_cmd(&reply, NULL,
			   &RT_CALL(FILE_READ, n->inst,
				    RT_S(0, "trace_options")));

	if (ret)
		return ret;
	ret = -ENOENT;
	for (line = reply ? strtok_r(reply, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(line, n->opt)) {
			fputs("1\n", out);
			ret = 0;
		} else if (!strncmp(line, "no", 2) && !strcmp(line + 2, n->opt)) {
			fputs("0\n", out);
			ret = 0;
		}
	}
	free(reply);
	return ret;
}

static int rtfs_write_option(const struct rtfs_node *n, char *buf)
{
	unsigned long v;

	if (rtfs_parse_ul(buf, &v) || v > 1)
		return -EINVAL;
	char opt[sizeof(n->opt) + 2];

	snprintf(opt, sizeof(opt), "%s%s", v ? "" : "no", n->opt);
	return rtfs_cmd(NULL, NULL, &RT_CALL(FILE_WRITE, n->inst,
					     RT_S(0, "trace_options"),
					     RT_S(1, opt)));
}

/* trace and snapshot: the buffer printed with its header */
static void rtfs_get_cfg(const char *inst, struct rt_print_cfg *cfg)
{
	char *reply = NULL;
	unsigned long long opts;
	int tracer;

	memset(cfg, 0, sizeof(*cfg));
	if (!rtfs_cmd(&reply, NULL, &RT_CALL(GET, inst, RT_S(0, "print_cfg"))) &&
	    reply && sscanf(reply, "%llx %d", &opts, &tracer) == 2) {
		cfg->opts = opts;
		cfg->tracer = tracer;
	}
	free(reply);
}

static int rtfs_print_view_cpu(const struct rtfs_node *n, int cpu, bool snap,
			       FILE *out);

/* What the kernel shows in place of an empty (or freed) snapshot. */
static void rtfs_snapshot_help(const struct rtfs_node *n, bool allocated,
			       FILE *out)
{
	char *tracer = NULL;

	if (rtfs_cmd(&tracer, NULL, &RT_CALL(FILE_READ, n->inst,
					     RT_S(0, "current_tracer"))) ||
	    !tracer)
		fputs("# tracer: nop\n", out);
	else
		fprintf(out, "# tracer: %.*s\n", (int)strcspn(tracer, "\n"),
			tracer);
	free(tracer);
	fprintf(out, "#\n#\n# * Snapshot is %s *\n#\n",
		allocated ? "allocated" : "freed");
	fputs("# Snapshot commands:\n"
	      "# echo 0 > snapshot : Clears and frees snapshot buffer\n"
	      "# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
	      "#                      Takes a snapshot of the main buffer.\n"
	      "# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
	      "#                      (Doesn't have to be a full snapshot buffer)\n",
	      out);
}

static int rtfs_print_view(const struct rtfs_node *n, bool snap, FILE *out)
{
	return rtfs_print_view_cpu(n, RINGBUF_ALL_CPUS, snap, out);
}

static int rtfs_print_view_cpu(const struct rtfs_node *n, int cpu, bool snap,
			       FILE *out)
{
	char err[RTT_ERR_MAX];
	struct rt_print_cfg cfg;
	struct ringbuf *rb;
	int slot, ret;

	slot = rtt_inst_find(&fs.p, n->inst);
	if (slot < 0)
		return -ENOENT;
	rtfs_get_cfg(n->inst, &cfg);
	ret = rtt_attach(&fs.p, slot, snap, 0, NULL, &rb, err);
	if (ret == -ENOENT && snap) {
		rtfs_snapshot_help(n, false, out);
		return 0;
	}
	if (ret)
		return ret;
	if (snap && ringbuf_empty(rb)) {
		/* the kernel: an empty snapshot shows its commands */
		ringbuf_free(rb);
		rtfs_snapshot_help(n, true, out);
		return 0;
	}
	pthread_mutex_lock(&fs.print_lock);
	rtfs_refresh_events();
	rtfs_refresh_syms();
	ret = fs.ev ? rt_print_view_cpu(rb, cpu, &cfg, &fs.ops, out) : -ENODEV;
	pthread_mutex_unlock(&fs.print_lock);
	ringbuf_free(rb);
	return ret;
}

static int rtfs_show_trace(const struct rtfs_node *n, FILE *out)
{
	return rtfs_print_view(n, false, out);
}

static int rtfs_trunc_trace(const struct rtfs_node *n)
{
	return rtfs_cmd(NULL, NULL, &RT_CALL(CLEAR, n->inst));
}

/* per_cpu/cpuN/trace: that cpu buffer alone; O_TRUNC empties it alone */
static int rtfs_show_cpu_trace(const struct rtfs_node *n, FILE *out)
{
	return rtfs_print_view_cpu(n, n->cpu, false, out);
}

static int rtfs_trunc_cpu_trace(const struct rtfs_node *n)
{
	return rtfs_cmd(NULL, NULL,
			&RT_CALL(CLEAR, n->inst, RT_U(0, (unsigned int)n->cpu)));
}

static int rtfs_show_snapshot(const struct rtfs_node *n, FILE *out)
{
	return rtfs_print_view(n, true, out);
}

static int rtfs_write_snapshot(const struct rtfs_node *n, char *buf)
{
	unsigned long v;

	if (rtfs_parse_ul(buf, &v))
		return -EINVAL;
	return rtfs_cmd(NULL, NULL,
			&RT_CALL(SNAPSHOT, n->inst, RT_I(0, v > 2 ? 2 : (int)v)));
}

/*
 * A marker command: "VERB_as INST PID ARG", the record carrying the
 * writer's thread id (what the kernel records), or, when the writer is
 * not known or the process's library has no such command, "VERB INST
 * ARG" (the process's control thread's id).
 */
static int rtfs_marker_cmd(const struct rtfs_node *n, enum rt_cmd_id id,
			   enum rt_cmd_id id_as, const char *arg)
{
	struct fuse_context *ctx = fuse_get_context();
	char err[RTT_ERR_MAX];
	int ret = -EINVAL;

	err[0] = '\0';
	if (ctx && ctx->pid > 0)
		ret = rtfs_cmd(NULL, err,
			       &RT_CALL_ID(id_as, n->inst,
					   RT_U(0, (unsigned int)ctx->pid),
					   RT_S(1, arg)));
	if (!ctx || ctx->pid <= 0 || strstr(err, "unknown command"))
		ret = rtfs_cmd(NULL, NULL, &RT_CALL_ID(id, n->inst, RT_S(0, arg)));
	return ret == -ENOSPC ? -EBADF : ret; /* tracing off: as the kernel */
}

/* The kernel's TRACE_MARKER_MAX_SIZE: the longest trace_marker write. */
#define RTFS_MARKER_MAX 4096

/* The longest marker text @n's instance takes in one record, or 0. */
static size_t rtfs_marker_max(const struct rtfs_node *n)
{
	char err[RTT_ERR_MAX];
	struct ringbuf *rb;
	int slot = rtt_inst_find(&fs.p, n->inst);
	size_t max;

	if (slot < 0 || rtt_attach(&fs.p, slot, false, 0, NULL, &rb, err))
		return 0;
	max = rt_marker_max_len(ringbuf_max_event_size(rb));
	ringbuf_free(rb);
	return max;
}

static int rtfs_write_marker(const struct rtfs_node *n, char *buf)
{
	/* one line per command: the process records the rest of it */
	buf[strcspn(buf, "\n")] = '\0';
	return rtfs_marker_cmd(n, RT_CMD_MARKER, RT_CMD_MARKER_AS, buf);
}

/* trace_marker_raw: binary, so the write is sent as hexadecimal */
static int rtfs_write_marker_raw(const struct rtfs_node *n, char *buf)
{
	(void)n;
	(void)buf;
	return -EINVAL; /* rtfs_write() calls rtfs_marker_raw() instead */
}

static int rtfs_marker_raw(const struct rtfs_node *n, const char *buf,
			   size_t size)
{
	static const char hex[] = "0123456789abcdef";
	char *text;
	size_t i;
	int ret;

	if (size < sizeof(unsigned int))
		return -EINVAL; /* no id: as the kernel */
	text = malloc(2 * size + 1);
	if (!text)
		return -ENOMEM;
	for (i = 0; i < size; i++) {
		text[2 * i] = hex[(unsigned char)buf[i] >> 4];
		text[2 * i + 1] = hex[(unsigned char)buf[i] & 15];
	}
	text[2 * size] = '\0';
	ret = rtfs_marker_cmd(n, RT_CMD_MARKER_RAW, RT_CMD_MARKER_RAW_AS, text);
	free(text);
	return ret;
}

/* error_log */
static void rtfs_print_err(FILE *out, const struct rtfs_errlog *e)
{
	fprintf(out, "[%5" PRIu64 ".%06" PRIu64 "] %s: error: %s\n",
		e->ts_ns / 1000000000u, (e->ts_ns % 1000000000u) / 1000u,
		e->loc, e->msg);
	fprintf(out, "  Command: %s\n", e->cmd);
	fprintf(out, "%*s^\n", (int)strlen("  Command: ") + e->pos, "");
}

/*
 * The process's call sites that could not be patched (left alone), as
 * error_log entries of the top instance, location "ftrace", the site as
 * the command: at most RTFS_ERRLOG_MAX, into @v. Return how many.
 */
static int rtfs_site_errors(struct rtfs_errlog *v, uint64_t after)
{
	char *reply = NULL, *line, *save = NULL;
	int nr = 0;

	if (rtfs_cmd(&reply, NULL, &RT_CALL(GET, NULL,
					    RT_S(0, "ftrace_site_errors"))))
		return 0;
	for (line = reply ? strtok_r(reply, "\n", &save) : NULL;
	     line && nr < RTFS_ERRLOG_MAX; line = strtok_r(NULL, "\n", &save)) {
		char *msg = strchr(line, '\t'), *site;
		unsigned long long ts;

		if (!msg || sscanf(line, "%llu", &ts) != 1 || ts <= after)
			continue;
		*msg++ = '\0';
		site = strchr(msg, '\t');
		if (!site)
			continue;
		*site++ = '\0';
		memset(&v[nr], 0, sizeof(v[nr]));
		v[nr].ts_ns = ts;
		snprintf(v[nr].loc, sizeof(v[nr].loc), "ftrace");
		snprintf(v[nr].msg, sizeof(v[nr].msg), "%s", msg);
		snprintf(v[nr].cmd, sizeof(v[nr].cmd), "%s", site);
		nr++;
	}
	free(reply);
	return nr;
}

static int rtfs_show_error_log(const struct rtfs_node *n, FILE *out)
{
	struct rtfs_errlog sites[RTFS_ERRLOG_MAX];
	int i, k, s = 0, nr_sites = 0;
	uint64_t after;

	pthread_mutex_lock(&fs.lock);
	after = fs.site_err_cleared;
	pthread_mutex_unlock(&fs.lock);
	/* (the process is asked without the mount's lock held) */
	if (!strcmp(rtfs_iarg(n->inst), "-"))
		nr_sites = rtfs_site_errors(sites, after);

	pthread_mutex_lock(&fs.lock);
	for (k = 0; k < fs.nr_err; k++) {
		const struct rtfs_errlog *e;

		i = (fs.next_err - fs.nr_err + k + RTFS_ERRLOG_MAX) %
		    RTFS_ERRLOG_MAX;
		e = &fs.errlog[i];
		if (strcmp(e->inst, rtfs_iarg(n->inst)))
			continue;
		/* both in time order: merged */
		for (; s < nr_sites && sites[s].ts_ns <= e->ts_ns; s++)
			rtfs_print_err(out, &sites[s]);
		rtfs_print_err(out, e);
	}
	pthread_mutex_unlock(&fs.lock);
	for (; s < nr_sites; s++)
		rtfs_print_err(out, &sites[s]);
	return 0;
}

static int rtfs_trunc_error_log(const struct rtfs_node *n)
{
	int i;

	pthread_mutex_lock(&fs.lock);
	if (!strcmp(rtfs_iarg(n->inst), "-"))
		fs.site_err_cleared = rtfs_now_ns();
	for (i = 0; i < RTFS_ERRLOG_MAX; i++)
		if (!strcmp(fs.errlog[i].inst, rtfs_iarg(n->inst)))
			fs.errlog[i].inst[0] = '\0';
	pthread_mutex_unlock(&fs.lock);
	return 0;
}

/* set_ftrace_filter and the other function lists (the process's own,
 * shared by its instances). An empty list reads as the kernel's says
 * what it means: every function traced, or none left out. */
static int rtfs_show_ftrace_list(const struct rtfs_node *n, FILE *out)
{
	char *reply = NULL;
	int ret = rtfs_cmd(&reply, NULL,
			   &RT_CALL(GET, NULL, RT_S(0, n->f->name)));

	if (ret)
		return ret;
	if (reply && reply[strspn(reply, " \t\n")])
		fputs(reply, out);
	else if (strstr(n->f->name, "notrace"))
		fputs("#### no functions disabled ####\n", out);
	else
		fputs("#### all functions enabled ####\n", out);
	free(reply);
	return 0;
}

/* enabled_functions: the recorded call sites that are calls now. */
static int rtfs_show_enabled_functions(const struct rtfs_node *n, FILE *out)
{
	char *reply = NULL;
	int ret = rtfs_cmd(&reply, NULL,
			   &RT_CALL(GET, NULL, RT_S(0, n->f->name)));

	if (!ret && reply)
		fputs(reply, out);
	free(reply);
	return ret;
}

/* A write adds to the list: the open emptied it for '>' (trunc) */
static int rtfs_write_ftrace_list(const struct rtfs_node *n, char *buf)
{
	char err[RTT_ERR_MAX];
	int ret;

	rtfs_chomp(buf);
	ret = rtfs_cmd(NULL, err, &RT_CALL(FTRACE_LIST_ADD, NULL,
					   RT_S(0, n->f->name), RT_S(1, buf)));
	if (ret == -EINVAL)
		rtfs_log_err(n->inst, n->f->name, err, buf, 0);
	return ret;
}

static int rtfs_trunc_ftrace_list(const struct rtfs_node *n)
{
	return rtfs_cmd(NULL, NULL, &RT_CALL(FTRACE_LIST, NULL,
					     RT_S(0, n->f->name), RT_S(1, "")));
}

/*
 * available_filter_functions: the function symbols the function tracers
 * match, "name" or "name [object]", made from the symbols file the
 * process writes for the tools ("ADDRESS T name[\t[object]]" lines, the
 * same symbols): a file, so that no reply size limits the list.
 */
static int rtfs_show_filter_functions(const struct rtfs_node *n, FILE *out)
{
	char err[RTT_ERR_MAX], *text = NULL, *line, *save = NULL;
	size_t len;
	int ret;

	(void)n;
	ret = rtt_syms_text(&fs.p, &text, &len, err);
	for (line = !ret && text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *name = strstr(line, " T "), *mod;

		if (!name)
			continue;
		name += 3;
		mod = strchr(name, '\t');
		if (mod)
			*mod++ = '\0';
		if (mod)
			fprintf(out, "%s %s\n", name, mod);
		else
			fprintf(out, "%s\n", name);
	}
	free(text);
	return ret;
}

static int rtfs_show_saved_cmdlines(const struct rtfs_node *n, FILE *out)
{
	char *text = NULL;
	size_t len;
	int ret;

	(void)n;
	ret = rtt_cmdlines_text(&fs.p, &text, &len);
	if (!ret && text)
		fwrite(text, 1, len, out);
	free(text);
	return ret;
}

/* saved_tgids: "TID TGID" for the threads saved_cmdlines names; every
 * one belongs to the traced process */
static int rtfs_show_saved_tgids(const struct rtfs_node *n, FILE *out)
{
	char *text = NULL, *line, *save = NULL;
	size_t len;
	int ret;

	(void)n;
	ret = rtt_cmdlines_text(&fs.p, &text, &len);
	for (line = ret || !text ? NULL : strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long tid = strtol(line, &end, 10);

		if (end != line && tid > 0)
			fprintf(out, "%ld %d\n", tid, fs.p.pid);
	}
	free(text);
	return ret;
}

/* per_cpu/cpuN/stats: the process's stat reply, cut to cpu N */
static int rtfs_show_stats(const struct rtfs_node *n, FILE *out)
{
	char *reply = NULL, *s, *e, head[32];
	int ret = rtfs_cmd(&reply, NULL, &RT_CALL(STAT, n->inst));

	if (ret)
		return ret;
	rtfs_cpu_name(n->cpu, head, sizeof(head) - 2);
	strcat(head, ":\n");
	s = reply ? strstr(reply, head) : NULL;
	if (s) {
		s += strlen(head);
		/* up to the next buffer's head: "cpuN:" or "spareN:" */
		e = strstr(s, "\ncpu");
		if (!e)
			e = strstr(s, "\nspare");
		if (e)
			e++;
		fwrite(s, 1, e ? (size_t)(e - s) : strlen(s), out);
	}
	free(reply);
	return 0;
}

static const char rtfs_readme[] =
	"tracing mini-HOWTO (ringtrace: the tracing directory of one process)\n"
	"\n"
	"  available_events\t- the events this process can record\n"
	"  set_event\t\t- enabled events: 'echo sys:event >> set_event',\n"
	"\t\t\t  '!sys:event' disables, 'echo > set_event' clears all\n"
	"  events/\t\t- per system and event: enable, filter, format, id,\n"
	"\t\t\t  trigger ('traceoff:1 if FILTER', '!traceoff' removes),\n"
	"\t\t\t  hist (the tables of its hist triggers)\n"
	"  hist trigger\t\t- 'hist:keys=<field1[,field2,...]>[:values=<field1[,...]>]\n"
	"\t\t\t  [:<var1>=<field|var_ref|numeric_literal>[,<var2>=...]]\n"
	"\t\t\t  [:sort=<field1[,field2]>][:size=#entries][:name=histname]\n"
	"\t\t\t  [:pause][:continue][:clear][:nohitcount] [if <filter>]'\n"
	"\t\t\t  modifiers .hex .sym .sym-offset .execname .syscall .log2\n"
	"\t\t\t  .buckets=N .usecs .percent .graph .descending .ascending;\n"
	"\t\t\t  common_timestamp common_cpu common_stacktrace; expressions\n"
	"\t\t\t  with + - * / and $var references; enable_hist:<system>:<event>\n"
	"\t\t\t  and disable_hist:<system>:<event> pause and continue them;\n"
	"\t\t\t  action onmatch(<system>.<event>).<synthetic_event>(params)\n"
	"\t\t\t  or onmatch(<system>.<event>).trace(<synthetic_event>,params),\n"
	"\t\t\t  onmax(var).save(field,...), onchange(var).save(field,...),\n"
	"\t\t\t  onmax(var).snapshot(), onchange(var).snapshot();\n"
	"\t\t\t  a param can be a $var, <system>.<event>.$var, a field of\n"
	"\t\t\t  the event or <system>.<event>.<field> of onmatch()'s (a\n"
	"\t\t\t  field variable); a variable or a param can be any field,\n"
	"\t\t\t  or the special string 'common_stacktrace' (a stack)\n"
	"  synthetic_events\t- events made of hist values:\n"
	"\t\t\t  'echo \"name u64 lat; pid_t pid; char comm[16]\" >> synthetic_events',\n"
	"\t\t\t  types s8-s64 u8-u64 char short int long pid_t bool,\n"
	"\t\t\t  char name[N] and char name[] (a dynamic string),\n"
	"\t\t\t  unsigned long[] name (a stack):\n"
	"\t\t\t  echo 'slow int w; unsigned long[] stack' >> synthetic_events;\n"
	"\t\t\t  echo 'name u64 lat' >> synthetic_events, '!name' removes\n"
	"  trace\t\t\t- the buffer, not consumed; 'echo > trace' clears it\n"
	"  trace_pipe\t\t- the buffer, consumed as read; blocks when empty\n"
	"  tracing_on\t\t- 0 stops recording, 1 starts it again\n"
	"  trace_marker\t\t- a line written here is recorded\n"
	"  trace_marker_raw\t- an id (4 bytes) and binary data\n"
	"  set_event_pid\t\t- record only these threads' events\n"
	"  set_ftrace_pid\t- the same for the function tracers\n"
	"  current_tracer\t- nop, function, function_graph, usersoff\n"
	"  trace_clock\t\t- the clock of the time stamps\n"
	"  trace_options\t\t- options; options/ holds one file each\n"
	"  buffer_size_kb\t- the size of each cpu buffer\n"
	"  free_buffer\t\t- a write shrinks the buffer to its least size\n"
	"  tracing_cpumask\t- hexadecimal mask of the cpu buffers that record\n"
	"  snapshot\t\t- 1 takes a snapshot, 0 frees it, 2 clears it\n"
	"  instances/\t\t- mkdir and rmdir make and remove instances\n"
	"  error_log\t\t- why the last writes were refused\n"
	"  set_ftrace_filter\t- the functions the function tracers record\n"
	"\t\t\t  and function commands: <function>:<command>[:count]\n"
	"\t\t\t  (traceon, traceoff, stacktrace,\n"
	"\t\t\t  enable_event:<system>:<event>, disable_event:...)\n"
	"  enabled_functions\t- the recorded call sites patched into calls\n";

static int rtfs_show_readme(const struct rtfs_node *n, FILE *out)
{
	(void)n;
	fputs(rtfs_readme, out);
	return 0;
}

/*
 * The files of the process's own table (the library's files.c): a read
 * is file_read, a write file_write, with the process's validation and
 * message. The mount keeps no code of its own for them.
 */
static int rtfs_show_lib(const struct rtfs_node *n, FILE *out)
{
	return rtfs_show_reply(out, &RT_CALL(FILE_READ, n->inst,
					     RT_S(0, n->f->name)));
}

static int rtfs_write_lib(const struct rtfs_node *n, char *buf)
{
	rtfs_chomp(buf); /* (a command is one line) */
	return rtfs_cmd(NULL, NULL, &RT_CALL(FILE_WRITE, n->inst,
					     RT_S(0, n->f->name),
					     RT_S(1, buf)));
}

/* open(O_TRUNC): the process's file_trunc (a list is emptied for '>';
 * '>>' opens without it and adds) */
static int rtfs_trunc_lib(const struct rtfs_node *n)
{
	return rtfs_cmd(NULL, NULL, &RT_CALL(FILE_TRUNC, n->inst,
					     RT_S(0, n->f->name)));
}

/* The files of an instance directory (the top one has them all). */
static const struct rtfs_file_ops rtfs_files[] = {
	{ "README", 0444, true, rtfs_show_readme, NULL, NULL },
	{ "available_events", 0444, true, rtfs_show_available_events, NULL,
	  NULL },
	{ "available_filter_functions", 0444, true,
	  rtfs_show_filter_functions, NULL, NULL },
	{ "enabled_functions", 0444, true, rtfs_show_enabled_functions, NULL,
	  NULL },
	{ "error_log", 0644, false, rtfs_show_error_log, rtfs_write_ignore,
	  rtfs_trunc_error_log },
	{ "saved_cmdlines", 0444, true, rtfs_show_saved_cmdlines, NULL, NULL },
	{ "saved_tgids", 0444, true, rtfs_show_saved_tgids, NULL, NULL },
	{ "set_event", 0644, false, rtfs_show_set_event, rtfs_write_set_event,
	  rtfs_trunc_set_event },
	{ "set_ftrace_filter", 0644, true, rtfs_show_ftrace_list,
	  rtfs_write_ftrace_list, rtfs_trunc_ftrace_list },
	{ "set_ftrace_notrace", 0644, true, rtfs_show_ftrace_list,
	  rtfs_write_ftrace_list, rtfs_trunc_ftrace_list },
	{ "set_graph_function", 0644, true, rtfs_show_ftrace_list,
	  rtfs_write_ftrace_list, rtfs_trunc_ftrace_list },
	{ "set_graph_notrace", 0644, true, rtfs_show_ftrace_list,
	  rtfs_write_ftrace_list, rtfs_trunc_ftrace_list },
	{ "snapshot", 0644, false, rtfs_show_snapshot, rtfs_write_snapshot,
	  rtfs_trunc_none },
	{ "synthetic_events", 0644, true, rtfs_show_synth, rtfs_write_synth,
	  rtfs_trunc_synth },
	{ "dynamic_events", 0644, true, rtfs_show_dyn, rtfs_write_dyn,
	  rtfs_trunc_synth },
	{ "trace", 0644, false, rtfs_show_trace, rtfs_write_ignore,
	  rtfs_trunc_trace },
	{ "trace_marker", 0220, false, NULL, rtfs_write_marker,
	  rtfs_trunc_none },
	{ "trace_marker_raw", 0220, false, NULL, rtfs_write_marker_raw,
	  rtfs_trunc_none },
	{ "trace_pipe", 0444, false, rtfs_show_text, NULL, NULL },
};

#define RTFS_NR_FILES (sizeof(rtfs_files) / sizeof(rtfs_files[0]))

/* The table's rows, "NAME MODE top|all" lines of file_ls; a file the
 * mount serves itself keeps the mount's row. */
static void rtfs_load_lib_files(void)
{
	char *reply = NULL, *line, *save = NULL;

	if (rtfs_cmd(&reply, NULL, &RT_CALL(FILE_LS, NULL)) || !reply) {
		free(reply);
		return;
	}
	for (line = strtok_r(reply, "\n", &save);
	     line && rtfs_lib.nr < RTFS_MAX_LIB_FILES;
	     line = strtok_r(NULL, "\n", &save)) {
		struct rtfs_file_ops *f = &rtfs_lib.f[rtfs_lib.nr];
		char name[64], where[8];
		unsigned int mode;
		bool ours = false;

		if (sscanf(line, "%63s %o %7s", name, &mode, where) != 3)
			continue;
		for (size_t i = 0; i < RTFS_NR_FILES && !ours; i++)
			ours = !strcmp(rtfs_files[i].name, name);
		if (ours)
			continue;
		snprintf(rtfs_lib.names[rtfs_lib.nr], sizeof(rtfs_lib.names[0]),
			 "%s", name);
		f->name = rtfs_lib.names[rtfs_lib.nr];
		f->mode = (mode_t)(mode & 0666);
		f->top_only = !strcmp(where, "top");
		f->show = mode & 0444 ? rtfs_show_lib : NULL;
		f->write = mode & 0222 ? rtfs_write_lib : NULL;
		f->trunc = mode & 0222 ? rtfs_trunc_lib : NULL;
		rtfs_lib.nr++;
	}
	free(reply);
}

static const struct rtfs_file_ops rtfs_enable_file = {
	"enable", 0644, false, rtfs_show_enable, rtfs_write_enable,
	rtfs_trunc_none
};
/* events/header_page and events/header_event */
static const struct rtfs_file_ops rtfs_header_files[] = {
	{ "header_event", 0444, false, rtfs_show_header_event, NULL, NULL },
	{ "header_page", 0444, false, rtfs_show_header_page, NULL, NULL },
};
static const struct rtfs_file_ops rtfs_filter_file = {
	"filter", 0644, false, rtfs_show_filter, rtfs_write_filter,
	rtfs_trunc_none
};
static const struct rtfs_file_ops rtfs_event_files[] = {
	{ "format", 0444, false, rtfs_show_format, NULL, NULL },
	{ "id", 0444, false, rtfs_show_id, NULL, NULL },
	{ "trigger", 0644, false, rtfs_show_trigger, rtfs_write_trigger,
	  rtfs_trunc_none },
	{ "hist", 0444, false, rtfs_show_hist, NULL, NULL },
};
static const struct rtfs_file_ops rtfs_option_file = {
	"option", 0644, false, rtfs_show_option, rtfs_write_option,
	rtfs_trunc_none
};
static const struct rtfs_file_ops rtfs_cpu_files[] = {
	{ "buffer_size_kb", 0644, false, rtfs_show_cpu_size,
	  rtfs_write_buffer_size, rtfs_trunc_none },
	{ "stats", 0444, false, rtfs_show_stats, NULL, NULL },
	{ "trace", 0644, false, rtfs_show_cpu_trace, rtfs_write_ignore,
	  rtfs_trunc_cpu_trace },
	{ "trace_pipe", 0444, false, rtfs_show_text, NULL, NULL },
	{ "trace_pipe_raw", 0444, false, rtfs_show_text, NULL, NULL },
};

#define RTFS_NR_CPU_FILES (sizeof(rtfs_cpu_files) / sizeof(rtfs_cpu_files[0]))

static bool rtfs_is_pipe(const struct rtfs_node *n)
{
	return n->kind == RTFS_FILE && !strcmp(n->f->name, "trace_pipe");
}

static bool rtfs_is_raw(const struct rtfs_node *n)
{
	return n->kind == RTFS_FILE && !strcmp(n->f->name, "trace_pipe_raw");
}

/* ---- paths to nodes ----------------------------------------------------- */

/* The next component of *@p into @buf; false at the end or if too long. */
static bool rtfs_next(const char **p, char *buf, size_t len)
{
	const char *s = *p, *e;

	while (*s == '/')
		s++;
	if (!*s)
		return false;
	e = strchr(s, '/');
	if (!e)
		e = s + strlen(s);
	if ((size_t)(e - s) >= len)
		return false;
	memcpy(buf, s, (size_t)(e - s));
	buf[e - s] = '\0';
	*p = e;
	return true;
}

static bool rtfs_at_end(const char *p)
{
	while (*p == '/')
		p++;
	return !*p;
}

static bool rtfs_option_exists(const char *inst, const char *opt)
{
	struct rtfs_node n;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return false;
	memset(&n, 0, sizeof(n));
	snprintf(n.inst, sizeof(n.inst), "%s", inst);
	snprintf(n.opt, sizeof(n.opt), "%s", opt);
	ret = rtfs_show_option(&n, f);
	fclose(f);
	free(buf);
	return ret == 0;
}

/* Whether a component of @path is longer than NAME_MAX (which no name
 * here is: the lookup says ENAMETOOLONG, as a file system does). */
static bool rtfs_name_too_long(const char *path)
{
	size_t k;

	while (*path) {
		k = strcspn(path, "/");
		if (k > NAME_MAX)
			return true;
		path += k;
		path += strspn(path, "/");
	}
	return false;
}

/* Resolve @path: 0, -ENOENT or -ENAMETOOLONG. */
static int rtfs_lookup(const char *path, struct rtfs_node *n)
{
	char c[NAME_MAX + 1];
	size_t i;

	memset(n, 0, sizeof(*n));
	n->kind = RTFS_DIR_INST;
	if (!path)
		return -ENOENT;
	if (rtfs_name_too_long(path))
		return -ENAMETOOLONG;
	if (!rtfs_next(&path, c, sizeof(c)))
		return 0;
	if (!strcmp(c, "instances")) {
		n->kind = RTFS_DIR_INSTANCES;
		if (!rtfs_next(&path, c, sizeof(c)))
			return 0;
		if (strlen(c) >= sizeof(n->inst) ||
		    rtt_inst_find(&fs.p, c) <= 0)
			return -ENOENT;
		snprintf(n->inst, sizeof(n->inst), "%s", c);
		n->kind = RTFS_DIR_INST;
		if (!rtfs_next(&path, c, sizeof(c)))
			return 0;
	}
	if (!strcmp(c, "events")) {
		n->kind = RTFS_DIR_EVENTS;
		if (!rtfs_next(&path, c, sizeof(c)))
			return 0;
		if (!strcmp(c, "enable")) {
			n->kind = RTFS_FILE;
			n->f = &rtfs_enable_file;
			return rtfs_at_end(path) ? 0 : -ENOTDIR;
		}
		for (i = 0; i < 2; i++)
			if (!strcmp(c, rtfs_header_files[i].name)) {
				n->kind = RTFS_FILE;
				n->f = &rtfs_header_files[i];
				return rtfs_at_end(path) ? 0 : -ENOTDIR;
			}
		if (strlen(c) >= sizeof(n->sys) || !rtfs_event_exists(c, NULL))
			return -ENOENT;
		snprintf(n->sys, sizeof(n->sys), "%s", c);
		n->kind = RTFS_DIR_SYS;
		if (!rtfs_next(&path, c, sizeof(c)))
			return 0;
		if ((!strcmp(c, "enable") || !strcmp(c, "filter")) &&
		    !rtfs_internal_sys(n->sys)) {
			n->kind = RTFS_FILE;
			n->f = c[0] == 'e' ? &rtfs_enable_file : &rtfs_filter_file;
			return rtfs_at_end(path) ? 0 : -ENOTDIR;
		}
		if (strlen(c) >= sizeof(n->ev) ||
		    !rtfs_event_exists(n->sys, c))
			return -ENOENT;
		snprintf(n->ev, sizeof(n->ev), "%s", c);
		n->kind = RTFS_DIR_EVENT;
		if (!rtfs_next(&path, c, sizeof(c)))
			return 0;
		n->kind = RTFS_FILE;
		if (!strcmp(c, "enable"))
			n->f = &rtfs_enable_file;
		else if (!strcmp(c, "filter"))
			n->f = &rtfs_filter_file;
		for (i = 0; !n->f && i < 4; i++)
			if (!strcmp(c, rtfs_event_files[i].name))
				n->f = &rtfs_event_files[i];
		/* the tracer's own records: their format and id only (and
		 * the markers' trigger and hist) */
		if (n->f && rtfs_internal_sys(n->sys) &&
		    strcmp(c, "format") && strcmp(c, "id") &&
		    !((!strcmp(c, "trigger") || !strcmp(c, "hist")) &&
		      rtfs_has_trigger(n->sys, n->ev)))
			n->f = NULL;
		if (!n->f)
			return -ENOENT;
		return rtfs_at_end(path) ? 0 : -ENOTDIR;
	}
	if (!strcmp(c, "options")) {
		n->kind = RTFS_DIR_OPTIONS;
		if (!rtfs_next(&path, c, sizeof(c)))
			return 0;
		if (strlen(c) >= sizeof(n->opt) ||
		    !rtfs_option_exists(n->inst, c))
			return -ENOENT;
		snprintf(n->opt, sizeof(n->opt), "%s", c);
		n->kind = RTFS_FILE;
		n->f = &rtfs_option_file;
		return rtfs_at_end(path) ? 0 : -ENOTDIR;
	}
	if (!strcmp(c, "per_cpu")) {
		char *end;
		long cpu;

		n->kind = RTFS_DIR_PER_CPU;
		if (!rtfs_next(&path, c, sizeof(c)))
			return 0;
		/* cpuN, a real CPU's, or spareN (rtfs_cpu_name()) */
		if (!strncmp(c, "cpu", 3) && c[3] >= '0' && c[3] <= '9') {
			cpu = strtol(c + 3, &end, 10);
			if (*end || cpu >= fs.nr_cpu_bufs)
				return -ENOENT;
		} else if (!strncmp(c, "spare", 5) && c[5] >= '0' &&
			   c[5] <= '9') {
			cpu = strtol(c + 5, &end, 10);
			if (*end || cpu >= fs.nr_cpus - fs.nr_cpu_bufs)
				return -ENOENT;
			cpu += fs.nr_cpu_bufs;
		} else {
			return -ENOENT;
		}
		n->cpu = (int)cpu;
		n->kind = RTFS_DIR_CPU;
		if (!rtfs_next(&path, c, sizeof(c)))
			return 0;
		for (i = 0; i < RTFS_NR_CPU_FILES; i++)
			if (!strcmp(c, rtfs_cpu_files[i].name)) {
				n->kind = RTFS_FILE;
				n->f = &rtfs_cpu_files[i];
				return rtfs_at_end(path) ? 0 : -ENOTDIR;
			}
		return -ENOENT;
	}
	n->cpu = RINGBUF_ALL_CPUS;
	for (i = 0; i < RTFS_NR_FILES; i++) {
		if (strcmp(c, rtfs_files[i].name))
			continue;
		if (rtfs_files[i].top_only && n->inst[0])
			return -ENOENT;
		n->kind = RTFS_FILE;
		n->f = &rtfs_files[i];
		return rtfs_at_end(path) ? 0 : -ENOTDIR;
	}
	for (i = 0; i < (size_t)rtfs_lib.nr; i++) {
		if (strcmp(c, rtfs_lib.f[i].name))
			continue;
		if (rtfs_lib.f[i].top_only && n->inst[0])
			return -ENOENT;
		n->kind = RTFS_FILE;
		n->f = &rtfs_lib.f[i];
		return rtfs_at_end(path) ? 0 : -ENOTDIR;
	}
	return -ENOENT;
}

/* ---- the consumer mark --------------------------------------------------- */

/* Be the consumer of the buffer @rb views, for
 * one more reader: the mark, or NULL with *@errp -EBUSY (another
 * process consumes it) or another errno. */
static struct rtfs_mark *rtfs_mark_get(struct ringbuf *rb, int *errp)
{
	char err[RTT_ERR_MAX], path[64];
	struct rtfs_mark *m;
	struct stat st;
	int fd = ringbuf_fd(rb), ret;

	if (fd < 0 || fstat(fd, &st)) {
		*errp = -EBADF;
		return NULL;
	}
	pthread_mutex_lock(&fs.mark_lock);
	for (m = fs.marks; m; m = m->next)
		if (m->dev == st.st_dev && m->ino == st.st_ino) {
			m->users++;
			goto out;
		}
	m = calloc(1, sizeof(*m));
	ret = -ENOMEM;
	if (!m)
		goto fail;
	/* a description of our own, the view's file opened again */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	m->fd = open(path, O_RDWR | O_CLOEXEC);
	if (m->fd < 0) {
		/* another user's buffer: viewed, never consumed */
		ret = -errno;
		free(m);
		goto fail;
	}
	ret = rtt_mark_take(&fs.p, m->fd, err);
	if (ret) {
		/* the daemon's log names the consumer */
		fprintf(stderr, "ringtrace mount: %s\n", err);
		close(m->fd);
		free(m);
		goto fail;
	}
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->users = 1;
	m->next = fs.marks;
	fs.marks = m;
out:
	pthread_mutex_unlock(&fs.mark_lock);
	return m;
fail:
	pthread_mutex_unlock(&fs.mark_lock);
	*errp = ret;
	return NULL;
}

/* One reader less; the last one's put drops the mark. */
static void rtfs_mark_put(struct rtfs_mark *m)
{
	struct rtfs_mark **pm;

	if (!m)
		return;
	pthread_mutex_lock(&fs.mark_lock);
	if (--m->users == 0) {
		for (pm = &fs.marks; *pm; pm = &(*pm)->next)
			if (*pm == m) {
				*pm = m->next;
				break;
			}
		close(m->fd);
		free(m);
	}
	pthread_mutex_unlock(&fs.mark_lock);
}

/* A view of instance @slot's buffer (a new one: size, clock), marked as
 * ours: 0, or a negative errno (-EBUSY: another process consumes it). */
static int rtfs_attach_marked(int slot, uint32_t *gen, struct ringbuf **rbp,
			      struct rtfs_mark **markp)
{
	char err[RTT_ERR_MAX];
	int ret = rtt_attach(&fs.p, slot, false, 0, gen, rbp, err);

	if (ret)
		return ret;
	*markp = rtfs_mark_get(*rbp, &ret);
	if (!*markp) {
		ringbuf_free(*rbp);
		*rbp = NULL;
	}
	return ret;
}

/* ---- trace_pipe --------------------------------------------------------- */

static struct rtfs_pipe *rtfs_pipe_get(const struct rtfs_node *n, int *errp)
{
	struct rtfs_pipe *pp;
	int slot, ret;

	pthread_mutex_lock(&fs.lock);
	for (pp = fs.pipes; pp; pp = pp->next)
		if (!strcmp(pp->inst, n->inst) && pp->cpu == n->cpu)
			break;
	if (pp) {
		/* the first reader again: consume again, unless another
		 * consumer came meanwhile */
		if (!pp->users) {
			pp->mark = rtfs_mark_get(pp->rb, &ret);
			if (!pp->mark) {
				pthread_mutex_unlock(&fs.lock);
				*errp = ret;
				return NULL;
			}
		}
		pp->users++;
		fs.pipes_open++;
		pthread_mutex_unlock(&fs.lock);
		return pp;
	}
	pthread_mutex_unlock(&fs.lock);
	slot = rtt_inst_find(&fs.p, n->inst);
	if (slot < 0) {
		*errp = -ENOENT;
		return NULL;
	}
	pp = calloc(1, sizeof(*pp));
	if (!pp) {
		*errp = -ENOMEM;
		return NULL;
	}
	snprintf(pp->inst, sizeof(pp->inst), "%s", n->inst);
	pp->cpu = n->cpu;
	pp->slot = slot;
	pthread_mutex_init(&pp->lock, NULL);
	rtfs_get_cfg(n->inst, &pp->cfg);
	ret = rtfs_attach_marked(slot, &pp->gen, &pp->rb, &pp->mark);
	pp->st = ret ? NULL : rt_pipe_state_new();
	if (ret || !pp->st) {
		if (!ret)
			rtfs_mark_put(pp->mark);
		ringbuf_free(pp->rb);
		free(pp);
		*errp = ret ? ret : -ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&fs.lock);
	pp->users = 1;
	pp->next = fs.pipes;
	fs.pipes = pp;
	fs.pipes_open++;
	pthread_mutex_unlock(&fs.lock);
	return pp;
}

/* The shared reader stays while the mount lives: its unread text is
 * the next reader's. With none of its readers open, the mount stops
 * being the buffer's consumer for it, so 'ringtrace pipe' or 'record'
 * may take the buffer (unless a trace_pipe_raw of the mount still
 * consumes it). */
static void rtfs_pipe_put(struct rtfs_pipe *pp)
{
	pthread_mutex_lock(&fs.lock);
	fs.pipes_open--;
	if (!--pp->users) {
		rtfs_mark_put(pp->mark);
		pp->mark = NULL;
	}
	pthread_mutex_unlock(&fs.lock);
}

/* Print what the buffer holds into pp->pend. Under pp->lock. Return: the
 * bytes printed, or a negative errno. */
static int rtfs_pipe_fill(struct rtfs_pipe *pp)
{
	struct rtfs_mark *swap_mark;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int n;

	if (!rtfs_dead() && rtt_inst_gen(&fs.p, pp->slot) != pp->gen) {
		struct rtfs_mark *mark;
		struct ringbuf *rb;
		uint32_t gen;

		/* a new buffer (size, clock): what the old one held first */
		if (!rtfs_attach_marked(pp->slot, &gen, &rb, &mark)) {
			f = open_memstream(&buf, &len);
			if (f) {
				pthread_mutex_lock(&fs.print_lock);
				while (rt_print_pipe(pp->rb, pp->cpu, &pp->cfg,
						     &fs.ops, pp->st, f) > 0)
					;
				pthread_mutex_unlock(&fs.print_lock);
				fclose(f);
			}
			ringbuf_free(pp->rb);
			pp->rb = rb;
			pp->gen = gen;
			/* a reader has it open (this read): it is marked */
			pthread_mutex_lock(&fs.lock);
			swap_mark = pp->mark;
			pp->mark = mark;
			pthread_mutex_unlock(&fs.lock);
			rtfs_mark_put(swap_mark);
			rtfs_get_cfg(pp->inst, &pp->cfg);
			if (len) {
				pp->pend = buf;
				pp->plen = len;
				pp->poff = 0;
				return (int)len;
			}
			free(buf);
			buf = NULL;
			len = 0;
		}
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	pthread_mutex_lock(&fs.print_lock);
	rtfs_refresh_events();
	rtfs_refresh_syms();
	n = fs.ev ? rt_print_pipe(pp->rb, pp->cpu, &pp->cfg, &fs.ops, pp->st,
				  f) :
		    0;
	pthread_mutex_unlock(&fs.print_lock);
	fclose(f);
	if (n < 0 || !len) {
		free(buf);
		return n < 0 ? n : 0;
	}
	pp->pend = buf;
	pp->plen = len;
	pp->poff = 0;
	return (int)len;
}

/*
 * The process truncated or damaged its buffer (or control file) under a
 * reader: the view is not read any more, its readers get -EIO, and the
 * daemon says why once per view and keeps serving.
 */
static int rtfs_view_error(struct ringbuf *rb)
{
	static _Atomic(struct ringbuf *) said;
	char err[RTT_ERR_MAX];

	if (!rtt_view_error(&fs.p, rb, err))
		return 0;
	/* Relaxed: only keeps the log to one line per view. */
	if (atomic_exchange_explicit(&said, rb, memory_order_relaxed) != rb)
		fprintf(stderr, "ringtrace mount: %s\n", err);
	return -EIO;
}

static int rtfs_pipe_read(struct rtfs_pipe *pp, char *out, size_t size,
			  bool nonblock)
{
	size_t k;
	int ret;

	for (;;) {
		pthread_mutex_lock(&pp->lock);
		/* a reader that was interrupted consumes nothing; nor
		 * does one while the daemon ends */
		if (fuse_interrupted() || RTFS_SIGNALLED()) {
			pthread_mutex_unlock(&pp->lock);
			return -EINTR;
		}
		if (pp->plen == pp->poff) {
			free(pp->pend);
			pp->pend = NULL;
			pp->plen = pp->poff = 0;
			ret = rtfs_pipe_fill(pp);
			if (ret < 0) {
				pthread_mutex_unlock(&pp->lock);
				return ret;
			}
			ret = rtfs_view_error(pp->rb);
			if (ret && pp->plen == pp->poff) {
				pthread_mutex_unlock(&pp->lock);
				return ret;
			}
		}
		if (pp->plen > pp->poff) {
			k = pp->plen - pp->poff;
			if (k > size)
				k = size;
			memcpy(out, pp->pend + pp->poff, k);
			pp->poff += k;
			pthread_mutex_unlock(&pp->lock);
			return (int)k;
		}
		if (rtfs_dead()) {
			pthread_mutex_unlock(&pp->lock);
			return 0; /* the process is gone: end of file */
		}
		if (nonblock) {
			pthread_mutex_unlock(&pp->lock);
			return -EAGAIN;
		}
		/* short waits: an interrupt or the exit is seen soon */
		ret = ringbuf_wait(pp->rb, pp->cpu, 0, 100);
		pthread_mutex_unlock(&pp->lock);
		if (ret == -ESRCH)
			atomic_store_explicit(&fs.dead, true,
					      memory_order_relaxed);
	}
}

/* ---- trace_pipe_raw ----------------------------------------------------- */

/*
 * Each open has its own consuming reader of the cpu buffer. A read
 * returns whole pages as the kernel's file does (kbuffer's format, see
 * ringbuf_read_page()); a read smaller than a page gets the rest of the
 * page at the next one.
 */
static int rtfs_raw_open(struct rtfs_fh *fh)
{
	int slot = rtt_inst_find(&fs.p, fh->n.inst), ret;

	if (slot < 0)
		return -ENOENT;
	ret = rtfs_attach_marked(slot, &fh->raw_gen, &fh->raw, &fh->raw_mark);
	if (ret)
		return ret;
	fh->raw_slot = slot;
	fh->page = ringbuf_alloc_read_page(fh->raw, fh->n.cpu);
	if (!fh->page) {
		rtfs_mark_put(fh->raw_mark);
		ringbuf_free(fh->raw);
		fh->raw = NULL;
		return -ENOMEM;
	}
	pthread_mutex_init(&fh->raw_lock, NULL);
	return 0;
}

/* The instance has a new buffer (size, clock) and the old one is
 * drained: read the new one. Under raw_lock. Return: true if it did. */
static bool rtfs_raw_follow(struct rtfs_fh *fh)
{
	struct rtfs_mark *mark;
	struct ringbuf *rb;
	uint32_t gen;
	void *page;

	if (rtfs_dead() || rtt_inst_gen(&fs.p, fh->raw_slot) == fh->raw_gen ||
	    rtfs_attach_marked(fh->raw_slot, &gen, &rb, &mark))
		return false;
	page = ringbuf_alloc_read_page(rb, fh->n.cpu);
	if (!page) {
		rtfs_mark_put(mark);
		ringbuf_free(rb);
		return false;
	}
	ringbuf_free_read_page(fh->raw, fh->n.cpu, fh->page);
	ringbuf_free(fh->raw);
	rtfs_mark_put(fh->raw_mark);
	fh->raw_mark = mark;
	fh->raw = rb;
	fh->raw_gen = gen;
	fh->page = page;
	return true;
}

static void rtfs_raw_close(struct rtfs_fh *fh)
{
	if (!fh->raw)
		return;
	ringbuf_free_read_page(fh->raw, fh->n.cpu, fh->page);
	ringbuf_free(fh->raw);
	rtfs_mark_put(fh->raw_mark);
	pthread_mutex_destroy(&fh->raw_lock);
}

static int rtfs_raw_read(struct rtfs_fh *fh, char *out, size_t size,
			 bool nonblock)
{
	size_t sub, k;
	bool busy;
	int ret;

	for (;;) {
		pthread_mutex_lock(&fh->raw_lock);
		sub = ringbuf_subbuf_size(fh->raw);
		busy = false;
		if (fuse_interrupted() || RTFS_SIGNALLED()) {
			pthread_mutex_unlock(&fh->raw_lock);
			return -EINTR;
		}
		ret = fh->page_off == fh->page_len ? rtfs_view_error(fh->raw) :
						     0;
		if (ret) {
			pthread_mutex_unlock(&fh->raw_lock);
			return ret;
		}
		if (fh->page_off == fh->page_len) {
			ret = ringbuf_read_page(fh->raw, fh->page, sub,
						fh->n.cpu, 0);
			if (ret >= 0) {
				fh->page_len = sub;
				fh->page_off = 0;
			} else if (ret == -ENODATA && rtfs_raw_follow(fh)) {
				pthread_mutex_unlock(&fh->raw_lock);
				continue; /* read the new buffer */
			} else if (ret == -EAGAIN) {
				busy = true; /* a writer mid-way: soon */
			} else if (ret != -ENODATA) {
				pthread_mutex_unlock(&fh->raw_lock);
				return ret;
			}
		}
		if (fh->page_off < fh->page_len) {
			k = fh->page_len - fh->page_off;
			if (k > size)
				k = size;
			memcpy(out, (char *)fh->page + fh->page_off, k);
			fh->page_off += k;
			pthread_mutex_unlock(&fh->raw_lock);
			return (int)k;
		}
		if (rtfs_dead() || nonblock) {
			pthread_mutex_unlock(&fh->raw_lock);
			return rtfs_dead() ? 0 : -EAGAIN;
		}
		/* short waits: an interrupt, the exit or a new buffer is
		 * seen soon */
		ret = busy ? usleep(1000) :
			     ringbuf_wait(fh->raw, fh->n.cpu, 0, 100);
		pthread_mutex_unlock(&fh->raw_lock);
		if (ret == -ESRCH)
			atomic_store_explicit(&fs.dead, true,
					      memory_order_relaxed);
	}
}

/* ---- poll() on trace_pipe ----------------------------------------------- */

/*
 * Is there something for a trace_pipe reader? Under fs.lock. The pipe's
 * text and buffer are looked at under its lock (a reader replaces the
 * buffer when the instance gets a new one); while a reader holds it,
 * the answer is no: that reader takes what comes, and the next tick
 * looks again.
 */
static bool rtfs_pipe_ready(struct rtfs_pipe *pp)
{
	bool ready;

	if (rtfs_dead())
		return true;
	if (pthread_mutex_trylock(&pp->lock))
		return false;
	ready = pp->plen > pp->poff ||
		(pp->cpu == RINGBUF_ALL_CPUS ?
			 !ringbuf_empty(pp->rb) :
			 !ringbuf_empty_cpu(pp->rb, pp->cpu));
	pthread_mutex_unlock(&pp->lock);
	return ready;
}

/* ---- poll() on hist ------------------------------------------------------ */

/*
 * The count of an event's hist file in @text (its hist text): the Hits
 * and Dropped of all its tables, which every record counted in one of
 * them moves (the kernel's get_hist_hit_count(), the sum of the maps'
 * hits). Userspace: read from the text the process shows, not from the
 * tables.
 */
static uint64_t rtfs_hist_count_text(const char *text)
{
	static const char *const tags[] = { "\n    Hits: ",
					    "\n    Dropped: " };
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; text && i < 2; i++) {
		const char *p = text;

		while ((p = strstr(p, tags[i]))) {
			p += strlen(tags[i]);
			n += strtoull(p, NULL, 10);
		}
	}
	return n;
}

/* The count of hist file @n now. Return: 0 or a negative errno. */
static int rtfs_hist_count(const struct rtfs_node *n, uint64_t *cnt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	ret = rtfs_show_hist(n, f);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (!ret)
		*cnt = rtfs_hist_count_text(text);
	free(text);
	return ret;
}

static bool rtfs_is_hist(const struct rtfs_node *n)
{
	return n->kind == RTFS_FILE && n->f->show == rtfs_show_hist;
}

/*
 * poll() on events/SYS/EVENT/hist, as the kernel's event_hist_poll():
 * POLLIN when a record was counted since the file was read (the text of
 * its open), POLLPRI when one was counted since the last POLLPRI (or the
 * open). Userspace: a poll() waiting is woken by the watcher's tick,
 * which looks at the counts again (at most 100 ms late).
 */
static unsigned int rtfs_hist_poll_events(struct rtfs_fh *fh)
{
	unsigned int ev = 0;
	uint64_t cnt;

	if (rtfs_dead())
		return POLLERR;
	if (rtfs_hist_count(&fh->n, &cnt))
		return POLLERR;
	if (cnt != fh->hist_read)
		ev |= POLLIN | POLLRDNORM;
	if (cnt != fh->hist_act) {
		fh->hist_act = cnt;
		ev |= POLLPRI;
	}
	return ev;
}

/* Called with fs.hist_lock held */
static void rtfs_hist_unlink_locked(struct rtfs_fh *fh)
{
	struct rtfs_fh **pp;

	for (pp = &fs.hist_polls; *pp; pp = &(*pp)->hist_next)
		if (*pp == fh) {
			*pp = fh->hist_next;
			break;
		}
	if (fh->hist_ph)
		fuse_pollhandle_destroy(fh->hist_ph);
	fh->hist_ph = NULL;
	fh->hist_next = NULL;
}

static int rtfs_hist_poll(struct rtfs_fh *fh, struct fuse_pollhandle *ph,
			  unsigned *reventsp)
{
	unsigned int ev;

	pthread_mutex_lock(&fs.hist_lock);
	rtfs_hist_unlink_locked(fh);
	ev = rtfs_hist_poll_events(fh);
	*reventsp |= ev;
	if (!ev && ph) {
		/* the watcher notifies when a count moves (one handle
		 * kept: the kernel sends a new one with each poll) */
		fh->hist_ph = ph;
		fh->hist_next = fs.hist_polls;
		fs.hist_polls = fh;
	} else if (ph) {
		fuse_pollhandle_destroy(ph);
	}
	pthread_mutex_unlock(&fs.hist_lock);
	return 0;
}

/* The watcher's tick for the hist files: wake the poll()s whose counts
 * moved (the poll() that follows says which way) */
static void rtfs_hist_poll_notify(void)
{
	struct rtfs_fh *fh, *next;

	pthread_mutex_lock(&fs.hist_lock);
	for (fh = fs.hist_polls; fh; fh = next) {
		uint64_t cnt = 0;
		int ret = rtfs_dead() ? -ESRCH : rtfs_hist_count(&fh->n, &cnt);

		next = fh->hist_next;
		if (!ret && cnt == fh->hist_read && cnt == fh->hist_act)
			continue;
		fuse_notify_poll(fh->hist_ph);
		rtfs_hist_unlink_locked(fh);
	}
	pthread_mutex_unlock(&fs.hist_lock);
}

/* The watcher's tick: wake the poll()s whose pipe has something, and
 * those of hist files whose counts moved. */
static void rtfs_poll_notify(void)
{
	struct rtfs_pipe *pp;

	pthread_mutex_lock(&fs.lock);
	for (pp = fs.pipes; pp; pp = pp->next)
		if (pp->ph && rtfs_pipe_ready(pp)) {
			fuse_notify_poll(pp->ph);
			fuse_pollhandle_destroy(pp->ph);
			pp->ph = NULL;
		}
	pthread_mutex_unlock(&fs.lock);
	rtfs_hist_poll_notify();
}

static int rtfs_poll(const char *path, struct fuse_file_info *fi,
		     struct fuse_pollhandle *ph, unsigned *reventsp)
{
	struct rtfs_fh *fh = (struct rtfs_fh *)(uintptr_t)fi->fh;
	struct rtfs_pipe *pp = fh->pipe;

	(void)path;
	if (rtfs_is_hist(&fh->n))
		return rtfs_hist_poll(fh, ph, reventsp);
	if (!pp) {
		/* the other files are always ready, as in tracefs */
		if (ph)
			fuse_pollhandle_destroy(ph);
		*reventsp |= POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
		return 0;
	}
	pthread_mutex_lock(&fs.lock);
	if (rtfs_pipe_ready(pp)) {
		*reventsp |= POLLIN | POLLRDNORM;
		if (ph)
			fuse_pollhandle_destroy(ph);
	} else if (ph) {
		/* the watcher notifies when text comes (one handle kept:
		 * the kernel sends a new one with each poll) */
		if (pp->ph)
			fuse_pollhandle_destroy(pp->ph);
		pp->ph = ph;
	}
	pthread_mutex_unlock(&fs.lock);
	return 0;
}

/* ---- FUSE operations ---------------------------------------------------- */

static void rtfs_fill_stat(const struct rtfs_node *n, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_uid = fs.uid;
	st->st_gid = fs.gid;
	st->st_atim = st->st_mtim = st->st_ctim = fs.mounted;
	if (n->kind == RTFS_FILE) {
		st->st_mode = S_IFREG | n->f->mode;
		st->st_nlink = 1;
	} else {
		/* the root is the owner's alone, as the mount */
		st->st_mode = S_IFDIR |
			      (n->kind == RTFS_DIR_INST && !n->inst[0] ? 0700 :
									 0755);
		st->st_nlink = 2;
	}
}

/*
 * The node of an operation. libfuse passes no path (NULL) for an open
 * file whose directory went (an instance removed while the file is
 * open): the open file's node is used then.
 */
static int rtfs_node_of(const char *path, struct fuse_file_info *fi,
			struct rtfs_node *n)
{
	if (!path && fi && fi->fh) {
		*n = ((struct rtfs_fh *)(uintptr_t)fi->fh)->n;
		return 0;
	}
	return rtfs_lookup(path, n);
}

static int rtfs_getattr(const char *path, struct stat *st,
			struct fuse_file_info *fi)
{
	struct rtfs_node n;
	int ret;

	ret = rtfs_node_of(path, fi, &n);
	if (ret)
		return ret;
	rtfs_fill_stat(&n, st);
	return 0;
}

static int rtfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
			off_t off, struct fuse_file_info *fi,
			enum fuse_readdir_flags flags)
{
	struct rtfs_node n;
	char name[256];
	size_t i;
	int ret;

	(void)off;
	(void)fi;
	(void)flags;
	ret = rtfs_lookup(path, &n);
	if (ret)
		return ret;
	if (n.kind == RTFS_FILE)
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	switch (n.kind) {
	case RTFS_DIR_INST:
		for (i = 0; i < RTFS_NR_FILES; i++)
			if (!rtfs_files[i].top_only || !n.inst[0])
				fill(buf, rtfs_files[i].name, NULL, 0, 0);
		for (i = 0; i < (size_t)rtfs_lib.nr; i++)
			if (!rtfs_lib.f[i].top_only || !n.inst[0])
				fill(buf, rtfs_lib.f[i].name, NULL, 0, 0);
		fill(buf, "events", NULL, 0, 0);
		fill(buf, "options", NULL, 0, 0);
		fill(buf, "per_cpu", NULL, 0, 0);
		if (!n.inst[0])
			fill(buf, "instances", NULL, 0, 0);
		break;
	case RTFS_DIR_INSTANCES:
		for (i = 1; i < RT_CTL_MAX_INSTANCES; i++) {
			char p[PATH_MAX];

			if (rtt_inst_path(&fs.p, (int)i, false, p, NULL))
				continue;
			/* the process's text: escaped, one component */
			rtt_safe_copy(name, 64, fs.p.ctl->inst[i].name,
				      sizeof(fs.p.ctl->inst[i].name));
			if (name[0] && !strchr(name, '/'))
				fill(buf, name, NULL, 0, 0);
		}
		break;
	case RTFS_DIR_EVENTS:
	case RTFS_DIR_SYS:
		if (n.kind == RTFS_DIR_EVENTS || !rtfs_internal_sys(n.sys))
			fill(buf, "enable", NULL, 0, 0);
		if (n.kind == RTFS_DIR_EVENTS)
			for (i = 0; i < 2; i++)
				fill(buf, rtfs_header_files[i].name, NULL, 0, 0);
		if (n.kind == RTFS_DIR_SYS && !rtfs_internal_sys(n.sys))
			fill(buf, "filter", NULL, 0, 0);
		pthread_mutex_lock(&fs.print_lock);
		rtfs_refresh_events();
		for (i = 0; fs.ev && i < fs.ev_live; i++) {
			const struct rtt_event *e = &fs.ev->v[i];
			size_t j;
			bool seen = false;

			if (n.kind == RTFS_DIR_SYS) {
				if (!strcmp(e->system, n.sys))
					fill(buf, e->name, NULL, 0, 0);
				continue;
			}
			for (j = 0; j < i && !seen; j++)
				seen = !strcmp(fs.ev->v[j].system, e->system);
			if (!seen)
				fill(buf, e->system, NULL, 0, 0);
		}
		pthread_mutex_unlock(&fs.print_lock);
		break;
	case RTFS_DIR_EVENT:
		if (!rtfs_internal_sys(n.sys)) {
			fill(buf, "enable", NULL, 0, 0);
			fill(buf, "filter", NULL, 0, 0);
		}
		fill(buf, "format", NULL, 0, 0);
		fill(buf, "id", NULL, 0, 0);
		if (rtfs_has_trigger(n.sys, n.ev)) {
			fill(buf, "trigger", NULL, 0, 0);
			fill(buf, "hist", NULL, 0, 0);
		}
		break;
	case RTFS_DIR_OPTIONS: {
		char *reply = NULL, *line, *save = NULL;

		if (rtfs_cmd(&reply, NULL,
			     &RT_CALL(FILE_READ, n.inst,
				      RT_S(0, "trace_options"))))
			break;
		for (line = reply ? strtok_r(reply, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			fill(buf, line + (rtfs_option_exists(n.inst, line) ? 0 : 2),
			     NULL, 0, 0);
		free(reply);
		break;
	}
	case RTFS_DIR_PER_CPU:
		for (i = 0; i < (size_t)fs.nr_cpus; i++) {
			rtfs_cpu_name((int)i, name, sizeof(name));
			fill(buf, name, NULL, 0, 0);
		}
		break;
	case RTFS_DIR_CPU:
		for (i = 0; i < RTFS_NR_CPU_FILES; i++)
			fill(buf, rtfs_cpu_files[i].name, NULL, 0, 0);
		break;
	case RTFS_FILE:
		break;
	}
	return 0;
}

static int rtfs_open(const char *path, struct fuse_file_info *fi)
{
	struct rtfs_fh *fh;
	int acc = fi->flags & O_ACCMODE, ret;

	fh = calloc(1, sizeof(*fh));
	if (!fh)
		return -ENOMEM;
	ret = rtfs_lookup(path, &fh->n);
	if (!ret && fh->n.kind != RTFS_FILE)
		ret = -EISDIR;
	if (!ret && acc != O_WRONLY && !fh->n.f->show)
		ret = -EACCES;
	if (!ret && acc != O_RDONLY && !fh->n.f->write)
		ret = -EACCES;
	if (!ret && (fi->flags & O_TRUNC) && fh->n.f->trunc)
		ret = fh->n.f->trunc(&fh->n);
	if (!ret && rtfs_is_pipe(&fh->n)) {
		fh->pipe = rtfs_pipe_get(&fh->n, &ret);
	} else if (!ret && rtfs_is_raw(&fh->n)) {
		ret = rtfs_raw_open(fh);
	} else if (!ret && acc != O_WRONLY) {
		/* the text is made once: reads at any offset see one state */
		FILE *f = open_memstream(&fh->text, &fh->len);

		if (!f) {
			ret = -ENOMEM;
		} else {
			ret = fh->n.f->show(&fh->n, f);
			if (fclose(f))
				ret = ret ? ret : -ENOMEM;
		}
		/* a hist file is read when it is opened: poll() waits for
		 * counts past these */
		if (!ret && rtfs_is_hist(&fh->n))
			fh->hist_read = fh->hist_act =
				rtfs_hist_count_text(fh->text);
	}
	if (ret) {
		if (ret == -ESRCH)
			ret = -ENODEV;
		else if (ret == -EPROTO)
			ret = -EIO;
		free(fh->text);
		free(fh);
		return ret;
	}
	pthread_mutex_lock(&fs.lock);
	fh->next = fs.fhs;
	if (fs.fhs)
		fs.fhs->prev = fh;
	fs.fhs = fh;
	pthread_mutex_unlock(&fs.lock);
	fi->fh = (uintptr_t)fh;
	fi->direct_io = 1;
	fi->nonseekable = rtfs_is_pipe(&fh->n) || rtfs_is_raw(&fh->n);
	return 0;
}

static int rtfs_read(const char *path, char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct rtfs_fh *fh = (struct rtfs_fh *)(uintptr_t)fi->fh;

	(void)path;
	if (fh->pipe)
		return rtfs_pipe_read(fh->pipe, buf, size,
				      (fi->flags & O_NONBLOCK) != 0);
	if (fh->raw)
		return rtfs_raw_read(fh, buf, size,
				     (fi->flags & O_NONBLOCK) != 0);
	if (off < 0 || (size_t)off >= fh->len)
		return 0;
	if (size > fh->len - (size_t)off)
		size = fh->len - (size_t)off;
	memcpy(buf, fh->text + off, size);
	return (int)size;
}

static int rtfs_write(const char *path, const char *buf, size_t size,
		      off_t off, struct fuse_file_info *fi)
{
	struct rtfs_fh *fh = (struct rtfs_fh *)(uintptr_t)fi->fh;
	char *copy;
	int ret;

	(void)path;
	(void)off;
	if (!fh->n.f->write)
		return -EACCES;
	if (fh->n.f->write == rtfs_write_marker_raw) {
		if (2 * size >= RT_CTL_CMD_MAX - 256)
			return -E2BIG;
		ret = rtfs_marker_raw(&fh->n, buf, size);
		if (ret == -ESRCH)
			ret = -ENODEV;
		return ret ? ret : (int)size;
	}
	/* A marker longer than the kernel's TRACE_MARKER_MAX_SIZE is cut
	 * there and the write succeeds for that many bytes, as tracefs's
	 * does (a writer's loop writes the rest as markers of their own). */
	if (fh->n.f->write == rtfs_write_marker && size > RTFS_MARKER_MAX)
		size = RTFS_MARKER_MAX;
	/* and where it would not fit a sub-buffer (the kernel cuts it at
	 * the largest record too; the writer writes the rest after) */
	if (fh->n.f->write == rtfs_write_marker && size > 2048) {
		size_t max = rtfs_marker_max(&fh->n);

		if (max && size > max)
			size = max;
	}
	if (size >= RT_CTL_CMD_MAX - 256)
		return -E2BIG;
	copy = malloc(size + 2);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, size);
	copy[size] = '\0';
	ret = fh->n.f->write(&fh->n, copy);
	free(copy);
	if (ret == -ESRCH)
		ret = -ENODEV;
	return ret ? ret : (int)size;
}

static int rtfs_truncate(const char *path, off_t size,
			 struct fuse_file_info *fi)
{
	struct rtfs_node n;
	int ret;

	ret = rtfs_node_of(path, fi, &n);
	if (ret)
		return ret;
	if (n.kind != RTFS_FILE)
		return -EISDIR;
	if (!n.f->write)
		return -EACCES;
	/* only "> file" (size 0) means something, as in tracefs */
	return size == 0 && n.f->trunc ? n.f->trunc(&n) : 0;
}

static void rtfs_fh_free(struct rtfs_fh *fh)
{
	pthread_mutex_lock(&fs.lock);
	if (fh->prev)
		fh->prev->next = fh->next;
	else
		fs.fhs = fh->next;
	if (fh->next)
		fh->next->prev = fh->prev;
	pthread_mutex_unlock(&fs.lock);
	if (fh->pipe)
		rtfs_pipe_put(fh->pipe);
	if (rtfs_is_hist(&fh->n)) {
		pthread_mutex_lock(&fs.hist_lock);
		rtfs_hist_unlink_locked(fh);
		pthread_mutex_unlock(&fs.hist_lock);
	}
	rtfs_raw_close(fh);
	free(fh->text);
	free(fh);
}

static int rtfs_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	rtfs_fh_free((struct rtfs_fh *)(uintptr_t)fi->fh);
	return 0;
}

/* mkdir and rmdir of instances/NAME */
static int rtfs_instance_op(const char *path, bool make)
{
	const char *name;
	int ret;

	if (!path || strncmp(path, "/instances/", 11))
		return -EPERM; /* elsewhere, tracefs refuses too */
	name = path + 11;
	if (!*name || strchr(name, '/'))
		return -EPERM;
	/* (an instance name has at most 63 bytes here; the kernel's may
	 * have NAME_MAX: a longer one is refused as a name too long) */
	if (strlen(name) >= 64)
		return -ENAMETOOLONG;
	if (strpbrk(name, " \t\n"))
		return -EINVAL;
	ret = rtfs_cmd(NULL, NULL,
		       &RT_CALL_ID(make ? RT_CMD_MKINSTANCE : RT_CMD_RMINSTANCE,
				   NULL, RT_S(0, name)));
	return ret;
}

static int rtfs_mkdir(const char *path, mode_t mode)
{
	(void)mode;
	return rtfs_instance_op(path, true);
}

static int rtfs_rmdir(const char *path)
{
	return rtfs_instance_op(path, false);
}

static int rtfs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)path;
	(void)mode;
	(void)fi;
	return -EPERM;
}

static int rtfs_utimens(const char *path, const struct timespec tv[2],
			struct fuse_file_info *fi)
{
	struct rtfs_node n;

	(void)tv;
	return rtfs_node_of(path, fi, &n);
}

/* A new file: tracefs refuses it with EACCES (its directories are the
 * kernel's to fill). */
static int rtfs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)path;
	(void)mode;
	(void)fi;
	return -EACCES;
}

static int rtfs_mknod(const char *path, mode_t mode, dev_t dev)
{
	(void)path;
	(void)mode;
	(void)dev;
	return -EACCES;
}

static void *rtfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	/* the contents change under the kernel's feet: no caching */
	cfg->direct_io = 1;
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	/* a killed trace_pipe reader interrupts its read */
	cfg->intr = 1;
	return NULL;
}

static const struct fuse_operations rtfs_ops = {
	.init = rtfs_init,
	.getattr = rtfs_getattr,
	.readdir = rtfs_readdir,
	.open = rtfs_open,
	.read = rtfs_read,
	.write = rtfs_write,
	.truncate = rtfs_truncate,
	.release = rtfs_release,
	.mkdir = rtfs_mkdir,
	.rmdir = rtfs_rmdir,
	.chmod = rtfs_chmod,
	.utimens = rtfs_utimens,
	.poll = rtfs_poll,
	.create = rtfs_create,
	.mknod = rtfs_mknod,
};

/* ---- the process's exit ------------------------------------------------- */

/* Whether the loop ended (a signal): the watcher's waits end at once. */
static bool rtfs_stopping(void)
{
	/* Relaxed: a flag polled; the join orders the rest. */
	return atomic_load_explicit(&fs.stop, memory_order_relaxed);
}

/* The watcher's tick: 100 ms, or less when @pidfd (if >= 0) turns
 * readable (the process exited: true) or the loop ended. */
static bool rtfs_tick(int pidfd)
{
	struct pollfd pfd[2] = {
		{ .fd = fs.wake[0], .events = POLLIN },
		{ .fd = pidfd, .events = POLLIN },
	};

	return poll(pfd, pidfd >= 0 ? 2 : 1, 100) > 0 && pfd[1].revents;
}

static void *rtfs_watch(void *arg)
{
	int pidfd = (int)syscall(SYS_pidfd_open, fs.pid, 0), i;

	(void)arg;
	for (;;) {
		if (rtfs_stopping()) {
			if (pidfd >= 0)
				close(pidfd);
			return NULL;
		}
		/* a tick of 100 ms: the poll()s on trace_pipe are woken at
		 * the latest one tick after text came */
		if (rtfs_tick(pidfd))
			break;
		rtfs_poll_notify();
		if (rtfs_dead() || rtt_proc_state(&fs.p) == RTT_DEAD)
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
	/* Relaxed: readers poll it (rtfs_dead()). */
	atomic_store_explicit(&fs.dead, true, memory_order_relaxed);
	rtfs_poll_notify(); /* a poll() waiting sees the end of file */
	/* the trace_pipe readers get what is left, then end of file; the
	 * mount goes when they closed (or after 10 s: one that stays open
	 * keeps the lazily unmounted file system until it closes) */
	for (i = 0; i < 100 && !rtfs_stopping(); i++) {
		int open;

		pthread_mutex_lock(&fs.lock);
		open = fs.pipes_open;
		pthread_mutex_unlock(&fs.lock);
		if (!open)
			break;
		rtfs_tick(-1);
	}
	fuse_exit(fs.fuse);
	rtfs_unmount(fs.dir);
	return NULL;
}

/* ---- the mount ---------------------------------------------------------- */

/* After the loop: no operation runs any more. */
static void rtfs_free_all(void)
{
	struct rtfs_pipe *pp;

	/* files still open when the loop ended (SIGTERM) */
	while (fs.fhs)
		rtfs_fh_free(fs.fhs);
	while ((pp = fs.pipes)) {
		fs.pipes = pp->next;
		if (pp->ph)
			fuse_pollhandle_destroy(pp->ph);
		ringbuf_free(pp->rb);
		rt_pipe_state_free(pp->st);
		pthread_mutex_destroy(&pp->lock);
		free(pp->pend);
		free(pp);
	}
	rtt_events_free(fs.ev);
	rtt_syms_free(fs.syms);
	rtt_print_ctx_done(&fs.ctx);
	fs.ev = NULL;
	fs.syms = NULL;
	rtt_proc_close(&fs.p);
}

/* libfuse interrupts a request's thread with SIGUSR1 (intr_signal): it
 * only has to end the thread's wait, not the daemon. */
static void rtfs_on_intr(int sig)
{
	(void)sig;
}

/* SIGINT, SIGTERM, SIGHUP: the loop ends (libfuse's own handler does
 * the same, and keeps no record of it) and the mount goes, exit 0. */
static void rtfs_on_end(int sig)
{
	atomic_store_explicit(&rtfs_signalled, sig, memory_order_relaxed);
	/* a store to the session's flag (fuse_session_exit()) */
	fuse_exit(fs.fuse);
}

/* A request's wait for the process (a command) ends when the request is
 * interrupted (EINTR to the caller) or the loop is ending. */
static unsigned long rtfs_interrupts(void)
{
	return (unsigned long)fuse_interrupted() +
	       (unsigned long)(rtfs_stopping() || RTFS_SIGNALLED());
}

int rtfs_serve(int pid, const char *dir, bool foreground)
{
	char err[RTT_ERR_MAX], opt[256], real[PATH_MAX];
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct ringbuf *rb;
	pthread_t watcher;
	int ret, slot;

	if (access("/dev/fuse", R_OK | W_OK)) {
		fprintf(stderr, "ringtrace: mount: /dev/fuse: %s\n",
			strerror(errno));
		return errno == EACCES ? RTT_EXIT_PERM : RTT_EXIT_FAIL;
	}
	if (!realpath(dir, real)) {
		fprintf(stderr, "ringtrace: mount point %s: %s\n", dir,
			strerror(errno));
		return RTT_EXIT_USAGE;
	}
	fs.pid = pid;
	fs.dir = real;
	fs.uid = getuid();
	fs.gid = getgid();
	clock_gettime(CLOCK_REALTIME, &fs.mounted);
	ret = rtt_proc_open(pid, 0, &fs.p, err);
	if (ret) {
		fprintf(stderr, "ringtrace: %s\n", err);
		return rtt_exit_code(ret);
	}
	/* the number of cpu buffers, from the top instance's */
	fs.nr_cpus = 1;
	fs.nr_cpu_bufs = 1;
	slot = rtt_inst_find(&fs.p, NULL);
	if (slot >= 0 && !rtt_attach(&fs.p, slot, false, 0, NULL, &rb, err)) {
		fs.nr_cpus = ringbuf_nr_cpus(rb);
		fs.nr_cpu_bufs = ringbuf_nr_cpu_buffers(rb);
		ringbuf_free(rb);
	}
	fs.ctx.cmdlines = fs.p.ctl->cmdlines;
	/* funcgraph-args: the parameters from the process's DWARF (read
	 * at the first need, under print_lock as all printing) */
	rtt_print_ctx_proc(&fs.ctx, fs.p.pid, fs.p.uid);
	rtt_printer_ops(&fs.ctx, &fs.ops);
	fs.ops.stop = rtfs_print_stop;
	rtfs_load_lib_files();
	pthread_mutex_lock(&fs.print_lock);
	rtfs_refresh_events();
	pthread_mutex_unlock(&fs.print_lock);

	/* never allow_other: the mount is the owner's */
	snprintf(opt, sizeof(opt),
		 "fsname=ringtrace-%d,subtype=ringtrace,default_permissions,noatime",
		 pid);
	if (fuse_opt_add_arg(&args, "ringtrace") ||
	    fuse_opt_add_arg(&args, "-o") || fuse_opt_add_arg(&args, opt)) {
		ret = RTT_EXIT_FAIL;
		goto out;
	}
	fs.fuse = fuse_new(&args, &rtfs_ops, sizeof(rtfs_ops), NULL);
	if (!fs.fuse) {
		fprintf(stderr, "ringtrace: mount: cannot start FUSE\n");
		ret = RTT_EXIT_FAIL;
		goto out;
	}
	if (fuse_mount(fs.fuse, real)) {
		fprintf(stderr, "ringtrace: mount: cannot mount %s (FUSE)\n",
			dir);
		ret = RTT_EXIT_PERM;
		goto out_destroy;
	}
	if (fuse_daemonize(foreground)) {
		ret = RTT_EXIT_FAIL;
		goto out_unmount;
	}
	/* after the fork: the daemon's thread, without the signals that
	 * end the loop (libfuse's handler must run in the loop's thread,
	 * whose wait it ends; its workers block them too) */
	if (pipe2(fs.wake, O_CLOEXEC | O_NONBLOCK)) {
		ret = RTT_EXIT_FAIL;
		goto out_unmount;
	}
	{
		sigset_t block, old;

		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		ret = pthread_create(&watcher, NULL, rtfs_watch, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ret) {
			ret = RTT_EXIT_FAIL;
			goto out_unmount;
		}
	}
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = rtfs_on_intr;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
		signal(SIGPIPE, SIG_IGN);
	}
	rtt_set_interrupt(rtfs_interrupts);
	rtt_end_signals(rtfs_on_end);
	ret = fuse_loop_mt(fs.fuse, 0) ? RTT_EXIT_FAIL : RTT_EXIT_OK;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (rtfs_dead() || RTFS_SIGNALLED())
		ret = RTT_EXIT_OK;
	/* Relaxed: the watcher polls it; pthread_join() orders its last
	 * uses of the state before the frees below. The pipe ends its
	 * tick. */
	atomic_store_explicit(&fs.stop, true, memory_order_relaxed);
	if (write(fs.wake[1], "x", 1) < 0) {
		/* full or gone: the tick ends within 100 ms anyway */
	}
	pthread_join(watcher, NULL);
out_unmount:
	fuse_unmount(fs.fuse);
out_destroy:
	fuse_destroy(fs.fuse);
out:
	fuse_opt_free_args(&args);
	rtfs_free_all();
	if (fs.wake[0] >= 0) {
		close(fs.wake[0]);
		close(fs.wake[1]);
	}
	return ret;
}
