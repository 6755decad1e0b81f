// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events.c - the event registry: ids, systems, enabling (set_event and
 *	the enable files), filters and format descriptions
 *
 * The kernel's trace_events.c, for events defined with TRACE_EVENT().
 * Events register from constructors (and unregister from destructors,
 * which is what makes dlclose() of a traced library safe). The id table
 * is published through RCU for the readers that turn ids back into
 * events; the enable bits and the filters are read by writers without a
 * lock (see trace.c).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "rcu.h"
#include "trace.h"

/* The id -> event table, replaced whole when it grows */
struct rt_ev_table {
	struct rcu_head rcu; /* freed after a grace period (rt_call_rcu()) */
	unsigned int nr;
	struct rt_event_priv *ev[];
};

static struct rt_ev_table *_Atomic rt_table;
static pthread_mutex_t rt_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int rt_next_id = RT_TYPE_FIRST_DYNAMIC;
static bool rt_exiting;
static char *rt_boot_events;
/* Instances with a set_event_pid or set_event_notrace_pid list: every
 * event's writes there take the slow path, which checks the lists. */
static uint64_t rt_pid_filtered;
/* Instances with the stacktrace option: the same, for the stacks */
static uint64_t rt_stack_opt;

void rt_events_fork_child(void)
{
	pthread_mutex_init(&rt_reg_lock, NULL);
}

void rt_registry_lock(void)
{
	pthread_mutex_lock(&rt_reg_lock);
}

void rt_registry_unlock(void)
{
	pthread_mutex_unlock(&rt_reg_lock);
}

/* The common fields, as the kernel's format files list them */
static const struct rt_field rt_common_fields[] = {
	{ "unsigned short", "common_type", 0, 2, 0, RT_FIELD_INT, 0 },
	{ "unsigned char", "common_flags", 2, 1, 0, RT_FIELD_INT, 0 },
	{ "unsigned char", "common_preempt_count", 3, 1, 0, RT_FIELD_INT, 0 },
	{ "int", "common_pid", 4, 4, 1, RT_FIELD_INT, 0 },
};
#define RT_NR_COMMON 4

/* ---- the built-in ftrace events --------------------------------------- */

/* Each one's fields (with the element of its last array), format and id,
 * from the list of entries_list.h. */
#define RT_FE_FIELD(type, name, kind)                                       \
	{ #type, #name, sizeof(type), _Alignof(type), (type)-1 < (type)1,    \
	  RINGTRACE_FIELD_##kind, 0 },
#define RT_FE_ARRAY(type, name, kind)                                       \
	{ #type "[]", #name, 0, _Alignof(type), (type)-1 < (type)1,          \
	  RINGTRACE_FIELD_##kind, sizeof(type) },
#define RT_FE_ARRAY_PACKED(type, name, kind)                                \
	{ #type "[]", #name, 0, _Alignof(type) < 4 ? _Alignof(type) : 4,     \
	  (type)-1 < (type)1, RINGTRACE_FIELD_##kind, sizeof(type) },
#define RT_FTRACE_ENTRY(ev_name, ev_struct, ev_id, ev_attr, ev_fields,    \
			ev_fmt, ev_print)                                    \
	static const struct ringtrace_field_decl ev_struct##_fields[] = {   \
		ev_fields { NULL, NULL, 0, 0, 0, 0, 0 }                      \
	};
#include "entries_list.h"
#undef RT_FTRACE_ENTRY

#define RT_FTRACE_ENTRY(ev_name, ev_struct, ev_id, ev_attr, ev_fields,    \
			ev_fmt, ev_print)                                    \
	{ .system = "ftrace", .name = #ev_name,                              \
	  .fields = ev_struct##_fields, .print_fmt = ev_fmt,                 \
	  .size = sizeof(struct ev_struct) },
static struct ringtrace_event rt_builtin[] = {
#include "entries_list.h"
};
#undef RT_FTRACE_ENTRY

#define RT_FTRACE_ENTRY(ev_name, ev_struct, ev_id, ev_attr, ev_fields,    \
			ev_fmt, ev_print)                                    \
	ev_id,
static const uint16_t rt_builtin_ids[] = {
#include "entries_list.h"
};
#undef RT_FTRACE_ENTRY
#undef RT_FE_ARRAY_PACKED
#undef RT_FE_ARRAY
#undef RT_FE_FIELD

/* ---- the table --------------------------------------------------------- */

struct rt_event_priv *rt_event_by_id(unsigned int id)
{
	/* Pairs with the release store in rt_table_set(); the caller is
	 * inside a read-side section. */
	struct rt_ev_table *t =
		atomic_load_explicit(&rt_table, memory_order_acquire);

	if (!t || id >= t->nr)
		return NULL;
	return t->ev[id];
}

/* Called with rt_reg_lock held. */
static void rt_table_free_rcu(struct rcu_head *head)
{
	rt_rcu_callback_begin();
	free(caa_container_of(head, struct rt_ev_table, rcu));
}

static int rt_table_set(unsigned int id, struct rt_event_priv *p)
{
	struct rt_ev_table *t =
		atomic_load_explicit(&rt_table, memory_order_relaxed);
	struct rt_ev_table *nt;
	unsigned int nr;

	if (t && id < t->nr) {
		/* Pairs with the acquire load in rt_event_by_id(). */
		struct rt_event_priv *_Atomic *slot =
			(struct rt_event_priv *_Atomic *)&t->ev[id];

		atomic_store_explicit(slot, p, memory_order_release);
		return 0;
	}
	nr = t ? t->nr : 64;
	while (nr <= id)
		nr *= 2;
	nt = calloc(1, sizeof(*nt) + nr * sizeof(nt->ev[0]));
	if (!nt)
		return -ENOMEM;
	nt->nr = nr;
	if (t)
		memcpy(nt->ev, t->ev, t->nr * sizeof(t->ev[0]));
	nt->ev[id] = p;
	/* Publishes the filled table; pairs with rt_event_by_id(). */
	atomic_store_explicit(&rt_table, nt, memory_order_release);
	if (t)
		rt_call_rcu(&t->rcu, rt_table_free_rcu);
	return 0;
}

/* Lay the declared fields out after the header with the C rules. */
static int rt_layout(struct rt_event_priv *p)
{
	const struct ringtrace_field_decl *d = p->ev->fields;
	size_t n = 0, off = sizeof(struct ringtrace_entry), maxal = 4, i;

	while (d && d[n].name)
		n++;
	p->fields = calloc(RT_NR_COMMON + n, sizeof(*p->fields));
	if (!p->fields)
		return -ENOMEM;
	memcpy(p->fields, rt_common_fields, sizeof(rt_common_fields));
	for (i = 0; i < n; i++) {
		struct rt_field *f = &p->fields[RT_NR_COMMON + i];
		size_t al = d[i].align ? d[i].align : 1;

		off = (off + al - 1) & ~(al - 1);
		if (al > maxal)
			maxal = al;
		f->type = d[i].type;
		f->name = d[i].name;
		f->offset = (uint16_t)off;
		f->size = d[i].size;
		f->is_signed = d[i].is_signed;
		f->kind = d[i].kind;
		f->elem_size = d[i].elem_size;
		off += d[i].size;
	}
	p->nr_fields = (unsigned int)(RT_NR_COMMON + n);
	off = (off + maxal - 1) & ~(maxal - 1);
	if (off != p->ev->size && !p->builtin) {
		rt_warn("ringtrace: event %s:%s: computed layout (%zu bytes) does not match its struct (%zu bytes); not registered\n",
			p->ev->system, p->ev->name, off, p->ev->size);
		free(p->fields);
		return -EINVAL;
	}
	return 0;
}

static int rt_register_locked(struct ringtrace_event *ev, int id,
			      bool builtin)
{
	struct rt_event_priv *p;
	int ret;

	if (ev->priv)
		return -EEXIST;
	if (rt_event_find(ev->system, ev->name)) {
		rt_warn("ringtrace: event %s:%s defined twice; the second is ignored\n",
			ev->system, ev->name);
		return -EEXIST;
	}
	if (id < 0) {
		if (rt_next_id > 0xffff)
			return -ENOSPC;
		id = (int)rt_next_id++;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->ev = ev;
	p->id = (uint16_t)id;
	p->builtin = builtin;
	/* no writer sees @p yet */
	atomic_init(&p->slow_mask, rt_pid_filtered | rt_stack_opt);
	ret = rt_layout(p);
	if (!ret)
		ret = rt_table_set((unsigned int)id, p);
	if (ret) {
		free(p);
		return ret;
	}
	/* Release: @p filled before a writer sees it; pairs with the
	 * acquire load of rt_ev_priv(). */
	__atomic_store_n(&ev->priv, p, __ATOMIC_RELEASE);
	return 0;
}

static pthread_once_t rt_builtin_once = PTHREAD_ONCE_INIT;

static void rt_note_exit(void)
{
	/* the held-back graph entries, the exiting thread's and the
	 * other threads': their calls never return (exit() inside one,
	 * the others ended where they stand) */
	rt_graph_pending_flush_all();
	rt_exiting = true;
}

static void rt_register_builtins(void)
{
	size_t i;

	pthread_mutex_lock(&rt_reg_lock);
	for (i = 0; i < sizeof(rt_builtin) / sizeof(rt_builtin[0]); i++)
		rt_register_locked(&rt_builtin[i], rt_builtin_ids[i], true);
	pthread_mutex_unlock(&rt_reg_lock);
	atexit(rt_note_exit);
}

void rt_events_init(void)
{
	pthread_once(&rt_builtin_once, rt_register_builtins);
}

static bool rt_boot_match(struct ringtrace_event *ev);

int ringtrace_event_register(struct ringtrace_event *ev)
{
	int ret;
	bool boot;

	rt_events_init();
	pthread_mutex_lock(&rt_reg_lock);
	ret = rt_register_locked(ev, -1, false);
	boot = !ret && rt_boot_events && rt_boot_match(ev);
	pthread_mutex_unlock(&rt_reg_lock);
	if (boot) {
		struct ringtrace_instance *tr = ringtrace_top();

		if (tr)
			atomic_fetch_or_explicit(&ev->enabled, 1ull << tr->id,
						 memory_order_relaxed);
	}
	if (!ret)
		rt_publish_events();
	return ret;
}

void ringtrace_event_unregister(struct ringtrace_event *ev)
{
	struct rt_event_priv *p;
	int i;

	pthread_mutex_lock(&rt_reg_lock);
	p = ev->priv;
	if (!p) {
		pthread_mutex_unlock(&rt_reg_lock);
		return;
	}
	/* Its triggers, and the triggers of other events that switch it,
	 * go first (they wait for their own grace period). */
	if (!rt_exiting)
		rt_triggers_event_gone(p);
	/* Relaxed: writers recheck nothing else; after the grace period
	 * below none is still inside this event. */
	atomic_store_explicit(&ev->enabled, 0, memory_order_relaxed);
	rt_table_set(p->id, NULL);
	if (rt_exiting) {
		/* The process is exiting: nothing reads the registry any
		 * more, and waiting a grace period per event would only slow
		 * the exit down. What is left stays, still named by
		 * ev->priv (a writer still running finds it intact; a leak
		 * checker finds it reachable). */
		pthread_mutex_unlock(&rt_reg_lock);
		return;
	}
	/* Unpublished before the grace period, as RCU asks: a writer whose
	 * section begins after it finds no state (rt_ev_priv()); one that
	 * found it is waited for. Relaxed: the grace period orders it. */
	__atomic_store_n(&ev->priv, NULL, __ATOMIC_RELAXED);
	rt_synchronize_rcu();
	for (i = 0; i < RT_MAX_INSTANCES; i++) {
		rt_filter_free(atomic_load_explicit(&p->filter[i],
						    memory_order_relaxed));
		free(p->filter_text[i]);
	}
	free(p->fields);
	free(p);
	pthread_mutex_unlock(&rt_reg_lock);
	/*
	 * The recorder that started us reads the formats after our exit,
	 * and its records of this event need this one. Destructors
	 * unregister the program's events at the exit, and may run before
	 * the library's exit handler says the exit began (whose atexit()
	 * ran in the library's constructor, before the C library's own
	 * exit handler that runs the destructors): keep the file as it is.
	 * Ids are never reused, so the format stays right.
	 */
	if (!rt_publish_keeps_formats())
		rt_publish_events();
}

/* Called with rt_reg_lock held, or from a read-side section. */
struct rt_event_priv *rt_event_find(const char *system, const char *name)
{
	/* Pairs with the release store of a new table in rt_table_set(). */
	struct rt_ev_table *t =
		atomic_load_explicit(&rt_table, memory_order_acquire);
	unsigned int i;

	for (i = 0; t && i < t->nr; i++) {
		struct rt_event_priv *p = t->ev[i];

		if (p && (!system || !strcmp(p->ev->system, system)) &&
		    !strcmp(p->ev->name, name))
			return p;
	}
	return NULL;
}

/* ---- enabling ---------------------------------------------------------- */

/* Called with rt_reg_lock: @tr is still in the instance array. */
static bool rt_instance_live(struct ringtrace_instance *tr)
{
	return atomic_load_explicit(&rt_instances[tr->id],
				    memory_order_relaxed) == tr;
}

static void rt_set_enabled(struct rt_event_priv *p, int inst, bool on)
{
	if (p->sm_ref[inst]) {
		/* Soft mode: the event stays armed for its triggers; the
		 * switch is the soft-disabled bit. Relaxed: a writer that
		 * misses the change keeps or drops one record, as if it
		 * had run just before. */
		rt_soft_disabled_set(p, 1ull << inst, !on);
		rt_slow_mask_update(p, inst); /* (the hist bit) */
		return;
	}
	/*
	 * Relaxed: a writer that sees the bit loads the instance and the
	 * filter with acquire loads of their own; a writer that misses a
	 * fresh bit records nothing, as if it had run just before.
	 */
	if (on)
		atomic_fetch_or_explicit(&p->ev->enabled, 1ull << inst,
					 memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&p->ev->enabled, ~(1ull << inst),
					  memory_order_relaxed);
}

static bool rt_glob(const char *pat, const char *s)
{
	return fnmatch(pat, s, 0) == 0;
}

/*
 * Match one set_event token against an event: "sys:event" (either part
 * may be a glob), or a bare word that names an event or a system.
 */
static bool rt_spec_match(const char *spec, struct rt_event_priv *p)
{
	const char *colon = strchr(spec, ':');

	if (p->builtin)
		return false; /* ftrace's own records have no enable switch */
	if (colon) {
		char sys[128];
		size_t n = (size_t)(colon - spec);

		if (n >= sizeof(sys))
			return false;
		memcpy(sys, spec, n);
		sys[n] = '\0';
		return rt_glob(sys, p->ev->system) &&
		       rt_glob(colon[1] ? colon + 1 : "*", p->ev->name);
	}
	return rt_glob(spec, p->ev->name) || rt_glob(spec, p->ev->system);
}

/*
 * rt_slow_mask_update - bit @inst of @p's slow_mask, set exactly while
 * something sends the event's writes in instance @inst to the slow path:
 * a filter, soft mode (a trigger), a pid list or the stacktrace option;
 * and of its hist_mask, set while plain hist triggers alone do.
 * The inline write (<ringtrace/inline_write.h>, layout 5) tests this bit
 * alone. Called with rt_reg_lock held, which serialises every change of
 * those, after the change. Relaxed: a writer that misses the change
 * takes the path of just before (its record kept or dropped as if it
 * had come before the change); what the slow path reads (the filter,
 * the trigger list, the pid list) is RCU-published.
 */
void rt_slow_mask_update(struct rt_event_priv *p, int inst)
{
	uint64_t bit = 1ull << inst;
	bool other = ((rt_pid_filtered | rt_stack_opt) & bit) ||
		     atomic_load_explicit(&p->filter[inst],
					  memory_order_relaxed);

	if (p->sm_ref[inst] || other)
		atomic_fetch_or_explicit(&p->slow_mask, bit,
					 memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&p->slow_mask, ~bit,
					  memory_order_relaxed);
	/* The hist bit (layout 6): armed by plain hist triggers alone (the
	 * event is the target of no enable_event, whose firing would switch
	 * the soft-disabled bit under a writer), kept (not soft-disabled),
	 * nothing else sending it to the slow path. Relaxed, as the slow
	 * bit; the inline write tests it only with the slow bit. */
	if (!other && rt_trig_hist_only(p, inst) &&
	    !(atomic_load_explicit(&p->soft_disabled, memory_order_relaxed) &
	      bit))
		atomic_fetch_or_explicit(&p->hist_mask, bit,
					 memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&p->hist_mask, ~bit,
					  memory_order_relaxed);
}

/*
 * rt_soft_mode - take (@enter) or drop a soft-mode reference of @p in
 * instance @inst; called with rt_reg_lock held.
 *
 * Entering: the event keeps recording if it was enabled, else it is
 * soft-disabled. The grace period between arming the slow path and
 * setting the enable bit makes every writer that sees the bit also see
 * the soft-disabled bit (RCU's publish guarantee), so a disabled event
 * never records a stray record while being armed.
 * Leaving: the event stays enabled if it was not soft-disabled. Its
 * enable bit is cleared first, and a grace period passes before the slow
 * path is disarmed, for the same reason.
 */
void rt_soft_mode(struct rt_event_priv *p, int inst, bool enter)
{
	uint64_t bit = 1ull << inst;
	bool on;

	if (enter) {
		if (p->sm_ref[inst]++) {
			rt_slow_mask_update(p, inst); /* (the hist bit) */
			return;
		}
		on = atomic_load_explicit(&p->ev->enabled,
					  memory_order_relaxed) & bit;
		rt_soft_disabled_set(p, bit, !on);
		rt_slow_mask_update(p, inst);
		if (!on) {
			rt_synchronize_rcu();
			atomic_fetch_or_explicit(&p->ev->enabled, bit,
						 memory_order_relaxed);
		}
		return;
	}
	if (!p->sm_ref[inst] || --p->sm_ref[inst]) {
		rt_slow_mask_update(p, inst); /* (the hist bit) */
		return;
	}
	on = !(atomic_load_explicit(&p->soft_disabled, memory_order_relaxed) &
	       bit);
	if (!on) {
		atomic_fetch_and_explicit(&p->ev->enabled, ~bit,
					  memory_order_relaxed);
		rt_synchronize_rcu();
	}
	rt_slow_mask_update(p, inst);
	atomic_fetch_and_explicit(&p->soft_disabled, ~bit,
				  memory_order_relaxed);
}

/*
 * rt_events_force_slow - send every event's writes in @inst through the
 * slow path, for a pid list or the stacktrace option (@why: the mask of
 * the reason), or only those of events in soft mode or with a filter
 * when no reason is left (rt_slow_mask_update()); called with
 * rt_reg_lock held. Relaxed: a writer that misses the
 * change records or drops one record (or stack) as if it had come just
 * before; the lists it then reads are RCU-published.
 */
static void rt_events_force_slow(uint64_t *why, int inst, bool on)
{
	struct rt_ev_table *t =
		atomic_load_explicit(&rt_table, memory_order_relaxed);
	uint64_t bit = 1ull << inst;
	unsigned int i;

	if (on)
		*why |= bit;
	else
		*why &= ~bit;
	for (i = 0; t && i < t->nr; i++)
		if (t->ev[i])
			rt_slow_mask_update(t->ev[i], inst);
}

void rt_events_pid_filter(int inst, bool on)
{
	rt_events_force_slow(&rt_pid_filtered, inst, on);
}

/* The stacktrace option of instance @inst; takes rt_reg_lock. */
void rt_events_stack_option(int inst, bool on)
{
	pthread_mutex_lock(&rt_reg_lock);
	rt_events_force_slow(&rt_stack_opt, inst, on);
	pthread_mutex_unlock(&rt_reg_lock);
}

/* Called with rt_reg_lock held. */
void rt_events_foreach(void (*fn)(struct rt_event_priv *p, void *arg),
		       void *arg)
{
	struct rt_ev_table *t =
		atomic_load_explicit(&rt_table, memory_order_relaxed);
	unsigned int i;

	for (i = 0; t && i < t->nr; i++)
		if (t->ev[i])
			fn(t->ev[i], arg);
}

/* Enabled in instance @inst and not soft-disabled there */
static bool rt_enabled_in(struct rt_event_priv *p, int inst)
{
	uint64_t bit = 1ull << inst;

	return (atomic_load_explicit(&p->ev->enabled, memory_order_relaxed) &
		bit) &&
	       !(atomic_load_explicit(&p->soft_disabled,
				      memory_order_relaxed) & bit);
}

/* Apply one token; returns how many events it matched. */
static int rt_apply_spec(int inst, const char *tok)
{
	struct rt_ev_table *t =
		atomic_load_explicit(&rt_table, memory_order_relaxed);
	bool on = true;
	unsigned int i;
	int n = 0;

	if (*tok == '!') {
		on = false;
		tok++;
	}
	for (i = 0; t && i < t->nr; i++) {
		if (t->ev[i] && rt_spec_match(tok, t->ev[i])) {
			rt_set_enabled(t->ev[i], inst, on);
			n++;
		}
	}
	return n;
}

int ringtrace_set_event(struct ringtrace_instance *tr, const char *spec,
			char *err, size_t errlen)
{
	char *copy, *save = NULL, *tok;
	int ret = 0;

	tr = rt_instance_get(tr);
	if (!tr || !spec)
		return -EINVAL;
	rt_events_init();
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&rt_reg_lock);
	if (!rt_instance_live(tr)) {
		pthread_mutex_unlock(&rt_reg_lock);
		free(copy);
		return -ENOENT;
	}
	for (tok = strtok_r(copy, " \t\n,", &save); tok;
	     tok = strtok_r(NULL, " \t\n,", &save)) {
		if (rt_apply_spec(tr->id, tok) == 0 && !ret) {
			if (err && errlen)
				snprintf(err, errlen,
					 "no event matches '%s'", tok);
			ret = -ENOENT;
		}
	}
	pthread_mutex_unlock(&rt_reg_lock);
	free(copy);
	return ret;
}

void ringtrace_clear_events(struct ringtrace_instance *tr)
{
	struct rt_ev_table *t;
	unsigned int i;

	tr = rt_instance_get(tr);
	if (!tr)
		return;
	pthread_mutex_lock(&rt_reg_lock);
	t = atomic_load_explicit(&rt_table, memory_order_relaxed);
	for (i = 0; t && i < t->nr; i++)
		if (t->ev[i])
			rt_set_enabled(t->ev[i], tr->id, false);
	pthread_mutex_unlock(&rt_reg_lock);
}

size_t ringtrace_show_set_event(struct ringtrace_instance *tr, char *buf,
				size_t len)
{
	struct rt_ev_table *t;
	unsigned int i;
	size_t n = 0;

	tr = rt_show_begin(tr, buf, &len);
	if (!tr)
		return 0;
	pthread_mutex_lock(&rt_reg_lock);
	t = atomic_load_explicit(&rt_table, memory_order_relaxed);
	for (i = 0; t && i < t->nr; i++) {
		struct rt_event_priv *p = t->ev[i];

		if (p && rt_enabled_in(p, tr->id))
			n += (size_t)snprintf(buf + (n < len ? n : len),
					      n < len ? len - n : 0, "%s:%s\n",
					      p->ev->system, p->ev->name);
	}
	pthread_mutex_unlock(&rt_reg_lock);
	return n;
}

int ringtrace_event_enable(struct ringtrace_instance *tr, const char *system,
			   const char *event, bool on)
{
	struct rt_ev_table *t;
	unsigned int i;
	int n = 0;

	tr = rt_instance_get(tr);
	if (!tr)
		return -EINVAL;
	rt_events_init();
	pthread_mutex_lock(&rt_reg_lock);
	if (!rt_instance_live(tr)) {
		pthread_mutex_unlock(&rt_reg_lock);
		return -ENOENT;
	}
	t = atomic_load_explicit(&rt_table, memory_order_relaxed);
	for (i = 0; t && i < t->nr; i++) {
		struct rt_event_priv *p = t->ev[i];

		if (!p || p->builtin)
			continue;
		if (system && strcmp(system, p->ev->system))
			continue;
		if (event && strcmp(event, p->ev->name))
			continue;
		rt_set_enabled(p, tr->id, on);
		n++;
	}
	pthread_mutex_unlock(&rt_reg_lock);
	return n ? 0 : -ENOENT;
}

void rt_events_instance_gone(int inst)
{
	struct rt_ev_table *t;
	unsigned int i;

	pthread_mutex_lock(&rt_reg_lock);
	rt_triggers_instance_gone(inst);
	rt_events_pid_filter(inst, false);
	rt_events_force_slow(&rt_stack_opt, inst, false);
	t = atomic_load_explicit(&rt_table, memory_order_relaxed);
	for (i = 0; t && i < t->nr; i++)
		if (t->ev[i])
			rt_set_enabled(t->ev[i], inst, false);
	rt_synchronize_rcu();
	for (i = 0; t && i < t->nr; i++) {
		struct rt_event_priv *p = t->ev[i];

		if (!p)
			continue;
		rt_filter_free(atomic_exchange_explicit(
			&p->filter[inst], NULL, memory_order_relaxed));
		free(p->filter_text[inst]);
		p->filter_text[inst] = NULL;
		rt_slow_mask_update(p, inst);
	}
	pthread_mutex_unlock(&rt_reg_lock);
}

/* ---- boot-time events (RINGTRACE_EVENTS, the kernel's trace_event=) --- */

static bool rt_boot_match(struct ringtrace_event *ev)
{
	char *copy = strdup(rt_boot_events), *save = NULL, *tok;
	bool on = false;

	for (tok = copy ? strtok_r(copy, ", \t", &save) : NULL; tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		bool neg = *tok == '!';

		if (rt_spec_match(neg ? tok + 1 : tok, ev->priv))
			on = !neg;
	}
	free(copy);
	return on;
}

void rt_events_apply_boot(void)
{
	const char *s = secure_getenv("RINGTRACE_EVENTS");
	/* Pairs with the release store that publishes the top instance in
	 * rt_do_init(). */
	struct ringtrace_instance *tr =
		atomic_load_explicit(&rt_instances[0], memory_order_acquire);
	struct rt_ev_table *t;
	unsigned int i;

	if (!s || !*s || !tr)
		return;
	rt_events_init();
	pthread_mutex_lock(&rt_reg_lock);
	free(rt_boot_events);
	rt_boot_events = strdup(s);
	t = atomic_load_explicit(&rt_table, memory_order_relaxed);
	for (i = 0; rt_boot_events && t && i < t->nr; i++)
		if (t->ev[i] && !t->ev[i]->builtin &&
		    rt_boot_match(t->ev[i]->ev))
			rt_set_enabled(t->ev[i], tr->id, true);
	pthread_mutex_unlock(&rt_reg_lock);
}

/* ---- filters ----------------------------------------------------------- */

static bool rt_blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return *s == '\0' || (s[0] == '0' && strspn(s + 1, " \t\n") ==
						     strlen(s + 1));
}

/* Called with rt_reg_lock held; the grace period is the caller's. */
static struct rt_filter *rt_filter_swap(struct rt_event_priv *p, int inst,
					struct rt_filter *f, const char *text)
{
	struct rt_filter *old;

	free(p->filter_text[inst]);
	p->filter_text[inst] = f && text ? strdup(text) : NULL;
	/* Publishes the compiled filter; pairs with the acquire load in
	 * rt_write_next() (trace.c). */
	old = atomic_exchange_explicit(&p->filter[inst], f,
				       memory_order_acq_rel);
	/* after the filter: a writer sent to the slow path by the bit of a
	 * new filter finds it there, or writes as if it came just before */
	rt_slow_mask_update(p, inst);
	return old;
}

int ringtrace_set_filter(struct ringtrace_instance *tr, const char *system,
			 const char *event, const char *expr, char *err,
			 size_t errlen)
{
	struct rt_ev_table *t;
	struct rt_filter **newf = NULL, **oldf = NULL;
	struct rt_filter_error fe, first_field_err = { 0 };
	bool clear, any_field_err = false;
	unsigned int i, nmatch = 0, nset = 0;
	int ret = 0;

	tr = rt_instance_get(tr);
	if (!tr || !expr)
		return -EINVAL;
	if (err && errlen)
		err[0] = '\0';
	rt_events_init();
	clear = rt_blank(expr);
	pthread_mutex_lock(&rt_reg_lock);
	if (!rt_instance_live(tr)) {
		pthread_mutex_unlock(&rt_reg_lock);
		return -ENOENT;
	}
	t = atomic_load_explicit(&rt_table, memory_order_relaxed);
	newf = calloc(t ? t->nr : 1, sizeof(*newf));
	oldf = calloc(t ? t->nr : 1, sizeof(*oldf));
	if (!newf || !oldf) {
		ret = -ENOMEM;
		goto out;
	}
	/* Compile for every matching event first: nothing changes unless
	 * the expression is valid. */
	for (i = 0; t && i < t->nr; i++) {
		struct rt_event_priv *p = t->ev[i];

		if (!p || (system && strcmp(system, p->ev->system)) ||
		    (event && strcmp(event, p->ev->name)))
			continue;
		/* ftrace's own records are written without the event
		 * machinery and have no filter, as in the kernel */
		if (p->builtin)
			continue;
		nmatch++;
		if (clear)
			continue;
		if (rt_filter_parse(expr, p->fields, p->nr_fields, &newf[i],
				    &fe) == 0)
			continue;
		if (fe.code == RT_FILTER_E_FIELD && !event) {
			/* A subsystem filter skips events that lack a field;
			 * they keep the filter they had. */
			if (!any_field_err)
				first_field_err = fe;
			any_field_err = true;
			continue;
		}
		if (err && errlen)
			rt_filter_error_print(err, errlen, expr, &fe);
		ret = -EINVAL;
		goto out;
	}
	if (nmatch == 0) {
		if (err && errlen)
			snprintf(err, errlen, "no such event");
		ret = -ENOENT;
		goto out;
	}
	for (i = 0; t && i < t->nr; i++) {
		struct rt_event_priv *p = t->ev[i];

		if (!p || p->builtin ||
		    (system && strcmp(system, p->ev->system)) ||
		    (event && strcmp(event, p->ev->name)))
			continue;
		if (!clear && !newf[i])
			continue;
		oldf[i] = rt_filter_swap(p, tr->id, newf[i], expr);
		newf[i] = NULL;
		nset++;
	}
	if (!clear && nset == 0 && any_field_err) {
		if (err && errlen)
			rt_filter_error_print(err, errlen, expr,
					      &first_field_err);
		ret = -EINVAL;
	}
	/* The old filters may still be in use by writers. */
	rt_synchronize_rcu();
out:
	for (i = 0; t && i < t->nr && newf && oldf; i++) {
		rt_filter_free(newf[i]);
		rt_filter_free(oldf[i]);
	}
	pthread_mutex_unlock(&rt_reg_lock);
	free(newf);
	free(oldf);
	return ret;
}

size_t ringtrace_show_filter(struct ringtrace_instance *tr,
			     const char *system, const char *event, char *buf,
			     size_t len)
{
	struct rt_event_priv *p;
	size_t n;

	tr = rt_show_begin(tr, buf, &len);
	if (!tr || !event)
		return 0;
	pthread_mutex_lock(&rt_reg_lock);
	p = rt_event_find(system, event);
	n = (size_t)snprintf(buf, len, "%s\n",
			     p && p->filter_text[tr->id] ?
				     p->filter_text[tr->id] :
				     "none");
	pthread_mutex_unlock(&rt_reg_lock);
	return n;
}

/* ---- format files ------------------------------------------------------ */

static size_t rt_format_field(const struct rt_field *f, char *buf,
			      size_t len)
{
	const char *br = strchr(f->type, '[');

	if (br && strncmp(f->type, "__data_loc", 10) != 0)
		return (size_t)snprintf(buf, len,
					"\tfield:%.*s %s%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
					(int)(br - f->type), f->type, f->name,
					br, f->offset, f->size, f->is_signed);
	return (size_t)snprintf(buf, len,
				"\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
				f->type, f->name, f->offset, f->size,
				f->is_signed);
}

/* The field @name of @p's event, or NULL. */
static const struct rt_field *rt_field_named(const struct rt_event_priv *p,
					     const char *name, size_t n)
{
	unsigned int i;

	for (i = 0; i < p->nr_fields; i++)
		if (strlen(p->fields[i].name) == n &&
		    !strncmp(p->fields[i].name, name, n))
			return &p->fields[i];
	return NULL;
}

/*
 * The length modifier a plain "%d"/"%i" of argument @arg needs in the
 * format file: "h" for a signed 2-byte field, "hh" for a signed 1-byte
 * one, given as REC->field alone. libtraceevent (trace-cmd, the tool)
 * reads a field zero-extended and hands it to printf with the format's
 * conversion, so a negative short printed with "%d" shows as 65535; the
 * kernel's own events print such fields with "%hd". In the program the
 * C compiler promotes the value and "%d" is right, so only the format
 * file says "%hd".
 */
static const char *rt_arg_length(const struct rt_event_priv *p,
				 const char *arg, size_t n)
{
	const struct rt_field *f;

	while (n && (*arg == ' ' || *arg == '\t')) {
		arg++;
		n--;
	}
	while (n && (arg[n - 1] == ' ' || arg[n - 1] == '\t'))
		n--;
	if (n <= 5 || strncmp(arg, "REC->", 5))
		return "";
	f = rt_field_named(p, arg + 5, n - 5);
	if (!f || !f->is_signed || f->kind != RINGTRACE_FIELD_INT)
		return "";
	return f->size == 2 ? "h" : f->size == 1 ? "hh" : "";
}

/*
 * Copy the print fmt text into @buf, giving "%d"/"%i" conversions of
 * signed 1- and 2-byte fields their length modifier (rt_arg_length()).
 * The text is '"format", arg, arg...': the arguments are split at the
 * commas outside parentheses and quotes, and the conversions counted in
 * order ('*' widths take an argument too).
 */
static size_t rt_format_print_fmt(const struct rt_event_priv *p, char *buf,
				  size_t len)
{
	const char *fmt = p->ev->print_fmt, *end, *args[64], *q;
	size_t alen[64], nargs = 0, n = 0, conv = 0;
	int depth = 0;
	bool quoted = false;

#define RT_PUT(c)                                                            \
	do {                                                                 \
		if (n + 1 < len)                                             \
			buf[n] = (c);                                        \
		n++;                                                         \
	} while (0)
	if (fmt[0] != '"' || !(end = strchr(fmt + 1, '"')))
		return (size_t)snprintf(buf, len, "%s", fmt);
	while (end[-1] == '\\' && (end = strchr(end + 1, '"')))
		;
	if (!end)
		return (size_t)snprintf(buf, len, "%s", fmt);
	/* the arguments after the format string */
	for (q = end + 1; *q && nargs < 64; q++) {
		if (quoted) {
			if (*q == '\\' && q[1])
				q++;
			else if (*q == '"')
				quoted = false;
		} else if (*q == '"') {
			quoted = true;
		} else if (*q == '(') {
			depth++;
		} else if (*q == ')') {
			depth--;
		} else if (*q == ',' && depth == 0) {
			if (nargs)
				alen[nargs - 1] = (size_t)(q - args[nargs - 1]);
			args[nargs++] = q + 1;
		}
	}
	if (nargs)
		alen[nargs - 1] = strlen(args[nargs - 1]);
	for (q = fmt; q <= end; q++) {
		RT_PUT(*q);
		if (q == fmt || *q != '%')
			continue;
		if (q[1] == '%') {
			RT_PUT('%');
			q++;
			continue;
		}
		/* flags, width, precision: '*' consumes an argument */
		while (q + 1 < end && strchr("-+ #0123456789.*", q[1])) {
			if (q[1] == '*')
				conv++;
			RT_PUT(*++q);
		}
		if (q + 1 < end && (q[1] == 'd' || q[1] == 'i') &&
		    conv < nargs) {
			const char *m = rt_arg_length(p, args[conv],
						      alen[conv]);

			while (*m)
				RT_PUT(*m++);
		}
		conv++;
	}
	for (q = end + 1; *q; q++)
		RT_PUT(*q);
	if (len)
		buf[n < len ? n : len - 1] = '\0';
#undef RT_PUT
	return n;
}

size_t rt_format_event(struct rt_event_priv *p, char *buf, size_t len)
{
	size_t n;
	unsigned int i;

#define RT_AT (n < len ? buf + n : NULL), (n < len ? len - n : 0)
	n = (size_t)snprintf(buf, len, "name: %s\nID: %u\nformat:\n",
			     p->ev->name, p->id);
	for (i = 0; i < p->nr_fields; i++) {
		n += rt_format_field(&p->fields[i], RT_AT);
		if (i == RT_NR_COMMON - 1)
			n += (size_t)snprintf(RT_AT, "\n");
	}
	n += (size_t)snprintf(RT_AT, "\nprint fmt: ");
	n += rt_format_print_fmt(p, RT_AT);
	n += (size_t)snprintf(RT_AT, "\n");
#undef RT_AT
	return n;
}

ssize_t ringtrace_event_format(const char *system, const char *event,
			       char *buf, size_t len)
{
	struct rt_event_priv *p;
	size_t n;

	/* NULL @buf: only the length is wanted (as snprintf()) */
	if (!buf)
		len = 0;
	if (!event)
		return -EINVAL;
	rt_events_init();
	pthread_mutex_lock(&rt_reg_lock);
	p = rt_event_find(system, event);
	if (!p) {
		pthread_mutex_unlock(&rt_reg_lock);
		return -ENOENT;
	}
	n = rt_format_event(p, buf, len);
	pthread_mutex_unlock(&rt_reg_lock);
	return (ssize_t)n;
}

int ringtrace_event_id(const char *system, const char *event)
{
	struct rt_event_priv *p;
	int id;

	if (!event)
		return -EINVAL;
	rt_events_init();
	pthread_mutex_lock(&rt_reg_lock);
	p = rt_event_find(system, event);
	id = p ? p->id : -ENOENT;
	pthread_mutex_unlock(&rt_reg_lock);
	return id;
}

/* The published events file (ctl.h): every event's system and format. */
void rt_events_dump(FILE *f)
{
	struct rt_ev_table *t;
	char *buf = malloc(65536);
	unsigned int i;

	if (!buf)
		return;
	rt_events_init();
	pthread_mutex_lock(&rt_reg_lock);
	t = atomic_load_explicit(&rt_table, memory_order_relaxed);
	for (i = 0; t && i < t->nr; i++) {
		size_t n;

		if (!t->ev[i])
			continue;
		n = rt_format_event(t->ev[i], buf, 65536);
		if (n >= 65536)
			continue;
		fprintf(f, "system: %s\n%s--\n", t->ev[i]->ev->system, buf);
	}
	pthread_mutex_unlock(&rt_reg_lock);
	free(buf);
}

void ringtrace_available_events(FILE *out)
{
	struct rt_ev_table *t;
	unsigned int i;

	rt_events_init();
	pthread_mutex_lock(&rt_reg_lock);
	t = atomic_load_explicit(&rt_table, memory_order_relaxed);
	for (i = 0; t && i < t->nr; i++)
		if (t->ev[i] && !t->ev[i]->builtin)
			fprintf(out, "%s:%s\n", t->ev[i]->ev->system,
				t->ev[i]->ev->name);
	pthread_mutex_unlock(&rt_reg_lock);
}
