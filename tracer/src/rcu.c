// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rcu.c - the registry of RCU readers and the grace period (rcu.h says
 * how the read side works)
 *
 * The registry is a list of cache-line records that only grows: a thread
 * takes a free record (or maps a page of new ones) at its first read-side
 * section and gives it back when it exits (a pthread key's destructor).
 * Nothing is ever unmapped, so a grace period walks the list without a
 * lock while threads come and go, and a thread that leaves without its
 * destructor (it cannot be inside a section then) only keeps its record.
 */
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rcu.h"

__thread struct rt_rcu_reader *rt_rcu_self
	__attribute__((tls_model("initial-exec")));
bool rt_rcu_reader_fence;

static struct rt_rcu_reader *_Atomic rt_rcu_list;
static atomic_ulong rt_rcu_nr_records;
static pthread_key_t rt_rcu_key;
static int rt_rcu_membarrier_cmd;

/* A record per 64 bytes of a page */
#define RT_RCU_PER_PAGE (4096 / sizeof(struct rt_rcu_reader))

static void rt_rcu_thread_exit(void *arg)
{
	struct rt_rcu_reader *r = arg;
	/* Relaxed: the thread's own word. */
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);

	rt_rcu_self = NULL;
	/* A thread that leaves inside a section (cancelled, or pthread_exit()
	 * from a handler) ends it here, or every later grace period would
	 * wait for it. Release: its accesses before the end; pairs with the
	 * acquire load in rt_synchronize_rcu(). */
	if (RT_RCU_DEPTH(w))
		atomic_store_explicit(&r->word,
				      (w & ~(uint64_t)UINT32_MAX) + RT_RCU_LEFT,
				      memory_order_release);
	/* Release: the thread's last store of the word before the record is
	 * free; pairs with the acquire cmpxchg in rt_rcu_take(). */
	atomic_store_explicit(&r->used, 0, memory_order_release);
}

/* A free record of the list, or NULL */
static struct rt_rcu_reader *rt_rcu_take(void)
{
	/* Acquire: the records' next links before walking them; pairs with
	 * the release cmpxchg in rt_rcu_grow(). */
	struct rt_rcu_reader *r =
		atomic_load_explicit(&rt_rcu_list, memory_order_acquire);

	for (; r; r = r->next) {
		int expected = 0;

		/* Acquire: the previous owner's last word before ours; pairs
		 * with the release store in rt_rcu_thread_exit(). Failure:
		 * another thread took it, try the next one. */
		if (atomic_load_explicit(&r->used, memory_order_relaxed) == 0 &&
		    atomic_compare_exchange_strong_explicit(
			    &r->used, &expected, 1, memory_order_acquire,
			    memory_order_relaxed))
			return r;
	}
	return NULL;
}

/* Map a page of records, keep the first, publish them all */
static struct rt_rcu_reader *rt_rcu_grow(void)
{
	struct rt_rcu_reader *page, *head;
	size_t i;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		static const char msg[] =
			"ringtrace: out of memory registering a thread with RCU\n";

		(void)!write(2, msg, sizeof(msg) - 1);
		abort();
	}
	/* Relaxed: the page is not published yet. */
	atomic_store_explicit(&page[0].used, 1, memory_order_relaxed);
	for (i = 0; i + 1 < RT_RCU_PER_PAGE; i++)
		page[i].next = &page[i + 1];
	/* Relaxed: a count for the tests. */
	atomic_fetch_add_explicit(&rt_rcu_nr_records, RT_RCU_PER_PAGE,
				  memory_order_relaxed);
	/* Relaxed: re-read by the cmpxchg below. */
	head = atomic_load_explicit(&rt_rcu_list, memory_order_relaxed);
	/* Bounded: each failure means another thread pushed its page, which
	 * a process does once per RT_RCU_PER_PAGE threads alive at once. */
	do
		page[RT_RCU_PER_PAGE - 1].next = head;
	/* Release: the links and page[0].used before the list shows the
	 * page; pairs with the acquire loads of the list in rt_rcu_take()
	 * and rt_synchronize_rcu(). */
	while (!atomic_compare_exchange_weak_explicit(&rt_rcu_list, &head, page,
						      memory_order_release,
						      memory_order_relaxed));
	return page;
}

/*
 * The first read-side section of a thread: take a record. All signals
 * are blocked meanwhile, so a handler's section never registers the
 * thread a second time.
 *
 * Userspace: pthread_setspecific() is not on POSIX's list of
 * async-signal-safe functions; glibc's stores into the thread's own
 * array for the first 32 keys and allocates nothing, which is what a
 * signal handler that traces relies on (the library makes its key at
 * load time, among the first).
 */
struct rt_rcu_reader *rt_rcu_register(void)
{
	sigset_t all, old;
	struct rt_rcu_reader *r;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = rt_rcu_take();
	if (!r)
		r = rt_rcu_grow();
	(void)pthread_setspecific(rt_rcu_key, r);
	rt_rcu_self = r;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

/* In the child of fork() only the forking thread is left: every other
 * record is free, whatever its thread was doing at the fork. */
static void rt_rcu_atfork_child(void)
{
	/* Relaxed: the child is single-threaded here. */
	struct rt_rcu_reader *r =
		atomic_load_explicit(&rt_rcu_list, memory_order_relaxed);

	for (; r; r = r->next) {
		if (r == rt_rcu_self)
			continue;
		/* Relaxed: single-threaded; the depth goes to 0 and the count
		 * of left sections moves, as if the section had ended. */
		atomic_store_explicit(&r->word,
				      (atomic_load_explicit(&r->word,
							    memory_order_relaxed) &
				       ~(uint64_t)UINT32_MAX) + RT_RCU_LEFT,
				      memory_order_relaxed);
		atomic_store_explicit(&r->used, 0, memory_order_relaxed);
	}
}

__attribute__((constructor)) static void rt_rcu_init(void)
{
	int ret = (int)syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (ret > 0 && (ret & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
		    0, 0) == 0)
		rt_rcu_membarrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	else if (ret > 0 && (ret & MEMBARRIER_CMD_GLOBAL))
		rt_rcu_membarrier_cmd = MEMBARRIER_CMD_GLOBAL;
	else
		/* Relaxed: set before any reader runs (constructor). */
		__atomic_store_n(&rt_rcu_reader_fence, true, __ATOMIC_RELAXED);
	pthread_key_create(&rt_rcu_key, rt_rcu_thread_exit);
	pthread_atfork(NULL, NULL, rt_rcu_atfork_child);
}

/* A full barrier on every CPU that runs one of our threads */
static void rt_rcu_barrier(void)
{
	if (rt_rcu_membarrier_cmd &&
	    syscall(__NR_membarrier, rt_rcu_membarrier_cmd, 0, 0) == 0)
		return;
	/* Seq_cst: the updater's unpublishing stores before its loads of
	 * the readers' words; pairs with the readers' own fence in
	 * rt_rcu_read_lock() (rt_rcu_reader_fence), or, when membarrier
	 * failed here only, with the barrier it ran before. */
	atomic_thread_fence(memory_order_seq_cst);
}

/* Wait until the reader is out of the section its word shows */
static void rt_rcu_wait_reader(struct rt_rcu_reader *r, uint64_t seen)
{
	unsigned int spins = 0;

	/* Not bounded: a grace period lasts as long as the section it
	 * waits for, as in the kernel; the reader's sections are short
	 * (one record) and never wait for anything. */
	for (;;) {
		/* Acquire: the reader's section before its end; pairs with
		 * the release store in rt_rcu_read_unlock(). */
		uint64_t w = atomic_load_explicit(&r->word,
						  memory_order_acquire);

		if (RT_RCU_DEPTH(w) == 0 || (w >> 32) != (seen >> 32))
			return;
		if (++spins < 64) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 50 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
}

void rt_synchronize_rcu(void)
{
	struct rt_rcu_reader *r;

	/*
	 * After the barrier, a reader whose entering store we do not see
	 * below entered after its CPU ran the barrier, i.e. after the
	 * caller's unpublishing stores: its section sees the new state.
	 */
	rt_rcu_barrier();
	/* Acquire: the records' links; pairs with the release cmpxchg in
	 * rt_rcu_grow(). */
	r = atomic_load_explicit(&rt_rcu_list, memory_order_acquire);
	for (; r; r = r->next) {
		/* Acquire: a quiescent word's earlier sections before what
		 * the caller does next (free); pairs with the release store
		 * in rt_rcu_read_unlock(). */
		uint64_t w = atomic_load_explicit(&r->word,
						  memory_order_acquire);

		if (RT_RCU_DEPTH(w) != 0 && r != rt_rcu_self)
			rt_rcu_wait_reader(r, w);
	}
}

unsigned long rt_rcu_records(void)
{
	/* Relaxed: a count. */
	return atomic_load_explicit(&rt_rcu_nr_records, memory_order_relaxed);
}
