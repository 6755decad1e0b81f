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

/* The function tracer's record (rt_fn_write(), fnwrite.h). */
__attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_ftrace_function_event(unsigned long ip, unsigned long parent_ip,
			 const unsigned long *args)
{
	rt_fn_write(ip, parent_ip, args, false);
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
