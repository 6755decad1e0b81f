// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * list.c - ringtrace list: the traced processes, or the events of one
 */
#include "rtt.h"

/* ---- list --------------------------------------------------------------- */

const char rtt_list_help[] =
	"Without -e: the processes that published a trace in the publish\n"
	"directory, one per line: PID, NAME, STATE (running, exiting, or dead:\n"
	"the files a crashed or killed process left, see 'ringtrace extract'),\n"
	"BUFFERS (its instances), EVENTS (how many are enabled) and LOST (events\n"
	"lost so far: overwritten, dropped, or lost to nested writes). A '*'\n"
	"after LOST marks the files 'ringtrace clean' would remove: those of a\n"
	"dead process, the user's own.\n"
	"With -e PID: the events of that process (system:event), one per line;\n"
	"with --formats too, each with its format. With -f PID: the functions\n"
	"of that process's symbols (available_filter_functions). With\n"
	"--enabled-functions PID: the recorded call sites (-pg -mrecord-mcount,\n"
	"-fpatchable-function-entry) patched into calls now (enabled_functions).\n"
	"\n"
	"  -e, --events PID     list the events of PID\n"
	"      --formats        with -e: each event's format too\n"
	"  -f, --functions PID  list the functions of PID\n"
	"      --enabled-functions PID  the patched call sites of PID\n"
	"  -h, --help         this text\n";

/* The files of @p are a dead process's, and the user's own: 'clean'
 * removes them. */
static bool rtt_cleanable(const struct rtt_proc *p, const char *ctl)
{
	char dir[PATH_MAX];
	size_t n;
	struct stat st;

	/* only in the user's publish directory (root lists others too) */
	if (rtt_publish_dir(dir, sizeof(dir)))
		return false;
	n = strlen(dir);
	if (strncmp(ctl, dir, n) || ctl[n] != '/' || strchr(ctl + n + 1, '/'))
		return false;
	return p->state == RTT_DEAD && !lstat(ctl, &st) &&
	       S_ISREG(st.st_mode) && st.st_uid == getuid();
}

/*
 * A control file no reader takes (cut short, or another version's layout)
 * stands for the files of process @e->pid started at @e->start, as its
 * name says: @p is set up from the name alone (no mapping), enough for
 * rtt_cleanable() and rtt_remove_files(). Return: whether they are a
 * dead process's and the user's own.
 */
static bool rtt_stale_files(const struct rtt_entry *e, const char *ctl,
			    struct rtt_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->pid = e->pid;
	p->start = e->start;
	snprintf(p->base, sizeof(p->base), "%s", e->base);
	p->state = rt_proc_start_time(e->pid) == e->start ? RTT_ALIVE :
							    RTT_DEAD;
	return rtt_cleanable(p, ctl);
}

/* Return: whether the row is marked (clean would remove its files). */
static bool rtt_list_one(const struct rtt_entry *e)
{
	bool marked;
	static const char *const states[] = { "running", "dead", "exiting" };
	char err[RTT_ERR_MAX], path[PATH_MAX + 8], bufs[256], events[16];
	char lost[32], comm[17];
	struct rtt_proc p;
	unsigned long nlost = 0;
	bool counted = false;
	size_t bl = 0;
	int i, ret;

	snprintf(path, sizeof(path), "%s.ctl", e->base);
	ret = rtt_proc_open_path(path, RTT_OPEN_DEAD, &p, err);
	if (ret == -EPERM) {
		/* refused (not the process's, or not a regular file) */
		rtt_msg("warning: %s", err);
		return false;
	}
	if (ret) {
		/* a dead process's: clean removes them */
		marked = rtt_stale_files(e, path, &p);
		printf("%-8d %-16s %-8s %-20s %6s %10s%s\n", e->pid, "?",
		       ret == -EPROTO ? "corrupt" : "unreadable", "-", "-",
		       "-", marked ? " *" : "");
		rtt_msg("%s", err);
		return marked;
	}
	bufs[0] = '\0';
	for (i = 0; i < RT_CTL_MAX_INSTANCES; i++) {
		struct ringbuf *rb;
		char name[PATH_MAX];
		int n;

		if (rtt_inst_path(&p, i, false, name, NULL))
			continue;
		/* the instance names, comma-separated, cut to the column */
		rtt_safe_copy(name, 64, i ? p.ctl->inst[i].name : "top",
			      sizeof(p.ctl->inst[i].name));
		n = snprintf(bufs + bl, sizeof(bufs) - bl, "%s%s",
			     bl ? "," : "", name);
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

		if (!rtt_call(&p, 1000, &RT_CALL(SHOW_SET_EVENT, NULL), &reply,
			      err) &&
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
	marked = rtt_cleanable(&p, path);
	rtt_safe_copy(comm, sizeof(comm), p.ctl->comm, sizeof(p.ctl->comm));
	printf("%-8d %-16.16s %-8s %-20s %6s %10s%s\n", p.pid, comm,
	       states[p.state], bufs[0] ? bufs : "-", events, lost,
	       marked ? " *" : "");
	rtt_proc_close(&p);
	return marked;
}

static int rtt_list_functions(const char *arg)
{
	struct rtt_syms *syms = NULL;
	struct rtt_proc p;
	size_t i;
	int ret;

	/* writable: a live process writes its symbols file when asked */
	ret = rtt_open_pid(arg, RTT_OPEN_DEAD, &p);
	if (ret)
		return rtt_exit_code(ret);
	ret = rtt_load_syms(&p, &syms);
	rtt_proc_close(&p);
	if (ret)
		return rtt_exit_code(ret);
	/* the process's text: escaped as ps shows names */
	for (i = 0; syms && i < syms->nr; i++) {
		rtt_sanitize(syms->v[i].name, strlen(syms->v[i].name), false);
		if (syms->v[i].module) {
			rtt_sanitize(syms->v[i].module,
				     strlen(syms->v[i].module), false);
			printf("%s [%s]\n", syms->v[i].name,
			       syms->v[i].module);
		} else {
			printf("%s\n", syms->v[i].name);
		}
	}
	rtt_syms_free(syms);
	return fflush(stdout) ? RTT_EXIT_FAIL : RTT_EXIT_OK;
}

static int rtt_list_enabled(const char *arg)
{
	struct rtt_proc p;
	char *reply = NULL;
	int ret;

	ret = rtt_open_pid(arg, 0, &p);
	if (ret)
		return rtt_exit_code(ret);
	ret = rtt_cmd(&p, &reply,
		      &RT_CALL(GET, NULL, RT_S(0, "enabled_functions")));
	rtt_proc_close(&p);
	if (!ret && reply)
		fputs(reply, stdout);
	free(reply);
	if (!ret && fflush(stdout))
		ret = -EIO;
	return rtt_exit_code(ret);
}

static int rtt_list_events(const char *arg, bool formats)
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
		if (!formats)
			continue;
		fputs(ev->v[i].format, stdout);
		if (ev->v[i].format[0] &&
		    ev->v[i].format[strlen(ev->v[i].format) - 1] != '\n')
			putchar('\n');
		putchar('\n');
	}
	rtt_events_free(ev);
	return fflush(stdout) ? RTT_EXIT_FAIL : RTT_EXIT_OK;
}

int rtt_do_list(const struct rtt_verb *v, int argc, char **argv)
{
	char err[RTT_ERR_MAX];
	const char *events = NULL, *funcs = NULL, *enabled = NULL;
	bool formats = false;
	const struct rtt_opt opts[] = {
		RTT_O_STR("events", 'e', &events),
		RTT_O_FLAG("formats", 256 + 'F', &formats),
		RTT_O_STR("functions", 'f', &funcs),
		RTT_O_STR("enabled-functions", 256 + 'E', &enabled),
		RTT_O_END(0),
	};
	struct rtt_entry *e;
	size_t n, i;
	int c, ret;

	ret = rtt_options(v, argc, argv, opts);
	if (ret != RTT_OPTIONS_GO)
		return ret;
	if (optind < argc)
		return rtt_usage(v, "unexpected argument '%s'", argv[optind]);
	if (!!events + !!funcs + !!enabled > 1)
		return rtt_usage(v, "-e, -f and --enabled-functions: give one of them");
	if (formats && !events)
		return rtt_usage(v, "--formats goes with -e");
	if (funcs)
		return rtt_list_functions(funcs);
	if (enabled)
		return rtt_list_enabled(enabled);
	if (events)
		return rtt_list_events(events, formats);
	ret = rtt_list_all(&e, &n, true, err);
	if (ret) {
		rtt_msg("%s", err);
		return rtt_exit_code(ret);
	}
	printf("%-8s %-16s %-8s %-20s %6s %10s\n", "PID", "NAME", "STATE",
	       "BUFFERS", "EVENTS", "LOST");
	for (i = 0, c = 0; i < n; i++)
		c += rtt_list_one(&e[i]);
	free(e);
	if (c)
		printf("* the files of a dead process: 'ringtrace clean' removes them\n");
	return fflush(stdout) ? RTT_EXIT_FAIL : RTT_EXIT_OK;
}

const char rtt_clean_help[] =
	"Remove the files dead processes left in the publish directory: those\n"
	"'ringtrace list' marks with '*'. Only the user's own files, and never\n"
	"those of a live process (one whose pid and start time still match).\n"
	"Extract what you need from them first ('ringtrace extract').\n"
	"\n"
	"  -n, --dry-run      print what would be removed, remove nothing\n"
	"  -h, --help         this text\n";

int rtt_do_clean(const struct rtt_verb *v, int argc, char **argv)
{
	char err[RTT_ERR_MAX], path[PATH_MAX + 8];
	bool dry = false;
	const struct rtt_opt opts[] = {
		RTT_O_FLAG("dry-run", 'n', &dry),
		RTT_O_END(0),
	};
	struct rtt_entry *e;
	size_t n, i;
	int ret, first = 0;

	ret = rtt_options(v, argc, argv, opts);
	if (ret != RTT_OPTIONS_GO)
		return ret;
	if (optind < argc)
		return rtt_usage(v, "unexpected argument '%s'", argv[optind]);
	ret = rtt_list(&e, &n, err);
	if (ret) {
		rtt_msg("%s", err);
		return rtt_exit_code(ret);
	}
	for (i = 0; i < n; i++) {
		struct rtt_proc p;

		bool mapped;

		snprintf(path, sizeof(path), "%s.ctl", e[i].base);
		mapped = !rtt_proc_open_path(path, RTT_OPEN_DEAD, &p, err);
		/* files no reader takes: by their name (rtt_stale_files()) */
		if (!mapped && !rtt_stale_files(&e[i], path, &p))
			continue;
		if (rtt_cleanable(&p, path)) {
			ret = dry ? 0 : rtt_remove_files(&p, err);
			if (ret) {
				rtt_msg("%s", err);
				if (!first)
					first = ret;
			} else {
				char comm[17] = "?";

				if (mapped)
					rtt_safe_copy(comm, sizeof(comm),
						      p.ctl->comm,
						      sizeof(p.ctl->comm));
				printf("%s %d (%s)\n",
				       dry ? "would remove" : "removed", p.pid,
				       comm);
			}
		}
		if (mapped)
			rtt_proc_close(&p);
	}
	free(e);
	if (fflush(stdout))
		return RTT_EXIT_FAIL;
	return first ? rtt_exit_code(first) : RTT_EXIT_OK;
}
