// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trace.c - trace arrays (instances), the write path of events, markers
 *	and function records, options, the trace clock and snapshots
 *
 * The kernel's kernel/trace/trace.c, in the parts that carry over. An
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
#include "ctl.h"
#include "ftrace.h"
#include "rcu.h"
#include "symbols.h"
#include "trace.h"

struct ringtrace_instance *_Atomic rt_instances[RT_MAX_INSTANCES];
pthread_mutex_t rt_control_lock = PTHREAD_MUTEX_INITIALIZER;

/* Instances whose current tracer is function / function_graph / usersoff */
static _Atomic uint64_t rt_fn_mask, rt_graph_mask, rt_lat_mask;
/* Instances with a set_ftrace_pid or set_ftrace_notrace_pid list */
_Atomic uint64_t rt_ftrace_pid_mask;
_Atomic unsigned int rt_ftrace_enabled;

#define RT_DEFAULT_SIZE_KB 1408 /* the kernel's default trace_buf_size */

/* ------------------------------------------------------------------------ */
/* The writing thread                                                       */

/**
 * struct rt_thread - what the write path keeps per thread
 * @pid: the thread id, cached
 * @depth: records of this thread being written right now; more than
 *	one means a signal handler interrupted a write
 * @irq: ringtrace_irq_enter() nesting
 * @comm_saved: the thread's name is in the cmdline table
 * @crit_start: ringtrace_critical_start()'s rt_ftrace_clock(), 0 outside
 *	a section
 * @crit_buf_start: the same moment on the buffer's clock
 * @crit_nest: critical section nesting
 */
struct rt_thread {
	int pid;
	int depth;
	int irq;
	bool comm_saved;
	uint64_t crit_start;
	uint64_t crit_buf_start;
	unsigned long crit_ip;
	int crit_nest;
};

/* Userspace: the kernel keeps this state in the task and per CPU; here
 * it is initial-exec TLS, so that reaching it from a signal handler
 * never allocates. */
static __thread struct rt_thread rt_cur
	__attribute__((tls_model("initial-exec")));

static inline __attribute__((no_instrument_function)) int rt_gettid(void)
{
	if (__builtin_expect(rt_cur.pid == 0, 0))
		rt_cur.pid = (int)syscall(SYS_gettid);
	return rt_cur.pid;
}

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
	if (rt_cmdline_store(rt_gettid(), (int)getpid(), comm))
		rt_cur.comm_saved = true;
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
	if (pid <= 0)
		return; /* rt_gettid() takes the thread's id again */
	snprintf(name, sizeof(name), "%s", comm ? comm : "<...>");
	rt_cmdline_store(pid, tgid, name);
	rt_cur.pid = pid;
}

bool rt_cmdline_find(int pid, char *comm, int *tgid)
{
	return rt_cmdline_lookup(rt_cmdline_tab, pid, comm, tgid);
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */

static inline __attribute__((no_instrument_function)) void
rt_fill_entry(struct ringtrace_entry *ent, uint16_t type, int depth)
{
	ent->type = type;
	ent->flags = (depth > 0 || rt_cur.irq > 0) ? RINGTRACE_FLAG_HARDIRQ
						   : 0;
	ent->preempt_count = (uint8_t)(depth > 15 ? 15 : depth);
	ent->pid = rt_gettid();
}

/* The instance's buffer inside a read-side section. Pairs with the
 * release stores that publish instances and buffers. */
static inline __attribute__((no_instrument_function)) struct ringbuf *
rt_inst_rb(int i)
{
	struct ringtrace_instance *tr =
		atomic_load_explicit(&rt_instances[i], memory_order_acquire);

	if (!tr)
		return NULL;
	return atomic_load_explicit(&tr->rb, memory_order_acquire);
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
static __attribute__((no_instrument_function)) bool
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
rt_trigger_begin(struct ringtrace_write *w, int i)
{
	static const struct rt_trigger_list rt_no_triggers;
	struct rt_event_priv *p = w->event->priv;
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

/* ringtrace_write_next() for @from, the address the event's writer
 * returns to (what a stack trigger starts at). */
static inline __attribute__((always_inline, no_instrument_function)) void *
rt_write_next(struct ringtrace_write *w, const void *from)
{
	while (w->mask) {
		int i = __builtin_ctzll(w->mask);
		struct ringbuf *rb;
		struct ringbuf_event *e;
		const struct rt_filter *f;
		void *rec;

		w->mask &= w->mask - 1;
		rb = rt_inst_rb(i);
		if (!rb)
			continue;
		/* Pairs with the release store of a new filter in events.c;
		 * the old one is freed only after a grace period, and this
		 * write is inside a read-side section until it commits. */
		f = atomic_load_explicit(&w->event->priv->filter[i],
					 memory_order_acquire);
		w->filter = f;
		w->rb = rb;
		w->inst = i;
		w->trig = NULL;
		w->soft = 0;
		/* The one load triggers add to an enabled event's write.
		 * Relaxed: rt_soft_mode() waits a grace period between
		 * arming this bit and the enable bit that depends on it. */
		if (__builtin_expect(
			    (atomic_load_explicit(&w->event->priv->slow_mask,
						  memory_order_relaxed) >>
			     i) & 1,
			    0) &&
		    !rt_trigger_begin(w, i))
			continue;
		/* An armed event is assigned aside too: its triggers run
		 * even when the buffer takes no record (tracing off). */
		if ((f || w->trig) && w->size <= RT_TEMP_SIZE &&
		    w->depth < RT_TEMP_NEST) {
			rec = rt_temp[w->depth];
			w->rbev = NULL;
		} else {
			int err;

			/* The ring buffer's write fast path, inline. */
			e = ringbuf_fe_reserve(rb, w->size, &err);
			if (!e) {
				if (__builtin_expect(w->trig != NULL, 0))
					rt_trigger_no_record(w, from);
				continue;
			}
			rec = ringbuf_event_data_inline(e);
			w->rbev = e;
		}
		rt_fill_entry(rec, w->event->priv->id, w->depth);
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
	return rt_write_next(w, __builtin_return_address(0));
}

__attribute__((no_instrument_function)) void *
ringtrace_write_first(struct ringtrace_event *ev, struct ringtrace_write *w,
		      size_t size)
{
	w->event = ev;
	w->size = size;
	w->depth = rt_cur.depth++;
	if (__builtin_expect(!rt_cur.comm_saved, 0))
		rt_cmdline_save();
	rt_rcu_read_lock();
	/* Relaxed: each bit is checked again through rt_instances[] (an
	 * acquire load) before anything of the instance is used. */
	w->mask = atomic_load_explicit(&ev->enabled, memory_order_relaxed);
	if (!ev->priv)
		w->mask = 0;
	return rt_write_next(w, __builtin_return_address(0));
}

/* ---- what triggers do in the write path --------------------------------- */

static struct ringbuf *rt_make_buffer(struct ringtrace_instance *tr,
				      bool snap, size_t size_kb, int clock,
				      bool overwrite);

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

/* Take one firing of @t: false when its count is spent. Bounded: a
 * count fought over that long loses this firing. */
static __attribute__((no_instrument_function)) bool
rt_trigger_take(struct rt_trigger *t)
{
	long c = atomic_load_explicit(&t->count, memory_order_relaxed);
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		if (c < 0)
			return true;
		if (c == 0)
			return false;
		/* Relaxed: the count orders nothing; the cmpxchg only makes
		 * each firing take one unit. */
		if (atomic_compare_exchange_weak_explicit(
			    &t->count, &c, c - 1, memory_order_relaxed,
			    memory_order_relaxed))
			return true;
	}
	return false;
}

/* The snapshot trigger: swap the live buffer with the snapshot buffer.
 * Called with the instance's lock held. */
static __attribute__((no_instrument_function)) void
rt_snapshot_swap_locked(struct ringtrace_instance *tr)
{
	struct ringbuf *rb = atomic_load_explicit(&tr->rb, memory_order_relaxed);
	int cpu, n = ringbuf_nr_cpus(rb);

	if (!tr->snap)
		return;
	ringbuf_reset(tr->snap);
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
	bool on;

	if (!tr)
		return;
	/* Pairs with the release store of a new buffer (trace clock). */
	rb = atomic_load_explicit(&tr->rb, memory_order_acquire);
	switch (t->type) {
	case RT_TRIG_TRACEON:
	case RT_TRIG_TRACEOFF:
		on = t->type == RT_TRIG_TRACEON;
		/* As the kernel's traceon/traceoff: a firing that changes
		 * nothing does not count. */
		if (ringbuf_record_is_on(rb) == on || !rt_trigger_take(t))
			return;
		if (on)
			ringbuf_record_on(rb);
		else
			ringbuf_record_off(rb);
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
	case RT_TRIG_ENABLE_EVENT:
	case RT_TRIG_DISABLE_EVENT:
		on = t->type == RT_TRIG_ENABLE_EVENT;
		/* Relaxed: the soft-disabled bit is the whole state; the
		 * target's writers read it relaxed too. */
		if (!(atomic_load_explicit(&t->target->soft_disabled,
					   memory_order_relaxed) &
		      bit) == on ||
		    !rt_trigger_take(t))
			return;
		if (on)
			atomic_fetch_and_explicit(&t->target->soft_disabled,
						  ~bit, memory_order_relaxed);
		else
			atomic_fetch_or_explicit(&t->target->soft_disabled,
						 bit, memory_order_relaxed);
		break;
	}
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

	for (i = 0; i < l->nr; i++)
		if (!l->t[i]->filter ||
		    rt_filter_match(l->t[i]->filter, w->rec, w->size))
			fire |= 1u << i;
	keep = !(w->soft & 1) && (!f || rt_filter_match(f, w->rec, w->size));
	if (!w->rbev) {
		struct ringbuf_event *e =
			keep ? ringbuf_lock_reserve(w->rb, w->size) : NULL;

		if (e) {
			memcpy(ringbuf_event_data(e), w->rec, w->size);
			ringbuf_unlock_commit(w->rb);
		}
		keep = e != NULL;
	} else if (keep) {
		ringbuf_unlock_commit(w->rb);
	} else {
		ringbuf_discard_commit(w->rb, w->rbev);
	}
	/* the stacktrace option: a stack after each record kept */
	if (keep && (w->soft & 2))
		rt_write_stack(w->rb, w->depth, from);
	for (i = 0; i < l->nr; i++)
		if (fire & (1u << i))
			rt_trigger_fire(w, l->t[i], from);
}

/* A record too big to be assigned aside, that the buffer refused: the
 * triggers without a filter run all the same. */
static __attribute__((noinline, no_instrument_function)) void
rt_trigger_no_record(struct ringtrace_write *w, const void *from)
{
	const struct rt_trigger_list *l = w->trig;
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		if (!l->t[i]->filter)
			rt_trigger_fire(w, l->t[i], from);
}

/* A snapshot buffer like the live one; called with the instance's lock */
static int rt_snapshot_make_locked(struct ringtrace_instance *tr)
{
	struct ringbuf *rb = atomic_load_explicit(&tr->rb, memory_order_relaxed);

	tr->snap = rt_make_buffer(
		tr, true, tr->size_kb, ringbuf_clock(rb),
		(atomic_load_explicit(&tr->options, memory_order_relaxed) &
		 RT_OPT(RT_OPT_OVERWRITE)) != 0);
	return tr->snap ? 0 : -ENOMEM;
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

	if (__builtin_expect(w->trig != NULL, 0)) {
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
	if (f && !rt_filter_match(f, w->rec, w->size))
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
	return rt_write_next(w, from);
}

/*
 * rt_write_builtin - write one built-in record (function, graph, print,
 * raw_data) into every instance of @mask. @fill writes the payload after
 * the header.
 */
static __attribute__((no_instrument_function)) int
rt_write_builtin(uint64_t mask, uint16_t type, size_t size,
		 void (*fill)(void *rec, const void *arg), const void *arg)
{
	int depth = rt_cur.depth++;
	int written = 0;
	/* Instances with a set_ftrace_pid list: function records only.
	 * Relaxed: the lists themselves are loaded with acquire loads. */
	uint64_t pids = type == RT_TYPE_FN || type == RT_TYPE_GRAPH_ENT ||
				type == RT_TYPE_GRAPH_RET ?
			atomic_load_explicit(&rt_ftrace_pid_mask,
					     memory_order_relaxed) :
			0;

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
	while (mask) {
		int i = __builtin_ctzll(mask);
		struct ringbuf *rb;
		struct ringbuf_event *e;
		void *rec;

		mask &= mask - 1;
		rb = rt_inst_rb(i);
		if (!rb)
			continue;
		e = ringbuf_lock_reserve(rb, size);
		if (!e)
			continue;
		rec = ringbuf_event_data(e);
		rt_fill_entry(rec, type, depth);
		fill(rec, arg);
		ringbuf_unlock_commit(rb);
		written++;
	}
	rt_rcu_read_unlock();
	rt_cur.depth--;
	return written;
}

/* ---- function tracer records ------------------------------------------- */

struct rt_fn_arg {
	unsigned long a, b;
	int depth;
	unsigned int overrun;
	uint64_t t0, t1;
};

static __attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_fill_fn(void *rec, const void *arg)
{
	struct rt_fn_entry *e = rec;
	const struct rt_fn_arg *a = arg;

	e->ip = a->a;
	e->parent_ip = a->b;
}

__attribute__((no_instrument_function)) void
rt_ftrace_function_event(unsigned long ip, unsigned long parent_ip)
{
	struct rt_fn_arg a = { .a = ip, .b = parent_ip };
	uint64_t mask = atomic_load_explicit(&rt_fn_mask, memory_order_relaxed);

	if (mask)
		rt_write_builtin(mask, RT_TYPE_FN, sizeof(struct rt_fn_entry),
				 rt_fill_fn, &a);
}

static __attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_fill_graph_ent(void *rec, const void *arg)
{
	struct rt_graph_ent_entry *e = rec;
	const struct rt_fn_arg *a = arg;

	e->func = a->a;
	e->depth = a->depth;
}

__attribute__((no_instrument_function)) void
rt_ftrace_graph_entry_event(unsigned long func, int depth)
{
	struct rt_fn_arg a = { .a = func, .depth = depth };
	uint64_t mask =
		atomic_load_explicit(&rt_graph_mask, memory_order_relaxed);

	if (mask)
		rt_write_builtin(mask, RT_TYPE_GRAPH_ENT,
				 sizeof(struct rt_graph_ent_entry),
				 rt_fill_graph_ent, &a);
}

static __attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_fill_graph_ret(void *rec, const void *arg)
{
	struct rt_graph_ret_entry *e = rec;
	const struct rt_fn_arg *a = arg;

	e->func = a->a;
	e->depth = a->depth;
	e->overrun = a->overrun;
	e->calltime = a->t0;
	e->rettime = a->t1;
}

__attribute__((no_instrument_function)) void
rt_ftrace_graph_return_event(unsigned long func, int depth, uint64_t calltime,
			     uint64_t rettime, unsigned int overrun)
{
	struct rt_fn_arg a = { .a = func,
			       .depth = depth,
			       .overrun = overrun,
			       .t0 = calltime,
			       .t1 = rettime };
	uint64_t mask =
		atomic_load_explicit(&rt_graph_mask, memory_order_relaxed);

	if (mask)
		rt_write_builtin(mask, RT_TYPE_GRAPH_RET,
				 sizeof(struct rt_graph_ret_entry),
				 rt_fill_graph_ret, &a);
}

/*
 * The graph's calltime and rettime, and critical-section lengths: always
 * CLOCK_MONOTONIC nanoseconds, whatever the buffers' trace_clock, as the
 * kernel takes them from trace_clock_local(). Durations then read in
 * microseconds even when the buffer counts TSC cycles.
 */
__attribute__((no_instrument_function)) uint64_t rt_ftrace_clock(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The clock of the first buffer in @mask, in its own unit. */
static __attribute__((no_instrument_function)) uint64_t
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

static int rt_print_record(struct ringtrace_instance *tr, unsigned long ip,
			   const char *text, size_t len)
{
	struct rt_print_arg a = { .ip = ip, .text = text };
	uint64_t mask = rt_marker_mask(tr);
	size_t max;
	struct ringbuf *rb;

	if (!mask)
		return -EINVAL;
	rb = ringtrace_buffer(tr);
	max = ringbuf_max_event_size(rb) - sizeof(struct rt_print_entry) - 2;
	if (len > max)
		len = max;
	a.len = len;
	a.nl = len == 0 || text[len - 1] != '\n';
	return rt_write_builtin(mask, RT_TYPE_PRINT,
				sizeof(struct rt_print_entry) + len + 2,
				rt_fill_print, &a) ?
		       0 :
		       -ENOSPC;
}

/*
 * Named as the kernel's trace_marker write handler, so that the record's
 * ip resolves to the name the kernel shows: "tracing_mark_write: text".
 */
__attribute__((noinline, used)) int tracing_mark_write(
	struct ringtrace_instance *tr, const char *text, size_t len)
{
	return rt_print_record(tr, (unsigned long)tracing_mark_write, text,
			       len);
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
			       buf, (size_t)n);
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
}

void ringtrace_irq_exit(void)
{
	if (rt_cur.irq > 0)
		rt_cur.irq--;
}

/* ------------------------------------------------------------------------ */
/* The usersoff latency tracer                                              */

static void rt_latency_check(uint64_t mask, uint64_t delta,
			     uint64_t buf_start, unsigned long start_ip,
			     unsigned long end_ip);

__attribute__((noinline)) void ringtrace_critical_start(void)
{
	uint64_t mask = atomic_load_explicit(&rt_lat_mask,
					     memory_order_relaxed);
	struct rt_fn_arg a;

	if (!mask || rt_cur.crit_nest++ > 0)
		return;
	/* The start stamps first, so that the section's own first record
	 * is inside it. */
	rt_cur.crit_buf_start = rt_buffer_clock(mask);
	rt_cur.crit_start = rt_ftrace_clock();
	a.a = (unsigned long)__builtin_return_address(0);
	a.b = 0;
	rt_write_builtin(mask, RT_TYPE_FN, sizeof(struct rt_fn_entry),
			 rt_fill_fn, &a);
	rt_cur.crit_ip = a.a;
}

__attribute__((noinline)) void ringtrace_critical_end(void)
{
	uint64_t mask = atomic_load_explicit(&rt_lat_mask,
					     memory_order_relaxed);
	uint64_t end;
	struct rt_fn_arg a;

	if (rt_cur.crit_nest == 0 || --rt_cur.crit_nest > 0)
		return;
	if (!mask || !rt_cur.crit_start)
		return;
	end = rt_ftrace_clock();
	a.a = (unsigned long)__builtin_return_address(0);
	a.b = 0;
	rt_write_builtin(mask, RT_TYPE_FN, sizeof(struct rt_fn_entry),
			 rt_fill_fn, &a);
	rt_latency_check(mask, end - rt_cur.crit_start, rt_cur.crit_buf_start,
			 rt_cur.crit_ip, a.a);
	rt_cur.crit_start = 0;
}

struct rt_latency_info rt_latency[RT_MAX_INSTANCES];

static void rt_latency_check(uint64_t mask, uint64_t delta,
			     uint64_t buf_start, unsigned long start_ip,
			     unsigned long end_ip)
{
	/* Userspace: the kernel swaps the max buffer with interrupts off;
	 * here a nested writer (signal handler inside a write) cannot wait
	 * for the buffer to drain, so it only records the maximum. */
	while (mask) {
		int i = __builtin_ctzll(mask);
		struct ringtrace_instance *tr;
		uint64_t thresh;

		mask &= mask - 1;
		rt_rcu_read_lock();
		/* Pairs with the release stores that publish instances. */
		tr = atomic_load_explicit(&rt_instances[i],
					  memory_order_acquire);
		thresh = tr ? atomic_load_explicit(&tr->thresh_ns,
						   memory_order_relaxed) : 0;
		/* As the kernel's report_latency(): with a threshold, every
		 * section over it is kept; without, only a new maximum. */
		if (!tr || (thresh && delta < thresh) ||
		    (!thresh && delta <= atomic_load_explicit(
					       &tr->max_latency_ns,
					       memory_order_relaxed))) {
			rt_rcu_read_unlock();
			continue;
		}
		/* trylock: a signal handler must never wait for the lock its
		 * own thread may hold; losing the race loses one report. */
		if (pthread_mutex_trylock(&tr->max_lock) != 0) {
			rt_rcu_read_unlock();
			continue;
		}
		if (thresh || delta > atomic_load_explicit(&tr->max_latency_ns,
							   memory_order_relaxed)) {
			atomic_store_explicit(&tr->max_latency_ns, delta,
					      memory_order_relaxed);
			rt_latency[i] = (struct rt_latency_info){
				.start_ts = buf_start,
				.start_ip = start_ip,
				.end_ip = end_ip,
				.pid = rt_gettid(),
				.cpu = sched_getcpu(),
			};
			/*
			 * The swap allocates, takes reader locks and waits
			 * for writers: only in a thread's own context (not
			 * inside a write, not in a marked signal handler),
			 * and only with the instance's lock, which keeps
			 * the buffers from being replaced meanwhile. A busy
			 * lock loses this snapshot, not the maximum.
			 */
			if (rt_cur.depth == 0 && rt_cur.irq == 0 &&
			    pthread_mutex_trylock(&tr->lock) == 0) {
				rt_snapshot_swap_locked(tr);
				pthread_mutex_unlock(&tr->lock);
			}
		}
		pthread_mutex_unlock(&tr->max_lock);
		rt_rcu_read_unlock();
	}
}

uint64_t ringtrace_max_latency(struct ringtrace_instance *tr)
{
	tr = rt_instance_get(tr);
	if (!tr)
		return 0;
	return atomic_load_explicit(&tr->max_latency_ns,
				    memory_order_relaxed) / 1000;
}

void ringtrace_set_max_latency(struct ringtrace_instance *tr, uint64_t usecs)
{
	tr = rt_instance_get(tr);
	if (tr)
		atomic_store_explicit(&tr->max_latency_ns, usecs * 1000,
				      memory_order_relaxed);
}

void ringtrace_set_thresh(struct ringtrace_instance *tr, uint64_t usecs)
{
	tr = rt_instance_get(tr);
	if (tr)
		atomic_store_explicit(&tr->thresh_ns, usecs * 1000,
				      memory_order_relaxed);
}

/* ------------------------------------------------------------------------ */
/* Instances                                                                */

/*
 * A buffer for @tr (its snapshot buffer with @snap): a shared file in the
 * publish directory when the process is published, private otherwise.
 */
static struct ringbuf *rt_make_buffer(struct ringtrace_instance *tr,
				      bool snap, size_t size_kb, int clock,
				      bool overwrite)
{
	char path[PATH_MAX];
	RINGBUF_OPTS(o, .size = size_kb * 1024,
		     .flags = overwrite ? RINGBUF_FL_OVERWRITE : 0,
		     .model = RINGBUF_PER_CPU, .clock = clock);

	if (rt_publish_buffer_path(tr, snap, path, sizeof(path)) == 0)
		o.path = path;
	return ringbuf_create(&o);
}

static uint64_t rt_default_options(void)
{
	uint64_t o = 0;
	int i;

	for (i = 0; i < RT_OPT_NR; i++)
		if (rt_opt_table[i].on)
			o |= RT_OPT(i);
	return o;
}

static struct ringtrace_instance *rt_instance_new(const char *name, int id,
						  size_t size_kb, int clock)
{
	struct ringtrace_instance *tr = calloc(1, sizeof(*tr));

	if (!tr)
		return NULL;
	snprintf(tr->name, sizeof(tr->name), "%s", name);
	tr->id = id;
	tr->size_kb = size_kb;
	tr->clock = clock;
	tr->buffer_percent = 50;
	atomic_init(&tr->options, rt_default_options());
	pthread_mutex_init(&tr->lock, NULL);
	pthread_mutex_init(&tr->max_lock, NULL);
	atomic_init(&tr->rb, rt_make_buffer(tr, false, size_kb, clock, true));
	if (!atomic_load_explicit(&tr->rb, memory_order_relaxed)) {
		free(tr);
		return NULL;
	}
	tr->time_start = ringbuf_time_stamp(tr->rb);
	return tr;
}

static int rt_replace_buffers(struct ringtrace_instance *tr, size_t size_kb,
			      int clock);

/* Keep a replaced buffer until the instance goes (called with tr->lock);
 * its file is removed now. */
static void rt_retire(struct ringtrace_instance *tr, struct ringbuf *rb)
{
	struct ringbuf **n;
	const char *path = ringbuf_path(rb);

	ringbuf_record_off(rb);
	if (path)
		unlink(path);
	n = realloc(tr->retired, (tr->nr_retired + 1) * sizeof(*n));
	if (!n) {
		/* no room to keep it: free it after a grace period, which
		 * covers every writer (not a waiter, which is rare) */
		rt_synchronize_rcu();
		ringbuf_free(rb);
		return;
	}
	tr->retired = n;
	tr->retired[tr->nr_retired++] = rb;
}

static size_t rt_boot_size_kb = RT_DEFAULT_SIZE_KB;
static int rt_boot_clock = RINGBUF_CLOCK_MONO;
static pthread_once_t rt_init_once = PTHREAD_ONCE_INIT;

static int rt_clock_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(rt_clocks) / sizeof(rt_clocks[0]); i++)
		if (!strcmp(rt_clocks[i].name, name))
			return rt_clocks[i].clock;
	return -1;
}

static void rt_apply_boot_options(struct ringtrace_instance *tr);

static void rt_do_init(void)
{
	const char *s = getenv("RINGTRACE_BUF_SIZE_KB");
	struct ringtrace_instance *tr;

	if (s) {
		char *end;
		long kb = strtol(s, &end, 10);

		if (kb > 0 && *end == '\0')
			rt_boot_size_kb = (size_t)kb;
		else
			rt_warn("ringtrace: RINGTRACE_BUF_SIZE_KB: '%s' is not a size in KiB; using %zu\n",
				s, rt_boot_size_kb);
	}
	s = getenv("RINGTRACE_CLOCK");
	if (s && rt_clock_by_name(s) >= 0)
		rt_boot_clock = rt_clock_by_name(s);
	else if (s)
		rt_warn("ringtrace: RINGTRACE_CLOCK: unknown clock '%s'; using mono\n",
			s);
	rt_publish_init();
	tr = rt_instance_new("", 0, rt_boot_size_kb, rt_boot_clock);
	if (!tr && rt_boot_size_kb != RT_DEFAULT_SIZE_KB) {
		/* a size too large for this machine is reported like an
		 * unparsable one: the process stays traceable */
		rt_warn("ringtrace: RINGTRACE_BUF_SIZE_KB: cannot allocate %zu KiB per cpu (%s); using %u\n",
			rt_boot_size_kb, strerror(errno), RT_DEFAULT_SIZE_KB);
		rt_boot_size_kb = RT_DEFAULT_SIZE_KB;
		tr = rt_instance_new("", 0, rt_boot_size_kb, rt_boot_clock);
	}
	if (!tr) {
		rt_warn("ringtrace: cannot allocate the trace buffer\n");
		return;
	}
	/* Publishes the initialised instance; pairs with the acquire loads
	 * in rt_inst_rb() and rt_instance_get(). */
	atomic_store_explicit(&rt_instances[0], tr, memory_order_release);
	rt_publish_instance(tr);
	rt_apply_boot_options(tr);
}

/*
 * A forked child starts with a single thread and fresh locks: any of
 * them may have been held by another thread of the parent at the fork,
 * and the child would hang on it (at exit, unregistering its events).
 * The child records nothing (its buffers refuse writes), so the state
 * those locks protect only has to be good enough to exit.
 */
static void rt_fork_child(void)
{
	int i;

	pthread_mutex_init(&rt_control_lock, NULL);
	rt_events_fork_child();
	rt_publish_fork_child();
	for (i = 0; i < RT_MAX_INSTANCES; i++) {
		struct ringtrace_instance *tr = atomic_load_explicit(
			&rt_instances[i], memory_order_relaxed);

		if (tr) {
			pthread_mutex_init(&tr->lock, NULL);
			pthread_mutex_init(&tr->max_lock, NULL);
		}
	}
}

__attribute__((constructor)) static void rt_fork_setup(void)
{
	pthread_atfork(NULL, NULL, rt_fork_child);
}

void rt_lazy_init(void)
{
	pthread_once(&rt_init_once, rt_do_init);
}

/*
 * The tracer starts when the library loads: the process publishes itself
 * (ctl.h) so that the ringtrace tool can attach to it at any time, and
 * the RINGTRACE_* settings apply from the program's first call on, as the
 * kernel's boot options do. RINGTRACE_PUBLISH=0 without any other
 * RINGTRACE_ setting keeps the start lazy (at the first API call).
 */
__attribute__((constructor)) static void rt_boot(void)
{
	extern char **environ;
	const char *pub = getenv("RINGTRACE_PUBLISH");
	char **e;

	if (!pub || strcmp(pub, "0")) {
		rt_lazy_init();
		return;
	}
	for (e = environ; e && *e; e++)
		if (!strncmp(*e, "RINGTRACE_", 10) &&
		    strncmp(*e + 10, "DIR=", 4) &&
		    strncmp(*e + 10, "PUBLISH=", 8)) {
			rt_lazy_init();
			return;
		}
}

struct ringtrace_instance *rt_instance_get(struct ringtrace_instance *tr)
{
	if (tr)
		return tr;
	rt_lazy_init();
	/* Pairs with the release store in rt_do_init(). */
	return atomic_load_explicit(&rt_instances[0], memory_order_acquire);
}

struct ringtrace_instance *ringtrace_top(void)
{
	struct ringtrace_instance *tr = rt_instance_get(NULL);

	if (!tr)
		errno = ENOMEM;
	return tr;
}

struct ringtrace_instance *ringtrace_instance_lookup(const char *name)
{
	struct ringtrace_instance *found = NULL;
	int i;

	if (!name || !*name)
		return ringtrace_top();
	pthread_mutex_lock(&rt_control_lock);
	for (i = 1; i < RT_MAX_INSTANCES; i++) {
		struct ringtrace_instance *tr = atomic_load_explicit(
			&rt_instances[i], memory_order_relaxed);

		if (tr && !strcmp(tr->name, name)) {
			found = tr;
			break;
		}
	}
	pthread_mutex_unlock(&rt_control_lock);
	if (!found)
		errno = ENOENT;
	return found;
}

struct ringtrace_instance *ringtrace_instance_create(const char *name)
{
	struct ringtrace_instance *tr;
	int i, slot = -1;
	const char *p;

	if (!ringtrace_top())
		return NULL;
	if (!name || !*name || strlen(name) >= sizeof(tr->name)) {
		errno = EINVAL;
		return NULL;
	}
	for (p = name; *p; p++) {
		if (*p == '/' || (unsigned char)*p <= ' ' || *p == 0x7f) {
			errno = EINVAL;
			return NULL;
		}
	}
	pthread_mutex_lock(&rt_control_lock);
	for (i = 1; i < RT_MAX_INSTANCES; i++) {
		tr = atomic_load_explicit(&rt_instances[i],
					  memory_order_relaxed);
		if (!tr && slot < 0)
			slot = i;
		if (tr && !strcmp(tr->name, name)) {
			pthread_mutex_unlock(&rt_control_lock);
			errno = EEXIST;
			return NULL;
		}
	}
	if (slot < 0) {
		pthread_mutex_unlock(&rt_control_lock);
		errno = ENOSPC;
		return NULL;
	}
	tr = rt_instance_new(name, slot, rt_boot_size_kb, rt_boot_clock);
	if (tr)
		/* Publishes the instance; pairs with rt_inst_rb(). */
		atomic_store_explicit(&rt_instances[slot], tr,
				      memory_order_release);
	pthread_mutex_unlock(&rt_control_lock);
	if (tr)
		rt_publish_instance(tr);
	if (!tr)
		errno = ENOMEM;
	return tr;
}

static void rt_update_tracer_masks(void)
{
	uint64_t fn = 0, graph = 0, lat = 0;
	unsigned int en = 0;
	int i;

	for (i = 0; i < RT_MAX_INSTANCES; i++) {
		struct ringtrace_instance *tr = atomic_load_explicit(
			&rt_instances[i], memory_order_relaxed);

		if (!tr)
			continue;
		switch (atomic_load_explicit(&tr->tracer,
					     memory_order_relaxed)) {
		case RT_TRACER_FUNCTION:
			fn |= 1ull << i;
			break;
		case RT_TRACER_GRAPH:
			graph |= 1ull << i;
			break;
		case RT_TRACER_USERSOFF:
			lat |= 1ull << i;
			break;
		}
	}
	/* Relaxed: the hooks check each bit again through rt_instances[]
	 * under RCU; a stale mask costs one record or misses one. */
	atomic_store_explicit(&rt_fn_mask, fn, memory_order_relaxed);
	atomic_store_explicit(&rt_graph_mask, graph, memory_order_relaxed);
	atomic_store_explicit(&rt_lat_mask, lat, memory_order_relaxed);
	if (fn)
		en |= RT_FTRACE_FUNCTION;
	if (graph)
		en |= RT_FTRACE_GRAPH;
	atomic_store_explicit(&rt_ftrace_enabled, en, memory_order_relaxed);
}

int ringtrace_instance_destroy(struct ringtrace_instance *tr)
{
	if (!tr || tr->id == 0)
		return -EINVAL;
	pthread_mutex_lock(&rt_control_lock);
	/* Out of the array first: a set_event racing with this sees the
	 * instance gone (rt_instance_live()) or has its bits cleared by
	 * rt_events_instance_gone() right after. */
	atomic_store_explicit(&rt_instances[tr->id], NULL,
			      memory_order_relaxed);
	rt_events_instance_gone(tr->id);
	rt_update_tracer_masks();
	pthread_mutex_unlock(&rt_control_lock);
	rt_unpublish_instance(tr);
	/* Every writer that saw the instance has left its read-side
	 * section after this. */
	rt_synchronize_rcu();
	rt_pids_free(tr);
	ringbuf_free(atomic_load_explicit(&tr->rb, memory_order_relaxed));
	if (tr->snap)
		ringbuf_free(tr->snap);
	while (tr->nr_retired)
		ringbuf_free(tr->retired[--tr->nr_retired]);
	free(tr->retired);
	rt_instance_slot_gone(tr->id);
	pthread_mutex_destroy(&tr->lock);
	pthread_mutex_destroy(&tr->max_lock);
	free(tr);
	return 0;
}

const char *ringtrace_instance_name(struct ringtrace_instance *tr)
{
	tr = rt_instance_get(tr);
	return tr ? tr->name : "";
}

struct ringbuf *ringtrace_buffer(struct ringtrace_instance *tr)
{
	tr = rt_instance_get(tr);
	/* Pairs with the release store of a new buffer in
	 * rt_replace_buffers(); the old one is kept until the instance goes
	 * (rt_retire()), so the caller may keep using what it got. */
	return tr ? atomic_load_explicit(&tr->rb, memory_order_acquire) : NULL;
}

int rt_nr_cpus(struct ringtrace_instance *tr)
{
	return ringbuf_nr_cpus(ringtrace_buffer(tr));
}

/* ------------------------------------------------------------------------ */
/* Tracers and options                                                      */

int ringtrace_set_tracer(struct ringtrace_instance *tr, const char *name)
{
	int i, cur;

	tr = rt_instance_get(tr);
	if (!tr || !name)
		return -EINVAL;
	for (i = 0; i < RT_TRACER_NR; i++)
		if (!strcmp(rt_tracer_name(i), name))
			break;
	if (i == RT_TRACER_NR)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	if (i == RT_TRACER_USERSOFF && !tr->snap) {
		struct ringbuf *rb =
			atomic_load_explicit(&tr->rb, memory_order_relaxed);

		tr->snap = rt_make_buffer(tr, true, tr->size_kb,
					  ringbuf_clock(rb), true);
		if (!tr->snap) {
			pthread_mutex_unlock(&tr->lock);
			return -ENOMEM;
		}
	}
	/* The latency tracer shows its trace in the latency format and
	 * restores the option when it is switched off, as irqsoff does. */
	cur = atomic_load_explicit(&tr->tracer, memory_order_relaxed);
	if (i == RT_TRACER_USERSOFF && cur != RT_TRACER_USERSOFF) {
		uint64_t o = atomic_fetch_or_explicit(
			&tr->options, RT_OPT(RT_OPT_LATENCY_FMT),
			memory_order_relaxed);

		tr->saved_lat_fmt = (o & RT_OPT(RT_OPT_LATENCY_FMT)) != 0;
		atomic_store_explicit(&tr->max_latency_ns, 0,
				      memory_order_relaxed);
	} else if (i != RT_TRACER_USERSOFF && cur == RT_TRACER_USERSOFF &&
		   !tr->saved_lat_fmt) {
		atomic_fetch_and_explicit(&tr->options,
					  ~RT_OPT(RT_OPT_LATENCY_FMT),
					  memory_order_relaxed);
	}
	pthread_mutex_lock(&rt_control_lock);
	atomic_store_explicit(&tr->tracer, i, memory_order_relaxed);
	rt_update_tracer_masks();
	pthread_mutex_unlock(&rt_control_lock);
	pthread_mutex_unlock(&tr->lock);
	rt_publish_instance(tr);
	/* tools (and an extract after a crash) name the functions from the
	 * published symbols */
	if (i == RT_TRACER_FUNCTION || i == RT_TRACER_GRAPH)
		rt_publish_syms();
	return 0;
}

const char *ringtrace_current_tracer(struct ringtrace_instance *tr)
{
	tr = rt_instance_get(tr);
	if (!tr)
		return "nop";
	return rt_tracer_name(atomic_load_explicit(&tr->tracer,
						   memory_order_relaxed));
}

static int rt_opt_index(const char *name)
{
	int i;

	for (i = 0; i < RT_OPT_NR; i++)
		if (!strcmp(rt_opt_table[i].name, name))
			return i;
	return -1;
}

int ringtrace_set_option(struct ringtrace_instance *tr, const char *opt)
{
	bool on = true;
	int i;

	tr = rt_instance_get(tr);
	if (!tr || !opt)
		return -EINVAL;
	while (*opt == ' ' || *opt == '\t')
		opt++;
	if (!strncmp(opt, "no", 2) && rt_opt_index(opt) < 0) {
		on = false;
		opt += 2;
	}
	i = rt_opt_index(opt);
	if (i < 0)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	if (on)
		atomic_fetch_or_explicit(&tr->options, RT_OPT(i),
					 memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&tr->options, ~RT_OPT(i),
					  memory_order_relaxed);
	if (i == RT_OPT_OVERWRITE) {
		ringbuf_change_overwrite(
			atomic_load_explicit(&tr->rb, memory_order_relaxed),
			on);
		if (tr->snap)
			ringbuf_change_overwrite(tr->snap, on);
	}
	pthread_mutex_unlock(&tr->lock);
	if (i == RT_OPT_STACKTRACE) {
		/* the unwinder is loaded before a write can need it */
		if (on)
			rt_stack_prime();
		rt_events_stack_option(tr->id, on);
	}
	return 0;
}

int ringtrace_option(struct ringtrace_instance *tr, const char *opt)
{
	int i;

	tr = rt_instance_get(tr);
	if (!tr || !opt || (i = rt_opt_index(opt)) < 0)
		return -EINVAL;
	return !!(atomic_load_explicit(&tr->options, memory_order_relaxed) &
		  RT_OPT(i));
}

size_t ringtrace_show_options(struct ringtrace_instance *tr, char *buf,
			      size_t len)
{
	size_t n = 0;
	uint64_t o;
	int i;

	/* NULL @buf: only the length is wanted (as snprintf()) */
	if (!buf)
		len = 0;
	tr = rt_instance_get(tr);
	if (len)
		buf[0] = '\0';
	if (!tr)
		return 0;
	o = atomic_load_explicit(&tr->options, memory_order_relaxed);
	for (i = 0; i < RT_OPT_NR; i++) {
		int w = snprintf(buf + (n < len ? n : len),
				 n < len ? len - n : 0, "%s%s\n",
				 (o & RT_OPT(i)) ? "" : "no",
				 rt_opt_table[i].name);

		n += (size_t)w;
	}
	return n;
}

void ringtrace_tracing_on(struct ringtrace_instance *tr, bool on)
{
	struct ringbuf *rb;

	tr = rt_instance_get(tr);
	if (!tr)
		return;
	pthread_mutex_lock(&tr->lock);
	rb = atomic_load_explicit(&tr->rb, memory_order_relaxed);
	if (on)
		ringbuf_record_on(rb);
	else
		ringbuf_record_off(rb);
	pthread_mutex_unlock(&tr->lock);
}

bool ringtrace_tracing_is_on(struct ringtrace_instance *tr)
{
	tr = rt_instance_get(tr);
	return tr && ringbuf_record_is_on(ringtrace_buffer(tr));
}

int ringtrace_set_buffer_size_kb(struct ringtrace_instance *tr, size_t kb)
{
	int ret;

	tr = rt_instance_get(tr);
	if (!tr || kb == 0)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	if (rt_published()) {
		ret = rt_replace_buffers(tr, kb, tr->clock);
	} else {
		ret = ringbuf_resize(atomic_load_explicit(&tr->rb,
							  memory_order_relaxed),
				     kb * 1024, RINGBUF_ALL_CPUS);
		if (!ret && tr->snap)
			ret = ringbuf_resize(tr->snap, kb * 1024,
					     RINGBUF_ALL_CPUS);
		if (!ret)
			tr->size_kb = kb;
	}
	pthread_mutex_unlock(&tr->lock);
	return ret;
}

size_t ringtrace_buffer_size_kb(struct ringtrace_instance *tr)
{
	size_t kb;

	tr = rt_instance_get(tr);
	if (!tr)
		return 0;
	/* As tracefs shows it: the size asked for, not the page-rounded
	 * size the buffer holds. */
	pthread_mutex_lock(&tr->lock);
	kb = tr->size_kb;
	pthread_mutex_unlock(&tr->lock);
	return kb;
}

int ringtrace_set_buffer_percent(struct ringtrace_instance *tr, int percent)
{
	tr = rt_instance_get(tr);
	if (!tr || percent < 0 || percent > 100)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	tr->buffer_percent = percent;
	pthread_mutex_unlock(&tr->lock);
	return 0;
}

int ringtrace_buffer_percent(struct ringtrace_instance *tr)
{
	int p;

	tr = rt_instance_get(tr);
	if (!tr)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	p = tr->buffer_percent;
	pthread_mutex_unlock(&tr->lock);
	return p;
}

/*
 * Wait on @tr's live buffer for at most @timeout_ms (-1: forever), in
 * slices of 100 ms, so that a waiter on a buffer that was replaced
 * meanwhile (rt_retire()) moves to the new one.
 */
int rt_wait_slice(struct ringtrace_instance *tr, int cpu, int full,
		  int timeout_ms)
{
	int left = timeout_ms, ret;

	for (;;) {
		int slice = left < 0 || left > 100 ? 100 : left;

		ret = ringbuf_wait(ringtrace_buffer(tr), cpu, full, slice);
		if (ret != 0 || left == 0)
			return ret;
		if (left > 0) {
			left -= slice;
			if (left <= 0)
				return 0;
		}
	}
}

int ringtrace_buffer_wait(struct ringtrace_instance *tr, int cpu,
			  int timeout_ms)
{
	int percent = ringtrace_buffer_percent(tr);

	if (percent < 0)
		return percent;
	return rt_wait_slice(rt_instance_get(tr), cpu, percent, timeout_ms);
}

/*
 * Give @tr new buffers of @size_kb and @clock (called with tr->lock).
 * Userspace: the kernel changes the clock of the live buffer and resets
 * it, and resizes it in place; here the clock is fixed at creation and a
 * published (shared) buffer cannot be resized, so new buffers are made,
 * published (release, pairs with rt_inst_rb()), and the old ones freed
 * after a grace period. The records of the old buffer go with it.
 */
static int rt_replace_buffers(struct ringtrace_instance *tr, size_t size_kb,
			      int clock)
{
	struct ringbuf *old = atomic_load_explicit(&tr->rb,
						   memory_order_relaxed);
	struct ringbuf *nrb, *snap = NULL;
	bool on = (atomic_load_explicit(&tr->options, memory_order_relaxed) &
		   RT_OPT(RT_OPT_OVERWRITE)) != 0;

	nrb = rt_make_buffer(tr, false, size_kb, clock, on);
	if (nrb && tr->snap) {
		snap = rt_make_buffer(tr, true, size_kb, clock, on);
		if (!snap) {
			ringbuf_free(nrb);
			nrb = NULL;
		}
	}
	if (!nrb)
		return -ENOMEM;
	if (!ringbuf_record_is_on(old))
		ringbuf_record_off(nrb);
	/* Publishes the initialised buffer; pairs with the acquire loads
	 * in rt_inst_rb() and ringtrace_buffer(). */
	atomic_store_explicit(&tr->rb, nrb, memory_order_release);
	/*
	 * The old buffers are retired, not freed: calls outside the control
	 * lock (a trace_pipe waiting on the old buffer, a marker sizing its
	 * record) may still hold them; they go with the instance. Their
	 * files go now, and a waiter finds the new buffer within its wait
	 * slice (rt_wait_slice()).
	 */
	rt_retire(tr, old);
	if (tr->snap) {
		rt_retire(tr, tr->snap);
		tr->snap = snap;
	}
	tr->clock = clock;
	tr->size_kb = size_kb;
	tr->time_start = ringbuf_time_stamp(nrb);
	rt_publish_instance(tr);
	return 0;
}

int ringtrace_set_clock(struct ringtrace_instance *tr, const char *name)
{
	int clock, ret = 0;

	tr = rt_instance_get(tr);
	if (!tr || !name)
		return -EINVAL;
	clock = rt_clock_by_name(name);
	if (clock < 0)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	if (ringbuf_clock(atomic_load_explicit(&tr->rb,
					       memory_order_relaxed)) != clock)
		ret = rt_replace_buffers(tr, tr->size_kb, clock);
	pthread_mutex_unlock(&tr->lock);
	return ret;
}

const char *rt_clock_name(int clock)
{
	size_t i;

	for (i = 0; i < sizeof(rt_clocks) / sizeof(rt_clocks[0]); i++)
		if (rt_clocks[i].clock == clock)
			return rt_clocks[i].name;
	return "mono";
}

size_t ringtrace_show_clock(struct ringtrace_instance *tr, char *buf,
			    size_t len)
{
	size_t n = 0;
	int i, cur;

	/* NULL @buf: only the length is wanted (as snprintf()) */
	if (!buf)
		len = 0;
	tr = rt_instance_get(tr);
	if (len)
		buf[0] = '\0';
	if (!tr)
		return 0;
	cur = ringbuf_clock(ringtrace_buffer(tr));
	for (i = 0; i < RT_NR_SHOWN_CLOCKS; i++) {
		bool sel = rt_clocks[i].clock == cur;
		int w = snprintf(buf + (n < len ? n : len),
				 n < len ? len - n : 0, "%s%s%s%s", i ? " " : "",
				 sel ? "[" : "", rt_clocks[i].name,
				 sel ? "]" : "");

		n += (size_t)w;
	}
	n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
			      "\n");
	return n;
}

void ringtrace_clear(struct ringtrace_instance *tr)
{
	struct ringbuf *rb;

	tr = rt_instance_get(tr);
	if (!tr)
		return;
	pthread_mutex_lock(&tr->lock);
	rb = atomic_load_explicit(&tr->rb, memory_order_relaxed);
	ringbuf_reset(rb);
	tr->time_start = ringbuf_time_stamp(rb);
	pthread_mutex_unlock(&tr->lock);
}

int ringtrace_snapshot(struct ringtrace_instance *tr, int cmd)
{
	struct ringbuf *rb;
	int ret = 0, cpu, n;

	tr = rt_instance_get(tr);
	if (!tr)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	rb = atomic_load_explicit(&tr->rb, memory_order_relaxed);
	switch (cmd) {
	case 0:
		if (atomic_load_explicit(&tr->tracer, memory_order_relaxed) ==
		    RT_TRACER_USERSOFF) {
			ret = -EBUSY; /* the latency tracer owns it */
			break;
		}
		if (tr->snap)
			ringbuf_free(tr->snap);
		tr->snap = NULL;
		rt_publish_instance(tr);
		break;
	case 1:
		if (atomic_load_explicit(&tr->tracer, memory_order_relaxed) ==
		    RT_TRACER_USERSOFF) {
			ret = -EBUSY;
			break;
		}
		if (!tr->snap) {
			ret = rt_snapshot_make_locked(tr);
			if (ret)
				break;
		}
		ringbuf_reset(tr->snap);
		n = ringbuf_nr_cpus(rb);
		for (cpu = 0; cpu < n && !ret; cpu++)
			ret = ringbuf_swap_cpu(rb, tr->snap, cpu);
		rt_publish_instance(tr);
		break;
	case 2:
		if (tr->snap)
			ringbuf_reset(tr->snap);
		break;
	default:
		ret = -EINVAL;
	}
	pthread_mutex_unlock(&tr->lock);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* The function tracers' controls (function.c holds the lists)             */

int ringtrace_set_ftrace_list(enum ringtrace_ftrace_list list,
			      const char *globs, bool append, char *err,
			      size_t errlen)
{
	if ((int)list < 0 || (int)list >= RT_FTRACE_NR_LISTS)
		return -EINVAL;
	return rt_ftrace_list_set((enum rt_ftrace_list)list, globs, append,
				  err, errlen);
}

size_t ringtrace_show_ftrace_list(enum ringtrace_ftrace_list list, char *buf,
				  size_t len)
{
	/* NULL @buf: only the length is wanted (as snprintf()) */
	if (!buf)
		len = 0;
	if ((int)list < 0 || (int)list >= RT_FTRACE_NR_LISTS) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	return rt_ftrace_list_show((enum rt_ftrace_list)list, buf, len);
}

int ringtrace_available_filter_functions(FILE *out)
{
	return rt_ftrace_available_functions(out);
}

int ringtrace_set_max_graph_depth(int depth)
{
	if (depth < 0)
		return -EINVAL;
	/* Relaxed: the hooks read it relaxed; a hook racing with the change
	 * uses either value. */
	atomic_store_explicit(&rt_max_graph_depth, depth,
			      memory_order_relaxed);
	return 0;
}

void ringtrace_function_trace_stop(bool stop)
{
	/* Relaxed: a hook already past the check finishes its record. */
	atomic_store_explicit(&rt_function_trace_stop, stop ? 1 : 0,
			      memory_order_relaxed);
}

/* ------------------------------------------------------------------------ */
/* Boot-time settings from the environment (the kernel's command line)     */

/*
 *	RINGTRACE_EVENTS	trace_event=	set_event list (commas)
 *	RINGTRACE_TRACER	ftrace=		current_tracer
 *	RINGTRACE_OPTIONS	trace_options=	options (commas)
 *	RINGTRACE_BUF_SIZE_KB	trace_buf_size=	buffer_size_kb
 *	RINGTRACE_CLOCK		trace_clock=	trace_clock
 *	RINGTRACE_FTRACE_FILTER	ftrace_filter=	set_ftrace_filter
 *	RINGTRACE_FTRACE_NOTRACE ftrace_notrace= set_ftrace_notrace
 *	RINGTRACE_GRAPH_FILTER	ftrace_graph_filter= set_graph_function
 *	RINGTRACE_GRAPH_NOTRACE	ftrace_graph_notrace= set_graph_notrace
 *	RINGTRACE_MAX_GRAPH_DEPTH (no boot option)	max_graph_depth
 *
 * and, not the tracer's settings: RINGTRACE_DIR and RINGTRACE_PUBLISH
 * (publication, ctl.h), RINGTRACE_KEEP_FILES, RINGTRACE_HOLD and
 * RINGTRACE_FOLLOW (publish.c). Any other RINGTRACE_* variable is
 * reported (rt_check_env() in publish.c): a misspelt setting is not
 * ignored in silence.
 */
static void rt_apply_boot_options(struct ringtrace_instance *tr)
{
	const char *s = getenv("RINGTRACE_OPTIONS");

	if (s) {
		char *copy = strdup(s), *save = NULL, *tok;

		for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
		     tok = strtok_r(NULL, ",", &save))
			if (ringtrace_set_option(tr, tok))
				rt_warn("ringtrace: RINGTRACE_OPTIONS: unknown option '%s'\n",
					tok);
		free(copy);
	}
	{
		static const struct {
			const char *env;
			enum ringtrace_ftrace_list list;
		} lists[] = {
			{ "RINGTRACE_FTRACE_FILTER", RINGTRACE_FTRACE_FILTER },
			{ "RINGTRACE_FTRACE_NOTRACE", RINGTRACE_FTRACE_NOTRACE },
			{ "RINGTRACE_GRAPH_FILTER", RINGTRACE_GRAPH_FUNCTION },
			{ "RINGTRACE_GRAPH_NOTRACE", RINGTRACE_GRAPH_NOTRACE },
		};
		char e[256];
		size_t i;

		for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
			char *c, *copy;

			s = getenv(lists[i].env);
			copy = s ? strdup(s) : NULL;
			if (!copy)
				continue;
			/* commas, as on the kernel's command line */
			for (c = copy; *c; c++)
				if (*c == ',')
					*c = ' ';
			if (ringtrace_set_ftrace_list(lists[i].list, copy, false,
						      e, sizeof(e)))
				rt_warn("ringtrace: %s: %s\n", lists[i].env, e);
			free(copy);
		}
	}
	s = getenv("RINGTRACE_MAX_GRAPH_DEPTH");
	if (s) {
		char *end;
		long d = strtol(s, &end, 10);

		if (*s && !*end && d >= 0 && d <= INT_MAX)
			ringtrace_set_max_graph_depth((int)d);
		else
			rt_warn("ringtrace: RINGTRACE_MAX_GRAPH_DEPTH: '%s' is not a depth (0: no limit)\n",
				s);
	}
	s = getenv("RINGTRACE_TRACER");
	if (s && ringtrace_set_tracer(tr, s))
		rt_warn("ringtrace: RINGTRACE_TRACER: unknown tracer '%s'\n", s);
	rt_events_apply_boot();
}

