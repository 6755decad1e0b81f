// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * show.c - ringtrace show and stat: a process's buffer and its counters
 */
#include "rtt.h"

/* ---- show --------------------------------------------------------------- */

const char rtt_show_help[] =
	"Print the trace of a process like 'cat trace': the header, then every\n"
	"record the buffer holds, without consuming them. Works on the files\n"
	"a dead process left too (with the default options).\n"
	"\n"
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -s, --snapshot       the snapshot buffer, as it is (see 'snapshot')\n"
	"  -r, --raw            print each event's fields as name=value\n"
	"  -h, --help           this text\n";

/* Print a buffer of @p with the header, like cat trace. */
int rtt_show_buffer(struct rtt_proc *p, const char *inst, int slot,
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
	rtt_print_ctx_proc(&ctx, p->pid, p->uid);
	rtt_printer_ops(&ctx, &ops);
	signal(SIGPIPE, SIG_IGN);
	ret = rt_print_view(rb, &cfg, &ops, stdout);
	if (!ret && fflush(stdout) != 0)
		ret = -errno;
	if (ret == -EPIPE || (ret == -EIO && errno == EPIPE))
		ret = 0;
	else if (ret)
		rtt_msg("writing the trace: %s", strerror(-ret));
	/* what was printed was checked; the rest was not to be read */
	if (!ret && (ret = rtt_view_error(p, rb, err)))
		rtt_msg("%s", err);
	rtt_print_ctx_done(&ctx);
out:
	ringbuf_free(rb);
	rtt_events_free(ev);
	rtt_syms_free(syms);
	return ret;
}

int rtt_do_show(const struct rtt_verb *v, int argc, char **argv)
{
	const char *inst = NULL;
	bool snap = false, raw = false;
	const struct rtt_opt opts[] = {
		RTT_O_STR("instance", 'i', &inst),
		RTT_O_FLAG("snapshot", 's', &snap),
		RTT_O_FLAG("raw", 'r', &raw),
		RTT_O_END(0),
	};
	struct rtt_proc p;
	int ret, slot;

	ret = rtt_options_pid(v, argc, argv, opts, RTT_OPEN_DEAD, &p);
	if (ret != RTT_OPTIONS_GO)
		return ret;
	slot = rtt_find_inst(&p, inst);
	ret = slot < 0 ? slot : rtt_show_buffer(&p, inst, slot, snap, raw);
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}

/* ---- stat --------------------------------------------------------------- */

const char rtt_stat_help[] =
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

int rtt_do_stat(const struct rtt_verb *v, int argc, char **argv)
{
	char err[RTT_ERR_MAX];
	const char *inst = NULL;
	const struct rtt_opt opts[] = {
		RTT_O_STR("instance", 'i', &inst),
		RTT_O_END(0),
	};
	struct ringbuf *rb;
	struct rtt_proc p;
	int ret, slot, cpu, n;
	uint64_t now;
	bool ns;

	ret = rtt_options_pid(v, argc, argv, opts,
			      RTT_OPEN_DEAD | RTT_OPEN_READONLY, &p);
	if (ret != RTT_OPTIONS_GO)
		return ret;
	slot = rtt_find_inst(&p, inst);
	if (slot < 0) {
		rtt_proc_close(&p);
		return rtt_exit_code(slot);
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
		/* a spare is no CPU's: named as report names it (S<n>) */
		if (ringbuf_is_spare(rb, cpu))
			printf("spare%d:\n", cpu - ringbuf_nr_cpu_buffers(rb));
		else
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
	ret = rtt_view_error(&p, rb, err);
	if (ret)
		rtt_msg("%s", err);
	ringbuf_free(rb);
	rtt_proc_close(&p);
	if (fflush(stdout))
		return RTT_EXIT_FAIL;
	return rtt_exit_code(ret);
}
