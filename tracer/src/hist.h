/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hist.h - hist triggers (hist.c), as trigger.c and trace.c see them
 */
#ifndef RINGTRACE_HIST_H
#define RINGTRACE_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

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
void rt_hist_event(struct rt_trigger *t, const void *rec, size_t len,
		   int inst, const void *from, uint64_t ts);

/* Whether hist trigger @t reads common_timestamp (false for another
 * trigger): its records are stamped with the time it reads. */
bool rt_hist_timestamps(const struct rt_trigger *t);

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
