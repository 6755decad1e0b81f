// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ctl.c - the control verbs: enable, disable, filter, on, off, clear,
 *	buffer-size, tracer, clock, snapshot, options, trigger, pids
 */
#include "rtt.h"

/* ---- control verbs ------------------------------------------------------ */

/*
 * The options of a control verb (@o: its table, with -i into @inst),
 * then the pid and between @min_args and @max_args (-1: any number) more
 * arguments: opens the process, and checks the instance. Returns
 * RTT_OPTIONS_GO to go on with argv[optind], else the exit code (help,
 * usage).
 */
static int rtt_ctl_args(const struct rtt_verb *v, int argc, char **argv,
			const struct rtt_opt *o, const char *const *inst,
			int min_args, int max_args, struct rtt_proc *p)
{
	int n, ret = rtt_options(v, argc, argv, o);

	if (ret != RTT_OPTIONS_GO)
		return ret;
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
	if (*inst) {
		int slot = rtt_find_inst(p, *inst);

		if (slot < 0) {
			rtt_proc_close(p);
			return rtt_exit_code(slot);
		}
	}
	optind++;
	return RTT_OPTIONS_GO;
}

/* rtt_ctl_args() for the verbs whose only option is -i (@flags: of
 * RTT_O_END). */
static int rtt_ctl_open(const struct rtt_verb *v, int argc, char **argv,
			unsigned int flags, const char **inst, int min_args,
			int max_args, struct rtt_proc *p)
{
	const struct rtt_opt opts[] = {
		RTT_O_STR("instance", 'i', inst),
		RTT_O_END(flags),
	};

	*inst = NULL;
	return rtt_ctl_args(v, argc, argv, opts, inst, min_args, max_args,
			    p);
}

const char rtt_enable_help[] =
	"Enable (or disable) events in a process, as 'echo EVENT >> set_event'\n"
	"(or '!EVENT'). EVENT is sys:event, sys:*, event or sys; several may\n"
	"be given. An event the process does not have is an error.\n"
	"\n";

int rtt_do_enable(const struct rtt_verb *v, int argc, char **argv)
{
	bool on = strcmp(v->name, "disable") != 0;
	struct rtt_proc p;
	const char *inst;
	int code, ret = 0, i;

	code = rtt_ctl_open(v, argc, argv, 0, &inst, on ? 0 : 1, -1, &p);
	if (code != RTT_OPTIONS_GO)
		return code;
	if (optind == argc) {
		/* enable PID: the enabled events, as cat set_event */
		char *reply = NULL;

		ret = rtt_cmd(&p, &reply, &RT_CALL(SHOW_SET_EVENT, inst));
		if (!ret && reply)
			fputs(reply, stdout);
		free(reply);
		rtt_proc_close(&p);
		if (!ret && fflush(stdout))
			ret = -EIO;
		return rtt_exit_code(ret);
	}
	/* all or nothing: every event is checked before any is set */
	ret = rtt_check_events(&p, optind, argc,
			       (const char *const *)argv);
	for (i = optind; i < argc && !ret; i++) {
		char err[RTT_ERR_MAX];

		char spec[RT_CTL_CMD_MAX];

		snprintf(spec, sizeof(spec), "%s%s", on ? "" : "!", argv[i]);
		ret = rtt_call(&p, RTT_CMD_TIMEOUT_MS,
			       &RT_CALL(SET_EVENT, inst, RT_S(0, spec)), NULL,
			       err);
		if (ret == -ENOENT)
			rtt_msg("unknown event '%s' in process %d", argv[i],
				p.pid);
		else if (ret)
			rtt_msg("process %d: %s", p.pid, err);
	}
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

const char rtt_filter_help[] =
	"Set the filter of an event (sys:event or event), or the subsystem\n"
	"filter of a system (sys or sys:*), as 'echo EXPR > filter'. EXPR may\n"
	"be given as several arguments; \"0\" clears the filter. An expression\n"
	"the process refuses is printed with a caret under the error.\n"
	"\n";

int rtt_do_filter(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_events *ev = NULL;
	struct rtt_proc p;
	const char *inst, *spec;
	char *expr = NULL;
	size_t len = 0;
	int code, ret, i;

	/* the expression may hold words that start with '-' */
	code = rtt_ctl_open(v, argc, argv, RTT_OPTS_IN_ORDER, &inst, 1, -1,
			    &p);
	if (code != RTT_OPTIONS_GO)
		return code;
	spec = argv[optind];
	if (optind + 1 == argc) {
		/* filter PID EVENT: its filter, as cat of the filter file */
		const char *colon = strchr(spec, ':');
		char *reply = NULL, sys[RT_CTL_CMD_MAX];

		snprintf(sys, sizeof(sys), "%.*s",
			 colon ? (int)(colon - spec) : (int)strlen(spec), spec);
		ret = colon ? rtt_cmd(&p, &reply,
				      &RT_CALL(SHOW_FILTER, inst, RT_S(0, sys),
					       RT_S(1, colon + 1))) :
			      rtt_cmd(&p, &reply,
				      &RT_CALL(SHOW_FILTER, inst, RT_S(0, sys)));
		if (!ret)
			rtt_print_reply(reply);
		free(reply);
		rtt_proc_close(&p);
		return rtt_exit_code(ret);
	}
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

/* The tracefs file each of the verbs that set one value writes (and
 * reads back without a value): the library's file table (files.c). */
static const char *rtt_verb_file(const char *verb)
{
	static const char *const map[][2] = {
		{ "on", "tracing_on" },		{ "off", "tracing_on" },
		{ "buffer-size", "buffer_size_kb" },
		{ "tracer", "current_tracer" }, { "clock", "trace_clock" },
		{ "cpumask", "tracing_cpumask" },
		{ "free-buffer", "free_buffer" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i][0], verb))
			return map[i][1];
	return NULL;
}

/* Verbs that are one command: on, off, clear, buffer-size, tracer,
 * clock, cpumask, free-buffer; the ones that set a value are writes of
 * its file, as echo VALUE > FILE. */
int rtt_do_simple(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_proc p;
	const char *inst, *arg = NULL, *file = rtt_verb_file(v->name);
	unsigned long kb;
	int code, ret;
	bool one = !strcmp(v->name, "buffer-size") || !strcmp(v->name, "tracer") ||
		   !strcmp(v->name, "clock") || !strcmp(v->name, "cpumask");

	/* buffer-size PID KB CPU: one cpu buffer */
	code = rtt_ctl_open(v, argc, argv, 0, &inst, 0,
			    !strcmp(v->name, "buffer-size") ? 2 : one ? 1 : 0,
			    &p);
	if (code != RTT_OPTIONS_GO)
		return code;
	if (one && optind == argc) {
		/* without a value: read it back, as cat of the file */
		char *reply = NULL;

		ret = rtt_cmd(&p, &reply,
			      &RT_CALL(FILE_READ, inst, RT_S(0, file)));
		if (!ret)
			rtt_print_reply(reply);
		free(reply);
		rtt_proc_close(&p);
		if (!ret && fflush(stdout))
			ret = -EIO;
		return rtt_exit_code(ret);
	}
	if (one)
		arg = argv[optind];
	if (!strcmp(v->name, "on") || !strcmp(v->name, "off")) {
		arg = !strcmp(v->name, "on") ? "1" : "0";
	} else if (!strcmp(v->name, "clear")) {
		ret = rtt_cmd(&p, NULL, &RT_CALL(CLEAR, inst));
		goto out;
	} else if (!strcmp(v->name, "free-buffer")) {
		arg = "";
	} else if (!strcmp(v->name, "buffer-size")) {
		unsigned long cpu = 0;
		const char *c = optind + 1 < argc ? argv[optind + 1] : NULL;

		if (rtt_parse_uint(arg, 1ul << 30, &kb) || !kb) {
			rtt_proc_close(&p);
			return rtt_usage(v, "bad size '%s' (KiB per cpu buffer)",
					 arg);
		}
		if (c && rtt_parse_uint(c, INT_MAX, &cpu)) {
			rtt_proc_close(&p);
			return rtt_usage(v, "bad cpu buffer '%s'", c);
		}
		/* one cpu buffer: per_cpu/cpuN/buffer_size_kb, the mount's */
		if (c) {
			ret = rtt_cmd(&p, NULL,
				      &RT_CALL(BUFFER_SIZE_KB, inst, RT_U(0, kb),
					       RT_U(1, cpu)));
			goto out;
		}
	}
	ret = rtt_file_set(&p, inst, file, arg);
out:
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

const char rtt_snapshot_help[] =
	"Take a snapshot (swap the live buffer with the snapshot buffer, as\n"
	"'echo 1 > snapshot') and print it like 'cat snapshot'.\n"
	"\n"
	"      --free           free the snapshot buffer instead (echo 0)\n"
	"      --clear          clear the snapshot buffer instead (echo 2)\n";

int rtt_do_snapshot(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_proc p;
	const char *inst = NULL;
	bool do_free = false, clear = false;
	const struct rtt_opt opts[] = {
		RTT_O_STR("instance", 'i', &inst),
		RTT_O_FLAG("free", 256 + 'F', &do_free, .conflicts = "clear"),
		RTT_O_FLAG("clear", 256 + 'C', &clear),
		RTT_O_END(0),
	};
	int code, ret, slot;

	code = rtt_ctl_args(v, argc, argv, opts, &inst, 0, 0, &p);
	if (code != RTT_OPTIONS_GO)
		return code;
	ret = rtt_cmd(&p, NULL, &RT_CALL(SNAPSHOT, inst,
					RT_I(0, do_free ? 0 : clear ? 2 : 1)));
	if (!ret && !do_free && !clear) {
		slot = rtt_find_inst(&p, inst);
		ret = slot < 0 ? slot :
				 rtt_show_buffer(&p, inst, slot, true, false);
	}
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

const char rtt_options_help[] =
	"Without OPT: list the trace options like 'cat trace_options'. With\n"
	"OPT (or noOPT): set them, as 'echo OPT > trace_options'.\n"
	"\n";

int rtt_do_options(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_proc p;
	const char *inst;
	char *reply = NULL;
	int code, ret = 0, i;

	code = rtt_ctl_open(v, argc, argv, 0, &inst, 0, -1, &p);
	if (code != RTT_OPTIONS_GO)
		return code;
	if (optind == argc) {
		ret = rtt_cmd(&p, &reply,
			      &RT_CALL(FILE_READ, inst,
				       RT_S(0, "trace_options")));
		if (!ret)
			rtt_print_reply(reply);
		free(reply);
	}
	/* all or nothing: every name is checked before any is set */
	for (i = optind; i < argc && !ret; i++)
		if (!rtt_opt_ok(argv[i])) {
			rtt_msg("unknown option '%s': nothing changed", argv[i]);
			ret = -EINVAL;
		}
	for (i = optind; i < argc && !ret; i++) {
		char err[RTT_ERR_MAX];

		ret = rtt_file_write(&p, inst, "trace_options", argv[i], false,
				     err);
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

/* ---- trigger ------------------------------------------------------------ */

const char rtt_trigger_help[] =
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

const char rtt_hist_help[] =
	"Print the histograms of an event (sys:event or event), as 'cat\n"
	"events/SYS/EVENT/hist'; with TRIGGER, first add that hist trigger as\n"
	"the trigger verb does (hist:keys=KEYS[:vals=VALS][:sort=...][:size=N]\n"
	"[:name=NAME][:pause][:cont][:clear][:nohitcount] [if FILTER]; '!hist:...'\n"
	"removes it). Exit codes as the trigger verb's.\n"
	"\n"
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -h, --help           this text\n";

static int rtt_trigger_common(const struct rtt_verb *v, int argc, char **argv,
			      bool hist);

int rtt_do_trigger(const struct rtt_verb *v, int argc, char **argv)
{
	return rtt_trigger_common(v, argc, argv, false);
}

int rtt_do_hist(const struct rtt_verb *v, int argc, char **argv)
{
	return rtt_trigger_common(v, argc, argv, true);
}

/* trigger and hist: add a trigger, then (hist) print the event's hist
 * file; without one, print the trigger or hist file */
static int rtt_trigger_common(const struct rtt_verb *v, int argc, char **argv,
			      bool hist)
{
	char err[RTT_ERR_MAX], sys[128], *text = NULL, *reply = NULL;
	const char *inst, *spec, *colon, *name;
	struct rtt_proc p;
	int code, ret;

	/* a trigger's filter may hold words that start with '-' */
	code = rtt_ctl_open(v, argc, argv, RTT_OPTS_IN_ORDER, &inst, 1, -1,
			    &p);
	if (code != RTT_OPTIONS_GO)
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
show:
		ret = rtt_call(&p, RTT_CMD_TIMEOUT_MS,
			       hist ? &RT_CALL(SHOW_HIST, inst, RT_S(0, sys),
					       RT_S(1, name)) :
				      &RT_CALL(SHOW_TRIGGER, inst,
					       RT_S(0, sys), RT_S(1, name)),
			       &reply, err);
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
	ret = rtt_call(&p, RTT_CMD_TIMEOUT_MS,
		       &RT_CALL(TRIGGER, inst, RT_S(0, sys), RT_S(1, name),
				RT_S(2, text)),
		       NULL, err);
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
	if (hist && !ret) {
		text = NULL;
		goto show;
	}
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

/* ---- pids --------------------------------------------------------------- */

const char rtt_pids_help[] =
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

int rtt_do_pids(const struct rtt_verb *v, int argc, char **argv)
{
	static const char *const lists[][2] = {
		{ "event", "set_event_pid" },
		{ "event-notrace", "set_event_notrace_pid" },
		{ "ftrace", "set_ftrace_pid" },
		{ "ftrace-notrace", "set_ftrace_notrace_pid" },
	};
	char err[RTT_ERR_MAX], *reply = NULL, *tids = NULL;
	const char *inst = NULL, *file = NULL;
	bool clear = false;
	const struct rtt_opt opts[] = {
		RTT_O_STR("instance", 'i', &inst),
		RTT_O_FLAG("clear", 256 + 'C', &clear),
		RTT_O_END(0),
	};
	struct rtt_proc p;
	size_t i;
	int code, ret = 0;

	code = rtt_ctl_args(v, argc, argv, opts, &inst, 1, -1, &p);
	if (code != RTT_OPTIONS_GO)
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
	if (clear && optind + 1 == argc)
		ret = rtt_file_write(&p, inst, file, "", false, err);
	if (!ret && optind + 1 == argc && !clear) {
		ret = rtt_call(&p, RTT_CMD_TIMEOUT_MS,
			       &RT_CALL(FILE_READ, inst, RT_S(0, file)), &reply,
			       err);
		if (!ret && reply)
			fputs(reply, stdout);
	} else if (!ret && optind + 1 < argc) {
		for (i = (size_t)optind + 1; i < (size_t)argc; i++)
			if (!argv[i][strspn(argv[i], " \t\n")]) {
				rtt_proc_close(&p);
				return rtt_usage(v, "'%s': an empty word is not a thread id",
						 argv[i]);
			}
		tids = rtt_join_words(optind + 1, argc, argv);
		if (!tids) {
			rtt_proc_close(&p);
			return RTT_EXIT_FAIL;
		}
		ret = rtt_file_write(&p, inst, file, tids, !clear, err);
	}
	if (ret)
		rtt_msg("process %d: %s: %s", p.pid, file, err);
	free(reply);
	free(tids);
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

const char rtt_instance_help[] =
	"Without NAME: the instances of the process, one per line (top first).\n"
	"With NAME: create the instance, as 'mkdir instances/NAME', for the\n"
	"verbs' -i NAME; with -r, remove one made so (an instance the program\n"
	"made itself stays).\n"
	"\n"
	"  -r, --remove         remove the instance, as 'rmdir instances/NAME'\n"
	"  -h, --help           this text\n";

int rtt_do_instance(const struct rtt_verb *v, int argc, char **argv)
{
	bool rm = false;
	const struct rtt_opt opts[] = {
		RTT_O_FLAG("remove", 'r', &rm),
		RTT_O_END(0),
	};
	struct rtt_proc p;
	int ret, i;

	ret = rtt_options(v, argc, argv, opts);
	if (ret != RTT_OPTIONS_GO)
		return ret;
	if (optind == argc)
		return rtt_usage(v, "missing the process id");
	if (argc - optind > 2)
		return rtt_usage(v, "too many arguments");
	if (rm && argc - optind < 2)
		return rtt_usage(v, "-r needs the instance's name");
	if (argc - optind == 2 && (!argv[optind + 1][0] ||
				   strpbrk(argv[optind + 1], "/ \t\n") ||
				   !strcmp(argv[optind + 1], "-"))) {
		rtt_msg("bad instance name '%s'", argv[optind + 1]);
		return RTT_EXIT_USAGE;
	}
	ret = rtt_open_pid(argv[optind], 0, &p);
	if (ret)
		return rtt_exit_code(ret);
	if (argc - optind == 1) {
		for (i = 0; i < RT_CTL_MAX_INSTANCES; i++) {
			char path[PATH_MAX], name[64];

			if (rtt_inst_path(&p, i, false, path, NULL))
				continue;
			rtt_safe_copy(name, sizeof(name),
				      i ? p.ctl->inst[i].name : "top",
				      sizeof(p.ctl->inst[i].name));
			printf("%s\n", name);
		}
		rtt_proc_close(&p);
		return fflush(stdout) ? RTT_EXIT_FAIL : RTT_EXIT_OK;
	}
	ret = rm ? rtt_cmd(&p, NULL, &RT_CALL(RMINSTANCE, NULL,
					      RT_S(0, argv[optind + 1]))) :
		   rtt_cmd(&p, NULL, &RT_CALL(MKINSTANCE, NULL,
					      RT_S(0, argv[optind + 1])));
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

/* ---- file ---------------------------------------------------------------- */

const char rtt_file_help[] =
	"Read or write one of the tracefs files the process's library serves\n"
	"from its own table (the files 'ringtrace mount' shows as well): with\n"
	"FILE alone, print it as 'cat FILE'; with TEXT, write it as 'echo TEXT >\n"
	"FILE' (the words joined by spaces: a list such as set_event_pid is\n"
	"emptied first, as the open with O_TRUNC does); without FILE, list them\n"
	"(name, mode, and whether only the top instance has the file). A\n"
	"refused write exits with 2 and the process's message.\n"
	"\n"
	"  -a, --append         write as 'echo TEXT >> FILE' (a list keeps its\n"
	"                       entries)\n"
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -h, --help           this text\n";

int rtt_do_file(const struct rtt_verb *v, int argc, char **argv)
{
	char err[RTT_ERR_MAX], *reply = NULL, *text = NULL;
	const char *inst = NULL;
	bool append = false;
	const struct rtt_opt opts[] = {
		RTT_O_STR("instance", 'i', &inst),
		RTT_O_FLAG("append", 'a', &append),
		RTT_O_END(RTT_OPTS_IN_ORDER),
	};
	struct rtt_proc p;
	int code, ret;

	code = rtt_ctl_args(v, argc, argv, opts, &inst, 0, -1, &p);
	if (code != RTT_OPTIONS_GO)
		return code;
	if (optind == argc) {
		ret = rtt_call(&p, RTT_CMD_TIMEOUT_MS, &RT_CALL(FILE_LS, inst),
			       &reply, err);
	} else if (optind + 1 == argc) {
		ret = rtt_call(&p, RTT_CMD_TIMEOUT_MS,
			       &RT_CALL(FILE_READ, inst, RT_S(0, argv[optind])),
			       &reply, err);
	} else {
		text = rtt_join_words(optind + 1, argc, argv);
		if (!text) {
			rtt_proc_close(&p);
			return RTT_EXIT_FAIL;
		}
		ret = rtt_file_write(&p, inst, argv[optind], text, append, err);
	}
	if (!ret && reply)
		fputs(reply, stdout);
	else if (ret == -ENOENT && optind < argc)
		rtt_msg("process %d has no file '%s'%s%s", p.pid, argv[optind],
			inst ? " in instance " : "", inst ? inst : "");
	else if (ret)
		rtt_msg("process %d: %s", p.pid, err);
	free(reply);
	free(text);
	rtt_proc_close(&p);
	if (!ret && fflush(stdout))
		ret = -EIO;
	return rtt_exit_code(ret);
}
