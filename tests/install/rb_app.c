// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rb_app.c - a program outside the tree using libringbuf: three records
 * written, consumed and checked. Built by install_test.sh against an
 * installed prefix.
 */
#include <ringbuf/ringbuf.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	struct ringbuf *rb = ringbuf_alloc(1 << 16, 0);
	struct ringbuf_event *ev;
	unsigned long lost;
	uint64_t ts;
	int i, cpu, n = 0;

	if (!rb) {
		perror("ringbuf_alloc");
		return 1;
	}
	for (i = 0; i < 3; i++) {
		ev = ringbuf_lock_reserve(rb, sizeof(int));
		if (!ev) {
			fprintf(stderr, "reserve failed\n");
			return 1;
		}
		memcpy(ringbuf_event_data(ev), &i, sizeof(i));
		ringbuf_unlock_commit(rb);
	}
	while ((ev = ringbuf_consume_next(rb, &cpu, &ts, &lost))) {
		int v;

		memcpy(&v, ringbuf_event_data(ev), sizeof(v));
		if (v != n) {
			fprintf(stderr, "record %d holds %d\n", n, v);
			return 1;
		}
		n++;
	}
	ringbuf_free(rb);
	printf("ringbuf: %d records\n", n);
	return n == 3 ? 0 : 1;
}
