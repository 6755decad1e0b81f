// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * profile.c - per-function summaries for report --stat and --graph
 * (see profile.h; the record selection is profile_sel.c)
 *
 * A function_graph recording has, per call, an entry record (function,
 * depth) and a return record (function, depth, call and return times in
 * CLOCK_MONOTONIC nanoseconds). A thread's records come in its call
 * order, so its state is a stack indexed by depth: the function entered
 * at each depth (for the subtree selection and for the callers), and the
 * time of the calls completed at each depth since the one above returned
 * (for the self time: a return at depth d takes the sum at d + 1 as its
 * children's time, and adds its own time to the sum at d). No record is
 * kept.
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

/* ---- summaries --------------------------------------------------------- */

/**
 * struct rtt_pfn - the calls of one function (or, in a graph, of one
 *	caller or callee)
 * @func: its address
 * @calls: calls counted
 * @total: their time
 * @self: their time less that of the calls they made
 * @min: the shortest
 * @max: the longest
 */
struct rtt_pfn {
	unsigned long func;
	uint64_t calls;
	uint64_t total;
	uint64_t self;
	uint64_t min;
	uint64_t max;
};

/**
 * struct rtt_pset - functions and their sums
 * @map: function -> index in @v
 * @v: the sums
 * @nr: how many
 * @cap: entries allocated
 */
struct rtt_pset {
	struct rtt_map map;
	struct rtt_pfn *v;
	size_t nr;
	size_t cap;
};

/**
 * struct rtt_pthr - a thread's stack
 * @funcs: the function entered at each depth
 * @sums: the time of the calls completed at each depth since the call
 *	above it started
 * @start: the time stamp of the entry at each depth, 0 for a depth no
 *	entry seen opened
 * @cap: entries of the three
 * @top: depths 0 .. @top - 1 hold calls entered that did not return yet
 *	(as far as the records seen say)
 * @last: the time stamp of the thread's last record seen
 */
struct rtt_pthr {
	unsigned long *funcs;
	uint64_t *sums;
	uint64_t *start;
	size_t cap;
	size_t top;
	uint64_t last;
};

struct rtt_prof {
	const struct rtt_syms *syms;
	uint64_t threshold;
	char *graph;
	struct rtt_map match;
	struct rtt_pset fns;
	struct rtt_pset callers;
	struct rtt_pset callees;
	struct rtt_map threads;
	struct rtt_pthr *thr;
	size_t nr_thr;
	size_t thr_cap;
};

struct rtt_prof *rtt_prof_new(const struct rtt_syms *syms,
			      uint64_t threshold_ns, const char *graph)
{
	struct rtt_prof *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->syms = syms;
	p->threshold = threshold_ns;
	p->match.zero = p->threads.zero = -1;
	p->fns.map.zero = p->callers.map.zero = p->callees.map.zero = -1;
	if (graph) {
		p->graph = strdup(graph);
		if (!p->graph) {
			free(p);
			return NULL;
		}
	}
	return p;
}

/* Add a call of @func taking @time (@self of its own; @total to add to
 * the total) to @set. */
static int rtt_pset_add(struct rtt_pset *set, unsigned long func,
			uint64_t time, uint64_t total, uint64_t self)
{
	bool added;
	int64_t i = rtt_map_index(&set->map, (void **)&set->v, &set->nr,
				  &set->cap, sizeof(*set->v), func, &added);
	struct rtt_pfn *f;

	if (i < 0)
		return -ENOMEM;
	if (added) {
		set->v[i].func = func;
		set->v[i].min = UINT64_MAX;
	}
	f = &set->v[i];
	f->calls++;
	f->total += total;
	f->self += self;
	if (time < f->min)
		f->min = time;
	if (time > f->max)
		f->max = time;
	return 0;
}

static struct rtt_pthr *rtt_prof_thread(struct rtt_prof *p, int tid)
{
	bool added;
	int64_t i = rtt_map_index(&p->threads, (void **)&p->thr, &p->nr_thr,
				  &p->thr_cap, sizeof(*p->thr), (uint32_t)tid,
				  &added);

	return i < 0 ? NULL : &p->thr[i];
}

static bool rtt_prof_is_graph(struct rtt_prof *p, unsigned long func)
{
	return p->graph && func &&
	       rtt_func_match(&p->match, p->syms,
				      (const char *const *)&p->graph, 1, func);
}

/* The call of @func at depth @d of @t ended, taking @time: into the
 * sums. */
static int rtt_prof_call(struct rtt_prof *p, struct rtt_pthr *t, size_t d,
			 unsigned long func, uint64_t time)
{
	unsigned long parent;
	uint64_t self, kids;
	size_t i;
	int ret;

	kids = t->sums[d + 1];
	self = kids < time ? time - kids : 0;
	t->sums[d + 1] = 0;
	t->sums[d] += time;
	if (time < p->threshold)
		return 0;
	/* a recursive call's time is in its outermost call's already, as
	 * uftrace counts it: the total takes nothing more */
	for (i = 0; i < d && t->funcs[i] != func; i++)
		;
	ret = rtt_pset_add(&p->fns, func, time, i < d ? 0 : time, self);
	if (!ret && p->graph) {
		parent = d ? t->funcs[d - 1] : 0;
		if (rtt_prof_is_graph(p, func))
			ret = rtt_pset_add(&p->callers, parent, time, time,
					   self);
		if (!ret && rtt_prof_is_graph(p, parent))
			ret = rtt_pset_add(&p->callees, func, time, time,
					   self);
	}
	return ret;
}

/* The calls of @t open at depth @d and deeper ended unseen before @ts
 * (a longjmp over them, an unwind that skipped their exit hooks): each
 * counts, innermost first, as taking the time to @ts. */
static int rtt_prof_unwind(struct rtt_prof *p, struct rtt_pthr *t, size_t d,
			   uint64_t ts)
{
	int ret = 0;

	while (!ret && t->top > d) {
		size_t k = --t->top;
		uint64_t start = t->start[k];

		/* 0: a depth no entry of the records seen opened (the
		 * callers of the first record, or of a selected subtree) */
		if (start)
			ret = rtt_prof_call(p, t, k, t->funcs[k],
					    ts > start ? ts - start : 0);
	}
	return ret;
}

int rtt_prof_add(struct rtt_prof *p, uint64_t ts, const void *data,
		 unsigned int len)
{
	struct rtt_grec g;
	struct rtt_pthr *t;
	size_t d;
	int ret;

	if (!rtt_grec(data, len, &g) || g.depth < 0)
		return 0;
	t = rtt_prof_thread(p, g.tid);
	d = (size_t)g.depth;
	/* d + 1: the sum of the calls it made */
	if (!t || (d + 1 >= t->cap &&
		   (!rtt_grow((void **)&t->sums, &(size_t){ t->cap }, d + 1,
			      sizeof(*t->sums)) ||
		    !rtt_grow((void **)&t->start, &(size_t){ t->cap }, d + 1,
			      sizeof(*t->start)) ||
		    !rtt_grow((void **)&t->funcs, &t->cap, d + 1,
			      sizeof(*t->funcs)))))
		return -ENOMEM;
	if (ts > t->last)
		t->last = ts;
	if (!g.exit) {
		/* a call at depth d: whatever was open there ended */
		ret = rtt_prof_unwind(p, t, d, ts);
		for (size_t k = t->top; k < d; k++)
			t->start[k] = 0;
		t->funcs[d] = g.func;
		t->start[d] = ts ? ts : 1;
		t->sums[d + 1] = 0;
		t->top = d + 1;
		return ret;
	}
	/* a return at depth d: whatever was open deeper ended */
	ret = rtt_prof_unwind(p, t, d + 1, ts);
	if (t->top > d)
		t->top = d;
	return ret ? ret : rtt_prof_call(p, t, d, g.func, g.time);
}

/*
 * The calls still open at the end of the records: their thread ended
 * inside them (exit() called deep down, pthread_exit(), a cancellation,
 * a kill) or the recording ended first. Each counts, as uftrace's report
 * counts a task's remaining functions, its time running to its thread's
 * last record. Once: the stacks are left empty.
 */
static int rtt_prof_end(struct rtt_prof *p)
{
	int ret = 0;

	for (size_t i = 0; i < p->nr_thr && !ret; i++)
		ret = rtt_prof_unwind(p, &p->thr[i], 0, p->thr[i].last);
	return ret;
}

int rtt_prof_sort_by_name(const char *name)
{
	static const char *const names[] = { "total", "self", "calls", "avg",
					     "min",   "max",  "func" };

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/* qsort() has no context argument: the order and the names go here. */
static enum rtt_prof_sort rtt_sort_key;
static const struct rtt_syms *rtt_sort_syms;

static const char *rtt_pfn_name(const struct rtt_syms *syms,
				unsigned long func, char *buf, size_t len)
{
	if (!func)
		return "(top)";
	rtt_sym_format(syms, buf, len, func, false);
	return buf;
}

static uint64_t rtt_pfn_key(const struct rtt_pfn *f)
{
	switch (rtt_sort_key) {
	case RTT_SORT_SELF:
		return f->self;
	case RTT_SORT_CALLS:
		return f->calls;
	case RTT_SORT_AVG:
		return f->calls ? f->total / f->calls : 0;
	case RTT_SORT_MIN:
		return f->min;
	case RTT_SORT_MAX:
		return f->max;
	default:
		return f->total;
	}
}

static int rtt_pfn_cmp(const void *a, const void *b)
{
	const struct rtt_pfn *x = a, *y = b;
	char nx[256], ny[256];
	int c;

	if (rtt_sort_key != RTT_SORT_NAME) {
		uint64_t kx = rtt_pfn_key(x), ky = rtt_pfn_key(y);

		if (kx != ky)
			return kx < ky ? 1 : -1;
	}
	c = strcmp(rtt_pfn_name(rtt_sort_syms, x->func, nx, sizeof(nx)),
		   rtt_pfn_name(rtt_sort_syms, y->func, ny, sizeof(ny)));
	if (c)
		return c;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* A time as uftrace shows it: three decimals and a unit, 10 columns. */
static void rtt_put_time(FILE *out, uint64_t ns)
{
	if (ns < 1000)
		fprintf(out, "  %7" PRIu64 " ns", ns);
	else if (ns < 1000000)
		fprintf(out, "  %7.3f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		fprintf(out, "  %7.3f ms", (double)ns / 1e6);
	else
		fprintf(out, "  %7.3f  s", (double)ns / 1e9);
}

/* @set sorted by @sort, printed one function per line. */
static int rtt_pset_print(const struct rtt_pset *set, FILE *out,
			  enum rtt_prof_sort sort, const struct rtt_syms *syms)
{
	struct rtt_pfn *v = malloc((set->nr ? set->nr : 1) * sizeof(*v));
	char name[256];

	if (!v)
		return -ENOMEM;
	if (set->nr)
		memcpy(v, set->v, set->nr * sizeof(*v));
	rtt_sort_key = sort;
	rtt_sort_syms = syms;
	qsort(v, set->nr, sizeof(*v), rtt_pfn_cmp);
	fprintf(out, "%12s%12s%12s%12s%12s%12s  %s\n", "Total time",
		"Self time", "Calls", "Avg time", "Min time", "Max time",
		"Function");
	for (int i = 0; i < 6; i++)
		fputs("  ==========", out);
	fputs("  ====================\n", out);
	for (size_t i = 0; i < set->nr; i++) {
		rtt_put_time(out, v[i].total);
		rtt_put_time(out, v[i].self);
		fprintf(out, "  %10" PRIu64, v[i].calls);
		rtt_put_time(out, v[i].calls ? v[i].total / v[i].calls : 0);
		rtt_put_time(out, v[i].min);
		rtt_put_time(out, v[i].max);
		fprintf(out, "  %s\n",
			rtt_pfn_name(syms, v[i].func, name, sizeof(name)));
	}
	free(v);
	return 0;
}

int rtt_prof_print(struct rtt_prof *p, FILE *out, enum rtt_prof_sort sort)
{
	int ret = rtt_prof_end(p);

	return ret ? ret : rtt_pset_print(&p->fns, out, sort, p->syms);
}

int rtt_prof_print_graph(struct rtt_prof *p, FILE *out,
			 enum rtt_prof_sort sort)
{
	struct rtt_pset self = { .map = { .zero = -1 } };
	int ret;

	if (!p->graph)
		return -EINVAL;
	ret = rtt_prof_end(p);
	/* the graph functions' own lines */
	for (size_t i = 0; i < p->fns.nr && !ret; i++) {
		struct rtt_pfn *f = &p->fns.v[i];

		if (!rtt_prof_is_graph(p, f->func))
			continue;
		if (!rtt_grow((void **)&self.v, &self.cap, self.nr,
			      sizeof(*self.v)))
			ret = -ENOMEM;
		else
			self.v[self.nr++] = *f;
	}
	if (!ret && !self.nr)
		ret = -ENOENT;
	if (!ret) {
		fprintf(out, "# the calls of %s\n", p->graph);
		ret = rtt_pset_print(&self, out, sort, p->syms);
	}
	if (!ret) {
		fprintf(out, "\n# their callers\n");
		ret = rtt_pset_print(&p->callers, out, sort, p->syms);
	}
	if (!ret) {
		fprintf(out, "\n# the calls they made\n");
		ret = rtt_pset_print(&p->callees, out, sort, p->syms);
	}
	free(self.v);
	return ret;
}

void rtt_prof_free(struct rtt_prof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_thr; i++) {
		free(p->thr[i].funcs);
		free(p->thr[i].sums);
		free(p->thr[i].start);
	}
	free(p->thr);
	rtt_map_free(&p->threads);
	rtt_map_free(&p->match);
	rtt_map_free(&p->fns.map);
	rtt_map_free(&p->callers.map);
	rtt_map_free(&p->callees.map);
	free(p->fns.v);
	free(p->callers.v);
	free(p->callees.v);
	free(p->graph);
	free(p);
}

size_t rtt_decimal_len(const char *s)
{
	size_t n = strspn(s, "0123456789"), f;

	if (s[n] != '.')
		return n;
	f = strspn(s + n + 1, "0123456789");
	/* "1." and "." are not numbers; ".5" is not written by report */
	return n && f ? n + 1 + f : 0;
}

int rtt_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = { { "", 1 },      { "ns", 1 },  { "us", 1e3 },
		      { "ms", 1e6 }, { "s", 1e9 }, { "sec", 1e9 } };
	char *end;
	double v;

	if (!s || !*s || !rtt_decimal_len(s))
		return -EINVAL;
	v = strtod(s, &end);
	if (end != s + rtt_decimal_len(s) || v < 0 || v > 1e18)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			double r = v * units[i].mult;

			if (r > 1.8e19)
				return -EINVAL;
			*ns = (uint64_t)(r + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}
