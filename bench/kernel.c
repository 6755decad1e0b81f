// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernel.c - the kernel's own ring buffer, written from user space
 * through trace_marker_raw.
 *
 * A private tracing instance (instances/ringbuf-bench.<pid>) is created
 * with the same buffer size, overwrite mode and clock as the case, so
 * that nothing else writes into it and the system's main buffer is left
 * alone; it is removed at the end of the run. Each write() is one event:
 * a 4-byte id then the payload. The consumer, if any, reads every CPU's
 * trace_pipe_raw a page at a time (the kernel's read_page) and walks the
 * pages as it does ringbuf's. Entries, overruns and read events come from
 * per_cpu/cpuN/stats.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ringbuf/event.h>

#include "bench.h"

const char *bench_tracefs;

/* The instance of the run in progress, for bench_kernel_cleanup(). */
static char live_inst[512];

struct kstate {
	char inst[512];
	int marker;
	int ncpus;
	int *pipes;
	uint64_t cons_events, cons_bytes, cons_corrupt;
};

static int find_tracefs(char *out, size_t len, char *why, size_t whylen)
{
	FILE *f;
	char dev[256], dir[512], type[64];
	bool found = false;

	if (bench_tracefs) {
		bench_msg(out, len, "%s", bench_tracefs);
		return 0;
	}
	f = fopen("/proc/self/mounts", "r");
	if (!f) {
		bench_msg(why, whylen, "cannot read /proc/self/mounts");
		return -1;
	}
	while (fscanf(f, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "tracefs"))
			continue;
		/* Prefer the canonical place; otherwise the first one. */
		if (!found || !strcmp(dir, "/sys/kernel/tracing")) {
			bench_msg(out, len, "%s", dir);
			found = true;
		}
	}
	fclose(f);
	if (!found) {
		bench_msg(why, whylen,
			 "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return -1;
	}
	return 0;
}

static int write_str(const char *dir, const char *file, const char *val)
{
	char path[700];
	int fd, ret = 0;
	size_t n = strlen(val);

	bench_msg(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, n) != (ssize_t)n)
		ret = -errno;
	close(fd);
	return ret;
}

static inline __attribute__((always_inline)) void
k_loop(struct bench_writer *w, unsigned int len)
{
	struct kstate *k = w->impl;
	unsigned char buf[4 + BENCH_MAX_PAYLOAD] __attribute__((aligned(8)));
	uint32_t id = 0x72627563;	/* "rbuc" */
	uint64_t seq = 0, ok = 0, miss = 0;

	memcpy(buf, &id, 4);
	memcpy(buf + 4, w->src, len);
	while (!atomic_load_explicit(&bench_stop, memory_order_relaxed)) {
		seq++;
		bench_put_payload(buf + 4, w->src, len, seq);
		if (__builtin_expect(write(k->marker, buf, 4 + len) == (ssize_t)(4 + len), 1))
			ok++;
		else
			miss++;
	}
	w->attempts = seq;
	w->written = ok;
	w->missed = miss;
}

static void k_loop_fn(struct bench_writer *w)
{
#define BODY(L) k_loop(w, L)
	BENCH_PAYLOAD_SWITCH(w->c->payload, BODY);
#undef BODY
}

static void k_consumer(struct bench_team *t)
{
	struct kstate *k = t->impl;
	unsigned char page[4096] __attribute__((aligned(8)));

	while (!atomic_load_explicit(&t->cons_stop, memory_order_acquire)) {
		bool got = false;
		int cpu;

		for (cpu = 0; cpu < k->ncpus; cpu++) {
			ssize_t n;

			if (k->pipes[cpu] < 0)
				continue;
			while ((n = read(k->pipes[cpu], page, sizeof(page))) > 0) {
				struct page_stats st;
				uint64_t commit;

				memset(&st, 0, sizeof(st));
				if ((size_t)n < sizeof(page))
					memset(page + n, 0, sizeof(page) - (size_t)n);
				bench_parse_page(page, sizeof(page), 0, &st);
				k->cons_events += st.events;
				k->cons_bytes += st.bytes;
				k->cons_corrupt += st.corrupt;
				/*
				 * A non-blocking read hands out partial pages
				 * too; once it does, the reader has caught up:
				 * let the page fill (as read_page with "full").
				 */
				memcpy(&commit, page + 8, sizeof(commit));
				if ((commit & RINGBUF_COMMIT_MASK) + 256 < sizeof(page) - 16)
					break;
				got = true;
			}
		}
		if (!got)
			bench_sleep_ns(bench_consumer_sleep_us * 1000ull);
	}
}

static uint64_t stat_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

void bench_run_kernel(const struct bench_case *c, struct bench_result *r)
{
	char mnt[512], path[700], val[64];
	struct kstate k;
	struct bench_team t;
	int cpu, ret;

	memset(&k, 0, sizeof(k));
	memset(&t, 0, sizeof(t));
	k.marker = -1;
	if (find_tracefs(mnt, sizeof(mnt), r->why, sizeof(r->why))) {
		r->skipped = true;
		return;
	}
	bench_msg(path, sizeof(path), "%s/instances", mnt);
	if (access(path, W_OK)) {
		r->skipped = true;
		bench_msg(r->why, sizeof(r->why), "%s is not writable (%s)", path,
			 strerror(errno));
		return;
	}
	bench_msg(k.inst, sizeof(k.inst), "%s/instances/ringbuf-bench.%d", mnt,
		 (int)getpid());
	if (mkdir(k.inst, 0755) && errno != EEXIST) {
		r->skipped = true;
		bench_msg(r->why, sizeof(r->why), "mkdir %s: %s", k.inst, strerror(errno));
		return;
	}
	memcpy(live_inst, k.inst, sizeof(live_inst));
	bench_msg(val, sizeof(val), "%zu", c->size / 1024);
	ret = write_str(k.inst, "buffer_size_kb", val);
	if (!ret)
		ret = write_str(k.inst, "options/overwrite", c->overwrite ? "1" : "0");
	if (ret) {
		r->skipped = true;
		bench_msg(r->why, sizeof(r->why), "configuring %s: %s", k.inst,
			 strerror(-ret));
		goto out;
	}
	/* The same clock as the case when the kernel has it. */
	write_str(k.inst, "trace_clock", c->clock == BCLOCK_TSC ? "x86-tsc" : "mono");
	write_str(k.inst, "tracing_on", "1");

	bench_msg(path, sizeof(path), "%s/trace_marker_raw", k.inst);
	k.marker = open(path, O_WRONLY | O_CLOEXEC);
	if (k.marker < 0) {
		r->skipped = true;
		bench_msg(r->why, sizeof(r->why), "open %s: %s", path, strerror(errno));
		goto out;
	}
	k.ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	k.pipes = calloc((size_t)k.ncpus, sizeof(int));
	if (!k.pipes) {
		r->skipped = true;
		bench_msg(r->why, sizeof(r->why), "out of memory");
		goto out;
	}
	for (cpu = 0; cpu < k.ncpus; cpu++) {
		k.pipes[cpu] = -1;
		if (c->consumer == CONS_NONE)
			continue;
		bench_msg(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", k.inst, cpu);
		k.pipes[cpu] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	}

	if (bench_team_init(&t, c, r))
		goto out;
	t.impl = &k;
	t.loop = k_loop_fn;
	if (c->consumer != CONS_NONE)
		t.consumer = k_consumer;
	if (bench_team_run(&t, r))
		goto out;
	bench_team_sum(&t, r);
	r->read = k.cons_events;
	r->read_bytes = k.cons_bytes;
	r->bad_records = k.cons_corrupt;
	r->consumer_secs = (double)t.cons_ns / 1e9;
	r->have_lib_counters = true;
	for (cpu = 0; cpu < k.ncpus; cpu++) {
		char text[1024];
		int fd;
		ssize_t n;

		bench_msg(path, sizeof(path), "%s/per_cpu/cpu%d/stats", k.inst, cpu);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (n <= 0)
			continue;
		text[n] = '\0';
		r->entries += stat_field(text, "entries: ");
		r->overrun += stat_field(text, "\noverrun: ");
		r->commit_overrun += stat_field(text, "commit overrun: ");
		r->dropped += stat_field(text, "dropped events: ");
		r->lib_read += stat_field(text, "read events: ");
	}
	bench_msg(r->why, sizeof(r->why), "instance %s, one write() per event", k.inst);
out:
	if (k.pipes)
		for (cpu = 0; cpu < k.ncpus; cpu++)
			if (k.pipes[cpu] >= 0)
				close(k.pipes[cpu]);
	free(k.pipes);
	if (k.marker >= 0)
		close(k.marker);
	free(t.w);
	if (rmdir(k.inst) && bench_verbose)
		fprintf(stderr, "ringbuf-bench: rmdir %s: %s\n", k.inst, strerror(errno));
	live_inst[0] = '\0';
}

/*
 * From a fatal signal: the files of the instance are still open, so the
 * rmdir may fail (EBUSY); the name says whose it is.
 */
void bench_kernel_cleanup(void)
{
	if (live_inst[0])
		rmdir(live_inst);
}
