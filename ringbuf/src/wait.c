// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wait.c - blocking readers: ringbuf_wait() with a fill watermark (the
 * kernel's buffer_percent), woken by the writer through a futex word in
 * the mapping, so it works across processes.
 *
 * The writer pays one plain load per commit while nobody waits
 * (cpu_buffer->meta->waiters in ringbuf_unlock_commit()). The handshake is
 * the store-buffer pattern again:
 *
 *	waiter					writer
 *	waiters++ (seq_cst)			commit index store (release)
 *	membarrier()				load waiters
 *	look for data				if waiters: wake
 *	futex_wait(wake_seq, seen)
 *
 * The membarrier() makes every CPU running the writer execute a full
 * barrier: either the writer's load comes after it and sees the waiter, or
 * its commit store is visible to the waiter's look. The futex compares
 * wake_seq with the value read before the look, so a wake between the look
 * and the sleep is not lost either.
 */
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* Longest single sleep: the waiter also watches the writer's liveness. */
#define RB_WAIT_SLICE_MS 100
#ifdef RINGBUF_TESTHOOKS
static int rb_wait_slice_ms = RB_WAIT_SLICE_MS;

void ringbuf_test_set_wait_slice(int ms)
{
	rb_wait_slice_ms = ms > 0 ? ms : RB_WAIT_SLICE_MS;
}
#undef RB_WAIT_SLICE_MS
#define RB_WAIT_SLICE_MS rb_wait_slice_ms
#endif
/* Without a cross-process membarrier, sleep in short slices. */
#define RB_WAIT_SLICE_NOBARRIER_MS 2

static void rb_futex_wake(_Atomic uint32_t *word)
{
	int saved = errno;

	/* Not FUTEX_PRIVATE_FLAG: waiters may be in other processes. */
	(void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL,
		      NULL, 0);
	errno = saved;
}

/* The reader took a page while a writer waits for room: wake it. */
void rb_room_wake(struct rb_cpu_meta *m)
{
	/* Relaxed: the futex word only; the waiter's futex call compares
	 * it, and pages_read (seq_cst) is what it acts on. */
	atomic_fetch_add_explicit(&m->room_seq, 1, memory_order_relaxed);
	rb_futex_wake(&m->room_seq);
}

/* Sleep until rb_room_wake() after @seq was read, or @max_ns. */
void rb_room_wait(struct rb_cpu_meta *m, uint32_t seq, uint64_t max_ns)
{
	struct timespec ts = { (time_t)(max_ns / 1000000000u),
			       (long)(max_ns % 1000000000u) };
	int saved = errno;

	/* Not FUTEX_PRIVATE_FLAG: the reader may be another process. */
	(void)syscall(SYS_futex, (uint32_t *)&m->room_seq, FUTEX_WAIT, seq,
		      &ts, NULL, 0);
	errno = saved;
}

static uint64_t rb_dirty_pages(struct ringbuf_cpu *cb)
{
	struct rb_cpu_meta *m = cb->meta;
	uint64_t touched = local_read(&m->pages_touched);
	uint64_t read = atomic_load_explicit(&m->pages_read,
					     memory_order_relaxed);

	/* The page being written counts: one more, as the kernel does. */
	return (touched > read ? touched - read : 0) + 1;
}

static bool rb_full_hit(struct ringbuf_cpu *cb, uint32_t full)
{
	return !full || rb_dirty_pages(cb) * 100 >= (uint64_t)full *
							      cb->nr_pages;
}

/*
 * The writer's side, out of line: someone waits on this cpu buffer (or on
 * all). Wake them if their watermark is crossed. Called by the writer
 * while it is active on the cpu buffer.
 */
void rb_wake_waiters(struct ringbuf_cpu *cb)
{
	struct rb_cpu_meta *m = cb->meta;
	struct rb_meta *meta = cb->buffer->meta;

	/* Relaxed: the waiter re-checks the data itself after waking. */
	if (!rb_full_hit(cb, atomic_load_explicit(&m->wait_full,
						  memory_order_relaxed)))
		return;
	/*
	 * One wake per sleep: from the commit that crosses the watermark
	 * until the woken reader unregisters, every commit comes here, and
	 * a futex call each would cost the writer more than its records
	 * (thousands of them while the reader waits for a CPU). Relaxed
	 * load: a cheap look first; the exchange decides. Seq_cst
	 * exchange: the load half of the store-buffer pattern above for
	 * the flag, which a waiter sets before its membarrier() (the
	 * waiter side of rb_waiters_add()): a waiter armed after we
	 * cleared it sees our commit in its own look, or is woken by a
	 * later commit. A failed claim is fine: the commit that won woke
	 * every waiter (FUTEX_WAKE INT_MAX).
	 */
	if (!atomic_load_explicit(&m->wake_armed, memory_order_relaxed) ||
	    !atomic_exchange_explicit(&m->wake_armed, 0, memory_order_seq_cst))
		return;
	/* Release: the commit before it is visible to a waiter that sees the
	 * new sequence; pairs with the acquire load in ringbuf_wait(). */
	atomic_fetch_add_explicit(&m->wake_seq, 1, memory_order_release);
	rb_futex_wake(&m->wake_seq);
	if (atomic_load_explicit(&meta->waiters_all, memory_order_relaxed)) {
		/* Release: as above, for the waiters on every cpu buffer. */
		atomic_fetch_add_explicit(&meta->wake_seq_all, 1,
					  memory_order_release);
		rb_futex_wake(&meta->wake_seq_all);
	}
}

static bool rb_ready(struct ringbuf *rb, int cpu, int full)
{
	if (cpu != RINGBUF_ALL_CPUS) {
		struct ringbuf_cpu *cb = rb->buffers[cpu];
		bool hit;

		if (ringbuf_empty_cpu(rb, cpu))
			return false;
		/* Under the lock: a resize moves the counters. Without the
		 * file's lock the reader could not read: not ready. */
		hit = !rb_reader_lock(cb) && rb_full_hit(cb, (uint32_t)full);
		rb_reader_unlock(cb);
		return hit;
	}
	for (int c = 0; c < rb->nr_cpus; c++)
		if (rb_ready(rb, c, full))
			return true;
	return false;
}

static int64_t rb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The writing process of an attached view is gone: its pidfd (opened at
 * attach, so a reused pid cannot fool us) turns readable when it exits,
 * zombie or reaped. Without pidfds, fall back to kill(pid, 0).
 */
bool rb_writer_gone(struct ringbuf *rb)
{
	pid_t pid;
	int saved = errno;
	bool gone;

	/* Only an attached view, which is never resized, looks at meta. */
	if (!rb->attached)
		return false;
	pid = rb->creator_pid;
	if (pid <= 0)
		return false;
	if (rb->writer_pidfd >= 0) {
		struct pollfd pfd = { .fd = rb->writer_pidfd, .events = POLLIN };

		gone = poll(&pfd, 1, 0) == 1;
	} else {
		gone = kill(pid, 0) < 0 && errno == ESRCH;
	}
	errno = saved;
	return gone;
}

/*
 * Register (or unregister, @d = -1) as a waiter on @cpu or on all. Called
 * with one reader lock held (rb_wait_lock()), which keeps a resize, which
 * takes them all, from moving the mapping meanwhile; so the resize carries
 * every registration over exactly.
 */
static void rb_waiters_add(struct ringbuf *rb, int cpu, int d, int full)
{
	int first = cpu == RINGBUF_ALL_CPUS ? 0 : cpu;
	int last = cpu == RINGBUF_ALL_CPUS ? rb->nr_cpus - 1 : cpu;

	/* Seq_cst: the store half of the store-buffer pattern above. */
	if (cpu == RINGBUF_ALL_CPUS)
		atomic_fetch_add_explicit(&rb->meta->waiters_all, (uint32_t)d,
					  memory_order_seq_cst);
	for (int c = first; c <= last; c++) {
		struct rb_cpu_meta *m = rb->buffers[c]->meta;

		if (d > 0) {
			/* Relaxed: a hint for the writer's wake decision. */
			atomic_store_explicit(&m->wait_full, (uint32_t)full,
					      memory_order_relaxed);
			/* Seq_cst: the store half of the store-buffer
			 * pattern for the flag, before the membarrier();
			 * pairs with the exchange in rb_wake_waiters(). */
			atomic_store_explicit(&m->wake_armed, 1,
					      memory_order_seq_cst);
		}
		/* Seq_cst: as waiters_all. */
		atomic_fetch_add_explicit(&m->waiters, (uint32_t)d,
					  memory_order_seq_cst);
	}
}

/*
 * The reader lock a waiter holds while it touches the mapping. Userspace:
 * a resize unmaps the old mapping; a waiter that kept pointers into it
 * past the lock would touch freed memory. Only the futex call itself uses
 * the word's address unlocked: on an unmapped address it fails (EFAULT)
 * and on a reused one it only sleeps for the slice. *@err: the result of
 * rb_reader_lock() (the local lock is held either way; the header, where
 * the waiters count, never moves in a file).
 */
static struct ringbuf_cpu *rb_wait_lock(struct ringbuf *rb, int cpu, int *err)
{
	struct ringbuf_cpu *cb = rb->buffers[cpu == RINGBUF_ALL_CPUS ? 0 : cpu];

	*err = rb_reader_lock(cb);
	return cb;
}

/* Sleep a polling slice of @ms; -EINTR if a signal handler ran. */
static int rb_wait_poll(int64_t ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	if (nanosleep(&ts, NULL) && errno == EINTR)
		return -EINTR;
	return 0;
}

int ringbuf_wait(struct ringbuf *rb, int cpu, int full, int timeout_ms)
{
	int64_t deadline;

	if (!rb || full < 0 || full > 100 || timeout_ms < -1 ||
	    (cpu != RINGBUF_ALL_CPUS && (cpu < 0 || cpu >= rb->nr_cpus))) {
		errno = EINVAL;
		return -EINVAL;
	}
	deadline = timeout_ms < 0 ? INT64_MAX : rb_now_ms() + timeout_ms;
	rb_lock_interrupted = false;
	for (;;) {
		_Atomic uint32_t *word;
		struct ringbuf_cpu *cb;
		struct timespec ts;
		int64_t left, slice;
		uint32_t seen;
		bool ready;
		int barrier, err, unreg;

		/* Relaxed: a flag, set once (ringbuf_view_error()). */
		err = atomic_load_explicit(&rb->view_error,
					   memory_order_relaxed);
		if (err) {
			errno = -err;
			return err;
		}
		if (rb_ready(rb, cpu, full))
			return 1;
		/* A signal ended a wait for a lock in rb_ready(). */
		if (rb_lock_interrupted)
			goto intr;
		if (rb_writer_gone(rb)) {
			/* Make what it left readable (a write it died in),
			 * then say so; a last look first. */
			if (!rb->read_only)
				rb_recover_all(rb);
			if (rb_ready(rb, cpu, full))
				return 1;
			errno = ESRCH;
			return -ESRCH;
		}
		left = deadline - rb_now_ms();
		if (left <= 0)
			return 0;
		if (rb->read_only) {
			/* Cannot register in another user's file: poll. */
			if (rb_wait_poll(RB_WAIT_SLICE_NOBARRIER_MS))
				goto intr;
			continue;
		}

		cb = rb_wait_lock(rb, cpu, &err);
		if (err) {
			/* Another process holds the lock: poll. */
			rb_reader_unlock(cb);
			if (rb_wait_poll(RB_WAIT_SLICE_NOBARRIER_MS))
				goto intr;
			continue;
		}
		word = cpu == RINGBUF_ALL_CPUS ?
			       &rb->meta->wake_seq_all :
			       &rb->buffers[cpu]->meta->wake_seq;
		/* Acquire: pairs with the release increment in
		 * rb_wake_waiters(). */
		seen = atomic_load_explicit(word, memory_order_acquire);
		rb_waiters_add(rb, cpu, 1, full);
		rb_reader_unlock(cb);
		barrier = rb->fd >= 0 ? rb_membarrier_global() :
					rb_membarrier();
		ready = rb_ready(rb, cpu, full);
		/* The writer may have exited since the look above (a reader
		 * sleeping now would only notice at the end of its slice):
		 * look again, the loop's first test then says so. */
		if (!ready && !rb_writer_gone(rb)) {
			slice = barrier ? RB_WAIT_SLICE_NOBARRIER_MS :
					  RB_WAIT_SLICE_MS;
			if (left < slice)
				slice = left;
			ts.tv_sec = slice / 1000;
			ts.tv_nsec = (slice % 1000) * 1000000L;
			if (syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT,
				    seen, &ts, NULL, 0) &&
			    errno == EINTR)
				err = -EINTR;
		}
		/* With or without the file's lock (the header never moves):
		 * the count goes back down. */
		cb = rb_wait_lock(rb, cpu, &unreg);
		rb_waiters_add(rb, cpu, -1, full);
		rb_reader_unlock(cb);
		if (ready)
			return 1;
		if (err)
			goto intr;
	}
intr:
	/* The kernel's ring_buffer_wait() returns -EINTR at a signal too. */
	errno = EINTR;
	return -EINTR;
}
