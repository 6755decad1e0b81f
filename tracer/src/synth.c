// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * synth.c - synthetic events: the synthetic_events file
 *
 * The kernel's trace_events_synth.c for a process: a line written to
 * synthetic_events ("wakeup_latency u64 lat; pid_t pid; char comm[16]")
 * makes an event synthetic:NAME with those fields, registered as any
 * other (ringtrace_event_register()): it has its format, enable, filter
 * and trigger, prints in the trace as the kernel's ("lat=5 pid=7
 * comm=sh") and is read back from trace.dat by its format. "!NAME"
 * removes it (-EBUSY while a hist action uses it). A hist trigger's
 * onmatch() action writes it (rt_synth_trace()).
 *
 * Types: s8 u8 s16 u16 s32 u32 s64 u64, char short int long (and
 * "unsigned" ones), pid_t, gfp_t, bool, "char NAME[N]" (a string of N
 * bytes), "char NAME[]" (a dynamic string, __data_loc) and
 * "unsigned long[] NAME" or "long[] NAME" (a stack: __data_loc, its
 * count then its addresses, printed as the kernel's "NAME=STACK:" and
 * one "=> function+off/size" line per frame). Fields are separated by
 * ';' or, as the kernel's older syntax, by blanks only.
 *
 * Userspace: the fields are laid out with their C sizes and alignments
 * (the kernel stores each in 8 bytes); at most RT_SYNTH_FIELDS_MAX
 * fields.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"
#include "synth.h"
#include "trace.h"

#define RT_SYNTH_STR_MAX 256

struct rt_synth {
	struct ringtrace_event ev;
	char name[64];
	char *text; /* the fields as the file shows them */
	unsigned int n_fields;
	struct ringtrace_field_decl decl[RT_SYNTH_FIELDS_MAX + 1];
	char types[RT_SYNTH_FIELDS_MAX][32];
	char names[RT_SYNTH_FIELDS_MAX][64];
	uint16_t offset[RT_SYNTH_FIELDS_MAX];
	char *print_fmt;
	int refs;
	struct rt_synth *next;
};

/* The list of synthetic events; nothing else is taken while it is held
 * but the allocator (the registry lock may be held around it) */
static pthread_mutex_t rt_synth_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_synth *rt_synths;

struct rt_synth_type {
	const char *name;
	uint16_t size;
	uint8_t is_signed;
};

static const struct rt_synth_type rt_synth_types[] = {
	{ "s8", 1, 1 },	 { "u8", 1, 0 },    { "s16", 2, 1 },   { "u16", 2, 0 },
	{ "s32", 4, 1 }, { "u32", 4, 0 },   { "s64", 8, 1 },   { "u64", 8, 0 },
	{ "char", 1, 1 }, { "short", 2, 1 }, { "int", 4, 1 },
	{ "long", sizeof(long), 1 },	    { "pid_t", 4, 1 }, { "gfp_t", 4, 0 },
	{ "bool", 1, 0 },
};

static const struct rt_synth_type *rt_synth_type(const char *t)
{
	size_t i;

	for (i = 0; i < sizeof(rt_synth_types) / sizeof(rt_synth_types[0]); i++)
		if (!strcmp(rt_synth_types[i].name, t))
			return &rt_synth_types[i];
	return NULL;
}

static bool rt_synth_name_ok(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static struct rt_synth *rt_synth_by_id(unsigned int id)
{
	struct rt_synth *s;

	for (s = rt_synths; s; s = s->next)
		if (s->ev.priv && s->ev.priv->id == id)
			return s;
	return NULL;
}

/* The trace's text of a record: "lat=5 pid=7 comm=sh", as the kernel's
 * print_synth_event() */
/* At most @n bytes of @src up to its NUL into @dst (@size bytes, made
 * a string) */
static void rt_synth_str(char *dst, size_t size, const unsigned char *src,
			 size_t n)
{
	n = strnlen((const char *)src, n);
	if (n > size - 1)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void rt_synth_print(struct ringtrace_seq *seq, const void *rec)
{
	char str[RT_SYNTH_STR_MAX + 1];
	const unsigned char *r = rec;
	struct ringtrace_entry ent;
	struct rt_synth *s;
	unsigned int i;

	memcpy(&ent, rec, sizeof(ent));
	pthread_mutex_lock(&rt_synth_lock);
	s = rt_synth_by_id(ent.type);
	for (i = 0; s && i < s->n_fields; i++) {
		const struct ringtrace_field_decl *d = &s->decl[i];
		const char *sep = i ? " " : "";

		/* (a string copied out whole: the printer takes no "%.*s") */
		if (d->kind == RINGTRACE_FIELD_STRING) {
			rt_synth_str(str, sizeof(str), r + s->offset[i],
				     d->size);
			ringtrace_seq_printf(seq, "%s%s=%s", sep, d->name, str);
		} else if (d->kind == RINGTRACE_FIELD_DYNSTR) {
			uint32_t loc;

			memcpy(&loc, r + s->offset[i], 4);
			rt_synth_str(str, sizeof(str), r + (loc & 0xffff),
				     loc >> 16 ? (loc >> 16) - 1 : 0);
			ringtrace_seq_printf(seq, "%s%s=%s", sep, d->name, str);
		} else if (d->kind == RINGTRACE_FIELD_ARRAY) {
			/* a stack: its count, then the frames */
			uint32_t loc;
			size_t k, n;

			memcpy(&loc, r + s->offset[i], 4);
			n = (loc >> 16) / sizeof(uint64_t);
			ringtrace_seq_printf(seq, "%s%s=STACK:\n", sep, d->name);
			for (k = 1; k < n; k++) {
				uint64_t pc;

				memcpy(&pc, r + (loc & 0xffff) + k * 8, 8);
				rt_sym_format(str, sizeof(str),
					      (unsigned long)pc, true);
				ringtrace_seq_printf(seq, "=> %s\n", str);
			}
		} else {
			uint64_t v = 0;
			int64_t sv;

			memcpy(&v, r + s->offset[i], d->size);
			if (d->is_signed) {
				unsigned int sh = 64 - 8 * d->size;

				sv = (int64_t)(v << sh) >> sh;
				ringtrace_seq_printf(seq, "%s%s=%lld", sep,
						     d->name, (long long)sv);
			} else {
				ringtrace_seq_printf(seq, "%s%s=%llu", sep,
						     d->name,
						     (unsigned long long)v);
			}
		}
	}
	pthread_mutex_unlock(&rt_synth_lock);
}

static void rt_synth_free(struct rt_synth *s)
{
	if (!s)
		return;
	free(s->text);
	free(s->print_fmt);
	free(s);
}

/* Where an error is, and the report of one: the kernel's error_log
 * entry ("synthetic_events: error: MESSAGE", the command, the caret) */
struct synth_err_ctx {
	const char *cmd;
	char *err;
	size_t errlen;
};

static int synth_errpos(const struct synth_err_ctx *c, const char *str)
{
	const char *at = str ? strstr(c->cmd, str) : NULL;

	return at ? (int)(at - c->cmd) : 0;
}

static int synth_err(const struct synth_err_ctx *c, const char *msg, int pos)
{
	snprintf(c->err, c->errlen,
		 "synthetic_events: error: %s\n  Command: %s\n%*s^\n", msg,
		 c->cmd, pos + 11, "");
	return -EINVAL;
}

#define SYNTH_INVALID_CMD                                                   \
	"Command must be of the form: <name> field[;field] ..."

/* The words of @str (modified) in @w, at most @max: the kernel's
 * argv_split() */
static int synth_split(char *str, char **w, int max)
{
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(str, " \t\n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \t\n", &save))
		w[n++] = tok;
	return n;
}

/*
 * The field at @w (@argc words left): "TYPE NAME", "unsigned TYPE NAME",
 * "char NAME[N]" (a string of N bytes, at most 256), "char NAME[]" (a
 * dynamic string), as the kernel's parse_synth_field(). Return: the
 * words it took, or a negative errno with the kernel's error.
 */
static int rt_synth_field(struct rt_synth *s, char **w, int argc,
			  const struct synth_err_ctx *c)
{
	unsigned int i = s->n_fields;
	struct ringtrace_field_decl *d = &s->decl[i];
	const struct rt_synth_type *t;
	const char *type = w[0], *name, *array;
	bool uns = false;
	int used = 2;
	size_t len;

	if (!strcmp(type, "unsigned")) {
		if (argc < 3)
			return synth_err(c, "Incomplete type",
					 synth_errpos(c, type));
		uns = true;
		type = w[1];
		name = w[2];
		used = 3;
	} else {
		name = argc > 1 ? w[1] : NULL;
	}
	if (!name)
		return synth_err(c, "Invalid field", synth_errpos(c, type));
	if (i == RT_SYNTH_FIELDS_MAX)
		return synth_err(c, "Too many fields", 0);
	array = strchr(name, '[');
	len = array ? (size_t)(array - name) : strlen(name);
	if (len >= sizeof(s->names[i]))
		len = sizeof(s->names[i]) - 1;
	memcpy(s->names[i], name, len);
	s->names[i][len] = '\0';
	if (!rt_synth_name_ok(s->names[i]))
		return synth_err(c, "Illegal name", synth_errpos(c, name));
	t = rt_synth_type(type);
	/* a stack: "unsigned long[] NAME", "long[] NAME" or "long NAME[]",
	 * as the kernel's synth_field_is_stack() */
	if ((!strcmp(type, "long[]") && !array) ||
	    (t && !strcmp(t->name, "long") && array && !strcmp(array, "[]"))) {
		snprintf(s->types[i], sizeof(s->types[i]),
			 "__data_loc %slong[]", uns ? "unsigned " : "");
		d->size = 4;
		d->align = 4;
		d->kind = RINGTRACE_FIELD_ARRAY;
		d->elem_size = sizeof(uint64_t);
		d->is_signed = 0;
	} else if (array) {
		char *e;
		unsigned long n;

		errno = 0;
		n = strtoul(array + 1, &e, 10);
		if (!t || strcmp(t->name, "char") || uns || *e != ']' || e[1] ||
		    errno || n > RT_SYNTH_STR_MAX ||
		    (e == array + 1 ? false : !n))
			return synth_err(c, "Invalid array specification",
					 synth_errpos(c, name));
		if (e != array + 1) {
			snprintf(s->types[i], sizeof(s->types[i]), "char[%lu]", n);
			d->size = (uint16_t)n;
			d->align = 1;
			d->kind = RINGTRACE_FIELD_STRING;
		} else {
			snprintf(s->types[i], sizeof(s->types[i]),
				 "__data_loc char[]");
			d->size = 4;
			d->align = 4;
			d->kind = RINGTRACE_FIELD_DYNSTR;
		}
		d->elem_size = 1;
		d->is_signed = 0;
	} else {
		/* "unsigned" goes with char, int and long, as the kernel's */
		if (!t || (uns && strcmp(t->name, "char") &&
			   strcmp(t->name, "int") && strcmp(t->name, "long")))
			return synth_err(c, "Invalid type", synth_errpos(c, type));
		snprintf(s->types[i], sizeof(s->types[i]), "%s%s",
			 uns ? "unsigned " : "", t->name);
		d->size = t->size;
		d->align = t->size;
		d->is_signed = uns ? 0 : t->is_signed;
		d->kind = RINGTRACE_FIELD_INT;
	}
	d->type = s->types[i];
	d->name = s->names[i];
	s->n_fields++;
	return used;
}

/* "NAME FIELDS" (@line, modified; @c->cmd is its copy) into @s, as the
 * kernel's check_command() and __create_synth_event() */
static int rt_synth_parse(struct rt_synth *s, char *line,
			  const struct synth_err_ctx *c)
{
	char *w[64], *p, *fields, *seg;
	char first[256];
	int argc;

	/* at least three words before the first ';' */
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(line, ";"), line);
	if (synth_split(first, w, 64) < 3)
		return synth_err(c, SYNTH_INVALID_CMD, 0);
	p = strpbrk(line, " \t");
	if (!p)
		return synth_err(c, SYNTH_INVALID_CMD, 0);
	*p = '\0';
	if (!line[0])
		return synth_err(c, SYNTH_INVALID_CMD, 0);
	if (!rt_synth_name_ok(line) || strlen(line) >= sizeof(s->name))
		return synth_err(c, "Illegal name", synth_errpos(c, line));
	snprintf(s->name, sizeof(s->name), "%s", line);
	fields = p + 1;
	while ((seg = strsep(&fields, ";"))) {
		int consumed = 0;

		argc = synth_split(seg, w, 64);
		while (argc > consumed) {
			int used = rt_synth_field(s, w + consumed,
						  argc - consumed, c);

			if (used < 0)
				return used;
			consumed += used;
		}
	}
	if (!s->n_fields)
		return synth_err(c, SYNTH_INVALID_CMD, 0);
	return 0;
}

/* Offsets, size, format text and print format of @s */
static int rt_synth_layout(struct rt_synth *s)
{
	size_t off = sizeof(struct ringtrace_entry), maxal = 4, n = 0, len;
	char *fmt = NULL, *text = NULL;
	FILE *f, *t;
	unsigned int i;

	f = open_memstream(&fmt, &len);
	t = open_memstream(&text, &n);
	if (!f || !t) {
		if (f)
			fclose(f);
		if (t)
			fclose(t);
		free(fmt);
		free(text);
		return -ENOMEM;
	}
	fputc('"', f);
	fprintf(t, "%s\t", s->name);
	for (i = 0; i < s->n_fields; i++) {
		const struct ringtrace_field_decl *d = &s->decl[i];
		size_t al = d->align;

		off = (off + al - 1) & ~(al - 1);
		if (al > maxal)
			maxal = al;
		s->offset[i] = (uint16_t)off;
		off += d->size;
		fprintf(f, "%s%s=%s", i ? " " : "", d->name,
			d->kind == RINGTRACE_FIELD_INT ?
				(d->is_signed ? (d->size == 8 ? "%lld" : "%d") :
						(d->size == 8 ? "%llu" : "%u")) :
				"%s");
		/* as the kernel shows them: "char[16] comm" */
		if (d->kind == RINGTRACE_FIELD_STRING)
			fprintf(t, "%schar[%u] %s", i ? "; " : "", d->size,
				d->name);
		else if (d->kind == RINGTRACE_FIELD_DYNSTR)
			fprintf(t, "%schar[] %s", i ? "; " : "", d->name);
		else if (d->kind == RINGTRACE_FIELD_ARRAY)
			fprintf(t, "%s%s %s", i ? "; " : "",
				d->type + strlen("__data_loc "), d->name);
		else
			fprintf(t, "%s%s %s", i ? "; " : "", d->type, d->name);
	}
	fputc('"', f);
	for (i = 0; i < s->n_fields; i++) {
		const struct ringtrace_field_decl *d = &s->decl[i];

		if (d->kind == RINGTRACE_FIELD_DYNSTR)
			fprintf(f, ", __get_str(%s)", d->name);
		else if (d->kind == RINGTRACE_FIELD_ARRAY)
			fprintf(f, ", __get_stacktrace(%s)", d->name);
		else
			fprintf(f, ", REC->%s", d->name);
	}
	fclose(f);
	fclose(t);
	s->print_fmt = fmt;
	s->text = text;
	s->ev.size = (off + maxal - 1) & ~(maxal - 1);
	return 0;
}

static int rt_synth_create(char *line, char *err, size_t errlen)
{
	struct rt_synth *s = calloc(1, sizeof(*s)), *o;
	struct synth_err_ctx c = { NULL, err, errlen };
	char *cmd = strdup(line);
	int ret;

	if (!s || !cmd) {
		free(s);
		free(cmd);
		return -ENOMEM;
	}
	c.cmd = cmd;
	ret = rt_synth_parse(s, line, &c);
	if (!ret)
		ret = rt_synth_layout(s);
	if (ret) {
		free(cmd);
		rt_synth_free(s);
		return ret;
	}
	s->ev.system = "synthetic";
	s->ev.name = s->name;
	s->ev.fields = s->decl;
	s->ev.print_fmt = s->print_fmt;
	s->ev.print = rt_synth_print;
	pthread_mutex_lock(&rt_synth_lock);
	for (o = rt_synths; o; o = o->next)
		if (!strcmp(o->name, s->name))
			break;
	pthread_mutex_unlock(&rt_synth_lock);
	if (o) {
		synth_err(&c, "Event already exists", synth_errpos(&c, s->name));
		free(cmd);
		rt_synth_free(s);
		return -EEXIST;
	}
	free(cmd);
	ret = ringtrace_event_register(&s->ev);
	if (ret) {
		snprintf(err, errlen, "synthetic_events: %s: %s", s->name,
			 strerror(-ret));
		rt_synth_free(s);
		return ret;
	}
	pthread_mutex_lock(&rt_synth_lock);
	s->next = rt_synths;
	rt_synths = s;
	pthread_mutex_unlock(&rt_synth_lock);
	return 0;
}

/* Remove @name; @all: every one not in use */
static int rt_synth_remove(const char *name, bool all, char *err,
			   size_t errlen)
{
	struct rt_synth **pp, *gone = NULL, *s;
	int ret = all ? 0 : -ENOENT;

	pthread_mutex_lock(&rt_synth_lock);
	for (pp = &rt_synths; *pp;) {
		s = *pp;
		if (!all && strcmp(s->name, name)) {
			pp = &s->next;
			continue;
		}
		if (s->refs) {
			snprintf(err, errlen, "synthetic_events: %s is in use",
				 s->name);
			ret = -EBUSY;
			pp = &s->next;
			if (!all)
				break;
			continue;
		}
		*pp = s->next;
		s->next = gone;
		gone = s;
		if (!all) {
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&rt_synth_lock);
	if (ret == -ENOENT)
		snprintf(err, errlen, "synthetic_events: no event %s", name);
	while (gone) {
		s = gone;
		gone = s->next;
		/* waits for its writers, drops its triggers */
		ringtrace_event_unregister(&s->ev);
		rt_synth_free(s);
	}
	return ret;
}

int ringtrace_synthetic_event(const char *text, char *err, size_t errlen)
{
	char dummy[8], *copy, *line;
	int ret;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!text)
		return -EINVAL;
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	line = copy + strspn(copy, " \t\n");
	if (!*line) {
		ret = 0; /* an empty line: nothing, as the kernel */
	} else if (*line == '!') {
		char *name = line + 1;

		name[strcspn(name, " \t\n")] = '\0';
		ret = rt_synth_remove(name, false, err, errlen);
	} else {
		ret = rt_synth_create(line, err, errlen);
	}
	free(copy);
	return ret;
}

int ringtrace_synthetic_events_clear(char *err, size_t errlen)
{
	char dummy[8];

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	return rt_synth_remove(NULL, true, err, errlen);
}

size_t ringtrace_show_synthetic_events(char *buf, size_t len)
{
	struct rt_synth *s;
	size_t n = 0;

	if (!buf)
		len = 0;
	if (len)
		buf[0] = '\0';
	pthread_mutex_lock(&rt_synth_lock);
	for (s = rt_synths; s; s = s->next)
		n += (size_t)snprintf(buf + (n < len ? n : len),
				      n < len ? len - n : 0, "%s\n", s->text);
	pthread_mutex_unlock(&rt_synth_lock);
	return n;
}

/* ---- for the hist actions ------------------------------------------------ */

struct rt_synth *rt_synth_find(const char *name)
{
	struct rt_synth *s;

	pthread_mutex_lock(&rt_synth_lock);
	for (s = rt_synths; s; s = s->next)
		if (!strcmp(s->name, name))
			break;
	pthread_mutex_unlock(&rt_synth_lock);
	return s;
}

void rt_synth_get(struct rt_synth *s)
{
	pthread_mutex_lock(&rt_synth_lock);
	s->refs++;
	pthread_mutex_unlock(&rt_synth_lock);
}

void rt_synth_put(struct rt_synth *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&rt_synth_lock);
	s->refs--;
	pthread_mutex_unlock(&rt_synth_lock);
}

unsigned int rt_synth_nr_fields(const struct rt_synth *s)
{
	return s->n_fields;
}

bool rt_synth_field_is_string(const struct rt_synth *s, unsigned int i)
{
	return s->decl[i].kind == RINGTRACE_FIELD_STRING ||
	       s->decl[i].kind == RINGTRACE_FIELD_DYNSTR;
}

bool rt_synth_field_is_stack(const struct rt_synth *s, unsigned int i)
{
	return s->decl[i].kind == RINGTRACE_FIELD_ARRAY;
}

const char *rt_synth_name(const struct rt_synth *s)
{
	return s->name;
}

static __thread int rt_synth_depth __attribute__((tls_model("initial-exec")));

__attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS void
rt_synth_trace(struct rt_synth *s, const uint64_t *vals)
{
	struct ringtrace_write w;
	size_t size = s->ev.size, dyn[RT_SYNTH_FIELDS_MAX] = { 0 };
	unsigned char *rec;
	unsigned int i;

	/* a synthetic event whose own hist action writes it again */
	if (rt_synth_depth >= 2)
		return;
	for (i = 0; i < s->n_fields; i++)
		if (s->decl[i].kind == RINGTRACE_FIELD_DYNSTR) {
			const char *str = (const char *)(uintptr_t)vals[i];

			dyn[i] = (str ? strnlen(str, RT_SYNTH_STR_MAX - 1) : 0) + 1;
			size += dyn[i];
		} else if (s->decl[i].kind == RINGTRACE_FIELD_ARRAY) {
			/* a stack: its count and its frames */
			const uint64_t *st =
				(const uint64_t *)(uintptr_t)vals[i];
			uint64_t n = st ? st[0] : 0;

			dyn[i] = (size_t)((n < RT_SYNTH_STACK_MAX ?
						   n :
						   RT_SYNTH_STACK_MAX) +
					  1) *
				 sizeof(uint64_t);
			size += dyn[i];
		}
	rt_synth_depth++;
	for (rec = ringtrace_write_first(&s->ev, &w, size); rec;
	     rec = ringtrace_write_commit_next(&w)) {
		size_t tail = s->ev.size;

		for (i = 0; i < s->n_fields; i++) {
			const struct ringtrace_field_decl *d = &s->decl[i];
			unsigned char *at = rec + s->offset[i];
			const char *str = (const char *)(uintptr_t)vals[i];

			if (d->kind == RINGTRACE_FIELD_STRING) {
				size_t l = str ? strnlen(str, d->size) : 0;

				memset(at, 0, d->size);
				memcpy(at, str ? str : "", l);
			} else if (d->kind == RINGTRACE_FIELD_DYNSTR) {
				uint32_t loc = (uint32_t)tail |
					       (uint32_t)dyn[i] << 16;

				memcpy(at, &loc, 4);
				memcpy(rec + tail, str ? str : "", dyn[i] - 1);
				rec[tail + dyn[i] - 1] = '\0';
				tail += dyn[i];
			} else if (d->kind == RINGTRACE_FIELD_ARRAY) {
				uint32_t loc = (uint32_t)tail |
					       (uint32_t)dyn[i] << 16;
				uint64_t n = dyn[i] / sizeof(uint64_t) - 1;

				memcpy(at, &loc, 4);
				memcpy(rec + tail, &n, sizeof(n));
				if (n)
					memcpy(rec + tail + sizeof(n),
					       (const uint64_t *)str + 1,
					       n * sizeof(uint64_t));
				tail += dyn[i];
			} else {
				/* little-endian: the low bytes */
				memcpy(at, &vals[i], d->size);
			}
		}
	}
	rt_synth_depth--;
}
