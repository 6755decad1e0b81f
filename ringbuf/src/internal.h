/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - libringbuf's types, the page-list helpers and the local_t
 * operations. Shared by the library's .c files only.
 *
 * The layout follows the kernel's ring buffer (kernel/trace/ring_buffer.c):
 * per cpu buffer, a ring of pages linked through their "next" links plus
 * one reader page outside the ring. Here every page, its control block and
 * every cpu buffer's control state live in one mapping:
 *
 *	+------------------+ 0
 *	| struct rb_meta   |   magic, version, geometry
 *	+------------------+ cpu_meta_off
 *	| rb_cpu_meta[0]   |   head/tail/commit/reader page ids, stamps,
 *	| rb_cpu_meta[1]   |   counters (cache-line groups by owner)
 *	| ...              |
 *	+------------------+ page_ctl_off
 *	| rb_page_ctl[]    |   per page: next/prev links, write, entries,
 *	|                  |   read (the kernel's struct buffer_page)
 *	+------------------+ data_off (page aligned)
 *	| sub-buffer 0     |   struct ringbuf_data_page, by ascending id
 *	| sub-buffer 1     |
 *	| ...              |
 *	+------------------+
 *
 * Page ids are local to a cpu buffer: cpu c owns the global pages
 * [first_page, first_page + nr_pages], and its links hold local ids. So a
 * cpu buffer can be copied into another mapping unchanged.
 *
 * The link word: (id << 2) | flags, with the flags of the design doc:
 *
 *	prev->next to this page		bit 1	bit 0
 *	Normal page			0	0
 *	Points to head page		0	1	RB_PAGE_HEAD
 *	New head page (being moved)	1	0	RB_PAGE_UPDATE
 */
#ifndef RINGBUF_INTERNAL_H
#define RINGBUF_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include <ringbuf/ringbuf.h>
#ifdef RINGBUF_TESTHOOKS
#include <ringbuf/ringbuf-private.h>
#endif

#define RB_HIDDEN __attribute__((visibility("hidden")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define RB_NOINLINE __attribute__((noinline))
#define RB_ALWAYS_INLINE inline __attribute__((always_inline))
/* Compiler barrier. Orders the program against our own signal handlers
 * (which run on this thread, so no CPU fence is needed). */
#define barrier() atomic_signal_fence(memory_order_seq_cst)

#define RB_CACHELINE 64
#define RB_PAGE_SIZE_MIN 4096u
#define RB_SUBBUF_ORDER_MAX 7u
#define RB_META_MAGIC 0x31465542474e4952ULL /* "RINGBUF1" */
#define RB_META_VERSION 3u

/* Link flags (the design doc's HEADER and UPDATE); MOVED is a return value. */
#define RB_PAGE_NORMAL 0u
#define RB_PAGE_HEAD 1u
#define RB_PAGE_UPDATE 2u
#define RB_FLAG_MASK 3u
#define RB_PAGE_MOVED 4u

/*
 * A page's write and entries counters: the low 20 bits are the index, the
 * upper bits count the writers that reset the page (rb_tail_page_update),
 * so a nested writer's reset is not lost (the kernel's RB_WRITE_INTCNT).
 */
#define RB_WRITE_MASK 0xfffffUL
#define RB_WRITE_INTCNT (1UL << 20)

#define RB_EVNT_HDR_SIZE 4u
#define RB_MAX_SMALL_DATA RINGBUF_MAX_SMALL_DATA
#define RB_ALIGNMENT 4u
#define RB_EVNT_MIN_SIZE 8u
#define RB_LEN_TIME_EXTEND 8u
#define RB_LEN_TIME_STAMP 8u
#define TS_SHIFT 27
#define TS_MASK ((1ULL << TS_SHIFT) - 1)
#define TS_DELTA_TEST (~TS_MASK)
#define ABS_TS_MASK ((1ULL << 59) - 1)
#define TS_MSB (~ABS_TS_MASK)

/* Writer nesting: thread + 4 signal levels, one more inside nest_start. */
#define RB_MAX_NEST 5u
#define RB_MAX_FRAMES (RB_MAX_NEST + 1u)

/*
 * ringbuf.fe_slow follows a change of one of its reasons. Raised seq_cst:
 * after the raise of record_disabled, the store half of the store-buffer
 * pattern with the writer's active mark (rb_writers_drain()'s
 * membarrier() follows). Lowered with release: the rebuilt cpu buffers
 * are visible to a writer that sees 0 (pairs with its acquire load in
 * ringbuf_fe_reserve_ts()).
 */
#define rb_fe_slow_raise(rb)                                               \
	atomic_fetch_add_explicit(&(rb)->fe_slow, 1, memory_order_seq_cst)
#define rb_fe_slow_lower(rb)                                               \
	atomic_fetch_sub_explicit(&(rb)->fe_slow, 1, memory_order_release)

/* Bit of ringbuf.record_disabled set by record_off (the kernel's RB_BUFFER_OFF). */
#define RB_BUFFER_OFF (1 << 20)
/* Bit set in a forked child's copy: the parent owns the shared pages. */
#define RB_BUFFER_FORKED (1 << 21)
/* Bit set in an attached view: the creating process is the writer. */
#define RB_BUFFER_ATTACHED (1 << 22)

/* ------------------------------------------------------------------ */
/* The mapping                                                          */

/* Header of the mapping. Written once at creation. */
struct rb_meta {
	uint64_t magic;
	uint32_t version;
	uint32_t meta_struct_len; /* sizeof(struct rb_meta) */
	uint32_t subbuf_size; /* bytes per sub-buffer, header included */
	uint32_t nr_cpus; /* cpu buffers, spares included */
	uint32_t nr_cpu_bufs; /* CPU buffers (or thread slots) */
	uint32_t total_pages; /* sum over cpus of nr_pages + 1 */
	uint32_t clock; /* enum ringbuf_clock */
	uint32_t model; /* enum ringbuf_writer_model */
	uint32_t cpu_meta_size; /* stride of rb_cpu_meta[] */
	uint64_t cpu_meta_off;
	uint64_t page_ctl_off;
	uint64_t data_off;
	uint64_t map_size;
	uint64_t lock_off; /* rb_cpu_lock[nr_cpus] */
	uint32_t lock_size; /* stride of rb_cpu_lock[] */
	uint32_t flags; /* RB_META_SHARED when the locks are in use */
	uint32_t creator_pid; /* the writing process */
	/* Readers waiting on every cpu buffer (ringbuf_wait(ALL_CPUS)) sleep
	 * on wake_seq_all; waiters_all says whether any does. */
	_Atomic uint32_t waiters_all;
	_Atomic uint32_t wake_seq_all;
	/* Bumped by each resize of a shared buffer, which moves the page
	 * control blocks and data of the cpu buffers in the file (the header
	 * and the locks stay): an attached view rebinds a cpu buffer whose
	 * binding is older (rb_follow_layout()). */
	_Atomic uint32_t layout_gen;
	/* Set by a consumer (ringbuf_set_writer_wait()): how long a writer
	 * that finds a producer/consumer buffer full waits for the reader
	 * to free a page before it drops the record; 0: drop at once. */
	_Atomic uint32_t writer_wait_ms;
};

/* rb_meta.flags: a file or memfd other processes may attach to. */
#define RB_META_SHARED 1u

/*
 * The readers' lock of one cpu buffer, shared by every process that maps
 * the file: an owner word (rb_shared_lock()) that names the holding
 * process, whose liveness a waiter checks, so that a reader killed while
 * holding it does not wedge the cpu buffer and no value the writer puts
 * there blocks a reader for long. Apart from the cpu buffer state so
 * that a reset (which clears that state under the lock) leaves it alone.
 * @lock: the owner word in its first 8 bytes (the rest is zero).
 * @swap_head: the head page a reader is swapping in (rb_get_reader_page),
 *	RB_NO_SWAP otherwise: lets the next reader finish the swap of a
 *	reader that died in the middle of it.
 */
struct rb_cpu_lock {
	unsigned char lock[40];
	_Atomic uint32_t swap_head;
	/*
	 * A reader's progress, written ahead of applying it
	 * (rb_reader_progress()): the page and offset it reads to and the
	 * values of read, read_bytes and read_stamp after. While @adv_valid is
	 * set, the next holder of the lock applies it again (idempotent).
	 */
	_Atomic uint32_t adv_valid;
	uint32_t adv_page;
	uint64_t adv_to, adv_read, adv_bytes, adv_stamp;
};
#define RB_NO_SWAP UINT32_MAX

/*
 * The kernel's struct buffer_page: the control block of one sub-buffer.
 * @next: link word, modified by writers and the reader with cmpxchg
 * @prev: id of the previous page; written by the reader only
 * @real_end: end of data before the closing padding (writer)
 * @write: write index (local_t of the owning writer)
 * @entries: events on the page (local_t of the owning writer)
 * @read: read index (reader only)
 */
struct rb_page_ctl {
	_Atomic uint32_t next;
	_Atomic uint32_t prev;
	_Atomic uint32_t real_end;
	uint32_t id;
	_Atomic uint64_t write;
	_Atomic uint64_t entries;
	uint64_t read;
};

/* The sub-buffer header as the library accesses it (same layout as
 * struct ringbuf_data_page). */
struct rb_data_page {
	_Atomic uint64_t time_stamp;
	_Atomic uint64_t commit;
	unsigned char data[];
};

/*
 * Per cpu buffer state in the mapping (the kernel's ring_buffer_per_cpu,
 * minus what is process-local). Groups by owner, each on its own cache
 * lines so the reader and the writer do not share lines they write.
 */
struct rb_cpu_meta {
	/* Geometry: fixed for the life of the mapping. */
	uint32_t nr_pages; /* pages in the ring; page nr_pages is the spare */
	uint32_t first_page; /* global index of local page 0 */

	/* Writer group: written by the owner writer (and its signal
	 * handlers) with local ops; read by the reader. */
	alignas(RB_CACHELINE) _Atomic uint32_t tail_page;
	_Atomic uint32_t commit_page;
	_Atomic uint64_t before_stamp;
	_Atomic uint64_t write_stamp;
	_Atomic uint64_t entries;
	_Atomic uint64_t entries_bytes;
	_Atomic uint64_t overrun;
	_Atomic uint64_t commit_overrun;
	_Atomic uint64_t pages_touched;
	_Atomic uint64_t pages_lost;
	/* A head push in progress by the outermost writer (page id + 1, 0
	 * for none) and the overrun before it: lets a reader finish the push
	 * of a writer that died in it (rb_recover_cpu()). */
	_Atomic uint32_t push_page;
	_Atomic uint64_t push_overrun;

	/* Written by any thread (rare paths), with real atomic RMWs. */
	alignas(RB_CACHELINE) _Atomic uint64_t dropped_events;

	/* Blocking readers (ringbuf_wait()): written by readers, read by the
	 * writer at each commit; a line of their own. @waiters counts the
	 * readers waiting on this cpu buffer (those waiting on all count on
	 * every one), @wait_full is a waiter's buffer_percent, @wake_seq the
	 * futex word the writer bumps to wake them. @wake_armed is set by a
	 * waiter going to sleep and cleared by the one commit that wakes it,
	 * so that the commits after it (until the woken reader unregisters)
	 * make no wake call of their own. */
	alignas(RB_CACHELINE) _Atomic uint32_t waiters;
	_Atomic uint32_t wait_full;
	_Atomic uint32_t wake_seq;
	_Atomic uint32_t wake_armed;
	/* Writers waiting for room (rb_wait_for_room()): how many, and the
	 * futex word the reader bumps when it takes a page while any is;
	 * the waits so far and their nanoseconds (added by the waiter at
	 * its wait's end; on this line's free room: the groups after it
	 * keep their offsets, and an older library leaves them 0). */
	_Atomic uint32_t room_waiters;
	_Atomic uint32_t room_seq;
	_Atomic uint64_t room_waits;
	_Atomic uint64_t room_wait_ns;

	/* Reader group: written under the reader lock. */
	alignas(RB_CACHELINE) _Atomic uint32_t reader_page;
	_Atomic uint32_t head_page;
	_Atomic uint64_t read;
	_Atomic uint64_t read_bytes;
	uint64_t last_overrun;
	uint64_t lost_events;
	uint64_t read_stamp;
	_Atomic uint64_t pages_read;
	/* Reserved but never committed when the writing process died: the
	 * regions a recovering reader skipped (rb_recover_cpu()). */
	_Atomic uint64_t torn_events;
};

/* ------------------------------------------------------------------ */
/* Process-local state                                                 */

/*
 * One cpu buffer as this process sees it. Stable for the life of the
 * ringbuf (a resize changes what the pointers point to, not this struct).
 */
struct ringbuf_cpu {
	/* Writer claim and nesting (per-CPU model: owner is claimed for the
	 * span of a write; per-thread model: for the thread's life). */
	alignas(RB_CACHELINE) _Atomic uint32_t owner;
	_Atomic int record_disabled;
	/* The kernel's committing/commits (local ops of the owner). */
	_Atomic uint64_t committing;
	_Atomic uint64_t commits;
	/* Writers inside reserve..commit; what resize/reset wait for. */
	_Atomic uint64_t active;
	/*
	 * Writes dropped by threads that hold no claim on this cpu buffer
	 * (every buffer claimed, nesting too deep): counted here, in memory
	 * that a resize does not move, with real atomic adds. Added to the
	 * mapping's dropped_events when read.
	 */
	_Atomic uint64_t dropped_unclaimed;

	/* Read-mostly: where this cpu buffer currently lives. */
	alignas(RB_CACHELINE) struct ringbuf *buffer;
	struct rb_cpu_meta *meta;
	struct rb_page_ctl *pages; /* nr_pages + 1 control blocks */
	unsigned char *data; /* sub-buffer of local id 0 */
	uint32_t nr_pages;
	uint32_t subbuf_shift; /* log2 of the sub-buffer size */
	int cpu;

	/* Readers of this cpu buffer serialise on this lock, and across
	 * processes also on shared->lock when the buffer is in a file. */
	alignas(RB_CACHELINE) pthread_mutex_t reader_lock;
	struct rb_cpu_lock *shared;
	/* Under reader_lock: the file's lock of @shared is held too
	 * (rb_reader_lock() may get the process-local lock only). */
	bool shared_held;
	/* Under reader_lock: the file's lock was not to be had within
	 * RB_LOCK_WAIT_NS at the last try; until it is got again, tries do
	 * not wait. */
	bool lock_stuck;
	/* Under reader_lock: when the holder of a stuck lock was last
	 * looked at (CLOCK_MONOTONIC ns). */
	uint64_t lock_looked;
	/* The last read under the lock gave up waiting on a writer (a
	 * preempted one holds the next page): "try again", not "empty". */
	bool reader_busy;
	/* commits when a merged read last found the buffer empty with no
	 * writer active (UINT64_MAX: unknown); lets ringbuf_consume_next()
	 * skip idle buffers without the lock. */
	_Atomic uint64_t empty_at_commits;
	/* rb_meta.layout_gen where pages and data are bound (under the
	 * reader lock; rb_follow_layout()). */
	uint32_t layout_gen;
	/* pages_read when a writer last waited in vain for room
	 * (rb_wait_for_room()): no more waits until the reader moves. */
	_Atomic uint64_t wait_gave_up;

	/* Spares (per-CPU model): the CPU the last CPU note named and the
	 * tail page it is on (rb_reserve_noted()). Written by the claim
	 * holder and its handlers; the claim (acquire on owner, release at
	 * rb_writer_put()) hands them to the next holder. */
	int note_cpu;
	uint32_t note_page;
	/* Consumers: the CPU of the records at rd_note_pos of the reader
	 * page with stamp rd_note_stamp, so each read scans only the notes
	 * since the last (rb_reader_note_cpu()). Under the reader lock. */
	uint32_t rd_note_page;
	int rd_note_cpu;
	uint64_t rd_note_stamp;
	uint64_t rd_note_pos;
	/* Under the reader lock: the bytes from the record rb_buffer_peek()
	 * last returned to the end of its page's data area, what a copy of
	 * it may take (rb_event_copy()). */
	uint64_t rd_room;
};

struct ringbuf {
	/* Read-mostly, every write looks at these. */
	alignas(RB_CACHELINE) _Atomic int record_disabled;
	_Atomic int flags; /* RINGBUF_FL_* */
	_Atomic bool time_stamp_abs;
	/* Per-CPU model: CPU buffers are claimed by restartable sequences
	 * (rb_claim_slow()); fixed at creation. */
	bool rseq_claim;
	int clock;
	int model;
	int nr_cpus; /* every cpu buffer: CPU buffers (or slots), then spares */
	int nr_cpu_bufs; /* the CPU buffers (per-CPU) or slots (per-thread) */
	uint32_t subbuf_size; /* bytes per sub-buffer */
	uint32_t bsize; /* data bytes per sub-buffer (subbuf_size - 16) */
	uint32_t max_data_size; /* largest record, headers included */
	uint64_t uid; /* never reused; identifies the buffer in TLS caches */
	struct ringbuf_cpu **buffers;
	/*
	 * The reasons a write leaves the inline path after entering it
	 * (ringbuf_fe_reserve_flagged()), counted: one per unit of
	 * record_disabled (each disable, each of its RB_BUFFER_* bits set),
	 * one per unit of a cpu buffer's record_disabled (RINGBUF_0.8: the
	 * inline code does not load that word itself), one for absolute
	 * time stamps, one for writers that fence
	 * themselves. Raised after the word it stands for, before any
	 * membarrier() that pairs with the writers; lowered after it, with
	 * release (rb_fe_slow_raise(), rb_fe_slow_lower()).
	 */
	_Atomic int fe_slow;

	/* Rare paths. */
	alignas(RB_CACHELINE) _Atomic int warned;
	_Atomic int iterators; /* open iterators: resize refuses */
	pthread_mutex_t resize_lock; /* serialises resize/reset/swap */
	void *map;
	size_t map_size;
	struct rb_meta *meta;
	int fd; /* file or memfd behind the mapping, -1 if anonymous */
	char *path; /* the named file this process created (unlinked at free) */
	pid_t path_pid; /* the process that created it (a forked child's copy
			 * of the buffer leaves the file to it) */
	bool attached; /* a reader's view of another process's buffer */
	bool writer_wait_set; /* this view set rb_meta.writer_wait_ms */
	int writer_pidfd; /* attached: the creator's pidfd, or -1 */
	pid_t creator_pid; /* attached: rb_meta.creator_pid, read at attach */
	/* An attached view: 0, or why it is not read any more
	 * (ringbuf_view_error()): -EIO, the file was truncated under it;
	 * -EBADMSG, a reader check found the file inconsistent. Set from
	 * the SIGBUS handler too. */
	_Atomic int view_error;
	bool read_only; /* attached to another user's file */
	/*
	 * A shared buffer after a resize: the file is mapped again at its
	 * new size and the cpu buffers' pages and data are bound there
	 * (meta and locks stay bound in @map). An attached view keeps every
	 * mapping it made until it is freed: its cpu buffers move to the
	 * newest one one at a time, at their next lock.
	 */
	struct rb_map_ref {
		void *map;
		size_t size;
		struct rb_map_ref *next;
	} *data_maps;
};

/* ------------------------------------------------------------------ */
/* local_t                                                              */

/*
 * The kernel's local_t: a counter modified by one CPU, atomic against
 * that CPU's interrupts. Here the writers of one cpu buffer are one thread
 * and its signal handlers, so a single read-modify-write instruction
 * without the LOCK prefix is atomic against them, exactly as local_t is.
 * Other threads (the reader) only load these words; aligned 64-bit loads
 * never tear. Release/acquire is not needed from these ops: where the
 * reader depends on a value, the store is a release done with rb_*_release.
 *
 * Userspace: there is no preempt_disable, so the words must stay with one
 * thread for the span of a write; the owner claim (per-CPU model) or the
 * per-thread slot guarantees it. Under ThreadSanitizer (which cannot see
 * inline asm) and on other architectures these are relaxed C11 RMWs.
 */
#if defined(__SANITIZE_THREAD__)
#define RB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RB_TSAN 1
#endif
#endif
#if defined(__x86_64__) && !defined(RB_TSAN)
#define RB_LOCAL_ASM 1
#else
#define RB_LOCAL_ASM 0
#endif

static inline uint64_t local_read(_Atomic uint64_t *l)
{
	return atomic_load_explicit(l, memory_order_relaxed);
}

static inline void local_set(_Atomic uint64_t *l, uint64_t v)
{
	atomic_store_explicit(l, v, memory_order_relaxed);
}

#if RB_LOCAL_ASM
static inline uint64_t local_add_return(uint64_t v, _Atomic uint64_t *l)
{
	uint64_t old = v;
	__asm__ __volatile__("xaddq %0, %1"
			     : "+r"(old), "+m"(*(volatile uint64_t *)l)
			     :
			     : "memory");
	return old + v;
}

static inline void local_add(uint64_t v, _Atomic uint64_t *l)
{
	/* No "memory" clobber (as the kernel's local_add): callers that
	 * order other accesses against it use barrier(). */
	__asm__ __volatile__("addq %1, %0"
			     : "+m"(*(volatile uint64_t *)l)
			     : "er"(v));
}

static inline bool local_cmpxchg(_Atomic uint64_t *l, uint64_t old,
				 uint64_t new_val)
{
	uint64_t prev = old;
	__asm__ __volatile__("cmpxchgq %2, %1"
			     : "+a"(prev), "+m"(*(volatile uint64_t *)l)
			     : "r"(new_val)
			     : "memory");
	return prev == old;
}
#else
static inline uint64_t local_add_return(uint64_t v, _Atomic uint64_t *l)
{
	return atomic_fetch_add_explicit(l, v, memory_order_relaxed) + v;
}

static inline void local_add(uint64_t v, _Atomic uint64_t *l)
{
	atomic_fetch_add_explicit(l, v, memory_order_relaxed);
}

static inline bool local_cmpxchg(_Atomic uint64_t *l, uint64_t old,
				 uint64_t new_val)
{
	/* Relaxed: callers only need atomicity against their own signal
	 * handlers; ordering for the reader comes from release stores. */
	return atomic_compare_exchange_strong_explicit(
		l, &old, new_val, memory_order_relaxed, memory_order_relaxed);
}
#endif

static inline void local_inc(_Atomic uint64_t *l)
{
	local_add(1, l);
}

static inline void local_sub(uint64_t v, _Atomic uint64_t *l)
{
	local_add((uint64_t)0 - v, l);
}

static inline void local_dec(_Atomic uint64_t *l)
{
	local_sub(1, l);
}

/* ------------------------------------------------------------------ */
/* Warnings and test points                                            */

RB_HIDDEN void rb_warn(struct ringbuf *rb, const char *cond, const char *func,
		       int line);

/* A message to the application's callback, or to standard error
 * (print.c); safe on the write path and in signal handlers. */
RB_HIDDEN void rb_print(enum ringbuf_print_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
RB_HIDDEN void rb_vprint(enum ringbuf_print_level level, const char *fmt,
			 va_list ap);

/*
 * RB_WARN_ON - the kernel's fail-stop check: if @cond holds, report once
 * per buffer and disable recording on the buffer. Evaluates to @cond.
 */
#define RB_WARN_ON(rb, cond)                                              \
	({                                                                \
		bool __c = !!(cond);                                      \
		if (unlikely(__c))                                        \
			rb_warn((rb), #cond, __func__, __LINE__);         \
		__c;                                                      \
	})

#ifdef RINGBUF_TESTHOOKS
RB_HIDDEN extern ringbuf_test_hook_fn rb_test_hook;
RB_HIDDEN extern void *rb_test_hook_arg;
#define RB_TESTPOINT(cpu_buffer, tp)                                      \
	do {                                                              \
		if (rb_test_hook)                                         \
			rb_test_hook((cpu_buffer)->buffer, (cpu_buffer)->cpu, \
				     (tp), rb_test_hook_arg);             \
	} while (0)
/* RINGBUF_TP_READER_COPY, with the record about to be copied out. */
#define RB_TESTPOINT_COPY(cpu_buffer, src)                                \
	do {                                                              \
		ringbuf_test_copy_src = (src);                            \
		RB_TESTPOINT(cpu_buffer, RINGBUF_TP_READER_COPY);         \
	} while (0)
#else
#define RB_TESTPOINT(cpu_buffer, tp) do { } while (0)
#define RB_TESTPOINT_COPY(cpu_buffer, src)                                \
	do {                                                              \
		(void)(cpu_buffer);                                       \
		(void)(src);                                              \
	} while (0)
#endif

/* The inline fast path's test points are the library's (RB_TESTPOINT). */
#define RINGBUF_FE_TESTPOINT(cb, tp)                                      \
	RB_TESTPOINT((struct ringbuf_cpu *)(cb), (tp))
#include <ringbuf/frontend.h>

/* ------------------------------------------------------------------ */
/* Page helpers                                                        */

static inline uint32_t rb_link(uint32_t id, uint32_t flag)
{
	return (id << 2) | flag;
}

static inline uint32_t rb_link_id(uint32_t link)
{
	return link >> 2;
}

/*
 * Page ids come from the mapping, which another process may share (and
 * corrupt): an id past the cpu buffer's last page is clamped to it, so no
 * access ever leaves the cpu buffer's own pages, whatever the file says.
 * The readers also check ids where a bad one must stop them.
 */
static inline uint32_t rb_id_clamp(struct ringbuf_cpu *cpu_buffer, uint32_t id)
{
	return id <= cpu_buffer->nr_pages ? id : cpu_buffer->nr_pages;
}

static inline struct rb_page_ctl *rb_page(struct ringbuf_cpu *cpu_buffer,
					  uint32_t id)
{
	return &cpu_buffer->pages[rb_id_clamp(cpu_buffer, id)];
}

/* Unchecked, for the write fast path: the writer's own tail and commit
 * page ids, which only it (and its signal handlers) set. */
static inline struct rb_page_ctl *__rb_page(struct ringbuf_cpu *cpu_buffer,
					    uint32_t id)
{
	return &cpu_buffer->pages[id];
}

static inline struct rb_data_page *__rb_data(struct ringbuf_cpu *cpu_buffer,
					     uint32_t id)
{
	return (struct rb_data_page *)(cpu_buffer->data +
				       ((size_t)id << cpu_buffer->subbuf_shift));
}

static inline struct rb_data_page *rb_data(struct ringbuf_cpu *cpu_buffer,
					   uint32_t id)
{
	return (struct rb_data_page *)(cpu_buffer->data +
				       ((size_t)rb_id_clamp(cpu_buffer, id)
					<< cpu_buffer->subbuf_shift));
}

/* The id the page's next link points to, flags masked (rb_inc_page). */
static inline uint32_t rb_next_id(struct ringbuf_cpu *cpu_buffer, uint32_t id)
{
	/* Relaxed: the id is a plain index; the flag protocol that gives it
	 * meaning uses cmpxchg on the same word. */
	return rb_id_clamp(cpu_buffer,
			   rb_link_id(atomic_load_explicit(
				   &rb_page(cpu_buffer, id)->next,
				   memory_order_relaxed)));
}

/*
 * The reader's index into page @id, loaded once and kept inside the
 * page's data: the word is in the file, which another process may
 * rewrite between the reader's check of it and its use.
 */
static inline uint64_t rb_read_index(struct ringbuf_cpu *cpu_buffer,
				     uint32_t id)
{
	uint64_t read = __atomic_load_n(&rb_page(cpu_buffer, id)->read,
					__ATOMIC_RELAXED);
	uint64_t bsize = cpu_buffer->buffer->bsize;

	return read <= bsize ? read : bsize;
}

static inline uint64_t rb_page_write(struct ringbuf_cpu *cpu_buffer,
				     uint32_t id)
{
	return local_read(&rb_page(cpu_buffer, id)->write) & RB_WRITE_MASK;
}

static inline uint64_t rb_page_entries(struct ringbuf_cpu *cpu_buffer,
				       uint32_t id)
{
	return local_read(&rb_page(cpu_buffer, id)->entries) & RB_WRITE_MASK;
}

/* Committed size of a page; pairs with the release in rb_set_commit_to_write. */
static inline uint64_t rb_page_commit(struct ringbuf_cpu *cpu_buffer,
				      uint32_t id)
{
	/* Acquire: pairs with the release store of commit in
	 * rb_set_commit_to_write(), so the records below the commit index
	 * are visible. */
	return atomic_load_explicit(&rb_data(cpu_buffer, id)->commit,
				    memory_order_acquire);
}

/*
 * rb_is_reader_page - whether @id is outside the ring: the next link of
 * its prev page does not point back to it.
 */
static inline bool rb_is_reader_page(struct ringbuf_cpu *cpu_buffer,
				     uint32_t id)
{
	uint32_t prev = atomic_load_explicit(&rb_page(cpu_buffer, id)->prev,
					     memory_order_relaxed);

	/*
	 * Acquire: when the page is out of the ring, this reads the link the
	 * reader's swap cmpxchg wrote when it took the page (acq_rel in
	 * rb_head_page_replace()), so a writer that finds its page swapped
	 * out sees every link the reader changed before that swap
	 * (rb_move_tail() reads its own link again after this).
	 */
	return rb_id_clamp(cpu_buffer,
			   rb_link_id(atomic_load_explicit(
				   &rb_page(cpu_buffer, prev)->next,
				   memory_order_acquire))) != id;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

/* The pages of @cb changed without a write (reset, swap): what the writer
 * and the readers knew of its CPU notes is void. */
static inline void rb_note_forget(struct ringbuf_cpu *cb)
{
	cb->note_page = UINT32_MAX;
	cb->rd_note_page = UINT32_MAX;
}

/* The commit word's bits that say a read_page page's records, up to its
 * first CPU note, were written on @cpu (RINGBUF_COMMIT_CPU_SHIFT). */
static inline uint64_t rb_page_cpu_bits(int cpu)
{
	return ((uint64_t)cpu + 1) << RINGBUF_COMMIT_CPU_SHIFT;
}

RB_HIDDEN int rb_home_cpu(struct ringbuf_cpu *cb);
RB_HIDDEN int rb_page_note_cpu(struct ringbuf_cpu *cb, uint32_t id,
			       uint64_t from, uint64_t upto, int cpu);

static inline bool rb_null_event(const struct ringbuf_event *event)
{
	return event->type_len == RINGBUF_TYPE_PADDING && !event->time_delta;
}

/* Bytes of one record, header included; 0 for the end-of-page padding. */
static inline unsigned int rb_event_length(const struct ringbuf_event *event)
{
	switch (event->type_len) {
	case RINGBUF_TYPE_PADDING:
		if (rb_null_event(event))
			return 0;
		return event->array[0] + RB_EVNT_HDR_SIZE;
	case RINGBUF_TYPE_TIME_EXTEND:
	case RINGBUF_TYPE_TIME_STAMP:
		return RB_LEN_TIME_EXTEND;
	case 0:
		return event->array[0] + RB_EVNT_HDR_SIZE;
	default:
		return event->type_len * 4u + RB_EVNT_HDR_SIZE;
	}
}

/*
 * Whether a record is well formed and fits in @room bytes: what a reader
 * checks before trusting a record of a file another process writes.
 */
static inline bool rb_event_valid(const struct ringbuf_event *event,
				  uint64_t room)
{
	if (room < RB_EVNT_MIN_SIZE)
		return false;
	switch (event->type_len) {
	case RINGBUF_TYPE_PADDING:
		if (rb_null_event(event))
			return true;
		/* a discarded record has a length word, as a large one */
		__attribute__((fallthrough));
	case 0:
		if (event->array[0] % RB_ALIGNMENT ||
		    (event->type_len == 0 &&
		     event->array[0] < RB_MAX_SMALL_DATA + 2 * RB_ALIGNMENT) ||
		    event->array[0] < RB_ALIGNMENT)
			return false;
		return (uint64_t)event->array[0] + RB_EVNT_HDR_SIZE <= room;
	case RINGBUF_TYPE_TIME_EXTEND:
	case RINGBUF_TYPE_TIME_STAMP:
		return true;
	default:
		return event->type_len * 4u + RB_EVNT_HDR_SIZE <= room;
	}
}

static inline uint64_t rb_event_time_stamp(const struct ringbuf_event *event)
{
	return ((uint64_t)event->array[0] << TS_SHIFT) + event->time_delta;
}

/* Restore the bits of an absolute stamp that did not fit in 59 bits. */
static inline uint64_t rb_fix_abs_ts(uint64_t abs, uint64_t save_ts)
{
	if (save_ts & TS_MSB) {
		abs |= save_ts & TS_MSB;
		if (abs < save_ts)
			abs += 1ULL << 59;
	}
	return abs;
}

/* ------------------------------------------------------------------ */
/* Per-thread writer state                                             */

/*
 * Per-thread model: a cache of the slots this thread holds. An entry is
 * one word, the buffer's uid above RB_SLOT_IDX_BITS and the slot's index
 * in rb->buffers below, so that a signal handler that interrupts an update
 * of the cache, or updates it itself in between, only ever sees whole
 * entries. (Two words could pair one buffer's uid with another buffer's
 * slot, and a write would land in the wrong buffer.)
 */
#define RB_SLOT_IDX_BITS 16
#define RB_SLOT_IDX_MASK ((1ull << RB_SLOT_IDX_BITS) - 1)
#define RB_SLOT_CACHE 4

/*
 * The thread's stack of reservations (struct ringbuf_tls, in
 * <ringbuf/frontend.h> because the inline fast path uses it). Its signal
 * handlers push on the same stack and pop before they return, so it stays
 * a stack (the kernel's interrupt nesting). @depth is raised before a
 * frame is written and lowered after it is read, so a handler arriving in
 * between uses the next frame. The slot cache entries are read and
 * written as whole words with __atomic builtins.
 */
#define rb_tls ringbuf_tls
#define rb_rseq_ok ringbuf_fe_rseq_ok
#define rb_writer_fence ringbuf_fe_writer_fence
_Static_assert(RB_MAX_NEST == RINGBUF_FE_MAX_NEST, "nesting depth");
_Static_assert(RB_SLOT_IDX_BITS == RINGBUF_FE_SLOT_IDX_BITS, "slot key");
_Static_assert(RB_SLOT_CACHE == RINGBUF_FE_SLOT_CACHE, "slot cache");

/*
 * Userspace: smp_processor_id() is replaced by the cpu_id field of the
 * thread's rseq area that glibc registers (free to read); without rseq,
 * sched_getcpu(). The result is a hint only: the thread may migrate right
 * after, which the owner claim makes harmless.
 */
RB_HIDDEN int rb_current_cpu_slow(void);

static inline int rb_current_cpu(void)
{
	if (likely(rb_rseq_ok)) {
		/* rseq->cpu_id, updated by the kernel on every migration */
		int32_t cpu = *(volatile int32_t *)((char *)__builtin_thread_pointer() +
						   __rseq_offset + 4);
		if (likely(cpu >= 0))
			return cpu;
	}
	return rb_current_cpu_slow();
}

/* ------------------------------------------------------------------ */
/* Clocks                                                              */

/*
 * The clock of enum ringbuf_clock as a clock_gettime() clock (the TSC is
 * read with rdtsc where there is one; CLOCK_MONOTONIC_RAW elsewhere).
 * Inline, so that ringbuf_time_stamp() is one call to the vDSO.
 */
static inline uint64_t rb_clock_read_slow(int clock)
{
	static const clockid_t rb_clockids[] = {
		[RINGBUF_CLOCK_MONO] = CLOCK_MONOTONIC,
		[RINGBUF_CLOCK_MONO_RAW] = CLOCK_MONOTONIC_RAW,
		[RINGBUF_CLOCK_BOOT] = CLOCK_BOOTTIME,
		[RINGBUF_CLOCK_TSC] = CLOCK_MONOTONIC_RAW,
	};
	struct timespec ts;

	clock_gettime(rb_clockids[clock], &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Cross-file prototypes                                               */

RB_HIDDEN int64_t rb_clock_mono_raw_ns(void);
RB_HIDDEN bool rb_clock_next(const struct ringbuf_fe_clock *cur, bool valid,
			     uint64_t tsc_prev, int64_t ns_prev, uint64_t tsc,
			     int64_t ns, int64_t window,
			     struct ringbuf_fe_clock *next);
RB_HIDDEN int rb_membarrier(void);
RB_HIDDEN bool rb_have_membarrier(void);
RB_HIDDEN uint32_t rb_gettid(void);
RB_HIDDEN int rb_current_cpu_slow(void);
RB_HIDDEN int rb_nr_possible_cpus(void);
RB_HIDDEN void rb_thread_slot_track(void);
RB_HIDDEN void rb_buffer_register(struct ringbuf *rb);
RB_HIDDEN void rb_buffer_unregister(struct ringbuf *rb);

RB_HIDDEN void rb_init_cpu_pages(struct ringbuf_cpu *cpu_buffer);

/* Where each part of a buffer's mapping lies (ringbuf.c). */
struct rb_layout {
	size_t cpu_meta_off, cpu_meta_size, lock_off, lock_size, page_ctl_off,
		data_off, map_size;
	uint32_t total_pages;
	/* The page counts it was computed from (the caller's array, read
	 * once from the file by a view and checked): rb_cpu_bind() takes
	 * each cpu buffer's count and first page from here, never from the
	 * file. */
	const uint32_t *nr_pages;
};

static inline size_t rb_align(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

RB_HIDDEN int rb_layout(struct ringbuf *rb, const uint32_t *nr_pages,
			struct rb_layout *l);
RB_HIDDEN struct ringbuf_cpu *rb_cpu_new(struct ringbuf *rb, int c,
					 const struct rb_layout *l);
RB_HIDDEN void rb_cpu_bind(struct ringbuf *rb, struct ringbuf_cpu *cb,
			   void *hdr, void *map, const struct rb_layout *l);
RB_HIDDEN void rb_follow_layout(struct ringbuf_cpu *cb);
RB_HIDDEN void *rb_map_grow(struct ringbuf *rb, size_t need, size_t *sizep);
RB_HIDDEN void rb_data_maps_free(struct ringbuf *rb);
RB_HIDDEN uint64_t rb_new_uid(void);
/* read.c and iter.c */
#define RB_NO_PAGE UINT32_MAX

static inline struct ringbuf_cpu *rb_cpu(struct ringbuf *rb, int cpu)
{
	if (!rb || cpu < 0 || cpu >= rb->nr_cpus)
		return NULL;
	return rb->buffers[cpu];
}

/* Committed bytes of a page, flags masked; acquire as rb_page_commit(). */
static inline uint64_t rb_page_size(struct ringbuf_cpu *cpu_buffer, uint32_t id)
{
	return rb_page_commit(cpu_buffer, id) & RINGBUF_COMMIT_MASK;
}

/* The page's time stamp. Relaxed: callers load it after the commit
 * (rb_page_size()), whose release by the writer publishes it. */
static inline uint64_t rb_page_stamp(struct ringbuf_cpu *cpu_buffer,
				     uint32_t id)
{
	return atomic_load_explicit(&rb_data(cpu_buffer, id)->time_stamp,
				    memory_order_relaxed);
}

RB_HIDDEN uint32_t rb_set_head_page(struct ringbuf_cpu *cpu_buffer);
/* shared.c: the file, its mapping and its locks; attaching. */
RB_HIDDEN void *rb_map_alloc(size_t size, int fd);
RB_HIDDEN char *rb_shm_path(const char *name);
RB_HIDDEN int rb_init_shared_locks(struct ringbuf *rb);
RB_HIDDEN int rb_reader_lock(struct ringbuf_cpu *cpu_buffer);
/* Whether an rb_reader_lock() result lets a reader that only looks go on
 * (the file's lock held, or only not to be had now: not a broken view). */
static inline bool rb_lock_may_look(int err)
{
	return err != -EIO && err != -EBADMSG;
}
RB_HIDDEN bool rb_reader_trylock(struct ringbuf_cpu *cpu_buffer);
RB_HIDDEN int rb_shared_lock(struct ringbuf_cpu *cpu_buffer, bool wait);
/* Set by rb_shared_lock() when a signal handler ended its wait, for the
 * caller that does not see its result (ringbuf_wait() clears it). */
RB_HIDDEN extern __thread bool rb_lock_interrupted;
RB_HIDDEN void rb_shared_unlock(struct ringbuf_cpu *cpu_buffer);
RB_HIDDEN int rb_guard_add(void *addr, size_t len, _Atomic int *err);
RB_HIDDEN void rb_guard_del(void *addr);
RB_HIDDEN void rb_wake_waiters(struct ringbuf_cpu *cpu_buffer);
/* wait.c: writers waiting for room (rb_wait_for_room()). */
RB_HIDDEN void rb_room_wake(struct rb_cpu_meta *m);
RB_HIDDEN void rb_room_wait(struct rb_cpu_meta *m, uint32_t seq,
			    uint64_t max_ns);
RB_HIDDEN bool rb_writer_gone(struct ringbuf *rb);
/* recover.c: the reader's crash recovery, and its hooks in read.c. */
RB_HIDDEN void rb_recover_cpu(struct ringbuf_cpu *cpu_buffer);
RB_HIDDEN void rb_recover_all(struct ringbuf *rb);
RB_HIDDEN void rb_reader_repair_dead(struct ringbuf_cpu *cb);
RB_HIDDEN void rb_swap_record(struct ringbuf_cpu *cb, uint32_t head);
RB_HIDDEN bool rb_recover_dead_writer(struct ringbuf_cpu *cb,
				      bool *recovered);
RB_HIDDEN int rb_membarrier_global(void);
RB_HIDDEN void rb_membarrier_register_global(void);
RB_HIDDEN void rb_reader_unlock(struct ringbuf_cpu *cpu_buffer);
RB_HIDDEN int rb_writers_drain(struct ringbuf *rb, int cpu);
RB_HIDDEN struct ringbuf_event *rb_reader_peek_locked(struct ringbuf_cpu *cb,
						       uint64_t *ts,
						       unsigned long *lost);
RB_HIDDEN unsigned long rb_num_of_entries(struct ringbuf_cpu *cpu_buffer);
RB_HIDDEN void rb_read_copy_free(void);
RB_HIDDEN uint64_t rb_rollback_torn(struct ringbuf_cpu *cb,
				    unsigned int nr_torn);

#endif /* RINGBUF_INTERNAL_H */
