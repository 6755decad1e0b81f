// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * json.c - a trace as Chrome / Perfetto trace-event JSON
 *
 * The document is {"traceEvents":[...]} with one object per record:
 * function_graph entries and exits become "B" and "E" events (nested
 * slices on the thread's track), every other event an "i" instant with
 * its fields in "args". Times ("ts") are microseconds. All threads of a
 * trace belong to the traced process, shown as one "pid" the caller
 * gives.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "entries.h"
#include "fnproto.h"
#include "rtt.h"

/**
 * struct rtt_json_frame - a function_graph slice begun and not yet ended
 * @func: the function
 * @depth: the depth its entry record gave
 */
struct rtt_json_frame {
	unsigned long func;
	int depth;
};

/**
 * struct rtt_json_thread - a thread seen in the trace
 * @tid: its id
 * @open: function_graph slices begun and not yet ended, outermost first
 * @nr_open: how many
 * @cap_open: entries allocated
 * @last_ts: the time of its last record (to end what stays open)
 */
struct rtt_json_thread {
	int tid;
	struct rtt_json_frame *open;
	size_t nr_open;
	size_t cap_open;
	uint64_t last_ts;
};

struct rtt_json {
	FILE *out;
	const struct rtt_print_ctx *ctx;
	bool ns;
	bool first;
	int pid;
	struct rtt_json_thread *th;
	size_t nr_th;
	size_t cap_th;
	uint64_t last_ts;
	int nr_cpu_bufs;
};

void rtt_json_set_cpu_buffers(struct rtt_json *j, int nr_cpu_bufs)
{
	j->nr_cpu_bufs = nr_cpu_bufs;
}

/* The buffer a record is in: "cpu":N, or "spare":N for spare N, then
 * the CPU it was written on where a CPU note says (@on >= 0). */
static void rtt_json_cpu(struct rtt_json *j, int cpu, int on)
{
	if (j->nr_cpu_bufs > 0 && cpu >= j->nr_cpu_bufs) {
		fprintf(j->out, "\"spare\":%d", cpu - j->nr_cpu_bufs);
		if (on >= 0)
			fprintf(j->out, ",\"cpu\":%d", on);
	} else {
		fprintf(j->out, "\"cpu\":%d", cpu);
	}
}

/* The length of the UTF-8 sequence at @s (at most @max bytes), or 0 when
 * it is not a valid one (overlong, a surrogate, beyond U+10FFFF, cut). */
static size_t rtt_utf8_len(const unsigned char *s, size_t max)
{
	unsigned int cp;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > max)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * A JSON string of the text at @s (up to a NUL or @max bytes): UTF-8
 * passes as it is, control characters are escaped, and a byte that is
 * not part of a valid UTF-8 sequence becomes U+FFFD (the replacement
 * character), so that the document is valid UTF-8 whatever the trace
 * holds.
 */
static void rtt_json_str(FILE *out, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, n;

	fputc('"', out);
	for (i = 0; i < max && u[i];) {
		unsigned char c = u[i];

		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(out, "\\u%04x", c);
			} else if (c < 0x80) {
				fputc(c, out);
			} else {
				n = rtt_utf8_len(u + i, max - i);
				if (!n) {
					fputs("\\ufffd", out);
					break;
				}
				fwrite(u + i, 1, n, out);
				i += n;
				continue;
			}
		}
		i++;
	}
	fputc('"', out);
}

static void rtt_json_ts(struct rtt_json *j, uint64_t ts)
{
	if (j->ns)
		fprintf(j->out, "%" PRIu64 ".%03u", ts / 1000,
			(unsigned int)(ts % 1000));
	else
		fprintf(j->out, "%" PRIu64, ts);
}

static struct rtt_json_thread *rtt_json_thread(struct rtt_json *j, int tid)
{
	size_t i;

	for (i = 0; i < j->nr_th; i++)
		if (j->th[i].tid == tid)
			return &j->th[i];
	if (j->nr_th == j->cap_th) {
		size_t nc = j->cap_th ? j->cap_th * 2 : 64;
		struct rtt_json_thread *nv = realloc(j->th, nc * sizeof(*nv));

		if (!nv)
			return NULL;
		j->th = nv;
		j->cap_th = nc;
	}
	memset(&j->th[j->nr_th], 0, sizeof(j->th[0]));
	j->th[j->nr_th].tid = tid;
	return &j->th[j->nr_th++];
}

struct rtt_json *rtt_json_begin(FILE *out, const struct rtt_print_ctx *ctx,
				bool ns, int pid)
{
	struct rtt_json *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->out = out;
	j->ctx = ctx;
	j->ns = ns;
	j->pid = pid;
	j->first = true;
	fputs("{\"traceEvents\":[\n", out);
	return j;
}

/* Start one event object: {"name":...,"ph":...,"ts":...,"pid":,"tid": */
static void rtt_json_head(struct rtt_json *j, const char *name,
			  const char *cat, const char *ph, uint64_t ts,
			  int tid)
{
	FILE *out = j->out;

	if (!j->first)
		fputs(",\n", out);
	j->first = false;
	fputs("{\"name\":", out);
	rtt_json_str(out, name, 4096);
	if (cat) {
		fputs(",\"cat\":", out);
		rtt_json_str(out, cat, 256);
	}
	fprintf(out, ",\"ph\":\"%s\",\"ts\":", ph);
	rtt_json_ts(j, ts);
	fprintf(out, ",\"pid\":%d,\"tid\":%d", j->pid > 0 ? j->pid : tid, tid);
}

static unsigned long long rtt_json_num(const struct tep_format_field *f,
				       const void *rec, bool *ok)
{
	unsigned long long v = 0;

	*ok = tep_read_number_field((struct tep_format_field *)f, rec, &v) ==
	      0;
	return v;
}

static void rtt_json_field(struct rtt_json *j, struct tep_format_field *f,
			   const void *rec, unsigned int len)
{
	FILE *out = j->out;
	const unsigned char *base = rec;
	unsigned int off = (unsigned int)f->offset;
	unsigned int size = (unsigned int)f->size;
	bool ok;

	rtt_json_str(out, f->name, 256);
	fputc(':', out);
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (off + 4 > len) {
			fputs("null", out);
			return;
		}
		memcpy(&loc, base + off, 4);
		off = loc & 0xffff;
		size = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned int)f->offset + 4;
	}
	if (off + size > len) {
		fputs("null", out);
		return;
	}
	/* a flexible array at the end ("char buf[]", size 0): the rest of
	 * the record, as ftrace:print's text */
	if ((f->flags & TEP_FIELD_IS_ARRAY) &&
	    !(f->flags & TEP_FIELD_IS_DYNAMIC) && !size)
		size = len - off;
	if ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
	    (f->flags & TEP_FIELD_IS_STRING ||
	     strstr(f->type, "char"))) {
		rtt_json_str(out, (const char *)base + off, size);
		return;
	}
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		unsigned int es = f->elementsize ? f->elementsize : 1, i;

		fputc('[', out);
		for (i = 0; es <= 8 && i + es <= size; i += es) {
			unsigned long long v = 0;

			memcpy(&v, base + off + i, es);
			fprintf(out, "%s%llu", i ? "," : "", v);
		}
		fputc(']', out);
		return;
	}
	{
		unsigned long long v = rtt_json_num(f, rec, &ok);

		if (!ok)
			fputs("null", out);
		else if (f->flags & TEP_FIELD_IS_SIGNED) {
			long long sv;

			switch (size) {
			case 1:
				sv = (signed char)v;
				break;
			case 2:
				sv = (short)v;
				break;
			case 4:
				sv = (int)v;
				break;
			default:
				sv = (long long)v;
			}
			fprintf(out, "%lld", sv);
		} else if (f->flags & TEP_FIELD_IS_POINTER ||
			   (size == sizeof(long) && strstr(f->type, "long") &&
			    (strstr(f->name, "ip") || strstr(f->name, "func")))) {
			char sym[512];

			rtt_sym_format(j->ctx->syms, sym, sizeof(sym),
				       (unsigned long)v, true);
			rtt_json_str(out, sym, sizeof(sym));
		} else {
			fprintf(out, "%llu", v);
		}
	}
}

static unsigned long long rtt_json_get(struct tep_event *te, const char *name,
				       const void *rec, unsigned int len)
{
	struct tep_format_field *f = tep_find_field(te, name);
	unsigned long long v = 0;

	if (!f || (unsigned int)(f->offset + f->size) > len ||
	    tep_read_number_field(f, rec, &v))
		return 0;
	return v;
}

/* End the open slices of @t at depth @depth and deeper, innermost first,
 * at @ts: "E" events named as their "B" events. */
static void rtt_json_close(struct rtt_json *j, struct rtt_json_thread *t,
			   int depth, uint64_t ts)
{
	char name[512];

	while (t->nr_open && t->open[t->nr_open - 1].depth >= depth) {
		const struct rtt_json_frame *f = &t->open[--t->nr_open];

		rtt_sym_format(j->ctx->syms, name, sizeof(name), f->func,
			       false);
		rtt_json_head(j, name, "function", "E", ts, t->tid);
		fputs("}", j->out);
	}
}

/*
 * funcgraph-args: the entry's "(name=value, ...)" as the text report
 * prints it, when the record carries the argument registers; "" if not.
 */
static void rtt_json_fn_args(struct rtt_json *j, struct rtt_event *e,
			     unsigned long func, const void *rec,
			     unsigned int len, struct ringtrace_seq *s)
{
	struct tep_format_field *f =
		tep_find_field(e->tep, "args");
	unsigned long args[RT_FNPROTO_NR_ARGS];
	char proto[RT_FNPROTO_MAX];

	if (!f || len < (unsigned int)f->offset + sizeof(args))
		return;
	memcpy(args, (const char *)rec + f->offset, sizeof(args));
	rt_print_fn_args(s, rtt_protos_find(j->ctx->protos, func, proto,
					    sizeof(proto)) ?
				    proto :
				    NULL,
			 args);
}

void rtt_json_record(struct rtt_json *j, int cpu, int on, uint64_t ts,
		     const void *rec, unsigned int len)
{
	struct rtt_json_thread *t;
	struct rtt_event *e;
	struct tep_format_field *f;
	int32_t tid = 0;
	uint16_t id;
	char name[512];

	if (len < 8)
		return;
	memcpy(&id, rec, sizeof(id));
	memcpy(&tid, (const char *)rec + 4, sizeof(tid));
	e = rtt_events_by_id(j->ctx->ev, id);
	t = rtt_json_thread(j, tid);
	if (t)
		t->last_ts = ts;
	if (ts > j->last_ts)
		j->last_ts = ts;
	if (!e) {
		snprintf(name, sizeof(name), "unknown event %u", id);
		rtt_json_head(j, name, NULL, "i", ts, tid);
		fputs(",\"s\":\"t\",\"args\":{", j->out);
		rtt_json_cpu(j, cpu, on);
		fputs("}}", j->out);
		return;
	}
	if (!strcmp(e->system, "ftrace") &&
	    (!strcmp(e->name, "funcgraph_entry") ||
	     !strcmp(e->name, "funcgraph_exit") ||
	     !strcmp(e->name, "fgraph_retval_exit"))) {
		bool entry = !strcmp(e->name, "funcgraph_entry");
		unsigned long func =
			(unsigned long)rtt_json_get(e->tep, "func", rec, len);
		int depth = (int)rtt_json_get(e->tep, "depth", rec, len);

		if (!t)
			return;
		/*
		 * The slices the record's depth says ended unseen (a
		 * longjmp, an exception whose unwind skipped the exit
		 * hooks): those as deep as an entry, or deeper than a
		 * return, end here, as the text report closes them.
		 */
		rtt_json_close(j, t, entry ? depth : depth + 1, ts);
		if (!entry) {
			unsigned int overrun = (unsigned int)rtt_json_get(
				e->tep, "overrun", rec, len);
			struct ringtrace_seq rs;

			/* its entry was before the trace began */
			if (!t->nr_open || t->open[t->nr_open - 1].depth != depth)
				return;
			/* its own end, with the return value where the
			 * record has one (funcgraph-retval's " = ...") */
			t->nr_open--;
			rtt_sym_format(j->ctx->syms, name, sizeof(name), func,
				       false);
			rtt_json_head(j, name, "function", "E", ts, t->tid);
			if (tep_find_field(e->tep, "retval") &&
			    !(overrun & RT_GRAPH_NO_RETVAL)) {
				rt_seq_init(&rs);
				rt_print_fn_retval(
					&rs,
					(unsigned long)rtt_json_get(
						e->tep, "retval", rec, len),
					false);
				fputs(",\"args\":{\"retval\":", j->out);
				rtt_json_str(j->out,
					     rs.buf ? rs.buf + strlen(" = ") :
						      "",
					     64);
				fputs("}", j->out);
				rt_seq_free(&rs);
			}
			fputs("}", j->out);
			return;
		}
		if (t->nr_open == t->cap_open) {
			size_t nc = t->cap_open ? t->cap_open * 2 : 16;
			struct rtt_json_frame *nv =
				realloc(t->open, nc * sizeof(*nv));

			if (!nv)
				return;
			t->open = nv;
			t->cap_open = nc;
		}
		t->open[t->nr_open].func = func;
		t->open[t->nr_open++].depth = depth;
		rtt_sym_format(j->ctx->syms, name, sizeof(name), func, false);
		rtt_json_head(j, name, "function", "B", ts, tid);
		{
			struct ringtrace_seq as;

			rt_seq_init(&as);
			rtt_json_fn_args(j, e, func, rec, len, &as);
			if (as.len) {
				fputs(",\"args\":{\"args\":", j->out);
				rtt_json_str(j->out, as.buf, 4096);
				fputs("}", j->out);
			}
			rt_seq_free(&as);
		}
		fputs("}", j->out);
		return;
	}
	if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "function")) {
		rtt_sym_format(j->ctx->syms, name, sizeof(name),
			       (unsigned long)rtt_json_get(e->tep, "ip", rec,
							   len),
			       false);
		rtt_json_head(j, name, "function", "i", ts, tid);
		fputs(",\"s\":\"t\",\"args\":{", j->out);
		rtt_json_cpu(j, cpu, on);
		fputs(",\"parent\":", j->out);
		rtt_sym_format(j->ctx->syms, name, sizeof(name),
			       (unsigned long)rtt_json_get(e->tep, "parent_ip",
							   rec, len),
			       false);
		rtt_json_str(j->out, name, sizeof(name));
		{
			/* func-args: as the graph entry's */
			struct ringtrace_seq as;

			rt_seq_init(&as);
			rtt_json_fn_args(j, e,
					 (unsigned long)rtt_json_get(
						 e->tep, "ip", rec, len),
					 rec, len, &as);
			if (as.len) {
				fputs(",\"args\":", j->out);
				rtt_json_str(j->out, as.buf, 4096);
			}
			rt_seq_free(&as);
		}
		fputs("}}", j->out);
		return;
	}
	snprintf(name, sizeof(name), "%s:%s", e->system, e->name);
	rtt_json_head(j, e->name, e->system, "i", ts, tid);
	fputs(",\"s\":\"t\",\"args\":{", j->out);
	rtt_json_cpu(j, cpu, on);
	for (f = e->tep->format.fields; f; f = f->next) {
		fputc(',', j->out);
		rtt_json_field(j, f, rec, len);
	}
	fputs("}}", j->out);
}

void rtt_json_lost(struct rtt_json *j, int cpu, uint64_t ts,
		   unsigned long count)
{
	if (!j->first)
		fputs(",\n", j->out);
	j->first = false;
	fputs("{\"name\":\"lost events\",\"ph\":\"i\",\"s\":\"g\",\"ts\":",
	      j->out);
	rtt_json_ts(j, ts);
	fprintf(j->out, ",\"pid\":%d,\"tid\":0,\"args\":{",
		j->pid > 0 ? j->pid : 0);
	rtt_json_cpu(j, cpu, -1);
	if (count == (unsigned long)-1)
		fputs(",\"count\":\"unknown\"}}", j->out);
	else
		fprintf(j->out, ",\"count\":%lu}}", count);
}

/* The name of thread @tid (the file's names, then its cmdlines). */
static bool rtt_json_comm(struct rtt_json *j, int tid, char comm[16])
{
	return rtt_comms_find(j->ctx->comms, tid, comm) ||
	       (j->ctx->cmdlines &&
		rt_cmdline_lookup(j->ctx->cmdlines, tid, comm, NULL));
}

/* A metadata event: "cat" too, which some readers need on every event. */
static void rtt_json_meta(struct rtt_json *j, const char *what, int pid,
			  int tid, const char *name)
{
	fprintf(j->out,
		"%s{\"name\":\"%s\",\"cat\":\"__metadata\",\"ph\":\"M\","
		"\"ts\":0,\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		j->first ? "" : ",\n", what, pid, tid);
	j->first = false;
	rtt_json_str(j->out, name, 16);
	fputs("}}", j->out);
}

int rtt_json_end(struct rtt_json *j)
{
	FILE *out = j->out;
	size_t i;
	int ret;

	for (i = 0; i < j->nr_th; i++) {
		struct rtt_json_thread *t = &j->th[i];
		char comm[16];

		/* slices still open when the trace (or the range) ended */
		rtt_json_close(j, t, INT32_MIN, j->last_ts);
		free(t->open);
		if (t->tid <= 0 || !rtt_json_comm(j, t->tid, comm))
			continue;
		rtt_json_meta(j, "thread_name", j->pid > 0 ? j->pid : t->tid,
			      t->tid, comm);
	}
	/* the process, whichever threads were selected */
	if (j->pid > 0) {
		char comm[16];

		if (!rtt_json_comm(j, j->pid, comm))
			snprintf(comm, sizeof(comm), "%d", j->pid);
		rtt_json_meta(j, "process_name", j->pid, j->pid, comm);
	}
	fputs("\n],\"displayTimeUnit\":\"ns\"}\n", out);
	ret = fflush(out) || ferror(out) ? -EIO : 0;
	free(j->th);
	free(j);
	return ret;
}
