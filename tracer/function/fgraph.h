/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fgraph.h - the profiling-call function tracer (x86-64): the entry and
 * return trampolines (mcount_x86_64.S), the return stack (fgraph.c) and
 * the recorded call sites patched at run time (dynftrace.c)
 */
#ifndef RINGTRACE_FGRAPH_H
#define RINGTRACE_FGRAPH_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The profiling-call tracer is built (x86-64 Linux); elsewhere only the
 * -finstrument-functions hooks are. */
#if defined(__x86_64__) && defined(__linux__)
#define RT_HAVE_MCOUNT 1
#else
#define RT_HAVE_MCOUNT 0
#endif

/**
 * struct ftrace_regs - the registers ftrace_caller saved (its layout is
 * the FR_* offsets of mcount_x86_64.S)
 */
struct ftrace_regs {
	/* the six integer argument registers first, in their ABI order:
	 * the graph's entry record copies them as one array */
	unsigned long rdi, rsi, rdx, rcx, r8, r9, rax, r10;
	unsigned char xmm[8][16];
};

/* What the filter lists say about one function (function.c). */
struct rt_ftrace_match {
	bool func;
	bool graph_func;
	bool graph_notrace;
};

/*
 * function.c: set_graph_function or set_graph_notrace is not empty (the
 * graph tracer's lists; relaxed loads: a hint, see rt_ftrace_publish()).
 */
extern _Atomic int rt_graph_lists_set;

/* function.c: look @ip up in the lists for the tracers in @enabled. */
void rt_ftrace_test(unsigned long ip, unsigned int enabled,
		    struct rt_ftrace_match *m);

/* ---- mcount_x86_64.S ---- */
void __fentry__(void);
void mcount(void);
void ftrace_caller(void);
/* The function tracer's own entries (dynftrace.c's pages jump to them);
 * _gpr keeps the vector registers as they are. */
void ftrace_func_caller(void);
void ftrace_func_caller_gpr(void);
/*
 * ... and function_graph's (ftrace_graph_body_entry()), which call the
 * function's body themselves: [_gpr][D - 5] for a body D bytes after the
 * function's start (D from 5 to 10).
 */
extern void (*const ftrace_graph_body_callers[2][6])(void);
void ftrace_stub(void);
void return_to_handler(void);
/* What a hijacked slot holds: return_to_handler + 1 (see the .S file). */
void return_to_handler_ret(void);
#define RT_RETURN_HOOKER ((unsigned long)return_to_handler_ret)
/* What a called frame's slot holds: the return of the trampoline's call
 * of the body (ftrace_graph_body_call). */
void return_to_handler_called(void);
#define RT_RETURN_CALLED ((unsigned long)return_to_handler_called)

/* ---- the return stack (fgraph.c; its fast paths in fnfast.c) ---- */

/* Frames on a thread's return stack (the kernel's FTRACE_RETFUNC_DEPTH). */
#define RT_MCOUNT_DEPTH 256

/* Flags of a ret_stack frame */
#define RT_FR_NOTRACE 1u  /* set_graph_notrace: no events, nor for callees */
#define RT_FR_RESTORED 2u /* its slot holds the real address again */
/* the trampoline called the body (its slot holds RT_RETURN_CALLED) */
#define RT_FR_CALLED 4u

/* Is @addr one of the return addresses the graph tracer puts in a slot? */
static inline __attribute__((no_instrument_function)) bool
rt_fgraph_is_hooker(unsigned long addr)
{
	return addr == RT_RETURN_HOOKER || addr == RT_RETURN_CALLED;
}

/* The return address a frame with @flags puts in its slot. */
static inline __attribute__((no_instrument_function)) unsigned long
rt_fgraph_hooker(unsigned int flags)
{
	return flags & RT_FR_CALLED ? RT_RETURN_CALLED : RT_RETURN_HOOKER;
}

/**
 * struct ftrace_ret_stack - a hijacked return
 * @ret: the real return address
 * @func: the traced function
 * @loc: the slot that holds return_to_handler (rt_fgraph_hooker()) instead
 *	of @ret
 * @calltime: the entry's time (rt_ftrace_clock())
 * @flags: RT_FR_*
 */
struct ftrace_ret_stack {
	unsigned long ret;
	unsigned long func;
	unsigned long *loc;
	uint64_t calltime;
	unsigned int flags;
};

/**
 * struct rt_mcount_thread - a thread's state
 * @busy: a hook of this thread is running (the recursion guard)
 * @top: frames on @ret_stack
 * @notrace: RT_FR_NOTRACE frames among them
 * @overrun: calls not hijacked because @ret_stack was full (cumulative)
 * @errnop: the thread's errno (__errno_location()), once asked
 * @pending: 1 + the frame whose entry record is held back, 0 for none
 *	(rt_fgraph_pending_take())
 * @armed: the thread's exit destructor is armed (rt_fgraph_thread_arm()):
 *	until then its calls take the general path, which holds back no
 *	entry
 * @slot: 1 + the thread's place in the list of threads the process's exit
 *	asks for their held-back entries (fgraph.c, rt_fgraph_flush_others()),
 *	0 for none, negated once given back
 * @ret_stack: the frames, outermost first
 */
struct rt_mcount_thread {
	volatile sig_atomic_t busy;
	int top;
	int notrace;
	unsigned int overrun;
	int *errnop;
	int pending;
	int armed;
	int slot;
	struct ftrace_ret_stack ret_stack[RT_MCOUNT_DEPTH];
};

/* Set once a recorded site jumps to function_graph's own entry, which
 * holds entries back (dynftrace.c); fgraph.c defines it. */
extern _Atomic bool rt_fgraph_may_hold __attribute__((visibility("hidden")));

/* Userspace: initial-exec TLS, as function.c's (no allocation); fgraph.c
 * defines it. */
extern _Thread_local struct rt_mcount_thread rt_mcount_current
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

static inline __attribute__((no_instrument_function)) bool rt_mcount_enter(struct rt_mcount_thread *t)
{
	if (t->busy)
		return false;
	t->busy = 1;
	/* Orders (compiler barrier): the flag before the state, as seen by
	 * a signal handler of this thread. */
	atomic_signal_fence(memory_order_seq_cst);
	return true;
}

static inline __attribute__((no_instrument_function)) void rt_mcount_leave(struct rt_mcount_thread *t)
{
	/* Orders (compiler barrier): the state is done with first. */
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

/*
 * A call's entry record is held back (function_graph's fast entry,
 * fgraph_fast.c) until the first of: its exit, which writes both in one
 * reservation (a call that calls nothing traced: most calls); a callee's
 * entry; any other record of the thread, whose general path writes it
 * first (rt_thread.slow's RT_SLOW_GRAPH_PENDING bit, trace.h); a longjmp
 * or exception that unwinds its frame. Only the innermost frame's can be
 * held back: one field, @pending. Whoever writes the entry takes it
 * first, with one instruction against this thread's signal handlers (a
 * compare-and-exchange without LOCK: no other thread touches it), so
 * that a handler that comes in between either finds it taken or takes
 * it itself, and the entry is written once.
 *
 * rt_fgraph_pending_take - take the held-back entry if it is @p's (1 +
 * the frame). Return whether it was.
 */
static inline __attribute__((always_inline, no_instrument_function)) bool
rt_fgraph_pending_take(struct rt_mcount_thread *t, int p)
{
#if defined(__x86_64__)
	bool ok;

	__asm__ __volatile__("cmpxchgl %3, %1"
			     : "=@ccz"(ok), "+m"(t->pending), "+a"(p)
			     : "r"(0)
			     : "memory");
	return ok;
#else
	/* Relaxed: the thread's own word, against its signal handlers. */
	return __atomic_compare_exchange_n(&t->pending, &p, 0, false,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
}

/*
 * fgraph.c: the general cases of fgraph_fast.c's ftrace_graph_body_entry()
 * and ftrace_return_to_handler(), which call them through their
 * vector-register-saving thunks (vsafe.h). @clock: the counter read at
 * the entry or the return (rt_ftrace_clock_start()).
 */
bool ftrace_graph_func_entry_slow(struct rt_mcount_thread *t,
				  unsigned long func, unsigned long *parent_loc,
				  const struct ftrace_regs *regs,
				  uint64_t clock);
void ftrace_return_to_handler_slow(unsigned long sp, unsigned long retval,
				   unsigned long *retp);
void rt_fgraph_return_event_clock(unsigned long func, int depth,
				  uint64_t calltime, uint64_t clock,
				  unsigned int overrun, unsigned long retval);
/* (the same with the call's held-back entry first) */
void rt_fgraph_pair_event_clock(unsigned long func, int depth,
				uint64_t calltime, uint64_t clock,
				unsigned int overrun, unsigned long retval);

/* ---- fgraph.c ---- */
/* Called by ftrace_caller: @self_ret is the return after the call site. */
void ftrace_ops_entry(unsigned long self_ret, unsigned long *parent_loc,
		      struct ftrace_regs *regs);
/*
 * The C halves of the one-tracer trampolines (fgraph_fast.c),
 * which ftrace_func_caller and ftrace_graph_body_caller_D call for a
 * recorded site at @func's entry while the function tracer
 * (ftrace_func_entry()) or function_graph (ftrace_graph_body_entry()) is
 * the only tracer: @parent_loc is @func's return slot.
 * ftrace_graph_body_entry() returns whether it pushed a frame (the
 * trampoline then calls the body, see the .S file).
 */
void ftrace_func_entry(unsigned long func, unsigned long *parent_loc,
		       struct ftrace_regs *regs);
bool ftrace_graph_body_entry(unsigned long func, unsigned long *parent_loc,
			     struct ftrace_regs *regs);
/* Called by return_to_handler with the caller's stack pointer and the
 * return register (%rax): pops the frame, stores the real return in
 * *@retp (return_to_handler's save area: nothing kept across the exit
 * record's write, which is the last call). */
void ftrace_return_to_handler(unsigned long sp, unsigned long ret,
			      unsigned long *retp);
/* Exported: the kernel's ftrace_graph_ret_addr() (fgraph.c). */
unsigned long ringtrace_graph_ret_addr(unsigned long ret, unsigned long *retp);
/* function.c's longjmp hook: drop the frames below @sp. */
void rt_fgraph_longjmp(unsigned long sp);
/* A C++ catch whose catcher's stack pointer is @catcher_sp (called from
 * __cxa_begin_catch(), after the C++ runtime's). */
void rt_fgraph_begin_catch(unsigned long catcher_sp);

/* ---- dynftrace.c ---- */
/*
 * The function a call site belongs to, from the return address after it
 * (@self_ret); *@recorded says whether the site is a recorded one (a
 * call only while the filters select it). Async-signal-safe.
 */
unsigned long rt_dynftrace_func(unsigned long self_ret, bool *recorded);
/* Patch the sites the tracers and lists now select (and unpatch the rest). */
void rt_dynftrace_update(void);
/* Read the sites of objects loaded since the last call (dlopen). */
void rt_dynftrace_scan(void);

/*
 * available_filter_functions for the recorded sites (one "name" or
 * "name [module]" a line); enabled_functions. Return 0 or -errno.
 */
int rt_dynftrace_available(FILE *out);
int rt_dynftrace_enabled_show(FILE *out);
/* Is there any recorded site (then available_filter_functions lists them)? */
bool rt_dynftrace_have_sites(void);
/* The sites that could not be patched (the last 16): one
 * "TS_NS\tMESSAGE\tSITE" line each, TS_NS on CLOCK_MONOTONIC. */
int rt_dynftrace_errors_show(FILE *out);

#endif /* RINGTRACE_FGRAPH_H */
