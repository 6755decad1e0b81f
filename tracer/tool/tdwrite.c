// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tdwrite.c - creating the trace.dat of a process buffer (record, extract)
 */
#include "rtt.h"

/* ---- trace.dat writing (record, extract) -------------------------------- */

int rtt_td_error(const char *path, int err)
{
	if (err == -ENOSPC || err == -EDQUOT || err == -EFBIG)
		rtt_msg("writing %s: %s; the file keeps what its last checkpoint wrote",
			path, strerror(-err));
	else
		rtt_msg("writing %s: %s", path, strerror(-err));
	return err == -EACCES || err == -EPERM ? err : -EIO;
}

/* The process's symbols (@kallsyms: its symbols file, or NULL: none) into
 * the trace.dat @path that @w writes. */
void rtt_td_set_kallsyms(struct td_writer *w, const char *path,
			 const char *kallsyms)
{
	if (kallsyms && td_writer_set_kallsyms(w, kallsyms))
		rtt_msg("warning: the symbols are not in %s: a malformed line",
			path ? path : "the metadata");
}

/*
 * Open a trace.dat for the process's buffer: formats, symbols, names,
 * clock and uname.
 */
int rtt_td_open(const struct rtt_proc *p, const char *path,
		struct ringbuf *rb,
		const struct rtt_events *ev, const char *kallsyms,
		const char *cmdlines, const char *clock,
		struct td_writer **wp)
{
	struct td_writer *w;
	struct utsname u;
	char un[512];
	size_t i;
	int ret;

	/* Another user's trace (root recording or extracting a user's
	 * process, whose symbols and data the user may not show others):
	 * the file is the caller's alone, 0600, and so is every file the
	 * tool makes after it. */
	if (p->uid != (unsigned int)geteuid())
		umask(umask(0) | 077);
	/* no path: the metadata alone, for record -N */
	if (path)
		ret = td_writer_open(path, (unsigned int)ringbuf_subbuf_size(rb),
				     ringbuf_nr_cpus(rb), &w);
	else
		ret = td_writer_open_meta((unsigned int)ringbuf_subbuf_size(rb),
					  ringbuf_nr_cpus(rb), &w);
	if (!path)
		path = "the metadata";
	if (ret) {
		if (ret == -EACCES || ret == -EPERM)
			rtt_msg("permission denied: %s", path);
		else
			rtt_msg("cannot create %s: %s", path, strerror(-ret));
		return ret == -EACCES || ret == -EPERM ? ret : -EIO;
	}
	/* the CPUs as the file's cpus, the spares in use after them */
	td_writer_set_cpu_buffers(w, ringbuf_nr_cpu_buffers(rb));
	for (i = 0; i < ev->nr; i++) {
		ret = td_writer_add_format(w, ev->v[i].system, ev->v[i].format);
		if (ret)
			rtt_msg("warning: the format of %s:%s is not in %s: %s",
				ev->v[i].system, ev->v[i].name, path,
				strerror(-ret));
	}
	rtt_td_set_kallsyms(w, path, kallsyms);
	if (cmdlines)
		td_writer_set_cmdlines(w, cmdlines);
	if (clock && clock[0] && td_writer_set_clock(w, clock))
		rtt_msg("warning: bad clock name '%s'", clock);
	td_writer_set_version(w, "ringtrace " RINGTRACE_VERSION);
	if (uname(&u) == 0) {
		snprintf(un, sizeof(un), "%s %s %s %s %s", u.sysname,
			 u.nodename, u.release, u.version, u.machine);
		td_writer_set_uname(w, un);
	}
	*wp = w;
	return 0;
}

const char *rtt_compression_arg(const char *arg)
{
	if (arg && strcmp(arg, "zstd") && strcmp(arg, "none"))
		return "--compression takes zstd or none";
	return NULL;
}

/*
 * The default compression of record and extract: zstd where the output
 * is a file of the user's (a function_graph recording takes about a
 * seventh of its version 6 size; trace-cmd reads version 7 files since
 * 3.0, KernelShark since 2.0, as trace-cmd itself writes them by
 * default); version 6 where it is a stream (-o -, a FIFO), whose reader
 * may be any program that reads trace.dat files, old ones too. A file
 * for a trace-cmd before 3.0: --compression none.
 */
const char *rtt_default_compression(const struct rtt_out *o)
{
	return o->fd < 0 ? "zstd" : NULL;
}

int rtt_td_compress(struct td_writer *w, const char *path, const char *algo,
		    bool dflt)
{
	int ret;

	if (!algo)
		return 0;
	ret = td_writer_set_compression(w, algo);
	if (ret == -ENOTSUP && dflt)
		return 0;
	if (ret == -ENOTSUP) {
		rtt_msg("--compression %s: this ringtrace was built without libzstd",
			algo);
		return -ENOTSUP;
	}
	return ret ? rtt_td_error(path, ret) : 0;
}

/*
 * Each cpu buffer's counters for the CPUSTAT options trace-cmd writes
 * (the lines of tracefs's per_cpu/cpuN/stats); `trace-cmd report --stat`
 * shows them.
 */
void rtt_td_set_stats(struct td_writer *w, struct ringbuf *rb)
{
	for (int cpu = 0; cpu < ringbuf_nr_cpus(rb); cpu++) {
		char text[512];

		snprintf(text, sizeof(text),
			 "entries: %lu\noverrun: %lu\n"
			 "commit overrun: %lu\nbytes: %lu\n"
			 "dropped events: %lu\nread events: %lu\n",
			 ringbuf_entries_cpu(rb, cpu),
			 ringbuf_overrun_cpu(rb, cpu),
			 ringbuf_commit_overrun_cpu(rb, cpu),
			 ringbuf_bytes_cpu(rb, cpu),
			 ringbuf_dropped_events_cpu(rb, cpu),
			 ringbuf_read_events_cpu(rb, cpu));
		td_writer_set_cpu_stats(w, cpu, text);
	}
}

/* The trace options of the recording (record -O), into the file. */
void rtt_td_set_options(struct td_writer *w, const struct rtt_strv *opts)
{
	size_t len = 1;
	char *text;
	int i;

	if (!opts || !opts->nr)
		return;
	for (i = 0; i < opts->nr; i++)
		len += strlen(opts->v[i]) + 1;
	text = malloc(len);
	if (!text)
		return;
	text[0] = '\0';
	for (i = 0; i < opts->nr; i++) {
		if (i)
			strcat(text, " ");
		strcat(text, opts->v[i]);
	}
	td_writer_set_trace_options(w, text);
	free(text);
}
