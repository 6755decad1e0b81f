// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * read.c - the reader side: the reader page swap, peek/consume, the merged
 * read and read_page (the non-consuming iterator is in iter.c; the
 * repair of what a dead reader or writer left, in recover.c, reached by
 * one-line hooks).
 *
 * Our own implementation, written from the kernel's ring-buffer design
 * document and its public API, of the reader half of that algorithm, with
 * the names of kernel/trace/ring_buffer.c kept for comparison (no code is
 * taken from it). Readers of one
 * cpu buffer serialise on its reader_lock; writers never take it. The only
 * words both sides modify are the page links, and those change by cmpxchg
 * (the HEAD/UPDATE protocol).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* rb_buffer_peek(): the rest of a damaged page was skipped; read on. */
#define RB_SKIPPED ((struct ringbuf_event *)(uintptr_t)1)

/* A cpu buffer that may be consumed: not in a read-only view of another
 * user's file (consuming writes the reader state into the file). */
static struct ringbuf_cpu *rb_cpu_consumer(struct ringbuf *rb, int cpu)
{
	if (rb && rb->read_only)
		return NULL;
	return rb_cpu(rb, cpu);
}

/*
 * The record at the read index of page @reader; *@room (if given), the
 * bytes from it to the end of the page's data area. The index is loaded
 * once, and kept on the 4-byte grid where a record's header and length
 * word fit, whatever the file says: the callers check the record itself
 * (and rb_buffer_peek() the index).
 */
static inline struct ringbuf_event *
rb_reader_event_at(struct ringbuf_cpu *cpu_buffer, uint32_t reader,
		   uint64_t *room)
{
	uint64_t bsize = cpu_buffer->buffer->bsize;
	uint64_t read = rb_read_index(cpu_buffer, reader) &
			~(uint64_t)(RB_ALIGNMENT - 1);

	if (read > bsize - RB_EVNT_MIN_SIZE)
		read = bsize - RB_EVNT_MIN_SIZE;
	if (room)
		*room = bsize - read;
	return (struct ringbuf_event *)(rb_data(cpu_buffer, reader)->data +
					read);
}

static inline struct ringbuf_event *
rb_reader_event(struct ringbuf_cpu *cpu_buffer)
{
	return rb_reader_event_at(
		cpu_buffer,
		atomic_load_explicit(&cpu_buffer->meta->reader_page,
				     memory_order_relaxed),
		NULL);
}

unsigned long rb_num_of_entries(struct ringbuf_cpu *cpu_buffer)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;

	return (unsigned long)(local_read(&m->entries) -
			       (local_read(&m->overrun) +
				atomic_load_explicit(&m->read,
						     memory_order_relaxed)));
}

/* A resize of the shared buffer moved the cpu buffer: follow it. */
static inline void rb_follow_layout_attached(struct ringbuf_cpu *cb)
{
	if (cb->buffer->attached)
		rb_follow_layout(cb);
}

/*
 * rb_reader_lock - the reader locks of @cb: the process-local one, always
 * held on return, and, for a buffer in a file, the lock in the file
 * (rb_shared_lock()). Returns 0 with both; or with the local lock only:
 * -EBUSY or -EINTR when the file's lock was not to be had (another
 * process holds it: a caller that consumes gives up, one that only looks
 * goes on as a read-only view does), -EIO or -EBADMSG when the view is
 * not read any more (ringbuf_view_error()).
 */
int rb_reader_lock(struct ringbuf_cpu *cb)
{
	int err;

	pthread_mutex_lock(&cb->reader_lock);
	cb->shared_held = false;
	if (!cb->shared)
		return 0;
	/* Relaxed: a flag, set once. */
	err = atomic_load_explicit(&cb->buffer->view_error,
				   memory_order_relaxed);
	if (err)
		return err;
	err = rb_shared_lock(cb, true);
	if (err)
		return err;
	cb->shared_held = true;
	rb_follow_layout_attached(cb);
	rb_reader_repair_dead(cb);
	return 0;
}

bool rb_reader_trylock(struct ringbuf_cpu *cb)
{
	if (pthread_mutex_trylock(&cb->reader_lock))
		return false;
	cb->shared_held = false;
	if (!cb->shared)
		return true;
	if (rb_shared_lock(cb, false)) {
		pthread_mutex_unlock(&cb->reader_lock);
		return false;
	}
	cb->shared_held = true;
	rb_follow_layout_attached(cb);
	rb_reader_repair_dead(cb);
	return true;
}

void rb_reader_unlock(struct ringbuf_cpu *cb)
{
	if (cb->shared_held)
		rb_shared_unlock(cb);
	cb->shared_held = false;
	pthread_mutex_unlock(&cb->reader_lock);
}

/*
 * 256 yields then 50 us sleeps, for two milliseconds at most (see
 * rb_reader_gave_up()); the count is a backstop. Userspace: the kernel's
 * reader spins until the writer is done, which takes a few instructions
 * there. Here the writer may be preempted or stopped for any time, and
 * the reader waits holding its lock (which counters, resize, reset and
 * swap take too), so it waits briefly and reports "busy, try again"
 * (EAGAIN) instead; every state it leaves behind is one the next read
 * continues from.
 */
#define RB_READER_SPINS_MAX (256u + 100u)
#define RB_READER_WAIT_NS 2000000ull

static uint64_t rb_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Whether a reader waiting on a writer has waited long enough:
 * RB_READER_WAIT_NS (two milliseconds) by the clock once it sleeps
 * (sleeps overrun), or the spin count.
 * @start is set on the first sleeping round.
 */
static bool rb_reader_gave_up(unsigned int spins, uint64_t *start)
{
	if (spins > RB_READER_SPINS_MAX)
		return true;
	if (spins < 256)
		return false;
	if (!*start) {
		*start = rb_mono_ns();
		return false;
	}
	return rb_mono_ns() - *start > RB_READER_WAIT_NS;
}

/* A short pause for a reader waiting on a (maybe preempted) writer. */
static void rb_reader_pause(unsigned int spins)
{
	if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	} else if (spins < 256) {
		sched_yield();
	} else {
		struct timespec ts = { 0, 50000 };

		nanosleep(&ts, NULL);
	}
}

/* When the spinning starts to sleep, see whether the writer died. */
#define RB_READER_SPINS_CHECK 256u

/*
 * rb_set_head_page - find the head page: the page whose incoming link
 * carries HEAD (or UPDATE while a writer pushes it). A writer may move it
 * while we look, so go around up to three times.
 */
uint32_t rb_set_head_page(struct ringbuf_cpu *cpu_buffer)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	uint32_t head, page;
	uint64_t pushes = local_read(&m->pages_lost);

	head = atomic_load_explicit(&m->head_page, memory_order_relaxed);
	if (RB_WARN_ON(cpu_buffer->buffer, head >= cpu_buffer->nr_pages + 1))
		return RB_NO_PAGE;
	page = head;
	for (int i = 0; i < 3; i++) {
		unsigned int n = 0;

		do {
			uint32_t prev = atomic_load_explicit(
				&rb_page(cpu_buffer, page)->prev,
				memory_order_relaxed);
			uint32_t link;

			/* Every id read from the mapping is bound-checked: it
			 * may be another process's file. */
			if (RB_WARN_ON(cpu_buffer->buffer,
				       prev > cpu_buffer->nr_pages))
				return RB_NO_PAGE;
			/* Acquire: pairs with the writers' acq_rel cmpxchgs
			 * of the link (rb_head_page_set()). */
			link = atomic_load_explicit(
				&rb_page(cpu_buffer, prev)->next,
				memory_order_acquire);

			if (rb_link_id(link) == page &&
			    (link & RB_FLAG_MASK) != RB_PAGE_NORMAL) {
				/* The hint; a read-only view cannot keep it. */
				if (!cpu_buffer->buffer->read_only)
					atomic_store_explicit(
						&m->head_page, page,
						memory_order_relaxed);
				return page;
			}
			page = rb_next_id(cpu_buffer, page);
			if (RB_WARN_ON(cpu_buffer->buffer,
				       page > cpu_buffer->nr_pages))
				return RB_NO_PAGE;
		} while (page != head && ++n <= cpu_buffer->nr_pages);
	}
	/*
	 * Userspace: a reader preempted while it walks can be overtaken by
	 * writers pushing the head in overwrite mode, lap after lap; the
	 * kernel's reader runs with interrupts off and warns here. A push
	 * counts pages_lost before it lets go of the old head link (the
	 * UPDATE -> NORMAL release in rb_handle_head_page(), which our
	 * acquire loads of the links saw), so a count that moved means the
	 * head moved under us: busy, not broken. Without a push, a full lap
	 * must have found the flag: the ring is damaged.
	 */
	if (local_read(&m->pages_lost) != pushes) {
		cpu_buffer->reader_busy = true;
		return RB_NO_PAGE;
	}
	RB_WARN_ON(cpu_buffer->buffer, 1);
	return RB_NO_PAGE;
}

/* Swap @new in for the head page @old: cmpxchg prev(old)->next from
 * old|HEAD to new. Fails if a writer holds UPDATE or moved the head. */
static bool rb_head_page_replace(struct ringbuf_cpu *cpu_buffer, uint32_t old,
				 uint32_t new_page)
{
	uint32_t prev = atomic_load_explicit(&rb_page(cpu_buffer, old)->prev,
					     memory_order_relaxed);
	uint32_t expect = rb_link(old, RB_PAGE_HEAD);

	/* Acq_rel: the reader side of the HEAD protocol; pairs with the
	 * writers' cmpxchgs on the same link in rb_head_page_set(). Its
	 * release half also publishes the reader page (reset, links, and
	 * the reader's last reads of it) to the writer that moves its tail
	 * into it: pairs with the acquire load of this link in
	 * rb_is_head_page() in rb_move_tail(). The caller retries on
	 * failure. */
	return atomic_compare_exchange_strong_explicit(
		&rb_page(cpu_buffer, prev)->next, &expect,
		rb_link(new_page, RB_PAGE_NORMAL), memory_order_acq_rel,
		memory_order_relaxed);
}

static uint64_t rb_next_read_stamp(uint64_t stamp,
				   const struct ringbuf_event *event);

/*
 * rb_data_valid - the persistent-buffer check, for the records of a page
 * of a file another process writes (or of a copy of one), before a
 * reader trusts them: every record in @data up to @size well formed and
 * inside it, and time never going backwards from @ts, the page's time
 * stamp (an absolute stamp below the running time). Deltas cannot go
 * backwards by encoding. The data records are counted into *@nrec (when
 * not NULL).
 */
static bool rb_data_valid(const unsigned char *data, uint64_t ts,
			  uint64_t size, uint64_t *nrec)
{
	uint64_t off = 0, n = 0;

	while (off < size) {
		const struct ringbuf_event *ev =
			(const struct ringbuf_event *)(data + off);
		unsigned int len, tl;

		if (size - off < RB_EVNT_MIN_SIZE)
			return false;
		tl = ev->type_len;
		/* a small data record (most of them): its length is in
		 * its header, its delta adds to the time */
		if (tl && tl <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX) {
			len = tl * 4u + RB_EVNT_HDR_SIZE;
			if (len > size - off)
				return false;
			ts += ev->time_delta;
			n++;
			off += len;
			continue;
		}
		if (!rb_event_valid(ev, size - off))
			return false;
		len = rb_event_length(ev);
		if (!len) /* closing padding */
			break;
		n += tl == 0;
		if (ev->type_len == RINGBUF_TYPE_TIME_STAMP) {
			uint64_t abs = rb_fix_abs_ts(rb_event_time_stamp(ev),
						     ts);

			if (abs < ts)
				return false;
			ts = abs;
		} else {
			ts = rb_next_read_stamp(ts, ev);
		}
		off += len;
	}
	if (nrec)
		*nrec = n;
	return true;
}

/* rb_data_valid() of page @id of the ring, up to @size. */
static bool rb_page_valid(struct ringbuf_cpu *cb, uint32_t id, uint64_t size)
{
	const struct rb_data_page *dp = rb_data(cb, id);

	return rb_data_valid((const unsigned char *)dp->data,
			     atomic_load_explicit(&dp->time_stamp,
						  memory_order_relaxed),
			     size, NULL);
}

/*
 * A page of another process's file that failed rb_data_valid(): reported
 * once, skipped, its events counted as lost (reported with the next
 * event). Reader lock held.
 */
static void rb_skip_invalid(struct ringbuf_cpu *cb, uint32_t id)
{
	rb_page(cb, id)->read = rb_page_size(cb, id);
	cb->meta->lost_events += rb_page_entries(cb, id);
}

/*
 * rb_get_reader_page - the reader page with unread data, swapping the
 * head page in when the current one is used up. Returns RB_NO_PAGE when
 * there is nothing to read. With @full (a reader that takes whole pages
 * only, ringbuf_read_page()), the head page is not swapped in while the
 * writer is still on it. With @unchecked (ringbuf_read_page(), which
 * checks the copy it makes instead), a page of another process's file
 * that would be checked here first is not: *@unchecked is set, and the
 * caller checks it (rb_data_valid()), skips it if bad (rb_skip_invalid())
 * and sets the read stamp. Reader lock held.
 */
static uint32_t rb_get_reader_page(struct ringbuf_cpu *cpu_buffer, bool full,
				   bool *unchecked)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	struct ringbuf *rb = cpu_buffer->buffer;
	uint32_t reader = RB_NO_PAGE, commit_page;
	uint64_t overwrite;
	unsigned int nr_loops = 0, spins = 0, skipped = 0;
	uint64_t wait_start = 0;
	bool recovered = false;

again:
	/* Twice normally; a third time when the first swap brought in the
	 * initial empty page. */
	if (RB_WARN_ON(rb, ++nr_loops > 3)) {
		reader = RB_NO_PAGE;
		goto out;
	}

	reader = atomic_load_explicit(&m->reader_page, memory_order_relaxed);
	/*
	 * Userspace: the kernel looks at the reader page's size before it
	 * looks at the commit page. A writer that commits more on the reader
	 * page and moves on between the two looks makes that order swap out
	 * a page with unread events. Read the commit page first: if the
	 * writer has left the reader page, the size read after is final.
	 * Acquire: pairs with the release of commit_page in
	 * rb_set_commit_to_write(), which follows the page's last commit.
	 */
	commit_page = atomic_load_explicit(&m->commit_page,
					   memory_order_acquire);
	if (RB_WARN_ON(rb, reader > cpu_buffer->nr_pages ||
			       rb_page_size(cpu_buffer, reader) > rb->bsize)) {
		reader = RB_NO_PAGE;
		goto out;
	}

	/* A read index off the 4-byte grid (a corrupt file): used up. */
	if (RB_WARN_ON(rb, rb_read_index(cpu_buffer, reader) % RB_ALIGNMENT))
		rb_page(cpu_buffer, reader)->read =
			rb_page_size(cpu_buffer, reader);

	/* If there's more to read, return this page */
	if (rb_read_index(cpu_buffer, reader) < rb_page_size(cpu_buffer, reader))
		goto out;

	/* A reader page reset for a swap that did not happen (above). */
	if (rb_page_size(cpu_buffer, reader) == 0)
		rb_page(cpu_buffer, reader)->read = 0;

	/*
	 * Never should we have an index greater than the size, nor one off
	 * the 4-byte grid (a corrupt file): the page is used up.
	 */
	if (RB_WARN_ON(rb, rb_read_index(cpu_buffer, reader) >
				   rb_page_size(cpu_buffer, reader) ||
			       rb_read_index(cpu_buffer, reader) %
				       RB_ALIGNMENT))
		rb_page(cpu_buffer, reader)->read =
			rb_page_size(cpu_buffer, reader);

	/* check if we caught up to the tail */
	reader = RB_NO_PAGE;
	if (commit_page ==
	    atomic_load_explicit(&m->reader_page, memory_order_relaxed))
		goto out;

	/*
	 * Don't bother swapping if the ring buffer is empty. Userspace: not
	 * while it holds bytes nobody read either: padding with no record
	 * after it (a spare's CPU note whose record found no room) is passed
	 * over like any padding, so that a drained buffer holds no bytes.
	 */
	if (rb_num_of_entries(cpu_buffer) == 0 &&
	    local_read(&m->entries_bytes) ==
		    atomic_load_explicit(&m->read_bytes, memory_order_relaxed))
		goto out;

	/*
	 * Userspace: the kernel swaps the head page in even when the writer
	 * is on it, and ring_buffer_read_page() with @full then refuses it.
	 * The writer goes on filling the reader page, and every look of a
	 * reader polling for the next full page reads the lines the writer
	 * writes at each record (the page's control block and commit word),
	 * which costs the writer a cache miss at its next record each time.
	 * A reader that wants whole pages only leaves the head page in the
	 * ring until the writer is past it: then the pages it reads and
	 * resets are ones the writer has left. The commit page loaded above
	 * only moves forward, and a writer reaching the head page after the
	 * look pushes the head (overwrite mode, which makes the swap below
	 * fail and look again) or stops short of it (producer/consumer
	 * mode), so the page swapped in is never the writer's.
	 */
	if (full) {
		uint32_t head = rb_set_head_page(cpu_buffer);

		if (head == RB_NO_PAGE || head == commit_page)
			goto out;
	}

	{
		uint32_t rp = atomic_load_explicit(&m->reader_page,
						   memory_order_relaxed);
		struct rb_page_ctl *rpage = rb_page(cpu_buffer, rp);
		uint32_t head;

		/*
		 * Reset the reader page to size zero. Userspace: the read
		 * index too, after the commit: the kernel's swap always
		 * completes and sets it on the page it takes, but ours may
		 * give up (a preempted writer holds UPDATE) or die here (a
		 * reader process killed), and the page stays the reader
		 * page. Zero size and zero read is a used-up page the next
		 * read swaps out as usual; a reader killed between the two
		 * stores leaves read > 0 on a zero-size page, which the
		 * check above takes for the same.
		 */
		local_set(&rpage->write, 0);
		local_set(&rpage->entries, 0);
		atomic_store_explicit(&rb_data(cpu_buffer, rp)->commit, 0,
				      memory_order_relaxed);
		atomic_store_explicit(&rpage->real_end, 0,
				      memory_order_relaxed);
		RB_TESTPOINT(cpu_buffer, RINGBUF_TP_READER_RESET);
		rpage->read = 0;

spin:
		/* Splice the empty reader page into the list around the head. */
		head = rb_set_head_page(cpu_buffer);
		if (head == RB_NO_PAGE)
			goto out;
		/*
		 * The reader page points to the page after the head, as HEAD:
		 * once swapped in, the page after it is the new head.
		 * Relaxed: no writer can reach the reader page before the
		 * swap's cmpxchg (rb_head_page_replace()) links it into the
		 * ring; that cmpxchg releases this store, the page reset
		 * above and everything we read from the page while it was
		 * ours, to the writer that follows the link into it.
		 */
		atomic_store_explicit(&rpage->next,
				      rb_link(rb_next_id(cpu_buffer, head),
					      RB_PAGE_HEAD),
				      memory_order_relaxed);
		atomic_store_explicit(&rpage->prev,
				      atomic_load_explicit(
					      &rb_page(cpu_buffer, head)->prev,
					      memory_order_relaxed),
				      memory_order_relaxed);

		/*
		 * Read the overrun after setting up our links: a writer
		 * crossing into the head does its cmpxchg on the link before
		 * adding to overrun, and our swap fails while it holds
		 * UPDATE, so the overrun read here covers every page lost
		 * before the one we take. Pairs with the acq_rel cmpxchg in
		 * rb_head_page_set().
		 */
		atomic_thread_fence(memory_order_seq_cst);
		overwrite = local_read(&m->overrun);
		if (cpu_buffer->shared)
			rb_swap_record(cpu_buffer, head);
		RB_TESTPOINT(cpu_buffer, RINGBUF_TP_READER_SWAP);

		/*
		 * Move the head past the head page, unless a writer is moving
		 * it (UPDATE) or moved it (NORMAL): then look again.
		 *
		 * Userspace: the kernel spins here because the writer holding
		 * UPDATE runs with preemption off. A userspace writer can be
		 * preempted in that window, so the spin backs off to yields
		 * and sleeps, and gives up (no data this time) after about
		 * two milliseconds (RB_READER_WAIT_NS).
		 */
		if (!rb_head_page_replace(cpu_buffer, head, rp)) {
			/*
			 * A writer that holds UPDATE this long may be dead
			 * (a process that shared the buffer with us): then
			 * repair and try again, once.
			 */
			if (spins == RB_READER_SPINS_CHECK &&
			    rb_recover_dead_writer(cpu_buffer, &recovered))
				goto spin;
			if (rb_reader_gave_up(++spins, &wait_start)) {
				cpu_buffer->reader_busy = true;
				if (cpu_buffer->shared)
					rb_swap_record(cpu_buffer, RB_NO_SWAP);
				goto out;
			}
			rb_reader_pause(spins);
			goto spin;
		}

		/* Now make the new head point back to the reader page. */
		atomic_store_explicit(
			&rb_page(cpu_buffer, rb_next_id(cpu_buffer, head))->prev,
			rp, memory_order_relaxed);
		atomic_store_explicit(&m->head_page,
				      rb_next_id(cpu_buffer, head),
				      memory_order_relaxed);
		/* Seq_cst, and the load of room_waiters after it: a writer
		 * waiting for room counts itself, then looks at pages_read
		 * (rb_wait_for_room()); one of the two sees the other. */
		atomic_fetch_add_explicit(&m->pages_read, 1,
					  memory_order_seq_cst);
		if (atomic_load_explicit(&m->room_waiters,
					 memory_order_seq_cst))
			rb_room_wake(m);

		/* Finally update the reader page to the new head */
		atomic_store_explicit(&m->reader_page, head,
				      memory_order_relaxed);
		rb_page(cpu_buffer, head)->read = 0;

		/*
		 * Userspace: += where the kernel assigns. The pages of an
		 * attached view skipped as invalid add to the same count
		 * (below), and a second swap before the consumer reported
		 * the first keeps both losses instead of the last one.
		 */
		if (overwrite != m->last_overrun) {
			m->lost_events += overwrite - m->last_overrun;
			m->last_overrun = overwrite;
		}
		if (cpu_buffer->shared)
			rb_swap_record(cpu_buffer, RB_NO_SWAP);
	}
	goto again;

out:
	/* Update the read_stamp on the first event */
	if (reader != RB_NO_PAGE && rb_read_index(cpu_buffer, reader) == 0) {
		/*
		 * Userspace: a page of another process's file is checked
		 * before it is read (as the kernel checks a persistent buffer
		 * left by the previous boot); a bad one is reported once and
		 * skipped, never trusted.
		 */
		if (rb->attached && unchecked) {
			*unchecked = true;
		} else if (rb->attached &&
			   RB_WARN_ON(rb, !rb_page_valid(cpu_buffer, reader,
							 rb_page_size(cpu_buffer,
								      reader)))) {
			/* Skipped: its events count as lost, reported with
			 * the next event; go on with the next page. */
			rb_skip_invalid(cpu_buffer, reader);
			if (++skipped <= cpu_buffer->nr_pages) {
				nr_loops = 0;
				goto again;
			}
			reader = RB_NO_PAGE;
		} else {
			m->read_stamp = atomic_load_explicit(
				&rb_data(cpu_buffer, reader)->time_stamp,
				memory_order_relaxed);
		}
	}

	/*
	 * A write index past the page end means a writer is in
	 * rb_move_tail() on this page, about to put the index back; wait for
	 * it, bounded (userspace: it may be preempted there).
	 */
	for (spins = 0, wait_start = 0; reader != RB_NO_PAGE &&
			rb_page_write(cpu_buffer, reader) > rb->bsize;
	     spins++) {
		/* The writer may have died in the page crossing. */
		if (spins == RB_READER_SPINS_CHECK)
			rb_recover_dead_writer(cpu_buffer, &recovered);
		if (rb_reader_gave_up(spins, &wait_start)) {
			cpu_buffer->reader_busy = true;
			return RB_NO_PAGE;
		}
		rb_reader_pause(spins);
	}

	/* Acquire: pairs with the release fence in rb_reset_tail(), so the
	 * padding written before the write index dropped is visible. */
	atomic_thread_fence(memory_order_acquire);
	return reader;
}

/* The read stamp after @event (the kernel's rb_update_read_stamp()). */
static uint64_t rb_next_read_stamp(uint64_t stamp,
				   const struct ringbuf_event *event)
{
	switch (event->type_len) {
	case RINGBUF_TYPE_PADDING:
		/*
		 * A discarded record keeps the delta it was written with,
		 * and records written after it (by a nested writer, before
		 * the discard) build on it. The kernel's reader drops it;
		 * libtraceevent adds it, which is right, and what we do.
		 */
		return stamp + event->time_delta;
	case RINGBUF_TYPE_TIME_EXTEND:
		return stamp + rb_event_time_stamp(event);
	case RINGBUF_TYPE_TIME_STAMP:
		return rb_fix_abs_ts(rb_event_time_stamp(event), stamp);
	default:
		return stamp + event->time_delta;
	}
}

/*
 * Apply a reader's progress on the reader page. In a shared buffer it is
 * written ahead into the lock area first, so that if this process dies
 * half-way the next reader completes it (rb_reader_repair()) and no
 * counter disagrees with what was consumed.
 */
static void rb_reader_progress(struct ringbuf_cpu *cb, uint32_t page,
			       uint64_t to, uint64_t read, uint64_t bytes,
			       uint64_t stamp)
{
	struct rb_cpu_lock *l = cb->shared;
	struct rb_cpu_meta *m = cb->meta;

	if (l) {
		l->adv_page = page;
		l->adv_to = to;
		l->adv_read = read;
		l->adv_bytes = bytes;
		l->adv_stamp = stamp;
		/* Release: the record is complete before it is valid; pairs
		 * with the acquire in rb_reader_repair(). */
		atomic_store_explicit(&l->adv_valid, 1, memory_order_release);
	}
	rb_page(cb, page)->read = to;
	/* Relaxed: counters other readers snapshot; the lock orders us. */
	atomic_store_explicit(&m->read, read, memory_order_relaxed);
	atomic_store_explicit(&m->read_bytes, bytes, memory_order_relaxed);
	m->read_stamp = stamp;
	if (l)
		/* Release: the progress is applied before the record is
		 * retired; pairs with the acquire in rb_reader_repair(). */
		atomic_store_explicit(&l->adv_valid, 0, memory_order_release);
}

static void rb_advance_reader(struct ringbuf_cpu *cpu_buffer)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	uint32_t reader = atomic_load_explicit(&m->reader_page,
					       memory_order_relaxed);
	struct ringbuf_event *event = rb_reader_event(cpu_buffer);
	uint64_t read = atomic_load_explicit(&m->read, memory_order_relaxed);
	unsigned int length;

	if (event->type_len <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX)
		read++;
	length = rb_event_length(event);
	if (!length) /* end-of-page padding: the page is used up */
		length = (unsigned int)(rb_page_size(cpu_buffer, reader) -
					rb_read_index(cpu_buffer, reader));
	rb_reader_progress(cpu_buffer, reader,
			   rb_read_index(cpu_buffer, reader) + length, read,
			   atomic_load_explicit(&m->read_bytes,
						memory_order_relaxed) +
				   length,
			   rb_next_read_stamp(m->read_stamp, event));
}

/*
 * rb_buffer_peek - the next record that is data or padding, with time
 * extends and time stamps applied. Reader lock held.
 */
static struct ringbuf_event *rb_buffer_peek(struct ringbuf_cpu *cpu_buffer,
					    uint64_t *ts,
					    unsigned long *lost_events)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	struct ringbuf_event *event;
	uint64_t room;
	uint32_t reader;
	int nr_loops = 0;

again:
	/* A time extend or stamp always precedes a data record: at most
	 * two of them in a row. */
	if (RB_WARN_ON(cpu_buffer->buffer, ++nr_loops > 3))
		return NULL;

	reader = rb_get_reader_page(cpu_buffer, false, NULL);
	if (reader == RB_NO_PAGE)
		return NULL;

	/* (the page the swap returned, whatever the file's reader_page
	 * says by now) */
	event = rb_reader_event_at(cpu_buffer, reader, &room);
	{
		/* A record (8 bytes at least) must lie inside the committed
		 * data: the file may be another process's. */
		uint64_t read = rb_read_index(cpu_buffer, reader);
		uint64_t size = rb_page_size(cpu_buffer, reader);

		if (RB_WARN_ON(cpu_buffer->buffer,
			       read > size || read % RB_ALIGNMENT ||
				       !rb_event_valid(event, size - read))) {
			/* The rest of the page is skipped and counted as
			 * lost (at least one event); the caller reads on. */
			rb_page(cpu_buffer, reader)->read = size;
			m->lost_events++;
			return RB_SKIPPED;
		}
		/* Userspace: the first record's base, loaded after the
		 * commit that shows the record (acquire in rb_page_size()):
		 * a spare's writer sets the page's time stamp back by one
		 * before it commits a CPU note that starts the page. */
		if (!read)
			m->read_stamp = rb_page_stamp(cpu_buffer, reader);
	}

	switch (event->type_len) {
	case RINGBUF_TYPE_PADDING:
		/* Returned so the caller advances past it and drops the
		 * lock between records of a writer that discards a lot. */
		return event;
	case RINGBUF_TYPE_TIME_EXTEND:
	case RINGBUF_TYPE_TIME_STAMP:
		rb_advance_reader(cpu_buffer);
		goto again;
	default:
		cpu_buffer->rd_room = room;
		if (ts)
			*ts = m->read_stamp + event->time_delta;
		if (lost_events)
			*lost_events = (unsigned long)m->lost_events;
		return event;
	}
}

/* ------------------------------------------------------------------ */
/* CPU notes                                                           */

/* The CPU the records of @cb were written on where no note says: CPU
 * buffer n's, n; a spare's or a thread slot's, unknown (-1). */
int rb_home_cpu(struct ringbuf_cpu *cb)
{
	struct ringbuf *rb = cb->buffer;

	return rb->model == RINGBUF_PER_CPU && cb->cpu < rb->nr_cpu_bufs ?
		       cb->cpu :
		       -1;
}

/*
 * The CPU of the record at offset @upto of page @id, given that the
 * record at offset @from (a record boundary) was written on @cpu: the
 * last CPU note in between, else @cpu. [@from, @upto) is data the reader
 * has passed, which no writer changes while it is the reader's.
 */
int rb_page_note_cpu(struct ringbuf_cpu *cb, uint32_t id, uint64_t from,
		     uint64_t upto, int cpu)
{
	const unsigned char *d = rb_data(cb, id)->data;
	uint64_t size = rb_page_size(cb, id);

	/* never past the data: the file may be another process's */
	if (upto > size)
		upto = size;
	if (upto > cb->buffer->bsize)
		upto = cb->buffer->bsize;

	while (from + RB_EVNT_MIN_SIZE <= upto) {
		const struct ringbuf_event *e = (const void *)(d + from);
		unsigned int len;

		if (!rb_event_valid(e, upto - from))
			break;
		len = rb_event_length(e);
		if (!len)
			break;
		if (e->type_len == RINGBUF_TYPE_PADDING) {
			int c = ringbuf_note_cpu(e, upto - from);

			if (c >= 0)
				cpu = c;
		}
		from += len;
	}
	return cpu;
}

/*
 * The CPU the record at the reader's position was written on; reader lock
 * held. The last answer is kept, so that a reader going through a page
 * looks at each record once.
 */
static int rb_reader_note_cpu(struct ringbuf_cpu *cb)
{
	struct rb_cpu_meta *m = cb->meta;
	uint32_t reader = atomic_load_explicit(&m->reader_page,
					       memory_order_relaxed);
	uint64_t read = rb_read_index(cb, reader);
	uint64_t stamp = rb_page_stamp(cb, reader);

	if (cb->rd_note_page != reader || cb->rd_note_stamp != stamp ||
	    cb->rd_note_pos > read) {
		cb->rd_note_page = reader;
		cb->rd_note_stamp = stamp;
		cb->rd_note_pos = 0;
		cb->rd_note_cpu = rb_home_cpu(cb);
	}
	cb->rd_note_cpu = rb_page_note_cpu(cb, reader, cb->rd_note_pos, read,
					   cb->rd_note_cpu);
	cb->rd_note_pos = read;
	return cb->rd_note_cpu;
}

/* Peek past any padding; the reader lock is held. */
struct ringbuf_event *rb_reader_peek_locked(struct ringbuf_cpu *cb,
					    uint64_t *ts, unsigned long *lost)
{
	struct ringbuf_event *event;
	/* Every round consumes at least 8 bytes of the buffer. */
	unsigned long max = (unsigned long)(cb->nr_pages + 1) *
				    cb->buffer->bsize / RB_EVNT_MIN_SIZE +
			    8;

	cb->reader_busy = false;
	while ((event = rb_buffer_peek(cb, ts, lost)) &&
	       (event == RB_SKIPPED ||
		event->type_len == RINGBUF_TYPE_PADDING)) {
		if (event != RB_SKIPPED)
			rb_advance_reader(cb);
		if (RB_WARN_ON(cb->buffer, !--max))
			return NULL;
	}
	return event;
}

/*
 * The calling thread's copy of the last event peek or consume returned.
 * Userspace: the kernel hands out a pointer into the reader page, which
 * stays put until the next read because swap, reset and resize move page
 * pointers, never the bytes. Here a swap exchanges the bytes, a reset
 * gives the reader page back to the writers and a resize unmaps it, all
 * possibly from another thread right after the reader lock is dropped.
 * So the event is copied out under the lock, into memory of the calling
 * thread that none of them touches.
 */
static __thread struct {
	unsigned char *buf;
	size_t size;
	int cpu; /* the CPU the record in buf was written on, or -1 */
} rb_read_copy;

void rb_read_copy_free(void)
{
	free(rb_read_copy.buf);
	rb_read_copy.buf = NULL;
	rb_read_copy.size = 0;
}

/*
 * rb_copy_record - copy the record at @src, with @room bytes to the end
 * of its page's data, to @dst, which has @dst_room; reader lock held.
 * Returns its length, or 0 when it is not a whole record there (nothing
 * past the first RB_EVNT_MIN_SIZE bytes of @dst written then).
 *
 * Userspace: the kernel's reader page is the reader's alone. A buffer in
 * a file may have its pages written out of turn by another process (a
 * hostile one, or a file cut and grown back as zeros) between a reader's
 * check of a record and its copy. So the header and length word are read
 * once, into the copy, checked there, and the body copied by the length
 * they give: what the reader hands out is a whole record, within @dst,
 * whatever the file says meanwhile.
 */
static unsigned int rb_copy_record(struct ringbuf_cpu *cb, void *dst,
				   uint64_t dst_room, const unsigned char *src,
				   uint64_t room)
{
	struct ringbuf_event *copy = dst;
	unsigned int len;

	if (room < RB_EVNT_MIN_SIZE || dst_room < RB_EVNT_MIN_SIZE)
		return 0;
	RB_TESTPOINT_COPY(cb, src);
	memcpy(copy, src, RB_EVNT_MIN_SIZE);
	if (!rb_event_valid(copy, room))
		return 0;
	len = rb_event_length(copy);
	if (!len || len > dst_room)
		return 0;
	/* (a valid record is RB_EVNT_MIN_SIZE at least) */
	memcpy((unsigned char *)dst + RB_EVNT_MIN_SIZE, src + RB_EVNT_MIN_SIZE,
	       len - RB_EVNT_MIN_SIZE);
	return len;
}

/*
 * Copy the data record @event that rb_buffer_peek() returned (reader
 * lock held; rb_copy_record()); NULL with errno ENOMEM, or EAGAIN when
 * the record is no longer one (the next read checks it again).
 */
static struct ringbuf_event *rb_event_copy(struct ringbuf_cpu *cb,
					   struct ringbuf_event *event)
{
	size_t need = cb->buffer->bsize;
	struct ringbuf_event *copy;

	if (rb_read_copy.size < need) {
		unsigned char *n = malloc(need);

		if (!n) {
			errno = ENOMEM;
			return NULL;
		}
		free(rb_read_copy.buf);
		rb_read_copy.buf = n;
		rb_read_copy.size = need;
		/* freed by the thread-exit destructor */
		rb_thread_slot_track();
	}
	copy = (struct ringbuf_event *)rb_read_copy.buf;
	if (!rb_copy_record(cb, copy, need, (const unsigned char *)event,
			    cb->rd_room) ||
	    copy->type_len > RINGBUF_TYPE_DATA_TYPE_LEN_MAX) {
		errno = EAGAIN;
		return NULL;
	}
	rb_read_copy.cpu = rb_reader_note_cpu(cb);
	return copy;
}

int ringbuf_event_cpu(const struct ringbuf_event *event)
{
	if (!event || event != (const void *)rb_read_copy.buf)
		return -1;
	return rb_read_copy.cpu;
}

/* errno for a peek or consume that found no event. */
static void rb_read_none(struct ringbuf_cpu *cb)
{
	errno = cb->reader_busy ? EAGAIN : ENODATA;
}

struct ringbuf_event *ringbuf_peek(struct ringbuf *rb, int cpu, uint64_t *ts,
				   unsigned long *lost_events)
{
	struct ringbuf_cpu *cb = rb_cpu_consumer(rb, cpu);
	struct ringbuf_event *event;

	if (!cb) {
		errno = EINVAL;
		return NULL;
	}
	if (rb_reader_lock(cb)) {
		/* Busy (another process holds the file's lock) or a view
		 * not read any more: nothing this time. */
		rb_reader_unlock(cb);
		errno = EAGAIN;
		return NULL;
	}
	event = rb_reader_peek_locked(cb, ts, lost_events);
	if (event)
		event = rb_event_copy(cb, event);
	else
		rb_read_none(cb);
	rb_reader_unlock(cb);
	return event;
}

struct ringbuf_event *ringbuf_consume(struct ringbuf *rb, int cpu,
				      uint64_t *ts, unsigned long *lost_events)
{
	struct ringbuf_cpu *cb = rb_cpu_consumer(rb, cpu);
	struct ringbuf_event *event;

	if (!cb) {
		errno = EINVAL;
		return NULL;
	}
	if (rb_reader_lock(cb)) {
		/* As ringbuf_peek(). */
		rb_reader_unlock(cb);
		errno = EAGAIN;
		return NULL;
	}
	event = rb_reader_peek_locked(cb, ts, lost_events);
	if (!event) {
		rb_read_none(cb);
	} else if ((event = rb_event_copy(cb, event))) {
		/* The loss is reported with this event: start counting anew. */
		cb->meta->lost_events = 0;
		rb_advance_reader(cb);
	}
	rb_reader_unlock(cb);
	return event;
}

/*
 * Peek for the merge, skipping a cpu buffer that was empty when last
 * looked at and has had no write since. The mark is only set when no
 * writer was active: then every write counted in @commits had finished
 * (acquire on active, pairing with the release in rb_writer_put()), so
 * the peek under the lock saw it. Any later reserve changes commits.
 */
static bool rb_merge_peek(struct ringbuf_cpu *cb, uint64_t *ts, bool *busy)
{
	uint64_t commits = local_read(&cb->commits);
	uint64_t active;
	struct ringbuf_event *event;

	/* The counts are the writing process's: an attached view, in another
	 * process, always looks. */
	if (!cb->buffer->attached &&
	    commits == atomic_load_explicit(&cb->empty_at_commits,
					    memory_order_relaxed))
		return false;
	/* Acquire: pairs with the release of active in rb_writer_put(). */
	active = atomic_load_explicit(&cb->active, memory_order_acquire);
	if (rb_reader_lock(cb)) {
		*busy = true;
		rb_reader_unlock(cb);
		return false;
	}
	event = rb_reader_peek_locked(cb, ts, NULL);
	*busy |= cb->reader_busy;
	/* Relaxed: a hint read by readers only, written under the lock. */
	if (!event && !active)
		atomic_store_explicit(&cb->empty_at_commits, commits,
				      memory_order_relaxed);
	rb_reader_unlock(cb);
	return event != NULL;
}

struct ringbuf_event *ringbuf_consume_next(struct ringbuf *rb, int *cpu,
					   uint64_t *ts,
					   unsigned long *lost_events)
{
	int best = -1;
	uint64_t best_ts = 0;
	bool busy = false;

	if (!rb || rb->read_only) {
		errno = EINVAL;
		return NULL;
	}
	for (int c = 0; c < rb->nr_cpus; c++) {
		uint64_t t;

		if (rb_merge_peek(rb->buffers[c], &t, &busy) &&
		    (best < 0 || t < best_ts)) {
			best = c;
			best_ts = t;
		}
	}
	if (best < 0) {
		errno = busy ? EAGAIN : ENODATA;
		return NULL;
	}
	if (cpu)
		*cpu = best;
	return ringbuf_consume(rb, best, ts, lost_events);
}

/* ------------------------------------------------------------------ */
/* read_page                                                           */

/*
 * The bytes of a record with the data record after a time extend, both
 * checked to lie within @room; 0 if they do not (a corrupt page).
 */
static unsigned int rb_event_ts_length(struct ringbuf_event *event,
				       uint64_t room)
{
	unsigned int len = 0;

	if (!rb_event_valid(event, room))
		return 0;
	if (event->type_len == RINGBUF_TYPE_TIME_EXTEND ||
	    event->type_len == RINGBUF_TYPE_TIME_STAMP) {
		/* time extends include the data event after it */
		len = RB_LEN_TIME_EXTEND;
		room -= RB_LEN_TIME_EXTEND;
		event = (struct ringbuf_event *)((char *)event +
						 RB_LEN_TIME_EXTEND);
		if (!rb_event_valid(event, room))
			return 0;
	}
	return len + rb_event_length(event);
}

void *ringbuf_alloc_read_page(struct ringbuf *rb, int cpu)
{
	void *page;

	if (!rb_cpu(rb, cpu)) {
		errno = EINVAL;
		return NULL;
	}
	page = calloc(1, rb->subbuf_size);
	if (!page)
		errno = ENOMEM;
	return page;
}

void ringbuf_free_read_page(struct ringbuf *rb, int cpu, void *data)
{
	(void)rb;
	(void)cpu;
	free(data);
}

/*
 * ringbuf_read_page() and ringbuf_read_page_count(): the page, and its data
 * records counted into *@records when not NULL.
 */
static int rb_read_page(struct ringbuf *rb, void *data_page, size_t len,
			int cpu, int full, unsigned long *records)
{
	struct ringbuf_cpu *cb = rb_cpu_consumer(rb, cpu);
	struct ringbuf_data_page *dpage = data_page;
	struct rb_cpu_meta *m;
	struct ringbuf_event *event;
	uint64_t read, commit, missed_events, nrec, cpu_bits = 0, checked = 0;
	bool writer_on_page, unchecked;
	unsigned int skipped = 0;
	uint32_t reader;
	int ret = -ENODATA;

	if (!cb || !data_page || len <= RINGBUF_PAGE_HDR_SIZE) {
		errno = EINVAL;
		return -EINVAL;
	}
	if (len > rb->subbuf_size)
		len = rb->subbuf_size;
	len -= RINGBUF_PAGE_HDR_SIZE;

	if (rb_reader_lock(cb)) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	/* Under the lock: a resize moves the cpu buffer's state. */
	m = cb->meta;

	cb->reader_busy = false;
again:
	/*
	 * A page of another process's file is checked before it is trusted:
	 * the copy made of a whole page (below), so that the page is read
	 * once, and the copy, which that process cannot change under the
	 * check; a page read in part, in place, as rb_get_reader_page()
	 * checks it for the other readers.
	 */
	unchecked = false;
	reader = rb_get_reader_page(cb, full, &unchecked);
	if (reader == RB_NO_PAGE) {
		if (cb->reader_busy)
			ret = -EAGAIN;
		goto out_unlock;
	}

	event = rb_reader_event(cb);
	read = rb_read_index(cb, reader);
	/*
	 * Whether a writer is still on the page, before its size: if the
	 * commit page has moved on, the size read after is final. (Read the
	 * other way round, a writer could finish the page in between, and
	 * the whole-page path would copy the old size but account the whole
	 * page as read.) Acquire: pairs with the release of commit_page in
	 * rb_set_commit_to_write().
	 */
	writer_on_page = atomic_load_explicit(&m->commit_page,
					      memory_order_acquire) == reader;
	commit = rb_page_size(cb, reader);
	/* Changed under us by another process since the checks: give up. */
	if (RB_WARN_ON(rb, read > commit || read % RB_ALIGNMENT ||
				   commit > rb->bsize))
		goto out_unlock;

	/* Check if any events were dropped */
	missed_events = m->lost_events;

	/*
	 * A partly read page, a page bigger than @len, or a page a writer is
	 * still on: copy the whole events that fit.
	 */
	if (read || len < commit - read || writer_on_page) {
		struct rb_data_page *rpage = rb_data(cb, reader);
		uint64_t rpos, pos = 0, save_timestamp;
		unsigned int size;
		int note_cpu, c;

		/*
		 * A full page can still be returned if a previous partial
		 * read left the rest of it and the writer is off it.
		 */
		if (full && (!read || len < commit - read || writer_on_page))
			goto out_unlock;
		if (unchecked &&
		    RB_WARN_ON(rb, !rb_page_valid(cb, reader, commit))) {
			/* skipped, counted as lost (rb_get_reader_page()) */
			rb_skip_invalid(cb, reader);
			if (++skipped <= cb->nr_pages)
				goto again;
			goto out_unlock;
		}
		note_cpu = rb_reader_note_cpu(cb);

		/* the page's time stamp, loaded after its commit, at its
		 * start (as rb_buffer_peek()) */
		if (!read)
			m->read_stamp = rb_page_stamp(cb, reader);
		/*
		 * Userspace: the records from @read on were written on the
		 * CPU a note before them names. The copy starts a page of
		 * its own, which says it in its commit word (cpu_bits); the
		 * notes it starts with are not copied.
		 */
		while (read < commit &&
		       (c = ringbuf_note_cpu(rpage->data + read,
					     commit - read)) >= 0) {
			note_cpu = c;
			rb_advance_reader(cb);
			read = rb_read_index(cb, reader);
		}
		if (note_cpu >= 0 && note_cpu != rb_home_cpu(cb))
			cpu_bits = rb_page_cpu_bits(note_cpu);
		event = rb_reader_event(cb);
		rpos = read;

		if (len > commit - read)
			len = commit - read;

		/* Always keep the time extend and data together */
		size = rb_event_ts_length(event, commit - read);
		if (!size || len < size)
			goto out_unlock;

		/* save the current timestamp, since the user will need it */
		save_timestamp = m->read_stamp;

		/* Need to copy one event at a time */
		nrec = 0;
		do {
			struct ringbuf_event *copy =
				(struct ringbuf_event *)(dpage->data + pos);

			/* rb_advance_reader() moves by one record; a time
			 * extend's data event is copied in the next round. */
			size = rb_copy_record(cb, copy, len, rpage->data + rpos,
					      commit - rpos);
			if (!size)
				break;
			if (copy->type_len <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX)
				nrec++;
			len -= size;
			rb_advance_reader(cb);
			rpos = rb_read_index(cb, reader);
			pos += size;
			/* (off the 4-byte grid: the file changed under us) */
			if (rpos >= commit || rpos % RB_ALIGNMENT)
				break;
			event = (struct ringbuf_event *)(rpage->data + rpos);
			/* Always keep the time extend and data together */
			size = rb_event_ts_length(event, commit - rpos);
		} while (size && len >= size);

		dpage->commit = pos | cpu_bits;
		dpage->time_stamp = save_timestamp;
	} else {
		/*
		 * Userspace: the kernel swaps this sub-buffer out for the
		 * caller's page. Ours stays in the shared mapping; copy it
		 * whole and mark it read, which is the same to the caller.
		 */
		struct rb_data_page *rpage = rb_data(cb, reader);
		uint32_t real_end = atomic_load_explicit(
			&rb_page(cb, reader)->real_end, memory_order_relaxed);
		uint64_t size = commit; /* final: the writer has left */

		/* The real end leaves the closing padding out, so the lost
		 * count can be stored after the data. */
		unsigned int skip = 0;
		int c;

		if (real_end && real_end < commit)
			commit = real_end;
		dpage->time_stamp = atomic_load_explicit(&rpage->time_stamp,
							 memory_order_relaxed);
		/* Userspace: a CPU note that starts the page goes into the
		 * commit word (cpu_bits); the page starts with the record
		 * after it, whose delta is from the note's time. */
		c = ringbuf_note_cpu(rpage->data, commit);
		if (c >= 0) {
			const struct ringbuf_event *n = (const void *)rpage->data;

			skip = n->array[0] + RB_EVNT_HDR_SIZE;
			dpage->time_stamp += n->time_delta;
			cpu_bits = rb_page_cpu_bits(c);
		}
		/* (a length changed since ringbuf_note_cpu() looked: the
		 * other process's page is bad, and so is the copy) */
		if (skip > commit)
			skip = (unsigned int)commit;
		memcpy(dpage->data, rpage->data + skip, commit - skip);
		if (unchecked) {
			/* the copy's records, from the note's time on */
			if (RB_WARN_ON(rb, !rb_data_valid(dpage->data,
							  dpage->time_stamp,
							  commit - skip,
							  &checked))) {
				/* skipped, counted as lost */
				rb_skip_invalid(cb, reader);
				cpu_bits = 0;
				if (++skipped <= cb->nr_pages)
					goto again;
				goto out_unlock;
			}
			/* as rb_get_reader_page() sets it for a page it
			 * checked */
			m->read_stamp = atomic_load_explicit(
				&rpage->time_stamp, memory_order_relaxed);
		}
		dpage->commit = (commit - skip) | cpu_bits;
		/* the records of another process's page as the check
		 * counted them, not as its counter says */
		nrec = unchecked ? checked : rb_page_entries(cb, reader);
		rb_reader_progress(cb, reader, size,
				   atomic_load_explicit(&m->read,
							memory_order_relaxed) +
					   rb_page_entries(cb, reader),
				   atomic_load_explicit(&m->read_bytes,
							memory_order_relaxed) +
					   size,
				   m->read_stamp);
	}
	ret = 0;
	if (records)
		*records = (unsigned long)nrec;

	/*
	 * Userspace: a page without a record (only padding: discarded
	 * records, CPU notes) does not carry the loss before it, which a
	 * reader would show with no record after it (trace-cmd does not
	 * show it at all): the next page with a record does.
	 */
	if (nrec)
		m->lost_events = 0;
	else
		missed_events = 0;

	commit = dpage->commit & RINGBUF_COMMIT_MASK;
	/* Set a flag in the commit field if we lost events */
	if (missed_events) {
		/* Store the count after the data if there is room. */
		if (rb->bsize - commit >= sizeof(missed_events)) {
			memcpy(&dpage->data[commit], &missed_events,
			       sizeof(missed_events));
			dpage->commit |= RINGBUF_MISSED_STORED;
			commit += sizeof(missed_events);
		}
		dpage->commit |= RINGBUF_MISSED_EVENTS;
	}

	/* This page may go to a file: no stale bytes after the data. */
	if (commit < rb->bsize)
		memset(&dpage->data[commit], 0, rb->bsize - commit);

out_unlock:
	rb_reader_unlock(cb);
	if (ret < 0)
		errno = -ret;
	return ret;
}

int ringbuf_read_page(struct ringbuf *rb, void *data_page, size_t len,
		      int cpu, int full)
{
	return rb_read_page(rb, data_page, len, cpu, full, NULL);
}

int ringbuf_read_page_count(struct ringbuf *rb, void *data_page, size_t len,
			    int cpu, int full, unsigned long *records)
{
	if (!records) {
		errno = EINVAL;
		return -EINVAL;
	}
	return rb_read_page(rb, data_page, len, cpu, full, records);
}

/* ------------------------------------------------------------------ */
/* Empty and oldest                                                    */

static bool rb_per_cpu_empty_locked(struct ringbuf_cpu *cpu_buffer)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	uint32_t reader = atomic_load_explicit(&m->reader_page,
					       memory_order_relaxed);
	uint32_t head = rb_set_head_page(cpu_buffer);
	/* Acquire: pairs with the release in rb_set_commit_to_write(). */
	uint32_t commit = atomic_load_explicit(&m->commit_page,
					       memory_order_acquire);

	if (unlikely(head == RB_NO_PAGE))
		return true;
	/* Reader should exhaust content in reader page */
	if (rb_read_index(cpu_buffer, reader) !=
	    rb_page_size(cpu_buffer, reader))
		return false;
	/* Writers committing on the reader page, all of it read: empty. */
	if (commit == reader)
		return true;
	/* Writers on a page other than the head: there is data between. */
	if (commit != head)
		return false;
	/* Writers are on the head page: empty if it has no content. */
	return rb_page_size(cpu_buffer, commit) == 0;
}

bool ringbuf_empty_cpu(struct ringbuf *rb, int cpu)
{
	struct ringbuf_cpu *cb = rb_cpu(rb, cpu);
	bool ret;

	if (!cb)
		return true;
	/* What cannot be read now is empty to a reader (a waiter sleeps). */
	ret = rb_reader_lock(cb) || rb_per_cpu_empty_locked(cb);
	rb_reader_unlock(cb);
	return ret;
}

bool ringbuf_empty(struct ringbuf *rb)
{
	if (!rb)
		return true;
	for (int c = 0; c < rb->nr_cpus; c++)
		if (!ringbuf_empty_cpu(rb, c))
			return false;
	return true;
}

uint64_t ringbuf_oldest_event_ts(struct ringbuf *rb, int cpu)
{
	struct ringbuf_cpu *cb = rb_cpu(rb, cpu);
	uint64_t ts = 0;

	if (!cb)
		return 0;
	if (!rb_reader_lock(cb) && !rb_per_cpu_empty_locked(cb)) {
		struct rb_cpu_meta *m = cb->meta;
		uint32_t reader = atomic_load_explicit(&m->reader_page,
						       memory_order_relaxed);

		/* Unread data on the reader page is the oldest. */
		if (rb_read_index(cb, reader) < rb_page_size(cb, reader))
			ts = rb_read_index(cb, reader) ?
				     m->read_stamp :
				     atomic_load_explicit(
					     &rb_data(cb, reader)->time_stamp,
					     memory_order_relaxed);
		else if ((reader = rb_set_head_page(cb)) != RB_NO_PAGE)
			ts = atomic_load_explicit(&rb_data(cb, reader)->time_stamp,
						  memory_order_relaxed);
	}
	rb_reader_unlock(cb);
	return ts;
}
