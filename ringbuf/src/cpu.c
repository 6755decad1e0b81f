// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpu.c - what the kernel gets from its environment and userspace must
 * build: the current CPU, thread ids, the asymmetric barrier that stands in
 * for synchronize_rcu(), thread-slot recycling and warnings. (The clocks
 * are in internal.h.)
 */
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

__thread struct rb_tls rb_tls __attribute__((tls_model("initial-exec")));
extern const unsigned int __rseq_size __attribute__((weak));
int rb_rseq_ok;
bool rb_writer_fence;
static int rb_membarrier_cmd;

static pthread_key_t rb_thread_key;
static pthread_mutex_t rb_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ringbuf **rb_registry;
static size_t rb_registry_nr, rb_registry_cap;

static void rb_thread_exit(void *arg);

static void rb_atfork_child(void)
{
	/* The child's threads have new ids; the cached one is the parent's. */
	memset(&rb_tls, 0, sizeof(rb_tls));

	/*
	 * Userspace: the mapping is MAP_SHARED, so after fork() the child
	 * would write into the parent's live pages while its copies of the
	 * owner words say nobody writes: the two processes would corrupt each
	 * other. The child's buffers stop recording for good. The child is
	 * single-threaded here, so the registry is read without its lock
	 * (which another parent thread may have held at the fork).
	 */
	pthread_mutex_init(&rb_registry_lock, NULL);
	for (size_t i = 0; i < rb_registry_nr; i++)
		if (!(atomic_fetch_or_explicit(&rb_registry[i]->record_disabled,
					       RB_BUFFER_FORKED,
					       memory_order_relaxed) &
		      RB_BUFFER_FORKED))
			rb_fe_slow_raise(rb_registry[i]);
}

__attribute__((constructor)) static void rb_cpu_init(void)
{
	int ret;

	rb_rseq_ok = &__rseq_offset != NULL && &__rseq_size != NULL &&
		     __rseq_size >= 8;

	/*
	 * The writer's "I am writing" mark (ringbuf_cpu.active) is a plain
	 * store; the resizer makes it visible with membarrier(), which runs a
	 * full barrier on every CPU running one of our threads (the
	 * sys_membarrier scheme of liburcu's urcu-memb flavour). If the kernel
	 * has no private expedited membarrier, fall back to the global one;
	 * if there is none, writers issue a full fence themselves.
	 */
	ret = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (ret > 0 && (ret & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
		    0, 0) == 0)
		rb_membarrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	else if (ret > 0 && (ret & MEMBARRIER_CMD_GLOBAL))
		rb_membarrier_cmd = MEMBARRIER_CMD_GLOBAL;
	else
		/* Relaxed: set before any writer runs (constructor). */
		__atomic_store_n(&rb_writer_fence, true, __ATOMIC_RELAXED);

	pthread_key_create(&rb_thread_key, rb_thread_exit);
	pthread_atfork(NULL, NULL, rb_atfork_child);
}

int rb_membarrier(void)
{
	if (rb_membarrier_cmd)
		return (int)syscall(__NR_membarrier, rb_membarrier_cmd, 0, 0);
	/* Writers fence themselves (rb_writer_fence); pairs with that fence. */
	atomic_thread_fence(memory_order_seq_cst);
	return 0;
}

bool rb_have_membarrier(void)
{
	return rb_membarrier_cmd != 0;
}

/*
 * The same asymmetric barrier across processes: a reader waiting on a
 * buffer another process writes. That process registered for it when it
 * created the shared buffer (rb_membarrier_register_global()). Returns 0,
 * or -1 where the kernel has no such command (the waiter then sleeps in
 * short slices instead of relying on the wake-up).
 */
int rb_membarrier_global(void)
{
	int saved = errno;
	int ret = (int)syscall(__NR_membarrier,
			       MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);

	errno = saved;
	return ret ? -1 : 0;
}

void rb_membarrier_register_global(void)
{
	int saved = errno;

	(void)syscall(__NR_membarrier,
		      MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0);
	errno = saved;
}

/* Writers may run in signal handlers: the helpers below keep errno. */
uint32_t rb_gettid(void)
{
	if (!rb_tls.tid) {
		int saved = errno;

		rb_tls.tid = (uint32_t)syscall(SYS_gettid);
		errno = saved;
	}
	return rb_tls.tid;
}

int rb_current_cpu_slow(void)
{
	int saved = errno;
	int cpu = sched_getcpu();

	errno = saved;
	return cpu < 0 ? 0 : cpu;
}

int rb_nr_possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n < 1 ? 1 : (int)n;
}

/* ------------------------------------------------------------------ */
/* Buffer registry and thread slots                                    */

void rb_buffer_register(struct ringbuf *rb)
{
	pthread_mutex_lock(&rb_registry_lock);
	if (rb_registry_nr == rb_registry_cap) {
		size_t cap = rb_registry_cap ? rb_registry_cap * 2 : 16;
		struct ringbuf **n = realloc(rb_registry, cap * sizeof(*n));

		if (!n) {
			/* Without the entry, exiting threads keep their slots
			 * until ringbuf_free(); nothing else goes wrong. */
			pthread_mutex_unlock(&rb_registry_lock);
			return;
		}
		rb_registry = n;
		rb_registry_cap = cap;
	}
	rb_registry[rb_registry_nr++] = rb;
	pthread_mutex_unlock(&rb_registry_lock);
}

void rb_buffer_unregister(struct ringbuf *rb)
{
	pthread_mutex_lock(&rb_registry_lock);
	for (size_t i = 0; i < rb_registry_nr; i++) {
		if (rb_registry[i] == rb) {
			rb_registry[i] = rb_registry[--rb_registry_nr];
			break;
		}
	}
	pthread_mutex_unlock(&rb_registry_lock);
}

/*
 * A thread took a per-thread slot: arm the destructor that gives it back
 * when the thread exits (Devel::RingBuffer's free map, here the owner
 * words themselves).
 *
 * Userspace: pthread_setspecific() is not on the async-signal-safe list;
 * for key indexes below PTHREAD_KEY_2NDLEVEL_SIZE glibc implements it as a
 * store into the thread descriptor, which is what a signal handler that
 * takes the thread's first slot relies on.
 */
void rb_thread_slot_track(void)
{
	if (!pthread_getspecific(rb_thread_key))
		pthread_setspecific(rb_thread_key, (void *)1);
}

/* Whether @cb is a cpu buffer of a live buffer. Registry lock held. */
static bool rb_cpu_registered(struct ringbuf_cpu *cb)
{
	for (size_t i = 0; i < rb_registry_nr; i++)
		for (int c = 0; c < rb_registry[i]->nr_cpus; c++)
			if (rb_registry[i]->buffers[c] == cb)
				return true;
	return false;
}

/*
 * The thread exits (cancelled, pthread_exit(), or its start routine
 * returned) with reservations it never committed: frames still on its
 * stack. Userspace: a kernel writer cannot vanish between reserve and
 * commit. Left as they are, the cpu buffer's committing and active counts
 * stay raised, so the next thread's writes all look nested and are never
 * committed, and resize or reset wait for a writer that is gone. Roll the
 * writes back as a reader does for a dead process (rb_rollback_torn()),
 * count them torn, and only then give the cpu buffer back. No writer can
 * run on it meanwhile: we still hold its claim (per-CPU model) or slot
 * (per-thread model). Registry lock held.
 */
static void rb_thread_abandon(void)
{
	struct rb_tls *t = &rb_tls;
	unsigned int d = t->depth;

	for (unsigned int i = d; i-- > 0;) {
		struct ringbuf_cpu *cb = (struct ringbuf_cpu *)(
			RINGBUF_FE_FRAME_CB(t->frame[i].cpu_buffer_claimed));
		unsigned int k = 0;
		bool claimed = false;
		uint64_t active;

		/* Only a buffer we own is ours to roll back: a frame of a
		 * program built against headers that left the frame of a
		 * finished write behind (before ringbuf_fe_writer_put()
		 * emptied it) may name a buffer another thread now holds.
		 * Ours: our id, for one write or kept (RINGBUF_FE_KEPT; with
		 * our write open, active is raised, so nobody takes it over
		 * meanwhile). Relaxed: only this thread stores its own id
		 * there. */
		if (!cb || !rb_cpu_registered(cb) ||
		    (atomic_load_explicit(&cb->owner, memory_order_relaxed) &
		     ~RINGBUF_FE_KEPT) != t->tid)
			continue;
		for (unsigned int j = 0; j <= i; j++) {
			uintptr_t f = t->frame[j].cpu_buffer_claimed;

			if ((struct ringbuf_cpu *)RINGBUF_FE_FRAME_CB(f) != cb)
				continue;
			k++;
			claimed |= f & 1;
			t->frame[j].cpu_buffer_claimed = 0;
		}
		rb_rollback_torn(cb, k);
		local_set(&cb->committing, 0);
		active = local_read(&cb->active);
		/* Release: as rb_writer_put(), our accesses to the cpu buffer
		 * happen before a resize/reset that sees active drop. */
		atomic_store_explicit(&cb->active, active > k ? active - k : 0,
				      memory_order_release);
		/* Release: the rollback happens before the next owner's
		 * claim (acquire in rb_writer_get()/rb_claim_slow()). A kept
		 * claim stays as it is: once active is 0 another thread may
		 * take it over, and a store here could undo that; the store
		 * of active above is what its takeover pairs with. */
		if (claimed)
			atomic_store_explicit(&cb->owner, 0,
					      memory_order_release);
	}
	t->depth = 0;
	t->nest_extra = 0;
}

static void rb_thread_exit(void *arg)
{
	uint32_t tid = rb_tls.tid;

	(void)arg;
	rb_read_copy_free();
	if (!tid)
		return;
	pthread_mutex_lock(&rb_registry_lock);
	if (rb_tls.depth) {
		sigset_t all, old;

		/*
		 * Userspace: the rollback is not reentrant. A signal handler
		 * of ours that wrote while it runs would nest on the open
		 * frames and reserve past the tail it is moving back: the
		 * record and its bytes would be lost uncounted. The dying
		 * thread takes no signal until the cpu buffers are given back.
		 */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		rb_thread_abandon();
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	for (size_t i = 0; i < rb_registry_nr; i++) {
		struct ringbuf *rb = rb_registry[i];

		if (rb->model != RINGBUF_PER_THREAD)
			continue;
		for (int c = 0; c < rb->nr_cpus; c++) {
			struct ringbuf_cpu *cb = rb->buffers[c];
			uint32_t expect = tid;

			/* Release: pairs with the acquire of the next thread's
			 * claim, which then sees every write of ours. Failure
			 * means the slot is not ours: nothing to give back. */
			atomic_compare_exchange_strong_explicit(
				&cb->owner, &expect, 0, memory_order_release,
				memory_order_relaxed);
		}
	}
	pthread_mutex_unlock(&rb_registry_lock);
	memset(rb_tls.slot, 0, sizeof(rb_tls.slot));
}

/* ------------------------------------------------------------------ */
/* Warnings                                                            */

void rb_warn(struct ringbuf *rb, const char *cond, const char *func, int line)
{
	int expect = 0, saved = errno;

	/*
	 * A view reads another process's file: an inconsistency there is
	 * that file's, not a bug of ours. The view is not read any more
	 * (ringbuf_view_error()); the reader's caller says so.
	 */
	if (rb->attached) {
		expect = 0;
		/* Relaxed: a flag; a truncation's -EIO, if first, stays. */
		atomic_compare_exchange_strong_explicit(
			&rb->view_error, &expect, -EBADMSG,
			memory_order_relaxed, memory_order_relaxed);
		rb_print(RINGBUF_PRINT_DEBUG,
			 "libringbuf: view: %s at %s:%d: the file is inconsistent; not read any further\n",
			 cond, func, line);
		errno = saved;
		return;
	}
	/* Fail stop: recording stays off on this buffer from now on. */
	atomic_fetch_add_explicit(&rb->record_disabled, 1,
				  memory_order_relaxed);
	rb_fe_slow_raise(rb);
	/* Report once per buffer; losing the race means someone reported. */
	if (atomic_compare_exchange_strong_explicit(&rb->warned, &expect, 1,
						    memory_order_relaxed,
						    memory_order_relaxed))
		rb_print(RINGBUF_PRINT_WARN,
			 "libringbuf: WARNING: %s at %s:%d; recording disabled on this buffer\n",
			 cond, func, line);
	errno = saved;
}

#ifdef RINGBUF_TESTHOOKS
ringbuf_test_hook_fn rb_test_hook;
void *rb_test_hook_arg;
const void *ringbuf_test_copy_src;

void ringbuf_test_set_hook(ringbuf_test_hook_fn fn, void *arg)
{
	rb_test_hook_arg = arg;
	rb_test_hook = fn;
}

bool ringbuf_test_warned(struct ringbuf *rb)
{
	/* A view's inconsistency is its file's (rb_warn()). */
	return atomic_load_explicit(&rb->warned, memory_order_relaxed) != 0 ||
	       atomic_load_explicit(&rb->view_error, memory_order_relaxed) ==
		       -EBADMSG;
}

void ringbuf_test_set_cpu(int cpu)
{
	rb_tls.forced_cpu1 = cpu < 0 ? 0 : cpu + 1;
}
#endif
