/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hist.h - hist triggers (hist.c), as trigger.c and trace.c see them
 */
#ifndef RINGTRACE_HIST_H
#define RINGTRACE_HIST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace.h"
#include "tracing_map.h"

#define HIST_KEYS_MAX 3
#define HIST_VALS_MAX 3 /* hitcount included, as the kernel's */

struct rt_hist_data;

/* A numeric field of the record, as a plain table reads it */
struct hist_num {
	uint16_t offset;
	uint8_t size;
	bool is_signed;
};

/*
 * struct rt_hist_trig - a hist trigger (the hist part of a struct
 *	rt_trigger): its table (hist.c) and paused state
 * @plain: @d is plain (keys and values are numeric fields as they are,
 *	nothing else: no variable, reference or action): rt_hist_event()
 *	counts the record inline, from this block alone, compiled when the
 *	trigger is made (hist.c, hist_trig_compile())
 * @clearing: @d's flag, set while the table is cleared (writers keep
 *	out, see rt_hist_modify())
 * @n_keys, @n_vals, @keys, @vals: @d's, as struct hist_num (vals[0] is
 *	the hitcount)
 * @probe: @d's map, as its probe reads it
 */
struct rt_hist_trig {
	/* first: what the write path reads */
	_Atomic bool paused;
	bool plain;
	uint8_t n_keys, n_vals;
	struct hist_num keys[HIST_KEYS_MAX], vals[HIST_VALS_MAX];
	_Atomic bool *clearing;
	struct tracing_map_probe probe;
	struct rt_hist_data *d;
	bool pause, cont, clear; /* what the line asked for */
};

/*
 * rt_hist_parse - make the hist part of trigger @t of event @p in
 * instance @inst (where its $variables are looked for) from
 * @line, the line written to the trigger file (without a leading '!';
 * "hist:..." with an optional " if FILTER", which the caller compiles).
 * Called with the registry lock held.
 * Return: 0, or a negative errno with @err saying why: a hist error as
 * the kernel logs it, on three lines ("hist:SYS:EVENT: error: MESSAGE",
 * "  Command: LINE", the caret under the error), or a plain message.
 */
int rt_hist_parse(struct rt_event_priv *p, int inst, const char *line,
		  struct rt_trigger *t, char *err, size_t errlen);

/* Whether @a and @b are the same hist trigger (keys, values, sort, size,
 * name and filter), as the kernel's hist_trigger_match(). */
bool rt_hist_match(const struct rt_trigger *a, const struct rt_trigger *b);

/*
 * rt_hist_modify - @t asks for pause, cont or clear: apply it to @old,
 * the trigger it matches. Return: true when @t asked for one of them (it
 * is then not added).
 */
bool rt_hist_modify(struct rt_trigger *old, const struct rt_trigger *t);

/* Whether @t only modifies (pause, cont, clear) an existing trigger:
 * without one, an error (@err filled). */
bool rt_hist_modifier_only(const struct rt_trigger *t, struct rt_event_priv *p,
			   const char *line, char *err, size_t errlen);

/* The trigger file's line of hist trigger @t (with the newline) */
size_t rt_hist_print_trigger(const struct rt_trigger *t, char *buf,
			     size_t len);

/* Whether another hist trigger reads @t's variables: it cannot be
 * removed then (-EBUSY), as in the kernel. */
bool rt_hist_busy(const struct rt_trigger *t);

/*
 * rt_trigger_hist_line - add (or with @remove, remove) the hist trigger
 * of @line ("hist:... [if FILTER]") on @p in instance @inst, as a line
 * written to its trigger file (trigger.c). Called with the registry lock
 * held. Return: 0 or a negative errno, @err saying why.
 */
int rt_trigger_hist_line(struct rt_event_priv *p, int inst, const char *line,
			 bool remove, char *err, size_t errlen);

/* Free the hist part of @t, once no writer can see it. */
void rt_hist_free(struct rt_trigger *t);

/*
 * rt_hist_event - count one record @rec (@len bytes) of instance @inst
 * in hist trigger @t; @from is where a stack key starts; @ts the
 * record's stamp in the instance's clock (its common_timestamp), or 0
 * when it has none yet (the clock is read then).
 * Context: any, a signal handler included: lock-free, no allocation.
 */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_hist_event(struct rt_trigger *t, const void *rec, size_t len, int inst,
	      const void *from, uint64_t ts);

/* rt_hist_event() out of line: any table, paused or not */
void rt_hist_event_slow(struct rt_trigger *t, const void *rec, size_t len,
			int inst, const void *from, uint64_t ts);

/* A numeric field of @size bytes at @at as the kernel's hist_field_*
 * readers: signed fields sign-extended; a size but 1, 2 or 4 reads 8 */
static inline __attribute__((always_inline, no_instrument_function)) uint64_t
hist_read_num_at(const unsigned char *at, unsigned int size, bool is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? (uint64_t)(int64_t)(int8_t)at[0] : at[0];
	case 2: {
		uint16_t v;

		memcpy(&v, at, 2);
		return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, at, 4);
		return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default: {
		uint64_t v;

		memcpy(&v, at, 8);
		return v;
	}
	}
}

static inline __attribute__((always_inline, no_instrument_function)) uint64_t
hist_plain_read(const struct hist_num *f, const unsigned char *rec)
{
	return hist_read_num_at(rec + f->offset, f->size, f->is_signed);
}

/* Count @rec in plain table @ht: numeric keys of 8 bytes each, filling
 * the key; sums of numeric fields, added in the thread's own copy of
 * them (tracing_map.h). The one-key table, the common
 * "hist:keys=K:vals=V", has its key's size known to the compiler. */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_hist_event_plain(const struct rt_hist_trig *ht, const unsigned char *rec)
{
	uint64_t key[HIST_KEYS_MAX];
	struct tracing_map_elt *elt;
	struct tracing_map_sums s;
	unsigned int i, idx;

	if (__builtin_expect(ht->n_keys == 1, 1)) {
		struct tracing_map_probe p = ht->probe;

		key[0] = hist_plain_read(&ht->keys[0], rec);
		p.key_size = 8; /* (the same: a constant for the compiler) */
		elt = tracing_map_probe_insert(&p, key, &idx);
	} else {
		for (i = 0; i < ht->n_keys; i++)
			key[i] = hist_plain_read(&ht->keys[i], rec);
		elt = tracing_map_probe_insert(&ht->probe, key, &idx);
	}
	if (__builtin_expect(!elt, 0))
		return;
	s = tracing_map_sums_of(&ht->probe, elt, idx);
	tracing_map_update_sum(s, 0, 1);
	for (i = 1; i < ht->n_vals; i++)
		tracing_map_update_sum(s, i, hist_plain_read(&ht->vals[i], rec));
}

/* Inline: a plain table's count, read from the trigger's own block (no
 * load through the table's data but its clearing flag's, which does not
 * delay the rest); anything else rt_hist_event_slow()'s. */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_hist_event(struct rt_trigger *t, const void *rec, size_t len, int inst,
	      const void *from, uint64_t ts)
{
	const struct rt_hist_trig *ht = t->hist;

	if (__builtin_expect(!ht->plain, 0)) {
		rt_hist_event_slow(t, rec, len, inst, from, ts);
		return;
	}
	/* Relaxed: a pause racing with this write counts it or not, as if
	 * it came just before or after. Acquire for the clearing flag: a
	 * write that sees it lowered sees the table's cleared words too;
	 * pairs with the seq_cst store that lowers it in rt_hist_modify()
	 * (see there; on x86-64 an acquire load is the plain load). */
	if (atomic_load_explicit(&ht->paused, memory_order_relaxed) ||
	    atomic_load_explicit(ht->clearing, memory_order_acquire))
		return;
	rt_hist_event_plain(ht, rec);
}

/* Whether hist trigger @t reads common_timestamp (false for another
 * trigger): its records are stamped with the time it reads. */
bool rt_hist_timestamps(const struct rt_trigger *t);

/* Whether @t is a plain hist trigger (false for another trigger): its
 * count is rt_hist_event_plain(), no action, nothing it fires after the
 * commit. */
static inline bool rt_hist_plain(const struct rt_trigger *t)
{
	return t->type == RT_TRIG_HIST && t->hist &&
	       ((const struct rt_hist_trig *)t->hist)->plain;
}

/* Whether @t counts every record it sees the plain way: a plain hist
 * trigger without a filter of its own (what a list's hist_only asks of
 * each of its triggers, trigger.c). */
static inline bool rt_hist_plain_unfiltered(const struct rt_trigger *t)
{
	return !t->filter && rt_hist_plain(t);
}

/* The instance whose snapshot a hist action asked for while this
 * thread's record was being written, or -1 */
extern __thread int rt_hist_snap_inst
	__attribute__((tls_model("initial-exec")));

void rt_hist_commit_done_slow(void);

/* After a record's commit: the snapshot a hist action (onmax() or
 * onchange() .snapshot()) asked for while it was written (inline: the
 * check, that none was). Context: as rt_hist_event(). */
static inline __attribute__((always_inline, no_instrument_function)) void
rt_hist_commit_done(void)
{
	if (__builtin_expect(rt_hist_snap_inst >= 0, 0))
		rt_hist_commit_done_slow();
}

/* enable_hist / disable_hist fired: (un)pause the hist triggers of
 * @target in @inst. Context: as rt_hist_event(). */
void rt_hist_enable(struct rt_event_priv *target, int inst, bool on);

#endif /* RINGTRACE_HIST_H */
