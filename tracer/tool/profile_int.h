/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_int.h - what the selection (profile_sel.c) and the summaries
 *	(profile.c) share
 */
#ifndef RTT_PROFILE_INT_H
#define RTT_PROFILE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"

/* Deepest call a record may claim; deeper ones are taken as corrupt. */
#define RTT_MAX_DEPTH 100000

/**
 * struct rtt_map - open addressing, linear probing; key 0 is stored aside
 * @keys: the keys (0: free slot)
 * @vals: their values
 * @cap: slots (a power of two)
 * @nr: keys stored in the slots
 * @zero: the value of key 0, or -1
 */
struct rtt_map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap;
	size_t nr;
	int64_t zero;
};

void rtt_map_free(struct rtt_map *m);
/*
 * The index of @key's entry in the array @v (@nr entries of @size bytes,
 * @cap allocated), a zeroed entry added for a new key. Return: the index
 * (*@added says whether it is new), or -1 (out of memory).
 */
int64_t rtt_map_index(struct rtt_map *m, void **v, size_t *nr, size_t *cap,
		      size_t size, uint64_t key, bool *added);
/* Grow an array of @size-byte elements to hold index @i; false: no
 * memory. */
bool rtt_grow(void **v, size_t *cap, size_t i, size_t size);

/**
 * struct rtt_grec - what a function record says
 * @tid: the thread
 * @func: the function
 * @depth: its depth (function_graph), -1 for a function tracer record
 * @exit: a return record
 * @time: a return's call time (return time less call time)
 */
struct rtt_grec {
	int tid;
	unsigned long func;
	int depth;
	bool exit;
	uint64_t time;
};

/* Decode a function record; false for any other record. */
bool rtt_grec(const void *data, unsigned int len, struct rtt_grec *g);
/* Whether a glob of @globs names the function at @addr (cached). */
bool rtt_func_match(struct rtt_map *cache, const struct rtt_syms *syms,
		    const char *const *globs, int n, unsigned long addr);

#endif
