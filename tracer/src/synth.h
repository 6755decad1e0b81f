/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * synth.h - synthetic events (synth.c), as the hist actions see them
 */
#ifndef RINGTRACE_SYNTH_H
#define RINGTRACE_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#define RT_SYNTH_FIELDS_MAX 16 /* the kernel's SYNTH_FIELDS_MAX is 64 */
/* frames of a stack field at most (the kernel's HIST_STACKTRACE_DEPTH) */
#define RT_SYNTH_STACK_MAX 16

struct rt_synth;

/* The synthetic event @name, or NULL. Called with the registry lock
 * held; a hist action that uses it takes a reference (rt_synth_get()),
 * which keeps it from being removed (-EBUSY). */
struct rt_synth *rt_synth_find(const char *name);
void rt_synth_get(struct rt_synth *s);
void rt_synth_put(struct rt_synth *s);
unsigned int rt_synth_nr_fields(const struct rt_synth *s);
bool rt_synth_field_is_string(const struct rt_synth *s, unsigned int i);
bool rt_synth_field_is_stack(const struct rt_synth *s, unsigned int i);
const char *rt_synth_name(const struct rt_synth *s);

/*
 * rt_synth_trace - write synthetic event @s with @vals (one per field;
 * a string field's is a const char * cast to uintptr_t, a stack field's
 * a const uint64_t * to its count of frames then the frames) into every
 * instance that enables it, as the kernel's trace_synth().
 * Context: any, a signal handler included; a write nested in another of
 * the thread's writes more than twice is dropped.
 */
void rt_synth_trace(struct rt_synth *s, const uint64_t *vals);

#endif /* RINGTRACE_SYNTH_H */
