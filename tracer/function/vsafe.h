/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vsafe.h - the vector-free files' way out (fnfast.c, fgraph_fast.c):
 * included first, before any declaration, it renames every function
 * they call out of line to its thunk rt_vsafe_NAME, which keeps xmm0-7
 * around NAME. Where RT_FN_VECTOR_FREE is not
 * defined (the files are ordinary C, the trampolines save the vector
 * registers themselves) it renames nothing. The assembler's side, the
 * macro that makes a thunk, is here too; each thunk is made in the
 * assembler file beside the C it calls (mcount_x86_64.S for fgraph.c,
 * vsafe_x86_64.S for the rest), every name of the list once.
 */
#ifndef RINGTRACE_VSAFE_H
#define RINGTRACE_VSAFE_H

#ifdef __ASSEMBLER__
/*
 * rt_vsafe_NAME - NAME called with xmm0-7 kept: the one way out of the
 * vector-free files' code (see fnfast.c) into ordinary C. Up to six
 * integer or pointer arguments, passed through untouched (no argument
 * on the stack: the thunk's frame would hide it); the integer return
 * (%rax, %rdx) comes back as NAME left it. The stack is aligned for the
 * call whatever the caller's alignment.
 */
.macro VSAFE name
	.globl	rt_vsafe_\name
	.hidden	rt_vsafe_\name
	.type	rt_vsafe_\name, @function
	.p2align 4
rt_vsafe_\name:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-16, %rsp
	subq	$(8 * 16), %rsp
	movdqa	%xmm0, 0 * 16(%rsp)
	movdqa	%xmm1, 1 * 16(%rsp)
	movdqa	%xmm2, 2 * 16(%rsp)
	movdqa	%xmm3, 3 * 16(%rsp)
	movdqa	%xmm4, 4 * 16(%rsp)
	movdqa	%xmm5, 5 * 16(%rsp)
	movdqa	%xmm6, 6 * 16(%rsp)
	movdqa	%xmm7, 7 * 16(%rsp)
	call	\name@PLT
	movdqa	0 * 16(%rsp), %xmm0
	movdqa	1 * 16(%rsp), %xmm1
	movdqa	2 * 16(%rsp), %xmm2
	movdqa	3 * 16(%rsp), %xmm3
	movdqa	4 * 16(%rsp), %xmm4
	movdqa	5 * 16(%rsp), %xmm5
	movdqa	6 * 16(%rsp), %xmm6
	movdqa	7 * 16(%rsp), %xmm7
	movq	%rbp, %rsp
	.cfi_def_cfa_register %rsp
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	rt_vsafe_\name, . - rt_vsafe_\name
.endm
#elif defined(RT_FN_VECTOR_FREE)
/* the ring buffer's out-of-line halves of the inline write
 * (<ringbuf/frontend.h>) */
#define ringbuf_fe_reserve_slow rt_vsafe_ringbuf_fe_reserve_slow
#define ringbuf_fe_claim_active_slow rt_vsafe_ringbuf_fe_claim_active_slow
#define ringbuf_fe_claim_slot_slow rt_vsafe_ringbuf_fe_claim_slot_slow
#define ringbuf_fe_reserve_rare rt_vsafe_ringbuf_fe_reserve_rare
#define ringbuf_fe_reserve_next_slow_ts rt_vsafe_ringbuf_fe_reserve_next_slow_ts
#define ringbuf_fe_move_tail_ts rt_vsafe_ringbuf_fe_move_tail_ts
#define ringbuf_fe_reserve_interrupted rt_vsafe_ringbuf_fe_reserve_interrupted
#define ringbuf_fe_reserve_slow_ts rt_vsafe_ringbuf_fe_reserve_slow_ts
#define ringbuf_fe_reserve_rare_ts rt_vsafe_ringbuf_fe_reserve_rare_ts
#define ringbuf_fe_reserve_interrupted_ts rt_vsafe_ringbuf_fe_reserve_interrupted_ts
#define ringbuf_fe_end_commit_slow rt_vsafe_ringbuf_fe_end_commit_slow
#define ringbuf_fe_wake_waiters rt_vsafe_ringbuf_fe_wake_waiters
#define ringbuf_fe_pair_dropped rt_vsafe_ringbuf_fe_pair_dropped
#define ringbuf_clock_mono_slow rt_vsafe_ringbuf_clock_mono_slow
#define ringbuf_time_stamp rt_vsafe_ringbuf_time_stamp
/* liburcu: a thread's first read-side section registers it */
#define urcu_bp_register rt_vsafe_urcu_bp_register
/* the general paths of the records (trace.c) */
#define rt_fn_write_slow rt_vsafe_rt_fn_write_slow
#define rt_fn_write_args rt_vsafe_rt_fn_write_args
#define rt_graph_write_slow rt_vsafe_rt_graph_write_slow
#define rt_graph_write_args rt_vsafe_rt_graph_write_args
/* the general cases of the graph's entry and return (fgraph.c) */
#define ftrace_graph_func_entry_slow rt_vsafe_ftrace_graph_func_entry_slow
#define ftrace_return_to_handler_slow rt_vsafe_ftrace_return_to_handler_slow
#define rt_fgraph_return_event_clock rt_vsafe_rt_fgraph_return_event_clock
#define rt_fgraph_pair_event_clock rt_vsafe_rt_fgraph_pair_event_clock
#endif /* __ASSEMBLER__ */

#endif /* RINGTRACE_VSAFE_H */
