// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tep.c - event text through libtraceevent, symbols from kallsyms-style
 *	lines, thread names, and the printer operations made of them
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "fnproto.h"
#include "tep.h"
#include "client.h"
#include "entries.h"
#include "names.h"

/* ---- symbols ------------------------------------------------------------ */

/* By address; the names of one address in the order of the text (the
 * process writes the preferred one first). */
static int rtt_sym_cmp(const void *a, const void *b)
{
	const struct rtt_sym *x = a, *y = b;

	if (x->sym.start != y->sym.start)
		return x->sym.start < y->sym.start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

void rtt_syms_free(struct rtt_syms *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr; i++) {
		free((char *)t->v[i].sym.name);
		free(t->v[i].mangled);
		free((char *)t->v[i].sym.module);
	}
	free(t->v);
	free(t);
}

/*
 * C++ names demangled by the C++ runtime's __cxa_demangle() (the
 * Itanium ABI's, libstdc++'s on Debian), looked up with dlopen() so that
 * the tool needs no C++ runtime to run: where there is none, the names
 * stay as the file has them.
 */
typedef char *(*rtt_demangle_fn)(const char *mangled, char *buf,
				 size_t *len, int *status);

static rtt_demangle_fn rtt_demangler(void)
{
	static const char *const libs[] = { "libstdc++.so.6", "libc++abi.so.1" };
	static rtt_demangle_fn fn;
	static bool tried;

	if (tried)
		return fn;
	tried = true;
	for (size_t i = 0; !fn && i < sizeof(libs) / sizeof(libs[0]); i++) {
		void *h = dlopen(libs[i], RTLD_LAZY | RTLD_LOCAL);

		/* kept open: the names it returns are ours to free */
		if (h)
			fn = (rtt_demangle_fn)dlsym(h, "__cxa_demangle");
	}
	return fn;
}

bool rtt_syms_mangled(const struct rtt_syms *t)
{
	for (size_t i = 0; t && i < t->nr; i++)
		if (!strncmp(t->v[i].sym.name, "_Z", 2))
			return true;
	return false;
}

/*
 * Cut a demangled function name before its parameter list: the last
 * balanced "(...)" and what follows it (" const", "&&", a clone's
 * " [clone .cold]"): "ns::C::operator()(int) const" is "ns::C::operator()".
 */
static void rtt_demangled_bare(char *name)
{
	size_t n = strlen(name);
	char *p;
	int depth = 0;

	/* a clone's suffix first */
	p = strstr(name, " [clone ");
	if (p)
		n = (size_t)(p - name);
	while (n && name[n - 1] != ')')
		n--;
	for (p = name + n; p > name;) {
		p--;
		if (*p == ')')
			depth++;
		else if (*p == '(' && !--depth)
			break;
	}
	if (p == name || depth)
		return;
	*p = '\0';
}

int rtt_syms_demangle(struct rtt_syms *t, bool full)
{
	rtt_demangle_fn fn;

	if (!t || !t->nr)
		return 0;
	fn = rtt_demangler();
	if (!fn)
		return -ENOSYS;
	for (size_t i = 0; i < t->nr; i++) {
		struct rtt_sym *s = &t->v[i];
		int status = -1;
		char *d;

		/* the Itanium ABI's mangled names; a clone keeps its suffix
		 * (".cold", ".isra.0") in the demangled text */
		if (strncmp(s->sym.name, "_Z", 2) || s->mangled)
			continue;
		d = fn(s->sym.name, NULL, NULL, &status);
		if (!d || status) {
			free(d);
			continue;
		}
		/* as uftrace shows them: no parameter list (the text puts
		 * "()" after every name) */
		if (!full)
			rtt_demangled_bare(d);
		s->mangled = (char *)s->sym.name;
		s->sym.name = d;
	}
	return 0;
}

static bool rtt_same_module(const struct rtt_sym *a, const struct rtt_sym *b)
{
	if (!a->sym.module || !b->sym.module)
		return !a->sym.module && !b->sym.module;
	return !strcmp(a->sym.module, b->sym.module);
}

int rtt_syms_parse(const char *text, struct rtt_syms **out)
{
	struct rtt_syms *t = calloc(1, sizeof(*t));
	const char *line = text;
	size_t cap = 0, i, j, nr_lines = 0;
	bool sized = false;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t ll = eol ? (size_t)(eol - line) : strlen(line);
		char buf[1024], type, name[512], mod[512];
		unsigned long addr, size;
		int n;

		if (ll < sizeof(buf)) {
			memcpy(buf, line, ll);
			buf[ll] = '\0';
			mod[0] = '\0';
			n = sscanf(buf, "%lx %c %511s [%511[^]]]", &addr, &type,
				   name, mod);
			if (n >= 3 && rt_symtab_size_line(type, name, &size)) {
				/* the size of the symbol on the line before */
				if (t->nr && t->v[t->nr - 1].sym.start == addr &&
				    t->v[t->nr - 1].line == nr_lines - 1)
					t->v[t->nr - 1].sym.size = size;
				sized = true;
			} else if (n >= 3) {
				struct rtt_sym *s;

				if (t->nr == cap) {
					size_t nc = cap ? cap * 2 : 1024;
					struct rtt_sym *nv =
						realloc(t->v, nc * sizeof(*nv));

					if (!nv)
						goto nomem;
					t->v = nv;
					cap = nc;
				}
				s = &t->v[t->nr];
				*s = (struct rtt_sym){
					.sym.start = addr,
					.sym.name = strdup(name),
					.sym.module = mod[0] ? strdup(mod) : NULL,
					.line = nr_lines,
				};
				if (!s->sym.name || (mod[0] && !s->sym.module)) {
					free((char *)s->sym.name);
					free((char *)s->sym.module);
					goto nomem;
				}
				t->nr++;
			}
		}
		nr_lines++;
		line = eol ? eol + 1 : NULL;
	}
	if (t->nr)
		qsort(t->v, t->nr, sizeof(*t->v), rtt_sym_cmp);
	/*
	 * Lines without sizes (a kernel's kallsyms, an older file): as the
	 * kernel's kallsyms, a symbol ends where the next one of its object
	 * starts; aliases (same address) share the size of the first
	 * distinct follower. With sizes, a symbol without one stays so, as
	 * the process has it.
	 */
	for (i = 0; !sized && i < t->nr; i = j) {
		for (j = i + 1; j < t->nr && t->v[j].sym.start == t->v[i].sym.start; j++)
			;
		if (j < t->nr && rtt_same_module(&t->v[i], &t->v[j])) {
			size_t k;

			for (k = i; k < j; k++)
				t->v[k].sym.size =
					t->v[j].sym.start - t->v[i].sym.start;
		}
	}
	*out = t;
	return 0;
nomem:
	rtt_syms_free(t);
	return -ENOMEM;
}

const struct rtt_sym *rtt_sym_find(const struct rtt_syms *t,
				   unsigned long addr)
{
	const struct rt_sym *s;

	if (!t || !t->nr)
		return NULL;
	s = rt_symtab_find(&t->v[0].sym, t->nr, sizeof(*t->v), addr);
	/* a member of one of the table's elements */
	return s ? (const struct rtt_sym *)((const char *)s -
					    offsetof(struct rtt_sym, sym)) :
		   NULL;
}

size_t rtt_sym_format(const struct rtt_syms *t, char *buf, size_t len,
		      unsigned long addr, bool offset)
{
	const struct rtt_sym *s = rtt_sym_find(t, addr);

	return rt_symtab_format(s ? &s->sym : NULL, buf, len, addr, offset);
}

/* libtraceevent's %ps and %pS: the start and the name of a function. */
static char *rtt_tep_resolver(void *priv, unsigned long long *addrp,
			      char **modp)
{
	const struct rtt_events *ev = priv;
	const struct rtt_sym *s = rtt_sym_find(ev->syms, (unsigned long)*addrp);

	if (!s)
		return NULL;
	*addrp = s->sym.start;
	if (modp)
		*modp = (char *)s->sym.module;
	return (char *)s->sym.name;
}

/* ---- events ------------------------------------------------------------- */

struct rtt_events *rtt_events_new(void)
{
	struct rtt_events *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	ev->tep = tep_alloc();
	if (!ev->tep) {
		free(ev);
		return NULL;
	}
	/* The records are this machine's: little endian, 8-byte longs. */
	tep_set_file_bigendian(ev->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(ev->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(ev->tep, (int)sizeof(long));
	tep_set_page_size(ev->tep, 4096);
	return ev;
}

void rtt_events_free(struct rtt_events *ev)
{
	size_t i;

	if (!ev)
		return;
	for (i = 0; i < ev->nr; i++) {
		free(ev->v[i].system);
		free(ev->v[i].name);
		free(ev->v[i].format);
		free(ev->v[i].fields);
	}
	free(ev->v);
	tep_free(ev->tep);
	free(ev);
}

void rtt_events_set_syms(struct rtt_events *ev, const struct rtt_syms *syms)
{
	ev->syms = syms;
	if (syms)
		tep_set_function_resolver(ev->tep, rtt_tep_resolver, ev);
	else
		tep_reset_function_resolver(ev->tep);
}

/* An event or system name a terminal may show: printable ASCII, no
 * blank (the names of the events files of traced processes, which are
 * untrusted). */
static bool rtt_event_name_ok(const char *s)
{
	for (; *s; s++)
		if (*s <= 0x20 || *s > 0x7e)
			return false;
	return true;
}

int rtt_events_add(struct rtt_events *ev, const char *system,
		   const char *format, size_t len, char *err, size_t errlen)
{
	struct tep_event *te = NULL;
	struct rtt_event *e, *nv;
	enum tep_errno r;
	char msg[256];

	/* the name line first: a name a terminal must not see is refused
	 * before the parser takes it */
	if (!strncmp(format, "name: ", 6)) {
		size_t n = strcspn(format + 6, "\n");
		char name[256];

		if (n >= sizeof(name) || n + 6 > len) {
			snprintf(err, errlen,
				 "an event of system '%s' has a name longer than %zu bytes",
				 system, sizeof(name) - 1);
			return -EPROTO;
		}
		memcpy(name, format + 6, n);
		name[n] = '\0';
		if (!rtt_event_name_ok(name)) {
			snprintf(err, errlen,
				 "an event of system '%s' has a name that is not printable",
				 system);
			return -EPROTO;
		}
	}
	r = tep_parse_event(ev->tep, format, len, system);
	if (r) {
		tep_strerror(ev->tep, r, msg, sizeof(msg));
		snprintf(err, errlen, "the format of an event of system '%s': %s",
			 system, msg);
		/* libtraceevent says "failed to allocate memory" of formats
		 * it cannot parse too: a format it refuses is corrupt */
		return -EPROTO;
	}
	/* tep_parse_event() keeps the event last in its own list; find it
	 * by the id the text gives. */
	{
		const char *id = strstr(format, "\nID: ");
		int n = -1;

		if (id && sscanf(id + 5, "%d", &n) == 1)
			te = tep_find_event(ev->tep, n);
	}
	if (!te) {
		snprintf(err, errlen,
			 "an event format of system '%s' has no ID line", system);
		return -EPROTO;
	}
	/* the traced process's text, printed by list, show, report */
	if (!te->name || !rtt_event_name_ok(te->name)) {
		snprintf(err, errlen,
			 "an event of system '%s' has a name that is not printable",
			 system);
		return -EPROTO;
	}
	nv = realloc(ev->v, (ev->nr + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	ev->v = nv;
	e = &ev->v[ev->nr];
	memset(e, 0, sizeof(*e));
	e->system = strdup(system);
	e->name = strdup(te->name);
	e->format = strndup(format, len);
	e->id = te->id;
	e->tep = te;
	if (!e->system || !e->name || !e->format) {
		free(e->system);
		free(e->name);
		free(e->format);
		return -ENOMEM;
	}
	ev->nr++;
	return 0;
}

int rtt_events_parse_file(struct rtt_events *ev, const char *text, char *err,
			  size_t errlen)
{
	const char *p = text;
	int nr = 0, ret;

	while (*p) {
		const char *eol = strchr(p, '\n'), *body, *end;
		char system[128];
		size_t sl;

		if (strncmp(p, "system: ", 8) || !eol) {
			snprintf(err, errlen,
				 "malformed events file: event %d does not start with 'system: '",
				 nr + 1);
			return -EPROTO;
		}
		sl = (size_t)(eol - (p + 8));
		if (sl == 0 || sl >= sizeof(system)) {
			snprintf(err, errlen,
				 "malformed events file: bad system name in event %d",
				 nr + 1);
			return -EPROTO;
		}
		memcpy(system, p + 8, sl);
		system[sl] = '\0';
		if (!rtt_event_name_ok(system)) {
			snprintf(err, errlen,
				 "malformed events file: the system name of event %d is not printable",
				 nr + 1);
			return -EPROTO;
		}
		body = eol + 1;
		/* the format runs to a line "--" */
		end = body;
		for (;;) {
			if (!strncmp(end, "--\n", 3) ||
			    (!strncmp(end, "--", 2) && end[2] == '\0'))
				break;
			end = strchr(end, '\n');
			if (!end) {
				snprintf(err, errlen,
					 "malformed events file: event %d (%s) is not ended by a '--' line (truncated?)",
					 nr + 1, system);
				return -EPROTO;
			}
			end++;
		}
		ret = rtt_events_add(ev, system, body, (size_t)(end - body),
				     err, errlen);
		if (ret)
			return ret;
		nr++;
		p = end[2] ? end + 3 : end + 2;
	}
	return 0;
}

int rtt_events_keep(struct rtt_events *ev, const struct rtt_events *old)
{
	char err[256];
	size_t i;
	int ret;

	for (i = 0; i < old->nr; i++) {
		if (rtt_events_by_id(ev, old->v[i].id))
			continue;
		ret = rtt_events_add(ev, old->v[i].system, old->v[i].format,
				     strlen(old->v[i].format), err,
				     sizeof(err));
		if (ret)
			return ret;
	}
	return 0;
}

struct rtt_event *rtt_events_by_id(const struct rtt_events *ev, int id)
{
	size_t i;

	for (i = 0; i < ev->nr; i++)
		if (ev->v[i].id == id)
			return &ev->v[i];
	return NULL;
}

struct rtt_event *rtt_events_find(const struct rtt_events *ev,
				  const char *system, const char *name)
{
	size_t i;

	for (i = 0; i < ev->nr; i++)
		if ((!system || !strcmp(ev->v[i].system, system)) &&
		    !strcmp(ev->v[i].name, name))
			return &ev->v[i];
	return NULL;
}

static void rtt_field_from_tep(const struct tep_format_field *f,
			       struct rt_field *out)
{
	memset(out, 0, sizeof(*out));
	out->type = f->type;
	out->name = f->name;
	out->offset = (uint16_t)f->offset;
	out->size = (uint16_t)f->size;
	out->is_signed = (f->flags & TEP_FIELD_IS_SIGNED) ? 1 : 0;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		out->kind = (f->flags & TEP_FIELD_IS_STRING) ||
					    !strncmp(f->type, "__data_loc char", 15) ?
				    RT_FIELD_DYNSTR :
				    RT_FIELD_ARRAY;
		out->elem_size =
			(uint16_t)(f->elementsize ? f->elementsize : 1);
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		out->kind = (f->flags & TEP_FIELD_IS_STRING) ||
					    !strncmp(f->type, "char", 4) ?
				    RT_FIELD_STRING :
				    RT_FIELD_ARRAY;
		out->elem_size =
			(uint16_t)(f->elementsize ? f->elementsize : 1);
	} else {
		out->kind = RT_FIELD_INT;
	}
}

int rtt_event_fields(struct rtt_event *e)
{
	struct tep_format_field *f;
	size_t n = 0;

	if (e->fields)
		return 0;
	for (f = e->tep->format.common_fields; f; f = f->next)
		n++;
	for (f = e->tep->format.fields; f; f = f->next)
		n++;
	e->fields = calloc(n ? n : 1, sizeof(*e->fields));
	if (!e->fields)
		return -ENOMEM;
	n = 0;
	for (f = e->tep->format.common_fields; f; f = f->next)
		rtt_field_from_tep(f, &e->fields[n++]);
	for (f = e->tep->format.fields; f; f = f->next)
		rtt_field_from_tep(f, &e->fields[n++]);
	e->nr_fields = n;
	return 0;
}

/*
 * The text of one event is formatted into a trace_seq of the thread's,
 * kept from one event to the next: trace_seq_init() allocates a page, and
 * a page per event made printing a full buffer twice as slow under
 * AddressSanitizer (whose allocator hands out fresh pages) as it is
 * without. The mount formats in several threads.
 */
static pthread_key_t rtt_seq_key;
static pthread_once_t rtt_seq_once = PTHREAD_ONCE_INIT;
static bool rtt_seq_keyed;

static void rtt_seq_free(void *p)
{
	trace_seq_destroy(p);
	free(p);
}

static void rtt_seq_key_init(void)
{
	rtt_seq_keyed = !pthread_key_create(&rtt_seq_key, rtt_seq_free);
}

/* The thread's trace_seq, empty; NULL without memory. */
static struct trace_seq *rtt_seq_get(void)
{
	struct trace_seq *s;

	pthread_once(&rtt_seq_once, rtt_seq_key_init);
	if (!rtt_seq_keyed)
		return NULL;
	s = pthread_getspecific(rtt_seq_key);
	/* a seq whose growth failed stays failed: start a new one */
	if (s && s->state != TRACE_SEQ__GOOD) {
		pthread_setspecific(rtt_seq_key, NULL);
		rtt_seq_free(s);
		s = NULL;
	}
	if (s) {
		trace_seq_reset(s);
		return s;
	}
	s = malloc(sizeof(*s));
	if (!s)
		return NULL;
	trace_seq_init(s);
	if (s->state != TRACE_SEQ__GOOD ||
	    pthread_setspecific(rtt_seq_key, s)) {
		rtt_seq_free(s);
		return NULL;
	}
	return s;
}

struct rtt_event *rtt_event_text(const struct rtt_events *ev, const void *rec,
				 unsigned int len, bool raw, char **buf)
{
	struct tep_record r;
	struct trace_seq *s;
	struct rtt_event *e;
	uint16_t id;

	if (len < sizeof(id))
		return NULL;
	memcpy(&id, rec, sizeof(id));
	e = rtt_events_by_id(ev, id);
	if (!e)
		return NULL;
	memset(&r, 0, sizeof(r));
	r.data = (void *)rec;
	r.size = (int)len;
	s = rtt_seq_get();
	if (!s) {
		*buf = NULL;
		return e;
	}
	tep_print_event(ev->tep, s, &r, "%s",
			raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	trace_seq_terminate(s);
	{
		const char *t = s->buffer ? s->buffer : "";
		size_t n = s->len;

		/* the fields form starts with a blank */
		while (raw && n && *t == ' ') {
			t++;
			n--;
		}
		*buf = strndup(t, n);
	}
	return e;
}

/* ---- thread names ------------------------------------------------------- */

struct rtt_comm {
	int pid;
	char comm[16];
};

struct rtt_comms {
	struct rtt_comm *v;
	size_t nr;
};

static int rtt_comm_cmp(const void *a, const void *b)
{
	const struct rtt_comm *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

struct rtt_comms *rtt_comms_parse(const char *text)
{
	struct rtt_comms *c = calloc(1, sizeof(*c));
	size_t cap = 0;

	if (!c)
		return NULL;
	while (text && *text) {
		const char *eol = strchr(text, '\n');
		char comm[64];
		int pid;

		if (sscanf(text, "%d %63[^\n]", &pid, comm) == 2) {
			if (c->nr == cap) {
				size_t nc = cap ? cap * 2 : 256;
				struct rtt_comm *nv =
					realloc(c->v, nc * sizeof(*nv));

				if (!nv) {
					rtt_comms_free(c);
					return NULL;
				}
				c->v = nv;
				cap = nc;
			}
			c->v[c->nr].pid = pid;
			/* names are 15 characters at most, as the kernel's */
			comm[sizeof(c->v[c->nr].comm) - 1] = '\0';
			memcpy(c->v[c->nr].comm, comm,
			       sizeof(c->v[c->nr].comm));
			c->nr++;
		}
		text = eol ? eol + 1 : NULL;
	}
	if (c->nr)
		qsort(c->v, c->nr, sizeof(*c->v), rtt_comm_cmp);
	return c;
}

void rtt_comms_free(struct rtt_comms *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

bool rtt_comms_find(const struct rtt_comms *c, int pid, char *comm)
{
	struct rtt_comm key = { .pid = pid }, *f;

	if (!c || !c->nr)
		return false;
	f = bsearch(&key, c->v, c->nr, sizeof(*c->v), rtt_comm_cmp);
	if (!f)
		return false;
	memcpy(comm, f->comm, sizeof(f->comm));
	return true;
}

/* ---- printer operations ------------------------------------------------- */

static bool rtt_op_event(void *arg, struct ringtrace_seq *s, const void *rec,
			 unsigned int len, struct ringtrace_seq *name)
{
	struct rtt_print_ctx *ctx = arg;
	struct rtt_event *e;
	char *text = NULL;

	e = rtt_event_text(ctx->ev, rec, len, ctx->raw, &text);
	if (!e)
		return false;
	if (text)
		rt_seq_puts(s, text);
	free(text);
	rt_seq_puts(name, e->name);
	return true;
}

static size_t rtt_op_sym(void *arg, char *buf, size_t len, unsigned long addr,
			 bool offset)
{
	struct rtt_print_ctx *ctx = arg;

	return rtt_sym_format(ctx->syms, buf, len, addr, offset);
}

static bool rtt_op_comm(void *arg, int pid, char *comm, int *tgid)
{
	struct rtt_print_ctx *ctx = arg;

	if (tgid)
		*tgid = 0;
	if (ctx->cmdlines && rt_cmdline_lookup(ctx->cmdlines, pid, comm, tgid)) {
		/* the traced process's table: its text, escaped */
		comm[15] = '\0';
		rtt_sanitize(comm, 16, false);
		return true;
	}
	return rtt_comms_find(ctx->comms, pid, comm);
}

static bool rtt_op_proto(void *arg, unsigned long func, char *buf, size_t len)
{
	struct rtt_print_ctx *ctx = arg;

	if (ctx->protos)
		return rtt_protos_find(ctx->protos, func, buf, len);
	if (!ctx->pid || ctx->dwarf_failed)
		return false;
	if (!ctx->dwarf) {
		ctx->dwarf = rt_dwarf_open(ctx->pid);
		ctx->dwarf_failed = !ctx->dwarf;
	}
	return ctx->dwarf && rt_dwarf_proto(ctx->dwarf, func, buf, len);
}

void rtt_printer_ops(struct rtt_print_ctx *ctx, struct rt_printer_ops *ops)
{
	ops->event = rtt_op_event;
	ops->sym = rtt_op_sym;
	ops->comm = rtt_op_comm;
	ops->proto = rtt_op_proto;
	ops->ctx = ctx;
	ops->stop = NULL;
}

bool rtt_print_ctx_proc(struct rtt_print_ctx *ctx, int pid, unsigned int uid)
{
	if (uid != (unsigned int)geteuid())
		return false;
	if (ctx)
		ctx->pid = pid;
	return true;
}

void rtt_print_ctx_done(struct rtt_print_ctx *ctx)
{
	rt_dwarf_close(ctx->dwarf);
	ctx->dwarf = NULL;
}
