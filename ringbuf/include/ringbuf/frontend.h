/* SPDX-License-Identifier: MIT */
/*
 * ringbuf/frontend.h - the write fast path, inline in the caller.
 *
 * ringbuf_reserve_inline() and ringbuf_commit_inline() do what
 * ringbuf_lock_reserve() and ringbuf_unlock_commit() do, compiled into
 * the caller: the common case of a write (a small record, no page
 * crossing, no nested writer in the way, no time extend) costs no call
 * into the library. Every other case goes to a named out-of-line function
 * of the library (ringbuf_fe_*_slow and friends), which continues from
 * where the inline code stopped, with the kernel's algorithm
 * (rb_move_tail(), the A..F stamp logic, rb_end_commit()).
 *
 * This header exposes the part of the library's state that the fast path
 * reads and writes, as "view" structures laid out like the library's own
 * (the library checks every offset at build time). The layout is ABI:
 * it belongs to the symbol version RINGBUF_0.2 (the frame word's
 * RINGBUF_FE_NOTED bit to RINGBUF_0.5: ringbuf_fe_claim_noted_slow(); the
 * earlier ringbuf_fe_claim_slow() keeps the word without it for the
 * inline code of the earlier headers; the owner word's RINGBUF_FE_KEPT
 * bit, the per-CPU claim kept between writes, to RINGBUF_0.6:
 * ringbuf_fe_claim_active_slow(), while the earlier slow paths keep the
 * claim for one write that the earlier headers' inline code knows; the
 * buffer's fe_slow word, the rare cases of a write in one test, to
 * RINGBUF_0.7: ringbuf_fe_reserve_flagged(); that word counting the
 * disabled cpu buffers too, to RINGBUF_0.8: ringbuf_fe_reserve_rare();
 * the thread's slot_cb, the cpu buffer of its first slot key, to
 * RINGBUF_0.11: ringbuf_fe_claim_slot_slow()),
 * and a change of it changes
 * that version. Use only the functions; the structures may grow
 * and their fields are no interface.
 *
 * What the fast path costs per record, and how that was counted and
 * changed: Documentation/ring-buffer-design.rst, "The inline fast path".
 */
#ifndef RINGBUF_FRONTEND_H
#define RINGBUF_FRONTEND_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include <ringbuf/ringbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The state the fast path sees                                        */

/** Writer nesting the fast path handles: the thread and 4 signal levels. */
#define RINGBUF_FE_MAX_NEST 5u
#define RINGBUF_FE_MAX_FRAMES (RINGBUF_FE_MAX_NEST + 1u)
#define RINGBUF_FE_SLOT_IDX_BITS 16
#define RINGBUF_FE_SLOT_CACHE 4
#define RINGBUF_FE_WRITE_MASK 0xfffffULL
#define RINGBUF_FE_TS_DELTA_TEST (~((1ULL << 27) - 1))

/*
 * One reservation of the thread: the cpu buffer, bit 0 set if this write
 * claimed it, bit 1 (RINGBUF_FE_NOTED) if it is a spare, whose writes go
 * out of line to put a CPU note before their record (since RINGBUF_0.4).
 */
#define RINGBUF_FE_CLAIMED ((uintptr_t)1)
#define RINGBUF_FE_NOTED ((uintptr_t)2)
#define RINGBUF_FE_FRAME_CB(f) ((f) & ~(RINGBUF_FE_CLAIMED | RINGBUF_FE_NOTED))
/*
 * The owner word of a CPU buffer claimed by restartable sequence holds
 * the thread id with this bit while the thread keeps its claim between
 * writes (since RINGBUF_0.6; the buffer's active count says whether a
 * write is in progress). A plain thread id there is a claim for one write,
 * given back at its end (spares, buffers claimed by compare-and-exchange,
 * and the inline code of the earlier headers). Thread ids stay below it.
 */
#define RINGBUF_FE_KEPT 0x80000000u
/* struct ringbuf_tls.cpu_hint of a CPU it cannot hold: never matches. */
#define RINGBUF_FE_NO_HINT 0xffffu
struct ringbuf_fe_frame {
	uintptr_t cpu_buffer_claimed;
};

/**
 * struct ringbuf_tls - the thread's stack of reservations (its signal
 * handlers push on the same stack) and the cache of its per-thread slots.
 */
struct ringbuf_tls {
	unsigned int depth;
	unsigned int nest_extra;
	uint32_t tid;
	bool exit_armed;
	unsigned char pad0;
	/* The CPU of the thread's last per-CPU write (RINGBUF_FE_NO_HINT
	 * above 65534): a guess that ringbuf_fe_writer_get() checks. In what
	 * was padding before: a library of the older layout never reads
	 * it and leaves it 0, a guess like any other. */
	uint16_t cpu_hint;
	int forced_cpu1;
	struct ringbuf_fe_frame frame[RINGBUF_FE_MAX_FRAMES];
	uint64_t slot[RINGBUF_FE_SLOT_CACHE];
	/* (RINGBUF_0.11) The cpu buffer of the key in slot[0], so that the
	 * write finds it without a load that waits for the key. Set only by
	 * the thread's outermost write, between a store of 0 to slot[0] and
	 * the store of the new key there: a handler that interrupts that
	 * finds no key, and no handler changes the pair under a write it
	 * interrupts (see ringbuf_fe_writer_get()). A library of the earlier
	 * layout never sets it, and the inline code that reads it calls
	 * ringbuf_fe_claim_slot_slow(), which only this one has. */
	struct ringbuf_fe_cpu *slot_cb;
};

/* View of struct ringbuf's first cache line. */
struct ringbuf_fe_buffer {
	int record_disabled;
	int flags;
	bool time_stamp_abs;
	bool rseq_claim;
	int clock;
	int model;
	int nr_cpus;
	int nr_cpu_bufs;
	uint32_t subbuf_size;
	uint32_t bsize;
	uint32_t max_data_size;
	uint64_t uid;
	struct ringbuf_fe_cpu **buffers;
	/* (RINGBUF_0.7) Nonzero while a write cannot take the inline path
	 * for a reason of the whole buffer: recording off or disabled,
	 * absolute time stamps, writers that fence themselves; (RINGBUF_0.8)
	 * a cpu buffer disabled. One count per reason, kept by the library
	 * beside the words the earlier headers' inline code tests
	 * (record_disabled of the buffer and of its cpu buffers,
	 * time_stamp_abs, ringbuf_fe_writer_fence), which keep their
	 * meaning. */
	int fe_slow;
};

/* View of a cpu buffer's process-local state (struct ringbuf_cpu). */
struct ringbuf_fe_cpu {
	uint32_t owner;
	int record_disabled;
	uint64_t committing;
	uint64_t commits;
	uint64_t active;
	uint64_t dropped_unclaimed;
	unsigned char pad0[24];
	struct ringbuf *buffer;
	struct ringbuf_fe_meta *meta;
	struct ringbuf_fe_page *pages;
	unsigned char *data;
	uint32_t nr_pages;
	uint32_t subbuf_shift;
};

/* View of a cpu buffer's state in the mapping (struct rb_cpu_meta). */
struct ringbuf_fe_meta {
	unsigned char pad0[64];
	uint32_t tail_page;
	uint32_t commit_page;
	uint64_t before_stamp;
	uint64_t write_stamp;
	uint64_t entries;
	uint64_t entries_bytes;
	unsigned char pad1[152];
	uint32_t waiters;
};

/* View of a page's control block (struct rb_page_ctl). */
struct ringbuf_fe_page {
	uint32_t next;
	uint32_t prev;
	uint32_t real_end;
	uint32_t id;
	uint64_t write;
	uint64_t entries;
	uint64_t read;
};

/**
 * struct ringbuf_fe_clock - the default clock's scale (see clock.c):
 * CLOCK_MONOTONIC ns = @ns0 + ((TSC - @tsc0) * @mult >> 32) while the
 * TSC is below @tsc_end. Readers take it under the sequence count @seq,
 * which is odd while it is rewritten and while there is no scale.
 */
struct ringbuf_fe_clock {
	uint32_t seq;
	uint32_t pad;
	uint64_t tsc0;
	uint64_t ns0;
	uint64_t mult;
	uint64_t tsc_end;
};

/** The default clock's scale (RINGBUF_0.3). */
RINGBUF_API extern struct ringbuf_fe_clock ringbuf_fe_mono;
/** The default clock's slow path: calibration, clock_gettime(). */
RINGBUF_API uint64_t ringbuf_clock_mono_slow(void);

RINGBUF_API extern __thread struct ringbuf_tls ringbuf_tls
	__attribute__((tls_model("initial-exec")));
/** Nonzero when glibc registered an rseq area (its cpu_id is current). */
RINGBUF_API extern int ringbuf_fe_rseq_ok;
/** Writers issue a full fence after marking themselves active (no membarrier). */
RINGBUF_API extern bool ringbuf_fe_writer_fence;
extern const ptrdiff_t __rseq_offset __attribute__((weak));

/* The out-of-line rest of a write (see write.c). */
RINGBUF_API struct ringbuf_event *
ringbuf_fe_reserve_slow(struct ringbuf *rb, unsigned long length, int *err);
RINGBUF_API uintptr_t ringbuf_fe_claim_noted_slow(struct ringbuf *rb, int cpu,
						  int *err);
/* The claim's slow path of this header (RINGBUF_0.6): the cpu buffer it
 * returns is marked active already (active raised by one). */
RINGBUF_API uintptr_t ringbuf_fe_claim_active_slow(struct ringbuf *rb, int cpu,
						   int *err);
/* The reserve's slow path of the RINGBUF_0.7 header: the write is
 * entered (frame pushed, cpu buffer active) and one of the rare cases
 * holds (a spare, the buffer's fe_slow, the cpu buffer disabled). */
RINGBUF_API struct ringbuf_event *
ringbuf_fe_reserve_flagged(struct ringbuf *rb, unsigned long length, int *err);
/* The same for this header (RINGBUF_0.8), whose inline code finds a
 * disabled cpu buffer in the buffer's fe_slow. */
RINGBUF_API struct ringbuf_event *
ringbuf_fe_reserve_rare(struct ringbuf *rb, unsigned long length, int *err);
/* The claim's slow path of this header (RINGBUF_0.11): as
 * ringbuf_fe_claim_active_slow(), and a per-thread slot put first in the
 * thread's cache goes with its cpu buffer in the thread's slot_cb. */
RINGBUF_API uintptr_t ringbuf_fe_claim_slot_slow(struct ringbuf *rb, int cpu,
						 int *err);
/* (the frame word without RINGBUF_FE_NOTED: earlier headers' inline code) */
RINGBUF_API uintptr_t ringbuf_fe_claim_slow(struct ringbuf *rb, int cpu,
					    int *err);
RINGBUF_API struct ringbuf_event *
ringbuf_fe_reserve_noted(struct ringbuf *rb, unsigned long length, int *err);
RINGBUF_API struct ringbuf_event *
ringbuf_fe_reserve_next_slow(struct ringbuf *rb, struct ringbuf_fe_cpu *cb,
			     unsigned long length, int *err);
RINGBUF_API struct ringbuf_event *
ringbuf_fe_move_tail(struct ringbuf_fe_cpu *cb, uint32_t tail_page,
		     unsigned long tail, unsigned long length, int *err);
/* The same two with the caller's stamp (RINGBUF_0.11): a record written
 * late keeps the time it stands for through a page move (0: read the
 * clock, as the two above do). */
RINGBUF_API struct ringbuf_event *
ringbuf_fe_reserve_next_slow_ts(struct ringbuf *rb, struct ringbuf_fe_cpu *cb,
				unsigned long length, uint64_t ts, int *err);
RINGBUF_API struct ringbuf_event *
ringbuf_fe_move_tail_ts(struct ringbuf_fe_cpu *cb, uint32_t tail_page,
			unsigned long tail, unsigned long length, uint64_t ts,
			int *err);
RINGBUF_API struct ringbuf_event *
ringbuf_fe_reserve_interrupted(struct ringbuf_fe_cpu *cb, uint32_t tail_page,
			       unsigned long write, unsigned long length,
			       uint64_t ts);
/* The caller's stamp kept by the other out-of-line paths too (RINGBUF_0.11,
 * after ringbuf_fe_move_tail_ts()): the deep nest or long record, the
 * rare cases (a spare, fe_slow), an interrupted reservation (@want: the
 * caller's stamp, @ts the one taken at A). 0: none, the clock read. */
RINGBUF_API struct ringbuf_event *
ringbuf_fe_reserve_slow_ts(struct ringbuf *rb, unsigned long length,
			   uint64_t ts, int *err);
RINGBUF_API struct ringbuf_event *
ringbuf_fe_reserve_rare_ts(struct ringbuf *rb, unsigned long length,
			   uint64_t ts, int *err);
RINGBUF_API struct ringbuf_event *
ringbuf_fe_reserve_interrupted_ts(struct ringbuf_fe_cpu *cb,
				  uint32_t tail_page, unsigned long write,
				  unsigned long length, uint64_t ts,
				  uint64_t want);
RINGBUF_API void ringbuf_fe_end_commit_slow(struct ringbuf_fe_cpu *cb);
/* A pair's second drop (RINGBUF_0.11, ringbuf_reserve_pair_inline()): the
 * failed reservation counted one. */
RINGBUF_API void ringbuf_fe_pair_dropped(struct ringbuf *rb);
RINGBUF_API void ringbuf_fe_wake_waiters(struct ringbuf_fe_cpu *cb);

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

#define RINGBUF_FE_INLINE static inline __attribute__((always_inline))
#define ringbuf_fe_likely(x) __builtin_expect(!!(x), 1)
#define ringbuf_fe_unlikely(x) __builtin_expect(!!(x), 0)
/* Compiler barrier: orders against our own signal handlers only. */
#define ringbuf_fe_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)

#ifndef RINGBUF_FE_TESTPOINT
#define RINGBUF_FE_TESTPOINT(cb, tp) do { } while (0)
#endif

#if defined(__SANITIZE_THREAD__)
#define RINGBUF_FE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RINGBUF_FE_TSAN 1
#endif
#endif

/*
 * GCC 12 and later warn (-Wtsan) at every fence compiled with
 * -fsanitize=thread, which does not model fences; this header's fences
 * order against membarrier() and the seqcount writer, as their comments
 * say. A program's ThreadSanitizer build with -Werror must not fail on
 * them: the warning is off from here to the end of the header (the
 * library's own TSan build passes -Wno-tsan).
 */
#if defined(RINGBUF_FE_TSAN) && defined(__GNUC__) && !defined(__clang__) && \
	__GNUC__ >= 12
#define RINGBUF_FE_TSAN_PRAGMA 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan"
#endif

/*
 * The kernel's local_t on a cpu buffer word: atomic against the owner's
 * signal handlers, not against other threads (which only load it). On
 * x86-64 one instruction without LOCK; elsewhere, and under
 * ThreadSanitizer, a relaxed atomic read-modify-write.
 */
#if defined(__x86_64__) && !defined(RINGBUF_FE_TSAN)
RINGBUF_FE_INLINE uint64_t ringbuf_fe_local_add_return(uint64_t v, uint64_t *l)
{
	uint64_t old = v;

	__asm__ __volatile__("xaddq %0, %1" : "+r"(old), "+m"(*l) : : "memory");
	return old + v;
}

RINGBUF_FE_INLINE void ringbuf_fe_local_add(uint64_t v, uint64_t *l)
{
	__asm__ __volatile__("addq %1, %0" : "+m"(*l) : "er"(v));
}
#else
RINGBUF_FE_INLINE uint64_t ringbuf_fe_local_add_return(uint64_t v, uint64_t *l)
{
	return __atomic_add_fetch(l, v, __ATOMIC_RELAXED);
}

RINGBUF_FE_INLINE void ringbuf_fe_local_add(uint64_t v, uint64_t *l)
{
	__atomic_fetch_add(l, v, __ATOMIC_RELAXED);
}
#endif

RINGBUF_FE_INLINE uint64_t ringbuf_fe_local_read(const uint64_t *l)
{
	return __atomic_load_n(l, __ATOMIC_RELAXED);
}

RINGBUF_FE_INLINE void ringbuf_fe_local_set(uint64_t *l, uint64_t v)
{
	__atomic_store_n(l, v, __ATOMIC_RELAXED);
}

#if defined(__x86_64__)
RINGBUF_FE_INLINE uint64_t ringbuf_fe_rdtsc(void)
{
	/* The compiler's builtin (GCC and clang): it knows the two halves
	 * come zero-extended, and joins them in two instructions, not four.
	 * Volatile as the asm was: kept in order with the fences. */
	return __builtin_ia32_rdtsc();
}
#endif

#if defined(__SIZEOF_INT128__)
__extension__ typedef __int128 ringbuf_fe_i128;

/* The default clock's arithmetic; signed: another CPU's TSC may lie a
 * few cycles before the scale's start. */
RINGBUF_FE_INLINE uint64_t ringbuf_fe_mono_scale(uint64_t tsc, uint64_t tsc0,
						 uint64_t ns0, uint64_t mult)
{
	return ns0 + (uint64_t)(((ringbuf_fe_i128)(int64_t)(tsc - tsc0) *
				 (ringbuf_fe_i128)mult) >> 32);
}
#endif

/**
 * ringbuf_fe_mono_ns - the default clock (RINGBUF_CLOCK_MONO) now:
 * CLOCK_MONOTONIC nanoseconds, from one rdtsc where the scale is
 * calibrated (see ringbuf/src/clock.c), from clock_gettime() elsewhere.
 */
#if defined(__x86_64__)
/*
 * @tsc (read by the caller) as the default clock, if the scale is there,
 * not being rewritten, and (@check_end) still good for it; 0 otherwise.
 * The TSC may be read before the scale: a scale that replaces another
 * starts where the old one stood. The slow path reads past the end while
 * another thread recalibrates.
 */
RINGBUF_FE_INLINE uint64_t ringbuf_fe_mono_read(uint64_t tsc, bool check_end)
{
	struct ringbuf_fe_clock *c = &ringbuf_fe_mono;
	/* Acquire: pairs with the release store of the count in
	 * rb_clock_publish(); the block is read after it. */
	uint32_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
	uint64_t tsc0 = __atomic_load_n(&c->tsc0, __ATOMIC_RELAXED);
	uint64_t ns0 = __atomic_load_n(&c->ns0, __ATOMIC_RELAXED);
	uint64_t mult = __atomic_load_n(&c->mult, __ATOMIC_RELAXED);
	uint64_t end = __atomic_load_n(&c->tsc_end, __ATOMIC_RELAXED);

	/* Acquire fence: the block's loads before the count's second
	 * load; pairs with the release fence in rb_clock_publish(). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (ringbuf_fe_likely(!(seq & 1) && (!check_end || tsc < end) &&
			      __atomic_load_n(&c->seq, __ATOMIC_RELAXED) == seq))
		return ringbuf_fe_mono_scale(tsc, tsc0, ns0, mult);
	return 0;
}
#endif

RINGBUF_FE_INLINE uint64_t ringbuf_fe_mono_ns(void)
{
#if defined(__x86_64__)
	uint64_t ns = ringbuf_fe_mono_read(ringbuf_fe_rdtsc(), true);

	if (ringbuf_fe_likely(ns))
		return ns;
#endif
	return ringbuf_clock_mono_slow();
}

/* The event clock (rb_time_stamp()): inline for the TSC clock (as fast as
 * before the default clock was) and for the default clock. */
RINGBUF_FE_INLINE uint64_t ringbuf_fe_time_stamp(struct ringbuf *rb)
{
	int clock = ((const struct ringbuf_fe_buffer *)rb)->clock;

#if defined(__x86_64__)
	if (clock == RINGBUF_CLOCK_TSC)
		return ringbuf_fe_rdtsc();
#endif
	if (ringbuf_fe_likely(clock == RINGBUF_CLOCK_MONO))
		return ringbuf_fe_mono_ns();
	return ringbuf_time_stamp(rb);
}

/* The CPU the thread runs on, from the rseq area; -1 if unknown. */
RINGBUF_FE_INLINE int ringbuf_fe_current_cpu(void)
{
#if defined(__x86_64__)
	if (ringbuf_fe_likely(ringbuf_fe_rseq_ok)) {
		int32_t cpu;

		/* rseq->cpu_id (offset 4), set by the kernel on migration */
		__asm__ __volatile__("movl %%fs:(%1), %0"
				     : "=r"(cpu)
				     : "r"(__rseq_offset + 4));
		return cpu;
	}
#endif
	return -1;
}

/*
 * ThreadSanitizer cannot see the sequence's store of the owner word; it
 * runs all the same (the claim ThreadSanitizer builds exercise is the
 * one the others run), and a successful claim is an acquire of the owner
 * word for it, which is what the claim stands for: it pairs with the
 * previous owner's release store of 0 (ringbuf_fe_writer_put()), so every
 * write of the previous owner happens before ours.
 */
#ifdef RINGBUF_FE_TSAN
void __tsan_acquire(void *addr);
#define RINGBUF_FE_TSAN_ACQUIRE(p) __tsan_acquire((void *)(p))
#else
#define RINGBUF_FE_TSAN_ACQUIRE(p) ((void)0)
#endif

#if defined(__x86_64__)
#define RINGBUF_FE_RSEQ_ASM 1
/*
 * The frame of this header's restartable sequences (asm goto with the
 * operand [area], __rseq_offset, and the labels aborted and busy; rax
 * clobbered): RINGBUF_FE_RSEQ_BEGIN stores the descriptor's address in
 * the thread's rseq_cs; the sequence runs from label 1, jumps to 5 when
 * not on its CPU, to 6 when busy, and its last instruction, the commit,
 * comes right before RINGBUF_FE_RSEQ_END (label 2), after which the
 * success goes straight on (5 and 6 are out of line, beside the abort
 * handler). The descriptor
 * (struct rseq_cs: version, flags, start, length, abort) goes to its own
 * section; the abort handler (4) is preceded by the signature glibc
 * registered (RSEQ_SIG, 0x53053053 on x86), encoded as the operand of a
 * ud1 so that the bytes disassemble. %fs:__rseq_offset is the thread's
 * struct rseq: cpu_id at 4, rseq_cs at 8. rseq_cs is cleared again on
 * every way out, so that no thread keeps pointing the kernel at the
 * descriptor of a library that is unloaded later.
 */
#define RINGBUF_FE_RSEQ_BEGIN                                              \
	".pushsection __rseq_cs, \"aw\"\n\t"                                \
	".balign 32\n"                                                      \
	"3:\n\t"                                                            \
	".long 0, 0\n\t"                                                    \
	".quad 1f, 2f - 1f, 4f\n\t"                                         \
	".popsection\n\t"                                                   \
	".pushsection __rseq_failure, \"ax\"\n\t"                           \
	".byte 0x0f, 0xb9, 0x3d\n\t"                                        \
	".long 0x53053053\n"                                                \
	"4:\n\t"                                                            \
	"jmp 5f\n\t"                                                        \
	".popsection\n\t"                                                   \
	"leaq 3b(%%rip), %%rax\n\t"                                          \
	"movq %%rax, %%fs:8(%[area])\n"                                     \
	"1:\n\t"
#define RINGBUF_FE_RSEQ_END                                                \
	"2:\n\t"                                                            \
	"movq $0, %%fs:8(%[area])\n\t"                                       \
	".pushsection __rseq_failure, \"ax\"\n"                            \
	"5:\n\t"                                                            \
	"movq $0, %%fs:8(%[area])\n\t"                                       \
	"jmp %l[aborted]\n"                                                 \
	"6:\n\t"                                                            \
	"movq $0, %%fs:8(%[area])\n\t"                                       \
	"jmp %l[busy]\n\t"                                                 \
	".popsection\n\t"
/*
 * ringbuf_fe_rseq_claim - claim the cpu buffer of @cpu for thread @tid
 * without a LOCKed instruction: a restartable sequence on the rseq area
 * glibc registered for the thread. Inside the sequence: the thread still
 * runs on @cpu, the owner word is 0; then the one store of @tid commits
 * the claim. Preemption, migration or a signal before that store makes
 * the kernel restart the thread at the abort handler, so no other thread
 * of @cpu ran between the check and the store. That is enough only if
 * every claim of this word runs on @cpu in such a sequence
 * (struct ringbuf.rseq_claim, see rb_claim_slow()); the release of the
 * claim is the owner's plain store of 0, from any CPU.
 *
 * Return: 1 claimed, 0 owned by another thread, -1 aborted (not on @cpu,
 * or interrupted): nothing stored either way.
 */
RINGBUF_FE_INLINE int ringbuf_fe_rseq_claim(uint32_t *owner, int cpu, uint32_t tid)
{
	__asm__ goto(RINGBUF_FE_RSEQ_BEGIN
		     "cmpl %[cpu], %%fs:4(%[area])\n\t"
		     "jne 5f\n\t"
		     "cmpl $0, %[owner]\n\t"
		     "jne 6f\n\t"
		     "movl %[tid], %[owner]\n"
		     RINGBUF_FE_RSEQ_END
		     :
		     : [area] "r"(__rseq_offset), [cpu] "r"(cpu), [tid] "r"(tid),
		       [owner] "m"(*owner)
		     : "rax", "memory", "cc"
		     : aborted, busy);
	RINGBUF_FE_TSAN_ACQUIRE(owner);
	return 1;
aborted:
	return -1;
busy:
	return 0;
}

/*
 * ringbuf_fe_rseq_enter - start a write in the cpu buffer of @cpu that the
 * thread keeps claimed (@tidk: its id | RINGBUF_FE_KEPT), without a LOCKed
 * instruction and without a store to the owner word (RINGBUF_0.6). Inside
 * the restartable sequence: the thread still runs on @cpu and the owner
 * word still holds @tidk; then one non-LOCKed add to @active, the last
 * instruction, commits: 0 to 1 for the thread's outermost write, one more
 * for a signal handler nesting in it. Another thread takes a kept claim
 * over only in a sequence on @cpu that finds active 0 (rb_rseq_take() in
 * the library), so the two never interleave: once active is raised, the
 * buffer is ours until ringbuf_fe_writer_put() lowers it, from whatever
 * CPU. No fence for the previous writer's accesses: the owner word only
 * changes hands with active 0, which its last writer stored with release
 * semantics (ringbuf_fe_writer_put()), and x86 loads are acquire loads.
 *
 * Return: 1 entered, 0 the claim is another thread's now, -1 aborted (not
 * on @cpu, or interrupted): nothing stored either way.
 */
RINGBUF_FE_INLINE int ringbuf_fe_rseq_enter(uint32_t *owner, uint64_t *active,
					    int cpu, uint32_t tidk)
{
	__asm__ goto(RINGBUF_FE_RSEQ_BEGIN
		     "cmpl %[cpu], %%fs:4(%[area])\n\t"
		     "jne 5f\n\t"
		     "cmpl %[tidk], %[owner]\n\t"
		     "jne 6f\n\t"
		     "addq $1, %[active]\n"
		     RINGBUF_FE_RSEQ_END
		     :
		     : [area] "r"(__rseq_offset), [cpu] "r"(cpu), [tidk] "r"(tidk),
		       [owner] "m"(*owner), [active] "m"(*active)
		     : "rax", "memory", "cc"
		     : aborted, busy);
	/* For ThreadSanitizer: the acquire of active that the load in the
	 * sequence is (see above). */
	RINGBUF_FE_TSAN_ACQUIRE(active);
	return 1;
aborted:
	return -1;
busy:
	return 0;
}
#endif

/*
 * The frame word of a cpu buffer of the fast path (@cb not claimed by
 * this write): the buffer's array holds no NULL, which the compiler is
 * told, so that the caller's test of the word for a failure (0) is left
 * to the slow paths that may return one.
 */
RINGBUF_FE_INLINE uintptr_t ringbuf_fe_cb_word(struct ringbuf_fe_cpu *cb)
{
	if (!cb)
		__builtin_unreachable();
	return (uintptr_t)cb;
}

/* The data page (sub-buffer) of local page @id. */
RINGBUF_FE_INLINE unsigned char *ringbuf_fe_page_data(struct ringbuf_fe_cpu *cb,
						      uint32_t id)
{
	return cb->data + ((size_t)id << cb->subbuf_shift);
}

/* Bytes of a record with @length bytes of payload (rb_calculate_event_length). */
RINGBUF_FE_INLINE unsigned long ringbuf_fe_event_length(unsigned long length)
{
	if (!length)
		length++;
	if (length > RINGBUF_MAX_SMALL_DATA)
		length += sizeof(uint32_t);
	length += RINGBUF_EVENT_HDR_SIZE;
	length = (length + 3) & ~3ul;
	/* a 12-byte record is made 16 (see rb_calculate_event_length()) */
	if (length == 12)
		length += 4;
	return length;
}

/*
 * The per-CPU model's claim of the buffer of @cpu (the userspace
 * preempt_disable()), marked active: kept by this thread (a restartable
 * sequence raises active), ours already (a signal handler of the owner
 * nests), or free and taken. Returns the cpu buffer with bit 0 set if
 * this write claimed it (and gives it back at its end), 0 on failure (err
 * set, nothing held).
 */
RINGBUF_FE_INLINE uintptr_t ringbuf_fe_claim_cpu_as(struct ringbuf *rb,
						    struct ringbuf_tls *t,
						    int cpu, bool rseq,
						    int *err)
{
	const struct ringbuf_fe_buffer *b = (const struct ringbuf_fe_buffer *)rb;
	struct ringbuf_fe_cpu *cb;
	uint32_t own, expect = 0;

	if (ringbuf_fe_unlikely((unsigned int)cpu >= (unsigned int)b->nr_cpu_bufs))
		return ringbuf_fe_claim_active_slow(rb, cpu, err);
	cb = b->buffers[cpu];
#ifdef RINGBUF_FE_RSEQ_ASM
	if (ringbuf_fe_likely(rseq)) {
		/* The claim the thread keeps between writes: no store to the
		 * owner word, no release of it; the sequence checks that the
		 * word holds our kept id. (Since RINGBUF_0.8 not before it
		 * too: a disabled cpu buffer, which the earlier check sent to
		 * the slow path with the owner word, counts in the buffer's
		 * fe_slow, which the write tests after raising active.) */
		uint32_t tidk = t->tid | RINGBUF_FE_KEPT;

		/* (exit_armed is not looked at: only the claim's slow path,
		 * which arms the exit destructor first, stores a kept id; a
		 * thread without one, tid 0, finds KEPT alone nowhere) */
		if (ringbuf_fe_likely(ringbuf_fe_rseq_enter(&cb->owner, &cb->active,
							    cpu, tidk) > 0))
			return ringbuf_fe_cb_word(cb);
		/* taken over, another thread's, aborted: the slow path */
		return ringbuf_fe_claim_active_slow(rb, cpu, err);
	}
#endif
	/* exit_armed implies tid: the first write goes to the slow path. */
	if (ringbuf_fe_unlikely(!t->exit_armed))
		return ringbuf_fe_claim_active_slow(rb, cpu, err);
	/* Relaxed: only our own id there means anything without the claim. */
	own = __atomic_load_n(&cb->owner, __ATOMIC_RELAXED);
	if (own == t->tid) {
		ringbuf_fe_local_add(1, &cb->active);
		return ringbuf_fe_cb_word(cb);
	}
	if (rseq)
		/* a build that cannot run the sequence leaves it to the
		 * library's */
		return ringbuf_fe_claim_active_slow(rb, cpu, err);
	/* Acquire: pairs with the release of the previous owner in
	 * ringbuf_fe_writer_put(); a failure sends us to the slow path. */
	if (ringbuf_fe_likely(!own &&
			      !__atomic_load_n(&cb->record_disabled, __ATOMIC_RELAXED) &&
			      __atomic_compare_exchange_n(&cb->owner, &expect, t->tid,
							  false, __ATOMIC_ACQUIRE,
							  __ATOMIC_RELAXED))) {
		ringbuf_fe_local_add(1, &cb->active);
		return (uintptr_t)cb | 1u;
	}
	return ringbuf_fe_claim_active_slow(rb, cpu, err);
}

RINGBUF_FE_INLINE uintptr_t ringbuf_fe_claim_cpu(struct ringbuf *rb,
						 struct ringbuf_tls *t, int cpu,
						 int *err)
{
	return ringbuf_fe_claim_cpu_as(
		rb, t, cpu, ((const struct ringbuf_fe_buffer *)rb)->rseq_claim,
		err);
}

/* The CPU a test forces on the thread (RINGBUF_TESTHOOKS), else @cpu. */
RINGBUF_FE_INLINE int ringbuf_fe_forced_cpu(const struct ringbuf_tls *t, int cpu)
{
#ifdef RINGBUF_TESTHOOKS
	if (t->forced_cpu1)
		return t->forced_cpu1 - 1;
#else
	(void)t;
#endif
	return cpu;
}

/*
 * Pick the cpu buffer of a write and mark it active (active raised by
 * one): the thread's slot (per-thread model) or its CPU's buffer, claimed.
 * Returns the cpu buffer with bit 0 set if this write claimed it, 0 on
 * failure (err set, nothing held).
 */
RINGBUF_FE_INLINE uintptr_t ringbuf_fe_writer_get(struct ringbuf *rb,
						  struct ringbuf_tls *t, int *err)
{
	const struct ringbuf_fe_buffer *b = (const struct ringbuf_fe_buffer *)rb;
	uint64_t key;
	bool rseq;
	int cpu;

#if defined(__x86_64__)
	/* A buffer claimed by restartable sequences exists only where glibc
	 * registered rseq (rb_rseq_ok): its cpu_id is read without looking
	 * at ringbuf_fe_rseq_ok, a load through the GOT saved. The claim is
	 * inlined once for each value of rseq_claim (read once: fixed at
	 * creation), so that the path taken tests it once. Tested first:
	 * only a per-CPU buffer has it, so this path does not look at the
	 * model. */
	rseq = b->rseq_claim;
	if (rseq) {
		/* Relaxed: the thread's own word (and its handlers'); a
		 * handler that rewrites it in between costs a slow path. */
		int hint = __atomic_load_n(&t->cpu_hint, __ATOMIC_RELAXED);

		/* cpu_id takes three dependent loads (the GOT, __rseq_offset,
		 * the rseq area), which measured 2-3 ns per record when the
		 * cpu buffer's address waited for them. The buffer is picked
		 * from the hint instead, and cpu_id only compared with it: a
		 * predicted branch, not a dependency. The claim below checks
		 * cpu_id again inside its restartable sequence. */
		__asm__ __volatile__("movl %%fs:4(%1), %0"
				     : "=r"(cpu)
				     : "r"(__rseq_offset));
		cpu = ringbuf_fe_forced_cpu(t, cpu);
		if (ringbuf_fe_unlikely(cpu != hint)) {
			/* Relaxed: as above. */
			__atomic_store_n(&t->cpu_hint,
					 (uint16_t)((unsigned int)cpu <
								    RINGBUF_FE_NO_HINT ?
							    (unsigned int)cpu :
							    RINGBUF_FE_NO_HINT),
					 __ATOMIC_RELAXED);
			return ringbuf_fe_claim_active_slow(rb, cpu, err);
		}
		return ringbuf_fe_claim_cpu_as(rb, t, hint, true, err);
	}
#else
	rseq = false;
#endif
	/* The per-thread model's slot, from the thread's cache: a key of
	 * this buffer there is enough, without a look at the model (only
	 * per-thread buffers are cached; uids are never reused, never 0).
	 * Its cpu buffer comes with it (slot_cb), not from the buffer's
	 * array at the key's index: a load that waited for the key's, and
	 * the stores of the write for it (1.3 ns of some 15 a record on an
	 * AMD EPYC guest: Documentation/ring-buffer-design.rst). The
	 * two are one pair to this write: they change only in the
	 * outermost write of the thread (ringbuf_fe_claim_slot_slow()),
	 * whose own loads come after, and a handler that interrupts the
	 * change finds slot[0] 0, no key. Relaxed: the thread's own words
	 * (and its handlers'). */
	key = __atomic_load_n(&t->slot[0], __ATOMIC_RELAXED);
	if (ringbuf_fe_likely(key >> RINGBUF_FE_SLOT_IDX_BITS == b->uid)) {
		struct ringbuf_fe_cpu *cb = __atomic_load_n(&t->slot_cb,
							    __ATOMIC_RELAXED);

		ringbuf_fe_local_add(1, &cb->active);
		return ringbuf_fe_cb_word(cb);
	}
	if (b->model == RINGBUF_PER_THREAD)
		return ringbuf_fe_claim_slot_slow(rb, -1, err);
	cpu = ringbuf_fe_current_cpu();
	return ringbuf_fe_claim_cpu_as(rb, t, ringbuf_fe_forced_cpu(t, cpu), rseq,
				       err);
}

/* Pop the frame and give the cpu buffer back (end of a write). */
RINGBUF_FE_INLINE void ringbuf_fe_writer_put(struct ringbuf_tls *t, unsigned int d,
					     struct ringbuf_fe_cpu *cb, bool claimed)
{
	/* Release: the write's accesses happen before a resize/reset that
	 * sees active drop (acquire in rb_writers_drain()), and before the
	 * takeover of a kept claim by another thread, which finds active 0
	 * (rb_rseq_take()). Not a LOCKed RMW: only our handlers share the
	 * word while it is raised. On x86-64 one add to memory after a
	 * compiler barrier: its store is a release store there (stores are
	 * not reordered with earlier loads and stores); elsewhere, and
	 * under ThreadSanitizer, a load and a release store. */
#if defined(__x86_64__) && !defined(RINGBUF_FE_TSAN)
	ringbuf_fe_barrier();
	ringbuf_fe_local_add((uint64_t)-1, &cb->active);
#else
	__atomic_store_n(&cb->active, ringbuf_fe_local_read(&cb->active) - 1,
			 __ATOMIC_RELEASE);
#endif
	/* The frame names no cpu buffer once the write is over: a thread
	 * that leaves between the next ringbuf_fe_writer_begin()'s depth and
	 * its frame (pthread_exit() from a handler, asynchronous
	 * cancellation) leaves an empty frame, which its exit destructor
	 * skips, not this one's cpu buffer, which another thread may own by
	 * then. */
	t->frame[d].cpu_buffer_claimed = 0;
	ringbuf_fe_barrier();
	t->depth = d;
	ringbuf_fe_barrier();
	/* Release: pairs with the acquire of the next owner's claim. A
	 * claim kept between writes (RINGBUF_FE_KEPT) is not given back:
	 * the release store of active above is what the next thread's
	 * takeover pairs with. */
	if (claimed)
		__atomic_store_n(&cb->owner, 0, __ATOMIC_RELEASE);
}

/*
 * The kernel's __rb_reserve_next() for the common case: no time extend,
 * no absolute stamp (the caller has checked the buffer's fe_slow, which
 * counts absolute stamps among its reasons). Anything else before C goes to
 * ringbuf_fe_reserve_next_slow() (nothing is written yet); a page
 * crossing after C to ringbuf_fe_move_tail(), an interruption between A
 * and C to ringbuf_fe_reserve_interrupted().
 *
 * @mono_ts, when not 0, is the default clock read by the caller just
 * before (ringbuf_reserve_inline_at()): a buffer on the default clock
 * takes it as the record's stamp instead of reading the clock again.
 * Read before A rather than between A and B, it can only lie before a
 * record that a signal handler (or, per-CPU, the next owner) wrote in
 * between, and the clamp below gives it that record's stamp, as it
 * would a stamp read on another CPU.
 */
RINGBUF_FE_INLINE struct ringbuf_event *
ringbuf_fe_reserve_next(struct ringbuf *rb, struct ringbuf_fe_cpu *cb,
			unsigned long length, uint64_t mono_ts, int *err)
{
	const struct ringbuf_fe_buffer *b = (const struct ringbuf_fe_buffer *)rb;
	struct ringbuf_fe_meta *m = cb->meta;
	unsigned long len = ringbuf_fe_event_length(length);
	uint64_t w, before, after, ts, delta, write, tail, want;
	struct ringbuf_fe_page *tp;
	uint32_t tail_page, hdr;
	unsigned char *page;
	struct ringbuf_event *event;

	/* rb_start_commit(): the commit page cannot move after this */
	ringbuf_fe_local_add(1, &cb->committing);
	ringbuf_fe_local_add(1, &cb->commits);

	/* Relaxed: only our own signal handlers move the tail. */
	tail_page = __atomic_load_n(&m->tail_page, __ATOMIC_RELAXED);
	tp = &cb->pages[tail_page];
	/*A*/ w = ringbuf_fe_local_read(&tp->write) & RINGBUF_FE_WRITE_MASK;
	ringbuf_fe_barrier();
	before = ringbuf_fe_local_read(&m->before_stamp);
	after = ringbuf_fe_local_read(&m->write_stamp);
	ringbuf_fe_barrier();
	/* the caller's stamp, kept by the slow paths too (RINGBUF_0.11) */
	want = mono_ts && ringbuf_fe_likely(b->clock == RINGBUF_CLOCK_MONO) ?
		       mono_ts :
		       0;
	ts = want ? want : ringbuf_fe_time_stamp(rb);
	/* Userspace: a stamp read on another CPU just after a hand-over
	 * may lie before the last one, which the kernel's never does: it
	 * is clamped (see __rb_reserve_next). A stamp the caller read is
	 * clamped here (the record keeps the caller's time or the last
	 * one); one read here goes out of line instead, where the clamp
	 * is: its delta wraps to a width the test below sends there. */
	if (mono_ts && ringbuf_fe_unlikely(ts < after))
		ts = after;
	delta = ts - after;
	/* (absolute stamps were sent out of line before: the buffer's
	 * fe_slow, tested by ringbuf_fe_reserve_ts()) */
	/* The stamp pair and the delta's width in one test (the first
	 * record of a page, w 0, takes the page's stamp, if it does not
	 * lie before the last one: tested second). */
	if (ringbuf_fe_unlikely(((before ^ after) |
				 (delta & RINGBUF_FE_TS_DELTA_TEST)) != 0) &&
	    (w || ts < after))
		return ringbuf_fe_reserve_next_slow_ts(rb, cb, length, want,
						       err);
	RINGBUF_FE_TESTPOINT(cb, RINGBUF_TP_RESERVE_A_B);

	/*B*/ ringbuf_fe_local_set(&m->before_stamp, ts);
	RINGBUF_FE_TESTPOINT(cb, RINGBUF_TP_RESERVE_B_C);

	/*C*/ write = ringbuf_fe_local_add_return(len, &tp->write);
	write &= RINGBUF_FE_WRITE_MASK;
	tail = write - len;
	if (ringbuf_fe_unlikely(write > b->bsize))
		return ringbuf_fe_move_tail_ts(cb, tail_page, (unsigned long)tail,
					       len, want, err);
	RINGBUF_FE_TESTPOINT(cb, RINGBUF_TP_RESERVE_C_D);
	if (ringbuf_fe_unlikely(tail != w))
		return ringbuf_fe_reserve_interrupted_ts(
			cb, tail_page, (unsigned long)write, len, ts, want);

	/*D*/ ringbuf_fe_local_set(&m->write_stamp, ts);
	page = ringbuf_fe_page_data(cb, tail_page);
	event = (struct ringbuf_event *)(page + RINGBUF_PAGE_HDR_SIZE + tail);
	ringbuf_fe_local_add(1, &tp->entries);
	ringbuf_fe_local_add(len, &m->entries_bytes);
	/* The header in one store: type_len (words of payload), delta. */
	hdr = (uint32_t)((len - RINGBUF_EVENT_HDR_SIZE) / 4) |
	      (uint32_t)(delta << 5);
	if (ringbuf_fe_unlikely(!tail)) {
		/* The first event of a page has the page's time stamp.
		 * Relaxed: published by the commit's release store. */
		__atomic_store_n((uint64_t *)page, ts, __ATOMIC_RELAXED);
		hdr = (uint32_t)((len - RINGBUF_EVENT_HDR_SIZE) / 4);
	}
	/* The header is the last store of the reserve: the caller's
	 * ringbuf_event_data_inline() reads its type_len back, and the
	 * compiler takes it from here (a constant for a constant length)
	 * rather than from memory. */
	__builtin_memcpy(event, &hdr, sizeof(hdr));
	return event;
}

/*
 * ringbuf_fe_writer_enter - the first half of ringbuf_fe_writer_begin():
 * claim a cpu buffer and mark it active, push the frame. Returns the
 * frame word (cpu buffer | claimed | noted), or 0 with @err set and
 * nothing held. The caller checks that the buffer records.
 */
RINGBUF_FE_INLINE uintptr_t ringbuf_fe_writer_enter(struct ringbuf *rb,
						    struct ringbuf_tls *t,
						    unsigned int d, int *err)
{
	uintptr_t f;

	/* The recursion guard: raise depth before the frame is ours. */
	t->depth = d + 1;
	ringbuf_fe_barrier();
	f = ringbuf_fe_writer_get(rb, t, err);
	if (ringbuf_fe_unlikely(!f)) {
		t->depth = d;
		return 0;
	}
	t->frame[d].cpu_buffer_claimed = f;
	return f;
}

/*
 * ringbuf_fe_writer_check - the second half: the write entered at depth
 * @d with frame word @f may go on (true), or the buffer or cpu buffer
 * does not record: @err -EAGAIN, the write left (false).
 */
RINGBUF_FE_INLINE bool ringbuf_fe_writer_check(struct ringbuf *rb,
					       struct ringbuf_tls *t,
					       unsigned int d, uintptr_t f,
					       int *err)
{
	const struct ringbuf_fe_buffer *b = (const struct ringbuf_fe_buffer *)rb;
	struct ringbuf_fe_cpu *cb = (struct ringbuf_fe_cpu *)RINGBUF_FE_FRAME_CB(f);

	/*
	 * The cpu buffer is marked busy (active, raised by
	 * ringbuf_fe_writer_get()); now look at the disable flags. A
	 * resize/reset sets the flag, runs membarrier() (a full barrier on
	 * every CPU running our threads; rb_writers_drain()) and waits for
	 * active to drop: either it sees our mark or we see its flag (the
	 * store-buffer pattern, with the barrier on its side only).
	 */
	ringbuf_fe_barrier();
	if (ringbuf_fe_unlikely(__atomic_load_n(&ringbuf_fe_writer_fence,
						__ATOMIC_RELAXED)))
		/* No membarrier: pairs with the fence in rb_membarrier(). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* Acquire: pairs with the release that re-enables recording after
	 * a resize/reset, so the cpu buffer's new pointers are visible. */
	if (ringbuf_fe_unlikely(__atomic_load_n(&b->record_disabled, __ATOMIC_ACQUIRE) |
				__atomic_load_n(&cb->record_disabled, __ATOMIC_RELAXED))) {
		*err = -EAGAIN;
		ringbuf_fe_writer_put(t, d, cb, f & 1);
		return false;
	}
	return true;
}

/*
 * ringbuf_fe_writer_begin - start a write at nesting depth @d: claim a
 * cpu buffer and mark it active, push the frame, and check that it
 * records. Returns the frame word (cpu buffer | claimed), or 0 with
 * @err set and nothing held.
 */
RINGBUF_FE_INLINE uintptr_t ringbuf_fe_writer_begin(struct ringbuf *rb,
						    struct ringbuf_tls *t,
						    unsigned int d, int *err)
{
	uintptr_t f = ringbuf_fe_writer_enter(rb, t, d, err);

	if (ringbuf_fe_unlikely(!f) ||
	    ringbuf_fe_unlikely(!ringbuf_fe_writer_check(rb, t, d, f, err)))
		return 0;
	return f;
}

/*
 * ringbuf_fe_reserve_ts - ringbuf_lock_reserve() inline; the reason of a
 * failure in @err; @mono_ts as ringbuf_fe_reserve_next() takes it.
 */
RINGBUF_FE_INLINE struct ringbuf_event *
ringbuf_fe_reserve_ts(struct ringbuf *rb, unsigned long length,
		      uint64_t mono_ts, int *err)
{
	struct ringbuf_tls *t = &ringbuf_tls;
	unsigned int d = t->depth;
	struct ringbuf_event *event;
	struct ringbuf_fe_cpu *cb;
	uintptr_t f;

	if (ringbuf_fe_unlikely(d >= RINGBUF_FE_MAX_NEST ||
				length > RINGBUF_MAX_SMALL_DATA))
		return ringbuf_fe_reserve_slow_ts(rb, length, mono_ts, err);
	f = ringbuf_fe_writer_enter(rb, t, d, err);
	if (ringbuf_fe_unlikely(!f))
		return NULL;
	cb = (struct ringbuf_fe_cpu *)RINGBUF_FE_FRAME_CB(f);
	/*
	 * Every rare case of the entered write in one test, each handled
	 * out of line by ringbuf_fe_reserve_rare() (RINGBUF_0.8): a
	 * spare, whose CPU note goes first; the buffer's fe_slow (recording
	 * off or disabled, a cpu buffer of it disabled, absolute stamps,
	 * writers that fence themselves: the fence and the disable flags
	 * are then looked at there). After the active mark, as
	 * ringbuf_fe_writer_check() loads the flags (the store-buffer
	 * pattern with a resize/reset: it raises fe_slow with the flag,
	 * before its membarrier()). Acquire: pairs with the release of
	 * fe_slow that re-enables recording after a resize/reset.
	 */
	ringbuf_fe_barrier();
	if (ringbuf_fe_unlikely(
		    (f & RINGBUF_FE_NOTED) |
		    (unsigned int)__atomic_load_n(
			    &((const struct ringbuf_fe_buffer *)rb)->fe_slow,
			    __ATOMIC_ACQUIRE)))
		return ringbuf_fe_reserve_rare_ts(rb, length, mono_ts, err);
	event = ringbuf_fe_reserve_next(rb, cb, length, mono_ts, err);
	if (ringbuf_fe_likely(event))
		RINGBUF_FE_TESTPOINT(cb, RINGBUF_TP_RESERVED);
	return event;
}

/* ringbuf_lock_reserve() inline; the reason of a failure in @err. */
RINGBUF_FE_INLINE struct ringbuf_event *
ringbuf_fe_reserve(struct ringbuf *rb, unsigned long length, int *err)
{
	return ringbuf_fe_reserve_ts(rb, length, 0, err);
}

/*
 * The kernel's rb_end_commit(): the outermost writer commits everything
 * up to the tail. Inline: we are the outermost writer, the commit page is
 * the tail page, and no handler wrote while we committed; everything else
 * is the kernel's loop in ringbuf_fe_end_commit_slow(). @m: @cb->meta,
 * which the caller has loaded (the compiler cannot tell that the asm of
 * a local add to the mapping leaves the pointer unchanged: a load per
 * record saved).
 */
RINGBUF_FE_INLINE void ringbuf_fe_end_commit(struct ringbuf_fe_cpu *cb,
					     struct ringbuf_fe_meta *m)
{
	uint64_t commits = ringbuf_fe_local_read(&cb->commits);

	/* synchronize with our signal handlers */
	ringbuf_fe_barrier();
	if (ringbuf_fe_likely(ringbuf_fe_local_read(&cb->committing) == 1)) {
		uint32_t commit;

		RINGBUF_FE_TESTPOINT(cb, RINGBUF_TP_COMMIT);
		/* Relaxed: our own words (only our handlers move them). */
		commit = __atomic_load_n(&m->commit_page, __ATOMIC_RELAXED);
		if (ringbuf_fe_likely(commit == __atomic_load_n(&m->tail_page,
								__ATOMIC_RELAXED))) {
			/* Release: the records are visible before the commit
			 * index; pairs with the acquire in rb_page_commit(). */
			__atomic_store_n((uint64_t *)(ringbuf_fe_page_data(cb, commit) + 8),
					 ringbuf_fe_local_read(&cb->pages[commit].write) &
						 RINGBUF_FE_WRITE_MASK,
					 __ATOMIC_RELEASE);
			/* Userspace: a store of 0 where rb_end_commit()
			 * decrements: committing was 1 above, and a handler
			 * that writes in between leaves it as it found it
			 * (its own rb_start_commit() and rb_end_commit()
			 * pair up), so the result is the same without the
			 * read-modify-write. */
			ringbuf_fe_local_set(&cb->committing, 0);
			/* synchronize with our signal handlers */
			ringbuf_fe_barrier();
			RINGBUF_FE_TESTPOINT(cb, RINGBUF_TP_COMMIT_END);
			if (ringbuf_fe_likely(ringbuf_fe_local_read(&cb->commits) == commits))
				return;
			/* A handler reserved after we read the write index:
			 * its data is not committed yet. */
			ringbuf_fe_local_add(1, &cb->committing);
		}
	}
	ringbuf_fe_end_commit_slow(cb);
}

/* ringbuf_unlock_commit() inline (the kernel's rb_commit + rb_end_commit)
 * of a reservation that holds @n records. */
RINGBUF_FE_INLINE int ringbuf_fe_commit_n(struct ringbuf *rb, uint64_t n)
{
	struct ringbuf_tls *t = &ringbuf_tls;
	unsigned int d = t->depth;
	struct ringbuf_fe_cpu *cb;
	struct ringbuf_fe_meta *m;
	uintptr_t f;

	if (ringbuf_fe_unlikely(!d))
		return -EINVAL;
	f = t->frame[d - 1].cpu_buffer_claimed;
	cb = (struct ringbuf_fe_cpu *)RINGBUF_FE_FRAME_CB(f);
	if (ringbuf_fe_unlikely(cb->buffer != rb))
		return -EINVAL;
	m = cb->meta;
	ringbuf_fe_local_add(n, &m->entries);

	ringbuf_fe_end_commit(cb, m);
	/* A blocking reader waits: one plain load while nobody does (the
	 * CPU ordering is the waiter's membarrier(), see wait.c). */
	ringbuf_fe_barrier();
	if (ringbuf_fe_unlikely(__atomic_load_n(&m->waiters, __ATOMIC_RELAXED)))
		ringbuf_fe_wake_waiters(cb);
	ringbuf_fe_writer_put(t, d - 1, cb, f & 1);
	return 0;
}

/* ringbuf_unlock_commit() inline. */
RINGBUF_FE_INLINE int ringbuf_fe_commit(struct ringbuf *rb)
{
	return ringbuf_fe_commit_n(rb, 1);
}

/* ------------------------------------------------------------------ */
/* The API                                                             */

/**
 * ringbuf_reserve_inline - ringbuf_lock_reserve(), inline
 * @rb: the buffer (not NULL)
 * @length: payload bytes
 *
 * Same contract as ringbuf_lock_reserve(). Context: any thread, signal
 * handler; lock-free.
 */
RINGBUF_FE_INLINE struct ringbuf_event *
ringbuf_reserve_inline(struct ringbuf *rb, unsigned long length)
{
	int err;

	return ringbuf_fe_reserve(rb, length, &err);
}

/**
 * ringbuf_reserve_inline_at - ringbuf_reserve_inline() stamped with a
 * time the caller read
 * @rb: the buffer (not NULL)
 * @length: payload bytes
 * @mono_ts: ringbuf_fe_mono_ns() read by the caller, not 0
 *
 * For a writer that needs the record's time itself (the function-graph
 * tracer's calltime and rettime): one clock read serves both. A buffer
 * on another clock than RINGBUF_CLOCK_MONO reads its own; a stamp
 * before the buffer's last one is raised to it.
 */
RINGBUF_FE_INLINE struct ringbuf_event *
ringbuf_reserve_inline_at(struct ringbuf *rb, unsigned long length,
			  uint64_t mono_ts)
{
	int err;

	return ringbuf_fe_reserve_ts(rb, length, mono_ts, &err);
}

/**
 * ringbuf_commit_inline - ringbuf_unlock_commit(), inline
 * @rb: the buffer of the innermost reservation
 */
RINGBUF_FE_INLINE int ringbuf_commit_inline(struct ringbuf *rb)
{
	return ringbuf_fe_commit(rb);
}

/** ringbuf_event_data_inline - ringbuf_event_data(), inline */
RINGBUF_FE_INLINE void *ringbuf_event_data_inline(struct ringbuf_event *event)
{
	uint32_t hdr;

	/* The record the fast path reserves: type_len 1..28, the payload
	 * at array[0] (one test; 0 wraps above the range). The header word
	 * read whole, as ringbuf_fe_reserve_next() stored it: the compiler
	 * takes the value from that store, and the test folds. */
	__builtin_memcpy(&hdr, event, sizeof(hdr));
	if (ringbuf_fe_likely((hdr & 0x1fu) - 1u < RINGBUF_TYPE_DATA_TYPE_LEN_MAX))
		return &event->array[0];
	if (event->type_len == RINGBUF_TYPE_TIME_EXTEND ||
	    event->type_len == RINGBUF_TYPE_TIME_STAMP)
		event = (struct ringbuf_event *)((char *)event + 8);
	return event->type_len ? (void *)&event->array[0] :
				 (void *)&event->array[1];
}

/* ------------------------------------------------------------------ */
/* Two events in one reservation                                       */

/*
 * A pair is one reservation of both records' lengths, as one record of
 * the fast path (RINGBUF_0.11): one claim, one stamp pass (A..F) with the
 * second event's time, one commit. Once reserved, the record's header is
 * split in two: the first event's delta moves it back towards its own
 * time, at most to the previous record's (its delta 0), and the second
 * event's delta is the rest. Readers, the page format and everything that
 * counts (entries, bytes, overruns, drops) see two ordinary records.
 */

/* The payload length of the one record a pair of @len1 and @len2 bytes
 * takes (the two records' lengths together, less one header), or 0 when
 * the pair does not fit one small record (then it is written as two). */
RINGBUF_FE_INLINE unsigned long ringbuf_fe_pair_length(unsigned long len1,
						       unsigned long len2)
{
	unsigned long p = ringbuf_fe_event_length(len1) +
			  ringbuf_fe_event_length(len2) - RINGBUF_EVENT_HDR_SIZE;

	return p <= RINGBUF_MAX_SMALL_DATA ? p : 0;
}

/**
 * ringbuf_reserve_pair_inline - two records in one reservation
 * @rb: the buffer (not NULL)
 * @len1: the first record's payload bytes
 * @len2: the second's
 * @ts1: the first record's time (ringbuf_fe_mono_ns())
 * @ts2: the second's, not before @ts1, not 0: the reservation's stamp,
 *	as ringbuf_reserve_inline_at() takes it
 * @second: where the second record goes (set when the first is returned)
 *
 * For a writer that knows an event only when a later one comes (the
 * function-graph tracer's entry of a call that calls nothing traced,
 * written with its exit). The first record is stamped @ts1, raised to
 * the buffer's last stamp if that is later: per-CPU, another thread may
 * have written to the CPU buffer since @ts1 (the record then shows that
 * later time; nothing in a reader can go back in time). Where the first
 * record would open a page, follows a time extend or an interrupted
 * reservation, or the buffer is not on RINGBUF_CLOCK_MONO, both records
 * take the reservation's stamp.
 *
 * Both records are small data records (type_len 1..28): each payload is
 * at its array[0]. Must be paired with ringbuf_commit_pair_inline()
 * unless NULL is returned. Return: the first record, or NULL: nothing reserved (a full
 * buffer, nesting too deep, recording off: as for one record, and a
 * dropped pair counts two drops), or -E2BIG in @err: the pair does not
 * fit one small record (ringbuf_fe_pair_length()), nothing counted:
 * write the two records one by one. Context: any thread, signal handler;
 * lock-free.
 */
RINGBUF_FE_INLINE struct ringbuf_event *
ringbuf_reserve_pair_inline(struct ringbuf *rb, unsigned long len1,
			    unsigned long len2, uint64_t ts1, uint64_t ts2,
			    struct ringbuf_event **second, int *err)
{
	unsigned long l1 = ringbuf_fe_event_length(len1);
	unsigned long l2 = ringbuf_fe_event_length(len2);
	unsigned long p = ringbuf_fe_pair_length(len1, len2);
	struct ringbuf_fe_cpu *cb;
	struct ringbuf_event *e;
	uint32_t hdr, d, d2;
	uint64_t dur;

	if (ringbuf_fe_unlikely(!p)) {
		*err = -E2BIG;
		return NULL;
	}
	e = ringbuf_fe_reserve_ts(rb, p, ts2, err);
	if (ringbuf_fe_unlikely(!e)) {
		if (*err == -ENOSPC || *err == -EBUSY)
			ringbuf_fe_pair_dropped(rb);
		return NULL;
	}
	__builtin_memcpy(&hdr, e, sizeof(hdr));
	/* (a record of the fast path: type_len 1..28; out of line, a time
	 * extend or absolute stamp may come first, 8 bytes) */
	if (ringbuf_fe_unlikely((hdr & 0x1fu) - 1u >=
				RINGBUF_TYPE_DATA_TYPE_LEN_MAX)) {
		e = (struct ringbuf_event *)((char *)e + 8);
		__builtin_memcpy(&hdr, e, sizeof(hdr));
	}
	/*
	 * The record's delta from the previous record: the first event
	 * goes back by the pair's duration, not past that record.
	 * Userspace: the kernel writes a record at its own time; here the
	 * first is written late, and in the per-CPU model another thread
	 * may have written to the CPU buffer since @ts1 (the writer was
	 * preempted or migrated between the two times): the first record is
	 * then raised to that record's time (delta 0), and shows a later
	 * time than its event's; a writer that needs the exact time keeps it
	 * in its payload (the function-graph exit's calltime). Another
	 * clock's deltas are not in nanoseconds: both take the stamp.
	 */
	d = hdr >> 5;
	dur = ts2 - ts1;
	if (ringbuf_fe_unlikely(((const struct ringbuf_fe_buffer *)rb)->clock !=
				RINGBUF_CLOCK_MONO))
		dur = 0;
	d2 = dur < d ? (uint32_t)dur : d;
	hdr = (uint32_t)((l1 - RINGBUF_EVENT_HDR_SIZE) / 4) | ((d - d2) << 5);
	__builtin_memcpy(e, &hdr, sizeof(hdr));
	*second = (struct ringbuf_event *)((char *)e + l1);
	hdr = (uint32_t)((l2 - RINGBUF_EVENT_HDR_SIZE) / 4) | (d2 << 5);
	__builtin_memcpy(*second, &hdr, sizeof(hdr));
	/* The page counts the second record, as the reservation counted
	 * the first (its entries, which an overwrite counts as lost): the
	 * page the record lies on. */
	cb = (struct ringbuf_fe_cpu *)RINGBUF_FE_FRAME_CB(
		ringbuf_tls.frame[ringbuf_tls.depth - 1].cpu_buffer_claimed);
	ringbuf_fe_local_add(
		1, &cb->pages[((unsigned char *)e - cb->data) >> cb->subbuf_shift]
			    .entries);
	return e;
}

/**
 * ringbuf_commit_pair_inline - commit a ringbuf_reserve_pair_inline()
 * @rb: the buffer of the innermost reservation
 *
 * Commits both records as ringbuf_commit_inline() commits one (the
 * buffer's entries count two).
 */
RINGBUF_FE_INLINE int ringbuf_commit_pair_inline(struct ringbuf *rb)
{
	return ringbuf_fe_commit_n(rb, 2);
}

#ifdef RINGBUF_FE_TSAN_PRAGMA
#pragma GCC diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* RINGBUF_FRONTEND_H */
