// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat_decode.c - the page decoder: the records of one trace.dat (or
 *	ring buffer) page (see tracedat.h)
 */
#include "tracedat_int.h"

/* ------------------------------------------------------------------ */
/* Page decoder                                                        */

int td_page_for_each(const void *page, unsigned int page_size,
		     void (*cb)(const struct td_record *rec, void *arg),
		     unsigned long *missed, void *arg)
{
	const unsigned char *pg = page, *data;
	unsigned long lost = 0;
	uint64_t ts, word, pos = 0, size, avail;
	int on_cpu; /* what the page's commit word, or the last CPU note, names */

	if (missed)
		*missed = 0;
	if (!page || page_size < RINGBUF_PAGE_HDR_SIZE)
		return -EINVAL;
	data = pg + RINGBUF_PAGE_HDR_SIZE;
	avail = page_size - RINGBUF_PAGE_HDR_SIZE;
	ts = td_get64(pg);
	word = td_get64(pg + 8);
	size = word & RINGBUF_COMMIT_MASK;
	on_cpu = ringbuf_page_cpu(word);
	if (size > avail)
		return -EPROTO;
	if (word & RINGBUF_MISSED_EVENTS) {
		lost = TD_MISSED_UNKNOWN;
		if (word & RINGBUF_MISSED_STORED) {
			/* the count is a long right after the data */
			if (avail - size < 8)
				return -EPROTO;
			lost = (unsigned long)td_get64(data + size);
		}
	}
	if (missed)
		*missed = lost;

	while (pos < size) {
		uint64_t left = size - pos, len, val;
		int note;
		struct td_record rec;
		unsigned int type_len, delta;
		uint32_t hdr, a0;

		if (left < RINGBUF_EVENT_HDR_SIZE)
			return -EPROTO;
		hdr = td_get32(data + pos);
		type_len = hdr & 0x1f;
		delta = hdr >> 5;
		/* array[0]: the length word, or the high bits of a time */
		a0 = left >= 8 ? td_get32(data + pos + 4) : 0;

		switch (type_len) {
		case RINGBUF_TYPE_PADDING:
			/* delta 0: nothing follows on this page */
			if (!delta)
				return 0;
			/*
			 * A discarded record or a CPU note: array[0] bytes
			 * follow the header. Its delta stays in the running
			 * time, as the records written after it were stamped
			 * relative to it (libtraceevent adds it too).
			 */
			if (left < 8 || a0 > left - 4)
				return -EPROTO;
			note = ringbuf_note_cpu(data + pos, left);
			if (note >= 0)
				on_cpu = note;
			ts += delta;
			pos += 4 + (uint64_t)a0;
			continue;
		case RINGBUF_TYPE_TIME_EXTEND:
		case RINGBUF_TYPE_TIME_STAMP:
			if (left < 8)
				return -EPROTO;
			val = ((uint64_t)a0 << 27) | delta;
			if (type_len == RINGBUF_TYPE_TIME_EXTEND)
				ts += val;
			else
				ts = (ts & ~((1ULL << 59) - 1)) | val;
			pos += 8;
			continue;
		case 0:
			/* array[0] = payload length + 4, payload at array[1] */
			if (left < 8 || a0 < 4)
				return -EPROTO;
			len = ((uint64_t)a0 - 4 + 3) & ~(uint64_t)3;
			if (len > left - 8)
				return -EPROTO;
			rec.data = data + pos + 8;
			pos += 8 + len;
			break;
		default:
			len = (uint64_t)type_len * 4;
			if (len > left - 4)
				return -EPROTO;
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
	}
	return 0;
}
