// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * write.c - the writer side: reserve, commit, discard.
 *
 * Our own implementation, written from the kernel's ring-buffer design
 * document (Documentation/trace/ring-buffer-design.rst) and its public
 * API, of the writer half of that algorithm. The functions keep the names
 * of their counterparts in the kernel's kernel/trace/ring_buffer.c so a
 * reviewer can compare the two side by side; no code is taken from it.
 *
 * Writers of one cpu buffer nest as a stack, exactly as the kernel's
 * contexts of one CPU do (task, softirq, irq, NMI): here the stack is one
 * thread and its signal handlers. The kernel gets this from
 * preempt_disable(); userspace gets it from the owner claim:
 *
 *  - per-CPU model: the outermost writer claims the cpu buffer by storing
 *    its thread id into ringbuf_cpu.owner (a restartable sequence where
 *    rseq is available, see rb_claim_slow(); a cmpxchg elsewhere) and
 *    releases it at commit. A signal handler of the owner finds its own id there and
 *    nests. A thread that finds the buffer claimed by another (preempted)
 *    thread claims another free buffer; only when every buffer is claimed
 *    is the event dropped and counted. Nobody ever waits for another
 *    thread.
 *  - per-thread model: the thread claims a buffer (a slot) once and keeps
 *    it until it exits; no claim on the write path.
 *
 * Inside a claimed buffer everything of the kernel holds verbatim: the
 * tail page moves by cmpxchg, the head page is pushed with
 * HEAD -> UPDATE -> NORMAL, only the outermost writer moves the commit
 * page, and the kernel's local_t operations are single instructions
 * without LOCK (see local_add_return() in internal.h).
 *
 * The fast path is in <ringbuf/frontend.h> (ringbuf_fe_reserve(),
 * ringbuf_fe_reserve_next() - the common case of __rb_reserve_next() -
 * and ringbuf_fe_commit()), inline in the callers and in the exported
 * functions below; it leaves through the ringbuf_fe_* functions of this
 * file, which continue with the kernel's code: rb_move_tail(), the E/F
 * steps, the reserve loop, rb_end_commit_slow(). Per record, the per-CPU
 * fast path claims with a restartable sequence (no LOCKed instruction;
 * one LOCK cmpxchg without rseq) and releases with a release store; the
 * per-thread one has no LOCKed instruction. The counts of atomics and
 * branches are in Documentation/ring-buffer-design.rst.
 */
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "internal.h"

/* Returned by rb_move_tail(): the tail moved, reserve again (ERR_PTR(-EAGAIN)). */
#define RB_AGAIN ((struct ringbuf_event *)(uintptr_t)1)

enum {
	RB_ADD_STAMP_NONE = 0,
	RB_ADD_STAMP_EXTEND = 1 << 1,
	RB_ADD_STAMP_ABSOLUTE = 1 << 2,
	RB_ADD_STAMP_FORCE = 1 << 3,
};

struct rb_event_info {
	uint64_t ts;
	uint64_t delta;
	uint64_t before;
	uint64_t after;
	unsigned long length;
	uint32_t tail_page;
	int add_timestamp;
	int err; /* why a reserve failed (negative errno) */
	bool note; /* a CPU note: a failure to place it is no lost event */
	/* the caller's stamp (a CLOCK_MONOTONIC buffer's, 0: read the clock
	 * at each try), which the record keeps through page moves and
	 * retries: see ringbuf_fe_move_tail_ts() */
	uint64_t want_ts;
};

static RB_ALWAYS_INLINE uint64_t rb_time_stamp(struct ringbuf *rb)
{
	if (likely(rb->clock == RINGBUF_CLOCK_MONO))
		return ringbuf_fe_mono_ns();
#if defined(__x86_64__) || defined(__i386__)
	if (rb->clock == RINGBUF_CLOCK_TSC)
		return __rdtsc();
#endif
	return rb_clock_read_slow(rb->clock);
}

uint64_t ringbuf_time_stamp(struct ringbuf *rb)
{
	return rb ? rb_time_stamp(rb) : 0;
}

/* Write a record header in one 32-bit store (type_len in the low 5 bits,
 * as the bit-fields of struct ringbuf_event lay out on little endian). */
static inline void rb_event_set(struct ringbuf_event *event, unsigned int type,
				uint64_t delta)
{
	uint32_t hdr = (type & 0x1f) | ((uint32_t)(delta & TS_MASK) << 5);

	memcpy(event, &hdr, sizeof(hdr));
}

static inline struct ringbuf_event *
rb_page_index(struct ringbuf_cpu *cpu_buffer, uint32_t id, uint64_t index)
{
	return (struct ringbuf_event *)(__rb_data(cpu_buffer, id)->data + index);
}

/* The page (local id) an event of this cpu buffer lies on. */
static inline uint32_t rb_event_page(struct ringbuf_cpu *cpu_buffer,
				     const struct ringbuf_event *event)
{
	return (uint32_t)(((const unsigned char *)event - cpu_buffer->data) /
			  cpu_buffer->buffer->subbuf_size);
}

static inline unsigned long rb_calculate_event_length(unsigned long length)
{
	/* zero length can cause confusions */
	if (!length)
		length++;
	if (length > RB_MAX_SMALL_DATA)
		length += sizeof(uint32_t);
	length += RB_EVNT_HDR_SIZE;
	length = (length + RB_ALIGNMENT - 1) & ~(unsigned long)(RB_ALIGNMENT - 1);
	/*
	 * A discarded event may later be overwritten by a time extend of
	 * the same place; what is left must be empty or at least a minimal
	 * padding record, so a 12-byte event is made 16.
	 */
	if (length == RB_LEN_TIME_EXTEND + RB_ALIGNMENT)
		length += RB_ALIGNMENT;
	return length;
}

/* ------------------------------------------------------------------ */
/* Head page flags                                                     */

/*
 * rb_head_page_set - cmpxchg the link prev -> head from @old_flag to
 * @new_flag. Returns the flag that was there, or RB_PAGE_MOVED if the
 * link no longer points to @head (a reader swapped it out).
 */
static int rb_head_page_set(struct ringbuf_cpu *cpu_buffer, uint32_t head,
			    uint32_t prev, uint32_t old_flag, uint32_t new_flag)
{
	uint32_t old = rb_link(head, old_flag);

	/*
	 * Acq_rel: this cmpxchg and the reader's swap cmpxchg in
	 * rb_head_page_replace() are the two sides of the HEAD protocol on
	 * the same link word; the writer's overrun update after a HEAD ->
	 * UPDATE must be visible to a reader whose swap follows it.
	 * Failure is the answer, not an error: the old value says who won.
	 */
	atomic_compare_exchange_strong_explicit(
		&rb_page(cpu_buffer, prev)->next, &old,
		rb_link(head, new_flag), memory_order_acq_rel,
		memory_order_acquire);
	if (rb_link_id(old) != head)
		return RB_PAGE_MOVED;
	return old & RB_FLAG_MASK;
}

static int rb_head_page_set_update(struct ringbuf_cpu *cpu_buffer,
				   uint32_t head, uint32_t prev,
				   uint32_t old_flag)
{
	return rb_head_page_set(cpu_buffer, head, prev, old_flag,
				RB_PAGE_UPDATE);
}

static int rb_head_page_set_head(struct ringbuf_cpu *cpu_buffer, uint32_t head,
				 uint32_t prev, uint32_t old_flag)
{
	return rb_head_page_set(cpu_buffer, head, prev, old_flag, RB_PAGE_HEAD);
}

static int rb_head_page_set_normal(struct ringbuf_cpu *cpu_buffer,
				   uint32_t head, uint32_t prev,
				   uint32_t old_flag)
{
	return rb_head_page_set(cpu_buffer, head, prev, old_flag,
				RB_PAGE_NORMAL);
}

/*
 * rb_is_head_page - the flag of the link @prev -> @page: RB_PAGE_HEAD or
 * RB_PAGE_UPDATE if @page is (becoming) the head, 0 if not, RB_PAGE_MOVED
 * if @prev no longer links to @page.
 */
static int rb_is_head_page(struct ringbuf_cpu *cpu_buffer, uint32_t page,
			   uint32_t prev)
{
	/* Acquire: pairs with the acq_rel cmpxchgs on the link (reader swap,
	 * other writers' flag changes). */
	uint32_t val = atomic_load_explicit(&rb_page(cpu_buffer, prev)->next,
					    memory_order_acquire);

	if (rb_link_id(val) != page)
		return RB_PAGE_MOVED;
	return val & RB_FLAG_MASK;
}

/* ------------------------------------------------------------------ */
/* Commit                                                              */

/*
 * rb_set_commit_to_write - move the commit page and index up to the
 * write position. Only the outermost writer of the stack runs this: every
 * writer that interrupted it has finished (stack order), so all space up
 * to the tail is committed.
 */
static RB_NOINLINE void rb_set_commit_to_write(struct ringbuf_cpu *cpu_buffer)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	struct ringbuf *rb = cpu_buffer->buffer;
	unsigned long max_count;
	uint32_t commit;

again:
	max_count = cpu_buffer->nr_pages * 100ul;
	commit = atomic_load_explicit(&m->commit_page, memory_order_relaxed);
	while (commit != atomic_load_explicit(&m->tail_page,
					      memory_order_relaxed)) {
		if (RB_WARN_ON(rb, !(--max_count)))
			return;
		if (RB_WARN_ON(rb, rb_is_reader_page(cpu_buffer,
						     atomic_load_explicit(
							     &m->tail_page,
							     memory_order_relaxed))))
			return;
		/* Release: the records of the page are visible before its
		 * commit index. Pairs with the acquire in rb_page_commit(). */
		atomic_store_explicit(&rb_data(cpu_buffer, commit)->commit,
				      rb_page_write(cpu_buffer, commit),
				      memory_order_release);
		commit = rb_next_id(cpu_buffer, commit);
		/* Release: the previous page's final commit is visible before
		 * the commit page moves past it. Pairs with the acquire load
		 * of commit_page in rb_get_reader_page(). */
		atomic_store_explicit(&m->commit_page, commit,
				      memory_order_release);
		barrier();
	}
	while (atomic_load_explicit(&rb_data(cpu_buffer, commit)->commit,
				    memory_order_relaxed) !=
	       rb_page_write(cpu_buffer, commit)) {
		/* Release: make the readers see the content of what is
		 * committed. Pairs with the acquire in rb_page_commit(). */
		atomic_store_explicit(&rb_data(cpu_buffer, commit)->commit,
				      rb_page_write(cpu_buffer, commit),
				      memory_order_release);
		/* A commit index with the updater count's bits set would
		 * lie past every page: the write index was not masked. */
		RB_WARN_ON(rb, atomic_load_explicit(
				       &rb_data(cpu_buffer, commit)->commit,
				       memory_order_relaxed) &
				       ~(uint64_t)RB_WRITE_MASK);
		barrier();
	}
	/* again, set the commit page to the tail page */
	if (unlikely(commit != atomic_load_explicit(&m->tail_page,
						    memory_order_relaxed)))
		goto again;
}

static RB_ALWAYS_INLINE void rb_start_commit(struct ringbuf_cpu *cpu_buffer)
{
	local_inc(&cpu_buffer->committing);
	local_inc(&cpu_buffer->commits);
}

static RB_NOINLINE void rb_end_commit_slow(struct ringbuf_cpu *cpu_buffer)
{
	uint64_t commits;
	unsigned int nr_loops = 0;

	if (RB_WARN_ON(cpu_buffer->buffer,
		       !local_read(&cpu_buffer->committing)))
		return;

again:
	commits = local_read(&cpu_buffer->commits);
	/* synchronize with our signal handlers */
	barrier();
	if (local_read(&cpu_buffer->committing) == 1) {
		struct rb_cpu_meta *m = cpu_buffer->meta;
		uint32_t commit = atomic_load_explicit(&m->commit_page,
						       memory_order_relaxed);

		RB_TESTPOINT(cpu_buffer, RINGBUF_TP_COMMIT);
		/*
		 * The common case, inline: the commit page is the tail page,
		 * so committing is one store of the write index. A handler
		 * reserving after we read the index changes commits, which
		 * sends us around again below.
		 */
		if (likely(commit == atomic_load_explicit(&m->tail_page,
							  memory_order_relaxed)))
			/* Release: the records are visible before the commit
			 * index; pairs with the acquire in rb_page_commit(). */
			atomic_store_explicit(
				&rb_data(cpu_buffer, commit)->commit,
				rb_page_write(cpu_buffer, commit),
				memory_order_release);
		else
			rb_set_commit_to_write(cpu_buffer);
	}

	local_dec(&cpu_buffer->committing);

	/* synchronize with our signal handlers */
	barrier();
	RB_TESTPOINT(cpu_buffer, RINGBUF_TP_COMMIT_END);

	/*
	 * A handler may have reserved and committed between the commit page
	 * update and the committing decrement; it was not the outermost, so
	 * its data is not committed yet. Do it.
	 */
	if (unlikely(local_read(&cpu_buffer->commits) != commits) &&
	    !local_read(&cpu_buffer->committing)) {
		/*
		 * Userspace: the kernel goes round as long as interrupts
		 * keep committing (an interrupt storm ends). Each round here
		 * needs one of this thread's signal handlers to have written
		 * meanwhile; a thousand in a row is a handler that writes
		 * without end: the buffer warns and stops recording, its
		 * last records left uncommitted (torn), instead of this
		 * thread never returning.
		 */
		if (RB_WARN_ON(cpu_buffer->buffer, ++nr_loops > 1000))
			return;
		local_inc(&cpu_buffer->committing);
		goto again;
	}
}

/*
 * rb_end_commit - end a write: the outermost writer commits everything up
 * to the tail. The common case is inline (ringbuf_fe_end_commit() in
 * <ringbuf/frontend.h>); the rest is the kernel's loop in
 * rb_end_commit_slow().
 */
static RB_ALWAYS_INLINE void rb_end_commit(struct ringbuf_cpu *cpu_buffer)
{
	struct ringbuf_fe_cpu *cb = (struct ringbuf_fe_cpu *)cpu_buffer;

	ringbuf_fe_end_commit(cb, cb->meta);
}

/*
 * The inline fast path sees the library's structures through the views of
 * <ringbuf/frontend.h>; they must agree field by field.
 */
#define RB_SAME(a, fa, b, fb)                                             \
	_Static_assert(offsetof(struct a, fa) == offsetof(struct b, fb) &&  \
			       sizeof(((struct a *)0)->fa) ==               \
				       sizeof(((struct b *)0)->fb),         \
		       #a "." #fa)
RB_SAME(ringbuf, record_disabled, ringbuf_fe_buffer, record_disabled);
RB_SAME(ringbuf, time_stamp_abs, ringbuf_fe_buffer, time_stamp_abs);
RB_SAME(ringbuf, rseq_claim, ringbuf_fe_buffer, rseq_claim);
RB_SAME(ringbuf, clock, ringbuf_fe_buffer, clock);
RB_SAME(ringbuf, model, ringbuf_fe_buffer, model);
RB_SAME(ringbuf, nr_cpu_bufs, ringbuf_fe_buffer, nr_cpu_bufs);
RB_SAME(ringbuf, bsize, ringbuf_fe_buffer, bsize);
RB_SAME(ringbuf, uid, ringbuf_fe_buffer, uid);
RB_SAME(ringbuf, buffers, ringbuf_fe_buffer, buffers);
RB_SAME(ringbuf, fe_slow, ringbuf_fe_buffer, fe_slow);
_Static_assert(offsetof(struct ringbuf, fe_slow) < RB_CACHELINE,
	       "fe_slow on the buffer's first cache line, with the rest a write reads");
RB_SAME(ringbuf_cpu, owner, ringbuf_fe_cpu, owner);
RB_SAME(ringbuf_cpu, record_disabled, ringbuf_fe_cpu, record_disabled);
/* the inline claim reads the two in one aligned 64-bit load */
_Static_assert(offsetof(struct ringbuf_cpu, record_disabled) ==
			       offsetof(struct ringbuf_cpu, owner) + 4 &&
		       offsetof(struct ringbuf_cpu, owner) % 8 == 0 &&
		       alignof(struct ringbuf_cpu) % 8 == 0,
	       "owner and record_disabled make one aligned 64-bit word");
RB_SAME(ringbuf_cpu, committing, ringbuf_fe_cpu, committing);
RB_SAME(ringbuf_cpu, commits, ringbuf_fe_cpu, commits);
RB_SAME(ringbuf_cpu, active, ringbuf_fe_cpu, active);
RB_SAME(ringbuf_cpu, buffer, ringbuf_fe_cpu, buffer);
RB_SAME(ringbuf_cpu, meta, ringbuf_fe_cpu, meta);
RB_SAME(ringbuf_cpu, pages, ringbuf_fe_cpu, pages);
RB_SAME(ringbuf_cpu, data, ringbuf_fe_cpu, data);
RB_SAME(ringbuf_cpu, subbuf_shift, ringbuf_fe_cpu, subbuf_shift);
RB_SAME(rb_cpu_meta, tail_page, ringbuf_fe_meta, tail_page);
RB_SAME(rb_cpu_meta, commit_page, ringbuf_fe_meta, commit_page);
RB_SAME(rb_cpu_meta, before_stamp, ringbuf_fe_meta, before_stamp);
RB_SAME(rb_cpu_meta, write_stamp, ringbuf_fe_meta, write_stamp);
RB_SAME(rb_cpu_meta, entries, ringbuf_fe_meta, entries);
RB_SAME(rb_cpu_meta, entries_bytes, ringbuf_fe_meta, entries_bytes);
RB_SAME(rb_cpu_meta, waiters, ringbuf_fe_meta, waiters);
RB_SAME(rb_page_ctl, write, ringbuf_fe_page, write);
RB_SAME(rb_page_ctl, entries, ringbuf_fe_page, entries);
RB_SAME(rb_data_page, commit, ringbuf_data_page, commit);
_Static_assert(sizeof(struct rb_page_ctl) == sizeof(struct ringbuf_fe_page),
	       "page control block");

/* ------------------------------------------------------------------ */
/* Page crossing (the slow path)                                       */

static void rb_reset_tail(struct ringbuf_cpu *cpu_buffer, unsigned long tail,
			  struct rb_event_info *info)
{
	struct ringbuf *rb = cpu_buffer->buffer;
	unsigned long bsize = rb->bsize;
	struct rb_page_ctl *tail_page = rb_page(cpu_buffer, info->tail_page);
	struct ringbuf_event *event;
	unsigned long length = info->length;

	/* Only the event that crossed the page boundary pads the page. */
	if (tail >= bsize) {
		/* A page filled exactly needs no real_end. */
		if (tail == bsize)
			atomic_store_explicit(&tail_page->real_end, 0,
					      memory_order_relaxed);
		local_sub(length, &tail_page->write);
		return;
	}

	event = rb_page_index(cpu_buffer, info->tail_page, tail);
	/* Where the data ends, so read_page can store a lost count there. */
	atomic_store_explicit(&tail_page->real_end, (uint32_t)tail,
			      memory_order_relaxed);

	if (tail > bsize - RB_EVNT_MIN_SIZE) {
		/* No room for any event: a null padding closes the page. */
		rb_event_set(event, RINGBUF_TYPE_PADDING, 0);
		/* Release: the padding is visible before the write index
		 * drops back. Pairs with the acquire fence in
		 * rb_get_reader_page() after it sees write <= bsize. */
		atomic_thread_fence(memory_order_release);
		local_sub(length, &tail_page->write);
		return;
	}

	/* Put in a discarded event covering the rest of the page. */
	event->array[0] = (uint32_t)((bsize - tail) - RB_EVNT_HDR_SIZE);
	/* time delta must be non zero */
	rb_event_set(event, RINGBUF_TYPE_PADDING, 1);

	local_add(bsize - tail, &cpu_buffer->meta->entries_bytes);

	/* Release: as above, the padding before the write update. */
	atomic_thread_fence(memory_order_release);

	/* Set write to the end of the page. */
	length = (tail + length) - bsize;
	local_sub(length, &tail_page->write);
}

static void rb_tail_page_update(struct ringbuf_cpu *cpu_buffer,
				uint32_t tail_page, uint32_t next_page)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	struct rb_page_ctl *next = rb_page(cpu_buffer, next_page);
	uint64_t old_write, old_entries;

	/*
	 * Reset the next page without erasing what a nested writer that
	 * already moved the tail onto it has written: bump the updater
	 * count in the upper bits, and clear the index only if no one
	 * touched the words since.
	 */
	old_write = local_add_return(RB_WRITE_INTCNT, &next->write);
	old_entries = local_add_return(RB_WRITE_INTCNT, &next->entries);
	RB_TESTPOINT(cpu_buffer, RINGBUF_TP_TAIL_UPDATE);

	/* Our reads of old_write happen before the tail check below. */
	barrier();

	if (tail_page == atomic_load_explicit(&m->tail_page,
					      memory_order_relaxed)) {
		uint64_t val = old_write & ~RB_WRITE_MASK;
		uint64_t eval = old_entries & ~RB_WRITE_MASK;
		uint32_t expect = tail_page;

		/*
		 * These only succeed if no nested writer changed the words;
		 * if one did, it did the reset for us, so failure is fine.
		 */
		(void)local_cmpxchg(&next->write, old_write, val);
		(void)local_cmpxchg(&next->entries, old_entries, eval);

		/* Only the outermost commit raises commit, so clearing it
		 * here cannot lose a commit. */
		atomic_store_explicit(&rb_data(cpu_buffer, next_page)->commit,
				      0, memory_order_relaxed);

		/*
		 * Either we update tail_page or a nested writer does; failure
		 * means it did. Relaxed: tail_page is the writers' own word
		 * (this thread and its signal handlers); no reader orders
		 * anything by it. Readers follow commit_page, which is
		 * published with release in rb_set_commit_to_write(); the
		 * next owner thread gets it through the claim's acquire.
		 *
		 * Userspace: the kernel's cmpxchg() is a full barrier, which
		 * on a weakly ordered CPU also puts the reset of the page
		 * above before everything the writer stores on it next. The
		 * one reader that looks at a page a writer reuses, the
		 * non-consuming iterator, needs only the page's new stamp
		 * before the new records: the release fence after the stamp
		 * in rb_reserve_finish() gives it that, on the rare path
		 * (a page's first record) instead of every tail move.
		 */
		if (atomic_compare_exchange_strong_explicit(
			    &m->tail_page, &expect, next_page,
			    memory_order_relaxed, memory_order_relaxed))
			local_inc(&m->pages_touched);
	}
}

/* The outermost writer's head push is over (see rb_handle_head_page()). */
static void rb_push_done(struct ringbuf_cpu *cpu_buffer)
{
	/* Release: the push is complete before the record goes. */
	if (local_read(&cpu_buffer->committing) == 1)
		atomic_store_explicit(&cpu_buffer->meta->push_page, 0,
				      memory_order_release);
}

/*
 * rb_wait_for_room - a producer/consumer buffer is full: wait for the
 * reader to take a page, if a consumer asked writers to
 * (ringbuf_set_writer_wait()). Returns true when the reader took one (try
 * again), false to drop the record as the kernel does.
 *
 * Userspace: the kernel never makes a writer wait: a full buffer drops
 * the record. A recorder in another process can be off its CPU for
 * longer than a buffer lasts at full speed, and a recording that must
 * be complete (ringtrace record) would rather slow the program down, as
 * uftrace's writers and LTTng-UST's blocking channels do. The wait is
 * the outermost writer's only (a signal handler that interrupted a write
 * of its own thread drops: the page it waits for may be behind that
 * write's commit), holds the cpu buffer as a preempted writer does, and
 * ends after writer_wait_ms without progress; then the writers of this
 * cpu buffer drop at once until the reader takes a page again, so that
 * a reader that is gone (killed, stopped) costs one wait per cpu buffer
 * its writers fill (each cpu buffer keeps its own note), not one per
 * record. Bounded: the deadline. The writer sleeps on a futex the reader
 * wakes when it takes a page (rb_room_wake()), in slices of at most 10
 * ms (a reader of an older build does not wake it).
 *
 * The wait is for a page taken after the look that found the buffer full
 * (@next_page the head, after @tail_page): pages_read is read, then the
 * link looked at again, and a reader that took the head in between
 * (even every page up to the writer's own, which a reader of whole pages
 * then leaves alone: nothing would wake us) sends us back to reserve.
 */
static RB_NOINLINE bool rb_wait_for_room(struct ringbuf_cpu *cb,
					 uint32_t tail_page, uint32_t next_page)
{
	struct rb_cpu_meta *m = cb->meta;
	/* Relaxed: a setting; a writer may see a change late. */
	uint32_t ms = atomic_load_explicit(&cb->buffer->meta->writer_wait_ms,
					   memory_order_relaxed);
	uint64_t pages, start, deadline, now;
	bool moved = false;
	int saved;

	if (!ms || rb_tls.depth != 1)
		return false;
	/* Acquire: pairs with the reader's seq_cst add to pages_read after
	 * its swap cmpxchg (rb_get_reader_page()): a swap counted here is
	 * seen by the look at the link below; one not counted yet moves
	 * pages_read later, which the wait sees. */
	pages = atomic_load_explicit(&m->pages_read, memory_order_acquire);
	/* The head taken since the look (the link no longer HEAD): room. */
	if (rb_is_head_page(cb, next_page, tail_page) != RB_PAGE_HEAD)
		return true;
	/* Relaxed: the cpu buffer's writers' own note. */
	if (atomic_load_explicit(&cb->wait_gave_up, memory_order_relaxed) ==
	    pages)
		return false;
	saved = errno;
	/* Seq_cst: counted before pages_read is looked at again; pairs
	 * with the reader's seq_cst add to pages_read and load of
	 * room_waiters (rb_get_reader_page()): either the reader sees us
	 * and wakes us, or we see the page it took. */
	atomic_fetch_add_explicit(&m->room_waiters, 1, memory_order_seq_cst);
	start = (uint64_t)rb_clock_mono_raw_ns();
	deadline = start + (uint64_t)ms * 1000000;
	while ((now = (uint64_t)rb_clock_mono_raw_ns()) < deadline) {
		/* Relaxed: the futex word; the futex call compares it. */
		uint32_t seq = atomic_load_explicit(&m->room_seq,
						    memory_order_relaxed);

		/* Seq_cst: see above. */
		if (atomic_load_explicit(&m->pages_read, memory_order_seq_cst) !=
		    pages) {
			moved = true;
			break;
		}
		rb_room_wait(m, seq,
			     deadline - now < 10000000 ? deadline - now :
							 10000000);
	}
	/* Relaxed: a count the reader only tests. */
	atomic_fetch_sub_explicit(&m->room_waiters, 1, memory_order_relaxed);
	/* Relaxed: statistics (ringbuf_room_waits_cpu()), no data with them. */
	atomic_fetch_add_explicit(&m->room_waits, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&m->room_wait_ns, now - start,
				  memory_order_relaxed);
	if (!moved)
		atomic_store_explicit(&cb->wait_gave_up, pages,
				      memory_order_relaxed);
	errno = saved;
	return moved;
}

/*
 * rb_handle_head_page - push the head page forward in overwrite mode.
 * Returns 0 when the tail may move, 1 when the caller should retry, -1 on
 * an impossible state (warned).
 */
static int rb_handle_head_page(struct ringbuf_cpu *cpu_buffer,
			       uint32_t tail_page, uint32_t next_page)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	struct ringbuf *rb = cpu_buffer->buffer;
	uint32_t new_head;
	uint64_t entries, bytes;
	int type, ret;

	/*
	 * What the push takes away, read before the cmpxchg that makes the
	 * page ours to account. Userspace: the kernel reads the commit after
	 * it: our handler (an interrupt there) that lands between the two,
	 * finds UPDATE, finishes the push and moves the tail onto the page,
	 * which clears the commit, so its bytes stayed counted forever.
	 * Signal handlers land there often enough to show it. Before the
	 * cmpxchg both values are final: the page is a full, committed head
	 * page no writer touches until a push succeeds, and if a handler
	 * pushes it first, our cmpxchg fails and nothing is accounted.
	 */
	entries = rb_page_entries(cpu_buffer, next_page);
	bytes = rb_page_commit(cpu_buffer, next_page);

	/*
	 * Userspace: the writer is a process that can be killed here, and a
	 * reader of its file then finishes the push. Record it first (the
	 * outermost writer only: a nested push completes before we resume).
	 * Release: the overrun before it is in place when the record is seen
	 * by a recovering reader (acquire in rb_recover_cpu()).
	 */
	if (local_read(&cpu_buffer->committing) == 1) {
		local_set(&m->push_overrun, local_read(&m->overrun));
		atomic_store_explicit(&m->push_page, next_page + 1,
				      memory_order_release);
	}

	/*
	 * Move the head forward, protected against a reader swapping it
	 * (from another thread) and against our own signal handlers doing
	 * the same push.
	 */
	type = rb_head_page_set_update(cpu_buffer, next_page, tail_page,
				       RB_PAGE_HEAD);
	RB_TESTPOINT(cpu_buffer, RINGBUF_TP_HEAD_UPDATE);

	switch (type) {
	case RB_PAGE_HEAD:
		/* We changed HEAD to UPDATE: the page's events are ours to
		 * account as lost. Its counters are cleared when the tail
		 * moves onto it. */
		local_add(entries, &m->overrun);
		local_sub(bytes, &m->entries_bytes);
		local_inc(&m->pages_lost);
		RB_TESTPOINT(cpu_buffer, RINGBUF_TP_HEAD_PUSHED);
		break;
	case RB_PAGE_UPDATE:
		/* We interrupted a writer in the middle of this push. */
		break;
	case RB_PAGE_NORMAL:
		/* A handler that interrupted us did the push already. */
		rb_push_done(cpu_buffer);
		return 1;
	case RB_PAGE_MOVED:
		/* The reader swapped next_page out; look again. */
		rb_push_done(cpu_buffer);
		return 1;
	default:
		rb_push_done(cpu_buffer);
		RB_WARN_ON(rb, 1);
		return -1;
	}

	/*
	 * The old head link is UPDATE: the reader cannot swap it and spins
	 * until we are done. Make the page after it the head. Only the
	 * writer that set UPDATE turns it back to NORMAL.
	 */
	new_head = rb_next_id(cpu_buffer, next_page);

	ret = rb_head_page_set_head(cpu_buffer, new_head, next_page,
				    RB_PAGE_NORMAL);
	RB_TESTPOINT(cpu_buffer, RINGBUF_TP_HEAD_NEW);

	/*
	 * HEAD: a handler set it already. NORMAL: we set it, or handlers
	 * came in, set it and moved the head on again.
	 */
	switch (ret) {
	case RB_PAGE_HEAD:
	case RB_PAGE_NORMAL:
		break;
	default:
		RB_WARN_ON(rb, 1);
		return -1;
	}

	/*
	 * The three-deep case: handlers set the head, moved the tail on and
	 * reset it, and we just set a stale HEAD again. Then the tail is
	 * neither where we left it nor on next_page: undo our HEAD. Only we
	 * (stack order) can touch that link now, so the cmpxchg cannot fail;
	 * if it did, the link would not be ours to fix anyway.
	 */
	if (ret == RB_PAGE_NORMAL) {
		uint32_t buffer_tail_page =
			atomic_load_explicit(&m->tail_page,
					     memory_order_relaxed);

		if (buffer_tail_page != tail_page &&
		    buffer_tail_page != next_page)
			rb_head_page_set_normal(cpu_buffer, new_head,
						next_page, RB_PAGE_HEAD);
	}

	/* The writer that set UPDATE turns it back to NORMAL. */
	if (type == RB_PAGE_HEAD) {
		ret = rb_head_page_set_normal(cpu_buffer, next_page,
					      tail_page, RB_PAGE_UPDATE);
		if (RB_WARN_ON(rb, ret != RB_PAGE_UPDATE))
			return -1;
	}
	rb_push_done(cpu_buffer);
	return 0;
}

static RB_NOINLINE struct ringbuf_event *
rb_move_tail(struct ringbuf_cpu *cpu_buffer, unsigned long tail,
	     struct rb_event_info *info)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	struct ringbuf *rb = cpu_buffer->buffer;
	uint32_t tail_page = info->tail_page;
	uint32_t commit_page =
		atomic_load_explicit(&m->commit_page, memory_order_relaxed);
	uint32_t next_page;
	int ret;

	next_page = rb_next_id(cpu_buffer, tail_page);
	RB_TESTPOINT(cpu_buffer, RINGBUF_TP_MOVE_TAIL);

	/*
	 * Nested writers went all the way around the buffer onto the
	 * commit of the writer they interrupted: drop.
	 */
	if (unlikely(next_page == commit_page)) {
		if (!info->note)
			local_inc(&m->commit_overrun);
		info->err = -ENOSPC;
		goto out_reset;
	}

	/*
	 * The next page is the head: the buffer is full, unless the commit
	 * is still on the reader page.
	 */
	ret = rb_is_head_page(cpu_buffer, next_page, tail_page);
	/*
	 * Userspace: our link to next_page is gone. The kernel treats this
	 * like a head page and counts on rb_handle_head_page() to notice;
	 * that is right while the tail page is in the ring, but a writer
	 * can be preempted here for as long as it takes the reader to swap
	 * out next_page and then the tail page itself. The commit is then
	 * on the reader page with the tail, and the kernel's code would move
	 * the tail along the stale link, over the page the reader put in,
	 * with nothing ordering our writes on next_page after the reader's
	 * reads of it. Reserve again instead: the next try reads the link
	 * as it is now, with the acquire load in rb_is_head_page(), which
	 * pairs with the reader's swap cmpxchg that wrote it.
	 */
	if (unlikely(ret == RB_PAGE_MOVED))
		goto out_again;
	if (ret) {
		RB_TESTPOINT(cpu_buffer, RINGBUF_TP_MOVE_TAIL_HEAD);
		if (!rb_is_reader_page(cpu_buffer, commit_page)) {
			if (!(atomic_load_explicit(&rb->flags,
						   memory_order_relaxed) &
			      RINGBUF_FL_OVERWRITE)) {
				if (rb_wait_for_room(cpu_buffer, tail_page,
						     next_page))
					goto out_again;
				/* Relaxed: a statistic. */
				if (!info->note)
					atomic_fetch_add_explicit(
						&m->dropped_events, 1,
						memory_order_relaxed);
				info->err = -ENOSPC;
				goto out_reset;
			}
			ret = rb_handle_head_page(cpu_buffer, tail_page,
						  next_page);
			if (ret < 0) {
				info->err = -EIO;
				goto out_reset;
			}
			if (ret)
				goto out_again;
		} else {
			/*
			 * The commit is on the reader page and the tail
			 * wrapped around to the head: nested writers filled
			 * the buffer. If the tail is on the reader page
			 * too, let it move out.
			 */
			if (unlikely(commit_page !=
					     atomic_load_explicit(
						     &m->tail_page,
						     memory_order_relaxed) &&
				     commit_page ==
					     atomic_load_explicit(
						     &m->reader_page,
						     memory_order_relaxed))) {
				if (!info->note)
					local_inc(&m->commit_overrun);
				info->err = -ENOSPC;
				goto out_reset;
			}
			/*
			 * Userspace: the kernel's writer gets here with
			 * preemption off, so its tail page's link is the one
			 * it read above. Ours may have read the link, then
			 * been preempted while the reader took the head after
			 * our page (which rewrote our link) and then our page
			 * itself. The link we hold then names a page the
			 * reader has since read and put back elsewhere, and
			 * our first record on it would not be ordered after
			 * the reader's copy of it. rb_is_reader_page() above
			 * read the reader's last swap with acquire; the link
			 * read again now is the current one, and ordered
			 * after the swap that wrote it (acquire in
			 * rb_is_head_page()). If it moved, reserve again.
			 */
			if (rb_is_head_page(cpu_buffer, next_page,
					    tail_page) == RB_PAGE_MOVED)
				goto out_again;
		}
	}

	rb_tail_page_update(cpu_buffer, tail_page, next_page);

out_again:
	rb_reset_tail(cpu_buffer, tail, info);

	/* Commit what we have for now. */
	rb_end_commit_slow(cpu_buffer);
	/* rb_end_commit() decremented committing */
	local_inc(&cpu_buffer->committing);

	/* fail and let the caller try again */
	return RB_AGAIN;

out_reset:
	rb_reset_tail(cpu_buffer, tail, info);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Reserve                                                             */

static RB_NOINLINE struct ringbuf_event *
rb_add_timestamp(struct ringbuf_event *event, struct rb_event_info *info,
		 uint64_t *delta, unsigned long *length)
{
	bool abs = info->add_timestamp &
		   (RB_ADD_STAMP_FORCE | RB_ADD_STAMP_ABSOLUTE);

	if (unlikely(info->delta > (1ULL << 59))) {
		/* A clock over 59 bits: keep the low bits, the reader
		 * restores the top ones (rb_fix_abs_ts()). */
		if (abs && (info->ts & TS_MSB))
			info->delta &= ABS_TS_MASK;
		/* Otherwise the clock went backwards: a zero delta keeps
		 * time monotonic for the reader. */
		if (!abs)
			info->delta = 0;
	}
	rb_event_set(event,
		     abs ? RINGBUF_TYPE_TIME_STAMP : RINGBUF_TYPE_TIME_EXTEND,
		     info->delta);
	event->array[0] = (uint32_t)(info->delta >> TS_SHIFT);
	*length -= RB_LEN_TIME_EXTEND;
	*delta = 0;
	return (struct ringbuf_event *)((char *)event + RB_LEN_TIME_EXTEND);
}

/*
 * Userspace: no event_stamp[] per nesting level. The kernel keeps the
 * stamp of each level's record being written for
 * ring_buffer_event_time_stamp(), which a histogram trigger calls while
 * the record is still reserved; libringbuf has no such call (a reader
 * gets every record's stamp from the buffer), so nothing would read it.
 */
static RB_ALWAYS_INLINE struct ringbuf_event *
rb_update_event(struct ringbuf_event *event, struct rb_event_info *info)
{
	unsigned long length = info->length;
	uint64_t delta = info->delta;

	if (unlikely(info->add_timestamp))
		event = rb_add_timestamp(event, info, &delta, &length);

	length -= RB_EVNT_HDR_SIZE;
	if (length > RB_MAX_SMALL_DATA) {
		rb_event_set(event, 0, delta);
		event->array[0] = (uint32_t)length;
	} else {
		rb_event_set(event, (unsigned int)((length + RB_ALIGNMENT - 1) /
						   RB_ALIGNMENT),
			     delta);
	}
	return event;
}

/*
 * The slow path of __rb_reserve_next(): a nested writer came in between A
 * and C, so the stamps read at A are stale. Out of line, to keep the
 * second clock read off the fast path.
 */
static RB_NOINLINE void rb_reserve_interrupted(struct ringbuf_cpu *cpu_buffer,
					       struct rb_event_info *info,
					       unsigned long write)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	uint64_t ts;

	/* Save the old before_stamp */
	info->before = local_read(&m->before_stamp);

	/*
	 * A new stamp in before_stamp makes the next event use an absolute
	 * stamp, in case something comes in between E and F.
	 *
	 * Userspace: a record written late with the time it stands for
	 * (info->want_ts, RINGBUF_0.11) keeps that time rather than a
	 * second read of the clock, which would stamp it after the records
	 * its thread writes next with their own earlier times (on another
	 * CPU's buffer too); F below raises it to the record it came after
	 * (delta 0) if that one lies later.
	 */
	ts = info->want_ts ? info->want_ts : rb_time_stamp(cpu_buffer->buffer);
	/*
	 * Userspace: not in the kernel, whose second read of the clock on
	 * the same CPU never goes back. Here the clock may be read on
	 * another CPU than the first read (the thread migrated, per-thread
	 * slots) and lie a little before it; the record keeps the first
	 * stamp then, as the main path's clamp does, so that the stamps of
	 * the page never go back.
	 */
	if (unlikely(ts < info->ts))
		ts = info->ts;
	local_set(&m->before_stamp, ts);
	RB_TESTPOINT(cpu_buffer, RINGBUF_TP_RESERVE_E);

	barrier();
	/*E*/ info->after = local_read(&m->write_stamp);
	barrier();
	/*F*/ if (write == rb_page_write(cpu_buffer, info->tail_page) &&
		  info->after == info->before && info->after < ts) {
		/*
		 * Nothing came in after this event between C and F: after
		 * matched before and is still valid.
		 */
		info->delta = ts - info->after;
	} else {
		/*
		 * Interrupted between C and F: the previous event's stamp is
		 * lost. Delta 0 gives this event the time of the event it
		 * interrupted; later events still build on correct deltas.
		 */
		info->delta = 0;
	}
	info->ts = ts;
	info->add_timestamp &= ~RB_ADD_STAMP_FORCE;
}

/*
 * The end of a reserve: write the record's header (and time extend),
 * count it, and give the page its time stamp if the record is its first.
 */
static RB_ALWAYS_INLINE struct ringbuf_event *
rb_reserve_finish(struct ringbuf_cpu *cpu_buffer, struct rb_event_info *info,
		  unsigned long tail)
{
	struct ringbuf_event *event;

	/* The first event of a page has the page's time stamp. */
	if (unlikely(!tail && !(info->add_timestamp & (RB_ADD_STAMP_FORCE |
						       RB_ADD_STAMP_ABSOLUTE))))
		info->delta = 0;

	/*
	 * We reserved something on the buffer. As in the kernel, the event
	 * handed out starts at the time extend if there is one:
	 * ringbuf_event_data() skips it, and a discard gives both back.
	 */
	event = rb_page_index(cpu_buffer, info->tail_page, tail);
	rb_update_event(event, info);

	local_inc(&__rb_page(cpu_buffer, info->tail_page)->entries);

	/* The first event of a page sets the page's time stamp. */
	if (unlikely(!tail)) {
		atomic_store_explicit(
			&__rb_data(cpu_buffer, info->tail_page)->time_stamp,
			info->ts, memory_order_relaxed);
		/* Release: the page's new stamp before the record's bytes
		 * (the caller's stores after this), for the non-consuming
		 * iterator that copies a record of a page a writer reuses
		 * and then looks at the stamp again: pairs with its acquire
		 * fence (rb_iter_head_event()). The kernel gets it from the
		 * full barrier of the tail's cmpxchg() (see
		 * rb_tail_page_update()). */
		atomic_thread_fence(memory_order_release);
	}

	/* account for these added bytes */
	local_add(info->length, &cpu_buffer->meta->entries_bytes);

	return event;
}

static RB_ALWAYS_INLINE struct ringbuf_event *
__rb_reserve_next(struct ringbuf_cpu *cpu_buffer, struct rb_event_info *info)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	struct ringbuf *rb = cpu_buffer->buffer;
	struct rb_page_ctl *tail_page;
	unsigned long tail, write, w;

	/* Only our own signal handlers move the tail: no ordering needed. */
	info->tail_page = atomic_load_explicit(&m->tail_page,
					       memory_order_relaxed);
	tail_page = __rb_page(cpu_buffer, info->tail_page);

	/*A*/ w = local_read(&tail_page->write) & RB_WRITE_MASK;
	barrier();
	info->before = local_read(&m->before_stamp);
	info->after = local_read(&m->write_stamp);
	barrier();
	info->ts = info->want_ts ? info->want_ts : rb_time_stamp(rb);
	/*
	 * Userspace: a per-CPU buffer is handed from thread to thread, and
	 * each reads the clock on its own CPU; a stamp read just after a
	 * hand-over may lie a few cycles before the last one written. The
	 * kernel would give it a zero delta; clamping the stamp does that
	 * and also keeps the next page's time stamp monotonic.
	 */
	if (unlikely(info->ts < info->after))
		info->ts = info->after;
	/* A CPU note is padding, whose delta must not be 0 (the page's
	 * end): it comes after the last record's stamp. */
	if (unlikely(info->note && info->ts == info->after))
		info->ts = info->after + 1;

	if (info->add_timestamp & RB_ADD_STAMP_ABSOLUTE) {
		info->delta = info->ts;
	} else {
		if (!w) {
			/* Start of a page: the page time stamp is the base. */
			info->delta = 0;
		} else if (unlikely(info->before != info->after)) {
			/*
			 * We interrupted a writer between its B and D: the
			 * write stamp is not the previous event's. Use an
			 * absolute stamp.
			 */
			info->add_timestamp |=
				RB_ADD_STAMP_FORCE | RB_ADD_STAMP_EXTEND;
			info->length += RB_LEN_TIME_EXTEND;
		} else {
			info->delta = info->ts - info->after;
			if (unlikely(info->delta & TS_DELTA_TEST)) {
				info->add_timestamp |= RB_ADD_STAMP_EXTEND;
				info->length += RB_LEN_TIME_EXTEND;
			}
		}
	}
	RB_TESTPOINT(cpu_buffer, RINGBUF_TP_RESERVE_A_B);

	/*B*/ local_set(&m->before_stamp, info->ts);
	RB_TESTPOINT(cpu_buffer, RINGBUF_TP_RESERVE_B_C);

	/*C*/ write = local_add_return(info->length, &tail_page->write);

	/* set write to only the index of the write */
	write &= RB_WRITE_MASK;
	tail = write - info->length;

	/* See if we shot past the end of this page */
	if (unlikely(write > rb->bsize))
		return rb_move_tail(cpu_buffer, tail, info);
	RB_TESTPOINT(cpu_buffer, RINGBUF_TP_RESERVE_C_D);

	if (likely(tail == w)) {
		/* Nothing interrupted us between A and C */
		/*D*/ local_set(&m->write_stamp, info->ts);
		/*
		 * Something coming in between C and D leaves the write
		 * stamp out of sync; but then before_stamp differs and the
		 * next event uses an absolute stamp.
		 */
		if (likely(!(info->add_timestamp &
			     (RB_ADD_STAMP_FORCE | RB_ADD_STAMP_ABSOLUTE))))
			/* This did not interrupt any time update */
			info->delta = info->ts - info->after;
		else
			/* Just use the full stamp for the interrupting event */
			info->delta = info->ts;
	} else {
		/* SLOW PATH - interrupted between A and C */
		rb_reserve_interrupted(cpu_buffer, info, write);
	}

	return rb_reserve_finish(cpu_buffer, info, tail);
}

/*
 * The kernel's loop of rb_reserve_next_event(), from its "again" label:
 * reserve until the record lands on a page. Commit started; on failure
 * the commit is ended here.
 */
static RB_NOINLINE struct ringbuf_event *
rb_reserve_loop(struct ringbuf *rb, struct ringbuf_cpu *cpu_buffer,
		struct rb_event_info *info, int add_ts_default, int *err)
{
	struct ringbuf_event *event;
	int nr_loops = 0;

again:
	info->add_timestamp = add_ts_default;
	info->delta = 0;

	/*
	 * Handlers may come in here and write; each makes us loop once.
	 * A thousand loops in a row is a signal storm or a bug: bail.
	 */
	if (RB_WARN_ON(rb, ++nr_loops > 1000)) {
		info->err = -EIO;
		goto out_fail;
	}

	event = __rb_reserve_next(cpu_buffer, info);

	if (unlikely(event == RB_AGAIN)) {
		if (info->add_timestamp &
		    (RB_ADD_STAMP_FORCE | RB_ADD_STAMP_EXTEND))
			info->length -= RB_LEN_TIME_EXTEND;
		goto again;
	}

	if (likely(event))
		return event;
out_fail:
	*err = info->err;
	rb_end_commit_slow(cpu_buffer);
	return NULL;
}

/* rb_reserve_next_event() after rb_start_commit(); @note: for a CPU note. */
static struct ringbuf_event *rb_reserve_as(struct ringbuf *rb,
					   struct ringbuf_cpu *cpu_buffer,
					   unsigned long length, bool note,
					   uint64_t want_ts, int *err)
{
	struct rb_event_info info;
	int add_ts_default;

	info.length = rb_calculate_event_length(length);
	info.err = -ENOSPC;
	info.note = note;
	info.want_ts = want_ts;
	if (unlikely(atomic_load_explicit(&rb->time_stamp_abs,
					  memory_order_relaxed))) {
		add_ts_default = RB_ADD_STAMP_ABSOLUTE;
		info.length += RB_LEN_TIME_STAMP;
	} else {
		add_ts_default = RB_ADD_STAMP_NONE;
	}
	return rb_reserve_loop(rb, cpu_buffer, &info, add_ts_default, err);
}

static struct ringbuf_event *rb_reserve_started(struct ringbuf *rb,
						struct ringbuf_cpu *cpu_buffer,
						unsigned long length,
						uint64_t want_ts, int *err)
{
	return rb_reserve_as(rb, cpu_buffer, length, false, want_ts, err);
}

/* rb_reserve_next_event() with the caller's stamp (@want_ts, 0 for
 * none: see rb_want_ts()). */
static struct ringbuf_event *
rb_reserve_next_event_ts(struct ringbuf *rb, struct ringbuf_cpu *cpu_buffer,
			 unsigned long length, uint64_t want_ts, int *err)
{
	rb_start_commit(cpu_buffer);
	/* The commit page can not change after this */
	return rb_reserve_started(rb, cpu_buffer, length, want_ts, err);
}

static struct ringbuf_event *
rb_reserve_next_event(struct ringbuf *rb, struct ringbuf_cpu *cpu_buffer,
		      unsigned long length, int *err)
{
	return rb_reserve_next_event_ts(rb, cpu_buffer, length, 0, err);
}

/*
 * The stamp a caller read for its record (ringbuf_reserve_inline_at(),
 * ringbuf_fe_reserve_ts()), where the buffer takes it: on the default
 * clock, which the caller read (as ringbuf_fe_reserve_next() tests it);
 * 0 otherwise (the record is stamped when it is written).
 */
static uint64_t rb_want_ts(const struct ringbuf *rb, uint64_t ts)
{
	return ts && rb->clock == RINGBUF_CLOCK_MONO ? ts : 0;
}

/* ------------------------------------------------------------------ */
/* Picking the cpu buffer (userspace's preempt_disable)                */

/*
 * Put the slot of @cpu_buffer first in the thread's cache, with its cpu
 * buffer in slot_cb beside it (RINGBUF_0.11), if this is the thread's
 * outermost write: the inline code of <ringbuf/frontend.h> loads the key
 * and the pointer as one pair, which is one only if nothing changes them
 * under a write in progress. A handler's write (depth above 1) leaves the
 * cache as it is: it interrupted a write that may have loaded the pair
 * already; its next write to that buffer finds the slot again out of line.
 * Our own handlers may interrupt this one: slot[0] holds 0, no key, from
 * before slot_cb changes to after (A..C), so that a handler in between
 * finds no pair at all.
 */
static void rb_slot_cache_put(struct rb_tls *t, struct ringbuf *rb,
			      struct ringbuf_cpu *cpu_buffer)
{
	if (t->depth > 1)
		return;
	/*
	 * Relaxed: the thread's own words, shared with its signal handlers
	 * only, which read them and leave them as they are. Each entry
	 * moves as one word.
	 */
	for (int i = RB_SLOT_CACHE - 1; i > 0; i--)
		__atomic_store_n(&t->slot[i],
				 __atomic_load_n(&t->slot[i - 1], __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
	/*A*/ __atomic_store_n(&t->slot[0], 0, __ATOMIC_RELAXED);
	/* Orders A before B against our handlers (a compiler barrier):
	 * pairs with the inline code's loads of the key and slot_cb in
	 * ringbuf_fe_writer_get(), which a handler that interrupts us runs
	 * between two of our stores: it finds the old pair, no key, or
	 * the new pair. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/*B*/ __atomic_store_n(&t->slot_cb, (struct ringbuf_fe_cpu *)cpu_buffer,
			       __ATOMIC_RELAXED);
	/* Orders B before C against our handlers, as above: a handler that
	 * finds the new key finds its cpu buffer. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	RB_TESTPOINT(cpu_buffer, RINGBUF_TP_SLOT_CACHE);
	/*C*/ __atomic_store_n(&t->slot[0],
			       rb->uid << RB_SLOT_IDX_BITS | (uint64_t)cpu_buffer->cpu,
			       __ATOMIC_RELAXED);
}

/* Per-thread model: find or take this thread's slot. */
static RB_NOINLINE struct ringbuf_cpu *
rb_thread_slot_slow(struct ringbuf *rb, struct rb_tls *t, int *err)
{
	uint32_t tid = rb_gettid();
	int nr = rb->nr_cpus;
	int start, i;

	for (i = 1; i < (int)RB_SLOT_CACHE; i++) {
		/* Relaxed: see rb_slot_cache_put(). */
		uint64_t key = __atomic_load_n(&t->slot[i], __ATOMIC_RELAXED);

		if (key >> RB_SLOT_IDX_BITS == rb->uid) {
			struct ringbuf_cpu *cb =
				rb->buffers[key & RB_SLOT_IDX_MASK];

			rb_slot_cache_put(t, rb, cb);
			return cb;
		}
	}
	/* Ours but fell out of the cache. */
	for (i = 0; i < nr; i++) {
		struct ringbuf_cpu *cb = rb->buffers[i];

		if (atomic_load_explicit(&cb->owner, memory_order_relaxed) ==
		    tid) {
			rb_slot_cache_put(t, rb, cb);
			return cb;
		}
	}
	/* Take a free one, starting at a spot that spreads threads. */
	start = (int)(tid % (uint32_t)nr);
	for (i = 0; i < nr; i++) {
		struct ringbuf_cpu *cb = rb->buffers[(start + i) % nr];
		uint32_t expect = 0;

		/* Acquire: pairs with the release of the slot by the exiting
		 * thread (rb_thread_exit), so we see its last writes. A
		 * failure means another thread has it: try the next. */
		if (atomic_compare_exchange_strong_explicit(
			    &cb->owner, &expect, tid, memory_order_acquire,
			    memory_order_relaxed)) {
			rb_thread_slot_track();
			rb_slot_cache_put(t, rb, cb);
			return cb;
		}
	}
	/* Relaxed: a statistic. Not the mapping's counter: we hold no claim,
	 * so a resize may be moving it. */
	atomic_fetch_add_explicit(&rb->buffers[start]->dropped_unclaimed, 1,
				  memory_order_relaxed);
	*err = -EBUSY;
	return NULL;
}

#ifdef RINGBUF_FE_RSEQ_ASM
/*
 * rb_rseq_take - take the claim of the CPU buffer of @cpu from whoever
 * keeps it, for @own (tid | RINGBUF_FE_KEPT: kept between writes; a plain
 * tid: for one write, as the earlier headers' inline code claims), in a
 * restartable sequence on @cpu: the owner word is 0 or a kept claim (not
 * a claim for one write, whose writer raises active only after its
 * sequence), and active is 0 (no write in progress: the keeper's next
 * write starts with a sequence on @cpu too, ringbuf_fe_rseq_enter(), which
 * the kernel restarts rather than interleave with ours); then the store
 * of @own commits. No fence: x86 loads are acquire loads, and the last
 * writer lowered active with a release store (ringbuf_fe_writer_put()),
 * so its writes to the cpu buffer are visible to us.
 *
 * Return: 1 taken, 0 busy, -1 aborted.
 */
static int rb_rseq_take(_Atomic uint32_t *owner, _Atomic uint64_t *active,
			int cpu, uint32_t own)
{
	__asm__ goto(RINGBUF_FE_RSEQ_BEGIN
		     "cmpl %[cpu], %%fs:4(%[area])\n\t"
		     "jne 5f\n\t"
		     "movl %[owner], %%eax\n\t"
		     "testl %%eax, %%eax\n\t"
		     "jg 6f\n\t"
		     "cmpq $0, %[active]\n\t"
		     "jne 6f\n\t"
		     "movl %[own], %[owner]\n"
		     RINGBUF_FE_RSEQ_END
		     :
		     : [area] "r"(__rseq_offset), [cpu] "r"(cpu), [own] "r"(own),
		       [owner] "m"(*owner), [active] "m"(*active)
		     : "rax", "memory", "cc"
		     : aborted, busy);
	/* For ThreadSanitizer: the acquire of active (and of the owner
	 * word, released by a claim for one write) the sequence stands for. */
	RINGBUF_FE_TSAN_ACQUIRE(active);
	RINGBUF_FE_TSAN_ACQUIRE(owner);
	return 1;
aborted:
	return -1;
busy:
	return 0;
}
#endif

/*
 * The claim of the CPU buffer of @cpu by restartable sequence, each step
 * tried again twice when the kernel aborted it (a preemption, a signal, a
 * migration: then the next tries abort too and we go on to the spares).
 * @kept: the claim this header's inline code keeps between writes, the
 * buffer marked active on success (ringbuf_fe_rseq_enter()); else a
 * claim for one write (the earlier headers' inline code), active left
 * to the caller.
 */
static bool rb_rseq_claim_retry(struct ringbuf_cpu *cb, int cpu, uint32_t tid,
				bool kept)
{
#ifdef RINGBUF_FE_RSEQ_ASM
	uint32_t tidk = tid | RINGBUF_FE_KEPT;
	int tries = 0, r;

	if (!kept) {
		while ((r = rb_rseq_take(&cb->owner, &cb->active, cpu, tid)) < 0 &&
		       ++tries < 3)
			;
		return r > 0;
	}
	/* Relaxed: a hint; the sequences check the word again. */
	if (atomic_load_explicit(&cb->owner, memory_order_relaxed) != tidk) {
		while ((r = rb_rseq_take(&cb->owner, &cb->active, cpu, tidk)) < 0 &&
		       ++tries < 3)
			;
		if (r <= 0)
			return false;
	}
	for (tries = 0; tries < 3; tries++) {
		r = ringbuf_fe_rseq_enter((uint32_t *)&cb->owner,
					  (uint64_t *)&cb->active, cpu, tidk);
		if (r >= 0)
			return r > 0;
	}
#else
	(void)cb, (void)cpu, (void)tid, (void)kept;
#endif
	return false;
}

/*
 * Whether a writer of thread @tid nests in the cpu buffer @cb whose owner
 * word held @own: a claim of ours for one write, or our kept claim with a
 * write in progress (our signal handler interrupted it, maybe after a
 * migration). Acquire loads: the owner word is read again after active,
 * so that a takeover (owner, then active raised) between the two is not
 * taken for our write.
 */
static bool rb_claim_nests(struct ringbuf_cpu *cb, uint32_t own, uint32_t tid)
{
	if (own != (tid | RINGBUF_FE_KEPT))
		return own == tid;
	/* Acquire: active is read before the owner word is read again
	 * (the takeover, rb_rseq_take(), stores the owner word before its
	 * enter raises active: program order on x86); pairs with the
	 * release store of active in ringbuf_fe_writer_put(). */
	if (!atomic_load_explicit(&cb->active, memory_order_acquire))
		return false;
	/* Relaxed: the acquire load of active above keeps it after that
	 * one; a takeover in between shows here as another id. */
	return atomic_load_explicit(&cb->owner, memory_order_relaxed) == own;
}

/*
 * Per-CPU model, slow path: the CPU's buffer is claimed by another thread
 * (preempted mid-write), kept by another thread, or the thread id or CPU
 * index needs work. Claim the first buffer that is ours or free, in this
 * order: the CPU's buffer, the spare buffers (from a place that depends
 * on the thread, so displaced threads spread out), the other CPUs'
 * buffers. Never wait. @kept: the claim of the current header's inline
 * code (kept between writes, see rb_rseq_claim_retry()), the buffer
 * returned marked active; else the earlier headers' (for one write;
 * active left to the caller).
 *
 * Userspace: where the buffer claims CPU buffers by restartable sequence
 * (rb->rseq_claim), the claim of CPU buffer n is atomic only against the
 * other threads of CPU n, which the kernel's restart keeps out; so only a
 * thread running on CPU n ever claims it or starts a write in it, in such
 * a sequence, and a thread elsewhere (or without a CPU from rseq) takes a
 * spare, where claims are cmpxchgs. It still nests in a CPU buffer it
 * holds.
 */
static RB_NOINLINE struct ringbuf_cpu *
rb_claim_slow(struct ringbuf *rb, int cpu, bool *claimed, bool kept,
	      int *err)
{
	uint32_t tid = rb_gettid();
	int c = rb->nr_cpu_bufs, nr = rb->nr_cpus, s = nr - c;
	int start = cpu % c;
	bool forced = false;

#ifdef RINGBUF_TESTHOOKS
	/* Tests that force a CPU claim its buffer with a cmpxchg, for one
	 * write, and only a free one: the test must not let unforced
	 * threads write the same buffer meanwhile. */
	forced = rb_tls.forced_cpu1 != 0;
#endif

	/* The first write of the thread: arm the exit destructor, which
	 * rolls back a write the thread leaves unfinished (cancelled or
	 * exiting between reserve and commit). */
	if (!rb_tls.exit_armed) {
		rb_thread_slot_track();
		rb_tls.exit_armed = true;
	}

	for (int i = 0; i < nr; i++) {
		int idx = i == 0 ? start :
			  i <= s ? c + (int)((tid + (uint32_t)i) % (uint32_t)s) :
				   (start + (i - s)) % c;
		struct ringbuf_cpu *cb = rb->buffers[idx];
		uint32_t own = atomic_load_explicit(&cb->owner,
						    memory_order_relaxed);

		if (rb_claim_nests(cb, own, tid)) {
			*claimed = false;
			if (kept)
				local_inc(&cb->active);
			return cb;
		}
		/* A disabled cpu buffer takes no new writer (relaxed: a
		 * switch; lock_reserve checks it again). */
		if (atomic_load_explicit(&cb->record_disabled,
					 memory_order_relaxed))
			continue;
		if (idx < c && rb->rseq_claim && !forced) {
			/* A kept claim (ours too, out of a migration) is
			 * taken over on its CPU only. */
			if (idx == cpu && rb_rseq_claim_retry(cb, cpu, tid, kept)) {
				*claimed = !kept;
				return cb;
			}
			continue;
		}
		/* Acquire: pairs with the release in rb_writer_put() of the
		 * previous owner; we see its writes to the cpu buffer. A
		 * failure means another thread took it: try the next. Only
		 * from 0: a kept claim (RINGBUF_FE_KEPT) is taken over by a
		 * restartable sequence on its CPU, never by a cmpxchg, which
		 * could interleave with its keeper's next write. */
		if (!own && atomic_compare_exchange_strong_explicit(
				    &cb->owner, &own, tid,
				    memory_order_acquire,
				    memory_order_relaxed)) {
			*claimed = true;
			if (kept)
				local_inc(&cb->active);
			return cb;
		}
	}
	/* Relaxed: a statistic. Not the mapping's counter: we hold no claim,
	 * so a resize may be moving it. */
	atomic_fetch_add_explicit(&rb->buffers[start]->dropped_unclaimed, 1,
				  memory_order_relaxed);
	*err = -EBUSY;
	return NULL;
}

/* The frame word of @cb: claimed by this write, a spare (CPU notes). */
static uintptr_t rb_frame_word(struct ringbuf *rb, struct ringbuf_cpu *cb,
			       bool claimed)
{
	return (uintptr_t)cb | claimed |
	       (cb->cpu >= rb->nr_cpu_bufs ? RINGBUF_FE_NOTED : 0);
}

/*
 * The claim's slow path for the inline fast path of the current header
 * (ringbuf_fe_writer_get() in <ringbuf/frontend.h>, which claims the
 * CPU's buffer or finds the thread's slot in the first cache entry):
 * everything else, the cpu buffer returned marked active. @cpu is the CPU
 * the caller saw, or -1 if it had none.
 */
uintptr_t ringbuf_fe_claim_active_slow(struct ringbuf *rb, int cpu, int *err)
{
	struct ringbuf_cpu *cb;
	bool claimed = false;

	if (rb->model == RINGBUF_PER_THREAD) {
		cb = rb_thread_slot_slow(rb, &rb_tls, err);
		if (cb)
			local_inc(&cb->active);
	} else if (cpu < 0) {
		/* No rseq: the CPU from sched_getcpu(), then the usual claim
		 * (which comes back here only with cpu >= 0). */
		return ringbuf_fe_claim_cpu(rb, &rb_tls, rb_current_cpu(), err);
	} else {
		cb = rb_claim_slow(rb, cpu, &claimed, true, err);
	}
	return cb ? rb_frame_word(rb, cb, claimed) : 0;
}

/*
 * ringbuf_fe_claim_slot_slow - the claim's slow path of the inline code of
 * the RINGBUF_0.11 header, which takes the per-thread slot's cpu buffer
 * from the thread's slot_cb: ringbuf_fe_claim_active_slow(), whose cache
 * keeps slot_cb (rb_slot_cache_put()) for the earlier headers too.
 */
uintptr_t ringbuf_fe_claim_slot_slow(struct ringbuf *rb, int cpu, int *err)
{
	return ringbuf_fe_claim_active_slow(rb, cpu, err);
}

/*
 * ringbuf_fe_claim_noted_slow - the claim's slow path of the inline code
 * of the RINGBUF_0.5 header: the same claim, the cpu buffer not marked
 * active (its caller raises active), and a CPU buffer claimed by
 * restartable sequence claimed for the one write (a plain thread id in the
 * owner word, given back at commit), which is what that code's nesting
 * test and release expect.
 */
uintptr_t ringbuf_fe_claim_noted_slow(struct ringbuf *rb, int cpu, int *err)
{
	struct ringbuf_cpu *cb;
	bool claimed = false;

	if (rb->model == RINGBUF_PER_THREAD)
		cb = rb_thread_slot_slow(rb, &rb_tls, err);
	else
		cb = rb_claim_slow(rb, cpu < 0 ? rb_current_cpu() : cpu, &claimed,
				   false, err);
	return cb ? rb_frame_word(rb, cb, claimed) : 0;
}

/*
 * ringbuf_fe_claim_slow - the claim's slow path of the inline code of the
 * RINGBUF_0.2 to 0.4 headers, which takes bit 0 of the frame word as its
 * only flag: ringbuf_fe_claim_noted_slow()'s claim, its frame word without
 * RINGBUF_FE_NOTED. Such a program's writes into a spare carry no CPU
 * note (the spare's records say no CPU), as they did when it was built.
 */
uintptr_t ringbuf_fe_claim_slow(struct ringbuf *rb, int cpu, int *err)
{
	return ringbuf_fe_claim_noted_slow(rb, cpu, err) & ~RINGBUF_FE_NOTED;
}

/* ------------------------------------------------------------------ */
/* CPU notes                                                            */

static void rb_decrement_entry(struct ringbuf_cpu *cpu_buffer,
			       struct ringbuf_event *event);

/*
 * Write a CPU note of @total bytes naming @cpu, as a record of its own
 * (its own commit), then made padding so that readers skip it. It keeps
 * the delta it was reserved with, which the records after it build on.
 * Not counted as an entry; a note that finds no room is no lost event.
 * Userspace: the kernel has no spare buffers, so no notes.
 */
static bool rb_note_write(struct ringbuf *rb, struct ringbuf_cpu *cb, int cpu,
			  unsigned long total, uint64_t want_ts)
{
	unsigned long payload = total > RB_MAX_SMALL_DATA + RB_EVNT_HDR_SIZE ?
					total - 2 * RB_EVNT_HDR_SIZE :
					total - RB_EVNT_HDR_SIZE;
	struct ringbuf_event *ev, *stamp = NULL;
	uint64_t delta;
	unsigned int len;
	int err;

	rb_start_commit(cb);
	ev = rb_reserve_as(rb, cb, payload, true, want_ts, &err);
	if (!ev)
		return false; /* the commit was ended */
	if (ev->type_len == RINGBUF_TYPE_TIME_EXTEND ||
	    ev->type_len == RINGBUF_TYPE_TIME_STAMP) {
		stamp = ev;
		ev = (struct ringbuf_event *)((char *)ev + RB_LEN_TIME_EXTEND);
	}
	len = rb_event_length(ev);
	ev->array[0] = len - RB_EVNT_HDR_SIZE;
	ev->array[1] = RINGBUF_NOTE_MAGIC;
	ev->array[2] = (uint32_t)cpu;
	delta = ev->time_delta;
	/*
	 * Padding with delta 0 ends a page for every reader, so a note has
	 * delta 1 where its reservation gave it 0 (after a time extend or
	 * absolute stamp, which carries the time; first on its page, which
	 * takes the page's time stamp): that one is made 1 less, and the
	 * note's time, which the records after it build on, stays. A
	 * reader that looks at the page meanwhile finds nothing committed
	 * on it yet, and loads the page's time stamp after the commit that
	 * shows it a record (rb_buffer_peek()). In the middle of a page the
	 * reservation's stamp is past the last record's (info->note), unless
	 * a signal handler's write came in between: then the note is 1 ns
	 * late, and the next record takes an absolute stamp, as after a
	 * discard (before_stamp 0 differs from write_stamp).
	 */
	if (!delta) {
		uint64_t v = stamp ? ((uint64_t)stamp->array[0] << 27 |
				      stamp->time_delta) :
				     0;

		if (stamp && stamp->type_len == RINGBUF_TYPE_TIME_EXTEND &&
		    v) {
			/* an extend of 0 is left alone, and an absolute
			 * stamp too (one less than the last record's would
			 * read as a wrap of its top bits: rb_fix_abs_ts()):
			 * both take the last branch */
			v--;
			stamp->array[0] = (uint32_t)(v >> 27);
			rb_event_set(stamp, stamp->type_len, v);
			delta = 1;
		} else if (!stamp && (unsigned char *)ev ==
			   rb_data(cb, rb_event_page(cb, ev))->data) {
			struct rb_data_page *dp =
				rb_data(cb, rb_event_page(cb, ev));

			/* Relaxed: published by the commit's release. */
			atomic_store_explicit(
				&dp->time_stamp,
				atomic_load_explicit(&dp->time_stamp,
						     memory_order_relaxed) - 1,
				memory_order_relaxed);
			delta = 1;
		} else {
			local_set(&cb->meta->before_stamp, 0);
			delta = 1;
		}
	}
	rb_event_set(ev, RINGBUF_TYPE_PADDING, delta);
	rb_decrement_entry(cb, ev);
	rb_end_commit(cb);
	return true;
}

/*
 * Before a record of @length bytes in spare @cb: a note naming the
 * writing CPU unless the records before it on the tail page already have
 * one naming it. Every page of a spare that holds records starts with a
 * note: where the record will not fit after the note on this page, the
 * rest of the page is filled first (with a note, which is padding), so
 * that the note starts the next page and the record follows it there.
 * A record too big to share a page with a note gets none: readers see
 * it as written on an unknown CPU. @want_ts: the record's stamp, if its
 * writer gave one (rb_want_ts()): the notes take it too, so that the
 * record after them is not raised to a time read now.
 */
static void rb_note_before(struct ringbuf *rb, struct ringbuf_cpu *cb,
			   unsigned long length, uint64_t want_ts)
{
	struct rb_cpu_meta *m = cb->meta;
	int cpu = ringbuf_fe_forced_cpu(&rb_tls, rb_current_cpu());
	/* Relaxed: only the claim holder and its handlers move the tail. */
	uint32_t tail = atomic_load_explicit(&m->tail_page,
					     memory_order_relaxed);
	uint64_t w = rb_page_write(cb, tail);
	uint64_t room = w < rb->bsize ? rb->bsize - w : 0;
	/* the record, with a time extend it may need */
	uint64_t rec = rb_calculate_event_length(length) + RB_LEN_TIME_EXTEND;

	if (w && tail == cb->note_page && cpu == cb->note_cpu && room >= rec)
		return;
	if (room < RINGBUF_NOTE_SIZE + rec && room >= RINGBUF_NOTE_SIZE &&
	    RINGBUF_NOTE_SIZE + rec <= rb->bsize)
		/* 120 bytes is no record's size (116 is the largest small
		 * one, 124 the smallest long one): 116 leaves 4 bytes, too
		 * few for the note, which then moves on as well. */
		/* (a nanosecond before the record's time, where the last
		 * record's allows: the note that opens the next page must
		 * come after it, and takes the record's time itself) */
		rb_note_write(rb, cb, cpu, room == 120 ? 116 : room,
			      want_ts ? want_ts - 1 : 0);
	/* no room for it (a full buffer): the next write notes again */
	if (!rb_note_write(rb, cb, cpu, RINGBUF_NOTE_SIZE, want_ts)) {
		cb->note_page = UINT32_MAX;
		return;
	}
	cb->note_cpu = cpu;
	cb->note_page = atomic_load_explicit(&m->tail_page,
					     memory_order_relaxed);
}

/* Pop the frame and give the cpu buffer back (end of a write). */
static RB_ALWAYS_INLINE void rb_writer_put(struct rb_tls *t, unsigned int d,
					   struct ringbuf_cpu *cb, bool claimed)
{
	ringbuf_fe_writer_put(t, d, (struct ringbuf_fe_cpu *)cb, claimed);
}

/* The end of an out-of-line reserve: if it failed (@event NULL, the
 * commit ended), the writer of the innermost frame gives the cpu buffer
 * back. */
static struct ringbuf_event *rb_reserve_fail(struct ringbuf_cpu *cb,
					     struct ringbuf_event *event)
{
	struct rb_tls *t = &rb_tls;
	unsigned int d = t->depth - 1;

	if (unlikely(!event))
		rb_writer_put(t, d, cb, t->frame[d].cpu_buffer_claimed & 1);
	return event;
}

/* A drop counted on the buffer the thread writes to (its slot, or its
 * CPU's buffer), with no claim held. */
static void rb_count_dropped_unclaimed(struct ringbuf *rb)
{
	struct rb_tls *t = &rb_tls;
	int cpu;

	if (rb->model == RINGBUF_PER_THREAD) {
		/* Relaxed: see rb_slot_cache_put(). */
		uint64_t key = __atomic_load_n(&t->slot[0], __ATOMIC_RELAXED);

		cpu = key >> RB_SLOT_IDX_BITS == rb->uid ?
			      (int)(key & RB_SLOT_IDX_MASK) :
			      (int)(rb_gettid() % (uint32_t)rb->nr_cpus);
	} else {
		cpu = rb_current_cpu() % rb->nr_cpu_bufs;
	}
	/* Relaxed: a statistic, kept off the mapping (no claim held). */
	atomic_fetch_add_explicit(&rb->buffers[cpu]->dropped_unclaimed, 1,
				  memory_order_relaxed);
}

static RB_NOINLINE struct ringbuf_event *
rb_reserve_refused(struct ringbuf *rb, unsigned long length, int *err)
{
	if (length > ringbuf_max_event_size(rb)) {
		*err = -EINVAL;
		return NULL;
	}
	/* Nesting too deep: drop and count. */
	rb_count_dropped_unclaimed(rb);
	*err = -EBUSY;
	return NULL;
}

/*
 * ringbuf_fe_pair_dropped - the second drop of a pair whose one
 * reservation failed (ringbuf_reserve_pair_inline()): the failure counted
 * the first where it counts one record's (the mapping's dropped_events
 * for a full buffer, dropped_unclaimed otherwise); this one goes with
 * the counts kept off the mapping, no claim being held any more. Both
 * are summed in ringbuf_dropped_events_cpu().
 */
void ringbuf_fe_pair_dropped(struct ringbuf *rb)
{
	rb_count_dropped_unclaimed(rb);
}

/*
 * ringbuf_fe_reserve_slow_ts - the whole reserve, for what the inline fast
 * path does not take: records over RINGBUF_MAX_SMALL_DATA, deep nesting.
 * @ts: the stamp the caller read (ringbuf_fe_reserve_ts()), 0 for none.
 * Userspace: errno is not set, because a signal handler that writes must
 * leave the interrupted code's errno alone; the reason is in @err.
 */
struct ringbuf_event *ringbuf_fe_reserve_slow_ts(struct ringbuf *rb,
						 unsigned long length,
						 uint64_t ts, int *err)
{
	struct rb_tls *t = &rb_tls;
	unsigned int d = t->depth;
	uint64_t want = rb_want_ts(rb, ts);
	struct ringbuf_event *event;
	struct ringbuf_cpu *cb;
	uintptr_t f;

	if (unlikely(d >= RB_MAX_NEST + (t->nest_extra != 0) ||
		     length > rb->max_data_size))
		return rb_reserve_refused(rb, length, err);

	f = ringbuf_fe_writer_begin(rb, &rb_tls, d, err);
	if (unlikely(!f))
		return NULL;
	cb = (struct ringbuf_cpu *)RINGBUF_FE_FRAME_CB(f);
	if (f & RINGBUF_FE_NOTED)
		rb_note_before(rb, cb, length, want);

	event = rb_reserve_next_event_ts(rb, cb, length, want, err);
	if (unlikely(!event)) {
		rb_writer_put(t, d, cb, f & 1);
		return NULL;
	}
	RB_TESTPOINT(cb, RINGBUF_TP_RESERVED);
	return event;
}

/* (earlier headers' inline code: the clock read here) */
struct ringbuf_event *ringbuf_fe_reserve_slow(struct ringbuf *rb,
					      unsigned long length, int *err)
{
	return ringbuf_fe_reserve_slow_ts(rb, length, 0, err);
}

/* The inline reserve claimed a spare: the note, then the record. */
struct ringbuf_event *ringbuf_fe_reserve_noted(struct ringbuf *rb,
					       unsigned long length, int *err)
{
	struct rb_tls *t = &rb_tls;
	struct ringbuf_cpu *cb = (struct ringbuf_cpu *)RINGBUF_FE_FRAME_CB(
		t->frame[t->depth - 1].cpu_buffer_claimed);
	struct ringbuf_event *event;

	rb_note_before(rb, cb, length, 0);
	event = rb_reserve_fail(cb, rb_reserve_next_event(rb, cb, length, err));
	if (likely(event))
		RB_TESTPOINT(cb, RINGBUF_TP_RESERVED);
	return event;
}

/*
 * The inline reserve entered the write (frame pushed, cpu buffer active)
 * and found one of its rare cases (ringbuf_fe_reserve_ts()): the checks
 * of ringbuf_fe_writer_begin() (the writers' fence, the disable flags),
 * then a spare's CPU note, then the whole reserve, which takes absolute
 * stamps. @ts: the stamp the caller read (ringbuf_reserve_inline_at()),
 * 0 for none, kept as the fast path keeps it (RINGBUF_0.11). A spare
 * is where a per-CPU writer goes when its CPU's buffer is not to be had
 * (another thread's write in it, or its claim's restartable sequence
 * aborted three times by preemptions or a migration): read again here,
 * a late record's stamp (function_graph's held-back entry, written when
 * its callee comes) would lie after that of the callee's entry, which
 * its thread writes next with its own earlier time on a CPU's buffer,
 * and a reader would put the callee first.
 */
struct ringbuf_event *ringbuf_fe_reserve_rare_ts(struct ringbuf *rb,
						 unsigned long length,
						 uint64_t ts, int *err)
{
	struct rb_tls *t = &rb_tls;
	unsigned int d = t->depth - 1;
	uintptr_t f = t->frame[d].cpu_buffer_claimed;
	struct ringbuf_cpu *cb = (struct ringbuf_cpu *)RINGBUF_FE_FRAME_CB(f);
	uint64_t want = rb_want_ts(rb, ts);
	struct ringbuf_event *event;

	/*
	 * The kept claim of a disabled CPU buffer: the inline code entered
	 * it without looking at the flag (RINGBUF_0.8; its fe_slow brought
	 * us here). The earlier inline code sent the thread's outermost
	 * write to the claim's slow path instead, which writes elsewhere (a
	 * spare first, see ringbuf_record_disable_cpu()): leave it, and
	 * claim as that path does. A handler nesting in our own write of
	 * it (active above 1) is refused below, as it was.
	 *
	 * Relaxed loads: the flag is a switch (ringbuf_record_disable_cpu():
	 * a write racing with it may still go in, as a relaxed load lets
	 * it); the owner word is ours while active is raised (only a handler
	 * of ours could change it, and it runs to its end before we go on).
	 */
	if (unlikely(atomic_load_explicit(&cb->record_disabled,
					  memory_order_relaxed)) &&
	    rb->model == RINGBUF_PER_CPU && !(f & RINGBUF_FE_CLAIMED) &&
	    local_read(&cb->active) == 1 &&
	    atomic_load_explicit(&cb->owner, memory_order_relaxed) ==
		    (t->tid | RINGBUF_FE_KEPT)) {
		int cpu = cb->cpu;

		ringbuf_fe_writer_put((struct ringbuf_tls *)t, d,
				      (struct ringbuf_fe_cpu *)cb, false);
		t->depth = d + 1;
		/* Compiler barrier: the frame counted (depth) before the claim
		 * stores into it, for a signal handler of ours that nests in
		 * between (it pushes its frame above ours); pairs with nothing
		 * across threads. */
		barrier();
		f = ringbuf_fe_claim_active_slow(rb, cpu, err);
		if (!f) {
			t->depth = d;
			return NULL;
		}
		t->frame[d].cpu_buffer_claimed = f;
		cb = (struct ringbuf_cpu *)RINGBUF_FE_FRAME_CB(f);
	}
	if (!ringbuf_fe_writer_check(rb, t, d, f, err))
		return NULL;
	if (f & RINGBUF_FE_NOTED)
		rb_note_before(rb, cb, length, want);
	event = rb_reserve_fail(cb, rb_reserve_next_event_ts(rb, cb, length,
							     want, err));
	if (likely(event))
		RB_TESTPOINT(cb, RINGBUF_TP_RESERVED);
	return event;
}

/* (RINGBUF_0.8 to 0.10's inline code: the clock read here) */
struct ringbuf_event *ringbuf_fe_reserve_rare(struct ringbuf *rb,
					      unsigned long length, int *err)
{
	return ringbuf_fe_reserve_rare_ts(rb, length, 0, err);
}

/* (RINGBUF_0.7's name: its inline code loads the cpu buffer's
 * record_disabled itself; the checks are the same.) */
struct ringbuf_event *ringbuf_fe_reserve_flagged(struct ringbuf *rb,
						 unsigned long length, int *err)
{
	return ringbuf_fe_reserve_rare(rb, length, err);
}

/* The inline reserve met a case of the stamp logic it does not take
 * (time extend, absolute stamps, an interrupted writer before A); @ts:
 * the caller's stamp (ringbuf_fe_move_tail_ts()). */
struct ringbuf_event *ringbuf_fe_reserve_next_slow_ts(struct ringbuf *rb,
						      struct ringbuf_fe_cpu *fcb,
						      unsigned long length,
						      uint64_t ts, int *err)
{
	struct ringbuf_cpu *cb = (struct ringbuf_cpu *)fcb;

	return rb_reserve_fail(cb, rb_reserve_started(rb, cb, length, ts, err));
}

/* (earlier headers' inline code: the clock read at each try) */
struct ringbuf_event *ringbuf_fe_reserve_next_slow(struct ringbuf *rb,
						   struct ringbuf_fe_cpu *fcb,
						   unsigned long length,
						   int *err)
{
	return ringbuf_fe_reserve_next_slow_ts(rb, fcb, length, 0, err);
}

/*
 * The inline reserve shot past the end of the tail page (C). @ts: the
 * stamp the caller gave (ringbuf_fe_reserve_ts() on a CLOCK_MONOTONIC
 * buffer), 0 for none. Userspace: the kernel reads the clock again at
 * each try, its records being stamped when they are written. A caller
 * here may write a record late with the time it stands for (function
 * graph's held-back entries): read again after the page move (and a
 * wait for room), that stamp would lie after the stamps of records the
 * thread writes next with their own earlier times, on another CPU's
 * buffer too. The record keeps it, raised to the buffer's last stamp if
 * it lies before (__rb_reserve_next()'s clamp).
 */
struct ringbuf_event *ringbuf_fe_move_tail_ts(struct ringbuf_fe_cpu *fcb,
					      uint32_t tail_page,
					      unsigned long tail,
					      unsigned long length, uint64_t ts,
					      int *err)
{
	struct ringbuf_cpu *cb = (struct ringbuf_cpu *)fcb;
	struct rb_event_info info = {
		.length = length,
		.tail_page = tail_page,
		.add_timestamp = RB_ADD_STAMP_NONE,
		.err = -ENOSPC,
		.want_ts = ts,
	};
	struct ringbuf_event *event = rb_move_tail(cb, tail, &info);

	if (event == RB_AGAIN)
		return rb_reserve_fail(cb, rb_reserve_loop(cb->buffer, cb, &info,
							   RB_ADD_STAMP_NONE,
							   err));
	*err = info.err;
	rb_end_commit_slow(cb);
	return rb_reserve_fail(cb, NULL);
}

/* (earlier headers' inline code: the clock read again after the move) */
struct ringbuf_event *ringbuf_fe_move_tail(struct ringbuf_fe_cpu *fcb,
					   uint32_t tail_page,
					   unsigned long tail,
					   unsigned long length, int *err)
{
	return ringbuf_fe_move_tail_ts(fcb, tail_page, tail, length, 0, err);
}

/* The inline reserve was interrupted between A and C: @ts, the stamp it
 * took at A; @want, the caller's (0 for none), which the record keeps
 * (rb_reserve_interrupted()). */
struct ringbuf_event *
ringbuf_fe_reserve_interrupted_ts(struct ringbuf_fe_cpu *fcb,
				  uint32_t tail_page, unsigned long write,
				  unsigned long length, uint64_t ts,
				  uint64_t want)
{
	struct ringbuf_cpu *cb = (struct ringbuf_cpu *)fcb;
	struct rb_event_info info = {
		.ts = ts,
		.length = length,
		.tail_page = tail_page,
		.add_timestamp = RB_ADD_STAMP_NONE,
		.want_ts = want,
	};

	rb_reserve_interrupted(cb, &info, write);
	return rb_reserve_finish(cb, &info, write - length);
}

/* (earlier headers' inline code: the clock read again) */
struct ringbuf_event *ringbuf_fe_reserve_interrupted(struct ringbuf_fe_cpu *fcb,
						     uint32_t tail_page,
						     unsigned long write,
						     unsigned long length,
						     uint64_t ts)
{
	return ringbuf_fe_reserve_interrupted_ts(fcb, tail_page, write, length,
						 ts, 0);
}

void ringbuf_fe_end_commit_slow(struct ringbuf_fe_cpu *cb)
{
	rb_end_commit_slow((struct ringbuf_cpu *)cb);
}

void ringbuf_fe_wake_waiters(struct ringbuf_fe_cpu *cb)
{
	rb_wake_waiters((struct ringbuf_cpu *)cb);
}

struct ringbuf_event *ringbuf_lock_reserve(struct ringbuf *rb,
					   unsigned long length)
{
	int err;

	if (unlikely(!rb))
		return NULL;
	return ringbuf_fe_reserve(rb, length, &err);
}

int ringbuf_unlock_commit(struct ringbuf *rb)
{
	return ringbuf_fe_commit(rb);
}

int ringbuf_write(struct ringbuf *rb, unsigned long length, const void *data)
{
	struct ringbuf_event *event;
	int err = 0;

	if (unlikely(!rb || (!data && length)))
		return -EINVAL;
	event = ringbuf_fe_reserve(rb, length, &err);
	if (!event)
		return err;
	if (length)
		memcpy(ringbuf_event_data_inline(event), data, length);
	return ringbuf_fe_commit(rb);
}

/* ------------------------------------------------------------------ */
/* Discard                                                             */

static void rb_event_discard(struct ringbuf_event *event)
{
	unsigned int length;

	if (event->type_len == RINGBUF_TYPE_TIME_EXTEND ||
	    event->type_len == RINGBUF_TYPE_TIME_STAMP)
		event = (struct ringbuf_event *)((char *)event +
						 RB_LEN_TIME_EXTEND);
	length = rb_event_length(event) - RB_EVNT_HDR_SIZE;

	/* array[0] holds the actual length for the discarded event */
	event->array[0] = length;
	event->type_len = RINGBUF_TYPE_PADDING;
	/* time delta must be non zero */
	if (!event->time_delta)
		event->time_delta = 1;
}

/*
 * Userspace: the kernel searches the ring for the page of the event; here
 * the pages lie at fixed places in the mapping, so it is arithmetic.
 */
static void rb_decrement_entry(struct ringbuf_cpu *cpu_buffer,
			       struct ringbuf_event *event)
{
	uint32_t id = rb_event_page(cpu_buffer, event);

	if (RB_WARN_ON(cpu_buffer->buffer, id > cpu_buffer->nr_pages))
		return;
	local_dec(&rb_page(cpu_buffer, id)->entries);
}

static bool rb_try_to_discard(struct ringbuf_cpu *cpu_buffer,
			      struct ringbuf_event *event)
{
	struct rb_cpu_meta *m = cpu_buffer->meta;
	uint32_t id = rb_event_page(cpu_buffer, event);
	uint32_t tail = atomic_load_explicit(&m->tail_page,
					     memory_order_relaxed);
	struct rb_page_ctl *bpage = rb_page(cpu_buffer, tail);
	uint64_t new_index, old_index;

	new_index = (uint64_t)((unsigned char *)event -
			       rb_data(cpu_buffer, id)->data);
	/* With the time extend in front of it, if any */
	old_index = new_index + rb_event_length(event);
	if (event->type_len == RINGBUF_TYPE_TIME_EXTEND ||
	    event->type_len == RINGBUF_TYPE_TIME_STAMP)
		old_index += rb_event_length((struct ringbuf_event *)(
			(char *)event + RB_LEN_TIME_EXTEND));

	/* Only if the tail is still on this page right after the event. */
	if (id == tail && rb_page_write(cpu_buffer, tail) == old_index) {
		uint64_t write_mask = local_read(&bpage->write) &
				      ~RB_WRITE_MASK;
		uint64_t event_length = old_index - new_index;

		/*
		 * The write stamp now belongs to a discarded event. Zeroing
		 * before_stamp makes it differ from write_stamp, so the next
		 * event uses an absolute stamp and never builds on it.
		 */
		local_set(&m->before_stamp, 0);

		old_index += write_mask;
		new_index += write_mask;

		/* Fails if a handler wrote after the event: then it stays
		 * as padding, which readers skip. */
		if (local_cmpxchg(&bpage->write, old_index, new_index)) {
			local_sub(event_length, &m->entries_bytes);
			return true;
		}
	}
	return false;
}

void ringbuf_discard_commit(struct ringbuf *rb, struct ringbuf_event *event)
{
	struct rb_tls *t = &rb_tls;
	unsigned int d = t->depth;
	struct ringbuf_cpu *cb;

	uintptr_t f;

	if (unlikely(!d || !event))
		return;
	f = t->frame[d - 1].cpu_buffer_claimed;
	cb = (struct ringbuf_cpu *)RINGBUF_FE_FRAME_CB(f);
	if (unlikely(cb->buffer != rb))
		return;

	/* The event is discarded regardless */
	rb_event_discard(event);
	RB_WARN_ON(rb, !local_read(&cb->committing));
	rb_decrement_entry(cb, event);
	rb_try_to_discard(cb, event);
	rb_end_commit(cb);
	rb_writer_put(t, d - 1, cb, f & 1);
}

void ringbuf_nest_start(struct ringbuf *rb)
{
	(void)rb;
	rb_tls.nest_extra++;
}

void ringbuf_nest_end(struct ringbuf *rb)
{
	(void)rb;
	if (rb_tls.nest_extra)
		rb_tls.nest_extra--;
}
