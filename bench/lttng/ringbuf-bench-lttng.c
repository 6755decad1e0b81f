/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ringbuf-bench-lttng - the writer side of ringbuf-bench's LTTng-UST
 * baseline. ringbuf-bench starts a private lttng-sessiond and a session,
 * then runs this program, which fires one tracepoint carrying the same
 * payload as the other cases, in the same loop shape, for a given time.
 *
 * Output (one line on stdout, parsed by ringbuf-bench):
 *	events=<fired> ns=<writer wall ns> cpu_ns=<writer cpu ns>
 *
 * Exit status 3 when the tracepoint never got enabled (the application
 * did not register with the session daemon): the measurement would then
 * be that of a disabled tracepoint, which is not the baseline.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_tp.h"

static atomic_bool stop_flag;

struct writer {
	unsigned int payload;
	int cpu;
	uint64_t events;
	uint64_t wall_ns;
	uint64_t cpu_ns;
};

static uint64_t ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int tp_enabled(unsigned int payload)
{
	switch (payload) {
	case 8:
		return lttng_ust_tracepoint_enabled(ringbuf_bench, payload8);
	case 16:
		return lttng_ust_tracepoint_enabled(ringbuf_bench, payload16);
	case 64:
		return lttng_ust_tracepoint_enabled(ringbuf_bench, payload64);
	case 256:
		return lttng_ust_tracepoint_enabled(ringbuf_bench, payload256);
	default:
		return lttng_ust_tracepoint_enabled(ringbuf_bench, payload_var);
	}
}

/*
 * One loop per event, so that the tracepoint call site is the same shape
 * as a real one (the payload size is a constant at the call site).
 */
#define WRITE_LOOP(call)                                                     \
	do {                                                                 \
		while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) { \
			seq++;                                               \
			memcpy(buf, &seq, sizeof(seq));                      \
			call;                                                \
		}                                                            \
	} while (0)

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	uint8_t buf[4096] __attribute__((aligned(8)));
	uint64_t seq = 0, t0, c0;

	memset(buf, 0x5a, sizeof(buf));
	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	t0 = ts_ns(CLOCK_MONOTONIC);
	c0 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
	switch (w->payload) {
	case 8:
		WRITE_LOOP(lttng_ust_tracepoint(ringbuf_bench, payload8, buf));
		break;
	case 16:
		WRITE_LOOP(lttng_ust_tracepoint(ringbuf_bench, payload16, buf));
		break;
	case 64:
		WRITE_LOOP(lttng_ust_tracepoint(ringbuf_bench, payload64, buf));
		break;
	case 256:
		WRITE_LOOP(lttng_ust_tracepoint(ringbuf_bench, payload256, buf));
		break;
	default:
		WRITE_LOOP(lttng_ust_tracepoint(ringbuf_bench, payload_var, buf,
						w->payload));
		break;
	}
	w->cpu_ns = ts_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->wall_ns = ts_ns(CLOCK_MONOTONIC) - t0;
	w->events = seq;
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ringbuf-bench-lttng --payload BYTES --duration SECONDS "
		"[--cpu N] [--writers N] [--check]\n"
		"  --check  only report whether the tracepoint is enabled\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int payload = 16, nwriters = 1, i;
	double duration = 1.0;
	int cpu = -1, check = 0, waited;
	struct writer *w;
	pthread_t *tid;
	uint64_t events = 0, wall = 0, cpu_ns = 0;
	struct timespec ts;

	for (i = 1; i < (unsigned int)argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < (unsigned int)argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--check")) {
			check = 1;
			continue;
		}
		if (!v)
			usage();
		if (!strcmp(a, "--payload"))
			payload = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--duration"))
			duration = strtod(v, NULL);
		else if (!strcmp(a, "--cpu"))
			cpu = atoi(v);
		else if (!strcmp(a, "--writers"))
			nwriters = (unsigned int)strtoul(v, NULL, 0);
		else
			usage();
		i++;
	}
	if (payload > 4096 || nwriters == 0 || nwriters > 64 || duration <= 0)
		usage();

	/*
	 * liblttng-ust registered with the session daemon in its constructor
	 * (bounded by LTTNG_UST_REGISTER_TIMEOUT); give the enablement up to
	 * five more seconds to arrive.
	 */
	for (waited = 0; !tp_enabled(payload) && waited < 500; waited++) {
		ts.tv_sec = 0;
		ts.tv_nsec = 10 * 1000 * 1000;
		nanosleep(&ts, NULL);
	}
	if (!tp_enabled(payload)) {
		printf("enabled=0\n");
		fprintf(stderr, "ringbuf-bench-lttng: tracepoint not enabled "
			"(no session daemon, or no session enabling it)\n");
		return 3;
	}
	if (check) {
		printf("enabled=1\n");
		return 0;
	}

	w = calloc(nwriters, sizeof(*w));
	tid = calloc(nwriters, sizeof(*tid));
	if (!w || !tid)
		return 1;
	for (i = 0; i < nwriters; i++) {
		w[i].payload = payload;
		w[i].cpu = cpu < 0 ? -1 : (int)(cpu + i) % (int)sysconf(_SC_NPROCESSORS_ONLN);
		if (pthread_create(&tid[i], NULL, writer_fn, &w[i])) {
			fprintf(stderr, "ringbuf-bench-lttng: pthread_create failed\n");
			return 1;
		}
	}
	ts.tv_sec = (time_t)duration;
	ts.tv_nsec = (long)((duration - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	atomic_store(&stop_flag, true);
	for (i = 0; i < nwriters; i++) {
		pthread_join(tid[i], NULL);
		events += w[i].events;
		wall += w[i].wall_ns;
		cpu_ns += w[i].cpu_ns;
	}
	/* Sums over writers; the caller divides per writer. */
	printf("enabled=1 events=%llu ns=%llu cpu_ns=%llu writers=%u\n",
	       (unsigned long long)events, (unsigned long long)wall,
	       (unsigned long long)cpu_ns, nwriters);
	free(w);
	free(tid);
	return 0;
}
