/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * record.h - ringtrace record's state, shared by record.c (arguments,
 *	main loop), record_write.c (pages into the file), record_spawn.c
 *	(starting the command) and record_follow.c (record -c)
 */
#ifndef RTT_RECORD_H
#define RTT_RECORD_H

#include "rtt.h"
#include "net.h"

/* Pages moved between two looks at the clock and the checkpoints. */
#define RTT_RECORD_BATCH 256

/**
 * struct rtt_record - a recording in progress
 * @ev: the process's events (the formats in the file)
 * @ctl_gen: the control file's generation when they were read
 * @syms: its symbols file, @cmdl its thread names, as last read
 * @start: when the recording started (ms), @last the last progress line
 * @last_events: the events recorded at the last progress line
 * @exited: the process exited
 * @quiet_written: the summary gives the bytes of this file, not those
 *	the tool wrote (a followed process)
 * @out_path: @out when the recording owns it
 * @out_name: the output as the messages name it (NULL: @out)
 * @dropped: per cpu buffer, the writes it refused (a full buffer in
 *	producer/consumer mode) as counted when last looked at
 * @marked: per cpu buffer, how many of @dropped the file marks already
 * @caught_up: per cpu buffer, the reader found it without a whole page
 *	since drops were last seen: the next page is newer than them
 * @net: the receiver the pages are streamed to (-N), or NULL; @w then
 *	holds the metadata alone unless -o names a file too
 */
struct rtt_record {
	const char *out;
	const char *out_name;
	/* --compression: "zstd" (a version 7 file), or NULL/"none";
	 * @compression_auto: chosen by default, not by the user: a build
	 * without libzstd writes version 6 without a word */
	const char *compression;
	bool compression_auto;
	struct rtt_proc p;
	struct ringbuf *rb;
	struct td_writer *w;
	struct rtt_events *ev;
	uint32_t ctl_gen;
	bool was_off; /* record -P switched tracing_on on: off at the end */
	char *syms;
	bool syms_read; /* rtt_rec_meta() has no symbols to read */
	char *cmdl;
	uint64_t start;
	uint64_t last;
	unsigned long last_events;
	bool exited;
	unsigned long *dropped;
	unsigned long *marked;
	bool *caught_up;
	int nr_cpus;
	/* the records moved (events/s and the final tally), and those of
	 * the function tracers (@types: ftrace:function,
	 * ftrace:funcgraph_exit and ftrace:fgraph_retval_exit, -1 when
	 * unknown), counted in the pages up to the first page that has one
	 * (what the warning of a recording without any needs: the pages
	 * after it are not walked again, rtt_record_pages()) */
	struct td_count tally;
	unsigned long events;
	unsigned long missed;
	uint64_t ckpt_bytes;
	bool quiet;
	bool quiet_written;
	bool tty;
	char *out_path;
	const struct rtt_strv *topts;
	dev_t ctl_dev;
	ino_t ctl_ino;
	struct rtt_net *net;
	/* the cpu buffers' pages allocated ahead of the writers
	 * (rtt_rec_prefault()), or NULL */
	struct rtt_prefault *pf;
	bool pf_tried;
};

/**
 * struct rtt_follow - the descendants of the recorded process that
 *	publish a trace, each recorded into FILE.PID
 * @v: their recordings
 * @nr: how many
 * @cap: entries allocated
 * @seen: the pids looked at already (followed or not)
 * @nr_seen: how many
 * @seen_cap: entries allocated
 * @last_scan: when the publish directory was last listed (ms)
 * @calls: function calls recorded in the files completed
 * @compression: the files' compression, @compression_auto whether by
 *	default (as struct rtt_record's)
 */
struct rtt_follow {
	struct rtt_record *v;
	size_t nr;
	size_t cap;
	int *seen;
	size_t nr_seen;
	size_t seen_cap;
	uint64_t last_scan;
	unsigned long calls;
	const char *compression;
	bool compression_auto;
};


/**
 * struct rtt_rec_set - what record -P sets in the process
 * @inst: the instance (NULL: the top one)
 * @events: -e
 * @topts: -O
 * @filters: "EVENT EXPR" filters
 * @lists: -l, -n, -g
 * @depth_set: --max-graph-depth given, @depth its value
 * @size_kb: -b (0: unchanged)
 * @tracer: -p (NULL: unchanged)
 * @clock: the trace clock (NULL: unchanged)
 */
struct rtt_rec_set {
	const char *inst;
	const struct rtt_strv *events;
	const struct rtt_strv *topts;
	const struct rtt_strv *filters;
	const struct rtt_strv *lists;
	bool depth_set;
	unsigned long depth;
	unsigned long size_kb;
	const char *tracer;
	const char *clock;
};

/* record.c */
int rtt_rec_attach(struct rtt_record *r, const char *pid_arg,
		   const struct rtt_rec_set *s, char **before,
		   struct rtt_events **ev);
void rtt_rec_restore(struct rtt_record *r, const char *inst,
		     const char *before, const char *tracer);

/* record_follow.c */
void rtt_follow_turn(struct rtt_follow *fl, int root, const char *out);
void rtt_follow_end(struct rtt_follow *fl);

/* record_spawn.c */
int rtt_record_spawn(char **cmd, const struct rtt_strv *events,
		     const char *tracer, const struct rtt_strv *opts,
		     unsigned long size_kb, const char *preload,
		     bool follow, bool stdout_busy, int *hold,
		     struct rtt_proc *p, pid_t *child);
char *rtt_show_set_event(struct rtt_proc *p, const char *inst);
void rtt_restore_events(struct rtt_proc *p, const char *inst,
			const char *before);
void rtt_record_formats(struct rtt_record *r, struct rtt_events **evp);
void rtt_record_exec_formats(struct rtt_record *r);
const char *rtt_record_preload(const char *cmd, int mode,
			       const char *given, char *lib,
			       size_t len);
/* The library --preload=LIB names (LIB, or the library the linker script
 * LIB names): 0 and @path filled, -errno (-ENOEXEC: neither). */
int rtt_preload_resolve(const char *lib, char *path, size_t len);
/* --preload=LIB resolved into @path (*@arg then points to it), or the
 * usage error said: RTT_EXIT_OK or RTT_EXIT_USAGE. */
int rtt_record_preload_arg(const struct rtt_verb *v, const char **arg,
			   char *path, size_t len);

/* record_write.c */
/*
 * How long a writer that finds its cpu buffer full waits for the
 * recorder to take a page (ringbuf_set_writer_wait()), as uftrace's
 * writers wait for its recorder: a recording is complete unless the
 * recorder stops reading for this long (then the writers drop, counted
 * and marked, until it reads again).
 */
#define RTT_RECORD_WAIT_MS 1000u
/*
 * The sub-buffer size of a command's buffers, in KiB (a string: it goes
 * into the command's environment as RINGTRACE_SUBBUF_SIZE_KB). Each
 * sub-buffer costs the writer a page change (rb_move_tail()) and the
 * recorder a swap of the reader page, a copy call and a page in the
 * file: with 16 KiB instead of the kernel's 4 KiB a function_graph
 * recording of lz4 took about a tenth less time, and 64 KiB saved no
 * more. Only for a cpu buffer of RTT_RECORD_SUBBUF_MIN_KB or more (64
 * sub-buffers): a smaller one keeps the kernel's 4 KiB, so that it
 * still has pages enough to hand over one by one.
 */
#define RTT_RECORD_SUBBUF_KB "16"
#define RTT_RECORD_SUBBUF_MIN_KB 1024ul

void rtt_settle(struct rtt_proc *p);
int rtt_record_lists(struct rtt_proc *p, const struct rtt_strv lists[3],
		     bool depth_set, unsigned long depth);
void rtt_rec_note_ctl(struct rtt_record *r);
bool rtt_rec_execd(const struct rtt_record *r);
int rtt_rec_exec(struct rtt_record *r, const char *inst,
		 const struct rtt_strv lists[3], bool depth_set,
		 unsigned long depth);
int rtt_rec_open(struct rtt_record *r, const char *inst);
int rtt_rec_start(struct rtt_record *r, const char *inst);
int rtt_rec_meta(struct rtt_record *r, bool ask);
void rtt_rec_prefault(struct rtt_record *r);
int rtt_rec_turn(struct rtt_record *r);
int rtt_rec_drain(struct rtt_record *r);
int rtt_rec_finish(struct rtt_record *r, int ret);
void rtt_rec_free(struct rtt_record *r);

#endif
