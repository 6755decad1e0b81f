// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * extract.c - ringtrace extract: the buffers a crashed or killed process
 *	left
 */
#include "rtt.h"

/* ---- extract ------------------------------------------------------------ */

const char rtt_extract_help[] =
	"Write the trace a crashed or killed process left in its shared\n"
	"buffers into a trace.dat: every event it committed (the writes a\n"
	"crash cut short are skipped and counted). PID|FILE is the pid of\n"
	"the dead process or one of the files it left (its .ctl file, a\n"
	"buffer file, ...). The leftover files are removed afterwards unless\n"
	"--keep is given. The buffers are only read, never consumed: with\n"
	"--keep the same trace can be extracted again.\n"
	"\n"
	"  -o, --output FILE    the trace.dat (default: trace.dat)\n"
	"  -i, --instance NAME  the instance (default: the top one)\n"
	"  -k, --keep           keep the leftover files\n"
	"      --compression zstd|none  zstd: a version 7 file with\n"
	"                       zstd-compressed sections (the default for a\n"
	"                       file; trace-cmd 3.0 or later reads it); none:\n"
	"                       version 6, uncompressed (the default for -o -)\n"
	"  -h, --help           this text\n";

/*
 * Build kernel-format pages from records (the iterator of an attached
 * view gives records, not pages): the page's time_stamp is its first
 * record's, each record carries its delta, a TIME_EXTEND before a delta
 * that needs more than 27 bits. A spare's records get their CPU notes
 * again (<ringbuf/event.h>): the CPU of a page's first records in its
 * commit word, as ringbuf_read_page() gives it, a note where the CPU
 * changes.
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
	int noted; /* the CPU the last note on the page names, or -1 */
	int page_cpu; /* the CPU of the page's first records, or -1 */
	unsigned long events;
};

static void rtt_pager_reset(struct rtt_pager *pg)
{
	memset(pg->page, 0, pg->size);
	pg->used = 0;
	pg->has = false;
	pg->noted = -1;
	pg->page_cpu = -1;
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
	if (pg->page_cpu >= 0)
		commit |= ((uint64_t)pg->page_cpu + 1) << RINGBUF_COMMIT_CPU_SHIFT;
	dp->commit = commit;
	ret = td_writer_add_page(pg->w, pg->cpu, pg->page);
	rtt_pager_reset(pg);
	return ret;
}

/*
 * Add a record of time @ts written on CPU @on (a spare's record whose CPU
 * a note names; -1: no note).
 */
static int rtt_pager_add(struct rtt_pager *pg, uint64_t ts, int on,
			 const void *data, unsigned int len)
{
	struct ringbuf_data_page *dp = (void *)pg->page;
	size_t room = pg->size - RINGBUF_PAGE_HDR_SIZE;
	bool note = on >= 0 && on != pg->noted;
	uint64_t delta;
	size_t need;
	uint32_t hdr;
	int ret;

	len = (len + 3) & ~3u;
	if (len == 0)
		len = 4;
	need = len <= RINGBUF_MAX_SMALL_DATA ? 4 + len : 8 + len;
	if (need + RINGBUF_NOTE_SIZE + 8 > room)
		return -EINVAL; /* cannot be: records come from such a page */
	delta = pg->has ? ts - pg->last_ts : 0;
	if (pg->has && delta >= (1u << 27))
		need += 8;
	/* keep room for a stored lost count on a page that needs one; a
	 * note takes the delta, which must not be 0 nor need an extend:
	 * else it starts the next page */
	if (pg->has &&
	    (pg->used + need + (note ? RINGBUF_NOTE_SIZE : 0) +
			     (pg->missed ? 8 : 0) > room ||
	     (note && (!delta || delta >= (1u << 27))))) {
		ret = rtt_pager_flush(pg);
		if (ret)
			return ret;
		delta = 0;
		need = len <= RINGBUF_MAX_SMALL_DATA ? 4 + len : 8 + len;
		note = on >= 0;
	}
	if (note && !pg->has) {
		/* the page's first records: in its commit word */
		pg->page_cpu = pg->noted = on;
	} else if (note) {
		uint32_t w[4] = { RINGBUF_TYPE_PADDING, RINGBUF_NOTE_SIZE - 4,
				  RINGBUF_NOTE_MAGIC, (uint32_t)on };

		w[0] |= (uint32_t)(delta << 5);
		memcpy(dp->data + pg->used, w, sizeof(w));
		pg->used += sizeof(w);
		pg->noted = on;
		delta = 0;
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
		ret = rtt_pager_add(pg, ts,
				    ringbuf_is_spare(rb, cpu) ?
					    ringbuf_iter_cpu(it) :
					    -1,
				    ringbuf_event_data(e),
				    ringbuf_event_length(e));
		ringbuf_iter_advance(it);
	}
	if (!ret)
		ret = rtt_pager_flush(pg);
	ringbuf_read_finish(it);
	return ret;
}

int rtt_do_extract(const struct rtt_verb *v, int argc, char **argv)
{
	const char *out = "trace.dat", *inst = NULL, *arg, *algo = NULL;
	struct rtt_out dest = { .fd = -1 };
	struct rtt_events *ev = NULL;
	struct rtt_pager pg;
	struct rtt_counts cnt;
	struct ringbuf *rb = NULL;
	struct rtt_proc p;
	char err[RTT_ERR_MAX], path[PATH_MAX + 8], clock[32];
	char *syms = NULL, *cmdl = NULL;
	bool keep = false, dflt = false;
	size_t len;
	const struct rtt_opt opts[] = {
		RTT_O_STR("output", 'o', &out),
		RTT_O_STR("instance", 'i', &inst),
		RTT_O_FLAG("keep", 'k', &keep),
		RTT_O_STR("compression", 256 + 'Z', &algo),
		RTT_O_END(0),
	};
	int c, ret, slot, cpu, pid;

	memset(&pg, 0, sizeof(pg));
	ret = rtt_options(v, argc, argv, opts);
	if (ret != RTT_OPTIONS_GO)
		return ret;
	if (optind != argc - 1)
		return rtt_usage(v, optind < argc ? "too many arguments" :
						    "missing the pid or file");
	arg = argv[optind];
	if (rtt_compression_arg(algo))
		return rtt_usage(v, "%s", rtt_compression_arg(algo));
	c = rtt_out_open(out, true, &dest);
	if (c)
		return c;
	if (!algo) {
		algo = rtt_default_compression(&dest);
		dflt = true;
	}
	if (!rtt_parse_pid(arg, &pid))
		ret = rtt_proc_open(pid, RTT_OPEN_DEAD, &p, err);
	else
		ret = rtt_proc_open_path(arg, RTT_OPEN_DEAD, &p, err);
	if (ret) {
		rtt_msg("%s", err);
		rtt_out_close(&dest);
		return rtt_exit_code(ret);
	}
	if (p.state != RTT_DEAD) {
		rtt_msg("process %d is still running: use 'ringtrace record -P %d'",
			p.pid, p.pid);
		rtt_proc_close(&p);
		rtt_out_close(&dest);
		return RTT_EXIT_USAGE;
	}
	slot = rtt_find_inst(&p, inst);
	if (slot < 0) {
		ret = slot;
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
	/* the process is gone: its last symbols file, if any (its own
	 * <pid>-<start>.syms, whatever the control file names) */
	ret = rtt_syms_text(&p, &syms, &len, err);
	if (ret) {
		rtt_msg("%s", err);
		goto out;
	}
	rtt_cmdlines_text(&p, &cmdl, &len);
	snprintf(clock, sizeof(clock), "%.*s", (int)sizeof(p.ctl->clock) - 1,
		 p.ctl->clock);
	ret = rtt_td_open(&p, dest.path, rb, ev, syms, cmdl, clock, &pg.w);
	if (!ret)
		ret = rtt_td_compress(pg.w, out, algo, dflt);
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
	/* nothing written from a file that went bad under us */
	if (!ret && (ret = rtt_view_error(&p, rb, err))) {
		rtt_msg("%s", err);
		goto out;
	}
	if (!ret) {
		rtt_td_set_stats(pg.w, rb);
		ret = td_writer_close(pg.w);
		pg.w = NULL;
	}
	if (ret) {
		ret = ret == -ENOMEM ? ret : rtt_td_error(out, ret);
		goto out;
	}
	ret = rtt_out_finish(&dest, 0);
	if (ret)
		goto out;
	rtt_get_counts(rb, &cnt);
	rtt_safe_copy(path, sizeof(path), p.ctl->comm, sizeof(p.ctl->comm));
	rtt_msg("%lu events of process %d (%s) written to %s; %lu lost before, %lu writes cut short by the crash",
		pg.events, p.pid, path, rtt_out_name(&dest),
		rtt_lost(&cnt), cnt.torn);
	if (!keep) {
		ret = rtt_remove_files(&p, err);
		if (ret)
			rtt_msg("%s", err);
	}
out:
	td_writer_abort(pg.w);
	rtt_out_close(&dest);
	free(pg.page);
	ringbuf_free(rb);
	rtt_events_free(ev);
	free(syms);
	free(cmdl);
	rtt_proc_close(&p);
	return rtt_exit_code(ret);
}
