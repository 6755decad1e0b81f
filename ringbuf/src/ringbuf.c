// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringbuf.c - allocation, the mapping, resize/reset/swap, switches and
 * counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

_Static_assert(sizeof(struct ringbuf_event) == 4, "event header is 4 bytes");
_Static_assert(offsetof(struct rb_data_page, data) == RINGBUF_PAGE_HDR_SIZE,
	       "page header is 16 bytes");
_Static_assert(sizeof(_Atomic uint64_t) == 8 && sizeof(_Atomic uint32_t) == 4,
	       "lock-free words are plain words in the mapping");

static _Atomic uint64_t rb_next_uid = 1;

/* A process-unique id for a buffer this process made or attached. */
uint64_t rb_new_uid(void)
{
	return atomic_fetch_add_explicit(&rb_next_uid, 1, memory_order_relaxed);
}

static struct ringbuf_cpu *rb_cpu_get(struct ringbuf *rb, int cpu)
{
	if (!rb || cpu < 0 || cpu >= rb->nr_cpus)
		return NULL;
	return rb->buffers[cpu];
}

static uint32_t rb_size_to_pages(struct ringbuf *rb, size_t size)
{
	size_t n = (size + rb->bsize - 1) / rb->bsize;

	/* A ring needs two pages: the tail page and the one it moves to. */
	return n < 2 ? 2 : (uint32_t)n;
}

/* ------------------------------------------------------------------ */
/* The mapping                                                         */

int rb_layout(struct ringbuf *rb, const uint32_t *nr_pages,
	      struct rb_layout *l)
{
	uint64_t total = 0;

	for (int c = 0; c < rb->nr_cpus; c++)
		total += (uint64_t)nr_pages[c] + 1;
	/* Page ids and the 20-bit write index bound the geometry. */
	if (total > (UINT32_MAX >> 3))
		return -ENOMEM;
	l->total_pages = (uint32_t)total;
	l->nr_pages = nr_pages;
	l->cpu_meta_off = rb_align(sizeof(struct rb_meta), RB_CACHELINE);
	l->cpu_meta_size = rb_align(sizeof(struct rb_cpu_meta), RB_CACHELINE);
	l->lock_off = l->cpu_meta_off + (size_t)rb->nr_cpus * l->cpu_meta_size;
	l->lock_size = rb_align(sizeof(struct rb_cpu_lock), RB_CACHELINE);
	l->page_ctl_off = l->lock_off + (size_t)rb->nr_cpus * l->lock_size;
	l->data_off = rb_align(l->page_ctl_off +
				       total * sizeof(struct rb_page_ctl),
			       4096);
	if (total > (SIZE_MAX - l->data_off) / rb->subbuf_size)
		return -ENOMEM;
	l->map_size = l->data_off + total * rb->subbuf_size;
	return 0;
}

/*
 * Point a cpu buffer at its place: its state and lock in the header of
 * @hdr, its page control blocks and data in @map (the same mapping but
 * after a resize of a shared buffer, rb_resize_shared()).
 */
void rb_cpu_bind(struct ringbuf *rb, struct ringbuf_cpu *cb, void *hdr,
		 void *map, const struct rb_layout *l)
{
	struct rb_cpu_meta *m = (struct rb_cpu_meta *)((char *)hdr +
						       l->cpu_meta_off +
						       (size_t)cb->cpu *
							       l->cpu_meta_size);
	size_t first = 0;

	/* The geometry from the counts the layout was made of, not from the
	 * file: another process may have rewritten it since it was checked. */
	for (int c = 0; c < cb->cpu; c++)
		first += (size_t)l->nr_pages[c] + 1;
	cb->meta = m;
	cb->nr_pages = l->nr_pages[cb->cpu];
	cb->pages = (struct rb_page_ctl *)((char *)map + l->page_ctl_off) +
		    first;
	cb->data = (unsigned char *)map + l->data_off +
		   first * rb->subbuf_size;
	cb->shared = NULL;
	if (rb->fd >= 0)
		cb->shared = (struct rb_cpu_lock *)((char *)hdr + l->lock_off +
						    (size_t)cb->cpu *
							    l->lock_size);
	/* Relaxed: the binder holds the locks a resize takes. */
	cb->layout_gen = atomic_load_explicit(&((struct rb_meta *)hdr)->layout_gen,
					      memory_order_relaxed);
}

/*
 * rb_init_cpu_pages - an empty cpu buffer: the ring 0 -> 1 -> ... -> n-1
 * -> 0 with HEAD on the link to page 0, head = tail = commit = 0, and the
 * spare page n as the reader page (linked to itself, outside the ring),
 * every counter zero. The kernel's rb_allocate_pages() plus
 * rb_head_page_activate() plus rb_reset_cpu().
 */
void rb_init_cpu_pages(struct ringbuf_cpu *cb)
{
	struct rb_cpu_meta *m = cb->meta;
	uint32_t n = cb->nr_pages;
	uint32_t nr_pages = m->nr_pages, first_page = m->first_page;
	/* Blocking readers may be waiting across a reset: keep their state. */
	uint32_t waiters = atomic_load(&m->waiters);
	uint32_t wait_full = atomic_load(&m->wait_full);
	uint32_t wake_seq = atomic_load(&m->wake_seq);
	uint32_t wake_armed = atomic_load(&m->wake_armed);

	memset(m, 0, sizeof(*m));
	m->nr_pages = nr_pages;
	m->first_page = first_page;
	atomic_init(&m->waiters, waiters);
	atomic_init(&m->wait_full, wait_full);
	atomic_init(&m->wake_seq, wake_seq);
	atomic_init(&m->wake_armed, wake_armed);
	for (uint32_t i = 0; i <= n; i++) {
		struct rb_page_ctl *p = &cb->pages[i];

		memset(p, 0, sizeof(*p));
		p->id = i;
		if (i < n) {
			atomic_init(&p->next, rb_link((i + 1) % n, 0));
			atomic_init(&p->prev, (i + n - 1) % n);
		} else {
			atomic_init(&p->next, rb_link(n, 0));
			atomic_init(&p->prev, n);
		}
	}
	/*
	 * Only the first tail page and the reader page need a clean header;
	 * every other page is reset when the tail moves onto it
	 * (rb_tail_page_update()). So the data of a cpu buffer nobody writes
	 * (a spare) is never touched and costs no memory.
	 */
	atomic_store_explicit(&rb_data(cb, 0)->commit, 0, memory_order_relaxed);
	atomic_store_explicit(&rb_data(cb, 0)->time_stamp, 0,
			      memory_order_relaxed);
	atomic_store_explicit(&rb_data(cb, n)->commit, 0, memory_order_relaxed);
	atomic_store_explicit(&rb_data(cb, n)->time_stamp, 0,
			      memory_order_relaxed);
	/* rb_head_page_activate(): the link to the head page carries HEAD. */
	atomic_init(&cb->pages[n - 1].next, rb_link(0, RB_PAGE_HEAD));
	atomic_init(&m->head_page, 0);
	atomic_init(&m->tail_page, 0);
	atomic_init(&m->commit_page, 0);
	atomic_init(&m->reader_page, n);
	rb_note_forget(cb);
}

static void rb_meta_fill(struct ringbuf *rb, void *map,
			 const struct rb_layout *l, const uint32_t *nr_pages)
{
	struct rb_meta *meta = map;
	uint32_t first = 0;

	meta->magic = RB_META_MAGIC;
	meta->version = RB_META_VERSION;
	meta->meta_struct_len = sizeof(*meta);
	meta->subbuf_size = rb->subbuf_size;
	meta->nr_cpus = (uint32_t)rb->nr_cpus;
	meta->nr_cpu_bufs = (uint32_t)rb->nr_cpu_bufs;
	meta->total_pages = l->total_pages;
	meta->clock = (uint32_t)rb->clock;
	meta->model = (uint32_t)rb->model;
	meta->cpu_meta_size = (uint32_t)l->cpu_meta_size;
	meta->cpu_meta_off = l->cpu_meta_off;
	meta->page_ctl_off = l->page_ctl_off;
	meta->data_off = l->data_off;
	meta->map_size = l->map_size;
	meta->lock_off = l->lock_off;
	meta->lock_size = (uint32_t)l->lock_size;
	meta->flags = rb->fd >= 0 ? RB_META_SHARED : 0;
	meta->creator_pid = (uint32_t)getpid();
	for (int c = 0; c < rb->nr_cpus; c++) {
		struct rb_cpu_meta *m =
			(struct rb_cpu_meta *)((char *)map + l->cpu_meta_off +
					       (size_t)c * l->cpu_meta_size);

		m->nr_pages = nr_pages[c];
		m->first_page = first;
		first += nr_pages[c] + 1;
	}
}

/* A cpu buffer's process-local state, bound to its place in rb->map. */
struct ringbuf_cpu *rb_cpu_new(struct ringbuf *rb, int c,
			       const struct rb_layout *l)
{
	struct ringbuf_cpu *cb = aligned_alloc(
		RB_CACHELINE, rb_align(sizeof(*cb), RB_CACHELINE));

	if (!cb)
		return NULL;
	memset(cb, 0, sizeof(*cb));
	cb->buffer = rb;
	cb->cpu = c;
	cb->subbuf_shift = (uint32_t)__builtin_ctz(rb->subbuf_size);
	atomic_init(&cb->empty_at_commits, UINT64_MAX);
	atomic_init(&cb->wait_gave_up, UINT64_MAX);
	pthread_mutex_init(&cb->reader_lock, NULL);
	rb->buffers[c] = cb;
	rb_cpu_bind(rb, cb, rb->map, rb->map, l);
	return cb;
}

static void rb_cpu_free(struct ringbuf_cpu *cb)
{
	if (!cb)
		return;
	pthread_mutex_destroy(&cb->reader_lock);
	free(cb);
}

struct ringbuf *ringbuf_create(const struct ringbuf_opts *opts)
{
	struct ringbuf_opts o = { .sz = sizeof(o), .size = 1 << 20 };
	struct ringbuf *rb;
	struct rb_layout l;
	uint32_t *nr_pages = NULL;
	int err = EINVAL;

	if (opts) {
		if (opts->sz < offsetof(struct ringbuf_opts, clock) +
				       sizeof(opts->clock) ||
		    opts->sz > sizeof(o))
			goto fail_args;
		memcpy(&o, opts, opts->sz);
	}
	if (!o.size || o.subbuf_order > RB_SUBBUF_ORDER_MAX ||
	    o.nr_cpus < 0 || o.nr_cpus > 4096 || o.spare_buffers < -1 ||
	    o.spare_buffers > 4096 ||
	    (o.flags & ~(RINGBUF_FL_OVERWRITE | RINGBUF_FL_MEMFD)) ||
	    (o.path && (o.flags & RINGBUF_FL_MEMFD)) ||
	    (o.model != RINGBUF_PER_CPU && o.model != RINGBUF_PER_THREAD) ||
	    o.clock < RINGBUF_CLOCK_MONO || o.clock > RINGBUF_CLOCK_TSC)
		goto fail_args;

	rb = aligned_alloc(RB_CACHELINE, rb_align(sizeof(*rb), RB_CACHELINE));
	if (!rb) {
		errno = ENOMEM;
		return NULL;
	}
	memset(rb, 0, sizeof(*rb));
	rb->fd = -1;
	rb->writer_pidfd = -1;
	rb->clock = o.clock;
	rb->model = o.model;
	rb->nr_cpu_bufs = o.nr_cpus;
	if (!rb->nr_cpu_bufs) {
		rb->nr_cpu_bufs = rb_nr_possible_cpus();
		if (rb->model == RINGBUF_PER_THREAD)
			rb->nr_cpu_bufs *= 4;
	}
	rb->nr_cpus = rb->nr_cpu_bufs;
#ifdef RINGBUF_FE_RSEQ_ASM
	/*
	 * Userspace: claims by restartable sequence (no LOCKed instruction)
	 * need each CPU to have a buffer of its own (rb_claim_slow()).
	 */
	rb->rseq_claim = rb_rseq_ok && rb->model == RINGBUF_PER_CPU &&
			 rb->nr_cpu_bufs >= rb_nr_possible_cpus();
#endif
	/*
	 * Userspace: a writer preempted mid-write keeps its CPU buffer
	 * claimed; spare buffers give the writers displaced meanwhile a place
	 * to write instead of dropping. Per-thread slots need none.
	 */
	if (rb->model == RINGBUF_PER_CPU && o.spare_buffers != RINGBUF_NO_SPARES)
		rb->nr_cpus += o.spare_buffers ? o.spare_buffers :
						 3 * rb->nr_cpu_bufs;
	rb->subbuf_size = RB_PAGE_SIZE_MIN << o.subbuf_order;
	rb->bsize = rb->subbuf_size - RINGBUF_PAGE_HDR_SIZE;
	/*
	 * The largest payload that still fits with a time extend.
	 * Userspace: 8 bytes below the kernel's BUF_MAX_DATA_SIZE. Here a
	 * record of any size may need a time extend before it (a stamp
	 * read on another CPU, a writer interrupted between its stamps):
	 * a payload of this size always fits in an empty page with one,
	 * where the kernel's largest payload does not fit with an extend.
	 * (shared.c's attach computes the same for a view.)
	 */
	rb->max_data_size = rb->bsize - RB_EVNT_HDR_SIZE - sizeof(uint32_t) -
			    RB_LEN_TIME_EXTEND;
	atomic_init(&rb->flags, (int)(o.flags & RINGBUF_FL_OVERWRITE));
	/* Recording on, relative stamps: the writers' fence is the only
	 * reason that can hold already (rb_cpu_init() ran before). */
	atomic_init(&rb->fe_slow, rb_writer_fence ? 1 : 0);
	rb->uid = rb_new_uid();
	pthread_mutex_init(&rb->resize_lock, NULL);

	err = ENOMEM;
	if (o.size / rb->bsize > (UINT32_MAX >> 4))
		goto fail;
	nr_pages = calloc((size_t)rb->nr_cpus, sizeof(*nr_pages));
	rb->buffers = calloc((size_t)rb->nr_cpus, sizeof(*rb->buffers));
	if (!nr_pages || !rb->buffers)
		goto fail;
	for (int c = 0; c < rb->nr_cpus; c++)
		nr_pages[c] = rb_size_to_pages(rb, o.size);
	if (rb_layout(rb, nr_pages, &l))
		goto fail;
	if (o.path) {
		rb->path = rb_shm_path(o.path);
		if (!rb->path) {
			err = errno;
			goto fail;
		}
		/* Ours alone: a new file (O_EXCL), never through a link. */
		rb->fd = open(rb->path,
			      O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      0600);
		if (rb->fd < 0) {
			err = errno;
			free(rb->path);
			rb->path = NULL;
			goto fail;
		}
		rb->path_pid = getpid();
	} else if (o.flags & RINGBUF_FL_MEMFD) {
		rb->fd = memfd_create("ringbuf", MFD_CLOEXEC);
		if (rb->fd < 0) {
			err = errno;
			goto fail;
		}
	}
	rb->map = rb_map_alloc(l.map_size, rb->fd);
	if (!rb->map) {
		err = errno ? errno : ENOMEM;
		goto fail;
	}
	rb->map_size = l.map_size;
	rb->meta = rb->map;
	rb_meta_fill(rb, rb->map, &l, nr_pages);

	for (int c = 0; c < rb->nr_cpus; c++) {
		struct ringbuf_cpu *cb = rb_cpu_new(rb, c, &l);

		if (!cb)
			goto fail;
		rb_init_cpu_pages(cb);
	}
	if (rb->fd >= 0 && rb_init_shared_locks(rb)) {
		err = ENOTSUP;
		goto fail;
	}
	/* Readers in other processes run membarrier(GLOBAL_EXPEDITED) to
	 * order their waiter mark against our commits (ringbuf_wait()). */
	if (rb->fd >= 0)
		rb_membarrier_register_global();
	free(nr_pages);
	rb_buffer_register(rb);
	return rb;

fail:
	free(nr_pages);
	if (rb->buffers)
		for (int c = 0; c < rb->nr_cpus; c++)
			rb_cpu_free(rb->buffers[c]);
	free(rb->buffers);
	if (rb->map)
		munmap(rb->map, rb->map_size);
	if (rb->path)
		unlink(rb->path);
	free(rb->path);
	if (rb->fd >= 0)
		close(rb->fd);
	pthread_mutex_destroy(&rb->resize_lock);
	free(rb);
fail_args:
	errno = err;
	return NULL;
}

struct ringbuf *ringbuf_alloc(size_t size, unsigned int flags)
{
	RINGBUF_OPTS(o, .size = size, .flags = flags);

	return ringbuf_create(&o);
}

void ringbuf_free(struct ringbuf *rb)
{
	if (!rb)
		return;
	rb_buffer_unregister(rb);
	/* A consumer that asked writers to wait no longer reads. */
	if (rb->writer_wait_set)
		ringbuf_set_writer_wait(rb, 0);
	for (int c = 0; rb->buffers && c < rb->nr_cpus; c++)
		rb_cpu_free(rb->buffers[c]);
	free(rb->buffers);
	rb_data_maps_free(rb);
	if (rb->map && rb->attached)
		rb_guard_del(rb->map);
	if (rb->map)
		munmap(rb->map, rb->map_size);
	/* A clean exit removes the named file; a crash leaves it. A forked
	 * child frees its copy of the buffer only: the file stays the
	 * creator's, who may still write and publish it. */
	if (rb->path && !rb->attached && rb->path_pid == getpid())
		unlink(rb->path);
	free(rb->path);
	if (rb->fd >= 0)
		close(rb->fd);
	if (rb->writer_pidfd >= 0)
		close(rb->writer_pidfd);
	pthread_mutex_destroy(&rb->resize_lock);
	free(rb);
}

/* ------------------------------------------------------------------ */
/* Quiescing writers                                                   */

/*
 * rb_writers_drain - wait until no writer is inside reserve..commit on
 * @cpu (or every cpu buffer), after recording was disabled. The kernel
 * uses synchronize_rcu() (writers run with preemption off); here writers
 * mark ringbuf_cpu.active with a plain store, membarrier() makes every
 * running thread's marks visible (as liburcu's urcu-memb grace period
 * does), and we wait for the marks to drop. A writer that saw the disable
 * flag leaves without touching the buffer.
 *
 * Userspace: a writer can be preempted while active; we wait for it with
 * sleeps, bounded at ten seconds, then give up with -EBUSY. Where
 * membarrier() fails, the caller gets its error (-ENOMEM, -EPERM) and
 * nothing changes.
 */
int rb_writers_drain(struct ringbuf *rb, int cpu)
{
	struct timespec ts = { 0, 100000 };
	int first = cpu < 0 ? 0 : cpu;
	int last = cpu < 0 ? rb->nr_cpus - 1 : cpu;

	/* Pairs with the writer's mark-then-check in ringbuf_lock_reserve().
	 * Without the barrier a writer's mark may still sit in its CPU's
	 * store buffer while we read zero below (the writers that do not
	 * fence themselves rely on it): a membarrier() that fails now (out of
	 * memory, a seccomp filter installed since start-up) refuses the
	 * operation; no local fence stands in for it. */
	if (rb_membarrier()) {
		int err = errno ? errno : EPERM;

		return -err;
	}
	for (int c = first; c <= last; c++) {
		struct ringbuf_cpu *cb = rb->buffers[c];

		/* Acquire: pairs with the release store of active, the
		 * writer's last access (rb_writer_put()); after we see zero
		 * its writes to the mapping are visible to us. */
		for (int i = 0; atomic_load_explicit(&cb->active,
						     memory_order_acquire);
		     i++) {
			if (i >= 100000)
				return -EBUSY;
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

/* Every reader lock, or none and -EBUSY (a reader of another process
 * holds one for longer than a reader waits). */
static int rb_lock_readers(struct ringbuf *rb)
{
	for (int c = 0; c < rb->nr_cpus; c++) {
		if (rb_reader_lock(rb->buffers[c])) {
			while (c >= 0)
				rb_reader_unlock(rb->buffers[c--]);
			return -EBUSY;
		}
	}
	return 0;
}

static void rb_unlock_readers(struct ringbuf *rb)
{
	for (int c = rb->nr_cpus - 1; c >= 0; c--)
		rb_reader_unlock(rb->buffers[c]);
}

static void rb_disable_all(struct ringbuf *rb)
{
	/* Seq_cst: the store half of the store-buffer pattern with the
	 * writer's active mark; rb_writers_drain()'s membarrier follows. */
	atomic_fetch_add_explicit(&rb->record_disabled, 1,
				  memory_order_seq_cst);
	rb_fe_slow_raise(rb);
}

static void rb_enable_all(struct ringbuf *rb)
{
	/* Release: the rebuilt cpu buffers are visible to a writer that
	 * sees recording on; pairs with its acquire load. */
	atomic_fetch_sub_explicit(&rb->record_disabled, 1,
				  memory_order_release);
	rb_fe_slow_lower(rb);
}

/* ------------------------------------------------------------------ */
/* Resize                                                              */

/*
 * The end of a resize of a shared buffer, with every reader lock held and
 * the writers drained: @tmp (anonymous, laid out as @l) holds the new cpu
 * buffers, the file was grown and mapped at @fmap. Copy the cpu buffers'
 * state into the header and their pages and data into the file, bind them
 * there, and bump the layout generation.
 *
 * Userspace: the kernel adds and removes pages of one cpu buffer in
 * memory only it maps. Here other processes map the file: the header
 * (meta, cpu states, locks) stays where it is, and so do the locks they
 * may wait on; the pages and data move. A view takes the new place at
 * its next lock of each cpu buffer (rb_follow_layout()), which the resize
 * held, so no reader sees the move half done. The file never shrinks: a
 * view still bound to its old mapping reads no truncated page.
 */
static void rb_resize_shared(struct ringbuf *rb, void *tmp,
			     const struct rb_layout *l, void *fmap,
			     size_t fmap_size)
{
	struct rb_meta *meta = rb->meta;
	struct rb_map_ref *ref = rb->data_maps;

	for (int c = 0; c < rb->nr_cpus; c++)
		memcpy((char *)rb->map + l->cpu_meta_off +
			       (size_t)c * l->cpu_meta_size,
		       (char *)tmp + l->cpu_meta_off +
			       (size_t)c * l->cpu_meta_size,
		       sizeof(struct rb_cpu_meta));
	memcpy((char *)fmap + l->page_ctl_off, (char *)tmp + l->page_ctl_off,
	       l->map_size - l->page_ctl_off);
	meta->total_pages = l->total_pages;
	meta->page_ctl_off = l->page_ctl_off;
	meta->data_off = l->data_off;
	meta->map_size = l->map_size;
	/* Release: the new geometry, states, pages and data above before the
	 * generation; pairs with the acquire in rb_follow_layout(). */
	atomic_fetch_add_explicit(&meta->layout_gen, 1, memory_order_release);
	for (int c = 0; c < rb->nr_cpus; c++)
		rb_cpu_bind(rb, rb->buffers[c], rb->map, fmap, l);
	/* Our own cpu buffers all moved (under the locks): the previous
	 * mapping of the data goes. */
	if (ref) {
		munmap(ref->map, ref->size);
		ref->map = fmap;
		ref->size = fmap_size;
		return;
	}
	ref = malloc(sizeof(*ref));
	if (!ref) {
		/* Userspace: no room to remember it; it stays mapped. */
		return;
	}
	ref->map = fmap;
	ref->size = fmap_size;
	ref->next = NULL;
	rb->data_maps = ref;
}

int ringbuf_resize(struct ringbuf *rb, size_t size, int cpu)
{
	uint32_t *nr_pages;
	struct rb_layout l;
	void *map, *old_map, *fmap = NULL;
	size_t old_size, fmap_size = 0;
	int err = 0;

	if (!rb || !size || (cpu != RINGBUF_ALL_CPUS &&
			     (cpu < 0 || cpu >= rb->nr_cpus))) {
		errno = EINVAL;
		return -EINVAL;
	}
	if (size / rb->bsize > (UINT32_MAX >> 4)) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	/* An attached view is a reader's: the creator resizes. */
	if (rb->attached) {
		errno = EPERM;
		return -EPERM;
	}
	nr_pages = calloc((size_t)rb->nr_cpus, sizeof(*nr_pages));
	if (!nr_pages) {
		errno = ENOMEM;
		return -ENOMEM;
	}

	pthread_mutex_lock(&rb->resize_lock);
	if (atomic_load_explicit(&rb->iterators, memory_order_relaxed)) {
		err = -EBUSY;
		goto out;
	}
	for (int c = 0; c < rb->nr_cpus; c++)
		nr_pages[c] = (cpu == RINGBUF_ALL_CPUS || cpu == c) ?
				      rb_size_to_pages(rb, size) :
				      rb->buffers[c]->nr_pages;
	{
		bool same = true;

		for (int c = 0; c < rb->nr_cpus; c++)
			same &= nr_pages[c] == rb->buffers[c]->nr_pages;
		if (same)
			goto out;
	}
	err = rb_layout(rb, nr_pages, &l);
	if (err)
		goto out;
	map = rb_map_alloc(l.map_size, -1);
	if (!map) {
		err = -ENOMEM;
		goto out;
	}
	rb_meta_fill(rb, map, &l, nr_pages);
	/* A shared buffer: the file grows first (it never shrinks), so a
	 * full file system fails here, before anything moved. */
	if (rb->fd >= 0) {
		fmap = rb_map_grow(rb, l.map_size, &fmap_size);
		if (!fmap) {
			err = errno ? -errno : -ENOMEM;
			munmap(map, l.map_size);
			goto out;
		}
	}

	err = rb_lock_readers(rb);
	if (err) {
		munmap(map, l.map_size);
		if (fmap)
			munmap(fmap, fmap_size);
		goto out;
	}
	rb_disable_all(rb);
	err = rb_writers_drain(rb, RINGBUF_ALL_CPUS);
	if (err) {
		rb_enable_all(rb);
		rb_unlock_readers(rb);
		munmap(map, l.map_size);
		if (fmap)
			munmap(fmap, fmap_size);
		goto out;
	}

	for (int c = 0; c < rb->nr_cpus; c++) {
		struct ringbuf_cpu *cb = rb->buffers[c];
		struct rb_cpu_meta old = *cb->meta;
		struct rb_page_ctl *old_pages = cb->pages;
		unsigned char *old_data = cb->data;
		uint32_t old_n = cb->nr_pages;
		uint64_t unread = rb_num_of_entries(cb);

		rb_cpu_bind(rb, cb, map, map, &l);
		if (nr_pages[c] == old_n) {
			/* Unchanged: carry the cpu buffer over as it is; its
			 * links are local page ids. */
			uint32_t first = cb->meta->first_page;

			memcpy(cb->meta, &old, sizeof(old));
			cb->meta->first_page = first;
			memcpy(cb->pages, old_pages,
			       (old_n + 1) * sizeof(*old_pages));
			memcpy(cb->data, old_data,
			       (size_t)(old_n + 1) * rb->subbuf_size);
			continue;
		}
		/*
		 * Userspace: rebuilt empty; the unread events are counted
		 * as overrun (the reader's next swap reports them lost).
		 */
		rb_init_cpu_pages(cb);
		/* Blocking readers keep counting on this cpu buffer (as
		 * below for all cpu buffers). */
		atomic_store_explicit(&cb->meta->waiters,
				      atomic_load(&old.waiters),
				      memory_order_relaxed);
		atomic_store_explicit(&cb->meta->wait_full,
				      atomic_load(&old.wait_full),
				      memory_order_relaxed);
		atomic_store_explicit(&cb->meta->wake_seq,
				      atomic_load(&old.wake_seq),
				      memory_order_relaxed);
		atomic_store_explicit(&cb->meta->wake_armed,
				      atomic_load(&old.wake_armed),
				      memory_order_relaxed);
		local_set(&cb->meta->entries, local_read(&old.entries));
		local_set(&cb->meta->overrun, local_read(&old.overrun) + unread);
		local_set(&cb->meta->commit_overrun,
			  local_read(&old.commit_overrun));
		atomic_store_explicit(&cb->meta->dropped_events,
				      atomic_load_explicit(&old.dropped_events,
							   memory_order_relaxed),
				      memory_order_relaxed);
		atomic_store_explicit(&cb->meta->read,
				      atomic_load_explicit(&old.read,
							   memory_order_relaxed),
				      memory_order_relaxed);
		cb->meta->last_overrun = old.last_overrun;
		cb->meta->lost_events = old.lost_events;
		local_set(&cb->meta->pages_lost, local_read(&old.pages_lost));
		/* Lost events stay counted where a reader sees them. */
		atomic_store_explicit(&cb->meta->torn_events,
				      atomic_load_explicit(&old.torn_events,
							   memory_order_relaxed),
				      memory_order_relaxed);
		local_set(&cb->meta->pages_touched,
			  local_read(&old.pages_touched));
	}
	/*
	 * Carry the blocking readers over. Relaxed: waiters register and
	 * unregister under a reader lock, all of which we hold, so the
	 * counts are exact. A waiter asleep on the old futex word wakes at
	 * the end of its slice and goes on with the new mapping.
	 */
	atomic_store_explicit(&((struct rb_meta *)map)->waiters_all,
			      atomic_load(&rb->meta->waiters_all),
			      memory_order_relaxed);
	atomic_store_explicit(&((struct rb_meta *)map)->wake_seq_all,
			      atomic_load(&rb->meta->wake_seq_all),
			      memory_order_relaxed);
	if (fmap) {
		rb_resize_shared(rb, map, &l, fmap, fmap_size);
		munmap(map, l.map_size);
		goto done;
	}
	old_map = rb->map;
	old_size = rb->map_size;
	rb->map = map;
	rb->map_size = l.map_size;
	rb->meta = map;
	munmap(old_map, old_size);
done:
	rb_enable_all(rb);
	rb_unlock_readers(rb);
out:
	pthread_mutex_unlock(&rb->resize_lock);
	free(nr_pages);
	if (err < 0)
		errno = -err;
	return err;
}

size_t ringbuf_subbuf_size(struct ringbuf *rb)
{
	return rb ? rb->subbuf_size : 0;
}

size_t ringbuf_max_event_size(struct ringbuf *rb)
{
	return rb ? rb->max_data_size : 0;
}

int ringbuf_nr_cpus(struct ringbuf *rb)
{
	return rb ? rb->nr_cpus : 0;
}

int ringbuf_nr_cpu_buffers(struct ringbuf *rb)
{
	return rb ? rb->nr_cpu_bufs : 0;
}

bool ringbuf_is_spare(struct ringbuf *rb, int cpu)
{
	return rb && cpu >= rb->nr_cpu_bufs && cpu < rb->nr_cpus;
}

int ringbuf_clock(struct ringbuf *rb)
{
	return rb ? rb->clock : -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Reset and swap                                                      */

static int rb_quiesce_cpu(struct ringbuf *rb, int cpu)
{
	int err;

	rb_disable_all(rb);
	err = rb_writers_drain(rb, cpu);
	if (err)
		rb_enable_all(rb);
	return err;
}

void ringbuf_reset_cpu(struct ringbuf *rb, int cpu)
{
	struct ringbuf_cpu *cb = rb_cpu_get(rb, cpu);

	/* An attached view is a reader's: the creator resets. */
	if (!cb || rb->attached)
		return;
	pthread_mutex_lock(&rb->resize_lock);
	/* Userspace: a reader of another process that holds the file's
	 * lock for good keeps the reset from happening. */
	if (!rb_reader_lock(cb) && !rb_quiesce_cpu(rb, cpu)) {
		RB_TESTPOINT(cb, RINGBUF_TP_RESET_CPU);
		rb_init_cpu_pages(cb);
		atomic_store_explicit(&cb->dropped_unclaimed, 0,
				      memory_order_relaxed);
		rb_enable_all(rb);
	}
	rb_reader_unlock(cb);
	pthread_mutex_unlock(&rb->resize_lock);
}

void ringbuf_reset(struct ringbuf *rb)
{
	if (!rb)
		return;
	for (int c = 0; c < rb->nr_cpus; c++)
		ringbuf_reset_cpu(rb, c);
}

/* Swap the bytes of two equal-sized regions through a bounce buffer. */
static void rb_memswap(void *a, void *b, size_t n, void *tmp)
{
	memcpy(tmp, a, n);
	memcpy(a, b, n);
	memcpy(b, tmp, n);
}

int ringbuf_swap_cpu(struct ringbuf *a, struct ringbuf *b, int cpu)
{
	struct ringbuf_cpu *ca = rb_cpu_get(a, cpu), *cb = rb_cpu_get(b, cpu);
	struct ringbuf *first, *second;
	size_t data_size;
	void *tmp;
	int err;

	if (!ca || !cb || a == b || a->attached || b->attached ||
	    a->subbuf_size != b->subbuf_size ||
	    a->nr_cpus != b->nr_cpus || ca->nr_pages != cb->nr_pages) {
		errno = EINVAL;
		return -EINVAL;
	}
	data_size = (size_t)(ca->nr_pages + 1) * a->subbuf_size;
	tmp = malloc(data_size);
	if (!tmp) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	/* Lock order: by address, so two swaps of the same pair agree. */
	first = a < b ? a : b;
	second = a < b ? b : a;
	pthread_mutex_lock(&first->resize_lock);
	pthread_mutex_lock(&second->resize_lock);
	err = rb_reader_lock(rb_cpu_get(first, cpu));
	err |= rb_reader_lock(rb_cpu_get(second, cpu));
	if (err) {
		err = -EBUSY;
		goto out;
	}
	err = -EBUSY;
	if (atomic_load_explicit(&a->iterators, memory_order_relaxed) ||
	    atomic_load_explicit(&b->iterators, memory_order_relaxed))
		goto out;
	err = rb_quiesce_cpu(a, cpu);
	if (err)
		goto out;
	err = rb_quiesce_cpu(b, cpu);
	if (err) {
		rb_enable_all(a);
		goto out;
	}
	{
		uint32_t fa = ca->meta->first_page, fb = cb->meta->first_page;

		rb_memswap(ca->meta, cb->meta, sizeof(*ca->meta), tmp);
		ca->meta->first_page = fa;
		cb->meta->first_page = fb;
		rb_memswap(ca->pages, cb->pages,
			   (ca->nr_pages + 1) * sizeof(*ca->pages), tmp);
		rb_memswap(ca->data, cb->data, data_size, tmp);
		/* The counters travel with the contents. */
		uint64_t da = atomic_load_explicit(&ca->dropped_unclaimed,
						   memory_order_relaxed);

		atomic_store_explicit(&ca->dropped_unclaimed,
				      atomic_load_explicit(&cb->dropped_unclaimed,
							   memory_order_relaxed),
				      memory_order_relaxed);
		atomic_store_explicit(&cb->dropped_unclaimed, da,
				      memory_order_relaxed);
		/* The contents changed without a write: forget the marks. */
		atomic_store_explicit(&ca->empty_at_commits, UINT64_MAX,
				      memory_order_relaxed);
		atomic_store_explicit(&cb->empty_at_commits, UINT64_MAX,
				      memory_order_relaxed);
		rb_note_forget(ca);
		rb_note_forget(cb);
	}
	rb_enable_all(b);
	rb_enable_all(a);
out:
	rb_reader_unlock(rb_cpu_get(second, cpu));
	rb_reader_unlock(rb_cpu_get(first, cpu));
	pthread_mutex_unlock(&second->resize_lock);
	pthread_mutex_unlock(&first->resize_lock);
	free(tmp);
	if (err < 0)
		errno = -err;
	return err;
}

/* ------------------------------------------------------------------ */
/* Switches                                                            */

void ringbuf_change_overwrite(struct ringbuf *rb, int val)
{
	if (!rb)
		return;
	/* Relaxed: writers read the flag at page crossings; any value they
	 * see is a valid mode. */
	if (val)
		atomic_fetch_or_explicit(&rb->flags, RINGBUF_FL_OVERWRITE,
					 memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&rb->flags, ~RINGBUF_FL_OVERWRITE,
					  memory_order_relaxed);
}

int ringbuf_set_writer_wait(struct ringbuf *rb, unsigned int ms)
{
	if (!rb || !rb->meta)
		return -EINVAL;
	if (ms > RINGBUF_WRITER_WAIT_MAX_MS)
		return -ERANGE;
	/* Relaxed: a setting writers read when a buffer is full; any value
	 * they see is a valid one. */
	atomic_store_explicit(&rb->meta->writer_wait_ms, ms,
			      memory_order_relaxed);
	rb->writer_wait_set = ms != 0;
	return 0;
}

int ringbuf_writer_wait(struct ringbuf *rb)
{
	if (!rb || !rb->meta)
		return -EINVAL;
	/* Relaxed: as above. */
	return (int)atomic_load_explicit(&rb->meta->writer_wait_ms,
					 memory_order_relaxed);
}

void ringbuf_record_disable(struct ringbuf *rb)
{
	if (rb)
		rb_disable_all(rb);
}

void ringbuf_record_enable(struct ringbuf *rb)
{
	int old, tries;

	if (!rb)
		return;
	/*
	 * Userspace: the kernel trusts its callers to pair disable and
	 * enable; an extra enable here would take the count below zero,
	 * where every bit is set and recording stays off for good. The
	 * count is clamped at zero instead: an enable without a disable
	 * does nothing. Bounded: a failed exchange means another thread
	 * changed the count, and is retried with the value it left.
	 */
	old = atomic_load_explicit(&rb->record_disabled, memory_order_relaxed);
	for (tries = 0; tries < 1000; tries++) {
		if (!(old & (RB_BUFFER_OFF - 1)))
			return;
		/* Release: as rb_enable_all(), pairs with the writers'
		 * acquire load of the flags. */
		if (atomic_compare_exchange_weak_explicit(
			    &rb->record_disabled, &old, old - 1,
			    memory_order_release, memory_order_relaxed)) {
			rb_fe_slow_lower(rb);
			return;
		}
	}
	/* Giving up leaves the count as another thread set it: the
	 * next enable or disable decides. */
}

void ringbuf_record_off(struct ringbuf *rb)
{
	/* Seq_cst as rb_disable_all(): a switch, no drain needed. */
	if (rb && !(atomic_fetch_or_explicit(&rb->record_disabled, RB_BUFFER_OFF,
					     memory_order_seq_cst) &
		    RB_BUFFER_OFF))
		rb_fe_slow_raise(rb);
}

void ringbuf_record_on(struct ringbuf *rb)
{
	/* Release: pairs with the writers' acquire load of the flags. */
	if (rb && (atomic_fetch_and_explicit(&rb->record_disabled, ~RB_BUFFER_OFF,
					     memory_order_release) &
		   RB_BUFFER_OFF))
		rb_fe_slow_lower(rb);
}

bool ringbuf_record_is_on(struct ringbuf *rb)
{
	return rb && !atomic_load_explicit(&rb->record_disabled,
					   memory_order_relaxed);
}

void ringbuf_record_disable_cpu(struct ringbuf *rb, int cpu)
{
	struct ringbuf_cpu *cb = rb_cpu_get(rb, cpu);

	/* Relaxed: a switch; writers racing with it may still write. The
	 * buffer's fe_slow counts it (the inline code of RINGBUF_0.8 looks
	 * at the cpu buffer's word only there). */
	if (cb) {
		atomic_fetch_add_explicit(&cb->record_disabled, 1,
					  memory_order_relaxed);
		rb_fe_slow_raise(rb);
	}
}

void ringbuf_record_enable_cpu(struct ringbuf *rb, int cpu)
{
	struct ringbuf_cpu *cb = rb_cpu_get(rb, cpu);
	int old;

	if (!cb)
		return;
	/* Relaxed: as ringbuf_record_disable_cpu(). Clamped at zero, one
	 * lower of fe_slow per unit taken off; bounded: a failed exchange
	 * means another thread changed the count, and is retried with the
	 * value it left (giving up leaves it as that thread set it). */
	old = atomic_load_explicit(&cb->record_disabled, memory_order_relaxed);
	for (int tries = 0; tries < 1000 && old > 0; tries++) {
		if (atomic_compare_exchange_weak_explicit(
			    &cb->record_disabled, &old, old - 1,
			    memory_order_relaxed, memory_order_relaxed)) {
			rb_fe_slow_lower(rb);
			return;
		}
	}
}

void ringbuf_set_time_stamp_abs(struct ringbuf *rb, bool abs)
{
	/* Relaxed: each write reads it once; either mode is valid. A
	 * change moves fe_slow (the exchange: one move per change). */
	if (rb && atomic_exchange_explicit(&rb->time_stamp_abs, abs,
					   memory_order_relaxed) != abs) {
		if (abs)
			rb_fe_slow_raise(rb);
		else
			rb_fe_slow_lower(rb);
	}
}

bool ringbuf_time_stamp_abs(struct ringbuf *rb)
{
	return rb && atomic_load_explicit(&rb->time_stamp_abs,
					  memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

static struct ringbuf_event *rb_skip_time_extend(struct ringbuf_event *event)
{
	if (event->type_len == RINGBUF_TYPE_TIME_EXTEND ||
	    event->type_len == RINGBUF_TYPE_TIME_STAMP)
		return (struct ringbuf_event *)((char *)event +
						RB_LEN_TIME_EXTEND);
	return event;
}

void *ringbuf_event_data(struct ringbuf_event *event)
{
	event = rb_skip_time_extend(event);
	return event->type_len ? (void *)&event->array[0] :
				 (void *)&event->array[1];
}

unsigned int ringbuf_event_length(struct ringbuf_event *event)
{
	event = rb_skip_time_extend(event);
	if (event->type_len > RINGBUF_TYPE_DATA_TYPE_LEN_MAX)
		return rb_event_length(event);
	if (event->type_len)
		return event->type_len * 4u;
	return event->array[0] - (unsigned int)sizeof(uint32_t);
}

/* ------------------------------------------------------------------ */
/* Counters                                                            */

enum rb_counter {
	RB_CNT_ENTRIES,
	RB_CNT_OVERRUN,
	RB_CNT_COMMIT_OVERRUN,
	RB_CNT_DROPPED,
	RB_CNT_READ,
	RB_CNT_BYTES,
	RB_CNT_SIZE,
	RB_CNT_TORN,
};

/*
 * Read one counter of a cpu buffer. Userspace: a resize moves the cpu
 * buffer's state to a new mapping and unmaps the old one, so the
 * counters are read under the reader lock that the resize holds.
 */
static unsigned long rb_counter_read(struct ringbuf *rb, int cpu,
				     enum rb_counter which)
{
	struct ringbuf_cpu *cb = rb_cpu_get(rb, cpu);
	struct rb_cpu_meta *m;
	unsigned long v = 0;

	if (!cb)
		return 0;
	/* Without the file's lock too: the cpu states never move in a file
	 * (only the pages and data do, rb_resize_shared()). */
	(void)rb_reader_lock(cb);
	m = cb->meta;
	switch (which) {
	case RB_CNT_ENTRIES:
		v = rb_num_of_entries(cb);
		break;
	case RB_CNT_OVERRUN:
		v = (unsigned long)local_read(&m->overrun);
		break;
	case RB_CNT_COMMIT_OVERRUN:
		v = (unsigned long)local_read(&m->commit_overrun);
		break;
	case RB_CNT_DROPPED:
		v = (unsigned long)(atomic_load_explicit(&m->dropped_events,
							 memory_order_relaxed) +
				    atomic_load_explicit(&cb->dropped_unclaimed,
							 memory_order_relaxed));
		break;
	case RB_CNT_READ:
		v = (unsigned long)atomic_load_explicit(&m->read,
							memory_order_relaxed);
		break;
	case RB_CNT_BYTES:
		v = (unsigned long)(local_read(&m->entries_bytes) -
				    atomic_load_explicit(&m->read_bytes,
							 memory_order_relaxed));
		break;
	case RB_CNT_SIZE:
		v = (unsigned long)cb->nr_pages * rb->subbuf_size;
		break;
	case RB_CNT_TORN:
		v = (unsigned long)atomic_load_explicit(&m->torn_events,
							memory_order_relaxed);
		break;
	}
	rb_reader_unlock(cb);
	return v;
}

unsigned long ringbuf_entries_cpu(struct ringbuf *rb, int cpu)
{
	return rb_counter_read(rb, cpu, RB_CNT_ENTRIES);
}

unsigned long ringbuf_overrun_cpu(struct ringbuf *rb, int cpu)
{
	return rb_counter_read(rb, cpu, RB_CNT_OVERRUN);
}

unsigned long ringbuf_commit_overrun_cpu(struct ringbuf *rb, int cpu)
{
	return rb_counter_read(rb, cpu, RB_CNT_COMMIT_OVERRUN);
}

unsigned long ringbuf_dropped_events_cpu(struct ringbuf *rb, int cpu)
{
	return rb_counter_read(rb, cpu, RB_CNT_DROPPED);
}

int ringbuf_room_waits_cpu(struct ringbuf *rb, int cpu, uint64_t *waits,
			   uint64_t *ns)
{
	struct ringbuf_cpu *cb = rb_cpu_get(rb, cpu);

	if (!cb || !waits || !ns)
		return -EINVAL;
	/* Relaxed: statistics; the two may be a wait apart. */
	*waits = atomic_load_explicit(&cb->meta->room_waits,
				      memory_order_relaxed);
	*ns = atomic_load_explicit(&cb->meta->room_wait_ns,
				   memory_order_relaxed);
	return 0;
}

unsigned long ringbuf_read_events_cpu(struct ringbuf *rb, int cpu)
{
	return rb_counter_read(rb, cpu, RB_CNT_READ);
}

unsigned long ringbuf_bytes_cpu(struct ringbuf *rb, int cpu)
{
	return rb_counter_read(rb, cpu, RB_CNT_BYTES);
}

size_t ringbuf_size(struct ringbuf *rb, int cpu)
{
	return rb_counter_read(rb, cpu, RB_CNT_SIZE);
}

unsigned long ringbuf_torn_events_cpu(struct ringbuf *rb, int cpu)
{
	return rb_counter_read(rb, cpu, RB_CNT_TORN);
}

unsigned long ringbuf_entries(struct ringbuf *rb)
{
	unsigned long n = 0;

	for (int c = 0; rb && c < rb->nr_cpus; c++)
		n += ringbuf_entries_cpu(rb, c);
	return n;
}

unsigned long ringbuf_overruns(struct ringbuf *rb)
{
	unsigned long n = 0;

	for (int c = 0; rb && c < rb->nr_cpus; c++)
		n += ringbuf_overrun_cpu(rb, c);
	return n;
}

/* ------------------------------------------------------------------ */
/* Test inspection                                                     */

#ifdef RINGBUF_TESTHOOKS
int ringbuf_test_state(struct ringbuf *rb, int cpu,
		       struct ringbuf_test_state *st)
{
	struct ringbuf_cpu *cb = rb_cpu_get(rb, cpu);
	struct rb_cpu_meta *m;

	if (!cb || !st)
		return -EINVAL;
	m = cb->meta;
	memset(st, 0, sizeof(*st));
	st->nr_pages = cb->nr_pages;
	st->head_page = atomic_load(&m->head_page);
	st->tail_page = atomic_load(&m->tail_page);
	st->commit_page = atomic_load(&m->commit_page);
	st->reader_page = atomic_load(&m->reader_page);
	for (uint32_t i = 0; i <= cb->nr_pages && i < 64; i++) {
		uint32_t link = atomic_load(&cb->pages[i].next);

		st->next[i] = rb_link_id(link);
		st->flags[i] = link & RB_FLAG_MASK;
		st->page_write[i] = (unsigned long)rb_page_write(cb, i);
		st->page_commit[i] = (unsigned long)(
			atomic_load(&rb_data(cb, i)->commit) &
			RINGBUF_COMMIT_MASK);
	}
	st->write = (unsigned long)rb_page_write(cb, st->tail_page);
	st->commit = (unsigned long)(atomic_load(&rb_data(cb, st->commit_page)->commit) &
				     RINGBUF_COMMIT_MASK);
	st->committing = (unsigned long)local_read(&cb->committing);
	st->commits = (unsigned long)local_read(&cb->commits);
	st->unread = rb_num_of_entries(cb);
	st->overrun = (unsigned long)local_read(&m->overrun);
	st->torn = (unsigned long)atomic_load(&m->torn_events);
	st->bytes = (unsigned long)(local_read(&m->entries_bytes) -
				    atomic_load(&m->read_bytes));
	return 0;
}

int ringbuf_test_check_pages(struct ringbuf *rb, int cpu)
{
	struct ringbuf_cpu *cb = rb_cpu_get(rb, cpu);
	uint32_t n, page, flagged = 0, reader;

	if (!cb)
		return -EINVAL;
	n = cb->nr_pages;
	reader = atomic_load(&cb->meta->reader_page);
	page = atomic_load(&cb->meta->head_page);
	/* Walk the ring from the head page: n pages, each
	 * next/prev consistent, back to the start, reader page not met. */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t link = atomic_load(&cb->pages[page].next);
		uint32_t next = rb_link_id(link);

		if (next > n || next == reader ||
		    atomic_load(&cb->pages[next].prev) != page) {
			fprintf(stderr,
				"check_pages: cpu %d page %u -> %u (prev %u, reader %u)\n",
				cpu, page, next,
				next <= n ? atomic_load(&cb->pages[next].prev) : 0,
				reader);
			return -EIO;
		}
		if (link & RB_FLAG_MASK)
			flagged++;
		page = next;
	}
	if (page != atomic_load(&cb->meta->head_page) || flagged != 1) {
		fprintf(stderr, "check_pages: cpu %d ring not closed or %u flags\n",
			cpu, flagged);
		return -EIO;
	}
	return 0;
}
#endif
