/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tu.h - helpers shared by the ringbuf tests: buffer creation, payloads
 * that carry their own sequence number and check pattern, expected
 * record sizes, and collecting what the readers return.
 */
#ifndef RBT_TU_H
#define RBT_TU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ringbuf/ringbuf.h>
#ifdef RINGBUF_TESTHOOKS
#include <ringbuf/ringbuf-private.h>
#endif

#include "test.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Data bytes of an order-0 sub-buffer (4096 - the 16-byte header). */
#define TU_PAGE_DATA 4080u
/* Bytes to ask for to get exactly @n order-0 sub-buffers, whichever way
 * the library rounds (by data bytes or by whole sub-buffers). */
#define TU_PAGES(n) ((size_t)(n) * TU_PAGE_DATA)

/* Create a buffer: @pages order-0 sub-buffers per cpu; asserts success. */
struct ringbuf *tu_create(size_t pages, unsigned int flags, int nr_cpus,
			  int model);

/* Payload format: len >= 8: u32 seq, u32 len, then pattern bytes; shorter
 * payloads are pattern bytes only. The pattern depends on seq and index. */
void tu_fill(void *buf, uint32_t seq, size_t len);
uint8_t tu_pattern(uint32_t seq, size_t i);
uint32_t tu_seq(const void *payload); /* payload of len >= 8 */
uint32_t tu_len(const void *payload); /* payload of len >= 8 */
/* ringbuf_write() of a tu_fill() payload; returns what ringbuf_write did. */
int tu_write(struct ringbuf *rb, uint32_t seq, size_t len);
/* Same, asserting success. */
void tu_write_ok(struct ringbuf *rb, uint32_t seq, size_t len);
/* Reserve, fill, and return the event (not committed); asserts success. */
struct ringbuf_event *tu_reserve_ok(struct ringbuf *rb, uint32_t seq,
				    size_t len);
/* Assert @payload/@evlen is what tu_fill(seq, len) wrote. */
#define tu_check(payload, evlen, seq, len) \
	tu_check_at(__FILE__, __LINE__, payload, evlen, seq, len)
void tu_check_at(const char *file, int line, const void *payload,
		 unsigned int evlen, uint32_t seq, size_t len);

/* The kernel's encoding of a payload of @len bytes. */
unsigned int tu_event_len(size_t len);   /* ringbuf_event_length() */
unsigned int tu_record_size(size_t len); /* bytes on the page */
unsigned int tu_type_len(size_t len);    /* the header's type_len */

/* One event as a reader returned it. */
struct tu_ev {
	uint64_t ts;
	uint32_t seq;	 /* from the payload (0 if len < 8) */
	uint32_t len;	 /* ringbuf_event_length() */
	int cpu;
	uint64_t hash;	 /* FNV-1a of the len payload bytes */
	unsigned long lost;
};
uint64_t tu_hash(const void *p, size_t n);
void tu_ev_from(struct tu_ev *e, struct ringbuf_event *ev, uint64_t ts,
		int cpu);

/* Drain @cpu with ringbuf_consume(); returns the number of events. */
size_t tu_consume_all(struct ringbuf *rb, int cpu, struct tu_ev *out,
		      size_t max);
/* Read @cpu with a fresh iterator; returns the number of events. */
size_t tu_iter_all(struct ringbuf *rb, int cpu, struct tu_ev *out,
		   size_t max);
/* Drain every cpu: returns the total number of events consumed. */
size_t tu_drain(struct ringbuf *rb);
/* Assert two event lists are equal (ts, len, payload). */
#define tu_assert_same(a, na, b, nb) \
	tu_assert_same_at(__FILE__, __LINE__, a, na, b, nb)
void tu_assert_same_at(const char *file, int line, const struct tu_ev *a,
		       size_t na, const struct tu_ev *b, size_t nb);

/* Sum of a per-cpu counter over every cpu. */
unsigned long tu_sum(struct ringbuf *rb,
		     unsigned long (*fn)(struct ringbuf *, int));

#ifdef RINGBUF_TESTHOOKS
/* Assert every cpu buffer's page list is valid and no RB_WARN_ON fired,
 * and that the state agrees with an idle writer. */
#define tu_check_rb(rb) tu_check_rb_at(__FILE__, __LINE__, rb)
void tu_check_rb_at(const char *file, int line, struct ringbuf *rb);
/* Validate the page-list state of one cpu buffer independently of
 * ringbuf_test_check_pages(). @idle: no writer is mid-write. */
void tu_check_state_at(const char *file, int line, struct ringbuf *rb,
		       int cpu, bool idle);
#define tu_check_state(rb, cpu, idle) \
	tu_check_state_at(__FILE__, __LINE__, rb, cpu, idle)
#endif

/* Run fn(arg) on a new thread and wait for it. */
void tu_run_thread(void *(*fn)(void *), void *arg);

/* Pin the calling thread to the CPU it is on; returns that CPU. */
int tu_pin_here(void);

#ifdef __cplusplus
}
#endif

#endif
