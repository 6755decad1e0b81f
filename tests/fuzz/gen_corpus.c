// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gen_corpus.c - write the seed corpus of fuzz_attach (corpus/attach/).
 *
 * Usage: gen_corpus <attach-dir> <page-dir>
 *
 * The raw seeds carry a whole file and so the layout of the library that
 * made them: run this again (cmake --build ... --target gen_corpus, then
 * gen_corpus tests/fuzz/corpus/attach) when the layout changes, or the
 * "valid" raw seed only exercises the attach refusal. The patch seeds
 * name fields and apply to base images built by the running library, so
 * they follow the layout by themselves. The page seeds (fuzz_page) are
 * records in the public format of <ringbuf/event.h>.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "fuzz.h"

static const char *dir;

static void put(const char *name, const uint8_t *a, size_t na,
		const uint8_t *b, size_t nb)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(a, 1, na, f) != na ||
	    (nb && fwrite(b, 1, nb, f) != nb) || fclose(f)) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* A raw seed: mode byte @mode, then @img[0 .. @size). */
static void raw(const char *name, uint8_t mode, const uint8_t *img,
		size_t size)
{
	put(name, &mode, 1, img, size);
}

struct ops {
	uint8_t b[1 + 16 * RBFZ_OP_SIZE];
	size_t n;
};

static void ops_init(struct ops *o, uint8_t mode)
{
	o->b[0] = mode;
	o->n = 1;
}

static void op(struct ops *o, unsigned int kind, int sel, unsigned int idx,
	       unsigned int how, unsigned int v0, unsigned int v1)
{
	uint8_t *p = o->b + o->n;

	if (sel < 0) {
		fprintf(stderr, "gen_corpus: a field is gone from the layout\n");
		exit(1);
	}
	p[0] = (uint8_t)kind;
	p[1] = (uint8_t)sel;
	p[2] = (uint8_t)idx;
	p[3] = (uint8_t)how;
	p[4] = (uint8_t)v0;
	p[5] = (uint8_t)v1;
	o->n += RBFZ_OP_SIZE;
}

/* A late operation, applied before drain phase @phase. */
static unsigned int late(unsigned int kind, unsigned int phase)
{
	return kind | RBFZ_OP_LATE | (phase & 3u) << 5;
}

/* ---- page seeds: a mode byte, the loss byte, a time stamp, records */

struct page_seed {
	uint8_t b[512];
	size_t n;
};

static void ps_init(struct page_seed *p, uint8_t mode, uint8_t lost,
		    uint64_t ts)
{
	p->b[0] = mode;
	p->b[1] = lost;
	memcpy(p->b + 2, &ts, 8);
	p->n = 10;
}

static void ps_word(struct page_seed *p, uint32_t w)
{
	memcpy(p->b + p->n, &w, 4);
	p->n += 4;
}

static void ps_hdr(struct page_seed *p, unsigned int type_len,
		   uint32_t delta)
{
	ps_word(p, (type_len & 31u) | delta << 5);
}

/* A data record of @len payload bytes (a multiple of 4). */
static void ps_data(struct page_seed *p, unsigned int len, uint32_t delta)
{
	if (len <= RINGBUF_MAX_SMALL_DATA && len) {
		ps_hdr(p, len / 4, delta);
	} else {
		ps_hdr(p, 0, delta);
		ps_word(p, len + 4);
	}
	for (unsigned int i = 0; i < len; i += 4)
		ps_word(p, 0x01020304u * (i / 4 + 1));
}

static void page_seeds(void)
{
	struct page_seed p;

	/* Small records, a whole page. */
	ps_init(&p, 0x00, 0, 1000);
	for (unsigned int i = 1; i <= 8; i++)
		ps_data(&p, 4 * i, 10 * i);
	put("data-small", p.b, p.n, NULL, 0);

	/* A long record and a discarded one, the writer on the page, with
	 * half-page reads and lost events. */
	ps_init(&p, 0x03, 0x80 | 5, 5000);
	ps_data(&p, 200, 3);
	ps_hdr(&p, RINGBUF_TYPE_PADDING, 7); /* 16 bytes in all */
	ps_word(&p, 12);
	ps_word(&p, 0);
	ps_word(&p, 0);
	ps_data(&p, 8, 1);
	put("long-discard-lost", p.b, p.n, NULL, 0);

	/* A time extend and a time stamp before data, short reads. */
	ps_init(&p, 0x04, 0, 1ull << 40);
	ps_hdr(&p, RINGBUF_TYPE_TIME_EXTEND, 5);
	ps_word(&p, 3);
	ps_data(&p, 16, 0);
	ps_hdr(&p, RINGBUF_TYPE_TIME_STAMP, 100);
	ps_word(&p, 9);
	ps_data(&p, 4, 2);
	ps_data(&p, 120, 2);
	put("extend-stamp-short", p.b, p.n, NULL, 0);

	/* Closing padding with real_end, a full page asked first, then
	 * alternating lengths. */
	ps_init(&p, 0x08 | 0x10 | 0x06, 0x80 | 1, 77);
	ps_data(&p, 40, 1);
	ps_data(&p, 116, 2);
	ps_hdr(&p, RINGBUF_TYPE_PADDING, 0);
	ps_word(&p, 0);
	put("padding-real-end", p.b, p.n, NULL, 0);
}

int main(int argc, char **argv)
{
	const uint8_t *img0;
	uint8_t *copy;
	size_t size0;
	struct ops o;

	if (argc != 3) {
		fprintf(stderr, "usage: %s <attach-dir> <page-dir>\n",
			argv[0]);
		return 2;
	}
	dir = argv[1];
	img0 = rbfz_base_image(0, &size0);
	copy = malloc(size0);
	if (!img0 || !copy)
		return 1;

	/* ---- raw: the whole file in the input (4 KiB sub-buffers, two
	 * cpu buffers of two pages plus the reader page) */
	raw("raw-valid", 0x00, img0, size0);
	raw("raw-truncated", 0x04, img0, size0 - 3 * 4096 - 100);
	memcpy(copy, img0, size0);
	copy[0] ^= 0xff;
	raw("raw-bad-magic", 0x08, copy, size0);
	{
		const struct rb_meta *m = (const struct rb_meta *)img0;
		struct rb_page_ctl *p;

		memcpy(copy, img0, size0);
		p = (struct rb_page_ctl *)(copy + m->page_ctl_off) + 1;
		atomic_store(&p->next, rb_link(7, RB_PAGE_NORMAL));
		raw("raw-link-out-of-range", 0x0c, copy, size0);
	}

	/* ---- patch: the base images as they are, each drain order once */
	for (unsigned int b = 0; b < 3; b++)
		for (unsigned int order = 0; order < 8; order += 3) {
			char name[64];

			snprintf(name, sizeof(name), "patch-base%u-order%u", b,
				 order);
			ops_init(&o, (uint8_t)((b + 1) | order << 2));
			put(name, o.b, o.n, NULL, 0);
		}
	ops_init(&o, 0x01 | RBFZ_MODE_RDONLY);
	put("patch-base0-rdonly", o.b, o.n, NULL, 0);
	ops_init(&o, 0x02 | RBFZ_MODE_INTERLEAVE | 3 << 2);
	put("patch-base1-interleave", o.b, o.n, NULL, 0);
	ops_init(&o, 0x03 | RBFZ_MODE_FOREIGN | RBFZ_MODE_INTERLEAVE);
	put("patch-base2-foreign-interleave", o.b, o.n, NULL, 0);

	/* ---- patch: refused at attach */
	ops_init(&o, 0x01);
	op(&o, RBFZ_OP_META, rbfz_field(RBFZ_OP_META, "magic"), 0,
	   RBFZ_HOW_XOR, 0xff, 0);
	put("patch-bad-magic", o.b, o.n, NULL, 0);
	ops_init(&o, 0x01);
	op(&o, RBFZ_OP_PAGE_CTL, rbfz_field(RBFZ_OP_PAGE_CTL, "next"), 4,
	   RBFZ_HOW_LINK, 4, RB_PAGE_HEAD);
	put("patch-link-out-of-range", o.b, o.n, NULL, 0);
	ops_init(&o, 0x02);
	op(&o, RBFZ_OP_CPU_META, rbfz_field(RBFZ_OP_CPU_META, "nr_pages"), 1,
	   RBFZ_HOW_ADD, 1, 0);
	put("patch-bad-geometry", o.b, o.n, NULL, 0);
	ops_init(&o, 0x03);
	op(&o, RBFZ_OP_META, rbfz_field(RBFZ_OP_META, "version"), 0,
	   RBFZ_HOW_ADD, 1, 0);
	put("patch-bad-version", o.b, o.n, NULL, 0);

	/* ---- patch: accepted, then wrong where the readers look */
	ops_init(&o, 0x01);
	op(&o, RBFZ_OP_PAGE_HDR, rbfz_field(RBFZ_OP_PAGE_HDR, "commit"), 0,
	   RBFZ_HOW_SET, 0xf0, 0x0f);
	op(&o, RBFZ_OP_PAGE_HDR, rbfz_field(RBFZ_OP_PAGE_HDR, "commit"), 1,
	   RBFZ_HOW_ADD, 0xfc, 0);
	put("patch-commit-sizes", o.b, o.n, NULL, 0);
	ops_init(&o, 0x01 | 1 << 2);
	op(&o, RBFZ_OP_RECORD, 0, 2, 0 /* type_len */, 0, 0);
	op(&o, RBFZ_OP_RECORD, 1, 2, 4 /* length word */, 200, 0);
	op(&o, RBFZ_OP_RECORD, 5, 0, 5 /* header */, 3, 29);
	put("patch-records", o.b, o.n, NULL, 0);
	ops_init(&o, 0x02);
	op(&o, RBFZ_OP_CPU_META, rbfz_field(RBFZ_OP_CPU_META, "entries"), 0,
	   RBFZ_HOW_NOT, 0, 0);
	op(&o, RBFZ_OP_CPU_META, rbfz_field(RBFZ_OP_CPU_META, "lost_events"),
	   1, RBFZ_HOW_HIGH, 0xff, 1);
	put("patch-counters", o.b, o.n, NULL, 0);
	ops_init(&o, 0x03);
	op(&o, RBFZ_OP_LOCK, 3, 1, RBFZ_HOW_SET, 1, 0);
	put("patch-dead-reader-swap", o.b, o.n, NULL, 0);
	ops_init(&o, 0x01 | 5 << 2);
	op(&o, RBFZ_OP_LOCK,
	   1 | 2 | rbfz_field(RBFZ_OP_LOCK, "adv_valid") << 2, 0,
	   RBFZ_HOW_SET, 1, 0);
	op(&o, RBFZ_OP_LOCK, 2 | rbfz_field(RBFZ_OP_LOCK, "adv_to") << 2, 0,
	   RBFZ_HOW_SET, 0x40, 0);
	op(&o, RBFZ_OP_LOCK, 2 | rbfz_field(RBFZ_OP_LOCK, "adv_read") << 2, 0,
	   RBFZ_HOW_SET, 3, 0);
	put("patch-dead-reader-progress", o.b, o.n, NULL, 0);

	/* ---- patch: the writer is gone (no such pid): attach repairs */
	ops_init(&o, 0x01 | 1 << 2);
	op(&o, RBFZ_OP_META, rbfz_field(RBFZ_OP_META, "creator_pid"), 0,
	   RBFZ_HOW_HIGH, 0x7f, 0xf0);
	put("patch-writer-gone", o.b, o.n, NULL, 0);
	ops_init(&o, 0x02 | 2 << 2);
	op(&o, RBFZ_OP_META, rbfz_field(RBFZ_OP_META, "creator_pid"), 0,
	   RBFZ_HOW_HIGH, 0x7f, 0xf0);
	op(&o, RBFZ_OP_PAGE_CTL, rbfz_field(RBFZ_OP_PAGE_CTL, "next"), 1,
	   RBFZ_HOW_LINK, 2, RB_PAGE_UPDATE);
	op(&o, RBFZ_OP_PAGE_CTL, rbfz_field(RBFZ_OP_PAGE_CTL, "write"), 0,
	   RBFZ_HOW_SET, 0xf8, 0x0f);
	put("patch-writer-gone-mid-move", o.b, o.n, NULL, 0);

	/* ---- patch: changed after attach, under the reader */
	ops_init(&o, 0x01);
	op(&o, late(RBFZ_OP_CPU_META, 1),
	   rbfz_field(RBFZ_OP_CPU_META, "head_page"), 0, RBFZ_HOW_SET, 7, 0);
	op(&o, late(RBFZ_OP_CPU_META, 2),
	   rbfz_field(RBFZ_OP_CPU_META, "reader_page"), 1, RBFZ_HOW_SET, 9,
	   0);
	put("late-page-ids", o.b, o.n, NULL, 0);
	ops_init(&o, 0x01 | 2 << 2);
	op(&o, late(RBFZ_OP_PAGE_CTL, 0), rbfz_field(RBFZ_OP_PAGE_CTL, "next"),
	   3, RBFZ_HOW_LINK, 4, RB_PAGE_HEAD);
	op(&o, late(RBFZ_OP_PAGE_CTL, 1), rbfz_field(RBFZ_OP_PAGE_CTL, "prev"),
	   0, RBFZ_HOW_SET, 0, 1);
	put("late-links", o.b, o.n, NULL, 0);
	ops_init(&o, 0x03 | 4 << 2);
	op(&o, late(RBFZ_OP_PAGE_HDR, 0),
	   rbfz_field(RBFZ_OP_PAGE_HDR, "commit"), 2, RBFZ_HOW_SET, 0xff, 0xff);
	op(&o, late(RBFZ_OP_CPU_META, 2),
	   rbfz_field(RBFZ_OP_CPU_META, "commit_page"), 0, RBFZ_HOW_SET, 0,
	   1);
	put("late-commit", o.b, o.n, NULL, 0);
	/* a record rewritten between a reader's check and its copy, in
	 * every phase (RBFZ_OP_MIDCOPY): a long-form header with a length
	 * word of 64 KiB; zeros */
	ops_init(&o, 0x01);
	for (unsigned int p = 0; p < 4; p++) {
		op(&o, late(RBFZ_OP_RECORD, p) | RBFZ_OP_MIDCOPY, 0, 0,
		   0 /* type_len */, 0, 0);
		op(&o, late(RBFZ_OP_RECORD, p) | RBFZ_OP_MIDCOPY, 1, 0,
		   4 /* length word */, 0xff, 0xff);
	}
	put("midcopy-length", o.b, o.n, NULL, 0);
	ops_init(&o, 0x02 | 3 << 2);
	for (unsigned int p = 0; p < 4; p++) {
		op(&o, late(RBFZ_OP_RECORD, p) | RBFZ_OP_MIDCOPY, 0, 0,
		   6 /* zero */, 0, 0);
		op(&o, late(RBFZ_OP_RECORD, p) | RBFZ_OP_MIDCOPY, 1, 0,
		   6 /* zero */, 0, 0);
	}
	put("midcopy-zero", o.b, o.n, NULL, 0);
	/* the ring rewritten in the middle of a reader page swap (the
	 * reader page spliced in, the swap's cmpxchg not yet made), in
	 * every phase (RBFZ_OP_MIDSWAP) */
	ops_init(&o, 0x01 | 1 << 2);
	for (unsigned int p = 0; p < 4; p++) {
		op(&o, late(RBFZ_OP_PAGE_CTL, p) | RBFZ_OP_MIDSWAP,
		   rbfz_field(RBFZ_OP_PAGE_CTL, "next"), p + 1, RBFZ_HOW_LINK,
		   p, RB_PAGE_HEAD);
		op(&o, late(RBFZ_OP_CPU_META, p) | RBFZ_OP_MIDSWAP,
		   rbfz_field(RBFZ_OP_CPU_META, "head_page"), 0, RBFZ_HOW_SET,
		   p + 2, 0);
		op(&o, late(RBFZ_OP_PAGE_HDR, p) | RBFZ_OP_MIDSWAP,
		   rbfz_field(RBFZ_OP_PAGE_HDR, "commit"), p, RBFZ_HOW_SET,
		   0xff, 0xff);
	}
	put("midswap-ring", o.b, o.n, NULL, 0);
	/* the header's offsets, which attach checked, rewritten and a
	 * resize announced: the view keeps what it derived */
	ops_init(&o, 0x01);
	op(&o, late(RBFZ_OP_META, 0), rbfz_field(RBFZ_OP_META, "cpu_meta_off"),
	   0, RBFZ_HOW_HIGH, 0x41, 0x41);
	op(&o, late(RBFZ_OP_META, 0), rbfz_field(RBFZ_OP_META, "cpu_meta_size"),
	   0, RBFZ_HOW_SET, 0x07, 0x00);
	op(&o, late(RBFZ_OP_META, 0), rbfz_field(RBFZ_OP_META, "page_ctl_off"),
	   0, RBFZ_HOW_NOT, 0, 0);
	op(&o, late(RBFZ_OP_META, 0), rbfz_field(RBFZ_OP_META, "data_off"), 0,
	   RBFZ_HOW_XOR, 0x08, 0x00);
	op(&o, late(RBFZ_OP_META, 0), rbfz_field(RBFZ_OP_META, "lock_off"), 0,
	   RBFZ_HOW_HIGH, 0x7f, 0x03);
	op(&o, late(RBFZ_OP_META, 0), rbfz_field(RBFZ_OP_META, "layout_gen"),
	   0, RBFZ_HOW_ADD, 1, 0);
	put("late-header-offsets", o.b, o.n, NULL, 0);
	ops_init(&o, 0x02 | 3 << 2);
	op(&o, late(RBFZ_OP_CPU_META, 1),
	   rbfz_field(RBFZ_OP_CPU_META, "nr_pages"), 0, RBFZ_HOW_HIGH, 0xff,
	   0x01);
	op(&o, late(RBFZ_OP_META, 1), rbfz_field(RBFZ_OP_META, "map_size"), 0,
	   RBFZ_HOW_NOT, 0, 0);
	op(&o, late(RBFZ_OP_META, 1), rbfz_field(RBFZ_OP_META, "layout_gen"),
	   0, RBFZ_HOW_ADD, 1, 0);
	put("late-header-geometry", o.b, o.n, NULL, 0);

	free(copy);

	dir = argv[2];
	page_seeds();
	return 0;
}
