// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pipe.c - ringtrace pipe: stream a process's trace as it is written
 */
#include "rtt.h"

/* ---- pipe / stream ------------------------------------------------------ */

const char rtt_pipe_help[] =
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
	"  -s, --stats          print the events read and lost while this pipe\n"
	"                       ran, on exit (stderr);\n"
	"                       printed anyway when events were lost\n"
	"  -h, --help           this text\n";

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
	struct rtt_counts base; /* of the buffer when attached */
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

/* Read until the buffer is empty, or Ctrl-C: a writer that goes on
 * writing may never let it be empty. */
static int rtt_pipe_drain(struct rtt_pipe *pp)
{
	int n = 0;

	while (!rtt_stop && !pp->out_closed && (n = rtt_pipe_read(pp)) > 0)
		;
	return pp->out_closed || rtt_stop ? 0 : n;
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
	rtt_counts_since(&c, &pp->base);
	pp->done.read += c.read;
	pp->done.overrun += c.overrun;
	pp->done.dropped += c.dropped;
	pp->done.commit_overrun += c.commit_overrun;
	ringbuf_free(pp->rb);
	pp->rb = rb;
	rtt_get_counts(pp->rb, &pp->base);
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

int rtt_do_pipe(const struct rtt_verb *v, int argc, char **argv)
{
	struct rtt_strv topts = { 0 }, events = { 0 }, filters = { 0 };
	struct rtt_pipe pp;
	char err[RTT_ERR_MAX];
	bool raw = false, stats = false, exited = false;
	unsigned long cpu = (unsigned long)-1;
	const struct rtt_opt opts[] = {
		RTT_O_STR("instance", 'i', &pp.inst),
		RTT_O_LIST("event", 'e', &events),
		RTT_O_LIST("filter", 'f', &filters),
		RTT_O_LIST("", 'O', &topts),
		RTT_O_UINT("cpu", 'c', &cpu, 0, 65535, "bad cpu",
			   "a cpu buffer, 0 to 65535"),
		RTT_O_FLAG("raw", 'r', &raw),
		RTT_O_FLAG("stats", 's', &stats),
		RTT_O_END(0),
	};
	struct rtt_counts c;
	int ret, code = RTT_EXIT_OK;

	memset(&pp, 0, sizeof(pp));
	ret = rtt_options(v, argc, argv, opts);
	if (ret != RTT_OPTIONS_GO)
		goto out_args;
	/*
	 * Before anything that may take a while (the process's answers): a
	 * shell's background job starts with SIGINT ignored, and a Ctrl-C
	 * or kill -INT that came before the handler would be lost. From
	 * here Ctrl-C ends it with what it has: a wait for the process's
	 * answer or lock returns, the loop does not start.
	 */
	rtt_catch_signals();
	ret = rtt_pid_arg(v, argc);
	if (ret)
		goto out_args;
	ret = rtt_open_pid(argv[optind], 0, &pp.p);
	if (ret) {
		ret = rtt_exit_code(ret);
		goto out_args;
	}
	pp.slot = rtt_find_inst(&pp.p, pp.inst);
	if (pp.slot < 0) {
		ret = pp.slot;
		goto out;
	}
	/* the generation first: a change after it reloads the events */
	pp.ctl_gen = rtt_ctl_gen(&pp.p);
	ret = rtt_consumer_check(&pp.p, pp.slot, err);
	if (ret) {
		rtt_msg("%s", err);
		goto out;
	}
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
	rtt_print_ctx_proc(&pp.ctx, pp.p.pid, pp.p.uid);
	rtt_printer_ops(&pp.ctx, &pp.ops);
	ret = rtt_attach(&pp.p, pp.slot, false, RTT_ATTACH_CONSUME, &pp.buf_gen,
			 &pp.rb, err);
	if (ret) {
		rtt_msg("%s", err);
		goto out;
	}
	/* the counts of this session: from here */
	rtt_get_counts(pp.rb, &pp.base);
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
		ret = rtt_view_error(&pp.p, pp.rb, err);
		if (ret) {
			rtt_msg("%s", err);
			break;
		}
		if (n > 0)
			continue;
		/* short: a signal that came while not asleep is seen soon */
		n = ringbuf_wait(pp.rb, pp.cpu, 0, 50);
		if (n == -ESRCH || rtt_proc_state(&pp.p) == RTT_DEAD) {
			ret = rtt_pipe_drain(&pp);
			exited = true;
			break;
		}
	}
	/* Ctrl-C stops at once, as cat does: the writer may never let a
	 * drain end */
	rtt_get_counts(pp.rb, &c);
	rtt_counts_since(&c, &pp.base);
	c.read += pp.done.read;
	c.overrun += pp.done.overrun;
	c.dropped += pp.done.dropped;
	c.commit_overrun += pp.done.commit_overrun;
	if (exited)
		rtt_msg("process %d exited", pp.p.pid);
	/* a buffer that went bad: its counters are no one's, the one
	 * line said why */
	if (!ret && (stats || rtt_lost(&c)))
		rtt_msg("%lu events read, %lu lost (overrun %lu, dropped %lu, commit overrun %lu)",
			c.read, rtt_lost(&c), c.overrun, c.dropped,
			c.commit_overrun);
out:
	if (ret)
		code = rtt_exit_code(ret);
	rtt_print_ctx_done(&pp.ctx);
	rt_pipe_state_free(pp.st);
	ringbuf_free(pp.rb);
	rtt_events_free(pp.ev);
	rtt_syms_free(pp.syms);
	rtt_proc_close(&pp.p);
	ret = code;
out_args:
	free(topts.v);
	free(events.v);
	free(filters.v);
	return ret;
}
