/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mcount_x86_64.S - the entry and return trampolines of the function
 * tracers for code built with -pg (mcount), -pg -mfentry (__fentry__),
 * and the NOP'd sites that dynftrace.c turns into calls
 * (-fpatchable-function-entry, -mnop-mcount)
 *
 * The names are the kernel's (arch/x86/kernel/ftrace_64.S), so the two
 * read side by side:
 *
 *  __fentry__, mcount	what the compiler calls. They test the stop
 *			switch and rt_ftrace_enabled and return at once
 *			(ftrace_stub) when no function tracer runs.
 *  ftrace_caller	saves the argument registers (the kernel's
 *			ftrace_regs: rdi rsi rdx rcx r8 r9, rax for
 *			varargs' vector count, r10 for the static chain,
 *			and xmm0-7, which the kernel does not use but a
 *			program's floating point arguments do) and calls
 *			ftrace_ops_entry(), the kernel's
 *			ftrace_ops_list_func(), which records the function
 *			event and calls prepare_ftrace_return() for
 *			function_graph.
 *  return_to_handler	where a hijacked return lands: saves the return
 *			registers, has ftrace_return_to_handler() store the
 *			real return address in its save area (and record
 *			the exit), and jumps there.
 *
 *  ftrace_func_caller	the function tracer's own trampoline (the kernel's
 *			per-ops trampoline, whose ftrace_call calls the one
 *			ops' func, function_trace_call(), instead of
 *			ftrace_ops_list_func()): dynftrace.c points a NOP
 *			site at it, through its object's trampoline page,
 *			while the function tracer is the only user of the
 *			sites. The page's slot puts the distance from the
 *			site's return to its function's start in %r11, so
 *			the function is known without a lookup; the
 *			trampoline saves what the C callee may clobber and
 *			calls ftrace_func_entry() straight away (no ops
 *			list, no filter test: the site is a call only while
 *			the lists select it; no test of the tracers: only
 *			while the function tracer is alone).
 *  ftrace_graph_body_caller_D  function_graph alone: the site jumps
 *			(no call) to a stub of its own, which puts the
 *			function's body in %r11;
 *			ftrace_graph_body_entry() pushes the return frame
 *			with no site lookup and no ops list, and the
 *			trampoline calls the body itself, as the kernel's
 *			BPF trampoline calls the original function
 *			(BPF_TRAMP_F_CALL_ORIG): no return is hijacked.
 *
 * The difference between the two entries is where the traced function's
 * own return address lies: __fentry__ is called first thing, so it is
 * just above the call's return address; mcount after the prologue has
 * set up the frame pointer, so it is at 8(%rbp). Each entry passes the
 * address of that slot (the kernel's parent_loc) in %r11, which no
 * calling convention uses at a function's entry.
 *
 * Userspace: the kernel's trampolines need not keep the vector registers
 * (the kernel does not use them); here the C code the tracer calls may
 * (libc's string functions do), so ftrace_caller saves xmm0-7. The
 * function tracers' own trampolines and return_to_handler call the C of
 * fnfast.c and fgraph_fast.c, which uses no vector register where
 * RT_FN_VECTOR_FREE is defined (compiled with -mgeneral-regs-only, every
 * call out of it through a thunk that saves xmm0-7, vsafe.h): there they
 * save the integer registers alone. The upper
 * halves of ymm/zmm argument registers are never saved: a function
 * taking __m256 arguments by value must not be traced (see
 * Documentation/tracer.rst).
 */
#include "vsafe.h"

	.text

/* Offsets in ftrace_caller's save area (struct ftrace_regs in fgraph.h) */
#define FR_RDI	0
#define FR_RSI	8
#define FR_RDX	16
#define FR_RCX	24
#define FR_R8	32
#define FR_R9	40
#define FR_RAX	48
#define FR_R10	56
#define FR_XMM	64
#define FR_SIZE	(FR_XMM + 8 * 16)

/* The vector registers the function tracers' trampolines save: none
 * where fnfast.c and fgraph_fast.c are vector-free (their thunks save
 * them on their rare paths). */
#ifdef RT_FN_VECTOR_FREE
#define FN_SAVE_XMM 0
#else
#define FN_SAVE_XMM 1
#endif

/*
 * The fast test both entries make: nothing to do while the stop switch
 * is set or no function tracer is current. Relaxed loads (the hooks of
 * function.c make the same two).
 */
.macro FTRACE_TEST
	movq	rt_function_trace_stop@GOTPCREL(%rip), %r11
	cmpl	$0, (%r11)
	jne	ftrace_stub
	movq	rt_ftrace_enabled@GOTPCREL(%rip), %r11
	cmpl	$0, (%r11)
	je	ftrace_stub
.endm

/* The start of the hidden trampoline @name, its unwind notes opened. */
.macro TRAMP_START name
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
\name:
	.cfi_startproc
.endm

/* A frame on %rbp, with its unwind notes: ftrace_caller's and the
 * function tracer's trampolines' (the stack is aligned after it). */
.macro FRAME_ENTER
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
.endm

/* ... and its end. */
.macro FRAME_LEAVE
	movq	%rbp, %rsp
	.cfi_def_cfa_register %rsp
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
.endm

/*
 * The save area (struct ftrace_regs) at %rsp: the integer argument
 * registers and %r10, %rax unless @rax is 0, xmm0-7 unless @xmm is 0.
 */
.macro SAVE_ARGS rax=1, xmm=1
	movq	%rdi, FR_RDI(%rsp)
	movq	%rsi, FR_RSI(%rsp)
	movq	%rdx, FR_RDX(%rsp)
	movq	%rcx, FR_RCX(%rsp)
	movq	%r8, FR_R8(%rsp)
	movq	%r9, FR_R9(%rsp)
	movq	%r10, FR_R10(%rsp)
.if \rax
	movq	%rax, FR_RAX(%rsp)
.endif
.if \xmm
	movdqu	%xmm0, FR_XMM + 0 * 16(%rsp)
	movdqu	%xmm1, FR_XMM + 1 * 16(%rsp)
	movdqu	%xmm2, FR_XMM + 2 * 16(%rsp)
	movdqu	%xmm3, FR_XMM + 3 * 16(%rsp)
	movdqu	%xmm4, FR_XMM + 4 * 16(%rsp)
	movdqu	%xmm5, FR_XMM + 5 * 16(%rsp)
	movdqu	%xmm6, FR_XMM + 6 * 16(%rsp)
	movdqu	%xmm7, FR_XMM + 7 * 16(%rsp)
.endif
.endm

.macro RESTORE_ARGS rax=1, xmm=1
	movq	FR_RDI(%rsp), %rdi
	movq	FR_RSI(%rsp), %rsi
	movq	FR_RDX(%rsp), %rdx
	movq	FR_RCX(%rsp), %rcx
	movq	FR_R8(%rsp), %r8
	movq	FR_R9(%rsp), %r9
	movq	FR_R10(%rsp), %r10
.if \rax
	movq	FR_RAX(%rsp), %rax
.endif
.if \xmm
	movdqu	FR_XMM + 0 * 16(%rsp), %xmm0
	movdqu	FR_XMM + 1 * 16(%rsp), %xmm1
	movdqu	FR_XMM + 2 * 16(%rsp), %xmm2
	movdqu	FR_XMM + 3 * 16(%rsp), %xmm3
	movdqu	FR_XMM + 4 * 16(%rsp), %xmm4
	movdqu	FR_XMM + 5 * 16(%rsp), %xmm5
	movdqu	FR_XMM + 6 * 16(%rsp), %xmm6
	movdqu	FR_XMM + 7 * 16(%rsp), %xmm7
.endif
.endm

	.globl	__fentry__
	.type	__fentry__, @function
	.p2align 4
__fentry__:
	.cfi_startproc
	FTRACE_TEST
	leaq	8(%rsp), %r11		/* parent_loc: the function's return */
	jmp	ftrace_caller
	.cfi_endproc
	.size	__fentry__, . - __fentry__

	.globl	mcount
	.type	mcount, @function
	.p2align 4
mcount:
	.cfi_startproc
	FTRACE_TEST
	leaq	8(%rbp), %r11		/* parent_loc, behind the saved %rbp */
	jmp	ftrace_caller
	.cfi_endproc
	.size	mcount, . - mcount

	/* glibc's gmon names mcount _mcount too; take both. */
	.globl	_mcount
	.set	_mcount, mcount

	.globl	ftrace_stub
	.hidden	ftrace_stub
	.type	ftrace_stub, @function
ftrace_stub:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	ftrace_stub, . - ftrace_stub

/*
 * ftrace_caller - %r11 = parent_loc, (%rsp) = the return into the traced
 * function, just after its call site
 */
	.globl	ftrace_caller
	.hidden	ftrace_caller
	.type	ftrace_caller, @function
	.p2align 4
ftrace_caller:
	.cfi_startproc
	FRAME_ENTER
	/* mcount is called with %rsp 8 mod 16, __fentry__ with 0: align. */
	andq	$-16, %rsp
	subq	$FR_SIZE, %rsp
	SAVE_ARGS

	movq	8(%rbp), %rdi		/* the return after the call site */
	movq	%r11, %rsi		/* parent_loc */
	movq	%rsp, %rdx		/* the saved registers */
	call	ftrace_ops_entry

	.globl	ftrace_graph_caller
	.hidden	ftrace_graph_caller
ftrace_graph_caller:
	/*
	 * Userspace: the kernel patches a jump to its ftrace_graph_caller
	 * here when function_graph runs; ftrace_ops_entry() calls
	 * prepare_ftrace_return() itself, and the label only marks the
	 * place.
	 */
	RESTORE_ARGS
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	ftrace_caller, . - ftrace_caller

/*
 * ftrace_func_caller - (%rsp) = the return into the traced function, just
 * after its site; 8(%rsp) = the traced function's own return (the site is
 * its first instruction, or follows an endbr64: an -mfentry-like entry);
 * %r11 = the return minus the function's start (the trampoline page's
 * slot sets it, dynftrace.c)
 *
 * It calls ftrace_func_entry() with the function, the address of its
 * return slot (the kernel's parent_loc) and the saved registers
 * (function_graph's own entry is ftrace_graph_body_caller_D, below).
 * Nothing is tested on the way in: a site calls a slot of these only
 * while their tracer is the only one (dynftrace.c), and the C half tests
 * the stop switch with the rest of its fast path's tests (fgraph_fast.c).
 *
 * Saved: the argument registers and %rax; xmm0-7 too unless the callee
 * (fgraph_fast.c) is vector-free (RT_FN_VECTOR_FREE; its slow paths then
 * save them in their thunks, rt_vsafe_*). The callee-saved registers are
 * the C callee's to keep. The flags need no saving at a function's entry.
 *
 * The _gpr entries are the same without xmm0-7 and %rax, for the
 * functions whose debug information shows integer, pointer and
 * enumeration parameters only and no variable arguments (dynftrace.c
 * chooses at patch time): the ABI passes nothing in a vector register to
 * them, nor a count of vector registers in %al (variadic calls only), and
 * the vector registers are the caller's to lose at a call (the compiler
 * keeps no value in them across a call of an instrumented function: GCC
 * leaves out its -fipa-ra for -pg and patchable entries, which is what
 * lets ftrace_caller leave xmm8-15 alone too).
 *
 * Userspace: the kernel's per-ops trampoline is a copy of ftrace_caller
 * made for the ops (create_trampoline()); a copy into each slot of the
 * page, the distance a constant in it, was measured and lost here (see
 * Documentation/tracer.rst), so the slot sets %r11 and jumps.
 */
.macro FUNC_CALLER name, xmm
	TRAMP_START \name
#if FN_SAVE_XMM
	FRAME_ENTER
	/* A function's entry has %rsp 8 mod 16 in the ABI; do not rely on it. */
	andq	$-16, %rsp
.if \xmm
	subq	$FR_SIZE, %rsp
.else
	subq	$FR_XMM, %rsp
.endif
	SAVE_ARGS \xmm, \xmm

	movq	8(%rbp), %rdi		/* the return after the site */
	subq	%r11, %rdi		/* the function */
	leaq	16(%rbp), %rsi		/* its return slot (parent_loc) */
#else
	/*
	 * No frame and no alignment: the vector-free callee does not need
	 * the ABI's 16-byte stack (its code cannot use an aligned vector
	 * access; its thunks align the stack before they call out).
	 */
	subq	$FR_XMM, %rsp
	.cfi_adjust_cfa_offset FR_XMM
	SAVE_ARGS \xmm, 0

	movq	FR_XMM(%rsp), %rdi	/* the return after the site */
	subq	%r11, %rdi		/* the function */
	leaq	FR_XMM + 8(%rsp), %rsi	/* its return slot (parent_loc) */
#endif
	movq	%rsp, %rdx		/* the saved registers, rdi first */
	call	ftrace_func_entry

#if FN_SAVE_XMM
	RESTORE_ARGS \xmm, \xmm
	FRAME_LEAVE
#else
	RESTORE_ARGS \xmm, 0
	addq	$FR_XMM, %rsp
	.cfi_adjust_cfa_offset -FR_XMM
#endif
	ret
	.cfi_endproc
	.size	\name, . - \name
.endm

	FUNC_CALLER ftrace_func_caller, 1
	FUNC_CALLER ftrace_func_caller_gpr, 0

/*
 * ftrace_graph_body_caller_D - function_graph's own entry for a site at
 * a function's entry (dynftrace.c): the site is a "jmp" to its stub in
 * the object's stub pages, which puts the address after the site
 * (the function's body) in %r11 and jumps here. Nothing was pushed:
 * (%rsp) is the traced function's own return (the caller's address C),
 * its stack arguments are at 8(%rsp), D is the distance from the
 * function's start to its body (the site's length, and an endbr64's).
 *
 * The kernel's BPF trampoline with BPF_TRAMP_F_CALL_ORIG
 * (arch_prepare_bpf_trampoline()) does the same: it runs the entry
 * programs, calls the original function's body itself, and runs the
 * exit programs when the call returns. Here: the argument registers are
 * saved and ftrace_graph_body_entry() pushes the return frame (C and the
 * slot's address) and writes the entry record, leaving the slot alone.
 * When it says "not traced" (the stop switch, the lists, the depth, the
 * recursion guard, a full return stack) the body is jumped to with the
 * stack as it came: it returns straight to C. Otherwise C is dropped
 * (the frame keeps it) and the body is called (ftrace_graph_body_call):
 * the call writes its return, return_to_handler_called, into the slot C
 * occupied, so the stack arguments are where the body expects them and
 * the stack looks as after a hijack, and the body's return is the one
 * the CPU predicts (a hijacked return never is). return_to_handler_called
 * then returns to C with a "ret", which consumes the prediction the
 * caller's own call left.
 *
 * Saved as in FUNC_CALLER (the _gpr entries without xmm0-7 and %rax),
 * and %r11 (the body) across the call of the C half.
 */
.macro BODY_CALLER name, xmm, d
	TRAMP_START \name
#if FN_SAVE_XMM
	FRAME_ENTER
	andq	$-16, %rsp
.if \xmm
	subq	$FR_SIZE + 16, %rsp
	movq	%r11, FR_SIZE(%rsp)
.else
	subq	$FR_XMM + 16, %rsp
	movq	%r11, FR_XMM(%rsp)
.endif
	SAVE_ARGS \xmm, \xmm

	leaq	-\d(%r11), %rdi	/* the function */
	leaq	8(%rbp), %rsi		/* its return slot (parent_loc) */
#else
	/* No frame, no alignment (as FUNC_CALLER's); %r11 above the
	 * registers. */
	subq	$FR_XMM + 8, %rsp
	.cfi_adjust_cfa_offset FR_XMM + 8
	movq	%r11, FR_XMM(%rsp)
	SAVE_ARGS \xmm, 0

	leaq	-\d(%r11), %rdi	/* the function */
	leaq	FR_XMM + 8(%rsp), %rsi	/* its return slot (parent_loc) */
#endif
	movq	%rsp, %rdx		/* the saved registers, rdi first */
	call	ftrace_graph_body_entry
	/* (the moves below keep the flags) */
	testb	%al, %al

#if FN_SAVE_XMM
	RESTORE_ARGS \xmm, \xmm
.if \xmm
	movq	FR_SIZE(%rsp), %r11
.else
	movq	FR_XMM(%rsp), %r11
.endif
	FRAME_LEAVE
#else
	RESTORE_ARGS \xmm, 0
	movq	FR_XMM(%rsp), %r11
	leaq	FR_XMM + 8(%rsp), %rsp
	.cfi_adjust_cfa_offset -(FR_XMM + 8)
#endif
	jnz	ftrace_graph_body_call
	jmp	*%r11			/* not traced: the body, as it came */
	.cfi_endproc
	.size	\name, . - \name
.endm

	.irp d, 5, 6, 7, 8, 9, 10
	BODY_CALLER ftrace_graph_body_caller_\d, 1, \d
	BODY_CALLER ftrace_graph_body_caller_gpr_\d, 0, \d
	.endr

/*
 * The return's common part: %rsp is the caller's again (the return
 * popped the slot); %rax:%rdx and %xmm0:%xmm1 hold the return value.
 * ftrace_return_to_handler() pops the frame, writes the exit record and
 * leaves the real return in %r11.
 *
 * The floating-point return (xmm0, xmm1) is saved here only where
 * ftrace_return_to_handler() (fgraph_fast.c) may use the vector registers;
 * where it is vector-free its slow paths' thunks save them.
 */
.macro RETURN_HANDLER
	/* the return registers, and at 48 the real return (the stack stays
	 * aligned: %rsp is the caller's, 0 mod 16, after the return) */
	subq	$64, %rsp
	.cfi_adjust_cfa_offset 64
	movq	%rax, 0(%rsp)
	movq	%rdx, 8(%rsp)
#if FN_SAVE_XMM
	movdqu	%xmm0, 16(%rsp)
	movdqu	%xmm1, 32(%rsp)
#endif
	leaq	64(%rsp), %rdi		/* the caller's stack pointer */
	movq	%rax, %rsi		/* the return value */
	leaq	48(%rsp), %rdx		/* where the real return goes */
	call	ftrace_return_to_handler
	movq	48(%rsp), %r11
	movq	0(%rsp), %rax
	movq	8(%rsp), %rdx
#if FN_SAVE_XMM
	movdqu	16(%rsp), %xmm0
	movdqu	32(%rsp), %xmm1
#endif
	addq	$64, %rsp
	.cfi_adjust_cfa_offset -64
.endm

/*
 * return_to_handler - the hijacked return of a function_graph frame
 * (the general entry's, ftrace_caller's, and mcount sites').
 *
 * The address written into the slots is return_to_handler_ret, one byte
 * in: an unwinder (and gdb) looks up a return address minus one, which
 * lands on the NOP at return_to_handler, in this function and its FDE.
 * The FDE says only that the frame ends here (an undefined return
 * address): unwinders stop at it cleanly instead of failing, and gdb
 * names the frame return_to_handler. The exception and backtrace() paths
 * restore the real addresses first (fgraph.c).
 *
 * It leaves by "jmp *%r11": the function's own return, which the CPU
 * predicted to the caller, already consumed the caller's prediction.
 */
	.globl	return_to_handler
	.hidden	return_to_handler
	.globl	return_to_handler_ret
	.hidden	return_to_handler_ret
	.type	return_to_handler, @function
	.p2align 4
return_to_handler:
	.cfi_startproc
	.cfi_undefined rip
	nop
return_to_handler_ret:
	RETURN_HANDLER
	jmp	*%r11
	.cfi_endproc
	.size	return_to_handler, . - return_to_handler

/*
 * ftrace_graph_body_call - ftrace_graph_body_caller_D's call of the
 * body (%r11), (%rsp) the caller's return C, already in the frame; and
 * return_to_handler_called, the call's return: what a called frame's
 * slot holds (fgraph.h's rt_fgraph_is_hooker()).
 *
 * An unwinder (and gdb) looks up return_to_handler_called minus one,
 * the call: the FDE says, as return_to_handler's, that the frame ends
 * here. The exception and backtrace() paths put C back in the slot first
 * (fgraph.c), and the body then returns straight to C.
 *
 * It leaves by "push %r11; ret", not a jump: the caller's call left C
 * on the CPU's return stack, which only a return consumes (a jump would
 * leave every later return of the thread predicted one frame off).
 */
	.globl	ftrace_graph_body_call
	.hidden	ftrace_graph_body_call
	.globl	return_to_handler_called
	.hidden	return_to_handler_called
	.type	ftrace_graph_body_call, @function
	.p2align 4
ftrace_graph_body_call:
	.cfi_startproc
	.cfi_undefined rip
	leaq	8(%rsp), %rsp		/* drop C: the slot is the call's */
	call	*%r11
return_to_handler_called:
	RETURN_HANDLER
	pushq	%r11
	.cfi_adjust_cfa_offset 8
	ret
	.cfi_endproc
	.size	ftrace_graph_body_call, . - ftrace_graph_body_call

/* dynftrace.c's table of the body callers: [_gpr][D - 5] */
	.section .data.rel.ro, "aw"
	.globl	ftrace_graph_body_callers
	.hidden	ftrace_graph_body_callers
	.type	ftrace_graph_body_callers, @object
	.p2align 3
ftrace_graph_body_callers:
	.irp d, 5, 6, 7, 8, 9, 10
	.quad	ftrace_graph_body_caller_\d
	.endr
	.irp d, 5, 6, 7, 8, 9, 10
	.quad	ftrace_graph_body_caller_gpr_\d
	.endr
	.size	ftrace_graph_body_callers, . - ftrace_graph_body_callers
	.text

/* The thunks of fgraph_fast.c's ways out into fgraph.c (vsafe.h; those
 * of fnfast.c are in vsafe_x86_64.S, apart: a program that links the
 * function tracers without the rest of the library leaves fnfast.c out,
 * and with it what its thunks call). */
#ifdef RT_FN_VECTOR_FREE
	VSAFE ftrace_graph_func_entry_slow
	VSAFE ftrace_return_to_handler_slow
	VSAFE rt_fgraph_return_event_clock
	VSAFE rt_fgraph_pair_event_clock
#endif


	.section .note.GNU-stack, "", @progbits
