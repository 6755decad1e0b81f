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

/*
 * @v in hex at @p: 16 digits with @width 16 ("%016lx"), else as few as
 * it takes ("%lx"). Return the end.
 */
static RT_NOTRACE char *rt_symtab_hex(char *p, unsigned long v, int width)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = digits[v & 0xf];
		v >>= 4;
	} while (v && n < 16);
	while (n < width)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/*
 * The lines are written by hand, not by fprintf() nor into a FILE: a
 * process publishes every symbol of every object it has loaded when a
 * function tracer starts (thousands of lines at a program's start-up,
 * while a recorder holds it).
 */
RT_NOTRACE size_t rt_symtab_line(char *buf, size_t len, const struct rt_sym *s,
				 const char *modname)
{
	size_t name = strlen(s->name), mod = modname ? strlen(modname) : 0;
	/* "%016lx T name[\t[mod]]\n" and "%016lx a .size=0x%lx\n" */
	size_t need = 16 + 3 + name + (modname ? mod + 3 : 0) + 1 +
		      (s->size ? 16 + 3 + sizeof(RT_SYMTAB_SIZE_NAME) + 1 + 16 + 1 :
				 0);
	char *p = buf;

	if (need > len)
		return need;
	p = rt_symtab_hex(p, s->start, 16);
	memcpy(p, " T ", 3);
	p += 3;
	memcpy(p, s->name, name);
	p += name;
	if (modname) {
		memcpy(p, "\t[", 2);
		p += 2;
		memcpy(p, modname, mod);
		p += mod;
		*p++ = ']';
	}
	*p++ = '\n';
	if (!s->size)
		return (size_t)(p - buf);
	p = rt_symtab_hex(p, s->start, 16);
	*p++ = ' ';
	*p++ = RT_SYMTAB_SIZE_TYPE;
	*p++ = ' ';
	memcpy(p, RT_SYMTAB_SIZE_NAME "0x", sizeof(RT_SYMTAB_SIZE_NAME) + 1);
	p += sizeof(RT_SYMTAB_SIZE_NAME) + 1;
	p = rt_symtab_hex(p, s->size, 1);
	*p++ = '\n';
	return (size_t)(p - buf);
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
