// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringtrace.c - the ringtrace command: trace-cmd's verbs for programs
 *	that use libringtrace
 *
 * A traced process publishes its control file, its buffers and its event
 * formats (ctl.h); this tool finds them by pid (client.c), sends the
 * process commands, attaches its buffers read-side, prints them with the
 * library's own printer (print.h) through libtraceevent (tep.c), and
 * writes and reads trace.dat files (tracedat.h).
 *
 * Exit codes (ringtrace(1)): 0 ok, 1 runtime failure, 2 bad usage or
 * argument, 3 no such process or not traced, 4 permission denied, 5
 * corrupt or truncated input.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>

#include "client.h"
#include "filter.h"
#include "print.h"
#include "profile.h"
#include "tep.h"
#include "trace.h"
#include "tracedat.h"
#include "tracefs.h"

#ifndef RINGTRACE_VERSION
#define RINGTRACE_VERSION "0"
#endif

extern char **environ;

static volatile sig_atomic_t rtt_stop;

static void rtt_on_signal(int sig)
{
	rtt_stop = sig;
}

static void rtt_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rtt_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void rtt_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void rtt_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("ringtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t rtt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- verbs and their usage ---------------------------------------------- */

struct rtt_verb {
	const char *name;
	const char *alias;
	int (*run)(const struct rtt_verb *v, int argc, char **argv);
	const char *synopsis;
	const char *help;
};

static int rtt_help(const struct rtt_verb *v)
{
	printf("usage: ringtrace %s\n\n%s", v->synopsis, v->help);
	return RTT_EXIT_OK;
}

static int rtt_usage(const struct rtt_verb *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int rtt_usage(const struct rtt_verb *v, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ringtrace: %s: ", v->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: ringtrace %s\nTry 'ringtrace %s --help'.\n",
		v->synopsis, v->name);
	return RTT_EXIT_USAGE;
}

/* getopt_long()'s '?' and ':' as a message naming the option. */
static int rtt_bad_option(const struct rtt_verb *v, char **argv, int c)
{
	const char *arg = argv[optind - 1];

	/* argv[optind - 1] is the option as written ("--cpu" or "-c") */
	if (c == ':')
		return rtt_usage(v, "option '%s' needs an argument", arg);
	if (optopt)
		return rtt_usage(v, "unknown option '-%c'", optopt);
	return rtt_usage(v, "unknown option '%s'", arg);
}

static int rtt_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* ---- talking to a process ----------------------------------------------- */

/* Open a live process (or a dead one's files with RTT_OPEN_DEAD). */
static int rtt_open_pid(const char *arg, unsigned int flags,
			struct rtt_proc *p)
{
	char err[RTT_ERR_MAX];
	int pid, ret;

	if (rtt_parse_pid(arg, &pid)) {
		rtt_msg("'%s' is not a process id", arg);
		return -EINVAL;
	}
	ret = rtt_proc_open(pid, flags, p, err);
	if (ret) {
		rtt_msg("%s", err);
		return ret;
	}
	if (!(flags & RTT_OPEN_DEAD) && p->state != RTT_ALIVE) {
		rtt_msg("process %d is exiting", pid);
		rtt_proc_close(p);
		return -ESRCH;
	}
	return 0;
}

/* The instance argument of a command: its name, "-" for the top one. */
static const char *rtt_iarg(const char *inst)
{
	return inst && *inst ? inst : "-";
}

/*
 * Send a command; on failure print the process's message and return
 * the negative errno.
 */
static int rtt_cmd(struct rtt_proc *p, char **reply, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int rtt_cmd(struct rtt_proc *p, char **reply, const char *fmt, ...)
{
	char line[RT_CTL_CMD_MAX + 1], err[RTT_ERR_MAX];
	va_list ap;
	int n, ret;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		rtt_msg("command too long (more than %d bytes)",
			RT_CTL_CMD_MAX - 1);
		return -E2BIG;
	}
	ret = rtt_command(p, RTT_CMD_TIMEOUT_MS, reply, err, "%s", line);
	if (ret)
		rtt_msg("process %d: %s", p->pid, err);
	return ret;
}

/* Check that an instance exists: its slot, or -ENOENT after a message. */
static int rtt_find_inst(struct rtt_proc *p, const char *inst)
{
	int i = rtt_inst_find(p, inst);

	if (i < 0 && inst && *inst && strcmp(inst, "-"))
		rtt_msg("process %d has no instance '%s'", p->pid, inst);
	else if (i < 0)
		rtt_msg("process %d has no trace buffer yet", p->pid);
	return i;
}

static int rtt_load_events(struct rtt_proc *p, struct rtt_events **out,
			   bool quiet)
{
	char err[RTT_ERR_MAX], *text;
	struct rtt_events *ev;
	size_t len;
	int ret;

	*out = NULL;
	ret = rtt_events_text(p, &text, &len, err);
	if (ret) {
		if (!quiet)
			rtt_msg("%s", err);
		/* its files gone: the process exited meanwhile */
		return ret == -ENOENT ? -ESRCH : ret;
	}
	ev = rtt_events_new();
	if (!ev) {
		free(text);
		rtt_msg("out of memory");
		return -ENOMEM;
	}
	ret = rtt_events_parse_file(ev, text, err, sizeof(err));
	free(text);
	if (ret) {
		if (!quiet)
			rtt_msg("%s.events: %s", p->base, err);
		rtt_events_free(ev);
		return ret;
	}
	*out = ev;
	return 0;
}

static int rtt_load_syms(struct rtt_proc *p, struct rtt_syms **out)
{
	char err[RTT_ERR_MAX], *text;
	size_t len;
	int ret;

	*out = NULL;
	ret = rtt_syms_text(p, &text, &len, err);
	if (ret) {
		rtt_msg("%s", err);
		return ret;
	}
	if (!text)
		return 0;
	ret = rtt_syms_parse(text, out);
	free(text);
	if (ret)
		rtt_msg("out of memory");
	return ret;
}

/* The names of trace_options, in enum rt_opt order. */
static const char *const rtt_opt_names[RT_OPT_NR] = {
	[RT_OPT_PRINT_PARENT] = "print-parent",
	[RT_OPT_SYM_OFFSET] = "sym-offset",
	[RT_OPT_SYM_ADDR] = "sym-addr",
	[RT_OPT_VERBOSE] = "verbose",
	[RT_OPT_RAW] = "raw",
	[RT_OPT_HEX] = "hex",
	[RT_OPT_BIN] = "bin",
	[RT_OPT_CONTEXT_INFO] = "context-info",
	[RT_OPT_LATENCY_FMT] = "latency-format",
	[RT_OPT_RECORD_CMD] = "record-cmd",
	[RT_OPT_RECORD_TGID] = "record-tgid",
	[RT_OPT_OVERWRITE] = "overwrite",
	[RT_OPT_IRQ_INFO] = "irq-info",
	[RT_OPT_MARKERS] = "markers",
	[RT_OPT_FUNCGRAPH_OVERRUN] = "funcgraph-overrun",
	[RT_OPT_FUNCGRAPH_CPU] = "funcgraph-cpu",
	[RT_OPT_FUNCGRAPH_OVERHEAD] = "funcgraph-overhead",
	[RT_OPT_FUNCGRAPH_PROC] = "funcgraph-proc",
	[RT_OPT_FUNCGRAPH_DURATION] = "funcgraph-duration",
	[RT_OPT_FUNCGRAPH_ABSTIME] = "funcgraph-abstime",
	[RT_OPT_FUNCGRAPH_TAIL] = "funcgraph-tail",
	[RT_OPT_STACKTRACE] = "stacktrace",
};

static const char *const rtt_tracer_names[RT_TRACER_NR] = {
	[RT_TRACER_NOP] = "nop",
	[RT_TRACER_FUNCTION] = "function",
	[RT_TRACER_GRAPH] = "function_graph",
	[RT_TRACER_USERSOFF] = "usersoff",
};

/* The options a process starts with (trace.c's defaults). */
static uint64_t rtt_default_opts(void)
{
	return RT_OPT(RT_OPT_PRINT_PARENT) | RT_OPT(RT_OPT_CONTEXT_INFO) |
	       RT_OPT(RT_OPT_RECORD_CMD) | RT_OPT(RT_OPT_OVERWRITE) |
	       RT_OPT(RT_OPT_IRQ_INFO) | RT_OPT(RT_OPT_MARKERS) |
	       RT_OPT(RT_OPT_FUNCGRAPH_CPU) |
	       RT_OPT(RT_OPT_FUNCGRAPH_OVERHEAD) |
	       RT_OPT(RT_OPT_FUNCGRAPH_DURATION);
}

/* trace_options text ("opt" or "noopt" per line) to RT_OPT() bits. */
static uint64_t rtt_parse_opts(const char *text, uint64_t opts)
{
	const char *line = text;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		bool on = true;
		int i;

		if (len > 2 && !strncmp(line, "no", 2)) {
			for (i = 0; i < RT_OPT_NR; i++)
				if (strlen(rtt_opt_names[i]) == len - 2 &&
				    !strncmp(line + 2, rtt_opt_names[i],
					     len - 2))
					break;
			if (i < RT_OPT_NR) {
				on = false;
				line += 2;
				len -= 2;
			}
		}
		for (i = 0; i < RT_OPT_NR; i++)
			if (strlen(rtt_opt_names[i]) == len &&
			    !strncmp(line, rtt_opt_names[i], len)) {
				if (on)
					opts |= RT_OPT(i);
				else
					opts &= ~RT_OPT(i);
			}
		line = eol ? eol + 1 : NULL;
	}
	return opts;
}

/*
 * How the process prints an instance: its options and current tracer. A
 * dead process (or one that does not answer) gets the defaults.
 */
static void rtt_get_cfg(struct rtt_proc *p, const char *inst,
			struct rt_print_cfg *cfg)
{
	char err[RTT_ERR_MAX], *reply = NULL;
	int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->opts = rtt_default_opts();
	cfg->tracer = RT_TRACER_NOP;
	if (!p->writable || rtt_proc_state(p) != RTT_ALIVE)
		return;
	if (!rtt_command(p, RTT_CMD_TIMEOUT_MS, &reply, err, "options %s",
			 rtt_iarg(inst)) &&
	    reply)
		cfg->opts = rtt_parse_opts(reply, cfg->opts);
	free(reply);
	reply = NULL;
	/* "tracer INST" without a name: the current tracer */
	if (!rtt_command(p, RTT_CMD_TIMEOUT_MS, &reply, err, "tracer %s",
			 rtt_iarg(inst)) &&
	    reply) {
		reply[strcspn(reply, "\n")] = '\0';
		for (i = 0; i < RT_TRACER_NR; i++)
			if (!strcmp(reply, rtt_tracer_names[i]))
				cfg->tracer = i;
	}
	free(reply);
}

/*
 * An event argument as set_event takes it: "sys:event", "sys:*",
 * "event" or "sys", each resolved against the process's events into a
 * (system, event) pair, either possibly "*". -ENOENT after a message when
 * nothing matches.
 */
static int rtt_resolve_event(struct rtt_proc *p, const struct rtt_events *ev,
			     const char *spec, char *sys, size_t syslen,
			     char *name, size_t namelen)
{
	const char *colon = strchr(spec, ':');
	size_t i;

	if (colon) {
		snprintf(sys, syslen, "%.*s", (int)(colon - spec), spec);
		snprintf(name, namelen, "%s", colon[1] ? colon + 1 : "*");
		if (!sys[0])
			snprintf(sys, syslen, "*");
	} else {
		/* a system name, else an event name */
		snprintf(sys, syslen, "%s", spec);
		snprintf(name, namelen, "*");
		for (i = 0; i < ev->nr; i++)
			if (!strcmp(ev->v[i].system, spec))
				return 0;
		for (i = 0; i < ev->nr; i++)
			if (!strcmp(ev->v[i].name, spec)) {
				snprintf(sys, syslen, "%s", ev->v[i].system);
				snprintf(name, namelen, "%s", spec);
				return 0;
			}
		rtt_msg("unknown event '%s' in process %d", spec, p->pid);
		return -ENOENT;
	}
	for (i = 0; i < ev->nr; i++)
		if ((!strcmp(sys, "*") || !strcmp(ev->v[i].system, sys)) &&
		    (!strcmp(name, "*") || !strcmp(ev->v[i].name, name)))
			return 0;
	rtt_msg("unknown event '%s' in process %d", spec, p->pid);
	return -ENOENT;
}

/*
 * Set an event filter in the process: @arg is "SYS:EVENT EXPR" (or
 * "EVENT EXPR", "SYS EXPR"). A refused expression prints the process's
 * report with the caret.
 */
static int rtt_set_filter(struct rtt_proc *p, const struct rtt_events *ev,
			  const char *inst, const char *spec,
			  const char *expr)
{
	char sys[128], name[128], err[RTT_ERR_MAX];
	int ret;

	ret = rtt_resolve_event(p, ev, spec, sys, sizeof(sys), name,
				sizeof(name));
	if (ret)
		return ret;
	ret = rtt_command(p, RTT_CMD_TIMEOUT_MS, NULL, err, "filter %s %s %s %s",
			  rtt_iarg(inst), sys, name, expr);
	if (ret == -EINVAL && strstr(err, "parse_error")) {
		rtt_msg("bad filter for %s:", spec);
		fprintf(stderr, "%s\n", err);
	} else if (ret) {
		rtt_msg("process %d: filter for %s: %s", p->pid, spec, err);
	}
	return ret;
}

/* Split "SPEC EXPR" at the first blank. */
static int rtt_split_filter(const char *arg, char *spec, size_t len,
			    const char **expr)
{
	size_t n = strcspn(arg, " \t");

	if (n == 0 || n >= len || !arg[n])
		return -EINVAL;
	memcpy(spec, arg, n);
	spec[n] = '\0';
	arg += n;
	while (*arg == ' ' || *arg == '\t')
		arg++;
	if (!*arg)
		return -EINVAL;
	*expr = arg;
	return 0;
}

/* Counters summed over the cpu buffers of @rb. */
struct rtt_counts {
	unsigned long entries;
	unsigned long overrun;
	unsigned long commit_overrun;
	unsigned long dropped;
	unsigned long read;
	unsigned long torn;
};

static void rtt_get_counts(struct ringbuf *rb, struct rtt_counts *c)
{
	int cpu, n = ringbuf_nr_cpus(rb);

	memset(c, 0, sizeof(*c));
	for (cpu = 0; cpu < n; cpu++) {
		c->entries += ringbuf_entries_cpu(rb, cpu);
		c->overrun += ringbuf_overrun_cpu(rb, cpu);
		c->commit_overrun += ringbuf_commit_overrun_cpu(rb, cpu);
		c->dropped += ringbuf_dropped_events_cpu(rb, cpu);
		c->read += ringbuf_read_events_cpu(rb, cpu);
		c->torn += ringbuf_torn_events_cpu(rb, cpu);
	}
}

static unsigned long rtt_lost(const struct rtt_counts *c)
{
	return c->overrun + c->commit_overrun + c->dropped;
}

/* ---- list --------------------------------------------------------------- */

static const char rtt_list_help[] =
	"Without -e: the processes that published a trace in the publish\n"
	"directory, one per line: PID, NAME, STATE (running, exiting, or dead:\n"
	"the files a crashed or killed process left, see 'ringtrace extract'),\n"
	"BUFFERS (its instances), EVENTS (how many are enabled) and LOST (events\n"
	"lost so far: overwritten, dropped, or lost to nested writes).\n"
	"With -e PID: every event of that process with its format.\n"
	"\n"
	"  -e, --events PID   list the events of PID and their formats\n"
	"  -h, --help         this text\n";

static void rtt_list_one(const struct rtt_entry *e)
{
	static const char *const states[] = { "running", "dead", "exiting" };
	char err[RTT_ERR_MAX], path[PATH_MAX + 8], bufs[256], events[16];
	char lost[32];
	struct rtt_proc p;
	unsigned long nlost = 0;
	bool counted = false;
	size_t bl = 0;
	int i, ret;

	snprintf(path, sizeof(path), "%s.ctl", e->base);
	ret = rtt_proc_open_path(path, RTT_OPEN_DEAD, &p, err);
	if (ret) {
		printf("%-8d %-16s %-8s %s\n", e->pid, "?",
		       ret == -EPROTO ? "corrupt" : "unreadable", "-");
		rtt_msg("%s", err);
		return;
	}
	bufs[0] = '\0';
	for (i = 0; i < RT_CTL_MAX_INSTANCES; i++) {
		struct ringbuf *rb;
		char name[PATH_MAX];
		int n;

		if (rtt_inst_path(&p, i, false, name, NULL))
			continue;
		/* the instance names, comma-separated, cut to the column */
		n = snprintf(bufs + bl, sizeof(bufs) - bl, "%s%.63s",
			     bl ? "," : "", i ? p.ctl->inst[i].name : "top");
		if (n > 0)
			bl += (size_t)n < sizeof(bufs) - bl ?
				      (size_t)n :
				      sizeof(bufs) - bl - 1;
		if (!rtt_attach(&p, i, false, 0, NULL, &rb, err)) {
			struct rtt_counts c;

			rtt_get_counts(rb, &c);
			nlost += rtt_lost(&c);
			counted = true;
			ringbuf_free(rb);
		}
	}
	snprintf(events, sizeof(events), "-");
	if (p.state == RTT_ALIVE && p.writable) {
		char *reply = NULL;

		if (!rtt_command(&p, 1000, &reply, err, "show_set_event -") &&
		    reply) {
			int n = 0;
			char *s;

			for (s = reply; *s; s++)
				if (*s == '\n')
					n++;
			snprintf(events, sizeof(events), "%d", n);
		}
		free(reply);
	}
	if (counted)
		snprintf(lost, sizeof(lost), "%lu", nlost);
	else
		snprintf(lost, sizeof(lost), "-");
	printf("%-8d %-16.16s %-8s %-20s %6s %10s\n", p.pid, p.ctl->comm,
	       states[p.state], bufs[0] ? bufs : "-", events, lost);
	rtt_proc_close(&p);
}

static int rtt_list_events(const char *arg)
{
	struct rtt_events *ev;
	struct rtt_proc p;
	size_t i;
	int ret;

	ret = rtt_open_pid(arg, RTT_OPEN_DEAD | RTT_OPEN_READONLY, &p);
	if (ret)
		return rtt_exit_code(ret);
	ret = rtt_load_events(&p, &ev, false);
	rtt_proc_close(&p);
	if (ret)
		return rtt_exit_code(ret);
	for (i = 0; i < ev->nr; i++) {
		printf("%s:%s\n", ev->v[i].system, ev->v[i].name);
		fputs(ev->v[i].format, stdout);
		if (ev->v[i].format[0] &&
		    ev->v[i].format[strlen(ev->v[i].format) - 1] != '\n')
			putchar('\n');
		putchar('\n');
	}
	rtt_events_free(ev);
	return fflush(stdout) ? RTT_EXIT_FAIL : RTT_EXIT_OK;
}

static int rtt_do_list(const struct rtt_verb *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[RTT_ERR_MAX];
	const char *events = NULL;
	struct rtt_entry *e;
	size_t n, i;
	int c, ret;

	while ((c = getopt_long(argc, argv, ":e:h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			events = optarg;
			break;
		case 'h':
			return rtt_help(v);
		default:
			return rtt_bad_option(v, argv, c);
		}
	}
	if (optind < argc)
		return rtt_usage(v, "unexpected argument '%s'", argv[optind]);
	if (events)
		return rtt_list_events(events);
	ret = rtt_list(&e, &n, err);
	if (ret) {
		rtt_msg("%s", err);
		return rtt_exit_code(ret);
	}
	printf("%-8s %-16s %-8s %-20s %6s %10s\n", "PID", "NAME", "STATE",
	       "BUFFERS", "EVENTS", "LOST");
	for (i = 0; i < n; i++)
		rtt_list_one(&e[i]);
	free(e);
	return fflush(stdout) ? RTT_EXIT_FAIL : RTT_EXIT_OK;
}

/* ---- pipe / stream ------------------------------------------------------ */

static const char rtt_pipe_help[] =
	"Print the trace of a running process as it is written, like\n"
	"'cat trace_pipe': the records are consumed, merged across cpu buffers\n"
	"in time order, in the kernel's text format. Runs until Ctrl-C or until\n"
	"the process exits (what it left is printed first). Settings given here\n"
	"are applied in the process and stay after the tool exits.\n"
	"\n"
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -e, --event EVENT    enable EVENT first (sys:event, sys:*, event, sys);\n"
	"                       repeatable\n"
	"  -f, --filter 'EVENT EXPR'  set EVENT's filter first (EVENT as for -e,\n"
	"                       a system meaning its subsystem filter); repeatable\n"
	"  -O OPT               set trace option OPT (or noOPT) first; repeatable\n"
	"  -c, --cpu N          only cpu buffer N\n"
	"  -r, --raw            print each event's fields as name=value instead of\n"
	"                       its print format\n"
	"  -s, --stats          print the events read and lost on exit (stderr);\n"
	"                       printed anyway when events were lost\n"
	"  -h, --help           this text\n";

struct rtt_strv {
	const char **v;
	int nr;
};

static int rtt_strv_add(struct rtt_strv *s, const char *str)
{
	const char **nv = realloc(s->v, (size_t)(s->nr + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	nv[s->nr++] = str;
	s->v = nv;
	return 0;
}

/* Apply -O, -f and -e in the process. */
static int rtt_apply_settings(struct rtt_proc *p, const struct rtt_events *ev,
			      const char *inst, const struct rtt_strv *opts,
			      const struct rtt_strv *events,
			      const struct rtt_strv *filters)
{
	int i, ret;

	for (i = 0; i < opts->nr; i++) {
		ret = rtt_cmd(p, NULL, "option %s %s", rtt_iarg(inst),
			      opts->v[i]);
		if (ret)
			return ret;
	}
	for (i = 0; i < filters->nr; i++) {
		char spec[256];
		const char *expr;

		if (rtt_split_filter(filters->v[i], spec, sizeof(spec),
				     &expr)) {
			rtt_msg("bad filter argument '%s': expected 'SYS:EVENT EXPR'",
				filters->v[i]);
			return -EINVAL;
		}
		ret = rtt_set_filter(p, ev, inst, spec, expr);
		if (ret)
			return ret;
	}
	/* the events last: their first records are filtered already */
	for (i = 0; i < events->nr; i++) {
		ret = rtt_cmd(p, NULL, "set_event %s %s", rtt_iarg(inst),
			      events->v[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Everything pipe keeps while it runs. */
struct rtt_pipe {
	struct rtt_proc p;
	const char *inst;
	int slot;
	int cpu;
	struct ringbuf *rb;
	uint32_t buf_gen;
	uint32_t ctl_gen;
	struct rtt_events *ev;
	struct rtt_syms *syms;
	struct rtt_print_ctx ctx;
	struct rt_printer_ops ops;
	struct rt_print_cfg cfg;
	struct rt_pipe_state *st;
	struct rtt_counts done; /* of buffers left behind after a change */
	bool out_closed;
};

/* Print what the buffer holds now. Return: lines, or negative errno. */
static int rtt_pipe_read(struct rtt_pipe *pp)
{
	int n = rt_print_pipe(pp->rb, pp->cpu, &pp->cfg, &pp->ops, pp->st,
			      stdout);

	if (n >= 0 && fflush(stdout) != 0)
		n = -errno;
	if (n == -EPIPE || (n < 0 && errno == EPIPE)) {
		pp->out_closed = true;
		return 0;
	}
	if (n < 0) {
		rtt_msg("writing the trace: %s", strerror(-n));
		return n;
	}
	return n;
}

static int rtt_pipe_drain(struct rtt_pipe *pp)
{
	int n = 0;

	while (!pp->out_closed && (n = rtt_pipe_read(pp)) > 0)
		;
	return pp->out_closed ? 0 : n;
}

/* The buffer was replaced (a new clock or size): read the rest of the
 * old one, attach the new one. */
static int rtt_pipe_reattach(struct rtt_pipe *pp)
{
	char err[RTT_ERR_MAX];
	struct rtt_counts c;
	struct ringbuf *rb;
	int ret;

	ret = rtt_pipe_drain(pp);
	if (ret < 0)
		return ret;
	ret = rtt_attach(&pp->p, pp->slot, false, RTT_ATTACH_CONSUME,
			 &pp->buf_gen, &rb, err);
	if (ret) {
		rtt_msg("%s", err);
		return ret;
	}
	rtt_get_counts(pp->rb, &c);
	pp->done.read += c.read;
	pp->done.overrun += c.overrun;
	pp->done.dropped += c.dropped;
	pp->done.commit_overrun += c.commit_overrun;
	ringbuf_free(pp->rb);
	pp->rb = rb;
	return 0;
}

/* New events registered in the process: read the formats again. */
static void rtt_pipe_reload_events(struct rtt_pipe *pp)
{
	struct rtt_events *ev;

	/* quiet: the process may be exiting, its files gone */
	if (rtt_load_events(&pp->p, &ev, true))
		return;
	/* unregistered events may still have records to print */
	rtt_events_keep(ev, pp->ev);
	rtt_events_set_syms(ev, pp->syms);
	rtt_events_free(pp->ev);
	pp->ev = ev;
	pp->ctx.ev = ev;
}

static int rtt_do_pipe(const struct rtt_verb *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "instance", required_argument, NULL, 'i' },
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "raw", no_argument, NULL, 'r' },
		{ "stats", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtt_strv topts = { 0 }, events = { 0 }, filters = { 0 };
	struct rtt_pipe pp;
	char err[RTT_ERR_MAX];
	bool raw = false, stats = false, exited = false;
	unsigned long cpu = (unsigned long)-1;
	struct rtt_counts c;
	int ch, ret, code = RTT_EXIT_OK;

	memset(&pp, 0, sizeof(pp));
	while ((ch = getopt_long(argc, argv, ":i:e:f:c:O:rsh", opts, NULL)) !=
	       -1) {
		switch (ch) {
		case 'i':
			pp.inst = optarg;
			break;
		case 'e':
			rtt_strv_add(&events, optarg);
			break;
		case 'f':
			rtt_strv_add(&filters, optarg);
			break;
		case 'O':
			rtt_strv_add(&topts, optarg);
			break;
		case 'c':
			if (rtt_parse_uint(optarg, 65535, &cpu))
				return rtt_usage(v, "bad cpu '%s'", optarg);
			break;
		case 'r':
			raw = true;
			break;
		case 's':
			stats = true;
			break;
		case 'h':
			return rtt_help(v);
		default:
			return rtt_bad_option(v, argv, ch);
		}
	}
	if (optind != argc - 1)
		return rtt_usage(v, optind < argc ? "too many arguments" :
						    "missing the process id");
	ret = rtt_open_pid(argv[optind], 0, &pp.p);
	if (ret)
		return rtt_exit_code(ret);
	pp.slot = rtt_find_inst(&pp.p, pp.inst);
	if (pp.slot < 0) {
		ret = -ENOENT;
		goto out;
	}
	/* the generation first: a change after it reloads the events */
	pp.ctl_gen = rtt_ctl_gen(&pp.p);
	ret = rtt_load_events(&pp.p, &pp.ev, false);
	if (ret)
		goto out;
	ret = rtt_apply_settings(&pp.p, pp.ev, pp.inst, &topts, &events,
				 &filters);
	if (ret)
		goto out;
	ret = rtt_load_syms(&pp.p, &pp.syms);
	if (ret)
		goto out;
	rtt_events_set_syms(pp.ev, pp.syms);
	rtt_get_cfg(&pp.p, pp.inst, &pp.cfg);
	pp.ctx.ev = pp.ev;
	pp.ctx.syms = pp.syms;
	pp.ctx.cmdlines = pp.p.ctl->cmdlines;
	pp.ctx.raw = raw;
	rtt_printer_ops(&pp.ctx, &pp.ops);
	ret = rtt_attach(&pp.p, pp.slot, false, RTT_ATTACH_CONSUME, &pp.buf_gen,
			 &pp.rb, err);
	if (ret) {
		rtt_msg("%s", err);
		goto out;
	}
	pp.cpu = RINGBUF_ALL_CPUS;
	if (cpu != (unsigned long)-1) {
		if ((int)cpu >= ringbuf_nr_cpus(pp.rb)) {
			rtt_msg("bad cpu %lu: process %d has cpu buffers 0 to %d",
				cpu, pp.p.pid, ringbuf_nr_cpus(pp.rb) - 1);
			ret = -EINVAL;
			goto out;
		}
		pp.cpu = (int)cpu;
	}
	pp.st = rt_pipe_state_new();
	if (!pp.st) {
		ret = -ENOMEM;
		goto out;
	}
	rtt_catch_signals();
	while (!rtt_stop && !pp.out_closed) {
		uint32_t g;
		int n;

		g = rtt_ctl_gen(&pp.p);
		if (g != pp.ctl_gen) {
			pp.ctl_gen = g;
			rtt_pipe_reload_events(&pp);
		}
		if (rtt_inst_gen(&pp.p, pp.slot) != pp.buf_gen) {
			ret = rtt_pipe_reattach(&pp);
			if (ret)
				break;
		}
		n = rtt_pipe_read(&pp);
		if (n < 0) {
			ret = n;
			break;
		}
		if (n > 0)
			continue;
		n = ringbuf_wait(pp.rb, pp.cpu, 0, 200);
		if (n == -ESRCH || rtt_proc_state(&pp.p) == RTT_DEAD) {
			ret = rtt_pipe_drain(&pp);
			exited = true;
			break;
		}
	}
	/* Ctrl-C stops at once, as cat does: the writer may never let a
	 * drain end */
	rtt_get_counts(pp.rb, &c);
	c.read += pp.done.read;
	c.overrun += pp.done.overrun;
	c.dropped += pp.done.dropped;
	c.commit_overrun += pp.done.commit_overrun;
	if (exited)
		rtt_msg("process %d exited", pp.p.pid);
	if (stats || rtt_lost(&c))
		rtt_msg("%lu events read, %lu lost (overrun %lu, dropped %lu, commit overrun %lu)",
			c.read, rtt_lost(&c), c.overrun, c.dropped,
			c.commit_overrun);
out:
	if (ret)
		code = rtt_exit_code(ret);
	rt_pipe_state_free(pp.st);
	ringbuf_free(pp.rb);
	rtt_events_free(pp.ev);
	rtt_syms_free(pp.syms);
	rtt_proc_close(&pp.p);
	free(topts.v);
	free(events.v);
	free(filters.v);
	return code;
}

/* ---- show --------------------------------------------------------------- */

static const char rtt_show_help[] =
	"Print the trace of a process like 'cat trace': the header, then every\n"
	"record the buffer holds, without consuming them. Works on the files\n"
	"a dead process left too (with the default options).\n"
	"\n"
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -s, --snapshot       the snapshot buffer, as it is (see 'snapshot')\n"
	"  -r, --raw            print each event's fields as name=value\n"
	"  -h, --help           this text\n";

/* Print a buffer of @p with the header, like cat trace. */
static int rtt_show_buffer(struct rtt_proc *p, const char *inst, int slot,
			   bool snap, bool raw)
{
	struct rtt_events *ev = NULL;
	struct rtt_syms *syms = NULL;
	struct rtt_print_ctx ctx;
	struct rt_printer_ops ops;
	struct rt_print_cfg cfg;
	struct ringbuf *rb = NULL;
	char err[RTT_ERR_MAX];
	int ret;

	ret = rtt_load_events(p, &ev, false);
	if (ret)
		return ret;
	ret = rtt_load_syms(p, &syms);
	if (ret)
		goto out;
	rtt_events_set_syms(ev, syms);
	rtt_get_cfg(p, inst, &cfg);
	ret = rtt_attach(p, slot, snap, 0, NULL, &rb, err);
	if (ret) {
		rtt_msg("%s", err);
		goto out;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.ev = ev;
	ctx.syms = syms;
	ctx.cmdlines = p->ctl->cmdlines;
	ctx.raw = raw;
	rtt_printer_ops(&ctx, &ops);
	signal(SIGPIPE, SIG_IGN);
	ret = rt_print_view(rb, &cfg, &ops, stdout);
	if (!ret && fflush(stdout) != 0)
		ret = -errno;
	if (ret == -EPIPE || (ret == -EIO && errno == EPIPE))
		ret = 0;
	else if (ret)
		rtt_msg("writing the trace: %s", strerror(-ret));
out:
	ringbuf_free(rb);
	rtt_events_free(ev);
	rtt_syms_free(syms);
	return ret;
}

static int rtt_do_show(const struct rtt_verb *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "instance", required_argument, NULL, 'i' },
		{ "snapshot", no_argument, NULL, 's' },
		{ "raw", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *inst = NULL;
	bool snap = false, raw = false;
	struct rtt_proc p;
	int c, ret, slot;

	while ((c = getopt_long(argc, argv, ":i:srh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			inst = optarg;
			break;
		case 's':
			snap = true;
			break;
		case 'r':
			raw = true;
			break;
		case 'h':
			return rtt_help(v);
		default:
			return rtt_bad_option(v, argv, c);
		}
	}
	if (optind != argc - 1)
		return rtt_usage(v, optind < argc ? "too many arguments" :
						    "missing the process id");
	ret = rtt_open_pid(argv[optind], RTT_OPEN_DEAD, &p);
	if (ret)
		return rtt_exit_code(ret);
	slot = rtt_find_inst(&p, inst);
	ret = slot < 0 ? -ENOENT : rtt_show_buffer(&p, inst, slot, snap, raw);
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

/* ---- control verbs ------------------------------------------------------ */

/*
 * The options every control verb takes (-i, -h), then the pid: opens the
 * process. Returns -1 to go on, else the exit code (help, usage).
 */
static int rtt_ctl_args(const struct rtt_verb *v, int argc, char **argv,
			const char *extra, int *flag, const char **inst,
			int min_args, int max_args, struct rtt_proc *p)
{
	static const struct option opts[] = {
		{ "instance", required_argument, NULL, 'i' },
		{ "free", no_argument, NULL, 'F' },
		{ "clear", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, n, ret;

	*inst = NULL;
	/* filter's expression may hold words that start with '-': the
	 * options stop at the pid */
	while ((c = getopt_long(argc, argv,
				strcmp(v->name, "filter") &&
						strcmp(v->name, "trigger") ?
					":i:h" : "+:i:h",
				opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			*inst = optarg;
			break;
		case 'h':
			return rtt_help(v);
		case 'F':
		case 'C':
			if (extra && strchr(extra, c)) {
				*flag = c;
				break;
			}
			optopt = 0;
			return rtt_bad_option(v, argv, '?');
		default:
			return rtt_bad_option(v, argv, c);
		}
	}
	n = argc - optind;
	if (n < 1)
		return rtt_usage(v, "missing the process id");
	if (n - 1 < min_args)
		return rtt_usage(v, "missing an argument");
	if (max_args >= 0 && n - 1 > max_args)
		return rtt_usage(v, "too many arguments");
	ret = rtt_open_pid(argv[optind], 0, p);
	if (ret)
		return rtt_exit_code(ret);
	if (*inst && rtt_find_inst(p, *inst) < 0) {
		rtt_proc_close(p);
		return RTT_EXIT_USAGE;
	}
	optind++;
	return -1;
}

static const char rtt_enable_help[] =
	"Enable (or disable) events in a process, as 'echo EVENT >> set_event'\n"
	"(or '!EVENT'). EVENT is sys:event, sys:*, event or sys; several may\n"
	"be given. An event the process does not have is an error.\n"
	"\n";

static int rtt_do_enable(const struct rtt_verb *v, int argc, char **argv)
{
	bool on = strcmp(v->name, "disable") != 0;
	struct rtt_proc p;
	const char *inst;
	int code, ret = 0, i;

	code = rtt_ctl_args(v, argc, argv, NULL, NULL, &inst, 1, -1, &p);
	if (code >= 0)
		return code;
	for (i = optind; i < argc && !ret; i++) {
		char err[RTT_ERR_MAX];

		ret = rtt_command(&p, RTT_CMD_TIMEOUT_MS, NULL, err,
				  "set_event %s %s%s", rtt_iarg(inst),
				  on ? "" : "!", argv[i]);
		if (ret == -ENOENT)
			rtt_msg("unknown event '%s' in process %d", argv[i],
				p.pid);
		else if (ret)
			rtt_msg("process %d: %s", p.pid, err);
	}
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

static const char rtt_filter_help[] =
	"Set the filter of an event (sys:event or event), or the subsystem\n"
	"filter of a system (sys or sys:*), as 'echo EXPR > filter'. EXPR may\n"
	"be given as several arguments; \"0\" clears the filter. An expression\n"
	"the process refuses is printed with a caret under the error.\n"
	"\n";

static int rtt_do_filter(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_events *ev = NULL;
	struct rtt_proc p;
	const char *inst, *spec;
	char *expr = NULL;
	size_t len = 0;
	int code, ret, i;

	code = rtt_ctl_args(v, argc, argv, NULL, NULL, &inst, 2, -1, &p);
	if (code >= 0)
		return code;
	spec = argv[optind];
	for (i = optind + 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	expr = malloc(len + 1);
	if (!expr) {
		rtt_proc_close(&p);
		rtt_msg("out of memory");
		return RTT_EXIT_FAIL;
	}
	expr[0] = '\0';
	for (i = optind + 1; i < argc; i++) {
		if (i > optind + 1)
			strcat(expr, " ");
		strcat(expr, argv[i]);
	}
	ret = rtt_load_events(&p, &ev, false);
	if (!ret)
		ret = rtt_set_filter(&p, ev, inst, spec, expr);
	rtt_events_free(ev);
	free(expr);
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

/* Verbs that are one command: on, off, clear, buffer-size, tracer,
 * clock. */
static int rtt_do_simple(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_proc p;
	const char *inst, *arg = NULL;
	unsigned long kb;
	int code, ret;
	bool one = !strcmp(v->name, "buffer-size") || !strcmp(v->name, "tracer") ||
		   !strcmp(v->name, "clock");

	code = rtt_ctl_args(v, argc, argv, NULL, NULL, &inst, one ? 1 : 0,
			    one ? 1 : 0, &p);
	if (code >= 0)
		return code;
	if (one)
		arg = argv[optind];
	if (!strcmp(v->name, "on") || !strcmp(v->name, "off")) {
		ret = rtt_cmd(&p, NULL, "tracing_on %s %d", rtt_iarg(inst),
			      !strcmp(v->name, "on"));
	} else if (!strcmp(v->name, "clear")) {
		ret = rtt_cmd(&p, NULL, "clear %s", rtt_iarg(inst));
	} else if (!strcmp(v->name, "buffer-size")) {
		if (rtt_parse_uint(arg, 1ul << 30, &kb) || !kb) {
			rtt_proc_close(&p);
			return rtt_usage(v, "bad size '%s' (KiB per cpu buffer)",
					 arg);
		}
		ret = rtt_cmd(&p, NULL, "buffer_size_kb %s %lu",
			      rtt_iarg(inst), kb);
	} else if (!strcmp(v->name, "tracer")) {
		ret = rtt_cmd(&p, NULL, "tracer %s %s", rtt_iarg(inst), arg);
	} else {
		ret = rtt_cmd(&p, NULL, "clock %s %s", rtt_iarg(inst), arg);
	}
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

static const char rtt_snapshot_help[] =
	"Take a snapshot (swap the live buffer with the snapshot buffer, as\n"
	"'echo 1 > snapshot') and print it like 'cat snapshot'.\n"
	"\n"
	"      --free           free the snapshot buffer instead (echo 0)\n"
	"      --clear          clear the snapshot buffer instead (echo 2)\n";

static int rtt_do_snapshot(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_proc p;
	const char *inst;
	int code, ret, flag = 0, slot;

	code = rtt_ctl_args(v, argc, argv, "FC", &flag, &inst, 0, 0, &p);
	if (code >= 0)
		return code;
	ret = rtt_cmd(&p, NULL, "snapshot %s %d", rtt_iarg(inst),
		      flag == 'F' ? 0 : flag == 'C' ? 2 : 1);
	if (!ret && !flag) {
		slot = rtt_find_inst(&p, inst);
		ret = slot < 0 ? -ENOENT :
				 rtt_show_buffer(&p, inst, slot, true, false);
	}
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

static const char rtt_options_help[] =
	"Without OPT: list the trace options like 'cat trace_options'. With\n"
	"OPT (or noOPT): set them, as 'echo OPT > trace_options'.\n"
	"\n";

static int rtt_do_options(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_proc p;
	const char *inst;
	char *reply = NULL;
	int code, ret = 0, i;

	code = rtt_ctl_args(v, argc, argv, NULL, NULL, &inst, 0, -1, &p);
	if (code >= 0)
		return code;
	if (optind == argc) {
		ret = rtt_cmd(&p, &reply, "options %s", rtt_iarg(inst));
		if (!ret && reply) {
			fputs(reply, stdout);
			if (reply[0] && reply[strlen(reply) - 1] != '\n')
				putchar('\n');
		}
		free(reply);
	}
	for (i = optind; i < argc && !ret; i++) {
		char err[RTT_ERR_MAX];

		ret = rtt_command(&p, RTT_CMD_TIMEOUT_MS, NULL, err,
				  "option %s %s", rtt_iarg(inst), argv[i]);
		if (ret == -EINVAL)
			rtt_msg("unknown option '%s'", argv[i]);
		else if (ret)
			rtt_msg("process %d: %s", p.pid, err);
	}
	rtt_proc_close(&p);
	if (!ret && fflush(stdout))
		ret = -EIO;
	return rtt_exit_code(ret);
}

/* ---- stat --------------------------------------------------------------- */

static const char rtt_stat_help[] =
	"Per cpu buffer statistics, like tracefs's per_cpu/cpuN/stats: entries,\n"
	"overrun, commit overrun, bytes, oldest event ts, now ts, dropped\n"
	"events, read events, read from the buffer's counters. Works on the\n"
	"files a dead process left too.\n"
	"\n";

static void rtt_print_ts(const char *label, uint64_t ts, bool ns)
{
	if (ns)
		printf("%s: %5" PRIu64 ".%06" PRIu64 "\n", label,
		       ts / 1000000000u, (ts % 1000000000u) / 1000u);
	else
		printf("%s: %" PRIu64 "\n", label, ts);
}

static int rtt_do_stat(const struct rtt_verb *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "instance", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[RTT_ERR_MAX];
	const char *inst = NULL;
	struct ringbuf *rb;
	struct rtt_proc p;
	int c, ret, slot, cpu, n;
	uint64_t now;
	bool ns;

	while ((c = getopt_long(argc, argv, ":i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			inst = optarg;
			break;
		case 'h':
			return rtt_help(v);
		default:
			return rtt_bad_option(v, argv, c);
		}
	}
	if (optind != argc - 1)
		return rtt_usage(v, optind < argc ? "too many arguments" :
						    "missing the process id");
	ret = rtt_open_pid(argv[optind], RTT_OPEN_DEAD | RTT_OPEN_READONLY, &p);
	if (ret)
		return rtt_exit_code(ret);
	slot = rtt_find_inst(&p, inst);
	if (slot < 0) {
		rtt_proc_close(&p);
		return RTT_EXIT_USAGE;
	}
	ret = rtt_attach(&p, slot, false, 0, NULL, &rb, err);
	if (ret) {
		rtt_msg("%s", err);
		rtt_proc_close(&p);
		return rtt_exit_code(ret);
	}
	n = ringbuf_nr_cpus(rb);
	now = ringbuf_time_stamp(rb);
	ns = ringbuf_clock(rb) != RINGBUF_CLOCK_TSC;
	for (cpu = 0; cpu < n; cpu++) {
		printf("cpu%d:\n", cpu);
		printf("entries: %lu\n", ringbuf_entries_cpu(rb, cpu));
		printf("overrun: %lu\n", ringbuf_overrun_cpu(rb, cpu));
		printf("commit overrun: %lu\n",
		       ringbuf_commit_overrun_cpu(rb, cpu));
		printf("bytes: %lu\n", ringbuf_bytes_cpu(rb, cpu));
		rtt_print_ts("oldest event ts", ringbuf_oldest_event_ts(rb, cpu),
			     ns);
		rtt_print_ts("now ts", now, ns);
		printf("dropped events: %lu\n",
		       ringbuf_dropped_events_cpu(rb, cpu));
		printf("read events: %lu\n", ringbuf_read_events_cpu(rb, cpu));
	}
	ringbuf_free(rb);
	rtt_proc_close(&p);
	return fflush(stdout) ? RTT_EXIT_FAIL : RTT_EXIT_OK;
}

/* ---- trace.dat writing (record, extract) -------------------------------- */

static int rtt_td_error(const char *path, int err)
{
	if (err == -ENOSPC || err == -EDQUOT || err == -EFBIG)
		rtt_msg("writing %s: %s; the file keeps what its last checkpoint wrote",
			path, strerror(-err));
	else
		rtt_msg("writing %s: %s", path, strerror(-err));
	return err == -EACCES || err == -EPERM ? err : -EIO;
}

/*
 * Open a trace.dat for the process's buffer: formats, symbols, names,
 * clock and uname.
 */
static int rtt_td_open(const char *path, struct ringbuf *rb,
		       const struct rtt_events *ev, const char *kallsyms,
		       const char *cmdlines, const char *clock,
		       struct td_writer **wp)
{
	struct td_writer *w;
	struct utsname u;
	char un[512];
	size_t i;
	int ret;

	ret = td_writer_open(path, (unsigned int)ringbuf_subbuf_size(rb),
			     ringbuf_nr_cpus(rb), &w);
	if (ret) {
		if (ret == -EACCES || ret == -EPERM)
			rtt_msg("permission denied: %s", path);
		else
			rtt_msg("cannot create %s: %s", path, strerror(-ret));
		return ret == -EACCES || ret == -EPERM ? ret : -EIO;
	}
	for (i = 0; i < ev->nr; i++) {
		ret = td_writer_add_format(w, ev->v[i].system, ev->v[i].format);
		if (ret)
			rtt_msg("warning: the format of %s:%s is not in %s: %s",
				ev->v[i].system, ev->v[i].name, path,
				strerror(-ret));
	}
	if (kallsyms && td_writer_set_kallsyms(w, kallsyms))
		rtt_msg("warning: the symbols are not in %s: a malformed line",
			path);
	if (cmdlines)
		td_writer_set_cmdlines(w, cmdlines);
	if (clock && clock[0] && td_writer_set_clock(w, clock))
		rtt_msg("warning: bad clock name '%s'", clock);
	if (uname(&u) == 0) {
		snprintf(un, sizeof(un), "%s %s %s %s %s", u.sysname,
			 u.nodename, u.release, u.version, u.machine);
		td_writer_set_uname(w, un);
	}
	*wp = w;
	return 0;
}

/*
 * Count the records of a page (events/s and the final tally), and those
 * of the function tracers (@fn_ids: ftrace:function and
 * ftrace:funcgraph_exit, -1 when unknown).
 */
struct rtt_tally {
	unsigned long records;
	unsigned long calls;
	int fn_ids[2];
};

static void rtt_count_cb(const struct td_record *rec, void *arg)
{
	struct rtt_tally *t = arg;
	uint16_t type;

	t->records++;
	if (rec->len >= sizeof(type)) {
		memcpy(&type, rec->data, sizeof(type));
		if (type == t->fn_ids[0] || type == t->fn_ids[1])
			t->calls++;
	}
}

/* ---- record ------------------------------------------------------------- */

/* Bytes this process wrote (wchar of /proc/self/io), or @dflt. */
static uint64_t rtt_self_wchar(uint64_t dflt)
{
	unsigned long long v;
	char line[128];
	FILE *f = fopen("/proc/self/io", "re");

	if (!f)
		return dflt;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "wchar: %llu", &v) == 1)
			dflt = v;
	fclose(f);
	return dflt;
}

static const char rtt_record_help[] =
	"Record the trace of a process into a trace.dat that 'trace-cmd\n"
	"report' and 'ringtrace report' read: whole pages of its buffer,\n"
	"with the event formats, symbols, thread names and clock. Either\n"
	"attach to a running process (-P) or start COMMAND with the events and\n"
	"tracer set in its environment (RINGTRACE_EVENTS, RINGTRACE_TRACER) and\n"
	"record until it exits; COMMAND is held before its main() until the\n"
	"recorder is attached, so nothing it does is missed. Ctrl-C stops and\n"
	"leaves a complete file. Each page is written once: where the file\n"
	"system allows (ext4, XFS), the file is written in place and a\n"
	"checkpoint each second rewrites only its header. A progress line\n"
	"(events/s, MB written, events lost) is refreshed every second on\n"
	"stderr. Events the buffer lost (overwritten, or refused when full\n"
	"with nooverwrite) are counted, marked in the file where the records\n"
	"go on, and reported. With -P, the buffer is cleared first (as\n"
	"trace-cmd record does), and events and a tracer set here are\n"
	"switched off again at the end.\n"
	"\n"
	"  -o, --output FILE    the trace.dat (default: trace.dat)\n"
	"  -P, --pid PID        record a running process\n"
	"  -e, --event EVENT    enable EVENT (sys:event, sys:*, event, sys);\n"
	"                       repeatable\n"
	"  -p, --tracer NAME    the tracer: nop, function, function_graph,\n"
	"                       usersoff\n"
	"  -O OPT               set trace option OPT (or noOPT); repeatable\n"
	"  -b, --buffer-size KB  the size of each cpu buffer (default with\n"
	"                       COMMAND: 4 to 32 MiB, by the number of cpus;\n"
	"                       with -P: unchanged)\n"
	"  -l, --filter FUNC    trace only the functions FUNC names (a glob,\n"
	"                       as set_ftrace_filter); repeatable\n"
	"  -n, --notrace FUNC   do not trace FUNC (set_ftrace_notrace);\n"
	"                       repeatable\n"
	"  -g, --graph-function FUNC  function_graph: only FUNC and what it\n"
	"                       calls (set_graph_function); repeatable\n"
	"      --max-graph-depth N  function_graph: N levels at most (0: no\n"
	"                       limit)\n"
	"      --preload[=LIB]  preload libringtrace (or LIB) into COMMAND;\n"
	"                       the default when COMMAND is compiled with\n"
	"                       -finstrument-functions and does not link it\n"
	"      --no-preload     never preload\n"
	"  -c, --follow         also record the programs COMMAND starts that\n"
	"                       load libringtrace (preloaded into every one),\n"
	"                       each into FILE.PID, from their start\n"
	"  -i, --instance NAME  record that instance (with -P)\n"
	"  -q, --quiet          no progress line\n"
	"  -h, --help           this text\n";

/* Pages moved between two looks at the clock and the checkpoints. */
#define RTT_RECORD_BATCH 256

/* Pages of one cpu buffer taken before the next one's turn. */
#define RTT_RECORD_BURST 64

/**
 * struct rtt_record - a recording in progress
 * @ev: the process's events (the formats in the file)
 * @ctl_gen: the control file's generation when they were read
 * @syms: its symbols file, @cmdl its thread names, as last read
 * @start: when the recording started (ms), @last the last progress line
 * @last_events: the events recorded at the last progress line
 * @exited: the process exited
 * @quiet_written: the summary gives the bytes of this file, not those
 *	the tool wrote (a followed process)
 * @out_path: @out when the recording owns it
 * @dropped: per cpu buffer, the writes it refused (a full buffer in
 *	producer/consumer mode) as counted when last looked at
 * @marked: per cpu buffer, how many of @dropped the file marks already
 * @caught_up: per cpu buffer, the reader found it without a whole page
 *	since drops were last seen: the next page is newer than them
 */
struct rtt_record {
	const char *out;
	struct rtt_proc p;
	struct ringbuf *rb;
	struct td_writer *w;
	struct rtt_events *ev;
	uint32_t ctl_gen;
	char *syms;
	char *cmdl;
	uint64_t start;
	uint64_t last;
	unsigned long last_events;
	bool exited;
	unsigned long *dropped;
	unsigned long *marked;
	bool *caught_up;
	int nr_cpus;
	struct rtt_tally tally;
	unsigned long events;
	unsigned long missed;
	uint64_t ckpt_bytes;
	bool quiet;
	bool quiet_written;
	bool tty;
	char *out_path;
};

/*
 * Mark @n events dropped before @page as the kernel marks overwritten
 * ones: RINGBUF_MISSED_EVENTS, and the count after the data when there
 * is room (added to a count the page has already).
 */
static void rtt_mark_dropped(void *page, size_t size, unsigned long n)
{
	struct ringbuf_data_page *dp = page;
	uint64_t commit = dp->commit, len = commit & RINGBUF_COMMIT_MASK;
	unsigned char *at = (unsigned char *)dp->data + len;
	uint64_t count;

	if (commit & RINGBUF_MISSED_STORED) {
		memcpy(&count, at, sizeof(count));
		count += n;
		memcpy(at, &count, sizeof(count));
	} else if (!(commit & RINGBUF_MISSED_EVENTS) &&
		   size - RINGBUF_PAGE_HDR_SIZE - len >= sizeof(count)) {
		count = n;
		memcpy(at, &count, sizeof(count));
		commit |= RINGBUF_MISSED_STORED;
	}
	dp->commit = commit | RINGBUF_MISSED_EVENTS;
}

/*
 * Move at most @max pages into the file: the pages the writer has left
 * (@full), or whatever the buffers hold (!@full), up to a stage of pages
 * of each cpu buffer in turn, read straight into the writer's staging
 * (an empty cpu buffer costs one look a turn, not one a page). Writes a
 * full buffer refused (producer/consumer mode) are marked on the first
 * page read after the reader caught up with the writer, which holds
 * records written after them. Return: the pages moved, or a negative
 * errno.
 */
static int rtt_record_pages(struct rtt_record *r, int full, int max)
{
	size_t size = ringbuf_subbuf_size(r->rb);
	int cpu, ret, n, moved = 0;
	bool any;

	do {
		any = false;
		for (cpu = 0; cpu < r->nr_cpus; cpu++) {
			for (n = 0; n < RTT_RECORD_BURST; n++) {
				struct rtt_tally t = r->tally;
				unsigned long missed = 0, d;
				void *page;

				if (moved >= max)
					return moved;
				d = ringbuf_dropped_events_cpu(r->rb, cpu);
				if (d != r->dropped[cpu]) {
					r->dropped[cpu] = d;
					r->caught_up[cpu] = false;
				}
				page = td_writer_page_slot(r->w, cpu);
				if (!page)
					return -errno;
				if (ringbuf_read_page(r->rb, page, size, cpu,
						      full) < 0) {
					r->caught_up[cpu] = true;
					break;
				}
				any = true;
				if (r->marked[cpu] != r->dropped[cpu] &&
				    (r->caught_up[cpu] || !full)) {
					rtt_mark_dropped(page, size,
							 r->dropped[cpu] -
								 r->marked[cpu]);
					r->marked[cpu] = r->dropped[cpu];
				}
				/* checked and counted in one pass */
				t.records = t.calls = 0;
				ret = td_writer_commit_slot(r->w, cpu,
							    rtt_count_cb,
							    &missed, &t);
				if (ret == -EINVAL) {
					rtt_msg("cpu %d: a malformed page skipped",
						cpu);
					continue;
				}
				if (ret)
					return ret;
				moved++;
				r->tally.records += t.records;
				r->tally.calls += t.calls;
				r->events += t.records;
				if (missed != TD_MISSED_UNKNOWN)
					r->missed += missed;
			}
		}
	} while (any);
	return moved;
}

/*
 * A checkpoint each second (@timed). Writing in place, a checkpoint
 * writes the header alone; otherwise it copies the whole file, so it is
 * only taken when the data has doubled since the last (which keeps the
 * copying linear in the size), and at the end.
 */
static int rtt_record_ckpt(struct rtt_record *r, bool timed)
{
	uint64_t bytes;
	size_t len;
	char *cmdl;
	int ret;

	td_writer_stats(r->w, NULL, &bytes);
	if (td_writer_in_place(r->w) ? !timed : bytes < 2 * r->ckpt_bytes)
		return 0;
	/* threads started meanwhile */
	if (!rtt_cmdlines_text(&r->p, &cmdl, &len)) {
		td_writer_set_cmdlines(r->w, cmdl);
		free(cmdl);
	}
	ret = td_writer_checkpoint(r->w);
	if (!ret)
		r->ckpt_bytes = bytes > 32768 ? bytes : 32768;
	return ret;
}

static void rtt_record_progress(struct rtt_record *r, double rate)
{
	struct rtt_counts c;
	uint64_t bytes = 0;

	if (r->quiet)
		return;
	rtt_get_counts(r->rb, &c);
	td_writer_stats(r->w, NULL, &bytes);
	fprintf(stderr,
		"%sringtrace: %.0f events/s, %.1f MB written, %lu events lost%s",
		r->tty ? "\r" : "", rate, (double)bytes / 1e6, rtt_lost(&c),
		r->tty ? "\033[K" : "\n");
}

/*
 * A program registers its events as it loads, after the library
 * published its first events file: wait until the file has not changed
 * for 20 ms (at most a second), so that the formats read next are all of
 * them. The buffer keeps what is written meanwhile.
 */
static void rtt_settle(struct rtt_proc *p)
{
	uint64_t start = rtt_now_ms(), since = start;
	uint32_t g = rtt_ctl_gen(p);

	while (rtt_now_ms() - since < 20 && rtt_now_ms() - start < 1000 &&
	       rtt_proc_state(p) == RTT_ALIVE) {
		uint32_t n;

		usleep(2000);
		n = rtt_ctl_gen(p);
		if (n != g) {
			g = n;
			since = rtt_now_ms();
		}
	}
}

/* Start COMMAND with the settings in its environment; wait until it
 * publishes its control file. */
static int rtt_record_spawn(char **cmd, const struct rtt_strv *events,
			    const char *tracer, const struct rtt_strv *opts,
			    unsigned long size_kb, const char *preload,
			    bool follow, int *hold, struct rtt_proc *p,
			    pid_t *child)
{
	char err[RTT_ERR_MAX], *ev = NULL, *op = NULL, *tr = NULL, *pl = NULL;
	char hold_env[64], size_env[64], follow_env[64];
	const char *old_pl = getenv("LD_PRELOAD");
	char **envp = NULL;
	size_t n = 0, i, len;
	uint64_t deadline;
	int ret, status, fds[2];

	for (i = 0; environ[i]; i++)
		n++;
	envp = calloc(n + 9, sizeof(*envp));
	if (!envp)
		return -ENOMEM;
	/* the command waits on fds[0] until tracing is set up (rt_hold()) */
	if (pipe2(fds, O_CLOEXEC)) {
		free(envp);
		return -errno;
	}
	/* the read end goes to the command (the write end stays here) */
	if (fcntl(fds[0], F_SETFD, 0)) {
		close(fds[0]);
		close(fds[1]);
		free(envp);
		return -errno;
	}
	n = 0;
	for (i = 0; environ[i]; i++) {
		if ((events->nr && !strncmp(environ[i], "RINGTRACE_EVENTS=", 17)) ||
		    (tracer && !strncmp(environ[i], "RINGTRACE_TRACER=", 17)) ||
		    (opts->nr && !strncmp(environ[i], "RINGTRACE_OPTIONS=", 18)) ||
		    !strncmp(environ[i], "RINGTRACE_HOLD=", 15) ||
		    (size_kb && !strncmp(environ[i], "RINGTRACE_BUF_SIZE_KB=", 22)) ||
		    (preload && !strncmp(environ[i], "LD_PRELOAD=", 11)) ||
		    !strncmp(environ[i], "RINGTRACE_FOLLOW=", 17))
			continue;
		envp[n++] = environ[i];
	}
	/* the library first, then what the user preloads */
	if (preload &&
	    asprintf(&pl, "LD_PRELOAD=%s%s%s", preload,
		     old_pl && *old_pl ? " " : "", old_pl ? old_pl : "") > 0)
		envp[n++] = pl;
	snprintf(hold_env, sizeof(hold_env), "RINGTRACE_HOLD=%d:%d", fds[0],
		 (int)getpid());
	envp[n++] = hold_env;
	if (follow) {
		snprintf(follow_env, sizeof(follow_env),
			 "RINGTRACE_FOLLOW=%d", (int)getpid());
		envp[n++] = follow_env;
	}
	if (size_kb) {
		snprintf(size_env, sizeof(size_env), "RINGTRACE_BUF_SIZE_KB=%lu",
			 size_kb);
		envp[n++] = size_env;
	}
	/* any RINGTRACE_ variable starts the tracer at load: the process
	 * publishes before its main() runs */
	envp[n++] = (char *)"RINGTRACE_PUBLISH=1";
	/* a clean exit leaves the files for us (a short program may be
	 * done before we attach); we remove them when done */
	envp[n++] = (char *)"RINGTRACE_KEEP_FILES=1";
	if (events->nr) {
		for (len = 32, i = 0; i < (size_t)events->nr; i++)
			len += strlen(events->v[i]) + 1;
		ev = malloc(len);
		if (ev) {
			strcpy(ev, "RINGTRACE_EVENTS=");
			for (i = 0; i < (size_t)events->nr; i++) {
				if (i)
					strcat(ev, ",");
				strcat(ev, events->v[i]);
			}
			envp[n++] = ev;
		}
	}
	if (opts->nr) {
		for (len = 32, i = 0; i < (size_t)opts->nr; i++)
			len += strlen(opts->v[i]) + 1;
		op = malloc(len);
		if (op) {
			strcpy(op, "RINGTRACE_OPTIONS=");
			for (i = 0; i < (size_t)opts->nr; i++) {
				if (i)
					strcat(op, ",");
				strcat(op, opts->v[i]);
			}
			envp[n++] = op;
		}
	}
	if (tracer && asprintf(&tr, "RINGTRACE_TRACER=%s", tracer) > 0)
		envp[n++] = tr;
	envp[n] = NULL;
	ret = posix_spawnp(child, cmd[0], NULL, NULL, cmd, envp);
	free(ev);
	free(op);
	free(tr);
	free(pl);
	free(envp);
	close(fds[0]);
	if (ret)
		close(fds[1]);
	else
		*hold = fds[1];
	if (ret) {
		rtt_msg("cannot run '%s': %s", cmd[0], strerror(ret));
		return ret == ENOENT || ret == EACCES ? -EINVAL : -ret;
	}
	deadline = rtt_now_ms() + 10000;
	for (;;) {
		ret = rtt_proc_open(*child, 0, p, err);
		/* published, with its top instance */
		if (!ret && rtt_inst_find(p, NULL) >= 0) {
			rtt_settle(p);
			return 0;
		}
		if (!ret) {
			rtt_proc_close(p);
			ret = -ESRCH;
			snprintf(err, sizeof(err), "no trace buffer yet");
		}
		if (waitpid(*child, &status, WNOHANG) == *child) {
			/* done already: what it left is recorded */
			if (!rtt_proc_open(*child, RTT_OPEN_DEAD, p, err)) {
				if (rtt_inst_find(p, NULL) >= 0)
					return 0;
				rtt_proc_close(p);
			}
			rtt_msg("'%s' (pid %d) exited before publishing its trace: is it linked with libringtrace?",
				cmd[0], (int)*child);
			*child = 0;
			return -ESRCH;
		}
		/* a control file being created reads as corrupt for a
		 * moment: the process fills it after creating it */
		if (ret == -EPROTO && rtt_now_ms() <= deadline && !rtt_stop) {
			usleep(1000);
			continue;
		}
		if (ret != -ESRCH || rtt_now_ms() > deadline || rtt_stop) {
			if (ret == -ESRCH)
				rtt_msg("'%s' (pid %d) did not publish a trace within 10 s: is it linked with libringtrace?",
					cmd[0], (int)*child);
			else
				rtt_msg("%s", err);
			return ret;
		}
		usleep(1000);
	}
}

/* Event specs enabled before recording, to switch back off after. */
static char *rtt_show_set_event(struct rtt_proc *p, const char *inst)
{
	char err[RTT_ERR_MAX], *reply = NULL;

	if (rtt_command(p, RTT_CMD_TIMEOUT_MS, &reply, err, "show_set_event %s",
			rtt_iarg(inst))) {
		free(reply);
		return NULL;
	}
	return reply;
}

static bool rtt_line_in(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *s = text;

	while (s && *s) {
		if (!strncmp(s, line, n) && (s[n] == '\n' || !s[n]))
			return true;
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return false;
}

static void rtt_restore_events(struct rtt_proc *p, const char *inst,
			       const char *before)
{
	char *now = rtt_show_set_event(p, inst), *line, *save = NULL;

	if (!now || !before)
		goto out;
	for (line = strtok_r(now, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char err[RTT_ERR_MAX];

		if (!rtt_line_in(before, line))
			rtt_command(p, RTT_CMD_TIMEOUT_MS, NULL, err,
				    "set_event %s !%s", rtt_iarg(inst), line);
	}
out:
	free(now);
}

/*
 * Events registered since the formats were written (a program registers
 * its events as it loads, after the library published its first events
 * file): read the events file again and add the new formats.
 */
static void rtt_record_formats(struct rtt_record *r, struct rtt_events **evp)
{
	struct rtt_events *ev;
	size_t i;

	/* quiet: the process may be exiting, its files gone */
	if (rtt_load_events(&r->p, &ev, true))
		return;
	for (i = 0; i < ev->nr; i++)
		if (!rtt_events_by_id(*evp, ev->v[i].id))
			td_writer_add_format(r->w, ev->v[i].system,
					     ev->v[i].format);
	/* the formats written stay: they are in the file already */
	rtt_events_keep(ev, *evp);
	rtt_events_free(*evp);
	*evp = ev;
}

/* The file posix_spawnp() runs for @cmd: @cmd itself, or found in PATH. */
static bool rtt_which(const char *cmd, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(cmd, '/')) {
		snprintf(out, len, "%s", cmd);
		return access(out, X_OK) == 0;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p; p = end) {
		size_t n;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if (*end)
			end++;
		if ((int)len <= snprintf(out, len, "%.*s/%s", (int)(n ? n : 1),
					  n ? p : ".", cmd))
			continue;
		if (access(out, X_OK) == 0)
			return true;
	}
	return false;
}

/*
 * Read the dynamic string table of the ELF file @path (64-bit, this
 * machine's byte order): whether it names __cyg_profile_func_enter (the
 * hook -finstrument-functions calls, which the C library defines as a
 * no-op unless libringtrace comes first) and whether it names
 * libringtrace (a library the program is linked with).
 */
static bool rtt_elf_hooks(const char *path, bool *hooks, bool *linked)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, str;
	char *tab = NULL;
	bool ok = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned int i;

	*hooks = *linked = false;
	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr))
		goto out;
	for (i = 0; i < eh.e_shnum; i++) {
		if (pread(fd, &sh, sizeof(sh),
			  (off_t)(eh.e_shoff + (uint64_t)i * sizeof(sh))) !=
		    (ssize_t)sizeof(sh))
			goto out;
		if (sh.sh_type == SHT_DYNSYM)
			break;
	}
	/* no dynamic symbols: a static program, nothing to preload into */
	if (i == eh.e_shnum || sh.sh_link >= eh.e_shnum ||
	    pread(fd, &str, sizeof(str),
		  (off_t)(eh.e_shoff + (uint64_t)sh.sh_link * sizeof(str))) !=
		    (ssize_t)sizeof(str) ||
	    str.sh_size == 0 || str.sh_size > (64u << 20))
		goto out;
	tab = malloc(str.sh_size + 1);
	if (!tab || pread(fd, tab, str.sh_size, (off_t)str.sh_offset) !=
			    (ssize_t)str.sh_size)
		goto out;
	tab[str.sh_size] = 0;
	for (char *s = tab; s < tab + str.sh_size; s += strlen(s) + 1) {
		if (!strcmp(s, "__cyg_profile_func_enter"))
			*hooks = true;
		else if (!strncmp(s, "libringtrace.so", 15))
			*linked = true;
	}
	ok = true;
out:
	free(tab);
	close(fd);
	return ok;
}

/* The libringtrace to preload: installed beside the tool, or built. */
static bool rtt_preload_lib(char *out, size_t len)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			if ((int)len > snprintf(out, len, "%s/%s", self,
						RTT_PRELOAD_INSTALLED) &&
			    access(out, R_OK) == 0)
				return true;
		}
	}
	snprintf(out, len, "%s", RTT_PRELOAD_BUILD);
	return access(out, R_OK) == 0;
}

/*
 * What to preload for COMMAND: @mode 1 (--preload) always, 0 (--no-preload)
 * never, -1 when the program calls the hooks but does not link the library.
 * Returns @lib filled, or NULL.
 */
static const char *rtt_record_preload(const char *cmd, int mode,
				      const char *given, char *lib,
				      size_t len)
{
	char path[PATH_MAX];
	bool hooks = false, linked = false;

	if (!mode)
		return NULL;
	if (mode < 0) {
		if (!rtt_which(cmd, path, sizeof(path)) ||
		    !rtt_elf_hooks(path, &hooks, &linked) || !hooks || linked)
			return NULL;
	}
	if (given) {
		snprintf(lib, len, "%s", given);
		return lib;
	}
	if (rtt_preload_lib(lib, len))
		return lib;
	rtt_msg("warning: %s: libringtrace was not found to preload (give --preload=LIB)",
		cmd);
	return NULL;
}

/*
 * Attach to the buffer of the process's instance @inst (r->p open, r->ev
 * read) and create the file, complete at once: whatever happens next,
 * the path holds a trace.dat that reads.
 */
static int rtt_rec_open(struct rtt_record *r, const char *inst)
{
	char err[RTT_ERR_MAX], clock[32];
	size_t len;
	int c, ret;

	ret = rtt_attach(&r->p, rtt_find_inst(&r->p, inst), false,
			 RTT_ATTACH_CONSUME, NULL, &r->rb, err);
	if (ret) {
		rtt_msg("%s", err);
		return ret;
	}
	r->nr_cpus = ringbuf_nr_cpus(r->rb);
	r->dropped = calloc((size_t)r->nr_cpus, sizeof(*r->dropped));
	r->marked = calloc((size_t)r->nr_cpus, sizeof(*r->marked));
	r->caught_up = calloc((size_t)r->nr_cpus, sizeof(*r->caught_up));
	if (!r->dropped || !r->marked || !r->caught_up)
		return -ENOMEM;
	r->tally.fn_ids[0] = r->tally.fn_ids[1] = -1;
	for (len = 0; len < r->ev->nr; len++) {
		if (strcmp(r->ev->v[len].system, "ftrace"))
			continue;
		if (!strcmp(r->ev->v[len].name, "function"))
			r->tally.fn_ids[0] = r->ev->v[len].id;
		else if (!strcmp(r->ev->v[len].name, "funcgraph_exit"))
			r->tally.fn_ids[1] = r->ev->v[len].id;
	}
	/* what was dropped before the recording is not in it */
	for (c = 0; c < r->nr_cpus; c++)
		r->dropped[c] = r->marked[c] =
			ringbuf_dropped_events_cpu(r->rb, c);
	if (rtt_syms_text(&r->p, &r->syms, &len, err))
		rtt_msg("warning: the trace will have no symbols: %s", err);
	rtt_cmdlines_text(&r->p, &r->cmdl, &len);
	snprintf(clock, sizeof(clock), "%.*s",
		 (int)sizeof(r->p.ctl->clock) - 1, r->p.ctl->clock);
	ret = rtt_td_open(r->out, r->rb, r->ev, r->syms, r->cmdl, clock,
			  &r->w);
	if (ret)
		return ret;
	r->ckpt_bytes = 32768;
	r->start = r->last = rtt_now_ms();
	return td_writer_checkpoint(r->w);
}

/*
 * One turn of a recording: the formats of events registered since, the
 * whole pages the writers left, a checkpoint and a progress line each
 * second. Return: the pages moved, or a negative errno.
 */
static int rtt_rec_turn(struct rtt_record *r)
{
	uint32_t g = rtt_ctl_gen(&r->p);
	uint64_t now;
	int moved, ret;

	if (g != r->ctl_gen) {
		r->ctl_gen = g;
		rtt_record_formats(r, &r->ev);
	}
	moved = rtt_record_pages(r, 1, RTT_RECORD_BATCH);
	if (moved < 0)
		return moved;
	now = rtt_now_ms();
	ret = rtt_record_ckpt(r, now - r->last >= 1000);
	if (ret)
		return ret;
	if (now - r->last >= 1000) {
		double rate = (double)(r->events - r->last_events) * 1000.0 /
			      (double)(now - r->last);

		rtt_record_progress(r, rate);
		r->last_events = r->events;
		r->last = now;
	}
	return moved;
}

/*
 * The end of a recording (@ret: how the turns ended): what the buffer
 * still holds, partial pages included (no more than it holds now, should
 * a live writer keep filling it), the last formats, symbols and thread
 * names, the file completed, the summary line. Return: 0 or a negative
 * errno (reported).
 */
static int rtt_rec_finish(struct rtt_record *r, int ret)
{
	char err[RTT_ERR_MAX];
	uint64_t written = 0;
	long drain = r->nr_cpus;
	size_t len;
	int c;

	for (c = 0; c < r->nr_cpus; c++)
		drain += (long)(ringbuf_size(r->rb, c) /
				ringbuf_subbuf_size(r->rb));
	while (!ret && drain > 0) {
		int moved = rtt_record_pages(r, 0, RTT_RECORD_BATCH);

		if (moved <= 0) {
			ret = moved;
			break;
		}
		drain -= moved;
		ret = rtt_record_ckpt(r, false);
	}
	if (!ret) {
		/* events registered at the end (their files may be gone) */
		if (rtt_ctl_gen(&r->p) != r->ctl_gen)
			rtt_record_formats(r, &r->ev);
		/* the symbols of what was loaded meanwhile */
		if (!r->exited) {
			free(r->syms);
			r->syms = NULL;
			if (!rtt_syms_text(&r->p, &r->syms, &len, err) &&
			    r->syms)
				td_writer_set_kallsyms(r->w, r->syms);
		}
		free(r->cmdl);
		r->cmdl = NULL;
		if (!rtt_cmdlines_text(&r->p, &r->cmdl, &len))
			td_writer_set_cmdlines(r->w, r->cmdl);
		written = td_writer_written(r->w);
		ret = td_writer_close(r->w);
		r->w = NULL;
		if (ret)
			ret = rtt_td_error(r->out, ret);
	} else if (ret == -ENOMEM) {
		rtt_msg("out of memory");
	} else {
		/* a last try with what could be written (the disk may take
		 * a smaller copy) */
		if (ret != -EINVAL)
			td_writer_checkpoint(r->w);
		ret = rtt_td_error(r->out, ret);
	}
	if (r->tty && !r->quiet)
		fputs("\r\033[K", stderr);
	if (!ret) {
		struct rtt_counts cs;
		struct stat st;

		rtt_get_counts(r->rb, &cs);
		if (stat(r->out, &st))
			st.st_size = 0;
		/* the kernel's count, where there is one (followed
		 * processes share it: their own count then) */
		if (!r->quiet_written)
			written = rtt_self_wchar(written);
		rtt_msg("%lu events recorded in %s (%.1f MB, %.1f MB written) in %.1f s; %lu lost",
			r->events, r->out, (double)st.st_size / 1e6,
			(double)written / 1e6,
			(double)(rtt_now_ms() - r->start) / 1000.0,
			rtt_lost(&cs));
	}
	return ret;
}

static void rtt_rec_free(struct rtt_record *r)
{
	free(r->dropped);
	free(r->marked);
	free(r->caught_up);
	td_writer_abort(r->w);
	ringbuf_free(r->rb);
	rtt_proc_close(&r->p);
	rtt_events_free(r->ev);
	free(r->syms);
	free(r->cmdl);
	free(r->out_path);
	memset(r, 0, sizeof(*r));
}

/* ---- record -c: the processes the command starts ------------------------ */

/* Room for index @i in an int array; false: out of memory. */
static bool rtt_grow_ints(int **v, size_t *cap, size_t i)
{
	size_t n = *cap ? 2 * *cap : 16;
	int *nv;

	if (i < *cap)
		return true;
	nv = realloc(*v, n * sizeof(*nv));
	if (!nv)
		return false;
	*v = nv;
	*cap = n;
	return true;
}

/**
 * struct rtt_follow - the descendants of the recorded process that
 *	publish a trace, each recorded into FILE.PID
 * @v: their recordings
 * @nr: how many
 * @cap: entries allocated
 * @seen: the pids looked at already (followed or not)
 * @nr_seen: how many
 * @seen_cap: entries allocated
 * @last_scan: when the publish directory was last listed (ms)
 * @calls: function calls recorded in the files completed
 */
struct rtt_follow {
	struct rtt_record *v;
	size_t nr;
	size_t cap;
	int *seen;
	size_t nr_seen;
	size_t seen_cap;
	uint64_t last_scan;
	unsigned long calls;
};

/* Whether process @pid was started under this recorder (it inherited
 * RINGTRACE_FOLLOW with our pid). */
static bool rtt_follow_ours(int pid)
{
	char path[64], want[64], *buf = NULL;
	size_t len = 0, i;
	bool ours = false;

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	snprintf(want, sizeof(want), "RINGTRACE_FOLLOW=%d", (int)getpid());
	if (rtt_read_file(path, 1 << 20, &buf, &len))
		return false;
	for (i = 0; i < len && !ours; i += strlen(buf + i) + 1)
		ours = !strcmp(buf + i, want);
	free(buf);
	return ours;
}

/* Start recording process @pid into OUT.PID; false to try again later
 * (not ready yet). */
static bool rtt_follow_start(struct rtt_follow *fl, int pid, const char *out)
{
	struct rtt_record *f;
	char err[RTT_ERR_MAX];
	int ret;

	if (fl->nr == fl->cap) {
		size_t n = fl->cap ? 2 * fl->cap : 8;
		struct rtt_record *nv = realloc(fl->v, n * sizeof(*nv));

		if (!nv)
			return true;
		fl->v = nv;
		fl->cap = n;
	}
	f = &fl->v[fl->nr];
	memset(f, 0, sizeof(*f));
	if (rtt_proc_open(pid, 0, &f->p, err))
		return false;
	if (rtt_inst_find(&f->p, NULL) < 0) {
		rtt_proc_close(&f->p);
		return false;
	}
	f->quiet = f->quiet_written = true;
	f->ctl_gen = rtt_ctl_gen(&f->p);
	if (asprintf(&f->out_path, "%s.%d", out, pid) < 0) {
		f->out_path = NULL;
		ret = -ENOMEM;
	} else {
		f->out = f->out_path;
		ret = rtt_load_events(&f->p, &f->ev, true);
	}
	if (!ret)
		ret = rtt_rec_open(f, NULL);
	/* it waits for this before its main() */
	rtt_command(&f->p, RTT_CMD_TIMEOUT_MS, NULL, err, "go -");
	if (ret) {
		rtt_msg("process %d (%s) is not recorded", pid, f->p.ctl->comm);
		rtt_rec_free(f);
		return true;
	}
	fl->nr++;
	return true;
}

/* The end of the recording of follower @i: complete its file, remove the
 * files its process kept. */
static void rtt_follow_stop(struct rtt_follow *fl, size_t i, int ret)
{
	struct rtt_record *f = &fl->v[i];
	char err[RTT_ERR_MAX];

	rtt_rec_finish(f, ret);
	fl->calls += f->tally.calls;
	if (rtt_proc_state(&f->p) == RTT_DEAD && rtt_remove_files(&f->p, err))
		rtt_msg("%s", err);
	rtt_rec_free(f);
	fl->v[i] = fl->v[--fl->nr];
}

/*
 * One turn over the followed processes, and a look at the publish
 * directory every 10 ms for new ones.
 */
static void rtt_follow_turn(struct rtt_follow *fl, int root, const char *out)
{
	struct rtt_entry *e = NULL;
	char err[RTT_ERR_MAX];
	size_t nr = 0, i, j;

	for (i = fl->nr; i-- > 0;) {
		struct rtt_record *f = &fl->v[i];
		int moved = rtt_rec_turn(f);

		if (moved < 0 || rtt_proc_state(&f->p) == RTT_DEAD) {
			f->exited = moved >= 0;
			rtt_follow_stop(fl, i, moved < 0 ? moved : 0);
		}
	}
	if (rtt_now_ms() - fl->last_scan < 10 || rtt_list(&e, &nr, err))
		return;
	fl->last_scan = rtt_now_ms();
	for (i = 0; i < nr; i++) {
		if (e[i].pid == root)
			continue;
		for (j = 0; j < fl->nr_seen && fl->seen[j] != e[i].pid; j++)
			;
		if (j < fl->nr_seen)
			continue;
		if (rtt_follow_ours(e[i].pid) &&
		    !rtt_follow_start(fl, e[i].pid, out))
			continue; /* not ready: next time */
		if (rtt_grow_ints(&fl->seen, &fl->seen_cap, fl->nr_seen))
			fl->seen[fl->nr_seen++] = e[i].pid;
	}
	free(e);
}

/* The end: every followed process's file completed. */
static void rtt_follow_end(struct rtt_follow *fl)
{
	while (fl->nr) {
		struct rtt_record *f = &fl->v[fl->nr - 1];

		f->exited = rtt_proc_state(&f->p) == RTT_DEAD;
		rtt_follow_stop(fl, fl->nr - 1, 0);
	}
	free(fl->v);
	free(fl->seen);
}

/* Largest -b: 4 GiB per cpu buffer. */
#define RTT_MAX_BUF_KB (4ul << 20)

/*
 * How full a cpu buffer is when the recorder wakes, in percent: early,
 * so that the rest of the buffer is the time the recorder may be kept
 * off a cpu before a writer at full speed outruns it.
 */
#define RTT_RECORD_WATERMARK 10

/*
 * The cpu buffer size of a command started by record, unless -b or its
 * own RINGTRACE_BUF_SIZE_KB says otherwise: RTT_RECORD_BUDGET_KB over
 * every cpu buffer (with the spares: four per cpu), from 4 MiB to 32 MiB
 * each, and no more than an eighth of the free space of the publish
 * directory's file system. A function_graph writer at full speed fills
 * 32 MiB in about a tenth of a second; the library's default, 1408 KiB
 * (the kernel's), is sized for events, not for every function call.
 */
#define RTT_RECORD_BUDGET_KB (256ul << 10)
#define RTT_RECORD_MIN_KB (4ul << 10)
#define RTT_RECORD_MAX_KB (32ul << 10)

static unsigned long rtt_record_default_kb(void)
{
	const char *s = getenv("RINGTRACE_BUF_SIZE_KB");
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long kb, free_kb;
	char dir[PATH_MAX];
	struct statvfs sv;

	/* the user's own setting wins (the library checks it) */
	if (s && !rtt_parse_uint(s, RTT_MAX_BUF_KB, &kb) && kb)
		return 0;
	if (cpus < 1)
		cpus = 1;
	kb = RTT_RECORD_BUDGET_KB / (4ul * (unsigned long)cpus);
	if (kb > RTT_RECORD_MAX_KB)
		kb = RTT_RECORD_MAX_KB;
	if (kb < RTT_RECORD_MIN_KB)
		kb = RTT_RECORD_MIN_KB;
	if (!rtt_publish_dir(dir, sizeof(dir)) && !statvfs(dir, &sv)) {
		free_kb = (unsigned long)(sv.f_bavail * sv.f_frsize / 1024);
		if (kb > free_kb / 8 / (4ul * (unsigned long)cpus))
			kb = free_kb / 8 / (4ul * (unsigned long)cpus);
	}
	/* at least the library's default */
	return kb < 1408 ? 1408 : kb;
}

/*
 * The function lists (-l, -n, -g) and max_graph_depth: set in the
 * process before it records. A glob that matches no function is left
 * out with a warning (the process refuses a list with one); a list whose
 * globs all match nothing is an error, since an empty filter would trace
 * every function.
 */
static int rtt_record_lists(struct rtt_proc *p, const struct rtt_strv lists[3],
			    bool depth_set, unsigned long depth)
{
	static const char *const names[3] = { "set_ftrace_filter",
					      "set_ftrace_notrace",
					      "set_graph_function" };
	static const char opt[3] = { 'l', 'n', 'g' };
	char err[RTT_ERR_MAX], line[RT_CTL_CMD_MAX];
	int l, i, ret;

	for (l = 0; l < 3; l++) {
		bool *skip;
		int left = lists[l].nr;

		if (!lists[l].nr)
			continue;
		skip = calloc((size_t)lists[l].nr, sizeof(*skip));
		if (!skip)
			return -ENOMEM;
		/* one glob fewer per round: bounded by the globs */
		for (ret = -EINVAL; ret == -EINVAL && left > 0;) {
			size_t used = 0;

			for (i = 0; i < lists[l].nr; i++)
				if (!skip[i])
					used += (size_t)snprintf(
						line + used,
						used < sizeof(line) ?
							sizeof(line) - used :
							0,
						" %s", lists[l].v[i]);
			if (used >= sizeof(line)) {
				rtt_msg("-%c: too many globs", opt[l]);
				free(skip);
				return -E2BIG;
			}
			ret = rtt_command(p, RTT_CMD_TIMEOUT_MS, NULL, err,
					  "ftrace_list - %s%s", names[l], line);
			if (ret != -EINVAL)
				break;
			rtt_msg("warning: -%c: %s", opt[l], err);
			/* leave out the glob the error names */
			for (i = 0; i < lists[l].nr; i++) {
				char q[300];

				snprintf(q, sizeof(q), "'%s'", lists[l].v[i]);
				if (!skip[i] && strstr(err, q)) {
					skip[i] = true;
					left--;
					break;
				}
			}
			if (i == lists[l].nr)
				break;
		}
		free(skip);
		if (ret == -EINVAL && !left) {
			rtt_msg("-%c: no function matches any of the globs given",
				opt[l]);
			return -EINVAL;
		}
		if (ret) {
			rtt_msg("process %d: %s", p->pid, err);
			return ret;
		}
	}
	if (depth_set &&
	    rtt_cmd(p, NULL, "max_graph_depth - %lu", depth))
		return -EINVAL;
	return 0;
}

/* Whether the recording was of the function or function_graph tracer. */
static bool rtt_function_tracer(const char *tracer, pid_t child)
{
	if (!tracer && child)
		tracer = getenv("RINGTRACE_TRACER");
	return tracer && (!strcmp(tracer, "function") ||
			  !strcmp(tracer, "function_graph"));
}

static int rtt_do_record(const struct rtt_verb *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'P' },
		{ "event", required_argument, NULL, 'e' },
		{ "tracer", required_argument, NULL, 'p' },
		{ "instance", required_argument, NULL, 'i' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "filter", required_argument, NULL, 'l' },
		{ "notrace", required_argument, NULL, 'n' },
		{ "graph-function", required_argument, NULL, 'g' },
		{ "max-graph-depth", required_argument, NULL, 'D' },
		{ "preload", optional_argument, NULL, 'L' },
		{ "no-preload", no_argument, NULL, 'N' },
		{ "follow", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtt_strv events = { 0 }, topts = { 0 }, none = { 0 };
	struct rtt_strv lists[3] = { { 0 } };
	const char *preload_arg = NULL, *preload = NULL;
	char preload_lib[PATH_MAX];
	int preload_mode = -1;
	unsigned long size_kb = 0, depth = 0;
	bool depth_set = false;
	int hold = -1;
	struct rtt_events *ev = NULL;
	struct rtt_record r;
	struct rtt_follow fl;
	char err[RTT_ERR_MAX], *before = NULL;
	const char *pid_arg = NULL, *tracer = NULL, *inst = NULL;
	pid_t child = 0;
	int c, ret, code = RTT_EXIT_OK;
	bool exited = false, follow = false;

	memset(&r, 0, sizeof(r));
	memset(&fl, 0, sizeof(fl));
	r.out = "trace.dat";
	while ((c = getopt_long(argc, argv, "+:o:P:e:p:i:O:qb:l:n:g:ch", opts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			r.out = optarg;
			break;
		case 'b':
			if (rtt_parse_uint(optarg, RTT_MAX_BUF_KB, &size_kb) ||
			    !size_kb)
				return rtt_usage(v, "bad buffer size '%s' (KiB, 1 to %lu)",
						 optarg, RTT_MAX_BUF_KB);
			break;
		case 'l':
			rtt_strv_add(&lists[0], optarg);
			break;
		case 'n':
			rtt_strv_add(&lists[1], optarg);
			break;
		case 'g':
			rtt_strv_add(&lists[2], optarg);
			break;
		case 'D':
			if (rtt_parse_uint(optarg, INT_MAX, &depth))
				return rtt_usage(v, "bad depth '%s'", optarg);
			depth_set = true;
			break;
		case 'L':
			preload_mode = 1;
			preload_arg = optarg;
			if (optarg && access(optarg, R_OK))
				return rtt_usage(v, "cannot read the library '%s'",
						 optarg);
			break;
		case 'N':
			preload_mode = 0;
			break;
		case 'c':
			follow = true;
			break;
		case 'P':
			pid_arg = optarg;
			break;
		case 'e':
			rtt_strv_add(&events, optarg);
			break;
		case 'p':
			tracer = optarg;
			break;
		case 'i':
			inst = optarg;
			break;
		case 'O':
			rtt_strv_add(&topts, optarg);
			break;
		case 'q':
			r.quiet = true;
			break;
		case 'h':
			return rtt_help(v);
		default:
			return rtt_bad_option(v, argv, c);
		}
	}
	if (!pid_arg && optind == argc)
		return rtt_usage(v, "nothing to record: give -P PID or -- COMMAND");
	if (pid_arg && optind < argc)
		return rtt_usage(v, "give -P PID or a COMMAND, not both");
	if (!pid_arg && inst)
		return rtt_usage(v, "-i needs -P: a new process has only the top instance");
	if (pid_arg && follow)
		return rtt_usage(v, "-c follows the processes COMMAND starts: not with -P");
	if (!r.out[0] || !strcmp(r.out, "-"))
		return rtt_usage(v, "bad output file '%s'", r.out);
	r.tty = isatty(2);
	rtt_catch_signals();
	if (pid_arg) {
		ret = rtt_open_pid(pid_arg, 0, &r.p);
		if (ret)
			goto out_free;
		ret = rtt_find_inst(&r.p, inst) < 0 ? -ENOENT : 0;
		if (ret)
			goto out;
		before = rtt_show_set_event(&r.p, inst);
		r.ctl_gen = rtt_ctl_gen(&r.p);
		ret = rtt_load_events(&r.p, &ev, false);
		if (!ret)
			ret = rtt_apply_settings(&r.p, ev, inst, &topts,
						 &events, &none);
		if (!ret)
			ret = rtt_record_lists(&r.p, lists, depth_set, depth);
		if (!ret && size_kb)
			ret = rtt_cmd(&r.p, NULL, "buffer_size_kb %s %lu",
				      rtt_iarg(inst), size_kb);
		if (!ret && tracer)
			ret = rtt_cmd(&r.p, NULL, "tracer %s %s",
				      rtt_iarg(inst), tracer);
		/* start from an empty buffer, as trace-cmd record does */
		if (!ret)
			ret = rtt_cmd(&r.p, NULL, "clear %s", rtt_iarg(inst));
		if (ret)
			goto out;
	} else {
		/* -c: into every program, so that a shell or make that
		 * starts the traced programs is followed too */
		if (follow && preload_mode < 0)
			preload_mode = 1;
		preload = rtt_record_preload(argv[optind], preload_mode,
					     preload_arg, preload_lib,
					     sizeof(preload_lib));
		ret = rtt_record_spawn(argv + optind, &events, tracer, &topts,
				       size_kb ? size_kb : rtt_record_default_kb(),
				       preload, follow, &hold, &r.p, &child);
		if (ret)
			goto out_free;
		r.ctl_gen = rtt_ctl_gen(&r.p);
		ret = rtt_record_lists(&r.p, lists, depth_set, depth);
		if (!ret)
			ret = rtt_load_events(&r.p, &ev, false);
		if (ret == -ESRCH) {
			/* gone with its files before we could read them */
			rtt_msg("'%s' (pid %d) exited before its trace could be read",
				argv[optind], r.p.pid);
			ret = -ESRCH;
		}
		if (ret)
			goto out;
	}
	r.ev = ev;
	ev = NULL;
	ret = rtt_rec_open(&r, inst);
	if (ret)
		goto out;
	/* the recorder is attached: the command may run */
	if (hold >= 0) {
		if (write(hold, "g", 1) < 0)
			rtt_msg("warning: could not release '%s'; it goes on after 30 s",
				argv[optind]);
		close(hold);
		hold = -1;
	}
	while (!ret) {
		uint64_t now;
		int w, moved;

		moved = rtt_rec_turn(&r);
		if (moved < 0) {
			ret = moved;
			break;
		}
		if (follow)
			rtt_follow_turn(&fl, r.p.pid, r.out);
		if (rtt_stop)
			break;
		if (moved == RTT_RECORD_BATCH)
			continue;
		/* short waits at first: a starting program registers its
		 * events, whose formats are read at the next turn; and
		 * while other processes are followed */
		now = rtt_now_ms();
		w = ringbuf_wait(r.rb, RINGBUF_ALL_CPUS, RTT_RECORD_WATERMARK,
				 now - r.start < 2000 || follow ? 20 : 200);
		if (w == -ESRCH || rtt_proc_state(&r.p) == RTT_DEAD) {
			r.exited = true;
			break;
		}
		/* at the watermark with no whole page to take (the writer
		 * is still on it): do not spin */
		if (w > 0 && !moved)
			usleep(follow ? 2000 : 20000);
	}
	ret = rtt_rec_finish(&r, ret);
	if (follow)
		rtt_follow_end(&fl);
	exited = r.exited;
	if (!ret && !r.tally.calls && !fl.calls &&
	    rtt_function_tracer(tracer, child))
		rtt_msg("warning: no function call was recorded: is %s compiled with -finstrument-functions%s?",
			child ? argv[optind] : "the process",
			lists[0].nr || lists[2].nr ? ", and do -l and -g name its functions" : "");
	if (exited && !child)
		rtt_msg("process %d exited", r.p.pid);
	/* the files a command we started kept at its exit */
	if (child && rtt_proc_state(&r.p) == RTT_DEAD &&
	    rtt_remove_files(&r.p, err))
		rtt_msg("%s", err);
	if (pid_arg && !exited) {
		rtt_restore_events(&r.p, inst, before);
		if (tracer) {
			char e2[RTT_ERR_MAX];

			rtt_command(&r.p, RTT_CMD_TIMEOUT_MS, NULL, e2,
				    "tracer %s nop", rtt_iarg(inst));
		}
	}
out:
	rtt_rec_free(&r);
	if (child) {
		int status;

		/* reap the command if it is done; a command still running
		 * after Ctrl-C is left to itself */
		if (exited)
			waitpid(child, &status, 0);
	}
out_free:
	/* closing it releases a held command too */
	if (hold >= 0)
		close(hold);
	if (ret)
		code = rtt_exit_code(ret);
	for (c = 0; c < 3; c++)
		free(lists[c].v);
	rtt_events_free(ev);
	free(before);
	free(events.v);
	free(topts.v);
	return code;
}

/* ---- extract ------------------------------------------------------------ */

static const char rtt_extract_help[] =
	"Write the trace a crashed or killed process left in its shared\n"
	"buffers into a trace.dat: every event it committed (the writes a\n"
	"crash cut short are skipped and counted). FILE_OR_PID is the pid of\n"
	"the dead process or one of the files it left (its .ctl file, a\n"
	"buffer file, ...). The leftover files are removed afterwards unless\n"
	"--keep is given. The buffers are only read, never consumed: with\n"
	"--keep the same trace can be extracted again.\n"
	"\n"
	"  -o, --output FILE    the trace.dat (default: trace.dat)\n"
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -k, --keep           keep the leftover files\n"
	"  -h, --help           this text\n";

/*
 * Build kernel-format pages from records (the iterator of an attached
 * view gives records, not pages): the page's time_stamp is its first
 * record's, each record carries its delta, a TIME_EXTEND before a delta
 * that needs more than 27 bits.
 */
struct rtt_pager {
	struct td_writer *w;
	int cpu;
	unsigned char *page;
	size_t size;
	size_t used; /* bytes of data */
	uint64_t last_ts;
	unsigned long missed; /* lost before the next page */
	bool has;
	unsigned long events;
};

static void rtt_pager_reset(struct rtt_pager *pg)
{
	memset(pg->page, 0, pg->size);
	pg->used = 0;
	pg->has = false;
}

static int rtt_pager_flush(struct rtt_pager *pg)
{
	struct ringbuf_data_page *dp = (void *)pg->page;
	uint64_t commit = pg->used;
	int ret;

	if (!pg->has)
		return 0;
	if (pg->missed) {
		commit |= RINGBUF_MISSED_EVENTS;
		if (pg->used + 8 <= pg->size - RINGBUF_PAGE_HDR_SIZE) {
			uint64_t m = pg->missed;

			memcpy(dp->data + pg->used, &m, sizeof(m));
			commit |= RINGBUF_MISSED_STORED;
		}
		pg->missed = 0;
	}
	dp->commit = commit;
	ret = td_writer_add_page(pg->w, pg->cpu, pg->page);
	rtt_pager_reset(pg);
	return ret;
}

static int rtt_pager_add(struct rtt_pager *pg, uint64_t ts, const void *data,
			 unsigned int len)
{
	struct ringbuf_data_page *dp = (void *)pg->page;
	size_t room = pg->size - RINGBUF_PAGE_HDR_SIZE;
	uint64_t delta;
	size_t need;
	uint32_t hdr;
	int ret;

	len = (len + 3) & ~3u;
	if (len == 0)
		len = 4;
	need = len <= RINGBUF_MAX_SMALL_DATA ? 4 + len : 8 + len;
	if (need + 8 > room)
		return -EINVAL; /* cannot be: records come from such a page */
	delta = pg->has ? ts - pg->last_ts : 0;
	if (pg->has && delta >= (1u << 27))
		need += 8;
	/* keep room for a stored lost count on a page that needs one */
	if (pg->has && pg->used + need + (pg->missed ? 8 : 0) > room) {
		ret = rtt_pager_flush(pg);
		if (ret)
			return ret;
		delta = 0;
		need = len <= RINGBUF_MAX_SMALL_DATA ? 4 + len : 8 + len;
	}
	if (!pg->has) {
		dp->time_stamp = ts;
		pg->has = true;
	} else if (delta >= (1u << 27)) {
		uint32_t ext = (uint32_t)(delta >> 27);

		hdr = RINGBUF_TYPE_TIME_EXTEND |
		      (uint32_t)((delta & ((1u << 27) - 1)) << 5);
		memcpy(dp->data + pg->used, &hdr, 4);
		memcpy(dp->data + pg->used + 4, &ext, 4);
		pg->used += 8;
		delta = 0;
	}
	if (len <= RINGBUF_MAX_SMALL_DATA) {
		hdr = (len / 4) | (uint32_t)(delta << 5);
		memcpy(dp->data + pg->used, &hdr, 4);
		memcpy(dp->data + pg->used + 4, data, len);
		pg->used += 4 + len;
	} else {
		uint32_t l = len + 4;

		hdr = (uint32_t)(delta << 5);
		memcpy(dp->data + pg->used, &hdr, 4);
		memcpy(dp->data + pg->used + 4, &l, 4);
		memcpy(dp->data + pg->used + 8, data, len);
		pg->used += 8 + len;
	}
	pg->last_ts = ts;
	pg->events++;
	return 0;
}

/* All the records of one cpu buffer of a view, into pages. */
static int rtt_extract_cpu(struct ringbuf *rb, struct rtt_pager *pg, int cpu)
{
	struct ringbuf_iter *it = ringbuf_read_start(rb, cpu);
	struct ringbuf_event *e;
	uint64_t ts;
	int ret = 0;

	if (!it)
		return -errno;
	pg->cpu = cpu;
	pg->missed = ringbuf_overrun_cpu(rb, cpu) +
		     ringbuf_commit_overrun_cpu(rb, cpu);
	rtt_pager_reset(pg);
	while (!ret && (e = ringbuf_iter_peek(it, &ts))) {
		ret = rtt_pager_add(pg, ts, ringbuf_event_data(e),
				    ringbuf_event_length(e));
		ringbuf_iter_advance(it);
	}
	if (!ret)
		ret = rtt_pager_flush(pg);
	ringbuf_read_finish(it);
	return ret;
}

static int rtt_do_extract(const struct rtt_verb *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "instance", required_argument, NULL, 'i' },
		{ "keep", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = "trace.dat", *inst = NULL, *arg;
	struct rtt_events *ev = NULL;
	struct rtt_pager pg;
	struct rtt_counts cnt;
	struct ringbuf *rb = NULL;
	struct rtt_proc p;
	char err[RTT_ERR_MAX], path[PATH_MAX + 8], clock[32];
	char *syms = NULL, *cmdl = NULL;
	bool keep = false;
	size_t len;
	int c, ret, slot, cpu, pid;

	memset(&pg, 0, sizeof(pg));
	while ((c = getopt_long(argc, argv, ":o:i:kh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'i':
			inst = optarg;
			break;
		case 'k':
			keep = true;
			break;
		case 'h':
			return rtt_help(v);
		default:
			return rtt_bad_option(v, argv, c);
		}
	}
	if (optind != argc - 1)
		return rtt_usage(v, optind < argc ? "too many arguments" :
						    "missing the pid or file");
	arg = argv[optind];
	if (!rtt_parse_pid(arg, &pid))
		ret = rtt_proc_open(pid, RTT_OPEN_DEAD, &p, err);
	else
		ret = rtt_proc_open_path(arg, RTT_OPEN_DEAD, &p, err);
	if (ret) {
		rtt_msg("%s", err);
		return rtt_exit_code(ret);
	}
	if (p.state != RTT_DEAD) {
		rtt_msg("process %d is still running: use 'ringtrace record -P %d'",
			p.pid, p.pid);
		rtt_proc_close(&p);
		return RTT_EXIT_USAGE;
	}
	slot = rtt_find_inst(&p, inst);
	if (slot < 0) {
		ret = -ENOENT;
		goto out;
	}
	ret = rtt_load_events(&p, &ev, false);
	if (ret)
		goto out;
	ret = rtt_attach(&p, slot, false, 0, NULL, &rb, err);
	if (ret) {
		rtt_msg("%s", err);
		goto out;
	}
	/* the process is gone: its last symbols file, if any */
	snprintf(path, sizeof(path), "%s.syms", p.base);
	if (memchr(p.ctl->syms, '\0', sizeof(p.ctl->syms)) && p.ctl->syms[0])
		snprintf(path, sizeof(path), "%s", p.ctl->syms);
	if (rtt_read_file(path, 256u << 20, &syms, &len))
		syms = NULL;
	rtt_cmdlines_text(&p, &cmdl, &len);
	snprintf(clock, sizeof(clock), "%.*s", (int)sizeof(p.ctl->clock) - 1,
		 p.ctl->clock);
	ret = rtt_td_open(out, rb, ev, syms, cmdl, clock, &pg.w);
	if (ret)
		goto out;
	pg.size = ringbuf_subbuf_size(rb);
	pg.page = malloc(pg.size);
	if (!pg.page) {
		ret = -ENOMEM;
		rtt_msg("out of memory");
		goto out;
	}
	for (cpu = 0; cpu < ringbuf_nr_cpus(rb) && !ret; cpu++)
		ret = rtt_extract_cpu(rb, &pg, cpu);
	if (!ret) {
		ret = td_writer_close(pg.w);
		pg.w = NULL;
	}
	if (ret) {
		ret = ret == -ENOMEM ? ret : rtt_td_error(out, ret);
		goto out;
	}
	rtt_get_counts(rb, &cnt);
	rtt_msg("%lu events of process %d (%s) written to %s; %lu lost before, %lu writes cut short by the crash",
		pg.events, p.pid, p.ctl->comm, out, rtt_lost(&cnt), cnt.torn);
	if (!keep) {
		ret = rtt_remove_files(&p, err);
		if (ret)
			rtt_msg("%s", err);
	}
out:
	td_writer_abort(pg.w);
	free(pg.page);
	ringbuf_free(rb);
	rtt_events_free(ev);
	free(syms);
	free(cmdl);
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

/* ---- report ------------------------------------------------------------- */

static const char rtt_report_help[] =
	"Print a trace.dat (written by 'ringtrace record' or 'extract') as\n"
	"'ringtrace pipe' prints the live trace: records merged across cpu\n"
	"buffers in time order, lost events marked where they were lost.\n"
	"\n"
	"  -c, --cpu N          only cpu buffer N\n"
	"  -f, --filter 'EVENT EXPR'  only the records of EVENT (sys:event,\n"
	"                       event, sys, sys:*) that match EXPR; repeatable\n"
	"                       (a record is shown when a filter of its event\n"
	"                       matches)\n"
	"  -r, --raw            print each event's fields as name=value\n"
	"      --format=FMT     text (default) or json: Chrome / Perfetto\n"
	"                       trace-event JSON (function_graph calls as\n"
	"                       nested slices, other events as instants)\n"
	"      --stat           instead of the records, one line per function\n"
	"                       of a function_graph trace: total time, self\n"
	"                       time (without its calls), calls, average,\n"
	"                       shortest and longest call\n"
	"      --graph FUNC     instead of the records, the calls of FUNC (a\n"
	"                       glob) with its callers and the calls it made\n"
	"  -s, --sort KEY       the order of --stat and --graph: total\n"
	"                       (default), self, calls, avg, min, max, func\n"
	"  -F, --function FUNC  only FUNC (a glob) and what it calls, with the\n"
	"                       thread's other events meanwhile; repeatable\n"
	"  -D, --depth N        only function calls less than N deep\n"
	"      --tid TID        only the records of thread TID; repeatable\n"
	"      --time-range START~END  only the records from START to END\n"
	"                       (time stamps as printed; either may be left out)\n"
	"  -t, --threshold TIME  --stat and --graph count only the calls that\n"
	"                       took at least TIME (10us, 2ms, 1s; ns without\n"
	"                       a unit)\n"
	"  -h, --help           this text\n";

/* The records of the current page of one cpu buffer. */
struct rtt_rcpu {
	uint64_t page;
	uint64_t released;
	uint64_t nr_pages;
	struct td_record *v;
	size_t nr;
	size_t cap;
	size_t pos;
	unsigned long missed;
	bool missed_unknown;
	bool oom;
};

struct rtt_rfilter {
	struct rtt_event *e;
	struct rt_filter *f;
};

struct rtt_report {
	struct td_reader *r;
	const char *path;
	unsigned int page_size;
	int nr_cpus;
	int only_cpu;
	struct rtt_rcpu *cpus;
	struct rtt_events *ev;
	struct rtt_syms *syms;
	struct rtt_comms *comms;
	struct rtt_print_ctx ctx;
	struct rtt_rfilter *filters;
	size_t nr_filters;
	bool ns_clock;
	bool graph;
	unsigned long bad_pages;
	struct rtt_sel *sel;
	int cur;
};

/* Pages of a cpu buffer read before their memory is given back. */
#define RTT_RELEASE_PAGES 256

static void rtt_collect_cb(const struct td_record *rec, void *arg)
{
	struct rtt_rcpu *c = arg;

	if (c->nr == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 256;
		struct td_record *nv = realloc(c->v, nc * sizeof(*nv));

		if (!nv) {
			c->oom = true;
			return;
		}
		c->v = nv;
		c->cap = nc;
	}
	c->v[c->nr++] = *rec;
}

/* Make v[pos] the next record of the cpu buffer; false at its end. */
static bool rtt_rcpu_next(struct rtt_report *rp, int cpu)
{
	struct rtt_rcpu *c = &rp->cpus[cpu];

	while (c->pos >= c->nr) {
		const void *page;
		unsigned long missed = 0;
		int ret;

		if (c->page >= c->nr_pages)
			return false;
		/* the pages before this one are done with */
		if (c->page - c->released >= RTT_RELEASE_PAGES) {
			td_reader_release(rp->r, cpu, c->released,
					  c->page - c->released);
			c->released = c->page;
		}
		page = td_reader_page(rp->r, cpu, c->page);
		c->nr = c->pos = 0;
		ret = page ? td_page_for_each(page, rp->page_size,
					      rtt_collect_cb, &missed, c) :
			     -EPROTO;
		if (ret) {
			rtt_msg("%s: cpu %d, page %" PRIu64
				": malformed records; the rest of the page is skipped",
				rp->path, cpu, c->page);
			rp->bad_pages++;
		}
		if (c->oom) {
			rtt_msg("out of memory: records of cpu %d skipped", cpu);
			c->oom = false;
			rp->bad_pages++;
		}
		if (missed == TD_MISSED_UNKNOWN)
			c->missed_unknown = true;
		else
			c->missed += missed;
		c->page++;
	}
	return true;
}

static bool rtt_report_match(struct rtt_report *rp,
			     const struct td_record *rec)
{
	uint16_t id;
	size_t i;

	if (!rp->nr_filters)
		return true;
	memcpy(&id, rec->data, sizeof(id));
	for (i = 0; i < rp->nr_filters; i++)
		if (rp->filters[i].e->id == id &&
		    rt_filter_match(rp->filters[i].f, rec->data, rec->len))
			return true;
	return false;
}

/* ---- the file's records as the printer's record source ---------------- */

/* The next record of @cpu that the filters let through. */
static const struct td_record *rtt_report_peek_rec(struct rtt_report *rp,
						   int cpu)
{
	struct rtt_rcpu *c = &rp->cpus[cpu];

	while (rtt_rcpu_next(rp, cpu)) {
		const struct td_record *rec = &c->v[c->pos];

		if (rec->len >= sizeof(struct ringtrace_entry) &&
		    !rtt_report_match(rp, rec)) {
			/* a lost-event mark moves on to the next shown */
			c->pos++;
			continue;
		}
		return rec;
	}
	return NULL;
}

/*
 * The cpu buffer of the next record in time order, or -1 at the end.
 * With a selection (-F, -D, --tid, --time-range), which needs the
 * records in time order, the records it leaves out are skipped here (a
 * lost-event mark moves on to the next record shown) and the record
 * found is kept as the current one until it is taken.
 */
static int rtt_report_next(struct rtt_report *rp)
{
	if (rp->sel && rp->cur >= 0)
		return rp->cur;
	for (;;) {
		const struct td_record *rec;
		int best = -1, i;
		uint64_t best_ts = 0;

		for (i = 0; i < rp->nr_cpus; i++) {
			if (rp->only_cpu >= 0 && i != rp->only_cpu)
				continue;
			rec = rtt_report_peek_rec(rp, i);
			if (rec && (best < 0 || rec->ts < best_ts)) {
				best = i;
				best_ts = rec->ts;
			}
		}
		if (best < 0 || !rp->sel)
			return best;
		rec = &rp->cpus[best].v[rp->cpus[best].pos];
		if (rec->len < sizeof(struct ringtrace_entry) ||
		    rtt_sel_keep(rp->sel, rec->ts, rec->data, rec->len)) {
			rp->cur = best;
			return best;
		}
		rp->cpus[best].pos++;
	}
}

static bool rtt_src_peek(void *ctx, int cpu, uint64_t *ts, const void **data,
			 unsigned int *len, long *lost)
{
	struct rtt_report *rp = ctx;
	struct rtt_rcpu *c = &rp->cpus[cpu];
	const struct td_record *rec;

	/* with a selection, only the buffer of the next record shown */
	if (rp->sel && rtt_report_next(rp) != cpu)
		return false;
	rec = rtt_report_peek_rec(rp, cpu);
	if (!rec)
		return false;
	*ts = rec->ts;
	*data = rec->data;
	*len = rec->len;
	if (lost)
		*lost = c->missed_unknown ? -1 : (long)c->missed;
	return true;
}

static void rtt_src_advance(void *ctx, int cpu)
{
	struct rtt_report *rp = ctx;
	struct rtt_rcpu *c = &rp->cpus[cpu];

	if (rp->sel && rp->cur != cpu)
		return;
	if (rtt_report_peek_rec(rp, cpu)) {
		c->pos++;
		c->missed = 0;
		c->missed_unknown = false;
	}
	rp->cur = -1;
}

/* The records in time order into a JSON document. */
static void rtt_report_json(struct rtt_report *rp, struct rtt_json *json)
{
	for (;;) {
		const struct td_record *rec;
		struct rtt_rcpu *cc;
		int best = rtt_report_next(rp);

		if (best < 0 || ferror(stdout))
			break;
		cc = &rp->cpus[best];
		rec = &cc->v[cc->pos];
		if (cc->missed || cc->missed_unknown)
			rtt_json_lost(json, best, rec->ts,
				      cc->missed_unknown ? TD_MISSED_UNKNOWN :
							   cc->missed);
		if (rec->len >= sizeof(struct ringtrace_entry))
			rtt_json_record(json, best, rec->ts, rec->data,
					rec->len);
		rtt_src_advance(rp, best);
	}
}

/* Every record (selected) into the function summaries. */
static int rtt_report_prof(struct rtt_report *rp, struct rtt_prof *prof)
{
	int best, ret = 0;

	while (!ret && (best = rtt_report_next(rp)) >= 0) {
		struct rtt_rcpu *cc = &rp->cpus[best];
		const struct td_record *rec = &cc->v[cc->pos];

		ret = rtt_prof_add(prof, rec->data, rec->len);
		rtt_src_advance(rp, best);
	}
	return ret;
}

/* Compile the --filter arguments against the file's events. */
static int rtt_report_filters(struct rtt_report *rp,
			      const struct rtt_strv *args)
{
	int i;

	for (i = 0; i < args->nr; i++) {
		char spec[256], sys[256], name[256], report[4096];
		struct rt_filter_error ferr, first;
		const char *expr, *colon;
		int added = 0, failed = 0;
		size_t j;

		if (rtt_split_filter(args->v[i], spec, sizeof(spec), &expr)) {
			rtt_msg("bad filter argument '%s': expected 'SYS:EVENT EXPR'",
				args->v[i]);
			return -EINVAL;
		}
		colon = strchr(spec, ':');
		if (colon) {
			snprintf(sys, sizeof(sys), "%.*s",
				 (int)(colon - spec), spec);
			snprintf(name, sizeof(name), "%s",
				 colon[1] ? colon + 1 : "*");
		} else {
			snprintf(sys, sizeof(sys), "%s", spec);
			snprintf(name, sizeof(name), "*");
			for (j = 0; j < rp->ev->nr; j++)
				if (!strcmp(rp->ev->v[j].system, spec))
					break;
			if (j == rp->ev->nr) {
				snprintf(sys, sizeof(sys), "*");
				snprintf(name, sizeof(name), "%s", spec);
			}
		}
		memset(&first, 0, sizeof(first));
		for (j = 0; j < rp->ev->nr; j++) {
			struct rtt_event *e = &rp->ev->v[j];
			struct rtt_rfilter *nv;
			struct rt_filter *f;

			if ((strcmp(sys, "*") && strcmp(e->system, sys)) ||
			    (strcmp(name, "*") && strcmp(e->name, name)))
				continue;
			if (rtt_event_fields(e))
				return -ENOMEM;
			if (rt_filter_parse(expr, e->fields, e->nr_fields, &f,
					    &ferr)) {
				if (!failed++)
					first = ferr;
				continue;
			}
			nv = realloc(rp->filters,
				     (rp->nr_filters + 1) * sizeof(*nv));
			if (!nv) {
				rt_filter_free(f);
				return -ENOMEM;
			}
			rp->filters = nv;
			rp->filters[rp->nr_filters].e = e;
			rp->filters[rp->nr_filters].f = f;
			rp->nr_filters++;
			added++;
		}
		if (!added && !failed) {
			rtt_msg("unknown event '%s' in %s", spec, rp->path);
			return -ENOENT;
		}
		if (!added) {
			rt_filter_error_print(report, sizeof(report), expr,
					      &first);
			rtt_msg("bad filter for %s:", spec);
			fprintf(stderr, "%s\n", report);
			return -EINVAL;
		}
	}
	return 0;
}

/* The smallest thread id of the file and whether it holds graph records:
 * one pass over the records. */
static void rtt_report_scan(struct rtt_report *rp, int *pid)
{
	int cpu;

	if (pid)
		*pid = 0;
	for (cpu = 0; cpu < rp->nr_cpus; cpu++) {
		struct rtt_rcpu c;
		uint64_t i;

		memset(&c, 0, sizeof(c));
		for (i = 0; i < rp->cpus[cpu].nr_pages; i++) {
			const void *page = td_reader_page(rp->r, cpu, i);
			size_t k;

			/* without JSON, the first graph record is enough */
			if (!pid && rp->graph)
				break;
			if (i && i % RTT_RELEASE_PAGES == 0)
				td_reader_release(rp->r, cpu,
						  i - RTT_RELEASE_PAGES,
						  RTT_RELEASE_PAGES);
			c.nr = 0;
			if (!page)
				continue;
			td_page_for_each(page, rp->page_size, rtt_collect_cb,
					 NULL, &c);
			for (k = 0; k < c.nr; k++) {
				struct ringtrace_entry ent;

				if (c.v[k].len < sizeof(ent))
					continue;
				memcpy(&ent, c.v[k].data, sizeof(ent));
				if (pid && ent.pid > 0 &&
				    (!*pid || ent.pid < *pid))
					*pid = ent.pid;
				if (ent.type == RT_TYPE_GRAPH_ENT ||
				    ent.type == RT_TYPE_GRAPH_RET)
					rp->graph = true;
			}
		}
		td_reader_release(rp->r, cpu, 0, rp->cpus[cpu].nr_pages);
		free(c.v);
	}
}

static void rtt_report_header(struct rtt_report *rp)
{
	if (rp->graph) {
		printf("# tracer: function_graph\n#\n");
		printf("# CPU  DURATION                  FUNCTION CALLS\n");
		printf("# |     |   |                     |   |   |   |\n");
		return;
	}
	printf("# tracer: %s\n#\n", "nop");
	printf("#                                _-----=> irqs-off/BH-disabled\n");
	printf("#                               / _----=> need-resched\n");
	printf("#                              | / _---=> hardirq/softirq\n");
	printf("#                              || / _--=> preempt-depth\n");
	printf("#                              ||| / _-=> migrate-disable\n");
	printf("#                              |||| /     delay\n");
	printf("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n");
	printf("#              | |         |   |||||     |         |\n");
}

/* Long options without a short one. */
enum {
	RTT_OPT_FORMAT = 256,
	RTT_OPT_STAT,
	RTT_OPT_GRAPH,
	RTT_OPT_TID,
	RTT_OPT_RANGE,
};

/* A time stamp as report prints it: seconds (ns clocks) or a count. */
static int rtt_parse_stamp(const char *s, size_t n, bool ns, uint64_t *out)
{
	char buf[64], *end;
	double d;

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	d = strtod(buf, &end);
	if (end == buf || *end || d < 0)
		return -EINVAL;
	d = ns ? d * 1e9 : d;
	if (d >= 1.8e19)
		return -EINVAL;
	*out = (uint64_t)(d + 0.5);
	return 0;
}

/* START~END, either part optional. */
static int rtt_parse_range(const char *s, bool ns, uint64_t *from,
			   uint64_t *to)
{
	const char *t = strchr(s, '~');

	if (!t)
		return -EINVAL;
	*from = 0;
	*to = UINT64_MAX;
	if (t > s && rtt_parse_stamp(s, (size_t)(t - s), ns, from))
		return -EINVAL;
	if (t[1] && rtt_parse_stamp(t + 1, strlen(t + 1), ns, to))
		return -EINVAL;
	return *from <= *to ? 0 : -EINVAL;
}

static int rtt_do_report(const struct rtt_verb *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "filter", required_argument, NULL, 'f' },
		{ "raw", no_argument, NULL, 'r' },
		{ "format", required_argument, NULL, RTT_OPT_FORMAT },
		{ "stat", no_argument, NULL, RTT_OPT_STAT },
		{ "graph", required_argument, NULL, RTT_OPT_GRAPH },
		{ "sort", required_argument, NULL, 's' },
		{ "function", required_argument, NULL, 'F' },
		{ "depth", required_argument, NULL, 'D' },
		{ "tid", required_argument, NULL, RTT_OPT_TID },
		{ "time-range", required_argument, NULL, RTT_OPT_RANGE },
		{ "threshold", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtt_strv fargs = { 0 }, funcs = { 0 };
	struct rtt_sel_opts so = { .to = UINT64_MAX };
	struct rtt_prof *prof = NULL;
	const char *graph = NULL, *range = NULL;
	int *tids = NULL, nr_tids = 0, sort = RTT_SORT_TOTAL;
	unsigned long ul;
	uint64_t threshold = 0;
	bool want_stat = false, threshold_set = false;
	struct rtt_report rp;
	struct rtt_json *json = NULL;
	char err[RTT_ERR_MAX];
	unsigned long cpu_arg = (unsigned long)-1;
	bool want_json = false;
	const char *clock, *kallsyms;
	int c, ret = 0, i, pid;
	size_t k;

	memset(&rp, 0, sizeof(rp));
	rp.cur = -1;
	while ((c = getopt_long(argc, argv, ":c:f:rs:F:D:t:h", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			if (rtt_parse_uint(optarg, 65535, &cpu_arg))
				return rtt_usage(v, "bad cpu '%s'", optarg);
			break;
		case 'f':
			rtt_strv_add(&fargs, optarg);
			break;
		case 'r':
			rp.ctx.raw = true;
			break;
		case RTT_OPT_FORMAT:
			if (!strcmp(optarg, "json"))
				want_json = true;
			else if (strcmp(optarg, "text"))
				return rtt_usage(v, "unknown format '%s' (text, json)",
						 optarg);
			break;
		case RTT_OPT_STAT:
			want_stat = true;
			break;
		case RTT_OPT_GRAPH:
			graph = optarg;
			break;
		case 's':
			sort = rtt_prof_sort_by_name(optarg);
			if (sort < 0)
				return rtt_usage(v, "unknown sort key '%s' (total, self, calls, avg, min, max, func)",
						 optarg);
			break;
		case 'F':
			rtt_strv_add(&funcs, optarg);
			break;
		case 'D':
			if (rtt_parse_uint(optarg, INT_MAX, &ul) || !ul)
				return rtt_usage(v, "bad depth '%s'", optarg);
			so.max_depth = (int)ul;
			break;
		case RTT_OPT_TID: {
			int *nt;

			if (rtt_parse_uint(optarg, INT_MAX, &ul) || !ul)
				return rtt_usage(v, "bad thread id '%s'", optarg);
			nt = realloc(tids, (size_t)(nr_tids + 1) * sizeof(*nt));
			if (!nt)
				return rtt_usage(v, "out of memory");
			tids = nt;
			tids[nr_tids++] = (int)ul;
			break;
		}
		case RTT_OPT_RANGE:
			range = optarg;
			break;
		case 't':
			if (rtt_parse_duration(optarg, &threshold))
				return rtt_usage(v, "bad threshold '%s' (10us, 2ms, 1s, or ns)",
						 optarg);
			threshold_set = true;
			break;
		case 'h':
			return rtt_help(v);
		default:
			return rtt_bad_option(v, argv, c);
		}
	}
	if (optind != argc - 1) {
		free(fargs.v);
		free(funcs.v);
		free(tids);
		return rtt_usage(v, optind < argc ? "too many arguments" :
						    "missing the trace.dat file");
	}
	if ((want_stat || graph) && (want_json || rp.ctx.raw)) {
		free(fargs.v);
		free(funcs.v);
		free(tids);
		return rtt_usage(v, "--stat and --graph print a table: not with --format=json or --raw");
	}
	if (want_stat && graph) {
		free(fargs.v);
		free(funcs.v);
		free(tids);
		return rtt_usage(v, "give --stat or --graph, not both");
	}
	if (threshold_set && !want_stat && !graph) {
		free(fargs.v);
		free(funcs.v);
		free(tids);
		return rtt_usage(v, "--threshold applies to --stat and --graph");
	}
	rp.path = argv[optind];
	ret = td_reader_open(rp.path, &rp.r, err, sizeof(err));
	if (ret) {
		if (ret == -EPROTO)
			rtt_msg("%s: corrupt or truncated trace.dat: %s", rp.path,
				err);
		else if (ret == -ENOTSUP)
			rtt_msg("%s: %s", rp.path, err);
		else if (ret == -EACCES || ret == -EPERM)
			rtt_msg("permission denied: %s", rp.path);
		else if (ret == -ENOENT)
			rtt_msg("no such file: %s", rp.path);
		else
			rtt_msg("cannot read %s: %s", rp.path, strerror(-ret));
		free(fargs.v);
		if (ret == -ENOTSUP || ret == -EPROTO)
			return RTT_EXIT_CORRUPT;
		return ret == -ENOENT ? RTT_EXIT_USAGE : rtt_exit_code(ret);
	}
	rp.page_size = td_reader_page_size(rp.r);
	rp.nr_cpus = td_reader_nr_cpus(rp.r);
	rp.only_cpu = -1;
	if (cpu_arg != (unsigned long)-1) {
		if ((int)cpu_arg >= rp.nr_cpus) {
			rtt_msg("bad cpu %lu: %s has cpu buffers 0 to %d",
				cpu_arg, rp.path, rp.nr_cpus - 1);
			ret = -EINVAL;
			goto out;
		}
		rp.only_cpu = (int)cpu_arg;
	}
	rp.ev = rtt_events_new();
	if (!rp.ev) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0;; i++) {
		const char *sys, *fmt = td_reader_format(rp.r, (unsigned int)i,
							 &sys);

		if (!fmt)
			break;
		ret = rtt_events_add(rp.ev, sys, fmt, strlen(fmt), err,
				     sizeof(err));
		if (ret) {
			rtt_msg("%s: %s", rp.path, err);
			ret = ret == -ENOMEM ? ret : -EPROTO;
			goto out;
		}
	}
	kallsyms = td_reader_kallsyms(rp.r);
	if (kallsyms && kallsyms[0] && rtt_syms_parse(kallsyms, &rp.syms)) {
		ret = -ENOMEM;
		goto out;
	}
	rtt_events_set_syms(rp.ev, rp.syms);
	rp.comms = rtt_comms_parse(td_reader_cmdlines(rp.r));
	if (!rp.comms) {
		ret = -ENOMEM;
		goto out;
	}
	clock = td_reader_clock(rp.r);
	rp.ns_clock = strcmp(clock, "x86-tsc") != 0 &&
		      strcmp(clock, "counter") != 0;
	rp.ctx.ev = rp.ev;
	rp.ctx.syms = rp.syms;
	rp.ctx.comms = rp.comms;
	ret = rtt_report_filters(&rp, &fargs);
	if (ret)
		goto out;
	if (range && rtt_parse_range(range, rp.ns_clock, &so.from, &so.to)) {
		rtt_msg("bad time range '%s': expected START~END, each a time stamp as printed (either may be left out)",
			range);
		ret = -EINVAL;
		goto out;
	}
	if (funcs.nr || so.max_depth || nr_tids || range) {
		so.funcs = funcs.v;
		so.nr_funcs = funcs.nr;
		so.tids = tids;
		so.nr_tids = nr_tids;
		rp.sel = rtt_sel_new(&so, rp.syms);
		if (!rp.sel) {
			ret = -ENOMEM;
			goto out;
		}
	}
	rp.cpus = calloc((size_t)rp.nr_cpus, sizeof(*rp.cpus));
	if (!rp.cpus) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < rp.nr_cpus; i++)
		rp.cpus[i].nr_pages = td_reader_nr_pages(rp.r, i);
	rtt_report_scan(&rp, want_json ? &pid : NULL);
	signal(SIGPIPE, SIG_IGN);
	if (want_stat || graph) {
		if (!rp.graph)
			rtt_msg("warning: %s holds no function_graph records",
				rp.path);
		prof = rtt_prof_new(rp.syms, threshold, graph);
		ret = prof ? rtt_report_prof(&rp, prof) : -ENOMEM;
		if (!ret && want_stat)
			ret = rtt_prof_print(prof, stdout, sort);
		else if (!ret) {
			ret = rtt_prof_print_graph(prof, stdout, sort);
			if (ret == -ENOENT)
				rtt_msg("no call of '%s' in %s", graph,
					rp.path);
		}
	} else if (want_json) {
		json = rtt_json_begin(stdout, &rp.ctx, rp.ns_clock, pid);
		if (!json) {
			ret = -ENOMEM;
			goto out;
		}
		rtt_report_json(&rp, json);
		ret = rtt_json_end(json);
		json = NULL;
	} else {
		struct rt_record_source src = {
			.nr_cpus = rp.nr_cpus,
			.clock = rp.ns_clock ? RINGBUF_CLOCK_MONO :
					       RINGBUF_CLOCK_TSC,
			.peek = rtt_src_peek,
			.advance = rtt_src_advance,
			.ctx = &rp,
		};
		struct rt_printer_ops ops;
		struct rt_print_cfg cfg;
		int n;

		memset(&cfg, 0, sizeof(cfg));
		cfg.opts = rtt_default_opts();
		cfg.tracer = rp.graph ? RT_TRACER_GRAPH : RT_TRACER_NOP;
		rtt_printer_ops(&rp.ctx, &ops);
		rtt_report_header(&rp);
		n = rt_print_source(&src, rp.only_cpu < 0 ? RINGBUF_ALL_CPUS :
							    rp.only_cpu,
				    &cfg, &ops, stdout);
		if (n < 0 && errno != EPIPE)
			ret = n;
	}
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE) {
			rtt_msg("writing the report: %s", strerror(errno));
			ret = -EIO;
		}
	}
	if (!ret && rp.bad_pages)
		ret = -EPROTO;
out:
	rtt_prof_free(prof);
	rtt_sel_free(rp.sel);
	free(funcs.v);
	free(tids);
	if (json)
		rtt_json_end(json);
	if (rp.cpus)
		for (i = 0; i < rp.nr_cpus; i++)
			free(rp.cpus[i].v);
	free(rp.cpus);
	for (k = 0; k < rp.nr_filters; k++)
		rt_filter_free(rp.filters[k].f);
	free(rp.filters);
	rtt_comms_free(rp.comms);
	rtt_events_free(rp.ev);
	rtt_syms_free(rp.syms);
	td_reader_close(rp.r);
	free(fargs.v);
	if (ret == -ENOMEM)
		rtt_msg("out of memory");
	/* no call of the --graph function: nothing wrong with the file */
	if (ret == -ENOENT && graph)
		return RTT_EXIT_FAIL;
	return rtt_exit_code(ret);
}

/* ---- trigger ------------------------------------------------------------ */

static const char rtt_trigger_help[] =
	"Add a trigger to an event (sys:event or event), as 'echo TRIGGER >\n"
	"events/SYS/EVENT/trigger', or without TRIGGER list the event's\n"
	"triggers. TRIGGER is CMD[:N] [if FILTER], CMD one of traceon,\n"
	"traceoff, snapshot, stacktrace, enable_event:SYS:EVENT and\n"
	"disable_event:SYS:EVENT; N limits how many times it fires, FILTER\n"
	"(the filter grammar) which records fire it. '!CMD' removes the\n"
	"trigger. TRIGGER may be given as several arguments. A trigger the\n"
	"process refuses exits with 2 and says why (a filter error with a\n"
	"caret); one already set exits with 1.\n"
	"\n"
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -h, --help           this text\n";

/* The words argv[from..argc) joined with blanks; NULL when out of
 * memory (said on stderr). */
static char *rtt_join_words(int from, int argc, char **argv)
{
	size_t len = 1;
	char *text;
	int i;

	for (i = from; i < argc; i++)
		len += strlen(argv[i]) + 1;
	text = calloc(1, len);
	if (!text) {
		rtt_msg("out of memory");
		return NULL;
	}
	for (i = from; i < argc; i++) {
		if (i > from)
			strcat(text, " ");
		strcat(text, argv[i]);
	}
	return text;
}

static int rtt_do_trigger(const struct rtt_verb *v, int argc, char **argv)
{
	char err[RTT_ERR_MAX], sys[128], *text = NULL, *reply = NULL;
	const char *inst, *spec, *colon, *name;
	struct rtt_proc p;
	int code, ret;

	code = rtt_ctl_args(v, argc, argv, NULL, NULL, &inst, 1, -1, &p);
	if (code >= 0)
		return code;
	spec = argv[optind];
	colon = strchr(spec, ':');
	snprintf(sys, sizeof(sys), "%.*s",
		 colon ? (int)(colon - spec) : 1, colon ? spec : "*");
	name = colon ? colon + 1 : spec;
	if (!*name || !sys[0] || strchr(name, ' ')) {
		rtt_proc_close(&p);
		return rtt_usage(v, "bad event '%s' (SYS:EVENT or EVENT)", spec);
	}
	if (optind + 1 == argc) {
		ret = rtt_command(&p, RTT_CMD_TIMEOUT_MS, &reply, err,
				  "show_trigger %s %s %s", rtt_iarg(inst), sys,
				  name);
		if (!ret && reply)
			fputs(reply, stdout);
		else if (ret)
			rtt_msg("process %d: %s", p.pid, err);
		free(reply);
		rtt_proc_close(&p);
		return rtt_exit_code(ret);
	}
	text = rtt_join_words(optind + 1, argc, argv);
	if (!text) {
		rtt_proc_close(&p);
		return RTT_EXIT_FAIL;
	}
	ret = rtt_command(&p, RTT_CMD_TIMEOUT_MS, NULL, err,
			  "trigger %s %s %s %s", rtt_iarg(inst), sys, name, text);
	if (ret == -EINVAL && strstr(err, "parse_error")) {
		rtt_msg("bad trigger filter for %s:", spec);
		fprintf(stderr, "%s\n", err);
	} else if (ret == -EINVAL) {
		rtt_msg("bad trigger for %s: %s", spec, err);
	} else if (ret == -ENOENT) {
		rtt_msg("unknown event '%s' in process %d", spec, p.pid);
	} else if (ret) {
		rtt_msg("process %d: trigger for %s: %s", p.pid, spec, err);
	}
	free(text);
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

/* ---- pids --------------------------------------------------------------- */

static const char rtt_pids_help[] =
	"Add thread ids of the process to one of its pid lists, as 'echo TID...\n"
	">> FILE', or without TID print the list. LIST is event\n"
	"(set_event_pid: only these threads' events are recorded),\n"
	"event-notrace (set_event_notrace_pid: these threads' are not),\n"
	"ftrace or ftrace-notrace (set_ftrace_pid, set_ftrace_notrace_pid: the\n"
	"same for the function tracers). An empty list filters nothing. A\n"
	"word that is not a thread id exits with 2.\n"
	"\n"
	"      --clear          empty the list first ('echo TID... > FILE')\n"
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -h, --help           this text\n";

static int rtt_do_pids(const struct rtt_verb *v, int argc, char **argv)
{
	static const char *const lists[][2] = {
		{ "event", "set_event_pid" },
		{ "event-notrace", "set_event_notrace_pid" },
		{ "ftrace", "set_ftrace_pid" },
		{ "ftrace-notrace", "set_ftrace_notrace_pid" },
	};
	char err[RTT_ERR_MAX], *reply = NULL, *tids = NULL;
	const char *inst, *file = NULL;
	struct rtt_proc p;
	size_t i;
	int code, ret = 0, flag = 0;

	code = rtt_ctl_args(v, argc, argv, "C", &flag, &inst, 1, -1, &p);
	if (code >= 0)
		return code;
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (!strcmp(argv[optind], lists[i][0]) ||
		    !strcmp(argv[optind], lists[i][1]))
			file = lists[i][1];
	if (!file) {
		rtt_proc_close(&p);
		return rtt_usage(v, "unknown list '%s' (event, event-notrace, ftrace, ftrace-notrace)",
				 argv[optind]);
	}
	if (flag == 'C')
		ret = rtt_command(&p, RTT_CMD_TIMEOUT_MS, NULL, err, "pids %s %s",
				  rtt_iarg(inst), file);
	if (!ret && optind + 1 == argc && flag != 'C') {
		ret = rtt_command(&p, RTT_CMD_TIMEOUT_MS, &reply, err,
				  "show_pids %s %s", rtt_iarg(inst), file);
		if (!ret && reply)
			fputs(reply, stdout);
	} else if (!ret && optind + 1 < argc) {
		tids = rtt_join_words(optind + 1, argc, argv);
		if (!tids) {
			rtt_proc_close(&p);
			return RTT_EXIT_FAIL;
		}
		ret = rtt_command(&p, RTT_CMD_TIMEOUT_MS, NULL, err,
				  "pids_add %s %s %s", rtt_iarg(inst), file, tids);
	}
	if (ret)
		rtt_msg("process %d: %s: %s", p.pid, file, err);
	free(reply);
	free(tids);
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

/* ---- main --------------------------------------------------------------- */

static const char rtt_ctl_help_tail[] =
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -h, --help           this text\n";

static char rtt_enable_full[1024], rtt_filter_full[1024],
	rtt_options_full[1024], rtt_stat_full[1024], rtt_snapshot_full[1024];

static const struct rtt_verb rtt_verbs[] = {
	{ "list", NULL, rtt_do_list, "list [-e PID]", rtt_list_help },
	{ "pipe", "stream", rtt_do_pipe,
	  "pipe [-i NAME] [-e EVENT]... [-f 'EVENT EXPR']... [-O OPT]... [-c CPU] [-r] [-s] PID",
	  rtt_pipe_help },
	{ "show", NULL, rtt_do_show, "show [-i NAME] [-s] [-r] PID",
	  rtt_show_help },
	{ "enable", NULL, rtt_do_enable, "enable [-i NAME] PID EVENT...",
	  rtt_enable_full },
	{ "disable", NULL, rtt_do_enable, "disable [-i NAME] PID EVENT...",
	  rtt_enable_full },
	{ "filter", NULL, rtt_do_filter, "filter [-i NAME] PID EVENT EXPR...",
	  rtt_filter_full },
	{ "on", NULL, rtt_do_simple, "on [-i NAME] PID",
	  "Switch recording on, as 'echo 1 > tracing_on'.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "off", NULL, rtt_do_simple, "off [-i NAME] PID",
	  "Switch recording off, as 'echo 0 > tracing_on'.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "clear", NULL, rtt_do_simple, "clear [-i NAME] PID",
	  "Empty the trace buffer, as 'echo > trace'.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "buffer-size", NULL, rtt_do_simple, "buffer-size [-i NAME] PID KB",
	  "Set the size of each cpu buffer in KiB, as 'echo KB >\n"
	  "buffer_size_kb'. The buffer is replaced: what it held is lost.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "snapshot", NULL, rtt_do_snapshot,
	  "snapshot [-i NAME] [--free | --clear] PID", rtt_snapshot_full },
	{ "options", NULL, rtt_do_options, "options [-i NAME] PID [OPT...]",
	  rtt_options_full },
	{ "tracer", NULL, rtt_do_simple, "tracer [-i NAME] PID TRACER",
	  "Set the current tracer (trace-cmd's -p), as 'echo TRACER >\n"
	  "current_tracer': nop, function, function_graph, usersoff.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "clock", NULL, rtt_do_simple, "clock [-i NAME] PID CLOCK",
	  "Set the trace clock (trace-cmd's -C), as 'echo CLOCK > trace_clock':\n"
	  "mono (also local, global, perf), mono_raw, boot, x86-tsc. The\n"
	  "buffer is replaced: what it held is lost.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "record", NULL, rtt_do_record,
	  "record [-o FILE] [-e EVENT]... [-p TRACER] [-O OPT]... [-b KB] [-l FUNC]... [-n FUNC]... [-g FUNC]... [--max-graph-depth N] [--preload[=LIB] | --no-preload] [-c] [-q] (-P PID [-i NAME] | -- COMMAND [ARG]...)",
	  rtt_record_help },
	{ "report", NULL, rtt_do_report,
	  "report [-c CPU] [-f 'EVENT EXPR']... [-r] [--format=text|json] [--stat | --graph FUNC] [-s KEY] [-F FUNC]... [-D N] [--tid TID]... [--time-range START~END] [-t TIME] FILE",
	  rtt_report_help },
	{ "extract", NULL, rtt_do_extract,
	  "extract [-o FILE] [-i NAME] [-k] PID|FILE", rtt_extract_help },
	{ "stat", NULL, rtt_do_stat, "stat [-i NAME] PID", rtt_stat_full },
	/* tracefs over FUSE (tracer/tracefs) */
	{ "mount", NULL, rtfs_do_mount, "mount [-f] PID DIR", rtfs_mount_help },
	{ "umount", NULL, rtfs_do_umount, "umount DIR", rtfs_umount_help },
	{ "trigger", NULL, rtt_do_trigger,
	  "trigger [-i NAME] PID EVENT [TRIGGER...]", rtt_trigger_help },
	{ "pids", NULL, rtt_do_pids, "pids [-i NAME] [--clear] PID LIST [TID...]",
	  rtt_pids_help },
};

#define RTT_NR_VERBS (sizeof(rtt_verbs) / sizeof(rtt_verbs[0]))

static void rtt_main_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: ringtrace VERB [OPTIONS] [ARGS]\n"
		"       ringtrace VERB --help\n"
		"\n"
		"Trace programs that use libringtrace: attach to them, stream and\n"
		"show their trace, control their tracer, record trace.dat files and\n"
		"recover the trace of a crashed program.\n"
		"\n"
		"Verbs:\n");
	for (i = 0; i < RTT_NR_VERBS; i++)
		fprintf(f, "  %s\n", rtt_verbs[i].synopsis);
	fprintf(f,
		"\n"
		"Exit status: 0 ok, 1 runtime failure, 2 bad usage or argument,\n"
		"3 no such process or not traced, 4 permission denied, 5 corrupt\n"
		"or truncated input. See ringtrace(1).\n");
}

static void rtt_build_help(void)
{
	snprintf(rtt_enable_full, sizeof(rtt_enable_full), "%s%s",
		 rtt_enable_help, rtt_ctl_help_tail);
	snprintf(rtt_filter_full, sizeof(rtt_filter_full), "%s%s",
		 rtt_filter_help, rtt_ctl_help_tail);
	snprintf(rtt_options_full, sizeof(rtt_options_full), "%s%s",
		 rtt_options_help, rtt_ctl_help_tail);
	snprintf(rtt_stat_full, sizeof(rtt_stat_full), "%s%s", rtt_stat_help,
		 rtt_ctl_help_tail);
	snprintf(rtt_snapshot_full, sizeof(rtt_snapshot_full), "%s%s",
		 rtt_snapshot_help, rtt_ctl_help_tail);
}

int main(int argc, char **argv)
{
	const char *verb;
	size_t i;

	rtt_build_help();
	if (argc < 2) {
		rtt_main_usage(stderr);
		return RTT_EXIT_USAGE;
	}
	verb = argv[1];
	if (!strcmp(verb, "-h") || !strcmp(verb, "--help") ||
	    !strcmp(verb, "help")) {
		if (argc > 2 && strcmp(verb, "help") == 0) {
			for (i = 0; i < RTT_NR_VERBS; i++)
				if (!strcmp(argv[2], rtt_verbs[i].name) ||
				    (rtt_verbs[i].alias &&
				     !strcmp(argv[2], rtt_verbs[i].alias)))
					return rtt_help(&rtt_verbs[i]);
			rtt_msg("unknown verb '%s'", argv[2]);
			return RTT_EXIT_USAGE;
		}
		rtt_main_usage(stdout);
		return RTT_EXIT_OK;
	}
	if (!strcmp(verb, "-V") || !strcmp(verb, "--version")) {
		printf("ringtrace %s\n", RINGTRACE_VERSION);
		return RTT_EXIT_OK;
	}
	for (i = 0; i < RTT_NR_VERBS; i++) {
		const struct rtt_verb *v = &rtt_verbs[i];

		if (strcmp(verb, v->name) &&
		    (!v->alias || strcmp(verb, v->alias)))
			continue;
		/* the verb's options: argv[1] is the verb, its own argv[0] */
		optind = 1;
		opterr = 0;
		return v->run(v, argc - 1, argv + 1);
	}
	rtt_msg("unknown verb '%s'", verb);
	fprintf(stderr, "Try 'ringtrace --help'.\n");
	return RTT_EXIT_USAGE;
}
