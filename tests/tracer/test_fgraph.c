// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The function and function_graph tracers end to end: a sample compiled
 * with -finstrument-functions (fgraph_sample.c) calling into a dlopen()ed
 * object, traced through libringtrace and printed as the kernel prints
 * it; the exact nesting and names are golden. Also: the fold structure
 * the kernel's function-graph-fold.vim relies on, filters, trace vs
 * trace_pipe, and the funcgraph options.
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>
#include <ringtrace/tracer.h>

#include "entries.h"
#include "fgraph_sample.h"
#include "golden.h"
#include "test.h"

#ifndef FGRAPH_DL_PATH
#error "FGRAPH_DL_PATH must name the instrumented shared object"
#endif

static char err[512];

static struct ringtrace_instance *setup(const char *tracer)
{
	struct ringtrace_instance *tr;
	void *h;

	golden_setup_thread();
	h = dlopen(FGRAPH_DL_PATH, RTLD_NOW);
	if (!h)
		RBT_FAIL("dlopen %s: %s", FGRAPH_DL_PATH, dlerror());
	fg_dl_leaf = (void (*)(int))dlsym(h, "dl_leaf");
	ASSERT_NOT_NULL(fg_dl_leaf);
	tr = ringtrace_top();
	ASSERT_NOT_NULL(tr);
	ASSERT_EQ(ringtrace_set_tracer(tr, tracer), 0);
	ringtrace_clear(tr);
	return tr;
}

static int print_trace_cb(FILE *out, void *arg)
{
	return ringtrace_print_trace(arg, out);
}

static int read_pipe_cb(FILE *out, void *arg)
{
	return ringtrace_read_pipe(arg, out, 0);
}

/* The body of a listing: the lines after the '#' header. */
static const char *body_of(const char *t)
{
	const char *p = t;

	while (*p == '#') {
		p = strchr(p, '\n');
		ASSERT_NOT_NULL(p);
		p++;
	}
	return p;
}

/*
 * What function-graph-fold.vim does with a listing: a line ending in
 * '{' opens a fold, one ending in '}' closes one. Every fold must close
 * and none may close what is not open.
 */
static void check_folds(const char *t, int want_folds)
{
	const char *line = body_of(t);
	int level = 0, folds = 0;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len && line[len - 1] == '{') {
			level++;
			folds++;
		} else if (len && line[len - 1] == '}') {
			level--;
			if (level < 0)
				RBT_FAIL("a '}' closes no fold: %.*s", (int)len,
					 line);
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	ASSERT_EQ(level, 0);
	ASSERT_EQ(folds, want_folds);
}

static void graph_golden(void)
{
	struct ringtrace_instance *tr = setup("function_graph");
	char *t;

	fg_main();
	ringtrace_tracing_on(tr, false);
	t = golden_capture(print_trace_cb, tr);
	golden_check("fgraph.txt", t);
	/* fg_main, fg_a, fg_c, fg_d, fg_d open folds; fg_b, dl_leaf and
	 * the innermost fg_d are leaves */
	check_folds(t, 5);
	ASSERT_NOT_NULL(strstr(t, "dl_leaf();\n"));
	free(t);
}

/* trace_pipe prints the same lines, and consumes them */
static void graph_pipe(void)
{
	struct ringtrace_instance *tr = setup("function_graph");
	char *t, *p;

	fg_main();
	ringtrace_tracing_on(tr, false);
	t = golden_capture(print_trace_cb, tr);
	p = golden_capture(read_pipe_cb, tr);
	t = golden_normalise(t);
	p = golden_normalise(p);
	ASSERT_EQ(strcmp(body_of(t), p), 0);
	ASSERT_TRUE(ringbuf_empty(ringtrace_buffer(tr)));
	free(t);
	free(p);
}

static void graph_options(void)
{
	static const char *const opts[] = {
		"funcgraph-abstime", "funcgraph-proc", "nofuncgraph-cpu",
		"nofuncgraph-duration", "funcgraph-tail", "nofuncgraph-overhead",
		"funcgraph-overrun", "latency-format",
	};
	struct ringtrace_instance *tr = setup("function_graph");
	size_t i;

	fg_main();
	ringtrace_tracing_on(tr, false);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		const char *o = opts[i];
		bool neg = !strncmp(o, "no", 2);
		char name[64], *t;

		ASSERT_EQ(ringtrace_set_option(tr, o), 0);
		t = golden_capture(print_trace_cb, tr);
		snprintf(name, sizeof(name), "fgraph-%s.txt", o);
		if (strcmp(o, "funcgraph-proc") != 0) {
			golden_check(name, t);
		} else {
			/* the task column is centred: its width depends on
			 * the pid, so check it by content */
			ASSERT_NOT_NULL(strstr(t, "TASK/PID"));
			ASSERT_NOT_NULL(strstr(t, " rt-test-"));
		}
		if (strcmp(o, "funcgraph-tail") == 0) {
			/* the closing lines end in a comment, so the fold
			 * script cannot fold them (nor the kernel's) */
			ASSERT_NOT_NULL(strstr(t, "} /* fg_main */\n"));
		} else if (strcmp(o, "funcgraph-overrun") != 0) {
			check_folds(t, 5);
		}
		free(t);
		if (neg)
			ASSERT_EQ(ringtrace_set_option(tr, o + 2), 0);
		else {
			snprintf(name, sizeof(name), "no%s", o);
			ASSERT_EQ(ringtrace_set_option(tr, name), 0);
		}
	}
}

/* Markers inside a graph are comments at the current depth */
static void graph_comments(void)
{
	struct ringtrace_instance *tr = setup("function_graph");
	char *t;

	fg_a(2);
	ASSERT_EQ(ringtrace_marker_write(tr, "between", 7), 0);
	fg_b(3);
	ringtrace_tracing_on(tr, false);
	t = golden_capture(print_trace_cb, tr);
	ASSERT_NOT_NULL(strstr(t, "|  /* between */\n"));
	golden_check("fgraph-comment.txt", t);
	free(t);
}

static void function_golden(void)
{
	struct ringtrace_instance *tr = setup("function");
	char *t;

	fg_main();
	ringtrace_tracing_on(tr, false);
	t = golden_capture(print_trace_cb, tr);
	golden_check("function.txt", t);
	ASSERT_NOT_NULL(strstr(t, ": fg_a <-fg_main\n"));
	ASSERT_NOT_NULL(strstr(t, ": dl_leaf <-fg_c\n"));
	free(t);
}

static int count(const char *t, const char *needle)
{
	int n = 0;

	for (t = strstr(t, needle); t; t = strstr(t + 1, needle))
		n++;
	return n;
}

static void filters(void)
{
	struct ringtrace_instance *tr = setup("function_graph");
	char buf[1024], *t;

	/* set_graph_function: only below fg_c */
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_FUNCTION, "fg_c",
					    false, err, sizeof(err)), 0);
	fg_main();
	t = golden_capture(read_pipe_cb, tr);
	ASSERT_EQ(count(t, "fg_c() {"), 1);
	ASSERT_EQ(count(t, "dl_leaf();"), 1);
	ASSERT_EQ(count(t, "fg_a"), 0);
	ASSERT_EQ(count(t, "fg_d"), 0);
	free(t);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_FUNCTION, "", false,
					    err, sizeof(err)), 0);
	/* set_graph_notrace: fg_a and all below it vanish */
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_NOTRACE, "fg_a",
					    false, err, sizeof(err)), 0);
	fg_main();
	t = golden_capture(read_pipe_cb, tr);
	ASSERT_EQ(count(t, "fg_a"), 0);
	ASSERT_EQ(count(t, "fg_b"), 0);
	ASSERT_EQ(count(t, "dl_leaf"), 0);
	ASSERT_EQ(count(t, "fg_d() {"), 2);
	free(t);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_NOTRACE, "", false,
					    err, sizeof(err)), 0);
	/* set_ftrace_filter with a glob, the function tracer */
	ASSERT_EQ(ringtrace_set_tracer(tr, "function"), 0);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "fg_[bc] dl_*",
					    false, err, sizeof(err)), 0);
	ringtrace_show_ftrace_list(RINGTRACE_FTRACE_FILTER, buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, "fg_b\n"));
	ASSERT_NOT_NULL(strstr(buf, "fg_c\n"));
	ASSERT_NOT_NULL(strstr(buf, "dl_leaf ["));
	fg_main();
	t = golden_capture(read_pipe_cb, tr);
	ASSERT_EQ(count(t, ": fg_b <-fg_a"), 1);
	ASSERT_EQ(count(t, ": fg_c <-fg_a"), 1);
	ASSERT_EQ(count(t, ": dl_leaf <-fg_c"), 1);
	ASSERT_EQ(count(t, "fg_main"), 0);
	free(t);
	/* a glob that names nothing is an error and changes nothing */
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "nope_*",
					    false, err, sizeof(err)), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "nope_*"));
	ringtrace_show_ftrace_list(RINGTRACE_FTRACE_FILTER, buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, "fg_b\n"));
	/* notrace wins over filter */
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_NOTRACE, "fg_b",
					    false, err, sizeof(err)), 0);
	fg_main();
	t = golden_capture(read_pipe_cb, tr);
	ASSERT_EQ(count(t, "fg_b"), 0);
	ASSERT_EQ(count(t, ": fg_c <-fg_a"), 1);
	free(t);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_NOTRACE, "", false,
					    err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "", false,
					    err, sizeof(err)), 0);
	/* the stop switch */
	ringtrace_function_trace_stop(true);
	fg_main();
	ringtrace_function_trace_stop(false);
	ASSERT_TRUE(ringbuf_empty(ringtrace_buffer(tr)));
	/* max_graph_depth */
	ASSERT_EQ(ringtrace_set_tracer(tr, "function_graph"), 0);
	/* two levels: fg_main and what it calls */
	ASSERT_EQ(ringtrace_set_max_graph_depth(2), 0);
	fg_main();
	t = golden_capture(read_pipe_cb, tr);
	ASSERT_EQ(count(t, "fg_main() {"), 1);
	ASSERT_EQ(count(t, "fg_a();"), 1);
	ASSERT_EQ(count(t, "fg_d();"), 1);
	ASSERT_EQ(count(t, "fg_b"), 0);
	ASSERT_EQ(count(t, "dl_leaf"), 0);
	free(t);
	ASSERT_EQ(ringtrace_set_max_graph_depth(0), 0);
	/* available_filter_functions lists the dlopen()ed object's */
	{
		char *list = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&list, &len);

		ASSERT_EQ(ringtrace_available_filter_functions(m), 0);
		fclose(m);
		ASSERT_NOT_NULL(strstr(list, "\nfg_main\n"));
		ASSERT_NOT_NULL(strstr(list, "dl_leaf ["));
		free(list);
	}
}


/*
 * The next record of the buffer, which must be a graph record of type
 * @type for fg_b written by this thread with @flags: its payload in
 * @rec (@size bytes), its stamp in *@ts.
 */
static void next_graph_record(struct ringbuf *rb, uint16_t type, void *rec,
			      size_t size, uint8_t flags, uint64_t *ts)
{
	struct ringbuf_event *e = ringbuf_consume_next(rb, NULL, ts, NULL);
	struct ringtrace_entry ent;

	ASSERT_NOT_NULL(e);
	ASSERT_EQ(ringbuf_event_length(e), size);
	memcpy(rec, ringbuf_event_data(e), size);
	memcpy(&ent, rec, sizeof(ent));
	ASSERT_EQ(ent.type, type);
	ASSERT_EQ(ent.flags, flags);
	ASSERT_EQ(ent.preempt_count, 0);
	ASSERT_EQ(ent.pid, (int32_t)syscall(SYS_gettid));
}

/*
 * The records of one call, field by field: written by the thread's own
 * code (flags 0) and inside ringtrace_irq_enter() (the hardirq flag),
 * each stamped with the calltime or rettime it carries (the buffer is on
 * the default clock, the clock of the durations). The hooks have no
 * return value: their exits are funcgraph_exit records even with
 * funcgraph-retval on.
 */
static void graph_records(void)
{
	struct ringtrace_instance *tr = setup("function_graph");
	struct ringbuf *rb = ringtrace_buffer(tr);
	struct rt_graph_ent_entry ent;
	struct rt_graph_exit_entry ret;
	uint64_t ts, last = 0;
	int round;

	ASSERT_EQ(ringtrace_set_option(tr, "funcgraph-retval"), 0);
	fg_b(1);
	ringtrace_irq_enter();
	fg_b(2);
	ringtrace_irq_exit();
	ringtrace_tracing_on(tr, false);
	for (round = 0; round < 2; round++) {
		uint8_t flags = round ? RINGTRACE_FLAG_HARDIRQ : 0;

		next_graph_record(rb, RT_TYPE_GRAPH_ENT, &ent, sizeof(ent),
				  flags, &ts);
		ASSERT_EQ(ent.func, (unsigned long)fg_b);
		ASSERT_TRUE(ts >= last);
		last = ts;
		next_graph_record(rb, RT_TYPE_GRAPH_RET, &ret, sizeof(ret),
				  flags, &ts);
		ASSERT_EQ(ret.func, (unsigned long)fg_b);
		ASSERT_EQ(ret.depth, ent.depth);
		/* -finstrument-functions: no return value, so the record
		 * without one (funcgraph_exit, 40 bytes), whose overrun is the
		 * count alone */
		ASSERT_EQ(ret.overrun, 0);
		ASSERT_EQ(ret.calltime, last);
		ASSERT_EQ(ret.rettime, ts);
		ASSERT_TRUE(ret.rettime >= ret.calltime);
		last = ts;
	}
	ASSERT_NULL(ringbuf_consume_next(rb, NULL, NULL, NULL));
}

static const struct rbt_case cases[] = {
	RBT_CASE(graph_golden),	  RBT_CASE(graph_pipe),
	RBT_CASE(graph_options),  RBT_CASE(graph_comments),
	RBT_CASE(function_golden), RBT_CASE(filters),
	RBT_CASE(graph_records),
};
RBT_MAIN(cases)
