/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcu.h - the tracer's RCU: a read side of one load and one store in the
 * library's own initial-exec TLS, and a grace period that scans the
 * registered readers (rcu.c)
 *
 * Writers run in any thread and in signal handlers, none of which
 * registers with anything, so a thread registers at its first read-side
 * section (rt_rcu_register(), once per thread, signal-safe).
 *
 * Each reader owns a word in a record of the registry (struct
 * rt_rcu_reader): its low 32 bits are the thread's nesting depth, its
 * high 32 bits count the outermost sections the thread has left. Only the
 * owning thread (and its signal handlers, which nest) writes the word,
 * so entering and leaving are a load and a plain store, no atomic
 * read-modify-write. A grace period (rt_synchronize_rcu()) waits, for
 * every reader it finds inside a section, until the depth is 0 or the
 * count of left sections has moved: the section it saw has ended.
 *
 * Userspace: the kernel's readers run with preemption disabled and the
 * grace period waits for every CPU to schedule. Here the store that enters
 * a section is not ordered before the section's loads by the reader (that
 * would be a full fence, the price of a whole record); the grace period
 * orders it instead with membarrier(), which runs a full barrier on every
 * CPU running one of the process's threads (the scheme of liburcu's
 * urcu-memb flavour). Where the kernel has no membarrier, readers fence
 * themselves (rt_rcu_reader_fence).
 *
 * A signal handler may interrupt the thread between the load and the
 * store of its own word. It always leaves the depth as it found it, and
 * the most it can do is to make a count of left sections that the
 * interrupted store then overwrites: the count goes back by one, which
 * only makes a grace period that saw the handler's section wait for the
 * thread's next one too (it never ends a grace period early).
 */
#ifndef RINGTRACE_RCU_H
#define RINGTRACE_RCU_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* One per registered thread, on its own cache line; records are never
 * freed, a thread that exits gives its record to the next one. */
struct rt_rcu_reader {
	/* depth (low 32 bits), outermost sections left (high 32 bits) */
	_Atomic uint64_t word;
	/* 1 while a thread owns the record */
	atomic_int used;
	/* the registry's list; set before the record is published */
	struct rt_rcu_reader *next;
} __attribute__((aligned(64)));

#define RT_RCU_DEPTH(w) ((uint32_t)(w))
#define RT_RCU_LEFT ((uint64_t)1 << 32)

/* Exported (libringtrace): programs whose trace point writes are
 * compiled in run this read side inline (<ringtrace/inline_write.h>), through a view
 * of the record's word. */
#define rt_rcu_self ringtrace_rcu_self
#define rt_rcu_reader_fence ringtrace_rcu_reader_fence
__attribute__((visibility("default"))) extern __thread struct rt_rcu_reader
	*rt_rcu_self __attribute__((tls_model("initial-exec")));
__attribute__((visibility("default"))) extern bool rt_rcu_reader_fence;

__attribute__((visibility("hidden"), no_instrument_function)) struct
	rt_rcu_reader *rt_rcu_register(void);
__attribute__((visibility("hidden"), no_instrument_function)) void
rt_synchronize_rcu(void);
/* The number of records the registry has made (tests) */
__attribute__((visibility("hidden"))) unsigned long rt_rcu_records(void);

static inline __attribute__((no_instrument_function, always_inline)) void
rt_rcu_read_lock(void)
{
	struct rt_rcu_reader *r = rt_rcu_self;
	uint64_t w;

	if (__builtin_expect(r == NULL, 0))
		r = rt_rcu_register();
	/* Relaxed: only this thread and its handlers write the word. */
	w = atomic_load_explicit(&r->word, memory_order_relaxed);
	/* Relaxed: the grace period's membarrier() orders this store before
	 * the section's loads (see above); pairs with the acquire load of
	 * the word in rt_synchronize_rcu(). */
	atomic_store_explicit(&r->word, w + 1, memory_order_relaxed);
	if (__builtin_expect(rt_rcu_reader_fence, 0))
		/* Seq_cst: without membarrier, the store above before the
		 * section's loads; pairs with the fence in rt_rcu_barrier(). */
		atomic_thread_fence(memory_order_seq_cst);
	else
		/* Orders the store above before the section for the compiler
		 * only; the CPU is ordered by membarrier() in the grace
		 * period. */
		atomic_signal_fence(memory_order_seq_cst);
}

static inline __attribute__((no_instrument_function, always_inline)) void
rt_rcu_read_unlock(void)
{
	struct rt_rcu_reader *r = rt_rcu_self;
	/* Relaxed: only this thread and its handlers write the word. */
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);

	/* Release: the section's accesses before the word that ends it;
	 * pairs with the acquire load in rt_synchronize_rcu(), after which
	 * the updater frees. */
	atomic_store_explicit(&r->word,
			      w - 1 + (RT_RCU_DEPTH(w) == 1 ? RT_RCU_LEFT : 0),
			      memory_order_release);
}

#endif /* RINGTRACE_RCU_H */
