// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_dlopen.c - libringtrace dlopen()ed after start-up by a program that
 * does not link it: the library's initial-exec thread-local state (its
 * own, and liburcu-bp's reader pointer, which its read-side sections
 * reach with initial-exec accesses too) then lives in glibc's static TLS
 * surplus, and the function tracer traces the program's patched function
 * from the thread that loaded the library and from one created after.
 * The library's thread state is larger than glibc's default surplus: the
 * test runs with GLIBC_TUNABLES=glibc.rtld.optional_static_tls raised
 * (see Documentation/tracer.rst).
 *
 * This program is not instrumented but for mc_dl_leaf().
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ringtrace/tracer.h>

#include "test.h"

#define MC_DL_CALLS 100

volatile int mc_dl_sink;

/* a NOP site at its entry, recorded in __patchable_function_entries */
__attribute__((patchable_function_entry(5, 0), noinline)) int
mc_dl_leaf(int x);
__attribute__((patchable_function_entry(5, 0), noinline)) int
mc_dl_leaf(int x)
{
	mc_dl_sink = x;
	return x + 1;
}

static void *calls(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = 0; i < MC_DL_CALLS; i++)
		bad += mc_dl_leaf(i) != i + 1;
	return (void *)bad;
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void dlopen_function(void)
{
	struct ringtrace_instance *(*top)(void);
	int (*set_tracer)(struct ringtrace_instance *, const char *);
	int (*print)(struct ringtrace_instance *, FILE *);
	struct ringtrace_instance *tr;
	char *text = NULL;
	size_t len = 0;
	pthread_t th;
	void *h, *bad;
	FILE *f;

	h = dlopen(MC_RINGTRACE_PATH, RTLD_NOW);
	if (!h)
		fprintf(stderr, "dlopen: %s\n", dlerror());
	ASSERT_NOT_NULL(h);
	*(void **)&top = dlsym(h, "ringtrace_top");
	*(void **)&set_tracer = dlsym(h, "ringtrace_set_tracer");
	*(void **)&print = dlsym(h, "ringtrace_print_trace");
	ASSERT_NOT_NULL(top);
	ASSERT_NOT_NULL(set_tracer);
	ASSERT_NOT_NULL(print);
	tr = top();
	ASSERT_NOT_NULL(tr);
	ASSERT_EQ(set_tracer(tr, "function"), 0);
	ASSERT_EQ((long)calls(NULL), 0);
	ASSERT_EQ(pthread_create(&th, NULL, calls, NULL), 0);
	ASSERT_EQ(pthread_join(th, &bad), 0);
	ASSERT_EQ((long)bad, 0);
	ASSERT_EQ(set_tracer(tr, "nop"), 0);
	f = open_memstream(&text, &len);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(print(tr, f), 0);
	fclose(f);
	/* every call of both threads, once */
	ASSERT_EQ(count(text, ": mc_dl_leaf <-"), 2 * MC_DL_CALLS);
	free(text);
}

static const struct rbt_case cases[] = {
	RBT_CASE(dlopen_function),
};

RBT_MAIN(cases)
