/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rbdecode.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <ringbuf/event.h>

static int bad(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

int rbd_decode(const void *page, size_t page_size, bool discard_adds_delta,
	       struct rbd_page *out, char *err, size_t errlen)
{
	const unsigned char *base = page;
	const unsigned char *data = base + RINGBUF_PAGE_HDR_SIZE;
	size_t data_size = page_size - RINGBUF_PAGE_HDR_SIZE;
	unsigned int pos = 0;
	uint64_t ts;

	memset(out, 0, offsetof(struct rbd_page, recs));
	out->time_stamp = rd64(base);
	out->commit_word = rd64(base + 8);
	out->commit = (unsigned int)(out->commit_word & RINGBUF_COMMIT_MASK);
	out->missed = (out->commit_word & RINGBUF_MISSED_EVENTS) != 0;
	out->stored = (out->commit_word & RINGBUF_MISSED_STORED) != 0;
	/* bits 32..47: the CPU of a spare page's first records */
	if (out->commit_word >> 48)
		return bad(err, errlen, "commit word 0x%" PRIx64
			   " has bits above 47", out->commit_word);
	if (out->commit_word & 0xffffffffULL &
	    ~(RINGBUF_COMMIT_MASK | RINGBUF_MISSED_EVENTS |
	      RINGBUF_MISSED_STORED))
		return bad(err, errlen, "commit word 0x%" PRIx64
			   " has unknown flag bits", out->commit_word);
	if (out->commit > data_size)
		return bad(err, errlen, "commit %u beyond the page data (%zu)",
			   out->commit, data_size);
	if (out->stored) {
		if (!out->missed)
			return bad(err, errlen, "MISSED_STORED without "
				   "MISSED_EVENTS");
		if (out->commit + 8 > data_size)
			return bad(err, errlen, "MISSED_STORED but no room "
				   "for the count after commit %u", out->commit);
		out->missed_count = rd64(data + out->commit);
	}

	ts = out->time_stamp;
	while (pos < out->commit) {
		struct rbd_rec *r;
		uint32_t hdr, a0 = 0;
		unsigned int type_len, delta;

		if (out->nrec >= sizeof(out->recs) / sizeof(out->recs[0]))
			return bad(err, errlen, "too many records");
		if (pos % 4)
			return bad(err, errlen, "record at %u not aligned", pos);
		if (pos + 4 > out->commit)
			return bad(err, errlen, "header at %u crosses commit %u",
				   pos, out->commit);
		hdr = rd32(data + pos);
		type_len = hdr & 31u;
		delta = hdr >> 5;
		if (pos + 8 <= data_size)
			a0 = rd32(data + pos + 4);
		r = &out->recs[out->nrec];
		memset(r, 0, sizeof(*r));
		r->type_len = type_len;
		r->offset = pos;
		r->delta = delta;

		switch (type_len) {
		case RINGBUF_TYPE_PADDING:
			if (delta == 0) {
				r->kind = RBD_PAD_END;
				r->size = out->commit - pos;
				r->ts = ts;
				out->nrec++;
				return 0;
			}
			r->kind = RBD_DISCARD;
			if (pos + 8 > out->commit)
				return bad(err, errlen, "discard record at %u "
					   "has no length word before commit",
					   pos);
			r->size = 4 + a0;
			if (a0 < 4 || a0 % 4)
				return bad(err, errlen, "discard record at %u "
					   "has bad length %u", pos, a0);
			if (discard_adds_delta)
				ts += delta;
			break;
		case RINGBUF_TYPE_TIME_EXTEND:
		case RINGBUF_TYPE_TIME_STAMP:
			r->kind = type_len == RINGBUF_TYPE_TIME_EXTEND ?
					  RBD_EXTEND : RBD_STAMP;
			r->size = 8;
			if (pos + 8 > out->commit)
				return bad(err, errlen, "time record at %u "
					   "crosses commit", pos);
			r->value = ((uint64_t)a0 << 27) | delta;
			if (r->kind == RBD_EXTEND)
				ts += r->value;
			else
				ts = (ts & ~((1ULL << 59) - 1)) | r->value;
			break;
		case 0:
			r->kind = RBD_DATA;
			if (pos + 8 > out->commit)
				return bad(err, errlen, "long data record at "
					   "%u crosses commit", pos);
			if (a0 < 4 + RINGBUF_MAX_SMALL_DATA || a0 % 4)
				return bad(err, errlen, "long data record at %u:"
					   " bad length word %u", pos, a0);
			r->size = 4 + a0;
			r->len = a0 - 4;
			r->payload = data + pos + 8;
			ts += delta;
			out->ndata++;
			break;
		default: /* 1..28 */
			r->kind = RBD_DATA;
			r->len = type_len * 4;
			r->size = 4 + r->len;
			r->payload = data + pos + 4;
			ts += delta;
			out->ndata++;
			break;
		}
		if (pos + r->size > out->commit)
			return bad(err, errlen, "record at %u (type_len %u, "
				   "size %u) crosses commit %u", pos, type_len,
				   r->size, out->commit);
		r->ts = ts;
		pos += r->size;
		out->nrec++;
	}
	return 0;
}

void rbd_dump(const struct rbd_page *p)
{
	static const char *const kinds[] = { "DATA", "PAD_END", "DISCARD",
					     "EXTEND", "STAMP" };
	unsigned int i;

	fprintf(stderr, "page ts=%" PRIu64 " commit=%u missed=%d stored=%d "
			"count=%" PRIu64 " nrec=%u\n",
		p->time_stamp, p->commit, p->missed, p->stored, p->missed_count,
		p->nrec);
	for (i = 0; i < p->nrec; i++) {
		const struct rbd_rec *r = &p->recs[i];

		fprintf(stderr, "  @%-5u %-7s tl=%-2u size=%-4u delta=%-9u "
				"value=%-12" PRIu64 " ts=%" PRIu64 " len=%u\n",
			r->offset, kinds[r->kind], r->type_len, r->size,
			r->delta, r->value, r->ts, r->len);
	}
}
