// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output.c - cat trace, cat snapshot and trace_pipe of this process's
 *	instances: the printer (print.c) with the process's own events,
 *	symbols and thread names
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fnproto.h"
#include "print.h"
#include "rcu.h"
#include "symbols.h"
#include "trace.h"

/*
 * Whether TP_printk() may run on @rec: long enough for the event's fixed
 * part, and every __data_loc area inside the record (the record was
 * copied out of a buffer another process can write to).
 */
static bool rt_record_sane(const struct rt_event_priv *p, const void *rec,
			   unsigned int len)
{
	unsigned int i;

	if (len < p->ev->size && len < p->fields[p->nr_fields - 1].offset +
					       p->fields[p->nr_fields - 1].size)
		return false;
	for (i = 0; i < p->nr_fields; i++) {
		const struct rt_field *f = &p->fields[i];
		uint32_t loc;
		unsigned int off, n;

		if (f->kind != RT_FIELD_DYNSTR)
			continue;
		memcpy(&loc, (const char *)rec + f->offset, sizeof(loc));
		off = loc & 0xffff;
		n = loc >> 16;
		/* no NUL is checked: the printer's copy of the record is
		 * followed by zeroes, so a %s stops inside it */
		if (off + n > len)
			return false;
	}
	return true;
}

static bool rt_self_event(void *ctx, struct ringtrace_seq *s, const void *rec,
			  unsigned int len, struct ringtrace_seq *name)
{
	const struct ringtrace_entry *ent = rec;
	struct rt_event_priv *p;
	bool ok = false;

	(void)ctx;
	rt_rcu_read_lock();
	p = rt_event_by_id(ent->type);
	if (p && p->ev->print) {
		/* a copy, inside the section: the name may live in a library
		 * that is unloaded once its event unregisters */
		rt_seq_puts(name, p->ev->name);
		if (rt_record_sane(p, rec, len))
			p->ev->print(s, rec);
		else
			ringtrace_seq_printf(s, "[malformed record of %u bytes]",
					     len);
		ok = true;
	}
	rt_rcu_read_unlock();
	return ok;
}

static size_t rt_self_sym(void *ctx, char *buf, size_t len,
			  unsigned long addr, bool offset)
{
	size_t n;

	(void)ctx;
	n = rt_sym_format(buf, len, addr, offset);
	/* A stripped libringtrace still names its marker function. */
	if (addr && addr == rt_tracing_mark_write_ip() &&
	    !strncmp(buf, "0x", 2))
		n = (size_t)snprintf(buf, len, "tracing_mark_write");
	return n;
}

static bool rt_self_comm(void *ctx, int pid, char *comm, int *tgid)
{
	char path[64];
	FILE *f;

	(void)ctx;
	if (rt_cmdline_find(pid, comm, tgid))
		return true;
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, RT_COMM_LEN, f)) {
		fclose(f);
		return false;
	}
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	*tgid = (int)getpid();
	return true;
}

/*
 * funcgraph-args: the parameters of this process's functions from their
 * DWARF, read when a trace is first printed with arguments and kept (one
 * session for the process; a forked child opens its own).
 */
static pthread_mutex_t rt_self_dwarf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_dwarf *rt_self_dwarf;
static pid_t rt_self_dwarf_pid;
static bool rt_self_dwarf_failed;

/*
 * In a forked child: the session is the parent's, closed at its first
 * use; if another thread of the parent was printing at the fork (the
 * lock held), it may be half updated: left alone, and a fresh lock.
 */
static void rt_self_dwarf_child(void)
{
	if (pthread_mutex_trylock(&rt_self_dwarf_lock) == 0) {
		pthread_mutex_unlock(&rt_self_dwarf_lock);
		return;
	}
	rt_self_dwarf = NULL;
	pthread_mutex_init(&rt_self_dwarf_lock, NULL);
}

static void rt_self_dwarf_atfork(void)
{
	pthread_atfork(NULL, NULL, rt_self_dwarf_child);
}

static bool rt_self_proto(void *ctx, unsigned long func, char *buf,
			  size_t len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	bool ok = false;

	(void)ctx;
	pthread_once(&once, rt_self_dwarf_atfork);
	pthread_mutex_lock(&rt_self_dwarf_lock);
	if (rt_self_dwarf && rt_self_dwarf_pid != getpid()) {
		rt_dwarf_close(rt_self_dwarf);
		rt_self_dwarf = NULL;
		rt_self_dwarf_failed = false;
	}
	if (!rt_self_dwarf && !rt_self_dwarf_failed) {
		rt_self_dwarf = rt_dwarf_open(0);
		rt_self_dwarf_pid = getpid();
		rt_self_dwarf_failed = !rt_self_dwarf;
	}
	if (rt_self_dwarf)
		ok = rt_dwarf_proto(rt_self_dwarf, func, buf, len);
	pthread_mutex_unlock(&rt_self_dwarf_lock);
	return ok;
}

static const struct rt_printer_ops rt_self_ops = {
	.event = rt_self_event,
	.sym = rt_self_sym,
	.comm = rt_self_comm,
	.proto = rt_self_proto,
};

/* What the printer needs of @tr (called with tr->lock held). */
static void rt_cfg_of(struct ringtrace_instance *tr, bool snapshot,
		      struct rt_print_cfg *cfg)
{
	const struct rt_latency_info *li = &rt_latency[tr->id];

	memset(cfg, 0, sizeof(*cfg));
	cfg->opts = atomic_load_explicit(&tr->options, memory_order_relaxed);
	cfg->tracer = atomic_load_explicit(&tr->tracer, memory_order_relaxed);
	cfg->time_start = tr->time_start;
	cfg->max_latency_us = atomic_load_explicit(&tr->max_latency_ns,
						   memory_order_relaxed) /
			      1000;
	cfg->lat_pid = li->pid;
	cfg->lat_cpu = li->cpu;
	cfg->lat_start_ip = li->start_ip;
	cfg->lat_end_ip = li->end_ip;
	if (snapshot && cfg->tracer == RT_TRACER_USERSOFF) {
		cfg->time_start = li->start_ts;
		cfg->min_ts = li->start_ts;
	}
}

int ringtrace_print_trace(struct ringtrace_instance *tr, FILE *out)
{
	struct rt_print_cfg cfg;
	int ret;

	tr = rt_instance_get(tr);
	if (!tr || !out)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	/* The latency tracer shows its worst section, as the kernel's
	 * latency tracers show their max buffer. */
	if (atomic_load_explicit(&tr->tracer, memory_order_relaxed) ==
		    RT_TRACER_USERSOFF && tr->snap) {
		rt_cfg_of(tr, true, &cfg);
		ret = rt_print_view(tr->snap, &cfg, &rt_self_ops, out);
	} else {
		rt_cfg_of(tr, false, &cfg);
		ret = rt_print_view(atomic_load_explicit(&tr->rb,
							 memory_order_relaxed),
				    &cfg, &rt_self_ops, out);
	}
	pthread_mutex_unlock(&tr->lock);
	return ret;
}

int ringtrace_print_snapshot(struct ringtrace_instance *tr, FILE *out)
{
	struct rt_print_cfg cfg;
	int ret;

	tr = rt_instance_get(tr);
	if (!tr || !out)
		return -EINVAL;
	pthread_mutex_lock(&tr->lock);
	if (!tr->snap) {
		pthread_mutex_unlock(&tr->lock);
		fputs("# *** SNAPSHOT NOT ALLOCATED ***\n", out);
		return 0;
	}
	rt_cfg_of(tr, true, &cfg);
	ret = rt_print_view(tr->snap, &cfg, &rt_self_ops, out);
	pthread_mutex_unlock(&tr->lock);
	return ret;
}

/* Each instance's pipe keeps the graph state between reads; used under
 * the instance's lock. */
static struct rt_pipe_state *rt_pipe_state[RT_MAX_INSTANCES];

/* An instance slot is free again: what was kept for it goes. */
void rt_instance_slot_gone(int id)
{
	rt_pipe_state_free(rt_pipe_state[id]);
	rt_pipe_state[id] = NULL;
	memset(&rt_latency[id], 0, sizeof(rt_latency[id]));
}

int ringtrace_read_pipe(struct ringtrace_instance *tr, FILE *out,
			int timeout_ms)
{
	struct rt_print_cfg cfg;
	int ret;

	tr = rt_instance_get(tr);
	if (!tr || !out)
		return -EINVAL;
	if (ringbuf_empty(ringtrace_buffer(tr))) {
		/* Any record wakes trace_pipe (full = 0), as in the kernel. */
		ret = rt_wait_slice(tr, RINGBUF_ALL_CPUS, 0, timeout_ms);
		if (ret <= 0)
			return ret == 0 ? 0 : ret;
	}
	pthread_mutex_lock(&tr->lock);
	if (!rt_pipe_state[tr->id])
		rt_pipe_state[tr->id] = rt_pipe_state_new();
	rt_cfg_of(tr, false, &cfg);
	ret = rt_print_pipe(atomic_load_explicit(&tr->rb, memory_order_relaxed),
			    RINGBUF_ALL_CPUS, &cfg, &rt_self_ops,
			    rt_pipe_state[tr->id], out);
	pthread_mutex_unlock(&tr->lock);
	fflush(out);
	return ret;
}
