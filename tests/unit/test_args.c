/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bad arguments are rejected with an error, and nothing is corrupted.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "tu.h"

/* A buffer with known content on cpu 0 and 1, to check after abuse. */
static struct ringbuf *known(void)
{
	struct ringbuf *rb = tu_create(4, 0, 2, RINGBUF_PER_CPU);

	for (int cpu = 0; cpu < 2; cpu++) {
		ringbuf_test_set_cpu(cpu);
		for (unsigned int i = 0; i < 20; i++)
			tu_write_ok(rb, (uint32_t)(cpu * 100) + i, 24);
	}
	ringbuf_test_set_cpu(0);
	return rb;
}

static void check_known(struct ringbuf *rb)
{
	struct ringbuf_event *ev;

	tu_check_rb(rb);
	for (int cpu = 0; cpu < 2; cpu++) {
		ASSERT_EQ(ringbuf_entries_cpu(rb, cpu), 20);
		for (unsigned int i = 0; i < 20; i++) {
			ev = ringbuf_consume(rb, cpu, NULL, NULL);
			ASSERT_NOT_NULL(ev);
			tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
				 (uint32_t)(cpu * 100) + i, 24);
		}
		ASSERT_NULL(ringbuf_consume(rb, cpu, NULL, NULL));
	}
	ringbuf_free(rb);
}

static void create_bad_opts(void)
{
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(4), .subbuf_order = 99);
		ASSERT_NULL_ERRNO(ringbuf_create(&o), EINVAL);
	}
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(4), .subbuf_order = 8);
		ASSERT_NULL_ERRNO(ringbuf_create(&o), EINVAL);
	}
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(4), .nr_cpus = -1);
		ASSERT_NULL_ERRNO(ringbuf_create(&o), EINVAL);
	}
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(4), .model = 7);
		ASSERT_NULL_ERRNO(ringbuf_create(&o), EINVAL);
	}
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(4), .model = -1);
		ASSERT_NULL_ERRNO(ringbuf_create(&o), EINVAL);
	}
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(4), .clock = 99);
		ASSERT_NULL_ERRNO(ringbuf_create(&o), EINVAL);
	}
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(4), .clock = -1);
		ASSERT_NULL_ERRNO(ringbuf_create(&o), EINVAL);
	}
	{
		/* huge sizes: no memory for that, or not representable */
		RINGBUF_OPTS(o, .size = SIZE_MAX, .nr_cpus = 1);

		errno = 0;
		ASSERT_NULL(ringbuf_create(&o));
		ASSERT_TRUE(errno == ENOMEM || errno == EINVAL);
		o.size = (size_t)1 << 50;
		errno = 0;
		ASSERT_NULL(ringbuf_create(&o));
		ASSERT_TRUE(errno == ENOMEM || errno == EINVAL);
		errno = 0;
		ASSERT_NULL(ringbuf_alloc(SIZE_MAX / 2, 0));
		ASSERT_TRUE(errno == ENOMEM || errno == EINVAL);
	}
	{
		/* the valid extremes of each option work */
		RINGBUF_OPTS(o, .size = TU_PAGES(2), .subbuf_order = 7,
			     .nr_cpus = 1, .model = RINGBUF_PER_THREAD,
			     .clock = RINGBUF_CLOCK_TSC);
		struct ringbuf *rb = ringbuf_create(&o);

		ASSERT_NOT_NULL(rb);
		ASSERT_EQ(ringbuf_clock(rb), RINGBUF_CLOCK_TSC);
		tu_write_ok(rb, 1, 100);
		ASSERT_EQ(ringbuf_entries(rb), 1);
		tu_check_rb(rb);
		ringbuf_free(rb);
	}
	for (int clk = RINGBUF_CLOCK_MONO; clk <= RINGBUF_CLOCK_TSC; clk++) {
		RINGBUF_OPTS(o, .size = TU_PAGES(2), .nr_cpus = 1, .clock = clk);
		struct ringbuf *rb = ringbuf_create(&o);
		uint64_t t0, t1, ts;

		ASSERT_NOT_NULL(rb);
		ASSERT_EQ(ringbuf_clock(rb), clk);
		ringbuf_test_set_cpu(0);
		t0 = ringbuf_time_stamp(rb);
		tu_write_ok(rb, 1, 16);
		t1 = ringbuf_time_stamp(rb);
		ASSERT_NOT_NULL(ringbuf_consume(rb, 0, &ts, NULL));
		ASSERT_LE_U(t0, ts);
		ASSERT_LE_U(ts, t1);
		ringbuf_free(rb);
	}
	ringbuf_free(NULL); /* ignored */
}

static void create_null_opts(void)
{
	struct ringbuf *rb = ringbuf_create(NULL);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	ASSERT_NOT_NULL(rb);
	/* the defaults of ringbuf_alloc(1 MiB, 0): a buffer per CPU plus
	 * three spares per CPU buffer */
	ASSERT_EQ(ringbuf_nr_cpus(rb), 4 * ncpu);
	ASSERT_EQ(ringbuf_subbuf_size(rb), 4096);
	ASSERT_EQ(ringbuf_clock(rb), RINGBUF_CLOCK_MONO);
	ASSERT_GE_U(ringbuf_size(rb, 0), 1u << 20);
	ASSERT_LE_U(ringbuf_size(rb, 0), (1u << 20) + 2 * 4096);
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	ASSERT_FALSE(ringbuf_time_stamp_abs(rb));
	ASSERT_TRUE(ringbuf_empty(rb));
	tu_write_ok(rb, 1, 16);
	ASSERT_EQ(ringbuf_entries(rb), 1);
	ringbuf_free(rb);

	/* no spares asked: one per CPU */
	{
		RINGBUF_OPTS(o1, .size = TU_PAGES(2),
			     .spare_buffers = RINGBUF_NO_SPARES);
		struct ringbuf *r1 = ringbuf_create(&o1);

		ASSERT_NOT_NULL(r1);
		ASSERT_EQ(ringbuf_nr_cpus(r1), ncpu);
		ringbuf_free(r1);
	}
	/* per-thread default: four slots per CPU (no spares) */
	RINGBUF_OPTS(o, .size = TU_PAGES(2), .model = RINGBUF_PER_THREAD);
	rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringbuf_nr_cpus(rb), 4 * ncpu);
	ringbuf_free(rb);
}

static void alloc_sizes(void)
{
	struct ringbuf *rb;
	struct ringbuf_test_state st;

	/* size 0 is either refused or gives the two-page minimum */
	errno = 0;
	rb = ringbuf_alloc(0, 0);
	if (!rb) {
		ASSERT_EQ(errno, EINVAL);
	} else {
		ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
		ASSERT_EQ(st.nr_pages, 2);
		tu_check_rb(rb);
		ringbuf_free(rb);
	}
	rb = ringbuf_alloc(1, RINGBUF_FL_OVERWRITE);
	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.nr_pages, 2);
	ringbuf_free(rb);
	/* rounding up to whole sub-buffers */
	rb = ringbuf_alloc(TU_PAGES(5) + 1, 0);
	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.nr_pages, 6);
	ringbuf_free(rb);
	rb = ringbuf_alloc(TU_PAGES(5), 0);
	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.nr_pages, 5);
	/* resizing to nonsense is refused, the buffer stays as it was */
	ASSERT_ERR(ringbuf_resize(rb, SIZE_MAX, 0), ENOMEM);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	ASSERT_EQ(st.nr_pages, 5);
	tu_check_rb(rb);
	ringbuf_free(rb);
}

static void bad_cpu(void)
{
	struct ringbuf *rb = known();
	static const int bad[] = { -1, -2, 2, 999, 1 << 30 };
	struct ringbuf_test_state st;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int cpu = bad[i];

		ASSERT_EQ(ringbuf_size(rb, cpu), 0);
		ASSERT_NULL(ringbuf_peek(rb, cpu, NULL, NULL));
		ASSERT_NULL(ringbuf_consume(rb, cpu, NULL, NULL));
		ASSERT_NULL_ERRNO(ringbuf_read_start(rb, cpu), EINVAL);
		errno = 0;
		ASSERT_NULL(ringbuf_alloc_read_page(rb, cpu));
		ASSERT_NE(errno, 0);
		ringbuf_free_read_page(rb, cpu, NULL);
		{
			void *page = ringbuf_alloc_read_page(rb, 0);

			ASSERT_NOT_NULL(page);
			ASSERT_ERR(ringbuf_read_page(rb, page,
						     ringbuf_subbuf_size(rb),
						     cpu, 0),
				   EINVAL);
			ringbuf_free_read_page(rb, 0, page);
		}
		ringbuf_reset_cpu(rb, cpu);
		ASSERT_TRUE(ringbuf_empty_cpu(rb, cpu));
		ringbuf_record_disable_cpu(rb, cpu);
		ringbuf_record_enable_cpu(rb, cpu);
		ASSERT_EQ(ringbuf_entries_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_overrun_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_commit_overrun_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_dropped_events_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_read_events_cpu(rb, cpu), 0);
		ASSERT_EQ(ringbuf_bytes_cpu(rb, cpu), 0);
		ASSERT_EQ_U(ringbuf_oldest_event_ts(rb, cpu), 0);
		ASSERT_EQ(ringbuf_test_state(rb, cpu, &st), -EINVAL);
		ASSERT_NE(ringbuf_test_check_pages(rb, cpu), 0);
		if (cpu != RINGBUF_ALL_CPUS)
			ASSERT_ERR(ringbuf_resize(rb, TU_PAGES(8), cpu), EINVAL);
		{
			struct ringbuf *b = tu_create(4, 0, 2, RINGBUF_PER_CPU);

			ASSERT_ERR(ringbuf_swap_cpu(rb, b, cpu), EINVAL);
			ringbuf_free(b);
		}
	}
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	ASSERT_EQ(ringbuf_entries(rb), 40);
	check_known(rb);
}

static void bad_length(void)
{
	struct ringbuf *rb = known();
	size_t max = ringbuf_max_event_size(rb);
	unsigned long dropped = tu_sum(rb, ringbuf_dropped_events_cpu);
	char buf[16] = { 0 };

	ASSERT_RESERVE_NULL(ringbuf_lock_reserve(rb, max + 1));
	ASSERT_RESERVE_NULL(ringbuf_lock_reserve(rb, max + 4));
	ASSERT_RESERVE_NULL(ringbuf_lock_reserve(rb, (unsigned long)-1));
	ASSERT_WERR(tu_write(rb, 1, max + 1), EINVAL);
	ASSERT_WERR(ringbuf_write(rb, (unsigned long)-1, buf), EINVAL);
	ASSERT_WERR(ringbuf_write(rb, 8, NULL), EINVAL);
	/* a refused length is not a drop, and nothing was reserved */
	ASSERT_EQ(tu_sum(rb, ringbuf_dropped_events_cpu), dropped);
	ASSERT_WERR(ringbuf_unlock_commit(rb), EINVAL);
	/* length 0 is allowed */
	ASSERT_EQ(ringbuf_write(rb, 0, NULL), 0);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 21);
	ASSERT_NOT_NULL(ringbuf_lock_reserve(rb, 0));
	ASSERT_EQ(ringbuf_unlock_commit(rb), 0);
	ASSERT_EQ(ringbuf_entries_cpu(rb, 0), 22);
	ringbuf_reset_cpu(rb, 0);
	ringbuf_test_set_cpu(0);
	for (unsigned int i = 0; i < 20; i++)
		tu_write_ok(rb, i, 24);
	check_known(rb);
}

static void commit_without_reserve(void)
{
	struct ringbuf *rb = known();
	struct ringbuf *other = tu_create(2, 0, 2, RINGBUF_PER_CPU);

	ASSERT_WERR(ringbuf_unlock_commit(rb), EINVAL);
	ASSERT_WERR(ringbuf_unlock_commit(rb), EINVAL);
	/* a reservation on another buffer does not count */
	ASSERT_NOT_NULL(tu_reserve_ok(other, 5, 16));
	ASSERT_WERR(ringbuf_unlock_commit(rb), EINVAL);
	ASSERT_EQ(ringbuf_unlock_commit(other), 0);
	ASSERT_WERR(ringbuf_unlock_commit(other), EINVAL);
	ASSERT_EQ(ringbuf_entries(other), 1);
	/* a commit from another thread than the reserving one */
	tu_check_rb(other);
	ringbuf_free(other);
	check_known(rb);
}

static void read_page_bad_args(void)
{
	struct ringbuf *rb = known();
	size_t psz = ringbuf_subbuf_size(rb);
	void *page = ringbuf_alloc_read_page(rb, 0);

	ASSERT_NOT_NULL(page);
	ASSERT_ERR(ringbuf_read_page(rb, NULL, psz, 0, 0), EINVAL);
	/* no room for even the page header */
	ASSERT_LT(ringbuf_read_page(rb, page, 0, 0, 0), 0);
	ASSERT_LT(ringbuf_read_page(rb, page, 16, 0, 0), 0);
	ASSERT_EQ(ringbuf_read_events_cpu(rb, 0), 0);
	/* an empty cpu gives ENODATA */
	ringbuf_reset_cpu(rb, 1);
	ASSERT_ERR(ringbuf_read_page(rb, page, psz, 1, 0), ENODATA);
	ASSERT_ERR(ringbuf_read_page(rb, page, psz, 1, 1), ENODATA);
	ringbuf_test_set_cpu(1);
	for (unsigned int i = 0; i < 20; i++)
		tu_write_ok(rb, 100 + i, 24);
	ringbuf_free_read_page(rb, 0, page);
	ringbuf_free_read_page(rb, 0, NULL);
	check_known(rb);
}

/* NULL and negative arguments that crashed or blocked for ever */
static void null_and_negative(void)
{
	struct ringbuf *rb = ringbuf_alloc(TU_PAGES(4), 0);

	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringbuf_time_stamp(NULL), 0);
	/* a timeout below -1 (which means none) is refused, not a wait
	 * for ever on an empty buffer */
	ASSERT_EQ(ringbuf_wait(rb, 0, 0, -5), -EINVAL);
	ASSERT_EQ(ringbuf_wait(rb, 0, -5, 10), -EINVAL);
	ringbuf_free(rb);
}

/* an enable without a disable does not switch recording off */
static void extra_record_enable(void)
{
	struct ringbuf *rb = ringbuf_alloc(TU_PAGES(4), 0);

	ASSERT_NOT_NULL(rb);
	ringbuf_record_enable(rb);
	ringbuf_record_enable(rb);
	ASSERT_EQ(ringbuf_write(rb, 4, "abcd"), 0);
	ringbuf_record_disable(rb);
	ASSERT_EQ(ringbuf_write(rb, 4, "abcd"), -EAGAIN);
	ringbuf_record_enable(rb);
	ASSERT_EQ(ringbuf_write(rb, 4, "abcd"), 0);
	/* off stays off under extra enables */
	ringbuf_record_off(rb);
	ringbuf_record_enable(rb);
	ASSERT_NE(ringbuf_write(rb, 4, "abcd"), 0);
	ringbuf_record_on(rb);
	ASSERT_EQ(ringbuf_write(rb, 4, "abcd"), 0);
	ringbuf_free(rb);
}

static char printed[512];
static int print_levels;

static int catch_print(enum ringbuf_print_level level, const char *fmt,
		       va_list ap)
{
	print_levels |= 1 << level;
	return vsnprintf(printed, sizeof(printed), fmt, ap);
}

/* attach: an empty file and a directory say what they are; the
 * messages go to the callback */
static void attach_messages(void)
{
	char dir[] = "/tmp/rb-args.XXXXXX", path[64];
	struct ringbuf *rb;
	FILE *f;

	ASSERT_NOT_NULL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/empty", dir);
	f = fopen(path, "w");
	ASSERT_NOT_NULL(f);
	fclose(f);
	ASSERT_NULL(ringbuf_set_print(catch_print));
	errno = 0;
	rb = ringbuf_attach(path, 0);
	ASSERT_NULL(rb);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_NOT_NULL(strstr(printed, "an empty file"));
	ASSERT_EQ(print_levels, 1 << RINGBUF_PRINT_WARN);
	errno = 0;
	printed[0] = '\0';
	ASSERT_NULL(ringbuf_attach(dir, 0));
	ASSERT_EQ(errno, EISDIR);
	ASSERT_NOT_NULL(strstr(printed, "Is a directory"));
	ASSERT_TRUE(ringbuf_set_print(NULL) == catch_print);
	unlink(path);
	rmdir(dir);
}

static const struct rbt_case cases[] = {
	RBT_CASE(null_and_negative), RBT_CASE(extra_record_enable),
	RBT_CASE(attach_messages),
	RBT_CASE(create_bad_opts),	  RBT_CASE(create_null_opts),
	RBT_CASE(alloc_sizes),		  RBT_CASE(bad_cpu),
	RBT_CASE(bad_length),		  RBT_CASE(commit_without_reserve),
	RBT_CASE(read_page_bad_args),
};
RBT_MAIN(cases)
