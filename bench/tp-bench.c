// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringtrace-tp-bench - what a tracepoint costs the program that calls it.
 *
 * Every case is a loop that calls one out-of-line function a fixed number
 * of times with the event's arguments (seq, a, b); only that function's
 * body differs from case to case:
 *
 *	empty		nothing: the loop and the call
 *	tp-disabled	trace_tpbench_call(), the event off
 *	tp-enabled	the same, the event on in the top instance (the
 *			write compiled in, the default)
 *	tp-outofline	trace_tpbench_outofline(), the same record, every
 *			write a call into the library
 *			(RINGTRACE_NO_INLINE_WRITE, tp-bench-outofline.c),
 *			on in the top instance
 *	tp-filter-reject  on, with a filter no record passes
 *	tp-filter-accept  on, with a filter every record passes
 *	tp-hist		on, with a hist trigger "hist:keys=a:vals=b" (the
 *			record written and counted in the table)
 *	ringbuf-reserve	the same 24-byte record reserved, filled and
 *			committed straight into a libringbuf buffer made
 *			with the top instance's options
 *	marker		ringtrace_marker_write() of 32 bytes of text
 *	fn-plain	a small function compiled without hooks
 *	fn-nop		the same compiled with -finstrument-functions,
 *			no function tracer current
 *	fn-function	... under the function tracer
 *	fn-graph	... under the function_graph tracer
 *	fn-stopped	... under function_graph with function_trace_stop
 *			set
 *	fn-patch-nop	the small function compiled with
 *			-fpatchable-function-entry=5 (x86-64): five NOPs
 *			the library leaves alone while no tracer runs
 *	fn-pg-nop	... with -pg -mfentry -mrecord-mcount: the call
 *			the library NOPs at start-up (dynamic ftrace)
 *	fn-patch-function  the patchable one under the function tracer,
 *			set_ftrace_filter naming it alone (its site the
 *			one patched into a call)
 *	fn-patch-graph	... under function_graph (its own entry, which
 *			calls the function's body)
 *	fn-pg-graph	the -pg -mfentry -mrecord-mcount one under
 *			function_graph, its site alone patched
 *	fn-patch-graph-nonleaf  a patchable function that calls the
 *			patchable one and nothing else, function_graph,
 *			the two sites alone patched: a call that is not a
 *			leaf (its entry written by its callee's, the
 *			callee's with its exit), against fn-patch-graph
 *	fn-plain-sites	the plain function called from 16 call sites in
 *			turn, in an order the CPU cannot learn (as a real
 *			program's returns go back to many callers)
 *	fn-patch-graph-sites  the patchable one so, under function_graph
 *	fn-plain-funcs	sixteen plain functions, a different one each
 *			call, in an order the CPU cannot learn (as a real
 *			program calls many functions)
 *	fn-patch-graph-funcs  sixteen patchable ones so, under
 *			function_graph, their sites alone patched
 *
 * Each case is compared with a named baseline of the same run (a ratio of
 * medians and a difference in ns). The runs of all cases are
 * interleaved, as ringbuf-bench does, so that a slow moment of the
 * machine lands on every case. The thread is pinned to one CPU.
 *
 * Every run checks its accounting, whatever the speed: the records the
 * case's buffer holds plus those it overwrote equal the calls times the
 * records each call writes (0 for the cases that must write nothing), and
 * no write was refused. A case that fails it, or cannot be set up, makes
 * the bench exit with status 1: a benchmark that measured nothing must
 * not look like a fast one.
 *
 * See bench/README.md and Documentation/bench.rst.
 */
/* An LGPL program: liburcu's read side inline in the write too, as
 * liburcu allows LGPL-compatible code (<ringtrace/inline_write.h>). */
#define _LGPL_SOURCE
#define CREATE_TRACE_POINTS
#include "tp-bench-events.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/frontend.h>
#include <ringbuf/ringbuf.h>
#include <ringtrace/tracer.h>

#include "clock.h"

#ifndef TPB_VERSION
#define TPB_VERSION "unknown"
#endif
#ifndef TPB_BUILD_TYPE
#define TPB_BUILD_TYPE "unknown"
#endif

/*
 * The functions the loops call are kept opaque to the loops: not inlined,
 * and (GCC's noipa) not analysed either, so that an empty one is still
 * called and every one is called the same way, whatever its body.
 */
#if defined(__has_attribute)
#if __has_attribute(noipa)
#define TPB_OPAQUE __attribute__((noipa))
#endif
#endif
#ifndef TPB_OPAQUE
#define TPB_OPAQUE __attribute__((noinline))
#endif

#ifndef TPB_HAVE_MCOUNT
#define TPB_HAVE_MCOUNT 0
#endif

/* tp-bench-fn.c, compiled with and without -finstrument-functions */
void tpb_fn_traced(unsigned long seq, int a, int b);
void tpb_fn_plain(unsigned long seq, int a, int b);
/* x86-64: -fpatchable-function-entry=5, -pg -mfentry -mrecord-mcount */
#if TPB_HAVE_MCOUNT
void tpb_fn_patch(unsigned long seq, int a, int b);
void tpb_fn_pg(unsigned long seq, int a, int b);
void tpb_fn_patch_call(unsigned long seq, int a, int b);
#endif
void tpb_tp_outofline(unsigned long seq, int a, int b);
bool tpb_outofline_on(void);

#define TPB_EVENT "tpbench:tpbench_call"
#define TPB_OUTOFLINE_EVENT "tpbench:tpbench_outofline"
#define TPB_MARKER_TEXT "tp-bench marker, 32 bytes of it."
#define TPB_MARKER_LEN (sizeof(TPB_MARKER_TEXT) - 1)
_Static_assert(TPB_MARKER_LEN == 32, "the marker text is 32 bytes");

static struct ringtrace_instance *tpb_top;
static struct ringbuf *tpb_raw;	/* the ringbuf-reserve case's buffer */
static uint16_t tpb_type;	/* the event's id, for the raw records */
static int32_t tpb_pid;

/* ---------------------------------------------------------------------- */
/* What the loops call                                                     */

static TPB_OPAQUE void tpb_empty(unsigned long seq, int a, int b)
{
	(void)seq;
	(void)a;
	(void)b;
}

static TPB_OPAQUE void tpb_tp(unsigned long seq, int a, int b)
{
	trace_tpbench_call(seq, a, b);
}

/*
 * What tpb_tp() writes when the event is on, without the tracer: the same
 * record, stored in place as the generated code stores it (records are
 * 4-byte aligned, see <ringtrace/event.h>), with the ring buffer's inline
 * write path, which the tracer uses too.
 */
static TPB_OPAQUE RINGTRACE_RECORD_ACCESS void
tpb_ringbuf(unsigned long seq, int a, int b)
{
	struct ringtrace_raw_tpbench_call *rec;
	struct ringbuf_event *e;

	e = ringbuf_reserve_inline(tpb_raw, sizeof(*rec));
	if (!e)
		return;
	rec = ringbuf_event_data_inline(e);
	rec->ent.type = tpb_type;
	rec->ent.flags = 0;
	rec->ent.preempt_count = 0;
	rec->ent.pid = tpb_pid;
	rec->seq = seq;
	rec->a = a;
	rec->b = b;
	ringbuf_commit_inline(tpb_raw);
}

static TPB_OPAQUE void tpb_marker(unsigned long seq, int a, int b)
{
	(void)seq;
	(void)a;
	(void)b;
	ringtrace_marker_write(tpb_top, TPB_MARKER_TEXT, TPB_MARKER_LEN);
}

/* One loop per callee, so that every call is direct. */
#define TPB_LOOP(fn)                                                        \
	static __attribute__((noinline)) void fn##_loop(unsigned long n)    \
	{                                                                   \
		for (unsigned long i = 0; i < n; i++)                       \
			fn(i, 1, 2);                                        \
	}
TPB_LOOP(tpb_empty)
TPB_LOOP(tpb_tp)
TPB_LOOP(tpb_tp_outofline)
TPB_LOOP(tpb_ringbuf)
TPB_LOOP(tpb_marker)
TPB_LOOP(tpb_fn_plain)
TPB_LOOP(tpb_fn_traced)
#if TPB_HAVE_MCOUNT
TPB_LOOP(tpb_fn_patch)
TPB_LOOP(tpb_fn_pg)
TPB_LOOP(tpb_fn_patch_call)
#endif

/*
 * One loop per callee again, but the call made from one of 16 call
 * sites chosen by a linear congruential sequence: each return goes back
 * to a caller the one before did not, as in a real program, where a
 * return that is not predicted from the call stack (a hijacked one, or
 * an indirect jump back) misses. The sequence is the same for every
 * callee.
 */
#define TPB_SITE(k, fn)                                                     \
	case k:                                                             \
		/* (a call site of its own: not merged with the others) */  \
		__asm__ volatile("# site " #k);                             \
		fn(i, 1, 2);                                                \
		break;
/* The loop over one of 16 cases chosen by the sequence: @CASE(k, fn)
 * makes case k (a call site, or a function, of its own). */
#define TPB_LOOP16(loop, CASE, fn)                                          \
	static __attribute__((noinline)) void loop(unsigned long n)         \
	{                                                                   \
		unsigned int x = 1;                                         \
                                                                            \
		for (unsigned long i = 0; i < n; i++) {                     \
			x = x * 1103515245u + 12345u;                       \
			switch ((x >> 16) & 15) {                           \
				CASE(0, fn) CASE(1, fn) CASE(2, fn)         \
				CASE(3, fn) CASE(4, fn) CASE(5, fn)         \
				CASE(6, fn) CASE(7, fn) CASE(8, fn)         \
				CASE(9, fn) CASE(10, fn) CASE(11, fn)       \
				CASE(12, fn) CASE(13, fn) CASE(14, fn)      \
				CASE(15, fn)                                \
			}                                                   \
		}                                                           \
	}
#define TPB_LOOP_SITES(fn) TPB_LOOP16(fn##_sites_loop, TPB_SITE, fn)
TPB_LOOP_SITES(tpb_fn_plain)
#if TPB_HAVE_MCOUNT
TPB_LOOP_SITES(tpb_fn_patch)
#endif

/*
 * The same sequence choosing one of 16 functions (fn_0 to fn_15,
 * tp-bench-fn.c) rather than one of 16 call sites of one function: a
 * trampoline that every traced function passes through sees the targets
 * of its branches change with every call, as it does in a real program.
 */
#define TPB_FUNC(k, fn)                                                     \
	case k:                                                             \
		fn##_##k(i, 1, 2);                                          \
		break;
#define TPB_LOOP_FUNCS(fn)                                                  \
	void fn##_0(unsigned long, int, int);                               \
	void fn##_1(unsigned long, int, int);                               \
	void fn##_2(unsigned long, int, int);                               \
	void fn##_3(unsigned long, int, int);                               \
	void fn##_4(unsigned long, int, int);                               \
	void fn##_5(unsigned long, int, int);                               \
	void fn##_6(unsigned long, int, int);                               \
	void fn##_7(unsigned long, int, int);                               \
	void fn##_8(unsigned long, int, int);                               \
	void fn##_9(unsigned long, int, int);                               \
	void fn##_10(unsigned long, int, int);                              \
	void fn##_11(unsigned long, int, int);                              \
	void fn##_12(unsigned long, int, int);                              \
	void fn##_13(unsigned long, int, int);                              \
	void fn##_14(unsigned long, int, int);                              \
	void fn##_15(unsigned long, int, int);                              \
	TPB_LOOP16(fn##_funcs_loop, TPB_FUNC, fn)
TPB_LOOP_FUNCS(tpb_fn_plain)
#if TPB_HAVE_MCOUNT
TPB_LOOP_FUNCS(tpb_fn_patch)
#endif

/* ---------------------------------------------------------------------- */
/* Setting the cases up                                                    */

static void tpb_msg(char *err, size_t len, const char *what, int ret,
		    const char *detail)
{
	snprintf(err, len, "%s: %s%s%s", what, strerror(ret < 0 ? -ret : ret),
		 detail && *detail ? ": " : "", detail ? detail : "");
}

/* set_event @event in the top instance; @on tells that it took. */
static int tpb_set_event(const char *event, bool (*on)(void), char *err,
			 size_t len)
{
	char e[256] = "", what[128];
	int ret = ringtrace_set_event(tpb_top, event, e, sizeof(e));

	snprintf(what, sizeof(what), "set_event %s", event);
	if (ret) {
		tpb_msg(err, len, what, ret, e);
		return -1;
	}
	if (!on()) {
		snprintf(err, len, "%s succeeded but the event is still off",
			 what);
		return -1;
	}
	return 0;
}

static bool tpb_call_on(void)
{
	return trace_tpbench_call_enabled();
}

static int tpb_event_on(char *err, size_t len)
{
	return tpb_set_event(TPB_EVENT, tpb_call_on, err, len);
}

static int tpb_filter(const char *expr, char *err, size_t len)
{
	char e[512] = "";
	int ret = ringtrace_set_filter(tpb_top, "tpbench", "tpbench_call",
				       expr, e, sizeof(e));

	if (ret) {
		tpb_msg(err, len, "filter", ret, e);
		return -1;
	}
	return 0;
}

static int tpb_tracer(const char *name, char *err, size_t len)
{
	int ret = ringtrace_set_tracer(tpb_top, name);

	if (ret) {
		char what[64];

		snprintf(what, sizeof(what), "current_tracer %s", name);
		tpb_msg(err, len, what, ret, NULL);
		return -1;
	}
	return 0;
}

static int tpb_setup_enabled(char *err, size_t len)
{
	return tpb_event_on(err, len);
}

static int tpb_setup_outofline(char *err, size_t len)
{
	return tpb_set_event(TPB_OUTOFLINE_EVENT, tpb_outofline_on, err, len);
}

/* a is always 1: "a < 0" rejects every record, "a > 0" accepts all. */
static int tpb_setup_reject(char *err, size_t len)
{
	if (tpb_event_on(err, len))
		return -1;
	return tpb_filter("a < 0", err, len);
}

static int tpb_setup_accept(char *err, size_t len)
{
	if (tpb_event_on(err, len))
		return -1;
	return tpb_filter("a > 0", err, len);
}

static int tpb_setup_hist(char *err, size_t len)
{
	char e[1024] = "";
	int ret;

	if (tpb_event_on(err, len))
		return -1;
	ret = ringtrace_set_trigger(tpb_top, "tpbench", "tpbench_call",
				    "hist:keys=a:vals=b", e, sizeof(e));
	if (ret) {
		tpb_msg(err, len, "hist trigger", ret, e);
		return -1;
	}
	return 0;
}

static int tpb_setup_function(char *err, size_t len)
{
	return tpb_tracer("function", err, len);
}

static int tpb_setup_graph(char *err, size_t len)
{
	return tpb_tracer("function_graph", err, len);
}

static int tpb_setup_stopped(char *err, size_t len)
{
	if (tpb_tracer("function_graph", err, len))
		return -1;
	ringtrace_function_trace_stop(true);
	return 0;
}

#if TPB_HAVE_MCOUNT
/* One patched site: set_ftrace_filter names @fn alone. */
static int tpb_patch_filter(const char *tracer, const char *fn, char *err,
			    size_t len)
{
	char why[128];
	int ret = ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, fn, false,
					    why, sizeof(why));

	if (ret) {
		tpb_msg(err, len, "set_ftrace_filter", ret, why);
		return -1;
	}
	return tpb_tracer(tracer, err, len);
}

static int tpb_setup_patch_function(char *err, size_t len)
{
	return tpb_patch_filter("function", "tpb_fn_patch", err, len);
}

static int tpb_setup_patch_graph(char *err, size_t len)
{
	return tpb_patch_filter("function_graph", "tpb_fn_patch", err, len);
}

static int tpb_setup_patch_graph_call(char *err, size_t len)
{
	return tpb_patch_filter("function_graph",
				"tpb_fn_patch tpb_fn_patch_call", err, len);
}

static int tpb_setup_pg_graph(char *err, size_t len)
{
	return tpb_patch_filter("function_graph", "tpb_fn_pg", err, len);
}

static int tpb_setup_patch_graph_funcs(char *err, size_t len)
{
	return tpb_patch_filter("function_graph", "tpb_fn_patch_[0-9]*", err,
				len);
}
#endif

/* Back to nothing traced, after every case. */
static void tpb_teardown(void)
{
	ringtrace_function_trace_stop(false);
	ringtrace_set_tracer(tpb_top, "nop");
	ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "", false, NULL, 0);
	ringtrace_set_filter(tpb_top, "tpbench", "tpbench_call", "0", NULL, 0);
	ringtrace_set_trigger(tpb_top, "tpbench", "tpbench_call",
			      "!hist:keys=a:vals=b", NULL, 0);
	ringtrace_clear_events(tpb_top);
}

/* ---------------------------------------------------------------------- */
/* The cases                                                               */

struct tpb_case {
	const char *id;
	const char *base;	/* the id of its baseline, or NULL */
	const char *what;
	void (*loop)(unsigned long n);
	int (*setup)(char *err, size_t len);	/* NULL: nothing to set */
	bool raw;		/* records go to tpb_raw, not the top buffer */
	unsigned int per_call;	/* records each call writes (0: none) */
	bool external;		/* measured by another program (tpb_lttng()) */
};

static const struct tpb_case tpb_cases[] = {
	{
		.id = "empty",
		.what = "an empty function taking the event's arguments",
		.loop = tpb_empty_loop,
	},
	{
		.id = "tp-disabled",
		.base = "empty",
		.what = "trace_tpbench_call(), the event disabled",
		.loop = tpb_tp_loop,
	},
	{
		.id = "tp-enabled",
		.base = "ringbuf-reserve",
		.what = "trace_tpbench_call(), enabled in the top instance, no filter (the write compiled in)",
		.loop = tpb_tp_loop,
		.setup = tpb_setup_enabled,
		.per_call = 1,
	},
	{
		.id = "tp-outofline",
		.base = "ringbuf-reserve",
		.what = "trace_tpbench_outofline(), the same record, every write a call into the library (RINGTRACE_NO_INLINE_WRITE), enabled in the top instance",
		.loop = tpb_tp_outofline_loop,
		.setup = tpb_setup_outofline,
		.per_call = 1,
	},
	{
		.id = "tp-filter-reject",
		.base = "tp-enabled",
		.what = "enabled, filter \"a < 0\" rejects every record (discarded)",
		.loop = tpb_tp_loop,
		.setup = tpb_setup_reject,
	},
	{
		.id = "tp-filter-accept",
		.base = "tp-enabled",
		.what = "enabled, filter \"a > 0\" accepts every record",
		.loop = tpb_tp_loop,
		.setup = tpb_setup_accept,
		.per_call = 1,
	},
	{
		.id = "tp-hist",
		.base = "tp-enabled",
		.what = "enabled, hist trigger \"hist:keys=a:vals=b\" (the record written and counted)",
		.loop = tpb_tp_loop,
		.setup = tpb_setup_hist,
		.per_call = 1,
	},
	{
		.id = "ringbuf-reserve",
		.base = "empty",
		.what = "the same record: ringbuf_reserve_inline(), fill, ringbuf_commit_inline()",
		.loop = tpb_ringbuf_loop,
		.raw = true,
		.per_call = 1,
	},
	{
		.id = "lttng-ust",
		.base = "ringbuf-reserve",
		.what = "an LTTng-UST tracepoint with a 16-byte payload (ringbuf-bench's LTTng baseline)",
		.per_call = 1,
		.external = true,
	},
	{
		.id = "marker",
		.base = "tp-enabled",
		.what = "ringtrace_marker_write() of 32 bytes of text",
		.loop = tpb_marker_loop,
		.per_call = 1,
	},
	{
		.id = "fn-plain",
		.what = "a small function, compiled without -finstrument-functions",
		.loop = tpb_fn_plain_loop,
	},
	{
		.id = "fn-nop",
		.base = "fn-plain",
		.what = "the same, instrumented; no function tracer (hooks return)",
		.loop = tpb_fn_traced_loop,
	},
	{
		.id = "fn-function",
		.base = "fn-plain",
		.what = "instrumented, function tracer (one record per call)",
		.loop = tpb_fn_traced_loop,
		.setup = tpb_setup_function,
		.per_call = 1,
	},
	{
		.id = "fn-graph",
		.base = "fn-plain",
		.what = "instrumented, function_graph tracer (entry and exit records)",
		.loop = tpb_fn_traced_loop,
		.setup = tpb_setup_graph,
		.per_call = 2,
	},
	{
		.id = "fn-stopped",
		.base = "fn-plain",
		.what = "instrumented, function_graph with function_trace_stop set",
		.loop = tpb_fn_traced_loop,
		.setup = tpb_setup_stopped,
	},
#if TPB_HAVE_MCOUNT
	{
		.id = "fn-patch-nop",
		.base = "fn-plain",
		.what = "the same, -fpatchable-function-entry=5; no tracer (NOPs)",
		.loop = tpb_fn_patch_loop,
	},
	{
		.id = "fn-pg-nop",
		.base = "fn-plain",
		.what = "the same, -pg -mfentry -mrecord-mcount; no tracer (NOP'd call)",
		.loop = tpb_fn_pg_loop,
	},
	{
		.id = "fn-patch-function",
		.base = "ringbuf-reserve",
		.what = "-fpatchable-function-entry=5, function tracer, its site alone patched",
		.loop = tpb_fn_patch_loop,
		.setup = tpb_setup_patch_function,
		.per_call = 1,
	},
	{
		.id = "fn-patch-graph",
		.base = "fn-plain",
		.what = "-fpatchable-function-entry=5, function_graph (its own entry)",
		.loop = tpb_fn_patch_loop,
		.setup = tpb_setup_patch_graph,
		.per_call = 2,
	},
	{
		.id = "fn-patch-graph-nonleaf",
		.base = "fn-patch-graph",
		.what = "-fpatchable-function-entry=5, function_graph, a call that calls fn-patch-graph's",
		.loop = tpb_fn_patch_call_loop,
		.setup = tpb_setup_patch_graph_call,
		.per_call = 4,
	},
	{
		.id = "fn-pg-graph",
		.base = "fn-plain",
		.what = "-pg -mfentry -mrecord-mcount, function_graph (its own entry)",
		.loop = tpb_fn_pg_loop,
		.setup = tpb_setup_pg_graph,
		.per_call = 2,
	},
#endif
	{
		.id = "fn-plain-sites",
		.base = "empty",
		.what = "fn-plain called from 16 call sites in an unlearnable order",
		.loop = tpb_fn_plain_sites_loop,
	},
#if TPB_HAVE_MCOUNT
	{
		.id = "fn-patch-graph-sites",
		.base = "fn-plain-sites",
		.what = "fn-patch-graph called from 16 call sites so",
		.loop = tpb_fn_patch_sites_loop,
		.setup = tpb_setup_patch_graph,
		.per_call = 2,
	},
#endif
	{
		.id = "fn-plain-funcs",
		.base = "empty",
		.what = "16 plain functions, one of them each call, in an unlearnable order",
		.loop = tpb_fn_plain_funcs_loop,
	},
#if TPB_HAVE_MCOUNT
	{
		.id = "fn-patch-graph-funcs",
		.base = "fn-plain-funcs",
		.what = "16 patchable functions so, function_graph, their sites alone patched",
		.loop = tpb_fn_patch_funcs_loop,
		.setup = tpb_setup_patch_graph_funcs,
		.per_call = 2,
	},
#endif
};

#define TPB_NR_CASES (sizeof(tpb_cases) / sizeof(tpb_cases[0]))
#define TPB_MAX_RUNS 1000

/* What one run of a case measured */
struct tpb_run {
	double ns;		/* wall ns per call */
	double cpu_ns;		/* thread CPU ns per call */
	double off_cpu_pct;	/* % of the wall time the thread did not run */
	unsigned int retries;	/* repeated because of that share */
	unsigned long entries, overrun, refused;
	bool consistent;
	char why[200];
};

/* A case over its runs */
struct tpb_result {
	bool selected;
	bool failed;		/* setup failed: @why */
	bool skipped;		/* cannot run here (no LTTng): @why */
	char why[300];
	struct tpb_run *runs;
	unsigned int nr;
	double med, min, max;
	double cpu_med;		/* median of the runs' CPU ns per call */
	const struct tpb_run *mid;	/* the run at the median */
	double off_cpu_max;
	unsigned int retries;
	bool consistent;
};

static struct tpb_result tpb_res[TPB_NR_CASES];

struct tpb_opts {
	unsigned long calls;
	unsigned long warmup;
	unsigned int runs;
	int cpu;
	bool json;
	bool quick;
	bool list;
	double max_noise;
	unsigned int retries;
	char **globs;
	unsigned int nr_globs;
};

/* ---------------------------------------------------------------------- */
/* Measuring                                                               */

static uint64_t tpb_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct ringbuf *tpb_buffer_of(const struct tpb_case *c)
{
	return c->raw ? tpb_raw : ringtrace_buffer(tpb_top);
}

static void tpb_reset(const struct tpb_case *c)
{
	if (c->raw)
		ringbuf_reset(tpb_raw);
	else
		ringtrace_clear(tpb_top);
}

static unsigned long tpb_refused(struct ringbuf *rb)
{
	unsigned long n = 0;
	int cpu;

	for (cpu = 0; cpu < ringbuf_nr_cpus(rb); cpu++)
		n += ringbuf_dropped_events_cpu(rb, cpu) +
		     ringbuf_commit_overrun_cpu(rb, cpu);
	return n;
}

/*
 * One timed loop of @calls calls into an emptied buffer, then its
 * accounting. The noise measure is the share of the wall time the thread
 * was not on its CPU (preempted, or its vCPU not running): the loop never
 * sleeps, so on a quiet CPU the two clocks agree.
 */
static void tpb_measure(const struct tpb_case *c, unsigned long calls,
			struct tpb_run *r)
{
	struct ringbuf *rb = tpb_buffer_of(c);
	uint64_t t0, t1, c0, c1;
	unsigned long want, got;

	tpb_reset(c);
	c0 = tpb_thread_cpu_ns();
	t0 = bench_clock_mono();
	c->loop(calls);
	t1 = bench_clock_mono();
	c1 = tpb_thread_cpu_ns();

	r->ns = (double)(t1 - t0) / (double)calls;
	r->cpu_ns = (double)(c1 - c0) / (double)calls;
	r->off_cpu_pct = t1 > t0 && t1 - t0 > c1 - c0 ?
		100.0 * (double)((t1 - t0) - (c1 - c0)) / (double)(t1 - t0) :
		0;
	r->entries = ringbuf_entries(rb);
	r->overrun = ringbuf_overruns(rb);
	r->refused = tpb_refused(rb);
	want = calls * c->per_call;
	got = r->entries + r->overrun;
	r->consistent = got == want && !r->refused;
	if (!r->consistent)
		snprintf(r->why, sizeof(r->why),
			 "entries %lu + overruns %lu = %lu, expected %lu"
			 " (%lu calls x %u); refused writes %lu",
			 r->entries, r->overrun, got, want, calls, c->per_call,
			 r->refused);
}

/* A number after "@key": in a line of ringbuf-bench's JSON */
static bool tpb_json_num(const char *line, const char *key, double *v)
{
	const char *p = strstr(line, key);

	return p && sscanf(p + strlen(key), "%lf", v) == 1;
}

/*
 * The lttng-ust case: ringbuf-bench (beside this program) runs its LTTng
 * baseline, with its own private session daemon, for as many runs: one
 * pinned writer firing a tracepoint with a 16-byte payload (the size of
 * tpbench_call's fields) into a discard-mode channel as big as the top
 * buffer. Its medians become this case's; it skips when LTTng is absent.
 */
static void tpb_lttng(const struct tpb_opts *o, struct tpb_result *res)
{
	char exe[PATH_MAX], cmd[PATH_MAX + 256], line[4096];
	struct tpb_run *r = &res->runs[0];
	double med = 0, mn = 0, mx = 0, cpu = 0, written = 0, missed = 0;
	bool found = false, consistent = false;
	ssize_t n;
	FILE *p;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0)
		exe[n] = '\0';
	if (n <= 0 || !strrchr(exe, '/')) {
		res->skipped = true;
		snprintf(res->why, sizeof(res->why), "cannot find this program");
		return;
	}
	*strrchr(exe, '/') = '\0';
	snprintf(cmd, sizeof(cmd),
		 "'%s/ringbuf-bench' --impl lttng -p 16 -w 1 -C none -r %u"
		 " -d 0.3 -s %zuK --json 2>&1", exe, o->runs,
		 ringtrace_buffer_size_kb(tpb_top));
	p = popen(cmd, "r");
	if (!p) {
		res->skipped = true;
		snprintf(res->why, sizeof(res->why), "popen: %s",
			 strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		const char *w;

		if (!strstr(line, "\"case\":\"lttng-16B-1w\""))
			continue;
		found = true;
		w = strstr(line, "\"skipped\":\"");
		if (w) {
			res->skipped = true;
			snprintf(res->why, sizeof(res->why), "%.*s",
				 (int)strcspn(w + 11, "\""), w + 11);
			continue;
		}
		tpb_json_num(line, "\"median\":", &med);
		tpb_json_num(line, "\"min\":", &mn);
		tpb_json_num(line, "\"max\":", &mx);
		tpb_json_num(line, "\"cpu_ns_per_event\":", &cpu);
		tpb_json_num(line, "\"written\":", &written);
		tpb_json_num(line, "\"missed\":", &missed);
		consistent = strstr(line, "\"consistent\":true") != NULL;
	}
	if (pclose(p) && !found) {
		res->skipped = true;
		snprintf(res->why, sizeof(res->why),
			 "ringbuf-bench (beside this program) did not run");
		return;
	}
	if (!found && !res->skipped) {
		res->skipped = true;
		snprintf(res->why, sizeof(res->why),
			 "no lttng-16B-1w line from ringbuf-bench");
	}
	if (res->skipped)
		return;
	memset(r, 0, sizeof(*r));
	r->ns = med;
	r->cpu_ns = cpu;
	r->entries = (unsigned long)written;
	r->refused = (unsigned long)missed;
	r->consistent = consistent;
	if (!consistent)
		snprintf(r->why, sizeof(r->why),
			 "ringbuf-bench: fired != recorded + discarded");
	res->nr = 1;
	res->med = med;
	res->min = mn;
	res->max = mx;
	res->cpu_med = cpu;
	res->mid = r;
	res->consistent = consistent;
	if (!consistent)
		snprintf(res->why, sizeof(res->why), "%s", r->why);
}

/* One run of a case: set up, warm up, measure (again if noisy), undo. */
static int tpb_run_case(const struct tpb_case *c, const struct tpb_opts *o,
			struct tpb_result *res)
{
	struct tpb_run *r = &res->runs[res->nr];

	if (c->external) {
		/* every run at once, the first time round */
		if (!res->nr && !res->skipped)
			tpb_lttng(o, res);
		return 0;
	}

	memset(r, 0, sizeof(*r));
	if (c->setup && c->setup(res->why, sizeof(res->why))) {
		tpb_teardown();
		res->failed = true;
		return -1;
	}
	c->loop(o->warmup);
	for (;;) {
		tpb_measure(c, o->calls, r);
		if (!r->consistent || r->off_cpu_pct <= o->max_noise ||
		    r->retries >= o->retries)
			break;
		r->retries++;
	}
	tpb_teardown();
	tpb_reset(c);
	res->nr++;
	return 0;
}

static int tpb_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* @v sorted, @n > 0 */
static double tpb_median(const double *v, unsigned int n)
{
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void tpb_aggregate(struct tpb_result *res)
{
	double v[TPB_MAX_RUNS];
	unsigned int i;

	res->consistent = true;
	res->off_cpu_max = 0;
	res->retries = 0;
	for (i = 0; i < res->nr; i++) {
		v[i] = res->runs[i].ns;
		res->retries += res->runs[i].retries;
		if (res->runs[i].off_cpu_pct > res->off_cpu_max)
			res->off_cpu_max = res->runs[i].off_cpu_pct;
		if (!res->runs[i].consistent && res->consistent) {
			res->consistent = false;
			snprintf(res->why, sizeof(res->why), "run %u: %s",
				 i + 1, res->runs[i].why);
		}
	}
	if (!res->nr)
		return;
	qsort(v, res->nr, sizeof(v[0]), tpb_cmp_double);
	res->min = v[0];
	res->max = v[res->nr - 1];
	res->med = tpb_median(v, res->nr);
	for (i = 0; i < res->nr; i++)
		v[i] = res->runs[i].cpu_ns;
	qsort(v, res->nr, sizeof(v[0]), tpb_cmp_double);
	res->cpu_med = tpb_median(v, res->nr);
	/* The counters shown are those of the run closest to the median. */
	res->mid = &res->runs[0];
	for (i = 1; i < res->nr; i++) {
		double d = res->runs[i].ns - res->med;
		double m = res->mid->ns - res->med;

		if ((d < 0 ? -d : d) < (m < 0 ? -m : m))
			res->mid = &res->runs[i];
	}
}

static int tpb_index(const char *id)
{
	unsigned int i;

	for (i = 0; i < TPB_NR_CASES; i++)
		if (!strcmp(tpb_cases[i].id, id))
			return (int)i;
	return -1;
}

/* A case's result, if it was measured. */
static const struct tpb_result *tpb_measured(const char *id)
{
	int i = tpb_index(id);

	if (i < 0 || !tpb_res[i].selected || tpb_res[i].failed ||
	    tpb_res[i].skipped || !tpb_res[i].nr)
		return NULL;
	return &tpb_res[i];
}

/* The result of a case's baseline, if it was measured. */
static const struct tpb_result *tpb_base_of(const struct tpb_case *c)
{
	return c->base ? tpb_measured(c->base) : NULL;
}

/* ---------------------------------------------------------------------- */
/* Reporting                                                               */

static const char *tpb_clock_name(int clock)
{
	switch (clock) {
	case RINGBUF_CLOCK_MONO:
		return "mono";
	case RINGBUF_CLOCK_MONO_RAW:
		return "mono_raw";
	case RINGBUF_CLOCK_BOOT:
		return "boot";
	case RINGBUF_CLOCK_TSC:
		return "x86-tsc";
	}
	return "unknown";
}

static void tpb_header(const struct tpb_opts *o, int argc, char **argv)
{
	char model[256] = "unknown", cs[64] = "unknown", line[512];
	struct ringbuf *rb = ringtrace_buffer(tpb_top);
	FILE *p;
	int i;

	p = fopen("/proc/cpuinfo", "r");
	if (p) {
		while (fgets(line, sizeof(line), p)) {
			char *colon = strchr(line, ':');

			if (strncmp(line, "model name", 10) || !colon)
				continue;
			snprintf(model, sizeof(model), "%s", colon + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
		fclose(p);
	}
	p = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  "r");
	if (p) {
		if (fgets(cs, sizeof(cs), p))
			cs[strcspn(cs, "\n")] = '\0';
		fclose(p);
	}
	printf("ringtrace-tp-bench (ringtrace %s, %s build):", TPB_VERSION,
	       TPB_BUILD_TYPE);
	for (i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n  machine: %s, clocksource %s; pinned to CPU %d\n", model,
	       cs, o->cpu);
	printf("  %u runs of %lu calls per case (interleaved), %lu warm-up calls;"
	       " time: CLOCK_MONOTONIC around each loop\n",
	       o->runs, o->calls, o->warmup);
	printf("  event " TPB_EVENT ", %zu-byte record; top buffer %zu KiB per cpu,"
	       " overwrite, clock %s, nobody reading\n",
	       sizeof(struct ringtrace_raw_tpbench_call),
	       ringtrace_buffer_size_kb(tpb_top),
	       tpb_clock_name(ringbuf_clock(rb)));
}

static void tpb_vs(char *buf, size_t len, const struct tpb_case *c,
		   const struct tpb_result *r)
{
	const struct tpb_result *b = tpb_base_of(c);

	if (!b || b->med <= 0) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%.2fx %s (%+.2f ns)", r->med / b->med, c->base,
		 r->med - b->med);
}

/*
 * The profiling-call tracer's targets: a patchable or -mrecord-mcount
 * function with no tracer within 0.5 ns of the plain one; the function
 * tracer on one patched function within 1.3x the bare ring write of a
 * record of the same size (the ftrace:function record is 24 bytes, as
 * the bench's event); function_graph on it (two records a call, the
 * entry's 20 bytes and the exit's 48, and the return trampoline) within
 * 2.3x the same bare write.
 */
static void tpb_summary_mcount(const struct tpb_result *plain,
			       const struct tpb_result *rb)
{
	static const char *const nops[] = { "fn-patch-nop", "fn-pg-nop" };
	const struct tpb_result *fn = tpb_measured("fn-patch-function");
	const struct tpb_result *graph = tpb_measured("fn-patch-graph");
	unsigned int i;

	for (i = 0; plain && i < 2; i++) {
		const struct tpb_result *r = tpb_measured(nops[i]);

		if (r)
			printf("[%s] Recorded call site, no tracer: %s - fn-plain"
			       " = %+.2f ns per call (target <= +0.50 ns)\n",
			       r->med - plain->med <= 0.5 ? "met   " : "MISSED",
			       nops[i], r->med - plain->med);
	}
	if (fn && rb)
		printf("[%s] Function tracer on one patched function over the"
		       " bare ring buffer: fn-patch-function / ringbuf-reserve"
		       " = %.2fx (%+.2f ns per record; target <= 1.30x)\n",
		       fn->med / rb->med <= 1.3 ? "met   " : "MISSED",
		       fn->med / rb->med, fn->med - rb->med);
	if (graph && rb)
		printf("[%s] function_graph on one patched function over the"
		       " bare ring buffer: fn-patch-graph / ringbuf-reserve"
		       " = %.2fx (%+.2f ns per call, two records; target <="
		       " 2.30x)\n",
		       graph->med / rb->med <= 2.3 ? "met   " : "MISSED",
		       graph->med / rb->med, graph->med - rb->med);
}

/*
 * The hist table under contention: 8 threads, pinned round robin on the
 * first 2 CPUs the bench may use (fewer where it may use fewer), write
 * tpbench_call with a hist trigger whose keys (600) outnumber its room
 * (size=128): every record is in a hitcount or in Dropped, and a key the
 * table holds has all its records (the drops are the keys that found no
 * room, none of a key already in). Not timed.
 */
#define TPB_HT_THREADS 8
#define TPB_HT_CPUS 2
#define TPB_HT_CALLS 20000
#define TPB_HT_KEYS 75 /* per writer */
#define TPB_HT_SIZE 128
#define TPB_XSTR(x) TPB_STR(x)
#define TPB_STR(x) #x
#define TPB_HT_TRIGGER "hist:keys=a:vals=b:size=" TPB_XSTR(TPB_HT_SIZE)

/* The CPUs the bench may use, before tpb_init() pins its thread */
static cpu_set_t tpb_allowed;

struct tpb_ht_arg {
	int id;
	int cpu;
};

static void *tpb_ht_writer(void *p)
{
	const struct tpb_ht_arg *a = p;
	cpu_set_t set;
	int i;

	if (a->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(a->cpu, &set);
		/* (not pinned where it may not: the count holds all the
		 * same) */
		(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	for (i = 0; i < TPB_HT_CALLS; i++)
		tpb_tp((unsigned long)i, a->id * TPB_HT_KEYS + i % TPB_HT_KEYS, 1);
	return NULL;
}

/* Sum of the numbers after each @label in @text */
static unsigned long long tpb_sum_after(const char *text, const char *label)
{
	unsigned long long n = 0;
	const char *p;

	for (p = text; (p = strstr(p, label)); p += strlen(label))
		n += strtoull(p + strlen(label), NULL, 10);
	return n;
}

/*
 * The keys in @text's table that did not get every record written with
 * them: writer t writes key t * TPB_HT_KEYS + j for its calls i with
 * i % TPB_HT_KEYS == j.
 * A key the table holds has all of them (a key is dropped only while
 * the table has no room for it, and then it has none of them: it never
 * gets in later, the table fills once). *@keys: the keys listed.
 */
static unsigned int tpb_ht_short_keys(const char *text, unsigned int *keys)
{
	const char *p = text;
	unsigned int bad = 0;

	*keys = 0;
	while ((p = strstr(p, "{ a: "))) {
		unsigned long k = strtoul(p + 5, (char **)&p, 10);
		const char *h = strstr(p, "hitcount: ");
		unsigned long j = k % TPB_HT_KEYS, want;

		if (!h)
			break;
		want = TPB_HT_CALLS / TPB_HT_KEYS + (j < TPB_HT_CALLS % TPB_HT_KEYS);
		if (strtoul(h + 10, NULL, 10) != want)
			bad++;
		(*keys)++;
	}
	return bad;
}

/* Return: 0 when the counts add up, -1 (said on stdout) otherwise. */
static int tpb_hist_threads(void)
{
	struct tpb_ht_arg args[TPB_HT_THREADS];
	pthread_t th[TPB_HT_THREADS];
	int cpus[TPB_HT_CPUS], nr_cpus = 0, i, made = 0, ret = -1;
	unsigned long long hits, dropped, counted, written;
	unsigned int keys, short_keys;
	char e[512] = "", *text = NULL;
	cpu_set_t allowed;
	size_t len;

	/* the CPUs the bench was started with, not its thread's one */
	allowed = tpb_allowed;
	for (i = 0; i < CPU_SETSIZE && nr_cpus < TPB_HT_CPUS; i++)
		if (CPU_ISSET(i, &allowed))
			cpus[nr_cpus++] = i;
	if (tpb_event_on(e, sizeof(e)) ||
	    ringtrace_set_trigger(tpb_top, "tpbench", "tpbench_call",
				  TPB_HT_TRIGGER, e, sizeof(e))) {
		printf("[FAILED] Hist table under %d writer threads: cannot"
		       " set it up: %s\n", TPB_HT_THREADS, e);
		goto out;
	}
	for (i = 0; i < TPB_HT_THREADS; i++) {
		args[i].id = i;
		args[i].cpu = nr_cpus ? cpus[i % nr_cpus] : -1;
		if (pthread_create(&th[i], NULL, tpb_ht_writer, &args[i]))
			break;
		made++;
	}
	for (i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	len = ringtrace_show_hist(tpb_top, "tpbench", "tpbench_call", NULL, 0);
	text = malloc(len + 1);
	if (!text || made < TPB_HT_THREADS) {
		printf("[FAILED] Hist table under %d writer threads: %s\n",
		       TPB_HT_THREADS, text ? "cannot start them" : "no memory");
		goto out;
	}
	ringtrace_show_hist(tpb_top, "tpbench", "tpbench_call", text, len + 1);
	counted = tpb_sum_after(text, " hitcount: ");
	hits = tpb_sum_after(text, "\n    Hits: ");
	dropped = tpb_sum_after(text, "\n    Dropped: ");
	written = (unsigned long long)TPB_HT_THREADS * TPB_HT_CALLS;
	short_keys = tpb_ht_short_keys(text, &keys);
	/* (a key short of its records is no loss when the sum holds: its
	 * other records went to Dropped while a writer that held one of the
	 * last elements for it was preempted before publishing it) */
	ret = counted == hits && hits + dropped == written ? 0 : -1;
	printf("[%s] Hist table under %d writer threads on %d CPU%s: hitcounts"
	       " %llu + Dropped %llu = %llu of %llu records written; %u of"
	       " %d keys in its %d elements, %u of them short of their"
	       " records (counted in Dropped)\n",
	       ret ? "LOST  " : "met   ", TPB_HT_THREADS, nr_cpus,
	       nr_cpus == 1 ? "" : "s", counted, dropped, counted + dropped,
	       written, keys, TPB_HT_THREADS * TPB_HT_KEYS, TPB_HT_SIZE, short_keys);
out:
	free(text);
	tpb_teardown();
	ringtrace_set_trigger(tpb_top, "tpbench", "tpbench_call",
			      "!" TPB_HT_TRIGGER, NULL, 0);
	ringtrace_clear(tpb_top);
	return ret;
}

/* The comparisons the bench is about, in words. */
static void tpb_summary(void)
{
	const struct tpb_result *em = tpb_measured("empty");
	const struct tpb_result *dis = tpb_measured("tp-disabled");
	const struct tpb_result *en = tpb_measured("tp-enabled");
	const struct tpb_result *rb = tpb_measured("ringbuf-reserve");
	const struct tpb_result *ool = tpb_measured("tp-outofline");
	const struct tpb_result *plain = tpb_measured("fn-plain");
	const struct tpb_result *nop = tpb_measured("fn-nop");
	const struct tpb_result *lt = tpb_measured("lttng-ust");
	const struct tpb_result *hist = tpb_measured("tp-hist");

	if (em && dis)
		printf("Disabled tracepoint: %+.2f ns per call over the empty"
		       " call (%.2fx); the empty call's own runs spread over"
		       " %.2f ns\n", dis->med - em->med, dis->med / em->med,
		       em->max - em->min);
	/* The target: an enabled trace point within 1.15x the bare ring. */
	if (en && rb)
		printf("[%s] Tracer over the bare ring buffer: tp-enabled /"
		       " ringbuf-reserve = %.2fx (%+.2f ns per record; target"
		       " <= 1.15x)\n",
		       en->med / rb->med <= 1.15 ? "met   " : "MISSED",
		       en->med / rb->med, en->med - rb->med);
	if (ool && rb)
		printf("Out-of-line write over the bare ring buffer:"
		       " tp-outofline / ringbuf-reserve = %.2fx (%+.2f ns per"
		       " record)\n",
		       ool->med / rb->med, ool->med - rb->med);
	if (rb && lt)
		printf("LTTng-UST tracepoint over the bare ring buffer:"
		       " lttng-ust / ringbuf-reserve = %.2fx (%+.2f ns per"
		       " record)\n", lt->med / rb->med, lt->med - rb->med);
	if (en && em)
		printf("Enabled tracepoint: %+.2f ns per call over the empty"
		       " call\n", en->med - em->med);
	/* The target: a hist trigger at most doubles the event's cost. */
	if (hist && en)
		printf("[%s] Hist trigger over the enabled event: tp-hist /"
		       " tp-enabled = %.2fx (%+.2f ns per record; target"
		       " <= 2x)\n",
		       hist->med / en->med <= 2.0 ? "met   " : "MISSED",
		       hist->med / en->med, hist->med - en->med);
	if (nop && plain)
		printf("Function hooks, no tracer: %+.2f ns per call over the"
		       " plain function (%.2fx)\n", nop->med - plain->med,
		       nop->med / plain->med);
	tpb_summary_mcount(plain, rb);
}

static void tpb_print_text(const struct tpb_opts *o)
{
	unsigned int i, rep = 0, noisy = 0;
	double worst = 0;

	printf("\n%-17s %8s %8s %8s %8s  %-34s %9s %9s\n", "case", "ns/call",
	       "min", "max", "on-CPU", "vs baseline (ratio, difference)",
	       "records", "in buffer");
	for (i = 0; i < TPB_NR_CASES; i++) {
		const struct tpb_case *c = &tpb_cases[i];
		const struct tpb_result *r = &tpb_res[i];
		char vs[96];

		if (!r->selected)
			continue;
		if (r->failed) {
			printf("%-17s FAILED: %s\n", c->id, r->why);
			continue;
		}
		if (r->skipped) {
			printf("%-17s skipped: %s\n", c->id, r->why);
			continue;
		}
		tpb_vs(vs, sizeof(vs), c, r);
		printf("%-17s %8.2f %8.2f %8.2f %8.2f  %-34s %9lu %9lu%s\n",
		       c->id, r->med, r->min, r->max, r->cpu_med, vs,
		       r->mid->entries + r->mid->overrun, r->mid->entries,
		       r->consistent ? "" : "  INCONSISTENT");
		rep += r->retries;
		if (r->off_cpu_max > worst)
			worst = r->off_cpu_max;
		for (unsigned int k = 0; k < r->nr; k++)
			if (r->runs[k].off_cpu_pct > o->max_noise)
				noisy++;
	}

	printf("\n");
	for (i = 0; i < TPB_NR_CASES; i++)
		if (tpb_res[i].selected)
			printf("  %-17s %s\n", tpb_cases[i].id, tpb_cases[i].what);
	printf("  (ns/call, min, max: wall time; on-CPU: the thread's CPU time,"
	       " medians; ratios divide wall medians;\n"
	       "   records: entries + overruns of the case's buffer after a run;"
	       " in buffer: entries)\n");

	printf("\n");
	tpb_summary();
	printf("Noise: %u run%s repeated because the thread was off its CPU"
	       " for more than %.0f%% of it; %u kept run%s still above;"
	       " worst kept: %.1f%%\n",
	       rep, rep == 1 ? "" : "s", o->max_noise, noisy,
	       noisy == 1 ? "" : "s", worst);
}

static void tpb_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void tpb_print_json(const struct tpb_opts *o)
{
	unsigned int i;

	for (i = 0; i < TPB_NR_CASES; i++) {
		const struct tpb_case *c = &tpb_cases[i];
		const struct tpb_result *r = &tpb_res[i];
		const struct tpb_result *b = tpb_base_of(c);

		if (!r->selected)
			continue;
		printf("{\"bench\":\"ringtrace-tp-bench\",\"case\":\"%s\",\"what\":",
		       c->id);
		tpb_json_str(c->what);
		printf(",\"cpu\":%d,\"calls\":%lu,\"warmup\":%lu,\"runs\":%u",
		       o->cpu, o->calls, o->warmup, r->nr);
		if (r->failed || r->skipped) {
			printf(r->failed ? ",\"failed\":" : ",\"skipped\":");
			tpb_json_str(r->why);
			printf("}\n");
			continue;
		}
		printf(",\"ns_per_call\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f}"
		       ",\"cpu_ns_per_call\":%.3f",
		       r->med, r->min, r->max, r->cpu_med);
		if (b && b->med > 0)
			printf(",\"baseline\":\"%s\",\"ratio\":%.3f,\"diff_ns\":%.3f",
			       c->base, r->med / b->med, r->med - b->med);
		printf(",\"records_per_call\":%u,\"records\":%lu,\"entries\":%lu,"
		       "\"overrun\":%lu,\"refused\":%lu,\"off_cpu_pct_max\":%.1f,"
		       "\"retries\":%u,\"consistent\":%s",
		       c->per_call, r->mid->entries + r->mid->overrun,
		       r->mid->entries, r->mid->overrun, r->mid->refused,
		       r->off_cpu_max, r->retries,
		       r->consistent ? "true" : "false");
		if (!r->consistent) {
			printf(",\"inconsistency\":");
			tpb_json_str(r->why);
		}
		printf("}\n");
	}
}

/* ---------------------------------------------------------------------- */
/* Options                                                                 */

static void tpb_usage(FILE *f)
{
	fprintf(f,
		"usage: ringtrace-tp-bench [options]\n"
		"  -n, --calls N        calls per run (2000000)\n"
		"  -r, --runs N         runs per case (5)\n"
		"  -w, --warmup N       calls before each run, not timed (200000)\n"
		"  -C, --cpu N          the CPU to run on (the first one allowed)\n"
		"  -c, --case GLOB      only the cases whose id matches (and their\n"
		"                       baselines); may be repeated\n"
		"  -l, --list           list the cases\n"
		"      --json           one JSON object per case, nothing else\n"
		"      --quick          3 runs of 100000 calls, no repeats: checks\n"
		"                       the accounting (the ctest)\n"
		"      --max-noise PCT  repeat a run in which the thread was off\n"
		"                       its CPU for more than PCT %% of it (5)\n"
		"      --retries N      at most N times (3)\n"
		"  -h, --help           this text\n");
}

static unsigned long tpb_number(const char *what, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-') {
		fprintf(stderr, "ringtrace-tp-bench: bad %s: %s\n", what, s);
		exit(2);
	}
	return v;
}

static int tpb_first_cpu(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return 0;
}

static void tpb_parse(int argc, char **argv, struct tpb_opts *o)
{
	enum { OPT_JSON = 256, OPT_QUICK, OPT_MAX_NOISE, OPT_RETRIES };
	static const struct option longs[] = {
		{ "calls", required_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "case", required_argument, NULL, 'c' },
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "max-noise", required_argument, NULL, OPT_MAX_NOISE },
		{ "retries", required_argument, NULL, OPT_RETRIES },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool calls = false, runs = false, warmup = false, retries = false;
	int ch;

	memset(o, 0, sizeof(*o));
	o->calls = 2000000;
	o->runs = 5;
	o->warmup = 200000;
	o->cpu = -1;
	o->max_noise = 5;
	o->retries = 3;
	while ((ch = getopt_long(argc, argv, "n:r:w:C:c:lh", longs, NULL)) !=
	       -1) {
		switch (ch) {
		case 'n':
			o->calls = tpb_number("call count", optarg);
			calls = true;
			break;
		case 'r':
			o->runs = (unsigned int)tpb_number("run count", optarg);
			runs = true;
			break;
		case 'w':
			o->warmup = tpb_number("warm-up count", optarg);
			warmup = true;
			break;
		case 'C':
			o->cpu = (int)tpb_number("cpu", optarg);
			break;
		case 'c':
			o->globs = realloc(o->globs, (o->nr_globs + 1) *
							     sizeof(*o->globs));
			if (!o->globs)
				exit(1);
			o->globs[o->nr_globs++] = optarg;
			break;
		case 'l':
			o->list = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_QUICK:
			o->quick = true;
			break;
		case OPT_MAX_NOISE:
			o->max_noise = strtod(optarg, NULL);
			break;
		case OPT_RETRIES:
			o->retries = (unsigned int)tpb_number("retry count",
							      optarg);
			retries = true;
			break;
		case 'h':
			tpb_usage(stdout);
			exit(0);
		default:
			tpb_usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		tpb_usage(stderr);
		exit(2);
	}
	if (o->quick) {
		if (!calls)
			o->calls = 100000;
		if (!runs)
			o->runs = 3;
		if (!warmup)
			o->warmup = 10000;
		if (!retries)
			o->retries = 0;
	}
	if (!o->calls || !o->runs || o->runs > TPB_MAX_RUNS) {
		fprintf(stderr, "ringtrace-tp-bench: calls must be positive, runs 1..%d\n",
			TPB_MAX_RUNS);
		exit(2);
	}
	if (o->cpu < 0)
		o->cpu = tpb_first_cpu();
}

/* Select the cases the globs name, and the baselines they need. */
static int tpb_select(const struct tpb_opts *o)
{
	unsigned int i, k, n = 0;
	bool more = true;

	for (i = 0; i < TPB_NR_CASES; i++) {
		/* --quick checks our accounting only: no LTTng session */
		tpb_res[i].selected = !o->nr_globs &&
				      !(o->quick && tpb_cases[i].external);
		for (k = 0; k < o->nr_globs; k++)
			if (!fnmatch(o->globs[k], tpb_cases[i].id, 0))
				tpb_res[i].selected = true;
	}
	while (more) {
		more = false;
		for (i = 0; i < TPB_NR_CASES; i++) {
			int b = tpb_cases[i].base ? tpb_index(tpb_cases[i].base)
						  : -1;

			if (tpb_res[i].selected && b >= 0 &&
			    !tpb_res[b].selected) {
				tpb_res[b].selected = true;
				more = true;
			}
		}
	}
	for (i = 0; i < TPB_NR_CASES; i++)
		n += tpb_res[i].selected;
	return (int)n;
}

/* ---------------------------------------------------------------------- */

static int tpb_init(const struct tpb_opts *o)
{
	struct ringbuf *rb;
	cpu_set_t set;
	int id;

	if (sched_getaffinity(0, sizeof(tpb_allowed), &tpb_allowed))
		CPU_ZERO(&tpb_allowed);
	CPU_ZERO(&set);
	CPU_SET(o->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "ringtrace-tp-bench: cannot run on CPU %d: %s\n",
			o->cpu, strerror(errno));
		return -1;
	}
	tpb_top = ringtrace_top();
	if (!tpb_top) {
		fprintf(stderr, "ringtrace-tp-bench: no top instance: %s\n",
			strerror(errno));
		return -1;
	}
	rb = ringtrace_buffer(tpb_top);
	id = ringtrace_event_id("tpbench", "tpbench_call");
	if (!rb || id < 0) {
		fprintf(stderr, "ringtrace-tp-bench: event " TPB_EVENT
			" is not registered\n");
		return -1;
	}
	tpb_type = (uint16_t)id;
	tpb_pid = (int32_t)syscall(SYS_gettid);
	{
		/* What the top instance's buffer is made with (trace.c). */
		size_t size = ringtrace_buffer_size_kb(tpb_top) * 1024;
		RINGBUF_OPTS(ro, .size = size, .flags = RINGBUF_FL_OVERWRITE,
			     .model = RINGBUF_PER_CPU,
			     .clock = ringbuf_clock(rb));

		tpb_raw = ringbuf_create(&ro);
	}
	if (!tpb_raw) {
		fprintf(stderr, "ringtrace-tp-bench: ringbuf_create: %s\n",
			strerror(errno));
		return -1;
	}
	tpb_teardown();
	ringtrace_clear(tpb_top);
	return 0;
}

int main(int argc, char **argv)
{
	struct tpb_opts o;
	unsigned int i, run;
	int status = 0;

	tpb_parse(argc, argv, &o);
	if (o.list) {
		for (i = 0; i < TPB_NR_CASES; i++)
			printf("%-17s %s\n", tpb_cases[i].id, tpb_cases[i].what);
		return 0;
	}
	if (!tpb_select(&o)) {
		fprintf(stderr, "ringtrace-tp-bench: no case matches\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tpb_init(&o))
		return 1;
	for (i = 0; i < TPB_NR_CASES; i++) {
		tpb_res[i].runs = calloc(o.runs, sizeof(struct tpb_run));
		if (!tpb_res[i].runs)
			return 1;
	}
	if (!o.json)
		tpb_header(&o, argc, argv);

	/* Interleaved: every case once per round. */
	for (run = 0; run < o.runs; run++)
		for (i = 0; i < TPB_NR_CASES; i++)
			if (tpb_res[i].selected && !tpb_res[i].failed)
				tpb_run_case(&tpb_cases[i], &o, &tpb_res[i]);

	for (i = 0; i < TPB_NR_CASES; i++) {
		if (!tpb_res[i].selected || tpb_res[i].skipped)
			continue;
		if (tpb_res[i].failed) {
			status = 1;
			continue;
		}
		if (!tpb_cases[i].external)
			tpb_aggregate(&tpb_res[i]);
		if (!tpb_res[i].consistent)
			status = 1;
	}
	if (o.json) {
		tpb_print_json(&o);
	} else {
		tpb_print_text(&o);
		for (i = 0; i < TPB_NR_CASES; i++)
			if (tpb_res[i].selected && !tpb_res[i].failed &&
			    !tpb_res[i].consistent)
				printf("INCONSISTENT %s: %s\n", tpb_cases[i].id,
				       tpb_res[i].why);
		if (tpb_measured("tp-hist") && tpb_hist_threads())
			status = 1;
		printf("Check: %s\n", status ?
		       "FAILED (a case could not be set up or its records do not match its calls)" :
		       "every run's records (entries + overruns) match its calls; no write refused");
	}
	for (i = 0; i < TPB_NR_CASES; i++)
		free(tpb_res[i].runs);
	ringbuf_free(tpb_raw);
	free(o.globs);
	return status;
}
