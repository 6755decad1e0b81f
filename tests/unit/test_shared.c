/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The release shared library: the public API works through the exported
 * symbols alone, and the test tier is not in it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>

#include "test.h"

static void smoke(void)
{
	struct ringbuf *rb = ringbuf_alloc(4 * 4080, RINGBUF_FL_OVERWRITE);
	struct ringbuf_event *ev;
	char msg[64];
	unsigned int n = 0;
	uint64_t ts, last = 0;
	int cpu;

	ASSERT_NOT_NULL(rb);
	for (unsigned int i = 0; i < 100; i++) {
		int len = snprintf(msg, sizeof(msg), "event %u", i);

		ASSERT_EQ(ringbuf_write(rb, (unsigned long)len + 1, msg), 0);
	}
	ev = ringbuf_lock_reserve(rb, 200);
	ASSERT_NOT_NULL(ev);
	memset(ringbuf_event_data(ev), 0x5a, 200);
	ASSERT_EQ(ringbuf_unlock_commit(rb), 0);
	ASSERT_EQ(ringbuf_entries(rb), 101);
	while ((ev = ringbuf_consume_next(rb, &cpu, &ts, NULL))) {
		ASSERT_GE(cpu, 0);
		ASSERT_LT(cpu, ringbuf_nr_cpus(rb));
		ASSERT_GE_U(ts, last);
		last = ts;
		if (n < 100) {
			snprintf(msg, sizeof(msg), "event %u", n);
			ASSERT_EQ(strcmp(ringbuf_event_data(ev), msg), 0);
		} else {
			ASSERT_EQ(ringbuf_event_length(ev), 200);
			ASSERT_EQ(((unsigned char *)ringbuf_event_data(ev))[199],
				  0x5a);
		}
		n++;
	}
	ASSERT_EQ(n, 101);
	ASSERT_TRUE(ringbuf_empty(rb));
	ringbuf_free(rb);
}

/*
 * A named buffer's file stays sparse where its file system has room: the
 * cpu buffers nobody wrote (the spares here) take no blocks. 4 MiB per
 * cpu buffer, 2 CPU buffers and 6 spares, one record written.
 */
static void sparse_file(void)
{
	char path[64];
	struct statvfs sv;
	struct stat st;
	struct ringbuf *rb;

	snprintf(path, sizeof(path), "/dev/shm/ringbuf-sparse-%d", (int)getpid());
	if (statvfs("/dev/shm", &sv) ||
	    (unsigned long long)sv.f_bavail * sv.f_frsize < (256ull << 20))
		rbt_skip("/dev/shm lacks the room for the test");
	RINGBUF_OPTS(o, .size = 4u << 20, .nr_cpus = 2, .spare_buffers = 6,
		     .path = path);
	rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringbuf_nr_cpus(rb), 8);
	ASSERT_EQ(ringbuf_write(rb, 8, "sparse!"), 0);
	ASSERT_EQ(stat(path, &st), 0);
	ASSERT_GE((long long)st.st_size, 32ll << 20);
	/* the control blocks and the pages written: far below one buffer */
	ASSERT_LT((long long)st.st_blocks * 512, 4ll << 20);
	ringbuf_free(rb);
}

static void no_test_symbols(void)
{
	static const char *const hidden[] = {
		"ringbuf_test_set_hook", "ringbuf_test_state",
		"ringbuf_test_check_pages", "ringbuf_test_warned",
		"ringbuf_test_set_cpu",
	};

	ASSERT_NOT_NULL(dlsym(RTLD_DEFAULT, "ringbuf_alloc"));
	ASSERT_NOT_NULL(dlsym(RTLD_DEFAULT, "ringbuf_write"));
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		if (dlsym(RTLD_DEFAULT, hidden[i]))
			RBT_FAIL("%s is visible in the release library",
				 hidden[i]);
}

static const struct rbt_case cases[] = {
	RBT_CASE(smoke),
	RBT_CASE(sparse_file),
	RBT_CASE(no_test_symbols),
};
RBT_MAIN(cases)
