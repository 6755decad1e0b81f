// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fgraph.c - the function tracers behind the profiling call (x86-64):
 * ftrace_caller's C half (the kernel's ftrace_ops_list_func()), the
 * graph tracer's return stack (prepare_ftrace_return() and
 * ftrace_return_to_handler()), and what keeps the hijacked return
 * addresses out of the way of longjmp(), C++ exceptions and backtrace()
 *
 * As in the kernel: the entry trampoline (mcount_x86_64.S) calls
 * ftrace_ops_entry() with the address of the traced function's return
 * slot (parent_loc). For function_graph, prepare_ftrace_return() pushes
 * the real return address on the thread's ret_stack and writes
 * return_to_handler's address into the slot, so the function returns
 * into return_to_handler, which calls ftrace_return_to_handler(): it pops
 * the frame, records the funcgraph_exit event and gives back the real
 * address to jump to.
 *
 * function_graph alone at a function's entry does without the hijack
 * (ftrace_graph_body_caller_D, mcount_x86_64.S): the trampoline calls the
 * body itself, and the call's return, return_to_handler_called, lands
 * in the slot where the caller's address was; the frame is
 * RT_FR_CALLED. From there on the two are alike: the same return
 * (ftrace_return_to_handler()), and what follows knows both addresses
 * (rt_fgraph_is_hooker()).
 *
 * A frame is known by its slot's address (the kernel checks the frame
 * pointer the same way, HAVE_FUNCTION_GRAPH_FP_TEST): the return at stack
 * pointer sp pops the newest frame whose slot is sp - 8, and any newer
 * frame above it is one that will never return (a longjmp() or an
 * exception passed over it) and goes without an event. So a frame that
 * was left without returning never sends a return to the wrong place.
 *
 * What walks the stack finds return_to_handler where the real return
 * addresses were. The kernel's unwinders ask ftrace_graph_ret_addr();
 * userspace unwinders do not know to ask, so:
 *
 *  - C++ exceptions: _Unwind_RaiseException() and
 *    _Unwind_Resume_or_Rethrow() (what __cxa_throw and a rethrow call)
 *    are interposed: the thread's hijacked slots get their real addresses
 *    back before the unwinder runs (the frames stay on the ret_stack,
 *    marked restored); __cxa_begin_catch() (the catch) drops the frames
 *    the exception left and hijacks the slots of the others again when no
 *    other exception is in flight. A function whose slot was restored
 *    and not hijacked again returns without its exit event.
 *  - backtrace() and _Unwind_Backtrace() are interposed the same way:
 *    the slots are restored for the walk and hijacked again after it.
 *  - longjmp()/siglongjmp(): function.c's interposed jumps call
 *    rt_fgraph_longjmp(), which drops the frames below the restored
 *    stack pointer.
 *  - Anything else (gdb, a thread cancelled or exiting by pthread_exit()
 *    through traced frames, whose unwinder glibc calls directly) sees
 *    return_to_handler, whose FDE ends the walk there cleanly;
 *    ringtrace_graph_ret_addr() gives the real address (the kernel's
 *    ftrace_graph_ret_addr()).
 *
 * Userspace: the kernel runs its callbacks with preemption off; here a
 * thread's hooks are guarded by one flag per thread as in function.c: a
 * signal handler that lands in a hook is not traced.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ftrace.h"
#include "fgraph.h"
#include "trace.h"

#define RT_NOTRACE __attribute__((no_instrument_function))
#define RT_EXPORT __attribute__((visibility("default")))

_Thread_local struct rt_mcount_thread rt_mcount_current
	__attribute__((tls_model("initial-exec")));

/*
 * The thread's errno, which the hooks give back as they found it: one
 * TLS load once asked (as function.c's rt_ftrace_errno()).
 */
static inline RT_NOTRACE int *rt_mcount_errno(struct rt_mcount_thread *t)
{
	if (__builtin_expect(!t->errnop, 0))
		t->errnop = &errno;
	return t->errnop;
}

/*
 * The kernel's prepare_ftrace_return() + function_graph_enter(): push a
 * frame for @func and hijack *@parent_loc, or leave the call alone.
 * @called: the trampoline calls the function's body itself when a frame
 * is pushed (ftrace_graph_body_caller): the slot is left to its call
 * (RT_FR_CALLED). Return whether a frame was pushed.
 */
static inline __attribute__((always_inline)) RT_NOTRACE bool
prepare_ftrace_return(struct rt_mcount_thread *t, unsigned long func,
		      unsigned long *parent_loc, const struct rt_ftrace_match *m,
		      uint64_t clock, const struct ftrace_regs *regs,
		      bool called)
{
	struct ftrace_ret_stack *f;
	int depth = t->top - t->notrace, max;
	unsigned int flags = 0;

	if (t->notrace || !m->func)
		return false;
	if (m->graph_notrace)
		flags = RT_FR_NOTRACE;
	/* ftrace_graph_ignore_func(): set_graph_function picks the roots. */
	else if (!depth && !m->graph_func)
		return false;
	/* Relaxed: a setting; a change may take a few calls to be seen. */
	max = atomic_load_explicit(&rt_max_graph_depth, memory_order_relaxed);
	if (!flags && max > 0 && depth >= max)
		return false;
	if (t->top >= RT_MCOUNT_DEPTH) {
		t->overrun++;
		return false;
	}
	f = &t->ret_stack[t->top];
	f->ret = *parent_loc;
	f->func = func;
	f->loc = parent_loc;
	f->flags = flags | (called ? RT_FR_CALLED : 0);
	f->calltime = flags ? 0 : rt_ftrace_clock_at(clock);
	/*
	 * Orders (compiler barrier): the frame is complete and counted
	 * before the slot points at return_to_handler: a signal handler
	 * that interrupts us and unwinds finds the frame.
	 */
	atomic_signal_fence(memory_order_seq_cst);
	t->top++;
	t->notrace += !!flags;
	atomic_signal_fence(memory_order_seq_cst);
	if (!called)
		*parent_loc = RT_RETURN_HOOKER;
	/* the argument registers in their ABI order: rdi rsi rdx rcx r8 r9
	 * (struct ftrace_regs begins with them) */
	if (!flags)
		rt_ftrace_graph_entry_event(func, depth, f->calltime,
					    &regs->rdi);
	return true;
}

RT_NOTRACE void ftrace_ops_entry(unsigned long self_ret,
				 unsigned long *parent_loc,
				 struct ftrace_regs *regs)
{
	struct rt_mcount_thread *t = &rt_mcount_current;
	struct rt_ftrace_match m;
	int saved_errno, *errnop;
	unsigned int enabled;
	unsigned long func;
	bool recorded;
	uint64_t clock;

	/* Relaxed: as the hooks of function.c. */
	enabled = atomic_load_explicit(&rt_ftrace_enabled,
				       memory_order_relaxed);
	if (!enabled || !rt_mcount_enter(t))
		return;
	clock = enabled & RT_FTRACE_GRAPH ? rt_ftrace_clock_start() : 0;
	errnop = rt_mcount_errno(t);
	saved_errno = *errnop;
	func = rt_dynftrace_func(self_ret, &recorded);
	/*
	 * A recorded site is a call only while set_ftrace_filter and
	 * set_ftrace_notrace select it (dynftrace.c): the tracers need not
	 * look again, as the kernel's single ops need not (a list that
	 * changed this instant may let one more call in while the site is
	 * patched back), unless the graph tracer has lists of its own
	 * (set_graph_function, set_graph_notrace) or a function command
	 * runs, which patches its function's site whatever they say.
	 * Relaxed: rt_graph_lists_set is a hint (fgraph.h).
	 */
	if (recorded && !(enabled & RT_FTRACE_PROBE) &&
	    (!(enabled & RT_FTRACE_GRAPH) ||
	     !atomic_load_explicit(&rt_graph_lists_set, memory_order_relaxed)))
		m = (struct rt_ftrace_match){ .func = true, .graph_func = true };
	else
		rt_ftrace_test(func, enabled, &m);
	if ((enabled & RT_FTRACE_FUNCTION) && m.func)
		rt_ftrace_function_event(func, *parent_loc, &regs->rdi);
	/* a function command's site may be a call for the command alone:
	 * the lists were tested above */
	if (__builtin_expect(enabled & RT_FTRACE_PROBE, 0))
		rt_ftrace_probe_call(func, (const void *)self_ret);
	if (enabled & RT_FTRACE_GRAPH)
		prepare_ftrace_return(t, func, parent_loc, &m, clock, regs,
				      false);
	*errnop = saved_errno;
	rt_mcount_leave(t);
}

/*
 * ftrace_graph_body_entry()'s general case: set_graph_function or
 * set_graph_notrace not empty (the lists are looked at), a notrace frame
 * on the stack, the return stack full, max_graph_depth reached, the
 * clock's rare case, the thread's first call (its exit destructor not
 * armed). @clock: the counter read at the entry. Return
 * whether a frame was pushed (the trampoline then calls the body).
 */
RT_NOTRACE __attribute__((noinline)) bool
ftrace_graph_func_entry_slow(struct rt_mcount_thread *t, unsigned long func,
			     unsigned long *parent_loc,
			     const struct ftrace_regs *regs, uint64_t clock)
{
	/* what the site being a call says (a constant: the tests of
	 * prepare_ftrace_return() on it fold away) */
	static const struct rt_ftrace_match all = { .func = true,
						    .graph_func = true };
	int saved_errno, *errnop;
	bool pushed;

	/* (ftrace_graph_body_entry() comes here when stopped too).
	 * Relaxed: as the hooks of function.c test it; a call already past
	 * the test finishes. */
	if (atomic_load_explicit(&rt_function_trace_stop, memory_order_relaxed))
		return false;
	if (!rt_mcount_enter(t))
		return false;
	errnop = rt_mcount_errno(t);
	saved_errno = *errnop;
	/* the thread's first call: from now on its entries may be held
	 * back (this one is written at once, below) */
	if (!t->armed)
		rt_fgraph_thread_arm();
	/* Relaxed: rt_graph_lists_set is a hint (fgraph.h). */
	if (atomic_load_explicit(&rt_graph_lists_set, memory_order_relaxed)) {
		struct rt_ftrace_match m;

		rt_ftrace_test(func, RT_FTRACE_GRAPH, &m);
		pushed = prepare_ftrace_return(t, func, parent_loc, &m, clock,
					       regs, true);
	} else {
		pushed = prepare_ftrace_return(t, func, parent_loc, &all,
					       clock, regs, true);
	}
	*errnop = saved_errno;
	rt_mcount_leave(t);
	return pushed;
}

/*
 * The kernel writes a call's entry at its entry; a call whose entry is
 * held back (fgraph.h) has it written here by any record of the thread
 * that comes first (trace.c's general paths, rt_graph_pending_flush()),
 * by the unwinds below, at exit and before a fork: stamped with the
 * call's own time (or the buffer's last stamp if later: a record of the
 * thread cannot lie before one already written). Dropped as its exit
 * would be: function_graph stopped (the stop switch), or gone (no
 * instance to write to). Async-signal-safe: taken first, so that a
 * handler that comes in between finds nothing to write, or writes it
 * itself.
 */
RT_NOTRACE void rt_fgraph_flush_pending(void)
{
	struct rt_mcount_thread *t = &rt_mcount_current;
	int p = t->pending;
	const struct ftrace_ret_stack *f;

	if (!p || !rt_fgraph_pending_take(t, p))
		return;
	rt_graph_pending_unmark();
	/* (a frame popped without its return's write: nothing to write;
	 * the pops drop it themselves, rt_fgraph_pending_drop()) */
	if (p > t->top)
		return;
	f = &t->ret_stack[p - 1];
	/* Relaxed: as the hooks of function.c test it. */
	if (atomic_load_explicit(&rt_function_trace_stop, memory_order_relaxed))
		return;
	/* (its depth is its place: it was held back with no notrace frame
	 * on the stack, and any came above it) */
	rt_ftrace_graph_entry_event(f->func, p - 1, f->calltime, NULL);
}

/* After a pop that wrote nothing for the popped frames: a held-back
 * entry among them is dropped (the exit is not written either). */
static RT_NOTRACE void rt_fgraph_pending_drop(struct rt_mcount_thread *t)
{
	int p = t->pending;

	if (p > t->top && rt_fgraph_pending_take(t, p))
		rt_graph_pending_unmark();
}

static RT_NOTRACE __attribute__((noreturn)) void
rt_fgraph_lost(unsigned long sp)
{
	static const char msg[] =
		"ringtrace: return_to_handler: no frame for this return\n";

	(void)sp;
	/* Userspace: the kernel's ftrace_graph_stop() + panic. */
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		abort();
	abort();
}

/*
 * The general return: a frame further down the stack (frames above it
 * were left by a longjmp() or an exception), a notrace or restored frame,
 * or a return while a hook of this thread runs (a signal handler).
 */
RT_NOTRACE __attribute__((noinline)) void
ftrace_return_to_handler_slow(unsigned long sp, unsigned long retval,
			      unsigned long *retp)
{
	struct rt_mcount_thread *t = &rt_mcount_current;
	unsigned long *loc = (unsigned long *)(sp - sizeof(long));
	const struct ftrace_ret_stack *f;
	unsigned long ret;
	bool record, mine;
	int i, j, gone_notrace, saved_errno, *errnop = rt_mcount_errno(t);
	uint64_t clock;

	/* Relaxed: as in ftrace_ops_entry(). */
	record = atomic_load_explicit(&rt_ftrace_enabled,
				      memory_order_relaxed) & RT_FTRACE_GRAPH;
	clock = record ? rt_ftrace_clock_start() : 0;
	saved_errno = *errnop;
	/* The pop happens whatever the flag says: the return needs it. */
	mine = rt_mcount_enter(t);
	for (i = t->top - 1; i >= 0; i--)
		if (t->ret_stack[i].loc == loc &&
		    !(t->ret_stack[i].flags & RT_FR_RESTORED))
			break;
	if (i < 0)
		rt_fgraph_lost(sp);
	f = &t->ret_stack[i];
	ret = f->ret;
	if (record && mine && !(f->flags & RT_FR_NOTRACE) &&
	    /* Relaxed: as the hooks of function.c. */
	    !atomic_load_explicit(&rt_function_trace_stop,
				  memory_order_relaxed))
		rt_ftrace_graph_return_event(f->func, i - t->notrace +
					     !!(f->flags & RT_FR_NOTRACE),
					     f->calltime,
					     rt_ftrace_clock_at(clock),
					     t->overrun & ~RT_GRAPH_NO_RETVAL,
					     retval);
	/*
	 * Frames above @i never returned: dropped with it. The count first,
	 * then the notrace frames among them: a signal handler that comes
	 * in between sees notrace frames left, and traces nothing.
	 */
	for (j = i, gone_notrace = 0; j < t->top; j++)
		gone_notrace += !!(t->ret_stack[j].flags & RT_FR_NOTRACE);
	t->top = i;
	/* Orders (compiler barrier): the count before the notrace one. */
	atomic_signal_fence(memory_order_seq_cst);
	t->notrace -= gone_notrace;
	/* (the exit written above wrote a held-back entry first, through
	 * its general path; one not written goes with its frame) */
	rt_fgraph_pending_drop(t);
	*errnop = saved_errno;
	if (mine)
		rt_mcount_leave(t);
	*retp = ret;
}

/* ftrace_return_to_handler()'s write when the clock takes its rare case
 * (a call, which the common case leaves out: nothing kept across it); the
 * stop switch tested here as the common case's write tests it. */
static inline __attribute__((always_inline)) RT_NOTRACE void
rt_fgraph_event_clock(unsigned long func, int depth, uint64_t calltime,
		      uint64_t clock, unsigned int overrun,
		      unsigned long retval, bool entry)
{
	/* Relaxed: as the hooks of function.c test it. */
	if (atomic_load_explicit(&rt_function_trace_stop, memory_order_relaxed))
		return;
	if (entry)
		rt_ftrace_graph_entry_event(func, depth, calltime, NULL);
	rt_ftrace_graph_return_event(func, depth, calltime,
				     rt_ftrace_clock_at(clock), overrun, retval);
}

RT_NOTRACE __attribute__((noinline)) void
rt_fgraph_return_event_clock(unsigned long func, int depth,
			     uint64_t calltime, uint64_t clock,
			     unsigned int overrun, unsigned long retval)
{
	rt_fgraph_event_clock(func, depth, calltime, clock, overrun, retval,
			      false);
}

/* The same for a call whose entry was held back (fgraph.h): the two
 * records one after the other, as a refused pair is written. */
RT_NOTRACE __attribute__((noinline)) void
rt_fgraph_pair_event_clock(unsigned long func, int depth, uint64_t calltime,
			   uint64_t clock, unsigned int overrun,
			   unsigned long retval)
{
	rt_fgraph_event_clock(func, depth, calltime, clock, overrun, retval,
			      true);
}

/* Drop the frames whose slots are below @sp: their functions are gone. */
static RT_NOTRACE void rt_fgraph_drop_below(struct rt_mcount_thread *t,
					    unsigned long sp)
{
	while (t->top > 0 &&
	       (unsigned long)t->ret_stack[t->top - 1].loc < sp) {
		t->top--;
		t->notrace -= !!(t->ret_stack[t->top].flags & RT_FR_NOTRACE);
	}
}

RT_NOTRACE void rt_fgraph_longjmp(unsigned long sp)
{
	struct rt_mcount_thread *t = &rt_mcount_current;

	/* A held-back entry is written before its frame goes (a frame
	 * left by a longjmp has its entry and no exit, as the kernel's). */
	rt_fgraph_flush_pending();
	if (!t->top || !rt_mcount_enter(t))
		return;
	rt_fgraph_drop_below(t, sp);
	rt_mcount_leave(t);
}

/*
 * Give the hijacked slots of this thread their real addresses back,
 * newest first (a slot reused by a newer frame holds the newer frame's
 * hijack). Return how many.
 */
static RT_NOTRACE int rt_fgraph_restore(struct rt_mcount_thread *t)
{
	int i, n = 0;

	for (i = t->top - 1; i >= 0; i--) {
		struct ftrace_ret_stack *f = &t->ret_stack[i];

		if (f->flags & RT_FR_RESTORED)
			continue;
		if (rt_fgraph_is_hooker(*f->loc))
			*f->loc = f->ret;
		f->flags |= RT_FR_RESTORED;
		n++;
	}
	return n;
}

/*
 * Hijack the restored slots again, oldest first, where the slot still
 * holds the real address (it is the frame's).
 */
static RT_NOTRACE void rt_fgraph_rehijack(struct rt_mcount_thread *t)
{
	int i;

	for (i = 0; i < t->top; i++) {
		struct ftrace_ret_stack *f = &t->ret_stack[i];

		if (!(f->flags & RT_FR_RESTORED) || *f->loc != f->ret)
			continue;
		f->flags &= ~RT_FR_RESTORED;
		*f->loc = rt_fgraph_hooker(f->flags);
	}
}

/**
 * ringtrace_graph_ret_addr - the real return address behind a hijack
 * @ret: a return address found on the stack
 * @retp: the slot it was found in (NULL: the newest frame's)
 *
 * The kernel's ftrace_graph_ret_addr(), for unwinders and debuggers: in
 * gdb, in the frame it shows as return_to_handler (where its backtrace
 * stops), "print/a ringtrace_graph_ret_addr($pc, (unsigned long *)$sp - 1)"
 * names the caller it returns to.
 *
 * Context: the thread whose stack is walked (or gdb's inferior calls).
 * Return: the real address for return_to_handler, @ret otherwise.
 */
RT_EXPORT RT_NOTRACE unsigned long ringtrace_graph_ret_addr(unsigned long ret,
							    unsigned long *retp)
{
	const struct rt_mcount_thread *t = &rt_mcount_current;
	int i;

	if (!rt_fgraph_is_hooker(ret) && ret != (unsigned long)return_to_handler)
		return ret;
	for (i = t->top - 1; i >= 0; i--)
		if (!retp || t->ret_stack[i].loc == retp)
			return t->ret_stack[i].ret;
	return ret;
}

/* ---- interposed unwinders ----------------------------------------------- */

struct _Unwind_Exception;
struct _Unwind_Context;
typedef int (*rt_unwind_trace_fn)(struct _Unwind_Context *, void *);

typedef int (*rt_raise_fn)(struct _Unwind_Exception *);
typedef int (*rt_uncaught_fn)(void);
typedef int (*rt_backtrace_fn)(void **, int);
typedef int (*rt_ubacktrace_fn)(rt_unwind_trace_fn, void *);

/* The next definition of @name (libgcc_s's, libstdc++'s, libc's). */
static RT_NOTRACE void *rt_next(_Atomic(void *) *cache, const char *name)
{
	/* Relaxed: every thread that resolves it stores the same value. */
	void *fn = atomic_load_explicit(cache, memory_order_relaxed);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		/* Relaxed: see above. */
		atomic_store_explicit(cache, fn, memory_order_relaxed);
	}
	return fn;
}

#define RT_NEXT(type, name)                                                   \
	({                                                                    \
		static _Atomic(void *) rt_next_##name;                        \
		(type) rt_next(&rt_next_##name, #name);                       \
	})

/* Before an unwinder walks this thread's stack. */
static RT_NOTRACE void rt_fgraph_unwind_prepare(void)
{
	struct rt_mcount_thread *t = &rt_mcount_current;

	if (!t->top || !rt_mcount_enter(t))
		return;
	rt_fgraph_restore(t);
	rt_mcount_leave(t);
}

int _Unwind_RaiseException(struct _Unwind_Exception *e);
int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e);

/* Put the real addresses back, then call the unwinder @real. */
static RT_NOTRACE int rt_fgraph_raise(rt_raise_fn real,
				      struct _Unwind_Exception *e)
{
	rt_fgraph_unwind_prepare();
	if (!real)
		abort();
	return real(e);
}

/* __cxa_throw's unwinder: see the top of the file. */
RT_EXPORT RT_NOTRACE int _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	return rt_fgraph_raise(RT_NEXT(rt_raise_fn, _Unwind_RaiseException),
			       e);
}

/* A rethrow's. */
RT_EXPORT RT_NOTRACE int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	return rt_fgraph_raise(RT_NEXT(rt_raise_fn, _Unwind_Resume_or_Rethrow),
			       e);
}

/*
 * The catch (called by __cxa_begin_catch() in function.c, after the C++
 * runtime's, with the catcher's stack pointer): the frames below the
 * catcher are gone; the others get their hijack back unless another
 * exception is still being thrown (its unwinder is yet to walk them).
 */
RT_NOTRACE void rt_fgraph_begin_catch(unsigned long catcher_sp)
{
	rt_uncaught_fn uncaught =
		RT_NEXT(rt_uncaught_fn, _ZSt19uncaught_exceptionsv);
	struct rt_mcount_thread *t = &rt_mcount_current;

	/* (as in rt_fgraph_longjmp()) */
	rt_fgraph_flush_pending();
	if (t->top && rt_mcount_enter(t)) {
		rt_fgraph_drop_below(t, catcher_sp);
		if (uncaught && !uncaught())
			rt_fgraph_rehijack(t);
		rt_mcount_leave(t);
	}
}

/*
 * Around a walk of this thread's stack: the real addresses for its
 * duration. Return whether there is anything to hijack again after it.
 */
static RT_NOTRACE bool rt_fgraph_walk_begin(struct rt_mcount_thread *t)
{
	int restored = 0;

	if (t->top && rt_mcount_enter(t)) {
		restored = rt_fgraph_restore(t);
		rt_mcount_leave(t);
	}
	return restored;
}

static RT_NOTRACE void rt_fgraph_walk_end(struct rt_mcount_thread *t,
					  bool restored)
{
	if (restored && rt_mcount_enter(t)) {
		rt_fgraph_rehijack(t);
		rt_mcount_leave(t);
	}
}

/* backtrace(): the walk with the real addresses, minus this frame. */
RT_EXPORT RT_NOTRACE int backtrace(void **buffer, int size)
{
	rt_backtrace_fn real = RT_NEXT(rt_backtrace_fn, backtrace);
	struct rt_mcount_thread *t = &rt_mcount_current;
	void *small[64], **tmp = small;
	bool restored;
	int n;

	if (!real)
		return 0;
	if (size <= 0)
		return real(buffer, size);
	if (size + 1 > (int)(sizeof(small) / sizeof(small[0]))) {
		tmp = malloc((size_t)(size + 1) * sizeof(*tmp));
		if (!tmp)
			return real(buffer, size);
	}
	restored = rt_fgraph_walk_begin(t);
	n = real(tmp, size + 1);
	rt_fgraph_walk_end(t, restored);
	n = n > 0 ? n - 1 : 0;
	memcpy(buffer, tmp + 1, (size_t)n * sizeof(*tmp));
	if (tmp != small)
		free(tmp);
	return n;
}

/* A thread that ends inside traced calls (their returns never come):
 * the held-back entry is written first, as the kernel's was at the
 * call. A cancellation's unwind is glibc's own, not seen here: the
 * thread's exit destructor writes the entry then (below). */
typedef void (*rt_pthread_exit_fn)(void *);

RT_EXPORT RT_NOTRACE __attribute__((noreturn)) void pthread_exit(void *ret)
{
	rt_fgraph_flush_pending();
	RT_NEXT(rt_pthread_exit_fn, pthread_exit)(ret);
	abort();
}

/* The same for the process: exit() called inside traced calls (atexit
 * handlers and destructors run after the entry, as after the kernel's).
 * A return from main() needs nothing: main's own exit wrote it. */
typedef void (*rt_exit_fn)(int);

RT_EXPORT RT_NOTRACE __attribute__((noreturn)) void exit(int status)
{
	rt_fgraph_flush_pending();
	RT_NEXT(rt_exit_fn, exit)(status);
	abort();
}

/*
 * A thread cancelled inside traced calls (deferred or asynchronous):
 * glibc unwinds it with its own unwinder, which stops at the first
 * frame whose return is return_to_handler, and jumps back to the
 * thread's start; the key destructors run after that. The frames'
 * stacks are gone by then, but not the return stack (the thread's
 * state, in TLS to the end): the held-back entry is written from it.
 * Skipped if the thread was cancelled inside a record's write of ours
 * (asynchronously: the write never ends, and the ring's own exit
 * destructor rolls it back).
 */
static pthread_key_t rt_fgraph_exit_key;
static bool rt_fgraph_exit_key_ok;

/*
 * The process's exit: exit() runs the exit handlers in the thread that
 * called it (or returned from main()), and every other thread ends where
 * it stands, with the process. A call of theirs whose entry is held back
 * would never be written: a worker parked in a traced function (waiting
 * for work, spinning on a flag) would be missing its innermost call,
 * where the kernel's function_graph, which wrote the entry at the call,
 * shows it open. So the library's exit handler (rt_note_exit(),
 * events.c) writes them (rt_fgraph_flush_others()), without changing
 * what the threads do in their last moments:
 *
 * - A thread asleep in the kernel (waiting in poll(), pause(), a lock,
 *   stopped) runs none of its code: its held-back entry is taken and
 *   written here, under its id (rt_write_as()), with its own time
 *   (rt_fgraph_write_for()). Only if /proc shows that the thread did not
 *   run meanwhile: its state and its context-switch counts the same
 *   before the entry was taken and after. A signal would end its wait
 *   instead: poll(), pause(), sleep() and more return EINTR whatever
 *   SA_RESTART says, and a program that takes that for an error would
 *   end otherwise than untraced (another exit status, a message).
 * - A thread that runs (spinning on a flag; /proc's state R) is asked
 *   by a signal to write its own entry, in its own thread and buffer, as
 *   a traced signal handler of that thread would; in user code, a signal
 *   interrupts no wait. The signal is SIGURG, for the reason other
 *   runtimes take it for theirs: ignored by default, rarely used
 *   (out-of-band socket data), and passed by debuggers without stopping;
 *   ours carries SI_QUEUE and a value of our own, and the handler passes
 *   any other to the handler it replaced. A thread that blocks SIGURG
 *   (/proc's SigBlk) is not asked; the others are waited for
 *   RT_FGRAPH_EXIT_WAIT_MS at most, all together.
 *
 * The threads that may hold one back (armed: rt_fgraph_thread_arm()) are
 * listed here, a slot each, taken at arming and given back by the exit
 * destructor; a thread armed when all are taken is not seen (its entry
 * is lost at the process's exit, as before), nor is one whose state
 * could not be read or that ran while its entry was taken.
 */
#define RT_FGRAPH_THREADS 4096
#define RT_FGRAPH_EXIT_SIG SIGURG
#define RT_FGRAPH_EXIT_MAGIC 0x52544658 /* "RTFX" */
#define RT_FGRAPH_EXIT_WAIT_MS 100
#define RT_FGRAPH_EXIT_NAP_US 50

struct rt_fgraph_slot {
	/* the thread's id, 0 while free */
	_Atomic int tid;
	/* one more each time the thread answered (its entry written) */
	_Atomic unsigned int ack;
	/* its state (rt_mcount_current), set after @tid, cleared before:
	 * NULL while free or being taken */
	struct rt_mcount_thread *_Atomic thread;
};

_Atomic bool rt_fgraph_may_hold;
static struct rt_fgraph_slot rt_fgraph_threads[RT_FGRAPH_THREADS];
/* where the next search for a free slot begins (a hint) */
static _Atomic unsigned int rt_fgraph_slot_next;
static struct sigaction rt_fgraph_exit_old;

/* Take a slot for this thread. Async-signal-safe: arming may come from
 * a handler's first record. */
static RT_NOTRACE void rt_fgraph_slot_take(struct rt_mcount_thread *t)
{
	unsigned int i, k, start;
	/* (the kernel's id: rt_gettid() may name another thread whose
	 * records this one writes, rt_write_as()) */
	int tid = (int)syscall(SYS_gettid);

	if (t->slot)
		return;
	/* Relaxed: a hint. */
	start = atomic_load_explicit(&rt_fgraph_slot_next, memory_order_relaxed);
	for (i = 0; i < RT_FGRAPH_THREADS; i++) {
		int free_tid = 0;

		k = (start + i) % RT_FGRAPH_THREADS;
		/* Relaxed: a look before the exchange. */
		if (atomic_load_explicit(&rt_fgraph_threads[k].tid,
					 memory_order_relaxed))
			continue;
		/* Our slot before the exchange makes it ours: a signal
		 * that finds our id there finds the slot to answer in. */
		t->slot = (int)k + 1;
		atomic_signal_fence(memory_order_seq_cst);
		/* Relaxed: the slot carries no data but the id; the exit's
		 * scan that reads it sends a signal, which orders the rest.
		 * Failure is fine: another thread took it, look further. */
		if (atomic_compare_exchange_strong_explicit(
			    &rt_fgraph_threads[k].tid, &free_tid, tid,
			    memory_order_relaxed, memory_order_relaxed)) {
			/* Release: our state's place after our id; pairs
			 * with the acquire load in rt_fgraph_slot_thread(). */
			atomic_store_explicit(&rt_fgraph_threads[k].thread, t,
					      memory_order_release);
			atomic_store_explicit(&rt_fgraph_slot_next, k + 1,
					      memory_order_relaxed);
			return;
		}
		t->slot = 0;
	}
}

/*
 * Give the slot back (the thread's end): once (the thread keeps its
 * number, negated, to answer in: an exit's scan that found its id just
 * before sends it a signal it may still take).
 */
static RT_NOTRACE void rt_fgraph_slot_give(struct rt_mcount_thread *t)
{
	int k = t->slot;

	if (k <= 0)
		return;
	t->slot = -k;
	/* Relaxed: the place cleared first. Release: then the id, after
	 * it; an exit that reads the place and then the id
	 * (rt_fgraph_slot_thread(), acquire) takes the place only with the
	 * id it asked for. */
	atomic_store_explicit(&rt_fgraph_threads[k - 1].thread, NULL,
			      memory_order_relaxed);
	atomic_store_explicit(&rt_fgraph_threads[k - 1].tid, 0,
			      memory_order_release);
}

static RT_NOTRACE void rt_fgraph_thread_exit(void *arg)
{
	(void)arg;
	if (!rt_cur.depth)
		rt_fgraph_flush_pending();
	rt_fgraph_slot_give(&rt_mcount_current);
}

/* A fork's child has one thread, the one that forked: its slot is kept,
 * under its new id, and the others are free. */
static RT_NOTRACE void rt_fgraph_fork_child(void)
{
	int own = rt_mcount_current.slot > 0 ? rt_mcount_current.slot : 0;
	unsigned int k;

	for (k = 0; k < RT_FGRAPH_THREADS; k++) {
		/* Relaxed: the child runs this thread alone. */
		atomic_store_explicit(&rt_fgraph_threads[k].tid,
				      (int)k + 1 == own ?
					      (int)syscall(SYS_gettid) :
					      0,
				      memory_order_relaxed);
		atomic_store_explicit(&rt_fgraph_threads[k].thread,
				      (int)k + 1 == own ? &rt_mcount_current :
							  NULL,
				      memory_order_relaxed);
	}
}

__attribute__((constructor)) static RT_NOTRACE void rt_fgraph_exit_init(void)
{
	rt_fgraph_exit_key_ok =
		!pthread_key_create(&rt_fgraph_exit_key, rt_fgraph_thread_exit);
	pthread_atfork(NULL, NULL, rt_fgraph_fork_child);
}

/* The exit's signal: write the entry this thread holds back, say so in
 * its slot. Any other SIGURG goes to the handler it replaced. */
static RT_NOTRACE void rt_fgraph_exit_signal(int sig, siginfo_t *si,
					     void *uc)
{
	const struct sigaction *old = &rt_fgraph_exit_old;

	if (si && si->si_code == SI_QUEUE &&
	    si->si_value.sival_int == RT_FGRAPH_EXIT_MAGIC &&
	    si->si_pid == getpid()) {
		int saved_errno = errno, k = rt_mcount_current.slot;

		rt_fgraph_flush_pending();
		/* Release: the entry written before the answer; pairs with
		 * the acquire load in rt_fgraph_flush_others(). */
		if (k)
			atomic_fetch_add_explicit(
				&rt_fgraph_threads[(k < 0 ? -k : k) - 1].ack, 1,
				memory_order_release);
		errno = saved_errno;
		return;
	}
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction)
			old->sa_sigaction(sig, si, uc);
	} else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
	}
	/* (SIG_DFL: SIGURG is ignored by default) */
}

/* What /proc says of one of our threads (its status file). */
struct rt_fgraph_task {
	char state;			 /* R, S, D, T, t, Z, ... */
	unsigned long long sigblk;	 /* the signals it blocks */
	unsigned long long nvcsw, nivcsw; /* its context switches */
};

/* The text after @key in @buf, a /proc status file, or NULL. */
static RT_NOTRACE const char *rt_status_field(const char *buf,
					      const char *key)
{
	const char *p = strstr(buf, key);

	return p ? p + strlen(key) : NULL;
}

/* Read thread @tid's status into *@k. Return false if it cannot be read
 * (the thread is gone) or lacks a field. */
static RT_NOTRACE bool rt_fgraph_task_look(int tid, struct rt_fgraph_task *k)
{
	char path[64], buf[4096];
	const char *st, *blk, *vol, *inv;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	if (rt_read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	st = rt_status_field(buf, "\nState:");
	blk = rt_status_field(buf, "\nSigBlk:");
	vol = rt_status_field(buf, "\nvoluntary_ctxt_switches:");
	inv = rt_status_field(buf, "\nnonvoluntary_ctxt_switches:");
	return st && blk && vol && inv && sscanf(st, " %c", &k->state) == 1 &&
	       sscanf(blk, "%llx", &k->sigblk) == 1 &&
	       sscanf(vol, "%llu", &k->nvcsw) == 1 &&
	       sscanf(inv, "%llu", &k->nivcsw) == 1;
}

/* The state of the thread in slot @i if it is still thread @tid's, or
 * NULL (free, being taken or given back, or another thread's now). */
static RT_NOTRACE struct rt_mcount_thread *rt_fgraph_slot_thread(unsigned int i,
								int tid)
{
	/* Acquire: pairs with the release store of the taker; the id
	 * again after it, as the giver's release store leaves it. */
	struct rt_mcount_thread *t = atomic_load_explicit(
		&rt_fgraph_threads[i].thread, memory_order_acquire);

	if (!t || atomic_load_explicit(&rt_fgraph_threads[i].tid,
				       memory_order_acquire) != tid)
		return NULL;
	return t;
}

/*
 * Write the entry held back by thread @tid (slot @i), which sleeps in the
 * kernel (*@before, read by the caller): its frame read and its entry
 * taken while it does not run, then written as its record. The thread's
 * own takes are compare-and-exchanges without LOCK, against its signal
 * handlers only; this one is LOCKed, and counts only if the thread did
 * not run around it: its state not R and its context switches the same
 * after as before (a thread that woke runs, R, until it switches out,
 * which counts). Otherwise the entry is not written: the thread, awake,
 * took it or will write it itself, or it is lost (as before this was
 * written). Userspace: the thread's state is read across threads while
 * it sleeps; the kernel's switch out orders its last stores before.
 */
static RT_NOTRACE void rt_fgraph_write_for(unsigned int i, int tid,
					  const struct rt_fgraph_task *before)
{
	struct rt_mcount_thread *t = rt_fgraph_slot_thread(i, tid);
	struct rt_fgraph_task after;
	sigset_t all, old;
	char path[64], comm[32];
	unsigned long func;
	uint64_t calltime;
	int p, top;
	ssize_t n;

	if (!t)
		return;
	/* Relaxed: the sleeping thread's own words, stored before it went
	 * to sleep (its switch out orders them); the check after the take
	 * says whether they were read while it slept. */
	p = __atomic_load_n(&t->pending, __ATOMIC_RELAXED);
	top = __atomic_load_n(&t->top, __ATOMIC_RELAXED);
	/* (none, or its frame popped without a write: nothing to write) */
	if (p <= 0 || p > top || p > RT_MCOUNT_DEPTH)
		return;
	func = __atomic_load_n(&t->ret_stack[p - 1].func, __ATOMIC_RELAXED);
	calltime = __atomic_load_n(&t->ret_stack[p - 1].calltime,
				   __ATOMIC_RELAXED);
	/* Relaxed: the thread sleeps; the check after says whether it
	 * did. Failure is fine: the thread changed it, so it ran. */
	if (!__atomic_compare_exchange_n(&t->pending, &p, 0, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	if (!rt_fgraph_task_look(tid, &after) || after.state == 'R' ||
	    after.state != before->state || after.nvcsw != before->nvcsw ||
	    after.nivcsw != before->nivcsw)
		return;
	/* Relaxed: as the hooks of function.c test it. */
	if (atomic_load_explicit(&rt_function_trace_stop, memory_order_relaxed))
		return;
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	n = rt_read_small(path, comm, sizeof(comm));
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = '\0';
	/* (its bit of rt_thread.slow stays: should it wake, its next
	 * record's general path finds nothing to write; and no handler of
	 * ours runs meanwhile, whose records would carry its id) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rt_write_as(tid, getpid(), n > 0 ? comm : NULL);
	rt_ftrace_graph_entry_event(func, p - 1, calltime, NULL);
	rt_write_as(0, 0, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Called once, from the library's exit handler. */
RT_NOTRACE void rt_fgraph_flush_others(void)
{
	static _Atomic bool once;
	static unsigned int want[RT_FGRAPH_THREADS];
	static bool asked[RT_FGRAPH_THREADS];
	struct rt_fgraph_task task;
	struct sigaction sa;
	struct timespec now;
	int self, pid, tid;
	unsigned int k, n = 0, nap;
	bool installed = false, no_handler = false;
	uint64_t end;

	/* Relaxed: no site ever jumped to function_graph's own entry, the
	 * one that holds entries back; or function_graph writes nowhere
	 * now (a held-back entry would be dropped, fgraph.h). */
	if (!atomic_load_explicit(&rt_fgraph_may_hold, memory_order_relaxed) ||
	    !atomic_load_explicit(&rt_graph_mask, memory_order_relaxed) ||
	    atomic_exchange_explicit(&once, true, memory_order_relaxed))
		return;
	self = (int)syscall(SYS_gettid);
	pid = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = rt_fgraph_exit_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (k = 0; k < RT_FGRAPH_THREADS; k++) {
		siginfo_t si;

		/* Relaxed: an id to send a signal to; a thread that ended
		 * meanwhile is not there to take it (ESRCH below). */
		tid = atomic_load_explicit(&rt_fgraph_threads[k].tid,
					   memory_order_relaxed);
		asked[k] = false;
		if (!tid || tid == self || !rt_fgraph_task_look(tid, &task) ||
		    task.state == 'Z' || task.state == 'X')
			continue;
		/* asleep: written here, the thread left as it is */
		if (task.state != 'R') {
			rt_fgraph_write_for(k, tid, &task);
			continue;
		}
		/* running, SIGURG blocked (or no handler): not asked */
		if ((task.sigblk >> (RT_FGRAPH_EXIT_SIG - 1) & 1) || no_handler)
			continue;
		/* (once: the handler it replaces is the one it passes
		 * other signals to) */
		if (!installed) {
			if (sigaction(RT_FGRAPH_EXIT_SIG, &sa,
				      &rt_fgraph_exit_old)) {
				no_handler = true;
				continue;
			}
			installed = true;
		}
		/* Relaxed: the count before the signal; its answer is
		 * loaded with acquire below. */
		want[k] = atomic_load_explicit(&rt_fgraph_threads[k].ack,
					       memory_order_relaxed) + 1;
		memset(&si, 0, sizeof(si));
		si.si_signo = RT_FGRAPH_EXIT_SIG;
		si.si_code = SI_QUEUE;
		si.si_pid = pid;
		si.si_uid = getuid();
		si.si_value.sival_int = RT_FGRAPH_EXIT_MAGIC;
		/* (a thread that ended meanwhile: ESRCH, not waited for) */
		if (syscall(SYS_rt_tgsigqueueinfo, pid, tid,
			    RT_FGRAPH_EXIT_SIG, &si))
			continue;
		asked[k] = true;
		n++;
	}
	/* The answers, RT_FGRAPH_EXIT_WAIT_MS at most in all (and as many
	 * naps, should the clock fail). */
	if (clock_gettime(CLOCK_MONOTONIC, &now))
		now = (struct timespec){ 0, 0 };
	end = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec +
	      RT_FGRAPH_EXIT_WAIT_MS * 1000000ull;
	for (nap = 0; n && nap < RT_FGRAPH_EXIT_WAIT_MS * 1000 /
					RT_FGRAPH_EXIT_NAP_US; nap++) {
		const struct timespec ts = { 0, RT_FGRAPH_EXIT_NAP_US * 1000 };

		for (k = 0; k < RT_FGRAPH_THREADS; k++) {
			/* Acquire: pairs with the release of the answer;
			 * signed: the count may wrap. */
			if (asked[k] &&
			    (int)(atomic_load_explicit(&rt_fgraph_threads[k].ack,
						       memory_order_acquire) -
				  want[k]) >= 0) {
				asked[k] = false;
				n--;
			}
		}
		if (!n || clock_gettime(CLOCK_MONOTONIC, &now) ||
		    (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec >=
			    end)
			break;
		nanosleep(&ts, NULL);
	}
}

/*
 * Arm the destructor for this thread: once, at its first record's
 * general path (trace.c, rt_cmdline_save()) or its first call through
 * function_graph's trampoline (ftrace_graph_func_entry_slow(): the fast
 * entry, which holds entries back, sends a thread there until it is
 * armed), whichever comes first: no entry is held back before (a
 * thread cancelled in its first call has its entry written at the
 * call). Armed even if the key could not be made (nothing is then
 * written at a cancellation, as before). Userspace: pthread_setspecific() is
 * not on the async-signal-safe list; for a key below
 * PTHREAD_KEY_2NDLEVEL_SIZE (the library's few keys are) glibc makes it
 * a store into the thread descriptor, which a signal handler that writes
 * the thread's first record relies on (as the ring's slot key,
 * rb_thread_slot_track()).
 */
RT_NOTRACE void rt_fgraph_thread_arm(void)
{
	if (rt_fgraph_exit_key_ok &&
	    !pthread_getspecific(rt_fgraph_exit_key))
		pthread_setspecific(rt_fgraph_exit_key, (void *)1);
	/* (where the destructor gives it back) */
	if (rt_fgraph_exit_key_ok)
		rt_fgraph_slot_take(&rt_mcount_current);
	rt_mcount_current.armed = 1;
}

int _Unwind_Backtrace(rt_unwind_trace_fn fn, void *arg);

RT_EXPORT RT_NOTRACE int _Unwind_Backtrace(rt_unwind_trace_fn fn, void *arg)
{
	rt_ubacktrace_fn real = RT_NEXT(rt_ubacktrace_fn, _Unwind_Backtrace);
	struct rt_mcount_thread *t = &rt_mcount_current;
	bool restored;
	int ret;

	if (!real)
		return 5; /* _URC_END_OF_STACK */
	restored = rt_fgraph_walk_begin(t);
	ret = real(fn, arg);
	rt_fgraph_walk_end(t, restored);
	return ret;
}
