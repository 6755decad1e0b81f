// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fnfast.c - the function tracers' records: the function record
 * (rt_ftrace_function_event(), which ftrace_func_caller calls for every
 * traced call) and the graph records of the other hooks
 * (rt_ftrace_graph_entry_event(), rt_ftrace_graph_return_event())
 *
 * Where RT_FN_VECTOR_FREE is defined (x86-64, an optimised build without
 * a sanitizer: tracer/function/CMakeLists.txt), this file is compiled
 * with -mgeneral-regs-only: its code uses no vector register, so the
 * trampolines need not save the traced function's floating-point and
 * vector arguments (xmm0-7) around it. That holds only if nothing it
 * calls outside the file uses them either, and everything it calls out
 * of line is a rare path of ordinary C (the ring buffer's, liburcu's, the
 * general paths of the records): each such call goes through a thunk,
 * rt_vsafe_NAME, which saves xmm0-7 around the real NAME. vsafe.h
 * renames them before any declaration is read; the test
 * tracer-mcount.vector_free checks the objects: no vector register, and
 * no call out of them but to a thunk or to each other. fgraph_fast.c is
 * the other such file (function_graph's entry and return).
 *
 * Userspace: the kernel's trampolines save no vector register because
 * the kernel uses none; here the program does, and these files are what
 * lets the common case save none either.
 */
/* first: the thunks' names for what this file calls out of line */
#include "vsafe.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ringbuf/frontend.h>

#include "fnwrite.h"
#include "ftrace.h"
#include "rcu.h"
#include "trace.h"

/*
 * The library's own words, which it does not export, declared so: one
 * load each, not an address from the GOT first (the headers' declarations
 * say nothing of where they are defined).
 */
#define RT_HIDDEN __attribute__((visibility("hidden")))
extern _Atomic uint64_t rt_fn_mask RT_HIDDEN, rt_graph_mask RT_HIDDEN;
extern _Atomic uint64_t rt_fn_args_mask RT_HIDDEN;
extern _Atomic uint64_t rt_graph_args_mask RT_HIDDEN;
extern _Atomic uint64_t rt_ftrace_pid_mask RT_HIDDEN;

/* ---- the records ----------------------------------------------------- */

/*
 * The function tracer's record, into every instance of rt_fn_mask: the
 * graph's fast path (rt_fn_fast()) with the payload stored inline, the
 * rest out of line.
 *
 * Userspace: the kernel's function_trace_call() takes a recursion bit
 * first; here the write's own nesting count is that bit (rt_fn_fast()
 * wants it 0 and the write holds it at 1): a signal handler that calls a
 * traced function during the write takes the general path, which writes
 * a nested record, and nothing the write calls is traced.
 */
__attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_ftrace_function_event(unsigned long ip, unsigned long parent_ip,
			 const unsigned long *args)
{
	/* the payload is built where it is written: the slow paths get the
	 * words, so the fast path need not keep it in memory */
	struct rt_fn_arg a;
	/* Relaxed: each bit is checked again through rt_inst_rbs[]. */
	uint64_t mask = atomic_load_explicit(&rt_fn_mask, memory_order_relaxed);
	struct rt_thread *cur = &rt_cur;
	rt_rcu_reader_t rcu;
	uint64_t am;

	if (!mask)
		return;
	/* the thread's state through one address, not one TLS offset load
	 * per field (the compiler reloads it from the GOT each time) */
	__asm__("" : "+r"(cur));
	/* Relaxed: as rt_fn_mask. The instances with func-args take the
	 * general path, tested with the rest (rt_fn_fast()). */
	am = atomic_load_explicit(&rt_fn_args_mask, memory_order_relaxed);
	if (!rt_fn_fast(cur, mask, am)) {
		if (args && (mask & am))
			rt_fn_write_args(mask, mask & am, ip, parent_ip, args);
		else
			rt_fn_write_slow(mask, ip, parent_ip);
		return;
	}
	a = (struct rt_fn_arg){ .a = ip, .b = parent_ip };
	cur->depth = 1;
	rcu = rt_rcu_read_lock_reader();
	rt_write_instances_outer(mask, RT_TYPE_FN, sizeof(struct rt_fn_entry),
				 rt_fill_fn_inline, &a, 0, cur->pid);
	rt_rcu_read_unlock_reader(rcu);
	cur->depth = 0;
}

__attribute__((no_instrument_function)) void
rt_ftrace_graph_entry_event(unsigned long func, int depth, uint64_t calltime,
			    const unsigned long *args)
{
	rt_graph_write_entry(func, depth, calltime, args);
}

__attribute__((no_instrument_function)) void
rt_ftrace_graph_return_event(unsigned long func, int depth, uint64_t calltime,
			     uint64_t rettime, unsigned int overrun,
			     unsigned long retval)
{
	rt_graph_write_return(func, depth, calltime, rettime, overrun,
			      retval);
}
