// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * recover.c - the reader's crash recovery: what a reader or a writer that
 * died in a buffer shared between processes left is repaired here, and
 * the reader port (read.c) reaches it through one-line hooks, as the
 * kernel's reader reaches its persistent-buffer code
 * (`if (cpu_buffer->ring_meta) rb_update_meta_reader(...)`):
 *
 *  - rb_reader_repair_dead(): on taking the file's reader lock, finish or
 *    undo the page swap and the progress record of a reader that died
 *    holding it;
 *  - rb_swap_record(): before and after the swap, say which head page is
 *    being swapped, for the next reader if this one dies;
 *  - rb_recover_dead_writer(): a writer that holds the head or crosses a
 *    page for too long may be dead: roll its torn writes back, once;
 *  - rb_recover_cpu(), rb_recover_all(), rb_rollback_torn(): the repair
 *    of a cpu buffer whose writing process died.
 *
 * Userspace: the kernel's readers and writers never die in the middle;
 * ours are processes that can be killed anywhere.
 */
#include "internal.h"

/*
 * A reader that died holding the shared lock may have stopped in the
 * middle of a swap (rb_get_reader_page()). If its cmpxchg already put the
 * reader page into the ring, finish the swap as it would have: the page it
 * took out becomes the reader page, with its data. Otherwise the ring is
 * as it was; the reader page's own links are rewritten by the next swap.
 * Lost-event accounting is left to the next swap, which compares overrun
 * with last_overrun as usual.
 */
static void rb_reader_repair(struct ringbuf_cpu *cb)
{
	struct rb_cpu_meta *m = cb->meta;
	uint32_t n = cb->nr_pages;
	/* Relaxed, here and below: we hold the lock the dead reader held;
	 * the kernel's hand-over of the lock orders its stores before our
	 * loads. */
	uint32_t head = atomic_load_explicit(&cb->shared->swap_head,
					     memory_order_relaxed);
	uint32_t rp = atomic_load_explicit(&m->reader_page,
					   memory_order_relaxed);

	if (head <= n && rp <= n && head != rp) {
		uint32_t prev = atomic_load_explicit(&rb_page(cb, rp)->prev,
						     memory_order_relaxed);

		if (prev <= n && rb_next_id(cb, prev) == rp) {
			uint32_t next = rb_next_id(cb, head);

			if (next <= n) {
				atomic_store_explicit(&rb_page(cb, next)->prev,
						      rp, memory_order_relaxed);
				atomic_store_explicit(&m->head_page, next,
						      memory_order_relaxed);
			}
			atomic_store_explicit(&m->reader_page, head,
					      memory_order_relaxed);
			rb_page(cb, head)->read = 0;
		}
	}
	atomic_store_explicit(&cb->shared->swap_head, RB_NO_SWAP,
			      memory_order_relaxed);

	/* A progress record still valid: apply it (again). Acquire: pairs
	 * with the release that made it valid in rb_reader_progress(). */
	if (atomic_load_explicit(&cb->shared->adv_valid, memory_order_acquire)) {
		struct rb_cpu_lock *l = cb->shared;

		if (l->adv_page <= n && l->adv_to <= cb->buffer->bsize) {
			rb_page(cb, l->adv_page)->read = l->adv_to;
			atomic_store_explicit(&m->read, l->adv_read,
					      memory_order_relaxed);
			atomic_store_explicit(&m->read_bytes, l->adv_bytes,
					      memory_order_relaxed);
			m->read_stamp = l->adv_stamp;
		}
		atomic_store_explicit(&l->adv_valid, 0, memory_order_relaxed);
	}
}

/* What a lock of the file's lock leaves to repair: a reader that died
 * holding it (a live one clears both before it lets go). */
void rb_reader_repair_dead(struct ringbuf_cpu *cb)
{
	/* Relaxed: we hold the lock the dead reader held; the kernel's
	 * hand-over of the lock orders its stores before our loads. */
	if (atomic_load_explicit(&cb->shared->swap_head,
				 memory_order_relaxed) != RB_NO_SWAP ||
	    atomic_load_explicit(&cb->shared->adv_valid, memory_order_relaxed))
		rb_reader_repair(cb);
}

/* Recover every cpu buffer of a view whose writing process died. */
void rb_recover_all(struct ringbuf *rb)
{
	for (int c = 0; c < rb->nr_cpus; c++) {
		if (!rb_reader_lock(rb->buffers[c]))
			rb_recover_cpu(rb->buffers[c]);
		rb_reader_unlock(rb->buffers[c]);
	}
}

/* Data records in [@from, @to) of a page; stops at a bad record. */
static uint64_t rb_count_records(struct ringbuf_cpu *cb, uint32_t page,
				 uint64_t from, uint64_t to)
{
	const unsigned char *data = rb_data(cb, page)->data;
	uint64_t nr = 0;

	/* a commit index off the 4-byte grid (a corrupt file): no record
	 * starts there */
	if (from % RB_ALIGNMENT)
		return 0;
	while (from + RB_EVNT_MIN_SIZE <= to) {
		const struct ringbuf_event *ev =
			(const struct ringbuf_event *)(data + from);
		unsigned int len;

		if (!rb_event_valid(ev, to - from))
			break;
		len = rb_event_length(ev);
		if (!len)
			break;
		if (ev->type_len <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX)
			nr++;
		from += len;
	}
	return nr;
}

/*
 * rb_rollback_torn - take back what writes that will never commit left
 * past the commit position: the space they reserved and every record in
 * it, including those a signal handler committed inside them (only the
 * outermost writer moves the commit, so they are lost with it). The
 * write indexes drop to the commit indexes, the tail page goes back to
 * the commit page, and the byte, entry and torn counts follow.
 * @nr_torn: the reservations known to be interrupted (a thread's frames
 *	on this cpu buffer); 0 when unknown (a dead process: the caller,
 *	holding the reader lock, recounts entries and bytes, and counts the
 *	torn events from the difference).
 *
 * Userspace: the kernel's writers always finish. No writer may be able to
 * run on the cpu buffer: its writing thread or process is gone and still
 * holds the claim or slot. Returns the records taken back.
 */
uint64_t rb_rollback_torn(struct ringbuf_cpu *cb, unsigned int nr_torn)
{
	struct rb_cpu_meta *m = cb->meta;
	uint64_t bsize = cb->buffer->bsize, records = 0, bytes = 0, lost;
	uint32_t tail = rb_id_clamp(cb, atomic_load_explicit(
					      &m->tail_page,
					      memory_order_relaxed));
	uint32_t page = rb_id_clamp(cb, atomic_load_explicit(
					      &m->commit_page,
					      memory_order_relaxed));

	/* Relaxed throughout: the writer is gone (see above); its last
	 * stores reached us through its claim's release or the lock. */
	for (uint32_t i = 0; i <= cb->nr_pages; i++) {
		struct rb_page_ctl *p = rb_page(cb, page);
		uint64_t w = local_read(&p->write);
		/* Past the commit page the commit index is 0: the tail move
		 * onto a page clears it, and only the commit raises it. */
		uint64_t c = rb_page_size(cb, page), end = w & RB_WRITE_MASK;

		if (c > bsize)
			c = bsize;
		if (end > bsize)
			end = bsize;
		if (end > c) {
			uint64_t nr = rb_count_records(cb, page, c, end);
			uint64_t e = local_read(&p->entries);

			records += nr;
			bytes += end - c;
			local_set(&p->entries,
				  (e & ~RB_WRITE_MASK) |
					  ((e & RB_WRITE_MASK) > nr ?
						   (e & RB_WRITE_MASK) - nr :
						   0));
		}
		local_set(&p->write, (w & ~RB_WRITE_MASK) | c);
		if (page == tail)
			break;
		page = rb_next_id(cb, page);
	}
	atomic_store_explicit(&m->tail_page,
			      atomic_load_explicit(&m->commit_page,
						   memory_order_relaxed),
			      memory_order_relaxed);
	if (!records && !bytes && !nr_torn)
		return 0;
	/* The stamps may describe a record that is gone: as a discard
	 * does, make the next record carry an absolute stamp. */
	local_set(&m->before_stamp, 0);
	/* A dead process may have stopped before it wrote a header: the
	 * region can hold stale records of an earlier lap. The caller
	 * recounts from the pages instead. */
	if (!nr_torn)
		return records ? records : 1;
	local_sub(bytes <= local_read(&m->entries_bytes) ?
			  bytes :
			  local_read(&m->entries_bytes),
		  &m->entries_bytes);
	/* Records beyond the interrupted reservations were committed (and
	 * counted in entries) by handlers inside them: lost. */
	lost = nr_torn && records > nr_torn ? records - nr_torn : 0;
	local_sub(lost <= local_read(&m->entries) ? lost :
						      local_read(&m->entries),
		  &m->entries);
	/* Every event lost (counted as written, never readable), and at
	 * least once per interrupted write. */
	atomic_fetch_add_explicit(&m->torn_events,
				  lost > nr_torn ? lost : nr_torn,
				  memory_order_relaxed);
	return records;
}

/*
 * rb_recount_locked - the kernel's persistent-buffer validation recomputes
 * a cpu buffer's entries and bytes from its pages; so do we after a
 * recovery: entries and bytes then describe exactly the records a reader
 * can still read. Reader lock held, no writer running.
 */
static void rb_recount_locked(struct ringbuf_cpu *cb)
{
	struct rb_cpu_meta *m = cb->meta;
	uint64_t bsize = cb->buffer->bsize, nr = 0, bytes = 0;
	uint32_t rp = rb_id_clamp(cb, atomic_load_explicit(
					    &m->reader_page,
					    memory_order_relaxed));
	uint32_t commit = atomic_load_explicit(&m->commit_page,
					       memory_order_relaxed);
	uint64_t size = rb_page_size(cb, rp), read = rb_read_index(cb, rp);

	if (size <= bsize && read <= size) {
		nr += rb_count_records(cb, rp, read, size);
		bytes += size - read;
	}
	if (commit != rp) {
		uint32_t page = rb_set_head_page(cb);

		for (uint32_t i = 0; page != RB_NO_PAGE && i < cb->nr_pages;
		     i++) {
			size = rb_page_size(cb, page);
			if (size > bsize)
				size = bsize;
			nr += rb_count_records(cb, page, 0, size);
			bytes += size;
			if (page == commit)
				break;
			page = rb_next_id(cb, page);
		}
	}
	local_set(&m->entries, local_read(&m->overrun) +
				       atomic_load_explicit(
					       &m->read, memory_order_relaxed) +
				       nr);
	local_set(&m->entries_bytes,
		  atomic_load_explicit(&m->read_bytes, memory_order_relaxed) +
			  bytes);
}

/*
 * rb_recover_cpu - make a cpu buffer readable after its writing process
 * died (the flight recorder case). Reader lock held. The writer may have
 * died anywhere in a write:
 *  - with space reserved but not committed: every event committed before
 *    is below the commit index and is read as usual; the reserved space
 *    (write index past the commit index) is taken back and its records
 *    counted as torn (rb_rollback_torn());
 *  - in the middle of a page crossing (write index past the page end):
 *    the write index is put back to the commit index;
 *  - in the middle of a head push, leaving UPDATE, or two HEAD flags (the
 *    three-deep case): the first flagged link after the tail page is made
 *    the head and every other flag cleared, so the reader can swap again.
 * Events a signal handler committed inside an outer write that never
 * committed stay beyond the commit index and are lost with the torn one;
 * entries and bytes are recounted from the pages at the end.
 */
void rb_recover_cpu(struct ringbuf_cpu *cb)
{
	struct rb_cpu_meta *m = cb->meta;
	uint32_t n = cb->nr_pages;
	uint32_t rp = rb_id_clamp(cb, atomic_load_explicit(&m->reader_page,
							   memory_order_relaxed));
	uint64_t committed = local_read(&m->entries), torn, now;
	uint32_t tail, page;
	bool found = false;
	uint32_t pushed;

	torn = rb_rollback_torn(cb, 0);
	tail = rb_id_clamp(cb, atomic_load_explicit(&m->tail_page,
						    memory_order_relaxed));

	/*
	 * A head push the writer died in: finish it. The pushed page's
	 * events count as overrun whether or not the writer got to add
	 * them, and the page after it is the head. Acquire: pairs with the
	 * release that set the record in rb_handle_head_page().
	 */
	pushed = atomic_load_explicit(&m->push_page, memory_order_acquire);
	if (pushed && pushed - 1 <= n && pushed - 1 != rp) {
		uint32_t np = pushed - 1;

		local_set(&m->overrun, local_read(&m->push_overrun) +
					       rb_page_entries(cb, np));
		for (uint32_t i = 0, p = np; i < n; i++) {
			struct rb_page_ctl *pc = rb_page(cb, p);
			uint32_t link = atomic_load_explicit(
				&pc->next, memory_order_relaxed);

			atomic_store_explicit(&pc->next,
					      rb_link(rb_link_id(link),
						      p == np ? RB_PAGE_HEAD :
								RB_PAGE_NORMAL),
					      memory_order_relaxed);
			p = rb_next_id(cb, p);
		}
		atomic_store_explicit(&m->push_page, 0, memory_order_relaxed);
		goto out;
	}
	atomic_store_explicit(&m->push_page, 0, memory_order_relaxed);

	/* One head: the first flagged link after the tail. */
	page = tail == rp ? rb_next_id(cb, rp) : tail;
	for (uint32_t i = 0; i < n; i++) {
		struct rb_page_ctl *p = rb_page(cb, page);
		uint32_t link = atomic_load_explicit(&p->next,
						     memory_order_relaxed);

		if (link & RB_FLAG_MASK) {
			atomic_store_explicit(&p->next,
					      rb_link(rb_link_id(link),
						      found ? RB_PAGE_NORMAL :
							      RB_PAGE_HEAD),
					      memory_order_relaxed);
			found = true;
		}
		page = rb_next_id(cb, page);
	}
	/* No flag at all: the page after the tail is the oldest. */
	if (!found && tail != rp) {
		struct rb_page_ctl *p = rb_page(cb, tail);
		uint32_t link = atomic_load_explicit(&p->next,
						     memory_order_relaxed);

		atomic_store_explicit(&p->next,
				      rb_link(rb_link_id(link), RB_PAGE_HEAD),
				      memory_order_relaxed);
	}
out:
	rb_recount_locked(cb);
	/*
	 * Every event counted in entries that is unreadable now (a signal
	 * handler's inside the interrupted write, or the write itself if it
	 * died between counting and committing), and at least once for the
	 * interrupted write. Relaxed: the lock orders it for other readers.
	 */
	now = local_read(&m->entries);
	if (torn)
		atomic_fetch_add_explicit(&m->torn_events,
					  committed > now + 1 ? committed - now :
								1,
					  memory_order_relaxed);
}

/* The head page a swap is taking (RB_NO_SWAP: none), for a reader that
 * finds this one died in it. Relaxed: read under the lock by the next
 * holder. */
void rb_swap_record(struct ringbuf_cpu *cb, uint32_t head)
{
	atomic_store_explicit(&cb->shared->swap_head, head,
			      memory_order_relaxed);
}

/* A writer that keeps the reader waiting may be dead (a process that
 * shared the buffer with us): then repair the cpu buffer, once per read
 * (*@recovered). True if it was repaired now. */
bool rb_recover_dead_writer(struct ringbuf_cpu *cb, bool *recovered)
{
	if (*recovered || !rb_writer_gone(cb->buffer))
		return false;
	rb_recover_cpu(cb);
	*recovered = true;
	return true;
}
