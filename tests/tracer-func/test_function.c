// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_function.c - the function tracers' hooks (tracer/function): the
 * event sequences of instrumented code (sample.c and libdlsample.so), the
 * filter lists, the switches, recursion, balance across switching, signal
 * handlers, threads against list changes, and the symbol tables.
 *
 * The core's recording side (rt_ftrace_enabled, the three event functions
 * and the clock) is played by doubles here: they store every event, or,
 * in the threaded case, check each one as it comes. This file is not
 * instrumented; only sample.c and libdlsample.so are.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fnwrite.h"
#include "ftrace.h"
#include "sample.h"
#include "symbols.h"
#include "test.h"

#define NOTRACE __attribute__((no_instrument_function))

/* ---- the core's side, as doubles ---------------------------------------- */

_Atomic unsigned int rt_ftrace_enabled;

enum { EV_FUNC = 1, EV_ENTRY, EV_RETURN };

struct ev {
	int type;
	int tid;
	int depth;
	unsigned int overrun;
	unsigned long func;
	unsigned long parent;
	uint64_t calltime;
	uint64_t rettime;
};

#define EV_MAX (1u << 16)
static struct ev evs[EV_MAX];
static _Atomic unsigned int ev_nr;
static _Thread_local int ev_tid;

/* The recursion case: the doubles call instrumented code. */
static _Atomic int ev_call_sample;
static _Atomic unsigned int ev_sample_calls;

/*
 * The threaded case: check each event against the allowed functions and
 * the thread's own graph nesting instead of storing it.
 */
static _Atomic int ev_check;
static _Atomic unsigned long ev_checked;
static _Atomic unsigned long ev_bad;
static _Atomic int ev_bad_reported;
static char ev_bad_what[160];
static unsigned long ev_allowed[3];
#define CHK_DEPTH 512
static _Thread_local int chk_depth;
static _Thread_local unsigned long chk_stack[CHK_DEPTH];

static NOTRACE void ev_bad_note(const char *what, unsigned long func,
				int depth)
{
	atomic_fetch_add_explicit(&ev_bad, 1, memory_order_relaxed);
	if (!atomic_exchange_explicit(&ev_bad_reported, 1,
				      memory_order_relaxed))
		snprintf(ev_bad_what, sizeof(ev_bad_what),
			 "%s: func 0x%lx depth %d (thread depth %d)", what,
			 func, depth, chk_depth);
}

static NOTRACE bool ev_is_allowed(unsigned long func)
{
	for (size_t i = 0; i < sizeof(ev_allowed) / sizeof(ev_allowed[0]); i++)
		if (ev_allowed[i] == func)
			return true;
	return false;
}

static NOTRACE struct ev *ev_new(int type)
{
	unsigned int i =
		atomic_fetch_add_explicit(&ev_nr, 1, memory_order_relaxed);

	if (atomic_load_explicit(&ev_call_sample, memory_order_relaxed)) {
		rtfs_leaf();
		atomic_fetch_add_explicit(&ev_sample_calls, 1,
					  memory_order_relaxed);
	}
	if (i >= EV_MAX)
		return NULL;
	memset(&evs[i], 0, sizeof(evs[i]));
	evs[i].type = type;
	evs[i].tid = ev_tid;
	return &evs[i];
}

NOTRACE void rt_ftrace_function_event(unsigned long ip, unsigned long parent_ip,
				      const unsigned long *args)
{
	struct ev *e;

	(void)args;
	if (atomic_load_explicit(&ev_check, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&ev_checked, 1, memory_order_relaxed);
		if (!ev_is_allowed(ip))
			ev_bad_note("function event not allowed", ip, -1);
		return;
	}
	e = ev_new(EV_FUNC);
	if (e) {
		e->func = ip;
		e->parent = parent_ip;
	}
}

NOTRACE void rt_ftrace_graph_entry_event(unsigned long func, int depth,
					 uint64_t calltime,
					 const unsigned long *args)
{
	struct ev *e;

	/* the -finstrument-functions hooks have no argument registers */
	if (args)
		ev_bad_note("graph entry with arguments", func, depth);

	if (atomic_load_explicit(&ev_check, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&ev_checked, 1, memory_order_relaxed);
		if (!ev_is_allowed(func))
			ev_bad_note("graph entry not allowed", func, depth);
		else if (depth != chk_depth || chk_depth >= CHK_DEPTH)
			ev_bad_note("graph entry at a wrong depth", func,
				    depth);
		else
			chk_stack[chk_depth++] = func;
		return;
	}
	e = ev_new(EV_ENTRY);
	if (e) {
		e->func = func;
		e->depth = depth;
		e->calltime = calltime;
	}
}

/* (the process exit's writes for other threads, fgraph.c: none here) */
NOTRACE void rt_write_as(int pid, int tgid, const char *comm)
{
	(void)pid;
	(void)tgid;
	(void)comm;
}

NOTRACE void rt_ftrace_graph_return_event(unsigned long func, int depth,
					  uint64_t calltime, uint64_t rettime,
					  unsigned int overrun,
					  unsigned long retval)
{
	struct ev *e;

	/* nor a return value: the record says so */
	if (retval || !(overrun & RT_GRAPH_NO_RETVAL))
		ev_bad_note("graph return with a return value", func, depth);

	if (atomic_load_explicit(&ev_check, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&ev_checked, 1, memory_order_relaxed);
		if (!chk_depth || chk_stack[chk_depth - 1] != func ||
		    depth != chk_depth - 1)
			ev_bad_note("unbalanced graph return", func, depth);
		else
			chk_depth--;
		return;
	}
	e = ev_new(EV_RETURN);
	if (e) {
		e->func = func;
		e->depth = depth;
		e->calltime = calltime;
		e->rettime = rettime;
		e->overrun = overrun & ~RT_GRAPH_NO_RETVAL;
	}
}

/*
 * What the profiling-call tracer's own writes (fgraph_fast.c, linked in
 * with the trampolines) read of the core: no instance traces, so they
 * write nothing; their general paths are never reached.
 */
_Atomic uint64_t rt_graph_mask, rt_graph_args_mask, rt_graph_retval_mask,
	rt_ftrace_pid_mask;
_Atomic uint64_t rt_fn_mask, rt_fn_args_mask;
struct ringbuf *_Atomic rt_fn_fast_rb; /* NULL: refuses */
struct ringbuf *_Atomic rt_inst_rbs[RT_MAX_INSTANCES];
__thread struct rt_thread rt_cur __attribute__((tls_model("initial-exec")));

NOTRACE void rt_graph_write_slow(uint64_t mask, uint16_t type,
				 const struct rt_fn_arg *a)
{
	(void)mask, (void)type, (void)a;
	abort();
}

NOTRACE void rt_graph_write_args(uint64_t mask, uint64_t args_mask,
				 const struct rt_fn_arg *a)
{
	(void)mask, (void)args_mask, (void)a;
	abort();
}

NOTRACE void rt_fn_write_slow(uint64_t mask, unsigned long ip,
			      unsigned long parent_ip)
{
	(void)mask, (void)ip, (void)parent_ip;
	abort();
}

NOTRACE void rt_fn_write_args(uint64_t mask, uint64_t args_mask,
			      unsigned long ip, unsigned long parent_ip,
			      const unsigned long *args)
{
	(void)mask, (void)args_mask, (void)ip, (void)parent_ip, (void)args;
	abort();
}

/* The function commands' side of the core: not exercised here (the
 * mount's ftracetest cases run them). */
NOTRACE void rt_ftrace_probe_fire(int cmd, _Atomic long *count, void *target,
				  const void *from)
{
	(void)cmd;
	(void)count;
	(void)target;
	(void)from;
}

NOTRACE int rt_ftrace_probe_target(const char *system, const char *event,
				   bool enter, void **target)
{
	(void)system;
	(void)event;
	(void)enter;
	*target = NULL;
	return -ENOENT;
}

NOTRACE void rt_ftrace_probe_prime(void)
{
}

NOTRACE void rt_ftrace_masks_update(void)
{
}

/* ---- shared by the cases ----------------------------------------------- */

static char errbuf[256];

static void ev_reset(void)
{
	atomic_store(&ev_nr, 0);
}

static unsigned int ev_count(void)
{
	unsigned int n = atomic_load(&ev_nr);

	return n < EV_MAX ? n : EV_MAX;
}

static void enable(unsigned int bits)
{
	atomic_store_explicit(&rt_ftrace_enabled, bits, memory_order_relaxed);
}

static const char *sym_name(unsigned long addr, char *buf, size_t len)
{
	struct rt_sym s;
	const char *mod;

	if (!rt_sym_lookup(addr, &s)) {
		snprintf(buf, len, "0x%lx", addr);
		return buf;
	}
	mod = rt_sym_modname(&s);
	if (mod)
		snprintf(buf, len, "%s [%s]", s.name, mod);
	else
		snprintf(buf, len, "%s", s.name);
	return buf;
}

/*
 * Thread @tid's events as text, one per line: "F name" (with
 * "<-parent" when @parents), "E name depth", "R name depth".
 */
static void ev_text(int tid, bool parents, char *buf, size_t len)
{
	unsigned int n = ev_count(), i;
	size_t at = 0;

	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++) {
		const struct ev *e = &evs[i];
		char name[256], parent[256];
		int w = 0;

		if (e->tid != tid)
			continue;
		sym_name(e->func, name, sizeof(name));
		switch (e->type) {
		case EV_FUNC:
			if (parents)
				w = snprintf(buf + at, len - at, "F %s <-%s\n",
					     name,
					     sym_name(e->parent, parent,
						      sizeof(parent)));
			else
				w = snprintf(buf + at, len - at, "F %s\n",
					     name);
			break;
		case EV_ENTRY:
			w = snprintf(buf + at, len - at, "E %s %d\n", name,
				     e->depth);
			break;
		case EV_RETURN:
			w = snprintf(buf + at, len - at, "R %s %d\n", name,
				     e->depth);
			break;
		}
		if (w > 0)
			at += (size_t)w;
	}
}

static char got[1 << 16];

#define EXPECT_EVENTS(tid, parents, want)                                   \
	do {                                                                \
		ev_text(tid, parents, got, sizeof(got));                    \
		if (strcmp(got, want))                                      \
			RBT_FAIL("events differ\n--- want\n%s--- got\n%s",  \
				 want, got);                                \
	} while (0)

#define LIST_SET(list, text, append)                                        \
	do {                                                                \
		int r_ = rt_ftrace_list_set(list, text, append, errbuf,     \
					    sizeof(errbuf));                \
		if (r_)                                                     \
			RBT_FAIL("rt_ftrace_list_set(%s, %s): %d (%s)",    \
				 #list, #text, r_, errbuf);                 \
	} while (0)

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The lines of @s sorted by name, in place: a list reads in the order of
 * available_filter_functions (where the linker put the functions), and
 * the tests compare what it holds.
 */
static void sort_lines(char *s)
{
	char copy[4096], *lines[256], *save = NULL, *l;
	size_t n = 0, i;

	snprintf(copy, sizeof(copy), "%s", s);
	for (l = strtok_r(copy, "\n", &save); l && n < 256;
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	qsort(lines, n, sizeof(lines[0]), line_cmp);
	s[0] = '\0';
	for (i = 0; i < n; i++) {
		strcat(s, lines[i]);
		strcat(s, "\n");
	}
}

#define EXPECT_SHOW(list, want)                                             \
	do {                                                                \
		static char s_[4096];                                       \
		size_t n_ = rt_ftrace_list_show(list, s_, sizeof(s_));      \
		if (n_ < sizeof(s_))                                        \
			sort_lines(s_);                                     \
		if (strcmp(s_, want) || n_ != strlen(want))                 \
			RBT_FAIL("%s shows (%zu)\n%s--- want\n%s", #list,   \
				 n_, s_, want);                             \
	} while (0)

static void clear_lists(void)
{
	for (int l = 0; l < RT_FTRACE_NR_LISTS; l++)
		LIST_SET((enum rt_ftrace_list)l, "", false);
	atomic_store(&rt_max_graph_depth, 0);
}

/* Run rtfs_main() with @bits on; the events are this thread's. */
static void trace_main(unsigned int bits)
{
	ev_reset();
	enable(bits);
	rtfs_main();
	enable(0);
}

/*
 * Every thread's graph events nest exactly: an entry is at the depth of
 * the entries still open, a return closes the innermost one. With
 * @closed, nothing is left open.
 */
static void check_strict(int tid, bool closed)
{
	unsigned long stack[CHK_DEPTH];
	unsigned int n = ev_count(), i;
	int open = 0;

	for (i = 0; i < n; i++) {
		const struct ev *e = &evs[i];

		if (e->tid != tid)
			continue;
		if (e->type == EV_ENTRY) {
			if (e->depth != open || open >= CHK_DEPTH)
				RBT_FAIL("event %u: entry at depth %d, %d open",
					 i, e->depth, open);
			stack[open++] = e->func;
		} else if (e->type == EV_RETURN) {
			if (!open || stack[open - 1] != e->func ||
			    e->depth != open - 1)
				RBT_FAIL("event %u: return 0x%lx at depth %d "
					 "does not close the innermost entry "
					 "(%d open)",
					 i, e->func, e->depth, open);
			open--;
		}
	}
	if (closed && open) {
		ev_text(tid, false, got, sizeof(got));
		RBT_FAIL("%d entries never returned; events:\n%s", open, got);
	}
}

/*
 * Across switching: depths are never negative and every return closes an
 * entry of the same function at the same depth still open on the thread
 * (entries above it may stay open: their returns came while tracing was
 * off).
 */
static void check_returns_paired(int tid)
{
	struct {
		unsigned long func;
		int depth;
	} stack[CHK_DEPTH];
	unsigned int n = ev_count(), i;
	int open = 0, j;

	for (i = 0; i < n; i++) {
		const struct ev *e = &evs[i];

		if (e->tid != tid || e->type == EV_FUNC)
			continue;
		if (e->depth < 0)
			RBT_FAIL("event %u: negative depth %d", i, e->depth);
		if (e->type == EV_ENTRY) {
			ASSERT_LT(open, CHK_DEPTH);
			stack[open].func = e->func;
			stack[open].depth = e->depth;
			open++;
			continue;
		}
		for (j = open - 1; j >= 0; j--)
			if (stack[j].func == e->func &&
			    stack[j].depth == e->depth)
				break;
		if (j < 0)
			RBT_FAIL("event %u: return of 0x%lx at depth %d has no "
				 "entry", i, e->func, e->depth);
		open = j;
	}
}

/* ---- sequences ---------------------------------------------------------- */

static const char main_graph[] = "E rtfs_main 0\n"
				 "E rtfs_a 1\n"
				 "E rtfs_b 2\n"
				 "R rtfs_b 2\n"
				 "E rtfs_c 2\n"
				 "R rtfs_c 2\n"
				 "R rtfs_a 1\n"
				 "E rtfs_d 1\n"
				 "E rtfs_d 2\n"
				 "E rtfs_d 3\n"
				 "R rtfs_d 3\n"
				 "R rtfs_d 2\n"
				 "R rtfs_d 1\n"
				 "R rtfs_main 0\n";

static const char main_func[] = "F rtfs_main\n"
				"F rtfs_a\n"
				"F rtfs_b\n"
				"F rtfs_c\n"
				"F rtfs_d\n"
				"F rtfs_d\n"
				"F rtfs_d\n";

static void graph_sequence(void)
{
	unsigned int i, n, sp = 0;
	uint64_t stack[16], last = 0;

	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false, main_graph);
	n = ev_count();
	/* One clock read per hook: the entry's time is the calltime its
	 * return carries, and the times never go back. */
	for (i = 0; i < n; i++) {
		uint64_t t = evs[i].type == EV_RETURN ? evs[i].rettime :
							evs[i].calltime;

		if (evs[i].type == EV_ENTRY) {
			ASSERT_TRUE(sp < sizeof(stack) / sizeof(stack[0]));
			stack[sp++] = evs[i].calltime;
		} else if (evs[i].type == EV_RETURN) {
			ASSERT_TRUE(sp > 0);
			ASSERT_EQ_U(stack[--sp], evs[i].calltime);
			ASSERT_LE_U(evs[i].calltime, evs[i].rettime);
			ASSERT_EQ(evs[i].overrun, 0);
		} else {
			continue;
		}
		ASSERT_LE_U(last, t);
		last = t;
	}
	ASSERT_EQ(sp, 0);
	/* Again: the return stack is empty after a balanced run. */
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false, main_graph);
}

static void function_sequence(void)
{
	ev_reset();
	enable(RT_FTRACE_FUNCTION);
	rtfs_main();
	enable(0);
	EXPECT_EVENTS(0, true,
		      "F rtfs_main <-function_sequence\n"
		      "F rtfs_a <-rtfs_main\n"
		      "F rtfs_b <-rtfs_a\n"
		      "F rtfs_c <-rtfs_a\n"
		      "F rtfs_d <-rtfs_main\n"
		      "F rtfs_d <-rtfs_d\n"
		      "F rtfs_d <-rtfs_d\n");
}

static void both_tracers(void)
{
	trace_main(RT_FTRACE_FUNCTION | RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false,
		      "F rtfs_main\nE rtfs_main 0\n"
		      "F rtfs_a\nE rtfs_a 1\n"
		      "F rtfs_b\nE rtfs_b 2\nR rtfs_b 2\n"
		      "F rtfs_c\nE rtfs_c 2\nR rtfs_c 2\n"
		      "R rtfs_a 1\n"
		      "F rtfs_d\nE rtfs_d 1\n"
		      "F rtfs_d\nE rtfs_d 2\n"
		      "F rtfs_d\nE rtfs_d 3\n"
		      "R rtfs_d 3\nR rtfs_d 2\nR rtfs_d 1\n"
		      "R rtfs_main 0\n");
}

/* ---- dlopen ------------------------------------------------------------- */

static void (*dl_entry)(void);

static void dl_load(void)
{
	void *h = dlopen(RTF_DLSAMPLE, RTLD_NOW);

	if (!h)
		RBT_FAIL("dlopen(%s): %s", RTF_DLSAMPLE, dlerror());
	*(void **)&dl_entry = dlsym(h, "rtdl_entry");
	ASSERT_NOT_NULL(dl_entry);
}

static void dlopen_module(void)
{
	struct rt_sym s;

	/* A failing dlopen() still fails, and says why. */
	ASSERT_NULL(dlopen("/nonexistent/libnothere.so", RTLD_NOW));
	ASSERT_NOT_NULL(dlerror());

	dl_load();
	ASSERT_TRUE(rt_sym_lookup((unsigned long)dl_entry, &s));
	ASSERT_EQ(strcmp(s.name, "rtdl_entry"), 0);
	ASSERT_EQ_U(s.start, (unsigned long)dl_entry);
	ASSERT_NOT_NULL(strstr(s.module, "/libdlsample.so"));
	ASSERT_NOT_NULL(rt_sym_modname(&s));
	ASSERT_EQ(strcmp(rt_sym_modname(&s), "libdlsample.so"), 0);

	ev_reset();
	enable(RT_FTRACE_GRAPH | RT_FTRACE_FUNCTION);
	dl_entry();
	enable(0);
	EXPECT_EVENTS(0, false,
		      "F rtdl_entry [libdlsample.so]\n"
		      "E rtdl_entry [libdlsample.so] 0\n"
		      "F rtdl_leaf [libdlsample.so]\n"
		      "E rtdl_leaf [libdlsample.so] 1\n"
		      "R rtdl_leaf [libdlsample.so] 1\n"
		      "F rtdl_probe [libdlsample.so]\n"
		      "E rtdl_probe [libdlsample.so] 1\n"
		      "R rtdl_probe [libdlsample.so] 1\n"
		      "R rtdl_entry [libdlsample.so] 0\n");
}

static void available_functions(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	dl_load();
	f = open_memstream(&text, &len);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(rt_ftrace_available_functions(f), 0);
	fclose(f);
	ASSERT_NOT_NULL(strstr(text, "\nrtfs_main\n"));
	ASSERT_NOT_NULL(strstr(text, "\nrtfs_d\n"));
	ASSERT_NOT_NULL(strstr(text, "\nrtdl_entry [libdlsample.so]\n"));
	ASSERT_NULL(strstr(text, "\nrtfs_sink")); /* a variable */
	free(text);
	ASSERT_ERR(rt_ftrace_available_functions(NULL), EINVAL);
}

/* ---- filters ------------------------------------------------------------ */

static void filter_globs(void)
{
	static const struct {
		const char *glob;
		const char *show; /* NULL: not checked (many lines) */
		const char *events;
	} t[] = {
		{ "rtfs_a", "rtfs_a\n", "F rtfs_a\n" },
		{ "rtfs_*", NULL, main_func },
		{ "*rtfs_main", "rtfs_main\n", "F rtfs_main\n" },
		{ "*rtfs_[bc]*", "rtfs_b\nrtfs_c\n", "F rtfs_b\nF rtfs_c\n" },
		{ "rtfs*in", "rtfs_main\n", "F rtfs_main\n" },
		{ "rtfs_?", "rtfs_a\nrtfs_b\nrtfs_c\nrtfs_d\n",
		  "F rtfs_a\nF rtfs_b\nF rtfs_c\nF rtfs_d\nF rtfs_d\n"
		  "F rtfs_d\n" },
		{ "rtfs_[ad]", "rtfs_a\nrtfs_d\n",
		  "F rtfs_a\nF rtfs_d\nF rtfs_d\nF rtfs_d\n" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		rbt_note("glob '%s'", t[i].glob);
		LIST_SET(RT_FTRACE_FILTER, t[i].glob, false);
		if (t[i].show)
			EXPECT_SHOW(RT_FTRACE_FILTER, t[i].show);
		trace_main(RT_FTRACE_FUNCTION);
		EXPECT_EVENTS(0, false, t[i].events);
	}
	clear_lists();
	EXPECT_SHOW(RT_FTRACE_FILTER, "");
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, main_func);
}

static void filter_remove(void)
{
	LIST_SET(RT_FTRACE_FILTER, "rtfs_?", false);
	LIST_SET(RT_FTRACE_FILTER, "!rtfs_b", true);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_a\nrtfs_c\nrtfs_d\n");
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, "F rtfs_a\nF rtfs_c\nF rtfs_d\nF rtfs_d\n"
				"F rtfs_d\n");

	/* Adds and removals in one write, in order. */
	LIST_SET(RT_FTRACE_FILTER, "rtfs_[a-d] !rtfs_d rtfs_main", false);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_a\nrtfs_b\nrtfs_c\nrtfs_main\n");
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, "F rtfs_main\nF rtfs_a\nF rtfs_b\nF rtfs_c\n");

	/* Removing what is not there changes nothing. */
	LIST_SET(RT_FTRACE_FILTER, "!rtfs_leaf", true);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_a\nrtfs_b\nrtfs_c\nrtfs_main\n");

	/* Removing everything empties the list: every function again. */
	LIST_SET(RT_FTRACE_FILTER, "!rtfs_*", true);
	EXPECT_SHOW(RT_FTRACE_FILTER, "");
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, main_func);
}

static void filter_append_replace(void)
{
	char small[5];

	LIST_SET(RT_FTRACE_FILTER, "rtfs_a", false);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_a\n");
	LIST_SET(RT_FTRACE_FILTER, "rtfs_b", true);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_a\nrtfs_b\n");
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, "F rtfs_a\nF rtfs_b\n");
	/* Appending what is there already: no duplicate. */
	LIST_SET(RT_FTRACE_FILTER, "rtfs_a", true);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_a\nrtfs_b\n");

	LIST_SET(RT_FTRACE_FILTER, "rtfs_c", false);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_c\n");
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, "F rtfs_c\n");

	/* An empty append changes nothing; an empty write clears. */
	LIST_SET(RT_FTRACE_FILTER, "  \n", true);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_c\n");
	LIST_SET(RT_FTRACE_FILTER, NULL, false);
	EXPECT_SHOW(RT_FTRACE_FILTER, "");

	/* snprintf semantics. */
	LIST_SET(RT_FTRACE_FILTER, "rtfs_main rtfs_a", false);
	ASSERT_EQ_U(rt_ftrace_list_show(RT_FTRACE_FILTER, small, sizeof(small)),
		    strlen("rtfs_a\nrtfs_main\n"));
	ASSERT_EQ(strcmp(small, "rtfs"), 0);
	ASSERT_EQ_U(rt_ftrace_list_show(RT_FTRACE_FILTER, NULL, 0),
		    strlen("rtfs_a\nrtfs_main\n"));
}

static void filter_nomatch(void)
{
	LIST_SET(RT_FTRACE_FILTER, "rtfs_a", false);

	ASSERT_ERR(rt_ftrace_list_set(RT_FTRACE_FILTER, "nomatch_zzz*", false,
				      errbuf, sizeof(errbuf)),
		   EINVAL);
	ASSERT_EQ(strcmp(errbuf, "no function matches 'nomatch_zzz*'"), 0);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_a\n");

	/* One bad glob among good ones: nothing of the write is kept. */
	ASSERT_ERR(rt_ftrace_list_set(RT_FTRACE_FILTER, "rtfs_b nomatch_q",
				      true, errbuf, sizeof(errbuf)),
		   EINVAL);
	ASSERT_EQ(strcmp(errbuf, "no function matches 'nomatch_q'"), 0);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_a\n");
	ASSERT_ERR(rt_ftrace_list_set(RT_FTRACE_FILTER, "rtfs_b nomatch_q",
				      false, NULL, 0),
		   EINVAL);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_a\n");

	/* A removal must name a function too; "!" alone is not a glob. */
	ASSERT_ERR(rt_ftrace_list_set(RT_FTRACE_FILTER, "!nomatch_r", true,
				      errbuf, sizeof(errbuf)),
		   EINVAL);
	ASSERT_ERR(rt_ftrace_list_set(RT_FTRACE_FILTER, "!", true, errbuf,
				      sizeof(errbuf)),
		   EINVAL);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_a\n");

	ASSERT_ERR(rt_ftrace_list_set(RT_FTRACE_NR_LISTS, "rtfs_a", false,
				      errbuf, sizeof(errbuf)),
		   EINVAL);
	ASSERT_EQ_U(rt_ftrace_list_show(RT_FTRACE_NR_LISTS, errbuf,
					sizeof(errbuf)),
		    0);

	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, "F rtfs_a\n");
}

static void ftrace_notrace(void)
{
	LIST_SET(RT_FTRACE_NOTRACE, "rtfs_b rtfs_d", false);
	EXPECT_SHOW(RT_FTRACE_NOTRACE, "rtfs_b\nrtfs_d\n");
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, "F rtfs_main\nF rtfs_a\nF rtfs_c\n");
	/* The graph tracer obeys it too: the functions are not there. */
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false,
		      "E rtfs_main 0\nE rtfs_a 1\nE rtfs_c 2\nR rtfs_c 2\n"
		      "R rtfs_a 1\nR rtfs_main 0\n");
	/* notrace wins over the filter. */
	LIST_SET(RT_FTRACE_FILTER, "rtfs_[ab]", false);
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, "F rtfs_a\n");
}

static void filter_graph(void)
{
	/* Depth counts the traced functions only, as in the kernel. */
	LIST_SET(RT_FTRACE_FILTER, "rtfs_main rtfs_b", false);
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false,
		      "E rtfs_main 0\nE rtfs_b 1\nR rtfs_b 1\nR rtfs_main 0\n");
	LIST_SET(RT_FTRACE_FILTER, "rtfs_d", false);
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false,
		      "E rtfs_d 0\nE rtfs_d 1\nE rtfs_d 2\nR rtfs_d 2\n"
		      "R rtfs_d 1\nR rtfs_d 0\n");
}

static void graph_function(void)
{
	/* Only below rtfs_a; everything it calls. */
	LIST_SET(RT_GRAPH_FUNCTION, "rtfs_a", false);
	EXPECT_SHOW(RT_GRAPH_FUNCTION, "rtfs_a\n");
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false,
		      "E rtfs_a 0\nE rtfs_b 1\nR rtfs_b 1\nE rtfs_c 1\n"
		      "R rtfs_c 1\nR rtfs_a 0\n");
	/* The function tracer does not look at it. */
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, main_func);
	/* A recursive root: the inner calls are its callees. */
	LIST_SET(RT_GRAPH_FUNCTION, "rtfs_d rtfs_c", false);
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false,
		      "E rtfs_c 0\nR rtfs_c 0\n"
		      "E rtfs_d 0\nE rtfs_d 1\nE rtfs_d 2\nR rtfs_d 2\n"
		      "R rtfs_d 1\nR rtfs_d 0\n");
}

static void graph_notrace(void)
{
	LIST_SET(RT_GRAPH_NOTRACE, "rtfs_a", false);
	EXPECT_SHOW(RT_GRAPH_NOTRACE, "rtfs_a\n");
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false,
		      "E rtfs_main 0\nE rtfs_d 1\nE rtfs_d 2\nE rtfs_d 3\n"
		      "R rtfs_d 3\nR rtfs_d 2\nR rtfs_d 1\nR rtfs_main 0\n");
	/* A recursive one: nothing below the outermost either. */
	LIST_SET(RT_GRAPH_NOTRACE, "rtfs_d", false);
	trace_main(RT_FTRACE_GRAPH | RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false,
		      "F rtfs_main\nE rtfs_main 0\n"
		      "F rtfs_a\nE rtfs_a 1\n"
		      "F rtfs_b\nE rtfs_b 2\nR rtfs_b 2\n"
		      "F rtfs_c\nE rtfs_c 2\nR rtfs_c 2\n"
		      "R rtfs_a 1\n"
		      "F rtfs_d\nF rtfs_d\nF rtfs_d\n"
		      "R rtfs_main 0\n");
	/* And once it returned, tracing goes on. */
	ev_reset();
	enable(RT_FTRACE_GRAPH);
	rtfs_d(2);
	rtfs_a();
	enable(0);
	EXPECT_EVENTS(0, false,
		      "E rtfs_a 0\nE rtfs_b 1\nR rtfs_b 1\nE rtfs_c 1\n"
		      "R rtfs_c 1\nR rtfs_a 0\n");
}

static void max_graph_depth(void)
{
	atomic_store(&rt_max_graph_depth, 2);
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false,
		      "E rtfs_main 0\nE rtfs_a 1\nR rtfs_a 1\nE rtfs_d 1\n"
		      "R rtfs_d 1\nR rtfs_main 0\n");
	atomic_store(&rt_max_graph_depth, 1);
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false, "E rtfs_main 0\nR rtfs_main 0\n");
	atomic_store(&rt_max_graph_depth, 0);
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false, main_graph);
}

/* Deeper than the return stack: the rest is counted, not recorded. */
static void overrun(void)
{
	unsigned int n, i, entries = 0, returns = 0;

	ev_reset();
	enable(RT_FTRACE_GRAPH);
	rtfs_d(300);
	enable(0);
	n = ev_count();
	for (i = 0; i < n; i++) {
		if (evs[i].type == EV_ENTRY) {
			ASSERT_EQ(evs[i].depth, entries);
			entries++;
		} else if (evs[i].type == EV_RETURN) {
			returns++;
			ASSERT_EQ(evs[i].depth, 256 - returns);
			ASSERT_EQ(evs[i].overrun, 300 - 256);
		}
	}
	ASSERT_EQ(entries, 256);
	ASSERT_EQ(returns, 256);
	check_strict(0, true);
}

/* A filter naming a function of an object loaded earlier. */
static void filter_dlopen(void)
{
	dl_load();
	LIST_SET(RT_FTRACE_FILTER, "rtdl_leaf", false);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtdl_leaf [libdlsample.so]\n");
	ev_reset();
	enable(RT_FTRACE_FUNCTION | RT_FTRACE_GRAPH);
	dl_entry();
	rtfs_main();
	enable(0);
	EXPECT_EVENTS(0, true,
		      "F rtdl_leaf [libdlsample.so] <-rtdl_entry "
		      "[libdlsample.so]\n"
		      "E rtdl_leaf [libdlsample.so] 0\n"
		      "R rtdl_leaf [libdlsample.so] 0\n");
}

/* A glob written before the load selects the new object's functions. */
static void filter_reresolve(void)
{
	LIST_SET(RT_FTRACE_FILTER, "rt*_probe", false);
	LIST_SET(RT_GRAPH_NOTRACE, "rtfs_main", false);
	EXPECT_SHOW(RT_FTRACE_FILTER, "rtfs_probe\n");
	dl_load();
	EXPECT_SHOW(RT_FTRACE_FILTER,
		    "rtdl_probe [libdlsample.so]\nrtfs_probe\n");
	EXPECT_SHOW(RT_GRAPH_NOTRACE, "rtfs_main\n");
	ev_reset();
	enable(RT_FTRACE_FUNCTION);
	dl_entry();
	rtfs_probe();
	rtfs_main();
	enable(0);
	EXPECT_EVENTS(0, false, "F rtdl_probe [libdlsample.so]\n"
				"F rtfs_probe\n");
}

/* ---- switches ----------------------------------------------------------- */

static void stop_switch(void)
{
	LIST_SET(RT_FTRACE_NOTRACE, "rtfs_b", false);
	atomic_store(&rt_function_trace_stop, 1);
	trace_main(RT_FTRACE_FUNCTION | RT_FTRACE_GRAPH);
	ASSERT_EQ(ev_count(), 0);
	atomic_store(&rt_function_trace_stop, 0);
	clear_lists();
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false, main_graph);
}

static void enabled_zero(void)
{
	LIST_SET(RT_FTRACE_FILTER, "rtfs_*", false);
	trace_main(0);
	ASSERT_EQ(ev_count(), 0);
	clear_lists();
	trace_main(0);
	ASSERT_EQ(ev_count(), 0);
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, main_func);
}

/* The doubles call instrumented code: it is not traced, nothing loops. */
static void recursion(void)
{
	atomic_store(&ev_call_sample, 1);
	trace_main(RT_FTRACE_FUNCTION);
	EXPECT_EVENTS(0, false, main_func);
	ASSERT_EQ(atomic_load(&ev_sample_calls), 7);

	atomic_store(&ev_sample_calls, 0);
	trace_main(RT_FTRACE_GRAPH | RT_FTRACE_FUNCTION);
	atomic_store(&ev_call_sample, 0);
	ASSERT_EQ(atomic_load(&ev_sample_calls), 3 * 7);
	check_strict(0, true);
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false, main_graph);
}

/* errno is the traced code's: the hooks leave it alone. */
static void *errno_worker(void *arg)
{
	int seen;

	(void)arg;
	errno = 4242;
	seen = rtfs_errno_get();
	return (void *)(intptr_t)(seen == 4242 && errno == 4242);
}

static void errno_kept(void)
{
	pthread_t th;
	void *ok;

	LIST_SET(RT_FTRACE_NOTRACE, "rtfs_b", false);
	enable(RT_FTRACE_FUNCTION | RT_FTRACE_GRAPH);
	ASSERT_TRUE(errno_worker(NULL));
	/* A new thread: its first read-side section registers it. */
	ASSERT_EQ(pthread_create(&th, NULL, errno_worker, NULL), 0);
	ASSERT_EQ(pthread_join(th, &ok), 0);
	enable(0);
	ASSERT_TRUE(ok);
}

/* ---- balance across switching ------------------------------------------- */

static void cb_graph_on(void)
{
	enable(RT_FTRACE_GRAPH);
}

static void cb_graph_off(void)
{
	enable(0);
}

static void cb_stop(void)
{
	atomic_store(&rt_function_trace_stop, 1);
}

static void balance_toggle(void)
{
	/* On in the middle: exits of functions entered before are not
	 * returns; nothing is unbalanced and the depths start at 0. */
	ev_reset();
	rtfs_toggle(cb_graph_on);
	enable(0);
	EXPECT_EVENTS(0, false,
		      "E rtfs_c 0\nR rtfs_c 0\n"
		      "E rtfs_a 0\nE rtfs_b 1\nR rtfs_b 1\nE rtfs_c 1\n"
		      "R rtfs_c 1\nR rtfs_a 0\n");

	/* Off in the middle: the entries stay open... */
	ev_reset();
	enable(RT_FTRACE_GRAPH);
	rtfs_toggle(cb_graph_off);
	EXPECT_EVENTS(0, false,
		      "E rtfs_toggle 0\nE rtfs_mid 1\nE rtfs_b 2\n"
		      "R rtfs_b 2\n");
	/* ...and the next entry finds their frames stale. */
	trace_main(RT_FTRACE_GRAPH);
	EXPECT_EVENTS(0, false, main_graph);

	/* The same with the stop switch. */
	ev_reset();
	enable(RT_FTRACE_GRAPH);
	rtfs_toggle(cb_stop);
	atomic_store(&rt_function_trace_stop, 0);
	rtfs_main();
	enable(0);
	check_returns_paired(0);

	/* Many switches at random points: never an unpaired return. */
	ev_reset();
	for (int i = 0; i < 2000; i++) {
		enable(rbt_rand_range(0, 1) ? RT_FTRACE_GRAPH : 0);
		switch (rbt_rand_range(0, 3)) {
		case 0:
			rtfs_main();
			break;
		case 1:
			rtfs_toggle(rbt_rand_range(0, 1) ? cb_graph_on :
							   cb_graph_off);
			break;
		case 2:
			rtfs_d((int)rbt_rand_range(1, 5));
			break;
		default:
			rtfs_mid(rbt_rand_range(0, 1) ? cb_graph_on :
							cb_graph_off);
			break;
		}
	}
	enable(0);
	check_returns_paired(0);
	trace_main(RT_FTRACE_GRAPH);
	check_strict(0, true);
}

/* ---- signal handlers ---------------------------------------------------- */

static _Atomic int sig_stop;
static _Atomic unsigned int sig_handled;

static void sig_handler(int sig)
{
	(void)sig;
	rtfs_handler_body();
	atomic_fetch_add_explicit(&sig_handled, 1, memory_order_relaxed);
}

struct sig_worker {
	void *altstack;
	size_t altlen;
};

static void *sig_worker(void *arg)
{
	struct sig_worker *w = arg;
	stack_t ss = { 0 }, old;

	ev_tid = 1;
	if (w->altstack) {
		ss.ss_sp = w->altstack;
		ss.ss_size = w->altlen;
		ASSERT_EQ(sigaltstack(&ss, &old), 0);
	}
	rtfs_loop(&sig_stop);
	/* Give back what the thread had (a sanitizer's own, maybe). */
	if (w->altstack)
		ASSERT_EQ(sigaltstack(&old, NULL), 0);
	return NULL;
}

/*
 * @alt: the handler runs on an alternate stack placed just above the
 * thread's stack, so its entries lie above every frame of the code it
 * interrupts: those frames must not be taken for stale.
 */
static void signal_run(bool alt)
{
	const size_t stack_len = 4 << 20, alt_len = 1 << 20;
	struct sig_worker w = { 0 };
	struct sigaction sa = { 0 };
	unsigned int i, n, handlers = 0;
	pthread_attr_t attr;
	char *mem = NULL;
	pthread_t th;

	sa.sa_handler = sig_handler;
	sa.sa_flags = SA_RESTART | (alt ? SA_ONSTACK : 0);
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);

	ASSERT_EQ(pthread_attr_init(&attr), 0);
	if (alt) {
		mem = mmap(NULL, stack_len + alt_len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_TRUE(mem != MAP_FAILED);
		ASSERT_EQ(pthread_attr_setstack(&attr, mem, stack_len), 0);
		w.altstack = mem + stack_len;
		w.altlen = alt_len;
	}

	ev_reset();
	atomic_store(&sig_stop, 0);
	atomic_store(&sig_handled, 0);
	enable(RT_FTRACE_GRAPH);
	ASSERT_EQ(pthread_create(&th, &attr, sig_worker, &w), 0);
	/* The first event is the worker's entry into rtfs_loop(). */
	for (i = 0; !atomic_load(&ev_nr); i++) {
		rbt_msleep(1);
		if (i > 5000 * rbt_timeout_mult())
			RBT_FAIL("the worker never entered rtfs_loop()");
	}
	for (i = 0; i < 50; i++) {
		unsigned int before = atomic_load(&sig_handled);
		unsigned int waited = 0;

		ASSERT_EQ(pthread_kill(th, SIGUSR1), 0);
		while (atomic_load(&sig_handled) == before) {
			rbt_msleep(1);
			if (++waited > 5000 * rbt_timeout_mult())
				RBT_FAIL("signal %u not handled", i);
			/*
			 * Send it again now and then: TSan's runtime defers a
			 * signal to the thread's next interceptor and can drop
			 * one that arrives while the thread starts (seen about
			 * once in 50 runs under load; the worker was found in
			 * its loop's nanosleep() with nothing pending). A
			 * second SIGUSR1 is harmless: the checks below count
			 * the handlers that ran, whatever their number.
			 */
			if (waited % 200 == 0)
				ASSERT_EQ(pthread_kill(th, SIGUSR1), 0);
		}
	}
	atomic_store(&sig_stop, 1);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	enable(0);
	pthread_attr_destroy(&attr);
	if (mem)
		munmap(mem, stack_len + alt_len);
	signal(SIGUSR1, SIG_DFL);

	check_strict(1, true);
	n = ev_count();
	ASSERT_LT_U(n, EV_MAX);
	for (i = 0; i < n; i++) {
		struct rt_sym s;

		if (evs[i].type != EV_ENTRY ||
		    evs[i].func != (unsigned long)rtfs_handler_body)
			continue;
		handlers++;
		/* Nested in the interrupted loop... */
		ASSERT_GE(evs[i].depth, 1);
		/* ...and its own callee nested in it. */
		ASSERT_LT_U(i + 2, n);
		ASSERT_TRUE(rt_sym_lookup(evs[i + 1].func, &s));
		ASSERT_EQ(strcmp(s.name, "rtfs_c"), 0);
		ASSERT_EQ(evs[i + 1].type, EV_ENTRY);
		ASSERT_EQ(evs[i + 1].depth, evs[i].depth + 1);
	}
	rbt_note("%u of 50 handlers traced", handlers);
	ASSERT_GE(handlers, 1);
}

static void signal_nested(void)
{
	signal_run(false);
}

static void signal_altstack(void)
{
	signal_run(true);
}

/* ---- threads against list changes --------------------------------------- */

static _Atomic int thr_stop;

static void *thr_worker(void *arg)
{
	unsigned long calls = 0;

	ev_tid = (int)(intptr_t)arg;
	while (!atomic_load_explicit(&thr_stop, memory_order_relaxed) ||
	       !calls) {
		rtfs_main();
		calls++;
	}
	if (chk_depth)
		RBT_FAIL("thread %d: %d graph entries never returned", ev_tid,
			 chk_depth);
	return NULL;
}

static void threads_filters(void)
{
	static const struct {
		enum rt_ftrace_list list;
		const char *text;
		bool append;
	} change[] = {
		{ RT_FTRACE_FILTER, "rtfs_a", false },
		{ RT_FTRACE_NOTRACE, "rtfs_c", false },
		{ RT_GRAPH_FUNCTION, "rtfs_a rtfs_b", false },
		{ RT_FTRACE_FILTER, "rtfs_b rtfs_c", false },
		{ RT_GRAPH_NOTRACE, "rtfs_b", false },
		{ RT_FTRACE_NOTRACE, "", false },
		{ RT_FTRACE_FILTER, "rtfs_a", true },
		{ RT_GRAPH_FUNCTION, "", false },
		{ RT_FTRACE_FILTER, "rtfs_[abc]", false },
		{ RT_GRAPH_NOTRACE, "", false },
		{ RT_FTRACE_NOTRACE, "rtfs_d", false },
	};
	const size_t nr_change = sizeof(change) / sizeof(change[0]);
	/* every change 90 times; in a sanitizer build (a change takes 10
	 * to 40 times as long there) 20 times and more, still under each
	 * of the three graph depths */
	const int rounds = 1000 / (int)rbt_timeout_mult();
	pthread_t th[4];
	int i;

	/* Whatever the lists, only these pass set_ftrace_filter. */
	ev_allowed[0] = (unsigned long)rtfs_a;
	ev_allowed[1] = (unsigned long)rtfs_b;
	ev_allowed[2] = (unsigned long)rtfs_c;
	LIST_SET(RT_FTRACE_FILTER, "rtfs_[abc]", false);
	atomic_store(&ev_check, 1);
	enable(RT_FTRACE_FUNCTION | RT_FTRACE_GRAPH);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, thr_worker,
					 (void *)(intptr_t)(i + 1)),
			  0);
	for (i = 0; i < rounds; i++) {
		LIST_SET(change[i % nr_change].list, change[i % nr_change].text,
			 change[i % nr_change].append);
		if (i % 50 == 0)
			atomic_store(&rt_max_graph_depth, (i / 50) % 3);
	}
	atomic_store(&thr_stop, 1);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_join(th[i], NULL), 0);
	enable(0);
	atomic_store(&ev_check, 0);
	rbt_note("%lu events checked", atomic_load(&ev_checked));
	if (atomic_load(&ev_bad))
		RBT_FAIL("%lu bad events; first: %s", atomic_load(&ev_bad),
			 ev_bad_what);
	ASSERT_GT_U(atomic_load(&ev_checked), 0);
}

/* ---- symbols ------------------------------------------------------------ */

#if defined(__x86_64__) || defined(__i386__)
/* A function symbol with no size (.size omitted). */
void rtft_nosize(void);
__asm__(".text\n"
	".globl rtft_nosize\n"
	".type rtft_nosize, @function\n"
	"rtft_nosize:\n"
	"\tret\n\tnop\n\tnop\n\tnop\n");
#endif

static void sym_format(void)
{
	unsigned long a = (unsigned long)rtfs_a;
	char buf[128], want[128], exe[PATH_MAX];
	struct rt_sym s;
	ssize_t n;

	ASSERT_TRUE(rt_sym_lookup(a, &s));
	ASSERT_EQ(strcmp(s.name, "rtfs_a"), 0);
	ASSERT_EQ_U(s.start, a);
	ASSERT_GT_U(s.size, 3);
	ASSERT_NULL(rt_sym_modname(&s));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_GT(n, 0);
	exe[n] = '\0';
	ASSERT_EQ(strcmp(s.module, exe), 0);

	/* Inside the function: the same symbol. */
	ASSERT_TRUE(rt_sym_lookup(a + 3, &s));
	ASSERT_EQ(strcmp(s.name, "rtfs_a"), 0);

	snprintf(want, sizeof(want), "rtfs_a+0x3/0x%lx", s.size);
	ASSERT_EQ_U(rt_sym_format(buf, sizeof(buf), a + 3, true), strlen(want));
	ASSERT_EQ(strcmp(buf, want), 0);
	ASSERT_EQ_U(rt_sym_format(buf, sizeof(buf), a + 3, false), 6);
	ASSERT_EQ(strcmp(buf, "rtfs_a"), 0);
	ASSERT_EQ_U(rt_sym_format(buf, sizeof(buf), 0x10, true), 4);
	ASSERT_EQ(strcmp(buf, "0x10"), 0);
	ASSERT_FALSE(rt_sym_lookup(0x10, &s));
	/* snprintf semantics */
	ASSERT_EQ_U(rt_sym_format(buf, 5, a + 3, true), strlen(want));
	ASSERT_EQ(strcmp(buf, "rtfs"), 0);
	ASSERT_EQ_U(rt_sym_format(NULL, 0, a, false), 6);

	/* A function of libc, by its .dynsym. */
	ASSERT_TRUE(rt_sym_lookup((unsigned long)&getpid, &s));
	ASSERT_NOT_NULL(rt_sym_modname(&s));

#if defined(__x86_64__) || defined(__i386__)
	/* No size: the nearest symbol below. */
	ASSERT_TRUE(rt_sym_lookup((unsigned long)rtft_nosize + 2, &s));
	ASSERT_EQ(strcmp(s.name, "rtft_nosize"), 0);
	ASSERT_EQ_U(s.size, 0);
	rt_sym_format(buf, sizeof(buf), (unsigned long)rtft_nosize + 2, true);
	ASSERT_EQ(strcmp(buf, "rtft_nosize+0x2"), 0);
#endif
}

static int count_cb(const struct rt_sym *sym, void *arg)
{
	unsigned long *n = arg;

	/* Not the compiler's local aliases ("rtfs_d.localalias"). */
	if (!strncmp(sym->name, "rtfs_", 5) && !strchr(sym->name, '.'))
		n[0]++;
	n[1]++;
	return 0;
}

static int stop_cb(const struct rt_sym *sym, void *arg)
{
	(void)sym;
	return ++*(int *)arg == 3 ? -42 : 0;
}

static void syms_walk(void)
{
	unsigned long n[2] = { 0, 0 };
	int calls = 0;

	ASSERT_EQ(rt_syms_foreach(count_cb, n), 0);
	ASSERT_EQ_U(n[0], 13); /* the functions of sample.c */
	ASSERT_EQ(rt_syms_foreach(stop_cb, &calls), -42);
	ASSERT_EQ(calls, 3);
	/* Nothing new: nothing read. */
	ASSERT_EQ(rt_syms_refresh(), 0);
	dl_load();
	ASSERT_EQ(rt_syms_refresh(), 0); /* dlopen() did it */
}

static const struct rbt_case cases[] = {
	RBT_CASE(graph_sequence),
	RBT_CASE(function_sequence),
	RBT_CASE(both_tracers),
	RBT_CASE(dlopen_module),
	RBT_CASE(available_functions),
	RBT_CASE(filter_globs),
	RBT_CASE(filter_remove),
	RBT_CASE(filter_append_replace),
	RBT_CASE(filter_nomatch),
	RBT_CASE(ftrace_notrace),
	RBT_CASE(filter_graph),
	RBT_CASE(graph_function),
	RBT_CASE(graph_notrace),
	RBT_CASE(max_graph_depth),
	RBT_CASE(overrun),
	RBT_CASE(filter_dlopen),
	RBT_CASE(filter_reresolve),
	RBT_CASE(stop_switch),
	RBT_CASE(enabled_zero),
	RBT_CASE(recursion),
	RBT_CASE(errno_kept),
	RBT_CASE(balance_toggle),
	RBT_CASE(signal_nested),
	RBT_CASE(signal_altstack),
	RBT_CASE(threads_filters),
	RBT_CASE(sym_format),
	RBT_CASE(syms_walk),
};

RBT_MAIN(cases)
