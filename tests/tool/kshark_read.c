// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kshark_read.c - a trace.dat as KernelShark opens it, through its
 * library (libkshark, which the GUI is built on): the file, and every
 * buffer instance as the GUI adds them, each stream loaded whole.
 *
 * kshark_read FILE: prints one line per stream ("stream SD NAME cpus N
 * entries M"), then "total M"; exit 1 when the file does not open or a
 * stream does not load (what KernelShark shows in an error dialog).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include <libkshark.h>
#include <libkshark-tepdata.h>

int main(int argc, char **argv)
{
	struct kshark_context *ctx = NULL;
	struct kshark_entry **rows = NULL;
	ssize_t total = 0;
	int sd, *ids;

	if (argc != 2) {
		fprintf(stderr, "usage: kshark_read FILE\n");
		return 2;
	}
	if (!kshark_instance(&ctx))
		return 1;
	sd = kshark_open(ctx, argv[1]);
	if (sd < 0) {
		fprintf(stderr, "kshark_read: kshark_open(%s) = %d\n", argv[1],
			sd);
		return 1;
	}
	/* the GUI opens the buffer instances as streams of their own */
	if (kshark_tep_init_all_buffers(ctx, sd) < 0) {
		fprintf(stderr, "kshark_read: the buffers of %s do not open\n",
			argv[1]);
		return 1;
	}
	ids = kshark_all_streams(ctx);
	for (int i = 0; ids && i < ctx->n_streams; i++) {
		struct kshark_data_stream *s = kshark_get_data_stream(ctx,
								      ids[i]);
		ssize_t n;

		if (!s)
			continue;
		n = kshark_load_entries(ctx, ids[i], &rows);
		if (n < 0) {
			fprintf(stderr, "kshark_read: stream %d does not load\n",
				ids[i]);
			return 1;
		}
		for (ssize_t k = 0; k < n; k++)
			free(rows[k]);
		free(rows);
		rows = NULL;
		printf("stream %d %s cpus %d entries %zd\n", ids[i],
		       s->name ? s->name : "?", s->n_cpus, n);
		total += n;
	}
	free(ids);
	printf("total %zd\n", total);
	kshark_free(ctx);
	return 0;
}
