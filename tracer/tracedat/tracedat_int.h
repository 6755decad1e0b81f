/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracedat_int.h - what the parts of rttracedat share: the file's magic,
 *	option ids and limits, and the byte helpers (tracedat.c: the
 *	writer; tracedat_decode.c: the page decoder; tracedat_read.c: the
 *	reader)
 */
#ifndef TRACEDAT_INT_H
#define TRACEDAT_INT_H

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ringbuf/event.h>

#include "tracedat.h"

/* The file's first bytes: magic, "tracing", the version string "6\0". */
static const unsigned char td_magic[10] = { 0x17, 0x08, 0x44, 't', 'r',
					    'a',  'c',	'i',  'n', 'g' };

/* Option ids (the values trace-cmd gives them). */
enum {
	TD_OPT_DONE = 0,
	TD_OPT_CPUSTAT = 2,
	TD_OPT_BUFFER = 3,
	TD_OPT_TRACECLOCK = 4,
	TD_OPT_UNAME = 5,
	TD_OPT_CPUCOUNT = 8,
	TD_OPT_VERSION = 9,
	/* version 7: a latency trace's text */
	TD_OPT_BUFFER_TEXT = 22,
	/* ours: the trace options the recording was made with */
	TD_OPT_RT_OPTIONS = 0x5254,
	/* ours: padding (td_writer_stream_header()); 0x5255 stays unused
	 * (a count of CPUs that the spares' CPUSTAT options now give) */
	TD_OPT_RT_PAD = 0x5256,
	/* ours: the functions' prototypes for funcgraph-args (fnproto.h) */
	TD_OPT_RT_PROTOS = 0x5257,
};

/*
 * The line of a spare's CPUSTAT option after its "CPU: n" line: what the
 * cpu is for trace-cmd report --stat, and for our reader where the spares
 * start (an option of our own would make libtracecmd warn "unknown
 * option" in KernelShark and trace-cmd dump).
 */
#define TD_SPARE_LINE "spare: "

/* Longest clock name td_writer_set_clock() takes. */
#define TD_CLOCK_MAX 64

/* The end line td_writer_set_kallsyms() adds after the last symbol. */
#define TD_KALLSYMS_END "ffffffffffffffff T _etext\n"

/* Chunk of one copy_file_range() or pread()/pwrite() step. */
#define TD_COPY_CHUNK (1u << 20)

/* Pages of a cpu written together: up to this many bytes. */
#define TD_STAGE_BYTES (256u << 10)

/* How much a shifting writer reserves at a time for a cpu's pages. */
#define TD_GROW_MIN (16ull << 20)
#define TD_GROW_MAX (64ull << 20)

/*
 * A sparse writer's first reservation per cpu: TD_SPARSE_SPAN shared by
 * the cpu buffers, from TD_GROW_MIN to TD_SPARSE_MAX each. A hole costs
 * neither memory nor disk, only file offsets, so the reservations are
 * large: a cpu outgrows its first one only past 1 GiB (with up to 64 cpu
 * buffers), which a recording of a few seconds does not reach, and each
 * time it does the data of the cpus after it is copied up. A reservation
 * then doubles, so a cpu that ends with N bytes made them move at most
 * log2(N / first reservation) times. The span keeps the file's apparent
 * size, before the close removes the holes, within what any reader can
 * map (64 GiB for up to 64 cpu buffers, 16 MiB each past 4096).
 */
#define TD_SPARSE_SPAN (64ull << 30)
#define TD_SPARSE_MAX (1ull << 30)


/**
 * td_page_size_ok - whether a page size is one a file may have
 * @page_size: the size
 *
 * Context: any thread.
 * Return: true for a power of two from TD_MIN_PAGE_SIZE to
 * TD_MAX_PAGE_SIZE.
 */
static inline bool td_page_size_ok(uint64_t page_size)
{
	return page_size >= TD_MIN_PAGE_SIZE && page_size <= TD_MAX_PAGE_SIZE &&
	       !(page_size & (page_size - 1));
}

/**
 * td_get32 - read a little-endian u32
 * @p: the bytes (any alignment)
 *
 * Context: any thread.
 * Return: the value.
 */
static inline uint32_t td_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/**
 * td_get64 - read a little-endian u64
 * @p: the bytes (any alignment)
 *
 * Context: any thread.
 * Return: the value.
 */
static inline uint64_t td_get64(const unsigned char *p)
{
	return (uint64_t)td_get32(p) | (uint64_t)td_get32(p + 4) << 32;
}

/**
 * td_put64 - write a little-endian u64
 * @p: where (any alignment)
 * @v: the value
 *
 * Context: any thread.
 */
static inline void td_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/**
 * td_clock_of - the bracketed word of a trace_clock text
 * @text: the text, e.g. "local [mono] boot"
 *
 * Context: any thread.
 * Return: a copy of the word, or NULL (none, or no memory).
 */
static inline char *td_clock_of(const char *text)
{
	const char *o = strchr(text, '['), *e;

	if (!o)
		return NULL;
	e = strchr(o + 1, ']');
	if (!e || e == o + 1)
		return NULL;
	return strndup(o + 1, (size_t)(e - o - 1));
}

/* v7 section ids (the options that point to them have the same ids). */
enum {
	TD_SEC_OPTIONS = 0,
	TD_SEC_HEADER = 16,
	TD_SEC_FTRACE = 17,
	TD_SEC_EVENTS = 18,
	TD_SEC_KALLSYMS = 19,
	TD_SEC_PRINTK = 20,
	TD_SEC_CMDLINES = 21,
};

/* Section flags: the section is compressed. */
#define TD_SEC_COMPRESSED 1u

#endif /* TRACEDAT_INT_H */
