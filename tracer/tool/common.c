// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * common.c - what the verbs share: messages, usage, arguments, talking to
 *	a process, its events, options and filters
 */
#include "rtt.h"

volatile sig_atomic_t rtt_stop;
static volatile sig_atomic_t rtt_signals;

static void rtt_on_signal(int sig)
{
	rtt_stop = sig;
	rtt_signals++;
}

static unsigned long rtt_signals_seen(void)
{
	return (unsigned long)rtt_signals;
}

/* Without SA_RESTART: a handler that runs ends the wait it came in (a
 * futex, a nanosleep, a poll), and every wait of the verbs that catch
 * signals is cut in slices that look at rtt_stop, as the client's waits
 * for a process do (rtt_set_interrupt()). */
void rtt_catch_signals(void)
{
	rtt_set_interrupt(rtt_signals_seen);
	rtt_end_signals(rtt_on_signal);
	signal(SIGPIPE, SIG_IGN);
}

void rtt_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("ringtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- verbs and their usage ---------------------------------------------- */


int rtt_help(const struct rtt_verb *v)
{
	printf("usage: ringtrace %s\n\n%s", v->synopsis, v->help);
	return RTT_EXIT_OK;
}

int rtt_usage(const struct rtt_verb *v, const char *fmt, ...)
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

/* ---- talking to a process ----------------------------------------------- */

/* Open a live process (or a dead one's files with RTT_OPEN_DEAD). */
int rtt_open_pid(const char *arg, unsigned int flags,
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

/*
 * Send a command; on failure print the process's message and return
 * the negative errno.
 */
int rtt_cmd(struct rtt_proc *p, char **reply, const struct rt_cmd_args *c)
{
	char err[RTT_ERR_MAX];
	int ret;

	ret = rtt_call(p, RTT_CMD_TIMEOUT_MS, c, reply, err);
	if (ret)
		rtt_msg("process %d: %s", p->pid, err);
	return ret;
}

int rtt_file_write(struct rtt_proc *p, const char *inst, const char *file,
		   const char *text, bool append, char *err)
{
	int ret = 0;

	if (!append)
		ret = rtt_call(p, RTT_CMD_TIMEOUT_MS,
			       &RT_CALL(FILE_TRUNC, inst, RT_S(0, file)), NULL,
			       err);
	if (!ret)
		ret = rtt_call(p, RTT_CMD_TIMEOUT_MS,
			       &RT_CALL(FILE_WRITE, inst, RT_S(0, file),
					RT_S(1, text)),
			       NULL, err);
	return ret;
}

int rtt_file_set(struct rtt_proc *p, const char *inst, const char *file,
		 const char *text)
{
	char err[RTT_ERR_MAX];
	int ret = rtt_file_write(p, inst, file, text, false, err);

	if (ret)
		rtt_msg("process %d: %s", p->pid, err);
	return ret;
}

/* Check that an instance exists: its slot, or -ENOENT or -EPROTO (a
 * damaged instance table) after a message. */
int rtt_find_inst(struct rtt_proc *p, const char *inst)
{
	int i = rtt_inst_find(p, inst);

	if (i == -EPROTO)
		rtt_msg("refused: corrupt control file %s.ctl: its instance table holds slots the library does not write",
			p->base);
	else if (i < 0 && inst && *inst && strcmp(inst, "-"))
		rtt_msg("process %d has no instance '%s'", p->pid, inst);
	else if (i < 0)
		rtt_msg("process %d has no trace buffer yet", p->pid);
	return i;
}

int rtt_load_events(struct rtt_proc *p, struct rtt_events **out,
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

int rtt_load_syms(struct rtt_proc *p, struct rtt_syms **out)
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

/* trace_options text ("opt" or "noopt" per line) to RT_OPT() bits. */
static uint64_t rtt_parse_opts(const char *text, uint64_t opts)
{
	const char *line = text;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		bool on = true;
		int i;

		if (len > 2 && !strncmp(line, "no", 2) &&
		    rt_opt_lookup(line + 2, len - 2) >= 0) {
			on = false;
			line += 2;
			len -= 2;
		}
		i = rt_opt_lookup(line, len);
		if (i >= 0 && on)
			opts |= RT_OPT(i);
		else if (i >= 0)
			opts &= ~RT_OPT(i);
		line = eol ? eol + 1 : NULL;
	}
	return opts;
}

/*
 * How the process prints an instance: its options and current tracer. A
 * dead process (or one that does not answer) gets the defaults.
 */
void rtt_get_cfg(struct rtt_proc *p, const char *inst,
		 struct rt_print_cfg *cfg)
{
	char err[RTT_ERR_MAX], *reply = NULL;
	int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->opts = rt_opt_defaults();
	cfg->tracer = RT_TRACER_NOP;
	if (!p->writable || rtt_proc_state(p) != RTT_ALIVE)
		return;
	if (!rtt_call(p, RTT_CMD_TIMEOUT_MS,
		      &RT_CALL(FILE_READ, inst, RT_S(0, "trace_options")),
		      &reply, err) &&
	    reply)
		cfg->opts = rtt_parse_opts(reply, cfg->opts);
	free(reply);
	reply = NULL;
	if (!rtt_call(p, RTT_CMD_TIMEOUT_MS,
		      &RT_CALL(FILE_READ, inst, RT_S(0, "current_tracer")),
		      &reply, err) &&
	    reply) {
		reply[strcspn(reply, "\n")] = '\0';
		i = rt_tracer_lookup(reply);
		if (i >= 0)
			cfg->tracer = i;
	}
	free(reply);
}

bool rtt_opt_ok(const char *arg)
{
	size_t len = strlen(arg);

	if (rt_opt_lookup(arg, len) >= 0)
		return true;
	return len > 2 && !strncmp(arg, "no", 2) &&
	       rt_opt_lookup(arg + 2, len - 2) >= 0;
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

int rtt_check_events_in(struct rtt_proc *p, const struct rtt_events *ev,
			int from, int to, const char *const *specs)
{
	char sys[128], name[128];
	int i, ret = 0;

	for (i = from; i < to; i++)
		if (!specs[i][0] || !strcmp(specs[i], "!")) {
			rtt_msg("an empty event name: nothing changed");
			return -EINVAL;
		}
	for (i = from; i < to && !ret; i++) {
		const char *s = specs[i][0] == '!' ? specs[i] + 1 : specs[i];

		/* a glob is the process's to match */
		if (strpbrk(s, "?[") || (strchr(s, '*') && strcmp(s, "*") &&
					 !strstr(s, ":*") && strncmp(s, "*:", 2)))
			continue;
		ret = rtt_resolve_event(p, ev, s, sys, sizeof(sys), name,
					sizeof(name));
	}
	return ret;
}

int rtt_check_events(struct rtt_proc *p, int from, int to,
		     const char *const *specs)
{
	struct rtt_events *ev;
	int ret;

	ret = rtt_load_events(p, &ev, false);
	if (ret)
		return ret;
	ret = rtt_check_events_in(p, ev, from, to, specs);
	rtt_events_free(ev);
	return ret;
}

/*
 * Set an event filter in the process: @arg is "SYS:EVENT EXPR" (or
 * "EVENT EXPR", "SYS EXPR"). A refused expression prints the process's
 * report with the caret.
 */
int rtt_set_filter(struct rtt_proc *p, const struct rtt_events *ev,
		   const char *inst, const char *spec,
		   const char *expr)
{
	char sys[128], name[128], err[RTT_ERR_MAX];
	int ret;

	if (rtt_filter_too_long(spec, expr))
		return -E2BIG;
	ret = rtt_resolve_event(p, ev, spec, sys, sizeof(sys), name,
				sizeof(name));
	if (ret)
		return ret;
	ret = rtt_call(p, RTT_CMD_TIMEOUT_MS,
		       &RT_CALL(FILTER, inst, RT_S(0, sys), RT_S(1, name),
				RT_S(2, expr)),
		       NULL, err);
	if (ret == -EINVAL && strstr(err, "parse_error")) {
		rtt_msg("bad filter for %s:", spec);
		fprintf(stderr, "%s\n", err);
	} else if (ret) {
		rtt_msg("process %d: filter for %s: %s", p->pid, spec, err);
	}
	return ret;
}

bool rtt_filter_too_long(const char *spec, const char *expr)
{
	size_t n = strlen(expr);

	if (n <= RT_FILTER_MAX_LEN)
		return false;
	rtt_msg("filter for %s: the expression is %zu bytes, longer than the %d a filter takes",
		spec, n, RT_FILTER_MAX_LEN);
	return true;
}

/* Split "SPEC EXPR" at the first blank. */
int rtt_split_filter(const char *arg, char *spec, size_t len,
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


void rtt_get_counts(struct ringbuf *rb, struct rtt_counts *c)
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

void rtt_counts_since(struct rtt_counts *c, const struct rtt_counts *base)
{
	/* a counter can only grow; a buffer reset starts it again */
#define RTT_SINCE(f) c->f = c->f >= base->f ? c->f - base->f : c->f
	RTT_SINCE(entries);
	RTT_SINCE(overrun);
	RTT_SINCE(commit_overrun);
	RTT_SINCE(dropped);
	RTT_SINCE(read);
	RTT_SINCE(torn);
#undef RTT_SINCE
}

unsigned long rtt_lost(const struct rtt_counts *c)
{
	return c->overrun + c->commit_overrun + c->dropped;
}


int rtt_strv_add(struct rtt_strv *s, const char *str)
{
	const char **nv = realloc(s->v, (size_t)(s->nr + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	nv[s->nr++] = str;
	s->v = nv;
	return 0;
}

/* Apply -O, -f and -e in the process. */
int rtt_apply_settings(struct rtt_proc *p, const struct rtt_events *ev,
		       const char *inst, const struct rtt_strv *opts,
		       const struct rtt_strv *events,
		       const struct rtt_strv *filters)
{
	int i, ret;

	for (i = 0; i < opts->nr; i++) {
		ret = rtt_file_set(p, inst, "trace_options", opts->v[i]);
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
		ret = rtt_cmd(p, NULL, &RT_CALL(SET_EVENT, inst,
					       RT_S(0, events->v[i])));
		if (ret)
			return ret;
	}
	return 0;
}

bool rtt_environ_has(int pid, const char *want)
{
	char path[64], *buf = NULL;
	size_t len = 0, i;
	bool has = false;

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	if (rtt_read_file(path, 1 << 20, &buf, &len))
		return false;
	for (i = 0; i < len && !has; i += strlen(buf + i) + 1)
		has = !strcmp(buf + i, want);
	free(buf);
	return has;
}

void rtt_print_reply(const char *reply)
{
	if (!reply)
		return;
	fputs(reply, stdout);
	if (reply[0] && reply[strlen(reply) - 1] != '\n')
		putchar('\n');
}
