// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat_decode.c - the page decoder: the records of one trace.dat (or
 *	ring buffer) page (see tracedat.h)
 */
#include "tracedat_int.h"

/* ------------------------------------------------------------------ */
/* Page decoder                                                        */

/*
 * The page's header: its time stamp, commit word and data size (at most
 * what the page holds), and what it says was lost before it (0,
 * TD_MISSED_UNKNOWN or the count stored after the data). Return: 0 or
 * -EPROTO.
 */
static inline __attribute__((always_inline)) int
td_page_head(const unsigned char *pg, unsigned int page_size, uint64_t *ts,
	     uint64_t *word, uint64_t *size, unsigned long *lost)
{
	const unsigned char *data = pg + RINGBUF_PAGE_HDR_SIZE;
	uint64_t avail = page_size - RINGBUF_PAGE_HDR_SIZE;

	*ts = td_get64(pg);
	*word = td_get64(pg + 8);
	*size = *word & RINGBUF_COMMIT_MASK;
	*lost = 0;
	if (*size > avail)
		return -EPROTO;
	if (*word & RINGBUF_MISSED_EVENTS) {
		*lost = TD_MISSED_UNKNOWN;
		if (*word & RINGBUF_MISSED_STORED) {
			/* the count is a long right after the data */
			if (avail - *size < 8)
				return -EPROTO;
			*lost = (unsigned long)td_get64(data + *size);
		}
	}
	return 0;
}

/*
 * The walk of both: @cb called for each record (td_page_for_each()), or
 * with @counting the records counted into @count (td_page_count()). Inlined into each
 * with its constant arguments, so that the count's walk computes no time
 * and calls nothing per record.
 */
static inline __attribute__((always_inline)) int
td_page_walk(const void *page, unsigned int page_size,
	     void (*cb)(const struct td_record *rec, void *arg),
	     unsigned long *missed, void *arg, bool counting,
	     struct td_count *count)
{
	const unsigned char *pg = page, *data;
	unsigned long lost = 0;
	uint64_t ts, word, pos = 0, size;
	int on_cpu; /* what the page's commit word, or the last CPU note, names */
	struct td_count c = { 0, 0, { -1, -1, -1 } };
	int ret = 0;

	if (missed)
		*missed = 0;
	if (!page || page_size < RINGBUF_PAGE_HDR_SIZE)
		return -EINVAL;
	data = pg + RINGBUF_PAGE_HDR_SIZE;
	ret = td_page_head(pg, page_size, &ts, &word, &size, &lost);
	if (ret)
		return ret;
	on_cpu = ringbuf_page_cpu(word);
	if (missed)
		*missed = lost;
	if (counting)
		c = *count;

	while (pos < size) {
		uint64_t left = size - pos, len, val;
		int note;
		struct td_record rec;
		unsigned int type_len, delta;
		uint32_t hdr, a0;

		if (left < RINGBUF_EVENT_HDR_SIZE) {
			ret = -EPROTO;
			goto out;
		}
		hdr = td_get32(data + pos);
		type_len = hdr & 0x1f;
		delta = hdr >> 5;
		/* array[0]: the length word, or the high bits of a time */
		a0 = left >= 8 ? td_get32(data + pos + 4) : 0;

		switch (type_len) {
		case RINGBUF_TYPE_PADDING:
			/* delta 0: nothing follows on this page */
			if (!delta)
				goto out;
			/*
			 * A discarded record or a CPU note: array[0] bytes
			 * follow the header. Its delta stays in the running
			 * time, as the records written after it were stamped
			 * relative to it (libtraceevent adds it too).
			 */
			if (left < 8 || a0 > left - 4) {
				ret = -EPROTO;
				goto out;
			}
			note = ringbuf_note_cpu(data + pos, left);
			if (note >= 0)
				on_cpu = note;
			ts += delta;
			pos += 4 + (uint64_t)a0;
			continue;
		case RINGBUF_TYPE_TIME_EXTEND:
		case RINGBUF_TYPE_TIME_STAMP:
			if (left < 8) {
				ret = -EPROTO;
				goto out;
			}
			val = ((uint64_t)a0 << 27) | delta;
			if (type_len == RINGBUF_TYPE_TIME_EXTEND)
				ts += val;
			else
				ts = (ts & ~((1ULL << 59) - 1)) | val;
			pos += 8;
			continue;
		case 0:
			/* array[0] = payload length + 4, payload at array[1] */
			if (left < 8 || a0 < 4) {
				ret = -EPROTO;
				goto out;
			}
			len = ((uint64_t)a0 - 4 + 3) & ~(uint64_t)3;
			if (len > left - 8) {
				ret = -EPROTO;
				goto out;
			}
			rec.data = data + pos + 8;
			pos += 8 + len;
			break;
		default:
			len = (uint64_t)type_len * 4;
			if (len > left - 4) {
				ret = -EPROTO;
				goto out;
			}
			rec.data = data + pos + 4;
			pos += 4 + len;
			break;
		}
		ts += delta;
		rec.ts = ts;
		rec.len = (unsigned int)len;
		rec.cpu = on_cpu;
		if (cb)
			cb(&rec, arg);
		if (counting) {
			uint16_t type = 0;

			/* the record's type, in the writer's byte order */
			if (len >= sizeof(type))
				memcpy(&type, rec.data, sizeof(type));
			c.records++;
			/* (an unused slot is -1, no type) */
			c.matched += len >= sizeof(type) &&
				     (type == c.types[0] || type == c.types[1] ||
				      type == c.types[2]);
		}
	}
out:
	/* counted in a copy of its own, which stays in registers */
	if (counting)
		*count = c;
	return ret;
}

int td_page_for_each(const void *page, unsigned int page_size,
		     void (*cb)(const struct td_record *rec, void *arg),
		     unsigned long *missed, void *arg)
{
	return td_page_walk(page, page_size, cb, missed, arg, false, NULL);
}

int td_page_missed(const void *page, unsigned int page_size,
		   unsigned long *missed)
{
	uint64_t ts, word, size;

	if (!page || page_size < RINGBUF_PAGE_HDR_SIZE || !missed)
		return -EINVAL;
	return td_page_head(page, page_size, &ts, &word, &size, missed);
}

int td_page_count(const void *page, unsigned int page_size,
		  struct td_count *count, unsigned long *missed)
{
	if (!count)
		return -EINVAL;
	return td_page_walk(page, page_size, NULL, missed, NULL, true, count);
}
