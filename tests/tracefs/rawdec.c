// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rawdec.c - read a trace_pipe_raw file as trace-cmd does: whole pages
 * decoded with libtraceevent's kbuffer
 *
 * usage: rawdec FILE
 *
 * Reads FILE (non-blocking) until it has nothing more, one page per
 * read (reads of 64 KiB): the first read gives the page size, every
 * other must return as much, and each page must load in kbuffer. Prints one line per record: "TIMESTAMP TYPE" (TYPE: the
 * record's common_type, its event id), then "pages N". Exits 1 when a
 * page is short, does not load, or its time stamps go back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kbuffer.h>

int main(int argc, char **argv)
{
	unsigned long long ts, last = 0;
	struct kbuffer *kb;
	size_t psz = 0, max = 65536;
	unsigned int pages = 0;
	char *page;
	void *data;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: rawdec FILE\n");
		return 2;
	}
	page = calloc(1, max);
	kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	fd = open(argv[1], O_RDONLY | O_NONBLOCK);
	if (!page || !kb || fd < 0) {
		perror(argv[1]);
		return 2;
	}
	for (;;) {
		ssize_t n = read(fd, page, max);

		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			if (n < 0)
				perror(argv[1]);
			return n < 0;
		}
		if (!psz)
			psz = (size_t)n;
		if (n != (ssize_t)psz || psz < 64) {
			fprintf(stderr, "rawdec: a read of %zd bytes, not a page of %zu\n",
				n, psz);
			return 1;
		}
		if (kbuffer_load_subbuffer(kb, page)) {
			fprintf(stderr, "rawdec: page %u does not load\n", pages);
			return 1;
		}
		for (data = kbuffer_read_event(kb, &ts); data;
		     data = kbuffer_next_event(kb, &ts)) {
			unsigned short type;

			if (ts < last) {
				fprintf(stderr, "rawdec: time goes back: %llu < %llu\n",
					ts, last);
				return 1;
			}
			last = ts;
			memcpy(&type, data, sizeof(type));
			printf("%llu %u\n", ts, type);
		}
		pages++;
	}
	printf("pages %u\n", pages);
	kbuffer_free(kb);
	free(page);
	close(fd);
	return 0;
}
