/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbdecode.h - an independent decoder of the on-page record format
 * (ringbuf/event.h), written from the format description, used to check
 * pages returned by ringbuf_read_page().
 */
#ifndef RBT_RBDECODE_H
#define RBT_RBDECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rbd_kind {
	RBD_DATA,	/* type_len 0..28 */
	RBD_PAD_END,	/* PADDING, time_delta 0: rest of the page is empty */
	RBD_DISCARD,	/* PADDING, time_delta != 0 */
	RBD_EXTEND,	/* TIME_EXTEND */
	RBD_STAMP,	/* TIME_STAMP */
};

struct rbd_rec {
	enum rbd_kind kind;
	unsigned int type_len;
	unsigned int offset;	/* of the header, from the start of data[] */
	unsigned int size;	/* whole record, header included */
	uint32_t delta;		/* the header's time_delta field */
	uint64_t value;		/* EXTEND/STAMP: (array[0] << 27) | delta */
	uint64_t ts;		/* time after applying this record */
	const unsigned char *payload; /* DATA only */
	unsigned int len;	/* DATA: payload bytes (as the kernel reports) */
};

struct rbd_page {
	uint64_t time_stamp;
	uint64_t commit_word;
	unsigned int commit;	/* commit_word & RINGBUF_COMMIT_MASK */
	bool missed;		/* RINGBUF_MISSED_EVENTS */
	bool stored;		/* RINGBUF_MISSED_STORED */
	uint64_t missed_count;	/* valid when stored */
	unsigned int nrec;
	unsigned int ndata;
	struct rbd_rec recs[4096];
};

/*
 * Decode a page of @page_size bytes (header included). A discarded
 * record's time_delta is added to the running time (as libtraceevent's
 * kbuffer does) if @discard_adds_delta.
 * Return: 0, or -1 with a description in @err.
 */
int rbd_decode(const void *page, size_t page_size, bool discard_adds_delta,
	       struct rbd_page *out, char *err, size_t errlen);

/* Print the records of a decoded page to stderr (debugging aid). */
void rbd_dump(const struct rbd_page *p);

#ifdef __cplusplus
}
#endif

#endif
