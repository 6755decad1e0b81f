/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The hammer's attach mode (hammer --attach): a writer thread overwrites
 * a small named buffer without a pause, pushing its head page around the
 * ring over and over, while the main thread attaches views to the file
 * and frees them. Every attach must succeed: its check of the ring looks
 * for the head flag while the writer moves it. At the end a view drains
 * the buffer: what it reads is every sequence from the first it finds to
 * the last one written, with its payload, and the ones before were
 * counted as overrun (read + overrun = written).
 *
 *   hammer --attach [--seconds S] [--pages P]
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "test.h"
#include "tu.h"

/* Four records a page: the head moves on every fourth write. */
#define AT_LEN 1000u

static struct {
	struct ringbuf *rb;
	atomic_bool stop;
	uint32_t seq;		/* the writer's; read after it is joined */
} A;

static void *at_writer(void *arg)
{
	(void)arg;
	ringbuf_test_set_cpu(0);
	while (!atomic_load(&A.stop))
		for (int i = 0; i < 256; i++)
			tu_write_ok(A.rb, A.seq++, AT_LEN);
	return NULL;
}

int attach_main(int argc, char **argv)
{
	double seconds = 3;
	unsigned int pages = 2;
	unsigned long attaches = 0, refused = 0, overrun;
	uint64_t read = 0, t_end;
	uint32_t first = 0, last = 0;
	struct ringbuf_event *ev;
	struct ringbuf *v;
	pthread_t tid;
	char name[64];
	int errors = 0;

	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--pages"))
			pages = (unsigned int)atoi(argv[i + 1]);
		else
			goto usage;
	}
	if ((argc - 2) % 2 || seconds <= 0 || pages < 2 || pages > 64)
		goto usage;

	snprintf(name, sizeof(name), "rbattach-%d", (int)getpid());
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(pages),
			     .flags = RINGBUF_FL_OVERWRITE, .nr_cpus = 1,
			     .spare_buffers = RINGBUF_NO_SPARES, .path = name);

		A.rb = ringbuf_create(&o);
	}
	if (!A.rb)
		RBT_FAIL("ringbuf_create: %s", strerror(errno));
	if (pthread_create(&tid, NULL, at_writer, NULL))
		RBT_FAIL("pthread_create failed");
	t_end = rbt_now_ns() + (uint64_t)(seconds * 1e9);
	while (rbt_now_ns() < t_end) {
		v = ringbuf_attach(name, 0);
		attaches++;
		if (!v) {
			if (refused++ < 10)
				fprintf(stderr, "attach: ERROR: attach %lu "
					"refused: %s\n", attaches,
					strerror(errno));
			continue;
		}
		ringbuf_free(v);
	}
	atomic_store(&A.stop, true);
	pthread_join(tid, NULL);

	/* drain: consecutive sequences up to the last one written */
	v = ringbuf_attach(name, 0);
	if (!v)
		RBT_FAIL("the last attach: %s", strerror(errno));
	while ((ev = ringbuf_consume(v, 0, NULL, NULL))) {
		uint32_t seq = tu_seq(ringbuf_event_data(ev));

		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 seq, AT_LEN);
		if (read && seq != last + 1 && errors++ < 10)
			fprintf(stderr, "attach: ERROR: sequence %u after "
				"%u\n", seq, last);
		if (!read)
			first = seq;
		last = seq;
		read++;
	}
	overrun = ringbuf_overrun_cpu(A.rb, 0);
	if (!read || last != A.seq - 1 || first != overrun ||
	    read + overrun != A.seq) {
		fprintf(stderr, "attach: ERROR: %u written; read %llu "
			"(sequences %u to %u), %lu overrun\n", A.seq,
			(unsigned long long)read, first, last, overrun);
		errors++;
	}
	if (ringbuf_view_error(v)) {
		fprintf(stderr, "attach: ERROR: the view reports %d\n",
			ringbuf_view_error(v));
		errors++;
	}
	ringbuf_free(v);
	ringbuf_free(A.rb);
	printf("attach: %.0f s, %u pages: %lu attaches, %lu refused; %u "
	       "written, %llu read, %lu overrun, %d errors\n", seconds,
	       pages, attaches, refused, A.seq, (unsigned long long)read,
	       overrun, errors);
	return refused || errors ? 1 : 0;

usage:
	fprintf(stderr, "usage: hammer --attach [--seconds S] [--pages P]\n");
	return 2;
}
