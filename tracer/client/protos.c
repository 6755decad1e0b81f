// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * protos.c - the functions' prototypes for funcgraph-args (fnproto.h):
 *	read from a live process's DWARF at record time, kept in the
 *	trace.dat ("%016lx proto" lines), and given to the printer
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fnproto.h"
#include "tep.h"

struct rtt_proto {
	unsigned long addr;
	char *text;
};

struct rtt_protos {
	struct rtt_proto *v;
	size_t nr;
};

static int rtt_proto_cmp(const void *a, const void *b)
{
	const struct rtt_proto *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void rtt_protos_free(struct rtt_protos *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr; i++)
		free(p->v[i].text);
	free(p->v);
	free(p);
}

int rtt_protos_parse(const char *text, struct rtt_protos **out)
{
	struct rtt_protos *p = calloc(1, sizeof(*p));
	const char *line = text;
	size_t cap = 0;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t ll = eol ? (size_t)(eol - line) : strlen(line);
		unsigned long addr;
		char *end;

		addr = strtoul(line, &end, 16);
		/* "addr" alone or "addr proto", the proto one line */
		if (end != line && (size_t)(end - line) <= ll &&
		    (*end == ' ' || end == line + ll) &&
		    ll - (size_t)(end - line) < RT_FNPROTO_MAX) {
			size_t off = (size_t)(end - line) + (*end == ' ');

			if (p->nr == cap) {
				size_t nc = cap ? cap * 2 : 256;
				struct rtt_proto *nv =
					realloc(p->v, nc * sizeof(*nv));

				if (!nv)
					goto nomem;
				p->v = nv;
				cap = nc;
			}
			p->v[p->nr].addr = addr;
			p->v[p->nr].text = strndup(line + off, ll - off);
			if (!p->v[p->nr].text)
				goto nomem;
			p->nr++;
		}
		line = eol ? eol + 1 : NULL;
	}
	if (p->nr)
		qsort(p->v, p->nr, sizeof(*p->v), rtt_proto_cmp);
	*out = p;
	return 0;
nomem:
	rtt_protos_free(p);
	return -ENOMEM;
}

bool rtt_protos_find(const struct rtt_protos *p, unsigned long addr, char *buf,
		     size_t len)
{
	struct rtt_proto key = { addr, NULL };
	const struct rtt_proto *f;

	if (!p || !p->nr)
		return false;
	f = bsearch(&key, p->v, p->nr, sizeof(*p->v), rtt_proto_cmp);
	if (!f)
		return false;
	snprintf(buf, len, "%s", f->text);
	return true;
}

char *rtt_protos_text(pid_t pid, const char *syms_text)
{
	struct rtt_syms *syms = NULL;
	struct rt_dwarf *d;
	char *text = NULL, proto[RT_FNPROTO_MAX];
	size_t len = 0, i;
	FILE *f;

	if (!syms_text || rtt_syms_parse(syms_text, &syms))
		return NULL;
	d = rt_dwarf_open(pid);
	f = d ? open_memstream(&text, &len) : NULL;
	for (i = 0; f && i < syms->nr; i++) {
		/* one line an address (aliases share it) */
		if (i && syms->v[i].sym.start == syms->v[i - 1].sym.start)
			continue;
		if (rt_dwarf_proto(d, syms->v[i].sym.start, proto, sizeof(proto)))
			fprintf(f, "%016lx %s\n", syms->v[i].sym.start, proto);
	}
	if (f && fclose(f)) {
		free(text);
		text = NULL;
	}
	rt_dwarf_close(d);
	rtt_syms_free(syms);
	if (text && !text[0]) {
		free(text);
		text = NULL;
	}
	return text;
}
