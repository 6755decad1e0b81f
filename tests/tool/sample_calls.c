// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sample_calls.c - a program that does nothing but call instrumented
 * functions, as fast as it can: the function_graph load of the tool's
 * recording tests and of the recorder's measurements.
 *
 * sample_calls [-t THREADS] [-d DEPTH] N: each thread calls
 * calls_outer() N times; calls_outer() calls calls_middle(), which calls
 * calls_leaf() twice, and, with -d DEPTH over 3, calls_deep() nests
 * DEPTH - 3 more levels under the second leaf call. Every call writes
 * two records under function_graph (the entry and the return). At exit
 * the program prints how many times each function was called, one
 * "function count" line each, then "records N": what a complete
 * recording holds.
 *
 * The file is compiled with -finstrument-functions; main() and the
 * thread start are not traced.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOTRACE __attribute__((no_instrument_function))

static unsigned long nr_calls = 1000;
static int depth = 3;
/* per thread: the threads call the functions at the same time */
static _Thread_local volatile long calls_sink;

__attribute__((noinline)) long calls_deep(long x, int left);
__attribute__((noinline)) long calls_leaf(long x);
__attribute__((noinline)) long calls_middle(long x);
__attribute__((noinline)) long calls_outer(long x);

__attribute__((noinline)) long calls_deep(long x, int left)
{
	if (left > 1)
		return calls_deep(x + 1, left - 1) + 1;
	return x;
}

__attribute__((noinline)) long calls_leaf(long x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) long calls_middle(long x)
{
	long r = calls_leaf(x);

	if (depth > 3)
		r += calls_deep(x, depth - 3);
	return r + calls_leaf(x + 1);
}

__attribute__((noinline)) long calls_outer(long x)
{
	return calls_middle(x) - 1;
}

NOTRACE static void *calls_thread(void *arg)
{
	long s = 0;

	(void)arg;
	for (unsigned long i = 0; i < nr_calls; i++)
		s += calls_outer((long)i);
	calls_sink += s;
	return NULL;
}

NOTRACE int main(int argc, char **argv)
{
	unsigned long threads = 1, deep;
	pthread_t *t;
	int c;

	while ((c = getopt(argc, argv, "t:d:")) != -1) {
		switch (c) {
		case 't':
			threads = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			depth = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (optind < argc)
		nr_calls = strtoul(argv[optind], NULL, 0);
	if (threads < 1 || threads > 64 || depth < 3 || depth > 100)
		return 2;
	t = calloc(threads, sizeof(*t));
	if (!t)
		return 1;
	for (unsigned long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, calls_thread, NULL))
			return 1;
	for (unsigned long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	free(t);
	deep = depth > 3 ? (unsigned long)(depth - 3) : 0;
	printf("calls_outer %lu\n", threads * nr_calls);
	printf("calls_middle %lu\n", threads * nr_calls);
	printf("calls_leaf %lu\n", 2 * threads * nr_calls);
	if (deep)
		printf("calls_deep %lu\n", deep * threads * nr_calls);
	printf("records %lu\n", 2 * (4 + deep) * threads * nr_calls);
	return 0;
}
