// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record.c - ringtrace record: its arguments and its main loop
 */
#include <poll.h>
#include <sys/syscall.h>

#include "record.h"

/* ---- record ------------------------------------------------------------- */

/* Bytes this process wrote (wchar of /proc/self/io), or @dflt. */
uint64_t rtt_self_wchar(uint64_t dflt)
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

const char rtt_record_help[] =
	"Record the trace of a process into a trace.dat that 'trace-cmd\n"
	"report' and 'ringtrace report' read: whole pages of its buffer,\n"
	"with the event formats, symbols, thread names and clock. Either\n"
	"attach to a running process (-P) or start COMMAND with the events and\n"
	"tracer set in its environment (RINGTRACE_EVENTS, RINGTRACE_TRACER) and\n"
	"record until it exits; COMMAND is held before its main() until the\n"
	"recorder is attached, so nothing it does is missed. Ctrl-C stops and\n"
	"leaves a complete file. Each page is written once: where the file\n"
	"system allows (ext4, XFS; tmpfs, btrfs, whose holes are filled at\n"
	"the end), the file is written in place and a checkpoint each second\n"
	"rewrites only its header (compressed, the default for a file: and\n"
	"its metadata); elsewhere it is assembled at checkpoints. A\n"
	"progress line (events/s, MB written,\n"
	"events lost) is refreshed every second on stderr. A COMMAND records\n"
	"in nooverwrite mode and its writers wait for the recorder when their\n"
	"buffer is full (as uftrace's do), so nothing is lost unless the\n"
	"recorder stops reading for a second; -O overwrite gives the kernel's\n"
	"mode back. Events the buffer lost (overwritten, or refused when full\n"
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
	"  -O OPT               set trace option OPT (or noOPT); repeatable;\n"
	"                       kept in the file, for report\n"
	"  -b, --buffer-size KB  the size of each cpu buffer (default with\n"
	"                       COMMAND: 4 MiB; with -P: unchanged)\n"
	"  -l, --filter FUNC    trace only the functions FUNC names (a glob,\n"
	"                       as set_ftrace_filter); repeatable\n"
	"  -n, --notrace FUNC   do not trace FUNC (set_ftrace_notrace);\n"
	"                       repeatable\n"
	"  -g, --graph-function FUNC  function_graph: only FUNC and what it\n"
	"                       calls (set_graph_function); repeatable\n"
	"      --max-graph-depth N  function_graph: N levels at most (0: no\n"
	"                       limit)\n"
	"      --preload[=LIB]  preload libringtrace (or LIB) into COMMAND;\n"
	"                       the default when COMMAND is built for function\n"
	"                       tracing (-finstrument-functions, -pg,\n"
	"                       -mfentry, -mrecord-mcount,\n"
	"                       -fpatchable-function-entry) and does not link it\n"
	"                       (a linker script LIB, as libringtrace.so:\n"
	"                       the library it names)\n"
	"      --no-preload     never preload\n"
	"  -c, --follow         also record the programs COMMAND starts that\n"
	"                       load libringtrace (preloaded into every one),\n"
	"                       each into FILE.PID, from their start\n"
	"  -i, --instance NAME  record that instance (with -P)\n"
	"  -N, --net HOST:PORT  stream the recording to a 'trace-cmd listen'\n"
	"                       (trace-cmd's protocol, version 3); with -o,\n"
	"                       a local copy too; never makes the program\n"
	"                       wait: a receiver that does not keep up makes\n"
	"                       the buffer drop or overwrite, counted\n"
	"  -t, --tcp            with -N: the pages over TCP, not UDP\n"
	"      --compression zstd|none  zstd: a version 7 file with\n"
	"                       zstd-compressed sections, as trace-cmd writes\n"
	"                       it (trace-cmd 3.0 or later reads it); the\n"
	"                       default for a file; none: version 6,\n"
	"                       uncompressed, written in place (the default\n"
	"                       for -o - and a FIFO)\n"
	"  -q, --quiet          no progress line\n"
	"  -h, --help           this text\n";


#define RTT_MAX_BUF_KB (4ul << 20)
#define RTT_MAX_BUF_KB_TEXT "4194304"

/*
 * How full a cpu buffer is when the recorder wakes, in percent: early,
 * so that the rest of the buffer is the time the recorder may be kept
 * off a cpu before a writer at full speed outruns it.
 */
#define RTT_RECORD_WATERMARK 10
/*
 * The nap of a recorder woken at the watermark that finds no whole page
 * to take, in microseconds: short at first, as a function_graph writer at
 * full speed fills a 4 MiB buffer in about 4 ms and then waits for the
 * recorder; doubled at each nap in a row, up to the longest, so that a
 * small buffer left at the watermark by a writer that went quiet is not
 * polled 500 times a second (not while other processes are followed:
 * their turns come with the recorder's).
 */
#define RTT_RECORD_NAP_US 2000u
#define RTT_RECORD_NAP_MAX_US 16000u

/*
 * While the writers fill pages, the recorder does not wait to be woken:
 * it naps this long between turns, in milliseconds. A reader that waits
 * (ringbuf_wait()) makes every commit of the writers look whether the
 * watermark is crossed, out of line, until it is (a function_graph
 * writer paid 2 % of sqlite3's recording, 6 % of its own time, in these
 * calls); a napping recorder costs the writers nothing. A writer at full
 * speed fills a 4 MiB buffer (RTT_RECORD_KB) in about 4 ms: a turn each
 * millisecond finds it a quarter full at most. The process's exit ends
 * the nap at once (a pidfd polled).
 */
#define RTT_RECORD_POLL_MS 1
/* Naps until this long without a page moved (then it waits again). */
#define RTT_RECORD_POLL_IDLE_MS 20u
/* Every this many naps, the checks that follow a wait (an exec, a
 * view gone bad). */
#define RTT_RECORD_POLL_CHECK 16u

/*
 * SIGCHLD: nothing to do but be there. Installed without SA_RESTART once
 * the command runs, so that its exit interrupts the recorder's
 * ringbuf_wait(), which then finds the writer gone: the final drain
 * starts at once, not when the wait's timeout (20 ms, then 200 ms) ends.
 */
static void rtt_on_child(int sig)
{
	(void)sig;
}

/*
 * The cpu buffer size of a command started by record, unless -b or its
 * own RINGTRACE_BUF_SIZE_KB says otherwise: RTT_RECORD_KB each, and the
 * whole file (the spares too: three per CPU) no more than an eighth of
 * the free space of the publish directory's file system. The file is
 * sparse there (the library takes a buffer file's blocks only on a file
 * system without four times its room): the spares and the pages nobody
 * reached cost no memory. The writers wait for the recorder when their
 * buffer is full (RTT_RECORD_WAIT_MS) rather than lose records, so the
 * size is not what keeps records; it is what a writer touches. Every
 * page is a fault the first time round (on a disk file system, a block
 * allocated too) and a cache line missed after: a function_graph writer
 * at full speed fills 4 MiB in about 6 ms, and the recorder, woken at
 * RTT_RECORD_WATERMARK, takes the pages while they are still in the
 * cache (lz4 recorded a tenth faster with 4 MiB than with 32 MiB, and
 * 1 MiB was no faster again: the recorder woke too often). The
 * library's default, 1408 KiB (the kernel's), is sized for events, not
 * for every function call.
 */
#define RTT_RECORD_KB (4ul << 10)

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
	kb = RTT_RECORD_KB;
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
int rtt_record_lists(struct rtt_proc *p, const struct rtt_strv lists[3],
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
			ret = rtt_call(p, RTT_CMD_TIMEOUT_MS,
				       &RT_CALL(FTRACE_LIST, NULL,
						RT_S(0, names[l]),
						RT_S(1, line)),
				       NULL, err);
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
	if (depth_set) {
		char text[32];

		snprintf(text, sizeof(text), "%lu", depth);
		if (rtt_file_set(p, NULL, "max_graph_depth", text))
			return -EINVAL;
	}
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


/* -p, -O and -e as far as they can be checked without the process.
 * Return: 0, or RTT_EXIT_USAGE after a message. */
static int rtt_record_names(const char *tracer, const struct rtt_strv *opts,
			    const struct rtt_strv *events)
{
	int i;

	if (tracer && rt_tracer_lookup(tracer) < 0) {
		rtt_msg("unknown tracer '%s' (nop, function, function_graph, usersoff)",
			tracer);
		return RTT_EXIT_USAGE;
	}
	for (i = 0; i < opts->nr; i++)
		if (!rtt_opt_ok(opts->v[i])) {
			rtt_msg("unknown option '%s'", opts->v[i]);
			return RTT_EXIT_USAGE;
		}
	for (i = 0; i < events->nr; i++)
		if (!events->v[i][0]) {
			rtt_msg("an empty event name");
			return RTT_EXIT_USAGE;
		}
	return 0;
}

/*
 * record -P: recording on in the instance (tracing_on 1), as trace-cmd
 * record switches it on; *@was_off says to switch it off again at the
 * end. Return: 0 or a negative errno (reported).
 */
static int rtt_record_tracing_on(struct rtt_proc *p, const char *inst,
				 bool *was_off)
{
	char *reply = NULL;
	int ret;

	ret = rtt_cmd(p, &reply,
		      &RT_CALL(FILE_READ, inst, RT_S(0, "tracing_on")));
	if (ret)
		return ret;
	*was_off = reply && reply[0] == '0';
	free(reply);
	if (!*was_off)
		return 0;
	ret = rtt_file_set(p, inst, "tracing_on", "1");
	if (!ret)
		rtt_msg("tracing was off in process %d (tracing_on 0): on for the recording, off again at its end",
			p->pid);
	return ret;
}

/**
 * rtt_rec_attach - record -P's start: the process opened and set for
 *	the recording (record, and the agent's -P)
 * @r: the recording (r->p receives the process)
 * @pid_arg: the pid as given
 * @s: the settings
 * @before: receives set_event as it was (rtt_restore_events() puts it
 *	back)
 * @ev: receives the process's events
 *
 * All or nothing: the events, and that no one else consumes the buffer,
 * are checked before any change; the buffer is cleared last, as
 * trace-cmd record does.
 *
 * Return: 0, or a negative errno after a message (r->p.ctl is set when
 * the process was opened: rtt_rec_free() closes it).
 */
int rtt_rec_attach(struct rtt_record *r, const char *pid_arg,
		   const struct rtt_rec_set *s, char **before,
		   struct rtt_events **ev)
{
	char err[RTT_ERR_MAX];
	const char *inst = s->inst;
	int ret;

	ret = rtt_open_pid(pid_arg, 0, &r->p);
	if (ret)
		return ret;
	ret = rtt_find_inst(&r->p, inst);
	if (ret < 0)
		return ret;
	*before = rtt_show_set_event(&r->p, inst);
	r->ctl_gen = rtt_ctl_gen(&r->p);
	ret = rtt_consumer_check(&r->p, rtt_find_inst(&r->p, inst), err);
	if (ret)
		rtt_msg("%s", err);
	else
		ret = rtt_check_events(&r->p, 0, s->events->nr, s->events->v);
	if (!ret)
		ret = rtt_load_events(&r->p, ev, false);
	if (!ret)
		ret = rtt_apply_settings(&r->p, *ev, inst, s->topts, s->events,
					 s->filters);
	if (!ret)
		ret = rtt_record_lists(&r->p, s->lists, s->depth_set, s->depth);
	if (!ret && s->size_kb) {
		char kb[32];

		snprintf(kb, sizeof(kb), "%lu", (unsigned long)s->size_kb);
		ret = rtt_file_set(&r->p, inst, "buffer_size_kb", kb);
	}
	if (!ret && s->tracer)
		ret = rtt_file_set(&r->p, inst, "current_tracer", s->tracer);
	if (!ret && s->clock)
		ret = rtt_file_set(&r->p, inst, "trace_clock", s->clock);
	/* start from an empty buffer, as trace-cmd record does */
	if (!ret)
		ret = rtt_cmd(&r->p, NULL, &RT_CALL(CLEAR, inst));
	/* and recording on, as trace-cmd record switches it on */
	if (!ret)
		ret = rtt_record_tracing_on(&r->p, inst, &r->was_off);
	return ret;
}

/**
 * rtt_rec_restore - the end of record -P: set_event as it was, the
 *	tracer back to nop if one was set
 * @r: the recording
 * @inst: the instance
 * @before: rtt_rec_attach()'s
 * @tracer: the tracer set, or NULL
 */
void rtt_rec_restore(struct rtt_record *r, const char *inst,
		     const char *before, const char *tracer)
{
	char e2[RTT_ERR_MAX];

	rtt_restore_events(&r->p, inst, before);
	/* tracing_on as it was */
	if (r->was_off)
		rtt_file_write(&r->p, inst, "tracing_on", "0", false, e2);
	if (tracer)
		rtt_file_write(&r->p, inst, "current_tracer", "nop", false, e2);
}

/* How the command ended, when it failed (as uftrace says it). */
static void rtt_record_child_status(const char *cmd, int status)
{
	if (WIFSIGNALED(status))
		rtt_msg("'%s' terminated by signal %d (%s)%s", cmd,
			WTERMSIG(status), strsignal(WTERMSIG(status)),
			WCOREDUMP(status) ? ", core dumped" : "");
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		rtt_msg("'%s' exited with status %d", cmd,
			WEXITSTATUS(status));
}


int rtt_do_record(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_strv events = { 0 }, topts = { 0 }, none = { 0 };
	struct rtt_strv lists[3] = { { 0 } };
	const char *preload_arg = NULL, *preload = NULL;
	char preload_lib[PATH_MAX], preload_path[PATH_MAX];
	int preload_mode = -1;
	unsigned long size_kb = 0, depth = (unsigned long)-1;
	bool depth_set, no_preload = false;
	int hold = -1;
	struct rtt_events *ev = NULL;
	struct rtt_record r;
	struct rtt_follow fl;
	struct rtt_out out = { .fd = -1 };
	char err[RTT_ERR_MAX], *before = NULL;
	const char *pid_arg = NULL, *tracer = NULL, *inst = NULL;
	const char *net_arg = NULL;
	bool tcp = false;
	pid_t child = 0;
	int c, ret = 0, code = RTT_EXIT_OK;
	bool exited = false, follow = false, at_mark;
	unsigned int nap = RTT_RECORD_NAP_US, polls = 0;
	uint64_t last_moved = 0;
	int pidfd = -1;
	const struct rtt_opt opts[] = {
		RTT_O_STR("output", 'o', &r.out),
		RTT_O_STR("pid", 'P', &pid_arg),
		RTT_O_LIST("event", 'e', &events),
		RTT_O_STR("tracer", 'p', &tracer),
		RTT_O_STR("instance", 'i', &inst),
		RTT_O_LIST("", 'O', &topts),
		RTT_O_FLAG("quiet", 'q', &r.quiet),
		RTT_O_UINT("buffer-size", 'b', &size_kb, 1, RTT_MAX_BUF_KB,
			   "bad buffer size", "KiB, 1 to " RTT_MAX_BUF_KB_TEXT),
		RTT_O_LIST("filter", 'l', &lists[0]),
		RTT_O_LIST("notrace", 'n', &lists[1]),
		RTT_O_LIST("graph-function", 'g', &lists[2]),
		RTT_O_UINT("max-graph-depth", 256 + 'D', &depth, 0, INT_MAX, "bad depth",
			   "0 or more call levels"),
		RTT_O_OPTIONAL("preload", 256 + 'L', &preload_arg,
			       .conflicts = "no-preload"),
		RTT_O_FLAG("no-preload", 256 + 'N', &no_preload),
		/* -c follows the processes COMMAND starts */
		RTT_O_FLAG("follow", 'c', &follow, .conflicts = "pid"),
		/* to a trace-cmd listen (net.c) */
		RTT_O_STR("net", 'N', &net_arg, .conflicts = "follow"),
		RTT_O_FLAG("tcp", 't', &tcp),
		/* zstd (a version 7 file, the default for a file) or
		 * none (version 6) */
		RTT_O_STR("compression", 256 + 'Z', &r.compression),
		/* what follows COMMAND is its own */
		RTT_O_END(RTT_OPTS_IN_ORDER),
	};

	memset(&r, 0, sizeof(r));
	memset(&fl, 0, sizeof(fl));
	code = rtt_options(v, argc, argv, opts);
	if (code != RTT_OPTIONS_GO)
		goto out_free;
	code = RTT_EXIT_OK;
	/* -N alone writes no file; -o beside it keeps a copy */
	if (!r.out && !net_arg)
		r.out = "trace.dat";
	if (tcp && !net_arg)
		code = rtt_usage(v, "-t goes with -N");
	if (rtt_compression_arg(r.compression))
		code = rtt_usage(v, "%s", rtt_compression_arg(r.compression));
	else if (r.compression && !r.out)
		code = rtt_usage(v, "--compression is for the file (-o)");
	depth_set = depth != (unsigned long)-1;
	if (preload_arg) {
		preload_mode = 1;
		if (!*preload_arg)
			preload_arg = NULL;
		else
			code = rtt_record_preload_arg(v, &preload_arg,
						      preload_path,
						      sizeof(preload_path));
	} else if (no_preload) {
		preload_mode = 0;
	}
	if (!code && !pid_arg && optind == argc)
		code = rtt_usage(v, "nothing to record: give -P PID or -- COMMAND");
	else if (!code && pid_arg && optind < argc)
		code = rtt_usage(v, "give -P PID or a COMMAND, not both");
	else if (!code && !pid_arg && inst)
		code = rtt_usage(v, "-i needs -P: a new process has only the top instance");
	if (code)
		goto out_free;
	/* all or nothing: the names are checked before anything runs */
	code = rtt_record_names(tracer, &topts, &events);
	if (!code && r.out)
		code = rtt_out_open(r.out, !follow, &out);
	if (code)
		goto out_free;
	if (r.out) {
		r.out = out.path;
		r.out_name = rtt_out_name(&out);
	}
	/* the default: zstd for a file (-N's copy too), version 6 for a
	 * stream */
	if (!r.compression && r.out) {
		r.compression = rtt_default_compression(&out);
		r.compression_auto = true;
	}
	fl.compression = r.compression;
	fl.compression_auto = r.compression_auto;
	r.topts = &topts;
	/* the listener is there and speaks our protocol before anything
	 * of the process is touched */
	if (net_arg) {
		ret = rtt_net_open(net_arg, tcp, &r.net);
		if (ret)
			goto out_free;
		if (!r.out)
			r.out_name = rtt_net_where(r.net);
	}
	r.tty = isatty(2);
	rtt_catch_signals();
	if (pid_arg) {
		const struct rtt_rec_set set = {
			.inst = inst, .events = &events, .topts = &topts,
			.filters = &none, .lists = lists,
			.depth_set = depth_set, .depth = depth,
			.size_kb = size_kb, .tracer = tracer,
		};

		ret = rtt_rec_attach(&r, pid_arg, &set, &before, &ev);
		if (ret && !r.p.ctl)
			goto out_free;
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
				       preload, follow, out.arg && !strcmp(out.arg, "-"),
				       &hold, &r.p, &child);
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
	ret = rtt_rec_start(&r, inst);
	if (ret)
		goto out;
	/* A command of our own waits for us when its buffer is full; a
	 * process we attached to (-P), or one streamed to the network (the
	 * network is not ours to wait for), is never slowed down: it drops
	 * or overwrites. */
	if (child) {
		if (!r.net)
			ringbuf_set_writer_wait(r.rb, RTT_RECORD_WAIT_MS);
		rtt_rec_note_ctl(&r);
	}
	/* the recorder is attached: the command may run */
	if (hold >= 0) {
		if (write(hold, "g", 1) < 0)
			rtt_msg("warning: could not release '%s'; it goes on after 30 s",
				argv[optind]);
		close(hold);
		hold = -1;
	}
	if (child) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = rtt_on_child;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGCHLD, &sa, NULL);
	}
	/* the symbols and the file's first checkpoint while a command
	 * runs (it published them when its tracer started: read, not
	 * asked for); a process attached to is asked */
	ret = rtt_rec_meta(&r, !child);
	/* the nap's end at the process's exit (none: no naps) */
	if (!follow)
		pidfd = (int)syscall(SYS_pidfd_open, r.p.pid, 0);
again:
	at_mark = false;
	while (!ret) {
		uint64_t now;
		int w, moved;

		moved = rtt_rec_turn(&r);
		if (moved < 0) {
			ret = moved;
			break;
		}
		/* a command of ours that fills pages: the rest of its
		 * buffers' pages allocated ahead of it (a process attached
		 * to has long touched its own; a short command that fills
		 * none has nothing to gain) */
		if (moved && child && !r.net)
			rtt_rec_prefault(&r);
		if (follow)
			rtt_follow_turn(&fl, r.p.pid, r.out);
		if (rtt_stop)
			break;
		if (moved == RTT_RECORD_BATCH)
			continue;
		now = rtt_now_ms();
		if (moved)
			last_moved = now;
		if (pidfd >= 0 && last_moved &&
		    now - last_moved < RTT_RECORD_POLL_IDLE_MS) {
			struct pollfd pf = { .fd = pidfd, .events = POLLIN };

			/* pages flow: a nap, not a wait (the writers pay
			 * nothing); the checks below now and then, and when
			 * the process exits */
			if (poll(&pf, 1, RTT_RECORD_POLL_MS) == 0 &&
			    ++polls % RTT_RECORD_POLL_CHECK)
				continue;
			w = 0;
		} else {
			/* the last wait ended at the watermark, and this
			 * turn found no whole page to take (the writer is
			 * still on it): do not spin. (Not after a wait that
			 * ended with the turn before it empty: this turn
			 * read what woke it.) */
			if (at_mark && !moved) {
				usleep(nap);
				if (!follow && nap < RTT_RECORD_NAP_MAX_US)
					nap *= 2;
			} else if (moved) {
				nap = RTT_RECORD_NAP_US;
			}
			/* short waits at first: a starting program
			 * registers its events, whose formats are read at
			 * the next turn; and while other processes are
			 * followed */
			now = rtt_now_ms();
			w = ringbuf_wait(r.rb, RINGBUF_ALL_CPUS,
					 RTT_RECORD_WATERMARK,
					 now - r.start < 2000 || follow ? 20 :
									  200);
		}
		/* what was recorded so far was checked: it is written,
		 * and the exit says the buffer went bad */
		if (rtt_view_error(&r.p, r.rb, err)) {
			rtt_msg("%s", err);
			code = RTT_EXIT_CORRUPT;
			break;
		}
		if (w == -ESRCH || rtt_proc_state(&r.p) == RTT_DEAD) {
			r.exited = true;
			break;
		}
		/* the command exec()ed: the new image, from its start */
		if (child && rtt_rec_execd(&r)) {
			int x = rtt_rec_exec(&r, inst, lists, depth_set, depth);

			if (!x)
				goto again;
			if (x < 0)
				ret = x;
			r.exited = rtt_proc_state(&r.p) == RTT_DEAD;
			break;
		}
		at_mark = w > 0;
	}
	if (pidfd >= 0)
		close(pidfd);
	ret = rtt_rec_finish(&r, ret);
	ret = rtt_out_finish(&out, ret);
	/* a command registers its events as it runs: an -e that named
	 * none of them (none in the file) is an error now */
	if (!ret && child && events.nr && r.ev &&
	    rtt_check_events_in(&r.p, r.ev, 0, events.nr, events.v))
		code = RTT_EXIT_USAGE;
	if (follow)
		rtt_follow_end(&fl);
	exited = r.exited;
	if (!ret && !r.tally.matched && !fl.calls &&
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
		/* Ctrl-C ended the recording; putting the process's
		 * settings back is still to do (a second one ends it) */
		rtt_interrupt_handled();
		rtt_rec_restore(&r, inst, before, tracer);
	}
out:
	/* a command still held never ran: it ends here, with its files */
	if (child && hold >= 0) {
		int status;

		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		if (rtt_remove_files(&r.p, err))
			rtt_msg("%s", err);
		child = 0;
	}
	rtt_rec_free(&r);
	if (child) {
		int status;

		/* reap the command if it is done, and say how it ended when
		 * it failed; a command still running after Ctrl-C is left
		 * to itself */
		if (exited && waitpid(child, &status, 0) == child)
			rtt_record_child_status(argv[optind], status);
	}
out_free:
	/* a connection made before the process could be opened */
	rtt_net_free(r.net);
	r.net = NULL;
	rtt_out_close(&out);
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
