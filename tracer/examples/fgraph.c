// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fgraph - the function tracers on a few nested functions. This file is
 * compiled with -finstrument-functions, so each of its functions calls
 * libringtrace's hooks on entry and on exit, and linked with -rdynamic.
 *
 * First the function_graph tracer follows every call; then
 * set_ftrace_filter narrows the function tracer to two functions.
 * Documentation/tracer.rst shows this program's output.
 */
#include <stdio.h>
#include <unistd.h>

#include <ringtrace/tracer.h>

/* Out of line and not cloned: one entry and one exit per call, under the
 * function's own name. */
#ifdef __clang__
#define TRACED __attribute__((noinline))
#else
#define TRACED __attribute__((noinline, noclone))
#endif

int leaf(int x);
int middle(int x);
int outer(int n);

static volatile int sink;

TRACED int leaf(int x)
{
	sink += x;
	return x * 2;
}

TRACED int middle(int x)
{
	int a = leaf(x);

	usleep(50); /* libc is not instrumented: only the time shows */
	return a + leaf(x + 1);
}

TRACED int outer(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += middle(i);
	return sum;
}

static int failed;

#define CHECK(call)                                                         \
	do {                                                                \
		int __ret = (call);                                         \
		if (__ret < 0) {                                            \
			fprintf(stderr, "FAILED: %s: %d\n", #call, __ret);  \
			failed = 1;                                         \
		}                                                           \
	} while (0)

int main(void)
{
	struct ringtrace_instance *tr = ringtrace_top();
	char err[256], buf[1024];

	if (!tr) {
		perror("ringtrace_top");
		return 1;
	}

	/* echo function_graph > current_tracer */
	CHECK(ringtrace_set_tracer(tr, "function_graph"));
	outer(2);
	/* echo 0 > tracing_on: stop recording before reading */
	ringtrace_tracing_on(tr, false);
	puts("== cat trace (function_graph)");
	CHECK(ringtrace_print_trace(tr, stdout));

	/* echo 'mid*' > set_ftrace_filter; echo leaf >> set_ftrace_filter */
	CHECK(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "mid*", false,
					err, sizeof(err)));
	CHECK(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "leaf", true,
					err, sizeof(err)));
	puts("== cat set_ftrace_filter");
	ringtrace_show_ftrace_list(RINGTRACE_FTRACE_FILTER, buf, sizeof(buf));
	fputs(buf, stdout);
	/* A glob that matches nothing is refused, the list is kept. */
	if (ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "nosuch*", true,
				      err, sizeof(err)) == 0)
		failed = 1;
	printf("== echo 'nosuch*' >> set_ftrace_filter: %s\n", err);

	/* echo function > current_tracer; echo > trace; echo 1 > tracing_on */
	CHECK(ringtrace_set_tracer(tr, "function"));
	ringtrace_clear(tr);
	ringtrace_tracing_on(tr, true);
	outer(2);
	ringtrace_tracing_on(tr, false);
	puts("== cat trace (function, filtered)");
	CHECK(ringtrace_print_trace(tr, stdout));

	/* Back to the defaults */
	CHECK(ringtrace_set_ftrace_list(RINGTRACE_FTRACE_FILTER, "", false,
					err, sizeof(err)));
	CHECK(ringtrace_set_tracer(tr, "nop"));
	puts(failed ? "fgraph: FAILED" : "fgraph: done");
	return failed;
}
