// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_attach.c - fuzz target for ringbuf_attach_fd() and every read path
 * of an attached view.
 *
 * A shared buffer's file may come from another process, or be left by a
 * crashed one, so an attached reader must survive any bytes in it: attach
 * refuses what it can see is inconsistent, and the reader paths
 * bound-check what they read from the mapping. This target feeds it:
 *
 *  raw mode (mode byte bits 0-1 == 0): the rest of the input is the whole
 *	file, as it is, except the words of the reader locks (see below);
 *  patch mode (1..3): a valid file (base image 0..2, made once in this
 *	process by ringbuf_create(RINGBUF_FL_MEMFD), some events written,
 *	some consumed, some overwritten, and copied out of its memfd) gets
 *	the six-byte patch operations of the input (fuzz.h) applied to
 *	named fields of the layout (struct rb_meta, rb_cpu_meta,
 *	rb_page_ctl, the sub-buffer headers, records, any byte). "Late"
 *	operations change the live file after the attach, between drain
 *	phases, the way a writer (or a hostile process) changes it under a
 *	reader; "mid-copy" ones (RBFZ_OP_MIDCOPY) inside a phase, at its
 *	first record that a reader checked and has not copied yet, and
 *	"mid-swap" ones (RBFZ_OP_MIDSWAP) at its first reader page swap,
 *	the reader page spliced in and the swap's cmpxchg not yet made.
 *
 * The file is written to a memfd and attached; if attach succeeds the
 * view is drained every way, in one of eight orders: the iterator (read
 * start, peek, advance, reset, empty, dropped), per-cpu peek and consume,
 * ringbuf_read_page (whole and partial pages, "full" or not), the merged
 * ringbuf_consume_next, plus every counter, ringbuf_empty and
 * ringbuf_oldest_event_ts, and the calls a view must refuse (write,
 * reserve, resize, reset, swap) and ringbuf_wait() with a zero timeout.
 * Every loop is bounded.
 *
 * Checks beyond "no crash, no hang, no leak" (ASan/UBSan):
 *  - an event's payload (ringbuf_event_data, ringbuf_event_length) lies
 *    inside one sub-buffer, and is read in full;
 *  - a page from ringbuf_read_page has a commit inside the page;
 *  - one pass of an iterator returns no more events than the cpu buffer
 *    can hold (without interleaved consumes);
 *  - a view never accepts a write, and a reset does not empty it;
 *  - no descriptor stays open after a refused attach or ringbuf_free;
 *  - an unpatched base image reads without any library warning and its
 *    pages decode (tests/harness/rbdecode.h).
 * A failed check prints "fuzz_attach: PROBLEM: ..." and aborts.
 *
 * The reader locks: the owner words of struct rb_cpu_lock are not taken
 * from the input (raw mode puts a free lock over them): a word naming a
 * live process (this one's parent, say) makes a consuming reader wait
 * its bounded 20 ms per call and give up, which only slows fuzzing down.
 * Set RB_FUZZ_LOCKS=1 to fuzz them anyway. Patch mode may still write
 * a garbage owner (a holder that is gone: the next reader takes the lock
 * over, repairs an interrupted swap from swap_head and applies the
 * progress record adv_*), and fuzzes those fields freely.
 *
 * A cpu buffer whose file says a writer is in the middle of moving a page
 * (an UPDATE link, a write index past the page end) makes the reader wait
 * a bounded time (about two seconds) and return nothing, which is the
 * library's answer to a preempted writer. Short sleeps are made free
 * here (see nanosleep() below) so such inputs do not slow fuzzing down;
 * where they are not (ThreadSanitizer), a call that takes over 250 ms
 * marks the cpu buffer stuck, and the target stops calling the consuming
 * paths on it (rbfz_stats.stuck counts them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/futex.h>

#include <ringbuf/ringbuf.h>
#include <ringbuf/ringbuf-private.h>

#include "internal.h"
#include "rbdecode.h"
#include "fuzz.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* At most this many events per read loop. */
#define RBFZ_MAX_EVENTS 100000u
/* At most this many patch operations per input. */
#define RBFZ_MAX_OPS 128u
/* A call slower than this marks its cpu buffer stuck (nanoseconds). */
#define RBFZ_STUCK_NS 250000000ull
/* Cpu buffers of a base image (and the most a view is drained on). */
#define RBFZ_NR_CPUS 2
#define RBFZ_MAX_CPUS 64

struct rbfz_stats rbfz_stats;
int rbfz_report_fd = 2;

/* ------------------------------------------------------------------ */
/* Reporting                                                           */

static void problem(const char *fmt, ...) __attribute__((noreturn,
							 format(printf, 1, 2)));

static void problem(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dprintf(rbfz_report_fd, "fuzz_attach: PROBLEM: %s\n", msg);
	abort();
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The library waits for a writer it believes preempted (an UPDATE link, a
 * write index past the page end) with short sleeps, about 40000 of them
 * before it gives up. A corrupt file makes every such read wait that
 * long. The library is linked statically into this program, so this
 * definition replaces the C library's for it: sleeps under a millisecond
 * return at once (the waits stay bounded by their count, and finish in
 * microseconds), longer ones sleep. Not under ThreadSanitizer, which
 * intercepts nanosleep itself.
 */
#ifndef RB_TSAN
int nanosleep(const struct timespec *req, struct timespec *rem)
{
	int err;

	if (req && req->tv_sec == 0 && req->tv_nsec >= 0 &&
	    req->tv_nsec < 1000000)
		return 0;
	err = clock_nanosleep(CLOCK_MONOTONIC, 0, req, rem);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
#endif

/* ------------------------------------------------------------------ */
/* The geometry of a file (read from a base image's header)            */

struct geom {
	uint64_t size;
	uint32_t nr_cpus, total_pages, subbuf, bsize;
	uint64_t cpu_meta_off, cpu_meta_size, lock_off, lock_size;
	uint64_t page_ctl_off, data_off;
	uint32_t nr_pages[RBFZ_NR_CPUS], first_page[RBFZ_NR_CPUS];
};

static void geom_read(const uint8_t *img, size_t size, struct geom *g)
{
	const struct rb_meta *m = (const struct rb_meta *)img;

	memset(g, 0, sizeof(*g));
	g->size = size;
	g->nr_cpus = m->nr_cpus;
	g->total_pages = m->total_pages;
	g->subbuf = m->subbuf_size;
	g->bsize = m->subbuf_size - RINGBUF_PAGE_HDR_SIZE;
	g->cpu_meta_off = m->cpu_meta_off;
	g->cpu_meta_size = m->cpu_meta_size;
	g->lock_off = m->lock_off;
	g->lock_size = m->lock_size;
	g->page_ctl_off = m->page_ctl_off;
	g->data_off = m->data_off;
	for (uint32_t c = 0; c < g->nr_cpus && c < RBFZ_NR_CPUS; c++) {
		const struct rb_cpu_meta *cm =
			(const struct rb_cpu_meta *)(img + g->cpu_meta_off +
						     c * g->cpu_meta_size);

		g->nr_pages[c] = cm->nr_pages;
		g->first_page[c] = cm->first_page;
	}
}

/* Offset of the mutex of cpu @c's reader lock. */
static uint64_t mutex_off(const struct geom *g, uint32_t c)
{
	return g->lock_off + c * g->lock_size +
	       offsetof(struct rb_cpu_lock, lock);
}

/* Whether [off, off + n) touches a reader lock's mutex. */
static bool touches_mutex(const struct geom *g, uint64_t off, uint64_t n)
{
	for (uint32_t c = 0; c < g->nr_cpus; c++) {
		uint64_t m = mutex_off(g, c);

		if (off < m + sizeof(pthread_mutex_t) && m < off + n)
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Base images                                                          */

struct base {
	uint8_t *img;
	size_t size;
	struct geom g;
};

static struct base bases[3];
static uint8_t canon_mutex[sizeof(pthread_mutex_t)];
static bool canon_ok;

static void write_events(struct ringbuf *rb, int cpu, unsigned int n,
			 unsigned int seed)
{
	static const unsigned int sizes[] = { 0, 4, 8, 12, 20, 100, 112,
					      116, 200, 500, 1000, 33 };
	unsigned char buf[1024];

	ringbuf_test_set_cpu(cpu);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int len = sizes[(i + seed) % ARRAY_SIZE(sizes)];

		for (unsigned int b = 0; b < len; b++)
			buf[b] = (unsigned char)(i * 7 + b + seed);
		if (i % 9 == 4) {
			/* A discarded event: padding with a length. */
			struct ringbuf_event *ev = ringbuf_lock_reserve(rb, len);

			if (ev)
				ringbuf_discard_commit(rb, ev);
			continue;
		}
		(void)ringbuf_write(rb, len, buf);
	}
	ringbuf_test_set_cpu(-1);
}

static void consume_some(struct ringbuf *rb, int cpu, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (!ringbuf_consume(rb, cpu, NULL, NULL))
			break;
}

static void build_base(unsigned int which)
{
	struct base *b = &bases[which];
	struct ringbuf *rb;
	struct stat st;
	void *page;
	int fd;

	if (which == 0) {
		/* Overwrite mode, 4 KiB sub-buffers, two pages per cpu:
		 * wrapped, partly consumed, written again. */
		RINGBUF_OPTS(o, .size = 2 * 4080, .nr_cpus = RBFZ_NR_CPUS,
			     .flags = RINGBUF_FL_OVERWRITE | RINGBUF_FL_MEMFD,
			     .spare_buffers = RINGBUF_NO_SPARES);
		rb = ringbuf_create(&o);
		if (!rb)
			problem("ringbuf_create (base 0): %s", strerror(errno));
		write_events(rb, 0, 60, 1);
		consume_some(rb, 0, 5);
		write_events(rb, 0, 7, 2);
		ringbuf_set_time_stamp_abs(rb, true);
		write_events(rb, 1, 4, 3);
		ringbuf_set_time_stamp_abs(rb, false);
		write_events(rb, 1, 9, 4);
	} else if (which == 1) {
		/* Producer/consumer, three pages per cpu: cpu 0 full (with
		 * drops), one page taken by read_page; cpu 1 partly read. */
		RINGBUF_OPTS(o, .size = 3 * 4080, .nr_cpus = RBFZ_NR_CPUS,
			     .flags = RINGBUF_FL_MEMFD,
			     .spare_buffers = RINGBUF_NO_SPARES);
		rb = ringbuf_create(&o);
		if (!rb)
			problem("ringbuf_create (base 1): %s", strerror(errno));
		write_events(rb, 0, 80, 5);
		page = ringbuf_alloc_read_page(rb, 0);
		if (page) {
			(void)ringbuf_read_page(rb, page,
						ringbuf_subbuf_size(rb), 0, 1);
			ringbuf_free_read_page(rb, 0, page);
		}
		write_events(rb, 1, 10, 6);
		consume_some(rb, 1, 3);
		page = ringbuf_alloc_read_page(rb, 1);
		if (page) {
			(void)ringbuf_read_page(rb, page, 200, 1, 0);
			ringbuf_free_read_page(rb, 1, page);
		}
	} else {
		/* 8 KiB sub-buffers, overwrite: a time extend (a pause over
		 * 2^27 ns), absolute stamps, several wraps on cpu 1. */
		RINGBUF_OPTS(o, .size = 2 * 8176, .nr_cpus = RBFZ_NR_CPUS,
			     .subbuf_order = 1,
			     .flags = RINGBUF_FL_OVERWRITE | RINGBUF_FL_MEMFD,
			     .spare_buffers = RINGBUF_NO_SPARES);
		struct timespec pause = { 0, 140 * 1000 * 1000 };

		rb = ringbuf_create(&o);
		if (!rb)
			problem("ringbuf_create (base 2): %s", strerror(errno));
		write_events(rb, 0, 5, 7);
		nanosleep(&pause, NULL);
		write_events(rb, 0, 5, 8);
		ringbuf_set_time_stamp_abs(rb, true);
		write_events(rb, 0, 3, 9);
		ringbuf_set_time_stamp_abs(rb, false);
		write_events(rb, 1, 200, 10);
		consume_some(rb, 1, 2);
	}

	fd = ringbuf_fd(rb);
	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0)
		problem("base %u: no memfd", which);
	b->size = (size_t)st.st_size;
	b->img = malloc(b->size);
	if (!b->img || pread(fd, b->img, b->size, 0) != (ssize_t)b->size)
		problem("base %u: cannot copy the memfd", which);
	ringbuf_free(rb);
	geom_read(b->img, b->size, &b->g);
	if (b->g.nr_cpus != RBFZ_NR_CPUS)
		problem("base %u: %u cpu buffers", which, b->g.nr_cpus);
	if (!canon_ok) {
		/* An unlocked robust process-shared mutex, as made by the
		 * creator and left by the readers. */
		memcpy(canon_mutex, b->img + mutex_off(&b->g, 0),
		       sizeof(canon_mutex));
		canon_ok = true;
	}
}

const uint8_t *rbfz_base_image(unsigned int which, size_t *size)
{
	if (which >= ARRAY_SIZE(bases))
		return NULL;
	if (!bases[which].img)
		build_base(which);
	*size = bases[which].size;
	return bases[which].img;
}

/* ------------------------------------------------------------------ */
/* Patching                                                             */

/* Where patches go: a buffer (before attach) or the memfd (after). */
struct tgt {
	uint8_t *mem;
	int fd;
	uint64_t size;
};

static bool tgt_read(const struct tgt *t, uint64_t off, void *buf, size_t n)
{
	if (off > t->size || n > t->size - off)
		return false;
	if (t->mem) {
		memcpy(buf, t->mem + off, n);
		return true;
	}
	return pread(t->fd, buf, n, (off_t)off) == (ssize_t)n;
}

static void tgt_write(const struct tgt *t, uint64_t off, const void *buf,
		      size_t n)
{
	if (off > t->size || n > t->size - off)
		return;
	if (t->mem)
		memcpy(t->mem + off, buf, n);
	else if (pwrite(t->fd, buf, n, (off_t)off) != (ssize_t)n)
		problem("pwrite to the memfd failed: %s", strerror(errno));
}

struct field {
	uint32_t off;
	uint32_t size;
	const char *name;
};
#define FLD(type, member)                                                 \
	{ (uint32_t)offsetof(type, member),                               \
	  (uint32_t)sizeof(((type *)0)->member), #member }

static const struct field meta_fields[] = {
	FLD(struct rb_meta, magic),	    FLD(struct rb_meta, version),
	FLD(struct rb_meta, meta_struct_len),
	FLD(struct rb_meta, subbuf_size),   FLD(struct rb_meta, nr_cpus),
	FLD(struct rb_meta, nr_cpu_bufs),   FLD(struct rb_meta, total_pages),
	FLD(struct rb_meta, clock),	    FLD(struct rb_meta, model),
	FLD(struct rb_meta, cpu_meta_size), FLD(struct rb_meta, cpu_meta_off),
	FLD(struct rb_meta, page_ctl_off),  FLD(struct rb_meta, data_off),
	FLD(struct rb_meta, map_size),	    FLD(struct rb_meta, lock_off),
	FLD(struct rb_meta, lock_size),	    FLD(struct rb_meta, flags),
	FLD(struct rb_meta, creator_pid),   FLD(struct rb_meta, waiters_all),
	FLD(struct rb_meta, wake_seq_all),  FLD(struct rb_meta, layout_gen),
	FLD(struct rb_meta, writer_wait_ms),
};

static const struct field cpu_fields[] = {
	FLD(struct rb_cpu_meta, nr_pages),
	FLD(struct rb_cpu_meta, first_page),
	FLD(struct rb_cpu_meta, tail_page),
	FLD(struct rb_cpu_meta, commit_page),
	FLD(struct rb_cpu_meta, before_stamp),
	FLD(struct rb_cpu_meta, write_stamp),
	FLD(struct rb_cpu_meta, entries),
	FLD(struct rb_cpu_meta, entries_bytes),
	FLD(struct rb_cpu_meta, overrun),
	FLD(struct rb_cpu_meta, commit_overrun),
	FLD(struct rb_cpu_meta, pages_touched),
	FLD(struct rb_cpu_meta, pages_lost),
	FLD(struct rb_cpu_meta, dropped_events),
	FLD(struct rb_cpu_meta, waiters),
	FLD(struct rb_cpu_meta, wait_full),
	FLD(struct rb_cpu_meta, wake_seq),
	FLD(struct rb_cpu_meta, reader_page),
	FLD(struct rb_cpu_meta, head_page),
	FLD(struct rb_cpu_meta, read),
	FLD(struct rb_cpu_meta, read_bytes),
	FLD(struct rb_cpu_meta, last_overrun),
	FLD(struct rb_cpu_meta, lost_events),
	FLD(struct rb_cpu_meta, read_stamp),
	FLD(struct rb_cpu_meta, pages_read),
};

static const struct field ctl_fields[] = {
	FLD(struct rb_page_ctl, next),	   FLD(struct rb_page_ctl, prev),
	FLD(struct rb_page_ctl, real_end), FLD(struct rb_page_ctl, id),
	FLD(struct rb_page_ctl, write),	   FLD(struct rb_page_ctl, entries),
	FLD(struct rb_page_ctl, read),
};

static const struct field hdr_fields[] = {
	FLD(struct rb_data_page, time_stamp),
	FLD(struct rb_data_page, commit),
};

static const struct field lock_fields[] = {
	FLD(struct rb_cpu_lock, swap_head), FLD(struct rb_cpu_lock, adv_valid),
	FLD(struct rb_cpu_lock, adv_page),  FLD(struct rb_cpu_lock, adv_to),
	FLD(struct rb_cpu_lock, adv_read),  FLD(struct rb_cpu_lock, adv_bytes),
	FLD(struct rb_cpu_lock, adv_stamp),
};

int rbfz_field(unsigned int kind, const char *name)
{
	const struct field *f;
	size_t n;

	switch (kind) {
	case RBFZ_OP_META:
		f = meta_fields;
		n = ARRAY_SIZE(meta_fields);
		break;
	case RBFZ_OP_CPU_META:
		f = cpu_fields;
		n = ARRAY_SIZE(cpu_fields);
		break;
	case RBFZ_OP_PAGE_CTL:
		f = ctl_fields;
		n = ARRAY_SIZE(ctl_fields);
		break;
	case RBFZ_OP_PAGE_HDR:
		f = hdr_fields;
		n = ARRAY_SIZE(hdr_fields);
		break;
	case RBFZ_OP_LOCK:
		f = lock_fields;
		n = ARRAY_SIZE(lock_fields);
		break;
	default:
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return (int)i;
	return -1;
}

static uint64_t interesting(unsigned int i, const struct geom *g)
{
	const uint64_t n = g->nr_pages[0], bs = g->bsize;
	const uint64_t t[] = {
		0, 1, 2, 3, 4, 7, 8, 12, 16, 112, 116, n, n + 1, n + 2,
		bs - 8, bs - 4, bs, bs + 1, bs + 8, g->subbuf, 2 * g->subbuf,
		RB_WRITE_MASK, RB_WRITE_INTCNT, RB_WRITE_INTCNT | 8,
		RINGBUF_COMMIT_MASK, RINGBUF_COMMIT_MASK + 1,
		RINGBUF_MISSED_EVENTS | 16,
		RINGBUF_MISSED_EVENTS | RINGBUF_MISSED_STORED | 16,
		0x7fffffff, 0x80000000, 0xfffffffc, 0xffffffff, 1ull << 32,
		(1ull << 59) - 1, 1ull << 63, UINT64_MAX, RB_NO_SWAP,
		RB_META_MAGIC, RB_META_VERSION + 1, g->size, g->size + 4096,
	};

	return t[i % ARRAY_SIZE(t)];
}

static uint64_t ld(const uint8_t *p, uint32_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size < 8 ? size : 8); /* little endian */
	return v;
}

/* Change the @size-byte field at @off as @how says. */
static void patch_field(const struct tgt *t, const struct geom *g,
			uint64_t off, uint32_t size, unsigned int how,
			unsigned int v0, unsigned int v1)
{
	uint8_t buf[8];
	uint64_t v, n = g->nr_pages[0];

	if (size > 8 || !tgt_read(t, off, buf, size))
		return;
	v = ld(buf, size);
	switch (how & 7) {
	case RBFZ_HOW_INTERESTING:
		v = interesting(v0, g);
		break;
	case RBFZ_HOW_XOR:
		v ^= v0 | v1 << 8;
		break;
	case RBFZ_HOW_ADD:
		v += (uint64_t)(int64_t)(int8_t)v0;
		break;
	case RBFZ_HOW_SET:
		v = v0 | v1 << 8;
		break;
	case RBFZ_HOW_LINK:
		v = rb_link(v0 % (uint32_t)(n + 3), v1 & RB_FLAG_MASK);
		break;
	case RBFZ_HOW_FLIP:
		v ^= 1ull << (v0 % (size * 8));
		break;
	case RBFZ_HOW_HIGH:
		v = (uint64_t)v0 << 24 | v1;
		break;
	case RBFZ_HOW_NOT:
		v = ~v;
		break;
	}
	memcpy(buf, &v, size);
	tgt_write(t, off, buf, size);
}

/* The 32-bit word of a record at @off, changed as @how says. */
static void patch_record_word(const struct tgt *t, const struct geom *g,
			      uint64_t off, unsigned int how, unsigned int v0,
			      unsigned int v1)
{
	uint32_t w;

	if (!tgt_read(t, off, &w, 4))
		return;
	switch (how & 7) {
	case 0: /* type_len */
		w = (w & ~31u) | (v0 & 31u);
		break;
	case 1: /* time_delta */
		w = (w & 31u) | ((v0 | v1 << 8 | v0 << 16) << 5);
		break;
	case 2:
		w = (uint32_t)interesting(v0, g);
		break;
	case 3:
		w ^= v0 | v1 << 8;
		break;
	case 4: /* a length word */
		w = v0 | v1 << 8;
		break;
	case 5: /* a whole header */
		w = (v1 & 31u) | v0 << 5;
		break;
	case 6:
		w = 0;
		break;
	case 7:
		w = ~w;
		break;
	}
	tgt_write(t, off, &w, 4);
}

/* One 32-bit word of a record area. */
static void patch_record(const struct tgt *t, const struct geom *g,
			 uint32_t page, unsigned int word, unsigned int how,
			 unsigned int v0, unsigned int v1)
{
	uint64_t page_off = g->data_off + (uint64_t)page * g->subbuf;
	uint8_t hdr[8];
	uint32_t commit = g->bsize;

	if (tgt_read(t, page_off + 8, hdr, 8)) {
		commit = (uint32_t)(ld(hdr, 8) & RINGBUF_COMMIT_MASK);
		if (commit < 4 || commit > g->bsize)
			commit = g->bsize;
	}
	patch_record_word(t, g,
			  page_off + RINGBUF_PAGE_HDR_SIZE +
				  (word % (commit / 4)) * 4,
			  how, v0, v1);
}

static void apply_op(const struct tgt *t, const struct geom *g,
		     const uint8_t *op)
{
	unsigned int kind = (op[0] & 7u) % RBFZ_OP_NR, sel = op[1],
		     idx = op[2], how = op[3], v0 = op[4], v1 = op[5];
	const struct field *f;
	uint64_t off;

	switch (kind) {
	case RBFZ_OP_META:
		f = &meta_fields[sel % ARRAY_SIZE(meta_fields)];
		patch_field(t, g, f->off, f->size, how, v0, v1);
		break;
	case RBFZ_OP_CPU_META:
		f = &cpu_fields[sel % ARRAY_SIZE(cpu_fields)];
		off = g->cpu_meta_off + (idx % g->nr_cpus) * g->cpu_meta_size;
		patch_field(t, g, off + f->off, f->size, how, v0, v1);
		break;
	case RBFZ_OP_PAGE_CTL:
		f = &ctl_fields[sel % ARRAY_SIZE(ctl_fields)];
		off = g->page_ctl_off +
		      (idx % g->total_pages) * sizeof(struct rb_page_ctl);
		patch_field(t, g, off + f->off, f->size, how, v0, v1);
		break;
	case RBFZ_OP_PAGE_HDR:
		f = &hdr_fields[sel & 1];
		off = g->data_off + (uint64_t)(idx % g->total_pages) * g->subbuf;
		patch_field(t, g, off + f->off, f->size, how, v0, v1);
		break;
	case RBFZ_OP_RECORD:
		patch_record(t, g, idx % g->total_pages, sel | (how >> 3) << 8,
			     how, v0, v1);
		break;
	case RBFZ_OP_BYTE: {
		uint8_t b;

		off = (sel | idx << 8 | v0 << 16) % g->size;
		if (touches_mutex(g, off, 1) || !tgt_read(t, off, &b, 1))
			break;
		b ^= v1 ? (uint8_t)v1 : 0xff;
		tgt_write(t, off, &b, 1);
		break;
	}
	case RBFZ_OP_LOCK: {
		uint32_t c = idx % g->nr_cpus;

#if defined(__GLIBC__)
		if (sel & 1) {
			/* The owner died: the next lock gets EOWNERDEAD. */
			int word = FUTEX_OWNER_DIED;

			tgt_write(t, mutex_off(g, c) +
					     offsetof(pthread_mutex_t,
						      __data.__lock),
				  &word, sizeof(word));
		}
#endif
		if (sel & 2) {
			f = &lock_fields[(sel >> 2) % ARRAY_SIZE(lock_fields)];
			patch_field(t, g,
				    g->lock_off + c * g->lock_size + f->off,
				    f->size, how, v0, v1);
		}
		break;
	}
	}
}

/* Raw mode: an unlocked lock over every mutex the header points at. */
static void sanitize_locks(uint8_t *file, size_t size)
{
	const struct rb_meta *m = (const struct rb_meta *)file;
	uint64_t lock_off, lock_size, nr;

	if (size < sizeof(*m) || !canon_ok)
		return;
	lock_off = m->lock_off;
	lock_size = m->lock_size;
	nr = m->nr_cpus;
	if (lock_size < sizeof(struct rb_cpu_lock) || nr > 8192 ||
	    lock_off > size || nr * lock_size > size - lock_off)
		return;
	for (uint64_t c = 0; c < nr; c++)
		memcpy(file + lock_off + c * lock_size +
			       offsetof(struct rb_cpu_lock, lock),
		       canon_mutex, sizeof(canon_mutex));
}

/* ------------------------------------------------------------------ */
/* Draining a view                                                      */

enum { PH_ITER, PH_CONSUME, PH_PAGE, PH_MERGE, PH_NR };

static const uint8_t orders[8][PH_NR] = {
	{ PH_ITER, PH_CONSUME, PH_PAGE, PH_MERGE },
	{ PH_MERGE, PH_ITER, PH_CONSUME, PH_PAGE },
	{ PH_PAGE, PH_ITER, PH_MERGE, PH_CONSUME },
	{ PH_CONSUME, PH_MERGE, PH_ITER, PH_PAGE },
	{ PH_ITER, PH_PAGE, PH_CONSUME, PH_MERGE },
	{ PH_MERGE, PH_PAGE, PH_CONSUME, PH_ITER },
	{ PH_PAGE, PH_CONSUME, PH_MERGE, PH_ITER },
	{ PH_CONSUME, PH_ITER, PH_PAGE, PH_MERGE },
};

static const char *const phase_names[PH_NR] = {
	[PH_ITER] = "iterator", [PH_CONSUME] = "peek/consume",
	[PH_PAGE] = "read_page", [PH_MERGE] = "consume_next",
};

struct drain {
	struct ringbuf *rb;
	int nr_cpus;
	uint32_t subbuf, bsize;
	bool pristine, interleave;
	bool stuck[RBFZ_MAX_CPUS];
	bool merge_stuck;
	uint64_t sum; /* of every payload byte, so that all are read */
	struct rbd_page *dec;
};

/*
 * Known library issues that RB_FUZZ_KNOWN (a comma-separated list) asks
 * the checks to count (rbfz_stats.known) instead of aborting on, so that
 * fuzzing can go past them until they are fixed:
 *  event_length	a long-form data record (type_len 0) whose length
 *			word is under 4 is returned, and
 *			ringbuf_event_length() says 2^32 - 4 + word bytes
 *  late		page ids changed in the file after the attach are
 *			not all checked again by the readers: the late
 *			operations are left out
 *  iter_loop		an iterator that never reaches the commit page (a
 *			commit page id out of range, set after the attach)
 *			goes round the ring for ever
 */
#define KNOWN_EVENT_LENGTH 1u
#define KNOWN_LATE 2u
#define KNOWN_ITER_LOOP 4u
static unsigned int g_known;

static void mark_stuck(struct drain *d, int cpu, uint64_t t0)
{
	if (now_ns() - t0 < RBFZ_STUCK_NS)
		return;
	if (cpu >= 0 && cpu < RBFZ_MAX_CPUS && !d->stuck[cpu]) {
		d->stuck[cpu] = true;
		rbfz_stats.stuck++;
	}
	d->merge_stuck = true;
}

static bool stuck(struct drain *d, int cpu)
{
	return d->merge_stuck || cpu >= RBFZ_MAX_CPUS || d->stuck[cpu];
}

/* An event from peek/consume/the iterator: its payload is inside one
 * sub-buffer (a data record holds its header and, for the long form, a
 * length word) and is read in full. */
static void check_event(struct drain *d, struct ringbuf_event *ev,
			const char *path)
{
	unsigned int len = ringbuf_event_length(ev);
	const unsigned char *p = ringbuf_event_data(ev);
	size_t head = (size_t)(p - (const unsigned char *)ev);

	if (head > 2 * RINGBUF_EVENT_HDR_SIZE + 8)
		problem("%s returned an event whose payload starts at +%zu",
			path, head);
	if (len > d->bsize - head && (g_known & KNOWN_EVENT_LENGTH)) {
		rbfz_stats.known++;
		len = 0;
	}
	if (len > d->bsize - head)
		problem("%s returned an event of type_len %u whose payload "
			"(%u bytes at +%zu) does not fit in a sub-buffer "
			"(%u data bytes)",
			path, ev->type_len, len, head, d->bsize);
	for (unsigned int i = 0; i < len; i++)
		d->sum += p[i];
	rbfz_stats.events++;
}

static void counters(struct drain *d)
{
	struct ringbuf *rb = d->rb;

	/* Never blocks with a zero timeout, whatever the file says. */
	d->sum += (uint64_t)ringbuf_wait(rb, RINGBUF_ALL_CPUS, 0, 0);
	for (int c = 0; c < d->nr_cpus && c < 4; c++)
		d->sum += (uint64_t)ringbuf_wait(rb, c, c * 50, 0);

	d->sum += ringbuf_entries(rb) + ringbuf_overruns(rb) +
		  ringbuf_empty(rb);
	for (int c = 0; c < d->nr_cpus; c++) {
		d->sum += ringbuf_entries_cpu(rb, c) +
			  ringbuf_overrun_cpu(rb, c) +
			  ringbuf_commit_overrun_cpu(rb, c) +
			  ringbuf_dropped_events_cpu(rb, c) +
			  ringbuf_read_events_cpu(rb, c) +
			  ringbuf_bytes_cpu(rb, c) + ringbuf_size(rb, c) +
			  ringbuf_torn_events_cpu(rb, c) +
			  ringbuf_empty_cpu(rb, c) +
			  ringbuf_oldest_event_ts(rb, c);
	}
}

static void phase_iter(struct drain *d)
{
	for (int c = 0; c < d->nr_cpus; c++) {
		struct ringbuf_iter *it = ringbuf_read_start(d->rb, c);
		unsigned int dropped = 0;
		struct ringbuf_event *ev;
		/* Records the cpu buffer can hold: one pass of the iterator
		 * (between restarts) returns no more events than that. */
		uint64_t cap = (ringbuf_size(d->rb, c) / d->subbuf + 1) *
			       (d->bsize / RB_EVNT_MIN_SIZE + 1), pass = 0;
		uint64_t ts;

		if (!it)
			continue;
		for (unsigned int i = 0; i < RBFZ_MAX_EVENTS; i++) {
			ev = ringbuf_iter_peek(it, &ts);
			if (ringbuf_iter_dropped(it)) {
				pass = 0;
				if (++dropped > 16)
					break;
			}
			if (!ev)
				break;
			if (++pass > cap && !d->interleave) {
				if (!(g_known & KNOWN_ITER_LOOP))
					problem("the iterator of cpu buffer %d "
						"returned %llu events without "
						"a restart; it holds at most "
						"%llu",
						c, (unsigned long long)pass,
						(unsigned long long)cap);
				rbfz_stats.known++;
				break;
			}
			check_event(d, ev, "ringbuf_iter_peek");
			ringbuf_iter_advance(it);
			if (d->interleave && i % 5 == 2 && !stuck(d, c)) {
				uint64_t t0 = now_ns();

				ev = ringbuf_consume(d->rb, c, NULL, NULL);
				mark_stuck(d, c, t0);
				if (ev)
					check_event(d, ev, "ringbuf_consume");
			}
		}
		d->sum += ringbuf_iter_empty(it);
		ringbuf_iter_reset(it);
		ev = ringbuf_iter_peek(it, NULL);
		if (ev)
			check_event(d, ev, "ringbuf_iter_peek");
		ringbuf_read_finish(it);
	}
}

static void phase_consume(struct drain *d)
{
	for (int c = 0; c < d->nr_cpus; c++) {
		for (unsigned int i = 0; i < RBFZ_MAX_EVENTS && !stuck(d, c);
		     i++) {
			unsigned long lost = 0;
			struct ringbuf_event *ev;
			uint64_t ts = 0, t0 = now_ns();

			ev = ringbuf_peek(d->rb, c, &ts, &lost);
			mark_stuck(d, c, t0);
			if (!ev)
				break;
			check_event(d, ev, "ringbuf_peek");
			t0 = now_ns();
			ev = ringbuf_consume(d->rb, c, &ts, &lost);
			mark_stuck(d, c, t0);
			if (!ev)
				break;
			check_event(d, ev, "ringbuf_consume");
			d->sum += ts + lost;
		}
	}
}

static void check_page(struct drain *d, const struct ringbuf_data_page *pg,
		       size_t len)
{
	uint64_t commit = pg->commit & RINGBUF_COMMIT_MASK;
	char err[160];

	if (commit > d->bsize || commit > len - RINGBUF_PAGE_HDR_SIZE ||
	    ((pg->commit & RINGBUF_MISSED_STORED) &&
	     commit + 8 > d->bsize))
		problem("ringbuf_read_page(len %zu) returned commit word "
			"0x%llx for %u data bytes",
			len, (unsigned long long)pg->commit, d->bsize);
	if (rbd_decode(pg, d->subbuf, true, d->dec, err, sizeof(err))) {
		if (d->pristine)
			problem("a page of an unpatched base image does not "
				"decode: %s", err);
		return;
	}
	for (unsigned int i = 0; i < d->dec->nrec; i++)
		d->sum += d->dec->recs[i].size;
	rbfz_stats.events += d->dec->ndata;
}

static void phase_page(struct drain *d)
{
	for (int c = 0; c < d->nr_cpus; c++) {
		struct ringbuf_data_page *pg = ringbuf_alloc_read_page(d->rb, c);

		if (!pg)
			continue;
		for (unsigned int i = 0; i < RBFZ_MAX_EVENTS && !stuck(d, c);
		     i++) {
			/* Whole pages, then (every third) a short one. */
			size_t len = i % 3 == 2 ? d->subbuf / 3 + 4 * i :
						  d->subbuf;
			int full = i % 4 == 0, r;
			uint64_t t0 = now_ns();

			if (len > d->subbuf)
				len = d->subbuf;
			memset(pg, 0xa5, d->subbuf);
			r = ringbuf_read_page(d->rb, pg, len, c, full);
			mark_stuck(d, c, t0);
			if (r < 0 && full)
				continue;
			if (r < 0)
				break;
			check_page(d, pg, len);
		}
		ringbuf_free_read_page(d->rb, c, pg);
	}
}

static void phase_merge(struct drain *d)
{
	for (unsigned int i = 0; i < RBFZ_MAX_EVENTS && !d->merge_stuck;
	     i++) {
		unsigned long lost = 0;
		struct ringbuf_event *ev;
		uint64_t ts = 0, t0 = now_ns();
		int cpu = -1;

		ev = ringbuf_consume_next(d->rb, &cpu, &ts, &lost);
		mark_stuck(d, cpu, t0);
		if (!ev)
			break;
		if (cpu < 0 || cpu >= d->nr_cpus)
			problem("ringbuf_consume_next returned cpu %d of %d",
				cpu, d->nr_cpus);
		check_event(d, ev, "ringbuf_consume_next");
		d->sum += ts + lost;
	}
}

/* What a view must refuse. */
static void refusals(struct drain *d)
{
	struct ringbuf *rb = d->rb;
	static const unsigned char payload[16];
	unsigned long before;

	ringbuf_record_disable(rb);
	ringbuf_record_enable(rb);
	ringbuf_record_off(rb);
	ringbuf_record_on(rb);
	ringbuf_record_disable_cpu(rb, 0);
	ringbuf_record_enable_cpu(rb, 0);
	ringbuf_change_overwrite(rb, 1);
	ringbuf_set_time_stamp_abs(rb, true);
	if (ringbuf_write(rb, sizeof(payload), payload) == 0)
		problem("an attached view accepted ringbuf_write");
	if (ringbuf_lock_reserve(rb, 8))
		problem("an attached view accepted ringbuf_lock_reserve");
	if (ringbuf_resize(rb, 4 * d->subbuf, RINGBUF_ALL_CPUS) == 0)
		problem("an attached view accepted ringbuf_resize");
	if (ringbuf_swap_cpu(rb, rb, 0) == 0)
		problem("an attached view accepted ringbuf_swap_cpu");
	d->sum += ringbuf_record_is_on(rb) + ringbuf_time_stamp_abs(rb) +
		  (uint64_t)ringbuf_clock(rb) + ringbuf_max_event_size(rb) +
		  (uint64_t)ringbuf_fd(rb) + (ringbuf_path(rb) != NULL);
	if (d->stuck[0] || d->merge_stuck)
		return;
	before = ringbuf_entries_cpu(rb, 0);
	ringbuf_reset_cpu(rb, 0);
	if (ringbuf_entries_cpu(rb, 0) != before)
		problem("ringbuf_reset_cpu changed an attached view (%lu "
			"entries, now %lu)",
			before, ringbuf_entries_cpu(rb, 0));
}

/* ------------------------------------------------------------------ */
/* The entry point                                                      */

static int g_fd = -1, g_rofd = -1;
static uint8_t *g_file;
static size_t g_file_cap;
static bool g_fuzz_locks;
static bool g_trace; /* RB_FUZZ_TRACE: time of every drain phase */

static void init_once(void)
{
	char path[64];
	const char *e = getenv("RB_FUZZ_LOCKS");

	if (g_fd >= 0)
		return;
	g_fuzz_locks = e && *e && strcmp(e, "0");
	e = getenv("RB_FUZZ_TRACE");
	g_trace = e && *e && strcmp(e, "0");
	e = getenv("RB_FUZZ_KNOWN");
	if (e && strstr(e, "event_length"))
		g_known |= KNOWN_EVENT_LENGTH;
	if (e && strstr(e, "late"))
		g_known |= KNOWN_LATE;
	if (e && strstr(e, "iter_loop"))
		g_known |= KNOWN_ITER_LOOP;
	g_fd = memfd_create("rbfuzz", MFD_CLOEXEC);
	if (g_fd < 0)
		problem("memfd_create: %s", strerror(errno));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", g_fd);
	g_rofd = open(path, O_RDONLY | O_CLOEXEC); /* -1: no read-only mode */
	for (unsigned int b = 0; b < ARRAY_SIZE(bases); b++) {
		size_t sz;

		(void)rbfz_base_image(b, &sz);
	}
}

static uint8_t *file_buf(size_t size)
{
	if (size > g_file_cap) {
		free(g_file);
		g_file = malloc(size);
		g_file_cap = g_file ? size : 0;
		if (!g_file)
			problem("out of memory (%zu bytes)", size);
	}
	return g_file;
}

static void put_file(const uint8_t *file, size_t size)
{
	size_t done = 0;

	if (ftruncate(g_fd, 0) || ftruncate(g_fd, (off_t)size))
		problem("ftruncate: %s", strerror(errno));
	while (done < size) {
		ssize_t n = pwrite(g_fd, file + done, size - done, (off_t)done);

		if (n <= 0)
			problem("pwrite: %s", strerror(errno));
		done += (size_t)n;
	}
}

/* Which of the descriptors from the lowest free one up are open. */
struct fdset {
	int first;
	unsigned int open;
};

static void fds_snapshot(struct fdset *f)
{
	f->first = open("/dev/null", O_RDONLY | O_CLOEXEC);
	f->open = 0;
	if (f->first < 0)
		return;
	close(f->first);
	for (int i = 0; i < 8; i++)
		if (fcntl(f->first + i, F_GETFD) >= 0)
			f->open |= 1u << i;
}

/* The attach opens descriptors (the file's duplicate, the writer's
 * pidfd); none may stay open once the view is gone. */
static void check_fds(const struct fdset *before, const char *after)
{
	struct fdset now = { .first = before->first };

	if (before->first < 0)
		return;
	for (int i = 0; i < 8; i++)
		if (fcntl(before->first + i, F_GETFD) >= 0)
			now.open |= 1u << i;
	for (int i = 0; i < 8; i++)
		if ((now.open & ~before->open) & (1u << i)) {
			char link[64], what[256] = "?";
			ssize_t n;

			snprintf(link, sizeof(link), "/proc/self/fd/%d",
				 before->first + i);
			n = readlink(link, what, sizeof(what) - 1);
			what[n > 0 ? n : 1] = '\0';
			problem("descriptor %d (%s) left open after %s",
				before->first + i, what, after);
		}
}

/* The late operations of the phase under way that wait for a point
 * inside it: its first record copy (RBFZ_OP_MIDCOPY) or its first reader
 * page swap (RBFZ_OP_MIDSWAP); and where they go. */
static struct {
	const struct tgt *live;
	const struct geom *g;
	const uint8_t *copy_ops[RBFZ_MAX_OPS], *swap_ops[RBFZ_MAX_OPS];
	unsigned int nr_copy, nr_swap;
} g_mid;

/* At a reader's record copy or page swap: apply the operations waiting
 * for it, once. At a copy, a record operation changes the record under
 * copy (sel bit 0: its header or its length word); the others, and all
 * at a swap, apply as at a phase's start. */
static void mid_hook(struct ringbuf *rb, int cpu, enum ringbuf_testpoint tp,
		     void *arg)
{
	const uint8_t *src = ringbuf_test_copy_src;
	const uint8_t *map = rb->map;

	(void)cpu;
	(void)arg;
	if (tp == RINGBUF_TP_READER_SWAP && g_mid.nr_swap) {
		for (unsigned int i = 0; i < g_mid.nr_swap; i++)
			apply_op(g_mid.live, g_mid.g, g_mid.swap_ops[i]);
		g_mid.nr_swap = 0;
		rbfz_stats.midswap++;
	}
	if (tp != RINGBUF_TP_READER_COPY || !g_mid.nr_copy)
		return;
	for (unsigned int i = 0; i < g_mid.nr_copy; i++) {
		const uint8_t *op = g_mid.copy_ops[i];

		if ((op[0] & 7u) % RBFZ_OP_NR != RBFZ_OP_RECORD)
			apply_op(g_mid.live, g_mid.g, op);
		else if (src >= map && src + 8 <= map + g_mid.g->size)
			patch_record_word(g_mid.live, g_mid.g,
					  (uint64_t)(src - map) +
						  (op[1] & 1u) * 4,
					  op[3], op[4], op[5]);
	}
	g_mid.nr_copy = 0;
	rbfz_stats.midcopy++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rbd_page *dec;
	const uint8_t *late[RBFZ_MAX_OPS];
	unsigned int nr_late = 0, mode, base;
	const struct geom *g = NULL;
	uint64_t t_phase;
	unsigned long ev_phase;
	struct fdset fds;
	struct drain d;
	struct ringbuf *rb;
	uint8_t *file;
	size_t fsize;
	int fd;

	init_once();
	if (!dec) {
		dec = malloc(sizeof(*dec));
		if (!dec)
			problem("out of memory");
	}
	if (!size)
		return 0;
	rbfz_stats.inputs++;
	mode = data[0];
	base = mode & RBFZ_MODE_BASE_MASK;
	memset(&d, 0, sizeof(d));
	d.interleave = mode & RBFZ_MODE_INTERLEAVE;
	d.dec = dec;

	if (!base) {
		fsize = size - 1;
		file = file_buf(fsize ? fsize : 1);
		memcpy(file, data + 1, fsize);
		if (!g_fuzz_locks)
			sanitize_locks(file, fsize);
	} else {
		const struct base *b = &bases[base - 1];
		struct tgt t;
		unsigned int nr_ops = (unsigned int)((size - 1) / RBFZ_OP_SIZE);

		g = &b->g;
		fsize = b->size;
		file = file_buf(fsize);
		memcpy(file, b->img, fsize);
		t = (struct tgt){ .mem = file, .fd = -1, .size = fsize };
		if (nr_ops > RBFZ_MAX_OPS)
			nr_ops = RBFZ_MAX_OPS;
		d.pristine = nr_ops == 0 && !(mode & RBFZ_MODE_RDONLY);
		for (unsigned int i = 0; i < nr_ops; i++) {
			const uint8_t *op = data + 1 + i * RBFZ_OP_SIZE;

			if ((op[0] & RBFZ_OP_LATE) && (g_known & KNOWN_LATE))
				rbfz_stats.known++;
			else if (op[0] & RBFZ_OP_LATE)
				late[nr_late++] = op;
			else
				apply_op(&t, g, op);
		}
	}
	put_file(file, fsize);
	fds_snapshot(&fds);

	fd = (mode & RBFZ_MODE_RDONLY) && g_rofd >= 0 ? g_rofd : g_fd;
	rb = ringbuf_attach_fd(fd, (mode & RBFZ_MODE_FOREIGN) ?
					   RINGBUF_ATTACH_FOREIGN :
					   0);
	if (!rb) {
		check_fds(&fds, "a refused attach");
		if (d.pristine)
			problem("an unpatched base image (%u) does not attach: "
				"%s",
				base - 1, strerror(errno));
		return 0;
	}
	rbfz_stats.attached++;

	d.rb = rb;
	d.nr_cpus = ringbuf_nr_cpus(rb);
	d.subbuf = (uint32_t)ringbuf_subbuf_size(rb);
	d.bsize = d.subbuf - RINGBUF_PAGE_HDR_SIZE;
	if (d.nr_cpus <= 0 || d.subbuf < 4096)
		problem("a view with %d cpu buffers of %u bytes", d.nr_cpus,
			d.subbuf);
	if (d.nr_cpus > RBFZ_MAX_CPUS)
		d.nr_cpus = RBFZ_MAX_CPUS; /* raw mode: drain the first ones */

	counters(&d);
	for (unsigned int p = 0; p < PH_NR; p++) {
		const uint8_t *order = orders[(mode & RBFZ_MODE_ORDER_MASK) >>
					      RBFZ_MODE_ORDER_SHIFT];
		struct tgt live = { .mem = NULL, .fd = g_fd, .size = fsize };

		g_mid.nr_copy = g_mid.nr_swap = 0;
		g_mid.live = &live;
		g_mid.g = g;
		for (unsigned int i = 0; i < nr_late; i++) {
			if (((late[i][0] >> 5) & 3u) != p)
				continue;
			if (late[i][0] & RBFZ_OP_MIDCOPY)
				g_mid.copy_ops[g_mid.nr_copy++] = late[i];
			else if (late[i][0] & RBFZ_OP_MIDSWAP)
				g_mid.swap_ops[g_mid.nr_swap++] = late[i];
			else
				apply_op(&live, g, late[i]);
		}
		ringbuf_test_set_hook(g_mid.nr_copy || g_mid.nr_swap ? mid_hook :
								      NULL,
				      NULL);
		t_phase = now_ns();
		ev_phase = rbfz_stats.events;
		switch (order[p]) {
		case PH_ITER:
			phase_iter(&d);
			break;
		case PH_CONSUME:
			phase_consume(&d);
			break;
		case PH_PAGE:
			phase_page(&d);
			break;
		case PH_MERGE:
			phase_merge(&d);
			break;
		}
		ringbuf_test_set_hook(NULL, NULL);
		g_mid.nr_copy = g_mid.nr_swap = 0;
		counters(&d);
		if (g_trace)
			dprintf(rbfz_report_fd,
				"fuzz_attach: phase %s: %.3f s, %lu events\n",
				phase_names[order[p]],
				(double)(now_ns() - t_phase) / 1e9,
				rbfz_stats.events - ev_phase);
	}
	t_phase = now_ns();
	refusals(&d);
	if (g_trace)
		dprintf(rbfz_report_fd, "fuzz_attach: refusals: %.3f s\n",
			(double)(now_ns() - t_phase) / 1e9);
	if (d.pristine && ringbuf_test_warned(rb))
		problem("the library warned on an unpatched base image (%u)",
			base - 1);
	ringbuf_free(rb);
	check_fds(&fds, "ringbuf_free");
	/* Keep the sum alive. */
	__asm__ __volatile__("" : : "r"(d.sum));
	return 0;
}
