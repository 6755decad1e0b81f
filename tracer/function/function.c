// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * function.c - the function and function_graph tracers' hooks, their
 * filter lists (set_ftrace_filter and family) and the dlopen() hook that
 * keeps the lists current
 *
 * A program compiled with -finstrument-functions calls
 * __cyg_profile_func_enter(this_fn, call_site) on entry to each of its
 * functions and __cyg_profile_func_exit(this_fn, call_site) on the way
 * out. They play the parts of the kernel's mcount/ftrace_caller (the
 * entry) and return_to_handler (the return): the entry records an
 * ftrace:function event and pushes a frame on the thread's return stack
 * (the kernel's ret_stack), the exit pops it and records the
 * funcgraph_exit event.
 *
 * Disabled cost: the global stop switch (the kernel's function_trace_stop)
 * and the core's rt_ftrace_enabled, two relaxed loads and two branches,
 * then a call to an out-of-line slow path.
 *
 * Filters: each list is a sorted array of function start addresses,
 * resolved from its globs when it is written (the hooks never look up a
 * name), all four arrays published together behind one RCU-protected
 * pointer; NULL when every list is empty, which the hooks test before
 * entering a read-side section.
 *
 * The return stack. The kernel's ret_stack holds a frame for each traced
 * function and every return pops one, because the return address was
 * replaced: the return comes back through the tracer whatever the tracer
 * switches say. Here the hooks are plain calls, and GCC and clang call
 * them for inlined callees too, from the caller's machine frame with the
 * caller's return address as call site. The stack keeps the kernel's
 * pairing this way:
 *
 *  - Exits pop even while the graph tracer is off (without an event), as
 *    return_to_handler does: a function entered while it was on and
 *    returning while it is off leaves nothing behind. The off path costs
 *    one TLS load unless the exit is the top frame's.
 *  - Entries the graph tracer does not record (filtered out, below a
 *    set_graph_notrace function, beyond max_graph_depth, outside
 *    set_graph_function, or overrunning the stack) push no frame but
 *    count in hidden[top]; the next exit at that level with a count
 *    pending is theirs. Exits never look at the filter lists, so a list
 *    changing between an entry and its exit cannot unbalance them.
 *  - A longjmp() is interposed: the frames deeper than the stack pointer
 *    it restores are dropped without a return event.
 *  - As a safety net, an entry drops the top frames that lie deeper on
 *    the machine stack than its own place (a function still running is
 *    never deeper than one it calls), and those at the same place with
 *    another call site (a sibling of the same caller whose exit never
 *    came). A frame at the same place with the same call site is the
 *    same machine frame: the new entry is a callee inlined into it.
 *  - An exit that is neither hidden nor the top frame's looks down the
 *    stack for its function past frames at or below its own place
 *    (inlined callees or callees whose exits never came). If it meets a
 *    frame above its place, its own entry was never pushed (tracing came
 *    on in between) and it records nothing.
 *
 * So a return event always closes an entry event recorded on the same
 * thread at the same depth, and depths are never negative.
 *
 * The machine-stack place of a call is the hook's CFA (the instrumented
 * function's stack pointer at the call): it is not the same at a
 * function's entry and at its exit (the exit may come after an alloca()),
 * and two siblings' places differ by their prologues, so frames are
 * matched by function, and the place only orders calls. Signal handlers
 * on an alternate stack and stack switching (makecontext/swapcontext)
 * break the ordering: an entry checks sigaltstack() before dropping
 * frames; code that switches stacks gets depths that may be wrong, never
 * unbalanced returns.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcu.h"

#include "fgraph.h"
#include "ftrace.h"
#include "symbols.h"

/* Never instrument the tracer itself, whatever the build flags say. */
#define RT_NOTRACE __attribute__((no_instrument_function))
#define RT_EXPORT __attribute__((visibility("default")))

/* Frames on a thread's return stack (the kernel's FTRACE_RETFUNC_DEPTH). */
#define RT_FGRAPH_DEPTH 256

/*
 * Two machine-stack places farther apart than this are taken to be on
 * different stacks (a thread's stack is far smaller).
 */
#define RT_STACK_SPAN (64UL << 20)

_Atomic int rt_function_trace_stop;
_Atomic int rt_max_graph_depth;
_Atomic int rt_graph_lists_set;

/* ---- per-thread state --------------------------------------------------- */

/**
 * struct rt_fgraph_frame - a traced function on the return stack
 * @func: its address (this_fn)
 * @sp: the machine-stack place of its entry hook
 * @cs: its call site (where the machine frame it runs in returns to)
 * @calltime: rt_ftrace_clock() at entry
 */
struct rt_fgraph_frame {
	unsigned long func;
	unsigned long sp;
	unsigned long cs;
	uint64_t calltime;
};

/**
 * struct rt_ftrace_thread - a thread's tracer state
 * @busy: a hook of this thread is running (the recursion guard)
 * @top: frames on @ret_stack; the depth of the next traced function
 * @overrun: entries refused because @ret_stack was full (cumulative, as
 *	the kernel's trace_overrun)
 * @notrace: inside a set_graph_notrace function
 * @notrace_top: @top when it was entered
 * @notrace_mark: @hidden[@notrace_top] right after its entry
 * @notrace_sp: the machine-stack place of its entry
 * @errnop: the thread's errno (__errno_location()), once asked
 * @hidden: per level, entries not pushed whose exit is still to come
 * @ret_stack: the traced functions, outermost first
 */
struct rt_ftrace_thread {
	volatile sig_atomic_t busy;
	int top;
	unsigned int overrun;
	bool notrace;
	int notrace_top;
	unsigned int notrace_mark;
	unsigned long notrace_sp;
	int *errnop;
	unsigned int hidden[RT_FGRAPH_DEPTH + 1];
	struct rt_fgraph_frame ret_stack[RT_FGRAPH_DEPTH];
};

/*
 * Userspace: initial-exec TLS, so that the hooks reach it without a call
 * (and without the allocation a dynamic TLS block needs at a thread's
 * first access, which a signal handler must not do). It is static TLS:
 * libringtrace is linked or preloaded, not dlopen()ed. The kernel keeps
 * the ret_stack in the task.
 */
static _Thread_local struct rt_ftrace_thread rt_ftrace_current
	__attribute__((tls_model("initial-exec")));

/* ---- the published filter lists ----------------------------------------- */

/**
 * struct rt_ftrace_hash - one list as the hooks see it
 * @count: how many functions
 * @ips: their start addresses, ascending
 */
struct rt_ftrace_hash {
	size_t count;
	const unsigned long *ips;
};

/* All four lists, in one allocation, immutable once published. */
struct rt_ftrace_filters {
	struct rt_ftrace_hash hash[RT_FTRACE_NR_LISTS];
	unsigned long ips[];
};

/*
 * Written under rt_ftrace_lock by rt_ftrace_publish(); read by the hooks
 * in an RCU read-side section.
 */
static _Atomic(struct rt_ftrace_filters *) rt_ftrace_filters;

/* ---- the control side's view of the lists ------------------------------- */

/*
 * One glob as written: "!" removes. @prefix is the length of its literal
 * start (up to the first of * ? [ \), compared before fnmatch() runs;
 * @literal says the glob is all prefix.
 */
struct rt_ftrace_glob {
	char *glob;
	size_t prefix;
	bool literal;
	bool neg;
};

/*
 * One function in a list, under one of its names: an address with
 * aliases is listed under each name a glob that added it matched, so
 * that set_ftrace_filter reads as the lines of available_filter_functions
 * its globs select. @seq: the place of the name in the symbol walk, the
 * order of available_filter_functions and of the lists when read.
 */
struct rt_ftrace_func {
	unsigned long ip;
	const char *name;
	const char *mod; /* NULL for the program's own */
	size_t seq;
};

/**
 * struct rt_ftrace_list_state - a list as written
 * @globs: every glob since the list was last replaced, in order; matched
 *	again when a shared object is loaded
 * @nr_globs: how many
 * @funcs: what they select now, by address
 * @nr_funcs: how many
 */
struct rt_ftrace_list_state {
	struct rt_ftrace_glob *globs;
	size_t nr_globs;
	struct rt_ftrace_func *funcs;
	size_t nr_funcs;
};

static pthread_mutex_t rt_ftrace_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_ftrace_list_state rt_ftrace_lists[RT_FTRACE_NR_LISTS];

/* ---- RCU ---------------------------------------------------------------- */

/* The lists are read under the tracer's RCU (rcu.h). */
#define rt_ftrace_read_lock rt_rcu_read_lock
#define rt_ftrace_read_unlock rt_rcu_read_unlock
#define rt_ftrace_synchronize rt_synchronize_rcu

/* ---- the hooks' side of the filters ------------------------------------- */

/*
 * struct rt_ftrace_match (fgraph.h) - what the lists say about one
 * function: @func: set_ftrace_filter (when not empty) lists it and
 * set_ftrace_notrace does not; @graph_func: set_graph_function is empty
 * or lists it; @graph_notrace: set_graph_notrace lists it.
 */

static RT_NOTRACE bool rt_ftrace_lookup_ip(const struct rt_ftrace_hash *hash,
					   unsigned long ip)
{
	size_t lo = 0, hi = hash->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hash->ips[mid] == ip)
			return true;
		if (hash->ips[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Userspace: the kernel's callbacks run with preemption disabled, which
 * is their RCU read-side section; a hook here may be preempted and runs
 * in threads nobody registered, so it takes a read-side section of the
 * tracer's RCU (rcu.h): a load and a store in the library's own TLS. A
 * thread registers at its first section, with signals blocked meanwhile
 * (rt_rcu_register()); in a signal handler of a thread that never traced
 * (with some list set) that is what the handler's first traced call
 * costs.
 */
RT_NOTRACE void rt_ftrace_test(unsigned long ip, unsigned int enabled,
			       struct rt_ftrace_match *m)
{
	const struct rt_ftrace_filters *f;
	const struct rt_ftrace_hash *h;

	m->func = true;
	m->graph_func = true;
	m->graph_notrace = false;
	/*
	 * Relaxed: only compared with NULL, to skip the read-side section
	 * when no list is set; the pointer is read again below.
	 */
	if (!atomic_load_explicit(&rt_ftrace_filters, memory_order_relaxed))
		return;

	rt_ftrace_read_lock();
	/*
	 * Acquire: the arrays behind the pointer are seen filled; pairs
	 * with the release store in rt_ftrace_publish() (rcu_dereference).
	 */
	f = atomic_load_explicit(&rt_ftrace_filters, memory_order_acquire);
	if (f) {
		h = f->hash;
		if (h[RT_FTRACE_FILTER].count &&
		    !rt_ftrace_lookup_ip(&h[RT_FTRACE_FILTER], ip))
			m->func = false;
		else if (rt_ftrace_lookup_ip(&h[RT_FTRACE_NOTRACE], ip))
			m->func = false;
		if ((enabled & RT_FTRACE_GRAPH) && m->func) {
			if (h[RT_GRAPH_FUNCTION].count)
				m->graph_func = rt_ftrace_lookup_ip(
					&h[RT_GRAPH_FUNCTION], ip);
			m->graph_notrace =
				rt_ftrace_lookup_ip(&h[RT_GRAPH_NOTRACE], ip);
		}
	}
	rt_ftrace_read_unlock();
}

/* ---- the return stack --------------------------------------------------- */

/* Is machine-stack place @a deeper than @b, on the same stack? */
static inline RT_NOTRACE bool rt_stack_below(unsigned long a, unsigned long b)
{
	return a < b && b - a < RT_STACK_SPAN;
}

static inline RT_NOTRACE bool rt_stack_at_or_below(unsigned long a,
						   unsigned long b)
{
	return a <= b && b - a < RT_STACK_SPAN;
}

static RT_NOTRACE bool rt_on_sigaltstack(void)
{
	stack_t ss;

	return !sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK);
}

/*
 * Frames at or below the entry at @sp belong to functions that returned
 * while tracing was off. On an alternate signal stack the places of the
 * interrupted code's frames say nothing: keep them.
 */
static RT_NOTRACE void rt_fgraph_drop_stale(struct rt_ftrace_thread *t,
					    unsigned long sp, unsigned long cs)
{
	int top = t->top;

	while (top > 0) {
		const struct rt_fgraph_frame *f = &t->ret_stack[top - 1];

		/*
		 * The same place with the same call site is the same machine
		 * frame: the entry of a callee inlined into @f (GCC calls
		 * the hooks of an inlined callee from its caller's frame,
		 * with the caller's return address). Keep it.
		 */
		if (!(rt_stack_below(f->sp, sp) || (f->sp == sp && f->cs != cs)))
			break;
		top--;
	}
	if (top != t->top && !rt_on_sigaltstack())
		t->top = top;
}

/* Has the set_graph_notrace function we are in returned? */
static RT_NOTRACE void rt_fgraph_notrace_check(struct rt_ftrace_thread *t,
					       unsigned long sp)
{
	if (!t->notrace)
		return;
	if (t->top != t->notrace_top ||
	    t->hidden[t->top] < t->notrace_mark ||
	    rt_stack_below(t->notrace_sp, sp))
		t->notrace = false;
}

/*
 * The kernel's function_graph_enter() + ftrace_push_return_trace() +
 * trace_graph_entry(): push a frame and record the entry, or count the
 * entry as hidden.
 */
static RT_NOTRACE void rt_function_graph_enter(struct rt_ftrace_thread *t,
					       unsigned long ip,
					       unsigned long cs,
					       unsigned long sp,
					       const struct rt_ftrace_match *m,
					       uint64_t clock)
{
	struct rt_fgraph_frame *frame;
	int depth, max;

	rt_fgraph_drop_stale(t, sp, cs);
	rt_fgraph_notrace_check(t, sp);
	depth = t->top;

	/* Not hooked at all in the kernel: set_ftrace_filter/notrace. */
	if (t->notrace || !m->func)
		goto hide;
	/* set_graph_notrace: neither it nor anything it calls. */
	if (m->graph_notrace) {
		t->hidden[depth]++;
		t->notrace = true;
		t->notrace_top = depth;
		t->notrace_mark = t->hidden[depth];
		t->notrace_sp = sp;
		return;
	}
	/* ftrace_graph_ignore_func(): set_graph_function picks the roots. */
	if (!depth && !m->graph_func)
		goto hide;
	/* Relaxed: a setting; a change may take a few calls to be seen. */
	max = atomic_load_explicit(&rt_max_graph_depth, memory_order_relaxed);
	if (max > 0 && depth >= max)
		goto hide;
	if (depth >= RT_FGRAPH_DEPTH) {
		t->overrun++;
		goto hide;
	}

	frame = &t->ret_stack[depth];
	frame->func = ip;
	frame->sp = sp;
	frame->cs = cs;
	frame->calltime = rt_ftrace_clock_at(clock);
	t->hidden[depth + 1] = 0;
	t->top = depth + 1;
	/* Userspace: the hooks see no argument registers (they are the
	 * hooks' own arguments by now): no arguments, printed "()". */
	rt_ftrace_graph_entry_event(ip, depth, frame->calltime, NULL);
	return;
hide:
	t->hidden[depth]++;
}

/*
 * The kernel's ftrace_return_to_handler() + ftrace_pop_return_trace() +
 * trace_graph_return(), at @clock (rt_ftrace_clock_start()). With @record false (the graph tracer is off, or
 * function_trace_stop is set) the frame is popped without an event, as
 * the kernel's return_to_handler still pops what was pushed: a function
 * that returns while the tracer is off leaves no stale frame behind.
 */
static RT_NOTRACE void rt_ftrace_return_to_handler(struct rt_ftrace_thread *t,
						   unsigned long ip,
						   unsigned long sp,
						   bool record, uint64_t clock)
{
	struct rt_fgraph_frame *frame;
	uint64_t rettime;
	int i;

	if (t->hidden[t->top]) {
		t->hidden[t->top]--;
		rt_fgraph_notrace_check(t, sp);
		return;
	}
	for (i = t->top - 1; i >= 0; i--) {
		if (t->ret_stack[i].func == ip)
			break;
		/*
		 * A function still running that is not ours: we were not
		 * pushed. One at our place is an inlined callee of ours
		 * (or of our caller) whose exit never came.
		 */
		if (!rt_stack_at_or_below(t->ret_stack[i].sp, sp))
			return;
	}
	if (i < 0)
		return;

	frame = &t->ret_stack[i];
	t->top = i;
	if (record) {
		rettime = rt_ftrace_clock_at(clock);
		/* Userspace: nor the return value (the exit hook is called
		 * after it was computed, not with it): none is printed. */
		rt_ftrace_graph_return_event(ip, i, frame->calltime, rettime,
					     t->overrun | RT_GRAPH_NO_RETVAL, 0);
	}
	rt_fgraph_notrace_check(t, sp);
}

/* ---- the hooks ---------------------------------------------------------- */

/*
 * Userspace: the kernel guards each context (normal, softirq, irq, NMI)
 * with its own recursion bit, so an interrupt that arrives while the
 * tracer runs is still traced. A thread and its signal handlers have no
 * such levels, and a handler may itself be interrupted. One flag per
 * thread: while a hook runs, anything it calls and any signal handler
 * that interrupts it finds the flag set and is not traced at all,
 * entries and exits alike (the handler returns before the hook goes on,
 * so the two stay paired). That keeps every update of the thread's state
 * free of async-signal-safety concerns at the price of the handlers that
 * land in a hook's few hundred instructions. A handler that lands
 * anywhere else nests on the thread's return stack above the function it
 * interrupted, as an interrupt shows up inside the interrupted function
 * in the kernel's function_graph output. A handler that siglongjmp()s out
 * of a hook leaves the flag set, and the thread is not traced again.
 */
/*
 * The thread's errno, which the hooks give back as they found it: asked
 * of libc once per thread (its place does not move while the thread
 * lives; a fork()ed child's thread has it where its parent's had), then
 * one TLS load a hook instead of two calls.
 */
static inline RT_NOTRACE int *rt_ftrace_errno(struct rt_ftrace_thread *t)
{
	if (__builtin_expect(!t->errnop, 0))
		t->errnop = &errno;
	return t->errnop;
}

static __attribute__((noinline)) RT_NOTRACE void
rt_ftrace_func_enter(unsigned long ip, unsigned long parent_ip,
		     unsigned int enabled, unsigned long sp)
{
	struct rt_ftrace_thread *t = &rt_ftrace_current;
	struct rt_ftrace_match m;
	int saved_errno, *errnop;
	/* The calltime's read first (rt_ftrace_clock_start()). */
	uint64_t clock = enabled & RT_FTRACE_GRAPH ? rt_ftrace_clock_start() : 0;

	if (t->busy)
		return;
	t->busy = 1;
	/*
	 * Orders (compiler barrier): the flag is set before the state is
	 * touched, as seen by a signal handler of this thread.
	 */
	atomic_signal_fence(memory_order_seq_cst);
	errnop = rt_ftrace_errno(t);
	saved_errno = *errnop;

	rt_ftrace_test(ip, enabled, &m);
	if ((enabled & RT_FTRACE_FUNCTION) && m.func)
		rt_ftrace_function_event(ip, parent_ip, NULL);
	if (__builtin_expect(enabled & RT_FTRACE_PROBE, 0))
		rt_ftrace_probe_call(ip, (const void *)parent_ip);
	if (enabled & RT_FTRACE_GRAPH)
		rt_function_graph_enter(t, ip, parent_ip, sp, &m, clock);

	*errnop = saved_errno;
	/* Orders (compiler barrier): the state is done with first. */
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

static __attribute__((noinline)) RT_NOTRACE void
rt_ftrace_func_exit(unsigned long ip, unsigned long sp, bool record)
{
	struct rt_ftrace_thread *t = &rt_ftrace_current;
	int saved_errno, *errnop;
	/* The rettime's read first, as in rt_ftrace_func_enter(). */
	uint64_t clock = record ? rt_ftrace_clock_start() : 0;

	if (t->busy)
		return;
	t->busy = 1;
	/* Orders: as in rt_ftrace_func_enter(). */
	atomic_signal_fence(memory_order_seq_cst);
	errnop = rt_ftrace_errno(t);
	saved_errno = *errnop;

	rt_ftrace_return_to_handler(t, ip, sp, record, clock);

	*errnop = saved_errno;
	/* Orders: as in rt_ftrace_func_enter(). */
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

void __cyg_profile_func_enter(void *this_fn, void *call_site);
void __cyg_profile_func_exit(void *this_fn, void *call_site);

/**
 * __cyg_profile_func_enter - called on entry to every instrumented function
 * @this_fn: the function's address
 * @call_site: where it returns to (the parent ip)
 *
 * Context: any thread and signal handler; lock-free except for a thread's
 * first read-side section (see rt_ftrace_test()).
 */
RT_EXPORT RT_NOTRACE void __cyg_profile_func_enter(void *this_fn,
						   void *call_site)
{
	unsigned int enabled;

	/* Relaxed: a switch; the hooks act on it within a few calls. */
	if (atomic_load_explicit(&rt_function_trace_stop, memory_order_relaxed))
		return;
	/* Relaxed: as above, for the core's switch. */
	enabled = atomic_load_explicit(&rt_ftrace_enabled,
				       memory_order_relaxed);
	if (!enabled)
		return;
	rt_ftrace_func_enter((unsigned long)this_fn, (unsigned long)call_site,
			     enabled, (unsigned long)__builtin_dwarf_cfa());
}

/**
 * __cyg_profile_func_exit - called on exit from every instrumented function
 * @this_fn: the function's address
 * @call_site: where it returns to
 *
 * Context: as __cyg_profile_func_enter().
 */
RT_EXPORT RT_NOTRACE void __cyg_profile_func_exit(void *this_fn,
						  void *call_site)
{
	bool record;

	(void)call_site;
	/* Relaxed: as in __cyg_profile_func_enter(). */
	record = !atomic_load_explicit(&rt_function_trace_stop,
				       memory_order_relaxed) &&
		 /* Relaxed: as in __cyg_profile_func_enter(). */
		 (atomic_load_explicit(&rt_ftrace_enabled,
				       memory_order_relaxed) & RT_FTRACE_GRAPH);
	/*
	 * Off: only the exit of a function entered while the graph tracer
	 * was on has anything to pop, and it returns in order: it is the
	 * top frame, or a hidden entry at the top level.
	 */
	if (!record) {
		const struct rt_ftrace_thread *t = &rt_ftrace_current;

		if (!t->hidden[t->top] &&
		    !(t->top && t->ret_stack[t->top - 1].func ==
				       (unsigned long)this_fn))
			return;
	}
	rt_ftrace_func_exit((unsigned long)this_fn,
			    (unsigned long)__builtin_dwarf_cfa(), record);
}

/*
 * The recorded call sites follow the tracers and set_ftrace_filter and
 * set_ftrace_notrace (dynftrace.c, x86-64); elsewhere there are none.
 */
RT_NOTRACE void rt_ftrace_sites_update(void)
{
#if RT_HAVE_MCOUNT
	rt_dynftrace_update();
#endif
}

/* ---- matching globs against the symbol tables --------------------------- */

/*
 * A walk over every function symbol (the kernel's match_records()). The
 * names of one address come together: a glob selects the address when it
 * matches any of them, and the address keeps its preferred name.
 */
struct rt_ftrace_matcher {
	const struct rt_ftrace_glob *globs;
	size_t nr_globs;
	bool *hit;     /* per glob: matches the address being gathered */
	bool *matched; /* per glob: matched some function */
	bool have;
	struct rt_sym first;
	/* the names of the address being gathered, and whether a glob
	 * that adds matched each */
	struct rt_sym *alias;
	bool *alias_hit;
	size_t nr_alias;
	size_t cap_alias;
	size_t seq; /* names walked so far */
	struct rt_ftrace_func *funcs;
	size_t nr;
	size_t cap;
};

static RT_NOTRACE int rt_matcher_flush(struct rt_ftrace_matcher *mt)
{
	struct rt_ftrace_func *f;
	bool in = false;
	size_t i;

	if (!mt->have)
		return 0;
	mt->have = false;
	/* In the list when the last glob that names it added it. */
	for (i = 0; i < mt->nr_globs; i++) {
		if (!mt->hit[i])
			continue;
		mt->matched[i] = true;
		in = !mt->globs[i].neg;
	}
	if (!in)
		return 0;
	for (i = 0; i < mt->nr_alias; i++) {
		if (!mt->alias_hit[i])
			continue;
		if (mt->nr == mt->cap) {
			size_t cap = mt->cap ? 2 * mt->cap : 64;

			f = realloc(mt->funcs, cap * sizeof(*f));
			if (!f)
				return -ENOMEM;
			mt->funcs = f;
			mt->cap = cap;
		}
		f = &mt->funcs[mt->nr++];
		f->ip = mt->alias[i].start;
		f->name = mt->alias[i].name;
		f->mod = rt_sym_modname(&mt->alias[i]);
		f->seq = mt->seq - mt->nr_alias + i;
	}
	return 0;
}

static RT_NOTRACE bool rt_glob_match(const struct rt_ftrace_glob *g,
				     const char *name)
{
	if (strncmp(name, g->glob, g->prefix))
		return false;
	if (g->literal)
		return !name[g->prefix];
	return !fnmatch(g->glob, name, 0);
}

static RT_NOTRACE int rt_matcher_cb(const struct rt_sym *sym, void *arg)
{
	struct rt_ftrace_matcher *mt = arg;
	size_t i;
	int ret;

	if (mt->have && sym->start != mt->first.start) {
		ret = rt_matcher_flush(mt);
		if (ret)
			return ret;
	}
	if (!mt->have) {
		mt->first = *sym;
		mt->have = true;
		mt->nr_alias = 0;
		memset(mt->hit, 0, mt->nr_globs * sizeof(*mt->hit));
	}
	if (mt->nr_alias == mt->cap_alias) {
		size_t cap = mt->cap_alias ? 2 * mt->cap_alias : 8;
		struct rt_sym *a = realloc(mt->alias, cap * sizeof(*a));
		bool *h;

		if (!a)
			return -ENOMEM;
		mt->alias = a;
		h = realloc(mt->alias_hit, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		mt->alias_hit = h;
		mt->cap_alias = cap;
	}
	mt->alias[mt->nr_alias] = *sym;
	mt->alias_hit[mt->nr_alias] = false;
	for (i = 0; i < mt->nr_globs; i++) {
		if (!rt_glob_match(&mt->globs[i], sym->name))
			continue;
		mt->hit[i] = true;
		if (!mt->globs[i].neg)
			mt->alias_hit[mt->nr_alias] = true;
	}
	mt->nr_alias++;
	mt->seq++;
	return 0;
}

static RT_NOTRACE int rt_ftrace_func_cmp(const void *a, const void *b)
{
	const struct rt_ftrace_func *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * What @globs select among the functions loaded now: *@funcs (by address,
 * to be freed) and, per glob, whether it matched anything (@matched).
 */
static RT_NOTRACE int
rt_ftrace_match_records(const struct rt_ftrace_glob *globs, size_t nr_globs,
			bool *matched, struct rt_ftrace_func **funcs,
			size_t *nr_funcs)
{
	struct rt_ftrace_matcher mt = {
		.globs = globs,
		.nr_globs = nr_globs,
		.matched = matched,
	};
	int ret;

	*funcs = NULL;
	*nr_funcs = 0;
	if (!nr_globs)
		return 0;
	mt.hit = calloc(nr_globs, sizeof(*mt.hit));
	if (!mt.hit)
		return -ENOMEM;
	ret = rt_syms_foreach(rt_matcher_cb, &mt);
	if (!ret)
		ret = rt_matcher_flush(&mt);
	free(mt.hit);
	free(mt.alias);
	free(mt.alias_hit);
	if (ret < 0) {
		free(mt.funcs);
		return ret;
	}
	if (mt.nr > 1)
		qsort(mt.funcs, mt.nr, sizeof(*mt.funcs), rt_ftrace_func_cmp);
	*funcs = mt.funcs;
	*nr_funcs = mt.nr;
	return 0;
}

/* ---- publishing --------------------------------------------------------- */

/*
 * One block with the four lists' addresses, or NULL (and 0) when they are
 * all empty; -ENOMEM in *@err when it cannot be allocated.
 */
static RT_NOTRACE struct rt_ftrace_filters *
rt_ftrace_filters_build(struct rt_ftrace_func *const funcs[],
			const size_t nr[], int *err)
{
	struct rt_ftrace_filters *f;
	size_t total = 0, i, l;
	unsigned long *p;

	*err = 0;
	for (l = 0; l < RT_FTRACE_NR_LISTS; l++)
		total += nr[l];
	if (!total)
		return NULL;
	f = malloc(sizeof(*f) + total * sizeof(f->ips[0]));
	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	p = f->ips;
	for (l = 0; l < RT_FTRACE_NR_LISTS; l++) {
		f->hash[l].count = nr[l];
		f->hash[l].ips = p;
		for (i = 0; i < nr[l]; i++)
			*p++ = funcs[l][i].ip;
	}
	return f;
}

/*
 * Under rt_ftrace_lock: make @f the lists the hooks use, and free the old
 * ones once no hook can be looking at them.
 */
static RT_NOTRACE void rt_ftrace_publish(struct rt_ftrace_filters *f)
{
	struct rt_ftrace_filters *old;

	/* Relaxed: only ever written here, under rt_ftrace_lock. */
	old = atomic_load_explicit(&rt_ftrace_filters, memory_order_relaxed);
	/*
	 * Release: the arrays are filled before a hook can find them; pairs
	 * with the acquire load in rt_ftrace_test() (rcu_assign_pointer).
	 */
	atomic_store_explicit(&rt_ftrace_filters, f, memory_order_release);
	/*
	 * Relaxed: a hint for the trampoline's graph entry (fgraph.c),
	 * which skips the lists while it is 0; a hook that sees the old
	 * value runs as if a moment before the write (the lists' own
	 * pointer is loaded with acquire whenever it is 1).
	 */
	atomic_store_explicit(&rt_graph_lists_set,
			      f && (f->hash[RT_GRAPH_FUNCTION].count ||
				    f->hash[RT_GRAPH_NOTRACE].count),
			      memory_order_relaxed);
	if (old) {
		rt_ftrace_synchronize();
		free(old);
	}
}

/* ---- the control API ---------------------------------------------------- */

static RT_NOTRACE void rt_globs_free(struct rt_ftrace_glob *globs, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(globs[i].glob);
	free(globs);
}

/* Split @text into globs; "!" alone is an error. */
static RT_NOTRACE int rt_globs_parse(const char *text,
				     struct rt_ftrace_glob **globs,
				     size_t *nr, char *err, size_t errlen)
{
	static const char space[] = " \t\n\r\f\v";
	struct rt_ftrace_glob *v = NULL, *nv;
	size_t n = 0, len;
	const char *p = text ? text : "";
	bool neg;

	for (;;) {
		p += strspn(p, space);
		if (!*p)
			break;
		len = strcspn(p, space);
		neg = *p == '!';
		if (neg && len == 1) {
			if (err && errlen)
				snprintf(err, errlen, "'!' without a glob");
			rt_globs_free(v, n);
			return -EINVAL;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			goto nomem;
		v = nv;
		v[n].neg = neg;
		v[n].glob = strndup(p + neg, len - neg);
		if (!v[n].glob)
			goto nomem;
		v[n].prefix = strcspn(v[n].glob, "*?[\\");
		v[n].literal = !v[n].glob[v[n].prefix];
		n++;
		p += len;
	}
	*globs = v;
	*nr = n;
	return 0;
nomem:
	rt_globs_free(v, n);
	return -ENOMEM;
}

/* ---- function commands ---------------------------------------------------- */

/*
 * One command on one function (the kernel's ftrace_func_entry of a probe
 * ops): set_ftrace_filter's "glob:command[:arg][:count]" makes one per
 * function the glob matches. The name is copied: the command stays
 * listed when its object is gone, as the kernel's do until removed.
 */
struct rt_fprobe {
	unsigned long ip;
	char *name; /* "name" or "name [module]" as listed */
	size_t seq; /* its place in available_filter_functions */
	int cmd;
	char sys[64]; /* the event commands' target */
	char event[64];
	void *target;
	_Atomic long count; /* -1: unlimited */
	long count_set;	    /* as written, for the listing's "count=" */
	/* another name of a function that has the same command: listed,
	 * not run (the command runs once per call) */
	bool alias;
};

/* The commands, by address, as the hooks see them (immutable). */
struct rt_fprobe_set {
	size_t nr;
	struct rt_fprobe *p[];
};

static const char *const rt_fprobe_names[RT_FPROBE_NR] = {
	[RT_FPROBE_TRACEON] = "traceon",
	[RT_FPROBE_TRACEOFF] = "traceoff",
	[RT_FPROBE_STACKTRACE] = "stacktrace",
	[RT_FPROBE_ENABLE_EVENT] = "enable_event",
	[RT_FPROBE_DISABLE_EVENT] = "disable_event",
};

/* Written under rt_ftrace_lock; read by the hooks under RCU. */
static _Atomic(struct rt_fprobe_set *) rt_fprobes;
/* Under rt_ftrace_lock: every command, in the order they were set. */
static struct rt_fprobe **rt_fprobe_all;
static size_t rt_nr_fprobe;

RT_NOTRACE bool rt_ftrace_probes_on(void)
{
	/* Relaxed: only compared with NULL (the control side's view). */
	return atomic_load_explicit(&rt_fprobes, memory_order_relaxed) != NULL;
}

static RT_NOTRACE size_t rt_fprobe_first(const struct rt_fprobe_set *set,
					 unsigned long ip)
{
	size_t lo = 0, hi = set->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->p[mid]->ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

RT_NOTRACE bool rt_ftrace_probe_at(unsigned long ip)
{
	const struct rt_fprobe_set *set;
	bool at = false;
	size_t i;

	rt_rcu_read_lock();
	/* Acquire: pairs with the release store in rt_fprobe_publish(). */
	set = atomic_load_explicit(&rt_fprobes, memory_order_acquire);
	if (set) {
		i = rt_fprobe_first(set, ip);
		at = i < set->nr && set->p[i]->ip == ip;
	}
	rt_rcu_read_unlock();
	return at;
}

RT_NOTRACE void rt_ftrace_probe_call(unsigned long ip, const void *from)
{
	const struct rt_fprobe_set *set;
	size_t i;

	rt_rcu_read_lock();
	/* Acquire: as in rt_ftrace_probe_at(). */
	set = atomic_load_explicit(&rt_fprobes, memory_order_acquire);
	for (i = set ? rt_fprobe_first(set, ip) : 0;
	     set && i < set->nr && set->p[i]->ip == ip; i++)
		rt_ftrace_probe_fire(set->p[i]->cmd, &set->p[i]->count,
				     set->p[i]->target, from);
	rt_rcu_read_unlock();
}

static RT_NOTRACE int rt_fprobe_cmp(const void *a, const void *b)
{
	const struct rt_fprobe *x = *(struct rt_fprobe *const *)a;
	const struct rt_fprobe *y = *(struct rt_fprobe *const *)b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return 0;
}

/* The same command on the same function (under another name). */
static RT_NOTRACE bool rt_fprobe_same(const struct rt_fprobe *a,
				      const struct rt_fprobe *b)
{
	return a->ip == b->ip && a->cmd == b->cmd && !strcmp(a->sys, b->sys) &&
	       !strcmp(a->event, b->event);
}

/* Under rt_ftrace_lock: the first of each function's names with a
 * command runs it, the others are aliases. */
static RT_NOTRACE void rt_fprobe_mark_aliases(void)
{
	size_t i, k;

	for (i = 0; i < rt_nr_fprobe; i++) {
		rt_fprobe_all[i]->alias = false;
		for (k = 0; k < i; k++)
			if (rt_fprobe_same(rt_fprobe_all[k], rt_fprobe_all[i])) {
				rt_fprobe_all[i]->alias = true;
				break;
			}
	}
}

/*
 * Under rt_ftrace_lock: publish rt_fprobe_all to the hooks; @gone (that
 * many) are freed once no hook can be running them. -ENOMEM leaves the
 * hooks' set as it was (and @gone not freed: the caller keeps them).
 */
static RT_NOTRACE int rt_fprobe_publish(struct rt_fprobe **gone, size_t nr_gone)
{
	struct rt_fprobe_set *set = NULL, *old;
	size_t i;

	rt_fprobe_mark_aliases();
	if (rt_nr_fprobe) {
		set = malloc(sizeof(*set) + rt_nr_fprobe * sizeof(set->p[0]));
		if (!set)
			return -ENOMEM;
		set->nr = 0;
		for (i = 0; i < rt_nr_fprobe; i++)
			if (!rt_fprobe_all[i]->alias)
				set->p[set->nr++] = rt_fprobe_all[i];
		/* (stable order is not needed: the commands of one address
		 * all run) */
		qsort(set->p, set->nr, sizeof(set->p[0]), rt_fprobe_cmp);
	}
	/* Relaxed: only ever written here, under rt_ftrace_lock. */
	old = atomic_load_explicit(&rt_fprobes, memory_order_relaxed);
	/* Release: the set and its commands are filled before a hook finds
	 * them; pairs with the acquire loads of the hooks. */
	atomic_store_explicit(&rt_fprobes, set, memory_order_release);
	rt_synchronize_rcu();
	free(old);
	for (i = 0; i < nr_gone; i++) {
		if (gone[i]->target)
			rt_ftrace_probe_target(gone[i]->sys, gone[i]->event,
					       false, &gone[i]->target);
		free(gone[i]->name);
		free(gone[i]);
	}
	return 0;
}

/* What one "glob:command[:arg][:count]" word says. */
struct rt_fprobe_req {
	char glob[256];
	int cmd;
	bool neg;
	char sys[64];
	char event[64];
	long count;
};

/* Parse @word into @rq; -EINVAL with @err set when it is not one. */
static RT_NOTRACE int rt_fprobe_parse(const char *word,
				      struct rt_fprobe_req *rq, char *err,
				      size_t errlen)
{
	char copy[512], *f[6], *save = NULL, *tok, *end;
	int n = 0, i, want;

	memset(rq, 0, sizeof(*rq));
	rq->count = -1;
	rq->neg = word[0] == '!';
	if (snprintf(copy, sizeof(copy), "%s", word + rq->neg) >=
	    (int)sizeof(copy))
		goto bad;
	/* strtok_r() would merge empty fields; none is allowed anyway */
	for (tok = strtok_r(copy, ":", &save); tok && n < 6;
	     tok = strtok_r(NULL, ":", &save))
		f[n++] = tok;
	if (tok || n < 2)
		goto bad;
	for (i = 0; i < RT_FPROBE_NR; i++)
		if (!strcmp(f[1], rt_fprobe_names[i]))
			break;
	if (i == RT_FPROBE_NR) {
		if (err && errlen)
			snprintf(err, errlen,
				 "unknown function command '%s' (traceon, traceoff, stacktrace, enable_event, disable_event)",
				 f[1]);
		return -EINVAL;
	}
	rq->cmd = i;
	want = 2;
	if (i == RT_FPROBE_ENABLE_EVENT || i == RT_FPROBE_DISABLE_EVENT) {
		if (n < 4)
			goto bad;
		if (snprintf(rq->sys, sizeof(rq->sys), "%s", f[2]) >=
			    (int)sizeof(rq->sys) ||
		    snprintf(rq->event, sizeof(rq->event), "%s", f[3]) >=
			    (int)sizeof(rq->event))
			goto bad;
		want = 4;
	}
	if (n > want + 1)
		goto bad;
	/* a removal names the command, whatever its count (the kernel
	 * reads no further) */
	if (n == want + 1 && !rq->neg) {
		errno = 0;
		rq->count = strtol(f[want], &end, 10);
		if (errno || *end || rq->count < 0)
			goto bad;
	}
	if (snprintf(rq->glob, sizeof(rq->glob), "%s", f[0]) >=
	    (int)sizeof(rq->glob))
		goto bad;
	return 0;
bad:
	if (err && errlen)
		snprintf(err, errlen, "bad function command '%s'", word);
	return -EINVAL;
}

/* One command added on every function @rq's glob matches; under
 * rt_ftrace_lock. */
static RT_NOTRACE int rt_fprobe_add(const struct rt_fprobe_req *rq,
				    char *err, size_t errlen)
{
	struct rt_ftrace_glob g = { .glob = (char *)rq->glob };
	struct rt_ftrace_func *funcs = NULL;
	struct rt_fprobe **all;
	size_t nr = 0, i, added = 0;
	bool matched = false;
	void *target = NULL;
	int ret;

	g.prefix = strcspn(g.glob, "*?[\\");
	g.literal = !g.glob[g.prefix];
	ret = rt_ftrace_match_records(&g, 1, &matched, &funcs, &nr);
	if (ret)
		return ret;
	if (!nr) {
		if (err && errlen)
			snprintf(err, errlen, "no function matches '%s'",
				 rq->glob);
		return -EINVAL;
	}
	all = realloc(rt_fprobe_all, (rt_nr_fprobe + nr) * sizeof(*all));
	if (!all) {
		free(funcs);
		return -ENOMEM;
	}
	rt_fprobe_all = all;
	if (rq->sys[0] && rt_ftrace_probe_target(rq->sys, rq->event, true,
						  &target)) {
		if (err && errlen)
			snprintf(err, errlen, "no event %s:%s", rq->sys,
				 rq->event);
		free(funcs);
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		struct rt_fprobe *p;
		size_t k;

		/* one command of a kind per function and name: a second
		 * one is ignored (the kernel's register_ftrace_function_
		 * probe() keeps the first's data too) */
		for (k = 0; k < rt_nr_fprobe; k++) {
			p = rt_fprobe_all[k];
			if (p->ip == funcs[i].ip && p->cmd == rq->cmd &&
			    !strcmp(p->sys, rq->sys) &&
			    !strcmp(p->event, rq->event) &&
			    !strncmp(p->name, funcs[i].name,
				     strlen(funcs[i].name)) &&
			    (p->name[strlen(funcs[i].name)] == '\0' ||
			     p->name[strlen(funcs[i].name)] == ' '))
				break;
		}
		if (k < rt_nr_fprobe)
			continue;
		p = calloc(1, sizeof(*p));
		if (p && funcs[i].mod)
			ret = asprintf(&p->name, "%s [%s]", funcs[i].name,
				       funcs[i].mod) < 0 ? -ENOMEM : 0;
		else if (p)
			p->name = strdup(funcs[i].name);
		if (!p || !p->name) {
			free(p);
			break;
		}
		p->ip = funcs[i].ip;
		p->seq = funcs[i].seq;
		p->cmd = rq->cmd;
		snprintf(p->sys, sizeof(p->sys), "%s", rq->sys);
		snprintf(p->event, sizeof(p->event), "%s", rq->event);
		p->count_set = rq->count;
		atomic_init(&p->count, rq->count);
		if (target) {
			/* each event command holds its own soft mode */
			p->target = target;
			if (added &&
			    rt_ftrace_probe_target(rq->sys, rq->event, true,
						   &p->target)) {
				free(p->name);
				free(p);
				break;
			}
		}
		rt_fprobe_all[rt_nr_fprobe++] = p;
		added++;
	}
	free(funcs);
	if (target && !added)
		rt_ftrace_probe_target(rq->sys, rq->event, false, &target);
	if (i < nr)
		ret = -ENOMEM;
	if (rq->cmd == RT_FPROBE_STACKTRACE)
		rt_ftrace_probe_prime();
	if (rt_fprobe_publish(NULL, 0))
		ret = -ENOMEM;
	return ret;
}

/* Every command @rq's glob and kind name leaves; under rt_ftrace_lock. */
static RT_NOTRACE int rt_fprobe_del(const struct rt_fprobe_req *rq)
{
	struct rt_fprobe **gone;
	size_t i, k = 0, nr_gone = 0;
	int ret;

	gone = malloc((rt_nr_fprobe ? rt_nr_fprobe : 1) * sizeof(*gone));
	if (!gone)
		return -ENOMEM;
	for (i = 0; i < rt_nr_fprobe; i++) {
		struct rt_fprobe *p = rt_fprobe_all[i];
		char name[256];

		/* the glob is matched against the name as listed, without
		 * its module */
		snprintf(name, sizeof(name), "%.*s",
			 (int)strcspn(p->name, " "), p->name);
		if (p->cmd == rq->cmd && !fnmatch(rq->glob, name, 0) &&
		    (!rq->sys[0] || (!strcmp(p->sys, rq->sys) &&
				     !strcmp(p->event, rq->event))))
			gone[nr_gone++] = p;
		else
			rt_fprobe_all[k++] = p;
	}
	rt_nr_fprobe = k;
	ret = rt_fprobe_publish(gone, nr_gone);
	if (ret) {
		/* the hooks still have them: keep them listed */
		memcpy(rt_fprobe_all + rt_nr_fprobe, gone,
		       nr_gone * sizeof(*gone));
		rt_nr_fprobe += nr_gone;
	}
	free(gone);
	return ret;
}

/*
 * The function commands among the words of @text (those with a ':'):
 * run, and the rest of the text in *@rest (NULL when there was no
 * command). Only set_ftrace_filter takes them.
 */
static RT_NOTRACE int rt_fprobe_words(enum rt_ftrace_list list,
				      const char *text, char **rest,
				      char *err, size_t errlen)
{
	static const char space[] = " \t\n\r\f\v";
	const char *p = text ? text : "";
	bool changed = false;
	size_t used = 0;
	char *out;
	int ret = 0;

	*rest = NULL;
	if (!strchr(p, ':'))
		return 0;
	if (list != RT_FTRACE_FILTER) {
		if (err && errlen)
			snprintf(err, errlen,
				 "function commands go to set_ftrace_filter");
		return -EINVAL;
	}
	out = malloc(strlen(p) + 1);
	if (!out)
		return -ENOMEM;
	pthread_mutex_lock(&rt_ftrace_lock);
	for (;;) {
		struct rt_fprobe_req rq;
		char word[512];
		size_t len;

		p += strspn(p, space);
		if (!*p)
			break;
		len = strcspn(p, space);
		if (!memchr(p, ':', len)) {
			memcpy(out + used, p, len);
			used += len;
			out[used++] = ' ';
			p += len;
			continue;
		}
		snprintf(word, sizeof(word), "%.*s", (int)len, p);
		p += len;
		ret = rt_fprobe_parse(word, &rq, err, errlen);
		if (!ret)
			ret = rq.neg ? rt_fprobe_del(&rq) :
				       rt_fprobe_add(&rq, err, errlen);
		if (ret)
			break;
		changed = true;
	}
	pthread_mutex_unlock(&rt_ftrace_lock);
	out[used] = '\0';
	if (changed)
		rt_ftrace_masks_update();
	if (ret) {
		free(out);
		return ret;
	}
	*rest = out;
	return 0;
}

/* The order of available_filter_functions, then the command's. */
static RT_NOTRACE int rt_fprobe_seq_cmp(const void *a, const void *b)
{
	const struct rt_fprobe *x = *(struct rt_fprobe *const *)a;
	const struct rt_fprobe *y = *(struct rt_fprobe *const *)b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->cmd - y->cmd;
}

RT_NOTRACE size_t rt_ftrace_probes_show(char *buf, size_t len)
{
	struct rt_fprobe **v;
	size_t total = 0, i;

	if (buf && len)
		buf[0] = '\0';
	pthread_mutex_lock(&rt_ftrace_lock);
	v = rt_nr_fprobe ? malloc(rt_nr_fprobe * sizeof(*v)) : NULL;
	if (v) {
		memcpy(v, rt_fprobe_all, rt_nr_fprobe * sizeof(*v));
		qsort(v, rt_nr_fprobe, sizeof(*v), rt_fprobe_seq_cmp);
	}
	for (i = 0; v && i < rt_nr_fprobe; i++) {
		size_t room = total < len ? len - total : 0;
		char *at = room ? buf + total : NULL, cnt[32], ev[140] = "";
		/* Relaxed: a snapshot of the count for the listing. */
		long c = atomic_load_explicit(&v[i]->count,
					      memory_order_relaxed);
		int n;

		if (v[i]->count_set < 0)
			snprintf(cnt, sizeof(cnt), "unlimited");
		else
			snprintf(cnt, sizeof(cnt), "count=%ld", c);
		if (v[i]->sys[0])
			snprintf(ev, sizeof(ev), ":%s:%s", v[i]->sys,
				 v[i]->event);
		/* "name [module]:cmd...": the kernel's %ps prints the
		 * module after the name the same way */
		n = snprintf(at, room, "%s:%s%s:%s\n", v[i]->name,
			     rt_fprobe_names[v[i]->cmd], ev, cnt);
		if (n > 0)
			total += (size_t)n;
	}
	pthread_mutex_unlock(&rt_ftrace_lock);
	free(v);
	return total;
}

RT_NOTRACE int rt_ftrace_list_set(enum rt_ftrace_list list, const char *text,
				  bool append, char *err, size_t errlen)
{
	struct rt_ftrace_func *funcs[RT_FTRACE_NR_LISTS], *nfuncs = NULL;
	struct rt_ftrace_glob *nglobs = NULL, *globs = NULL;
	size_t nr[RT_FTRACE_NR_LISTS], nr_new = 0, nr_old, nr_funcs, i;
	struct rt_ftrace_list_state *st;
	struct rt_ftrace_filters *f;
	bool *matched = NULL;
	char *globs_text = NULL;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if ((unsigned int)list >= RT_FTRACE_NR_LISTS) {
		if (err && errlen)
			snprintf(err, errlen, "no such list");
		errno = EINVAL;
		return -EINVAL;
	}
	ret = rt_fprobe_words(list, text, &globs_text, err, errlen);
	if (ret) {
		errno = -ret;
		return ret;
	}
	ret = rt_globs_parse(globs_text ? globs_text : text, &nglobs, &nr_new,
			     err, errlen);
	if (globs_text && !nr_new && ret == 0) {
		/* only commands: the list is as it was (or as the
		 * truncation before left it) */
		free(globs_text);
		return 0;
	}
	free(globs_text);
	if (ret) {
		errno = -ret;
		return ret;
	}
	if (append && !nr_new)
		return 0;

	pthread_mutex_lock(&rt_ftrace_lock);
	st = &rt_ftrace_lists[list];
	nr_old = append ? st->nr_globs : 0;
	ret = -ENOMEM;
	if (nr_old + nr_new) {
		globs = malloc((nr_old + nr_new) * sizeof(*globs));
		matched = calloc(nr_old + nr_new, sizeof(*matched));
		if (!globs || !matched)
			goto fail;
		if (nr_old)
			memcpy(globs, st->globs, nr_old * sizeof(*globs));
		if (nr_new)
			memcpy(globs + nr_old, nglobs, nr_new * sizeof(*globs));
	}
	ret = rt_ftrace_match_records(globs, nr_old + nr_new, matched, &nfuncs,
				      &nr_funcs);
	if (ret)
		goto fail;
	/* Only the new globs must match: an old one may name an object
	 * that has been unloaded since. */
	for (i = nr_old; i < nr_old + nr_new; i++) {
		if (matched[i])
			continue;
		if (err && errlen)
			snprintf(err, errlen, "no function matches '%s'",
				 globs[i].glob);
		ret = -EINVAL;
		goto fail;
	}

	for (i = 0; i < RT_FTRACE_NR_LISTS; i++) {
		funcs[i] = rt_ftrace_lists[i].funcs;
		nr[i] = rt_ftrace_lists[i].nr_funcs;
	}
	funcs[list] = nfuncs;
	nr[list] = nr_funcs;
	f = rt_ftrace_filters_build(funcs, nr, &ret);
	if (ret)
		goto fail;

	/* Commit: the list takes the old globs it kept and the new ones. */
	if (!append)
		rt_globs_free(st->globs, st->nr_globs);
	else
		free(st->globs);
	st->globs = globs;
	st->nr_globs = nr_old + nr_new;
	free(st->funcs);
	st->funcs = nfuncs;
	st->nr_funcs = nr_funcs;
	rt_ftrace_publish(f);
	pthread_mutex_unlock(&rt_ftrace_lock);
	free(nglobs);
	free(matched);
	rt_ftrace_sites_update();
	return 0;

fail:
	pthread_mutex_unlock(&rt_ftrace_lock);
	free(nfuncs);
	free(globs);
	free(matched);
	rt_globs_free(nglobs, nr_new);
	errno = -ret;
	return ret;
}

/* The order of available_filter_functions, as the kernel lists them. */
static RT_NOTRACE int rt_ftrace_func_seq_cmp(const void *a, const void *b)
{
	const struct rt_ftrace_func *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

RT_NOTRACE size_t rt_ftrace_list_show(enum rt_ftrace_list list, char *buf,
				      size_t len)
{
	const struct rt_ftrace_list_state *st;
	struct rt_ftrace_func *sorted;
	const struct rt_ftrace_func *v;
	size_t total = 0, i;

	if (buf && len)
		buf[0] = '\0';
	if ((unsigned int)list >= RT_FTRACE_NR_LISTS)
		return 0;

	pthread_mutex_lock(&rt_ftrace_lock);
	st = &rt_ftrace_lists[list];
	v = st->funcs;
	sorted = st->nr_funcs ? malloc(st->nr_funcs * sizeof(*sorted)) : NULL;
	if (sorted) {
		memcpy(sorted, st->funcs, st->nr_funcs * sizeof(*sorted));
		qsort(sorted, st->nr_funcs, sizeof(*sorted),
		      rt_ftrace_func_seq_cmp);
		v = sorted;
	}
	for (i = 0; i < st->nr_funcs; i++) {
		size_t room = total < len ? len - total : 0;
		char *at = room ? buf + total : NULL;
		int n;

		if (v[i].mod)
			n = snprintf(at, room, "%s [%s]\n", v[i].name,
				     v[i].mod);
		else
			n = snprintf(at, room, "%s\n", v[i].name);
		if (n > 0)
			total += (size_t)n;
	}
	pthread_mutex_unlock(&rt_ftrace_lock);
	free(sorted);
	return total;
}

static RT_NOTRACE int rt_available_cb(const struct rt_sym *sym, void *arg)
{
	const char *mod = rt_sym_modname(sym);
	FILE *out = arg;
	int n;

	if (mod)
		n = fprintf(out, "%s [%s]\n", sym->name, mod);
	else
		n = fprintf(out, "%s\n", sym->name);
	return n < 0 ? -EIO : 0;
}

RT_NOTRACE int rt_ftrace_available_functions(FILE *out)
{
	int ret;

	if (!out) {
		errno = EINVAL;
		return -EINVAL;
	}
	ret = rt_syms_foreach(rt_available_cb, out);
	if (!ret && fflush(out))
		ret = -EIO;
	if (ret < 0) {
		errno = -ret;
		return ret;
	}
	return 0;
}

RT_NOTRACE int rt_ftrace_site_errors(FILE *out)
{
	int ret = 0;

#if RT_HAVE_MCOUNT
	ret = rt_dynftrace_errors_show(out);
#else
	(void)out;
#endif
	return ret;
}

RT_NOTRACE int rt_ftrace_enabled_functions(FILE *out)
{
	int ret = 0;

	if (!out) {
		errno = EINVAL;
		return -EINVAL;
	}
#if RT_HAVE_MCOUNT
	ret = rt_dynftrace_enabled_show(out);
#endif
	if (ret < 0)
		errno = -ret;
	return ret;
}

/* ---- new shared objects ------------------------------------------------- */

/*
 * Match every list's globs again, after objects were loaded: a glob may
 * now name functions of the new ones. A list that cannot be matched for
 * want of memory keeps what it had.
 */
static RT_NOTRACE void rt_ftrace_update_lists(void)
{
	struct rt_ftrace_func *funcs[RT_FTRACE_NR_LISTS];
	struct rt_ftrace_func *nfuncs[RT_FTRACE_NR_LISTS] = { NULL };
	size_t nr[RT_FTRACE_NR_LISTS];
	struct rt_ftrace_filters *f;
	bool any = false, *matched;
	size_t l;
	int ret;

	pthread_mutex_lock(&rt_ftrace_lock);
	for (l = 0; l < RT_FTRACE_NR_LISTS; l++) {
		struct rt_ftrace_list_state *st = &rt_ftrace_lists[l];

		funcs[l] = st->funcs;
		nr[l] = st->nr_funcs;
		if (!st->nr_globs)
			continue;
		matched = calloc(st->nr_globs, sizeof(*matched));
		if (!matched)
			continue;
		if (!rt_ftrace_match_records(st->globs, st->nr_globs, matched,
					     &nfuncs[l], &nr[l])) {
			funcs[l] = nfuncs[l];
			any = true;
		} else {
			nr[l] = st->nr_funcs;
		}
		free(matched);
	}
	if (!any)
		goto out;
	f = rt_ftrace_filters_build(funcs, nr, &ret);
	if (ret)
		goto out;
	for (l = 0; l < RT_FTRACE_NR_LISTS; l++) {
		struct rt_ftrace_list_state *st = &rt_ftrace_lists[l];

		if (!nfuncs[l] && funcs[l] == st->funcs)
			continue;
		free(st->funcs);
		st->funcs = nfuncs[l];
		st->nr_funcs = nr[l];
		nfuncs[l] = NULL;
	}
	rt_ftrace_publish(f);
out:
	pthread_mutex_unlock(&rt_ftrace_lock);
	for (l = 0; l < RT_FTRACE_NR_LISTS; l++)
		free(nfuncs[l]);
}

typedef void *(*rt_dlopen_fn)(const char *file, int mode);

/* The next dlopen() in the lookup order (libc's, or a sanitizer's). */
static _Atomic(rt_dlopen_fn) rt_real_dlopen;

/**
 * dlopen - load a shared object, then make its functions known
 * @file: as dlopen(3)
 * @mode: as dlopen(3)
 *
 * After a load that brought in new objects, the symbol tables are read
 * again and every filter list's globs matched again.
 *
 * Userspace: the kernel's module loader tells ftrace about a module's
 * functions; here interposing dlopen() is the way to hear of new objects.
 * The loader searches a bare @file in its caller's DT_RUNPATH (and
 * DT_RPATH), and the caller it sees is now libringtrace: a program that
 * relies on its own run path to find a plugin by bare name must give the
 * path (LD_LIBRARY_PATH, the cache and the default directories still
 * apply). Objects loaded by other ways (dlmopen, a loaded object's own
 * dependencies) are found by the lookups' reread on a miss.
 *
 * Context: as dlopen(3).
 * Return: as dlopen(3).
 */
RT_EXPORT RT_NOTRACE void *dlopen(const char *file, int mode)
{
	/*
	 * Relaxed: every thread that resolves it stores the same value,
	 * and the code it points to was there before us.
	 */
	rt_dlopen_fn real =
		atomic_load_explicit(&rt_real_dlopen, memory_order_relaxed);
	void *handle;
	int saved_errno;

	if (!real) {
		real = (rt_dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
		if (!real)
			return NULL;
		/* Relaxed: see above. */
		atomic_store_explicit(&rt_real_dlopen, real,
				      memory_order_relaxed);
	}
	handle = real(file, mode);
	if (handle && !(mode & RTLD_NOLOAD)) {
		saved_errno = errno;
		if (rt_syms_refresh() > 0)
			rt_ftrace_update_lists();
#if RT_HAVE_MCOUNT
		rt_dynftrace_scan();
		rt_dynftrace_update();
#endif
		errno = saved_errno;
	}
	return handle;
}

/* ---- longjmp ------------------------------------------------------------ */

/*
 * A longjmp() leaves the frames between its caller and the setjmp()
 * caller without their exits. Interposing the jumps tells the return
 * stack which frames that was: those deeper than the stack pointer the
 * jump restores, read from the jmp_buf.
 *
 * Userspace: the kernel has no longjmp; its ret_stack is popped by
 * return_to_handler only. The saved stack pointer is glibc's on x86-64
 * (__jmpbuf[6], mangled with the thread's pointer guard, as glibc's
 * PTR_MANGLE does); rt_jmpbuf_check() verifies the layout at start-up
 * and, where it does not hold, a jump drops nothing and the next entry's
 * stale-frame rule is all there is.
 */
#define RT_JB_RSP 6

typedef void (*rt_longjmp_fn)(struct __jmp_buf_tag *env, int val);

enum { RT_LJ_LONGJMP, RT_LJ__LONGJMP, RT_LJ_SIGLONGJMP, RT_LJ_CHK, RT_LJ_NR };
static const char *const rt_longjmp_names[RT_LJ_NR] = {
	"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
};
/* Written once by the constructor (or a jump before it), read by jumps. */
static _Atomic(rt_longjmp_fn) rt_real_longjmp[RT_LJ_NR];
static bool rt_jmpbuf_ok;

static RT_NOTRACE unsigned long rt_jmpbuf_sp(const struct __jmp_buf_tag *env)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	unsigned long v, guard;

	memcpy(&v, (const char *)env->__jmpbuf + RT_JB_RSP * sizeof(long),
	       sizeof(v));
	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	v = (v >> 0x11) | (v << (64 - 0x11));
	return v ^ guard;
#else
	(void)env;
	return 0;
#endif
}

/* Does the jmp_buf hold the stack pointer where we think it does? */
static RT_NOTRACE __attribute__((noinline)) void rt_jmpbuf_check(void)
{
	jmp_buf jb;
	volatile char here;
	unsigned long sp, at = (unsigned long)&here;

	if (setjmp(jb))
		return;
	sp = rt_jmpbuf_sp(jb);
	rt_jmpbuf_ok = sp && (sp > at ? sp - at : at - sp) < 4096;
}

static RT_NOTRACE rt_longjmp_fn rt_longjmp_real(int which)
{
	/* Relaxed: every thread that resolves it stores the same value. */
	rt_longjmp_fn fn = atomic_load_explicit(&rt_real_longjmp[which],
						memory_order_relaxed);

	if (!fn) {
		fn = (rt_longjmp_fn)dlsym(RTLD_NEXT, rt_longjmp_names[which]);
		if (!fn)
			abort();
		/* Relaxed: see above. */
		atomic_store_explicit(&rt_real_longjmp[which], fn,
				      memory_order_relaxed);
	}
	return fn;
}

/*
 * Drop the frames deeper than machine-stack place @target: their
 * functions were left without their exits. Async-signal-safe.
 */
static RT_NOTRACE void rt_ftrace_left(unsigned long target)
{
	struct rt_ftrace_thread *t = &rt_ftrace_current;
	int top;

	/* a handler leaving a hook it interrupted: the hook's state is
	 * half updated, leave it (the thread is not traced again) */
	if (t->busy)
		return;
	top = t->top;
	while (top > 0 && rt_stack_below(t->ret_stack[top - 1].sp, target))
		top--;
	if (top != t->top) {
		t->top = top;
		t->hidden[top + 1] = 0;
	}
	rt_fgraph_notrace_check(t, target);
}

/* Drop the frames the jump leaves, of both return stacks (the profiling
 * call's too). Async-signal-safe (siglongjmp). */
static RT_NOTRACE void rt_ftrace_longjmp(const struct __jmp_buf_tag *env)
{
	unsigned long target;

	if (!rt_jmpbuf_ok)
		return;
	target = rt_jmpbuf_sp(env);
#if RT_HAVE_MCOUNT
	rt_fgraph_longjmp(target);
#endif
	rt_ftrace_left(target);
}

#define RT_LONGJMP(name, which)                                               \
	RT_EXPORT RT_NOTRACE __attribute__((noreturn)) void name(             \
		struct __jmp_buf_tag env[1], int val)                         \
	{                                                                     \
		rt_ftrace_longjmp(env);                                       \
		rt_longjmp_real(which)(env, val);                             \
		__builtin_unreachable();                                      \
	}

void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
	__attribute__((noreturn));
RT_LONGJMP(longjmp, RT_LJ_LONGJMP)
RT_LONGJMP(_longjmp, RT_LJ__LONGJMP)
RT_LONGJMP(siglongjmp, RT_LJ_SIGLONGJMP)
RT_LONGJMP(__longjmp_chk, RT_LJ_CHK)

/* ---- C++ catch ---------------------------------------------------------- */

/*
 * An exception leaves the frames between the throw and the function that
 * catches it. GCC calls their exit hooks from the unwinding's cleanups;
 * clang does not, nor does a C frame built without -fexceptions, and an
 * entry's stale-frame rule cannot tell a sibling whose exit never came
 * from a caller when the sibling's place is the shallower (a catcher's
 * next call nested under the callee the exception left). Every catch
 * handler calls __cxa_begin_catch() first, from the catching function's
 * frame: interposed, it drops the frames deeper than that frame's stack
 * pointer, which is the catching function's own place (its hooks' CFA).
 *
 * Userspace: the kernel's ret_stack has no exceptions to follow.
 */
typedef void *(*rt_begin_catch_fn)(void *exc);

/* Resolved at the first catch; every thread stores the same value. */
static _Atomic(rt_begin_catch_fn) rt_real_begin_catch;

RT_EXPORT void *__cxa_begin_catch(void *exc);

RT_EXPORT RT_NOTRACE void *__cxa_begin_catch(void *exc)
{
	/* Relaxed: every thread that resolves it stores the same value. */
	rt_begin_catch_fn fn = atomic_load_explicit(&rt_real_begin_catch,
						    memory_order_relaxed);

	if (!fn) {
		fn = (rt_begin_catch_fn)dlsym(RTLD_NEXT, "__cxa_begin_catch");
		if (!fn)
			abort();
		/* Relaxed: see above. */
		atomic_store_explicit(&rt_real_begin_catch, fn,
				      memory_order_relaxed);
	}
	void *ret;

	rt_ftrace_left((unsigned long)__builtin_dwarf_cfa());
	ret = fn(exc);
#if RT_HAVE_MCOUNT
	/* the catcher's stack pointer is just above our return slot, where
	 * the call that threw had its own */
	rt_fgraph_begin_catch((unsigned long)__builtin_frame_address(0) +
			      2 * sizeof(long));
#endif
	return ret;
}

/* ---- fork --------------------------------------------------------------- */

/*
 * Hold the control lock across fork() so the child never inherits it
 * held; registered after symbols.c's handlers so it is taken before its
 * locks, the order they nest in at run time.
 */
static RT_NOTRACE void rt_ftrace_fork_prepare(void)
{
	pthread_mutex_lock(&rt_ftrace_lock);
}

static RT_NOTRACE void rt_ftrace_fork_done(void)
{
	pthread_mutex_unlock(&rt_ftrace_lock);
}

/* In the child, a fresh lock (as symbols.c does with its own). */
static RT_NOTRACE void rt_ftrace_fork_child(void)
{
	pthread_mutex_init(&rt_ftrace_lock, NULL);
}

__attribute__((constructor(102))) static RT_NOTRACE void rt_ftrace_init(void)
{
	int i;

	rt_jmpbuf_check();
	for (i = 0; i < RT_LJ_NR; i++)
		rt_longjmp_real(i);
	pthread_atfork(rt_ftrace_fork_prepare, rt_ftrace_fork_done,
		       rt_ftrace_fork_child);
}
