// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fastpath.c - one 16-byte record through the inline write path, for
 * counting its instructions (count.sh steps through the last call).
 *
 * Usage: ringbuf-fastpath c|t [N]: per-CPU or per-thread model, TSC
 * clock; N warm-up writes, then the one that is counted.
 */
#include <ringbuf/frontend.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The TSC just before the counted write: count.sh gives the write's
 * rdtsc a value just after it, so that the time spent stepping does not
 * send the write to the time-extend path. */
volatile unsigned long long fastpath_tsc;

int fastpath_write(struct ringbuf *rb, const void *src);

__attribute__((noinline)) int fastpath_write(struct ringbuf *rb, const void *src)
{
	struct ringbuf_event *ev = ringbuf_reserve_inline(rb, 16);

	if (!ev)
		return -1;
	memcpy(ringbuf_event_data_inline(ev), src, 16);
	ringbuf_commit_inline(rb);
	return 0;
}

int main(int argc, char **argv)
{
	int model = argc > 1 && argv[1][0] == 't' ? RINGBUF_PER_THREAD :
						    RINGBUF_PER_CPU;
	RINGBUF_OPTS(o, .size = 1 << 20, .model = model,
		     .clock = RINGBUF_CLOCK_TSC);
	struct ringbuf *rb = ringbuf_create(&o);
	char src[16] = "0123456789abcde";
	int n = argc > 2 ? atoi(argv[2]) : 100;

	cpu_set_t one;

	if (!rb)
		return 1;
	/* Pinned: a migration while gdb steps would send the counted write
	 * to the claim's slow path. */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (int i = 0; i < n; i++)
		if (fastpath_write(rb, src))
			return 2;
#if defined(__x86_64__)
	fastpath_tsc = __builtin_ia32_rdtsc();
#endif
	if (fastpath_write(rb, src))
		return 3;
	ringbuf_free(rb);
	puts("ok");
	return 0;
}
