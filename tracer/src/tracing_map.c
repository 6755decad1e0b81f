// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracing_map.c - the lock-free table of the hist triggers (see
 *	tracing_map.h), after the kernel's kernel/trace/tracing_map.c
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tracing_map.h"

__thread int tracing_map_tslot __attribute__((tls_model("initial-exec")));
/* Slots handed out (may run past TRACING_MAP_THREAD_SLOTS) */
static _Atomic unsigned int tracing_map_tslots_taken;

/*
 * A thread's first count in any map: its slot, taken for its life (the
 * same index in every map). A signal handler that counts between the
 * fetch-add and the store takes a slot of its own, and the thread keeps
 * one of the two: both are written by this thread alone.
 */
__attribute__((no_instrument_function)) int tracing_map_tslot_slow(void)
{
	/* Relaxed: the count only hands each slot to one thread; the slot's
	 * words are read with relaxed loads, as its thread adds them. The
	 * load first: no fetch-add once the slots are gone, so the count
	 * stays bounded by the threads racing for the last ones. */
	unsigned int s = atomic_load_explicit(&tracing_map_tslots_taken,
					      memory_order_relaxed);

	if (s < TRACING_MAP_THREAD_SLOTS)
		s = atomic_fetch_add_explicit(&tracing_map_tslots_taken, 1,
					      memory_order_relaxed);
	tracing_map_tslot = s < TRACING_MAP_THREAD_SLOTS ? (int)s + 1 : -1;
	return s < TRACING_MAP_THREAD_SLOTS ? (int)s : -1;
}

/* Element @i of @map's blocks */
static inline struct tracing_map_elt *tracing_map_elt_at(struct tracing_map *map,
							 unsigned int i)
{
	return tracing_map_elt_of(map->data, map->stride, i);
}

struct tracing_map *tracing_map_create(unsigned int map_bits,
				       unsigned int key_size,
				       unsigned int n_vals,
				       unsigned int n_sums)
{
	struct tracing_map *map;
	unsigned int i;
	void *t;

	if (map_bits < TRACING_MAP_BITS_MIN || map_bits > TRACING_MAP_BITS_MAX ||
	    !key_size || key_size % 8 || !n_vals ||
	    n_vals > TRACING_MAP_VALS_MAX || !n_sums || n_sums > n_vals)
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
	/* The threads' sums: mapped, so that only the pages a thread
	 * counts in take memory, and a clear gives them back */
	map->n_sums = n_sums;
	map->tslot_words = (size_t)map->max_elts * n_sums;
	map->tsums_size = TRACING_MAP_THREAD_SLOTS * map->tslot_words *
			  sizeof(uint64_t);
	t = mmap(NULL, map->tsums_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (t == MAP_FAILED) {
		tracing_map_destroy(map);
		return NULL;
	}
	map->tsums = t;
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
	if (map->tsums)
		munmap(map->tsums, map->tsums_size);
	free(map->map);
	free(map->data);
	free(map);
}

/*
 * Element @i, taken at D by a writer that then found its key inserted by
 * another: given back when no element was taken after it, and it was
 * not the last (the count never comes back under @max_elts once it got
 * there: no key gets in after a record was dropped for want of room).
 * Else it stays unused, counted in @wasted.
 */
static __attribute__((no_instrument_function)) void
tracing_map_put_back(struct tracing_map *map, unsigned int i)
{
	unsigned int next = i + 1;

	/* Release on success: our copy of the key into the element (D)
	 * before the element is free again; pairs with the acquire
	 * fetch-add at D of the writer that takes it next, whose copy of
	 * its own key must come after ours (two writers' key copies, else
	 * unordered: TSan saw them race, and on a weakly ordered CPU ours
	 * could land last). Relaxed on failure: nothing was given back.
	 * Not retried: a failure means another writer took an element
	 * since, and this one cannot go back alone. */
	if (next < map->max_elts &&
	    atomic_compare_exchange_strong_explicit(&map->next_elt, &next, i,
						    memory_order_release,
						    memory_order_relaxed))
		return;
	/* Relaxed: a statistic, summed on read; orders nothing. */
	atomic_fetch_add_explicit(&map->wasted, 1, memory_order_relaxed);
}

/*
 * The kernel's __tracing_map_insert(), the element first (see the top of
 * tracing_map.h). Steps:
 *   A: load the entry (acquire)
 *   B: our hash: ours when the element's key is ours
 *   C: free: claim it with a cmpxchg of our hash and element, which
 *	publishes the element (release)
 *   D: (before C, once) take a free element (fetch-add), copy the key in
 * A writer that loses C goes on from the same entry, now taken: the
 * winner's element is its key's (B), or another key's (the probe goes on
 * with the element the writer took). Two writers of one key cannot both
 * insert it: both claim at C the first free entry of its probe sequence,
 * and only one cmpxchg succeeds. Entries are never freed while writers
 * run, so a key in the table lies before the first free entry of its
 * probe: one that meets a free entry and finds no element left is not
 * in the table. Bounded: every turn but the one after a lost C moves on,
 * and the map always has a free entry (2 per element).
 */
static __attribute__((no_instrument_function)) struct tracing_map_elt *
__tracing_map_insert(struct tracing_map *map, const void *key, uint32_t hash,
		     bool lookup, unsigned int *elt_idx)
{
	unsigned int idx = hash >> map->shift, probes = 0;
	struct tracing_map_elt *mine = NULL, *val;
	unsigned int mine_i = 0;

	while (probes < map->map_size) {
		struct tracing_map_entry *e = &map->map[idx];
		/* A. Acquire: pairs with the release cmpxchg at C, so that
		 * the key copied at D is seen. */
		uint64_t w = atomic_load_explicit(&e->word,
						  memory_order_acquire);

		if (!w) {
			if (lookup)
				return NULL;
			if (!mine) {
				/* Full: no element. Relaxed: a stale count
				 * only costs the fetch-add below. */
				if (atomic_load_explicit(&map->next_elt,
							 memory_order_relaxed) >=
				    map->max_elts)
					break;
				/* D. Acquire: pairs with the release
				 * cmpxchg of tracing_map_put_back(), so that
				 * the key copy of a writer that gave this
				 * element back comes before ours (no cost on
				 * x86-64: a locked add either way). C
				 * publishes the element. */
				mine_i = atomic_fetch_add_explicit(
					&map->next_elt, 1,
					memory_order_acquire);
				/* (next_elt stays past the end: the check
				 * above keeps its growth bounded by the
				 * writers in this window) */
				if (mine_i >= map->max_elts)
					break;
				mine = tracing_map_elt_at(map, mine_i);
				memcpy(mine->key, key, map->key_size);
			}
			/* C. Release on success: the key copied at D before
			 * the entry; pairs with the acquire loads at A, in
			 * tracing_map_probe_insert() and in
			 * tracing_map_entries(). Acquire on failure: w is
			 * then the winner's entry, its element read at B. */
			if (atomic_compare_exchange_strong_explicit(
				    &e->word, &w,
				    (uint64_t)hash << 32 | mine_i,
				    memory_order_release,
				    memory_order_acquire)) {
				*elt_idx = mine_i;
				return mine;
			}
		}
		if ((uint32_t)(w >> 32) == hash) {
			val = tracing_map_elt_of(map->data, map->stride, w);
			/* B */
			if (tracing_map_keys_match(val->key, key,
						   map->key_size)) {
				if (mine)
					tracing_map_put_back(map, mine_i);
				*elt_idx = (uint32_t)w;
				return val;
			}
		}
		idx = (idx + 1) & (map->map_size - 1);
		probes++;
	}
	/* (mine is NULL here: a writer with an element claims the first
	 * free entry, and there always is one) */
	if (!lookup)
		atomic_fetch_add_explicit(&map->drops, 1, memory_order_relaxed);
	return NULL;
}

__attribute__((no_instrument_function)) struct tracing_map_elt *
tracing_map_insert_slow(struct tracing_map *map, const void *key,
			uint32_t hash, unsigned int *idx)
{
	return __tracing_map_insert(map, key, hash, false, idx);
}

__attribute__((no_instrument_function)) struct tracing_map_elt *
tracing_map_lookup(struct tracing_map *map, const void *key)
{
	unsigned int idx;

	return __tracing_map_insert(map, key,
				    tracing_map_hash(key, map->key_size), true,
				    &idx);
}

__attribute__((no_instrument_function)) uint64_t
tracing_map_read_sum(const struct tracing_map *map,
		     const struct tracing_map_elt *elt, unsigned int i)
{
	/* Relaxed, here and for the slots: a sum orders nothing. */
	uint64_t v = atomic_load_explicit(&elt->sums[i], memory_order_relaxed);
	/* (only the slots handed out so far: a slot taken after this load
	 * holds adds that race with the reading) */
	unsigned int s, n = atomic_load_explicit(&tracing_map_tslots_taken,
						 memory_order_relaxed);
	size_t at;

	if (i >= map->n_sums)
		return v;
	at = (size_t)((const unsigned char *)elt - map->data) / map->stride *
		     map->n_sums + i;
	for (s = 0; s < n && s < TRACING_MAP_THREAD_SLOTS; s++)
		v += ringbuf_fe_local_read(&map->tsums[s * map->tslot_words +
						       at]);
	return v;
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
		/* Acquire: pairs with the release cmpxchg at C of
		 * __tracing_map_insert(): the key is there. */
		uint64_t w = atomic_load_explicit(&map->map[i].word,
						  memory_order_acquire);

		if (w)
			v[n++] = tracing_map_elt_of(map->data, map->stride, w);
	}
	*out = v;
	return n;
}

/*
 * Relaxed stores throughout: the caller (rt_hist_modify()) has kept the
 * writers out (its clearing flag, then a grace period) and lowers the
 * flag with a seq_cst store after this; a writer's acquire load of the
 * flag that sees it lowered sees these stores (rt_hist_event()).
 */
void tracing_map_clear(struct tracing_map *map)
{
	unsigned int i;

	for (i = 0; i < map->map_size; i++)
		atomic_store_explicit(&map->map[i].word, 0,
				      memory_order_relaxed);
	for (i = 0; i < map->max_elts; i++) {
		unsigned int k;

		for (k = 0; k < map->n_vals; k++)
			atomic_store_explicit(&tracing_map_elt_at(map, i)->sums[k],
					      0, memory_order_relaxed);
		memset(tracing_map_elt_at(map, i)->key, 0, map->key_size);
	}
	/* the threads' sums: their pages given back (a private anonymous
	 * mapping reads zeros after), or zeroed if that fails */
	if (madvise(map->tsums, map->tsums_size, MADV_DONTNEED))
		for (i = 0; i < TRACING_MAP_THREAD_SLOTS * map->tslot_words;
		     i++)
			ringbuf_fe_local_set(&map->tsums[i], 0);
	atomic_store_explicit(&map->next_elt, 0, memory_order_relaxed);
	atomic_store_explicit(&map->drops, 0, memory_order_relaxed);
	atomic_store_explicit(&map->wasted, 0, memory_order_relaxed);
}
