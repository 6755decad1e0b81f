// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracing_map.c - the lock-free table of the hist triggers (see
 *	tracing_map.h), after the kernel's kernel/trace/tracing_map.c
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tracing_map.h"

/* Element @i of @map's blocks */
static inline struct tracing_map_elt *tracing_map_elt_at(struct tracing_map *map,
							 unsigned int i)
{
	return (struct tracing_map_elt *)(void *)(map->data +
						  (size_t)i * map->stride);
}

struct tracing_map *tracing_map_create(unsigned int map_bits,
				       unsigned int key_size,
				       unsigned int n_vals)
{
	struct tracing_map *map;
	unsigned int i;

	if (map_bits < TRACING_MAP_BITS_MIN || map_bits > TRACING_MAP_BITS_MAX ||
	    !key_size || key_size % 8 || !n_vals ||
	    n_vals > TRACING_MAP_VALS_MAX)
		return NULL;
	map = calloc(1, sizeof(*map));
	if (!map)
		return NULL;
	map->map_bits = map_bits;
	map->max_elts = 1u << map_bits;
	map->map_size = 2u * map->max_elts;
	map->key_size = key_size;
	map->n_vals = n_vals;
	map->shift = 32 - (map_bits + 1);
	/* the element, its sums, its key: the line(s) a hit reads */
	map->stride = sizeof(struct tracing_map_elt) +
		      (size_t)n_vals * sizeof(uint64_t) + key_size;
	map->map = calloc(map->map_size, sizeof(*map->map));
	map->data = calloc(map->max_elts, map->stride);
	if (!map->map || !map->data) {
		tracing_map_destroy(map);
		return NULL;
	}
	for (i = 0; i < map->max_elts; i++) {
		struct tracing_map_elt *elt = tracing_map_elt_at(map, i);

		elt->key = (void *)&elt->sums[n_vals];
	}
	return map;
}

void tracing_map_destroy(struct tracing_map *map)
{
	if (!map)
		return;
	free(map->map);
	free(map->data);
	free(map);
}

/*
 * The kernel's __tracing_map_insert(). Steps:
 *   A: load the entry's hash
 *   B: a hash of ours: load the element (acquire); ours when its key is
 *	ours. NULL means a writer claimed the entry at C and has not
 *	reached E: the key may be ours, so look again (bounded)
 *   C: a free entry: claim it with a cmpxchg of our hash
 *   D: take a free element (fetch-add), copy the key in
 *   E: publish the element (release)
 * A writer that loses C to another key's writer goes on probing; one
 * that loses it to a writer of the same key finds that writer's element
 * at B once E is done. Two writers of one key can therefore not both
 * insert it: both claim at C the first free entry of the probe sequence,
 * and only one cmpxchg succeeds.
 */
static __attribute__((no_instrument_function)) struct tracing_map_elt *
__tracing_map_insert(struct tracing_map *map, const void *key, uint32_t hash,
		     bool lookup)
{
	unsigned int idx = hash >> map->shift;
	uint32_t test;
	unsigned int probes = 0, dup_try = 0;
	struct tracing_map_elt *val;

	while (probes < map->map_size) {
		struct tracing_map_entry *e = &map->map[idx];

		/* A. Relaxed: the hash only selects; the element is read
		 * with the acquire load at B. */
		test = atomic_load_explicit(&e->key, memory_order_relaxed);
		if (test == hash) {
			/* B. Acquire: pairs with the release store at E, so
			 * that the key copied at D is seen. */
			val = atomic_load_explicit(&e->val, memory_order_acquire);
			if (val &&
			    tracing_map_keys_match(val->key, key, map->key_size))
				return val;
			if (!val) {
				/* being filled: bounded, as the kernel's
				 * dup_try; the writer at D..E is one
				 * memcpy away (or interrupted by us: a
				 * signal handler on its thread, then the
				 * bound drops this key) */
				if (++dup_try > map->map_size)
					break;
				continue;
			}
		} else if (test == 0) {
			if (lookup)
				return NULL;
			/* Full: no claim (which would only be given back).
			 * Relaxed: a stale count only costs a claim undone
			 * below. */
			if (atomic_load_explicit(&map->next_elt,
						 memory_order_relaxed) >=
			    map->max_elts)
				break;
			/* C. Relaxed: the claim orders nothing by itself;
			 * E publishes. A failure means another writer
			 * took the entry: look at it again. */
			if (atomic_compare_exchange_strong_explicit(
				    &e->key, &test, hash, memory_order_relaxed,
				    memory_order_relaxed)) {
				/* D. Relaxed: only makes each element
				 * taken once. */
				unsigned int i = atomic_fetch_add_explicit(
					&map->next_elt, 1,
					memory_order_relaxed);

				if (i >= map->max_elts) {
					/* no element: give the entry back,
					 * as the kernel's; a writer of this
					 * hash waiting at B goes on. next_elt
					 * stays past the end: the check above
					 * keeps further claims (and the
					 * counter's growth) out. Relaxed:
					 * nothing was published. */
					atomic_store_explicit(
						&e->key, 0,
						memory_order_relaxed);
					break;
				}
				val = tracing_map_elt_at(map, i);
				memcpy(val->key, key, map->key_size);
				/* E. Release: the key before the element;
				 * pairs with the acquire load at B and in
				 * tracing_map_entries(). */
				atomic_store_explicit(&e->val, val,
						      memory_order_release);
				return val;
			}
			if (++dup_try > map->map_size)
				break;
			continue;
		}
		idx = (idx + 1) & (map->map_size - 1);
		probes++;
	}
	if (!lookup)
		atomic_fetch_add_explicit(&map->drops, 1, memory_order_relaxed);
	return NULL;
}

__attribute__((no_instrument_function)) struct tracing_map_elt *
tracing_map_insert_slow(struct tracing_map *map, const void *key,
			uint32_t hash)
{
	return __tracing_map_insert(map, key, hash, false);
}

__attribute__((no_instrument_function)) struct tracing_map_elt *
tracing_map_lookup(struct tracing_map *map, const void *key)
{
	return __tracing_map_insert(map, key,
				    tracing_map_hash(key, map->key_size), true);
}

int tracing_map_entries(struct tracing_map *map, struct tracing_map_elt ***out)
{
	struct tracing_map_elt **v = malloc(map->max_elts * sizeof(*v));
	unsigned int i;
	int n = 0;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	for (i = 0; i < map->map_size && n < (int)map->max_elts; i++) {
		/* Acquire: pairs with the release store at E of
		 * __tracing_map_insert(): the key is there. */
		struct tracing_map_elt *e = atomic_load_explicit(
			&map->map[i].val, memory_order_acquire);

		if (e)
			v[n++] = e;
	}
	*out = v;
	return n;
}

void tracing_map_clear(struct tracing_map *map)
{
	unsigned int i;

	for (i = 0; i < map->map_size; i++) {
		atomic_store_explicit(&map->map[i].key, 0, memory_order_relaxed);
		atomic_store_explicit(&map->map[i].val, NULL,
				      memory_order_relaxed);
	}
	for (i = 0; i < map->max_elts; i++) {
		unsigned int k;

		for (k = 0; k < map->n_vals; k++)
			atomic_store_explicit(&tracing_map_elt_at(map, i)->sums[k],
					      0, memory_order_relaxed);
		memset(tracing_map_elt_at(map, i)->key, 0, map->key_size);
	}
	atomic_store_explicit(&map->next_elt, 0, memory_order_relaxed);
	atomic_store_explicit(&map->drops, 0, memory_order_relaxed);
}
