/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/rcu_read.h - the tracer's read-side section with the thread's
 * reader record loaded once
 *
 * The tracer's RCU is liburcu's urcu-bp flavour. Its inline read side
 * (<urcu-bp.h> under _LGPL_SOURCE) loads the thread's reader record from
 * TLS twice at the start of a section and again at its end (its compiler
 * barriers make every load a new one). The two functions below are the
 * same section with the record loaded once and handed from one end to
 * the other: the fast paths of the library's function tracers
 * (ringtrace_rcu_read_lock_reader() behind rt_rcu_read_lock_reader() of
 * the library's rcu.h) and the inline trace point write
 * (<ringtrace/inline_write.h>) both run them.
 *
 * The protocol is liburcu's, unchanged: the thread registers at its first
 * section; the record's counter takes the grace-period counter at the
 * outermost level and one more nesting count inside another section;
 * urcu_bp_smp_mb_slave() after the first store and before the last
 * (a compiler barrier where liburcu's grace period orders the readers
 * with membarrier(), a full fence where it does not), which are the
 * orderings urcu_bp_synchronize_rcu() pairs with; compiler barriers at
 * the two ends, as liburcu's. The record of a registered thread stays
 * the same until the thread exits, so a section that began with it ends
 * with it. The functions use liburcu's inline read side's own names
 * and are defined only where that is inline: under _LGPL_SOURCE, which
 * the includer defines to take liburcu's static inline code on its
 * terms, and not in an AddressSanitizer build (liburcu 0.13 places its
 * reader records off their declared alignment, which UBSan reports);
 * RINGTRACE_RCU_READER_INLINE says they are. Elsewhere the section is
 * the library's or liburcu's calls.
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
 * sections allowed), as urcu_bp_read_lock() does.
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
		/* orders the store above before the section's loads; pairs
		 * with the grace period's membarrier() or full fence */
		urcu_bp_smp_mb_slave();
	} else {
		_CMM_STORE_SHARED(r->ctr, ctr + URCU_BP_GP_COUNT);
	}
	return r;
}

/*
 * ringtrace_rcu_read_unlock_reader - leave the section that
 * ringtrace_rcu_read_lock_reader() entered and gave @r for, as
 * urcu_bp_read_unlock() does.
 */
static inline __attribute__((always_inline, no_instrument_function)) void
ringtrace_rcu_read_unlock_reader(ringtrace_rcu_reader_t r)
{
	unsigned long ctr = r->ctr;

	urcu_assert(ctr & URCU_BP_GP_CTR_NEST_MASK);
	/* orders the section's loads before the store below; pairs with
	 * the grace period's membarrier() or full fence */
	urcu_bp_smp_mb_slave();
	_CMM_STORE_SHARED(r->ctr, ctr - URCU_BP_GP_COUNT);
	/* (what the program does next follows the section) */
	cmm_barrier();
}

#ifdef __cplusplus
}
#endif

#endif /* _LGPL_SOURCE && !__SANITIZE_ADDRESS__ */

#endif /* RINGTRACE_RCU_READ_H */
