// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print.c - the trace and trace_pipe text, as the kernel prints them, of
 *	any buffer (see print.h)
 *
 * The kernel's trace.c (s_show, print_trace_line, the headers),
 * trace_output.c (the context columns, the lat format, the built-in
 * events) and trace_functions_graph.c (the function_graph columns),
 * rewritten for records read back from libringbuf. Every format string
 * here reproduces the kernel's output column for column, because users
 * and their scripts (trace-cmd, the function-graph fold script) parse it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fnproto.h"
#include "print.h"
#include "trace.h"

#define RT_MAX_REC 65536
#define RT_GRAPH_DEPTH 128
#define RT_GRAPH_INDENT 2
#define RT_GRAPH_PROCINFO_LENGTH 14

/* ---- trace_seq ---------------------------------------------------------- */

void rt_seq_init(struct ringtrace_seq *s)
{
	memset(s, 0, sizeof(*s));
}

void rt_seq_free(struct ringtrace_seq *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

static bool rt_seq_grow(struct ringtrace_seq *s, size_t need)
{
	size_t size = s->size ? s->size : 256;
	char *nb;

	if (s->len + need + 1 <= s->size)
		return true;
	while (size < s->len + need + 1)
		size *= 2;
	nb = realloc(s->buf, size);
	if (!nb) {
		s->overflow = true;
		return false;
	}
	s->buf = nb;
	s->size = size;
	return true;
}

void rt_seq_write(struct ringtrace_seq *s, const void *p, size_t n)
{
	if (!rt_seq_grow(s, n))
		return;
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

void rt_seq_putc(struct ringtrace_seq *s, char c)
{
	rt_seq_write(s, &c, 1);
}

void rt_seq_puts(struct ringtrace_seq *s, const char *str)
{
	rt_seq_write(s, str, strlen(str));
}

static void rt_seq_vprintf(struct ringtrace_seq *s, const char *fmt,
			   va_list ap) __attribute__((format(printf, 2, 0)));
static void rt_seq_vprintf(struct ringtrace_seq *s, const char *fmt,
			   va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || !rt_seq_grow(s, (size_t)n))
		return;
	vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
	s->len += (size_t)n;
}

static void rt_seq_printf(struct ringtrace_seq *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void rt_seq_printf(struct ringtrace_seq *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rt_seq_vprintf(s, fmt, ap);
	va_end(ap);
}

/*
 * %ps in TP_printk() needs the printer's symbol op; the printer sets it
 * for the duration of a print call (one thread prints at a time per
 * iterator; the pointer is per thread).
 */
static __thread const struct rt_printer_ops *rt_cur_ops;

/* The symbol of @ip: "name" or "name+0x1a/0x50" (the kernel's %ps/%pS). */
static void rt_seq_sym(struct ringtrace_seq *s, unsigned long ip, bool offset)
{
	char buf[512];

	if (rt_cur_ops && rt_cur_ops->sym)
		rt_cur_ops->sym(rt_cur_ops->ctx, buf, sizeof(buf), ip, offset);
	else
		snprintf(buf, sizeof(buf), "0x%lx", ip);
	rt_seq_puts(s, buf);
}

/*
 * ringtrace_seq_printf - printf for TP_printk(): the C conversions, plus
 * %ps and %pS for addresses. Each conversion is handed to vsnprintf()
 * on its own with the argument fetched by its type.
 */
#pragma GCC diagnostic push
/* Each conversion is a piece of the event's own format string. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void ringtrace_seq_printf(struct ringtrace_seq *s, const char *fmt, ...)
{
	va_list ap;
	const char *p = fmt;

	va_start(ap, fmt);
	while (*p) {
		const char *start = p;
		char spec[64];
		int lmod = 0; /* 0 int, 1 long, 2 long long, 3 size_t, 4 intmax, 5 ptrdiff */
		size_t n;

		if (*p != '%') {
			while (*p && *p != '%')
				p++;
			rt_seq_write(s, start, (size_t)(p - start));
			continue;
		}
		p++;
		if (*p == '%') {
			rt_seq_putc(s, '%');
			p++;
			continue;
		}
		while (*p && strchr("-+ #0'", *p))
			p++;
		if (*p == '*') {
			/* a '*' width: not used by TP_printk formats */
			rt_seq_puts(s, "[*]");
			va_end(ap);
			return;
		}
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '.') {
			p++;
			if (*p == '*') {
				rt_seq_puts(s, "[*]");
				va_end(ap);
				return;
			}
			while (*p >= '0' && *p <= '9')
				p++;
		}
		if (*p == 'h') {
			p++;
			if (*p == 'h')
				p++;
		} else if (*p == 'l') {
			p++;
			lmod = 1;
			if (*p == 'l') {
				p++;
				lmod = 2;
			}
		} else if (*p == 'z') {
			p++;
			lmod = 3;
		} else if (*p == 'j') {
			p++;
			lmod = 4;
		} else if (*p == 't') {
			p++;
			lmod = 5;
		}
		if (!*p)
			break;
		n = (size_t)(p - start) + 1;
		if (n >= sizeof(spec))
			n = sizeof(spec) - 1;
		memcpy(spec, start, n);
		spec[n] = '\0';
		switch (*p) {
		case 'd':
		case 'i':
		case 'u':
		case 'x':
		case 'X':
		case 'o':
		case 'c':
			switch (lmod) {
			case 0:
				rt_seq_printf(s, spec, va_arg(ap, int));
				break;
			case 1:
				rt_seq_printf(s, spec, va_arg(ap, long));
				break;
			case 2:
				rt_seq_printf(s, spec, va_arg(ap, long long));
				break;
			case 3:
				rt_seq_printf(s, spec, va_arg(ap, size_t));
				break;
			case 4:
				rt_seq_printf(s, spec, va_arg(ap, intmax_t));
				break;
			default:
				rt_seq_printf(s, spec, va_arg(ap, ptrdiff_t));
			}
			p++;
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);

			rt_seq_printf(s, spec, str ? str : "(null)");
			p++;
			break;
		}
		case 'p': {
			void *ptr = va_arg(ap, void *);

			p++;
			if (*p == 's' || *p == 'S' || *p == 'F' || *p == 'f') {
				rt_seq_sym(s, (unsigned long)ptr,
					   *p == 'S' || *p == 'F');
				p++;
			} else {
				rt_seq_printf(s, spec, ptr);
			}
			break;
		}
		case 'e':
		case 'f':
		case 'g':
		case 'E':
		case 'G':
		case 'a':
			rt_seq_printf(s, spec, va_arg(ap, double));
			p++;
			break;
		default:
			/* unknown conversion: print it as written */
			rt_seq_write(s, start, (size_t)(p - start) + 1);
			p++;
		}
	}
	va_end(ap);
}
#pragma GCC diagnostic pop

/* ---- the iterator over a buffer ---------------------------------------- */

struct rt_graph_cpu {
	int depth;
	int last_pid;
	unsigned long enter_funcs[RT_GRAPH_DEPTH];
};

/**
 * struct rt_iter - what print_trace_line() needs (the kernel's
 *	struct trace_iterator)
 */
struct rt_iter {
	const struct rt_print_cfg *cfg;
	const struct rt_printer_ops *ops;
	struct ringbuf *rb;
	bool consume;
	const struct rt_record_source *src;
	int only_cpu;
	int nr_cpus;
	struct ringbuf_iter **it;
	/* per cpu, the records before min_ts the iterator skipped at its
	 * start (the kernel's skipped_entries), or NULL */
	unsigned long *skipped;
	uint64_t opts;
	int tracer;
	bool lat;
	bool ns;
	uint64_t time_start;
	uint64_t min_ts;
	/* the current record, copied out of the buffer */
	int cpu;
	int on_cpu; /* the CPU it was written on, or -1 (ringbuf_event_cpu()) */
	uint64_t ts;
	unsigned long lost;
	bool lost_unknown;
	unsigned int len;
	unsigned char *rec;
	struct rt_graph_cpu *graph;
	int cpu_width;
	int nr_cpu_bufs;
	struct ringtrace_seq seq;
};

/*
 * The kernel's tracing_iter_reset(): a max-latency buffer holds records
 * from before the section it shows; each cpu's iterator starts past them
 * and counts them, and the header's counts leave them out
 * (rt_get_totals()). Bounded: each iterator ends within two laps of its
 * buffer (ringbuf_iter_advance()).
 */
static int rt_iter_skip_early(struct rt_iter *it)
{
	uint64_t ts;
	int cpu;

	it->skipped = calloc((size_t)it->nr_cpus, sizeof(*it->skipped));
	if (!it->skipped)
		return -ENOMEM;
	for (cpu = 0; cpu < it->nr_cpus; cpu++)
		while (ringbuf_iter_peek(it->it[cpu], &ts) && ts < it->min_ts) {
			it->skipped[cpu]++;
			ringbuf_iter_advance(it->it[cpu]);
		}
	return 0;
}

static int rt_iter_init(struct rt_iter *it, struct ringbuf *rb,
			const struct rt_print_cfg *cfg,
			const struct rt_printer_ops *ops, bool consume)
{
	int cpu, n;

	memset(it, 0, sizeof(*it));
	it->cfg = cfg;
	it->ops = ops;
	it->rb = rb;
	it->consume = consume;
	it->only_cpu = RINGBUF_ALL_CPUS;
	it->nr_cpus = ringbuf_nr_cpus(rb);
	it->nr_cpu_bufs = ringbuf_nr_cpu_buffers(rb);
	it->opts = cfg->opts;
	it->tracer = cfg->tracer;
	it->lat = (it->opts & RT_OPT(RT_OPT_LATENCY_FMT)) != 0;
	it->ns = ringbuf_clock(rb) != RINGBUF_CLOCK_TSC;
	it->time_start = cfg->time_start;
	it->min_ts = cfg->min_ts;
	it->rec = calloc(1, RT_MAX_REC);
	it->graph = calloc((size_t)it->nr_cpus, sizeof(*it->graph));
	if (!it->rec || !it->graph)
		goto fail;
	for (cpu = 0; cpu < it->nr_cpus; cpu++)
		it->graph[cpu].last_pid = -1;
	n = it->nr_cpus > 1 ? it->nr_cpus - 1 : 0;
	it->cpu_width = snprintf(NULL, 0, "%d", n);
	if (!consume) {
		it->it = calloc((size_t)it->nr_cpus, sizeof(*it->it));
		if (!it->it)
			goto fail;
		for (cpu = 0; cpu < it->nr_cpus; cpu++) {
			it->it[cpu] = ringbuf_read_start(rb, cpu);
			if (!it->it[cpu])
				goto fail;
		}
		if (it->min_ts && rt_iter_skip_early(it))
			goto fail;
	}
	rt_seq_init(&it->seq);
	return 0;
fail:
	if (it->it)
		for (cpu = 0; cpu < it->nr_cpus; cpu++)
			ringbuf_read_finish(it->it[cpu]);
	free(it->it);
	free(it->skipped);
	free(it->rec);
	free(it->graph);
	return -ENOMEM;
}

static void rt_iter_fini(struct rt_iter *it)
{
	int cpu;

	if (it->it)
		for (cpu = 0; cpu < it->nr_cpus; cpu++)
			ringbuf_read_finish(it->it[cpu]);
	free(it->it);
	free(it->skipped);
	free(it->rec);
	free(it->graph);
	rt_seq_free(&it->seq);
}

static void rt_iter_copy(struct rt_iter *it, struct ringbuf_event *e)
{
	unsigned int len = ringbuf_event_length(e);

	if (len > RT_MAX_REC)
		len = RT_MAX_REC;
	memcpy(it->rec, ringbuf_event_data(e), len);
	it->len = len;
}

/* A record source's next record in time order (see print.h). */
static bool rt_src_next(struct rt_iter *it)
{
	const struct rt_record_source *src = it->src;
	int cpu, best = -1;
	uint64_t ts, best_ts = 0;
	const void *data;
	unsigned int len;
	long lost;

	for (cpu = 0; cpu < it->nr_cpus; cpu++) {
		if (it->only_cpu != RINGBUF_ALL_CPUS && cpu != it->only_cpu)
			continue;
		if (src->peek(src->ctx, cpu, &ts, &data, &len, NULL) &&
		    (best < 0 || ts < best_ts)) {
			best = cpu;
			best_ts = ts;
		}
	}
	if (best < 0)
		return false;
	src->peek(src->ctx, best, &ts, &data, &len, &lost);
	if (len > RT_MAX_REC)
		len = RT_MAX_REC;
	memcpy(it->rec, data, len);
	it->len = len;
	it->cpu = best;
	it->on_cpu = src->on_cpu ? src->on_cpu(src->ctx, best) : -1;
	it->ts = ts;
	if (lost < 0)
		it->lost_unknown = true;
	else
		it->lost = (unsigned long)lost;
	src->advance(src->ctx, best);
	return true;
}

/* The next record in time order; false at the end. */
static bool rt_iter_next(struct rt_iter *it)
{
	int cpu, best = -1;
	uint64_t ts, best_ts = 0;
	struct ringbuf_event *e, *best_e = NULL;

	it->lost = 0;
	it->lost_unknown = false;
	if (it->src)
		return rt_src_next(it);
	if (it->consume && it->only_cpu != RINGBUF_ALL_CPUS) {
		e = ringbuf_consume(it->rb, it->only_cpu, &it->ts, &it->lost);
		if (!e)
			return false;
		it->cpu = it->only_cpu;
		it->on_cpu = ringbuf_event_cpu(e);
		rt_iter_copy(it, e);
		return true;
	}
	if (it->consume) {
		e = ringbuf_consume_next(it->rb, &it->cpu, &it->ts, &it->lost);
		if (!e)
			return false;
		it->on_cpu = ringbuf_event_cpu(e);
		rt_iter_copy(it, e);
		return true;
	}
	/* Each cpu's iterator holds its own copy of the event it showed,
	 * valid until the next call on that iterator: the best one is used
	 * as peeked, with no second peek a writer could race with. */
	for (cpu = 0; cpu < it->nr_cpus; cpu++) {
		if (it->only_cpu != RINGBUF_ALL_CPUS && cpu != it->only_cpu)
			continue;
		e = ringbuf_iter_peek(it->it[cpu], &ts);
		if (e && (best < 0 || ts < best_ts)) {
			best = cpu;
			best_ts = ts;
			best_e = e;
		}
	}
	if (best < 0)
		return false;
	rt_iter_copy(it, best_e);
	it->cpu = best;
	it->on_cpu = ringbuf_iter_cpu(it->it[best]);
	it->ts = best_ts;
	if (ringbuf_iter_dropped(it->it[best]))
		it->lost_unknown = true;
	ringbuf_iter_advance(it->it[best]);
	return true;
}

/*
 * The next record of cpu buffer @cpu, not consumed: its time stamp, its
 * data and length (valid until the next call on that buffer). False when
 * the buffer has none, or @cpu is not one the iterator shows.
 */
static bool rt_iter_peek_at(struct rt_iter *it, int cpu, uint64_t *ts,
			    const void **data, unsigned int *len)
{
	struct ringbuf_event *e;

	if (it->only_cpu != RINGBUF_ALL_CPUS && cpu != it->only_cpu)
		return false;
	if (it->src)
		return it->src->peek(it->src->ctx, cpu, ts, data, len, NULL);
	e = it->consume ? ringbuf_peek(it->rb, cpu, ts, NULL) :
			  ringbuf_iter_peek(it->it[cpu], ts);
	if (!e)
		return false;
	*data = ringbuf_event_data(e);
	*len = ringbuf_event_length(e);
	return true;
}

/* The time stamp of the record after the current one (lat format). */
static uint64_t rt_iter_next_ts(struct rt_iter *it)
{
	uint64_t ts, best = 0;
	bool found = false;
	int cpu;

	for (cpu = 0; cpu < it->nr_cpus; cpu++) {
		const void *data;
		unsigned int len;

		if (rt_iter_peek_at(it, cpu, &ts, &data, &len) &&
		    (!found || ts < best)) {
			best = ts;
			found = true;
		}
	}
	return found ? best : it->ts;
}

/*
 * Whether another cpu buffer's next record is one of thread @pid's from
 * before @ts (or at it): then the thread moved between the current
 * record and @ts, and the record at @ts is not the one after it.
 */
static bool rt_iter_thread_elsewhere(struct rt_iter *it, int pid, uint64_t ts)
{
	struct ringtrace_entry ent;
	int cpu;

	for (cpu = 0; cpu < it->nr_cpus; cpu++) {
		const void *data;
		unsigned int len;
		uint64_t t;

		if (cpu == it->cpu ||
		    !rt_iter_peek_at(it, cpu, &t, &data, &len) || t > ts ||
		    len < sizeof(ent))
			continue;
		memcpy(&ent, data, sizeof(ent));
		if (ent.pid == pid)
			return true;
	}
	return false;
}

/*
 * Whether @ret (the record after the current one on its cpu buffer, at
 * @ts) closes the current graph entry. Userspace: besides the kernel's
 * checks (a return, same pid, same function), the thread must not have
 * a record on another cpu buffer in between. A thread that leaves a CPU
 * inside a function and comes back to it inside a later call of the
 * same function has that later call's return next on this buffer; the
 * kernel's check alone folds the two calls into one leaf. Only the
 * heads of the other buffers are seen here, so the thread's record may
 * be behind another thread's there: the return must also belong to a
 * call that began no later than the entry's stamp (its calltime is the
 * entry's clock read, which the entry's stamp equals or, raised to the
 * buffer's last stamp, passes), which a later call's return never does.
 * That holds where calltime and rettime are read on the buffer's own
 * clock, as the return's stamp shows: at or after its rettime (raised,
 * it can be well after). A kernel buffer whose clock runs behind
 * trace_clock_local() (counter, uptime) keeps the kernel's checks alone.
 */
static bool rt_iter_returns_here(struct rt_iter *it,
				 const struct rt_graph_ret_entry *ret,
				 uint64_t ts)
{
	const struct rt_graph_ent_entry *cur = (const void *)it->rec;
	bool own_clock = ret->rettime <= ts;

	return rt_type_graph_exit(ret->ent.type) &&
	       ret->ent.pid == cur->ent.pid && ret->func == cur->func &&
	       (!own_clock || ret->calltime <= it->ts) &&
	       !rt_iter_thread_elsewhere(it, cur->ent.pid, ts);
}

/*
 * The record after the current one on the same cpu buffer, if it is
 * the graph return that closes the current graph entry: consumed and
 * copied to @ret (the kernel's get_return_for_leaf()).
 */
static bool rt_iter_leaf_return(struct rt_iter *it,
				struct rt_graph_ret_entry *ret)
{
	struct ringbuf_event *e;
	uint64_t ts;

	if (it->src) {
		const void *data;
		unsigned int len;
		long lost = 0;

		/* A return that events were lost before is not folded: its
		 * own line carries the LOST line before it. */
		if (!it->src->peek(it->src->ctx, it->cpu, &ts, &data, &len,
				   &lost) ||
		    lost || !rt_graph_ret_read(data, len, ret))
			return false;
		if (!rt_iter_returns_here(it, ret, ts))
			return false;
		it->src->advance(it->src->ctx, it->cpu);
		return true;
	}
	{
		unsigned long lost = 0;

		/* as above: a return with a LOST line before it stays apart
		 * (the peek reports the count and leaves it for the consume) */
		e = it->consume ? ringbuf_peek(it->rb, it->cpu, &ts, &lost) :
				  ringbuf_iter_peek(it->it[it->cpu], &ts);
		if (!e || lost)
			return false;
	}
	/* copied out: records are only 4-byte aligned */
	if (!rt_graph_ret_read(ringbuf_event_data(e), ringbuf_event_length(e),
			       ret) ||
	    !rt_iter_returns_here(it, ret, ts))
		return false;
	if (it->consume)
		ringbuf_consume(it->rb, it->cpu, NULL, NULL);
	else
		ringbuf_iter_advance(it->it[it->cpu]);
	return true;
}

/* ---- context columns ---------------------------------------------------- */

static void rt_find_comm(struct rt_iter *it, int pid, char *comm, int *tgid)
{
	*tgid = 0;
	if (pid == 0) {
		strcpy(comm, "<idle>");
		return;
	}
	if (it->ops->comm && it->ops->comm(it->ops->ctx, pid, comm, tgid))
		return;
	strcpy(comm, "<...>");
}

static void rt_print_lat_fmt(struct ringtrace_seq *s,
			     const struct ringtrace_entry *ent)
{
	char hardsoft = (ent->flags & RINGTRACE_FLAG_HARDIRQ) ? 'h' : '.';

	rt_seq_printf(s, "%c%c%c", '.', '.', hardsoft);
	if (ent->preempt_count & 0xf)
		rt_seq_printf(s, "%x", ent->preempt_count & 0xf);
	else
		rt_seq_putc(s, '.');
	if (ent->preempt_count & 0xf0)
		rt_seq_printf(s, "%x", ent->preempt_count >> 4);
	else
		rt_seq_putc(s, '.');
}

static unsigned long long rt_ns2usecs(uint64_t ns)
{
	return (ns + 500) / 1000;
}

static void rt_print_time(struct rt_iter *it, struct ringtrace_seq *s,
			  uint64_t ts)
{
	if (it->ns) {
		unsigned long long t = rt_ns2usecs(ts);

		rt_seq_printf(s, " %5llu.%06llu", t / 1000000, t % 1000000);
	} else {
		rt_seq_printf(s, " %12llu", (unsigned long long)ts);
	}
}

/*
 * The name of cpu buffer @cpu in the text: its number for a CPU buffer,
 * "S<n>" for spare n (a buffer of no CPU, ringbuf_is_spare()), zero-padded
 * to @width characters.
 */
static const char *rt_cpu_name(const struct rt_iter *it, int cpu, int width,
			       char buf[16])
{
	if (cpu < it->nr_cpu_bufs)
		snprintf(buf, 16, "%0*d", width, cpu);
	else
		snprintf(buf, 16, "S%0*d", width > 1 ? width - 1 : 1,
			 cpu - it->nr_cpu_bufs);
	return buf;
}

/* The CPU the current record was written on, as the CPU column shows it:
 * its CPU buffer's number, or for a record of a spare the CPU its CPU
 * note names ("S<n>" where none does). */
static int rt_rec_cpu(const struct rt_iter *it)
{
	return it->cpu >= it->nr_cpu_bufs && it->on_cpu >= 0 ? it->on_cpu :
							       it->cpu;
}

static const char *rt_rec_cpu_name(const struct rt_iter *it, int width,
				   char buf[16])
{
	if (it->cpu >= it->nr_cpu_bufs && it->on_cpu >= 0) {
		snprintf(buf, 16, "%0*d", width, it->on_cpu);
		return buf;
	}
	return rt_cpu_name(it, it->cpu, width, buf);
}

static void rt_print_context(struct rt_iter *it)
{
	const struct ringtrace_entry *ent = (const void *)it->rec;
	struct ringtrace_seq *s = &it->seq;
	char comm[RT_COMM_LEN], cpu[16];
	int tgid;

	rt_find_comm(it, ent->pid, comm, &tgid);
	rt_seq_printf(s, "%16s-%-7d ", comm, ent->pid);
	if (it->opts & RT_OPT(RT_OPT_RECORD_TGID)) {
		if (!tgid)
			rt_seq_puts(s, "(-------) ");
		else
			rt_seq_printf(s, "(%7d) ", tgid);
	}
	rt_seq_printf(s, "[%s] ", rt_rec_cpu_name(it, 3, cpu));
	if (it->opts & RT_OPT(RT_OPT_IRQ_INFO))
		rt_print_lat_fmt(s, ent);
	rt_print_time(it, s, it->ts);
	rt_seq_puts(s, ": ");
}

static char rt_find_mark(unsigned long long d)
{
	if (d > 1000000000ULL)
		return '$';
	if (d > 100000000ULL)
		return '@';
	if (d > 10000000ULL)
		return '*';
	if (d > 1000000ULL)
		return '#';
	if (d > 100000ULL)
		return '!';
	if (d > 10000ULL)
		return '+';
	return ' ';
}

static void rt_print_lat_context(struct rt_iter *it)
{
	const struct ringtrace_entry *ent = (const void *)it->rec;
	struct ringtrace_seq *s = &it->seq;
	uint64_t next_ts = rt_iter_next_ts(it);
	unsigned long long abs_usecs, rel_usecs;
	char comm[RT_COMM_LEN], cpu[16];
	int tgid;

	rt_find_comm(it, ent->pid, comm, &tgid);
	rt_seq_printf(s, "%8.8s-%-7d %3s", comm, ent->pid,
		      rt_rec_cpu_name(it, 1, cpu));
	rt_print_lat_fmt(s, ent);
	abs_usecs = rt_ns2usecs(it->ts - it->time_start);
	rel_usecs = rt_ns2usecs(next_ts - it->ts);
	rt_seq_printf(s, " %4lldus%c: ", abs_usecs,
		      rt_find_mark(rel_usecs * 1000));
}

/* ---- the records -------------------------------------------------------- */

static void rt_print_ip_sym(struct rt_iter *it, unsigned long ip)
{
	if (!ip) {
		rt_seq_putc(&it->seq, '0');
		return;
	}
	rt_seq_sym(&it->seq, ip, it->opts & RT_OPT(RT_OPT_SYM_OFFSET));
	if (it->opts & RT_OPT(RT_OPT_SYM_ADDR))
		rt_seq_printf(&it->seq, " <%016lx>", ip);
}

/* ---- the built-in records' hooks (entries_list.h) ------------------------ */

static void rt_graph_args(struct rt_iter *it, unsigned long func,
			  const unsigned long *args);

/*
 * The kernel's print_fn_trace(): "func <-parent", and with func-args'
 * record (the argument registers after the parent) "func(a=1, b=2)
 * <-parent", the arguments printed as funcgraph-args prints them.
 */
static void rt_print_fn_entry(struct rt_iter *it, bool msg_only)
{
	const struct rt_fn_entry *f = (const void *)it->rec;
	struct ringtrace_seq *s = &it->seq;

	(void)msg_only;
	rt_print_ip_sym(it, f->ip);
	if (it->len >= RT_FN_ARGS_SIZE) {
		unsigned long argv[RT_FN_NR_ARGS];

		/* records are only 4-byte aligned in the buffer */
		memcpy(argv, (const char *)it->rec + sizeof(*f), sizeof(argv));
		rt_graph_args(it, f->ip, argv);
	}
	if ((it->opts & RT_OPT(RT_OPT_PRINT_PARENT)) && f->parent_ip) {
		rt_seq_puts(s, " <-");
		rt_print_ip_sym(it, f->parent_ip);
	}
	rt_seq_putc(s, '\n');
}

static void rt_print_print_entry(struct rt_iter *it, bool msg_only)
{
	const struct rt_print_entry *f = (const void *)it->rec;
	struct ringtrace_seq *s = &it->seq;
	size_t max = it->len - sizeof(*f);

	if (!msg_only) {
		rt_print_ip_sym(it, f->ip);
		rt_seq_puts(s, ": ");
	}
	rt_seq_write(s, f->buf, strnlen(f->buf, max));
}

/* the kernel's kernel_stack: one " => " line per frame */
static void rt_print_stack_entry(struct rt_iter *it, bool msg_only)
{
	const struct rt_stack_entry *f = (const void *)it->rec;
	struct ringtrace_seq *s = &it->seq;
	size_t k, n = f->size > 0 ? (size_t)f->size : 0,
		  max = (it->len - sizeof(*f)) / sizeof(f->caller[0]);

	(void)msg_only;
	rt_seq_puts(s, "<stack trace>\n");
	for (k = 0; k < n && k < max; k++) {
		rt_seq_puts(s, " => ");
		rt_print_ip_sym(it, f->caller[k]);
		rt_seq_putc(s, '\n');
	}
}

static void rt_print_raw_data_entry(struct rt_iter *it, bool msg_only)
{
	const struct rt_raw_data_entry *f = (const void *)it->rec;
	struct ringtrace_seq *s = &it->seq;
	size_t i;

	(void)msg_only;
	rt_seq_printf(s, "# %x buf:", f->id);
	for (i = 0; i + sizeof(*f) < it->len; i++)
		rt_seq_printf(s, " %02x", (unsigned char)f->buf[i]);
	rt_seq_putc(s, '\n');
}

/*
 * Each built-in record's hook and shortest length, by type, from the
 * list; the function_graph records (RT_FE_NO_PRINT) are the graph
 * printer's (rt_print_line()).
 */
struct rt_entry_printer {
	void (*print)(struct rt_iter *it, bool msg_only);
	uint16_t size;
};
#define RT_FE_NO_PRINT NULL
#define RT_FE_FIELD(type, name, kind)
#define RT_FE_ARRAY(type, name, kind)
#define RT_FE_ARRAY_PACKED(type, name, kind)
#define RT_FTRACE_ENTRY(ev_name, ev_struct, ev_id, ev_attr, ev_fields,    \
			ev_fmt, ev_print)                                    \
	[ev_id] = { ev_print, sizeof(struct ev_struct) },
static const struct rt_entry_printer rt_entry_printers[RT_TYPE_FIRST_DYNAMIC] = {
#include "entries_list.h"
};
#undef RT_FTRACE_ENTRY
#undef RT_FE_ARRAY_PACKED
#undef RT_FE_ARRAY
#undef RT_FE_FIELD
#undef RT_FE_NO_PRINT

/* The record's text after the context (the event's trace() output). */
static void rt_print_event(struct rt_iter *it, bool msg_only)
{
	const struct ringtrace_entry *ent = (const void *)it->rec;
	struct ringtrace_seq *s = &it->seq;
	const struct rt_entry_printer *p =
		ent->type < RT_TYPE_FIRST_DYNAMIC ? &rt_entry_printers[ent->type] :
						    NULL;

	if (p && p->print) {
		/* A record too short for its type (a corrupt buffer, or one
		 * that another process wrote) is reported, never read past
		 * its end. */
		if (it->len < p->size) {
			rt_seq_printf(s, "[short record: type %d, %u bytes]\n",
				      ent->type, it->len);
			return;
		}
		p->print(it, msg_only);
		return;
	}
	{
		/* "<name>: " goes before the event's text: print the text
		 * into its own buffer first, to learn the name */
		struct ringtrace_seq body, name;

		rt_seq_init(&body);
		rt_seq_init(&name);
		if (it->ops->event &&
		    it->ops->event(it->ops->ctx, &body, it->rec, it->len,
				   &name) && name.len) {
			/* the op's copy of the name (NUL-terminated) */
			rt_seq_printf(s, "%s: ", name.buf);
			if (body.len)
				rt_seq_write(s, body.buf, body.len);
			rt_seq_putc(s, '\n');
		} else {
			rt_seq_printf(s, "Unknown type %d\n", ent->type);
		}
		rt_seq_free(&name);
		rt_seq_free(&body);
	}
}

static void rt_put_hex(struct ringtrace_seq *s, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	/* Most significant byte first, as trace_seq_putmem_hex() does on a
	 * little-endian machine. */
	for (i = n; i-- > 0;)
		rt_seq_printf(s, "%02x", b[i]);
	rt_seq_putc(s, ' ');
}

static void rt_print_raw_like(struct rt_iter *it, int mode)
{
	const struct ringtrace_entry *ent = (const void *)it->rec;
	struct ringtrace_seq *s = &it->seq;
	bool ctx = it->opts & RT_OPT(RT_OPT_CONTEXT_INFO);
	int pid = ent->pid, cpu = rt_rec_cpu(it);
	unsigned long long ts = it->ts;
	void (*put)(struct ringtrace_seq *s, const void *p, size_t n);

	if (mode == RT_OPT_RAW) {
		if (ctx)
			rt_seq_printf(s, "%d %d %llu ", pid, cpu, ts);
		if (ent->type == RT_TYPE_FN) {
			const struct rt_fn_entry *f = (const void *)it->rec;

			rt_seq_printf(s, "%lx %lx\n", f->ip, f->parent_ip);
		} else if (ent->type == RT_TYPE_PRINT) {
			const struct rt_print_entry *f = (const void *)it->rec;

			rt_seq_printf(s, "# %lx %.*s", f->ip,
				      (int)strnlen(f->buf, it->len > sizeof(*f) ?
							   it->len - sizeof(*f) :
							   0),
				      f->buf);
		} else {
			rt_seq_printf(s, "type: %d\n", ent->type);
		}
		return;
	}
	/* hex and bin: the same fields, as hex words or as raw bytes */
	put = mode == RT_OPT_HEX ? rt_put_hex : rt_seq_write;
	if (ctx) {
		put(s, &pid, sizeof(pid));
		put(s, &cpu, sizeof(cpu));
		put(s, &ts, sizeof(ts));
	}
	if (ent->type == RT_TYPE_FN) {
		const struct rt_fn_entry *f = (const void *)it->rec;

		put(s, &f->ip, sizeof(f->ip));
		put(s, &f->parent_ip, sizeof(f->parent_ip));
	} else {
		rt_seq_printf(s, "type: %d\n", ent->type);
	}
	if (mode == RT_OPT_HEX)
		rt_seq_putc(s, '\n');
}

/* ---- function_graph ----------------------------------------------------- */

/* One item of a prototype: "name:kind" up to a blank. */
struct rt_proto_item {
	char name[128];
	char kind;  /* p s u e f S ? or '.' for the variable arguments */
	int size;
	char what[16]; /* S: STRUCT, UNION, INT */
};

/* The next item of *@p (fnproto.h); false at the end. */
static bool rt_proto_next(const char **p, struct rt_proto_item *it)
{
	const char *s = *p, *colon, *end;
	size_t n;

	while (*s == ' ')
		s++;
	if (!*s)
		return false;
	end = s + strcspn(s, " ");
	*p = end;
	memset(it, 0, sizeof(*it));
	if (end - s == 3 && !strncmp(s, "...", 3)) {
		it->kind = '.';
		return true;
	}
	colon = memchr(s, ':', (size_t)(end - s));
	if (!colon) {
		it->kind = '?';
		return true;
	}
	n = (size_t)(colon - s);
	if (n >= sizeof(it->name))
		n = sizeof(it->name) - 1;
	memcpy(it->name, s, n);
	s = colon + 1;
	it->kind = s < end ? *s++ : '?';
	while (s < end && *s >= '0' && *s <= '9')
		it->size = it->size * 10 + (*s++ - '0');
	if (it->kind == 'S' && s < end && *s == ':') {
		n = (size_t)(end - s - 1);
		if (n >= sizeof(it->what))
			n = sizeof(it->what) - 1;
		memcpy(it->what, s + 1, n);
	}
	if (!strchr("psuefS", it->kind) || (it->kind != 'p' && !it->size))
		it->kind = '?';
	return true;
}

/* @v cut to @size bytes, sign-extended for @sign. */
static long rt_arg_narrow(unsigned long v, int size, bool sign)
{
	int bits = size * 8;

	if (bits <= 0 || bits >= 64)
		return (long)v;
	v &= (1ul << bits) - 1;
	if (sign && (v & (1ul << (bits - 1))))
		v |= ~0ul << bits;
	return (long)v;
}

void rt_print_fn_args(struct ringtrace_seq *s, const char *proto,
		      const unsigned long *args)
{
	struct rt_proto_item it;
	int a = 0, p, x;

	rt_seq_putc(s, '(');
	if (!proto) {
		/* no debug information: the registers, as libtraceevent's
		 * tep_btf_print_args() prints them without BTF */
		for (a = 0; a < RT_GRAPH_NR_ARGS; a++)
			rt_seq_printf(s, "%s%lx", a ? ", " : "", args[a]);
		rt_seq_putc(s, ')');
		return;
	}
	for (p = 0; rt_proto_next(&proto, &it); p++) {
		if (p)
			rt_seq_puts(s, ", ");
		if (it.kind == '.') {
			rt_seq_puts(s, "...");
			break;
		}
		/*
		 * Userspace: the kernel's arguments are all integers or
		 * pointers; a program's floating-point ones travel in SSE
		 * registers (not recorded) and its aggregates of more than
		 * 16 bytes in memory: neither takes an integer register,
		 * and neither has a value to print.
		 */
		if (it.kind == 'f' || (it.kind == 'S' && it.size > 16)) {
			if (it.name[0])
				rt_seq_printf(s, "%s=", it.name);
			rt_seq_printf(s, "(%s)",
				      it.kind == 'f' ? "FLOAT" : it.what);
			continue;
		}
		/* only what the registers hold (six) */
		if (a == RT_GRAPH_NR_ARGS) {
			rt_seq_puts(s, "...");
			break;
		}
		if (it.name[0])
			rt_seq_printf(s, "%s=", it.name);
		/*
		 * Userspace: the upper bits of a register that holds a
		 * narrower integer are undefined in the x86-64 ABI; the
		 * value is cut to its type's size (the kernel prints the
		 * whole register). Unsigned integers in hexadecimal, signed
		 * ones and enumerations in decimal, as the kernel has since
		 * its "print unsigned ints as hex" change (late 2025).
		 */
		switch (it.kind) {
		case 'p':
			rt_seq_printf(s, "0x%lx", args[a]);
			break;
		case 's':
		case 'e':
			rt_seq_printf(s, "%ld",
				      rt_arg_narrow(args[a], it.size, true));
			break;
		case 'u':
			rt_seq_printf(s, "0x%lx",
				      (unsigned long)rt_arg_narrow(
					      args[a], it.size, false));
			break;
		case 'S':
			rt_seq_printf(s, "(%s)[0x%lx", it.what, args[a]);
			for (x = (int)sizeof(long); x < it.size;
			     x += (int)sizeof(long)) {
				rt_seq_putc(s, ':');
				if (++a == RT_GRAPH_NR_ARGS) {
					rt_seq_puts(s, "...]");
					rt_seq_putc(s, ')');
					return;
				}
				rt_seq_printf(s, "0x%lx", args[a]);
			}
			rt_seq_putc(s, ']');
			break;
		default:
			rt_seq_printf(s, "?0x%lx", args[a]);
			break;
		}
		a++;
	}
	rt_seq_putc(s, ')');
}

void rt_print_fn_retval(struct ringtrace_seq *s, unsigned long retval,
			bool hex)
{
	unsigned long err = 0;

	if (retval && !hex) {
		/* an int error code in the lower half */
		if ((retval & (1ul << 31)) && !(retval >> 32))
			err = (unsigned long)(long)(int)retval;
		else
			err = retval;
		/* the kernel's IS_ERR_VALUE(): -4095..-1 */
		if (err < (unsigned long)-4095)
			err = 0;
	}
	if (hex || !err)
		rt_seq_printf(s, " = 0x%lx", retval);
	else
		rt_seq_printf(s, " = %ld", (long)err);
}

static uint32_t rt_graph_flags(struct rt_iter *it)
{
	return (uint32_t)(it->opts >> RT_OPT_FUNCGRAPH_OVERRUN);
}
#define GF(o) (1u << ((o) - RT_OPT_FUNCGRAPH_OVERRUN))

enum { RT_FILL_NONE, RT_FILL_FULL };

static void rt_graph_cpu(struct rt_iter *it)
{
	char name[16];

	rt_seq_printf(&it->seq, " %*s) ", it->cpu_width,
		      rt_rec_cpu_name(it, 1, name));
}

static void rt_graph_proc(struct rt_iter *it, int pid)
{
	char comm[RT_COMM_LEN], pid_str[12];
	int tgid, len, spaces = 0, i;

	rt_find_comm(it, pid, comm, &tgid);
	comm[7] = '\0';
	snprintf(pid_str, sizeof(pid_str), "%d", pid);
	len = (int)(strlen(comm) + strlen(pid_str) + 1);
	if (len < RT_GRAPH_PROCINFO_LENGTH)
		spaces = RT_GRAPH_PROCINFO_LENGTH - len;
	for (i = 0; i < spaces / 2; i++)
		rt_seq_putc(&it->seq, ' ');
	rt_seq_printf(&it->seq, "%s-%s", comm, pid_str);
	for (i = 0; i < spaces - spaces / 2; i++)
		rt_seq_putc(&it->seq, ' ');
}

/* A context switch on a cpu buffer: the kernel's verif_pid(). */
static void rt_graph_verif_pid(struct rt_iter *it, int pid)
{
	struct rt_graph_cpu *g = &it->graph[it->cpu];
	int prev = g->last_pid;

	if (prev == pid)
		return;
	g->last_pid = pid;
	if (prev == -1)
		return;
	rt_seq_puts(&it->seq, " ------------------------------------------\n");
	rt_graph_cpu(it);
	rt_graph_proc(it, prev);
	rt_seq_puts(&it->seq, " => ");
	rt_graph_proc(it, pid);
	rt_seq_puts(&it->seq, "\n ------------------------------------------\n\n");
}

static void rt_graph_prologue(struct rt_iter *it)
{
	const struct ringtrace_entry *ent = (const void *)it->rec;
	uint32_t fl = rt_graph_flags(it);

	rt_graph_verif_pid(it, ent->pid);
	if (!(it->opts & RT_OPT(RT_OPT_CONTEXT_INFO)))
		return;
	if (fl & GF(RT_OPT_FUNCGRAPH_ABSTIME)) {
		unsigned long long t = it->ts;

		rt_seq_printf(&it->seq, "%5llu.%06llu |  ", t / 1000000000ULL,
			      (t % 1000000000ULL) / 1000);
	}
	if (fl & GF(RT_OPT_FUNCGRAPH_CPU))
		rt_graph_cpu(it);
	if (fl & GF(RT_OPT_FUNCGRAPH_PROC)) {
		rt_graph_proc(it, ent->pid);
		rt_seq_puts(&it->seq, " | ");
	}
	if (it->lat) {
		rt_seq_putc(&it->seq, ' ');
		rt_print_lat_fmt(&it->seq, ent);
		rt_seq_puts(&it->seq, " | ");
	}
}

static void rt_graph_duration(struct rt_iter *it, unsigned long long d,
			      int fill)
{
	struct ringtrace_seq *s = &it->seq;
	uint32_t fl = rt_graph_flags(it);
	char usecs[24], nsecs[8];
	unsigned long long nrem = d % 1000;
	int len, i;

	if (!(fl & GF(RT_OPT_FUNCGRAPH_DURATION)) ||
	    !(it->opts & RT_OPT(RT_OPT_CONTEXT_INFO)))
		return;
	if (fill == RT_FILL_FULL) {
		rt_seq_puts(s, "              |  ");
		return;
	}
	if (fl & GF(RT_OPT_FUNCGRAPH_OVERHEAD))
		rt_seq_printf(s, "%c ", rt_find_mark(d));
	else
		rt_seq_puts(s, "  ");
	snprintf(usecs, sizeof(usecs), "%llu", d / 1000);
	rt_seq_puts(s, usecs);
	len = (int)strlen(usecs);
	if (len < 7) {
		size_t slen = sizeof(nsecs) < (size_t)(8 - len) ?
				      sizeof(nsecs) :
				      (size_t)(8 - len);

		if (slen > 5)
			slen = 5;
		snprintf(nsecs, slen, "%03llu", nrem);
		rt_seq_printf(s, ".%s", nsecs);
		len += (int)strlen(nsecs) + 1;
	}
	rt_seq_puts(s, " us ");
	for (i = len; i < 8; i++)
		rt_seq_putc(s, ' ');
	rt_seq_puts(s, "|  ");
}

static void rt_graph_indent(struct rt_iter *it, int depth)
{
	int i;

	/* the depth comes from the record: a corrupt one must not make
	 * a line of a billion blanks */
	if (depth < 0)
		depth = 0;
	if (depth >= RT_GRAPH_DEPTH)
		depth = RT_GRAPH_DEPTH - 1;
	for (i = 0; i < depth * RT_GRAPH_INDENT; i++)
		rt_seq_putc(&it->seq, ' ');
}

/*
 * "(...)" for an entry record with the argument registers (@args; NULL:
 * a record without them, "()"): print_function_args() with the
 * prototype the caller's op gives.
 */
static void rt_graph_args(struct rt_iter *it, unsigned long func,
			  const unsigned long *args)
{
	char proto[RT_FNPROTO_MAX];

	if (!args) {
		rt_seq_puts(&it->seq, "()");
		return;
	}
	rt_print_fn_args(&it->seq,
			 rt_cur_ops && rt_cur_ops->proto &&
					 rt_cur_ops->proto(rt_cur_ops->ctx,
							   func, proto,
							   sizeof(proto)) ?
				 proto :
				 NULL,
			 args);
}

/* Whether funcgraph-retval prints @r's return value (not a record of
 * the -finstrument-functions hooks, which have none). */
static bool rt_graph_has_retval(struct rt_iter *it,
				const struct rt_graph_ret_entry *r)
{
	return (rt_graph_flags(it) & GF(RT_OPT_FUNCGRAPH_RETVAL)) &&
	       !(r->overrun & RT_GRAPH_NO_RETVAL);
}

static void rt_graph_entry(struct rt_iter *it)
{
	struct rt_graph_ent_entry call;
	struct rt_graph_ret_entry ret;
	struct rt_graph_cpu *g = &it->graph[it->cpu];
	unsigned long argv[RT_GRAPH_NR_ARGS], *args = NULL;

	memcpy(&call, it->rec, sizeof(call));
	/* copied too before the leaf's return is taken (the kernel's
	 * save_buf): the record may go with it */
	if (it->len >= RT_GRAPH_ENT_ARGS_SIZE) {
		memcpy(argv, (const char *)it->rec + sizeof(call),
		       sizeof(argv));
		args = argv;
	}
	rt_graph_prologue(it);
	if (rt_iter_leaf_return(it, &ret)) {
		g->depth = call.depth - 1;
		if (call.depth >= 0 && call.depth < RT_GRAPH_DEPTH)
			g->enter_funcs[call.depth] = 0;
		rt_graph_duration(it, ret.rettime - ret.calltime, RT_FILL_NONE);
		rt_graph_indent(it, call.depth);
		rt_seq_sym(&it->seq, ret.func, false);
		rt_graph_args(it, ret.func, args);
		rt_seq_putc(&it->seq, ';');
		if (rt_graph_has_retval(it, &ret)) {
			rt_seq_puts(&it->seq, " /*");
			rt_print_fn_retval(&it->seq, ret.retval,
					   rt_graph_flags(it) &
						   GF(RT_OPT_FUNCGRAPH_RETVAL_HEX));
			rt_seq_puts(&it->seq, " */");
		}
		rt_seq_putc(&it->seq, '\n');
		return;
	}
	g->depth = call.depth;
	if (call.depth >= 0 && call.depth < RT_GRAPH_DEPTH)
		g->enter_funcs[call.depth] = call.func;
	rt_graph_duration(it, 0, RT_FILL_FULL);
	rt_graph_indent(it, call.depth);
	rt_seq_sym(&it->seq, call.func, false);
	rt_graph_args(it, call.func, args);
	rt_seq_puts(&it->seq, " {\n");
}

static void rt_graph_return(struct rt_iter *it)
{
	struct rt_graph_ret_entry r;
	struct rt_graph_cpu *g = &it->graph[it->cpu];
	bool match = true;

	if (!rt_graph_ret_read(it->rec, it->len, &r))
		return;
	g->depth = r.depth - 1;
	if (r.depth >= 0 && r.depth < RT_GRAPH_DEPTH) {
		if (g->enter_funcs[r.depth] != r.func)
			match = false;
		g->enter_funcs[r.depth] = 0;
	}
	rt_graph_prologue(it);
	rt_graph_duration(it, r.rettime - r.calltime, RT_FILL_NONE);
	rt_graph_indent(it, r.depth);
	if (rt_graph_has_retval(it, &r)) {
		/* funcgraph-retval: always the function and its value */
		rt_seq_puts(&it->seq, "} /* ");
		rt_seq_sym(&it->seq, r.func, false);
		rt_print_fn_retval(&it->seq, r.retval,
				   rt_graph_flags(it) &
					   GF(RT_OPT_FUNCGRAPH_RETVAL_HEX));
		rt_seq_puts(&it->seq, " */\n");
	} else if (match &&
		   !(rt_graph_flags(it) & GF(RT_OPT_FUNCGRAPH_TAIL))) {
		rt_seq_puts(&it->seq, "}\n");
	} else {
		rt_seq_puts(&it->seq, "} /* ");
		rt_seq_sym(&it->seq, r.func, false);
		rt_seq_puts(&it->seq, " */\n");
	}
	if (rt_graph_flags(it) & GF(RT_OPT_FUNCGRAPH_OVERRUN))
		rt_seq_printf(&it->seq, " (Overruns: %u)\n",
			      r.overrun & ~RT_GRAPH_NO_RETVAL);
}

static void rt_graph_comment(struct rt_iter *it)
{
	int depth = it->graph[it->cpu].depth;
	const struct ringtrace_entry *ent = (const void *)it->rec;

	rt_graph_prologue(it);
	rt_graph_duration(it, 0, RT_FILL_FULL);
	if (depth > 0)
		rt_graph_indent(it, depth + 1);
	rt_seq_puts(&it->seq, "/* ");
	rt_print_event(it, ent->type == RT_TYPE_PRINT);
	if (it->seq.len && it->seq.buf[it->seq.len - 1] == '\n')
		it->seq.buf[--it->seq.len] = '\0';
	rt_seq_puts(&it->seq, " */\n");
}

/* ---- print_trace_line ---------------------------------------------------- */

static void rt_print_line(struct rt_iter *it)
{
	const struct ringtrace_entry *ent = (const void *)it->rec;
	struct ringtrace_seq *s = &it->seq;
	char cpu[16];

	rt_cpu_name(it, it->cpu, 1, cpu);
	if (it->lost_unknown)
		rt_seq_printf(s, "CPU:%s [LOST EVENTS]\n", cpu);
	else if (it->lost)
		rt_seq_printf(s, "CPU:%s [LOST %lu EVENTS]\n", cpu, it->lost);
	if (it->len < sizeof(*ent)) {
		rt_seq_printf(s, "CPU:%s [short record of %u bytes]\n", cpu,
			      it->len);
		return;
	}
	if (it->tracer == RT_TRACER_GRAPH ||
	    ent->type == RT_TYPE_GRAPH_ENT || rt_type_graph_exit(ent->type)) {
		switch (ent->type) {
		case RT_TYPE_GRAPH_ENT:
			if (it->len >= sizeof(struct rt_graph_ent_entry))
				rt_graph_entry(it);
			return;
		case RT_TYPE_GRAPH_RET:
		case RT_TYPE_GRAPH_RETVAL:
			rt_graph_return(it);
			return;
		case RT_TYPE_FN:
			break;
		default:
			rt_graph_comment(it);
			return;
		}
	}
	if (it->opts & RT_OPT(RT_OPT_BIN)) {
		rt_print_raw_like(it, RT_OPT_BIN);
		return;
	}
	if (it->opts & RT_OPT(RT_OPT_HEX)) {
		rt_print_raw_like(it, RT_OPT_HEX);
		return;
	}
	if (it->opts & RT_OPT(RT_OPT_RAW)) {
		rt_print_raw_like(it, RT_OPT_RAW);
		return;
	}
	if (it->opts & RT_OPT(RT_OPT_CONTEXT_INFO)) {
		if (it->lat)
			rt_print_lat_context(it);
		else
			rt_print_context(it);
	}
	rt_print_event(it, false);
}

/* ---- headers ------------------------------------------------------------ */

/* The counts of the header: of every cpu buffer, or of the iterator's
 * only cpu (per_cpu/cpuN/trace), as the kernel's get_total_entries()
 * counts them: a cpu whose records before the section were skipped
 * counts what is left, overruns not added. */
static void rt_get_totals(const struct rt_iter *it, unsigned long *entries,
			  unsigned long *total)
{
	int cpu, n = ringbuf_nr_cpus(it->rb);

	*entries = 0;
	*total = 0;
	for (cpu = 0; cpu < n; cpu++) {
		unsigned long e, skip;

		if (it->only_cpu != RINGBUF_ALL_CPUS && cpu != it->only_cpu)
			continue;
		e = ringbuf_entries_cpu(it->rb, cpu);
		skip = it->skipped && cpu < it->nr_cpus ? it->skipped[cpu] : 0;
		if (skip) {
			e -= skip < e ? skip : e;
			*entries += e;
			*total += e;
			continue;
		}
		*entries += e;
		*total += e + ringbuf_overrun_cpu(it->rb, cpu);
	}
}

static int rt_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static void rt_print_event_info(struct rt_iter *it)
{
	unsigned long entries, total;

	rt_get_totals(it, &entries, &total);
	rt_seq_printf(&it->seq,
		      "# entries-in-buffer/entries-written: %lu/%lu   #P:%d\n",
		      entries, total, rt_online_cpus());
	rt_seq_puts(&it->seq, "#\n");
}

static void rt_func_help_header(struct rt_iter *it)
{
	bool tgid = it->opts & RT_OPT(RT_OPT_RECORD_TGID);

	rt_print_event_info(it);
	rt_seq_printf(&it->seq,
		      "#           TASK-PID    %s CPU#     TIMESTAMP  FUNCTION\n",
		      tgid ? "   TGID   " : "");
	rt_seq_printf(&it->seq,
		      "#              | |      %s   |         |         |\n",
		      tgid ? "     |    " : "");
}

static void rt_func_help_header_irq(struct rt_iter *it)
{
	bool tgid = it->opts & RT_OPT(RT_OPT_RECORD_TGID);
	static const char space[] = "            ";
	int prec = tgid ? 12 : 2;
	struct ringtrace_seq *s = &it->seq;

	rt_print_event_info(it);
	rt_seq_printf(s, "#                            %.*s  _-----=> irqs-off/BH-disabled\n", prec, space);
	rt_seq_printf(s, "#                            %.*s / _----=> need-resched\n", prec, space);
	rt_seq_printf(s, "#                            %.*s| / _---=> hardirq/softirq\n", prec, space);
	rt_seq_printf(s, "#                            %.*s|| / _--=> preempt-depth\n", prec, space);
	rt_seq_printf(s, "#                            %.*s||| / _-=> migrate-disable\n", prec, space);
	rt_seq_printf(s, "#                            %.*s|||| /     delay\n", prec, space);
	rt_seq_printf(s, "#           TASK-PID  %.*s CPU#  |||||  TIMESTAMP  FUNCTION\n", prec, "     TGID   ");
	rt_seq_printf(s, "#              | |    %.*s   |   |||||     |         |\n", prec, "       |    ");
}

static void rt_lat_help_header(struct rt_iter *it)
{
	rt_seq_puts(&it->seq,
		    "#                    _------=> CPU#            \n"
		    "#                   / _-----=> irqs-off/BH-disabled\n"
		    "#                  | / _----=> need-resched    \n"
		    "#                  || / _---=> hardirq/softirq \n"
		    "#                  ||| / _--=> preempt-depth   \n"
		    "#                  |||| / _-=> migrate-disable \n"
		    "#                  ||||| /     delay           \n"
		    "#  cmd     pid     |||||| time  |   caller     \n"
		    "#     \\   /        ||||||  \\    |    /       \n");
}

static void rt_print_trace_header(struct rt_iter *it)
{
	struct ringtrace_seq *s = &it->seq;
	unsigned long entries, total;
	struct utsname u;
	char comm[RT_COMM_LEN];
	int tgid;

	rt_get_totals(it, &entries, &total);
	if (uname(&u) != 0)
		strcpy(u.release, "unknown");
	rt_seq_printf(s, "# %s latency trace v1.1.5 on %s\n",
		      rt_tracer_name(it->tracer), u.release);
	rt_seq_puts(s, "# --------------------------------------------------------------------\n");
	rt_seq_printf(s,
		      "# latency: %llu us, #%lu/%lu, CPU#%d | (M:user VP:0, KP:0, SP:0 HP:0 #P:%d)\n",
		      (unsigned long long)it->cfg->max_latency_us,
		      entries, total, it->cfg->lat_cpu, rt_online_cpus());
	rt_seq_puts(s, "#    -----------------\n");
	rt_find_comm(it, it->cfg->lat_pid, comm, &tgid);
	rt_seq_printf(s,
		      "#    | task: %.16s-%d (uid:%d nice:0 policy:0 rt_prio:0)\n",
		      it->cfg->lat_pid ? comm : "", it->cfg->lat_pid, (int)getuid());
	rt_seq_puts(s, "#    -----------------\n");
	if (it->cfg->lat_start_ip) {
		rt_seq_puts(s, "#  => started at: ");
		rt_print_ip_sym(it, it->cfg->lat_start_ip);
		rt_seq_puts(s, "\n#  => ended at:   ");
		rt_print_ip_sym(it, it->cfg->lat_end_ip);
		rt_seq_puts(s, "\n#\n");
	}
	rt_seq_puts(s, "#\n");
}

static bool rt_buffer_empty(struct ringbuf *rb)
{
	return ringbuf_empty(rb);
}

static void rt_graph_headers(struct rt_iter *it)
{
	struct ringtrace_seq *s = &it->seq;
	uint32_t fl = rt_graph_flags(it);

	if (!(it->opts & RT_OPT(RT_OPT_CONTEXT_INFO)))
		return;
	if (it->lat) {
		static const char spaces[] = "                "
					     "    "
					     "                 ";
		int size = 0;

		if (rt_buffer_empty(it->rb))
			return;
		rt_print_trace_header(it);
		if (fl & GF(RT_OPT_FUNCGRAPH_ABSTIME))
			size += 16;
		if (fl & GF(RT_OPT_FUNCGRAPH_CPU))
			size += 4;
		if (fl & GF(RT_OPT_FUNCGRAPH_PROC))
			size += 17;
		rt_seq_printf(s, "#%.*s  _-----=> irqs-off        \n", size, spaces);
		rt_seq_printf(s, "#%.*s / _----=> need-resched    \n", size, spaces);
		rt_seq_printf(s, "#%.*s| / _---=> hardirq/softirq \n", size, spaces);
		rt_seq_printf(s, "#%.*s|| / _--=> preempt-depth   \n", size, spaces);
		rt_seq_printf(s, "#%.*s||| /                      \n", size, spaces);
	}
	rt_seq_putc(s, '#');
	if (fl & GF(RT_OPT_FUNCGRAPH_ABSTIME))
		rt_seq_puts(s, "     TIME       ");
	if (fl & GF(RT_OPT_FUNCGRAPH_CPU))
		rt_seq_puts(s, " CPU");
	if (fl & GF(RT_OPT_FUNCGRAPH_PROC))
		rt_seq_puts(s, "  TASK/PID       ");
	if (it->lat)
		rt_seq_puts(s, "||||   ");
	if (fl & GF(RT_OPT_FUNCGRAPH_DURATION))
		rt_seq_puts(s, "  DURATION   ");
	rt_seq_puts(s, "               FUNCTION CALLS\n");
	rt_seq_putc(s, '#');
	if (fl & GF(RT_OPT_FUNCGRAPH_ABSTIME))
		rt_seq_puts(s, "      |         ");
	if (fl & GF(RT_OPT_FUNCGRAPH_CPU))
		rt_seq_puts(s, " |  ");
	if (fl & GF(RT_OPT_FUNCGRAPH_PROC))
		rt_seq_puts(s, "   |    |        ");
	if (it->lat)
		rt_seq_puts(s, "||||   ");
	if (fl & GF(RT_OPT_FUNCGRAPH_DURATION))
		rt_seq_puts(s, "   |   |      ");
	rt_seq_puts(s, "               |   |   |   |\n");
}

static void rt_default_header(struct rt_iter *it)
{
	if (!(it->opts & RT_OPT(RT_OPT_CONTEXT_INFO)))
		return;
	if (it->lat) {
		if (rt_buffer_empty(it->rb))
			return;
		rt_print_trace_header(it);
		if (!(it->opts & RT_OPT(RT_OPT_VERBOSE)))
			rt_lat_help_header(it);
		return;
	}
	if (it->opts & RT_OPT(RT_OPT_VERBOSE))
		return;
	if (it->opts & RT_OPT(RT_OPT_IRQ_INFO))
		rt_func_help_header_irq(it);
	else
		rt_func_help_header(it);
}

static int rt_flush(struct rt_iter *it, FILE *out)
{
	int ret = 0;

	if (it->seq.len && fwrite(it->seq.buf, 1, it->seq.len, out) !=
				   it->seq.len)
		ret = -EIO;
	it->seq.len = 0;
	if (it->seq.buf)
		it->seq.buf[0] = '\0';
	return ret;
}

int rt_print_view(struct ringbuf *rb, const struct rt_print_cfg *cfg,
		  const struct rt_printer_ops *ops, FILE *out)
{
	return rt_print_view_cpu(rb, RINGBUF_ALL_CPUS, cfg, ops, out);
}

int rt_print_view_cpu(struct ringbuf *rb, int cpu,
		      const struct rt_print_cfg *cfg,
		      const struct rt_printer_ops *ops, FILE *out)
{
	const struct rt_printer_ops *saved = rt_cur_ops;
	struct rt_iter it;
	int ret;

	ret = rt_iter_init(&it, rb, cfg, ops, false);
	if (ret)
		return ret;
	it.only_cpu = cpu;
	rt_cur_ops = ops;
	rt_seq_printf(&it.seq, "# tracer: %s\n", rt_tracer_name(it.tracer));
	rt_seq_puts(&it.seq, "#\n");
	if (it.tracer == RT_TRACER_GRAPH)
		rt_graph_headers(&it);
	else
		rt_default_header(&it);
	ret = rt_flush(&it, out);
	for (unsigned int n = 1; !ret && rt_iter_next(&it); n++) {
		if (ops->stop && !(n % RT_PRINT_STOP_LINES) &&
		    ops->stop(ops->ctx)) {
			ret = -EINTR;
			break;
		}
		if (it.ts < it.min_ts)
			continue;
		rt_print_line(&it);
		ret = rt_flush(&it, out);
	}
	rt_cur_ops = saved;
	rt_iter_fini(&it);
	return ret;
}

/**
 * struct rt_pipe_state - the graph's per-cpu state a pipe keeps
 * @nr: cpu buffers in @graph
 * @graph: depth, last pid and open functions of each cpu buffer
 */
struct rt_pipe_state {
	int nr;
	struct rt_graph_cpu *graph;
};

struct rt_pipe_state *rt_pipe_state_new(void)
{
	return calloc(1, sizeof(struct rt_pipe_state));
}

void rt_pipe_state_free(struct rt_pipe_state *st)
{
	if (st)
		free(st->graph);
	free(st);
}

/* Lines one rt_print_pipe() prints at most. */
#define RT_PIPE_BATCH 1024ul

int rt_print_pipe(struct ringbuf *rb, int cpu, const struct rt_print_cfg *cfg,
		  const struct rt_printer_ops *ops, struct rt_pipe_state *st,
		  FILE *out)
{
	const struct rt_printer_ops *saved = rt_cur_ops;
	struct rt_iter it;
	unsigned long budget;
	int ret, lines = 0;

	ret = rt_iter_init(&it, rb, cfg, ops, true);
	if (ret)
		return ret;
	it.only_cpu = cpu;
	if (st && st->graph && st->nr == it.nr_cpus)
		memcpy(it.graph, st->graph,
		       (size_t)it.nr_cpus * sizeof(*it.graph));
	rt_cur_ops = ops;
	/*
	 * One read takes what the buffer held when it began: writers that
	 * keep up with the reader would otherwise keep it here forever (the
	 * kernel's read stops when the user's buffer is full).
	 */
	budget = cpu == RINGBUF_ALL_CPUS ? ringbuf_entries(rb) :
					   ringbuf_entries_cpu(rb, cpu);
	/* and at most RT_PIPE_BATCH lines: the caller looks at its signals
	 * between reads, and a full buffer takes a second to print */
	if (budget > RT_PIPE_BATCH)
		budget = RT_PIPE_BATCH;
	while (!ret && budget-- > 0 && rt_iter_next(&it)) {
		rt_print_line(&it);
		ret = rt_flush(&it, out);
		lines++;
	}
	rt_cur_ops = saved;
	if (st) {
		if (st->nr != it.nr_cpus) {
			free(st->graph);
			st->graph = malloc((size_t)it.nr_cpus *
					   sizeof(*it.graph));
			st->nr = st->graph ? it.nr_cpus : 0;
		}
		if (st->graph)
			memcpy(st->graph, it.graph,
			       (size_t)it.nr_cpus * sizeof(*it.graph));
	}
	rt_iter_fini(&it);
	return ret ? ret : lines;
}

int rt_print_source(const struct rt_record_source *src, int cpu,
		    const struct rt_print_cfg *cfg,
		    const struct rt_printer_ops *ops, FILE *out)
{
	const struct rt_printer_ops *saved = rt_cur_ops;
	struct rt_iter it;
	int cpu_i, ret = 0, lines = 0;

	memset(&it, 0, sizeof(it));
	it.cfg = cfg;
	it.ops = ops;
	it.src = src;
	it.only_cpu = cpu;
	it.nr_cpus = src->nr_cpus;
	it.nr_cpu_bufs = src->nr_cpu_bufs > 0 && src->nr_cpu_bufs < src->nr_cpus ?
				 src->nr_cpu_bufs : src->nr_cpus;
	it.opts = cfg->opts;
	it.tracer = cfg->tracer;
	it.lat = (it.opts & RT_OPT(RT_OPT_LATENCY_FMT)) != 0;
	it.ns = src->clock != RINGBUF_CLOCK_TSC;
	it.time_start = cfg->time_start;
	it.min_ts = cfg->min_ts;
	it.rec = calloc(1, RT_MAX_REC);
	it.graph = calloc((size_t)(it.nr_cpus > 0 ? it.nr_cpus : 1),
			  sizeof(*it.graph));
	if (!it.rec || !it.graph) {
		free(it.rec);
		free(it.graph);
		return -ENOMEM;
	}
	for (cpu_i = 0; cpu_i < it.nr_cpus; cpu_i++)
		it.graph[cpu_i].last_pid = -1;
	it.cpu_width = snprintf(NULL, 0, "%d",
				it.nr_cpus > 1 ? it.nr_cpus - 1 : 0);
	rt_seq_init(&it.seq);
	rt_cur_ops = ops;
	while (!ret && rt_iter_next(&it)) {
		if (it.ts < it.min_ts)
			continue;
		rt_print_line(&it);
		ret = rt_flush(&it, out);
		lines++;
	}
	rt_cur_ops = saved;
	rt_iter_fini(&it);
	return ret ? ret : lines;
}
