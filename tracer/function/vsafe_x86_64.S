/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vsafe_x86_64.S - the thunks of fnfast.c's ways out (vsafe.h): the ring
 * buffer's slow paths, liburcu's registration, the general paths of the
 * records (trace.c), each called with xmm0-7 kept
 */
#include "vsafe.h"

	.text

#ifdef RT_FN_VECTOR_FREE
	VSAFE ringbuf_fe_reserve_slow
	VSAFE ringbuf_fe_claim_active_slow
	VSAFE ringbuf_fe_claim_slot_slow
	VSAFE ringbuf_fe_reserve_rare
	VSAFE ringbuf_fe_reserve_next_slow_ts
	VSAFE ringbuf_fe_move_tail_ts
	VSAFE ringbuf_fe_reserve_interrupted
	VSAFE ringbuf_fe_reserve_slow_ts
	VSAFE ringbuf_fe_reserve_rare_ts
	VSAFE ringbuf_fe_reserve_interrupted_ts
	VSAFE ringbuf_fe_end_commit_slow
	VSAFE ringbuf_fe_wake_waiters
	VSAFE ringbuf_fe_pair_dropped
	VSAFE ringbuf_clock_mono_slow
	VSAFE ringbuf_time_stamp
	VSAFE urcu_bp_register
	VSAFE rt_fn_write_slow
	VSAFE rt_fn_write_args
	VSAFE rt_graph_write_slow
	VSAFE rt_graph_write_args
#endif

	.section .note.GNU-stack, "", @progbits
