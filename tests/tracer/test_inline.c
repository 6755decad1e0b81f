// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The write of a fixed-size record compiled into the program (the
 * default; RINGTRACE_NO_INLINE_WRITE leaves it to the library, inl_out
 * of inline_off.c): records read back raw and checked field by
 * field, padding included, in the fast case (one instance, nothing armed)
 * in the cases the library assigns in place from inside the inline
 * write's section (ringtrace_write_armed(): a filter, a trigger, a pid
 * list), and in every case that must go to ringtrace_write_record()
 * instead (two instances, a nested write, ringtrace_irq_enter(), the
 * thread's first write), and the write of an event armed by plain hist
 * triggers alone (in place, counted by ringtrace_write_hist()). This
 * program defines ringtrace_write_record(), ringtrace_write_armed() and
 * ringtrace_write_hist() itself, counting the calls and passing them on
 * to the library's: the counts say which path a write took.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* liburcu's read side inline too (an LGPL program, as liburcu asks) */
#define _LGPL_SOURCE
#define CREATE_TRACE_POINTS
#include "inline_events.h"

#include <ringbuf/ringbuf.h>
#include <ringtrace/inline_write.h>
#include <ringtrace/tracer.h>

#include "test.h"

static char err[1024];

/* ---- the slow path's calls ---------------------------------------------- */

static unsigned long slow_calls;

void ringtrace_write_record(struct ringtrace_event *ev, void *rec, size_t size)
{
	static void (*next)(struct ringtrace_event *, void *, size_t);

	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "ringtrace_write_record");
	slow_calls++;
	next(ev, rec, size);
}

static unsigned long armed_calls;

void *ringtrace_write_armed(struct ringtrace_event *ev,
			    struct ringtrace_write *w, size_t size, int i)
{
	static void *(*next)(struct ringtrace_event *, struct ringtrace_write *,
			     size_t, int);

	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "ringtrace_write_armed");
	armed_calls++;
	return next(ev, w, size, i);
}

static unsigned long hist_calls;

void ringtrace_write_hist(const struct ringtrace_event_view *p, int i,
			  const void *rec, size_t size)
{
	static void (*next)(const struct ringtrace_event_view *, int,
			    const void *, size_t);

	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "ringtrace_write_hist");
	hist_calls++;
	next(p, i, rec, size);
}

/* ---- the hook TP_fast_assign() calls ---------------------------------- */

enum { HOOK_NONE, HOOK_SIGNAL, HOOK_DISABLE };
static int hook_mode;
static struct ringtrace_instance *hook_tr;

static void on_signal(int sig)
{
	(void)sig;
	trace_inl_pad(2, 222, 22);
}

long long inline_test_hook(long long v)
{
	int mode = hook_mode;

	hook_mode = HOOK_NONE;
	if (mode == HOOK_SIGNAL)
		raise(SIGUSR1);
	else if (mode == HOOK_DISABLE)
		ASSERT_EQ(ringtrace_event_enable(hook_tr, "inl", "inl_pad",
						 false), 0);
	return v;
}

/* ---- reading the records back ------------------------------------------ */

/* The record of inl_pad as the buffer holds it, every byte. */
struct pad_rec {
	unsigned char b[32];
};

#define MAX_RECS 64
struct recs {
	int n;
	struct pad_rec r[MAX_RECS];
	unsigned int len[MAX_RECS];
};

static void consume_all(struct ringtrace_instance *tr, struct recs *out)
{
	struct ringbuf *rb = ringtrace_buffer(tr);
	int cpu;

	ASSERT_NOT_NULL(rb);
	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < ringbuf_nr_cpus(rb); cpu++) {
		struct ringbuf_event *e;

		while ((e = ringbuf_consume(rb, cpu, NULL, NULL))) {
			unsigned int len = ringbuf_event_length(e);

			ASSERT_LT(out->n, MAX_RECS);
			out->len[out->n] = len;
			memcpy(out->r[out->n].b, ringbuf_event_data(e),
			       len < 32 ? len : 32);
			out->n++;
		}
	}
}

static int le16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static long long le64(const unsigned char *p)
{
	unsigned long long v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return (long long)v;
}

/* Record @i of @rs is event @name(@c, @v, @s) (inl_pad's layout)
 * written with @flags and @preempt by this thread; its padding is zero. */
static void check_rec(const struct recs *rs, int i, const char *name, int c,
		      long long v, int s, int flags, int preempt)
{
	const unsigned char *b = rs->r[i].b;
	static const unsigned char zero[8];
	int j;

	ASSERT_LT(i, rs->n);
	ASSERT_EQ(rs->len[i], 32);
	ASSERT_EQ(le16(b), ringtrace_event_id("inl", name));
	ASSERT_EQ(b[2], flags);
	ASSERT_EQ(b[3], preempt);
	ASSERT_EQ((int)(le64(b + 4) & 0xffffffff), (int)syscall(SYS_gettid));
	ASSERT_EQ((signed char)b[8], c);
	for (j = 9; j < 16; j++)
		ASSERT_EQ(b[j], 0);
	ASSERT_EQ(le64(b + 16), v);
	ASSERT_EQ((short)le16(b + 24), s);
	ASSERT_MEM_EQ(b + 26, zero, 6);
}

static void check_pad(const struct recs *rs, int i, int c, long long v, int s,
		      int flags, int preempt)
{
	check_rec(rs, i, "inl_pad", c, v, s, flags, preempt);
}

/* The buffer of @tr holds one record, inl_pad(@c, @v, @s) of this
 * thread at the outermost level; it is consumed. */
static void only_pad(struct ringtrace_instance *tr, int c, long long v, int s)
{
	struct recs rs;

	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 1);
	check_pad(&rs, 0, c, v, s, 0, 0);
}

/*
 * An instance whose buffer is dirty: a page that held records of every
 * byte set, emptied. The records written next land where those were, so
 * padding that is not written as zero shows.
 */
static struct ringtrace_instance *dirty(struct ringtrace_instance *tr)
{
	struct recs rs;
	int i;

	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_ones", true), 0);
	for (i = 0; i < 16; i++)
		trace_inl_ones(-1);
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_ones", false), 0);
	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 16);
	ringtrace_clear(tr);
	return tr;
}

static struct ringtrace_instance *setup(void)
{
	struct ringtrace_instance *tr;

	tr = ringtrace_top();
	ASSERT_NOT_NULL(tr);
	ringtrace_clear(tr);
	/* the thread's first write saves its name and registers its RCU
	 * reader: not the fast case */
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_ones", true), 0);
	trace_inl_ones(0);
	ASSERT_EQ(slow_calls, 1);
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_ones", false), 0);
	ringtrace_clear(tr);
	return dirty(tr);
}

/* ---- the cases ----------------------------------------------------------- */

/* One instance, nothing armed: every write inline. */
static void fast_one_instance(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long calls = slow_calls;
	struct recs rs;
	int i;

	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	for (i = 0; i < 8; i++)
		trace_inl_pad((char)(i - 4), 0x0102030405060708LL * i,
			      (short)(-1000 * i));
	ASSERT_EQ(slow_calls, calls);
	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 8);
	for (i = 0; i < 8; i++)
		check_pad(&rs, i, i - 4, 0x0102030405060708LL * i, -1000 * i,
			  0, 0);
}

/* liburcu-bp's: its readers fence when 0 (declared by <urcu-bp.h> where
 * the write inlines liburcu's read side) */
extern int urcu_bp_has_sys_membarrier;

/* Readers that fence themselves (a kernel without membarrier()): the
 * same records, still inline. */
static void fast_reader_fence(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long calls = slow_calls;
	struct recs rs;

	/* liburcu's readers fence themselves (no membarrier()) */
	urcu_bp_has_sys_membarrier = 0;
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	trace_inl_pad(5, -5, 55);
	ASSERT_EQ(slow_calls, calls);
	only_pad(tr, 5, -5, 55);
	/* a grace period with fencing readers */
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", false), 0);
	trace_inl_pad(6, 6, 6);
	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 0);
}

/* Two instances: the library's loop, the same records in both. */
static void slow_two_instances(void)
{
	struct ringtrace_instance *tr = setup(), *b;
	unsigned long calls = slow_calls;
	struct recs rs;

	b = ringtrace_instance_create("inl-b");
	ASSERT_NOT_NULL(b);
	dirty(b);
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	ASSERT_EQ(ringtrace_event_enable(b, "inl", "inl_pad", true), 0);
	trace_inl_pad(1, 11, 111);
	trace_inl_pad(-2, -22, -222);
	ASSERT_EQ(slow_calls, calls + 2);
	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 2);
	check_pad(&rs, 0, 1, 11, 111, 0, 0);
	check_pad(&rs, 1, -2, -22, -222, 0, 0);
	consume_all(b, &rs);
	ASSERT_EQ(rs.n, 2);
	check_pad(&rs, 0, 1, 11, 111, 0, 0);
	check_pad(&rs, 1, -2, -22, -222, 0, 0);
	/* one instance again: inline again */
	ASSERT_EQ(ringtrace_instance_destroy(b), 0);
	trace_inl_pad(3, 33, 333);
	ASSERT_EQ(slow_calls, calls + 2);
	only_pad(tr, 3, 33, 333);
}

/* inl_pad filtered by "v > 5" in @tr: a record kept and one dropped,
 * both assigned by the library (ringtrace_write_armed()), then without
 * the filter inline again; @calls and @armed: the counts before. */
static void filtered_then_cleared(struct ringtrace_instance *tr,
				  unsigned long calls, unsigned long armed)
{
	trace_inl_pad(1, 3, 1);
	trace_inl_pad(2, 7, 2);
	ASSERT_EQ(armed_calls, armed + 2);
	ASSERT_EQ(slow_calls, calls);
	only_pad(tr, 2, 7, 2);
	ASSERT_EQ(ringtrace_set_filter(tr, "inl", "inl_pad", "0", err,
				       sizeof(err)), 0);
	trace_inl_pad(3, 3, 3);
	ASSERT_EQ(armed_calls, armed + 2);
	ASSERT_EQ(slow_calls, calls);
	only_pad(tr, 3, 3, 3);
}

/* A filter: the library tests it on the record assigned where it puts
 * it; without it, inline again. */
static void slow_filter(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long calls = slow_calls, armed = armed_calls;

	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "inl", "inl_pad", "v > 5", err,
				       sizeof(err)), 0);
	filtered_then_cleared(tr, calls, armed);
}

/*
 * A filter outlives the other reasons for the slow path: a pid list and
 * a trigger come and go while it is set, and its records are still
 * filtered (the event's slow bit stays set for it); then inline again.
 */
static void filter_outlives_reasons(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long calls = slow_calls, armed = armed_calls;
	char pid[32];

	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "inl", "inl_pad", "v > 5", err,
				       sizeof(err)), 0);
	snprintf(pid, sizeof(pid), "%d", (int)syscall(SYS_gettid));
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, pid, false, err,
				     sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, "", false, err,
				     sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_pad", "traceon", err,
					sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_pad", "!traceon", err,
					sizeof(err)), 0);
	filtered_then_cleared(tr, calls, armed);
}

/*
 * A filter set and cleared again and again while another thread writes:
 * every record it lets through is read back whole, every one the filter
 * never drops (v 7) is there, the others (v 3) at most once each.
 */
#define FW_RECS 8000
static atomic_int fw_done;

static void *fw_writer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < FW_RECS; i++)
		trace_inl_pad((char)(i & 0x7f), i & 1 ? 7 : 3,
			      (short)(i & 0x7fff));
	/* Release: the main thread reads the buffer after it sees this */
	atomic_store_explicit(&fw_done, 1, memory_order_release);
	return NULL;
}

static void filter_while_written(void)
{
	struct ringtrace_instance *tr = setup();
	struct ringbuf *rb = ringtrace_buffer(tr);
	static unsigned char seen[FW_RECS];
	int id = ringtrace_event_id("inl", "inl_pad");
	int kept = 0, dropped_ok = 0, i, cpu;
	pthread_t th;

	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	atomic_store_explicit(&fw_done, 0, memory_order_relaxed);
	ASSERT_EQ(pthread_create(&th, NULL, fw_writer, NULL), 0);
	/* (bounded: the writer ends after FW_RECS records) */
	for (i = 0; !atomic_load_explicit(&fw_done, memory_order_acquire);
	     i++)
		ASSERT_EQ(ringtrace_set_filter(tr, "inl", "inl_pad",
					       i & 1 ? "0" : "v > 5", err,
					       sizeof(err)), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "inl", "inl_pad", "0", err,
				       sizeof(err)), 0);
	for (cpu = 0; cpu < ringbuf_nr_cpus(rb); cpu++) {
		struct ringbuf_event *e;
		unsigned long lost = 0;

		while ((e = ringbuf_consume(rb, cpu, NULL, &lost))) {
			const unsigned char *b = ringbuf_event_data(e);
			int s, c;
			long long v;

			ASSERT_EQ(lost, 0);
			ASSERT_EQ(le16(b), id);
			c = (signed char)b[8];
			v = le64(b + 16);
			s = (short)(b[24] | b[25] << 8);
			ASSERT_TRUE(s >= 0 && s < FW_RECS);
			ASSERT_EQ(c, s & 0x7f);
			ASSERT_EQ(v, s & 1 ? 7 : 3);
			ASSERT_EQ(seen[s], 0);
			seen[s] = 1;
			if (v == 7)
				kept++;
			else
				dropped_ok++;
		}
	}
	/* every v 7 record written is read; the v 3 ones, filtered or not
	 * by when they came, at most once each (seen[] above) */
	ASSERT_EQ(kept, FW_RECS / 2);
	ASSERT_TRUE(dropped_ok <= FW_RECS / 2);
}

/* A trigger: inl_pad soft-disabled until an inl_ones turns it on. */
static void slow_trigger(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long calls = slow_calls, armed = armed_calls;
	struct recs rs;

	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_ones", true), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_ones",
					"enable_event:inl:inl_pad", err,
					sizeof(err)), 0);
	trace_inl_pad(1, 1, 1); /* soft-disabled: no record */
	trace_inl_ones(5);
	trace_inl_pad(2, 2, 2);
	/* both events armed or in soft mode: never the inline reserve */
	ASSERT_EQ(armed_calls, armed + 3);
	ASSERT_EQ(slow_calls, calls);
	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 2);
	ASSERT_EQ(le16(rs.r[0].b), ringtrace_event_id("inl", "inl_ones"));
	ASSERT_EQ(le64(rs.r[0].b + 8), 5);
	check_pad(&rs, 1, 2, 2, 2, 0, 0);
}

/* A pid list: the thread's records kept, then left out. */
static void slow_pid_list(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long calls = slow_calls, armed = armed_calls;
	char pid[32];

	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	snprintf(pid, sizeof(pid), "%d", (int)syscall(SYS_gettid));
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, pid, false, err,
				     sizeof(err)), 0);
	trace_inl_pad(4, 4, 4);
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, "1", false, err,
				     sizeof(err)), 0);
	trace_inl_pad(5, 5, 5);
	ASSERT_EQ(armed_calls, armed + 2);
	ASSERT_EQ(slow_calls, calls);
	only_pad(tr, 4, 4, 4);
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, "", false, err,
				     sizeof(err)), 0);
	trace_inl_pad(6, 6, 6);
	ASSERT_EQ(armed_calls, armed + 2);
	ASSERT_EQ(slow_calls, calls);
	only_pad(tr, 6, 6, 6);
}

/*
 * A signal handler writes while an inline write assigns its record: the
 * handler's write is nested (the library's path, marked 'h' with depth
 * 1) and both records are whole. Then ringtrace_irq_enter(): the
 * library's path too.
 */
static void nested_signal(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long calls = slow_calls;
	struct sigaction sa;
	struct recs rs;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	hook_mode = HOOK_SIGNAL;
	trace_inl_pad(1, 111, 11);
	ASSERT_EQ(slow_calls, calls + 1); /* the handler's */
	ringtrace_irq_enter();
	trace_inl_pad(3, 333, 33);
	ringtrace_irq_exit();
	ASSERT_EQ(slow_calls, calls + 2);
	trace_inl_pad(4, 444, 44);
	ASSERT_EQ(slow_calls, calls + 2);
	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 4);
	/* the handler's record was reserved after the outer one */
	check_pad(&rs, 0, 1, 111, 11, 0, 0);
	check_pad(&rs, 1, 2, 222, 22, 0x08, 1);
	check_pad(&rs, 2, 3, 333, 33, 0x08, 0);
	check_pad(&rs, 3, 4, 444, 44, 0, 0);
}

/* tracing_on 0: the inline reserve fails, nothing is written. */
static void tracing_off(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long calls = slow_calls;

	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	ringtrace_tracing_on(tr, false);
	trace_inl_pad(1, 1, 1);
	ringtrace_tracing_on(tr, true);
	trace_inl_pad(2, 2, 2);
	ASSERT_EQ(slow_calls, calls);
	only_pad(tr, 2, 2, 2);
}

/*
 * The event disabled while a write assigns its record (from the write's
 * own assignment, which the disable's grace period does not wait for):
 * the record is written whole, the next writes are not.
 */
static void disabled_while_written(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long calls = slow_calls;

	hook_tr = tr;
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	hook_mode = HOOK_DISABLE;
	trace_inl_pad(7, 77, 777);
	trace_inl_pad(8, 88, 888);
	/* the write function itself, called with the event off */
	__ringtrace_do_inl_pad(9, 99, 999);
	ASSERT_EQ(slow_calls, calls + 1);
	only_pad(tr, 7, 77, 777);
}

/* The only record of @tr is inl_dyn4(@v). */
static void only_dyn4(struct ringtrace_instance *tr, int v)
{
	struct recs rs;
	int i, a;

	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 1);
	/* header, v, the array's data_loc (offset 16, 16 bytes), the array */
	ASSERT_EQ(rs.len[0], 32);
	ASSERT_EQ(le16(rs.r[0].b), ringtrace_event_id("inl", "inl_dyn4"));
	memcpy(&a, rs.r[0].b + 8, 4);
	ASSERT_EQ(a, v);
	memcpy(&a, rs.r[0].b + 12, 4);
	ASSERT_EQ(a, 16 | 16 << 16);
	for (i = 0; i < 4; i++) {
		memcpy(&a, rs.r[0].b + 16 + 4 * i, 4);
		ASSERT_EQ(a, v + 1 + i);
	}
}

/*
 * A dynamic array of constant length: the record is bigger than its
 * struct, so it is assigned in each instance's buffer (in place), never
 * on the stack, where its array would not fit.
 */
static void dyn_const_len(void)
{
	struct ringtrace_instance *tr = setup(), *b;
	unsigned long calls = slow_calls;

	b = ringtrace_instance_create("inl-b");
	ASSERT_NOT_NULL(b);
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_dyn4", true), 0);
	ASSERT_EQ(ringtrace_event_enable(b, "inl", "inl_dyn4", true), 0);
	trace_inl_dyn4(40);
	ASSERT_EQ(slow_calls, calls);
	only_dyn4(tr, 40);
	only_dyn4(b, 40);
	ASSERT_EQ(ringtrace_instance_destroy(b), 0);
	trace_inl_dyn4(50);
	ASSERT_EQ(slow_calls, calls);
	only_dyn4(tr, 50);
}

/* The "Hits:" of inl_pad's hist file in @tr */
static unsigned long hist_hits(struct ringtrace_instance *tr)
{
	char buf[4096];
	const char *h;

	ringtrace_show_hist(tr, "inl", "inl_pad", buf, sizeof(buf));
	h = strstr(buf, "Hits: ");
	ASSERT_NOT_NULL(h);
	return strtoul(h + 6, NULL, 10);
}

/* Writes of inl_pad in @tr: @n of them, each counted by the hist
 * trigger, @inl of them through ringtrace_write_hist() (inline), the
 * others through ringtrace_write_armed() */
static void hist_writes(struct ringtrace_instance *tr, int n, int inl)
{
	unsigned long calls = slow_calls, armed = armed_calls,
		      hist = hist_calls, hits = hist_hits(tr);
	int i;

	for (i = 0; i < n; i++)
		trace_inl_pad((char)(i + 1), 10 * i, (short)i);
	ASSERT_EQ(hist_calls, hist + (unsigned long)inl);
	ASSERT_EQ(armed_calls, armed + (unsigned long)(n - inl));
	ASSERT_EQ(slow_calls, calls);
	ASSERT_EQ(hist_hits(tr), hits + (unsigned long)n);
}

/*
 * A plain hist trigger alone (the event's hist_mask bit): written inline,
 * counted by ringtrace_write_hist() before the commit, the record whole.
 * Anything else armed beside it, a filter, the event soft-disabled, an
 * enable_event aimed at it, a filter on the trigger: the armed path,
 * counted all the same; the buffer refusing the record (tracing off):
 * counted through the armed path.
 */
static void hist_inline(void)
{
	struct ringtrace_instance *tr = setup();
	struct recs rs;
	int i;

	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_pad",
					"hist:keys=c:vals=v", err,
					sizeof(err)), 0);
	hist_writes(tr, 4, 4);
	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 4);
	for (i = 0; i < 4; i++)
		check_pad(&rs, i, i + 1, 10 * i, i, 0, 0);
	/* a filter on the event */
	ASSERT_EQ(ringtrace_set_filter(tr, "inl", "inl_pad", "s > 0", err,
				       sizeof(err)), 0);
	hist_writes(tr, 2, 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "inl", "inl_pad", "0", err,
				       sizeof(err)), 0);
	hist_writes(tr, 2, 2);
	/* tracing off: no record, counted */
	ringtrace_tracing_on(tr, false);
	hist_writes(tr, 2, 0);
	ringtrace_tracing_on(tr, true);
	ringtrace_clear(tr);
	/* soft-disabled: counted, no record */
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", false), 0);
	hist_writes(tr, 3, 0);
	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 0);
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	hist_writes(tr, 1, 1);
	/* the target of an enable_event: its soft switch is not the hist
	 * path's to miss */
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_ones",
					"enable_event:inl:inl_pad", err,
					sizeof(err)), 0);
	ringtrace_clear(tr);
	hist_writes(tr, 1, 0);
	/* (the armed write's short path: kept and counted) */
	only_pad(tr, 1, 0, 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_ones",
					"!enable_event:inl:inl_pad", err,
					sizeof(err)), 0);
	hist_writes(tr, 1, 1);
	/* a second table, with a filter: not plain alone */
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_pad",
					"hist:keys=s if c > 100", err,
					sizeof(err)), 0);
	hist_writes(tr, 1, 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_pad",
					"!hist:keys=s if c > 100", err,
					sizeof(err)), 0);
	/* two plain tables: both counted inline */
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_pad",
					"hist:keys=s:vals=c", err,
					sizeof(err)), 0);
	hist_writes(tr, 2, 2);
	ringtrace_clear(tr);
	trace_inl_pad(5, 55, 555);
	only_pad(tr, 5, 55, 555);
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_pad",
					"!hist:keys=s:vals=c", err,
					sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "inl", "inl_pad",
					"!hist:keys=c:vals=v", err,
					sizeof(err)), 0);
	/* nothing armed: the common inline write */
	{
		unsigned long armed = armed_calls, hist = hist_calls;

		trace_inl_pad(6, 66, 666);
		ASSERT_EQ(armed_calls, armed);
		ASSERT_EQ(hist_calls, hist);
	}
}

void inline_off_write(char c, long long v, short s);

/* RINGTRACE_NO_INLINE_WRITE (inline_off.c): the fast case too goes to
 * ringtrace_write_record(), with the same record. */
static void opt_out(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long calls = slow_calls;
	struct recs rs;
	int i;

	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_out", true), 0);
	for (i = 0; i < 3; i++)
		inline_off_write((char)(i + 1), -7LL * i, (short)(300 + i));
	ASSERT_EQ(slow_calls, calls + 3);
	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 3);
	for (i = 0; i < 3; i++)
		check_rec(&rs, i, "inl_out", i + 1, -7LL * i, 300 + i, 0, 0);
	/* a filter: tested by ringtrace_write_record() (the path of a
	 * program built before ringtrace_write_armed()) */
	ASSERT_EQ(ringtrace_set_filter(tr, "inl", "inl_out", "s > 301", err,
				       sizeof(err)), 0);
	for (i = 0; i < 3; i++)
		inline_off_write((char)(i + 1), -7LL * i, (short)(300 + i));
	ASSERT_EQ(slow_calls, calls + 6);
	consume_all(tr, &rs);
	ASSERT_EQ(rs.n, 1);
	check_rec(&rs, 0, "inl_out", 3, -14, 302, 0, 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "inl", "inl_out", "0", err,
				       sizeof(err)), 0);
	/* and inl_pad, beside it, is still written inline */
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_out", false), 0);
	ASSERT_EQ(ringtrace_event_enable(tr, "inl", "inl_pad", true), 0);
	trace_inl_pad(9, 99, 999);
	ASSERT_EQ(slow_calls, calls + 6);
	only_pad(tr, 9, 99, 999);
}

static const struct rbt_case cases[] = {
	RBT_CASE(fast_one_instance), RBT_CASE(fast_reader_fence),
	RBT_CASE(slow_two_instances),
	RBT_CASE(slow_filter),	     RBT_CASE(filter_outlives_reasons),
	RBT_CASE(filter_while_written), RBT_CASE(slow_trigger),
	RBT_CASE(slow_pid_list),     RBT_CASE(nested_signal),
	RBT_CASE(tracing_off),	     RBT_CASE(disabled_while_written),
	RBT_CASE(dyn_const_len),     RBT_CASE(opt_out),
	RBT_CASE(hist_inline),
};
RBT_MAIN(cases)
