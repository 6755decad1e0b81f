// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trace.c - the write path of events, markers and function records,
 *	triggers' actions in it, and the thread's cmdline
 *
 * The kernel's kernel/trace/trace.c, in the parts that carry over (the
 * instances' control half is in instance.c, the usersoff latency tracer
 * in latency.c). An
 * instance owns one ring buffer (libringbuf, per-CPU writer model) and
 * optionally a snapshot buffer of the same geometry. Instances live in
 * rt_instances[], published with release stores and retired through an
 * RCU grace period, so writers never take a lock:
 *
 *	writer (any thread, signal handler)     control (one thread at a time)
 *	  rcu_read_lock                           clear the enable bits
 *	  mask = event->enabled                   rt_instances[i] = NULL
 *	  tr = rt_instances[i] (acquire)          synchronize_rcu
 *	  reserve, assign, filter, commit         ringbuf_free
 *	  rcu_read_unlock
 */
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/frontend.h>

#include "filter.h"
#include "fnwrite.h"
#include "ctl.h"
#include "ftrace.h"
#include "hist.h"
#include "rcu.h"
#include "symbols.h"
#include "trace.h"

#include <ringtrace/inline_write.h>

struct ringtrace_instance *_Atomic rt_instances[RT_MAX_INSTANCES];
struct ringbuf *_Atomic rt_inst_rbs[RT_MAX_INSTANCES];
pthread_mutex_t rt_control_lock = PTHREAD_MUTEX_INITIALIZER;

/* Instances whose current tracer is function / function_graph / usersoff */
_Atomic uint64_t rt_fn_mask, rt_graph_mask, rt_lat_mask;
_Atomic uint64_t rt_graph_args_mask, rt_graph_retval_mask;
_Atomic uint64_t rt_fn_args_mask;
/* Instances with a set_ftrace_pid or set_ftrace_notrace_pid list */
_Atomic uint64_t rt_ftrace_pid_mask;
/* The function tracer's refuse word (ftrace.h); NULL, refusing, until
 * the tracer is set */
struct ringbuf *_Atomic rt_fn_fast_rb;
_Atomic unsigned int rt_ftrace_enabled;

/* ------------------------------------------------------------------------ */
/* The writing thread                                                       */

/* Userspace: the kernel keeps this state in the task and per CPU; here
 * it is initial-exec TLS, so that reaching it from a signal handler
 * never allocates. A new thread's id is not known yet (slow). */
__thread struct rt_thread rt_cur
	__attribute__((tls_model("initial-exec"))) = { .slow = 1 };

/*
 * The views of <ringtrace/inline_write.h>, through which the write of a
 * program with its trace point writes compiled in reads the state above, the
 * RCU reader's word and the event's registry state: they must agree
 * field by field. A change of them, or of the calls the inline write
 * makes, adds a ringtrace_inline_layout_N (the older ones stay).
 */
RINGTRACE_API const int ringtrace_inline_layout_2 = 1;
/* Layout 3: the same views; the inline write also calls
 * ringtrace_write_armed() inside its section. Programs built against
 * layout 2 leave the section and call ringtrace_write_record(), which
 * stays. */
RINGTRACE_API const int ringtrace_inline_layout_3 = 1;
/* Layout 4: the thread view's fifth field, rt_thread.slow, tested with
 * the depth instead of irq, comm_saved and pid one by one; the calls are
 * those of layout 3. Programs built against layouts 2 and 3 read the
 * first four fields, which keep their places and their meaning (slow
 * is kept for any thread, so a mix of all three stays right). */
RINGTRACE_API const int ringtrace_inline_layout_4 = 1;
/* Layout 5: the event's slow_mask bit is set for a filter too
 * (rt_slow_mask_update(), events.c), and the inline write tests it
 * without loading filter[]; the views and calls are those of layout 4.
 * Programs built against layouts 2 to 4 test both, which stays right. */
RINGTRACE_API const int ringtrace_inline_layout_5 = 1;
/* Layout 6: the event view's hist_mask (rt_slow_mask_update(),
 * events.c); the inline write writes an instance of its bit as in the
 * common case and calls ringtrace_write_hist() before the commit.
 * Programs built against layouts 2 to 5 take such an instance for an
 * armed one (ringtrace_write_armed(), whose short path counts it the
 * same way). */
RINGTRACE_API const int ringtrace_inline_layout_6 = 1;
/* Layout 7: the thread view's slow word is also non-zero while liburcu's
 * grace periods do not use membarrier() (rt_thread_slow_update()), and
 * the inline write's section leaves liburcu's test of that out
 * (<ringtrace/rcu_read.h>); the views and calls are those of layout 6.
 * Programs built against layouts 4 to 6 test the word and then liburcu's
 * flag as before, which stays right (layouts 2 and 3 do not read the
 * word, and test the flag). */
RINGTRACE_API const int ringtrace_inline_layout_7 = 1;
#define RT_SAME(a, fa, b, fb)                                             \
	_Static_assert(offsetof(struct a, fa) == offsetof(struct b, fb) &&  \
			       sizeof(((struct a *)0)->fa) ==               \
				       sizeof(((struct b *)0)->fb),         \
		       #a "." #fa)
RT_SAME(rt_thread, pid, ringtrace_thread_view, pid);
RT_SAME(rt_thread, depth, ringtrace_thread_view, depth);
RT_SAME(rt_thread, irq, ringtrace_thread_view, irq);
RT_SAME(rt_thread, comm_saved, ringtrace_thread_view, comm_saved);
RT_SAME(rt_thread, slow, ringtrace_thread_view, slow);
RT_SAME(rt_event_priv, id, ringtrace_event_view, id);
RT_SAME(rt_event_priv, slow_mask, ringtrace_event_view, slow_mask);
RT_SAME(rt_event_priv, filter, ringtrace_event_view, filter);
RT_SAME(rt_event_priv, hist_mask, ringtrace_event_view, hist_mask);

/*
 * The read side of the tracer's RCU out of line, for the trace point
 * writes compiled into programs without _LGPL_SOURCE or into shared
 * objects (<ringtrace/inline_write.h>): urcu-bp's, with this library's
 * initial-exec TLS.
 */
RINGTRACE_API __attribute__((no_instrument_function)) void
ringtrace_rcu_read_lock(void)
{
	rt_rcu_read_lock();
}

RINGTRACE_API __attribute__((no_instrument_function)) void
ringtrace_rcu_read_unlock(void)
{
	rt_rcu_read_unlock();
}
_Static_assert(sizeof(rt_inst_rbs) == 64 * sizeof(void *), "rt_inst_rbs");

/* ------------------------------------------------------------------------ */
/* saved_cmdlines                                                           */

/*
 * One slot per pid hash (struct rt_ctl_cmdline, ctl.h). A slot is a
 * seqcount: the saving thread moves seq from even to odd with a cmpxchg
 * (so two threads hashing to one slot do not write it together), stores
 * the words, and makes seq even with a release store. The name is kept
 * in relaxed atomic words so that a reader racing with a save reads a
 * mix it then throws away, not a data race.
 *
 * The table lives in the published control file, where tools read it,
 * and in this array until then; rt_publish_init() moves it before any
 * writer can run (writers need an instance, made after it).
 */
static struct rt_ctl_cmdline rt_cmdline_local[RT_CTL_CMDLINES];
struct rt_ctl_cmdline *rt_cmdline_tab = rt_cmdline_local;

/* Save @comm as the name of thread @pid of process @tgid. Return: false
 * when the slot was busy (another thread saving into it). */
static __attribute__((no_instrument_function)) bool
rt_cmdline_store(int pid, int tgid, const char comm[RT_COMM_LEN])
{
	struct rt_ctl_cmdline *c =
		&rt_cmdline_tab[(unsigned int)pid % RT_CTL_CMDLINES];
	unsigned int seq = atomic_load_explicit(&c->seq, memory_order_relaxed);
	uint64_t w[2];

	if (seq & 1)
		return false; /* someone else is saving into the slot */
	/*
	 * acquire: nothing; the cmpxchg only claims the slot. Failure means
	 * another thread claimed it: the caller saves at a later write.
	 */
	if (!atomic_compare_exchange_strong_explicit(&c->seq, &seq, seq + 1,
						     memory_order_relaxed,
						     memory_order_relaxed))
		return false;
	/* Orders the claim (odd seq) before the word stores below; pairs
	 * with the reader's acquire fence before its second seq load. */
	atomic_thread_fence(memory_order_release);
	memcpy(w, comm, sizeof(w));
	atomic_store_explicit(&c->pid, pid, memory_order_relaxed);
	atomic_store_explicit(&c->tgid, tgid, memory_order_relaxed);
	atomic_store_explicit(&c->comm[0], w[0], memory_order_relaxed);
	atomic_store_explicit(&c->comm[1], w[1], memory_order_relaxed);
	/* Publishes the words; pairs with the reader's first acquire load
	 * of seq in rt_cmdline_find(). */
	atomic_store_explicit(&c->seq, seq + 2, memory_order_release);
	return true;
}

__attribute__((no_instrument_function)) void rt_cmdline_save(void)
{
	char comm[RT_COMM_LEN] = { 0 };

	prctl(PR_GET_NAME, comm, 0, 0, 0);
	if (rt_cmdline_store(rt_gettid(), (int)getpid(), comm)) {
		rt_cur.comm_saved = true;
		rt_thread_slow_update();
	}
#if defined(__x86_64__) && defined(__linux__)
	/* (the thread's first record: see rt_fgraph_thread_arm()) */
	rt_fgraph_thread_arm();
#endif
}

/*
 * Userspace: a trace_marker write through a tool (ringtrace mount) is
 * made by the control thread, while the kernel records the writing
 * task. rt_write_as() makes the calling thread's records carry @pid
 * (with @comm saved for it, @tgid its process) until rt_write_as(0, ...)
 * gives it its own id back.
 */
void rt_write_as(int pid, int tgid, const char *comm)
{
	char name[RT_COMM_LEN] = { 0 };

	if (!rt_cur.comm_saved)
		rt_cmdline_save(); /* its own name first, under its own id */
	rt_cur.pid = 0;
	rt_thread_slow_update();
	if (pid <= 0)
		return; /* rt_gettid() takes the thread's id again */
	snprintf(name, sizeof(name), "%s", comm ? comm : "<...>");
	rt_cmdline_store(pid, tgid, name);
	rt_cur.pid = pid;
	rt_thread_slow_update();
}

bool rt_cmdline_find(int pid, char *comm, int *tgid)
{
	return rt_cmdline_lookup(rt_cmdline_tab, pid, comm, tgid);
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */

/* Publish @rb as the live buffer of instance slot @i (NULL: the slot is
 * empty). Called by the control side, under the control lock or the
 * instance's lock, before the grace period that retires what it replaces. */
void rt_inst_rb_set(int i, struct ringbuf *rb)
{
	/* Release: the buffer's initialisation before its pointer; pairs
	 * with the acquire load in rt_inst_rb(). */
	atomic_store_explicit(&rt_inst_rbs[i], rb, memory_order_release);
	/* the function tracer's word follows, before the grace period */
	rt_fn_fast_update();
}

/*
 * Filtered events are assigned in a per-thread buffer first, one per
 * nesting level, and only a record that passes its filter is copied into
 * the ring buffer (the kernel's trace_buffered_event): a rejected record
 * then costs neither a clock read nor a reservation and a discard.
 * Records too big for it, and writes nested deeper, are assigned in the
 * ring buffer and discarded there when they fail.
 */
#define RT_TEMP_SIZE 512
#define RT_TEMP_NEST 4
static __thread uint64_t rt_temp[RT_TEMP_NEST][RT_TEMP_SIZE / 8]
	__attribute__((tls_model("initial-exec")));

static void rt_trigger_no_record(struct ringtrace_write *w,
				 const void *from);
static inline __attribute__((always_inline, no_instrument_function)) bool
rt_write_copy(struct ringbuf *rb, const void *rec, size_t size, uint64_t ts);

/* Whether @pid is in @l (sorted). Async-signal-safe. */
static inline __attribute__((no_instrument_function)) bool
rt_pid_in(const struct rt_pid_list *l, int pid)
{
	unsigned int lo = 0, hi = l->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (l->pid[mid] == pid)
			return true;
		if (l->pid[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * rt_pid_ignored - whether this thread's records stay out of @tr by its
 * pid lists @list (set_event_pid or set_ftrace_pid) and @list + 1 (their
 * notrace lists), as the kernel's trace_ignore_this_task(). Called
 * inside a read-side section.
 */
static inline __attribute__((always_inline, no_instrument_function)) bool
rt_pid_ignored(const struct ringtrace_instance *tr, int list)
{
	const struct rt_pid_list *l;
	int pid = rt_gettid();

	/* Pairs with the release side of the exchange that publishes a
	 * list in pid.c; a list is freed after a grace period. */
	l = atomic_load_explicit(&tr->pids[list], memory_order_acquire);
	if (l && !rt_pid_in(l, pid))
		return true;
	/* Pairs with the same exchange, for the notrace list. */
	l = atomic_load_explicit(&tr->pids[list + 1], memory_order_acquire);
	return l && rt_pid_in(l, pid);
}

/*
 * rt_trigger_begin - the slow path of an event armed in instance @i:
 * take its triggers and whether the record itself is kept.
 * Return: false when there is nothing to do in this instance.
 */
static __attribute__((noinline, no_instrument_function)) bool
rt_trigger_begin(struct ringtrace_write *w, struct rt_event_priv *p, int i)
{
	static const struct rt_trigger_list rt_no_triggers;
	/* Pairs with the release side of the exchange that publishes a
	 * list in trigger.c; the list is freed only after a grace period,
	 * and this write is inside a read-side section until it ends. */
	const struct rt_trigger_list *l =
		atomic_load_explicit(&p->triggers[i], memory_order_acquire);
	/* Pairs with the release store that publishes the instance. */
	struct ringtrace_instance *tr =
		atomic_load_explicit(&rt_instances[i], memory_order_acquire);

	if (!tr || rt_pid_ignored(tr, RINGTRACE_PID_EVENT))
		return false;
	/* Relaxed: a change racing with this write keeps or drops this
	 * one record, as if it had come just before. */
	w->soft = (int)((atomic_load_explicit(&p->soft_disabled,
					      memory_order_relaxed) >>
			 i) & 1);
	if (w->soft && !l)
		return false; /* the target of enable_event, still off */
	/* Relaxed: an option changing meanwhile applies from the next
	 * record on. Bit 1 of soft asks for a stack after the record. */
	if (atomic_load_explicit(&tr->options, memory_order_relaxed) &
	    RT_OPT(RT_OPT_STACKTRACE))
		w->soft |= 2;
	w->trig = l ? l : w->soft ? &rt_no_triggers : NULL;
	return true;
}

/*
 * ringtrace_write_next() for @from, the address the event's writer
 * returns to (what a stack trigger starts at).
 *
 * The common case of an instance, no filter and nothing armed (no
 * trigger, pid list or stacktrace option: its bit of slow_mask clear),
 * reserves in the ring buffer with its inline fast path and leaves only
 * rb, filter and trig (both NULL) in @w, which is all the commit reads
 * then. Everything else (the filter and trigger paths) is as the kernel's
 * trace_event_buffer_reserve(): w records where the record is.
 */
static inline __attribute__((always_inline, no_instrument_function)) void *
rt_write_next(struct ringtrace_write *w, struct rt_event_priv *p,
	      const void *from)
{
	/* The event left the registry since the write began (@p loaded again
	 * inside the section, NULL): no more instances. */
	if (__builtin_expect(!p, 0))
		w->mask = 0;
	while (w->mask) {
		int i = __builtin_ctzll(w->mask);
		struct ringbuf *rb;
		struct ringbuf_event *e;
		const struct rt_filter *f;
		void *rec;
		int err;

		w->mask &= w->mask - 1;
		rb = rt_inst_rb(i);
		if (!rb)
			continue;
		/* Pairs with the release store of a new filter in events.c;
		 * the old one is freed only after a grace period, and this
		 * write is inside a read-side section until it commits. */
		f = atomic_load_explicit(&p->filter[i], memory_order_acquire);
		w->filter = f;
		w->rb = rb;
		w->trig = NULL;
		/* The one load triggers add to an enabled event's write.
		 * Relaxed: rt_soft_mode() waits a grace period between
		 * arming this bit and the enable bit that depends on it. */
		if (__builtin_expect(!f && !((atomic_load_explicit(
						      &p->slow_mask,
						      memory_order_relaxed) >>
					      i) & 1),
				     1)) {
			e = ringbuf_fe_reserve(rb, w->size, &err);
			if (__builtin_expect(!e, 0))
				continue;
			rec = ringbuf_event_data_inline(e);
			rt_fill_entry(rec, p->id, w->depth);
			return rec;
		}
		w->inst = i;
		w->soft = 0;
		if ((atomic_load_explicit(&p->slow_mask, memory_order_relaxed) >>
		     i) & 1 &&
		    !rt_trigger_begin(w, p, i))
			continue;
		/* A record that may be dropped (a filter, or an event armed
		 * but not enabled), or whose hist triggers read its stamp,
		 * is assigned aside. One an armed event
		 * keeps goes to the buffer, its triggers test it there; but
		 * aside when the buffer takes no record (tracing off), so
		 * that its triggers run all the same. */
		if ((f || (w->soft & 1) ||
		     (w->trig && ((const struct rt_trigger_list *)w->trig)
					 ->stamps)) &&
		    w->size <= RT_TEMP_SIZE && w->depth < RT_TEMP_NEST) {
			rec = rt_temp[w->depth];
			w->rbev = NULL;
		} else {
			/* The ring buffer's write fast path, inline. */
			e = ringbuf_fe_reserve(rb, w->size, &err);
			if (e) {
				rec = ringbuf_event_data_inline(e);
				w->rbev = e;
			} else if (w->trig && w->size <= RT_TEMP_SIZE &&
				   w->depth < RT_TEMP_NEST) {
				rec = rt_temp[w->depth];
				w->rbev = NULL;
			} else {
				if (__builtin_expect(w->trig != NULL, 0))
					rt_trigger_no_record(w, from);
				continue;
			}
		}
		rt_fill_entry(rec, p->id, w->depth);
		w->rec = rec;
		return rec;
	}
	rt_rcu_read_unlock();
	rt_cur.depth--;
	return NULL;
}

__attribute__((no_instrument_function)) void *
ringtrace_write_next(struct ringtrace_write *w)
{
	return rt_write_next(w, rt_ev_priv(w->event),
			     __builtin_return_address(0));
}

__attribute__((no_instrument_function)) void *
ringtrace_write_first(struct ringtrace_event *ev, struct ringtrace_write *w,
		      size_t size)
{
	struct rt_event_priv *p;

	rt_graph_pending_flush();
	w->event = ev;
	w->size = size;
	w->depth = rt_cur.depth++;
	if (__builtin_expect(!rt_cur.comm_saved, 0))
		rt_cmdline_save();
	rt_rcu_read_lock();
	/* Inside the section: unregistering unpublishes it first. */
	p = rt_ev_priv(ev);
	/* Relaxed: each bit is checked again through rt_inst_rbs[] (an
	 * acquire load) before anything of the instance is used. */
	w->mask = p ? atomic_load_explicit(&ev->enabled, memory_order_relaxed)
		    : 0;
	return rt_write_next(w, p, __builtin_return_address(0));
}

/* w->soft: the record goes through rt_hist_only_commit() (with bit 0:
 * assigned aside, the event soft-disabled: counted, not kept) */
#define RT_W_HIST_ONLY 4

/*
 * rt_write_hist_only - the short path of an event armed in instance @i
 * by plain hist triggers alone (the list's hist_only: no filter on a
 * trigger, no action, no stamp read), the common "hist:keys=K:vals=V":
 * no filter on the event, no pid list and no stacktrace option in the
 * instance. The record is reserved in the buffer (or, the event
 * soft-disabled, assigned aside) and filled as rt_write_next() does;
 * rt_hist_only_commit() counts it in the tables and commits it, without
 * the general path's walk of the triggers and the reasons it tests.
 * Called inside the write's read-side section.
 * Return: the record, or NULL for the general path (@w's fields that
 * path sets are left to it).
 */
static inline __attribute__((always_inline, no_instrument_function)) void *
rt_write_hist_only(struct ringtrace_write *w, struct rt_event_priv *p, int i)
{
	/* Acquire, as rt_trigger_begin(): pairs with the release side of
	 * the exchange that publishes the list (trigger.c); freed only
	 * after a grace period. */
	const struct rt_trigger_list *l =
		atomic_load_explicit(&p->triggers[i], memory_order_acquire);
	const struct ringtrace_instance *tr;
	struct ringbuf_event *e;
	struct ringbuf *rb;
	void *rec;
	int err;

	if (!l || !l->hist_only ||
	    /* Acquire, as rt_write_next(): pairs with the release store of
	     * a new filter (events.c). */
	    atomic_load_explicit(&p->filter[i], memory_order_acquire))
		return NULL;
	/* Pairs with the release store that publishes the instance. */
	tr = atomic_load_explicit(&rt_instances[i], memory_order_acquire);
	/* The pid lists: acquire, as rt_pid_ignored() (pid.c publishes
	 * them with an exchange). The option: relaxed, as in
	 * rt_trigger_begin() (a change applies from the next record on). */
	if (!tr ||
	    atomic_load_explicit(&tr->pids[RINGTRACE_PID_EVENT],
				 memory_order_acquire) ||
	    atomic_load_explicit(&tr->pids[RINGTRACE_PID_EVENT_NOTRACE],
				 memory_order_acquire) ||
	    (atomic_load_explicit(&tr->options, memory_order_relaxed) &
	     RT_OPT(RT_OPT_STACKTRACE)))
		return NULL;
	rb = rt_inst_rb(i);
	if (!rb)
		return NULL;
	/* Relaxed, as rt_trigger_begin(): a change racing with this write
	 * keeps or drops this one record, as if it had come just before. */
	if (__builtin_expect((atomic_load_explicit(&p->soft_disabled,
						   memory_order_relaxed) >>
			      i) & 1,
			     0)) {
		/* armed, not enabled: counted from the thread's own copy */
		if (w->size > RT_TEMP_SIZE || w->depth >= RT_TEMP_NEST)
			return NULL;
		rec = rt_temp[w->depth];
		w->rbev = NULL;
		w->soft = RT_W_HIST_ONLY | 1;
	} else {
		/* The ring buffer's write fast path, inline. A buffer that
		 * takes no record (tracing off, full): the general path,
		 * which counts it all the same. */
		e = ringbuf_fe_reserve(rb, w->size, &err);
		if (__builtin_expect(!e, 0))
			return NULL;
		rec = ringbuf_event_data_inline(e);
		w->rbev = e;
		w->soft = RT_W_HIST_ONLY;
	}
	w->mask = 0;
	w->rb = rb;
	w->filter = NULL;
	w->trig = l;
	w->inst = i;
	w->rec = rec;
	rt_fill_entry(rec, p->id, w->depth);
	return rec;
}

/* The commit of a record of rt_write_hist_only(): counted in each table
 * before it is committed (as the kernel's event_triggers_call() reads
 * the record in the buffer), then committed; one soft-disabled is only
 * counted. Nothing fires after (no action, no snapshot asked for). */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_hist_only_commit(struct ringtrace_write *w, const void *from)
{
	const struct rt_trigger_list *l = w->trig;
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		rt_hist_event(l->t[i], w->rec, w->size, w->inst, from, 0);
	if (__builtin_expect(w->rbev != NULL, 1))
		ringbuf_fe_commit(w->rb);
}

/*
 * ringtrace_write_hist - count the record @rec (@size bytes) of the event
 * of state @pv, written inline in instance @i's buffer and not yet
 * committed, in the tables of its hist triggers there, as the kernel's
 * event_triggers_call() before the commit (<ringtrace/inline_write.h>,
 * layout 6: the event's hist_mask bit @i was seen set). Inside the
 * write's read-side section. A trigger that is no plain hist trigger
 * without a filter (the list changed since the bit was loaded) is left
 * out: the record counts as if it came before the change.
 */
RINGTRACE_API __attribute__((no_instrument_function)) void
ringtrace_write_hist(const struct ringtrace_event_view *pv, int i,
		     const void *rec, size_t size)
{
	/* The registry's state itself (the view is its first fields) */
	const struct rt_event_priv *p = (const struct rt_event_priv *)(
		const void *)pv;
	/* Acquire: pairs with the release side of the exchange that
	 * publishes the list (trigger.c); freed only after a grace period,
	 * and this write is inside a read-side section. */
	const struct rt_trigger_list *l =
		atomic_load_explicit(&p->triggers[i], memory_order_acquire);
	unsigned int k;
	bool all;

	if (!l)
		return;
	all = l->hist_only;
	for (k = 0; k < l->nr; k++)
		if (__builtin_expect(all, 1) ||
		    rt_hist_plain_unfiltered(l->t[k]))
			rt_hist_event(l->t[k], rec, size, i, NULL, 0);
}

/*
 * ringtrace_write_armed - the write of a fixed-size record of @ev in
 * instance @i that the program's inline write found enabled there but
 * filtered or armed (<ringtrace/inline_write.h>): called inside the read-side
 * section the inline write entered, with the thread's depth counted, so
 * that the record is assigned in place as ringtrace_write_first() does
 * (the kernel's trace_event_buffer_reserve(): in the buffer, or aside
 * where it may be dropped) instead of on the stack, and without a second
 * section. The caller assigns the payload and calls
 * ringtrace_write_commit_next(), which runs the triggers around the
 * commit and leaves the section.
 * Return: the record, its header filled; NULL (the section left, the
 * depth given back) when there is nothing to write in @i.
 */
__attribute__((no_instrument_function)) void *
ringtrace_write_armed(struct ringtrace_event *ev, struct ringtrace_write *w,
		      size_t size, int i)
{
	/* Inside the section: unregistering unpublishes it first. */
	struct rt_event_priv *p = rt_ev_priv(ev);
	void *rec;

	w->event = ev;
	w->size = size;
	w->depth = rt_cur.depth - 1;
	if (__builtin_expect(p != NULL, 1)) {
		rec = rt_write_hist_only(w, p, i);
		if (rec)
			return rec;
	}
	/* The one instance the inline write tested; rt_write_next() loads
	 * its state again, inside the same section. */
	w->mask = 1ull << i;
	return rt_write_next(w, p, __builtin_return_address(0));
}

/* ---- what triggers do in the write path --------------------------------- */

/*
 * The stack record (the kernel's kernel_stack event, TRACE_STACK): the
 * return addresses of the writing thread, innermost first.
 */
#define RT_STACK_MAX 32

static pthread_once_t rt_stack_once = PTHREAD_ONCE_INIT;

static void rt_stack_load(void)
{
	void *pc[1];

	/* glibc loads the unwinder (libgcc_s) at the first backtrace(),
	 * with dlopen(): not in a signal handler. Once loaded, a backtrace
	 * takes no lock and allocates nothing. */
	backtrace(pc, 1);
}

/* Called by control calls that arm a stack trace, before any write can
 * take one. */
void rt_stack_prime(void)
{
	pthread_once(&rt_stack_once, rt_stack_load);
}

/*
 * rt_write_stack - write a stack record into @rb, starting at the frame
 * that returns to @from (the event's caller) when it is on the stack.
 * Context: any, a signal handler included, once rt_stack_prime() ran.
 */
static __attribute__((noinline, no_instrument_function))
RINGTRACE_RECORD_ACCESS void
rt_write_stack(struct ringbuf *rb, int depth, const void *from)
{
	void *pc[RT_STACK_MAX + 8];
	int n = backtrace(pc, RT_STACK_MAX + 8), k, first = 0;
	struct ringbuf_event *e;
	struct rt_stack_entry *rec;

	for (k = 0; k < n; k++) {
		if (pc[k] == from) {
			first = k;
			break;
		}
	}
	n -= first;
	if (n > RT_STACK_MAX)
		n = RT_STACK_MAX;
	if (n <= 0)
		return;
	e = ringbuf_lock_reserve(rb, sizeof(*rec) +
					     (size_t)n * sizeof(unsigned long));
	if (!e)
		return;
	rec = ringbuf_event_data(e);
	rt_fill_entry(&rec->ent, RT_TYPE_STACK, depth);
	rec->size = n;
	for (k = 0; k < n; k++)
		rec->caller[k] = (unsigned long)pc[first + k];
	ringbuf_unlock_commit(rb);
}

/* Take one firing of a trigger or function command whose count is
 * @count: false when it is spent. Bounded: a count fought over that long
 * loses this firing. */
static __attribute__((no_instrument_function)) bool
rt_count_take(_Atomic long *count)
{
	long c = atomic_load_explicit(count, memory_order_relaxed);
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		if (c < 0)
			return true;
		if (c == 0)
			return false;
		/* Relaxed: the count orders nothing; the cmpxchg only makes
		 * each firing take one unit. */
		if (atomic_compare_exchange_weak_explicit(
			    count, &c, c - 1, memory_order_relaxed,
			    memory_order_relaxed))
			return true;
	}
	return false;
}

static inline __attribute__((no_instrument_function)) bool
rt_trigger_take(struct rt_trigger *t)
{
	return rt_count_take(&t->count);
}

/* Turn @rb's recording on or off (@on) when it is not already, taking a
 * firing of @count: as the kernel's traceon/traceoff, a firing that
 * changes nothing does not count. */
static __attribute__((no_instrument_function)) void
rt_record_switch(struct ringbuf *rb, bool on, _Atomic long *count)
{
	if (ringbuf_record_is_on(rb) == on || !rt_count_take(count))
		return;
	if (on)
		ringbuf_record_on(rb);
	else
		ringbuf_record_off(rb);
}

/* Soft-enable (@on) or soft-disable event @p in instance @bit, taking a
 * firing of @count when that changes it. */
static __attribute__((no_instrument_function)) void
rt_soft_switch(struct rt_event_priv *p, uint64_t bit, bool on,
	       _Atomic long *count)
{
	/* Relaxed: the soft-disabled bit is the whole state; the target's
	 * writers read it relaxed too. */
	if (!(atomic_load_explicit(&p->soft_disabled, memory_order_relaxed) &
	      bit) == on ||
	    !rt_count_take(count))
		return;
	rt_soft_disabled_set(p, bit, !on);
}

/* The snapshot trigger: swap the live buffer with the snapshot buffer.
 * Called with the instance's lock held. */
__attribute__((no_instrument_function)) void
rt_snapshot_swap_locked(struct ringtrace_instance *tr)
{
	struct ringbuf *rb = atomic_load_explicit(&tr->rb, memory_order_relaxed);
	int cpu, n = ringbuf_nr_cpus(rb);

	if (!tr->snap)
		return;
	for (cpu = 0; cpu < n; cpu++)
		ringbuf_swap_cpu(rb, tr->snap, cpu);
}

static __attribute__((no_instrument_function)) void
rt_trigger_fire(struct ringtrace_write *w, struct rt_trigger *t,
		const void *from)
{
	/* Pairs with the release stores that publish instances; this is
	 * still inside the write's read-side section. */
	struct ringtrace_instance *tr =
		atomic_load_explicit(&rt_instances[w->inst],
				     memory_order_acquire);
	uint64_t bit = 1ull << w->inst;
	struct ringbuf *rb;

	if (!tr)
		return;
	/* Pairs with the release store of a new buffer (trace clock). */
	rb = atomic_load_explicit(&tr->rb, memory_order_acquire);
	switch (t->type) {
	case RT_TRIG_TRACEON:
	case RT_TRIG_TRACEOFF:
		rt_record_switch(rb, t->type == RT_TRIG_TRACEON, &t->count);
		break;
	case RT_TRIG_SNAPSHOT:
		if (!rt_trigger_take(t))
			return;
		/* Userspace: the swap waits for the buffer's writers, so
		 * only a write in a thread's own context takes it (the
		 * kernel refuses a snapshot in NMI context); a busy lock
		 * loses this snapshot. */
		if (w->depth == 0 && rt_cur.irq == 0 &&
		    pthread_mutex_trylock(&tr->lock) == 0) {
			rt_snapshot_swap_locked(tr);
			pthread_mutex_unlock(&tr->lock);
		}
		break;
	case RT_TRIG_STACKTRACE:
		if (rt_trigger_take(t))
			rt_write_stack(rb, w->depth, from);
		break;
	case RT_TRIG_HIST:
		if (w->rec)
			rt_hist_event(t, w->rec, w->size, w->inst, from, 0);
		break;
	case RT_TRIG_ENABLE_HIST:
	case RT_TRIG_DISABLE_HIST:
		if (rt_trigger_take(t))
			rt_hist_enable(t->target, w->inst,
				       t->type == RT_TRIG_ENABLE_HIST);
		break;
	case RT_TRIG_ENABLE_EVENT:
	case RT_TRIG_DISABLE_EVENT:
		rt_soft_switch(t->target, bit,
			       t->type == RT_TRIG_ENABLE_EVENT, &t->count);
		break;
	}
}

/* ---- function commands (ftrace.h) ---------------------------------------- */

__attribute__((no_instrument_function)) void
rt_ftrace_probe_fire(int cmd, _Atomic long *count, void *target,
		     const void *from)
{
	struct ringtrace_instance *tr;
	struct ringbuf *rb;

	rt_rcu_read_lock();
	/* Pairs with the release store that publishes the instance. */
	tr = atomic_load_explicit(&rt_instances[0], memory_order_acquire);
	/* Pairs with the release store of a new buffer (trace clock). */
	rb = tr ? atomic_load_explicit(&tr->rb, memory_order_acquire) : NULL;
	if (rb) {
		switch (cmd) {
		case RT_FPROBE_TRACEON:
		case RT_FPROBE_TRACEOFF:
			rt_record_switch(rb, cmd == RT_FPROBE_TRACEON, count);
			break;
		case RT_FPROBE_STACKTRACE:
			if (rt_count_take(count))
				rt_write_stack(rb, rt_cur.depth, from);
			break;
		case RT_FPROBE_ENABLE_EVENT:
		case RT_FPROBE_DISABLE_EVENT:
			rt_soft_switch(target, 1, cmd == RT_FPROBE_ENABLE_EVENT,
				       count);
			break;
		}
	}
	rt_rcu_read_unlock();
}

int rt_ftrace_probe_target(const char *system, const char *event, bool enter,
			   void **target)
{
	struct rt_event_priv *p;
	int ret = 0;

	rt_registry_lock();
	if (!enter) {
		rt_soft_mode(*target, 0, false);
	} else {
		p = rt_event_find(system, event);
		if (!p || p->builtin)
			ret = -ENOENT;
		else
			rt_soft_mode(p, 0, true);
		*target = ret ? NULL : p;
	}
	rt_registry_unlock();
	return ret;
}

void rt_ftrace_probe_prime(void)
{
	rt_stack_prime();
}

/*
 * rt_trigger_commit - commit (or drop) a record of an armed event and run
 * its triggers, as the kernel's event_trigger_unlock_commit(): the
 * filters of the triggers are tested on the record before it is
 * committed, the triggers that passed run after.
 */
static __attribute__((noinline, no_instrument_function)) void
rt_trigger_commit(struct ringtrace_write *w, const void *from)
{
	const struct rt_trigger_list *l = w->trig;
	const struct rt_filter *f = w->filter;
	uint32_t fire = 0;
	bool keep;
	unsigned int i;
	/* A record assigned aside has no stamp yet: the time its hist
	 * triggers read is the one it gets in the buffer (below). */
	uint64_t ts = l->stamps && !w->rbev ? ringbuf_time_stamp(w->rb) : 0;

	for (i = 0; i < l->nr; i++) {
		if (l->t[i]->filter &&
		    !rt_filter_match(l->t[i]->filter, w->rec, w->size))
			continue;
		/* a hist trigger reads the record: before it is committed,
		 * as the kernel's event_triggers_call() */
		if (l->t[i]->type == RT_TRIG_HIST)
			rt_hist_event(l->t[i], w->rec, w->size, w->inst, from,
				      ts);
		else
			fire |= 1u << i;
	}
	keep = !(w->soft & 1) && (!f || rt_filter_match(f, w->rec, w->size));
	if (!w->rbev) {
		/* assigned aside: copied in with the ring buffer's inline
		 * write path, as a record of an event nothing armed */
		keep = keep && rt_write_copy(w->rb, w->rec, w->size, ts);
	} else if (keep) {
		/* reserved with the inline reserve (rt_write_next()) */
		ringbuf_fe_commit(w->rb);
	} else {
		ringbuf_discard_commit(w->rb, w->rbev);
	}
	/* the stacktrace option: a stack after each record kept */
	if (keep && (w->soft & 2))
		rt_write_stack(w->rb, w->depth, from);
	for (i = 0; i < l->nr; i++)
		if (fire & (1u << i))
			rt_trigger_fire(w, l->t[i], from);
	rt_hist_commit_done();
}

/* A record too big to be assigned aside, that the buffer refused: the
 * triggers without a filter run all the same. */
static __attribute__((noinline, no_instrument_function)) void
rt_trigger_no_record(struct ringtrace_write *w, const void *from)
{
	const struct rt_trigger_list *l = w->trig;
	unsigned int i;

	/* (no record to count in a hist trigger) */
	for (i = 0; i < l->nr; i++)
		if (!l->t[i]->filter && l->t[i]->type != RT_TRIG_HIST)
			rt_trigger_fire(w, l->t[i], from);
}

/* A snapshot buffer like the live one; called with the instance's lock */
int rt_snapshot_make_locked(struct ringtrace_instance *tr)
{
	struct ringbuf *rb = atomic_load_explicit(&tr->rb, memory_order_relaxed);

	tr->snap = rt_make_buffer(
		tr, true, tr->size_kb, ringbuf_clock(rb),
		(atomic_load_explicit(&tr->options, memory_order_relaxed) &
		 RT_OPT(RT_OPT_OVERWRITE)) != 0);
	if (!tr->snap)
		return -ENOMEM;
	/* As the live buffer: a swap exchanges cpu buffers of one size. */
	if (rt_apply_cpu_sizes(tr, tr->snap)) {
		ringbuf_free(tr->snap);
		tr->snap = NULL;
		return -ENOMEM;
	}
	return 0;
}

int rt_snapshot_alloc(struct ringtrace_instance *tr)
{
	int ret = 0;

	pthread_mutex_lock(&tr->lock);
	if (!tr->snap) {
		ret = rt_snapshot_make_locked(tr);
		if (!ret)
			rt_publish_instance(tr);
	}
	pthread_mutex_unlock(&tr->lock);
	return ret;
}

/* ringtrace_write_commit() for @from (see rt_write_next()). */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_write_commit(struct ringtrace_write *w, const void *from)
{
	const struct rt_filter *f = w->filter;
	struct ringbuf_event *e;

	/* The common case: reserved in the ring buffer, nothing to test. */
	if (__builtin_expect(((uintptr_t)f | (uintptr_t)w->trig) == 0, 1)) {
		ringbuf_fe_commit(w->rb);
		return;
	}
	if (w->trig) {
		if (w->soft & RT_W_HIST_ONLY)
			rt_hist_only_commit(w, from);
		else
			rt_trigger_commit(w, from);
		return;
	}
	if (!w->rbev) {
		/* assigned in the per-thread buffer: copy it in if it passes */
		if (!rt_filter_match(f, w->rec, w->size))
			return;
		e = ringbuf_lock_reserve(w->rb, w->size);
		if (!e)
			return;
		memcpy(ringbuf_event_data(e), w->rec, w->size);
		ringbuf_unlock_commit(w->rb);
		return;
	}
	if (!rt_filter_match(f, w->rec, w->size))
		ringbuf_discard_commit(w->rb, w->rbev);
	else
		ringbuf_fe_commit(w->rb);
}

__attribute__((no_instrument_function)) void
ringtrace_write_commit(struct ringtrace_write *w)
{
	rt_write_commit(w, __builtin_return_address(0));
}

/* The generated code's loop step: commit this instance's record and go on
 * to the next instance; one call where there were two. */
__attribute__((no_instrument_function)) void *
ringtrace_write_commit_next(struct ringtrace_write *w)
{
	const void *from = __builtin_return_address(0);

	rt_write_commit(w, from);
	if (__builtin_expect(!w->mask, 1)) {
		/* the last (usually the only) instance of the event */
		rt_rcu_read_unlock();
		rt_cur.depth--;
		return NULL;
	}
	return rt_write_next(w, rt_ev_priv(w->event), from);
}

/*
 * rt_copy_record - copy the @size bytes of a record assigned on the
 * caller's stack into the ring buffer. A record holds at least its 8-byte
 * header; up to 32 bytes are copied as two overlapping halves (of 8 or 16
 * bytes), without a loop or a call; a longer one by memcpy().
 */
static inline __attribute__((always_inline, no_instrument_function))
RINGTRACE_RECORD_ACCESS void
rt_copy_record(void *dst, const void *src, size_t size)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	uint64_t a, b, c, e;

	if (__builtin_expect(size <= 16, 1)) {
		__builtin_memcpy(&a, s, 8);
		__builtin_memcpy(&b, s + size - 8, 8);
		__builtin_memcpy(d, &a, 8);
		__builtin_memcpy(d + size - 8, &b, 8);
		return;
	}
	if (__builtin_expect(size > 32, 0)) {
		memcpy(d, s, size);
		return;
	}
	__builtin_memcpy(&a, s, 8);
	__builtin_memcpy(&b, s + 8, 8);
	__builtin_memcpy(&c, s + size - 16, 8);
	__builtin_memcpy(&e, s + size - 8, 8);
	__builtin_memcpy(d, &a, 8);
	__builtin_memcpy(d + 8, &b, 8);
	__builtin_memcpy(d + size - 16, &c, 8);
	__builtin_memcpy(d + size - 8, &e, 8);
}

/* Reserve, copy @rec in, commit: the ring buffer's inline fast path.
 * @ts: the record's stamp, or 0 for the clock now. Userspace: the ring
 * buffer takes a stamp given only for its default mono clock (the
 * others read their clock when the record is reserved).
 * Return: whether the buffer took the record. */
static inline __attribute__((always_inline, no_instrument_function)) bool
rt_write_copy(struct ringbuf *rb, const void *rec, size_t size, uint64_t ts)
{
	struct ringbuf_event *e;
	int err;

	e = ringbuf_fe_reserve_ts(rb, size, ts, &err);
	if (__builtin_expect(!e, 0))
		return false;
	rt_copy_record(ringbuf_event_data_inline(e), rec, size);
	ringbuf_fe_commit(rb);
	return true;
}

/*
 * ringtrace_write_record - write the record @rec of @size bytes, assigned
 * by the caller (the generated code of an event whose records have a
 * fixed size), into every instance that enabled @ev. The header is filled
 * here. In the common case of an instance (no filter, nothing armed) it
 * is the ring buffer's inline reserve, a copy, the inline commit; a
 * filter or a trigger takes the path of a record assigned aside
 * (rt_write_commit() with no reservation: the filter is tested on @rec
 * before anything is reserved).
 */
__attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
ringtrace_write_record(struct ringtrace_event *ev, void *rec, size_t size)
{
	struct rt_event_priv *p;
	const void *from = __builtin_return_address(0);
	int depth;
	uint64_t mask;

	rt_graph_pending_flush();
	depth = rt_cur.depth++;

	if (__builtin_expect(!rt_cur.comm_saved, 0))
		rt_cmdline_save();
	rt_rcu_read_lock();
	/* Inside the section: unregistering unpublishes it first. */
	p = rt_ev_priv(ev);
	/* Relaxed: each bit is checked again through rt_inst_rbs[] (an
	 * acquire load) before anything of the instance is used. */
	mask = p ? atomic_load_explicit(&ev->enabled, memory_order_relaxed) : 0;
	if (mask)
		rt_fill_entry(rec, p->id, depth);
	while (mask) {
		int i = __builtin_ctzll(mask);
		struct ringbuf *rb;
		const struct rt_filter *f;
		struct ringtrace_write w;

		mask &= mask - 1;
		rb = rt_inst_rb(i);
		if (!rb)
			continue;
		/* Pairs with the release store of a new filter in events.c
		 * (rt_filter_swap()); freed after a grace period. */
		f = atomic_load_explicit(&p->filter[i], memory_order_acquire);
		/* Relaxed: see rt_write_next(). */
		if (__builtin_expect(!f && !((atomic_load_explicit(
						      &p->slow_mask,
						      memory_order_relaxed) >>
					      i) & 1),
				     1)) {
			rt_write_copy(rb, rec, size, 0);
			continue;
		}
		/* The slow path: a record assigned aside (rt_write_next()). */
		w.event = ev;
		w.size = size;
		w.depth = depth;
		w.filter = f;
		w.rb = rb;
		w.inst = i;
		w.trig = NULL;
		w.soft = 0;
		w.rec = rec;
		w.rbev = NULL;
		if ((atomic_load_explicit(&p->slow_mask, memory_order_relaxed) >>
		     i) & 1 &&
		    !rt_trigger_begin(&w, p, i))
			continue;
		if (!f && !w.trig) /* a pid list that lets this thread in */
			rt_write_copy(rb, rec, size, 0);
		else
			rt_write_commit(&w, from);
	}
	rt_rcu_read_unlock();
	rt_cur.depth--;
}

/*
 * rt_write_builtin_inline - write one built-in record (function, graph,
 * print, raw_data) into every instance of @mask. @fill writes the payload
 * after the header. @ts, when not 0, is the default clock read by the
 * caller, the stamp of the records in buffers on that clock (the graph's
 * calltime and rettime; ringbuf_fe_reserve_ts()). Inline for the graph's records (two per traced call),
 * whose fill functions it inlines; rt_write_builtin() is the call for the
 * others.
 */
static inline __attribute__((always_inline, no_instrument_function)) int
rt_write_builtin_inline(uint64_t mask, uint16_t type, size_t size,
			void (*fill)(void *rec, const void *arg),
			const void *arg, uint64_t ts)
{
	int depth, written;
	/* Instances with a set_ftrace_pid list: function records only.
	 * Relaxed: the lists themselves are loaded with acquire loads. */
	uint64_t pids = type == RT_TYPE_FN || type == RT_TYPE_GRAPH_ENT ||
				rt_type_graph_exit(type) ?
			atomic_load_explicit(&rt_ftrace_pid_mask,
					     memory_order_relaxed) :
			0;

	rt_graph_pending_flush();
	depth = rt_cur.depth++;
	if (__builtin_expect(!rt_cur.comm_saved, 0))
		rt_cmdline_save();
	rt_rcu_read_lock();
	if (__builtin_expect(mask & pids, 0)) {
		uint64_t m = mask & pids;

		while (m) {
			int i = __builtin_ctzll(m);
			/* Pairs with the release store that publishes the
			 * instance. */
			struct ringtrace_instance *tr = atomic_load_explicit(
				&rt_instances[i], memory_order_acquire);

			m &= m - 1;
			if (!tr || rt_pid_ignored(tr, RINGTRACE_PID_FTRACE))
				mask &= ~(1ull << i);
		}
	}
	written = rt_write_instances(mask, type, size, fill, arg, ts, depth,
				     NULL);
	rt_rcu_read_unlock();
	rt_cur.depth--;
	return written;
}

__attribute__((no_instrument_function)) int
rt_write_builtin(uint64_t mask, uint16_t type, size_t size,
		 void (*fill)(void *rec, const void *arg), const void *arg)
{
	return rt_write_builtin_inline(mask, type, size, fill, arg, 0);
}

/* ---- function tracer records ------------------------------------------- */

__attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_fill_fn(void *rec, const void *arg)
{
	rt_fill_fn_inline(rec, arg);
}

/*
 * The general path of a graph record (rt_write_builtin_inline()). The
 * graph's hooks keep no errno of their own (as the function tracer's
 * entry, rt_fn_write_slow()): the traced function's errno is kept here
 * (the fast path never changes it).
 */
__attribute__((noinline, no_instrument_function)) void
rt_graph_write_slow(uint64_t mask, uint16_t type, const struct rt_fn_arg *a)
{
	int saved_errno = errno;

	if (type == RT_TYPE_GRAPH_ENT)
		rt_write_builtin_inline(mask, type,
					sizeof(struct rt_graph_ent_entry),
					rt_fill_graph_ent, a, a->t0);
	else {
		/* each instance's exit in the layout its funcgraph-retval
		 * asks for (fnwrite.h) */
		uint64_t rv = rt_graph_retval_instances(mask, a);
		struct rt_fn_arg x = *a;

		x.overrun |= RT_GRAPH_NO_RETVAL;
		if (mask & ~rv)
			rt_write_builtin_inline(
				mask & ~rv, type,
				sizeof(struct rt_graph_exit_entry),
				rt_fill_graph_exit, &x, a->t1);
		/* (@a has no RT_GRAPH_NO_RETVAL where @rv is not 0) */
		if (rv)
			rt_write_builtin_inline(
				rv, RT_TYPE_GRAPH_RETVAL,
				sizeof(struct rt_graph_ret_entry),
				rt_fill_graph_exit, a, a->t1);
	}
	/* a word a signal handler left stale is right again */
	rt_thread_slow_update();
	errno = saved_errno;
}

/*
 * An entry with its arguments, for the instances of @args_mask (those
 * with funcgraph-args), and without, for the rest of @mask: the general
 * path (two record sizes in one call are the rare case). Keeps errno, as
 * rt_graph_write_slow().
 */
__attribute__((noinline, no_instrument_function)) void
rt_graph_write_args(uint64_t mask, uint64_t args_mask,
		    const struct rt_fn_arg *a)
{
	int saved_errno = errno;

	if (mask & ~args_mask)
		rt_write_builtin_inline(mask & ~args_mask, RT_TYPE_GRAPH_ENT,
					sizeof(struct rt_graph_ent_entry),
					rt_fill_graph_ent, a, a->t0);
	rt_write_builtin_inline(args_mask, RT_TYPE_GRAPH_ENT,
				RT_GRAPH_ENT_ARGS_SIZE, rt_fill_graph_ent_args,
				a, a->t0);
	errno = saved_errno;
}

/*
 * The general path of a function record (rt_write_builtin_inline()).
 * Called straight from the entry trampoline (ftrace_func_caller), which
 * keeps no errno of its own: the interrupted function's errno is kept
 * here (the fast path never changes it).
 */
__attribute__((noinline, no_instrument_function)) void
rt_fn_write_slow(uint64_t mask, unsigned long ip, unsigned long parent_ip)
{
	struct rt_fn_arg a = { .a = ip, .b = parent_ip };
	int saved_errno = errno;

	rt_write_builtin_inline(mask, RT_TYPE_FN, sizeof(struct rt_fn_entry),
				rt_fill_fn, &a, 0);
	/* a word a signal handler left stale is right again */
	rt_thread_slow_update();
	errno = saved_errno;
}

/* func-args: the record and the argument registers after it. */
static __attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_fill_fn_args(void *rec, const void *arg)
{
	const struct rt_fn_arg *a = arg;

	rt_fill_fn(rec, arg);
	memcpy((char *)rec + sizeof(struct rt_fn_entry), a->args,
	       RT_FN_NR_ARGS * sizeof(unsigned long));
}

/*
 * A function record with the arguments, for the instances of @args_mask
 * (those with func-args), and without, for the rest of @mask: the
 * general path (the option is off by default).
 */
__attribute__((noinline, no_instrument_function)) void
rt_fn_write_args(uint64_t mask, uint64_t args_mask, unsigned long ip,
		 unsigned long parent_ip, const unsigned long *args)
{
	struct rt_fn_arg a = { .a = ip, .b = parent_ip, .args = args };
	int saved_errno = errno;

	if (mask & ~args_mask)
		rt_write_builtin_inline(mask & ~args_mask, RT_TYPE_FN,
					sizeof(struct rt_fn_entry), rt_fill_fn,
					&a, 0);
	rt_write_builtin_inline(args_mask, RT_TYPE_FN, RT_FN_ARGS_SIZE,
				rt_fill_fn_args, &a, 0);
	errno = saved_errno;
}

/*
 * The one definition of the function tracer's refuse word (ftrace.h),
 * recomputed under a lock of its own after the caller's store of the
 * word it changed. The writers of the five words hold different locks
 * (rt_control_lock, an instance's, the registry's, none for the stop
 * switch), so two of them could otherwise each compute from the other's
 * old word and the later store keep a stale result. Under this lock the
 * recomputations follow one another, and each loads every store whose
 * writer's own recomputation came before it (the store precedes that
 * writer's unlock, which this lock's acquisition follows), or else is
 * followed by that writer's: the last one stands for the words as they
 * are. In particular a buffer that leaves rt_inst_rbs[] leaves the word
 * before rt_inst_rb_set() returns, so before the grace period that
 * retires it. A leaf lock: nothing is called under it.
 */
static pthread_mutex_t rt_fn_fast_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((no_instrument_function)) void rt_fn_fast_update(void)
{
	struct ringbuf *rb = NULL;
	uint64_t fn, refuse;

	pthread_mutex_lock(&rt_fn_fast_lock);
	/* Relaxed, the four: ordered by the lock (above). */
	fn = atomic_load_explicit(&rt_fn_mask, memory_order_relaxed);
	refuse = atomic_load_explicit(&rt_fn_args_mask, memory_order_relaxed) |
		 atomic_load_explicit(&rt_ftrace_pid_mask, memory_order_relaxed);
	if (fn && !(fn & (fn - 1)) && !(fn & refuse) &&
	    !atomic_load_explicit(&rt_function_trace_stop,
				  memory_order_relaxed))
		/* Acquire: pairs with rt_inst_rb_set()'s release store, so
		 * that the release below publishes an initialised buffer. */
		rb = atomic_load_explicit(&rt_inst_rbs[__builtin_ctzll(fn)],
					  memory_order_acquire);
	/* Release: the buffer's initialisation before the word; pairs with
	 * the fast path's acquire load (rt_fn_write()). What a write that
	 * loads a stale word does is said there. */
	atomic_store_explicit(&rt_fn_fast_rb, rb, memory_order_release);
	/*
	 * Seq_cst, the store above and this load: a stop switch set
	 * meanwhile by ringtrace_function_trace_stop(true), which takes no
	 * lock (a signal handler may set it) and stores NULL after the
	 * switch, both seq_cst. Either this load sees the switch, or the
	 * word's store above comes before the switch's in their one order
	 * and so before that NULL: the word ends NULL either way.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	if (rb && atomic_load_explicit(&rt_function_trace_stop,
				       memory_order_seq_cst))
		atomic_store_explicit(&rt_fn_fast_rb, NULL,
				      memory_order_seq_cst);
	pthread_mutex_unlock(&rt_fn_fast_lock);
}

/* The clock of the first buffer in @mask, in its own unit. */
__attribute__((no_instrument_function)) uint64_t
rt_buffer_clock(uint64_t mask)
{
	uint64_t now = 0;
	struct ringbuf *rb;

	if (!mask)
		return 0;
	rt_rcu_read_lock();
	rb = rt_inst_rb(__builtin_ctzll(mask));
	if (rb)
		now = ringbuf_time_stamp(rb);
	rt_rcu_read_unlock();
	return now;
}

/* ---- markers ------------------------------------------------------------ */

struct rt_print_arg {
	unsigned long ip;
	const char *text;
	size_t len;
	bool nl;
};

static RINGTRACE_RECORD_ACCESS void rt_fill_print(void *rec,
						  const void *arg)
{
	struct rt_print_entry *e = rec;
	const struct rt_print_arg *a = arg;

	size_t n = a->len;

	e->ip = a->ip;
	memcpy(e->buf, a->text, n);
	if (a->nl)
		e->buf[n++] = '\n';
	e->buf[n] = '\0';
}

static uint64_t rt_marker_mask(struct ringtrace_instance *tr)
{
	uint64_t mask = 0;

	if (tr) {
		if (atomic_load_explicit(&tr->options, memory_order_relaxed) &
		    RT_OPT(RT_OPT_MARKERS))
			mask = 1ull << tr->id;
	}
	return mask;
}

/*
 * The triggers of events/ftrace/print in @tr after a marker record was
 * written, as the kernel runs the trace_marker file's triggers: each
 * trigger's filter is tested on the record as written but without the
 * newline the write adds (the kernel tests it before adding one), with
 * buf as a char array of RT_PRINT_TRIG_BUF bytes, and the triggers that
 * pass run after the record is committed.
 */
static void rt_print_triggers(struct ringtrace_instance *tr,
			      const struct rt_print_arg *a, const void *from)
{
	struct rt_print_arg bare = *a;
	const struct rt_trigger_list *l;
	struct ringtrace_write w = { 0 };
	struct rt_event_priv *p;
	size_t size = sizeof(struct rt_print_entry) + RT_PRINT_TRIG_BUF;
	void *rec = NULL;

	rt_rcu_read_lock();
	p = rt_event_by_id(RT_TYPE_PRINT);
	/* Pairs with the release side of the exchange that publishes a
	 * list in trigger.c; the list is freed after a grace period. */
	l = p ? atomic_load_explicit(&p->triggers[tr->id],
				     memory_order_acquire) :
		NULL;
	if (l)
		rec = calloc(1, size);
	if (rec) {
		bare.nl = false;
		if (bare.len > RT_PRINT_TRIG_BUF - 1)
			bare.len = RT_PRINT_TRIG_BUF - 1;
		rt_fill_entry(rec, RT_TYPE_PRINT, rt_cur.depth);
		rt_fill_print(rec, &bare);
		w.event = p->ev;
		w.rec = rec;
		w.size = size;
		w.inst = tr->id;
		w.depth = rt_cur.depth;
		for (unsigned int i = 0; i < l->nr; i++)
			if (!l->t[i]->filter ||
			    rt_filter_match(l->t[i]->filter, rec, size))
				rt_trigger_fire(&w, l->t[i], from);
		free(rec);
		rt_hist_commit_done();
	}
	rt_rcu_read_unlock();
}

static int rt_print_record(struct ringtrace_instance *tr, unsigned long ip,
			   const char *text, size_t len, bool marker)
{
	struct rt_print_arg a = { .ip = ip, .text = text };
	uint64_t mask = rt_marker_mask(tr);
	size_t max;
	struct ringbuf *rb;

	if (!mask)
		return -EINVAL;
	rb = ringtrace_buffer(tr);
	max = rt_marker_max_len(ringbuf_max_event_size(rb));
	if (len > max)
		len = max;
	a.len = len;
	a.nl = len == 0 || text[len - 1] != '\n';
	if (!rt_write_builtin(mask, RT_TYPE_PRINT,
			      sizeof(struct rt_print_entry) + len + 2,
			      rt_fill_print, &a))
		return -ENOSPC;
	/* a trace_marker write, not ringtrace_printf() (the kernel's
	 * trace_printk() runs no trigger either) */
	if (marker)
		rt_print_triggers(tr, &a, __builtin_return_address(0));
	return 0;
}

/*
 * Named as the kernel's trace_marker write handler, so that the record's
 * ip resolves to the name the kernel shows: "tracing_mark_write: text".
 */
__attribute__((noinline, used)) int tracing_mark_write(
	struct ringtrace_instance *tr, const char *text, size_t len)
{
	return rt_print_record(tr, (unsigned long)tracing_mark_write, text,
			       len, true);
}

unsigned long rt_tracing_mark_write_ip(void)
{
	return (unsigned long)tracing_mark_write;
}

int ringtrace_marker_write(struct ringtrace_instance *tr, const char *text,
			   size_t len)
{
	tr = rt_instance_get(tr);
	if (!tr || !text)
		return -EINVAL;
	return tracing_mark_write(tr, text, len);
}

__attribute__((noinline)) int ringtrace_printf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;
	struct ringtrace_instance *tr = rt_instance_get(NULL);

	if (!tr)
		return -ENOMEM;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return rt_print_record(tr, (unsigned long)__builtin_return_address(0),
			       buf, (size_t)n, false);
}

struct rt_raw_arg {
	unsigned int id;
	const void *data;
	size_t len;
};

static RINGTRACE_RECORD_ACCESS void rt_fill_raw(void *rec,
						const void *arg)
{
	struct rt_raw_data_entry *e = rec;
	const struct rt_raw_arg *a = arg;

	e->id = a->id;
	memcpy(e->buf, a->data, a->len);
}

int ringtrace_marker_raw(struct ringtrace_instance *tr, unsigned int id,
			 const void *data, size_t len)
{
	struct rt_raw_arg a = { .id = id, .data = data, .len = len };
	uint64_t mask;
	struct ringbuf *rb;

	tr = rt_instance_get(tr);
	if (!tr || (!data && len))
		return -EINVAL;
	mask = rt_marker_mask(tr);
	if (!mask)
		return -EINVAL;
	rb = ringtrace_buffer(tr);
	if (len > ringbuf_max_event_size(rb) - sizeof(struct rt_raw_data_entry))
		return -EINVAL;
	return rt_write_builtin(mask, RT_TYPE_RAW_DATA,
				sizeof(struct rt_raw_data_entry) + len,
				rt_fill_raw, &a) ?
		       0 :
		       -ENOSPC;
}

void ringtrace_irq_enter(void)
{
	rt_cur.irq++;
	rt_thread_slow_update();
}

void ringtrace_irq_exit(void)
{
	if (rt_cur.irq > 0)
		rt_cur.irq--;
	rt_thread_slow_update();
}
