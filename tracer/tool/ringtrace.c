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
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>

#include "client.h"
#include "filter.h"
#include "print.h"
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

/* Count the records of a page (events/s and the final tally). */
static void rtt_count_cb(const struct td_record *rec, void *arg)
{
	(void)rec;
	(*(unsigned long *)arg)++;
}

/* ---- record ------------------------------------------------------------- */

static const char rtt_record_help[] =
	"Record the trace of a process into a trace.dat that 'trace-cmd\n"
	"report' and 'ringtrace report' read: whole pages of its buffer,\n"
	"with the event formats, symbols, thread names and clock. Either\n"
	"attach to a running process (-P) or start COMMAND with the events and\n"
	"tracer set in its environment (RINGTRACE_EVENTS, RINGTRACE_TRACER) and\n"
	"record until it exits. Ctrl-C stops and leaves a complete file. A\n"
	"progress line (events/s, MB written, events lost) is refreshed every\n"
	"second on stderr; the file is checkpointed each time, so it always\n"
	"holds a readable trace. With -P, the buffer is cleared first (as\n"
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
	"  -i, --instance NAME  record that instance (with -P)\n"
	"  -q, --quiet          no progress line\n"
	"  -h, --help           this text\n";

/* Pages moved between two looks at the clock and the checkpoints. */
#define RTT_RECORD_BATCH 64

struct rtt_record {
	const char *out;
	struct rtt_proc p;
	struct ringbuf *rb;
	struct td_writer *w;
	void **pages;
	int nr_cpus;
	unsigned long events;
	unsigned long missed;
	uint64_t ckpt_bytes;
	bool quiet;
	bool tty;
};

/*
 * Move at most @max pages into the file: the pages the writer has left
 * (@full), or whatever the buffers hold (!@full), a page of each cpu
 * buffer in turn. Return: the pages moved, or a negative errno.
 */
static int rtt_record_pages(struct rtt_record *r, int full, int max)
{
	size_t size = ringbuf_subbuf_size(r->rb);
	int cpu, ret, moved = 0;
	bool any;

	do {
		any = false;
		for (cpu = 0; cpu < r->nr_cpus; cpu++) {
			unsigned long n = 0, missed = 0;

			if (moved >= max)
				return moved;
			if (!r->pages[cpu]) {
				r->pages[cpu] = ringbuf_alloc_read_page(r->rb,
									cpu);
				if (!r->pages[cpu])
					return -ENOMEM;
			}
			if (ringbuf_read_page(r->rb, r->pages[cpu], size, cpu,
					      full) < 0)
				continue;
			any = true;
			ret = td_writer_add_page(r->w, cpu, r->pages[cpu]);
			if (ret == -EINVAL) {
				rtt_msg("cpu %d: a malformed page skipped", cpu);
				continue;
			}
			if (ret)
				return ret;
			moved++;
			td_page_for_each(r->pages[cpu], (unsigned int)size,
					 rtt_count_cb, &missed, &n);
			r->events += n;
			if (missed != TD_MISSED_UNKNOWN)
				r->missed += missed;
		}
	} while (any);
	return moved;
}

/*
 * A checkpoint each second (@timed), and one each time the data has
 * doubled since the last: a checkpoint copies the whole file, so
 * doubling keeps the copying linear in the size, and a short recording
 * on a small disk still gets its data in.
 */
static int rtt_record_ckpt(struct rtt_record *r, bool timed)
{
	uint64_t bytes;
	size_t len;
	char *cmdl;
	int ret;

	td_writer_stats(r->w, NULL, &bytes);
	if (!timed && bytes < 2 * r->ckpt_bytes)
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
			    struct rtt_proc *p, pid_t *child)
{
	char err[RTT_ERR_MAX], *ev = NULL, *op = NULL, *tr = NULL;
	char **envp = NULL;
	size_t n = 0, i, len;
	uint64_t deadline;
	int ret, status;

	for (i = 0; environ[i]; i++)
		n++;
	envp = calloc(n + 6, sizeof(*envp));
	if (!envp)
		return -ENOMEM;
	n = 0;
	for (i = 0; environ[i]; i++) {
		if ((events->nr && !strncmp(environ[i], "RINGTRACE_EVENTS=", 17)) ||
		    (tracer && !strncmp(environ[i], "RINGTRACE_TRACER=", 17)) ||
		    (opts->nr && !strncmp(environ[i], "RINGTRACE_OPTIONS=", 18)))
			continue;
		envp[n++] = environ[i];
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
	free(envp);
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

static int rtt_do_record(const struct rtt_verb *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'P' },
		{ "event", required_argument, NULL, 'e' },
		{ "tracer", required_argument, NULL, 'p' },
		{ "instance", required_argument, NULL, 'i' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtt_strv events = { 0 }, topts = { 0 }, none = { 0 };
	struct rtt_events *ev = NULL;
	struct rtt_record r;
	char err[RTT_ERR_MAX], *syms = NULL, *cmdl = NULL, *before = NULL;
	const char *pid_arg = NULL, *tracer = NULL, *inst = NULL;
	uint64_t last, start;
	unsigned long last_events = 0;
	uint32_t ctl_gen = 0;
	char clock[32];
	long drain;
	pid_t child = 0;
	size_t len;
	int c, ret, slot, code = RTT_EXIT_OK;
	bool exited = false;

	memset(&r, 0, sizeof(r));
	r.out = "trace.dat";
	while ((c = getopt_long(argc, argv, "+:o:P:e:p:i:O:qh", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'o':
			r.out = optarg;
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
		ctl_gen = rtt_ctl_gen(&r.p);
		ret = rtt_load_events(&r.p, &ev, false);
		if (!ret)
			ret = rtt_apply_settings(&r.p, ev, inst, &topts,
						 &events, &none);
		if (!ret && tracer)
			ret = rtt_cmd(&r.p, NULL, "tracer %s %s",
				      rtt_iarg(inst), tracer);
		/* start from an empty buffer, as trace-cmd record does */
		if (!ret)
			ret = rtt_cmd(&r.p, NULL, "clear %s", rtt_iarg(inst));
		if (ret)
			goto out;
	} else {
		ret = rtt_record_spawn(argv + optind, &events, tracer, &topts,
				       &r.p, &child);
		if (ret)
			goto out_free;
		ctl_gen = rtt_ctl_gen(&r.p);
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
	slot = rtt_find_inst(&r.p, inst);
	ret = rtt_attach(&r.p, slot, false, RTT_ATTACH_CONSUME, NULL, &r.rb,
			 err);
	if (ret) {
		rtt_msg("%s", err);
		goto out;
	}
	r.nr_cpus = ringbuf_nr_cpus(r.rb);
	r.pages = calloc((size_t)r.nr_cpus, sizeof(*r.pages));
	if (!r.pages) {
		ret = -ENOMEM;
		goto out;
	}
	if (rtt_syms_text(&r.p, &syms, &len, err))
		rtt_msg("warning: the trace will have no symbols: %s", err);
	rtt_cmdlines_text(&r.p, &cmdl, &len);
	snprintf(clock, sizeof(clock), "%.*s", (int)sizeof(r.p.ctl->clock) - 1,
		 r.p.ctl->clock);
	ret = rtt_td_open(r.out, r.rb, ev, syms, cmdl, clock, &r.w);
	if (ret)
		goto out;
	/* a complete (empty) file at once: whatever happens next, the path
	 * holds a trace.dat that reads */
	r.ckpt_bytes = 32768;
	ret = td_writer_checkpoint(r.w);
	start = last = rtt_now_ms();
	while (!ret) {
		uint64_t now;
		uint32_t g;
		int w, moved;

		g = rtt_ctl_gen(&r.p);
		if (g != ctl_gen) {
			ctl_gen = g;
			rtt_record_formats(&r, &ev);
		}
		moved = rtt_record_pages(&r, 1, RTT_RECORD_BATCH);
		if (moved < 0) {
			ret = moved;
			break;
		}
		now = rtt_now_ms();
		ret = rtt_record_ckpt(&r, now - last >= 1000);
		if (ret)
			break;
		if (now - last >= 1000) {
			double rate = (double)(r.events - last_events) *
				      1000.0 / (double)(now - last);

			rtt_record_progress(&r, rate);
			last_events = r.events;
			last = now;
		}
		if (rtt_stop)
			break;
		if (moved == RTT_RECORD_BATCH)
			continue;
		/* short waits at first: a starting program registers its
		 * events, whose formats are read at the next turn */
		w = ringbuf_wait(r.rb, RINGBUF_ALL_CPUS, 50,
				 now - start < 2000 ? 20 : 200);
		if (w == -ESRCH || rtt_proc_state(&r.p) == RTT_DEAD) {
			exited = true;
			break;
		}
		/* at the watermark with no whole page to take (the writer
		 * is still on it): do not spin */
		if (w > 0 && !moved)
			usleep(20000);
	}
	/* what is left, partial pages included; no more than the buffer
	 * holds now, should a live writer keep filling it */
	drain = r.nr_cpus;
	for (c = 0; c < r.nr_cpus; c++)
		drain += (long)(ringbuf_size(r.rb, c) /
				ringbuf_subbuf_size(r.rb));
	while (!ret && drain > 0) {
		int moved = rtt_record_pages(&r, 0, RTT_RECORD_BATCH);

		if (moved <= 0) {
			ret = moved;
			break;
		}
		drain -= moved;
		ret = rtt_record_ckpt(&r, false);
	}
	if (!ret) {
		/* events registered at the end (their files may be gone) */
		if (rtt_ctl_gen(&r.p) !=
		    ctl_gen)
			rtt_record_formats(&r, &ev);
		/* the symbols of what was loaded meanwhile */
		if (!exited) {
			free(syms);
			syms = NULL;
			if (!rtt_syms_text(&r.p, &syms, &len, err) && syms)
				td_writer_set_kallsyms(r.w, syms);
		}
		free(cmdl);
		cmdl = NULL;
		if (!rtt_cmdlines_text(&r.p, &cmdl, &len))
			td_writer_set_cmdlines(r.w, cmdl);
		ret = td_writer_close(r.w);
		r.w = NULL;
		if (ret)
			ret = rtt_td_error(r.out, ret);
	} else if (ret == -ENOMEM) {
		rtt_msg("out of memory");
	} else {
		/* a last try with what could be written (the disk may take
		 * a smaller copy) */
		if (ret != -EINVAL)
			td_writer_checkpoint(r.w);
		ret = rtt_td_error(r.out, ret);
	}
	if (r.tty && !r.quiet)
		fputs("\r\033[K", stderr);
	if (!ret) {
		struct rtt_counts cs;

		rtt_get_counts(r.rb, &cs);
		rtt_msg("%lu events recorded in %s in %.1f s; %lu lost",
			r.events, r.out,
			(double)(rtt_now_ms() - start) / 1000.0, rtt_lost(&cs));
	}
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
	if (r.pages) {
		int cpu;

		for (cpu = 0; cpu < r.nr_cpus; cpu++)
			ringbuf_free_read_page(r.rb, cpu, r.pages[cpu]);
	}
	free(r.pages);
	td_writer_abort(r.w);
	ringbuf_free(r.rb);
	rtt_proc_close(&r.p);
	if (child) {
		int status;

		/* reap the command if it is done; a command still running
		 * after Ctrl-C is left to itself */
		if (exited)
			waitpid(child, &status, 0);
	}
out_free:
	if (ret)
		code = rtt_exit_code(ret);
	rtt_events_free(ev);
	free(syms);
	free(cmdl);
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
	"  -h, --help           this text\n";

/* The records of the current page of one cpu buffer. */
struct rtt_rcpu {
	uint64_t page;
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
};

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

static bool rtt_src_peek(void *ctx, int cpu, uint64_t *ts, const void **data,
			 unsigned int *len, long *lost)
{
	struct rtt_report *rp = ctx;
	struct rtt_rcpu *c = &rp->cpus[cpu];
	const struct td_record *rec = rtt_report_peek_rec(rp, cpu);

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

	if (rtt_report_peek_rec(rp, cpu)) {
		c->pos++;
		c->missed = 0;
		c->missed_unknown = false;
	}
}

/* The records in time order into a JSON document. */
static void rtt_report_json(struct rtt_report *rp, struct rtt_json *json)
{
	for (;;) {
		const struct td_record *rec;
		struct rtt_rcpu *cc;
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

	*pid = 0;
	for (cpu = 0; cpu < rp->nr_cpus; cpu++) {
		struct rtt_rcpu c;
		uint64_t i;

		memset(&c, 0, sizeof(c));
		for (i = 0; i < rp->cpus[cpu].nr_pages; i++) {
			const void *page = td_reader_page(rp->r, cpu, i);
			size_t k;

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
				if (ent.pid > 0 && (!*pid || ent.pid < *pid))
					*pid = ent.pid;
				if (ent.type == RT_TYPE_GRAPH_ENT ||
				    ent.type == RT_TYPE_GRAPH_RET)
					rp->graph = true;
			}
		}
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

static int rtt_do_report(const struct rtt_verb *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "filter", required_argument, NULL, 'f' },
		{ "raw", no_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtt_strv fargs = { 0 };
	struct rtt_report rp;
	struct rtt_json *json = NULL;
	char err[RTT_ERR_MAX];
	unsigned long cpu_arg = (unsigned long)-1;
	bool want_json = false;
	const char *clock, *kallsyms;
	int c, ret = 0, i, pid;
	size_t k;

	memset(&rp, 0, sizeof(rp));
	while ((c = getopt_long(argc, argv, ":c:f:rh", opts, NULL)) != -1) {
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
		case 'F':
			if (!strcmp(optarg, "json"))
				want_json = true;
			else if (strcmp(optarg, "text"))
				return rtt_usage(v, "unknown format '%s' (text, json)",
						 optarg);
			break;
		case 'h':
			return rtt_help(v);
		default:
			return rtt_bad_option(v, argv, c);
		}
	}
	if (optind != argc - 1) {
		free(fargs.v);
		return rtt_usage(v, optind < argc ? "too many arguments" :
						    "missing the trace.dat file");
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
	rp.cpus = calloc((size_t)rp.nr_cpus, sizeof(*rp.cpus));
	if (!rp.cpus) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < rp.nr_cpus; i++)
		rp.cpus[i].nr_pages = td_reader_nr_pages(rp.r, i);
	rtt_report_scan(&rp, &pid);
	signal(SIGPIPE, SIG_IGN);
	if (want_json) {
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
	  "record [-o FILE] [-e EVENT]... [-p TRACER] [-O OPT]... [-q] (-P PID [-i NAME] | -- COMMAND [ARG]...)",
	  rtt_record_help },
	{ "report", NULL, rtt_do_report,
	  "report [-c CPU] [-f 'EVENT EXPR']... [-r] [--format=text|json] FILE",
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
