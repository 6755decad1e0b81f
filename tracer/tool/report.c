// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * report.c - ringtrace report: its arguments and output
 */
#include "report.h"

/* ---- report ------------------------------------------------------------- */

const char rtt_report_help[] =
	"Print a trace.dat (written by 'ringtrace record' or 'extract') as\n"
	"'ringtrace pipe' prints the live trace: records merged across cpu\n"
	"buffers in time order, lost events marked where they were lost.\n"
	"\n"
	"  -c, --cpu N          only cpu buffer N\n"
	"  -e, --events LIST    only the records of these events (a comma-\n"
	"                       separated list of sys:event, event, sys,\n"
	"                       sys:*); repeatable, and with -f a record is\n"
	"                       shown when either selects it\n"
	"  -f, --filter 'EVENT EXPR'  only the records of EVENT (sys:event,\n"
	"                       event, sys, sys:*) that match EXPR; repeatable\n"
	"                       (a record is shown when a filter of its event\n"
	"                       matches)\n"
	"  -r, --raw            print each event's fields as name=value\n"
	"      --spares         a record of a spare buffer shows the spare\n"
	"                       (S<n>) where the CPU goes, not the CPU it was\n"
	"                       written on\n"
	"      --no-demangle    C++ names as the file has them (by default\n"
	"                       demangled without their parameter lists, as\n"
	"                       uftrace shows them; FUNC globs match either\n"
	"                       form)\n"
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


/* The trace options the file was recorded with (record -O), over the
 * defaults: "name" sets one, "noname" clears it. */
static uint64_t rtt_report_opts(struct rtt_report *rp)
{
	const char *p = td_reader_trace_options(rp->r);
	uint64_t opts = rt_opt_defaults();

	while (p && *p) {
		size_t n = strcspn(p, " ");
		bool no = n > 2 && !strncmp(p, "no", 2);
		int bit = rt_opt_lookup(p, n);

		if (bit < 0 && no)
			bit = rt_opt_lookup(p + 2, n - 2);
		else
			no = false;
		if (bit >= 0)
			opts = no ? opts & ~RT_OPT(bit) : opts | RT_OPT(bit);
		p += n;
		p += *p == ' ';
	}
	return opts;
}

static void rtt_report_header(struct rtt_report *rp)
{
	const char *opts = td_reader_trace_options(rp->r);

	if (rp->graph) {
		printf("# tracer: function_graph\n#\n");
		if (opts)
			printf("# options: %s\n#\n", opts);
		printf("# CPU  DURATION                  FUNCTION CALLS\n");
		printf("# |     |   |                     |   |   |   |\n");
		return;
	}
	/* the tracer whose records the file holds */
	printf("# tracer: %s\n#\n",
	       rt_tracer_name(rp->function ? RT_TRACER_FUNCTION : RT_TRACER_NOP));
	if (opts)
		printf("# options: %s\n#\n", opts);
	printf("#                                _-----=> irqs-off/BH-disabled\n");
	printf("#                               / _----=> need-resched\n");
	printf("#                              | / _---=> hardirq/softirq\n");
	printf("#                              || / _--=> preempt-depth\n");
	printf("#                              ||| / _-=> migrate-disable\n");
	printf("#                              |||| /     delay\n");
	printf("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n");
	printf("#              | |         |   |||||     |         |\n");
}

/* --format: text (the default) or json. */
static int rtt_parse_format(const char *arg, void *out)
{
	*(bool *)out = !strcmp(arg, "json");
	return *(bool *)out ? 0 : !strcmp(arg, "text") ? 1 : -EINVAL;
}

static int rtt_parse_sort(const char *arg, void *out)
{
	*(int *)out = rtt_prof_sort_by_name(arg);
	return *(int *)out < 0 ? -EINVAL : 0;
}

static int rtt_parse_threshold(const char *arg, void *out)
{
	return rtt_parse_duration(arg, out) ? -EINVAL : 0;
}

/* The thread ids of --tid, checked by rtt_options(), as numbers. */
static int *rtt_report_tids(const struct rtt_strv *s)
{
	int *tids = calloc((size_t)s->nr + 1, sizeof(*tids));
	int i;

	for (i = 0; tids && i < s->nr; i++)
		tids[i] = (int)strtol(s->v[i], NULL, 10);
	return tids;
}

/* A time stamp as report prints it: seconds (ns clocks) or a count. */
static int rtt_parse_stamp(const char *s, size_t n, bool ns, uint64_t *out)
{
	char buf[64], *end;
	double d;

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!n || rtt_decimal_len(buf) != n)
		return -EINVAL;
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

int rtt_do_report(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_strv fargs = { 0 }, eargs = { 0 }, funcs = { 0 },
			targs = { 0 };
	struct rtt_sel_opts so = { .to = UINT64_MAX };
	struct rtt_prof *prof = NULL;
	const char *graph = NULL, *range = NULL;
	int *tids = NULL, sort = RTT_SORT_TOTAL;
	unsigned long depth = 0;
	/* no threshold given: a duration too long to be given */
	uint64_t threshold = UINT64_MAX;
	bool want_stat = false;
	struct rtt_report rp;
	struct rtt_json *json = NULL;
	char err[RTT_ERR_MAX];
	struct stat st;
	unsigned long cpu_arg = (unsigned long)-1;
	bool want_json = false, spares = false, no_demangle = false;
	const char *clock, *kallsyms;
	int ret = 0, i, pid;
	size_t k;
	const struct rtt_opt opts[] = {
		RTT_O_UINT("cpu", 'c', &cpu_arg, 0, 65535, "bad cpu",
			   "a cpu buffer, 0 to 65535"),
		RTT_O_LIST("filter", 'f', &fargs),
		RTT_O_LIST("events", 'e', &eargs),
		RTT_O_FLAG("raw", 'r', &rp.ctx.raw),
		/* a spare's records under the spare, not their CPU */
		RTT_O_FLAG("spares", 256 + 'S', &spares),
		/* C++ names as the file has them */
		RTT_O_FLAG("no-demangle", 256 + 'M', &no_demangle),
		RTT_O_PARSE("format", 256 + 'f', rtt_parse_format, &want_json,
			    "unknown format", "text, json"),
		/* --stat and --graph print a table */
		RTT_O_FLAG("stat", 256 + 's', &want_stat,
			   .conflicts = "graph format raw"),
		RTT_O_STR("graph", 256 + 'g', &graph,
			  .conflicts = "stat format raw"),
		RTT_O_PARSE("sort", 's', rtt_parse_sort, &sort,
			    "unknown sort key",
			    "total, self, calls, avg, min, max, func"),
		RTT_O_LIST("function", 'F', &funcs),
		RTT_O_UINT("depth", 'D', &depth, 1, INT_MAX, "bad depth",
			   "1 or more call levels"),
		{ .name = "tid", .val = 256 + 't', .kind = RTT_OPT_LIST,
		  .out = &targs, .min = 1, .max = INT_MAX,
		  .what = "bad thread id", .hint = "a thread id, 1 or more" },
		RTT_O_STR("time-range", 256 + 'T', &range),
		RTT_O_PARSE("threshold", 't', rtt_parse_threshold, &threshold,
			    "bad threshold", "10us, 2ms, 1s, or ns"),
		RTT_O_END(0),
	};

	memset(&rp, 0, sizeof(rp));
	rp.cur = -1;
	ret = rtt_options(v, argc, argv, opts);
	if (ret == RTT_OPTIONS_GO && optind != argc - 1)
		ret = rtt_usage(v, optind < argc ? "too many arguments" :
						   "missing the trace.dat file");
	if (ret == RTT_OPTIONS_GO && threshold != UINT64_MAX && !want_stat &&
	    !graph)
		ret = rtt_usage(v, "--threshold applies to --stat and --graph");
	rp.path = ret == RTT_OPTIONS_GO ? argv[optind] : NULL;
	/* only a regular file is a trace.dat (a FIFO would block) */
	if (rp.path && !stat(rp.path, &st) && !S_ISREG(st.st_mode)) {
		rtt_msg("%s is %s, not a trace.dat file", rp.path,
			rtt_file_kind(&st));
		ret = RTT_EXIT_USAGE;
	}
	if (ret == RTT_OPTIONS_GO) {
		tids = rtt_report_tids(&targs);
		ret = tids ? RTT_OPTIONS_GO : rtt_usage(v, "out of memory");
	}
	so.max_depth = (int)depth;
	if (threshold == UINT64_MAX)
		threshold = 0;
	free(targs.v);
	if (ret == RTT_OPTIONS_GO) {
		ret = td_reader_open(rp.path, &rp.r, err, sizeof(err));
		if (ret == -EPROTO)
			rtt_msg("%s: corrupt or truncated trace.dat: %s", rp.path,
				err);
		else if (ret == -ENOTSUP)
			rtt_msg("%s: %s", rp.path, err);
		else if (ret == -EACCES || ret == -EPERM)
			rtt_msg("permission denied: %s", rp.path);
		else if (ret == -ENOENT)
			rtt_msg("no such file: %s", rp.path);
		else if (ret)
			rtt_msg("cannot read %s: %s", rp.path, strerror(-ret));
		if (!ret)
			ret = RTT_OPTIONS_GO;
		else if (ret == -ENOTSUP || ret == -EPROTO)
			ret = RTT_EXIT_CORRUPT;
		else
			ret = ret == -ENOENT ? RTT_EXIT_USAGE :
					       rtt_exit_code(ret);
	}
	if (ret != RTT_OPTIONS_GO) {
		free(fargs.v);
		free(eargs.v);
		free(funcs.v);
		free(tids);
		return ret;
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
	/* C++ names as the program spells them, unless --no-demangle */
	if (!no_demangle && rtt_syms_demangle(rp.syms, false) == -ENOSYS &&
	    rtt_syms_mangled(rp.syms))
		rtt_msg("warning: no C++ runtime to demangle the names with "
			"(libstdc++.so.6): they are shown mangled");
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
	/* funcgraph-args: the prototypes the recording kept (none: the
	 * arguments show as raw registers) */
	if (rtt_protos_parse(td_reader_protos(rp.r), &rp.protos)) {
		ret = -ENOMEM;
		goto out;
	}
	rp.ctx.protos = rp.protos;
	ret = rtt_report_filters(&rp, &fargs, &eargs);
	if (ret)
		goto out;
	if (range && rtt_parse_range(range, rp.ns_clock, &so.from, &so.to)) {
		rtt_msg("bad time range '%s': expected START~END, each a time stamp as printed (either may be left out)",
			range);
		ret = -EINVAL;
		goto out;
	}
	if (funcs.nr || so.max_depth || targs.nr || range) {
		so.funcs = funcs.v;
		so.nr_funcs = funcs.nr;
		so.tids = tids;
		so.nr_tids = targs.nr;
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
	/* the process: the first of the names, which the recorder gives
	 * the process's main thread (even when it wrote nothing); without
	 * names, the smallest thread id that wrote */
	if (want_json) {
		const char *l = td_reader_cmdlines(rp.r);
		int t;

		if (l && sscanf(l, "%d ", &t) == 1 && t > 0)
			pid = t;
	}
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
		rtt_json_set_cpu_buffers(json, td_reader_nr_cpu_buffers(rp.r));
		rtt_report_json(&rp, json);
		ret = rtt_json_end(json);
		json = NULL;
	} else {
		struct rt_record_source src = {
			.nr_cpus = rp.nr_cpus,
			.nr_cpu_bufs = td_reader_nr_cpu_buffers(rp.r),
			.clock = rp.ns_clock ? RINGBUF_CLOCK_MONO :
					       RINGBUF_CLOCK_TSC,
			.peek = rtt_src_peek,
			.advance = rtt_src_advance,
			.on_cpu = spares ? NULL : rtt_src_on_cpu,
			.ctx = &rp,
		};
		struct rt_printer_ops ops;
		struct rt_print_cfg cfg;
		int n;

		memset(&cfg, 0, sizeof(cfg));
		cfg.opts = rtt_report_opts(&rp);
		cfg.tracer = rp.graph	 ? RT_TRACER_GRAPH :
			     rp.function ? RT_TRACER_FUNCTION :
					   RT_TRACER_NOP;
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
	rtt_protos_free(rp.protos);
	rtt_events_free(rp.ev);
	rtt_syms_free(rp.syms);
	td_reader_close(rp.r);
	free(fargs.v);
	free(eargs.v);
	if (ret == -ENOMEM)
		rtt_msg("out of memory");
	/* no call of the --graph function: nothing wrong with the file */
	if (ret == -ENOENT && graph)
		return RTT_EXIT_FAIL;
	return rtt_exit_code(ret);
}
