// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hello-events - the events of hello_trace.h at work: the format of an
 * event, set_event, filters (and the report of a bad one), markers, a
 * record written from a signal handler, then the buffer read as `trace`
 * (which leaves it as it is) and as `trace_pipe` (which empties it).
 *
 * Each step prints a "==" line naming the tracefs file it stands for.
 * Documentation/tracer.rst shows this program's output.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>

#define CREATE_TRACE_POINTS
#include "hello_trace.h"

#include <ringtrace/tracer.h>

static int failed;

/* A control call that must succeed */
#define CHECK(call)                                                         \
	do {                                                                \
		int __ret = (call);                                         \
		if (__ret < 0) {                                            \
			fprintf(stderr, "FAILED: %s: %d\n", #call, __ret);  \
			failed = 1;                                         \
		}                                                           \
	} while (0)

static void on_sigusr1(int sig)
{
	/* The records of the handler show 'h' in the flags column. */
	ringtrace_irq_enter();
	trace_tick(100, -(long)sig, (void *)on_sigusr1);
	ringtrace_irq_exit();
}

int main(void)
{
	struct ringtrace_instance *tr = ringtrace_top();
	static const unsigned char payload[4] = { 0xde, 0xad, 0xbe, 0xef };
	char err[512], buf[4096];
	int ret;

	if (!tr) {
		perror("ringtrace_top");
		return 1;
	}

	puts("== cat events/hello/greet/format");
	CHECK((int)ringtrace_event_format("hello", "greet", buf, sizeof(buf)));
	fputs(buf, stdout);

	/* echo 'hello:*' >> set_event */
	CHECK(ringtrace_set_event(tr, "hello:*", err, sizeof(err)));
	puts("== cat set_event");
	ringtrace_show_set_event(tr, buf, sizeof(buf));
	fputs(buf, stdout);

	/* A filter with a misspelt field: refused, with the place shown */
	ret = ringtrace_set_filter(tr, "hello", "tick",
				   "seq & 1 || vlaue < 0", err, sizeof(err));
	printf("== echo 'seq & 1 || vlaue < 0' > events/hello/tick/filter: %s\n",
	       ret == -EINVAL ? "EINVAL" : "unexpected");
	fputs(err, stdout);
	if (ret != -EINVAL)
		failed = 1;

	/* Odd sequence numbers, and the negative values from the handler */
	CHECK(ringtrace_set_filter(tr, "hello", "tick", "seq & 1 || value < 0",
				   err, sizeof(err)));
	/* Names that start with 'w' */
	CHECK(ringtrace_set_filter(tr, "hello", "greet", "name ~ \"w*\"", err,
				   sizeof(err)));
	puts("== cat events/hello/tick/filter");
	ringtrace_show_filter(tr, "hello", "tick", buf, sizeof(buf));
	fputs(buf, stdout);

	trace_greet("world", 1);
	trace_greet("moon", 2); /* filtered out */
	for (unsigned int i = 0; i < 4; i++)
		trace_tick(i, 10 * (long)i, (void *)main);
	signal(SIGUSR1, on_sigusr1);
	raise(SIGUSR1);

	/* echo 'hello from the marker' > trace_marker */
	CHECK(ringtrace_marker_write(tr, "hello from the marker", 21));
	/* trace_printk() */
	CHECK(ringtrace_printf("%d greetings so far", 1));
	/* trace_marker_raw: an id and bytes */
	CHECK(ringtrace_marker_raw(tr, 0x1234, payload, sizeof(payload)));

	puts("== cat trace");
	CHECK(ringtrace_print_trace(tr, stdout));

	/* More records, then the pipe: it shows and consumes all of them */
	trace_greet("wide world", 3);
	puts("== cat trace_pipe");
	fflush(stdout);
	ret = ringtrace_read_pipe(tr, stdout, 1000);
	CHECK(ret);
	printf("== %d lines read; the buffer is now %s\n", ret,
	       ringtrace_read_pipe(tr, stdout, 10) == 0 ? "empty" : "not empty");

	/* echo 0 > events/hello/tick/filter; echo '!hello:*' >> set_event */
	CHECK(ringtrace_set_filter(tr, "hello", "tick", "0", err, sizeof(err)));
	CHECK(ringtrace_set_event(tr, "!hello:*", err, sizeof(err)));
	puts(failed ? "hello-events: FAILED" : "hello-events: done");
	return failed;
}
