/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracing_map.h - the table of a hist trigger: a fixed-size open hash
 *	of keys to sums, lock-free on the write path (the kernel's
 *	kernel/trace/tracing_map.c, written again for a process)
 *
 * A map of 2^bits elements is a hash table of 2^(bits+1) entries (so it
 * never fills past half) and an array of 2^bits elements allocated when
 * the map is made. A writer hashes its key and probes linearly from the
 * hash's slot: an entry of its hash whose element holds its key is its
 * key's; a free entry ends the probe, and the writer takes the next free
 * element (a fetch-add), copies its key in, and claims the entry with a
 * cmpxchg of the hash and the element's index together, which publishes
 * the element. Nothing is allocated, locked or waited for on the write
 * path: it runs in any thread and in signal handlers. A key that finds
 * no room (every element taken) is counted in @drops.
 *
 *	entry (64 bits):  hash (32, never 0) | element index (32)
 *	                  0                     free
 *	                  h | i                 element i, of a key of hash h
 *
 * Userspace: the kernel claims the entry with the hash first and sets
 * its element after, so that a writer of the same hash meeting the entry
 * in between waits for it, a bounded number of times, then drops its
 * record; and an entry claimed when no element is left is freed again,
 * which can hide a key inserted past it. A preempted writer makes that
 * wait long here, so the element comes first and the claim publishes
 * both: no entry is ever half made or freed while writers run, and
 * records are dropped only once the elements are all taken. A key can
 * still get in after that: a writer that took one of the last elements
 * and was preempted before its claim publishes its key late, and that
 * key's records written meanwhile are dropped (the kernel's writer runs
 * with preemption off there). The price: two writers
 * inserting one key at once both take an element, and the loser's stays
 * unused (counted in @wasted) unless no element was taken after it and
 * it is not the map's last (tracing_map_put_back()).
 *
 * An element's sums and key lie side by side in its block (@data), so
 * that a hit reads the entry and the element's block; the probe's first
 * entry is tried inline (tracing_map_probe_insert()), the rest of the
 * probe out of line (tracing_map_insert_slow()).
 *
 * The values a writer adds up (the first @n_sums sums of an element: the
 * hist trigger's hitcount and values) go to the writing thread's own
 * copy of them, one of TRACING_MAP_THREAD_SLOTS per map, with an add
 * that is atomic against the thread's signal handlers only (the
 * kernel's local_t, ringbuf_fe_local_add(): no LOCK prefix on x86-64);
 * a reader sums the element's sums and every slot's
 * (tracing_map_read_sum()). A thread takes its slot at its first count
 * and keeps it for its life; the threads that find every slot taken add
 * to the element's own sums with atomic adds, as the kernel's
 * tracing_map_update_sum() always does.
 *
 * Userspace: the kernel's map has no per-thread sums (its per-cpu data
 * is for the variables of the elements, its sums are atomic64_t): here
 * the lock-prefixed add of each value was most of a hit's cost.
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
#include <string.h>

#include <ringbuf/frontend.h>

#define TRACING_MAP_BITS_DEFAULT 11
#define TRACING_MAP_BITS_MAX 17
#define TRACING_MAP_BITS_MIN 7
#define TRACING_MAP_VALS_MAX 128 /* values, 2 sums per variable, the onmax()/onchange() slots */
/* Threads with their own copy of the summed values (see above) */
#define TRACING_MAP_THREAD_SLOTS 16

/**
 * struct tracing_map_elt - one key and its sums, in one block
 * @key: map->key_size bytes right after the sums, written before the
 *	element is published
 * @sums: map->n_vals sums (in the block: no load between an element and
 *	its sums); the first map->n_sums are added up, the others stored
 *	(variables, onmax() slots)
 */
struct tracing_map_elt {
	void *key;
	_Atomic uint64_t sums[];
};

struct tracing_map_entry {
	_Atomic uint64_t word; /* hash << 32 | element index, 0 = free */
};

/**
 * struct tracing_map - see the top of this file
 * @map_bits: log2 of @max_elts
 * @map_size: entries in @map (2 * @max_elts)
 * @max_elts: elements in @data
 * @key_size: bytes of a key, a multiple of 8 (compared whole)
 * @n_vals: sums per element
 * @shift: 32 - (@map_bits + 1): a hash's top bits pick its first entry
 * @data: the elements (struct tracing_map_elt, their sums and key),
 *	@stride bytes each
 * @next_elt: the next free element (may run past @max_elts)
 * @drops: keys that found no room
 * @wasted: elements taken by a writer that lost its key's insertion to
 *	another writer of the key, and left unused
 * @n_sums: the sums of an element that are added up (its first ones)
 * @tsums: the threads' copies of them: TRACING_MAP_THREAD_SLOTS slots of
 *	@tslot_words words (@n_sums per element, element by element); a
 *	slot is written by its thread alone (mapped: @tsums_size bytes,
 *	pages touched only where a thread counts)
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
	unsigned int shift;
	struct tracing_map_entry *map;
	size_t stride;
	unsigned char *data;
	_Atomic unsigned int next_elt;
	_Atomic uint64_t drops;
	_Atomic unsigned int wasted;
	unsigned int n_sums;
	uint64_t *tsums;
	size_t tslot_words, tsums_size;
};

/* Context: control side; allocates. @n_sums: the first sums of @n_vals
 * that writers add up (at least 1). Return: the map, or NULL. */
struct tracing_map *tracing_map_create(unsigned int map_bits,
				       unsigned int key_size,
				       unsigned int n_vals,
				       unsigned int n_sums);
void tracing_map_destroy(struct tracing_map *map);

/* Whether keys @a and @b (@size bytes, a multiple of 8) are equal */
static inline __attribute__((always_inline, no_instrument_function)) bool
tracing_map_keys_match(const void *a, const void *b, unsigned int size)
{
	const unsigned char *x = a, *y = b;
	unsigned int i;

	if (__builtin_expect(size == 8, 1))
		return !memcmp(a, b, 8);
	for (i = 0; i < size; i += 8) {
		uint64_t u, v;

		memcpy(&u, x + i, 8);
		memcpy(&v, y + i, 8);
		if (u != v)
			return false;
	}
	return true;
}

/* A 32-bit hash of the key, never 0 (0 marks a free entry). The keys are
 * whole multiples of 8 bytes (tracing_map_create() checks). */
static inline __attribute__((always_inline, no_instrument_function)) uint32_t
tracing_map_hash(const void *key, unsigned int size)
{
	const unsigned char *p = key;
	uint64_t h = size, w;
	unsigned int i;

	/* a multiply per word: its high bits, which pick the slot, depend
	 * on every bit of the key so far (Fibonacci hashing); the shift
	 * folds them into the low bits the next word's multiply spreads.
	 * One word, the common key, unrolled. */
	if (__builtin_expect(size == 8, 1)) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	} else {
		for (i = 0; i < size; i += 8) {
			memcpy(&w, p + i, 8);
			h ^= h >> 32;
			h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		}
	}
	return (uint32_t)(h >> 32) ? (uint32_t)(h >> 32) : 1;
}

/* The element of entry word @w (taken) in elements @data of @stride
 * bytes; its key lies right after its sums, known without loading
 * elt->key */
static inline __attribute__((always_inline, no_instrument_function))
struct tracing_map_elt *
tracing_map_elt_of(unsigned char *data, size_t stride, uint64_t w)
{
	return (struct tracing_map_elt *)(void *)(data +
						  (size_t)(uint32_t)w * stride);
}

/* The whole probe of tracing_map_insert() (tracing_map.c), from @hash's
 * first entry; the element's index in *@idx. */
struct tracing_map_elt *tracing_map_insert_slow(struct tracing_map *map,
						const void *key,
						uint32_t hash,
						unsigned int *idx);

/**
 * struct tracing_map_probe - what the inline probe reads of a map, copied
 *	next to its writer's other data (struct rt_hist_trig): the entries
 *	are then one load from the writer's own structure, not two
 * @entries: map->map
 * @data: map->data
 * @stride: map->stride
 * @shift: map->shift
 * @key_size: map->key_size
 * @n_vals: map->n_vals (the key lies after the sums)
 * @n_sums: map->n_sums
 * @tsums: map->tsums
 * @tslot_words: map->tslot_words
 * @map: the map, for the slow path
 *
 * The map's fields never change while it lives (tracing_map_clear()
 * empties it in place), so a copy stays right.
 */
struct tracing_map_probe {
	struct tracing_map_entry *entries;
	unsigned char *data;
	size_t stride;
	unsigned int shift, key_size, n_vals, n_sums;
	uint64_t *tsums;
	size_t tslot_words;
	struct tracing_map *map;
};

static inline __attribute__((always_inline, no_instrument_function)) void
tracing_map_probe_init(struct tracing_map_probe *p, struct tracing_map *map)
{
	p->entries = map->map;
	p->data = map->data;
	p->stride = map->stride;
	p->shift = map->shift;
	p->key_size = map->key_size;
	p->n_vals = map->n_vals;
	p->n_sums = map->n_sums;
	p->tsums = map->tsums;
	p->tslot_words = map->tslot_words;
	p->map = map;
}

/*
 * tracing_map_probe_insert - the element of @key (p->key_size bytes),
 * made if it is not there; its index in *@idx.
 * Context: any, a signal handler included; lock-free and bounded.
 * Return: the element, or NULL (counted in map->drops).
 *
 * Inline: the key found at its first entry, the common case of a map
 * filled to at most half. Anything else is the slow path's, which looks
 * at that entry again (steps A and B of tracing_map.c).
 */
static inline __attribute__((always_inline, no_instrument_function))
struct tracing_map_elt *
tracing_map_probe_insert(const struct tracing_map_probe *p, const void *key,
			 unsigned int *idx)
{
	uint32_t hash = tracing_map_hash(key, p->key_size);
	/* Acquire: pairs with the release cmpxchg that claims the entry
	 * (step C of tracing_map.c): the element's key is there. */
	uint64_t w = atomic_load_explicit(
		&p->entries[hash >> p->shift].word, memory_order_acquire);

	if (__builtin_expect((uint32_t)(w >> 32) == hash, 1)) {
		struct tracing_map_elt *val = tracing_map_elt_of(p->data,
								 p->stride, w);

		if (__builtin_expect(tracing_map_keys_match(&val->sums[p->n_vals],
							    key, p->key_size),
				     1)) {
			*idx = (uint32_t)w;
			return val;
		}
	}
	return tracing_map_insert_slow(p->map, key, hash, idx);
}

/* tracing_map_probe_insert() from the map itself */
static inline __attribute__((always_inline, no_instrument_function))
struct tracing_map_elt *
tracing_map_insert(struct tracing_map *map, const void *key, unsigned int *idx)
{
	struct tracing_map_probe p;

	tracing_map_probe_init(&p, map);
	return tracing_map_probe_insert(&p, key, idx);
}

/* Lookup only: the element of @key or NULL. Context: any. */
struct tracing_map_elt *tracing_map_lookup(struct tracing_map *map,
					   const void *key);

/* The calling thread's slot of per-thread sums: 1 + its index; 0 until
 * its first count; -1 when it found every slot taken. Initial-exec TLS:
 * read in signal handlers without allocating. */
extern __thread int tracing_map_tslot __attribute__((tls_model("initial-exec")));

/* The thread's first count: take a slot, or -1 if none is left */
int tracing_map_tslot_slow(void);

/**
 * struct tracing_map_sums - where a writer adds an element's values
 * @local: the calling thread's copy of the element's summed values, or
 *	NULL when it has no slot
 * @elt: the element (its own sums: the others, and @local's when NULL)
 */
struct tracing_map_sums {
	uint64_t *local;
	struct tracing_map_elt *elt;
};

/* The sums of element @elt (index @idx of @p's map) for the calling
 * thread's adds. Context: any, a signal handler included. */
static inline __attribute__((always_inline, no_instrument_function))
struct tracing_map_sums
tracing_map_sums_of(const struct tracing_map_probe *p,
		    struct tracing_map_elt *elt, unsigned int idx)
{
	struct tracing_map_sums s = { NULL, elt };
	int slot = tracing_map_tslot;

	if (__builtin_expect(slot <= 0, 0))
		slot = slot ? 0 : tracing_map_tslot_slow() + 1;
	if (__builtin_expect(slot > 0, 1))
		s.local = p->tsums + (size_t)(slot - 1) * p->tslot_words +
			  (size_t)idx * p->n_sums;
	return s;
}

/* Add @n to summed value @i (< n_sums) of @s's element */
static inline __attribute__((always_inline, no_instrument_function)) void
tracing_map_update_sum(struct tracing_map_sums s, unsigned int i, uint64_t n)
{
	if (__builtin_expect(s.local != NULL, 1)) {
		/* The thread's own word: atomic against its signal handlers
		 * (a handler's count is not lost); readers load it relaxed. */
		ringbuf_fe_local_add(n, &s.local[i]);
		return;
	}
	/* Relaxed: a sum orders nothing; readers take what was added. */
	atomic_fetch_add_explicit(&s.elt->sums[i], n, memory_order_relaxed);
}

/* Sum @i of @elt: for a summed value, the element's and every thread's
 * copy added up (each word loaded relaxed: the sum of what was added by
 * then, give or take the adds racing with the reading). Context: any
 * (loads only). */
uint64_t tracing_map_read_sum(const struct tracing_map *map,
			      const struct tracing_map_elt *elt,
			      unsigned int i);

/* The published elements, in table order: *@out (malloc()ed) and their
 * number, or -ENOMEM. Context: any thread but a signal handler; the
 * writers may go on meanwhile. */
int tracing_map_entries(struct tracing_map *map,
			struct tracing_map_elt ***out);

/* Empty the map. Context: control side, no writer in the map. */
void tracing_map_clear(struct tracing_map *map);

#endif /* RINGTRACE_TRACING_MAP_H */
