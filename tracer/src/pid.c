// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pid.c - the thread-id lists of an instance: set_event_pid,
 *	set_event_notrace_pid, set_ftrace_pid, set_ftrace_notrace_pid
 *
 * The kernel's trace_pid_list, for the threads of one process. A list is
 * a sorted array, replaced whole on every write and published with RCU;
 * writers look their thread id up with a binary search (trace.c,
 * rt_pid_ignored()). Only instances that have a list pay for it: their
 * bit in each event's slow_mask (events) or in rt_ftrace_pid_mask (the
 * function tracers) sends the writes there through the check.
 *
 * Userspace: the kernel caches the answer per cpu at each sched_switch
 * (ignore_pid); a thread here looks it up at each write instead.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace.h"
#include "rcu.h"
#include "trace.h"

/* The kernel's PID_MAX_LIMIT */
#define RT_PID_MAX 4194304

static int rt_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Parse @text into the ids of @old (if any) plus the new ones. */
static int rt_pids_parse(const struct rt_pid_list *old, const char *text,
			 struct rt_pid_list **out, char *err, size_t errlen)
{
	size_t cap = (old ? old->nr : 0) + strlen(text) / 2 + 1, n = 0, i;
	struct rt_pid_list *l = malloc(sizeof(*l) + cap * sizeof(int));
	const char *s = text;

	if (!l)
		return -ENOMEM;
	for (i = 0; old && i < old->nr; i++)
		l->pid[n++] = old->pid[i];
	for (;;) {
		char *end;
		long v;

		while (isspace((unsigned char)*s) || *s == ',')
			s++;
		if (!*s)
			break;
		errno = 0;
		v = isdigit((unsigned char)*s) ? strtol(s, &end, 10) : -1;
		if (v <= 0 || errno || v >= RT_PID_MAX ||
		    (*end && !isspace((unsigned char)*end) && *end != ',')) {
			if (err && errlen)
				snprintf(err, errlen,
					 "'%.*s' is not a thread id",
					 (int)strcspn(s, " \t\n,"), s);
			free(l);
			return -EINVAL;
		}
		l->pid[n++] = (int)v;
		s = end;
	}
	qsort(l->pid, n, sizeof(int), rt_cmp_int);
	l->nr = 0;
	for (i = 0; i < n; i++)
		if (!l->nr || l->pid[l->nr - 1] != l->pid[i])
			l->pid[l->nr++] = l->pid[i];
	*out = l;
	return 0;
}

static void rt_pids_free_rcu(struct rcu_head *head)
{
	rt_rcu_callback_begin();
	free(caa_container_of(head, struct rt_pid_list, rcu));
}

int ringtrace_set_pids(struct ringtrace_instance *tr,
		       enum ringtrace_pid_list list, const char *pids,
		       bool append, char *err, size_t errlen)
{
	struct rt_pid_list *old, *nl = NULL;
	uint64_t bit;
	bool on;
	int ret;

	tr = rt_instance_get(tr);
	if (err && errlen)
		err[0] = '\0';
	if (!tr || !pids || (int)list < 0 || (int)list >= RT_PID_NR_LISTS)
		return -EINVAL;
	rt_events_init();
	bit = 1ull << tr->id;
	rt_registry_lock();
	if (atomic_load_explicit(&rt_instances[tr->id],
				 memory_order_relaxed) != tr) {
		rt_registry_unlock();
		return -ENOENT;
	}
	old = atomic_load_explicit(&tr->pids[list], memory_order_relaxed);
	ret = rt_pids_parse(append ? old : NULL, pids, &nl, err, errlen);
	if (ret) {
		rt_registry_unlock();
		return ret;
	}
	if (nl->nr == 0) {
		free(nl);
		nl = NULL;
	}
	/* Publishes the list; pairs with the acquire loads in
	 * rt_pid_ignored(). */
	atomic_exchange_explicit(&tr->pids[list], nl, memory_order_acq_rel);
	/* The list pair decides the slow path of the events or of the
	 * function tracers. */
	list &= ~1u;
	on = atomic_load_explicit(&tr->pids[list], memory_order_relaxed) ||
	     atomic_load_explicit(&tr->pids[list + 1], memory_order_relaxed);
	if (list == RINGTRACE_PID_EVENT) {
		rt_events_pid_filter(tr->id, on);
	} else if (on) {
		/* Relaxed: see rt_write_builtin(); the list is published */
		atomic_fetch_or_explicit(&rt_ftrace_pid_mask, bit,
					 memory_order_relaxed);
	} else {
		atomic_fetch_and_explicit(&rt_ftrace_pid_mask, ~bit,
					  memory_order_relaxed);
	}
	if (list != RINGTRACE_PID_EVENT)
		rt_fn_fast_update();
	rt_registry_unlock();
	/* writers may still be looking at the old list */
	if (old)
		rt_call_rcu(&old->rcu, rt_pids_free_rcu);
	return 0;
}

size_t ringtrace_show_pids(struct ringtrace_instance *tr,
			   enum ringtrace_pid_list list, char *buf,
			   size_t len)
{
	const struct rt_pid_list *l;
	size_t n = 0;
	unsigned int i;

	tr = rt_show_begin(tr, buf, &len);
	if (!tr || (int)list < 0 || (int)list >= RT_PID_NR_LISTS)
		return 0;
	rt_registry_lock();
	l = atomic_load_explicit(&tr->pids[list], memory_order_relaxed);
	for (i = 0; l && i < l->nr; i++)
		n += (size_t)snprintf(buf + (n < len ? n : len),
				      n < len ? len - n : 0, "%d\n", l->pid[i]);
	rt_registry_unlock();
	return n;
}

/* The instance is gone and a grace period has passed. */
void rt_pids_free(struct ringtrace_instance *tr)
{
	uint64_t bit = 1ull << tr->id;
	int i;

	atomic_fetch_and_explicit(&rt_ftrace_pid_mask, ~bit,
				  memory_order_relaxed);
	rt_fn_fast_update();
	for (i = 0; i < RT_PID_NR_LISTS; i++)
		free(atomic_exchange_explicit(&tr->pids[i], NULL,
					      memory_order_relaxed));
}
