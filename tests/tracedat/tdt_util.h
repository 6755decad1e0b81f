/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tdt_util.h - what the trace.dat tests share: the "tdtest" event system
 * (format texts and payload builders), symbols and cmdlines, a builder of
 * pages by hand (every record kind, missed-event flags), a small complete
 * file, and a list of the records a file holds.
 */
#ifndef TDT_UTIL_H
#define TDT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracedat.h"

/* Event ids of the test formats. */
#define TDT_SAMPLE_ID 901
#define TDT_COUNTER_ID 902
#define TDT_PRINT_ID 5 /* ftrace:print */

/* tdtest/sample: u64 seq, int value, char name[16], __data_loc msg,
 * unsigned long ip (%ps). */
extern const char tdt_sample_fmt[];
/* tdtest/counter: unsigned int count, short level, unsigned char flag,
 * long long big. */
extern const char tdt_counter_fmt[];
/* ftrace/print: unsigned long ip, char buf[]. */
extern const char tdt_print_fmt[];

/* Symbols, out of order, one with a module; addresses below. */
extern const char tdt_kallsyms[];
#define TDT_SYM_A 0x401000ULL /* td_func_a */
#define TDT_SYM_MOD 0x400800ULL /* td_func_mod [tdmod] */
#define TDT_SYM_LAST 0x401800ULL /* send_reply, the highest */
/* "1001 alpha", "1002 beta gamma", "1003 worker-3". */
extern const char tdt_cmdlines[];

/* Payload builders: return the payload length written into @buf. */
size_t tdt_sample(void *buf, int pid, uint64_t seq, int value, const char *name,
		  const char *msg, uint64_t ip);
size_t tdt_counter(void *buf, int pid, unsigned int count, short level,
		   unsigned char flag, long long big);
size_t tdt_print(void *buf, int pid, uint64_t ip, const char *text);

/* ---- pages by hand --------------------------------------------------- */

struct tdt_page {
	unsigned char *p;
	unsigned int size; /* the whole page */
	unsigned int pos; /* data bytes used */
	uint64_t ts; /* time of the last record */
};

/* Start a page in @mem (zeroed) with time stamp @ts. */
void tdt_page_init(struct tdt_page *pg, void *mem, unsigned int size,
		   uint64_t ts);
/* Append records; each returns false (and appends nothing) if the page
 * has no room. */
bool tdt_page_data(struct tdt_page *pg, uint32_t delta, const void *payload,
		   size_t len);
bool tdt_page_extend(struct tdt_page *pg, uint64_t delta);
bool tdt_page_stamp(struct tdt_page *pg, uint64_t abs);
bool tdt_page_discard(struct tdt_page *pg, uint32_t delta, unsigned int bytes);
/* Set the commit and the missed-event flags: @missed 0 none, (uint64_t)-1
 * flag only, else the count stored after the data. */
void tdt_page_finish(struct tdt_page *pg, uint64_t missed);

/* ---- records of a file ------------------------------------------------ */

struct tdt_rec {
	int cpu;
	uint64_t ts;
	unsigned int len;
	unsigned long missed; /* of its page, on the page's first record */
	unsigned char data[512]; /* the first bytes of the payload */
};

struct tdt_recs {
	struct tdt_rec *v;
	size_t n;
	size_t cap;
};

void tdt_recs_add(struct tdt_recs *r, int cpu, uint64_t ts, const void *data,
		  unsigned int len, unsigned long missed);
void tdt_recs_free(struct tdt_recs *r);
/* Every record of @path through td_reader and td_page_for_each, cpu by
 * cpu; asserts that the file opens and every page decodes. */
void tdt_read_file(const char *path, struct tdt_recs *out);

/* Write a small complete file (2 cpus, hand-built pages of every record
 * kind, every section) to @path; returns its record count. */
size_t tdt_write_small(const char *path);

/* ---- version 7 files -------------------------------------------------- */

/*
 * In the version 7 file @b (@n bytes; our writer's, whose options
 * sections are not compressed): the offset of cpu @cpu's entry in the top
 * buffer's BUFFER option (a u64 offset of the cpu's data, the chunk
 * count, then a u64 size), or 0 when there is none.
 */
size_t tdt_v7_cpu_entry(const unsigned char *b, size_t n, int cpu);

/* A file's bytes (malloc'd; *n receives the size), and writing them. */
unsigned char *tdt_slurp(const char *path, size_t *n);
void tdt_spill(const char *path, const void *b, size_t n);

/* A fresh directory for a case's files (removed with tdt_rmdir). */
void tdt_mkdir(char *dir, size_t len);
void tdt_rmdir(const char *dir);

/* trace-cmd: its path or NULL when it is not installed. */
const char *tdt_trace_cmd(void);
/* Run a shell command, return its whole stdout (malloc'd) and exit status
 * in *status; asserts on failure to run. */
char *tdt_run(const char *cmd, int *status);

#endif
