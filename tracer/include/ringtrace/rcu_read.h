/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/rcu_read.h - the tracer's read-side section with the thread's
 * reader record loaded once, for a thread the library found ready
 *
 * The tracer's RCU is liburcu's urcu-bp flavour. Its inline read side
 * (<urcu-bp.h> under _LGPL_SOURCE) loads the thread's reader record from
 * TLS twice at the start of a section and again at its end (its compiler
 * barriers make every load a new one), and tests at both ends whether its
 * grace periods order the readers with membarrier()
 * (urcu_bp_has_sys_membarrier: a compiler barrier then, a full fence
 * where they do not). The two functions below are the same section with
 * the record loaded once and handed from one end to the other, and with
 * that test left out: they run only where the caller has found the
 * thread's slow word 0 (struct ringtrace_thread_view, layout 7), which the
 * library keeps non-zero in every thread while liburcu's grace periods
 * do not use membarrier() (rt_thread_slow_update(): liburcu makes that
 * choice once, when it initialises, and never goes back on it). The
 * fast paths of the library's function tracers
 * (ringtrace_rcu_read_lock_reader() behind rt_rcu_read_lock_reader() of
 * the library's rcu.h, after rt_fn_fast()) and the inline trace point
 * write (<ringtrace/inline_write.h>, after ringtrace_inline_ready())
 * both run them.
 *
 * The protocol is liburcu's otherwise: the thread registers at its first
 * section; the record's counter takes the grace-period counter at the
 * outermost level and one more nesting count inside another section;
 * a compiler barrier after the first store and before the last, where
 * urcu_bp_smp_mb_slave() would be: what urcu_bp_synchronize_rcu() pairs
 * them with is its membarrier(), which runs a full barrier on every CPU
 * that runs one of the process's threads, the reader's included;
 * compiler barriers at the two ends, as liburcu's. The record of a
 * registered thread stays the same until the thread exits, so a section
 * that began with it ends with it. The functions use liburcu's inline
 * read side's own names and are defined only where that is inline:
 * under _LGPL_SOURCE, which the includer defines to take liburcu's
 * static inline code on its terms, and not in an AddressSanitizer build
 * (liburcu 0.13 places its reader records off their declared alignment,
 * which UBSan reports); RINGTRACE_RCU_READER_INLINE says they are.
 * Elsewhere the section is the library's or liburcu's calls, which test
 * the flag themselves.
 *
 * No interface: the generated trace point code and the library use it.
 */
#ifndef RINGTRACE_RCU_READ_H
#define RINGTRACE_RCU_READ_H

#if defined(_LGPL_SOURCE) && !defined(__SANITIZE_ADDRESS__)
#include <urcu-bp.h>

#define RINGTRACE_RCU_READER_INLINE 1

#ifdef __cplusplus
extern "C" {
#endif

/* The thread's reader record, from one end of a section to the other. */
typedef struct urcu_bp_reader *ringtrace_rcu_reader_t;

/*
 * ringtrace_rcu_read_lock_reader - enter a read-side section (nested
 * sections allowed), as urcu_bp_read_lock() does where liburcu's grace
 * periods use membarrier(): in a thread whose slow word the caller found
 * 0 (see the top of this file).
 * Return: the thread's reader record, for
 * ringtrace_rcu_read_unlock_reader() at the section's end.
 */
static inline __attribute__((always_inline, no_instrument_function))
ringtrace_rcu_reader_t
ringtrace_rcu_read_lock_reader(void)
{
	struct urcu_bp_reader *r = URCU_TLS(urcu_bp_reader);
	unsigned long ctr;

	if (caa_unlikely(!r)) {
		urcu_bp_register(); /* the thread's first section */
		r = URCU_TLS(urcu_bp_reader);
	}
	/* (the section begins after what the program did before it) */
	cmm_barrier();
	ctr = r->ctr;
	urcu_assert((ctr & URCU_BP_GP_CTR_NEST_MASK) !=
		    URCU_BP_GP_CTR_NEST_MASK);
	if (caa_likely(!(ctr & URCU_BP_GP_CTR_NEST_MASK))) {
		/* outermost: the grace period's phase, one nesting count */
		_CMM_STORE_SHARED(r->ctr, _CMM_LOAD_SHARED(urcu_bp_gp.ctr));
		/* Orders the store above before the section's loads, for the
		 * compiler: urcu_bp_smp_mb_slave() where liburcu uses
		 * membarrier(), which the caller's slow word says it does.
		 * The processor's side pairs with the grace period's first
		 * membarrier() (urcu_bp_synchronize_rcu()): a full barrier
		 * on this CPU between the store and what it reads of the
		 * registry, so the grace period sees this section or the
		 * section sees what was published before it. */
		cmm_barrier();
	} else {
		_CMM_STORE_SHARED(r->ctr, ctr + URCU_BP_GP_COUNT);
	}
	return r;
}

/*
 * ringtrace_rcu_read_unlock_reader - leave the section that
 * ringtrace_rcu_read_lock_reader() entered and gave @r for, as
 * urcu_bp_read_unlock() does where liburcu's grace periods use
 * membarrier().
 */
static inline __attribute__((always_inline, no_instrument_function)) void
ringtrace_rcu_read_unlock_reader(ringtrace_rcu_reader_t r)
{
	urcu_assert(_CMM_LOAD_SHARED(r->ctr) & URCU_BP_GP_CTR_NEST_MASK);
	/* Orders the section's loads before the store below, for the
	 * compiler: urcu_bp_smp_mb_slave() where liburcu uses membarrier()
	 * (the caller's slow word was 0). The processor's side pairs with
	 * the grace period's last membarrier(): the section's loads are
	 * done before the grace period that sees the store ends. */
	cmm_barrier();
#if defined(__x86_64__)
	/* The counter minus one nesting count, in one instruction: the
	 * load, the subtraction and the store, which liburcu's volatile
	 * accesses keep apart; the same value stored (a signal handler's
	 * balanced section comes before or after it, as between liburcu's
	 * load and store), one aligned 8-byte store as the grace period
	 * reads it. */
	__asm__ __volatile__("subq %1, %0"
			     : "+m"(r->ctr)
			     : "i"(URCU_BP_GP_COUNT));
#else
	_CMM_STORE_SHARED(r->ctr,
			  _CMM_LOAD_SHARED(r->ctr) - URCU_BP_GP_COUNT);
#endif
	/* (what the program does next follows the section) */
	cmm_barrier();
}

#ifdef __cplusplus
}
#endif

#endif /* _LGPL_SOURCE && !__SANITIZE_ADDRESS__ */

#endif /* RINGTRACE_RCU_READ_H */
