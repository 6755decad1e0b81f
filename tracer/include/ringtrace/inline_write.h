/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/inline_write.h - the write of a fixed-size record compiled
 * into the program (the default; RINGTRACE_NO_INLINE_WRITE opts out)
 *
 * A file that includes its trace header with CREATE_TRACE_POINTS gets,
 * in the generated write function of every event whose record has a
 * fixed size (a size the compiler folds: -O1 and up), the common case
 * of ringtrace_write_record() inline: the event enabled in one instance,
 * the thread's own write at the outermost level, no filter and nothing
 * armed for the event there. The record is then reserved with the ring
 * buffer's inline reserve (<ringbuf/frontend.h>), assigned in place and
 * committed inline; no call into libringtrace. The same write with a
 * filter or something armed there (a trigger, a pid list, the event
 * soft-disabled) stays in its read-side section and calls
 * ringtrace_write_armed(), which reserves where the kernel's
 * trace_event_buffer_reserve() would; the record is assigned there and
 * ringtrace_write_commit_next() runs the filter and the triggers around
 * its commit. An instance armed by plain hist triggers alone (the
 * event's hist_mask bit: no filter, no action, nothing else armed) is
 * written in place by the program as in the common case (its armed
 * branch, ringtrace_inline_hist()), and ringtrace_write_hist() counts
 * the record in the tables before its commit. Every other case calls
 * ringtrace_write_record(). The program links libringbuf as well as
 * libringtrace (`pkg-config --libs ringtrace` gives both, and so does
 * the installed libringtrace.so, a linker script).
 *
 * The inline code reads the library's state through the "view"
 * structures below, laid out like the library's own (trace.c checks every
 * offset at build time). The layout, and the calls the inline write makes,
 * are ABI: the generated registration refers to ringtrace_inline_layout_7,
 * and a change of either adds a symbol of the next number, so a program
 * built against a newer one fails to load instead of misreading; the
 * library keeps the older ones, whose programs keep working (layout 2:
 * the same views, every filtered or armed write left to
 * ringtrace_write_record(); layout 3: such a write assigned in place
 * through ringtrace_write_armed(), inside the inline write's section;
 * layout 4: the thread view's slow word tested with its depth, one word
 * for the irq nesting, the name saved and the id known; layout 5: the
 * event's slow_mask bit set for a filter too, tested without filter[];
 * layout 6: the event view's hist_mask, and ringtrace_write_hist();
 * layout 7: the thread's slow word 0 also says that liburcu's grace
 * periods use membarrier(), and the inline section leaves liburcu's
 * test of that out).
 * The structures are no interface; use the generated code only.
 *
 * The write runs inside a read-side section of the library's RCU,
 * liburcu's urcu-bp flavour. Its read side is liburcu's static inline
 * code (<urcu-bp.h> under _LGPL_SOURCE), which liburcu licenses to
 * LGPL-compatible code only: this header inlines it where the includer
 * says so by defining _LGPL_SOURCE, as liburcu asks, and the file is not
 * compiled for a shared object (-fPIC without -fPIE: there liburcu's
 * thread-local reader pointer would take a __tls_get_addr() call per
 * access); the section loads the thread's reader record once and does
 * not test liburcu's membarrier flag, which the thread's slow word
 * covers (<ringtrace/rcu_read.h>, the library's function tracers' section
 * too), liburcu's protocol otherwise unchanged. Everywhere else the section is two calls into libringtrace
 * (ringtrace_rcu_read_lock(), ringtrace_rcu_read_unlock()), whose
 * read side is inline with initial-exec TLS. The program that inlines it
 * links liburcu-bp too (`pkg-config --libs ringtrace` and the installed
 * libringtrace.so give it).
 */
#ifndef RINGTRACE_INLINE_WRITE_H
#define RINGTRACE_INLINE_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ringbuf/frontend.h>
#include <ringtrace/event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* View of the first fields of the library's per-thread write state
 * (struct rt_thread). */
struct ringtrace_thread_view {
	int pid;	/* the id the thread's records carry; 0 until known */
	int depth;	/* records of this thread being written */
	int irq;	/* ringtrace_irq_enter() nesting */
	bool comm_saved; /* the thread's name is in the cmdline table */
	/* (layout 4) 0 exactly when irq is 0, comm_saved set and pid
	 * known: the three in one word, kept by the library; (layout 7)
	 * and liburcu's grace periods use membarrier(); and no
	 * function_graph entry held back (a bit of its own, which only
	 * makes the word nonzero more often: the inline code's test, and
	 * so this layout, are unchanged) */
	unsigned int slow;
};

/* View of the first fields of an event's registry state (struct
 * rt_event_priv). */
struct ringtrace_event_view {
	uint16_t id;		/* common_type */
	/* bit N: instance N takes the slow path (layout 5: a filter there
	 * sets it too) */
	uint64_t slow_mask;
	const void *filter[64];	/* per instance, its filter or NULL */
	/* (layout 6) bit N, with N's slow_mask bit: instance N is armed by
	 * plain hist triggers alone, the record written as in the common
	 * case and counted by ringtrace_write_hist() */
	uint64_t hist_mask;
};

/* The library's read-side section out of line (urcu-bp's, inline there
 * with initial-exec TLS). */
RINGTRACE_API void ringtrace_rcu_read_lock(void);
RINGTRACE_API void ringtrace_rcu_read_unlock(void);
/* (layout 6) Count the record @rec of @size bytes of the event whose
 * state is @p, assigned in instance @i's buffer and not yet committed,
 * in the hist tables of its triggers there; inside the write's section
 * (the event's hist_mask bit @i seen set). */
RINGTRACE_API void ringtrace_write_hist(const struct ringtrace_event_view *p,
					int i, const void *rec, size_t size);

/* The library's sources see the views only, for their offset checks. */
#ifndef RINGTRACE_BUILDING

/* The section inline under _LGPL_SOURCE (not in an AddressSanitizer
 * build, see <ringtrace/rcu_read.h>) outside shared objects, the
 * thread's reader record loaded once at its start; else the two calls. */
#include <ringtrace/rcu_read.h>
#if defined(RINGTRACE_RCU_READER_INLINE) && \
	(!defined(__PIC__) || defined(__PIE__))
typedef ringtrace_rcu_reader_t ringtrace_inline_rcu_t;
#define RINGTRACE_RCU_READ_LOCK() ringtrace_rcu_read_lock_reader()
#define RINGTRACE_RCU_READ_UNLOCK(r) ringtrace_rcu_read_unlock_reader(r)
#else
typedef int ringtrace_inline_rcu_t;
#define RINGTRACE_RCU_READ_LOCK() (ringtrace_rcu_read_lock(), 0)
#define RINGTRACE_RCU_READ_UNLOCK(r) ((void)(r), ringtrace_rcu_read_unlock())
#endif

/* As in <ringbuf/frontend.h>: no -Wtsan warning at the fence below. */
#ifdef RINGBUF_FE_TSAN_PRAGMA
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan"
#endif

RINGTRACE_API extern __thread struct ringtrace_thread_view ringtrace_thread
	__attribute__((tls_model("initial-exec")));
/* Each instance slot's live buffer, NULL while the slot is empty. */
RINGTRACE_API extern struct ringbuf *ringtrace_inst_rbs[64];
/* The layout of the views above (see the top of this file). */
RINGTRACE_API extern const int ringtrace_inline_layout_7;

/*
 * ringtrace_inline_end - leave what ringtrace_inline_begin() entered: the
 * read-side section (@r, the reader record it gave), then the thread's
 * depth.
 */
static inline __attribute__((always_inline, no_instrument_function)) void
ringtrace_inline_end(struct ringtrace_thread_view *t, ringtrace_inline_rcu_t r)
{
	RINGTRACE_RCU_READ_UNLOCK(r);
	t->depth = 0;
}

/*
 * ringtrace_inline_ready - the fast case's test for a write of @ev, with
 * loads only and outside any read-side section, so nothing of the
 * registry's state of the event (freed after a grace period): enabled in
 * one instance (its index in @i), the thread's own write at the
 * outermost level. ringtrace_inline_begin() tests the rest inside the
 * section.
 */
static inline __attribute__((always_inline, no_instrument_function)) bool
ringtrace_inline_ready(struct ringtrace_event *ev, int *i)
{
	const struct ringtrace_thread_view *t = &ringtrace_thread;
	/* Relaxed: the bit is checked again inside the section, and through
	 * ringtrace_inst_rbs[] (an acquire load) before anything of the
	 * instance is used, as in ringtrace_write_record(). */
	uint64_t mask = RINGTRACE_LOAD_RELAXED(&ev->enabled);

	/* (the thread: at the outermost level, outside ringtrace_irq_enter(),
	 * its name saved and its id known, liburcu on membarrier(), the
	 * last four in slow) */
	if (__builtin_expect(!mask || (mask & (mask - 1)) ||
				     (t->depth | t->slow),
			     0))
		return false;
	*i = __builtin_ctzll(mask);
	return true;
}

/*
 * ringtrace_inline_begin - enter the write of @ev in instance @i, which
 * ringtrace_inline_ready() found: the thread's depth 1, the read-side
 * section, then inside it the event's registry state (in *@pp, valid
 * until the section is left) and the instance's part of the test: no
 * filter and nothing armed there. The section's reader record goes to
 * *@rp, for ringtrace_inline_end().
 * Return: the buffer to reserve in (leave with ringtrace_inline_end());
 * or NULL with *@pp set, still inside the section, when the instance has
 * a filter or is armed (a trigger, a pid list, soft-disabled): the record
 * goes to ringtrace_inline_hist() or ringtrace_write_armed(), which
 * leaves the section; or NULL with *@pp NULL and the state as it was,
 * for ringtrace_write_record().
 */
static inline __attribute__((always_inline, no_instrument_function))
struct ringbuf *
ringtrace_inline_begin(struct ringtrace_event *ev,
		       struct ringtrace_thread_view *t, int i,
		       const struct ringtrace_event_view **pp,
		       ringtrace_inline_rcu_t *rp)
{
	const struct ringtrace_event_view *p;
	ringtrace_inline_rcu_t r;
	struct ringbuf *rb;

	t->depth = 1;
	/* (orders the depth before the section for the compiler: a signal
	 * handler that writes sees it) */
	r = RINGTRACE_RCU_READ_LOCK();
	*rp = r;
	/* Acquire: pairs with the library's release store that publishes
	 * the state once filled; unregistering clears it before its grace
	 * period, so the state seen here lives until the section ends. */
	p = (const struct ringtrace_event_view *)(const void *)__atomic_load_n(
		&ev->priv, __ATOMIC_ACQUIRE);
	/* Relaxed, as ringtrace_write_record() loads it inside its section:
	 * an event disabled before a grace period began is not written. */
	*pp = NULL;
	if (__builtin_expect(!p || !((RINGTRACE_LOAD_RELAXED(&ev->enabled) >>
				     i) & 1),
			     0)) {
		ringtrace_inline_end(t, r);
		return NULL;
	}
	/* Acquire: pairs with the release store of rt_inst_rb_set(), which
	 * publishes a buffer once it is initialised. */
	rb = __atomic_load_n(&ringtrace_inst_rbs[i], __ATOMIC_ACQUIRE);
	/* (layout 5) the slow bit covers a filter too. Relaxed, as in
	 * ringtrace_write_record(): a write racing with a change is kept or
	 * dropped as if it came just before; ringtrace_write_armed() loads
	 * the filter itself with an acquire. */
	if (__builtin_expect(rb && !((__atomic_load_n(&p->slow_mask,
						      __ATOMIC_RELAXED) >>
				       i) & 1),
			     1)) {
		*pp = p;
		return rb;
	}
	if (rb) {
		*pp = p; /* filtered or armed: ringtrace_write_armed() */
		return NULL;
	}
	ringtrace_inline_end(t, r);
	return NULL;
}

/*
 * ringtrace_inline_hist - (layout 6) in the section ringtrace_inline_begin()
 * entered for a write of @ev in instance @i that it found armed: whether
 * plain hist triggers alone arm it there (the event's hist_mask bit),
 * the record then written as in the common case and counted by
 * ringtrace_write_hist() before its commit. The event's state goes to
 * *@pp.
 * Return: the buffer to reserve in, or NULL for ringtrace_write_armed().
 */
static inline __attribute__((always_inline, no_instrument_function))
struct ringbuf *
ringtrace_inline_hist(struct ringtrace_event *ev, int i,
		      const struct ringtrace_event_view **pp)
{
	/* Acquire, as in ringtrace_inline_begin(): pairs with the
	 * library's release store that publishes the state (the same state:
	 * the section has not been left). */
	const struct ringtrace_event_view *p =
		(const struct ringtrace_event_view *)(const void *)
			__atomic_load_n(&ev->priv, __ATOMIC_ACQUIRE);

	*pp = p;
	/* Relaxed, as the slow bit: a write racing with a change is counted
	 * and kept as if it came just before; ringtrace_write_hist() loads
	 * the triggers with an acquire. */
	if (!((__atomic_load_n(&p->hist_mask, __ATOMIC_RELAXED) >> i) & 1))
		return NULL;
	/* Acquire: pairs with the release store of rt_inst_rb_set(), as in
	 * ringtrace_inline_begin() (a buffer replaced since is freed after a
	 * grace period; NULL: the library's path). */
	return __atomic_load_n(&ringtrace_inst_rbs[i], __ATOMIC_ACQUIRE);
}

/*
 * ringtrace_inline_header - fill the record of @size bytes at @rec, the
 * thread's own at the outermost level, of the event whose state
 * ringtrace_inline_begin() gave in @p: its header, and zeros in the rest
 * for the assignment to follow (padding carries no stack bytes). The
 * event's id and the thread's are loaded before the record is written:
 * no store to the record can then alias them, and the compiler drops the
 * zeros the assignment overwrites.
 */
static inline __attribute__((always_inline, no_instrument_function))
RINGTRACE_RECORD_ACCESS void
ringtrace_inline_header(void *rec, size_t size,
			const struct ringtrace_event_view *p,
			const struct ringtrace_thread_view *t)
{
	struct ringtrace_entry h;

	h.type = p->id;
	h.flags = 0;
	h.preempt_count = 0;
	h.pid = t->pid;
	__builtin_memset(rec, 0, size);
	__builtin_memcpy(rec, &h, sizeof(h));
}

#ifdef RINGBUF_FE_TSAN_PRAGMA
#pragma GCC diagnostic pop
#endif

#endif /* !RINGTRACE_BUILDING */

#ifdef __cplusplus
}
#endif

#endif /* RINGTRACE_INLINE_WRITE_H */
