// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringbuf-demo - libringbuf at work: several writer threads, and signal
 * handlers interrupting them mid-write, record events into one per-CPU
 * buffer while a consumer thread reads them merged in time order. At the
 * end it prints a sample of what was read, the per-CPU statistics (as
 * tracefs per_cpu/cpuN/stats shows them) and checks that every event is
 * accounted for: read + lost == written.
 *
 * Usage: ringbuf-demo [-t threads] [-s seconds] [-k size_kb] [-w work] [-o] [-T] [-P]
 *   -w  work between two events of a writer, in loop iterations
 *       (default 2000, about a microsecond; 0 writes flat out)
 *   -o  overwrite mode (default: producer/consumer)
 *   -T  TSC clock (default: CLOCK_MONOTONIC)
 *   -P  per-thread writer model (default: per-CPU)
 */
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>

#define MAX_WRITERS 64

struct demo_event {
	uint16_t writer; /* thread index; 0x8000 set for signal handlers */
	uint16_t len; /* payload bytes */
	uint32_t seq;
	uint64_t check;
	char text[8];
};

static struct ringbuf *rb;
static atomic_bool stop_writers, stop_reader;
static _Atomic unsigned long written, failed, sig_written, sig_failed;
static pthread_t writers[MAX_WRITERS];
static int nr_writers = 4;
static long work = 2000;

static uint64_t checksum(const struct demo_event *e)
{
	return ((uint64_t)e->writer << 48) ^
	       ((uint64_t)e->seq * 0x9e3779b97f4a7c15ULL) ^ e->len ^
	       (uint64_t)e->text[0] << 40;
}

static int emit(uint16_t writer, uint32_t seq, const char *what)
{
	struct ringbuf_event *event;
	struct demo_event *e;
	size_t len = sizeof(*e);

	event = ringbuf_lock_reserve(rb, len);
	if (!event)
		return -1;
	e = ringbuf_event_data(event);
	e->writer = writer;
	e->len = (uint16_t)len;
	e->seq = seq;
	memcpy(e->text, what, sizeof(e->text));
	e->check = checksum(e);
	return ringbuf_unlock_commit(rb);
}

/* The signal handler is an interrupt: it may arrive between a thread's
 * reserve and commit and write an event of its own. */
static __thread uint32_t sig_seq;
static __thread uint16_t my_index;

static void on_signal(int sig)
{
	(void)sig;
	if (emit(0x8000 | my_index, sig_seq++, "signal\0") == 0)
		atomic_fetch_add_explicit(&sig_written, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&sig_failed, 1, memory_order_relaxed);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The cost of one write (reserve, fill, commit), sampled on every 64th
 * event so the clock reads do not slow the writers down; the median is
 * reported, as a sample may include a preemption. */
#define MAX_SAMPLES (1 << 16)
static float samples[MAX_WRITERS][MAX_SAMPLES];
static unsigned int nr_samples[MAX_WRITERS];
static double clock_pair_ns;

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

static void *writer_main(void *arg)
{
	uint32_t seq = 0;
	unsigned int n = 0;

	my_index = (uint16_t)(uintptr_t)arg;
	while (!atomic_load_explicit(&stop_writers, memory_order_relaxed)) {
		int ret;

		if ((seq & 63) == 0) {
			double t0 = now_ns();

			ret = emit(my_index, seq, "thread\0");
			if (n < MAX_SAMPLES)
				samples[my_index][n++] =
					(float)(now_ns() - t0 - clock_pair_ns);
		} else {
			ret = emit(my_index, seq, "thread\0");
		}
		if (ret == 0)
			atomic_fetch_add_explicit(&written, 1,
						  memory_order_relaxed);
		else
			atomic_fetch_add_explicit(&failed, 1,
						  memory_order_relaxed);
		seq++;
		/* the traced program's own work between two events */
		for (volatile long i = 0; i < work; i++)
			;
	}
	nr_samples[my_index] = n;
	return NULL;
}

/* Sends SIGUSR1 to random writers every 100 us. */
static void *interrupter_main(void *arg)
{
	unsigned int s = 1;
	struct timespec ts = { 0, 100000 };

	(void)arg;
	while (!atomic_load_explicit(&stop_writers, memory_order_relaxed)) {
		s = s * 1103515245 + 12345;
		pthread_kill(writers[(s >> 16) % (unsigned int)nr_writers],
			     SIGUSR1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static unsigned long nread, nlost, nbad;
static struct demo_event sample[8];
static uint64_t sample_ts[8];
static int sample_cpu[8];

static void read_one(int cpu, struct ringbuf_event *event, uint64_t ts)
{
	struct demo_event e;

	memcpy(&e, ringbuf_event_data(event), sizeof(e));
	if (ringbuf_event_length(event) < sizeof(e) || e.check != checksum(&e))
		nbad++;
	if (nread < 8) {
		sample[nread] = e;
		sample_ts[nread] = ts;
		sample_cpu[nread] = cpu;
	}
	nread++;
}

static void *reader_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct ringbuf_event *event;
		unsigned long lost = 0;
		uint64_t ts;
		int cpu;

		event = ringbuf_consume_next(rb, &cpu, &ts, &lost);
		if (event) {
			nlost += lost;
			read_one(cpu, event, ts);
			continue;
		}
		if (atomic_load_explicit(&stop_reader, memory_order_acquire))
			break;
		/* Drained: let the writers fill pages for a while, as a
		 * trace_pipe reader woken by a watermark would. */
		usleep(5000);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = 2.0, t0, t1;
	size_t size_kb = 1024;
	int overwrite = 0, tsc = 0, per_thread = 0, c;
	pthread_t intr, reader;
	struct sigaction sa;
	unsigned long total_overrun = 0, total_dropped = 0, total_cov = 0;
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);

	while ((c = getopt(argc, argv, "t:s:k:w:oTPh")) != -1) {
		switch (c) {
		case 't': nr_writers = atoi(optarg); break;
		case 's': seconds = atof(optarg); break;
		case 'k': size_kb = (size_t)atol(optarg); break;
		case 'w': work = atol(optarg); break;
		case 'o': overwrite = 1; break;
		case 'T': tsc = 1; break;
		case 'P': per_thread = 1; break;
		default:
			fprintf(stderr,
				"usage: %s [-t threads] [-s seconds] [-k size_kb] [-w work] [-o] [-T] [-P]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (nr_writers < 1 || nr_writers > MAX_WRITERS || seconds <= 0 ||
	    !size_kb || work < 0) {
		fprintf(stderr, "ringbuf-demo: bad argument (threads 1..%d, seconds > 0, size > 0, work >= 0)\n",
			MAX_WRITERS);
		return 2;
	}

	{
		RINGBUF_OPTS(o, .size = size_kb * 1024,
			     .flags = overwrite ? RINGBUF_FL_OVERWRITE : 0,
			     .model = per_thread ? RINGBUF_PER_THREAD : RINGBUF_PER_CPU,
			     .clock = tsc ? RINGBUF_CLOCK_TSC : RINGBUF_CLOCK_MONO);
		rb = ringbuf_create(&o);
	}
	if (!rb) {
		perror("ringbuf_create");
		return 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);

	printf("ringbuf-demo: %d writer threads + signal handlers, %s mode, %s model, %s clock, %zu KiB per buffer, %d buffers, %.1f s\n",
	       nr_writers, overwrite ? "overwrite" : "producer/consumer",
	       per_thread ? "per-thread" : "per-CPU", tsc ? "TSC" : "monotonic",
	       size_kb, ringbuf_nr_cpus(rb), seconds);

	/* what two back-to-back clock reads cost, to take it off samples */
	{
		double c0 = now_ns(), c1 = c0;

		for (int i = 0; i < 1000; i++)
			c1 = now_ns();
		clock_pair_ns = (c1 - c0) / 1000;
	}
	pthread_create(&reader, NULL, reader_main, NULL);
	t0 = now_s();
	for (int i = 0; i < nr_writers; i++)
		pthread_create(&writers[i], NULL, writer_main,
			       (void *)(uintptr_t)i);
	pthread_create(&intr, NULL, interrupter_main, NULL);
	usleep((useconds_t)(seconds * 1e6));
	atomic_store(&stop_writers, true);
	pthread_join(intr, NULL);
	for (int i = 0; i < nr_writers; i++)
		pthread_join(writers[i], NULL);
	t1 = now_s();
	atomic_store_explicit(&stop_reader, true, memory_order_release);
	pthread_join(reader, NULL);

	printf("\nfirst events read (merged across CPUs):\n");
	for (unsigned long i = 0; i < nread && i < 8; i++)
		printf("  [%03d] %" PRIu64 ": writer %s%u %.8s %u\n",
		       sample_cpu[i], sample_ts[i],
		       sample[i].writer & 0x8000 ? "sig/" : "",
		       sample[i].writer & 0x7fff, sample[i].text,
		       sample[i].seq);

	printf("\nper-CPU statistics (spare buffers are shown when used):\n");
	for (int cpu = 0; cpu < ringbuf_nr_cpus(rb); cpu++) {
		bool spare = !per_thread && cpu >= ncpus;

		total_overrun += ringbuf_overrun_cpu(rb, cpu);
		total_dropped += ringbuf_dropped_events_cpu(rb, cpu);
		total_cov += ringbuf_commit_overrun_cpu(rb, cpu);

		if (spare && !ringbuf_read_events_cpu(rb, cpu) &&
		    !ringbuf_overrun_cpu(rb, cpu) &&
		    !ringbuf_dropped_events_cpu(rb, cpu) &&
		    !ringbuf_entries_cpu(rb, cpu))
			continue;
		printf("  %s%d: entries: %lu overrun: %lu commit overrun: %lu bytes: %lu oldest event ts: %" PRIu64
		       " dropped events: %lu read events: %lu\n",
		       per_thread ? "slot" : spare ? "spare" : "cpu", cpu,
		       ringbuf_entries_cpu(rb, cpu),
		       ringbuf_overrun_cpu(rb, cpu),
		       ringbuf_commit_overrun_cpu(rb, cpu),
		       ringbuf_bytes_cpu(rb, cpu),
		       ringbuf_oldest_event_ts(rb, cpu),
		       ringbuf_dropped_events_cpu(rb, cpu),
		       ringbuf_read_events_cpu(rb, cpu));
	}

	{
		unsigned long w = written + sig_written, f = failed + sig_failed;
		int ok = nread + total_overrun == w && nbad == 0 &&
			 total_dropped + total_cov == f && nlost == total_overrun;

		printf("\nwritten: %lu (threads %lu, signal handlers %lu)  failed reserves: %lu\n",
		       w, (unsigned long)written, (unsigned long)sig_written, f);
		printf("read: %lu  lost (overrun): %lu  dropped: %lu  commit overrun: %lu  bad payloads: %lu\n",
		       nread, total_overrun, total_dropped, total_cov, nbad);
		printf("read + lost == written: %s;  failed == dropped + commit overrun: %s\n",
		       nread + total_overrun == w ? "yes" : "NO",
		       total_dropped + total_cov == f ? "yes" : "NO");
		float *all = malloc(sizeof(float) * MAX_SAMPLES * (size_t)nr_writers);
		size_t na = 0;

		for (int i = 0; all && i < nr_writers; i++)
			for (unsigned int j = 0; j < nr_samples[i]; j++)
				all[na++] = samples[i][j];
		if (na) {
			qsort(all, na, sizeof(*all), cmp_float);
			printf("writer cost: median %.0f ns per event (reserve, fill, commit; %zu samples, clock overhead removed)\n",
			       all[na / 2], na);
		}
		free(all);
		printf("throughput: %.2f M events/s (%d writer threads, signal handlers and a reader on %ld CPUs)\n",
		       (double)(w + f) / (t1 - t0) / 1e6, nr_writers,
		       sysconf(_SC_NPROCESSORS_ONLN));
		ringbuf_free(rb);
		return ok ? 0 : 1;
	}
}
