/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracing_map.h - the table of a hist trigger: a fixed-size open hash
 *	of keys to sums, lock-free on the write path (the kernel's
 *	kernel/trace/tracing_map.c, written again for a process)
 *
 * A map of 2^bits elements is a hash table of 2^(bits+1) entries (so it
 * never fills past half) and an array of 2^bits elements allocated when
 * the map is made. A writer hashes its key, probes linearly from the
 * hash's slot, and either finds the element of its key or claims an
 * empty entry with a cmpxchg of the hash into it, takes the next free
 * element with a fetch-add, copies the key in and publishes the element
 * with a release store. The sums of an element are atomic adds. Nothing
 * is allocated, locked or waited for on the write path: it runs in any
 * thread and in signal handlers. A key that finds no room (every
 * element taken, or the probe bound reached) is counted in @drops.
 *
 *	entry:  key (hash, 0 = free) | val (element, NULL until published)
 *	        ----------------------+-----------------------------------
 *	        0                     | NULL      free
 *	        h                     | NULL      claimed, being filled
 *	        h                     | elt       the element of a key of hash h
 *
 * Elements are never freed or moved while the map lives; clearing it
 * (tracing_map_clear()) is for a map no writer uses (the hist trigger
 * pauses and waits a grace period first).
 */
#ifndef RINGTRACE_TRACING_MAP_H
#define RINGTRACE_TRACING_MAP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACING_MAP_BITS_DEFAULT 11
#define TRACING_MAP_BITS_MAX 17
#define TRACING_MAP_BITS_MIN 7
#define TRACING_MAP_VALS_MAX 128 /* values, 2 sums per variable, the onmax()/onchange() slots */

/**
 * struct tracing_map_elt - one key and its sums
 * @key: map->key_size bytes, written before the element is published
 * @sums: map->n_vals sums, added to atomically
 */
struct tracing_map_elt {
	void *key;
	_Atomic uint64_t *sums;
};

struct tracing_map_entry {
	_Atomic uint32_t key;
	struct tracing_map_elt *_Atomic val;
};

/**
 * struct tracing_map - see the top of this file
 * @map_bits: log2 of @max_elts
 * @map_size: entries in @map (2 * @max_elts)
 * @max_elts: elements in @elts
 * @key_size: bytes of a key, a multiple of 8 (compared whole)
 * @n_vals: sums per element
 * @next_elt: the next free element (may run past @max_elts)
 * @drops: keys that found no room
 *
 * Userspace: no map-wide hit counter (the kernel's map->hits, one more
 * atomic add on a line every writer shares): a user of the map counts
 * its hits in a sum (the hist trigger's hitcount) and adds them up.
 */
struct tracing_map {
	unsigned int map_bits;
	unsigned int map_size;
	unsigned int max_elts;
	unsigned int key_size;
	unsigned int n_vals;
	struct tracing_map_entry *map;
	struct tracing_map_elt *elts;
	unsigned char *keys;
	_Atomic uint64_t *sums;
	_Atomic unsigned int next_elt;
	_Atomic uint64_t drops;
};

/* Context: control side; allocates. Return: the map, or NULL. */
struct tracing_map *tracing_map_create(unsigned int map_bits,
				       unsigned int key_size,
				       unsigned int n_vals);
void tracing_map_destroy(struct tracing_map *map);

/*
 * tracing_map_insert - the element of @key (map->key_size bytes), made
 * if it is not there.
 * Context: any, a signal handler included; lock-free and bounded.
 * Return: the element, or NULL (counted in map->drops).
 */
struct tracing_map_elt *tracing_map_insert(struct tracing_map *map,
					   const void *key);

/* Lookup only: the element of @key or NULL. Context: any. */
struct tracing_map_elt *tracing_map_lookup(struct tracing_map *map,
					   const void *key);

static inline void tracing_map_update_sum(struct tracing_map_elt *elt,
					  unsigned int i, uint64_t n)
{
	/* Relaxed: a sum orders nothing; readers take what was added. */
	atomic_fetch_add_explicit(&elt->sums[i], n, memory_order_relaxed);
}

static inline uint64_t tracing_map_read_sum(const struct tracing_map_elt *elt,
					    unsigned int i)
{
	return atomic_load_explicit(&elt->sums[i], memory_order_relaxed);
}

/* The published elements, in table order: *@out (malloc()ed) and their
 * number, or -ENOMEM. Context: any thread but a signal handler; the
 * writers may go on meanwhile. */
int tracing_map_entries(struct tracing_map *map,
			struct tracing_map_elt ***out);

/* Empty the map. Context: control side, no writer in the map. */
void tracing_map_clear(struct tracing_map *map);

#endif /* RINGTRACE_TRACING_MAP_H */
