// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * profile_sel.c - report's record selection (-F, -D, --tid,
 *	--time-range; see profile.h), and the map and the function record
 *	decoding the summaries (profile.c) use too
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "profile_int.h"
#include "entries.h"
#include "names.h"

/* ---- a map from 64-bit keys to indexes --------------------------------- */


static size_t rtt_map_slot(const struct rtt_map *m, uint64_t key)
{
	/* Fibonacci hashing: the addresses share their low bits */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);
}

/* The value of @key, or -1. */
static int64_t rtt_map_get(const struct rtt_map *m, uint64_t key)
{
	size_t i;

	if (!key)
		return m->zero;
	if (!m->cap)
		return -1;
	for (i = rtt_map_slot(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return m->vals[i];
		if (!m->keys[i])
			return -1;
	}
}

static int rtt_map_put(struct rtt_map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if (!key) {
		m->zero = val;
		return 0;
	}
	if (2 * (m->nr + 1) > m->cap) {
		struct rtt_map n = { .cap = m->cap ? 2 * m->cap : 64,
				     .zero = m->zero };

		n.keys = calloc(n.cap, sizeof(*n.keys));
		n.vals = calloc(n.cap, sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			free(n.keys);
			free(n.vals);
			return -ENOMEM;
		}
		for (i = 0; i < m->cap; i++)
			if (m->keys[i])
				rtt_map_put(&n, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	for (i = rtt_map_slot(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key || !m->keys[i])
			break;
	}
	if (!m->keys[i])
		m->nr++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

void rtt_map_free(struct rtt_map *m)
{
	free(m->keys);
	free(m->vals);
}

/* Grow an array of @size-byte elements to hold index @i; false: no
 * memory. */
bool rtt_grow(void **v, size_t *cap, size_t i, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *nv;

	if (i < *cap)
		return true;
	while (n <= i)
		n *= 2;
	nv = realloc(*v, n * size);
	if (!nv)
		return false;
	memset((char *)nv + *cap * size, 0, (n - *cap) * size);
	*v = nv;
	*cap = n;
	return true;
}

/*
 * The index of @key's entry in the array @v (@nr entries of @size bytes,
 * @cap allocated), a zeroed entry added for a new key. Return: the index
 * (*@added says whether it is new), or -1 (out of memory).
 */
int64_t rtt_map_index(struct rtt_map *m, void **v, size_t *nr, size_t *cap,
		      size_t size, uint64_t key, bool *added)
{
	int64_t i = rtt_map_get(m, key);

	*added = i < 0;
	if (i >= 0)
		return i;
	if (!rtt_grow(v, cap, *nr, size) || rtt_map_put(m, key, (uint32_t)*nr))
		return -1;
	return (int64_t)(*nr)++;
}

/* ---- the records ----------------------------------------------------- */


/* Decode a function record; false for any other record. */
bool rtt_grec(const void *data, unsigned int len, struct rtt_grec *g)
{
	struct ringtrace_entry ent;

	if (len < sizeof(ent))
		return false;
	memcpy(&ent, data, sizeof(ent));
	g->tid = ent.pid;
	g->depth = -1;
	g->exit = false;
	g->time = 0;
	if (ent.type == RT_TYPE_GRAPH_ENT &&
	    len >= sizeof(struct rt_graph_ent_entry)) {
		struct rt_graph_ent_entry e;

		memcpy(&e, data, sizeof(e));
		g->func = e.func;
		g->depth = e.depth;
	} else if (rt_type_graph_exit(ent.type)) {
		struct rt_graph_ret_entry e;

		if (!rt_graph_ret_read(data, len, &e))
			return false;
		g->func = e.func;
		g->depth = e.depth;
		g->exit = true;
		g->time = e.rettime >= e.calltime ? e.rettime - e.calltime : 0;
	} else if (ent.type == RT_TYPE_FN &&
		   len >= sizeof(struct rt_fn_entry)) {
		struct rt_fn_entry e;

		memcpy(&e, data, sizeof(e));
		g->func = e.ip;
	} else {
		return false;
	}
	return g->depth < RTT_MAX_DEPTH;
}

/* Whether @name matches one of @globs. */
static bool rtt_glob_any(const char *const *globs, int n,
			 const char *name)
{
	for (int i = 0; i < n; i++)
		if (!fnmatch(globs[i], name, 0))
			return true;
	return false;
}

/*
 * Whether a glob names @sym: its name, a demangled C++ name also without
 * its parameter list ("ns::f" for "ns::f(int) const"), or its mangled
 * name.
 */
static bool rtt_sym_glob(const char *const *globs, int n,
			 const struct rtt_sym *sym)
{
	const char *name = sym->sym.name, *p;
	char bare[512];
	int depth = 0;

	if (rtt_glob_any(globs, n, name))
		return true;
	if (!sym->mangled)
		return false;
	if (rtt_glob_any(globs, n, sym->mangled))
		return true;
	/* the parameter list: the last balanced "(...)" (then cv, ref) */
	for (p = name + strlen(name); p > name;) {
		p--;
		if (*p == ')')
			depth++;
		else if (*p == '(' && !--depth)
			break;
	}
	if (p == name || (size_t)(p - name) >= sizeof(bare))
		return false;
	memcpy(bare, name, (size_t)(p - name));
	bare[p - name] = '\0';
	return rtt_glob_any(globs, n, bare);
}

/* ---- selection --------------------------------------------------------- */

/**
 * struct rtt_sel - a record selection
 * @o: what to keep
 * @syms: the symbols
 * @match: function address -> 1 + whether a glob names it
 * @threads: tid -> index in @inside
 * @inside: per thread, the depth of the selected call it is in, or -1
 * @nr_threads: threads seen
 * @cap: entries of @inside
 */
struct rtt_sel {
	struct rtt_sel_opts o;
	const struct rtt_syms *syms;
	struct rtt_map match;
	struct rtt_map threads;
	int *inside;
	size_t nr_threads;
	size_t cap;
};

struct rtt_sel *rtt_sel_new(const struct rtt_sel_opts *o,
			    const struct rtt_syms *syms)
{
	struct rtt_sel *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = *o;
	s->syms = syms;
	s->match.zero = -1;
	s->threads.zero = -1;
	return s;
}

/* Whether a glob of @globs names the function at @addr (cached). */
bool rtt_func_match(struct rtt_map *cache, const struct rtt_syms *syms,
		    const char *const *globs, int n, unsigned long addr)
{
	int64_t v = rtt_map_get(cache, addr);
	const struct rtt_sym *sym;
	bool m;

	if (v >= 0)
		return v;
	sym = rtt_sym_find(syms, addr);
	m = sym && rtt_sym_glob(globs, n, sym);
	/* no memory: decided again next time */
	rtt_map_put(cache, addr, m);
	return m;
}

/* The thread's state slot, or NULL (no memory). */
static int *rtt_sel_thread(struct rtt_sel *s, int tid)
{
	bool added;
	int64_t i = rtt_map_index(&s->threads, (void **)&s->inside,
				  &s->nr_threads, &s->cap, sizeof(*s->inside),
				  (uint32_t)tid, &added);

	if (i < 0)
		return NULL;
	if (added)
		s->inside[i] = -1;
	return &s->inside[i];
}

bool rtt_sel_keep(struct rtt_sel *s, uint64_t ts, const void *data,
		  unsigned int len)
{
	struct rtt_grec g;
	bool fn = rtt_grec(data, len, &g), keep = true;
	int *inside;

	if (!fn) {
		struct ringtrace_entry ent;

		if (len < sizeof(ent))
			return true;
		memcpy(&ent, data, sizeof(ent));
		g.tid = ent.pid;
	}
	if (s->o.nr_tids) {
		int i;

		for (i = 0; i < s->o.nr_tids && s->o.tids[i] != g.tid; i++)
			;
		if (i == s->o.nr_tids)
			return false;
	}
	if (fn && s->o.max_depth > 0 && g.depth >= s->o.max_depth)
		keep = false;
	if (s->o.nr_funcs) {
		inside = rtt_sel_thread(s, g.tid);
		if (!fn) {
			keep = inside && *inside >= 0;
		} else if (g.depth < 0) {
			/* the function tracer: no subtree, the function */
			keep = keep && rtt_func_match(&s->match, s->syms,
						      s->o.funcs,
						      s->o.nr_funcs, g.func);
		} else if (inside) {
			if (*inside > g.depth ||
			    (*inside == g.depth && !g.exit))
				*inside = -1; /* its return was lost */
			if (*inside < 0 && !g.exit &&
			    rtt_func_match(&s->match, s->syms, s->o.funcs,
					   s->o.nr_funcs, g.func))
				*inside = g.depth;
			keep = keep && *inside >= 0;
			if (g.exit && *inside == g.depth)
				*inside = -1;
		}
	}
	return keep && ts >= s->o.from && ts <= s->o.to;
}

void rtt_sel_free(struct rtt_sel *s)
{
	if (!s)
		return;
	rtt_map_free(&s->match);
	rtt_map_free(&s->threads);
	free(s->inside);
	free(s);
}
