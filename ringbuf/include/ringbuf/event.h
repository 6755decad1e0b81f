/* SPDX-License-Identifier: MIT */
/*
 * ringbuf/event.h - the on-page record format of libringbuf.
 *
 * This is the only layout the library makes public, and it is byte for
 * byte the Linux kernel's (include/linux/ring_buffer.h), so that pages
 * produced by ringbuf_read_page() decode with libtraceevent's kbuffer and
 * trace-cmd.
 *
 * A sub-buffer ("page") is:
 *
 *	off 0	u64	time_stamp	clock value of the page's first event
 *	off 8	u64	commit		bytes of committed data in data[]
 *					bit 31 RINGBUF_MISSED_EVENTS
 *					bit 30 RINGBUF_MISSED_STORED
 *	off 16	data[subbuf_size - 16]	records, 4-byte aligned
 *
 * A record starts with a 32-bit header, little endian:
 *
 *	type_len:5	see enum ringbuf_type below
 *	time_delta:27	clock delta to the previous record of the page
 */
#ifndef RINGBUF_EVENT_H
#define RINGBUF_EVENT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum ringbuf_type - the meaning of a record's type_len field
 * @RINGBUF_TYPE_DATA_TYPE_LEN_MAX: type_len 1..28: a data record whose
 *	payload is type_len * 4 bytes and starts at array[0].
 *	type_len 0: a data record whose payload length (plus 4) is in
 *	array[0] and whose payload starts at array[1]; used for payloads
 *	over 112 bytes.
 * @RINGBUF_TYPE_PADDING: time_delta 0: the rest of the page is empty.
 *	time_delta != 0: a discarded record or a CPU note (below); array[0]
 *	holds the number of bytes that follow the 4-byte header. Its delta
 *	counts, as a data record's.
 * @RINGBUF_TYPE_TIME_EXTEND: an 8-byte record extending the delta of the
 *	next record: delta = (array[0] << 27) | time_delta.
 * @RINGBUF_TYPE_TIME_STAMP: an 8-byte absolute time stamp, same layout;
 *	the next record's delta is relative to it.
 */
enum ringbuf_type {
	RINGBUF_TYPE_DATA_TYPE_LEN_MAX = 28,
	RINGBUF_TYPE_PADDING = 29,
	RINGBUF_TYPE_TIME_EXTEND = 30,
	RINGBUF_TYPE_TIME_STAMP = 31,
};

/** Bit 31 of a page's commit word: events were lost before this page. */
#define RINGBUF_MISSED_EVENTS (1UL << 31)
/** Bit 30 of a page's commit word: the lost count (u64) follows the data. */
#define RINGBUF_MISSED_STORED (1UL << 30)
/** Mask of a page's commit word that holds the byte count. */
#define RINGBUF_COMMIT_MASK ((1UL << 27) - 1)
/**
 * Bits 32..47 of the commit word of a page ringbuf_read_page() returns:
 * 0, or the CPU (+ 1) its records were written on up to its first CPU
 * note (a spare's page; see below). Readers of the kernel's format
 * (libtraceevent's kbuffer) mask the commit word with a 27-bit mask and
 * look at bits 30 and 31 only.
 */
#define RINGBUF_COMMIT_CPU_SHIFT 32
#define RINGBUF_COMMIT_CPU_MASK 0xffffULL

/** Size of the record header. */
#define RINGBUF_EVENT_HDR_SIZE 4u
/** Largest payload encoded in type_len (28 * 4 bytes). */
#define RINGBUF_MAX_SMALL_DATA 112u
/** Size of the data page header (time_stamp + commit). */
#define RINGBUF_PAGE_HDR_SIZE 16u

/*
 * A CPU note: a padding record whose array[1] is RINGBUF_NOTE_MAGIC and
 * array[2] a CPU number, at least RINGBUF_NOTE_SIZE bytes long (array[0]
 * says how long; the rest is filler). The records after it on the same
 * page, up to the next note, were written on that CPU.
 *
 * Writers put notes only where the buffer does not say the CPU: in the
 * spare buffers of a per-CPU ring, before the first record of each page
 * and whenever the writing CPU changes. A record of CPU buffer n, with no
 * note before it on its page, was written on CPU n; a record of a spare
 * with no note before it was written on a CPU nobody noted (-1).
 *
 * Readers that know nothing of notes see a discarded record and skip it
 * (libtraceevent's kbuffer, trace-cmd). A note never has time_delta 0,
 * which would end the page for a reader: one that starts a page has 1,
 * the page's time stamp being one less than its own.
 *
 * A page of ringbuf_read_page() does not start with a note: the note a
 * spare's page starts with goes into the page's commit word (bits 32 to
 * 47, RINGBUF_COMMIT_CPU_SHIFT), and the page starts with the record
 * after it, as kbuffer wants the first record of a page that lost
 * events before it (it reports the loss with a record at offset 0
 * only). ringbuf_page_cpu() reads it.
 */
/** array[1] of a CPU note ("CPU#", little endian). */
#define RINGBUF_NOTE_MAGIC 0x23555043u
/** Bytes of the smallest CPU note: header, length, magic, CPU. */
#define RINGBUF_NOTE_SIZE 16u

/* (flexible array members, which ISO C++ lacks and g++ and clang++
 * accept) */
#ifdef __cplusplus
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif

/**
 * struct ringbuf_event - one record in a page
 * @type_len: see enum ringbuf_type
 * @time_delta: delta to the previous record of the page
 * @array: payload, or for type_len 0 the length word then the payload
 *
 * The bit-field layout equals the kernel's on little-endian machines
 * (type_len in the 5 low bits), which is all this library supports.
 */
struct ringbuf_event {
	uint32_t type_len : 5, time_delta : 27;
	uint32_t array[];
};

/**
 * struct ringbuf_data_page - a sub-buffer as stored and as returned by
 *	ringbuf_read_page()
 * @time_stamp: clock value the first record's delta is relative to
 * @commit: bytes of data; RINGBUF_MISSED_* flags in bits 31 and 30
 * @data: the records
 */
struct ringbuf_data_page {
	uint64_t time_stamp;
	uint64_t commit;
	unsigned char data[];
};
#ifdef __cplusplus
#pragma GCC diagnostic pop
#endif

/**
 * ringbuf_page_cpu - the CPU the records of a ringbuf_read_page() page
 *	were written on, up to its first CPU note
 * @commit: the page's commit word
 *
 * Return: the CPU, or -1 when the word does not say (then the buffer
 * does: CPU buffer n's records were written on CPU n).
 */
static inline int ringbuf_page_cpu(uint64_t commit)
{
	return (int)((commit >> RINGBUF_COMMIT_CPU_SHIFT) &
		     RINGBUF_COMMIT_CPU_MASK) - 1;
}

/**
 * ringbuf_note_cpu - the CPU a CPU note names
 * @rec: a record, @room bytes of its page from its start on
 * @room: bytes readable at @rec (the page's committed data left)
 *
 * Return: the CPU (>= 0) if @rec is a well-formed CPU note that fits in
 * @room, else -1. Reads nothing past @room.
 */
static inline int ringbuf_note_cpu(const void *rec, unsigned long room)
{
	const unsigned char *p = (const unsigned char *)rec;
	uint32_t w[4];

	if (room < RINGBUF_NOTE_SIZE)
		return -1;
	for (int i = 0; i < 4; i++)
		w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
		       (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
	if ((w[0] & 0x1f) != RINGBUF_TYPE_PADDING ||
	    w[2] != RINGBUF_NOTE_MAGIC || w[1] < RINGBUF_NOTE_SIZE - 4 ||
	    w[1] % 4 || w[1] > room - 4 || (int32_t)w[3] < 0)
		return -1;
	return (int)w[3];
}

#ifdef __cplusplus
}
#endif

#endif /* RINGBUF_EVENT_H */
