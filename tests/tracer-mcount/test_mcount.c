// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_mcount.c - the function tracers behind the profiling call
 * (tracer/function: mcount_x86_64.S, fgraph.c, dynftrace.c), end to end
 * through libringtrace: the call trees of -pg -mfentry -mrecord-mcount
 * and -fpatchable-function-entry=5 code, the sites NOP'd at start-up and
 * patched exactly while a tracer needs them (also live, under threads
 * calling them), and the return trampoline under longjmp, signals, fork,
 * cancellation, recursion deeper than the return stack, dlclose(),
 * backtrace() and C++ exceptions.
 *
 * This file is not instrumented; mc_*.c and mc_exc.cc are.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ringbuf/frontend.h>
#include <ringbuf/ringbuf.h>
#include <ringtrace/inline_write.h>
#include <ringtrace/tracer.h>

#include "entries.h"
#include "mc_sample.h"
#include "test.h"

#define MCA_PREFIX fa_
#include "mc_args.h"
#undef MCA_PREFIX
#undef MCA
#define MCA_PREFIX fn_
#include "mc_args.h"
#undef MCA_PREFIX
#undef MCA
#define MCA_PREFIX fi_
#include "mc_args.h"
#undef MCA_PREFIX
#undef MCA
#define MCA_PREFIX fp_
#include "mc_args.h"

#define MB_PREFIX mb_p_
#include "mc_body.h"
#undef MB_PREFIX
#undef MB
#define MB_PREFIX mb_f_
#include "mc_body.h"


static struct ringtrace_instance *tr;

static void tracer(const char *name)
{
	if (!tr)
		tr = ringtrace_top();
	ASSERT_NOT_NULL(tr);
	ASSERT_EQ(ringtrace_set_tracer(tr, name), 0);
}

/* The trace as text (caller frees). */
static char *trace_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(ringtrace_print_trace(tr, f), 0);
	fclose(f);
	return buf;
}

/* What trace_pipe gives now (caller frees). */
static char *pipe_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NOT_NULL(f);
	ASSERT_TRUE(ringtrace_read_pipe(tr, f, 0) > 0);
	fclose(f);
	return buf;
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/*
 * The graph lines of the trace as "depth:text" (the text after the
 * bar, the depth from its indentation), one a line.
 */
static char *graph_tree(void)
{
	char *text = trace_text(), *out = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	ASSERT_NOT_NULL(f);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *bar = strchr(line, '|');
		size_t sp;

		if (line[0] == '#' || !bar)
			continue;
		bar++;
		sp = strspn(bar, " ");
		fprintf(f, "%zu:%s\n", (sp - 2) / 2, bar + sp);
	}
	fclose(f);
	free(text);
	return out;
}

static void expect_tree(const char *want)
{
	char *got = graph_tree();

	if (strcmp(got, want))
		RBT_FAIL("tree:\n%s\nwanted:\n%s", got, want);
	free(got);
}

/* ---- call trees ------------------------------------------------------------- */

static void graph_fentry(void)
{
	tracer("function_graph");
	ASSERT_EQ(mc_outer(1), 10);
	tracer("nop");
	expect_tree("0:mc_outer() {\n1:mc_mid() {\n2:mc_leaf();\n2:mc_leaf();\n"
		    "1:}\n0:}\n");
}

static void graph_patchable(void)
{
	tracer("function_graph");
	ASSERT_EQ(mc_pouter(1), 6);
	tracer("nop");
	expect_tree("0:mc_pouter() {\n1:mc_pleaf();\n1:mc_pleaf();\n0:}\n");
}

/* (not traced: this file is built without instrumentation) */
static int stop_then_leaf(int x)
{
	ringtrace_function_trace_stop(true);
	return mc_pleaf(x);
}

/*
 * The stop switch set while a traced call runs (function_graph's own
 * trampoline, which calls the body): the call's entry is recorded, its
 * exit not (the return's write tests the switch), nor the calls made
 * meanwhile; the next call after the switch is cleared is whole.
 */
static void graph_stop_return(void)
{
	tracer("function_graph");
	ringtrace_clear(tr);
	ASSERT_EQ(mc_pcall(stop_then_leaf, 1), 3);
	ringtrace_function_trace_stop(false);
	ASSERT_EQ(mc_pouter(1), 6);
	tracer("nop");
	expect_tree("0:mc_pcall() {\n0:mc_pouter() {\n1:mc_pleaf();\n"
		    "1:mc_pleaf();\n0:}\n");
}

static void function_records(void)
{
	char *t;

	tracer("function");
	mc_outer(1);
	mc_pouter(1);
	tracer("nop");
	t = trace_text();
	ASSERT_EQ(count(t, ": mc_outer <-"), 1);
	ASSERT_EQ(count(t, ": mc_mid <-mc_outer"), 1);
	ASSERT_EQ(count(t, ": mc_leaf <-mc_mid"), 2);
	ASSERT_EQ(count(t, ": mc_pleaf <-mc_pouter"), 2);
	free(t);
}

/* The registers of arguments and of the return value come through. */
static void registers_kept(void)
{
	tracer("function_graph");
	ASSERT_TRUE(mc_float(1.5, 2.0) == 5.0);
	ASSERT_EQ(mc_args(1, 2, 3, 4, 5, 6), 91);
	tracer("function");
	ASSERT_TRUE(mc_float(1.5, 2.0) == 5.0);
	ASSERT_EQ(mc_args(1, 2, 3, 4, 5, 6), 91);
	tracer("nop");
}

/* ---- dynamic ftrace ---------------------------------------------------------- */

/* Is the site at @fn's entry a call (or function_graph's jump to its
 * stub), not a NOP? */
static int site_is_call(const void *fn)
{
	const unsigned char *p = fn;

	/* call rel32, call *disp32(%rip), cs call rel32, jmp rel32, cs jmp
	 * rel32 (dynftrace.c) */
	return p[0] == 0xe8 || (p[0] == 0xff && p[1] == 0x15) ||
	       (p[0] == 0x2e && p[1] == 0xe8) || p[0] == 0xe9 ||
	       (p[0] == 0x2e && p[1] == 0xe9);
}

/* What @show writes (caller frees). Not inlined: GCC 12 at -O2 takes
 * the text open_memstream() allocated for a pointer into this frame
 * (-Wdangling-pointer) once it is inlined into site_unpatchable(). */
static __attribute__((noinline)) char *shown(int (*show)(FILE *out))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(show(f), 0);
	fclose(f);
	return buf;
}

static char *enabled_functions(void)
{
	return shown(ringtrace_enabled_functions);
}

static void nop_when_off(void)
{
	char *e;

	/* ftrace_init(): NOPs from the start. */
	ASSERT_FALSE(site_is_call((const void *)mc_leaf));
	ASSERT_FALSE(site_is_call((const void *)mc_pleaf));
	/* GCC's five one-byte NOPs made one instruction at start-up */
	ASSERT_EQ(((const unsigned char *)mc_pleaf)[0], 0x0f);
	e = enabled_functions();
	ASSERT_EQ(strlen(e), 0);
	free(e);
	tracer("function");
	ASSERT_TRUE(site_is_call((const void *)mc_leaf));
	ASSERT_TRUE(site_is_call((const void *)mc_pleaf));
	e = enabled_functions();
	ASSERT_EQ(count(e, "mc_leaf (1)"), 1);
	free(e);
	tracer("nop");
	ASSERT_FALSE(site_is_call((const void *)mc_leaf));
	ASSERT_FALSE(site_is_call((const void *)mc_pleaf));
}

static void filter_patches(void)
{
	char err[128], *e, *t;

	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER,
					    "mc_leaf mc_pleaf", false, err,
					    sizeof(err)),
		  0);
	tracer("function");
	ASSERT_TRUE(site_is_call((const void *)mc_leaf));
	ASSERT_FALSE(site_is_call((const void *)mc_mid));
	ASSERT_FALSE(site_is_call((const void *)mc_outer));
	ASSERT_TRUE(site_is_call((const void *)mc_pleaf));
	ASSERT_FALSE(site_is_call((const void *)mc_pouter));
	e = enabled_functions();
	ASSERT_EQ(count(e, "(1)"), 2);
	free(e);
	mc_outer(1);
	/* notrace takes mc_leaf out: its site goes back to a NOP */
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_NOTRACE,
					    "mc_leaf", false, err, sizeof(err)),
		  0);
	ASSERT_FALSE(site_is_call((const void *)mc_leaf));
	mc_outer(1);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_NOTRACE, "", false,
					    err, sizeof(err)),
		  0);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "", false,
					    err, sizeof(err)),
		  0);
	ASSERT_TRUE(site_is_call((const void *)mc_outer));
	tracer("nop");
	t = trace_text();
	ASSERT_EQ(count(t, ": mc_leaf <-"), 2);
	ASSERT_EQ(count(t, ": mc_mid <-"), 0);
	free(t);
}

/*
 * Patching on and off under four threads that call the sites all the
 * while: no crash; in the quiet phase after each switch, every call is
 * recorded while on and none while off. The tracers go round nop,
 * function, nop, function_graph, function, function_graph, so that the
 * sites move between NOPs and both one-tracer trampolines (the copies in
 * the trampoline pages) each way, and straight from one trampoline to the
 * other while the threads run them. MC_ROUNDS rounds, 200 by default and
 * 60 in the sanitizer builds (each switch is a batch of int3, tail and
 * first-byte writes with three membarrier() calls, and four barriers);
 * MC_ROUNDS=10000 for a long run.
 */
#if defined(RBT_TSAN) || defined(__SANITIZE_ADDRESS__)
#define MC_ROUNDS_DEFAULT 60
#else
#define MC_ROUNDS_DEFAULT 200
#endif
#define MC_THREADS 4
#define MC_CALLS 20

static pthread_barrier_t mc_bar;
static _Atomic int mc_hammer, mc_stop;

static __attribute__((noinline)) void mc_counted(void)
{
	for (int i = 0; i < MC_CALLS; i++)
		mc_leaf(i);
	__asm__ volatile("");
}

static void *toggle_worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&mc_bar); /* the switch starts */
		if (atomic_load(&mc_stop))
			return NULL;
		while (atomic_load_explicit(&mc_hammer, memory_order_relaxed)) {
			mc_pleaf(1);
			mc_leaf(1);
		}
		pthread_barrier_wait(&mc_bar); /* the switch is over */
		pthread_barrier_wait(&mc_bar); /* the buffer is empty */
		mc_counted();
		pthread_barrier_wait(&mc_bar); /* counted */
	}
}

static void toggle_threads(void)
{
	const char *env = getenv("MC_ROUNDS");
	int rounds = env ? atoi(env) : MC_ROUNDS_DEFAULT;
	pthread_t th[MC_THREADS];
	int i, r;

	tracer("nop");
	ASSERT_EQ(pthread_barrier_init(&mc_bar, NULL, MC_THREADS + 1), 0);
	for (i = 0; i < MC_THREADS; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, toggle_worker, NULL), 0);
	for (r = 0; r < rounds; r++) {
		static const char *const round[] = { "function", "nop",
						     "function_graph", "function",
						     "function_graph", "nop" };
		const char *cur = round[r % 6];
		bool fn = !strcmp(cur, "function"),
		     graph = !strcmp(cur, "function_graph");
		char *t;
		int n, g;

		atomic_store(&mc_hammer, 1);
		pthread_barrier_wait(&mc_bar);
		tracer(cur);
		atomic_store(&mc_hammer, 0);
		pthread_barrier_wait(&mc_bar);
		ringtrace_clear(tr);
		pthread_barrier_wait(&mc_bar);
		pthread_barrier_wait(&mc_bar);
		t = trace_text();
		n = count(t, ": mc_leaf <-mc_counted");
		/* a leaf's line, or its opening line where another thread's
		 * records came between its entry and its exit on that cpu */
		g = count(t, " mc_leaf();") + count(t, " mc_leaf() {");
		free(t);
		if (n != (fn ? MC_THREADS * MC_CALLS : 0) ||
		    g != (graph ? MC_THREADS * MC_CALLS : 0))
			RBT_FAIL("round %d (%s): %d function records, %d graph "
				 "calls", r, cur, n, g);
	}
	atomic_store(&mc_stop, 1);
	pthread_barrier_wait(&mc_bar);
	for (i = 0; i < MC_THREADS; i++)
		pthread_join(th[i], NULL);
	tracer("nop");
}

/* ---- a call's entry held back ------------------------------------------- */

/* liburcu-bp's: its grace periods use membarrier() (set once, when it
 * initialises) */
extern int urcu_bp_has_sys_membarrier;

/*
 * The thread's first traced call, so that its records take the fast
 * paths from here on (the slow word 0: its id and name known), which
 * the tests below are about; where liburcu's grace periods do not use
 * membarrier() every record takes the general path (function_rcu_memb),
 * and the tests check that path's order instead.
 */
static void hb_warm(void)
{
	ASSERT_EQ(mc_pleaf(0), 1);
	if (__atomic_load_n(&urcu_bp_has_sys_membarrier, __ATOMIC_RELAXED))
		ASSERT_EQ(ringtrace_thread.slow, 0);
}

/* One record of the instance's buffer, as the tests below look at it. */
struct hb_rec {
	uint16_t type;
	int cpu;
	uint64_t ts;
	unsigned long func;
	uint64_t calltime, rettime;
};

/* Consume the instance's records (at most @max) into @r; return how many. */
static size_t hb_records(struct hb_rec *r, size_t max)
{
	struct ringbuf *rb = ringtrace_buffer(tr);
	struct ringbuf_event *e;
	size_t n = 0;

	ASSERT_NOT_NULL(rb);
	while (n < max && (e = ringbuf_consume_next(rb, &r[n].cpu, &r[n].ts,
						    NULL))) {
		const char *d = ringbuf_event_data(e);
		struct ringtrace_entry ent;

		memcpy(&ent, d, sizeof(ent));
		r[n].type = ent.type;
		r[n].func = 0;
		if (ent.type == RT_TYPE_GRAPH_ENT || rt_type_graph_exit(ent.type))
			memcpy(&r[n].func, d + sizeof(ent), sizeof(r[n].func));
		if (rt_type_graph_exit(ent.type)) {
			struct rt_graph_ret_entry x;

			ASSERT_TRUE(rt_graph_ret_read(d, ringbuf_event_length(e),
						      &x));
			r[n].calltime = x.calltime;
			r[n].rettime = x.rettime;
		}
		n++;
	}
	return n;
}

/* The index of the first record of @type (and @func, unless 0) from @i. */
static size_t hb_find(const struct hb_rec *r, size_t n, size_t i,
		      uint16_t type, const void *func)
{
	for (; i < n; i++)
		if (r[i].type == type &&
		    (!func || r[i].func == (unsigned long)func))
			return i;
	RBT_FAIL("no record of type %u for %p", type, func);
	return n;
}

/*
 * A call that calls nothing traced: its entry, held back, is written
 * with its exit; readers see the two records, the entry stamped with the
 * call's own time (the exit's calltime), the exit with its return time,
 * and print it as one leaf line whose duration the exit's fields give.
 */
static void graph_leaf_pair(void)
{
	struct hb_rec r[16];
	size_t n, i;

	tracer("function_graph");
	hb_warm();
	ringtrace_clear(tr);
	ASSERT_EQ(mc_pouter(1), 6);
	tracer("nop");
	n = hb_records(r, 16);
	ASSERT_EQ(n, 6);
	ASSERT_EQ(r[0].type, RT_TYPE_GRAPH_ENT);
	ASSERT_EQ(r[0].func, (unsigned long)mc_pouter);
	for (i = 1; i < 5; i += 2) {
		ASSERT_EQ(r[i].type, RT_TYPE_GRAPH_ENT);
		ASSERT_EQ(r[i].func, (unsigned long)mc_pleaf);
		ASSERT_TRUE(rt_type_graph_exit(r[i + 1].type));
		ASSERT_EQ(r[i + 1].func, (unsigned long)mc_pleaf);
		ASSERT_EQ_U(r[i].ts, r[i + 1].calltime);
		ASSERT_EQ_U(r[i + 1].ts, r[i + 1].rettime);
		ASSERT_GE_U(r[i + 1].rettime, r[i + 1].calltime);
		ASSERT_GE_U(r[i].ts, r[i - 1].ts);
	}
	ASSERT_TRUE(rt_type_graph_exit(r[5].type));
	ASSERT_EQ(r[5].func, (unsigned long)mc_pouter);
	/* (the records were consumed: the same run again for the text) */
	tracer("function_graph");
	hb_warm();
	ringtrace_clear(tr);
	ASSERT_EQ(mc_pouter(1), 6);
	tracer("nop");
	expect_tree("0:mc_pouter() {\n1:mc_pleaf();\n1:mc_pleaf();\n0:}\n");
}

/* (not traced) a marker written inside the traced call that calls it */
static int hb_marker(int x)
{
	ASSERT_EQ(ringtrace_marker_write(tr, "inside", 6), 0);
	return x;
}

/*
 * A marker written inside a call whose entry is held back comes after
 * that entry (the marker's general path writes the entry first).
 */
static void graph_leaf_marker(void)
{
	struct hb_rec r[8];
	size_t n, e, m, x;

	tracer("function_graph");
	hb_warm();
	ringtrace_clear(tr);
	ASSERT_EQ(mc_pcall(hb_marker, 1), 2);
	tracer("nop");
	n = hb_records(r, 8);
	e = hb_find(r, n, 0, RT_TYPE_GRAPH_ENT, mc_pcall);
	m = hb_find(r, n, 0, RT_TYPE_PRINT, NULL);
	x = hb_find(r, n, 0, RT_TYPE_GRAPH_RET, mc_pcall);
	ASSERT_LT(e, m);
	ASSERT_LT(m, x);
	ASSERT_LE_U(r[e].ts, r[m].ts);
}

static void hb_sig_handler(int sig)
{
	(void)sig;
	mc_pleaf(1);
}

/* (not traced) a signal to this thread inside the traced call */
static int hb_raise(int x)
{
	raise(SIGUSR1);
	return x;
}

/*
 * A signal handler's traced call inside a call whose entry is held back
 * comes after that entry: nested in it, as without the hold.
 */
static void graph_leaf_signal(void)
{
	struct sigaction sa = { .sa_handler = hb_sig_handler };

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	tracer("function_graph");
	hb_warm();
	ringtrace_clear(tr);
	ASSERT_EQ(mc_pcall(hb_raise, 1), 2);
	tracer("nop");
	signal(SIGUSR1, SIG_DFL);
	expect_tree("0:mc_pcall() {\n1:mc_pleaf();\n0:}\n");
}

static sigjmp_buf hb_env;

/* (not traced) leave the traced call by a jump */
static int hb_jump(int x)
{
	siglongjmp(hb_env, x);
}

/*
 * A longjmp out of a call whose entry is held back: the entry is written
 * (its exit never comes, as without the hold), and the calls after it
 * read back whole.
 */
static void graph_leaf_longjmp(void)
{
	tracer("function_graph");
	hb_warm();
	ringtrace_clear(tr);
	if (!sigsetjmp(hb_env, 0))
		mc_pcall(hb_jump, 1);
	ASSERT_EQ(mc_pouter(1), 6);
	tracer("nop");
	expect_tree("0:mc_pcall() {\n0:mc_pouter() {\n1:mc_pleaf();\n"
		    "1:mc_pleaf();\n0:}\n");
}

/* (not traced) end the thread inside the traced call */
static int hb_exit(int x)
{
	(void)x;
	pthread_exit(NULL);
}

static void *hb_exit_thread(void *arg)
{
	(void)arg;
	hb_warm();
	mc_pcall(hb_exit, 1);
	return NULL;
}

/*
 * A thread that ends (pthread_exit()) inside a call whose entry is held
 * back: the entry is written first (the exit never comes, as without the
 * hold).
 */
static void graph_leaf_thread_exit(void)
{
	pthread_t th;

	tracer("function_graph");
	ringtrace_clear(tr);
	ASSERT_EQ(pthread_create(&th, NULL, hb_exit_thread, NULL), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	tracer("nop");
	expect_tree("0:mc_pleaf();\n0:mc_pcall() {\n");
}

/* The trace, in a process that ends (exit() or a fork's child): 0 if it
 * is @want, 1 otherwise (printed). */
static int hb_tree_is(const char *want)
{
	char *got = graph_tree();
	int bad = strcmp(got, want) != 0;

	if (bad)
		fprintf(stderr, "tree:\n%swanted:\n%s", got, want);
	free(got);
	return bad;
}

/* (not traced) the check at exit: atexit() handlers run after exit()
 * has begun; the process ends here with the verdict */
static void hb_exit_check(void)
{
	_exit(hb_tree_is("0:mc_pcall() {\n"));
}

/* (not traced) end the process inside the traced call */
static int hb_exit_process(int x)
{
	(void)x;
	exit(3);
}

/*
 * exit() inside a call whose entry is held back: the entry is written
 * before the process ends (its exit never comes). The exit is a fresh
 * run of this program (this case, its role in the environment), whose
 * handler registered last, run first, checks the trace.
 */
static void graph_leaf_exit(void)
{
	int pid, status;

	if (getenv("MC_EXIT_ROLE")) {
		tracer("function_graph");
		hb_warm();
		ringtrace_clear(tr);
		ASSERT_EQ(atexit(hb_exit_check), 0);
		mc_pcall(hb_exit_process, 1);
		RBT_FAIL("exit() returned");
	}
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		static char name[] = "test_mcount", role[] = "graph_leaf_exit";
		char *argv[] = { name, role, NULL };

		setenv("MC_EXIT_ROLE", "1", 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

/* (not traced) fork inside the traced call; the child looks at the
 * trace (its copy of the buffers maps the parent's pages) and ends */
static int hb_fork(int x)
{
	int pid = fork(), status;

	if (!pid) {
		/* the entry, written by the parent before the fork; the
		 * child's own records are refused, none comes before it */
		int bad = hb_tree_is("0:mc_pcall() {\n");

		mc_pleaf(2);
		bad |= hb_tree_is("0:mc_pcall() {\n");
		_exit(bad);
	}
	ASSERT_GT(pid, 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	ASSERT_EQ(ringtrace_marker_write(tr, "forked", 6), 0);
	return x;
}

/*
 * fork() inside a call whose entry is held back: the entry is the
 * parent's record, written before the fork; the child finds it in the
 * trace and adds nothing before it (nor after: its buffers refuse); the
 * parent's records after the fork follow it.
 */
static void graph_leaf_fork(void)
{
	struct hb_rec r[16];
	size_t n, e, m, x;

	tracer("function_graph");
	hb_warm();
	ringtrace_clear(tr);
	ASSERT_EQ(mc_pcall(hb_fork, 1), 2);
	tracer("nop");
	n = hb_records(r, 16);
	ASSERT_EQ(n, 3);
	e = hb_find(r, n, 0, RT_TYPE_GRAPH_ENT, mc_pcall);
	m = hb_find(r, n, 0, RT_TYPE_PRINT, NULL);
	x = hb_find(r, n, 0, RT_TYPE_GRAPH_RET, mc_pcall);
	ASSERT_EQ(e, 0);
	ASSERT_EQ(m, 1);
	ASSERT_EQ(x, 2);
	ASSERT_LE_U(r[e].ts, r[m].ts);
	ASSERT_GE_U(r[e].ts, r[x].calltime);
}

static sem_t hb_inside;

/* (not traced) wait inside the traced call for the cancellation, at a
 * cancellation point (deferred) */
static int hb_cancel_wait(int x)
{
	sem_post(&hb_inside);
	for (;;)
		pause();
	return x;
}

/* (a global, not a local: the cancellation's unwind, glibc's own
 * longjmp, leaves an instrumented frame's redzones poisoned under
 * AddressSanitizer, which the thread's exit then trips over) */
static volatile int hb_spin = 1;

/* (not traced) spin inside the traced call, cancelled asynchronously */
static int hb_cancel_spin(int x)
{
	sem_post(&hb_inside);
	/* (a cancellation already sent acts here) */
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	while (hb_spin)
		;
	return x;
}

static void *hb_cancel_thread(void *arg)
{
	hb_warm();
	mc_pcall((int (*)(int))arg, 1);
	return NULL;
}

/* @start (with @arg) run as a thread and cancelled once inside its
 * traced call: the trace is then @want. */
static void hb_cancel_run(void *(*start)(void *), void *arg,
			  const char *want)
{
	pthread_t th;
	void *ret;

	ASSERT_EQ(sem_init(&hb_inside, 0, 0), 0);
	tracer("function_graph");
	ringtrace_clear(tr);
	ASSERT_EQ(pthread_create(&th, NULL, start, arg), 0);
	while (sem_wait(&hb_inside))
		;
	ASSERT_EQ(pthread_cancel(th), 0);
	ASSERT_EQ(pthread_join(th, &ret), 0);
	ASSERT_TRUE(ret == PTHREAD_CANCELED);
	tracer("nop");
	expect_tree(want);
	sem_destroy(&hb_inside);
}

/* A thread cancelled inside a call whose entry is held back (@body:
 * where it waits): the entry is written as the thread ends. */
static void hb_cancel(int (*body)(int))
{
	hb_cancel_run(hb_cancel_thread, (void *)body,
		      "0:mc_pleaf();\n0:mc_pcall() {\n");
}

static void graph_leaf_cancel(void)
{
	hb_cancel(hb_cancel_wait);
}

/* (the thread's first traced call is the one it is cancelled in: it
 * has written no record before) */
static void *hb_cancel_first_thread(void *arg)
{
	(void)arg;
	mc_pcall(hb_cancel_wait, 1);
	return NULL;
}

/*
 * A thread cancelled inside its first traced call, before it has
 * written any record (a worker whose traced start function waits at a
 * cancellation point at once): its entry is written as it ends, as for
 * a thread that has written records before (graph_leaf_cancel).
 */
static void graph_first_call_cancel(void)
{
	hb_cancel_run(hb_cancel_first_thread, NULL, "0:mc_pcall() {\n");
}

static void graph_leaf_cancel_async(void)
{
	hb_cancel(hb_cancel_spin);
}

static pthread_mutex_t hb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hb_cond = PTHREAD_COND_INITIALIZER;
static int hb_step;
static int hb_cpu;

static void hb_wait_step(int want)
{
	pthread_mutex_lock(&hb_lock);
	while (hb_step < want)
		pthread_cond_wait(&hb_cond, &hb_lock);
	pthread_mutex_unlock(&hb_lock);
}

static void hb_set_step(int v)
{
	pthread_mutex_lock(&hb_lock);
	hb_step = v;
	pthread_cond_broadcast(&hb_cond);
	pthread_mutex_unlock(&hb_lock);
}

static void hb_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(set), &set), 0);
}

/* Another thread on our CPU: a marker while we are inside the call. */
static void *hb_other(void *arg)
{
	(void)arg;
	hb_pin(hb_cpu);
	hb_wait_step(1);
	ASSERT_EQ(ringtrace_marker_write(tr, "other", 5), 0);
	hb_set_step(2);
	return NULL;
}

/* (not traced) wait, inside the traced call, for the other thread */
static int hb_preempted(int x)
{
	hb_set_step(1);
	hb_wait_step(2);
	return x;
}

/*
 * Preempted inside a call whose entry is held back, while another thread
 * writes to the same CPU buffer (both pinned to one CPU): the entry,
 * written after that record, is not stamped before it; every CPU buffer
 * reads back monotonic, and the exit's fields keep the call's times.
 */
static void graph_leaf_preempt(void)
{
	struct hb_rec r[16];
	uint64_t last[64] = { 0 };
	size_t n, e, m, x;
	pthread_t th;

	hb_cpu = sched_getcpu();
	ASSERT_GE(hb_cpu, 0);
	ASSERT_LT(hb_cpu, 64);
	hb_pin(hb_cpu);
	hb_step = 0;
	tracer("function_graph");
	hb_warm();
	ringtrace_clear(tr);
	ASSERT_EQ(pthread_create(&th, NULL, hb_other, NULL), 0);
	ASSERT_EQ(mc_pcall(hb_preempted, 1), 2);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	tracer("nop");
	n = hb_records(r, 16);
	m = hb_find(r, n, 0, RT_TYPE_PRINT, NULL);
	e = hb_find(r, n, 0, RT_TYPE_GRAPH_ENT, mc_pcall);
	x = hb_find(r, n, 0, RT_TYPE_GRAPH_RET, mc_pcall);
	ASSERT_LT(m, e);
	ASSERT_LT(e, x);
	ASSERT_EQ(r[m].cpu, r[e].cpu);
	/* the call began before the other record: its entry is raised */
	ASSERT_LT_U(r[x].calltime, r[m].ts);
	/* raised to the other record's time exactly (or, had the pair
	 * opened or crossed a page, at the exit's) */
	ASSERT_TRUE(r[e].ts == r[m].ts || r[e].ts == r[x].ts);
	ASSERT_LE_U(r[e].ts, r[x].ts);
	ASSERT_GT_U(r[x].rettime, r[x].calltime);
	ASSERT_GE_U(r[x].ts, r[x].rettime);
	for (size_t i = 0; i < n; i++) {
		ASSERT_TRUE(r[i].cpu >= 0 && r[i].cpu < 64);
		ASSERT_GE_U(r[i].ts, last[r[i].cpu]);
		last[r[i].cpu] = r[i].ts;
	}
	/* back to every CPU (those the system has: the call ignores the
	 * others) */
	{
		cpu_set_t all;

		CPU_ZERO(&all);
		for (int c = 0; c < CPU_SETSIZE; c++)
			CPU_SET(c, &all);
		sched_setaffinity(0, sizeof(all), &all);
	}
}

/* ---- the return stack ---------------------------------------------------------- */

static void graph_longjmp(void)
{
	sigjmp_buf env;
	volatile int i;

	tracer("function_graph");
	/* more jumps than the return stack holds frames */
	for (i = 0; i < 300; i++)
		if (!sigsetjmp(env, 0))
			mc_jump(&env, 3);
	ringtrace_clear(tr);
	mc_outer(1);
	tracer("nop");
	expect_tree("0:mc_outer() {\n1:mc_mid() {\n2:mc_leaf();\n2:mc_leaf();\n"
		    "1:}\n0:}\n");
}

static void sig_handler(int sig)
{
	(void)sig;
	mc_sig_leaf(1);
}

static void graph_signal(void)
{
	struct sigaction sa = { .sa_handler = sig_handler };
	stack_t ss = { .ss_size = 1 << 16 };
	char *tree;

	ss.ss_sp = malloc(ss.ss_size);
	ASSERT_NOT_NULL(ss.ss_sp);
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	tracer("function_graph");
	raise(SIGUSR1);
	/* on an alternate stack */
	ASSERT_EQ(sigaltstack(&ss, NULL), 0);
	sa.sa_flags = SA_ONSTACK;
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	raise(SIGUSR1);
	mc_outer(1);
	tracer("nop");
	ss.ss_flags = SS_DISABLE;
	ASSERT_EQ(sigaltstack(&ss, NULL), 0);
	free(ss.ss_sp);
	signal(SIGUSR1, SIG_DFL);
	tree = graph_tree();
	ASSERT_EQ(count(tree, "0:mc_sig_leaf() {\n1:mc_leaf();\n0:}\n"), 2);
	ASSERT_EQ(count(tree, "0:mc_outer() {"), 1);
	free(tree);
}

static void graph_fork(void)
{
	int pid, status;

	tracer("function_graph");
	pid = mc_fork();
	if (!pid) {
		/*
		 * The child returned through the inherited return stack;
		 * it patches its own text (not its parent's) too.
		 */
		mc_outer(1);
		if (ringtrace_set_tracer(tr, "nop") ||
		    site_is_call((const void *)mc_leaf) ||
		    ringtrace_set_tracer(tr, "function_graph") ||
		    !site_is_call((const void *)mc_leaf))
			_exit(2);
		_exit(mc_outer(1) == 10 ? 0 : 1);
	}
	ASSERT_GT(pid, 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	tracer("nop");
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	/* the parent's sites are its own */
	ASSERT_FALSE(site_is_call((const void *)mc_leaf));
}

static _Atomic int mc_cleaned;

static void cancel_cleanup(void *arg)
{
	(void)arg;
	atomic_store(&mc_cleaned, 1);
}

static void *cancel_thread(void *arg)
{
	(void)arg;
	pthread_cleanup_push(cancel_cleanup, NULL);
	mc_cancel_loop();
	pthread_cleanup_pop(0);
	return NULL;
}

static void graph_cancel(void)
{
	pthread_t th;
	void *ret;

	tracer("function_graph");
	ASSERT_EQ(pthread_create(&th, NULL, cancel_thread, NULL), 0);
	usleep(10000);
	ASSERT_EQ(pthread_cancel(th), 0);
	ASSERT_EQ(pthread_join(th, &ret), 0);
	ASSERT_TRUE(ret == PTHREAD_CANCELED);
	ASSERT_EQ(atomic_load(&mc_cleaned), 1);
	ringtrace_clear(tr);
	mc_outer(1);
	tracer("nop");
	expect_tree("0:mc_outer() {\n1:mc_mid() {\n2:mc_leaf();\n2:mc_leaf();\n"
		    "1:}\n0:}\n");
}

static void graph_deep(void)
{
	char *tree;

	tracer("function_graph");
	ASSERT_EQ(mc_recurse(1000), 1001);
	ringtrace_tracing_on(tr, false);
	tree = graph_tree();
	/* the return stack's 256 frames, the deeper calls counted */
	ASSERT_EQ(count(tree, "mc_recurse() {"), 255);
	ASSERT_EQ(count(tree, ":mc_recurse();\n"), 1);
	ASSERT_EQ(count(tree, "mc_leaf();"), 0);
	free(tree);
	ringtrace_tracing_on(tr, true);
	ringtrace_clear(tr);
	mc_outer(1);
	tracer("nop");
	expect_tree("0:mc_outer() {\n1:mc_mid() {\n2:mc_leaf();\n2:mc_leaf();\n"
		    "1:}\n0:}\n");
}

static void graph_dlclose(void)
{
	int (*fn)(int);
	void *h;
	char *e;

	tracer("function_graph");
	for (int i = 0; i < 3; i++) {
		h = dlopen(MC_DL_PATH, RTLD_NOW);
		ASSERT_NOT_NULL(h);
		fn = (int (*)(int))dlsym(h, "mc_dl_fn");
		ASSERT_NOT_NULL(fn);
		ASSERT_TRUE(site_is_call((const void *)fn));
		ringtrace_clear(tr);
		ASSERT_EQ(fn(2), 7);
		/* the names while the module is there */
		expect_tree("0:mc_dl_fn() {\n1:mc_dl_leaf();\n0:}\n");
		e = enabled_functions();
		ASSERT_EQ(count(e, "mc_dl_fn [libmc_dl.so] (1)"), 1);
		free(e);
		ASSERT_EQ(dlclose(h), 0);
		e = enabled_functions();
		ASSERT_EQ(count(e, "mc_dl_fn"), 0);
		free(e);
		/* patching after the unload leaves the old place alone */
		tracer("nop");
		tracer("function_graph");
	}
	tracer("nop");
}

static void graph_backtrace(void)
{
	void *buf[32];
	bool found_bt = false, found_me = false;
	int n, i;

	tracer("function_graph");
	n = mc_bt(buf, 32);
	tracer("nop");
	ASSERT_GT(n, 3);
	for (i = 0; i < n; i++) {
		Dl_info di;

		if (!dladdr(buf[i], &di) || !di.dli_sname)
			continue;
		found_bt |= !strcmp(di.dli_sname, "mc_bt");
		found_me |= !strcmp(di.dli_sname, "test_case_graph_backtrace");
		ASSERT_TRUE(strcmp(di.dli_sname, "return_to_handler") != 0);
	}
	/* the walk went on past the hijacked returns */
	ASSERT_TRUE(found_bt);
	ASSERT_TRUE(found_me);
	/* and the returns are still hijacked: the exits were recorded */
	expect_tree("0:mc_bt() {\n1:mc_bt_inner();\n0:}\n");
}

static void graph_cxx(void)
{
	char *tree;

	tracer("function_graph");
	ASSERT_EQ(mc_cxx_catch(4), 2);
	mc_outer(1);
	tracer("nop");
	tree = graph_tree();
	/* the catcher's own calls after each catch, at its depth */
	ASSERT_EQ(count(tree, "1:mc_leaf();\n"), 2);
	/* the destructors' calls during the unwinding */
	ASSERT_GE(count(tree, "mc_leaf();"), 2 + 10);
	ASSERT_EQ(count(tree, "0:mc_outer() {\n1:mc_mid() {\n"), 1);
	free(tree);
}

/* graph cases with set_graph_function */
static void graph_function_root(void)
{
	char err[128];

	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_FUNCTION, "mc_mid",
					    false, err, sizeof(err)),
		  0);
	tracer("function_graph");
	mc_outer(1);
	tracer("nop");
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_FUNCTION, "", false,
					    err, sizeof(err)),
		  0);
	expect_tree("0:mc_mid() {\n1:mc_leaf();\n1:mc_leaf();\n0:}\n");
}

/*
 * set_graph_notrace changed under the running tracer, on sites that
 * set_ftrace_filter selects: the graph's own lists are tested while one
 * is set, and left out again once they are empty.
 */
static void graph_lists_change(void)
{
	char err[128];

	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER,
					    "mc_outer mc_mid", false, err,
					    sizeof(err)),
		  0);
	tracer("function_graph");
	mc_outer(1);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_NOTRACE, "mc_mid",
					    false, err, sizeof(err)),
		  0);
	mc_outer(1);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_NOTRACE, "", false,
					    err, sizeof(err)),
		  0);
	mc_outer(1);
	tracer("nop");
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "", false,
					    err, sizeof(err)),
		  0);
	expect_tree("0:mc_outer() {\n1:mc_mid();\n0:}\n"
		    "0:mc_outer();\n"
		    "0:mc_outer() {\n1:mc_mid();\n0:}\n");
}

int mc_pm_leaf(int x);
int mc_ps_leaf(int x);

/*
 * -fpatchable-function-entry=N,M with M > 0: the NOPs at the entry are
 * patched (9,2), or, too few for a call (5,2), the site is left alone
 * and the function still runs.
 */
static void patch_before_entry(void)
{
	char *t;

	tracer("function");
	ASSERT_TRUE(site_is_call((const void *)mc_pm_leaf));
	ASSERT_FALSE(site_is_call((const void *)mc_ps_leaf));
	ASSERT_EQ(mc_pm_leaf(1), 2);
	ASSERT_EQ(mc_ps_leaf(1), 2);
	tracer("nop");
	ASSERT_FALSE(site_is_call((const void *)mc_pm_leaf));
	ASSERT_EQ(mc_pm_leaf(1), 2);
	t = trace_text();
	ASSERT_EQ(count(t, ": mc_pm_leaf <-"), 1);
	ASSERT_EQ(count(t, ": mc_ps_leaf <-"), 0);
	free(t);
}

/* ---- sites that cannot be patched, and dlclose() ------------------------------ */

/* Whether the line of @text that holds @key holds @what too. */
static bool line_has(const char *text, const char *key, const char *what)
{
	const char *k = strstr(text, key), *start, *end;

	if (!k)
		return false;
	for (start = k; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(k, '\n');
	if (!end)
		end = k + strlen(k);
	k = strstr(start, what);
	return k && k < end;
}

static char *site_errors(void)
{
	return shown(ringtrace_ftrace_site_errors);
}

/*
 * A site that cannot be patched is reported (the lines of the mount's
 * error_log) and left alone, and the others are patched: mc_ps_leaf()
 * has three NOPs at its entry (too short for a call, found at start-up);
 * mc_leaf()'s text page is made a shared mapping of a copy of itself,
 * which /proc/self/mem does not write.
 */
static void site_unpatchable(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long page = (unsigned long)mc_leaf & ~(unsigned long)(pg - 1);
	/* mc_pleaf() is in another object file; where the linker put it on
	 * the same page, it cannot be patched either */
	int same = ((unsigned long)mc_pleaf & ~(unsigned long)(pg - 1)) == page;
	char err[128], *e, *t;
	void *m;
	int fd;

#ifdef __SANITIZE_THREAD__
	/* TSan's mmap() interceptor faults writing the shadow of a page of
	 * the program's text mapped again in place (MAP_FIXED) */
	rbt_skip("a text page mapped again in place is beyond ThreadSanitizer");
#endif
	/* (a sanitizer build has more such sites: its module constructors
	 * in the same object files) */
	e = site_errors();
	ASSERT_EQ(count(e, "mc_ps_leaf+0x0/"), 1);
	ASSERT_TRUE(line_has(e, "mc_ps_leaf+0x0/",
			     "\tCannot patch the call site: the function is too short"));
	free(e);

	fd = memfd_create("mc_text", MFD_CLOEXEC);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, (const void *)page, (size_t)pg), pg);
	m = mmap((void *)page, (size_t)pg, PROT_READ | PROT_EXEC,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	ASSERT_TRUE(m == (void *)page);
	close(fd);

	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER,
					    "mc_leaf mc_pleaf", false, err,
					    sizeof(err)),
		  0);
	tracer("function");
	ASSERT_FALSE(site_is_call((const void *)mc_leaf));
	ASSERT_EQ(site_is_call((const void *)mc_pleaf), !same);
	e = site_errors();
	ASSERT_EQ(count(e, "mc_leaf+0x0/"), 1);
	ASSERT_TRUE(line_has(e, "mc_leaf+0x0/",
			     "\tCannot patch the call site: the text page takes no write"));
	ASSERT_EQ(count(e, "mc_pleaf+0x0/"), same);
	free(e);
	e = enabled_functions();
	ASSERT_EQ(count(e, "mc_leaf"), 0);
	free(e);
	ASSERT_EQ(mc_leaf(2), 3);
	ASSERT_EQ(mc_pouter(1), 6);
	tracer("nop");
	/* off and on again: the site stays alone, no second report */
	tracer("function");
	tracer("nop");
	e = site_errors();
	ASSERT_EQ(count(e, "mc_leaf+0x0/"), 1);
	free(e);
	t = trace_text();
	ASSERT_EQ(count(t, ": mc_leaf <-"), 0);
	ASSERT_EQ(count(t, ": mc_pleaf <-"), same ? 0 : 2);
	free(t);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "", false,
					    err, sizeof(err)),
		  0);
}

/*
 * dlopen() and dlclose() of a traced module in a loop while the tracers
 * are switched on and off in another thread: the patching never writes
 * into an object being unloaded (dlclose() takes the sites out under the
 * lock the patching holds), every call returns what it should.
 */
#if defined(RBT_TSAN) || defined(__SANITIZE_ADDRESS__)
#define MC_DL_ROUNDS 40
#else
#define MC_DL_ROUNDS 200
#endif

static _Atomic int mc_dl_done;

static void *dl_loop(void *arg)
{
	(void)arg;
	for (int i = 0; i < MC_DL_ROUNDS; i++) {
		void *h = dlopen(MC_DL_PATH, RTLD_NOW);
		int (*fn)(int);

		ASSERT_NOT_NULL(h);
		fn = (int (*)(int))dlsym(h, "mc_dl_fn");
		ASSERT_NOT_NULL(fn);
		ASSERT_EQ(fn(2), 7);
		ASSERT_EQ(dlclose(h), 0);
	}
	atomic_store(&mc_dl_done, 1);
	return NULL;
}

static void patch_dlclose(void)
{
	static const char *const tracers[] = { "function", "nop",
					       "function_graph", "nop" };
	pthread_t th;
	void *h;
	int (*fn)(int);
	char *t;
	int i = 0;

	ASSERT_EQ(pthread_create(&th, NULL, dl_loop, NULL), 0);
	while (!atomic_load(&mc_dl_done))
		tracer(tracers[i++ % 4]);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_TRUE(i > 0);

	/* the module's sites are right after it all */
	tracer("nop");
	ringtrace_clear(tr);
	h = dlopen(MC_DL_PATH, RTLD_NOW);
	ASSERT_NOT_NULL(h);
	fn = (int (*)(int))dlsym(h, "mc_dl_fn");
	ASSERT_NOT_NULL(fn);
	ASSERT_FALSE(site_is_call((const void *)fn));
	tracer("function");
	ASSERT_TRUE(site_is_call((const void *)fn));
	ASSERT_EQ(fn(2), 7);
	tracer("nop");
	ASSERT_EQ(dlclose(h), 0);
	t = trace_text();
	ASSERT_EQ(count(t, ": mc_dl_fn <-"), 1);
	ASSERT_EQ(count(t, ": mc_dl_leaf <-mc_dl_fn"), 1);
	free(t);
}

/* ---- arguments and return values ---------------------------------------- */

static void option(const char *name)
{
	ASSERT_EQ(ringtrace_set_option(tr ? tr : ringtrace_top(), name), 0);
}

/*
 * funcgraph-retval: a comment "= value" after a leaf, and "func = value"
 * after a nested return's brace (Linux 6.12's text); an error code (-4095..-1, in 64 or 32 bits) in
 * decimal, anything else in hexadecimal (the kernel's print_graph_retval).
 */
static void graph_retval(void)
{
	option("funcgraph-retval");
	tracer("function_graph");
	ASSERT_EQ(fa_outer(4), 10);
	ASSERT_EQ(fa_fail(), -22);
	ASSERT_EQ(fa_neg(5), -5);
	ASSERT_EQ(fa_neg(-4096), 4096);
	ASSERT_EQ(fa_neg(4096), -4096);
	tracer("nop");
	expect_tree("0:fa_outer() {\n1:fa_add(); /* = 0x5 */\n"
		    "0:} /* fa_outer = 0xa */\n"
		    "0:fa_fail(); /* = -22 */\n"
		    "0:fa_neg(); /* = -5 */\n"
		    "0:fa_neg(); /* = 0x1000 */\n"
		    "0:fa_neg(); /* = 0xfffffffffffff000 */\n");
}

/*
 * funcgraph-retval decides which exit record is written: funcgraph_exit
 * (40 bytes) without it, fgraph_retval_exit (48, with the return value)
 * with it; switched while the graph tracer runs, from the next call's
 * exit on. The trace prints the value where the record has one.
 */
static void graph_retval_switch(void)
{
	static const struct {
		uint16_t type;
		unsigned int len;
	} want[] = {
		{ RT_TYPE_GRAPH_ENT, sizeof(struct rt_graph_ent_entry) },
		{ RT_TYPE_GRAPH_RET, sizeof(struct rt_graph_exit_entry) },
		{ RT_TYPE_GRAPH_ENT, sizeof(struct rt_graph_ent_entry) },
		{ RT_TYPE_GRAPH_RETVAL, sizeof(struct rt_graph_ret_entry) },
		{ RT_TYPE_GRAPH_ENT, sizeof(struct rt_graph_ent_entry) },
		{ RT_TYPE_GRAPH_RET, sizeof(struct rt_graph_exit_entry) },
	};
	struct ringbuf_event *e;
	struct ringbuf *rb;
	size_t n = 0;

	tracer("function_graph");
	ASSERT_EQ(fa_fail(), -22);
	option("funcgraph-retval");
	ASSERT_EQ(fa_fail(), -22);
	option("nofuncgraph-retval");
	ASSERT_EQ(fa_fail(), -22);
	option("funcgraph-retval");
	tracer("nop");
	expect_tree("0:fa_fail();\n0:fa_fail(); /* = -22 */\n0:fa_fail();\n");
	rb = ringtrace_buffer(tr);
	ASSERT_NOT_NULL(rb);
	while ((e = ringbuf_consume_next(rb, NULL, NULL, NULL))) {
		struct rt_graph_ret_entry r;
		struct ringtrace_entry ent;
		unsigned long func;

		memcpy(&ent, ringbuf_event_data(e), sizeof(ent));
		if (ent.type != RT_TYPE_GRAPH_ENT && !rt_type_graph_exit(ent.type))
			continue;
		/* func follows the header in every graph record */
		memcpy(&func, (char *)ringbuf_event_data(e) + sizeof(ent),
		       sizeof(func));
		if (func != (unsigned long)fa_fail)
			continue;
		ASSERT_TRUE(n < sizeof(want) / sizeof(want[0]));
		ASSERT_EQ(ent.type, want[n].type);
		ASSERT_EQ(ringbuf_event_length(e), want[n].len);
		if (rt_type_graph_exit(ent.type)) {
			ASSERT_TRUE(rt_graph_ret_read(ringbuf_event_data(e),
						      ringbuf_event_length(e),
						      &r));
			ASSERT_EQ(r.depth, 0);
			if (ent.type == RT_TYPE_GRAPH_RETVAL)
				ASSERT_EQ((int)r.retval, -22);
			else
				ASSERT_EQ(r.overrun, RT_GRAPH_NO_RETVAL);
		}
		n++;
	}
	ASSERT_EQ(n, sizeof(want) / sizeof(want[0]));
}

/* funcgraph-retval-hex: every value in hexadecimal. */
static void graph_retval_hex(void)
{
	option("funcgraph-retval");
	option("funcgraph-retval-hex");
	tracer("function_graph");
	ASSERT_EQ(fa_fail(), -22);
	ASSERT_EQ(fa_neg(5), -5);
	tracer("nop");
	expect_tree("0:fa_fail(); /* = 0xffffffea */\n"
		    "0:fa_neg(); /* = 0xfffffffffffffffb */\n");
}

/*
 * funcgraph-args with the DWARF of fa_*: names and values as the
 * kernel's print_function_args() prints them from BTF; what the
 * registers do not hold is "...", floating-point numbers and large
 * structures (not in integer registers) are named by their kind.
 */
static void graph_args(void)
{
	struct mca_pair pair = { 1, 2 };
	struct mca_big big = { { 10, 0, 0, 20 } };
	static const char text[] = "x";
	char want[1024], *t;

	option("funcgraph-args");
	option("funcgraph-retval");
	tracer("function_graph");
	ASSERT_EQ(fa_outer(4), 10);
	ASSERT_EQ(fa_mix(0xff, -3, 0x10, text, MCA_RED, 1), 0xff - 3 + 0x10);
	ASSERT_EQ(fa_seven(1, 2, 3, 4, 5, 6, 7), 28);
	ASSERT_EQ(fa_pair(pair, -1), 2);
	ASSERT_EQ(fa_flt(1.5, 7), 8);
	ASSERT_EQ(fa_big(big, 9), 39);
	ASSERT_EQ(fa_fail(), -22);
	tracer("nop");
	snprintf(want, sizeof(want),
		 "0:fa_outer(n=4) {\n1:fa_add(a=4, b=1); /* = 0x5 */\n"
		 "0:} /* fa_outer = 0xa */\n"
		 "0:fa_mix(c=0xff, s=-3, u=0x10, p=%p, e=-2, b=0x1); "
		 "/* = 0x10c */\n"
		 "0:fa_seven(a=1, b=2, c=3, d=4, e=5, f=6, ...); "
		 "/* = 0x1c */\n"
		 "0:fa_pair(p=(STRUCT)[0x1:0x2], x=-1); /* = 0x2 */\n"
		 "0:fa_flt(d=(FLOAT), i=7); /* = 0x8 */\n"
		 "0:fa_big(b=(STRUCT), i=9); /* = 0x27 */\n"
		 "0:fa_fail(); /* = -22 */\n",
		 (const void *)text);
	expect_tree(want);
	/* trace_pipe prints them the same way (the same printer) */
	t = pipe_text();
	ASSERT_EQ(count(t, "|    fa_add(a=4, b=1); /* = 0x5 */\n"), 1);
	ASSERT_EQ(count(t, "|  } /* fa_outer = 0xa */\n"), 1);
	free(t);
}

/*
 * Without debug information (fn_*, built -g0): the six argument
 * registers as raw numbers, as the kernel's tools print them without
 * BTF; the return value as with it.
 */
static void graph_args_nodebug(void)
{
	char *t;

	option("funcgraph-args");
	option("funcgraph-retval");
	tracer("function_graph");
	ASSERT_EQ(fn_add(2, 3), 5);
	ASSERT_EQ(fn_seven(1, 2, 3, 4, 5, 6, 7), 28);
	tracer("nop");
	t = graph_tree();
	ASSERT_EQ(count(t, "0:fn_add(2, 3, "), 1);
	ASSERT_EQ(count(t, "); /* = 0x5 */\n"), 1);
	ASSERT_EQ(count(t, "0:fn_seven(1, 2, 3, 4, 5, 6); /* = 0x1c */\n"),
		  1);
	free(t);
}

/* Whether an object whose path has @name in it is mapped. */
static bool mapped(const char *name)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	ASSERT_NOT_NULL(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, name) != NULL;
	fclose(f);
	return found;
}

/*
 * A module without debug information anywhere on the machine (built
 * -g0, no debug file): raw registers, and the search for its debug
 * information stays on the machine. The standard search would end by
 * asking debuginfod, which made libdw load its client library (and some
 * thirty behind it) into the traced process.
 */
static void graph_args_local_debuginfo(void)
{
	void *h;
	int (*fn)(int);
	char *t;

	option("funcgraph-args");
	tracer("function_graph");
	h = dlopen(MC_DL_G0_PATH, RTLD_NOW);
	ASSERT_NOT_NULL(h);
	fn = (int (*)(int))dlsym(h, "mc_dl_fn");
	ASSERT_NOT_NULL(fn);
	ASSERT_EQ(fn(2), 7);
	tracer("nop");
	t = graph_tree();
	ASSERT_EQ(count(t, "0:mc_dl_fn(2, "), 1);
	free(t);
	ASSERT_FALSE(mapped("libdebuginfod"));
	ASSERT_EQ(dlclose(h), 0);
}

/*
 * -finstrument-functions (fi_*): its hooks see neither the arguments nor
 * the return value: "()" and no return value, whatever the options; the
 * records still carry the arguments' room of the profiling-call ones
 * (fa_) in the same trace.
 */
static void graph_args_cyg(void)
{
	option("funcgraph-args");
	option("funcgraph-retval");
	tracer("function_graph");
	ASSERT_EQ(fi_outer(4), 10);
	ASSERT_EQ(fa_add(1, 1), 2);
	tracer("nop");
	expect_tree("0:fi_outer() {\n1:fi_add();\n0:}\n"
		    "0:fa_add(a=1, b=1); /* = 0x2 */\n");
}

/*
 * The function tracer alone: a NOP site at a function's entry calls the
 * tracer's own trampoline (ftrace_func_caller, enabled_functions says
 * so), and so does an -mfentry call site (PIE's six-byte "call
 * *__fentry__@GOTPCREL(%rip)", made a "cs call" of the slot);
 * function_graph alone moves both to its own (a jump to the site's stub,
 * which goes on to ftrace_graph_body_caller_D: it calls the body itself),
 * where the stop switch, set_graph_function and max_graph_depth hold
 * too; both tracers at once (in two instances) move the NOP site to
 * ftrace_caller through the trampoline page and give the call site its
 * own call back. The stop switch holds on every one.
 */
static void function_trampoline(void)
{
	struct ringtrace_instance *other;
	char *e, *t;

	tracer("function");
	e = enabled_functions();
	/* (ftrace_func_caller_gpr with mc_pleaf's debug information) */
	ASSERT_EQ(count(e, "mc_pleaf (1)\ttramp: ftrace_func_caller"), 1);
	ASSERT_EQ(count(e, "mc_leaf (1)\ttramp: ftrace_func_caller"), 1);
	free(e);
	ringtrace_function_trace_stop(true);
	ASSERT_EQ(mc_pouter(1), 6);
	ringtrace_function_trace_stop(false);
	ASSERT_EQ(mc_pouter(1), 6);
	ASSERT_EQ(mc_outer(1), 10);
	t = trace_text();
	ASSERT_EQ(count(t, ": mc_pouter <-"), 1);
	ASSERT_EQ(count(t, ": mc_pleaf <-mc_pouter\n"), 2);
	ASSERT_EQ(count(t, ": mc_leaf <-mc_mid\n"), 2);
	free(t);
	tracer("function_graph");
	e = enabled_functions();
	ASSERT_EQ(count(e, "mc_pleaf (1)\ttramp: ftrace_graph_body_caller"), 1);
	ASSERT_EQ(count(e, "mc_leaf (1)\ttramp: ftrace_graph_body_caller"), 1);
	/* a jump, not a call: nothing pushed on the way in */
	ASSERT_EQ(*(const unsigned char *)mc_pleaf, 0xe9);
	ASSERT_EQ(count(e, "ftrace_func_caller"), 0);
	free(e);
	ringtrace_function_trace_stop(true);
	ASSERT_EQ(mc_pouter(1), 6);
	ASSERT_EQ(mc_outer(1), 10);
	ringtrace_function_trace_stop(false);
	ASSERT_EQ(mc_pouter(1), 6);
	ASSERT_EQ(mc_outer(1), 10);
	tracer("nop");
	expect_tree("0:mc_pouter() {\n1:mc_pleaf();\n1:mc_pleaf();\n0:}\n"
		    "0:mc_outer() {\n1:mc_mid() {\n2:mc_leaf();\n"
		    "2:mc_leaf();\n1:}\n0:}\n");
	/* the graph's own lists and depth limit, through its trampoline */
	ringtrace_clear(tr);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_FUNCTION,
					    "mc_pleaf", false, NULL, 0),
		  0);
	tracer("function_graph");
	ASSERT_EQ(mc_pouter(1), 6);
	tracer("nop");
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_FUNCTION, "", false,
					    NULL, 0),
		  0);
	expect_tree("0:mc_pleaf();\n0:mc_pleaf();\n");
	ringtrace_clear(tr);
	tracer("function_graph");
	ASSERT_EQ(ringtrace_set_max_graph_depth(1), 0);
	ASSERT_EQ(mc_pouter(1), 6);
	ASSERT_EQ(ringtrace_set_max_graph_depth(0), 0);
	tracer("nop");
	expect_tree("0:mc_pouter();\n");
	ringtrace_clear(tr);
	/* function_graph here and function in another instance */
	other = ringtrace_instance_create("mc_tramp_other");
	ASSERT_NOT_NULL(other);
	ASSERT_EQ(ringtrace_set_tracer(other, "function"), 0);
	tracer("function_graph");
	e = enabled_functions();
	ASSERT_EQ(count(e, "mc_pleaf (1)\ttramp: ftrace_caller (via "
			   "trampoline)\n"),
		  1);
	ASSERT_EQ(count(e, "mc_leaf (1)\ttramp: ftrace_caller\n"), 1);
	ASSERT_EQ(count(e, "func_caller"), 0);
	free(e);
	ASSERT_EQ(mc_pouter(1), 6);
	ASSERT_EQ(mc_outer(1), 10);
	tracer("nop");
	ASSERT_EQ(ringtrace_instance_destroy(other), 0);
	expect_tree("0:mc_pouter() {\n1:mc_pleaf();\n1:mc_pleaf();\n0:}\n"
		    "0:mc_outer() {\n1:mc_mid() {\n2:mc_leaf();\n"
		    "2:mc_leaf();\n1:}\n0:}\n");
	tracer("function");
	tracer("nop");
	e = enabled_functions();
	ASSERT_EQ(strlen(e), 0);
	free(e);
	ASSERT_FALSE(site_is_call((const void *)mc_pleaf));
}

/*
 * function_graph through the general entry (ftrace_caller,
 * ftrace_ops_entry()) rather than its own trampoline: with the function
 * tracer in another instance, the sites call ftrace_caller, and the
 * return stack holds as through the graph's trampoline: jumps over
 * traced frames, recursion deeper than the stack, the trees.
 */
static void graph_general_entry(void)
{
	struct ringtrace_instance *other;
	sigjmp_buf env;
	volatile int i;
	char *e, *tree;

	other = ringtrace_instance_create("mc_general");
	ASSERT_NOT_NULL(other);
	ASSERT_EQ(ringtrace_set_tracer(other, "function"), 0);
	tracer("function_graph");
	e = enabled_functions();
	ASSERT_EQ(count(e, "func_caller"), 0);
	free(e);
	for (i = 0; i < 300; i++)
		if (!sigsetjmp(env, 0))
			mc_jump(&env, 3);
	ASSERT_EQ(mc_recurse(300), 301);
	ringtrace_tracing_on(tr, false);
	tree = graph_tree();
	ASSERT_EQ(count(tree, "mc_recurse() {"), 255);
	ASSERT_EQ(count(tree, ":mc_recurse();\n"), 1);
	free(tree);
	ringtrace_tracing_on(tr, true);
	ringtrace_clear(tr);
	ASSERT_EQ(mc_outer(1), 10);
	ASSERT_EQ(mc_pouter(1), 6);
	tracer("nop");
	ASSERT_EQ(ringtrace_set_tracer(other, "nop"), 0);
	ASSERT_EQ(ringtrace_instance_destroy(other), 0);
	expect_tree("0:mc_outer() {\n1:mc_mid() {\n2:mc_leaf();\n2:mc_leaf();\n"
		    "1:}\n0:}\n"
		    "0:mc_pouter() {\n1:mc_pleaf();\n1:mc_pleaf();\n0:}\n");
}

/* A thread of its own name calls the traced functions once. */
static void *thread_state_worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "mc-worker");
	ASSERT_EQ(mc_pouter(1), 6);
	return NULL;
}

/*
 * The thread state the function tracer's fast path tests as one word:
 * a new thread's first records carry its id and name (not the fast
 * path's guess before either is known), records inside
 * ringtrace_irq_enter() its hardirq flag, and those after
 * ringtrace_irq_exit() none again, through the tracer's own trampoline
 * (mc_pleaf's NOP site) and the general entry (mc_pouter).
 */
static void function_thread_state(void)
{
	char want[64], *t;
	pthread_t th;
	int tid;

	tracer("function");
	ASSERT_EQ(pthread_create(&th, NULL, thread_state_worker, NULL), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ringtrace_irq_enter();
	ASSERT_EQ(mc_pouter(1), 6);
	ringtrace_irq_exit();
	ASSERT_EQ(mc_pouter(1), 6);
	tracer("nop");
	t = trace_text();
	ASSERT_EQ(count(t, "mc-worker-"), 3);
	ASSERT_EQ(count(t, "<idle>"), 0);
	ASSERT_EQ(count(t, "<...>"), 0);
	tid = (int)gettid();
	snprintf(want, sizeof(want), "-%d ", tid);
	ASSERT_EQ(count(t, want), 6);
	ASSERT_EQ(count(t, " ..h.. "), 3);
	ASSERT_EQ(count(t, ": mc_pleaf <-mc_pouter\n"), 6);
	free(t);
}

/*
 * The floating-point arguments and return value through the rare paths
 * of the C that the trampolines call: a thread's first record (its RCU
 * registration, the ring buffer's claim, the general path of the write,
 * each of which may use the vector registers) and the page crossings of
 * many records. Every call returns what it computes from its double
 * arguments and is recorded once, under each tracer.
 */
#define MC_RARE_CALLS 2000

static void *rare_worker(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = 0; i < MC_RARE_CALLS; i++)
		/* i + 0.5 times 2, plus mc_leaf(1) */
		if (mc_float(i + 0.5, 2.0) != 2.0 * i + 3.0)
			bad++;
	return (void *)bad;
}

static void registers_rare(void)
{
	static const char *const tracers[] = { "function", "function_graph" };
	static const char *const lines[] = { ": mc_float <-", "mc_float() {" };

	for (int k = 0; k < 2; k++) {
		pthread_t th;
		void *bad;
		char *t;

		ringtrace_clear(tr ? tr : ringtrace_top());
		tracer(tracers[k]);
		ASSERT_EQ(pthread_create(&th, NULL, rare_worker, NULL), 0);
		ASSERT_EQ(pthread_join(th, &bad), 0);
		tracer("nop");
		ASSERT_EQ((long)bad, 0);
		t = trace_text();
		ASSERT_EQ(count(t, lines[k]), MC_RARE_CALLS);
		free(t);
	}
}

/*
 * func-args (Linux 6.15's option of the function tracer): "func(name=
 * value, ...) <-parent", the arguments printed as funcgraph-args prints
 * them (the kernel's print_fn_trace() with print_function_args()), by
 * the general entry (fa_: -mrecord-mcount call sites; fn_: without
 * debug information, raw registers) and by the function tracer's own
 * trampoline (fp_: NOP sites). Without the option, no arguments.
 */
static void function_args(void)
{
	static const char text[] = "x";
	char want[256], *t;

	option("func-args");
	tracer("function");
	/*
	 * The trampoline from the debug information: xmm0-7 kept for a
	 * function that may take something in them (a double, a structure),
	 * not for one of integers and pointers alone.
	 */
	t = enabled_functions();
#ifndef __clang__
	/* (GCC's: Clang may pass a static function's arguments otherwise
	 * than its DWARF says, so its functions keep xmm0-7 saved) */
	ASSERT_EQ(count(t, "fp_add (1)\ttramp: ftrace_func_caller_gpr (via "
			   "trampoline)\n"),
		  1);
	ASSERT_EQ(count(t, "fp_mix (1)\ttramp: ftrace_func_caller_gpr (via "
			   "trampoline)\n"),
		  1);
#endif
	ASSERT_EQ(count(t, "fp_flt (1)\ttramp: ftrace_func_caller (via "
			   "trampoline)\n"),
		  1);
	ASSERT_EQ(count(t, "fp_pair (1)\ttramp: ftrace_func_caller (via "
			   "trampoline)\n"),
		  1);
	free(t);
	ASSERT_EQ(fa_outer(4), 10);
	ASSERT_EQ(fp_outer(4), 10);
	ASSERT_EQ(fp_mix(0xff, -3, 0x10, text, MCA_RED, 1), 0xff - 3 + 0x10);
	ASSERT_EQ(fp_seven(1, 2, 3, 4, 5, 6, 7), 28);
	ASSERT_EQ(fp_flt(1.5, 7), 8);
	ASSERT_EQ(fn_add(2, 3), 5);
	tracer("nop");
	t = trace_text();
	ASSERT_EQ(count(t, ": fa_outer(n=4) <-"), 1);
	ASSERT_EQ(count(t, ": fa_add(a=4, b=1) <-fa_outer\n"), 1);
	ASSERT_EQ(count(t, ": fp_outer(n=4) <-"), 1);
	ASSERT_EQ(count(t, ": fp_add(a=4, b=1) <-fp_outer\n"), 1);
	snprintf(want, sizeof(want),
		 ": fp_mix(c=0xff, s=-3, u=0x10, p=%p, e=-2, b=0x1) <-",
		 (const void *)text);
	ASSERT_EQ(count(t, want), 1);
	ASSERT_EQ(count(t, ": fp_seven(a=1, b=2, c=3, d=4, e=5, f=6, ...) <-"),
		  1);
	ASSERT_EQ(count(t, ": fp_flt(d=(FLOAT), i=7) <-"), 1);
	ASSERT_EQ(count(t, ": fn_add(2, 3, "), 1);
	free(t);
	/* trace_pipe prints them the same way (the same printer) */
	t = pipe_text();
	ASSERT_EQ(count(t, ": fp_add(a=4, b=1) <-fp_outer\n"), 1);
	free(t);
	option("nofunc-args");
	tracer("function");
	ASSERT_EQ(fp_add(1, 1), 2);
	ASSERT_EQ(fa_add(1, 1), 2);
	tracer("nop");
	t = trace_text();
	ASSERT_EQ(count(t, ": fp_add <-"), 1);
	ASSERT_EQ(count(t, ": fa_add <-"), 1);
	ASSERT_EQ(count(t, "fp_add("), 0);
	ASSERT_EQ(count(t, "fa_add("), 0);
	free(t);
}

/* ---- function_graph's own entry calls the body ---------------------------------- */

/* Is the site at @fn's entry a jump (function_graph's, to its stub)? */
static bool site_is_jump(const void *fn)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const unsigned char *p = fn;

	if (!memcmp(p, endbr64, sizeof(endbr64)))
		p += sizeof(endbr64);
	return p[0] == 0xe9 || (p[0] == 0x2e && p[1] == 0xe9);
}

#define MB_CALLS 40

/* What mc_body.c's functions return for call @k, computed here. */
static long mb_stack_want(long k)
{
	long want = 0;

	for (long n = 1; n <= 12; n++)
		want += n * (k + n - 1);
	return want;
}

static double mb_fstack_want(long k)
{
	double want = 0;

	for (long n = 1; n <= 10; n++)
		want += (double)n * ((double)k + (double)n - 0.5);
	return want;
}

static double mb_var_want(long k)
{
	return (double)(k * 1) + (0.5 + (double)k) * 2 + (double)((k + 1) * 2) +
	       1.5 * 3 + (double)((k + 2) * 3) + 2.5 * 4;
}

/* Every function of one copy of mc_body.c, MB_CALLS times, checked. */
#define MB_DRIVE(P)                                                           \
	static void mb_drive_##P(void)                                        \
	{                                                                     \
		for (long k = 0; k < MB_CALLS; k++) {                         \
			struct mb_trio t = { k + 9, k + 10, k + 11 };         \
			struct mb_pair p;                                     \
			struct mb_dpair d;                                    \
			double x = (double)k + 0.5;                           \
                                                                              \
			ASSERT_EQ(P##stack(k, k + 1, k + 2, k + 3, k + 4,     \
					   k + 5, k + 6, k + 7, k + 8, t),    \
				  mb_stack_want(k));                          \
			ASSERT_TRUE(P##fstack(x, x + 1, x + 2, x + 3, x + 4,  \
					      x + 5, x + 6, x + 7, x + 8,     \
					      x + 9) == mb_fstack_want(k));   \
			ASSERT_TRUE(P##var(3, k, 0.5 + (double)k, k + 1, 1.5, \
					   k + 2, 2.5) == mb_var_want(k));    \
			p = P##pair(k);                                       \
			ASSERT_EQ(p.a, 3 * k);                                \
			ASSERT_EQ(p.b, 5 * k + 1);                            \
			d = P##dpair(x, 2.0);                                 \
			ASSERT_TRUE(d.a == x + 2.0 && d.b == 2 * x);          \
		}                                                             \
	}
MB_DRIVE(mb_p_)
MB_DRIVE(mb_f_)

static void mb_drive(void)
{
	mb_drive_mb_p_();
	mb_drive_mb_f_();
}

/*
 * One call site of mc_body.c's ret functions: what the callee found in
 * its return slot, and what ringtrace_graph_ret_addr() said of it.
 */
static __attribute__((noinline)) void mb_ret_at(void *(*fn)(unsigned long *),
						 void **ret, unsigned long *real)
{
	*ret = fn(real);
}

/*
 * A traced call's slot holds the tracer's return (the trampoline's call
 * of the body), and ringtrace_graph_ret_addr() (the kernel's
 * ftrace_graph_ret_addr()) gives the real one, the untraced call's.
 */
static void mb_check_ret(void *(*fn)(unsigned long *))
{
	unsigned long real[2];
	void *ret[2];

	tracer("nop");
	mb_ret_at(fn, &ret[0], &real[0]);
	ASSERT_EQ(real[0], (unsigned long)ret[0]);
	tracer("function_graph");
	mb_ret_at(fn, &ret[1], &real[1]);
	tracer("nop");
	ASSERT_TRUE(ret[1] != ret[0]);
	ASSERT_EQ(real[1], (unsigned long)ret[0]);
}

/*
 * function_graph alone: the sites of mc_body.c (a NOP site and an
 * -mfentry call site) jump to their stubs, and the trampoline calls the
 * body with the caller's return dropped: nine integer arguments and a
 * struct passed in memory, ten doubles (two on the stack), variable
 * arguments (%al), and the returns in %rax:%rdx and %xmm0:%xmm1 come
 * through whole, every call recorded. The same when the trampoline
 * does not trace (set_graph_function names another function, the stop
 * switch): it jumps to the body with the stack as it came. What the
 * body finds in its return slot is the tracer's, which
 * ringtrace_graph_ret_addr() knows.
 */
static void graph_body_args(void)
{
	static const char *const fns[] = { "stack", "fstack", "var", "pair",
					   "dpair" };
	char *t, name[64];

	tracer("function_graph");
	ASSERT_TRUE(site_is_jump((const void *)mb_p_stack));
	ASSERT_TRUE(site_is_jump((const void *)mb_f_stack));
	ASSERT_TRUE(site_is_jump((const void *)mb_f_var));
	mb_drive();
	tracer("nop");
	t = graph_tree();
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		snprintf(name, sizeof(name), "0:mb_p_%s();\n", fns[i]);
		ASSERT_EQ(count(t, name), MB_CALLS);
		snprintf(name, sizeof(name), "0:mb_f_%s();\n", fns[i]);
		ASSERT_EQ(count(t, name), MB_CALLS);
	}
	free(t);

	/* not traced: another root, then the stop switch */
	ringtrace_clear(tr);
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_FUNCTION,
					    "mc_leaf", false, NULL, 0),
		  0);
	tracer("function_graph");
	ASSERT_TRUE(site_is_jump((const void *)mb_p_stack));
	mb_drive();
	tracer("nop");
	ASSERT_EQ(ringtrace_set_ftrace_list(RINGTRACE_GRAPH_FUNCTION, "", false,
					    NULL, 0),
		  0);
	tracer("function_graph");
	ringtrace_function_trace_stop(true);
	mb_drive();
	ringtrace_function_trace_stop(false);
	tracer("nop");
	t = graph_tree();
	ASSERT_EQ(count(t, "mb_"), 0);
	free(t);
	ASSERT_FALSE(site_is_call((const void *)mb_p_stack));
	mb_check_ret(mb_p_ret);
	mb_check_ret(mb_f_ret);
}

/* ---- the function tracer's read-side section ----------------------- */

/* liburcu-bp's grace period */
void urcu_bp_synchronize_rcu(void);

static void *rcu_memb_worker(void *arg)
{
	unsigned int *slow = arg;

	for (int i = 0; i < 3; i++)
		ASSERT_EQ(mc_pouter(1), 6);
	*slow = ringtrace_thread.slow;
	return NULL;
}

/*
 * The fast path's section leaves liburcu's membarrier test out, which is
 * right only where liburcu's grace periods use membarrier(): elsewhere
 * (a kernel without it, as liburcu found it here) the thread's slow word
 * stays non-zero, and every record of the thread goes through the
 * general path, liburcu's own section, fences included; where they do,
 * the word drops to 0 after the thread's first record.
 */
static void function_rcu_memb(void)
{
	int memb = __atomic_load_n(&urcu_bp_has_sys_membarrier,
				   __ATOMIC_RELAXED);
	unsigned int slow = 0;
	pthread_t th;
	char *t;

	tracer("function");
	/* Relaxed: the thread is created after, which orders the store. */
	__atomic_store_n(&urcu_bp_has_sys_membarrier, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(pthread_create(&th, NULL, rcu_memb_worker, &slow), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	__atomic_store_n(&urcu_bp_has_sys_membarrier, memb, __ATOMIC_RELAXED);
	ASSERT_NE(slow, 0);
	if (memb) {
		ASSERT_EQ(pthread_create(&th, NULL, rcu_memb_worker, &slow), 0);
		ASSERT_EQ(pthread_join(th, NULL), 0);
		ASSERT_EQ(slow, 0);
	}
	tracer("nop");
	t = trace_text();
	ASSERT_EQ(count(t, ": mc_pleaf <-mc_pouter\n"), memb ? 12 : 6);
	ASSERT_EQ(count(t, ": mc_pouter <-"), memb ? 6 : 3);
	free(t);
}

/*
 * A writer parked inside the fast path's section: the clock's slow path,
 * which the ring buffer calls through the PLT while it reserves (the
 * scale made to end for that one read), stands in for a preemption
 * there. Everywhere else the stand-in passes the call on.
 */
enum { PARK_OFF, PARK_ARMED, PARK_PARKED, PARK_GO };
static atomic_int g_park = PARK_OFF;
static uint64_t g_park_end;
/* the real one; Relaxed: every thread that looks it up finds the same */
static uint64_t (*_Atomic g_clock_slow)(void);

static uint64_t (*clock_slow_next(void))(void)
{
	uint64_t (*next)(void) =
		atomic_load_explicit(&g_clock_slow, memory_order_relaxed);

	if (!next) {
		*(void **)&next = dlsym(RTLD_NEXT, "ringbuf_clock_mono_slow");
		atomic_store_explicit(&g_clock_slow, next,
				      memory_order_relaxed);
	}
	return next;
}

uint64_t ringbuf_clock_mono_slow(void)
{
	int armed = PARK_ARMED;

	if (atomic_compare_exchange_strong(&g_park, &armed, PARK_PARKED)) {
		/* the scale's end back (the writer's own store made it 0) */
		__atomic_store_n(&ringbuf_fe_mono.tsc_end, g_park_end,
				 __ATOMIC_RELAXED);
		/* bounded: the test gives up long before */
		for (int i = 0; i < 600000 && atomic_load(&g_park) != PARK_GO;
		     i++)
			usleep(100);
	}
	return clock_slow_next()();
}

static atomic_int g_park_first;

static void *rcu_park_writer(void *arg)
{
	atomic_int *slow = arg; /* set: the thread's slow word stayed non-zero */
	int n = 0;

	/* the first records: the thread's id, name and registration (a
	 * name the cmdline table could not take yet is saved again by the
	 * next) */
	do
		ASSERT_EQ(mc_pleaf(1), 2);
	while (++n < 100 && ringtrace_thread.slow);
	atomic_store(&g_park_first, n);
	if (ringtrace_thread.slow) {
		atomic_store(slow, 1);
		return NULL;
	}
	g_park_end = __atomic_load_n(&ringbuf_fe_mono.tsc_end,
				     __ATOMIC_RELAXED);
	atomic_store(&g_park, PARK_ARMED);
	/* the next clock read takes the slow path, inside the section */
	__atomic_store_n(&ringbuf_fe_mono.tsc_end, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(mc_pleaf(2), 3);
	return NULL;
}

static atomic_int g_gp_done;

static void *rcu_park_gp(void *arg)
{
	(void)arg;
	urcu_bp_synchronize_rcu();
	atomic_store(&g_gp_done, 1);
	return NULL;
}

/*
 * A grace period waits for a writer inside the function tracer's fast
 * path (its section without liburcu's membarrier test), and ends once
 * the writer has left it.
 */
static void function_rcu_parked(void)
{
	pthread_t w, gp;
	atomic_int slow = 0;
	char *t;
	int i;

	if (!__atomic_load_n(&urcu_bp_has_sys_membarrier, __ATOMIC_RELAXED)) {
		printf("SKIP: liburcu does not use membarrier() here\n");
		return;
	}
	ASSERT_NOT_NULL(clock_slow_next());
	tracer("function");
	ASSERT_EQ(pthread_create(&w, NULL, rcu_park_writer, &slow), 0);
	for (i = 0; i < 100000 && atomic_load(&g_park) != PARK_PARKED &&
		    !atomic_load(&slow);
	     i++)
		usleep(100);
	ASSERT_EQ(atomic_load(&slow), 0);
	ASSERT_EQ(atomic_load(&g_park), PARK_PARKED);
	ASSERT_EQ(pthread_create(&gp, NULL, rcu_park_gp, NULL), 0);
	/* the grace period started and did not end under the writer (a
	 * wrong end would show here at the latest) */
	usleep(100000);
	ASSERT_EQ(atomic_load(&g_gp_done), 0);
	atomic_store(&g_park, PARK_GO);
	ASSERT_EQ(pthread_join(w, NULL), 0);
	ASSERT_EQ(pthread_join(gp, NULL), 0);
	ASSERT_EQ(atomic_load(&g_gp_done), 1);
	tracer("nop");
	t = trace_text();
	ASSERT_EQ(count(t, ": mc_pleaf <-"), atomic_load(&g_park_first) + 1);
	free(t);
}

/* ---- the function tracer's refuse word ---------------------------------------- */

/*
 * The settings that the function tracer's fast path tests as one word
 * (set_ftrace_pid, set_ftrace_notrace_pid, func-args, the stop switch,
 * the instance's buffer, which a new clock replaces; tracing_on with
 * them), each changed while MC_THREADS threads call a
 * patched function (fp_add: the tracer's own trampoline and its fast
 * path). Once the change has returned, each thread calls it
 * RW_CALLS times more: every one of those calls is recorded where the
 * settings ask for it, in the form they ask for, and none where they
 * do not.
 */
#define RW_CALLS 16
#define RW_ALL ((1u << MC_THREADS) - 1)

static pthread_barrier_t rw_bar;
static _Atomic int rw_hammer, rw_done;
static int rw_tid[MC_THREADS];

static void *refuse_worker(void *arg)
{
	int k = (int)(long)arg;

	rw_tid[k] = (int)gettid();
	for (;;) {
		pthread_barrier_wait(&rw_bar); /* a change starts */
		if (atomic_load(&rw_done))
			return NULL;
		while (atomic_load_explicit(&rw_hammer, memory_order_relaxed))
			fp_add(k, 0);
		pthread_barrier_wait(&rw_bar); /* it has returned */
		pthread_barrier_wait(&rw_bar); /* the buffer is empty */
		for (int i = 0; i < RW_CALLS; i++)
			fp_add(k, 1);
		pthread_barrier_wait(&rw_bar); /* counted */
	}
}

/* The lines of @text that hold both @a and @b. */
static int count_lines(const char *text, const char *a, const char *b)
{
	int n = 0;

	for (const char *p = text; *p;) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *line = strndup(p, len);

		ASSERT_NOT_NULL(line);
		n += strstr(line, a) && strstr(line, b);
		free(line);
		p += len + (end != NULL);
	}
	return n;
}

enum rw_change {
	RW_PID, RW_PID_CLEAR, RW_NOTRACE_PID, RW_NOTRACE_PID_CLEAR,
	RW_ARGS, RW_NOARGS, RW_STOP, RW_NOSTOP, RW_OFF, RW_ON,
	RW_CLOCK_BOOT, RW_CLOCK_MONO, RW_NR
};

/* Make change @c; *@who: the threads whose calls are recorded after it
 * (a bit each), *@args: with their arguments. */
static void rw_change(int c, unsigned int *who, bool *args)
{
	char pid[16];

	switch (c) {
	case RW_PID:
	case RW_NOTRACE_PID:
		snprintf(pid, sizeof(pid), "%d", rw_tid[c == RW_PID ? 0 : 1]);
		ASSERT_EQ(ringtrace_set_pids(tr,
					     c == RW_PID ?
						     RINGTRACE_PID_FTRACE :
						     RINGTRACE_PID_FTRACE_NOTRACE,
					     pid, false, NULL, 0),
			  0);
		*who = c == RW_PID ? 1u : RW_ALL & ~2u;
		break;
	case RW_PID_CLEAR:
	case RW_NOTRACE_PID_CLEAR:
		ASSERT_EQ(ringtrace_set_pids(tr,
					     c == RW_PID_CLEAR ?
						     RINGTRACE_PID_FTRACE :
						     RINGTRACE_PID_FTRACE_NOTRACE,
					     "", false, NULL, 0),
			  0);
		*who = RW_ALL;
		break;
	case RW_ARGS:
	case RW_NOARGS:
		option(c == RW_ARGS ? "func-args" : "nofunc-args");
		*args = c == RW_ARGS;
		break;
	case RW_STOP:
	case RW_NOSTOP:
		ringtrace_function_trace_stop(c == RW_STOP);
		*who = c == RW_STOP ? 0 : RW_ALL;
		break;
	case RW_OFF:
	case RW_ON:
		ringtrace_tracing_on(tr, c == RW_ON);
		*who = c == RW_ON ? RW_ALL : 0;
		break;
	case RW_CLOCK_BOOT:
	case RW_CLOCK_MONO:
		/* (new buffers: the records go to the new one) */
		ASSERT_EQ(ringtrace_set_clock(tr, c == RW_CLOCK_BOOT ? "boot" :
								       "mono"),
			  0);
		break;
	}
}

static void function_refuse_word(void)
{
	pthread_t th[MC_THREADS];
	unsigned int who = RW_ALL;
	bool args = false;
	int r;

	tracer("function");
	ASSERT_EQ(pthread_barrier_init(&rw_bar, NULL, MC_THREADS + 1), 0);
	for (long k = 0; k < MC_THREADS; k++)
		ASSERT_EQ(pthread_create(&th[k], NULL, refuse_worker, (void *)k),
			  0);
	for (r = 0; r < 3 * RW_NR; r++) {
		char *t;
		int all = 0;

		atomic_store(&rw_hammer, 1);
		pthread_barrier_wait(&rw_bar);
		rw_change(r % RW_NR, &who, &args);
		atomic_store(&rw_hammer, 0);
		pthread_barrier_wait(&rw_bar);
		ringtrace_clear(tr);
		pthread_barrier_wait(&rw_bar);
		pthread_barrier_wait(&rw_bar);
		t = trace_text();
		for (int k = 0; k < MC_THREADS; k++) {
			char tid[24], rec[48];
			int n, want = (who >> k) & 1 ? RW_CALLS : 0;

			snprintf(tid, sizeof(tid), "-%d ", rw_tid[k]);
			if (args)
				snprintf(rec, sizeof(rec),
					 ": fp_add(a=%d, b=1) <-", k);
			else
				snprintf(rec, sizeof(rec), ": fp_add <-");
			n = count_lines(t, tid, rec);
			if (n != want)
				RBT_FAIL("change %d: thread %d: %d records "
					 "\"%s\", wanted %d",
					 r % RW_NR, k, n, rec, want);
			all += n;
		}
		/* nothing else (a record without its arguments) */
		ASSERT_EQ(count(t, "fp_add"), all);
		free(t);
	}
	atomic_store(&rw_done, 1);
	pthread_barrier_wait(&rw_bar);
	for (int k = 0; k < MC_THREADS; k++)
		pthread_join(th[k], NULL);
	tracer("nop");
}

/*
 * The stop switch set from a signal handler (a crash handler freezing the
 * trace) while the interrupted thread recomputes the refuse word under its
 * lock: setting the switch takes no lock, so the handler returns (a switch
 * that took the word's lock deadlocked as soon as a signal landed inside
 * it), and the switch holds afterwards, whatever recomputation the
 * handler interrupted. The other thread changes set_ftrace_pid in a loop
 * (each change recomputes the word) and is signalled all along.
 */
#define SS_CHANGES 20000

static _Atomic int ss_done;
static _Atomic unsigned int ss_handled;

static void ss_handler(int sig)
{
	(void)sig;
	ringtrace_function_trace_stop(true);
	atomic_fetch_add(&ss_handled, 1);
}

/* (at least this many handled, whatever the machine's load: a loaded
 * machine ran all the changes before the signalling thread got a turn) */
#define SS_MIN_HANDLED 200

static void *ss_changer(void *arg)
{
	(void)arg;
	for (int i = 0; i < SS_CHANGES ||
			atomic_load(&ss_handled) < SS_MIN_HANDLED;
	     i++)
		ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_FTRACE, "",
					     false, NULL, 0),
			  0);
	atomic_store(&ss_done, 1);
	return NULL;
}

static void function_stop_signal(void)
{
	struct sigaction sa = { .sa_handler = ss_handler };
	struct timespec t0, now;
	pthread_t th;
	char *t;

	tracer("function");
	ASSERT_EQ(sigaction(SIGUSR2, &sa, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(pthread_create(&th, NULL, ss_changer, NULL), 0);
	while (!atomic_load(&ss_done)) {
		/* (a guard against a hang only: the changes take well under
		 * a second) */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 60 * (long)rbt_timeout_mult())
			RBT_FAIL("the thread changing set_ftrace_pid is stuck "
				 "after %u signals: the stop switch's handler "
				 "deadlocked",
				 atomic_load(&ss_handled));
		ASSERT_EQ(pthread_kill(th, SIGUSR2), 0);
		sched_yield();
	}
	pthread_join(th, NULL);
	signal(SIGUSR2, SIG_DFL);
	ASSERT_TRUE(atomic_load(&ss_handled) >= SS_MIN_HANDLED);
	/* the switch holds: no call recorded, by either path */
	ringtrace_clear(tr);
	fp_add(0, 1);
	t = trace_text();
	ASSERT_EQ(count(t, "fp_add"), 0);
	free(t);
	ringtrace_function_trace_stop(false);
	fp_add(0, 1);
	t = trace_text();
	ASSERT_EQ(count(t, "fp_add"), 1);
	free(t);
	tracer("nop");
}

/* Named so that backtrace() finds it (the program is linked -rdynamic). */
/* The descriptors open now without FD_CLOEXEC, as a bit set (fds below
 * 1024). */
static void fds_inheritable(unsigned long long set[16])
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	memset(set, 0, 16 * sizeof(set[0]));
	ASSERT_NOT_NULL(d);
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name), fl;

		if (e->d_name[0] == '.' || fd == dirfd(d) || fd >= 1024)
			continue;
		fl = fcntl(fd, F_GETFD);
		if (fl >= 0 && !(fl & FD_CLOEXEC))
			set[fd / 64] |= 1ull << (fd % 64);
	}
	closedir(d);
}

/*
 * What the function tracers open in the process (the objects and debug
 * files libdw reads for funcgraph-args and the trampolines' choice,
 * /proc/self/mem) is closed on exec(): a traced program that runs
 * another passes it nothing of the library's.
 */
static void graph_fds_cloexec(void)
{
	unsigned long long before[16], after[16];
	char path[64], link[PATH_MAX];

	fds_inheritable(before);
	option("funcgraph-args");
	tracer("function_graph");
	ASSERT_EQ(fa_outer(4), 10);
	ASSERT_EQ(mc_pouter(1), 6);
	tracer("nop");
	fds_inheritable(after);
	for (int fd = 0; fd < 1024; fd++) {
		ssize_t n;

		if (!(after[fd / 64] >> (fd % 64) & 1) ||
		    (before[fd / 64] >> (fd % 64) & 1))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = '\0';
		RBT_FAIL("fd %d (%s) opened by the tracer is inherited by exec()",
			 fd, link);
	}
}

#define MC_CASE(fn)                                                          \
	__attribute__((noinline)) void test_case_##fn(void);                 \
	__attribute__((noinline)) void test_case_##fn(void)                  \
	{                                                                    \
		fn();                                                        \
		__asm__ volatile("");                                        \
	}
MC_CASE(graph_fentry)
MC_CASE(graph_fds_cloexec)
MC_CASE(graph_patchable)
MC_CASE(graph_stop_return)
MC_CASE(function_records)
MC_CASE(registers_kept)
MC_CASE(nop_when_off)
MC_CASE(filter_patches)
MC_CASE(toggle_threads)
MC_CASE(graph_longjmp)
MC_CASE(graph_signal)
MC_CASE(graph_fork)
MC_CASE(graph_cancel)
MC_CASE(graph_deep)
MC_CASE(graph_dlclose)
MC_CASE(graph_backtrace)
MC_CASE(graph_cxx)
MC_CASE(graph_function_root)
MC_CASE(graph_lists_change)
MC_CASE(patch_before_entry)
MC_CASE(site_unpatchable)
MC_CASE(patch_dlclose)
MC_CASE(graph_retval)
MC_CASE(graph_retval_hex)
MC_CASE(graph_retval_switch)
MC_CASE(graph_args)
MC_CASE(graph_args_nodebug)
MC_CASE(graph_args_local_debuginfo)
MC_CASE(graph_args_cyg)
MC_CASE(function_trampoline)
MC_CASE(graph_general_entry)
MC_CASE(function_thread_state)
MC_CASE(function_args)
MC_CASE(registers_rare)
MC_CASE(graph_body_args)
MC_CASE(function_rcu_memb)
MC_CASE(function_rcu_parked)
MC_CASE(function_refuse_word)
MC_CASE(function_stop_signal)
MC_CASE(graph_leaf_pair)
MC_CASE(graph_leaf_marker)
MC_CASE(graph_leaf_signal)
MC_CASE(graph_leaf_longjmp)
MC_CASE(graph_leaf_preempt)
MC_CASE(graph_leaf_thread_exit)
MC_CASE(graph_leaf_exit)
MC_CASE(graph_leaf_fork)
MC_CASE(graph_leaf_cancel)
MC_CASE(graph_leaf_cancel_async)
MC_CASE(graph_first_call_cancel)

#define MC_RUN(fn) { #fn, test_case_##fn }
static const struct rbt_case cases[] = {
	MC_RUN(graph_fentry),	 MC_RUN(graph_patchable),
	MC_RUN(graph_fds_cloexec),
	MC_RUN(graph_stop_return),
	MC_RUN(function_records), MC_RUN(registers_kept),
	MC_RUN(nop_when_off),	 MC_RUN(filter_patches),
	MC_RUN(toggle_threads),	 MC_RUN(graph_longjmp),
	MC_RUN(graph_signal),	 MC_RUN(graph_fork),
	MC_RUN(graph_cancel),	 MC_RUN(graph_deep),
	MC_RUN(graph_dlclose),	 MC_RUN(graph_backtrace),
	MC_RUN(graph_cxx),	 MC_RUN(graph_function_root),
	MC_RUN(graph_lists_change),
	MC_RUN(patch_before_entry), MC_RUN(site_unpatchable),
	MC_RUN(patch_dlclose),
	MC_RUN(graph_retval),	 MC_RUN(graph_retval_switch),
	MC_RUN(graph_retval_hex),   MC_RUN(graph_args),
	MC_RUN(graph_args_nodebug), MC_RUN(graph_args_cyg),
	MC_RUN(graph_args_local_debuginfo),
	MC_RUN(function_trampoline), MC_RUN(graph_general_entry),
	MC_RUN(function_args),
	MC_RUN(function_thread_state),
	MC_RUN(registers_rare),	 MC_RUN(graph_body_args),
	MC_RUN(function_rcu_memb), MC_RUN(function_rcu_parked),
	MC_RUN(function_refuse_word),
	MC_RUN(function_stop_signal),
	MC_RUN(graph_leaf_pair),   MC_RUN(graph_leaf_marker),
	MC_RUN(graph_leaf_signal), MC_RUN(graph_leaf_longjmp),
	MC_RUN(graph_leaf_preempt), MC_RUN(graph_leaf_thread_exit),
	MC_RUN(graph_leaf_exit),   MC_RUN(graph_leaf_fork),
	MC_RUN(graph_leaf_cancel), MC_RUN(graph_leaf_cancel_async),
	MC_RUN(graph_first_call_cancel),
};

RBT_MAIN(cases)
