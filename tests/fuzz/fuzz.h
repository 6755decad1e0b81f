/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz.h - what the fuzz targets, their corpus generator and the replay
 * driver share.
 *
 * An input of fuzz_attach (see fuzz_attach.c for the details) is one mode
 * byte followed by either a whole buffer file ("raw" mode) or a list of
 * six-byte patch operations applied to a valid buffer file built in
 * process ("patch" mode).
 */
#ifndef RBFZ_FUZZ_H
#define RBFZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry point of the target linked into the program. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- mode byte --------------------------------------------------------- */

/* Bits 0-1: 0 = raw (the rest of the input is the file), 1..3 = patch
 * the valid base image 0..2 with the operations that follow. */
#define RBFZ_MODE_BASE_MASK 0x03u
/* Bits 2-4: the order in which the view is drained (eight orders). */
#define RBFZ_MODE_ORDER_SHIFT 2
#define RBFZ_MODE_ORDER_MASK 0x1cu
/* Bit 5: attach through a read-only descriptor (a read-only view). */
#define RBFZ_MODE_RDONLY 0x20u
/* Bit 6: pass RINGBUF_ATTACH_FOREIGN. */
#define RBFZ_MODE_FOREIGN 0x40u
/* Bit 7: interleave consumes with the iterators. */
#define RBFZ_MODE_INTERLEAVE 0x80u

/* ---- patch operations --------------------------------------------------- */

/*
 * Six bytes: kind, sel, idx, how, v0, v1.
 *
 * kind bits 0-2 pick what is patched (RBFZ_OP_*), bit 7 makes the
 * operation "late": it is applied to the live file after attach
 * succeeded, at the boundary before drain phase (kind >> 5) & 3, as a
 * writer (or a hostile process) could change the file under the reader.
 * A late operation with bit 3 set is applied inside that phase instead,
 * at its first record checked and not yet copied out (the library's
 * RINGBUF_TP_READER_COPY): the file changes between a reader's check of
 * a record and its copy. A record operation so changes the record under
 * copy: its header (sel bit 0 clear) or its length word (set). With bit 4
 * set (and bit 3 clear) it is applied at the phase's first reader page
 * swap (RINGBUF_TP_READER_SWAP: the reader page spliced in, the swap's
 * cmpxchg not yet made).
 */
#define RBFZ_OP_SIZE 6
#define RBFZ_OP_LATE 0x80u
#define RBFZ_OP_MIDCOPY 0x08u
#define RBFZ_OP_MIDSWAP 0x10u
enum rbfz_op_kind {
	RBFZ_OP_META = 0,	/* struct rb_meta field sel */
	RBFZ_OP_CPU_META = 1,	/* struct rb_cpu_meta field sel of cpu idx */
	RBFZ_OP_PAGE_CTL = 2,	/* struct rb_page_ctl field sel of page idx */
	RBFZ_OP_PAGE_HDR = 3,	/* sub-buffer idx: time_stamp (sel even) or
				 * commit (sel odd) */
	RBFZ_OP_RECORD = 4,	/* a 32-bit word inside the committed data of
				 * sub-buffer idx, at word (sel | v1 << 8) */
	RBFZ_OP_BYTE = 5,	/* xor v1 into the byte at offset
				 * sel | idx << 8 | v0 << 16 */
	RBFZ_OP_LOCK = 6,	/* reader lock of cpu idx: sel bit 0 marks the
				 * lock's owner dead; with sel bit 1, field
				 * sel >> 2 after the mutex (swap_head, the
				 * adv_* progress record) changes */
	RBFZ_OP_NR = 7,
};

/*
 * "how" (the low three bits) says how a field's value changes:
 * 0: an interesting value (table index v0), 1: xor v0 | v1 << 8,
 * 2: add (int8_t)v0, 3: set to v0 | v1 << 8, 4: a link word to page
 * v0 % (nr_pages + 3) with flags v1 & 3, 5: flip bit v0, 6: set to
 * v0 << 24 | v1, 7: bitwise not.
 */
enum rbfz_how {
	RBFZ_HOW_INTERESTING = 0,
	RBFZ_HOW_XOR,
	RBFZ_HOW_ADD,
	RBFZ_HOW_SET,
	RBFZ_HOW_LINK,
	RBFZ_HOW_FLIP,
	RBFZ_HOW_HIGH,
	RBFZ_HOW_NOT,
};

/* ---- for the corpus generator and the replay driver --------------------- */

/* The valid base image @which (0..2), built on first use. */
const uint8_t *rbfz_base_image(unsigned int which, size_t *size);

/* The sel byte that names field @name for operation @kind, or -1. */
int rbfz_field(unsigned int kind, const char *name);

/* Counters of the fuzz_attach target since the program started. */
struct rbfz_stats {
	unsigned long inputs;	/* inputs run */
	unsigned long attached;	/* of which attach succeeded */
	unsigned long events;	/* events read, by every read path */
	unsigned long stuck;	/* cpu buffers given up as stuck */
	unsigned long known;	/* known issues passed over (RB_FUZZ_KNOWN) */
	unsigned long midcopy;	/* late operations applied at a record copy */
	unsigned long midswap;	/* ... at a reader page swap */
};
extern struct rbfz_stats rbfz_stats;

/* Where the target prints a problem before it aborts (default 2). */
extern int rbfz_report_fd;

#endif
