// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tfsuser.c - a libtracefs user on a ringtrace mount: what trace-cmd and
 * other libtracefs programs do with a tracing directory
 *
 * usage: tfsuser DIR
 *
 * With tracefs_set_tracing_dir(DIR): the systems and the events of
 * "app" are listed; every format parses (tracefs_local_events(), which
 * reads events/header_page and events/header_event too); app:work is
 * enabled and its records are read with tracefs_iterate_raw_events(),
 * their fields through the parsed format; then trace_pipe is streamed
 * into a file with tracefs_trace_pipe_stream() on a thread, which
 * tracefs_trace_pipe_stop() stops. Prints one "ok: ..." line per step;
 * exits 1 at the first step that fails, naming it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

static int fail(const char *what)
{
	fprintf(stderr, "FAIL: %s (%s)\n", what, strerror(errno));
	exit(1);
}

static int has(char **list, const char *name)
{
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(list[i], name))
			return 1;
	return 0;
}

struct counts {
	int work, bad;
	unsigned long long last_worker;
};

static int on_record(struct tep_event *ev, struct tep_record *rec, int cpu,
		     void *data)
{
	struct counts *c = data;
	unsigned long long worker;

	(void)cpu;
	if (strcmp(ev->system, "app") || strcmp(ev->name, "work"))
		return 0;
	if (tep_get_field_val(NULL, ev, "worker", rec, &worker, 0)) {
		c->bad++;
		return 0;
	}
	c->last_worker = worker;
	c->work++;
	return 0;
}

static int pipe_fds[2]; /* [1]: the stream's output */
/* the stream's result, -2 while it runs: stored by the streamer, polled
 * by main (seq_cst: nothing else passes between them) */
static _Atomic long stream_ret = -2;

static void *streamer(void *arg)
{
	(void)arg;
	atomic_store(&stream_ret, (long)tracefs_trace_pipe_stream(pipe_fds[1], NULL, 0));
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct counts c = { 0, 0, 0 };
	struct tep_handle *tep;
	char **systems, **events, buf[4096];
	pthread_t t;
	double t0;
	ssize_t n, got = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: tfsuser DIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tracefs_set_tracing_dir(argv[1]))
		fail("tracefs_set_tracing_dir");
	systems = tracefs_event_systems(NULL);
	/* (events/ftrace has no enable file, so libtracefs leaves it out,
	 * on the kernel's tracefs too) */
	if (!has(systems, "app") || !has(systems, "io"))
		fail("tracefs_event_systems() lacks app or io");
	events = tracefs_system_events(NULL, "app");
	if (!has(events, "work"))
		fail("tracefs_system_events(app) lacks work");
	printf("ok: systems and events listed\n");

	tep = tracefs_local_events(NULL);
	if (!tep)
		fail("tracefs_local_events");
	if (!tep_find_event_by_name(tep, "app", "work") ||
	    !tep_find_event_by_name(tep, "ftrace", "print"))
		fail("the parsed formats lack app:work or ftrace:print");
	if (tep_get_header_page_size(tep) != 8)
		fail("events/header_page does not give an 8-byte commit");
	printf("ok: %d formats parsed with the headers\n", tep_get_events_count(tep));

	if (tracefs_event_enable(NULL, "app", "work"))
		fail("tracefs_event_enable(app, work)");
	/* records arrive (the sample writes them all the time); with
	 * tracing off, the raw iteration reads the buffers to their end */
	t0 = now();
	while (c.work < 10 && now() - t0 < 20) {
		usleep(200 * 1000);
		if (tracefs_trace_off(NULL))
			fail("tracefs_trace_off");
		if (tracefs_iterate_raw_events(tep, NULL, NULL, 0, on_record,
					       &c))
			fail("tracefs_iterate_raw_events");
		if (tracefs_trace_on(NULL))
			fail("tracefs_trace_on");
	}
	if (c.work < 10 || c.bad)
		fail("too few app:work records, or fields that do not parse");
	printf("ok: %d app:work records read raw\n", c.work);

	/*
	 * The stream, into a file opened O_APPEND: libtracefs cannot
	 * splice into it and reads trace_pipe (a splice from a FUSE file
	 * reads the page cache, which trace_pipe does not use: it sees
	 * end of file; Documentation/tracefs.rst).
	 */
	snprintf(buf, sizeof(buf), "%s", "/tmp/rt-tfsuser.XXXXXX");
	pipe_fds[1] = mkstemp(buf);
	if (pipe_fds[1] < 0)
		fail("mkstemp");
	unlink(buf);
	fcntl(pipe_fds[1], F_SETFL, O_APPEND);
	if (pthread_create(&t, NULL, streamer, NULL))
		fail("pthread_create");
	t0 = now();
	while ((got = lseek(pipe_fds[1], 0, SEEK_END)) < 200 &&
	       now() - t0 < 20)
		usleep(10 * 1000);
	if (got < 200)
		fail("tracefs_trace_pipe_stream() gave too little");
	tracefs_trace_pipe_stop(NULL);
	t0 = now();
	while (atomic_load(&stream_ret) == -2 && now() - t0 < 20)
		usleep(10 * 1000);
	if (atomic_load(&stream_ret) == -2)
		fail("tracefs_trace_pipe_stop() did not stop the stream");
	pthread_join(t, NULL);
	/* (the sample's markers may come first) */
	n = pread(pipe_fds[1], buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	if (!strstr(buf, "work: worker="))
		fail("the stream is not trace_pipe's text");
	printf("ok: trace_pipe streamed (%zd bytes) and stopped\n", got);
	tracefs_event_disable(NULL, "app", "work");
	tep_free(tep);
	tracefs_list_free(systems);
	tracefs_list_free(events);
	return 0;
}
