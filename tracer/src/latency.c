// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * latency.c - the usersoff latency tracer (the kernel's irqsoff tracer
 *	for sections a program marks with ringtrace_critical_start/end)
 */
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/frontend.h>

#include "filter.h"
#include "ctl.h"
#include "ftrace.h"
#include "rcu.h"
#include "symbols.h"
#include "trace.h"


static void rt_latency_check(uint64_t mask, uint64_t delta,
			     uint64_t buf_start, unsigned long start_ip,
			     unsigned long end_ip);

__attribute__((noinline)) void ringtrace_critical_start(void)
{
	uint64_t mask = atomic_load_explicit(&rt_lat_mask,
					     memory_order_relaxed);
	struct rt_fn_arg a;

	if (!mask || rt_cur.crit_nest++ > 0)
		return;
	/* The start stamps first, so that the section's own first record
	 * is inside it. */
	rt_cur.crit_buf_start = rt_buffer_clock(mask);
	rt_cur.crit_start = rt_ftrace_clock();
	a.a = (unsigned long)__builtin_return_address(0);
	a.b = 0;
	rt_write_builtin(mask, RT_TYPE_FN, sizeof(struct rt_fn_entry),
			 rt_fill_fn, &a);
	rt_cur.crit_ip = a.a;
}

__attribute__((noinline)) void ringtrace_critical_end(void)
{
	uint64_t mask = atomic_load_explicit(&rt_lat_mask,
					     memory_order_relaxed);
	uint64_t end;
	struct rt_fn_arg a;

	if (rt_cur.crit_nest == 0 || --rt_cur.crit_nest > 0)
		return;
	if (!mask || !rt_cur.crit_start)
		return;
	end = rt_ftrace_clock();
	a.a = (unsigned long)__builtin_return_address(0);
	a.b = 0;
	rt_write_builtin(mask, RT_TYPE_FN, sizeof(struct rt_fn_entry),
			 rt_fill_fn, &a);
	rt_latency_check(mask, end - rt_cur.crit_start, rt_cur.crit_buf_start,
			 rt_cur.crit_ip, a.a);
	rt_cur.crit_start = 0;
}

struct rt_latency_info rt_latency[RT_MAX_INSTANCES];

static void rt_latency_check(uint64_t mask, uint64_t delta,
			     uint64_t buf_start, unsigned long start_ip,
			     unsigned long end_ip)
{
	/* Userspace: the kernel swaps the max buffer with interrupts off;
	 * here a nested writer (signal handler inside a write) cannot wait
	 * for the buffer to drain, so it only records the maximum. */
	while (mask) {
		int i = __builtin_ctzll(mask);
		struct ringtrace_instance *tr;
		uint64_t thresh;

		mask &= mask - 1;
		rt_rcu_read_lock();
		/* Pairs with the release stores that publish instances. */
		tr = atomic_load_explicit(&rt_instances[i],
					  memory_order_acquire);
		thresh = tr ? atomic_load_explicit(&tr->thresh_ns,
						   memory_order_relaxed) : 0;
		/* As the kernel's report_latency(): with a threshold, every
		 * section over it is kept; without, only a new maximum. */
		if (!tr || (thresh && delta < thresh) ||
		    (!thresh && delta <= atomic_load_explicit(
					       &tr->max_latency_ns,
					       memory_order_relaxed))) {
			rt_rcu_read_unlock();
			continue;
		}
		/* trylock: a signal handler must never wait for the lock its
		 * own thread may hold; losing the race loses one report. */
		if (pthread_mutex_trylock(&tr->max_lock) != 0) {
			rt_rcu_read_unlock();
			continue;
		}
		if (thresh || delta > atomic_load_explicit(&tr->max_latency_ns,
							   memory_order_relaxed)) {
			atomic_store_explicit(&tr->max_latency_ns, delta,
					      memory_order_relaxed);
			rt_latency[i] = (struct rt_latency_info){
				.start_ts = buf_start,
				.start_ip = start_ip,
				.end_ip = end_ip,
				.pid = rt_gettid(),
				.cpu = sched_getcpu(),
			};
			/*
			 * The swap allocates, takes reader locks and waits
			 * for writers: only in a thread's own context (not
			 * inside a write, not in a marked signal handler),
			 * and only with the instance's lock, which keeps
			 * the buffers from being replaced meanwhile. A busy
			 * lock loses this snapshot, not the maximum.
			 */
			if (rt_cur.depth == 0 && rt_cur.irq == 0 &&
			    pthread_mutex_trylock(&tr->lock) == 0) {
				rt_snapshot_swap_locked(tr);
				pthread_mutex_unlock(&tr->lock);
			}
		}
		pthread_mutex_unlock(&tr->max_lock);
		rt_rcu_read_unlock();
	}
}

uint64_t ringtrace_max_latency(struct ringtrace_instance *tr)
{
	tr = rt_instance_get(tr);
	if (!tr)
		return 0;
	return atomic_load_explicit(&tr->max_latency_ns,
				    memory_order_relaxed) / 1000;
}

void ringtrace_set_max_latency(struct ringtrace_instance *tr, uint64_t usecs)
{
	tr = rt_instance_get(tr);
	if (tr)
		atomic_store_explicit(&tr->max_latency_ns, usecs * 1000,
				      memory_order_relaxed);
}

void ringtrace_set_thresh(struct ringtrace_instance *tr, uint64_t usecs)
{
	tr = rt_instance_get(tr);
	if (tr)
		atomic_store_explicit(&tr->thresh_ns, usecs * 1000,
				      memory_order_relaxed);
}
