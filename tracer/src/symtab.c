// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * symtab.c - the one address-to-name lookup of the process and the tool
 *	(rtsym; see symtab.h)
 */
#include <stdlib.h>
#include <string.h>

#include "symtab.h"

/* Called from the function tracers' paths: never traced itself. */
#define RT_NOTRACE __attribute__((no_instrument_function))

static RT_NOTRACE const struct rt_sym *rt_symtab_at(const struct rt_sym *v,
						    size_t stride, size_t i)
{
	return (const struct rt_sym *)((const char *)v + i * stride);
}

static RT_NOTRACE bool rt_symtab_covers(const struct rt_sym *s,
					unsigned long addr)
{
	return addr - s->start < s->size;
}

RT_NOTRACE const struct rt_sym *rt_symtab_find(const struct rt_sym *v,
					       size_t nr, size_t stride,
					       unsigned long addr)
{
	size_t lo = 0, hi = nr, i, j;
	const struct rt_sym *s;

	/* The last symbol at or below @addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rt_symtab_at(v, stride, mid)->start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	i = lo - 1;
	/* The preferred name of that address comes first. */
	while (i > 0 && rt_symtab_at(v, stride, i - 1)->start ==
			rt_symtab_at(v, stride, i)->start)
		i--;
	s = rt_symtab_at(v, stride, i);
	if (!s->size || rt_symtab_covers(s, addr))
		return s;
	/* A symbol nested in a bigger one: look a little further down. */
	for (j = 1; j <= RT_SYMTAB_BACKSCAN && j <= i; j++) {
		s = rt_symtab_at(v, stride, i - j);
		if (s->size && rt_symtab_covers(s, addr))
			return s;
	}
	return NULL;
}

RT_NOTRACE size_t rt_symtab_format(const struct rt_sym *s, char *buf,
				   size_t len, unsigned long addr, bool offset)
{
	int n;

	if (!s)
		n = snprintf(buf, len, "0x%lx", addr);
	else if (!offset)
		n = snprintf(buf, len, "%s", s->name);
	else if (s->size)
		n = snprintf(buf, len, "%s+0x%lx/0x%lx", s->name,
			     addr - s->start, s->size);
	else
		n = snprintf(buf, len, "%s+0x%lx", s->name, addr - s->start);
	return n < 0 ? 0 : (size_t)n;
}

RT_NOTRACE int rt_symtab_print(FILE *f, const struct rt_sym *s,
			       const char *modname)
{
	int n;

	if (modname)
		n = fprintf(f, "%016lx T %s\t[%s]\n", s->start, s->name,
			    modname);
	else
		n = fprintf(f, "%016lx T %s\n", s->start, s->name);
	if (n >= 0 && s->size)
		n = fprintf(f, "%016lx %c " RT_SYMTAB_SIZE_NAME "0x%lx\n",
			    s->start, RT_SYMTAB_SIZE_TYPE, s->size);
	return n < 0 ? -1 : 0;
}

RT_NOTRACE bool rt_symtab_size_line(char type, const char *name,
				    unsigned long *size)
{
	size_t n = sizeof(RT_SYMTAB_SIZE_NAME) - 1;
	char *end;

	if (type != RT_SYMTAB_SIZE_TYPE || strncmp(name, RT_SYMTAB_SIZE_NAME, n))
		return false;
	*size = strtoul(name + n, &end, 16);
	return end != name + n && !*end;
}
