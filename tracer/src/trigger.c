// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger.c - event triggers: parsing, listing, adding and removing the
 *	commands of events/SYS/EVENT/trigger
 *
 * The kernel's trace_events_trigger.c, for the commands that carry over
 * to a process: traceon, traceoff, snapshot, stacktrace, enable_event and
 * disable_event, each with an optional ":N" count and an optional
 * "if FILTER", on the program's events and on ftrace:print (the marker
 * records, events/ftrace/print/trigger). What a trigger does when its
 * event is written is in trace.c (rt_trigger_commit(), and
 * rt_print_triggers() for the markers), in the write path.
 *
 * The triggers of an event in an instance are a small array (struct
 * rt_trigger_list), replaced whole on every change and published with
 * RCU like filters: the writer loads it with an acquire load inside its
 * read-side section; the old array, and a removed trigger, are freed
 * after a grace period. A trigger object is shared by the old and the
 * new array, so its count carries over.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "hist.h"
#include "rcu.h"
#include "trace.h"

static const char *const rt_trig_names[RT_TRIG_NR] = {
	[RT_TRIG_TRACEON] = "traceon",
	[RT_TRIG_TRACEOFF] = "traceoff",
	[RT_TRIG_SNAPSHOT] = "snapshot",
	[RT_TRIG_STACKTRACE] = "stacktrace",
	[RT_TRIG_ENABLE_EVENT] = "enable_event",
	[RT_TRIG_DISABLE_EVENT] = "disable_event",
	[RT_TRIG_HIST] = "hist",
	[RT_TRIG_ENABLE_HIST] = "enable_hist",
	[RT_TRIG_DISABLE_HIST] = "disable_hist",
};

#define RT_TRIG_HELP                                                        \
	"# Available triggers:\n"                                           \
	"# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n"

/* What one line written to a trigger file asks for */
struct rt_trig_req {
	int type;
	bool remove;
	long count;
	char sys[128];
	char ev[128];
	const char *filter; /* points into the caller's copy */
};

static void rt_trigger_free(struct rt_trigger *t)
{
	if (!t)
		return;
	rt_hist_free(t);
	rt_filter_free(t->filter);
	free(t->filter_text);
	free(t);
}

#define rt_trig_err(err, errlen, ...)                                       \
	do {                                                                \
		if ((err) && (errlen))                                      \
			snprintf((err), (errlen), __VA_ARGS__);             \
	} while (0)

/*
 * Parse "[!]cmd[:SYS:EVENT][:N] [if FILTER]" in @line (modified).
 * Return: 0 or -EINVAL with @err saying what was wrong.
 */
static int rt_trigger_parse(char *line, struct rt_trig_req *rq, char *err,
			    size_t errlen)
{
	char *cmd, *rest, *tok[4], *save = NULL, *t, *end;
	int i, ntok = 0, want;

	memset(rq, 0, sizeof(*rq));
	rq->count = -1;
	while (isspace((unsigned char)*line))
		line++;
	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	if (*line == '!') {
		rq->remove = true;
		line++;
	}
	cmd = line;
	rest = cmd + strcspn(cmd, " \t\n");
	if (*rest) {
		*rest++ = '\0';
		while (isspace((unsigned char)*rest))
			rest++;
	}
	if (!*cmd) {
		rt_trig_err(err, errlen, "empty trigger");
		return -EINVAL;
	}
	/* hist:...: hist.c parses it, with the event's fields */
	if (!strncmp(cmd, "hist", 4) && (cmd[4] == ':' || !cmd[4])) {
		rq->type = RT_TRIG_HIST;
		goto filter;
	}
	/* (strtok_r() would skip an empty field: "traceoff:" has a count
	 * of nothing, which the kernel refuses as it does a bad count) */
	if (cmd[0] == ':' || cmd[strlen(cmd) - 1] == ':' || strstr(cmd, "::")) {
		rt_trig_err(err, errlen, "empty ':' field in '%s'", cmd);
		return -EINVAL;
	}
	for (t = strtok_r(cmd, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		if (ntok == 4) {
			rt_trig_err(err, errlen, "too many ':' fields in '%s'",
				    line);
			return -EINVAL;
		}
		tok[ntok++] = t;
	}
	if (ntok == 0) {
		rt_trig_err(err, errlen, "empty trigger");
		return -EINVAL;
	}
	rq->type = -1;
	for (i = 0; i < RT_TRIG_NR; i++)
		if (!strcmp(tok[0], rt_trig_names[i]))
			rq->type = i;
	if (rq->type < 0) {
		rt_trig_err(err, errlen,
			    "unknown trigger '%s' (traceon, traceoff, snapshot, stacktrace, enable_event, disable_event, enable_hist, disable_hist, hist)",
			    tok[0]);
		return -EINVAL;
	}
	want = 1;
	if (rq->type == RT_TRIG_ENABLE_EVENT ||
	    rq->type == RT_TRIG_DISABLE_EVENT ||
	    rq->type == RT_TRIG_ENABLE_HIST ||
	    rq->type == RT_TRIG_DISABLE_HIST) {
		if (ntok < 3) {
			rt_trig_err(err, errlen, "%s needs SYSTEM:EVENT",
				    tok[0]);
			return -EINVAL;
		}
		snprintf(rq->sys, sizeof(rq->sys), "%s", tok[1]);
		snprintf(rq->ev, sizeof(rq->ev), "%s", tok[2]);
		want = 3;
	}
	if (ntok > want + 1 && !rq->remove) {
		rt_trig_err(err, errlen, "too many ':' fields after '%s'",
			    tok[0]);
		return -EINVAL;
	}
	/* A removal names the trigger only: what follows it is ignored, so
	 * that a line read back from the file ("traceoff:count=0 if x")
	 * removes that trigger, as in the kernel. */
	if (rq->remove)
		return 0;
	if (ntok == want + 1) {
		char *e;

		if (!isdigit((unsigned char)tok[want][0]))
			goto bad_count;
		errno = 0;
		rq->count = strtol(tok[want], &e, 10);
		if (*e || errno || rq->count < 0)
			goto bad_count;
	}
filter:
	if (*rest) {
		if (strncmp(rest, "if", 2) ||
		    (rest[2] && !isspace((unsigned char)rest[2]))) {
			rt_trig_err(err, errlen,
				    "expected 'if FILTER' after the trigger, not '%s'",
				    rest);
			return -EINVAL;
		}
		rest += 2;
		while (isspace((unsigned char)*rest))
			rest++;
		if (!*rest) {
			rt_trig_err(err, errlen, "'if' without a filter");
			return -EINVAL;
		}
		rq->filter = rest;
	}
	return 0;
bad_count:
	rt_trig_err(err, errlen, "bad count '%s': a number of times is expected",
		    tok[want]);
	return -EINVAL;
}

/* Called with the registry lock held */
static struct rt_trigger_list *rt_trig_list(struct rt_event_priv *p,
					    int inst)
{
	return atomic_load_explicit(&p->triggers[inst], memory_order_relaxed);
}

/*
 * Publish @nl as the triggers of @p in @inst; returns the old list, to
 * be freed after a grace period. Pairs with the acquire load in
 * ringtrace_write_next().
 */
static struct rt_trigger_list *rt_trig_publish(struct rt_event_priv *p,
					       int inst,
					       struct rt_trigger_list *nl)
{
	struct rt_trigger_list *old;
	unsigned int i;

	if (nl && nl->nr == 0) {
		free(nl);
		nl = NULL;
	}
	/* what the write path reads of the list as a whole, from its
	 * triggers as published */
	if (nl) {
		nl->stamps = false;
		nl->hist_only = true;
		for (i = 0; i < nl->nr; i++) {
			nl->stamps = nl->stamps ||
				     rt_hist_timestamps(nl->t[i]);
			nl->hist_only = nl->hist_only &&
					rt_hist_plain_unfiltered(nl->t[i]);
		}
		nl->hist_only = nl->hist_only && !nl->stamps;
	}
	/* Release: the list filled before it is seen; pairs with the
	 * writers' acquire loads (rt_trigger_begin(), ringtrace_write_hist()
	 * and the short path of ringtrace_write_armed(), trace.c). */
	old = atomic_exchange_explicit(&p->triggers[inst], nl,
				       memory_order_acq_rel);
	rt_slow_mask_update(p, inst); /* (its hist bit) */
	return old;
}

/* Whether @p's writes in @inst are armed by plain hist triggers alone:
 * its list is hist_only, and each soft-mode reference of the event is
 * one of its triggers (it is the target of no enable_event or function
 * command). Called with the registry lock held. */
bool rt_trig_hist_only(const struct rt_event_priv *p, int inst)
{
	/* Relaxed: the registry lock orders the lists' changes. */
	const struct rt_trigger_list *l =
		atomic_load_explicit(&p->triggers[inst], memory_order_relaxed);

	return l && l->hist_only && p->sm_ref[inst] > 0 &&
	       l->nr == (unsigned int)p->sm_ref[inst];
}

/* The list without entry @skip (-1: a copy), plus @add if not NULL */
static struct rt_trigger_list *rt_trig_copy(const struct rt_trigger_list *l,
					    int skip, struct rt_trigger *add)
{
	struct rt_trigger_list *nl = calloc(1, sizeof(*nl));
	unsigned int i;

	if (!nl)
		return NULL;
	for (i = 0; l && i < l->nr; i++)
		if ((int)i != skip)
			nl->t[nl->nr++] = l->t[i];
	if (add)
		nl->t[nl->nr++] = add;
	return nl;
}

/* traceon and traceoff are one kind of trigger, enable_event and
 * disable_event another, as in the kernel (one trigger type each) */
static int rt_trig_kind(int type)
{
	switch (type) {
	case RT_TRIG_TRACEOFF:
		return RT_TRIG_TRACEON;
	case RT_TRIG_DISABLE_EVENT:
		return RT_TRIG_ENABLE_EVENT;
	case RT_TRIG_DISABLE_HIST:
		return RT_TRIG_ENABLE_HIST;
	default:
		return type;
	}
}

/* The trigger of @type's kind and of @target in @l: an event holds one
 * of each kind (per target event), and "!traceoff" removes a traceon. */
static int rt_trig_find(const struct rt_trigger_list *l, int type,
			const struct rt_event_priv *target)
{
	unsigned int i;

	for (i = 0; l && i < l->nr; i++)
		if (rt_trig_kind(l->t[i]->type) == rt_trig_kind(type) &&
		    l->t[i]->target == target)
			return (int)i;
	return -1;
}

/* A hist trigger: the one @t matches (an event holds several) */
static int rt_trig_find_hist(const struct rt_trigger_list *l,
			     const struct rt_trigger *t)
{
	unsigned int i;

	for (i = 0; l && i < l->nr; i++)
		if (l->t[i]->type == RT_TRIG_HIST && rt_hist_match(l->t[i], t))
			return (int)i;
	return -1;
}

static bool rt_trig_live(struct ringtrace_instance *tr)
{
	return atomic_load_explicit(&rt_instances[tr->id],
				    memory_order_relaxed) == tr;
}

/* A trigger of @rq on @p, with its filter compiled; *@out, or an error
 * in @err. Called with the registry lock held. */
static int rt_trig_make(struct rt_event_priv *p, const struct rt_trig_req *rq,
			struct rt_event_priv *target, struct rt_trigger **out,
			char *err, size_t errlen)
{
	struct rt_trigger *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->type = rq->type;
	t->target = target;
	atomic_init(&t->count, rq->count);
	if (rq->filter) {
		struct rt_filter_error fe;
		struct rt_field print_fields[8];
		const struct rt_field *fields = p->fields;

		/* the marker's buf, a char[] of no size in its format, is
		 * given one for the filters (rt_print_triggers()) */
		if (p->builtin && p->nr_fields <= 8) {
			memcpy(print_fields, p->fields,
			       p->nr_fields * sizeof(*print_fields));
			for (unsigned int i = 0; i < p->nr_fields; i++)
				if (!strcmp(print_fields[i].name, "buf"))
					print_fields[i].size = RT_PRINT_TRIG_BUF;
			fields = print_fields;
		}
		if (rt_filter_parse(rq->filter, fields, p->nr_fields,
				    &t->filter, &fe)) {
			if (err && errlen)
				rt_filter_error_print(err, errlen, rq->filter,
						      &fe);
			rt_trigger_free(t);
			return -EINVAL;
		}
		t->filter_text = strdup(rq->filter);
		if (!t->filter_text) {
			rt_trigger_free(t);
			return -ENOMEM;
		}
	}
	*out = t;
	return 0;
}

/* Remove trigger @idx of @p's list @old in @inst */
static int rt_trig_remove(struct rt_event_priv *p, int inst,
			  struct rt_trigger_list *old, int idx)
{
	struct rt_trigger *t = old->t[idx];
	struct rt_trigger_list *nl = rt_trig_copy(old, idx, NULL);

	if (!nl)
		return -ENOMEM;
	rt_trig_publish(p, inst, nl);
	rt_soft_mode(p, inst, false);
	if (t->target)
		rt_soft_mode(t->target, inst, false);
	rt_synchronize_rcu();
	free(old);
	rt_trigger_free(t);
	return 0;
}

/* Add trigger @t (taken: freed on failure) to @p's list in @inst.
 * Called with the registry lock held. */
static int rt_trig_add(struct rt_event_priv *p, int inst, struct rt_trigger *t,
		       char *err, size_t errlen)
{
	struct rt_trigger_list *old = rt_trig_list(p, inst), *nl;

	if (old && old->nr >= RT_MAX_TRIGGERS) {
		rt_trig_err(err, errlen, "%d triggers at most per event",
			    RT_MAX_TRIGGERS);
		rt_trigger_free(t);
		return -ENOSPC;
	}
	nl = rt_trig_copy(old, -1, t);
	if (!nl) {
		rt_trigger_free(t);
		return -ENOMEM;
	}
	/* The list is in place before the slow path is armed: a writer
	 * that takes it finds the trigger. */
	rt_trig_publish(p, inst, nl);
	if (t->target)
		rt_soft_mode(t->target, inst, true);
	/* ftrace:print (the markers) has no enable to arm: its writer, the
	 * marker write, looks for triggers itself (rt_print_triggers()) */
	if (!p->builtin)
		rt_soft_mode(p, inst, true);
	rt_synchronize_rcu();
	free(old);
	return 0;
}

/* A hist trigger line @text ("[!]hist:... [if FILTER]", parsed into
 * @rq) on @p in @inst: added, modifying one, or removed. Called with the
 * registry lock held. */
static int rt_trig_hist(struct rt_event_priv *p, int inst,
			const struct rt_trig_req *rq, const char *text,
			char *err, size_t errlen)
{
	struct rt_trigger_list *old = rt_trig_list(p, inst);
	/* the line as written, without the '!': what the hist errors
	 * show and point into */
	const char *line = text + strspn(text, " \t");
	struct rt_trigger *t = NULL;
	int ret, idx;

	line += *line == '!';
	ret = rt_trig_make(p, rq, NULL, &t, err, errlen);
	if (!ret)
		ret = rt_hist_parse(p, inst, line, t, err, errlen);
	if (ret)
		goto out;
	idx = rt_trig_find_hist(old, t);
	if (rq->remove) {
		if (idx >= 0 && rt_hist_busy(old->t[idx])) {
			rt_trig_err(err, errlen,
				    "hist: its variables are in use by another hist trigger");
			ret = -EBUSY;
		} else if (idx >= 0) {
			/* @t first: it refers to the variables the trigger's
			 * field variables made on other events (hist.c), which
			 * go with the trigger's table, as in the kernel */
			rt_trigger_free(t);
			t = NULL;
			ret = rt_trig_remove(p, inst, old, idx);
		}
		goto out;
	}
	if (idx >= 0) {
		if (!rt_hist_modify(old->t[idx], t)) {
			rt_trig_err(err, errlen,
				    "hist:%s:%s: error: Hist trigger already exists\n  Command: %s\n%*s^\n",
				    p->ev->system, p->ev->name, line, 11, "");
			ret = -EEXIST;
		}
		goto out;
	}
	if (rt_hist_modifier_only(t, p, line, err, errlen)) {
		ret = -ENOENT;
		goto out;
	}
	ret = rt_trig_add(p, inst, t, err, errlen);
	t = NULL;
out:
	rt_trigger_free(t);
	return ret;
}

int rt_trigger_hist_line(struct rt_event_priv *p, int inst, const char *line,
			 bool remove, char *err, size_t errlen)
{
	struct rt_trig_req rq;
	size_t n = strlen(line);
	char *copy = malloc(n + 2), *text = malloc(n + 2);
	int ret = -ENOMEM;

	if (copy && text) {
		snprintf(text, n + 2, "%s%s", remove ? "!" : "", line);
		memcpy(copy, text, n + 2);
		ret = rt_trigger_parse(copy, &rq, err, errlen);
		if (!ret && rq.type != RT_TRIG_HIST)
			ret = -EINVAL;
		if (!ret)
			ret = rt_trig_hist(p, inst, &rq, text, err, errlen);
	}
	free(copy);
	free(text);
	return ret;
}

int ringtrace_set_trigger(struct ringtrace_instance *tr, const char *system,
			  const char *event, const char *text, char *err,
			  size_t errlen)
{
	struct rt_trigger_list *old;
	struct rt_event_priv *p, *target = NULL;
	struct rt_trigger *t = NULL;
	struct rt_trig_req rq;
	char *copy;
	int ret, idx;

	tr = rt_instance_get(tr);
	if (err && errlen)
		err[0] = '\0';
	if (!tr || !event || !text)
		return -EINVAL;
	rt_events_init();
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	ret = rt_trigger_parse(copy, &rq, err, errlen);
	if (ret)
		goto out_free;
	/* As the kernel, a snapshot trigger allocates the snapshot buffer
	 * when it is set: the write path cannot. */
	if (rq.type == RT_TRIG_SNAPSHOT && !rq.remove) {
		ret = rt_snapshot_alloc(tr);
		if (ret) {
			rt_trig_err(err, errlen, "snapshot: %s",
				    strerror(-ret));
			goto out_free;
		}
	}
	if (rq.type == RT_TRIG_STACKTRACE && !rq.remove)
		rt_stack_prime();
	/* a hist action's snapshot() needs the buffer too */
	if (rq.type == RT_TRIG_HIST && !rq.remove &&
	    strstr(text, ".snapshot()")) {
		ret = rt_snapshot_alloc(tr);
		if (ret) {
			rt_trig_err(err, errlen, "snapshot: %s",
				    strerror(-ret));
			goto out_free;
		}
	}
	rt_registry_lock();
	if (!rt_trig_live(tr)) {
		ret = -ENOENT;
		goto out;
	}
	p = rt_event_find(system, event);
	if (!p || (p->builtin && p->id != RT_TYPE_PRINT)) {
		rt_trig_err(err, errlen, "no event %s:%s", system ? system : "*",
			    event);
		ret = -ENOENT;
		goto out;
	}
	if (rq.sys[0]) {
		target = rt_event_find(rq.sys, rq.ev);
		if (!target || target->builtin) {
			rt_trig_err(err, errlen, "%s: no event %s:%s",
				    rt_trig_names[rq.type], rq.sys, rq.ev);
			ret = -EINVAL;
			goto out;
		}
	}
	old = rt_trig_list(p, tr->id);
	if (rq.type == RT_TRIG_HIST) {
		ret = rt_trig_hist(p, tr->id, &rq, text, err, errlen);
		goto out;
	}
	idx = rt_trig_find(old, rq.type, target);
	if (rq.remove) {
		/* Removing a trigger that is not there is not an error,
		 * as in the kernel. */
		if (idx >= 0)
			ret = rt_trig_remove(p, tr->id, old, idx);
		goto out;
	}
	if (idx >= 0) {
		rt_trig_err(err, errlen, "%s: this trigger is already set",
			    rt_trig_names[old->t[idx]->type]);
		ret = -EEXIST;
		goto out;
	}
	ret = rt_trig_make(p, &rq, target, &t, err, errlen);
	if (!ret)
		ret = rt_trig_add(p, tr->id, t, err, errlen);
out:
	rt_registry_unlock();
out_free:
	free(copy);
	return ret;
}

size_t ringtrace_show_trigger(struct ringtrace_instance *tr,
			      const char *system, const char *event, char *buf,
			      size_t len)
{
	struct rt_trigger_list *l;
	struct rt_event_priv *p;
	unsigned int i;
	size_t n = 0;

	tr = rt_show_begin(tr, buf, &len);
	if (!tr || !event)
		return 0;
	rt_events_init();
	rt_registry_lock();
	p = rt_event_find(system, event);
	l = p ? rt_trig_list(p, tr->id) : NULL;
	if (!l)
		n = (size_t)snprintf(buf, len, "%s", RT_TRIG_HELP);
	for (i = 0; l && i < l->nr; i++) {
		const struct rt_trigger *t = l->t[i];
		long count = atomic_load_explicit(&t->count,
						  memory_order_relaxed);
		char cnt[32];

		if (count < 0)
			snprintf(cnt, sizeof(cnt), "unlimited");
		else
			snprintf(cnt, sizeof(cnt), "count=%ld", count);
#define RT_PUT(...)                                                         \
	(n += (size_t)snprintf(buf + (n < len ? n : len),                   \
			       n < len ? len - n : 0, __VA_ARGS__))
		if (t->type == RT_TRIG_HIST) {
			n += rt_hist_print_trigger(t, buf + (n < len ? n : len),
						   n < len ? len - n : 0);
			continue;
		}
		if (t->target)
			RT_PUT("%s:%s:%s:%s", rt_trig_names[t->type],
			       t->target->ev->system, t->target->ev->name, cnt);
		else
			RT_PUT("%s:%s", rt_trig_names[t->type], cnt);
		if (t->filter_text)
			RT_PUT(" if %s", t->filter_text);
		RT_PUT("\n");
#undef RT_PUT
	}
	rt_registry_unlock();
	return n;
}

struct rt_soft_show {
	int inst;
	char *buf;
	size_t len, n;
};

static void rt_soft_show_one(struct rt_event_priv *p, void *arg)
{
	struct rt_soft_show *s = arg;

	if (p->sm_ref[s->inst])
		s->n += (size_t)snprintf(s->buf + (s->n < s->len ? s->n : s->len),
					 s->n < s->len ? s->len - s->n : 0,
					 "%s:%s\n", p->ev->system, p->ev->name);
}

size_t ringtrace_show_soft_events(struct ringtrace_instance *tr, char *buf,
				  size_t len)
{
	struct rt_soft_show s = { 0, buf, buf ? len : 0, 0 };

	if (s.len)
		buf[0] = '\0';
	tr = rt_instance_get(tr);
	if (!tr)
		return 0;
	s.inst = tr->id;
	rt_events_init();
	rt_registry_lock();
	rt_events_foreach(rt_soft_show_one, &s);
	rt_registry_unlock();
	return s.n;
}

/* ---- instances and events that go away ------------------------------- */

struct rt_trig_gone {
	int inst;			/* -1: every instance */
	struct rt_event_priv *event;	/* NULL: none */
	struct rt_trigger_list *dead[RT_MAX_INSTANCES * 2];
	struct rt_trigger *dead_t[RT_MAX_TRIGGERS * 2];
	unsigned int nr_dead, nr_dead_t;
	bool overflow;
};

/* Drop the triggers of @p in @inst that @g asks to drop */
static void rt_trig_drop(struct rt_event_priv *p, int inst,
			 struct rt_trig_gone *g)
{
	struct rt_trigger_list *l = rt_trig_list(p, inst), *nl;
	unsigned int i;
	bool all = g->event ? p == g->event : true;

	if (!l)
		return;
	if (g->nr_dead >= RT_MAX_INSTANCES * 2 ||
	    g->nr_dead_t + l->nr > RT_MAX_TRIGGERS * 2) {
		g->overflow = true; /* next round, after the reaping */
		return;
	}
	nl = all ? NULL : rt_trig_copy(NULL, -1, NULL);
	if (!all && !nl)
		return; /* out of memory: leave the list as it was */
	for (i = 0; i < l->nr; i++) {
		struct rt_trigger *t = l->t[i];

		if (!all && t->target != g->event) {
			nl->t[nl->nr++] = t;
			continue;
		}
		if (p != g->event)
			rt_soft_mode(p, inst, false);
		if (t->target && t->target != g->event)
			rt_soft_mode(t->target, inst, false);
		g->dead_t[g->nr_dead_t++] = t;
	}
	if (!all && nl->nr == l->nr) {
		free(nl);
		return;
	}
	rt_trig_publish(p, inst, nl);
	g->dead[g->nr_dead++] = l;
}

static void rt_trig_gone_one(struct rt_event_priv *p, void *arg)
{
	struct rt_trig_gone *g = arg;
	int i;

	for (i = 0; i < RT_MAX_INSTANCES; i++)
		if (g->inst < 0 || i == g->inst)
			rt_trig_drop(p, i, g);
}

/* Wait for the writers, then free what was dropped. */
static void rt_trig_reap(struct rt_trig_gone *g)
{
	unsigned int i;

	if (!g->nr_dead && !g->nr_dead_t)
		return;
	rt_synchronize_rcu();
	for (i = 0; i < g->nr_dead; i++)
		free(g->dead[i]);
	for (i = 0; i < g->nr_dead_t; i++)
		rt_trigger_free(g->dead_t[i]);
	g->nr_dead = g->nr_dead_t = 0;
}

/* Drop the triggers @inst and @event select (see struct rt_trig_gone),
 * a table of lists and triggers at a time: the rare overflow runs
 * another round. */
static void rt_trig_gone_run(int inst, struct rt_event_priv *event)
{
	struct rt_trig_gone *g = calloc(1, sizeof(*g));

	if (!g)
		return;
	g->inst = inst;
	g->event = event;
	do {
		g->overflow = false;
		rt_events_foreach(rt_trig_gone_one, g);
		rt_trig_reap(g);
	} while (g->overflow);
	free(g);
}

/* Called with the registry lock held, before instance @inst is freed. */
void rt_triggers_instance_gone(int inst)
{
	rt_trig_gone_run(inst, NULL);
}

/* Called with the registry lock held, before @p is unregistered: its
 * own triggers and every trigger that switches it go. */
void rt_triggers_event_gone(struct rt_event_priv *p)
{
	rt_trig_gone_run(-1, p);
}
