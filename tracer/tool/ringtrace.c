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
#include "rtt.h"

/* ---- main --------------------------------------------------------------- */

static const char rtt_ctl_help_tail[] =
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -h, --help           this text\n";

static char rtt_enable_full[1024], rtt_filter_full[1024],
	rtt_options_full[1024], rtt_stat_full[1024], rtt_snapshot_full[1024];

static const struct rtt_verb rtt_verbs[] = {
	{ "list", NULL, rtt_do_list, "list [-e PID [--formats] | -f PID]", rtt_list_help },
	{ "clean", NULL, rtt_do_clean, "clean [-n]", rtt_clean_help },
	{ "pipe", "stream", rtt_do_pipe,
	  "pipe [-i NAME] [-e EVENT]... [-f 'EVENT EXPR']... [-O OPT]... [-c CPU] [-r] [-s] PID",
	  rtt_pipe_help },
	{ "show", NULL, rtt_do_show, "show [-i NAME] [-s] [-r] PID",
	  rtt_show_help },
	{ "enable", NULL, rtt_do_enable, "enable [-i NAME] PID [EVENT...]",
	  rtt_enable_full },
	{ "disable", NULL, rtt_do_enable, "disable [-i NAME] PID EVENT...",
	  rtt_enable_full },
	{ "filter", NULL, rtt_do_filter, "filter [-i NAME] PID EVENT [EXPR...]",
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
	{ "buffer-size", NULL, rtt_do_simple,
	  "buffer-size [-i NAME] PID [KB [CPU]]",
	  "Set the size of each cpu buffer in KiB, as 'echo KB >\n"
	  "buffer_size_kb'. The buffer is replaced: what it held is lost.\n"
	  "With CPU, of that cpu buffer alone, as 'echo KB >\n"
	  "per_cpu/cpuCPU/buffer_size_kb', in place: the others keep their\n"
	  "records (buffer_size_kb then reads X). Without KB: print it.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "cpumask", NULL, rtt_do_simple, "cpumask [-i NAME] PID [MASK]",
	  "Set which cpu buffers record, as 'echo MASK > tracing_cpumask': a\n"
	  "hexadecimal mask, one bit per cpu buffer (groups of 32 bits separated\n"
	  "by commas, the most significant first). Without MASK: print it.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "free-buffer", NULL, rtt_do_simple, "free-buffer [-i NAME] PID",
	  "Shrink every cpu buffer to its least size, as 'echo > free_buffer'\n"
	  "(buffer_size_kb then reads 7); what the buffer held is lost. With\n"
	  "the disable_on_free option, recording is switched off first.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "snapshot", NULL, rtt_do_snapshot,
	  "snapshot [-i NAME] [--free | --clear] PID", rtt_snapshot_full },
	{ "options", NULL, rtt_do_options, "options [-i NAME] PID [OPT...]",
	  rtt_options_full },
	{ "tracer", NULL, rtt_do_simple, "tracer [-i NAME] PID [TRACER]",
	  "Set the current tracer (trace-cmd's -p), as 'echo TRACER >\n"
	  "current_tracer': nop, function, function_graph, usersoff.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "clock", NULL, rtt_do_simple, "clock [-i NAME] PID [CLOCK]",
	  "Set the trace clock (trace-cmd's -C), as 'echo CLOCK > trace_clock':\n"
	  "mono (also local, global, perf), mono_raw, boot, x86-tsc. The\n"
	  "buffer is replaced: what it held is lost.\n\n"
	  "  -i, --instance NAME  the instance (default: the top one)\n"
	  "  -h, --help           this text\n" },
	{ "record", NULL, rtt_do_record,
	  "record [-o FILE] [-N HOST:PORT [-t]] [-e EVENT]... [-p TRACER] [-O OPT]... [-b KB] [-l FUNC]... [-n FUNC]... [-g FUNC]... [--max-graph-depth N] [--compression zstd|none] [--preload[=LIB] | --no-preload] [-c] [-q] (-P PID [-i NAME] | -- COMMAND [ARG]...)",
	  rtt_record_help },
	{ "agent", NULL, rtt_do_agent,
	  "agent [-p PORT] [-N HOST] [--once] [-q] [-P PID | -- COMMAND [ARG]...]",
	  rtt_agent_help },
	{ "report", NULL, rtt_do_report,
	  "report [-c CPU] [-e EVENT[,EVENT]...]... [-f 'EVENT EXPR']... [-r] [--spares] [--no-demangle] [--format=text|json] [--stat | --graph FUNC] [-s KEY] [-F FUNC]... [-D N] [--tid TID]... [--time-range START~END] [-t TIME] FILE",
	  rtt_report_help },
	{ "extract", NULL, rtt_do_extract,
	  "extract [-o FILE] [-i NAME] [-k] [--compression zstd|none] PID|FILE", rtt_extract_help },
	{ "stat", NULL, rtt_do_stat, "stat [-i NAME] PID", rtt_stat_full },
	/* tracefs over FUSE (tracer/tracefs) */
	{ "mount", NULL, rtfs_do_mount, "mount [-f] PID DIR", rtfs_mount_help },
	{ "umount", NULL, rtfs_do_umount, "umount DIR", rtfs_umount_help },
	{ "trigger", NULL, rtt_do_trigger,
	  "trigger [-i NAME] PID EVENT [TRIGGER...]", rtt_trigger_help },
	{ "hist", NULL, rtt_do_hist, "hist [-i NAME] PID EVENT [TRIGGER...]",
	  rtt_hist_help },
	{ "instance", NULL, rtt_do_instance, "instance [-r] PID [NAME]",
	  rtt_instance_help },
	{ "pids", NULL, rtt_do_pids, "pids [-i NAME] [--clear] PID LIST [TID...]",
	  rtt_pids_help },
	{ "file", NULL, rtt_do_file, "file [-i NAME] [-a] PID [FILE [TEXT...]]",
	  rtt_file_help },
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

/*
 * libringbuf's own lines about the files it reads ("cannot attach ...")
 * would come before the tool's, which says the same for the user in one
 * line (rtt_attach(), rtt_view_error()): the tool keeps them to itself.
 */
static int rtt_ringbuf_print(enum ringbuf_print_level level, const char *fmt,
			     va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	const char *verb;
	size_t i;

	ringbuf_set_print(rtt_ringbuf_print);
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
