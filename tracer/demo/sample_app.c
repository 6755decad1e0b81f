// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sample_app.c - the traced program of the ringtrace tool tests
 *
 * Worker threads write events of two systems ("app" and "io") in bursts:
 * every worker writes --burst iterations, all wait at a barrier, then the
 * program pauses --gap-ms (a pause over 134 ms makes the ring buffer
 * write a time extend) and the next burst starts. An iteration writes
 * app:work, and every few iterations io:request and io:done, app:big (a
 * record over 112 bytes), a trace marker, a call into the instrumented
 * functions of sample_fn.c (function_graph), and a signal to itself whose
 * handler writes app:tick between ringtrace_irq_enter() and _exit().
 * --timer-us adds a process timer whose SIGALRM handler writes app:tick
 * too, at any point, inside other writes included.
 *
 * An event is counted when it was enabled at the call (so what a tool
 * enables mid-run is counted from then on). At exit the counts are
 * written, one "system:event count" line each, to --counts FILE (or
 * stdout).
 *
 * --log DIR: each worker also logs "system:event seq" for every event
 * it wrote (after the write returned, so the event was committed) to
 * DIR/log.<worker>, flushed and fdatasync()ed every 64 lines: after a
 * SIGKILL, every line in the logs names an event the buffer holds.
 *
 * --no-markers: the workers write no trace markers (a reader then sees
 * only the markers it writes itself).
 *
 * --pin puts worker i on the i-th cpu the program may use (round robin),
 * so that the records spread over several cpu buffers.
 *
 * The program runs until SIGTERM or SIGINT, --seconds, or --bursts.
 *
 * --done FILE: when the workers have stopped (every event they wrote is
 * committed) and the counts are written, the program creates FILE and
 * waits for SIGTERM or SIGINT before it exits: a test reads a trace that
 * no write changes any more, and stops the program when it is done with
 * it, neither waiting a fixed time.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "sample_app_trace.h"
#define CREATE_TRACE_POINTS
#include "sample_io_trace.h"

#include <ringtrace/tracer.h>

#include "sample_fn.h"

enum {
	EV_WORK,
	EV_BIG,
	EV_TICK,
	EV_REQUEST,
	EV_DONE,
	EV_PRINT,
	EV_GRAPH_CALLS,
	EV_NR,
};

static const char *const ev_names[EV_NR] = {
	"app:work", "app:big",	   "app:tick",	    "io:request",
	"io:done",  "ftrace:print", "graph:calls",
};

static _Atomic unsigned long long counts[EV_NR];
static _Atomic unsigned long long seqs[EV_NR];
/* read by every worker, set by the main thread or a signal handler */
static _Atomic int stop;
static int nr_threads = 2, burst = 200, gap_ms = 0;
static long max_bursts = -1;
static const char *log_dir;
static pthread_barrier_t barrier;
static long bursts;
static bool go, pin, no_markers;

struct worker {
	int id;
	pthread_t th;
	FILE *log;
	unsigned int logged;
};

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* --done: SIGTERM or SIGINT once the workers are done ends the wait */
static int end_pipe[2] = { -1, -1 };

static void on_end(int sig)
{
	int saved = errno;

	(void)sig;
	if (write(end_pipe[1], "", 1) < 0) {
		/* the pipe is empty: a write cannot fail */
	}
	errno = saved;
}

/* app:tick from a signal handler, marked as one */
static void on_tick(int sig)
{
	int saved = errno;

	ringtrace_irq_enter();
	if (trace_tick_enabled()) {
		trace_tick(atomic_fetch_add(&seqs[EV_TICK], 1), sig);
		atomic_fetch_add(&counts[EV_TICK], 1);
	}
	ringtrace_irq_exit();
	errno = saved;
}

static void log_event(struct worker *w, int ev, unsigned long long seq)
{
	if (!w->log)
		return;
	fprintf(w->log, "%s %llu\n", ev_names[ev], seq);
	if (++w->logged % 64 == 0) {
		fflush(w->log);
		fdatasync(fileno(w->log));
	}
}

static void one_iteration(struct worker *w, unsigned long i)
{
	unsigned long long seq;

	if (trace_work_enabled()) {
		seq = atomic_fetch_add(&seqs[EV_WORK], 1);
		trace_work(w->id, seq, (long)i);
		atomic_fetch_add(&counts[EV_WORK], 1);
		log_event(w, EV_WORK, seq);
	}
	if (i % 4 == 0) {
		int fd = (int)(i % 7) + 3;

		if (trace_request_enabled()) {
			seq = atomic_fetch_add(&seqs[EV_REQUEST], 1);
			trace_request(seq, fd, i % 8 ? "/data/file" :
						       "/data/other file");
			atomic_fetch_add(&counts[EV_REQUEST], 1);
			log_event(w, EV_REQUEST, seq);
		}
		if (trace_done_enabled()) {
			seq = atomic_fetch_add(&seqs[EV_DONE], 1);
			trace_done(seq, fd, (long)(i * 512));
			atomic_fetch_add(&counts[EV_DONE], 1);
			log_event(w, EV_DONE, seq);
		}
	}
	if (i % 16 == 5 && trace_big_enabled()) {
		char text[160];

		seq = atomic_fetch_add(&seqs[EV_BIG], 1);
		snprintf(text, sizeof(text),
			 "a record longer than 112 bytes, from worker %d, "
			 "iteration %lu, padded with text up to here.",
			 w->id, i);
		trace_big(seq, text);
		atomic_fetch_add(&counts[EV_BIG], 1);
		log_event(w, EV_BIG, seq);
	}
	if (i % 64 == 9 && !no_markers) {
		char msg[64];
		int n = snprintf(msg, sizeof(msg), "marker %lu from %d", i,
				 w->id);

		if (ringtrace_marker_write(NULL, msg, (size_t)n) == 0)
			atomic_fetch_add(&counts[EV_PRINT], 1);
	}
	if (i % 8 == 3) {
		sample_fn_outer((long)i);
		atomic_fetch_add(&counts[EV_GRAPH_CALLS], 1);
	}
	if (i % 32 == 17)
		pthread_kill(pthread_self(), SIGUSR1);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long i = 0;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", w->id);
	pthread_setname_np(pthread_self(), name);
	if (pin) {
		cpu_set_t all, one;
		int n = 0, cpu, k = -1;

		/* worker i on the i-th cpu it may run on, round robin */
		sched_getaffinity(0, sizeof(all), &all);
		n = CPU_COUNT(&all);
		for (cpu = 0; n && cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &all) && ++k == w->id % n)
				break;
		if (n && cpu < CPU_SETSIZE) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			sched_setaffinity(0, sizeof(one), &one);
		}
	}
	for (;;) {
		int k;

		/* one thread decides for all whether a burst follows */
		if (pthread_barrier_wait(&barrier) ==
		    PTHREAD_BARRIER_SERIAL_THREAD)
			go = !stop && (max_bursts < 0 || bursts < max_bursts);
		pthread_barrier_wait(&barrier);
		if (!go)
			break;
		for (k = 0; k < burst && !stop; k++)
			one_iteration(w, i++);
		pthread_barrier_wait(&barrier);
		/* the first worker pauses for all */
		if (w->id == 0) {
			bursts++;
			if (gap_ms)
				usleep((useconds_t)gap_ms * 1000);
		}
	}
	stop = 1;
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: sample_app [--threads N] [--seconds S] [--bursts B] [--burst K]\n"
		"                  [--gap-ms G] [--timer-us U] [--counts FILE]\n"
		"                  [--log DIR] [--ready FILE] [--done FILE] [--pin]\n"
		"                  [--no-markers]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "bursts", required_argument, NULL, 'b' },
		{ "burst", required_argument, NULL, 'k' },
		{ "gap-ms", required_argument, NULL, 'g' },
		{ "timer-us", required_argument, NULL, 'u' },
		{ "counts", required_argument, NULL, 'c' },
		{ "log", required_argument, NULL, 'l' },
		{ "ready", required_argument, NULL, 'r' },
		{ "done", required_argument, NULL, 'd' },
		{ "pin", no_argument, NULL, 'p' },
		{ "no-markers", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *counts_file = NULL, *ready = NULL, *done = NULL;
	double seconds = 0;
	long timer_us = 0;
	struct worker *w;
	struct sigaction sa;
	struct timespec t0, now;
	FILE *out;
	int c, i;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			nr_threads = atoi(optarg);
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 'b':
			max_bursts = atol(optarg);
			break;
		case 'k':
			burst = atoi(optarg);
			break;
		case 'g':
			gap_ms = atoi(optarg);
			break;
		case 'u':
			timer_us = atol(optarg);
			break;
		case 'c':
			counts_file = optarg;
			break;
		case 'l':
			log_dir = optarg;
			break;
		case 'r':
			ready = optarg;
			break;
		case 'd':
			done = optarg;
			break;
		case 'p':
			pin = true;
			break;
		case 'm':
			no_markers = true;
			break;
		default:
			usage();
		}
	}
	if (nr_threads < 1 || nr_threads > 64 || burst < 1)
		usage();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);

	/* the tracer and its publication, before any thread runs */
	if (!ringtrace_top()) {
		perror("sample_app: ringtrace_top");
		return 1;
	}
	w = calloc((size_t)nr_threads, sizeof(*w));
	if (!w)
		return 1;
	pthread_barrier_init(&barrier, NULL, (unsigned int)nr_threads);
	for (i = 0; i < nr_threads; i++) {
		w[i].id = i;
		if (log_dir) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/log.%d", log_dir, i);
			w[i].log = fopen(path, "w");
			if (!w[i].log) {
				perror(path);
				return 1;
			}
		}
		pthread_create(&w[i].th, NULL, worker_main, &w[i]);
	}
	if (timer_us > 0) {
		struct itimerval it = {
			.it_interval = { timer_us / 1000000,
					 timer_us % 1000000 },
			.it_value = { timer_us / 1000000, timer_us % 1000000 },
		};

		setitimer(ITIMER_REAL, &it, NULL);
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		usleep(10000);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (seconds > 0 &&
		    (double)(now.tv_sec - t0.tv_sec) +
				    (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >=
			    seconds)
			stop = 1;
	}
	if (timer_us > 0) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_REAL, &off, NULL);
	}
	for (i = 0; i < nr_threads; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].log)
			fclose(w[i].log);
	}
	out = counts_file ? fopen(counts_file, "w") : stdout;
	if (!out)
		return 1;
	for (i = 0; i < EV_NR; i++)
		fprintf(out, "%s %llu\n", ev_names[i],
			(unsigned long long)atomic_load(&counts[i]));
	if (out != stdout)
		fclose(out);
	free(w);
	if (done) {
		FILE *f;
		char b;

		/* the handler for the end, before FILE says "done": a
		 * signal sent as soon as it is seen ends the read below,
		 * whichever thread takes it */
		if (pipe(end_pipe))
			return 1;
		sa.sa_handler = on_end;
		sa.sa_flags = 0;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		f = fopen(done, "w");
		if (!f) {
			perror(done);
			return 1;
		}
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
		while (read(end_pipe[0], &b, 1) < 0 && errno == EINTR)
			;
	}
	return 0;
}
