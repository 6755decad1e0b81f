// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * page.c - walk the records of one sub-buffer in the kernel's page
 * format (ringbuf/event.h), as returned by ringbuf_read_page() and by the
 * kernel's per_cpu/cpuN/trace_pipe_raw.
 */
#include <string.h>

#include <ringbuf/event.h>

#include "bench.h"

static uint32_t load32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * expect_payload: the payload every data record should carry (as written;
 * compared with the record size the ring buffer makes of it); 0 accepts
 * any size.
 */
void bench_parse_page(const void *page, size_t page_size,
		      unsigned int expect_payload, struct page_stats *st)
{
	const struct ringbuf_data_page *dp = page;
	const unsigned char *p = dp->data;
	const unsigned char *start = dp->data;
	size_t cap = page_size - RINGBUF_PAGE_HDR_SIZE;
	uint64_t commit = dp->commit;
	size_t len = (size_t)(commit & RINGBUF_COMMIT_MASK);
	const unsigned char *end;

	if (commit & RINGBUF_MISSED_EVENTS)
		st->missed = true;
	if (len > cap) {
		st->corrupt = true;
		len = cap;
	}
	end = start + len;
	if ((commit & RINGBUF_MISSED_STORED) && len + 8 <= cap) {
		uint64_t lost;

		memcpy(&lost, end, sizeof(lost));
		st->lost += lost;
	}

	while (p + RINGBUF_EVENT_HDR_SIZE <= end) {
		uint32_t hdr = load32(p);
		unsigned int type_len = hdr & 31u;
		uint32_t delta = hdr >> 5;
		size_t size, payload;

		if (type_len == RINGBUF_TYPE_PADDING) {
			if (delta == 0)
				break;	/* the rest of the page is empty */
			if (p + 8 > end) {
				st->corrupt = true;
				break;
			}
			size = RINGBUF_EVENT_HDR_SIZE + load32(p + 4);
		} else if (type_len == RINGBUF_TYPE_TIME_EXTEND ||
			   type_len == RINGBUF_TYPE_TIME_STAMP) {
			size = 8;
		} else {
			if (type_len == 0) {
				if (p + 8 > end) {
					st->corrupt = true;
					break;
				}
				/* array[0] counts itself and the payload */
				payload = load32(p + 4);
				if (payload < 4) {
					st->corrupt = true;
					break;
				}
				size = RINGBUF_EVENT_HDR_SIZE + payload;
				payload -= 4;
			} else {
				payload = type_len * 4u;
				size = RINGBUF_EVENT_HDR_SIZE + payload;
			}
			st->events++;
			st->bytes += size;
			if (st->mark && payload >= 8) {
				uint64_t word;

				memcpy(&word, p + (type_len == 0 ? 8 : RINGBUF_EVENT_HDR_SIZE),
				       sizeof(word));
				st->mark(st->mark_ctx, word);
			}
			if (st->check_seq && payload >= 8) {
				uint64_t seq;
				size_t off = type_len == 0 ? 8 : RINGBUF_EVENT_HDR_SIZE;

				memcpy(&seq, p + off, sizeof(seq));
				if (st->last_seq && seq != st->last_seq + 1) {
					st->seq_gaps++;
					if (seq > st->last_seq)
						st->seq_missing += seq - st->last_seq - 1;
					if (!st->first_gap_at)
						st->first_gap_at = st->events;
				}
				st->last_seq = seq;
			}
			if (expect_payload && payload != bench_record_payload(expect_payload))
				st->bad++;
		}
		if (size < RINGBUF_EVENT_HDR_SIZE || size > (size_t)(end - p)) {
			st->corrupt = true;
			break;
		}
		p += size;
	}
}
