// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fgraph_fast.c - the C halves of the function_graph trampolines
 * (x86-64): ftrace_graph_body_entry() (ftrace_graph_body_caller's) and
 * ftrace_return_to_handler() (return_to_handler's), on the return stack
 * of fgraph.c
 *
 * Vector-free as fnfast.c (see there): where RT_FN_VECTOR_FREE is
 * defined the trampolines save neither the traced function's vector
 * arguments nor its floating-point return value around them; every way
 * out is through a thunk (vsafe.h). The records are written inline
 * (rt_graph_write_entry(), rt_graph_write_exit() and
 * rt_graph_write_pair(), fnwrite.h), as
 * fnfast.c's rt_ftrace_graph_entry_event() and
 * rt_ftrace_graph_return_event() write them for the other hooks. A file of its own, apart from fnfast.c: a
 * program that links the function tracers without the rest of the
 * library (the tests) defines those two itself.
 */
/* first: the thunks' names for what this file calls out of line */
#include "vsafe.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fgraph.h"
#include "fnwrite.h"
#include "ftrace.h"

#define RT_NOTRACE __attribute__((no_instrument_function))

/* The library's own words, declared so: one load each (as fnfast.c). */
#define RT_HIDDEN __attribute__((visibility("hidden")))
extern _Atomic int rt_function_trace_stop RT_HIDDEN;
extern _Atomic int rt_max_graph_depth RT_HIDDEN;
extern _Atomic int rt_graph_lists_set RT_HIDDEN;
extern _Atomic uint64_t rt_graph_mask RT_HIDDEN;
extern _Atomic uint64_t rt_graph_args_mask RT_HIDDEN;
extern _Atomic uint64_t rt_fn_mask RT_HIDDEN;
extern _Atomic uint64_t rt_fn_args_mask RT_HIDDEN;
extern _Atomic uint64_t rt_ftrace_pid_mask RT_HIDDEN;

#if RT_HAVE_MCOUNT
/*
 * The function tracer's trampoline's C half (ftrace_func_caller's): the
 * site is a recorded one at @func's entry, a call only while the function
 * tracer is the only tracer and set_ftrace_filter and set_ftrace_notrace
 * select @func (dynftrace.c):
 * the record is written with no site lookup and no list test, as the
 * kernel's per-ops trampoline calls function_trace_call().
 *
 * Nor is rt_ftrace_enabled tested: as in the kernel, a site is patched
 * from one trampoline to another after the tracers change, and a call
 * that comes meanwhile is its old trampoline's (here: recorded while
 * the function tracer's instances are in rt_fn_mask, which the write
 * tests; missed by a tracer that came on this instant, as a call made a
 * moment earlier would be). The stop switch is tested in the write's
 * one branch (rt_fn_write()).
 */
RT_NOTRACE void ftrace_func_entry(unsigned long func, unsigned long *parent_loc,
				  struct ftrace_regs *regs)
{
	/* the argument registers in their ABI order (struct ftrace_regs
	 * begins with them) */
	rt_fn_write(func, *parent_loc, &regs->rdi, true);
}

/*
 * function_graph's trampoline's C half (ftrace_graph_body_caller's): the
 * site is a recorded one at @func's entry, a jump to its stub only while
 * function_graph is the only tracer and set_ftrace_filter and
 * set_ftrace_notrace select @func (dynftrace.c):
 * no site lookup, no test of the tracers (a call that comes while the
 * sites move to another tracer pushes its frame; its exit is recorded
 * only while function_graph runs, ftrace_return_to_handler()), and the
 * lists looked at only when the graph tracer has lists of its own, as
 * ftrace_ops_entry() does.
 *
 * The common case is prepare_ftrace_return() with every test of the
 * lists folded away, the guard held only while the frame is pushed, and
 * the entry record held back (fgraph.h): the caller's, if it was, is
 * written first (its callee has come), then ours is marked and left to
 * whatever of the thread comes next, our exit most often, which writes
 * both in one reservation (ftrace_return_to_handler()). With
 * funcgraph-args the entry is written here, as the last call: nothing
 * is kept across it (the record's write, inline, keeps errno: its
 * general path saves it, rt_graph_write_slow()).
 *
 * The slot (*@parent_loc) is left as it is: the trampoline calls the
 * body itself when this returns true, and the call's return address,
 * return_to_handler_called, takes the place of the caller's (the frame
 * is RT_FR_CALLED). A signal handler that comes before that call finds
 * the frame pushed and the slot still holding the caller's address (a
 * backtrace() there restores nothing, and its re-hijack writes
 * return_to_handler_called, which the call then writes again); it traces
 * its own calls above the frame, and their records nest in ours (the
 * write's own nesting count, trace.c).
 *
 * Return: whether the frame was pushed (false: not traced, the
 * trampoline jumps to the body with the stack as it found it).
 */
RT_NOTRACE __attribute__((nonnull)) bool
ftrace_graph_body_entry(unsigned long func, unsigned long *parent_loc,
			struct ftrace_regs *regs)
{
	struct rt_mcount_thread *t = &rt_mcount_current;
	struct ftrace_ret_stack *f;
	uint64_t clock, calltime, mask, am;
	int depth, max, pending;

	clock = rt_ftrace_clock_start();
	depth = t->top;
	/* Relaxed: a setting; a change may take a few calls to be seen. */
	max = atomic_load_explicit(&rt_max_graph_depth, memory_order_relaxed);
	/* Relaxed: rt_graph_lists_set is a hint (fgraph.h); the stop
	 * switch as the hooks of function.c test it (the slow path tells
	 * it from the rest, and a hook of this thread under way: the
	 * guard, whose state read meanwhile is not used). */
	if (__builtin_expect(atomic_load_explicit(&rt_function_trace_stop,
						  memory_order_relaxed) |
				     atomic_load_explicit(&rt_graph_lists_set,
							  memory_order_relaxed) |
				     t->busy | t->notrace | (t->armed ^ 1) |
				     (depth >= RT_MCOUNT_DEPTH) |
				     /* max > 0 && depth >= max, one compare */
				     ((unsigned int)max - 1u < (unsigned int)depth),
			     0))
		goto slow;
	/* (0: the clock's rare case, which the general case reads) */
	calltime = rt_ftrace_clock_try(clock);
	if (__builtin_expect(!calltime, 0))
		goto slow;
	t->busy = 1;
	/* Orders (compiler barrier): as rt_mcount_enter(). */
	atomic_signal_fence(memory_order_seq_cst);
	f = &t->ret_stack[depth];
	f->ret = *parent_loc;
	f->func = func;
	f->loc = parent_loc;
	f->flags = RT_FR_CALLED;
	f->calltime = calltime;
	/* Orders (compiler barrier): the frame is complete before it is
	 * counted, as in prepare_ftrace_return(). */
	atomic_signal_fence(memory_order_seq_cst);
	t->top = depth + 1;
	rt_mcount_leave(t);
	/* The caller's entry, held back until now (fgraph.h): written
	 * before anything of ours. */
	pending = t->pending;
	if (pending && rt_fgraph_pending_take(t, pending)) {
		const struct ftrace_ret_stack *p = &t->ret_stack[pending - 1];

		rt_graph_pending_unmark();
		rt_graph_write_entry(p->func, pending - 1, p->calltime, NULL);
	}
	/* Relaxed: as in rt_graph_write(). */
	mask = atomic_load_explicit(&rt_graph_mask, memory_order_relaxed);
	am = atomic_load_explicit(&rt_graph_args_mask, memory_order_relaxed);
	/* Ours held back, unless there is nothing to write or an instance
	 * wants the argument registers, which are gone by the exit. */
	if (__builtin_expect(mask && !(mask & am), 1)) {
		rt_graph_pending_mark();
		t->pending = depth + 1;
		return true;
	}
	/* the argument registers in their ABI order (struct ftrace_regs
	 * begins with them) */
	rt_graph_write_entry(func, depth, calltime, &regs->rdi);
	return true;
slow:
	return ftrace_graph_func_entry_slow(t, func, parent_loc, regs, clock);
}

/*
 * The common return: the newest frame's, traced, no hook of this thread
 * under way; anything else is ftrace_return_to_handler_slow()'s. The
 * clock is read first, as early as the return can. The real return goes
 * to return_to_handler's save area (@retp) and the frame is popped
 * before the exit record is written, from what was read out of it, so
 * that nothing is kept across the write (the last call; it keeps errno,
 * rt_ftrace_graph_return_event()); a signal handler that comes during
 * the write pushes its frames where this one was.
 */
RT_NOTRACE void ftrace_return_to_handler(unsigned long sp,
					 unsigned long retval,
					 unsigned long *retp)
{
	struct rt_mcount_thread *t = &rt_mcount_current;
	unsigned long *loc = (unsigned long *)(sp - sizeof(long));
	const struct ftrace_ret_stack *f;
	unsigned long func;
	int i = t->top - 1, depth;
	uint64_t clock = rt_ftrace_clock_start(), calltime, rettime;
	unsigned int overrun;
	bool pending;

	if (__builtin_expect(i < 0, 0)) {
		ftrace_return_to_handler_slow(sp, retval, retp);
		return;
	}
	f = &t->ret_stack[i];
	/* (one branch for the three; a called frame's return is the same
	 * as a hijacked one's) */
	if (__builtin_expect((f->loc != loc) |
				     ((f->flags & ~RT_FR_CALLED) != 0) |
				     (t->busy != 0),
			     0)) {
		ftrace_return_to_handler_slow(sp, retval, retp);
		return;
	}
	*retp = f->ret;
	/* (a frame with no RT_FR_NOTRACE flag: the notrace count stays) */
	func = f->func;
	calltime = f->calltime;
	depth = i - t->notrace;
	overrun = t->overrun & ~RT_GRAPH_NO_RETVAL;
	/* Our entry, if held back (fgraph.h), taken before the pop: a
	 * signal handler that comes after the pop may push a frame in our
	 * place and hold its own entry back. */
	pending = rt_fgraph_pending_take(t, i + 1);
	/* Orders (compiler barrier): the frame is read before it is
	 * popped; a signal handler may reuse its place after. */
	atomic_signal_fence(memory_order_seq_cst);
	t->top = i;
	atomic_signal_fence(memory_order_seq_cst);
	if (pending)
		rt_graph_pending_unmark();
	rettime = rt_ftrace_clock_try(clock);
	if (__builtin_expect(!rettime, 0)) {
		if (pending)
			rt_fgraph_pair_event_clock(func, depth, calltime, clock,
						   overrun, retval);
		else
			rt_fgraph_return_event_clock(func, depth, calltime,
						     clock, overrun, retval);
	} else if (pending)
		/* a call that called nothing traced: entry and exit in one
		 * reservation, with the same tests as the exit's */
		rt_graph_write_pair(func, depth, calltime, rettime, overrun,
				    retval);
	else
		/* the write tests the rest: function_graph runs (its
		 * instances' mask, which rt_ftrace_enabled's bit follows)
		 * and the stop switch, with its own tests */
		rt_graph_write_exit(func, depth, calltime, rettime, overrun,
				    retval, true);
}
#endif /* RT_HAVE_MCOUNT */
