// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * iter.c - the non-consuming iterator (the kernel's ring_buffer_read_start()
 * and ring_buffer_iter_*): reads a cpu buffer in place, page by page,
 * without moving the reader.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"


struct ringbuf_iter {
	struct ringbuf *rb;
	struct ringbuf_cpu *cb;
	uint32_t head_page;
	uint64_t head; /* offset of the record at the iterator */
	uint64_t next_event; /* offset after it, once copied */
	uint64_t read_stamp;
	uint64_t page_stamp;
	uint32_t cache_reader_page;
	uint64_t cache_read;
	bool missed_events;
	uint32_t pages_seen; /* since the last reset: one lap at most */
	uint32_t budget; /* page moves and restarts left (rb_iter_spend()) */
	bool ended; /* the budget ran out: nothing more to show */
	uint32_t event_size;
	unsigned char *event; /* copy of the record at the iterator */
	int note_cpu; /* the CPU it was written on (CPU notes), or -1 */
};

/* The committed size of the iterator's page; a size past the page end
 * (a corrupt or hostile file) reads as an empty page. */
static uint64_t rb_iter_page_size(struct ringbuf_iter *iter)
{
	uint64_t size = rb_page_size(iter->cb, iter->head_page);

	if (RB_WARN_ON(iter->rb, size > iter->rb->bsize))
		return 0;
	return size;
}

/*
 * The page moves and restarts one iteration may make: two laps of the
 * ring. Userspace: the kernel's 'trace' file stops the writers while it is
 * read (pause-on-trace); here writers in another process go on, and one
 * that overwrites the ring faster than the iterator reads it would send it
 * back to the oldest data again and again, each restart a new lap: a
 * reader that never ends (a hostile one needs only to write fast, or to
 * leave records the iterator finds bad while it writes). The budget ends
 * the iteration after about two buffers' worth of records.
 */
#define RB_ITER_LAPS 2u

static void rb_iter_refill(struct ringbuf_iter *iter)
{
	iter->budget = RB_ITER_LAPS * (iter->cb->nr_pages + 1);
}

/* One page move or restart: false once the budget is spent. */
static bool rb_iter_spend(struct ringbuf_iter *iter)
{
	if (!iter->budget) {
		iter->ended = true;
		return false;
	}
	iter->budget--;
	return true;
}

static void rb_iter_reset(struct ringbuf_iter *iter)
{
	struct ringbuf_cpu *cb = iter->cb;
	struct rb_cpu_meta *m = cb->meta;
	uint32_t reader = atomic_load_explicit(&m->reader_page,
					       memory_order_relaxed);

	/* Iterator usage is expected to have record disabled */
	iter->head_page = reader;
	iter->head = rb_read_index(cb, reader);
	iter->next_event = iter->head;
	iter->cache_reader_page = reader;
	iter->cache_read = atomic_load_explicit(&m->read, memory_order_relaxed);
	iter->pages_seen = 0;
	iter->note_cpu = rb_page_note_cpu(cb, reader, 0, iter->head,
					  rb_home_cpu(cb));
	if (iter->head) {
		iter->read_stamp = m->read_stamp;
		iter->page_stamp = atomic_load_explicit(
			&rb_data(cb, reader)->time_stamp, memory_order_relaxed);
	} else {
		iter->read_stamp = atomic_load_explicit(
			&rb_data(cb, reader)->time_stamp, memory_order_relaxed);
		iter->page_stamp = iter->read_stamp;
	}
}

/* Move to the next page of the ring; false at the commit page. */
static bool rb_inc_iter(struct ringbuf_iter *iter)
{
	struct ringbuf_cpu *cb = iter->cb;
	struct rb_cpu_meta *m = cb->meta;
	uint32_t next;

	/* Acquire: pairs with the release of commit_page in
	 * rb_set_commit_to_write(); the pages behind it are committed. */
	if (iter->head_page ==
	    atomic_load_explicit(&m->commit_page, memory_order_acquire))
		return false;
	if (iter->head_page ==
	    atomic_load_explicit(&m->reader_page, memory_order_relaxed))
		next = rb_set_head_page(cb);
	else
		next = rb_next_id(cb, iter->head_page);
	if (next == RB_NO_PAGE || RB_WARN_ON(cb->buffer, next > cb->nr_pages))
		return false;
	/* One lap of the ring at most: a writer that keeps moving the commit
	 * page on, or a corrupt ring that never reaches it, ends the view;
	 * and the budget, across restarts. */
	if (++iter->pages_seen > cb->nr_pages + 1 || !rb_iter_spend(iter))
		return false;
	iter->head_page = next;
	iter->page_stamp = iter->read_stamp = atomic_load_explicit(
		&rb_data(cb, next)->time_stamp, memory_order_relaxed);
	iter->head = iter->next_event = 0;
	iter->note_cpu = rb_home_cpu(cb);
	return true;
}

/*
 * Copy a record out of a page a writer may be overwriting (overwrite
 * mode), then check the page did not change under the copy: a seqlock
 * read, with the page time stamp and commit as the sequence. The copy is
 * a deliberate race with the writer, hidden from ThreadSanitizer; a torn
 * copy is detected and thrown away.
 */
__attribute__((no_sanitize("thread"))) static void
rb_iter_copy(uint32_t *dst, const unsigned char *src, unsigned int len)
{
	const volatile uint32_t *s = (const volatile uint32_t *)src;

	for (unsigned int i = 0; i < len / 4; i++)
		dst[i] = s[i];
}

/* Returns the copied record, NULL after a reset (missed_events set). */
static struct ringbuf_event *rb_iter_head_event(struct ringbuf_iter *iter)
{
	struct ringbuf_cpu *cb = iter->cb;
	struct rb_data_page *page = rb_data(cb, iter->head_page);
	uint64_t commit = rb_iter_page_size(iter);
	struct ringbuf_event *event = (struct ringbuf_event *)iter->event;
	unsigned int length;

	if (iter->head + RB_EVNT_MIN_SIZE > commit ||
	    iter->head % RB_ALIGNMENT)
		goto bad;
	/* Userspace: at the page's start, its time stamp loaded after the
	 * commit that shows a record (a spare's writer sets it back by one
	 * before it commits a CPU note that starts the page). */
	if (!iter->head)
		iter->page_stamp = iter->read_stamp =
			rb_page_stamp(cb, iter->head_page);
	rb_iter_copy((uint32_t *)iter->event, page->data + iter->head,
		     RB_EVNT_MIN_SIZE);
	if (!rb_event_valid(event, commit - iter->head))
		goto bad;
	length = rb_event_length(event);
	if (!length)
		length = (unsigned int)(commit - iter->head);
	if (length > iter->event_size)
		goto bad;
	/* The rest by the length checked; the header and length word are
	 * not read again. Userspace: in a file, another process (not only
	 * a writer, whose overwrite the stamp check below sees) may rewrite
	 * them meanwhile, and the copy would say another length than the
	 * one copied. */
	RB_TESTPOINT_COPY(cb, page->data + iter->head);
	rb_iter_copy((uint32_t *)(iter->event + RB_EVNT_MIN_SIZE),
		     page->data + iter->head + RB_EVNT_MIN_SIZE,
		     length - RB_EVNT_MIN_SIZE);

	/* Acquire: the copy is complete before the stamp and commit are
	 * checked again; pairs with the writer's release of commit. */
	atomic_thread_fence(memory_order_acquire);
	if (iter->page_stamp != atomic_load_explicit(&page->time_stamp,
						     memory_order_relaxed) ||
	    commit > rb_iter_page_size(iter))
		goto reset;

	iter->next_event = iter->head + length;
	return event;

bad:
	/*
	 * A record that does not fit. If the page changed under the copy, a
	 * writer overwrote it: start again from the oldest data. If it did
	 * not, the page itself is corrupt (another process's file): skip the
	 * rest of it, once, rather than read it again and again.
	 */
	atomic_thread_fence(memory_order_acquire); /* Acquire: as above. */
	if (iter->page_stamp == atomic_load_explicit(&page->time_stamp,
						     memory_order_relaxed) &&
	    commit == rb_iter_page_size(iter)) {
		RB_WARN_ON(iter->rb, 1);
		iter->head = iter->next_event = commit;
		return NULL;
	}
reset:
	iter->missed_events = true;
	if (rb_iter_spend(iter))
		rb_iter_reset(iter);
	return NULL;
}

/* The next data record at or after the iterator; reader lock held. */
static struct ringbuf_event *rb_iter_peek(struct ringbuf_iter *iter,
					  uint64_t *ts)
{
	struct ringbuf_cpu *cb = iter->cb;
	struct rb_cpu_meta *m = cb->meta;
	struct ringbuf_event *event;
	unsigned long max = (unsigned long)(cb->nr_pages + 2) *
				    (cb->buffer->bsize / RB_EVNT_MIN_SIZE + 2);

	if (iter->ended)
		return NULL;
	/* A consumer read since: restart from where it is now. */
	if (iter->cache_read !=
		    atomic_load_explicit(&m->read, memory_order_relaxed) ||
	    iter->cache_reader_page !=
		    atomic_load_explicit(&m->reader_page, memory_order_relaxed)) {
		if (!rb_iter_spend(iter))
			return NULL;
		rb_iter_reset(iter);
	}

	while (max--) {
		if (iter->head >= rb_iter_page_size(iter)) {
			if (!rb_inc_iter(iter))
				return NULL;
			continue;
		}
		event = rb_iter_head_event(iter);
		if (!event) {
			if (iter->ended)
				return NULL;
			continue;
		}
		switch (event->type_len) {
		case RINGBUF_TYPE_PADDING: {
			/* the records after a CPU note were written there */
			int c = ringbuf_note_cpu(event,
						 iter->next_event - iter->head);

			if (c >= 0)
				iter->note_cpu = c;
			/* as rb_update_read_stamp() */
			iter->read_stamp += event->time_delta;
			iter->head = iter->next_event;
			continue;
		}
		case RINGBUF_TYPE_TIME_EXTEND:
			iter->read_stamp += rb_event_time_stamp(event);
			iter->head = iter->next_event;
			continue;
		case RINGBUF_TYPE_TIME_STAMP:
			iter->read_stamp = rb_fix_abs_ts(
				rb_event_time_stamp(event), iter->read_stamp);
			iter->head = iter->next_event;
			continue;
		default:
			if (ts)
				*ts = iter->read_stamp + event->time_delta;
			return event;
		}
	}
	RB_WARN_ON(cb->buffer, 1);
	return NULL;
}

struct ringbuf_iter *ringbuf_read_start(struct ringbuf *rb, int cpu)
{
	struct ringbuf_cpu *cb = rb_cpu(rb, cpu);
	struct ringbuf_iter *iter;

	if (!cb) {
		errno = EINVAL;
		return NULL;
	}
	iter = calloc(1, sizeof(*iter));
	if (iter)
		iter->event = malloc(rb->subbuf_size);
	if (!iter || !iter->event) {
		if (iter)
			free(iter);
		errno = ENOMEM;
		return NULL;
	}
	iter->rb = rb;
	iter->cb = cb;
	iter->event_size = rb->bsize;
	rb_iter_refill(iter);
	atomic_fetch_add_explicit(&rb->iterators, 1, memory_order_relaxed);
	/* Without the file's lock, as a read-only view: the iterator sees
	 * pages change under it and starts again. */
	if (rb_lock_may_look(rb_reader_lock(cb)))
		rb_iter_reset(iter);
	rb_reader_unlock(cb);
	return iter;
}

void ringbuf_read_finish(struct ringbuf_iter *iter)
{
	if (!iter)
		return;
	atomic_fetch_sub_explicit(&iter->rb->iterators, 1,
				  memory_order_relaxed);
	free(iter->event);
	free(iter);
}

struct ringbuf_event *ringbuf_iter_peek(struct ringbuf_iter *iter,
					uint64_t *ts)
{
	struct ringbuf_event *event;

	if (!iter)
		return NULL;
	event = NULL;
	if (rb_lock_may_look(rb_reader_lock(iter->cb)))
		event = rb_iter_peek(iter, ts);
	rb_reader_unlock(iter->cb);
	return event;
}

void ringbuf_iter_advance(struct ringbuf_iter *iter)
{
	struct ringbuf_event *event;

	if (!iter)
		return;
	event = NULL;
	if (rb_lock_may_look(rb_reader_lock(iter->cb)))
		event = rb_iter_peek(iter, NULL);
	if (event) {
		iter->read_stamp += event->time_delta;
		iter->head = iter->next_event;
	}
	rb_reader_unlock(iter->cb);
}

void ringbuf_iter_reset(struct ringbuf_iter *iter)
{
	if (!iter)
		return;
	/* asked for: a new iteration, with a new budget */
	rb_iter_refill(iter);
	iter->ended = false;
	if (rb_lock_may_look(rb_reader_lock(iter->cb)))
		rb_iter_reset(iter);
	rb_reader_unlock(iter->cb);
}

bool ringbuf_iter_empty(struct ringbuf_iter *iter)
{
	return !iter || !ringbuf_iter_peek(iter, NULL);
}

int ringbuf_iter_cpu(struct ringbuf_iter *iter)
{
	return iter ? iter->note_cpu : -1;
}

bool ringbuf_iter_dropped(struct ringbuf_iter *iter)
{
	bool ret;

	if (!iter)
		return false;
	ret = iter->missed_events;
	iter->missed_events = false;
	return ret;
}
