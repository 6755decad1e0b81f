/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcu.h - the tracer's RCU: liburcu's urcu-bp flavour
 *
 * Writers run in any thread and in signal handlers, none of which
 * registers with anything: urcu-bp ("bulletproof") registers a thread at
 * its first read-side section, with signals blocked, and forgets it when
 * it exits. Its read side is inline here (_LGPL_SOURCE: this library is
 * LGPL-2.1-or-later), a load of the thread's reader record from
 * initial-exec TLS (the library is built with -ftls-model=initial-exec:
 * the record's offset from the GOT and a %fs-relative load, no
 * __tls_get_addr() call; liburcu-bp is a DT_NEEDED of the library, so its
 * TLS is in the static block, or in glibc's static TLS surplus where the
 * library is dlopen()ed), one of the grace-period counter and a store.
 * Its grace period orders
 * the readers' stores with membarrier(); where membarrier() fails at that
 * point liburcu stops the process (urcu_die()) rather than end a grace
 * period under a live reader.
 *
 * The names below are the tracer's; every read-side section and grace
 * period of the tracer goes through them (the function tracer's hooks
 * too), so that they stay thin wrappers over liburcu.
 *
 * Fork: the library registers liburcu's own hooks (urcu_bp_before_fork()
 * and friends) with pthread_atfork() (trace.c), so that a child made while
 * another thread was inside a grace period or registering can run one.
 *
 * ThreadSanitizer sees nothing of liburcu's orderings (membarrier(), the
 * reader records' volatile accesses, uninstrumented code): in a
 * ThreadSanitizer build a section's end is a release and a grace period's
 * end an acquire of one address, the happens-before the grace period
 * gives (every section that began before it ended before what follows).
 */
#ifndef RINGTRACE_RCU_H
#define RINGTRACE_RCU_H

/*
 * Not in an AddressSanitizer (+UBSan) build: liburcu 0.13 declares its
 * reader record 128-byte aligned but places the records 32 bytes into
 * its registry's chunks, and UBSan's alignment check would stop every
 * inline section. There the sections call liburcu's own functions.
 */
#if !defined(_LGPL_SOURCE) && !defined(__SANITIZE_ADDRESS__)
#define _LGPL_SOURCE
#endif
#include <stdbool.h>
#include <urcu-bp.h>
#include <urcu/config.h>

#if defined(__SANITIZE_THREAD__)
#define RT_RCU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RT_RCU_TSAN 1
#endif
#endif

#ifdef RT_RCU_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
/* The address whose release/acquire stands for the grace period (one
 * per linked object: weak). */
__attribute__((weak, visibility("hidden"))) char rt_rcu_tsan_gp;
#define RT_RCU_TSAN_RELEASE() __tsan_release(&rt_rcu_tsan_gp)
#define RT_RCU_TSAN_ACQUIRE() __tsan_acquire(&rt_rcu_tsan_gp)
#else
#define RT_RCU_TSAN_RELEASE() ((void)0)
#define RT_RCU_TSAN_ACQUIRE() ((void)0)
#endif

static inline __attribute__((no_instrument_function, always_inline)) void
rt_rcu_read_lock(void)
{
	urcu_bp_read_lock();
}

static inline __attribute__((no_instrument_function, always_inline)) void
rt_rcu_read_unlock(void)
{
	RT_RCU_TSAN_RELEASE();
	urcu_bp_read_unlock();
}

/*
 * rt_rcu_memb - whether liburcu's grace periods order the readers with
 * membarrier() (urcu_bp_has_sys_membarrier): then a section's two
 * urcu_bp_smp_mb_slave() are compiler barriers, else full fences.
 * liburcu sets the flag once, when it initialises (its constructor, or
 * the first registration before it), and never clears it: a thread that
 * saw it set may leave the test out of every later section
 * (rt_rcu_read_lock_reader()). Relaxed: a flag set before the library's
 * own constructor runs; a thread that saw it clear takes liburcu's own
 * section, which tests it again.
 */
static inline __attribute__((no_instrument_function, always_inline)) bool
rt_rcu_memb(void)
{
#ifdef CONFIG_RCU_FORCE_SYS_MEMBARRIER
	return true; /* (liburcu built to use membarrier() or stop) */
#else
#ifndef _LGPL_SOURCE
	/* (liburcu-bp's, declared by its inline read side only) */
	extern int urcu_bp_has_sys_membarrier;
#endif
	return __atomic_load_n(&urcu_bp_has_sys_membarrier, __ATOMIC_RELAXED);
#endif
}

/*
 * rt_rcu_read_lock_reader(), rt_rcu_read_unlock_reader() - the same
 * section as rt_rcu_read_lock() and rt_rcu_read_unlock(), for the
 * function tracers' fast paths, in a thread whose rt_thread.slow is 0
 * (rt_fn_fast()), which says that rt_rcu_memb() held when it was last
 * recomputed (rt_thread_slow_update()): the thread's reader record is
 * loaded once and handed from one end to the other, and the membarrier
 * flag is not tested (<ringtrace/rcu_read.h>, which the inline trace
 * point write runs too). Where the read side is not inline
 * (AddressSanitizer builds) these are the two calls.
 */
#include <ringtrace/rcu_read.h>

#ifdef RINGTRACE_RCU_READER_INLINE
typedef ringtrace_rcu_reader_t rt_rcu_reader_t;

static inline __attribute__((no_instrument_function, always_inline))
rt_rcu_reader_t
rt_rcu_read_lock_reader(void)
{
	return ringtrace_rcu_read_lock_reader();
}

static inline __attribute__((no_instrument_function, always_inline)) void
rt_rcu_read_unlock_reader(rt_rcu_reader_t r)
{
	RT_RCU_TSAN_RELEASE();
	ringtrace_rcu_read_unlock_reader(r);
}
#else
typedef int rt_rcu_reader_t;

static inline __attribute__((no_instrument_function, always_inline))
rt_rcu_reader_t
rt_rcu_read_lock_reader(void)
{
	rt_rcu_read_lock();
	return 0;
}

static inline __attribute__((no_instrument_function, always_inline)) void
rt_rcu_read_unlock_reader(rt_rcu_reader_t r)
{
	(void)r;
	rt_rcu_read_unlock();
}
#endif

/* Wait until every read-side section that began before has ended. Not
 * inside a section. */
static inline __attribute__((no_instrument_function)) void
rt_synchronize_rcu(void)
{
	urcu_bp_synchronize_rcu();
	RT_RCU_TSAN_ACQUIRE();
}

/* instance.c: make liburcu's call_rcu thread, once, with every signal
 * blocked (it inherits its maker's mask). */
void rt_call_rcu_init(void);

/*
 * Free with @func after a grace period, from liburcu's call_rcu thread,
 * without waiting here. @func begins with rt_rcu_callback_begin().
 */
static inline __attribute__((no_instrument_function)) void
rt_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	rt_call_rcu_init();
	/* (for ThreadSanitizer, which does not see liburcu's queue: what
	 * this thread did to the object happens before @func, which
	 * acquires in rt_rcu_callback_begin()) */
	RT_RCU_TSAN_RELEASE();
	urcu_bp_call_rcu(head, func);
}

/* The first statement of an rt_call_rcu() callback. */
static inline __attribute__((no_instrument_function)) void
rt_rcu_callback_begin(void)
{
	RT_RCU_TSAN_ACQUIRE();
}

#endif /* RINGTRACE_RCU_H */
