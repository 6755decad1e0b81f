// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * instances - a second trace array next to the top one: its own buffer,
 * its own enabled events, filters and options, and a snapshot.
 *
 * The top instance records hello:greet; the instance "ticks" records
 * hello:tick only. A snapshot of "ticks" is taken halfway.
 * Documentation/tracer.rst shows this program's output.
 */
#include <stdio.h>

#define CREATE_TRACE_POINTS
#include "hello_trace.h"

#include <ringtrace/tracer.h>

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
	struct ringtrace_instance *top = ringtrace_top(), *ticks;
	char err[256];
	unsigned int i;

	if (!top) {
		perror("ringtrace_top");
		return 1;
	}
	/* mkdir instances/ticks */
	ticks = ringtrace_instance_create("ticks");
	if (!ticks) {
		perror("ringtrace_instance_create");
		return 1;
	}
	/* echo hello:greet > set_event
	 * echo hello:tick > instances/ticks/set_event */
	CHECK(ringtrace_set_event(top, "hello:greet", err, sizeof(err)));
	CHECK(ringtrace_set_event(ticks, "hello:tick", err, sizeof(err)));
	/* Filters and options belong to one instance too:
	 * echo 'seq < 6' > instances/ticks/events/hello/tick/filter
	 * echo noirq-info > instances/ticks/trace_options
	 * echo 64 > instances/ticks/buffer_size_kb */
	CHECK(ringtrace_set_filter(ticks, "hello", "tick", "seq < 6", err,
				   sizeof(err)));
	CHECK(ringtrace_set_option(ticks, "noirq-info"));
	CHECK(ringtrace_set_buffer_size_kb(ticks, 64));

	trace_greet("first half", 1);
	for (i = 0; i < 3; i++)
		trace_tick(i, (long)i, (void *)main);

	/* echo 1 > instances/ticks/snapshot: the records so far move to the
	 * snapshot buffer, and the live buffer starts empty */
	CHECK(ringtrace_snapshot(ticks, 1));

	trace_greet("second half", 2);
	for (i = 3; i < 8; i++)
		trace_tick(i, (long)i, (void *)main);

	puts("== cat instances/ticks/snapshot");
	CHECK(ringtrace_print_snapshot(ticks, stdout));
	puts("== cat instances/ticks/trace");
	CHECK(ringtrace_print_trace(ticks, stdout));
	puts("== cat trace");
	CHECK(ringtrace_print_trace(top, stdout));

	/* echo 0 > instances/ticks/snapshot; rmdir instances/ticks */
	CHECK(ringtrace_snapshot(ticks, 0));
	CHECK(ringtrace_instance_destroy(ticks));
	puts(failed ? "instances: FAILED" : "instances: done");
	return failed;
}
