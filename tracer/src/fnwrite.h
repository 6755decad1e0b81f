/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fnwrite.h - the write of the function tracers' records, shared by
 * trace.c (the general path: every record of the tracer, nesting, pid
 * lists, the funcgraph-args records) and tracer/function/fnfast.c (the
 * function tracers' fast paths, which must not touch a vector register:
 * see there). Everything here is inline; the general paths of the
 * function tracers' records (trace.c) are declared at the end.
 */
#ifndef RINGTRACE_FNWRITE_H
#define RINGTRACE_FNWRITE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <ringbuf/frontend.h>

#include "ftrace.h"
#include "rcu.h"
#include "trace.h"

/*
 * The record's header, built in a register and stored at once (the
 * entry is 8 bytes): the type, the flags and depth of the writing
 * context, the thread's id.
 */
static inline __attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_fill_entry(struct ringtrace_entry *ent, uint16_t type, int depth)
{
	struct ringtrace_entry h;

	h.type = type;
	h.flags = 0;
	h.preempt_count = 0;
	/* (a thread's own write, the common case: flags and depth 0) */
	if (__builtin_expect(depth != 0 || rt_cur.irq != 0, 0)) {
		h.flags = (depth > 0 || rt_cur.irq > 0) ? RINGTRACE_FLAG_HARDIRQ
							: 0;
		h.preempt_count = (uint8_t)(depth > 15 ? 15 : depth);
	}
	h.pid = rt_gettid();
	memcpy(ent, &h, sizeof(h));
}

/*
 * The instance's buffer inside a read-side section: one load. Pairs with
 * the release store of rt_inst_rb_set(), which publishes a buffer only
 * once it is initialised; a buffer replaced or an instance destroyed is
 * freed after a grace period, so it stays valid until the section ends.
 */
static inline __attribute__((no_instrument_function)) struct ringbuf *
rt_inst_rb(int i)
{
	return atomic_load_explicit(&rt_inst_rbs[i], memory_order_acquire);
}

/* The header of a thread's own record at the outermost level: flags and
 * depth 0. Two stores: the type's half is a constant where this is
 * inlined, and the id goes straight from the thread's state into the
 * record (not shifted into one word with it). */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_fill_entry_outer(struct ringtrace_entry *ent, uint16_t type, int pid)
{
	struct ringtrace_entry h = { .type = type };

	memcpy(ent, &h, offsetof(struct ringtrace_entry, pid));
	memcpy(&ent->pid, &pid, sizeof(pid));
}

/*
 * One record of a built-in write into the buffer @rb (NULL: none, an
 * instance's empty slot), inside the writer's read-side section: a
 * record of @type and @size reserved (stamped @ts, see
 * rt_write_builtin_inline()), its header filled for a write at nesting
 * @depth, or with @outer_pid not NULL for the thread's own write at the
 * outermost level (flags and depth 0, the thread's id *@outer_pid, read
 * once the record is reserved: no register kept for it across the
 * reservation), its payload by @fill, committed. Return: whether the
 * record was written.
 */
static inline __attribute__((always_inline, no_instrument_function)) bool
rt_write_rb(struct ringbuf *rb, uint16_t type, size_t size,
	    void (*fill)(void *rec, const void *arg), const void *arg,
	    uint64_t ts, int depth, const int *outer_pid)
{
	struct ringbuf_event *e;
	void *rec;
	int err;

	if (!rb)
		return false;
	e = ringbuf_fe_reserve_ts(rb, size, ts, &err);
	if (!e)
		return false;
	rec = ringbuf_event_data_inline(e);
	if (outer_pid)
		rt_fill_entry_outer(rec, type, *outer_pid);
	else
		rt_fill_entry(rec, type, depth);
	fill(rec, arg);
	ringbuf_commit_inline(rb);
	return true;
}

/* rt_write_rb() into the buffer of instance @i (rt_inst_rb()). */
static inline __attribute__((always_inline, no_instrument_function)) bool
rt_write_instance(int i, uint16_t type, size_t size,
		  void (*fill)(void *rec, const void *arg), const void *arg,
		  uint64_t ts, int depth, const int *outer_pid)
{
	return rt_write_rb(rt_inst_rb(i), type, size, fill, arg, ts, depth,
			   outer_pid);
}

/* rt_write_instance() into each instance of @mask. Return: the records
 * written. */
static inline __attribute__((always_inline, no_instrument_function)) int
rt_write_instances(uint64_t mask, uint16_t type, size_t size,
		   void (*fill)(void *rec, const void *arg), const void *arg,
		   uint64_t ts, int depth, const int *outer_pid)
{
	int written = 0;

	while (mask) {
		int i = __builtin_ctzll(mask);

		mask &= mask - 1;
		written += rt_write_instance(i, type, size, fill, arg, ts, depth,
					     outer_pid);
	}
	return written;
}

/*
 * The same for the function tracers' fast paths: the one instance of
 * @mask inline and straight (the common case: one instance traces), a
 * loop for more. The thread's own write at the outermost level, its id
 * at @pid.
 */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_write_instances_outer(uint64_t mask, uint16_t type, size_t size,
			 void (*fill)(void *rec, const void *arg),
			 const void *arg, uint64_t ts, const int *pid)
{
	/* (the callers' rt_fn_fast() found the thread's id known; the
	 * general header's fill, which may ask the kernel, is left out) */
	if (__builtin_expect(!(mask & (mask - 1)), 1))
		rt_write_instance(__builtin_ctzll(mask), type, size, fill, arg,
				  ts, 0, pid);
	else
		rt_write_instances(mask, type, size, fill, arg, ts, 0, pid);
}

/* The function tracer's payload (ip, parent_ip) from @arg (struct
 * rt_fn_arg). */
static inline __attribute__((always_inline, no_instrument_function))
RINGTRACE_RECORD_ACCESS void
rt_fill_fn_inline(void *rec, const void *arg)
{
	struct rt_fn_entry *e = rec;
	const struct rt_fn_arg *a = arg;

	e->ip = a->a;
	e->parent_ip = a->b;
}

static inline __attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_fill_graph_ent(void *rec, const void *arg)
{
	struct rt_graph_ent_entry *e = rec;
	const struct rt_fn_arg *a = arg;

	e->func = a->a;
	e->depth = a->depth;
}

/* funcgraph-args: the entry and the argument registers after it. */
static inline __attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_fill_graph_ent_args(void *rec, const void *arg)
{
	const struct rt_fn_arg *a = arg;

	rt_fill_graph_ent(rec, arg);
	/* the array is only 4-byte aligned in the packed record */
	memcpy((char *)rec + sizeof(struct rt_graph_ent_entry), a->args,
	       RT_GRAPH_NR_ARGS * sizeof(unsigned long));
}

/*
 * A call's exit (entries.h): fgraph_retval_exit, or funcgraph_exit when
 * @arg's overrun has RT_GRAPH_NO_RETVAL (a constant where the fast path
 * inlines it). One code for both: the return value is stored at its
 * place, then the fields after it, which are the same in both and 8
 * bytes lower without it (over the return value then).
 */
static inline __attribute__((always_inline, no_instrument_function))
RINGTRACE_RECORD_ACCESS void
rt_fill_graph_exit(void *rec, const void *arg)
{
	const struct rt_fn_arg *a = arg;
	const size_t tail = offsetof(struct rt_graph_exit_entry, depth);
	char *at = (char *)rec + (a->overrun & RT_GRAPH_NO_RETVAL ?
					  tail :
					  offsetof(struct rt_graph_ret_entry,
						   depth));
	int32_t depth = a->depth;
	uint32_t overrun = a->overrun & ~RT_GRAPH_NO_RETVAL;

	_Static_assert(sizeof(struct rt_graph_ret_entry) -
				       offsetof(struct rt_graph_ret_entry,
						depth) ==
			       sizeof(struct rt_graph_exit_entry) - tail,
		       "the exits' fields after the return value differ");
	/*
	 * Each field from its own value straight into the record: a copy of
	 * the tail through a struct on the stack stored depth and overrun 4
	 * bytes each and loaded them back 8 at a time, a load the processor
	 * cannot forward from the two stores (a stall of a dozen cycles on
	 * every call's exit, the largest single cost of the exit's write).
	 */
#define RT_EXIT_AT(field)                                                     \
	(at + offsetof(struct rt_graph_exit_entry, field) - tail)
	memcpy((char *)rec + offsetof(struct rt_graph_exit_entry, func), &a->a,
	       sizeof(a->a));
	memcpy((char *)rec + offsetof(struct rt_graph_ret_entry, retval),
	       &a->retval, sizeof(a->retval));
	memcpy(RT_EXIT_AT(depth), &depth, sizeof(depth));
	memcpy(RT_EXIT_AT(overrun), &overrun, sizeof(overrun));
	memcpy(RT_EXIT_AT(calltime), &a->t0, sizeof(a->t0));
	memcpy(RT_EXIT_AT(rettime), &a->t1, sizeof(a->t1));
#undef RT_EXIT_AT
}

/* The library's own word, declared so in every file that writes the
 * exit inline (tracer/function's too): one load, not an address from the
 * GOT first. Those of rt_graph_mask with funcgraph-retval (trace.h). */
extern _Atomic uint64_t rt_graph_retval_mask
	__attribute__((visibility("hidden")));

/*
 * The instances of @mask whose exit record for @a carries the return
 * value (funcgraph-retval on; not a call whose hook had none). Relaxed:
 * as rt_graph_mask (a stale mask writes one exit in the other layout,
 * both of them whole records).
 */
static inline __attribute__((always_inline, no_instrument_function)) uint64_t
rt_graph_retval_instances(uint64_t mask, const struct rt_fn_arg *a)
{
	if (a->overrun & RT_GRAPH_NO_RETVAL)
		return 0;
	return mask & atomic_load_explicit(&rt_graph_retval_mask,
					   memory_order_relaxed);
}

/*
 * One record per traced call (function) or two (function_graph), so the
 * function tracers' writes have a path of their own. The common case is
 * tested once, up front: a thread writing at the outermost level (no
 * record of its own under way, no ringtrace_irq_enter()), its id and name
 * already known, liburcu's grace periods on membarrier(), no instance of
 * @mask with a set_ftrace_pid list: two words of the thread (@depth and
 * rt_thread.slow, which stands for the rest: the read-side section that
 * follows leaves liburcu's membarrier test out, rt_rcu_read_lock_reader())
 * and the global list mask (with @also, more instances whose
 * records the caller writes another way); @refuse not 0 refuses too (a
 * test of the caller's own, made in the same branch). There the header is the same word for
 * every record of the thread, the nesting count goes from 0 to 1 and
 * back, and the payload is stored straight into each reservation. Any
 * other case goes through rt_write_builtin_inline() (the records are the
 * same either way), whose end recomputes rt_thread.slow
 * (rt_thread_slow_update()). function_graph's writes test it
 * (rt_graph_write()); the function tracer's tests the same in two words
 * (rt_fn_write()).
 */
static inline __attribute__((always_inline, no_instrument_function)) bool
rt_fn_fast(const struct rt_thread *cur, uint64_t mask, uint64_t also,
	   unsigned int refuse)
{
	/* Relaxed: as in rt_write_builtin_inline(). */
	uint64_t pids = atomic_load_explicit(&rt_ftrace_pid_mask,
					     memory_order_relaxed);

	return __builtin_expect(
		!((uint64_t)((unsigned int)cur->depth | cur->slow | refuse) |
		  (mask & (pids | also))),
		1);
}

/*
 * trace.c: the general paths of the function tracers' records (any case
 * rt_fn_fast() refuses), which keep the traced function's errno.
 * fnfast.c calls them through its vector-register-saving thunks.
 */
void rt_fn_write_slow(uint64_t mask, unsigned long ip, unsigned long parent_ip);
void rt_fn_write_args(uint64_t mask, uint64_t args_mask, unsigned long ip,
		      unsigned long parent_ip, const unsigned long *args);
void rt_graph_write_slow(uint64_t mask, uint16_t type,
			 const struct rt_fn_arg *a);
void rt_graph_write_args(uint64_t mask, uint64_t args_mask,
			 const struct rt_fn_arg *a);

/* The library's own word (ftrace.h), declared so in every file that
 * inlines the function tracer's write: one load, not an address from the
 * GOT first. */
extern struct ringbuf *_Atomic rt_fn_fast_rb
	__attribute__((visibility("hidden")));

/*
 * The function tracer's general path, for everything its fast path
 * leaves (rt_fn_write()): the words one by one.
 */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_fn_write_general(unsigned long ip, unsigned long parent_ip,
		    const unsigned long *args, bool test_stop)
{
	/* Relaxed: each bit is checked again through rt_inst_rbs[]. */
	uint64_t mask = atomic_load_explicit(&rt_fn_mask, memory_order_relaxed);
	/* Relaxed: as rt_fn_mask. */
	uint64_t am = atomic_load_explicit(&rt_fn_args_mask,
					   memory_order_relaxed);

	/* (a site patched for a tracer that is going away) */
	if (!mask)
		return;
	/* Relaxed: as the hooks of function.c test it; a write already past
	 * the test finishes its record. */
	if (test_stop &&
	    atomic_load_explicit(&rt_function_trace_stop, memory_order_relaxed))
		return;
	if (args && (mask & am))
		rt_fn_write_args(mask, mask & am, ip, parent_ip, args);
	else
		rt_fn_write_slow(mask, ip, parent_ip);
}

/*
 * The function tracer's record, into every instance of rt_fn_mask: the
 * fast path with the payload stored inline, the rest out of line
 * (rt_fn_write_general()). The body of rt_ftrace_function_event()
 * (fnfast.c) and of the function tracer's trampoline's C half,
 * ftrace_func_entry() (fgraph_fast.c), which has the stop switch tested
 * here (@test_stop): its callers test it before.
 *
 * The fast path is the common case of rt_fn_fast() in two words: the
 * thread's (@depth and rt_thread.slow, which stands for the rest: the
 * read-side section that follows leaves liburcu's membarrier test out,
 * rt_rcu_read_lock_reader()) before the section, and inside it the
 * process's refuse word, rt_fn_fast_rb, which stands for everything
 * else the record depends on: the function tracer on in one instance
 * only, and there neither func-args nor a set_ftrace_pid list, and the
 * stop switch clear (rt_fn_fast_update()). The word is the instance's
 * buffer itself: no mask is loaded, counted or tested on the way, nor
 * the buffer looked up. A word that refuses leaves the section and goes
 * through the general path with the words tested one by one, as in
 * rt_fn_fast() (the records are the same either way).
 *
 * Userspace: the kernel's function_trace_call() takes a recursion bit
 * first; here the write's own nesting count is that bit (the fast path
 * wants it 0 and the write holds it at 1): a signal handler that calls a
 * traced function during the write takes the general path, which writes
 * a nested record, and nothing the write calls is traced.
 */
static inline __attribute__((always_inline, no_instrument_function))
RINGTRACE_RECORD_ACCESS void
rt_fn_write(unsigned long ip, unsigned long parent_ip,
	    const unsigned long *args, bool test_stop)
{
	/* the payload is built where it is written: the slow paths get the
	 * words, so the fast path need not keep it in memory */
	struct rt_fn_arg a;
	struct rt_thread *cur = &rt_cur;
	rt_rcu_reader_t rcu;
	struct ringbuf *rb;

	/* the thread's state through one address, not one TLS offset load
	 * per field (the compiler reloads it from the GOT each time) */
	__asm__("" : "+r"(cur));
	if (__builtin_expect((unsigned int)cur->depth | cur->slow, 0)) {
		rt_fn_write_general(ip, parent_ip, args, test_stop);
		return;
	}
	cur->depth = 1;
	rcu = rt_rcu_read_lock_reader();
	/*
	 * A change of the words it stands for recomputes the word after
	 * storing them; a write that loads it before the new value is seen
	 * writes the one record the new words would refuse (a record without
	 * its arguments, of a thread the pid list leaves out, after the stop
	 * switch, in one instance of two, or of an instance whose tracer
	 * changed: as a stale rt_fn_mask writes one record too many or too
	 * few), or refuses one they would let through, which the general
	 * path writes. A thread that synchronises with the change's return
	 * (a lock, a join, a barrier) sees the new word.
	 * Acquire: pairs with the release store of rt_fn_fast_update(),
	 * which publishes a buffer it saw published in rt_inst_rbs[]; loaded
	 * inside the section, as rt_inst_rb(): a buffer that leaves
	 * rt_inst_rbs[] leaves the word before the grace period that retires
	 * it.
	 */
	rb = atomic_load_explicit(&rt_fn_fast_rb, memory_order_acquire);
	if (__builtin_expect(!rb, 0)) {
		rt_rcu_read_unlock_reader(rcu);
		cur->depth = 0;
		rt_fn_write_general(ip, parent_ip, args, test_stop);
		return;
	}
	a = (struct rt_fn_arg){ .a = ip, .b = parent_ip };
	rt_write_rb(rb, RT_TYPE_FN, sizeof(struct rt_fn_entry),
		    rt_fill_fn_inline, &a, 0, 0, &cur->pid);
	rt_rcu_read_unlock_reader(rcu);
	cur->depth = 0;
}

/*
 * One graph record of @type (RT_TYPE_GRAPH_ENT or RT_TYPE_GRAPH_RET, a
 * constant where it is inlined) with the payload @pay, stamped @ts, into
 * every instance of rt_graph_mask; an exit (RT_TYPE_GRAPH_RET) is
 * written as fgraph_retval_exit where the instance has funcgraph-retval
 * (by the general path, rt_graph_write_slow()).
 * The payload is handed over by value and copied where it goes: the fast
 * path keeps it in registers (its fill functions are inlined), only the
 * general paths get it in memory. With @test_stop (a constant where it is
 * inlined) the stop switch is tested here, in the fast path's one branch,
 * as rt_fn_write() tests it: for a caller that has not tested it before
 * (the return trampoline's C half, fgraph_fast.c).
 */
static inline __attribute__((always_inline, no_instrument_function))
RINGTRACE_RECORD_ACCESS void
rt_graph_write(uint16_t type, const struct rt_fn_arg pay, uint64_t ts,
	       bool test_stop)
{
	/* Relaxed: each bit is checked again through rt_inst_rbs[]. */
	uint64_t mask =
		atomic_load_explicit(&rt_graph_mask, memory_order_relaxed);
	struct rt_thread *cur = &rt_cur;
	struct rt_fn_arg p = pay;
	rt_rcu_reader_t rcu;
	unsigned int stop = 0;
	uint64_t am = 0;

	if (!mask)
		return;
	/* the thread's state through one address (as in
	 * rt_ftrace_function_event()) */
	__asm__("" : "+r"(cur));
	/* Relaxed: as rt_graph_mask. The instances with funcgraph-args
	 * take the general path, tested with the rest (rt_fn_fast()), and
	 * so do the exits of those with funcgraph-retval: the fast path
	 * writes the records of the default options alone, each of one
	 * size known here. */
	if (type == RT_TYPE_GRAPH_ENT && pay.args)
		am = atomic_load_explicit(&rt_graph_args_mask,
					  memory_order_relaxed);
	if (type == RT_TYPE_GRAPH_RET)
		am = rt_graph_retval_instances(mask, &pay);
	/* Relaxed: as in rt_fn_write(). */
	if (test_stop)
		stop = (unsigned int)atomic_load_explicit(&rt_function_trace_stop,
							  memory_order_relaxed);
	if (!rt_fn_fast(cur, mask, am, stop)) {
		struct rt_fn_arg a = pay;

		if (stop)
			return;
		if (type == RT_TYPE_GRAPH_ENT && (mask & am))
			rt_graph_write_args(mask, mask & am, &a);
		else
			rt_graph_write_slow(mask, type, &a);
		return;
	}
	cur->depth = 1;
	rcu = rt_rcu_read_lock_reader();
	if (type == RT_TYPE_GRAPH_ENT) {
		rt_write_instances_outer(mask, type,
					 sizeof(struct rt_graph_ent_entry),
					 rt_fill_graph_ent, &p, ts, &cur->pid);
	} else {
		/* funcgraph_exit (rt_fill_graph_exit()) */
		p.overrun |= RT_GRAPH_NO_RETVAL;
		rt_write_instances_outer(mask, type,
					 sizeof(struct rt_graph_exit_entry),
					 rt_fill_graph_exit, &p, ts, &cur->pid);
	}
	rt_rcu_read_unlock_reader(rcu);
	cur->depth = 0;
}

/* The graph's entry record (rt_ftrace_graph_entry_event()), inline. */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_graph_write_entry(unsigned long func, int depth, uint64_t calltime,
		     const unsigned long *args)
{
	rt_graph_write(RT_TYPE_GRAPH_ENT,
		       (struct rt_fn_arg){ .a = func,
					   .depth = depth,
					   .t0 = calltime,
					   .args = args },
		       calltime, false);
}

/* The graph's exit record, inline: rt_ftrace_graph_return_event()'s
 * (@test_stop false), or with the stop switch tested in the write
 * (rt_graph_write()). */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_graph_write_exit(unsigned long func, int depth, uint64_t calltime,
		    uint64_t rettime, unsigned int overrun,
		    unsigned long retval, bool test_stop)
{
	rt_graph_write(RT_TYPE_GRAPH_RET,
		       (struct rt_fn_arg){ .a = func,
					   .depth = depth,
					   .overrun = overrun,
					   .t0 = calltime,
					   .t1 = rettime,
					   .retval = retval },
		       rettime, test_stop);
}

/* The graph's exit record (rt_ftrace_graph_return_event()), inline. */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_graph_write_return(unsigned long func, int depth, uint64_t calltime,
		      uint64_t rettime, unsigned int overrun,
		      unsigned long retval)
{
	rt_graph_write_exit(func, depth, calltime, rettime, overrun, retval,
			    false);
}

/*
 * A call's entry and exit in one reservation, the pair of a call that
 * called nothing traced (its entry held back, fgraph_fast.c): the two
 * records rt_graph_write_entry() (no argument registers) and
 * rt_graph_write_exit() (@test_stop true) would write, the entry
 * stamped @calltime (or the buffer's last stamp, if later:
 * ringbuf_reserve_pair_inline()), the exit @rettime. The fast path is
 * rt_graph_write()'s, for one instance; anything else writes the two
 * records one after the other by the general path, as
 * rt_graph_write() would. The stop switch drops both, as it drops the
 * exit.
 */
static inline __attribute__((always_inline, no_instrument_function))
RINGTRACE_RECORD_ACCESS void
rt_graph_write_pair(unsigned long func, int depth, uint64_t calltime,
		    uint64_t rettime, unsigned int overrun,
		    unsigned long retval)
{
	/* Relaxed: as in rt_graph_write(). */
	uint64_t mask =
		atomic_load_explicit(&rt_graph_mask, memory_order_relaxed);
	struct rt_thread *cur = &rt_cur;
	struct ringbuf_event *e, *e2;
	rt_rcu_reader_t rcu;
	struct ringbuf *rb;
	unsigned int stop;
	uint64_t rv;
	int err;

	_Static_assert(sizeof(struct rt_graph_ent_entry) +
				       sizeof(struct rt_graph_exit_entry) +
				       2 * RINGBUF_EVENT_HDR_SIZE <=
			       RINGBUF_MAX_SMALL_DATA,
		       "a call's entry and exit fit one small record");
	if (!mask)
		return;
	/* the thread's state through one address (as in rt_graph_write()) */
	__asm__("" : "+r"(cur));
	/* Relaxed: as in rt_fn_write(). */
	stop = (unsigned int)atomic_load_explicit(&rt_function_trace_stop,
						  memory_order_relaxed);
	rv = rt_graph_retval_instances(mask,
				       &(struct rt_fn_arg){ .overrun = overrun });
	/* (more than one instance: refused with the rest) */
	if (!rt_fn_fast(cur, mask, rv, stop | ((mask & (mask - 1)) != 0))) {
		/* the payloads in memory for the general path only */
		struct rt_fn_arg n = { .a = func, .depth = depth,
				       .t0 = calltime };
		struct rt_fn_arg x = { .a = func,
				       .depth = depth,
				       .overrun = overrun,
				       .t0 = calltime,
				       .t1 = rettime,
				       .retval = retval };

		if (stop)
			return;
		rt_graph_write_slow(mask, RT_TYPE_GRAPH_ENT, &n);
		rt_graph_write_slow(mask, RT_TYPE_GRAPH_RET, &x);
		return;
	}
	cur->depth = 1;
	rcu = rt_rcu_read_lock_reader();
	rb = rt_inst_rb(__builtin_ctzll(mask));
	if (rb) {
		e = ringbuf_reserve_pair_inline(
			rb, sizeof(struct rt_graph_ent_entry),
			sizeof(struct rt_graph_exit_entry), calltime, rettime,
			&e2, &err);
		if (e) {
			/* built where they are written, as in
			 * rt_graph_write() (the fills are inlined) */
			struct rt_fn_arg p = { .a = func,
					       .depth = depth,
					       .overrun = overrun |
							  RT_GRAPH_NO_RETVAL,
					       .t0 = calltime,
					       .t1 = rettime };
			/* (a pair's records are small: the payload at
			 * array[0], ringbuf_reserve_pair_inline()) */
			void *rec = e->array;

			rt_fill_entry_outer(rec, RT_TYPE_GRAPH_ENT, cur->pid);
			rt_fill_graph_ent(rec, &p);
			rec = e2->array;
			rt_fill_entry_outer(rec, RT_TYPE_GRAPH_RET, cur->pid);
			/* funcgraph_exit (rt_fill_graph_exit()) */
			rt_fill_graph_exit(rec, &p);
			ringbuf_commit_pair_inline(rb);
		}
	}
	rt_rcu_read_unlock_reader(rcu);
	cur->depth = 0;
}

#endif /* RINGTRACE_FNWRITE_H */
