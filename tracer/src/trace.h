/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace.h - the tracer's internals shared by the sources of
 *	libringtrace (tracer/src/: the write path, events, instances,
 *	output, triggers, pids, the latency tracer, publishing, the log)
 */
#ifndef RINGTRACE_TRACE_H
#define RINGTRACE_TRACE_H

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>
#include <ringtrace/event.h>
#include <ringtrace/tracer.h>

#include "entries.h"
#include "field.h"
#include "names.h"
#include "print.h"
#include "rcu.h"

#define RT_MAX_INSTANCES 64
#define RT_COMM_LEN 16

/*
 * The thread-id lists of an instance (set_event_pid, set_event_notrace_pid,
 * set_ftrace_pid, set_ftrace_notrace_pid): sorted, without repeats,
 * replaced whole and published with RCU; NULL when empty.
 */
#define RT_PID_NR_LISTS 4
struct rt_pid_list {
	struct rcu_head rcu; /* freed after a grace period (rt_call_rcu()) */
	unsigned int nr;
	int pid[];
};

/**
 * struct ringtrace_instance - a trace array
 * @rb: the live buffer; replaced (RCU) only when the clock changes
 * @snap: the snapshot buffer, or NULL
 * @options: RT_OPT() bits; writers read RT_OPT_MARKERS relaxed
 * @lock: serialises control calls on the instance
 */
struct ringtrace_instance {
	char name[64];
	int id;
	struct ringbuf *_Atomic rb;
	struct ringbuf *snap;
	struct ringbuf **retired;
	size_t nr_retired;
	bool remote;
	_Atomic uint64_t options;
	_Atomic int tracer;
	size_t size_kb;
	/* per cpu buffer once one was sized alone (per_cpu/cpuN/
	 * buffer_size_kb), else NULL: every one is size_kb */
	size_t *cpu_size_kb;
	int nr_cpu_size_kb;
	/* tracing_cpumask: bit c set when cpu buffer c does not record;
	 * NULL when every one does */
	uint64_t *cpus_off;
	bool saved_lat_fmt;
	int buffer_percent;
	int clock;
	/* buffer_subbuf_size_kb: the buffers' sub-buffers are 4 KiB << it */
	unsigned int subbuf_order;
	uint64_t time_start;
	_Atomic uint64_t max_latency_ns;
	_Atomic uint64_t thresh_ns;
	pthread_mutex_t max_lock;
	pthread_mutex_t lock;
	struct rt_pid_list *_Atomic pids[RT_PID_NR_LISTS];
};

/**
 * struct rt_event_priv - the registry's side of an event
 * @ev: the event
 * @id: its id (common_type)
 * @fields: common fields first, then the event's, with offsets
 * @filter: per instance, the compiled filter (RCU) or NULL
 * @filter_text: per instance, the filter as set (control side)
 */
struct rt_event_priv {
	/* first: what the programs' inline writes read (struct
	 * ringtrace_event_view, <ringtrace/inline_write.h>) */
	uint16_t id;
	_Atomic uint64_t slow_mask;
	struct rt_filter *_Atomic filter[RT_MAX_INSTANCES];
	_Atomic uint64_t hist_mask; /* (layout 6) rt_slow_mask_update() */
	struct ringtrace_event *ev;
	bool builtin;
	unsigned int nr_fields;
	struct rt_field *fields;
	char *filter_text[RT_MAX_INSTANCES];
	_Atomic uint64_t soft_disabled;
	struct rt_trigger_list *_Atomic triggers[RT_MAX_INSTANCES];
	int sm_ref[RT_MAX_INSTANCES];
};

/*
 * Event triggers (events/SYS/EVENT/trigger). An event with a trigger in
 * instance N is in soft mode there (the kernel's EVENT_FILE_FL_SOFT_MODE):
 * its enable bit N is set so that its writes run, bit N of @slow_mask
 * sends them through rt_trigger_commit(), and bit N of @soft_disabled
 * says the record itself is not kept (the event is armed for its
 * triggers, or is the target of enable_event, but not enabled). @sm_ref
 * counts the triggers that keep it in soft mode (control side, under the
 * registry lock). The lists are published with RCU, as filters are.
 */
enum rt_trigger_type {
	RT_TRIG_TRACEON,
	RT_TRIG_TRACEOFF,
	RT_TRIG_SNAPSHOT,
	RT_TRIG_STACKTRACE,
	RT_TRIG_ENABLE_EVENT,
	RT_TRIG_DISABLE_EVENT,
	RT_TRIG_HIST,		/* hist.c */
	RT_TRIG_ENABLE_HIST,
	RT_TRIG_DISABLE_HIST,
	RT_TRIG_NR,
};

/**
 * struct rt_trigger - one trigger of an event in one instance
 * @type: enum rt_trigger_type
 * @count: firings left, -1 for unlimited; taken with a cmpxchg
 * @filter: fire only for records that match it, or NULL
 * @filter_text: @filter as written
 * @target: the event enable_event and disable_event switch
 * @hist: a hist trigger's table and state (hist.c)
 */
struct rt_trigger {
	int type;
	_Atomic long count;
	struct rt_filter *filter;
	char *filter_text;
	struct rt_event_priv *target;
	void *hist;
};

#define RT_MAX_TRIGGERS 16
/* @stamps: a hist trigger of the list reads common_timestamp (the
 * record is assigned aside and stamped with the time it reads)
 * @hist_only: every trigger of the list is a plain hist trigger without
 * a filter (hist.h): the write's short path counts the record from the
 * buffer (ringtrace_write_armed(), trace.c) */
struct rt_trigger_list {
	unsigned int nr;
	bool stamps;
	bool hist_only;
	struct rt_trigger *t[RT_MAX_TRIGGERS];
};

/* trace.c */
extern struct ringtrace_instance *_Atomic rt_instances[RT_MAX_INSTANCES];
/* Each instance's live buffer (rt_instances[N]->rb), NULL while slot N
 * is empty: the write path's one load (rt_inst_rb()). Stored by
 * rt_inst_rb_set() wherever rt_instances[] or an instance's rb changes. */
#define rt_inst_rbs ringtrace_inst_rbs
RINGTRACE_API extern struct ringbuf *_Atomic rt_inst_rbs[RT_MAX_INSTANCES];
void rt_inst_rb_set(int i, struct ringbuf *rb);
extern pthread_mutex_t rt_control_lock;
void rt_lazy_init(void);
/* Whether the tracer started (rt_do_init() began). */
bool rt_started(void);
struct ringtrace_instance *rt_instance_get(struct ringtrace_instance *tr);
void rt_cmdline_save(void);
/* The calling thread's records carry @pid (0: its own id again); see
 * trace.c. */
void rt_write_as(int pid, int tgid, const char *comm);
bool rt_cmdline_find(int pid, char *comm, int *tgid);
int rt_nr_cpus(struct ringtrace_instance *tr);
int rt_wait_slice(struct ringtrace_instance *tr, int cpu, int full,
		  int timeout_ms);
void rt_instance_slot_gone(int id);
void rt_events_fork_child(void);
void rt_publish_fork_child(void);

/* publish.c (ctl.h) */
int rt_publish_init(void);
bool rt_published(void);
int rt_publish_buffer_path(struct ringtrace_instance *tr, bool snap,
			   char *buf, size_t len);
void rt_publish_instance(struct ringtrace_instance *tr);
void rt_unpublish_instance(struct ringtrace_instance *tr);
void rt_publish_events(void);
/* A recorder that started us keeps our files and reads them after the
 * exit: an event that unregisters keeps its format there. */
bool rt_publish_keeps_formats(void);
int rt_publish_syms(void);
const char *rt_clock_name(int clock);

/*
 * rt_ev_priv - the registry's state of @ev, for a read-side section:
 * loaded inside the section that uses it (ringtrace_event_unregister()
 * clears ev->priv before its grace period, then frees), NULL once the
 * event left the registry. Acquire: pairs with the release store that
 * publishes it in rt_register_locked(), after it is filled.
 */
static inline __attribute__((always_inline, no_instrument_function))
struct rt_event_priv *rt_ev_priv(const struct ringtrace_event *ev)
{
	return __atomic_load_n(&ev->priv, __ATOMIC_ACQUIRE);
}

/* events.c */
void rt_events_dump(FILE *f);
struct rt_event_priv *rt_event_by_id(unsigned int id);
struct rt_event_priv *rt_event_find(const char *system, const char *name);
void rt_events_instance_gone(int inst);
void rt_registry_lock(void);
void rt_registry_unlock(void);
size_t rt_format_event(struct rt_event_priv *p, char *buf, size_t len);
void rt_events_init(void);
void rt_events_apply_boot(void);
void rt_events_foreach(void (*fn)(struct rt_event_priv *p, void *arg),
		       void *arg);
void rt_soft_mode(struct rt_event_priv *p, int inst, bool enter);
/* Recompute bits @inst of @p's slow_mask and hist_mask (events.c), after
 * a change of what they stand for; called with the registry lock held */
void rt_slow_mask_update(struct rt_event_priv *p, int inst);
/* Whether plain hist triggers alone arm @p in @inst (trigger.c) */
bool rt_trig_hist_only(const struct rt_event_priv *p, int inst);

/* Set (@disabled) or clear the soft-disabled bit @bit of event @p.
 * Relaxed: the bit is the whole state; the event's writers read it
 * relaxed too. */
static inline __attribute__((no_instrument_function)) void
rt_soft_disabled_set(struct rt_event_priv *p, uint64_t bit, bool disabled)
{
	if (disabled)
		atomic_fetch_or_explicit(&p->soft_disabled, bit,
					 memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&p->soft_disabled, ~bit,
					  memory_order_relaxed);
}

void rt_events_pid_filter(int inst, bool on);
void rt_events_stack_option(int inst, bool on);

/* pid.c */
void rt_pids_free(struct ringtrace_instance *tr);
extern _Atomic uint64_t rt_ftrace_pid_mask;

/* trigger.c */
void rt_triggers_instance_gone(int inst);
void rt_triggers_event_gone(struct rt_event_priv *p);

/* trace.c, for triggers */
int rt_snapshot_alloc(struct ringtrace_instance *tr);
void rt_stack_prime(void);

/* output.c: the text buffer (struct ringtrace_seq) is in print.h */

/* The worst critical section of each instance (usersoff tracer) */
struct rt_latency_info {
	uint64_t start_ts; /* on the buffer's clock */
	unsigned long start_ip;
	unsigned long end_ip;
	int pid;
	int cpu;
};
extern struct rt_latency_info rt_latency[RT_MAX_INSTANCES];
unsigned long rt_tracing_mark_write_ip(void);
int tracing_mark_write(struct ringtrace_instance *tr, const char *text,
		       size_t len);

/* Async-signal-safe warning to stderr */
void rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- shared by trace.c (the write path), instance.c and latency.c ---- */

#define RT_DEFAULT_SIZE_KB 1408 /* the kernel's default trace_buf_size */

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
 * @slow: 0 exactly when @irq is 0, @comm_saved is set, @pid is known
 *	and liburcu's grace periods use membarrier() (rt_rcu_memb(), since
 *	layout 7), the thread's part of the function tracers' fast-path
 *	test (rt_fn_fast()), one word for four (1 in a new thread);
 *	rt_thread_slow_update() after each change of the first three (the
 *	fourth only ever turns true, once). Where it is 0 the fast paths'
 *	read-side section leaves liburcu's membarrier test out
 *	(<ringtrace/rcu_read.h>). @depth stays out of it: the writes
 *	compiled into programs change @depth only (struct
 *	ringtrace_thread_view, which since layout 4 tests @depth | @slow
 *	as rt_fn_fast() does). Bit RT_SLOW_GRAPH_PENDING besides: a
 *	call's entry record held back (see there).
 */
struct rt_thread {
	int pid;
	int depth;
	int irq;
	bool comm_saved;
	unsigned int slow;
	uint64_t crit_start;
	uint64_t crit_buf_start;
	unsigned long crit_ip;
	int crit_nest;
};
/* Exported: the first five fields are struct ringtrace_thread_view
 * (<ringtrace/inline_write.h>), which programs read inline. */
#define rt_cur ringtrace_thread
RINGTRACE_API extern __thread struct rt_thread rt_cur
	__attribute__((tls_model("initial-exec")));

/*
 * The thread holds back a call's entry record: function_graph writes the
 * entry of a call late, with its exit in one reservation when the call
 * calls nothing traced (fgraph_fast.c). Every other record of the thread
 * must come after that entry: this bit of rt_cur.slow sends each of them
 * to its general path (the inline trace points of programs too, which
 * test the word, <ringtrace/inline_write.h>), where
 * rt_graph_pending_flush() writes the entry first. Set before the entry
 * is held back, cleared after it is written or given up (a stale bit
 * only costs a general path that finds nothing to write).
 */
#define RT_SLOW_GRAPH_PENDING 2u

/*
 * rt_thread_slow_update - recompute rt_cur.slow from what it stands for.
 * A signal handler that changes them between the loads and the store
 * here leaves at worst a stale non-zero word (the handler's own changes
 * only make the thread readier, and its irq nesting is balanced; liburcu's
 * membarrier flag is never cleared once set): the general path then
 * calls this again (rt_fn_fast()).
 */
static inline __attribute__((no_instrument_function)) void
rt_thread_slow_update(void)
{
	rt_cur.slow = (rt_cur.slow & RT_SLOW_GRAPH_PENDING) |
		      (unsigned int)(rt_cur.irq != 0) | !rt_cur.comm_saved |
		      !rt_cur.pid | !rt_rcu_memb();
}

/* Set the bit, before the entry is held back; clear it, after the entry
 * is taken (rt_fgraph_pending_take()). One instruction each on x86-64:
 * a signal handler comes before or after it. */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_graph_pending_mark(void)
{
	rt_cur.slow |= RT_SLOW_GRAPH_PENDING;
	/* Orders (compiler barrier): the bit before the held-back entry,
	 * as a signal handler of this thread sees them. */
	atomic_signal_fence(memory_order_seq_cst);
}

static inline __attribute__((always_inline, no_instrument_function)) void
rt_graph_pending_unmark(void)
{
	/* Orders (compiler barrier): the entry taken before the bit goes,
	 * as a signal handler of this thread sees them. */
	atomic_signal_fence(memory_order_seq_cst);
	rt_cur.slow &= ~RT_SLOW_GRAPH_PENDING;
}

/* fgraph.c: write the entry the thread holds back, if any (the bit
 * cleared). Async-signal-safe. */
void rt_fgraph_flush_pending(void);
/* fgraph.c: arm the thread's exit destructor, which writes the entry a
 * cancelled thread held back. Once per thread, at its first record. */
void rt_fgraph_thread_arm(void);
/* fgraph.c: at the process's exit, have every other thread write the
 * entry it holds back (its call never returns either). */
void rt_fgraph_flush_others(void);
/* A small file (of /proc) read whole into @buf, NUL-terminated (up to
 * @size - 1 bytes): the bytes read, or -1. */
static inline __attribute__((no_instrument_function)) ssize_t
rt_read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The held-back entry before another record of the thread: the general
 * paths' first step. (The profiling-call tracer, which alone holds one
 * back, is built on x86-64 Linux: fgraph.h's RT_HAVE_MCOUNT.) */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_graph_pending_flush(void)
{
#if defined(__x86_64__) && defined(__linux__)
	if (__builtin_expect(rt_cur.slow & RT_SLOW_GRAPH_PENDING, 0))
		rt_fgraph_flush_pending();
#endif
}

/* The same at the process's exit, for the exiting thread and then for
 * the others (rt_fgraph_flush_others()). */
static inline __attribute__((no_instrument_function)) void
rt_graph_pending_flush_all(void)
{
	rt_graph_pending_flush();
#if defined(__x86_64__) && defined(__linux__)
	rt_fgraph_flush_others();
#endif
}

static inline __attribute__((no_instrument_function)) int rt_gettid(void)
{
	if (__builtin_expect(rt_cur.pid == 0, 0)) {
		rt_cur.pid = (int)syscall(SYS_gettid);
		rt_thread_slow_update();
	}
	return rt_cur.pid;
}

/* Instances whose current tracer is function / function_graph / usersoff */
extern _Atomic uint64_t rt_fn_mask, rt_graph_mask, rt_lat_mask;
/* Those of rt_graph_mask with the funcgraph-args option */
extern _Atomic uint64_t rt_graph_args_mask;
/* Those of rt_graph_mask with the funcgraph-retval option, whose exit
 * records carry the return value (fnwrite.h) */
extern _Atomic uint64_t rt_graph_retval_mask;

/* The arguments of the built-in records' fill functions */
struct rt_fn_arg {
	unsigned long a, b;
	int depth;
	unsigned int overrun;
	uint64_t t0, t1;
	unsigned long retval;
	const unsigned long *args; /* RT_GRAPH_NR_ARGS, or NULL */
};

int rt_write_builtin(uint64_t mask, uint16_t type, size_t size,
		     void (*fill)(void *rec, const void *arg), const void *arg);
void rt_fill_fn(void *rec, const void *arg);
uint64_t rt_buffer_clock(uint64_t mask);
struct ringbuf *rt_make_buffer(struct ringtrace_instance *tr, bool snap,
			       size_t size_kb, int clock, bool overwrite);
int rt_snapshot_make_locked(struct ringtrace_instance *tr);

/*
 * rt_show_begin - the start of every ringtrace_show_*(): a NULL @buf
 * asks only for the length (as snprintf()), so *@len becomes 0; a buffer
 * starts empty. Returns the instance (@tr, or the top one for NULL).
 */
static inline struct ringtrace_instance *
rt_show_begin(struct ringtrace_instance *tr, char *buf, size_t *len)
{
	if (!buf)
		*len = 0;
	if (*len)
		buf[0] = '\0';
	return rt_instance_get(tr);
}
/* The text of a marker as the filters of its triggers see it: buf as a
 * char array of this size (the record's own buf has none), the text cut
 * to fit (rt_print_triggers()). */
#define RT_PRINT_TRIG_BUF 4096u
int rt_apply_cpu_sizes(struct ringtrace_instance *tr, struct ringbuf *rb);
void rt_snapshot_swap_locked(struct ringtrace_instance *tr);

#endif /* RINGTRACE_TRACE_H */
