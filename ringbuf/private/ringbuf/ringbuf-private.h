/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ringbuf/ringbuf-private.h - in-tree tier of libringbuf, for tests, the
 * benchmark and the tracer. Never installed.
 *
 * The test hooks and state inspection below exist only in the
 * "ringbuf_testhooks" static library, built with RINGBUF_TESTHOOKS; the
 * release library has neither the symbols nor the hook calls.
 */
#ifndef RINGBUF_RINGBUF_PRIVATE_H
#define RINGBUF_RINGBUF_PRIVATE_H

#include <ringbuf/ringbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum ringbuf_testpoint - places on the write and read paths where a test
 *	hook runs, as an interrupt could arrive there in the kernel
 */
enum ringbuf_testpoint {
	/* __rb_reserve_next: stamps and tail read (A), before_stamp not yet set (B) */
	RINGBUF_TP_RESERVE_A_B = 0,
	/* __rb_reserve_next: before_stamp set (B), space not yet reserved (C) */
	RINGBUF_TP_RESERVE_B_C,
	/* __rb_reserve_next: space reserved (C), write_stamp not yet set (D) */
	RINGBUF_TP_RESERVE_C_D,
	/* __rb_reserve_next slow path: before E (write_stamp re-read) */
	RINGBUF_TP_RESERVE_E,
	/* reserve done, event not yet committed */
	RINGBUF_TP_RESERVED,
	/* rb_move_tail: entered, before looking at the head page */
	RINGBUF_TP_MOVE_TAIL,
	/* rb_handle_head_page: HEAD->UPDATE done (or seen), new head not set */
	RINGBUF_TP_HEAD_UPDATE,
	/* rb_handle_head_page: new head set, old link not yet NORMAL */
	RINGBUF_TP_HEAD_NEW,
	/* rb_tail_page_update: next page's counters bumped, tail not moved */
	RINGBUF_TP_TAIL_UPDATE,
	/* rb_end_commit: before the commit page is moved */
	RINGBUF_TP_COMMIT,
	/* rb_end_commit: committing dropped, commits not yet re-checked */
	RINGBUF_TP_COMMIT_END,
	/* rb_get_reader_page: reader page spliced, before the swap cmpxchg */
	RINGBUF_TP_READER_SWAP,
	/* rb_get_reader_page: used-up reader page zeroed, its read index
	 * not yet (the swap not yet set up) */
	RINGBUF_TP_READER_RESET,
	/* ringbuf_reset_cpu: writers quiesced, the cpu buffer not yet reset
	 * (ringbuf_test_state() tells what the reset drops) */
	RINGBUF_TP_RESET_CPU,
	/* rb_move_tail: the next page is the head (link read), the commit
	 * page not yet looked at */
	RINGBUF_TP_MOVE_TAIL_HEAD,
	/* rb_handle_head_page: our HEAD->UPDATE done and its page counted
	 * (pages_lost), new head not set */
	RINGBUF_TP_HEAD_PUSHED,
	/* attach, the check of a cpu buffer's ring: a link read, the next
	 * not yet (reader lock held; writers run) */
	RINGBUF_TP_ATTACH_RING,
	/* rb_slot_cache_put: the thread's first slot key cleared and its
	 * slot_cb set, the new key not yet stored (the outermost write) */
	RINGBUF_TP_SLOT_CACHE,
	/* a record checked, not yet copied out: rb_event_copy() (consume,
	 * peek), ringbuf_read_page()'s record-by-record copy, the
	 * iterator's copy (its header copied already); reader lock held */
	RINGBUF_TP_READER_COPY,
	RINGBUF_TP_MAX
};

/** Called at a test point; @cpu is the cpu buffer concerned. */
typedef void (*ringbuf_test_hook_fn)(struct ringbuf *rb, int cpu,
				     enum ringbuf_testpoint tp, void *arg);

/**
 * ringbuf_test_set_hook - install (or with NULL remove) the test hook
 * @fn: the hook
 * @arg: passed to @fn
 *
 * Context: tests only; not thread-safe against writers.
 */
void ringbuf_test_set_hook(ringbuf_test_hook_fn fn, void *arg);

/** At RINGBUF_TP_READER_COPY: the record about to be copied out, in the
 * buffer's mapping (tests only). */
extern const void *ringbuf_test_copy_src;

/** Link flags as stored in a page's next link. */
#define RINGBUF_TEST_PAGE_HEAD 1u
#define RINGBUF_TEST_PAGE_UPDATE 2u

/**
 * struct ringbuf_test_state - the page-list state of one cpu buffer
 * @nr_pages: pages in the ring (the reader page excluded)
 * @head_page, @tail_page, @commit_page, @reader_page: page ids
 * @next, @flags: for each page id (nr_pages + 1 of them), the id its next
 *	link points to and the link's flag bits
 * @write, @commit: tail page write index and commit page commit index
 * @committing, @commits: writer nesting counters
 * @unread, @overrun, @torn: the counters as entries, overrun and torn
 *	events report them (read without the reader lock)
 */
struct ringbuf_test_state {
	unsigned int nr_pages;
	unsigned int head_page, tail_page, commit_page, reader_page;
	unsigned int next[64];
	unsigned int flags[64];
	unsigned long write, commit;
	unsigned long committing, commits;
	unsigned long unread, overrun, torn;
	unsigned long page_write[64], page_commit[64];
	unsigned long bytes;
};

/**
 * ringbuf_test_state - read the page-list state of a cpu buffer
 * @rb: the buffer
 * @cpu: the cpu buffer
 * @st: filled in (only the first 64 pages' links)
 *
 * Return: 0, or -EINVAL.
 */
int ringbuf_test_state(struct ringbuf *rb, int cpu,
		       struct ringbuf_test_state *st);

/**
 * ringbuf_test_check_pages - validate a cpu buffer's page list (the
 *	kernel's rb_check_pages): next/prev agree, exactly one HEAD or
 *	UPDATE flag, the reader page outside the ring
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Return: 0, or -EIO with a message on stderr.
 */
int ringbuf_test_check_pages(struct ringbuf *rb, int cpu);

/**
 * ringbuf_test_warned - whether RB_WARN_ON fired on @rb
 * @rb: the buffer
 */
bool ringbuf_test_warned(struct ringbuf *rb);

/**
 * ringbuf_test_set_cpu - force the CPU the calling thread's per-CPU
 *	writes start from (-1 restores the real CPU)
 * @cpu: the cpu buffer index
 */
void ringbuf_test_set_cpu(int cpu);

/**
 * ringbuf_test_set_wait_slice - the longest sleep of one round of
 * ringbuf_wait() when a writer's wake-up is expected (0: the library's)
 * @ms: milliseconds
 *
 * A test sets it far above its waits' times so that a lost wake-up
 * leaves the wait to its timeout instead of to the next round's look.
 *
 * Context: tests only; set it while no thread waits.
 */
void ringbuf_test_set_wait_slice(int ms);

#ifdef __cplusplus
}
#endif

#endif /* RINGBUF_RINGBUF_PRIVATE_H */
