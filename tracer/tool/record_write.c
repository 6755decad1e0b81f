// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record_write.c - ringtrace record: moving pages of the buffer into the
 *	trace.dat
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#include "record.h"

/* Pages of one cpu buffer taken before the next one's turn. */
#define RTT_RECORD_BURST 64

/*
 * Mark @n events dropped before @page as the kernel marks overwritten
 * ones: RINGBUF_MISSED_EVENTS, and the count after the data when there
 * is room (added to a count the page has already).
 */
static void rtt_mark_dropped(void *page, size_t size, unsigned long n)
{
	struct ringbuf_data_page *dp = page;
	uint64_t commit = dp->commit, len = commit & RINGBUF_COMMIT_MASK;
	unsigned char *at = (unsigned char *)dp->data + len;
	uint64_t count;

	if (commit & RINGBUF_MISSED_STORED) {
		memcpy(&count, at, sizeof(count));
		count += n;
		memcpy(at, &count, sizeof(count));
	} else if (!(commit & RINGBUF_MISSED_EVENTS) &&
		   size - RINGBUF_PAGE_HDR_SIZE - len >= sizeof(count)) {
		count = n;
		memcpy(at, &count, sizeof(count));
		commit |= RINGBUF_MISSED_STORED;
	}
	dp->commit = commit | RINGBUF_MISSED_EVENTS;
}

/*
 * A page read into the network queue (-N): checked and counted, kept in
 * the file too when there is one (-o), then queued. Return: 0, -EINVAL
 * (a malformed page, not sent), or an error of the file or the stream.
 */
static int rtt_rec_net_page(struct rtt_record *r, int cpu, const void *page,
			    unsigned long *missed, struct td_count *t)
{
	int ret;

	if (td_page_count(page, (unsigned int)ringbuf_subbuf_size(r->rb), t,
			  missed))
		return -EINVAL;
	if (r->out) {
		ret = td_writer_add_page(r->w, cpu, page);
		if (ret)
			return ret;
	}
	return rtt_net_commit(r->net, cpu);
}

/*
 * Move at most @max pages into the file: the pages the writer has left
 * (@full), or whatever the buffers hold (!@full), up to a stage of pages
 * of each cpu buffer in turn, read straight into the writer's staging
 * (an empty cpu buffer costs one look a turn, not one a page). Writes a
 * full buffer refused (producer/consumer mode) are marked on the first
 * page read after the reader caught up with the writer, which holds
 * records written after them. Return: the pages moved, or a negative
 * errno. Refusals after the last page the buffer holds at the end have
 * no page after them: they stay unmarked, and the summary says so (the
 * pages of the final drain were written before them).
 */
static int rtt_record_pages(struct rtt_record *r, int full, int max)
{
	size_t size = ringbuf_subbuf_size(r->rb);
	int cpu, ret, n, moved = 0;
	bool any;

	do {
		any = false;
		for (cpu = 0; cpu < r->nr_cpus; cpu++) {
			for (n = 0; n < RTT_RECORD_BURST; n++) {
				struct td_count t = r->tally;
				unsigned long missed = 0, d, nrec;
				void *page;

				if (moved >= max)
					return moved;
				d = ringbuf_dropped_events_cpu(r->rb, cpu);
				if (d != r->dropped[cpu]) {
					r->dropped[cpu] = d;
					r->caught_up[cpu] = false;
				}
				page = r->net ? rtt_net_slot(r->net, cpu) :
						td_writer_page_slot(r->w, cpu);
				/* a full network queue: this buffer fills
				 * (and drops or overwrites) meanwhile */
				if (!page && r->net && !errno)
					break;
				if (!page)
					return -errno;
				if (ringbuf_read_page_count(r->rb, page, size,
							    cpu, full,
							    &nrec) < 0) {
					r->caught_up[cpu] = true;
					break;
				}
				any = true;
				if (r->marked[cpu] != r->dropped[cpu] &&
				    r->caught_up[cpu]) {
					rtt_mark_dropped(page, size,
							 r->dropped[cpu] -
								 r->marked[cpu]);
					r->marked[cpu] = r->dropped[cpu];
				}
				t.records = t.matched = 0;
				if (r->net) {
					ret = rtt_rec_net_page(r, cpu, page,
							       &missed, &t);
				} else if (!r->tally.matched) {
					/* checked and counted again, the
					 * function records too (until the
					 * first: record.h) */
					ret = td_writer_commit_slot(r->w, cpu,
								    &t,
								    &missed);
				} else {
					/* checked and counted by the read:
					 * the page is not walked again */
					ret = td_writer_keep_slot(r->w, cpu,
								  &missed);
					t.records = nrec;
				}
				if (ret == -EINVAL) {
					rtt_msg("cpu %d: a malformed page skipped",
						cpu);
					continue;
				}
				if (ret)
					return ret;
				moved++;
				r->tally.records += t.records;
				r->tally.matched += t.matched;
				r->events += t.records;
				if (missed != TD_MISSED_UNKNOWN)
					r->missed += missed;
			}
		}
	} while (any);
	return moved;
}

/*
 * A checkpoint each second (@timed). Writing in place, a checkpoint
 * writes the header alone (compressed: and the metadata); otherwise it
 * copies the whole file, so it is only taken when the data has doubled
 * since the last (which keeps the copying linear in the size), and at
 * the end. A compressed file's is written by the writer's compressor
 * thread, not waited for here.
 */
static int rtt_record_ckpt(struct rtt_record *r, bool timed)
{
	uint64_t bytes;
	size_t len;
	char *cmdl;
	int ret;

	td_writer_stats(r->w, NULL, &bytes);
	if (td_writer_in_place(r->w) ? !timed : bytes < 2 * r->ckpt_bytes)
		return 0;
	/* threads started meanwhile */
	if (!rtt_cmdlines_text(&r->p, &cmdl, &len)) {
		td_writer_set_cmdlines(r->w, cmdl);
		free(cmdl);
	}
	/* (compressed: written by the compressor thread meanwhile) */
	ret = td_writer_checkpoint_nowait(r->w);
	if (!ret)
		r->ckpt_bytes = bytes > 32768 ? bytes : 32768;
	return ret;
}

static void rtt_record_progress(struct rtt_record *r, double rate)
{
	struct rtt_counts c;
	uint64_t bytes = 0;

	if (r->quiet)
		return;
	rtt_get_counts(r->rb, &c);
	td_writer_stats(r->w, NULL, &bytes);
	if (r->net)
		bytes = rtt_net_sent(r->net);
	fprintf(stderr,
		"%sringtrace: %.0f events/s, %.1f MB %s, %lu events lost%s",
		r->tty ? "\r" : "", rate, (double)bytes / 1e6,
		r->net ? "sent" : "written", rtt_lost(&c),
		r->tty ? "\033[K" : "\n");
}

/*
 * A program registers its events as it loads, after the library
 * published its first events file: wait until the file has not changed
 * for 20 ms (at most a second), so that the formats read next are all of
 * them. The buffer keeps what is written meanwhile.
 */
void rtt_settle(struct rtt_proc *p)
{
	uint64_t start = rtt_now_ms(), since = start;
	uint32_t g = rtt_ctl_gen(p);

	while (rtt_now_ms() - since < 20 && rtt_now_ms() - start < 1000 &&
	       rtt_proc_state(p) == RTT_ALIVE) {
		/* a millisecond at most: a process that does not wake us
		 * (held by another way, or gone) is looked at again */
		struct timespec ms = { 0, 1000000 };
		uint32_t n, st;

		/* Acquire: pairs with the release store in rt_ctl_held():
		 * held, its set-up is over and complete. */
		st = atomic_load_explicit(&p->ctl->state, memory_order_acquire);
		if (st == RT_CTL_HELD)
			return;
		/* woken by rt_ctl_held() (a futex on a word of the shared
		 * control file: not FUTEX_PRIVATE_FLAG); a state that changed
		 * since the load returns at once */
		syscall(SYS_futex, (uint32_t *)&p->ctl->state, FUTEX_WAIT, st,
			&ms, NULL, 0);
		n = rtt_ctl_gen(p);
		if (n != g) {
			g = n;
			since = rtt_now_ms();
		}
	}
}
/*
 * funcgraph-args: the prototypes of the process's functions that have
 * debug information, read from it while it runs, for the report's
 * argument names (a file without them shows raw registers). Only when
 * the recording has the option (-O funcgraph-args, which the file keeps
 * too, as the report's options): the option of the file that keeps them
 * is one KernelShark warns of. (Not asked of the process: a process
 * that holds its control lock would hold the recording up.)
 */
static bool rtt_record_wants_protos(const struct rtt_record *r)
{
	int i;

	for (i = 0; r->topts && i < r->topts->nr; i++)
		if (!strcmp(r->topts->v[i], "funcgraph-args") ||
		    !strcmp(r->topts->v[i], "func-args"))
			return true;
	return false;
}

static void rtt_record_protos(struct rtt_record *r)
{
	char *protos;

	if (!rtt_record_wants_protos(r) ||
	    !rtt_print_ctx_proc(NULL, r->p.pid, r->p.uid))
		return;
	protos = rtt_protos_text(r->p.pid, r->syms);

	if (protos)
		td_writer_set_protos(r->w, protos);
	free(protos);
}


/* The process's symbols (and prototypes: -O funcgraph-args) into the
 * file: asked of it (@ask), or as it last wrote them. */
static void rtt_rec_syms(struct rtt_record *r, bool ask)
{
	char err[RTT_ERR_MAX];
	size_t len;

	if ((ask ? rtt_syms_text : rtt_syms_published)(&r->p, &r->syms, &len,
						       err))
		rtt_msg("warning: the trace will have no symbols: %s", err);
	rtt_td_set_kallsyms(r->w, r->out, r->syms);
	rtt_record_protos(r);
	r->syms_read = true;
}

/**
 * rtt_rec_start - the first half of rtt_rec_open(): attach to the buffer
 *	of the process's instance and create the file
 * @r: the recording (r->p open, r->ev read)
 * @inst: the instance
 *
 * What can fail for a reason of the user's (the buffer taken, the file
 * refused) fails here, before a held command runs; the symbols, the
 * slowest part of the metadata (a large program's take milliseconds to
 * read and sort), wait for rtt_rec_meta() when the process has published
 * them already, which a held command does not wait for: its records wait
 * in the buffer meanwhile.
 *
 * Return: 0 or a negative errno (reported).
 */
int rtt_rec_start(struct rtt_record *r, const char *inst)
{
	char err[RTT_ERR_MAX], clock[32];
	size_t len;
	int c, ret;

	ret = rtt_attach(&r->p, rtt_find_inst(&r->p, inst), false,
			 RTT_ATTACH_CONSUME, NULL, &r->rb, err);
	if (ret) {
		rtt_msg("%s", err);
		return ret;
	}
	r->nr_cpus = ringbuf_nr_cpus(r->rb);
	r->dropped = calloc((size_t)r->nr_cpus, sizeof(*r->dropped));
	r->marked = calloc((size_t)r->nr_cpus, sizeof(*r->marked));
	r->caught_up = calloc((size_t)r->nr_cpus, sizeof(*r->caught_up));
	if (!r->dropped || !r->marked || !r->caught_up)
		return -ENOMEM;
	r->tally.types[0] = r->tally.types[1] = r->tally.types[2] = -1;
	for (len = 0; len < r->ev->nr; len++) {
		if (strcmp(r->ev->v[len].system, "ftrace"))
			continue;
		if (!strcmp(r->ev->v[len].name, "function"))
			r->tally.types[0] = r->ev->v[len].id;
		else if (!strcmp(r->ev->v[len].name, "funcgraph_exit"))
			r->tally.types[1] = r->ev->v[len].id;
		else if (!strcmp(r->ev->v[len].name, "fgraph_retval_exit"))
			r->tally.types[2] = r->ev->v[len].id;
	}
	/* what was dropped before the recording is not in it */
	for (c = 0; c < r->nr_cpus; c++)
		r->dropped[c] = r->marked[c] =
			ringbuf_dropped_events_cpu(r->rb, c);
	rtt_cmdlines_text(&r->p, &r->cmdl, &len);
	snprintf(clock, sizeof(clock), "%.*s",
		 (int)sizeof(r->p.ctl->clock) - 1, r->p.ctl->clock);
	ret = rtt_td_open(&r->p, r->out, r->rb, r->ev, NULL, r->cmdl, clock,
			  &r->w);
	if (ret)
		return ret;
	/* checked by rtt_do_record() */
	if (r->out) {
		ret = rtt_td_compress(r->w, r->out, r->compression,
				      r->compression_auto);
		if (ret)
			return ret;
	}
	rtt_td_set_options(r->w, r->topts);
	r->ckpt_bytes = 32768;
	r->start = r->last = rtt_now_ms();
	/* Read now, while a held command is surely there to answer: the
	 * symbols of a process that published none yet (it writes them
	 * when asked, and a short program may have exited by the time
	 * rtt_rec_meta() would ask), and the prototypes, read from the
	 * process. Otherwise rtt_rec_meta() reads them: the process
	 * published them when its function tracer started, and they stay
	 * after its exit. */
	if (rtt_record_wants_protos(r) || !r->p.ctl->syms[0])
		rtt_rec_syms(r, true);
	return 0;
}

/**
 * rtt_rec_meta - the second half of rtt_rec_open(): the symbols, and the
 *	file complete (its first checkpoint)
 * @r: the recording, after rtt_rec_start()
 * @ask: ask the process for its symbols (rtt_syms_text()); otherwise
 *	they are read as it last wrote them (a command let go may be busy
 *	by now, or in an exec() whose old control thread is gone, and a
 *	command would wait for its time-out)
 *
 * From here on, whatever happens next, the path holds a trace.dat that
 * reads.
 *
 * Return: 0 or a negative errno (reported).
 */
int rtt_rec_meta(struct rtt_record *r, bool ask)
{
	int ret;

	if (!r->syms_read)
		rtt_rec_syms(r, ask);
	/* the metadata as it is now: the receiver stores no later one */
	if (r->net) {
		ret = rtt_net_start(r->net, r->w,
				    (unsigned int)ringbuf_subbuf_size(r->rb),
				    r->nr_cpus);
		if (ret)
			return ret;
	}
	return td_writer_checkpoint(r->w);
}

/*
 * Attach to the buffer of the process's instance @inst (r->p open, r->ev
 * read) and create the file, complete at once: whatever happens next,
 * the path holds a trace.dat that reads. (rtt_rec_start() and
 * rtt_rec_meta(), for a caller with nothing to do between them.)
 */
int rtt_rec_open(struct rtt_record *r, const char *inst)
{
	int ret = rtt_rec_start(r, inst);

	return ret ? ret : rtt_rec_meta(r, true);
}

/*
 * The cpu buffers' pages, allocated in the buffer's file ahead of the
 * writers of a command we started, from the first turn that takes a
 * page (a command that fills none is not worth allocating and freeing
 * megabytes for). A file on tmpfs (the publish directory's) takes each
 * page when it is first touched: a writer's first write to each page of
 * its cpu buffer faulted a page in, allocated and cleared it (a
 * function_graph recording of lz4 touches about a thousand pages, 3 ms
 * of its run). Allocated here, on the recorder's side, the writer's
 * fault only maps the page. A thread of its own, from the start of each
 * cpu buffer (where its writer starts) in turns of RTT_PREFAULT_CHUNK,
 * stopped at the end of the recording, which waits for one chunk at
 * most. (Not at idle priority: on a busy machine the end would wait for
 * a thread that does not run.)
 */
#define RTT_PREFAULT_CHUNK (128u << 10)

struct rtt_prefault {
	pthread_t th;
	int fd;
	int nr;
	atomic_bool stop;
	struct {
		uint64_t off, len;
	} cpu[];
};

static void *rtt_prefault_main(void *arg)
{
	struct rtt_prefault *pf = arg;
	uint64_t done;
	bool any = true;
	int c;

	/* bounded: each turn moves every range on, up to its length */
	for (done = 0; any; done += RTT_PREFAULT_CHUNK) {
		any = false;
		for (c = 0; c < pf->nr; c++) {
			uint64_t n;

			/* Relaxed: a request to stop soon, no data with it. */
			if (atomic_load_explicit(&pf->stop, memory_order_relaxed))
				return NULL;
			if (done >= pf->cpu[c].len)
				continue;
			n = pf->cpu[c].len - done;
			if (n > RTT_PREFAULT_CHUNK)
				n = RTT_PREFAULT_CHUNK;
			/* a file system without fallocate(): the writers
			 * fault their pages in, as without this */
			if (fallocate(pf->fd, 0, (off_t)(pf->cpu[c].off + done),
				      (off_t)n))
				return NULL;
			any = true;
		}
	}
	return NULL;
}

/**
 * rtt_rec_prefault - allocate the cpu buffers' pages ahead of the writers
 * @r: a recording of a command we started, its buffer attached, whose
 *	writers filled pages already (a command that fills none, a short
 *	one, is not worth the pages' allocating and freeing)
 *
 * Once a recording: nothing (and no error) where the buffer's file says
 * nothing of its pages or a thread cannot start: the writers then fault
 * them in.
 */
void rtt_rec_prefault(struct rtt_record *r)
{
	struct rtt_prefault *pf;
	int c, fd = ringbuf_fd(r->rb);

	if (fd < 0 || r->pf_tried)
		return;
	r->pf_tried = true;
	pf = calloc(1, sizeof(*pf) + (size_t)r->nr_cpus * sizeof(pf->cpu[0]));
	if (!pf)
		return;
	pf->fd = fd;
	/* the CPUs' buffers, not the spares (a writer takes one only when
	 * its CPU's is claimed by a preempted one) */
	for (c = 0; c < r->nr_cpus; c++)
		if (!ringbuf_is_spare(r->rb, c) &&
		    !ringbuf_cpu_file_range(r->rb, c, &pf->cpu[pf->nr].off,
					    &pf->cpu[pf->nr].len))
			pf->nr++;
	if (!pf->nr || pthread_create(&pf->th, NULL, rtt_prefault_main, pf)) {
		free(pf);
		return;
	}
	r->pf = pf;
}

/* The prefault thread stopped (at most one chunk later) and gone. */
static void rtt_rec_prefault_stop(struct rtt_record *r)
{
	if (!r->pf)
		return;
	/* Relaxed: see rtt_prefault_main(); the join orders the rest. */
	atomic_store_explicit(&r->pf->stop, true, memory_order_relaxed);
	pthread_join(r->pf->th, NULL);
	free(r->pf);
	r->pf = NULL;
}

/*
 * One turn of a recording: the formats of events registered since, the
 * whole pages the writers left, a checkpoint and a progress line each
 * second. Return: the pages moved, or a negative errno.
 */
int rtt_rec_turn(struct rtt_record *r)
{
	uint32_t g = rtt_ctl_gen(&r->p);
	uint64_t now;
	int moved, ret;

	if (g != r->ctl_gen) {
		r->ctl_gen = g;
		rtt_record_formats(r, &r->ev);
	}
	if (r->net) {
		ret = rtt_net_push(r->net, 0);
		if (!ret)
			ret = rtt_net_meta(r->net, r->w, false);
		if (ret)
			return ret;
	}
	moved = rtt_record_pages(r, 1, RTT_RECORD_BATCH);
	if (moved < 0)
		return moved;
	now = rtt_now_ms();
	ret = rtt_record_ckpt(r, now - r->last >= 1000);
	if (ret)
		return ret;
	if (now - r->last >= 1000) {
		double rate = (double)(r->events - r->last_events) * 1000.0 /
			      (double)(now - r->last);

		rtt_record_progress(r, rate);
		r->last_events = r->events;
		r->last = now;
	}
	return moved;
}

/*
 * What the buffer holds now, partial pages included (no more than it
 * holds now, should a live writer keep filling it), written. Return: 0 or
 * a negative errno.
 */
int rtt_rec_drain(struct rtt_record *r)
{
	long drain = r->nr_cpus;
	int c, ret = 0;

	for (c = 0; c < r->nr_cpus; c++)
		drain += (long)(ringbuf_size(r->rb, c) /
				ringbuf_subbuf_size(r->rb));
	while (!ret && drain > 0) {
		int moved;

		/* room in the network queues: the receiver has its time */
		if (r->net && rtt_net_full(r->net)) {
			ret = rtt_net_push(r->net, RTT_NET_TIMEOUT_MS);
			if (ret)
				break;
		}
		moved = rtt_record_pages(r, 0, RTT_RECORD_BATCH);
		if (moved <= 0) {
			ret = moved;
			break;
		}
		drain -= moved;
		ret = rtt_record_ckpt(r, false);
	}
	return ret;
}

/*
 * The end of a recording (@ret: how the turns ended): what the buffer
 * still holds (rtt_rec_drain()), the last formats, symbols and thread
 * names, the file completed, the summary line. Return: 0 or a negative
 * errno (reported).
 */
int rtt_rec_finish(struct rtt_record *r, int ret)
{
	char err[RTT_ERR_MAX];
	uint64_t written = 0;
	size_t len;

	rtt_rec_prefault_stop(r);
	if (!ret)
		ret = rtt_rec_drain(r);
	if (!ret) {
		/* events registered at the end (their files may be gone) */
		if (rtt_ctl_gen(&r->p) != r->ctl_gen)
			rtt_record_formats(r, &r->ev);
		/* the symbols of what was loaded meanwhile */
		if (!r->exited) {
			free(r->syms);
			r->syms = NULL;
			if (!rtt_syms_text(&r->p, &r->syms, &len, err) &&
			    r->syms) {
				td_writer_set_kallsyms(r->w, r->syms);
				rtt_record_protos(r);
			}
		}
		free(r->cmdl);
		r->cmdl = NULL;
		if (!rtt_cmdlines_text(&r->p, &r->cmdl, &len))
			td_writer_set_cmdlines(r->w, r->cmdl);
		rtt_td_set_stats(r->w, r->rb);
	}
	if (r->net) {
		/* the metadata as complete as the file's, the last pages,
		 * CLOSE */
		int n = ret ? 0 : rtt_net_meta(r->net, r->w, true);

		if (!n)
			n = rtt_net_finish(r->net);
		if (!ret)
			ret = n;
		/* said already */
		if (ret == -ETIMEDOUT || ret == -EIO) {
			if (r->tty && !r->quiet)
				fputs("\r\033[K", stderr);
			return -EIO;
		}
	}
	if (!ret) {
		written = td_writer_written(r->w);
		ret = td_writer_close(r->w);
		r->w = NULL;
		if (ret)
			ret = rtt_td_error(r->out_name ? r->out_name : r->out, ret);
	} else if (ret == -ENOMEM) {
		rtt_msg("out of memory");
	} else {
		/* a last try with what could be written (the disk may take
		 * a smaller copy) */
		if (ret != -EINVAL)
			td_writer_checkpoint(r->w);
		ret = rtt_td_error(r->out_name ? r->out_name : r->out, ret);
	}
	if (r->tty && !r->quiet)
		fputs("\r\033[K", stderr);
	if (!ret) {
		struct rtt_counts cs;
		struct stat st;

		rtt_get_counts(r->rb, &cs);
		if (!r->out || stat(r->out, &st))
			st.st_size = 0;
		if (r->net)
			written = rtt_net_sent(r->net);
		/* the kernel's count, where there is one (followed
		 * processes share it: their own count then) */
		if (!r->quiet_written && !r->net)
			written = rtt_self_wchar(written);
		unsigned long dropped = 0, marked = 0;

		for (int c = 0; c < r->nr_cpus; c++) {
			dropped += ringbuf_dropped_events_cpu(r->rb, c);
			marked += r->marked[c];
		}
		/* Refused writes after the last page the file holds have no
		 * page to be marked on (the kernel marks none at all): the
		 * summary says how many the file shows. */
		rtt_msg("%lu events recorded in %s (%.1f MB, %.1f MB %s) in %.1f s; %lu lost%s",
			r->events, r->out_name ? r->out_name : r->out,
			(double)(r->out ? (uint64_t)st.st_size : written) / 1e6,
			(double)written / 1e6, r->net ? "sent" : "written",
			(double)(rtt_now_ms() - r->start) / 1000.0,
			rtt_lost(&cs),
			dropped > marked ? " (refused at the end, unmarked)" : "");
		/* what the recording cost the writers that waited for it
		 * (ringbuf_set_writer_wait()): a line of its own, after the
		 * summary, which scripts read as it is */
		uint64_t waits = 0, wait_ns = 0;

		for (int c = 0; c < r->nr_cpus; c++) {
			uint64_t n, ns;

			if (!ringbuf_room_waits_cpu(r->rb, c, &n, &ns)) {
				waits += n;
				wait_ns += ns;
			}
		}
		if (waits && !r->quiet)
			rtt_msg("writers waited for room %llu times, %.1f ms in all",
				(unsigned long long)waits,
				(double)wait_ns / 1e6);
	}
	return ret;
}

void rtt_rec_free(struct rtt_record *r)
{
	rtt_rec_prefault_stop(r);
	free(r->dropped);
	free(r->marked);
	free(r->caught_up);
	td_writer_abort(r->w);
	rtt_net_free(r->net);
	ringbuf_free(r->rb);
	rtt_proc_close(&r->p);
	rtt_events_free(r->ev);
	free(r->syms);
	free(r->cmdl);
	free(r->out_path);
	memset(r, 0, sizeof(*r));
}
