/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracedat_int.h - what the parts of rttracedat share: the file's magic,
 *	option ids and limits, the byte helpers, and the writer's state
 *	(tracedat.c: the writer; tracedat_store.c: its storage;
 *	tracedat_decode.c: the page decoder; tracedat_read.c: the reader)
 */
#ifndef TRACEDAT_INT_H
#define TRACEDAT_INT_H

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ringbuf/event.h>

#include "tracedat.h"

/* The file's first bytes: magic, "tracing", the version string "6\0". */
static const unsigned char td_magic[10] = { 0x17, 0x08, 0x44, 't', 'r',
					    'a',  'c',	'i',  'n', 'g' };

/* Option ids (the values trace-cmd gives them). */
enum {
	TD_OPT_DONE = 0,
	TD_OPT_CPUSTAT = 2,
	TD_OPT_BUFFER = 3,
	TD_OPT_TRACECLOCK = 4,
	TD_OPT_UNAME = 5,
	TD_OPT_CPUCOUNT = 8,
	TD_OPT_VERSION = 9,
	/* version 7: a latency trace's text */
	TD_OPT_BUFFER_TEXT = 22,
	/* ours: the trace options the recording was made with */
	TD_OPT_RT_OPTIONS = 0x5254,
	/* ours: padding (td_writer_stream_header()); 0x5255 stays unused
	 * (a count of CPUs that the spares' CPUSTAT options now give) */
	TD_OPT_RT_PAD = 0x5256,
	/* ours: the functions' prototypes for funcgraph-args (fnproto.h) */
	TD_OPT_RT_PROTOS = 0x5257,
};

/*
 * The line of a spare's CPUSTAT option after its "CPU: n" line: what the
 * cpu is for trace-cmd report --stat, and for our reader where the spares
 * start (an option of our own would make libtracecmd warn "unknown
 * option" in KernelShark and trace-cmd dump).
 */
#define TD_SPARE_LINE "spare: "

/* Longest clock name td_writer_set_clock() takes. */
#define TD_CLOCK_MAX 64

/* The end line td_writer_set_kallsyms() adds after the last symbol. */
#define TD_KALLSYMS_END "ffffffffffffffff T _etext\n"

/* Chunk of one copy_file_range() or pread()/pwrite() step. */
#define TD_COPY_CHUNK (1u << 20)

/* Pages of a cpu written together: up to this many bytes (a
 * compressing writer's: TD_ZCHUNK_BYTES, tracedat.h). */
#define TD_STAGE_BYTES (256u << 10)

/* How much a shifting writer reserves at a time for a cpu's pages. */
#define TD_GROW_MIN (16ull << 20)
#define TD_GROW_MAX (64ull << 20)

/*
 * The holes a shifting writer's close leaves: at most 1 / TD_HOLE_SHARE
 * of the pages' bytes in all (td_hole_kept()). Removing a hole
 * (FALLOC_FL_COLLAPSE_RANGE) makes the kernel write back every dirty
 * page after it first and wait for them: for the header's room, a few
 * hundred KiB at the start, that is the whole recording, which would
 * otherwise reach the disk after the recorder is done, as any program's
 * writes do. A hole left reads as zeroes no reader looks at (the header
 * gives every cpu's offset); it takes no block, and the file's size shows
 * it, by at most this share.
 */
#define TD_HOLE_SHARE 64u

/*
 * A sparse writer's first reservation per cpu: TD_SPARSE_SPAN shared by
 * the cpu buffers, from TD_GROW_MIN to TD_SPARSE_MAX each. A hole costs
 * neither memory nor disk, only file offsets, so the reservations are
 * large: a cpu outgrows its first one only past 1 GiB (with up to 64 cpu
 * buffers), which a recording of a few seconds does not reach, and each
 * time it does the data of the cpus after it is copied up. A reservation
 * then doubles, so a cpu that ends with N bytes made them move at most
 * log2(N / first reservation) times. The span keeps the file's apparent
 * size, before the close removes the holes, within what any reader can
 * map (64 GiB for up to 64 cpu buffers, 16 MiB each past 4096).
 */
#define TD_SPARSE_SPAN (64ull << 30)
#define TD_SPARSE_MAX (1ull << 30)


/**
 * td_page_size_ok - whether a page size is one a file may have
 * @page_size: the size
 *
 * Context: any thread.
 * Return: true for a power of two from TD_MIN_PAGE_SIZE to
 * TD_MAX_PAGE_SIZE.
 */
static inline bool td_page_size_ok(uint64_t page_size)
{
	return page_size >= TD_MIN_PAGE_SIZE && page_size <= TD_MAX_PAGE_SIZE &&
	       !(page_size & (page_size - 1));
}

/**
 * td_get32 - read a little-endian u32
 * @p: the bytes (any alignment)
 *
 * Context: any thread.
 * Return: the value.
 */
static inline uint32_t td_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/**
 * td_get64 - read a little-endian u64
 * @p: the bytes (any alignment)
 *
 * Context: any thread.
 * Return: the value.
 */
static inline uint64_t td_get64(const unsigned char *p)
{
	return (uint64_t)td_get32(p) | (uint64_t)td_get32(p + 4) << 32;
}

/**
 * td_put64 - write a little-endian u64
 * @p: where (any alignment)
 * @v: the value
 *
 * Context: any thread.
 */
static inline void td_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/**
 * td_clock_of - the bracketed word of a trace_clock text
 * @text: the text, e.g. "local [mono] boot"
 *
 * Context: any thread.
 * Return: a copy of the word, or NULL (none, or no memory).
 */
static inline char *td_clock_of(const char *text)
{
	const char *o = strchr(text, '['), *e;

	if (!o)
		return NULL;
	e = strchr(o + 1, ']');
	if (!e || e == o + 1)
		return NULL;
	return strndup(o + 1, (size_t)(e - o - 1));
}

/* v7 section ids (the options that point to them have the same ids). */
enum {
	TD_SEC_OPTIONS = 0,
	TD_SEC_HEADER = 16,
	TD_SEC_FTRACE = 17,
	TD_SEC_EVENTS = 18,
	TD_SEC_KALLSYMS = 19,
	TD_SEC_PRINTK = 20,
	TD_SEC_CMDLINES = 21,
};

/* Section flags: the section is compressed. */
#define TD_SEC_COMPRESSED 1u

/* ------------------------------------------------------------------ */
/* The writer's state, shared by the writer (tracedat.c) and its       */
/* storage strategies (tracedat_store.c)                               */

/*
 * The level of td_writer_set_compression(): one of zstd's fast levels
 * (negative: the fast strategy with a coarser match search), for the
 * pages' chunks and the metadata's sections. On function_graph
 * recordings (sqlite3's pages, 38 bytes a record, in 1 MiB chunks), -2
 * takes a sixth less CPU than level 1 (14.1 against 18.5 instructions
 * a byte) for 2 % more bytes, and less than -1 (17.1); -3 takes as much
 * (14.2) for an eighth more bytes (below -3 the ratio halves). Level 3
 * gains 1 % on level 1 at twice the time. Measured again on the four
 * function_graph recordings of bench/real (lz4 and sqlite3, each built
 * -pg and -fpatchable-function-entry): -2 gives 4.9 to 5.4 bytes an
 * event; -3 5.4 to 6.4 at no more speed; -4 to -7 are slower (fewer
 * matches, more literals to store) and pass 7 bytes an event on sqlite3
 * (8.1 to 9.7). -2 is the fast end that keeps a margin under 7.
 * Finding the repeats ourselves from the records' layout and handing
 * them to zstd's sequence API (ZSTD_compressSequences(), bench/zseq.c)
 * costs more on these pages, not less: zstd takes 10.7 to 13.8
 * instructions a byte just to code the matches it is given, against
 * 14.6 to 16.4 for the whole of -2, search included (bench/README.md,
 * "zstd sequences").
 */
#define TD_ZSTD_LEVEL (-2)

/*
 * The pages' chunks: the hash table of -2's match search (its entries:
 * 1 << TD_ZSTD_HASHLOG, 256 KiB of them, within a core's L2 cache here),
 * which finds 1 % more repeats than the level's own (13 at 1 MiB) for
 * no more instructions. (The other knobs change nothing here: the
 * literals of the negative levels are stored already, not Huffman-coded;
 * minimum matches of 5 and 7 bytes give the 6's bytes. The window is
 * the level's own for a 1 MiB chunk, 512 KiB, as each frame's header
 * says: trace-cmd's decoder takes any, since it decodes a chunk whole.)
 */
#define TD_ZSTD_HASHLOG 16

/* A compressed writer in place: the first region of each cpu's chunks
 * (td_writer_set_reserve() changes it), doubled when outgrown. */
#define TD_ZREGION (64ull << 20)

/*
 * The compressor threads' queue (struct td_zq): at most this many bytes
 * of full stages wait for them (16 stages of TD_ZCHUNK_BYTES). The
 * reader hands a cpu's stage over when it fills and takes an empty one;
 * with all of them queued it waits for a compressor to free one (the
 * traced program never waits for the reader: its buffer drops or
 * overwrites and counts meanwhile, or waits for room, a command
 * recorded). 16 MiB rather than 64: where the program outruns the
 * compressors (a function_graph recording on two CPUs), the queue fills
 * whatever its size, and each stage is a megabyte the reader's thread
 * faults in and the process frees at its end (a fifth of the reader's
 * CPU time recording sqlite3, and much of the time after the last
 * chunk); and the stages stay within the last-level cache between the
 * copy and the compression.
 */
#define TD_ZQ_BYTES (16u << 20)

struct td_zckpt;

/**
 * struct td_zjob - a job for the compressor: a full stage, or a checkpoint
 * @stage: its pages (a buffer of @stage_pages pages, owned by the job);
 *	NULL for a checkpoint
 * @len: bytes of pages in it
 * @cpu: the cpu they belong to
 * @ckpt: a checkpoint's part prepared by the writer's thread
 *	(td_ckpt7_prepare(), owned by the job), the file assembled when the
 *	chunks queued before it are written
 */
struct td_zjob {
	unsigned char *stage;
	uint64_t len;
	int cpu;
	struct td_zckpt *ckpt;
};

/*
 * The compressor threads of a compressing writer. Chunks are compressed
 * side by side and written one after the other in the order they were
 * queued: on a machine of two CPUs where the traced program keeps one
 * busy, a second compressor takes the time the program leaves (the
 * recorder's compression is most of its CPU time, more than the
 * program's on a function_graph recording), and where the program is
 * done first the two finish the backlog together.
 */
#define TD_ZQ_THREADS 2

struct td_zq;

/**
 * struct td_zworker - one compressor thread
 * @q: its queue
 * @w: its writer
 * @thread: the thread
 * @cctx: its zstd context (the chunks' parameters set once)
 * @zbuf: a chunk's compressed bytes, after its two sizes (@q->zcap)
 */
struct td_zworker {
	struct td_zq *q;
	struct td_writer *w;
	pthread_t thread;
	void *cctx;
	unsigned char *zbuf;
};

/**
 * struct td_zq - the compressor threads of a compressing writer and their
 *	queue (td_zq_start(), td_zq_push(), td_zq_drain(), td_zq_stop())
 * @workers: the compressors, @nr_workers of them started
 * @lock: guards every field below and, while the threads run, the
 *	spools' @fd, @zbytes and @chunks, which only the thread whose turn
 *	it is writes (@turn): the next turn's thread reads them after
 *	taking @lock, and the writer's thread after td_zq_drain(), whose
 *	unlock orders the writes of the last turn before
 * @more: broadcast when a job is queued or @stop set (the threads wait)
 * @room: broadcast when a job is done or its stage freed (td_zq_push()
 *	waits for a free stage, td_zq_drain() for idle threads)
 * @turned: broadcast when @turn moves on (a thread with a job compressed
 *	waits for its turn to write it)
 * @jobs: the queue, a ring of @cap + 1 entries from @head, @nr of them
 *	used: the stages (at most @cap) and at most one checkpoint
 * @ckpt_pending: a checkpoint is queued or being written
 * @free: stages not in use, @nr_free of them
 * @bufs: stages allocated for the queue so far (at most @cap)
 * @taken: jobs taken out of the queue so far: a job's number, in queue
 *	order
 * @turn: the number of the job whose chunk is written (or checkpoint
 *	taken) next: jobs finish in queue order
 * @active: jobs taken out of the queue and not finished
 * @stop: the writer is being freed: the threads end once the queue is
 *	empty
 * @err: 0, or the first error of a chunk (sticky: later jobs are
 *	dropped, every later push and drain returns it); -ECANCELED when
 *	the writer is abandoned
 * @written: bytes of the chunks written
 * @zcap: each thread's @zbuf's size
 */
struct td_zq {
	struct td_zworker workers[TD_ZQ_THREADS];
	unsigned int nr_workers;
	pthread_mutex_t lock;
	pthread_cond_t more;
	pthread_cond_t room;
	pthread_cond_t turned;
	struct td_zjob *jobs;
	unsigned int cap;
	unsigned int head;
	unsigned int nr;
	bool ckpt_pending;
	unsigned char **free;
	unsigned int nr_free;
	unsigned int bufs;
	uint64_t taken;
	uint64_t turn;
	unsigned int active;
	bool stop;
	int err;
	uint64_t written;
	size_t zcap;
};

/**
 * struct td_buf - bytes appended at the end, with a sticky error
 * @p: the bytes
 * @len: bytes used
 * @cap: bytes allocated
 * @err: 0, or -ENOMEM once an append failed (later appends do nothing)
 */
struct td_buf {
	unsigned char *p;
	size_t len;
	size_t cap;
	int err;
};

/**
 * struct td_zckpt - a version 7 checkpoint's part that the writer's thread
 *	prepares (td_ckpt7_prepare()) and the compressor completes and
 *	writes (td_ckpt7_write())
 * @b: the header, the compressed metadata sections
 * @t: the first options section's options, without their end
 * @nr_file: the cpu count of the file
 * @clock: the clock's name, or NULL
 * @hdr_len: bytes of @b before its first section (the file's header,
 *	ending with the offset of the first options section)
 * @sec: where each metadata section starts in @b
 * @final: the last one (td_writer_close()): written in place, the cpus'
 *	data is moved together first and the file cut after its end
 */
struct td_zckpt {
	struct td_buf b;
	struct td_buf t;
	int nr_file;
	char *clock;
	uint64_t hdr_len;
	uint64_t sec[TD_SEC_CMDLINES + 1];
	bool final;
};

struct td_fmt;

/**
 * struct td_spool - the pages of one cpu buffer
 * @fd: the temporary file, -1 until the first page (spooling writers)
 * @pages: pages written to the file (the next one goes at @pages *
 *	page_size from the start of its data)
 * @off: in place: where the cpu's data starts in the output
 * @cap: in place: bytes reserved for it there (the pages, then a hole)
 * @rank: sparse: its place in the writer's @order, -1 before its first
 *	write
 * @zbytes: compressed (td_writer_set_compression()): bytes of its chunks
 *	in @fd, each a u32 compressed size, a u32 size and the data
 * @chunks: compressed: the chunks in @fd
 * @staged: pages in @stage not written yet
 * @stage: pages waiting to be written together (td_writer_stage_pages
 *	of them)
 */
struct td_spool {
	int fd;
	uint64_t pages;
	uint64_t zbytes;
	uint32_t chunks;
	uint64_t off;
	uint64_t cap;
	int rank;
	unsigned int staged;
	unsigned char *stage;
};

/*
 * The two ways a stage of pages written in place reaches the output:
 * through the page cache (@fd) or around it (@dfd, O_DIRECT). Neither is
 * the faster everywhere: a virtual disk here took direct writes at 2.3
 * GB/s while the page cache's copy ran at 512 MB/s, and at another time
 * took them at 250 MB/s while the copy ran at 1.6 GB/s (a function_graph
 * recording of sqlite3, 375 MB, then had its writers wait 1.6 s for the
 * recorder, blocked in its direct writes). So each is timed as it
 * writes, and the faster per byte is taken (td_pick_way()).
 */
enum td_way {
	TD_WAY_CACHE,
	TD_WAY_DIRECT,
	TD_NR_WAYS,
};

/* Bytes a way writes before the ways are compared (four stages). */
#define TD_WAY_PROBE_BYTES (4 * TD_STAGE_BYTES)
/* Every this many stages the slower way writes one, so that a change
 * of the disk's speed (or of the page cache's, once it fills) is seen. */
#define TD_WAY_PROBE_EVERY 32u

/**
 * struct td_ways - how fast the two ways of writing pages were
 * @rate: per way, nanoseconds per byte of its recent writes (each write
 *	moves it a quarter of the way to its own: a way that changed speed
 *	is seen so within a few of its writes)
 * @bytes: per way, the bytes it wrote
 * @turn: stages written since the ways were compared first
 */
struct td_ways {
	double rate[TD_NR_WAYS];
	uint64_t bytes[TD_NR_WAYS];
	unsigned int turn;
};

enum td_way td_pick_way(struct td_ways *ws);
void td_way_account(struct td_ways *ws, enum td_way way, uint64_t ns,
		    uint64_t bytes);

/**
 * struct td_writer - a trace.dat being written
 * @path: the output
 * @tmp_path: "<path>.tmp", where a checkpoint assembles the file
 * @dir: the directory of @path (for the temporary files)
 * @page_size: the sub-buffer size
 * @nr_cpus: cpu buffers
 * @header_page: the header_page text, NULL for the default
 * @header_event: the header_event text, NULL for the default
 * @fmts: the event formats, in the order added
 * @nr_fmts: entries in @fmts
 * @fmt_cap: entries allocated
 * @systems: the systems of the formats but "ftrace", in the order they
 *	first appeared (the order of the file's event systems section)
 * @nr_systems: entries in @systems
 * @kallsyms: the sorted kallsyms text with its end line, or NULL
 * @cmdlines: the saved cmdlines text, or NULL
 * @clock: the trace_clock text ("... [name] ...\n"), or NULL
 * @uname: the UNAME text, or NULL
 * @options: the trace options text, or NULL
 * @protos: the functions' prototypes text, or NULL
 * @spool: per cpu, its pages
 * @pages: pages of all cpus
 * @dirty: something changed since the file was last assembled
 * @fd: the output, open for writing in place; -1 for a spooling writer
 * @dfd: in place: the output opened again with O_DIRECT, for the pages;
 *	-1 where the file system refuses direct I/O
 * @ways: in place with @dfd: the two ways' times (td_pick_way())
 * @hdr_cap: in place: bytes before the first cpu's data (the header, then
 *	a hole it can grow into)
 * @hdr_len: in place: bytes of the header as last written
 * @hdr_prev: in place: those bytes (a checkpoint writes what changed)
 * @hdr_grew: in place: the header outgrew its room after pages were
 *	written (td_write_header()): every later stage's write-back is
 *	started (td_behind_moves())
 * @eof: in place: the size of the output
 * @stage_pages: pages staged per cpu before they are written
 * @written: bytes written to files so far (pages, headers, copies)
 * @nr_cpu_bufs: the cpu buffers that are CPUs; the others are spares,
 *	written as the cpus after them, up to the last spare with pages
 *	(td_file_cpus())
 * @cpustat: per cpu, its CPUSTAT text, or NULL
 * @version: the VERSION text, or NULL
 * @entry_at: per cpu, where its table entry is in the header last built
 * @entry_written: in place: the same in the header last written
 * @sparse: in place by copying (td_can_sparse()) rather than by shifting
 *	blocks (td_can_shift())
 * @reserve: sparse: the first reservation of a cpu (td_flush_cpu())
 * @order: sparse: the cpus in the order of their reservations in the
 *	output, which is the order they first wrote in
 * @nr_placed: sparse: entries in @order
 * @moved: sparse: bytes copied from one place of the output to another
 * @broken: sparse: a move failed after it overwrote the data it moved
 *	(the cpu is shown empty on disk); every later call fails with it
 * @step: test hook called at each step of a move (td_writer_set_step_hook())
 * @step_arg: its argument
 * @zctx: compressed (a version 7 file, td_writer_set_compression()): the
 *	zstd context of the metadata sections, NULL otherwise
 * @zq: compressed: the compressor threads, which compress the pages'
 *	chunks and write them to the spools, or in place to the output
 * @zplace: compressed and written in place (a file system with holes):
 *	each cpu's chunks go straight into a region of the output (@fd)
 *	reserved for them (@spool's @off and @cap, placed at its first
 *	chunk), after a count that a checkpoint updates; a checkpoint
 *	writes the metadata and options sections above every region and
 *	live byte, then points the header at them (td_v7_commit()): the
 *	file reads as of the last checkpoint whatever happens meanwhile.
 *	The compressor thread whose turn it is (struct td_zq) owns the
 *	regions and the fields below; the writer's thread reads them after
 *	td_zq_drain()
 * @zhead: where the cpu data's section header is (after the header)
 * @zckpt: a checkpoint was queued (the writer's thread's own)
 * @zlow: the first region (the page after @zhead's section header, of
 *	@reserve bytes) is taken (td_v7_place_chunk())
 * @zend: the end of the highest region (the first region's end before
 *	any is placed above it)
 * @ztail: where the live checkpoint's sections start, @ztail_len their
 *	bytes (0: none written yet)
 */
struct td_writer {
	char *path;
	char *tmp_path;
	char *dir;
	unsigned int page_size;
	int nr_cpus;
	char *header_page;
	char *header_event;
	struct td_fmt *fmts;
	size_t nr_fmts;
	size_t fmt_cap;
	char **systems;
	size_t nr_systems;
	char *kallsyms;
	char *cmdlines;
	char *clock;
	char *uname;
	char *options;
	char *protos;
	struct td_spool *spool;
	uint64_t pages;
	bool dirty;
	int fd;
	int dfd;
	struct td_ways ways;
	uint64_t hdr_cap;
	uint64_t hdr_len;
	unsigned char *hdr_prev;
	bool hdr_grew;
	uint64_t eof;
	unsigned int stage_pages;
	uint64_t written;
	int nr_cpu_bufs;
	char **cpustat;
	char *version;
	uint64_t *entry_at;
	uint64_t *entry_written;
	bool sparse;
	uint64_t reserve;
	int *order;
	int nr_placed;
	uint64_t moved;
	int broken;
	void (*step)(const char *what, void *arg);
	void *step_arg;
	void *zctx;
	struct td_zq *zq;
	bool zplace;
	bool zckpt;
	bool zlow;
	uint64_t zhead;
	uint64_t zend;
	uint64_t ztail;
	uint64_t ztail_len;
};

/* tracedat_store.c: the storage strategies (documented there) */
int td_write_all(int fd, const void *buf, size_t len, uint64_t off);
int td_copy_range(int in, uint64_t ioff, int out, uint64_t ooff,
		  uint64_t len);
int td_move_range(int fd, uint64_t src, uint64_t dst, uint64_t len,
		  bool *intact);
bool td_can_shift(int fd, unsigned int page_size);
bool td_can_sparse(int fd);
uint64_t td_sparse_reserve(int nr_cpus, unsigned int page_size);
void td_step(struct td_writer *w, const char *what);
int td_shift(struct td_writer *w, int cpu, uint64_t len);
uint64_t td_header_room(const struct td_writer *w, uint64_t len);
int td_hide_after(struct td_writer *w, int cpu);
int td_open_direct(int fd);
int td_flush_cpu(struct td_writer *w, int cpu);
int td_flush(struct td_writer *w);
int td_compact(struct td_writer *w);
bool td_behind_moves(const struct td_writer *w, int cpu);
int td_compact_sparse(struct td_writer *w);
int td_zq_start(struct td_writer *w);
int td_zq_drain(struct td_writer *w);
void td_zq_stop(struct td_writer *w, bool discard);
uint64_t td_zq_written(struct td_writer *w);
int td_zq_checkpoint(struct td_writer *w, bool wait, bool final);
int td_v7_place_chunk(struct td_writer *w, int cpu, uint64_t need,
		      bool full, uint64_t *bytes);

/* tracedat.c: a version 7 file's assembly, in two parts */
int td_ckpt7_prepare(struct td_writer *w, struct td_zckpt *c);
int td_ckpt7_write(struct td_writer *w, struct td_zckpt *c,
		   uint64_t *written);
void td_ckpt7_free(struct td_zckpt *c);

/* tracedat.c: the header, built and written over the old one */
int td_build_header(struct td_writer *w, struct td_buf *b);
int td_write_header(struct td_writer *w);

#endif /* TRACEDAT_INT_H */
