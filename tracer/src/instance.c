// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * instance.c - trace arrays (instances): their making at start-up and by
 *	name, tracers, options, buffer size and clock, clearing, snapshots,
 *	and the settings read from the environment at start-up
 *
 * The control half of the kernel's kernel/trace/trace.c; the write path
 * is in trace.c. Instances are published in rt_instances[] with release
 * stores and retired through an RCU grace period (see trace.c).
 */
#include <ctype.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
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


/*
 * The sub-buffer size of every buffer of the process, 4096 << this
 * (RINGTRACE_SUBBUF_SIZE_KB, the kernel's buffer_subbuf_size_kb); set
 * before the first instance is made.
 */
static unsigned int rt_boot_subbuf_order;

/*
 * A buffer for @tr (its snapshot buffer with @snap): a shared file in the
 * publish directory when the process is published, private otherwise.
 */
struct ringbuf *rt_make_buffer(struct ringtrace_instance *tr, bool snap,
			       size_t size_kb, int clock, bool overwrite)
{
	char path[PATH_MAX];
	RINGBUF_OPTS(o, .size = size_kb * 1024,
		     .flags = overwrite ? RINGBUF_FL_OVERWRITE : 0,
		     .model = RINGBUF_PER_CPU, .clock = clock,
		     .subbuf_order = tr->subbuf_order);

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
	tr->subbuf_order = rt_boot_subbuf_order;
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

/* rt_do_init() began (relaxed: a hint for ringtrace_publish_allow_
 * secure(), which must come before any other call). */
static atomic_bool rt_init_began;

bool rt_started(void)
{
	return atomic_load_explicit(&rt_init_began, memory_order_relaxed);
}

static void rt_do_init(void)
{
	const char *s = secure_getenv("RINGTRACE_BUF_SIZE_KB");
	struct ringtrace_instance *tr;

	atomic_store_explicit(&rt_init_began, true, memory_order_relaxed);
	if (s) {
		char *end;
		long kb = strtol(s, &end, 10);

		if (kb > 0 && *end == '\0')
			rt_boot_size_kb = (size_t)kb;
		else
			rt_warn("ringtrace: RINGTRACE_BUF_SIZE_KB: '%s' is not a size in KiB; using %zu\n",
				s, rt_boot_size_kb);
	}
	s = secure_getenv("RINGTRACE_SUBBUF_SIZE_KB");
	if (s) {
		char *end;
		long kb = strtol(s, &end, 10);
		unsigned int order = 0;

		while (order < 7 && (4l << order) < kb)
			order++;
		if (*end == '\0' && kb == 4l << order)
			rt_boot_subbuf_order = order;
		else
			rt_warn("ringtrace: RINGTRACE_SUBBUF_SIZE_KB: '%s' is not a power of two from 4 to 512; using 4\n",
				s);
	}
	s = secure_getenv("RINGTRACE_CLOCK");
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
	 * in rt_instance_get() and the trigger path; rt_inst_rb_set()
	 * publishes its buffer to the write path. */
	atomic_store_explicit(&rt_instances[0], tr, memory_order_release);
	rt_inst_rb_set(0, atomic_load_explicit(&tr->rb, memory_order_relaxed));
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

/* The forking thread's held-back graph entry is the parent's record, as
 * it would have been before the fork: written first, the child holds
 * none back. */
static void rt_fork_prepare(void)
{
	rt_graph_pending_flush();
}

__attribute__((constructor)) static void rt_fork_setup(void)
{
	/* liburcu's own: a child may run grace periods even when another
	 * thread of the parent was in one, or registering, at the fork */
	pthread_atfork(urcu_bp_before_fork, urcu_bp_after_fork_parent,
		       urcu_bp_after_fork_child);
	pthread_atfork(rt_fork_prepare, NULL, rt_fork_child);
}

/*
 * liburcu's call_rcu thread: made by the library's first rt_call_rcu(),
 * from that caller's thread, whose signal mask it inherits, and it
 * unblocks none. Made here with every signal blocked, so that a signal
 * sent to the process never runs the program's handler in it.
 */
static pthread_once_t rt_call_rcu_once = PTHREAD_ONCE_INIT;

static void rt_call_rcu_thread_make(void)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	(void)urcu_bp_get_default_call_rcu_data();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void rt_call_rcu_init(void)
{
	pthread_once(&rt_call_rcu_once, rt_call_rcu_thread_make);
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
	const char *pub = secure_getenv("RINGTRACE_PUBLISH");
	char **e;

	/* A setuid or setgid program starts the tracer at its first call,
	 * after main() could allow publication
	 * (ringtrace_publish_allow_secure()); its caller's RINGTRACE_*
	 * variables are not read (secure_getenv()). */
	if (getauxval(AT_SECURE))
		return;
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
	if (tr) {
		/* Publishes the instance; pairs with the acquire loads in
		 * rt_instance_get() and the trigger path. */
		atomic_store_explicit(&rt_instances[slot], tr,
				      memory_order_release);
		rt_inst_rb_set(slot, atomic_load_explicit(
					     &tr->rb, memory_order_relaxed));
	}
	pthread_mutex_unlock(&rt_control_lock);
	if (tr)
		rt_publish_instance(tr);
	if (!tr)
		errno = ENOMEM;
	return tr;
}

/*
 * The function_graph instances with funcgraph-args, whose entry records
 * carry the argument registers (the kernel's trace_graph_entry_args),
 * those with funcgraph-retval, whose exit records carry the return value
 * (fgraph_retval_exit, entries.h), and the instances with func-args,
 * whose function records do (the kernel's function_args_trace_call()).
 * Under rt_control_lock.
 */
static void rt_update_args_mask(void)
{
	uint64_t args = 0, fn_args = 0, retval = 0;
	int i;

	for (i = 0; i < RT_MAX_INSTANCES; i++) {
		struct ringtrace_instance *tr = atomic_load_explicit(
			&rt_instances[i], memory_order_relaxed);
		uint64_t opts;

		if (!tr)
			continue;
		/* Relaxed: each change of an args option is followed by this
		 * recomputation under rt_control_lock (ringtrace_set_option());
		 * the lock orders every such change before the last
		 * recomputation, which therefore sees them all. */
		opts = atomic_load_explicit(&tr->options, memory_order_relaxed);
		if (opts & RT_OPT(RT_OPT_FUNCGRAPH_ARGS))
			args |= 1ull << i;
		if (opts & RT_OPT(RT_OPT_FUNC_ARGS))
			fn_args |= 1ull << i;
		if (opts & RT_OPT(RT_OPT_FUNCGRAPH_RETVAL))
			retval |= 1ull << i;
	}
	/* Relaxed: as rt_graph_mask (a stale mask costs one record's
	 * arguments, or writes them once more). */
	atomic_store_explicit(&rt_graph_args_mask, args, memory_order_relaxed);
	/* Relaxed: as rt_fn_mask, the same. */
	atomic_store_explicit(&rt_fn_args_mask, fn_args, memory_order_relaxed);
	/* Relaxed: as rt_graph_mask (a stale mask writes one exit in the
	 * other layout: fnwrite.h). */
	atomic_store_explicit(&rt_graph_retval_mask, retval,
			      memory_order_relaxed);
	/* (after rt_fn_mask too: rt_update_tracer_masks() calls this) */
	rt_fn_fast_update();
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
	rt_update_args_mask();
	if (fn)
		en |= RT_FTRACE_FUNCTION;
	if (graph)
		en |= RT_FTRACE_GRAPH;
	if (rt_ftrace_probes_on())
		en |= RT_FTRACE_PROBE;
	atomic_store_explicit(&rt_ftrace_enabled, en, memory_order_relaxed);
	/* The recorded call sites follow (dynftrace: NOPs while off). */
	rt_ftrace_sites_update();
}

void rt_ftrace_masks_update(void)
{
	pthread_mutex_lock(&rt_control_lock);
	rt_update_tracer_masks();
	pthread_mutex_unlock(&rt_control_lock);
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
	rt_inst_rb_set(tr->id, NULL);
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
	free(tr->cpu_size_kb);
	free(tr->cpus_off);
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

	/* (as in ringtrace_function_trace_stop()) */
	rt_graph_pending_flush();
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
	if (i == RT_OPT_FUNCGRAPH_ARGS || i == RT_OPT_FUNC_ARGS ||
	    i == RT_OPT_FUNCGRAPH_RETVAL) {
		pthread_mutex_lock(&rt_control_lock);
		rt_update_args_mask();
		pthread_mutex_unlock(&rt_control_lock);
	}
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

	tr = rt_show_begin(tr, buf, &len);
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

/* Give the cpu buffers of @rb (new, or the snapshot buffer) the sizes of
 * the cpu buffers that were sized alone (called with tr->lock). */
int rt_apply_cpu_sizes(struct ringtrace_instance *tr, struct ringbuf *rb)
{
	int ret = 0;

	for (int c = 0; c < tr->nr_cpu_size_kb && !ret; c++)
		if (tr->cpu_size_kb[c] != tr->size_kb)
			ret = ringbuf_resize(rb, tr->cpu_size_kb[c] * 1024, c);
	return ret;
}

/*
 * Every cpu buffer @kb KiB, in sub-buffers of 4 KiB << @order (tr->lock
 * held): none is sized alone any more. A new sub-buffer size, or a
 * published instance, gets new buffers; else they are resized in place.
 * On failure nothing changed.
 */
static int rt_size_buffers_locked(struct ringtrace_instance *tr, size_t kb,
				  unsigned int order)
{
	size_t *cpu_size_kb = tr->cpu_size_kb;
	int nr = tr->nr_cpu_size_kb, ret;
	unsigned int old = tr->subbuf_order;

	tr->cpu_size_kb = NULL;
	tr->nr_cpu_size_kb = 0;
	tr->subbuf_order = order;
	if (rt_published() || order != old) {
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
	if (ret) {
		tr->subbuf_order = old;
		tr->cpu_size_kb = cpu_size_kb;
		tr->nr_cpu_size_kb = nr;
	} else {
		free(cpu_size_kb);
	}
	return ret;
}

int ringtrace_set_buffer_size_kb(struct ringtrace_instance *tr, size_t kb)
{
	int ret;

	tr = rt_instance_get(tr);
	if (!tr || kb == 0)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	ret = rt_size_buffers_locked(tr, kb, tr->subbuf_order);
	pthread_mutex_unlock(&tr->lock);
	return ret;
}

/*
 * buffer_subbuf_size_kb, as the kernel's since 6.8: @kb rounded up to a
 * power of two of 4 KiB pages (1 to 128 pages). A new size replaces the
 * instance's buffers (what they held is gone, as in the kernel); the cpu
 * buffers sized alone get buffer_size_kb again.
 */
int ringtrace_set_subbuf_size_kb(struct ringtrace_instance *tr, size_t kb)
{
	unsigned int order = 0;
	int ret = 0;

	tr = rt_instance_get(tr);
	if (!tr || kb == 0)
		return -EINVAL;
	while (order < 7 && ((size_t)4 << order) < kb)
		order++;
	if (((size_t)4 << order) < kb)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	if (order != tr->subbuf_order)
		ret = rt_size_buffers_locked(tr, tr->size_kb, order);
	pthread_mutex_unlock(&tr->lock);
	return ret;
}

size_t ringtrace_subbuf_size_kb(struct ringtrace_instance *tr)
{
	return ringbuf_subbuf_size(ringtrace_buffer(tr)) / 1024;
}

/*
 * Resize one cpu buffer, as the kernel's per_cpu/cpuN/buffer_size_kb: the
 * live buffer's and the snapshot's, in place (a shared buffer's readers
 * in other processes follow; libringbuf's ringbuf_resize()).
 */
int ringtrace_set_buffer_size_kb_cpu(struct ringtrace_instance *tr, int cpu,
				     size_t kb)
{
	struct ringbuf *rb;
	int ret, n;

	if (cpu == RINGTRACE_ALL_CPUS)
		return ringtrace_set_buffer_size_kb(tr, kb);
	tr = rt_instance_get(tr);
	if (!tr || kb == 0 || kb > SIZE_MAX / 1024)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	/* Relaxed: the buffer is replaced only under tr->lock, held here. */
	rb = atomic_load_explicit(&tr->rb, memory_order_relaxed);
	n = ringbuf_nr_cpus(rb);
	ret = -EINVAL;
	if (cpu < 0 || cpu >= n)
		goto out;
	if (!tr->cpu_size_kb) {
		ret = -ENOMEM;
		tr->cpu_size_kb = malloc((size_t)n * sizeof(*tr->cpu_size_kb));
		if (!tr->cpu_size_kb)
			goto out;
		for (int c = 0; c < n; c++)
			tr->cpu_size_kb[c] = tr->size_kb;
		tr->nr_cpu_size_kb = n;
	}
	ret = ringbuf_resize(rb, kb * 1024, cpu);
	if (!ret && tr->snap)
		ret = ringbuf_resize(tr->snap, kb * 1024, cpu);
	if (!ret)
		tr->cpu_size_kb[cpu] = kb;
out:
	pthread_mutex_unlock(&tr->lock);
	return ret;
}

size_t ringtrace_buffer_size_kb_cpu(struct ringtrace_instance *tr, int cpu)
{
	size_t kb = 0;

	tr = rt_instance_get(tr);
	if (!tr)
		return 0;
	pthread_mutex_lock(&tr->lock);
	if (cpu == RINGTRACE_ALL_CPUS) {
		/* one size for all, or 0 when they differ */
		kb = tr->size_kb;
		for (int c = 0; c < tr->nr_cpu_size_kb; c++)
			if (tr->cpu_size_kb[c] != tr->size_kb)
				kb = 0;
	} else if (cpu >= 0 && cpu < tr->nr_cpu_size_kb) {
		kb = tr->cpu_size_kb[cpu];
	} else if (cpu >= 0 &&
		   cpu < ringbuf_nr_cpus(atomic_load_explicit(
				 &tr->rb, memory_order_relaxed))) {
		/* Relaxed: as above, under tr->lock. */
		kb = tr->size_kb;
	}
	pthread_mutex_unlock(&tr->lock);
	return kb;
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

/*
 * tracing_cpumask: the kernel's mask of the CPUs whose buffers record, in
 * hexadecimal, in groups of 32 bits separated by commas (the most
 * significant first), one bit per cpu buffer.
 *
 * Userspace: a writer that finds its own cpu buffer left out of the mask
 * may write into another cpu buffer that is in it (a free spare, or
 * another CPU's), as it does when its own is claimed; no record goes to a
 * cpu buffer outside the mask.
 */
static int rt_parse_cpumask(const char *text, int n, uint64_t *off)
{
	size_t words = ((size_t)n + 63) / 64;
	const char *p = text, *end;
	int groups = 0;

	while (isspace((unsigned char)*p))
		p++;
	for (end = p + strlen(p); end > p && isspace((unsigned char)end[-1]);
	     end--)
		;
	if (p == end)
		return -EINVAL;
	for (const char *q = p; q < end; q++)
		if (*q == ',')
			groups++;
	groups++;
	/* every bit on (off all clear), then the mask's bits turn off "off" */
	memset(off, 0xff, words * sizeof(*off));
	for (int g = groups - 1; g >= 0; g--) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		unsigned long long v = 0;
		int digits = 0;

		for (const char *q = p; q < stop; q++) {
			int d = isdigit((unsigned char)*q) ? *q - '0' :
				isxdigit((unsigned char)*q) ?
						  tolower((unsigned char)*q) -
							  'a' + 10 :
						  -1;

			if (d < 0)
				return -EINVAL;
			if (v || d)
				digits++;
			v = v << 4 | (unsigned int)d;
			if (digits > 8)
				return -EINVAL;
		}
		if (stop == p)
			return -EINVAL;
		for (int b = 0; b < 32; b++) {
			long bit = (long)g * 32 + b;

			if (!(v & (1ull << b)))
				continue;
			if (bit >= n)
				return -EINVAL; /* no such cpu buffer */
			off[bit / 64] &= ~(1ull << (bit % 64));
		}
		p = comma ? comma + 1 : end;
	}
	/* the bits past the last cpu buffer mean nothing: clear */
	for (long bit = n; bit < (long)words * 64; bit++)
		off[bit / 64] &= ~(1ull << (bit % 64));
	return 0;
}

int ringtrace_set_tracing_cpumask(struct ringtrace_instance *tr,
				  const char *mask)
{
	struct ringbuf *rb;
	uint64_t *off;
	int n, ret;

	tr = rt_instance_get(tr);
	if (!tr || !mask)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	/* Relaxed: the buffer is replaced only under tr->lock, held here. */
	rb = atomic_load_explicit(&tr->rb, memory_order_relaxed);
	n = ringbuf_nr_cpus(rb);
	off = calloc(((size_t)n + 63) / 64, sizeof(*off));
	ret = off ? rt_parse_cpumask(mask, n, off) : -ENOMEM;
	if (ret) {
		free(off);
		goto out;
	}
	for (int c = 0; c < n; c++) {
		uint64_t bit = 1ull << (c % 64);
		bool was = tr->cpus_off && (tr->cpus_off[c / 64] & bit);
		bool now = off[c / 64] & bit;

		if (now && !was)
			ringbuf_record_disable_cpu(rb, c);
		else if (was && !now)
			ringbuf_record_enable_cpu(rb, c);
	}
	free(tr->cpus_off);
	tr->cpus_off = off;
out:
	pthread_mutex_unlock(&tr->lock);
	return ret;
}

size_t ringtrace_show_tracing_cpumask(struct ringtrace_instance *tr,
				      char *buf, size_t len)
{
	size_t k = 0;
	int n;

	tr = rt_show_begin(tr, buf, &len);
	if (!tr)
		return 0;
	pthread_mutex_lock(&tr->lock);
	/* Relaxed: as above, under tr->lock. */
	n = ringbuf_nr_cpus(atomic_load_explicit(&tr->rb, memory_order_relaxed));
	for (int g = (n - 1) / 32; g >= 0; g--) {
		int bits = g == (n - 1) / 32 ? n - g * 32 : 32;
		unsigned long v = 0;

		for (int b = 0; b < bits; b++) {
			int c = g * 32 + b;

			if (!tr->cpus_off ||
			    !(tr->cpus_off[c / 64] & (1ull << (c % 64))))
				v |= 1ul << b;
		}
		/* the first group as wide as its bits need, as the kernel */
		k += (size_t)snprintf(buf + (k < len ? k : len),
				      k < len ? len - k : 0, "%s%0*lx",
				      k ? "," : "",
				      g == (n - 1) / 32 ? (bits + 3) / 4 : 8, v);
	}
	k += (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0,
			      "\n");
	pthread_mutex_unlock(&tr->lock);
	return k;
}

/*
 * free_buffer: the kernel shrinks the buffer to its least size when the
 * file is closed, after turning tracing off if the disable_on_free option
 * is set. The least here is two sub-buffers per cpu buffer, which
 * buffer_size_kb shows as 7 (their data, 2 x 4080 bytes), as the
 * kernel's does.
 */
#define RT_FREE_BUFFER_KB 7

int ringtrace_free_buffer(struct ringtrace_instance *tr)
{
	tr = rt_instance_get(tr);
	if (!tr)
		return -EINVAL;
	/* Relaxed: an option read by a control call, as a read of it. */
	if (atomic_load_explicit(&tr->options, memory_order_relaxed) &
	    RT_OPT(RT_OPT_DISABLE_ON_FREE))
		ringtrace_tracing_on(tr, false);
	return ringtrace_set_buffer_size_kb(tr, RT_FREE_BUFFER_KB);
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
	/* The cpu buffers left out of tracing_cpumask stay out. */
	for (int c = 0; tr->cpus_off && c < ringbuf_nr_cpus(nrb); c++)
		if (tr->cpus_off[c / 64] & (1ull << (c % 64)))
			ringbuf_record_disable_cpu(nrb, c);
	/* The cpu buffers sized alone keep their size (a new clock). */
	if (rt_apply_cpu_sizes(tr, nrb) || (snap && rt_apply_cpu_sizes(tr, snap))) {
		ringbuf_free(nrb);
		if (snap)
			ringbuf_free(snap);
		return -ENOMEM;
	}
	/* Publishes the initialised buffer; pairs with the acquire loads
	 * in ringtrace_buffer() and rt_trigger_fire(); rt_inst_rb_set()
	 * publishes it to the write path. */
	atomic_store_explicit(&tr->rb, nrb, memory_order_release);
	if (atomic_load_explicit(&rt_instances[tr->id],
				 memory_order_relaxed) == tr)
		rt_inst_rb_set(tr->id, nrb);
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

	tr = rt_show_begin(tr, buf, &len);
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
		/* As the kernel's update_max_tr(): a swap, nothing cleared;
		 * the live buffer goes on with what the snapshot held. */
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

int ringtrace_enabled_functions(FILE *out)
{
	return rt_ftrace_enabled_functions(out);
}

int ringtrace_ftrace_site_errors(FILE *out)
{
	if (!out)
		return -EINVAL;
	return rt_ftrace_site_errors(out);
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
	/* The calling thread's held-back graph entry is of a call made
	 * before the stop: written as it would have been (other threads'
	 * go with their exits, which the switch drops). */
	rt_graph_pending_flush();
	if (!stop) {
		/* Relaxed: a hook already past the check finishes its
		 * record; the word follows under its lock. */
		atomic_store_explicit(&rt_function_trace_stop, 0,
				      memory_order_relaxed);
		rt_fn_fast_update();
		return;
	}
	/*
	 * Setting it takes no lock, so that a signal handler (a crash
	 * handler freezing the trace) may. Seq_cst, the switch, then the
	 * refuse word cleared: pairs with the seq_cst store and load of
	 * rt_fn_fast_update() (trace.c), which says how a recomputation
	 * running meanwhile ends with the word NULL too. A hook already
	 * past its test finishes its record.
	 */
	atomic_store_explicit(&rt_function_trace_stop, 1, memory_order_seq_cst);
	atomic_store_explicit(&rt_fn_fast_rb, NULL, memory_order_seq_cst);
}

/* ------------------------------------------------------------------------ */
/* Boot-time settings from the environment (the kernel's command line)     */

/*
 *	RINGTRACE_EVENTS	trace_event=	set_event list (commas)
 *	RINGTRACE_TRACER	ftrace=		current_tracer
 *	RINGTRACE_OPTIONS	trace_options=	options (commas)
 *	RINGTRACE_BUF_SIZE_KB	trace_buf_size=	buffer_size_kb
 *	RINGTRACE_SUBBUF_SIZE_KB (no boot option)	buffer_subbuf_size_kb
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
	const char *s = secure_getenv("RINGTRACE_OPTIONS");

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

			s = secure_getenv(lists[i].env);
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
	s = secure_getenv("RINGTRACE_MAX_GRAPH_DEPTH");
	if (s) {
		char *end;
		long d = strtol(s, &end, 10);

		if (*s && !*end && d >= 0 && d <= INT_MAX)
			ringtrace_set_max_graph_depth((int)d);
		else
			rt_warn("ringtrace: RINGTRACE_MAX_GRAPH_DEPTH: '%s' is not a depth (0: no limit)\n",
				s);
	}
	s = secure_getenv("RINGTRACE_TRACER");
	if (s && ringtrace_set_tracer(tr, s))
		rt_warn("ringtrace: RINGTRACE_TRACER: unknown tracer '%s'\n", s);
	rt_events_apply_boot();
}
