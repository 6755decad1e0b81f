/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcu.h - the tracer's use of liburcu (the bulletproof flavour)
 *
 * Writers run in any thread and in signal handlers, none of which
 * registers with RCU, so the urcu-bp flavour is used: it registers a
 * thread at its first read-side section.
 *
 * Userspace: the kernel's readers run with preemption disabled and need
 * no registration. urcu-bp's first read-side section of a thread takes
 * its registry mutex with all signals blocked; when that first section is
 * in a signal handler, the handler may wait for another thread's
 * registration to finish. Every later section is a few thread-local
 * stores and no system call.
 *
 * Under ThreadSanitizer the grace period is invisible (liburcu is not
 * instrumented), so a read-side unlock releases and the end of a grace
 * period acquires one token: that is the happens-before RCU provides
 * between a reader's last access and the updater's free().
 */
#ifndef RINGTRACE_RCU_H
#define RINGTRACE_RCU_H

/*
 * The library calls, not the inline read side (_LGPL_SOURCE): the inline
 * code reaches the thread's registry entry through a type aligned to 128
 * bytes that urcu-bp's registry does not align so, which UBSan reports in
 * every read-side section. A call costs a few nanoseconds, and only when
 * an event is enabled.
 */
#include <urcu-bp.h>

#if defined(__SANITIZE_THREAD__)
#define RT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RT_TSAN 1
#endif
#endif

#ifdef RT_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
/* one token for the whole library: weak, so every user's copy merges */
__attribute__((weak, visibility("hidden"))) char rt_rcu_token;
#define rt_tsan_acquire() __tsan_acquire(&rt_rcu_token)
#define rt_tsan_release() __tsan_release(&rt_rcu_token)
#else
#define rt_tsan_acquire() ((void)0)
#define rt_tsan_release() ((void)0)
#endif

static inline __attribute__((no_instrument_function)) void
rt_rcu_read_lock(void)
{
	urcu_bp_read_lock();
}

static inline __attribute__((no_instrument_function)) void
rt_rcu_read_unlock(void)
{
	rt_tsan_release();
	urcu_bp_read_unlock();
}

static inline __attribute__((no_instrument_function)) void
rt_synchronize_rcu(void)
{
	urcu_bp_synchronize_rcu();
	rt_tsan_acquire();
}

#endif /* RINGTRACE_RCU_H */
