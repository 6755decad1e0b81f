// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * proto.c - the control protocol's table and its parser (proto.h), the
 *	same code in the tool, tracefs and the traced process
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define RT_CMD_DESC(id, verb, fl, rep, handler, argv) \
	[RT_CMD_##id] = { .name = (verb), .flags = (fl), .reply = (rep), \
			  .args = argv },
const struct rt_cmd_desc rt_cmd_table[RT_CMD_NR] = {
	RT_CTL_COMMANDS(RT_CMD_DESC)
};
#undef RT_CMD_DESC

int rt_cmd_lookup(const char *verb)
{
	int i;

	for (i = 0; i < RT_CMD_NR; i++)
		if (!strcmp(rt_cmd_table[i].name, verb))
			return i;
	return -1;
}

static bool rt_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Cut the next blank-separated word out of *@p. */
static char *rt_cmd_word(char **p)
{
	char *s = *p, *e;

	while (rt_blank(*s))
		s++;
	if (!*s)
		return NULL;
	e = s;
	while (*e && !rt_blank(*e))
		e++;
	if (*e)
		*e++ = '\0';
	*p = e;
	return s;
}

static bool rt_cmd_hex(const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return n % 2 == 0;
}

/* One word @w as argument @a of @verb; false (and a message) if it is
 * not of the argument's type. */
static bool rt_cmd_value(const char *verb, const struct rt_arg_desc *a,
			 char *w, union rt_arg *v, char *err, size_t errlen)
{
	char *end = NULL;

	errno = 0;
	switch (a->type & ~RT_ARG_OPT) {
	case RT_ARG_MATCH:
		v->s = strcmp(w, "*") ? w : NULL;
		return true;
	case RT_ARG_INT:
		v->i = strtoll(w, &end, 10);
		break;
	case RT_ARG_UINT:
		v->u = strtoull(w, &end, 10);
		if (*w == '-')
			end = NULL;
		break;
	case RT_ARG_HEX:
		if (!rt_cmd_hex(w))
			end = NULL;
		else
			end = w + strlen(w);
		v->s = w;
		break;
	default:
		v->s = w;
		return true;
	}
	if (end && !*end && end != w && !errno)
		return true;
	snprintf(err, errlen, "%s: bad %s '%s'", verb, a->name, w);
	return false;
}

int rt_cmd_parse(char *line, struct rt_cmd_args *out, char *err,
		 size_t errlen)
{
	const struct rt_cmd_desc *d;
	char *p = line, *w, *verb, *end = NULL;
	unsigned long ver = 0;
	int i, id;

	memset(out, 0, sizeof(*out));
	line[strcspn(line, "\n")] = '\0';
	w = rt_cmd_word(&p);
	if (w && w[0] == '@')
		ver = strtoul(w + 1, &end, 10);
	if (!w || w[0] != '@' || !end || *end || end == w + 1)
		ver = 0;
	out->version = (unsigned int)ver;
	if (ver != RT_CTL_PROTO_VERSION) {
		if (ver)
			snprintf(err, errlen,
				 "control protocol version %lu; this side speaks version %d",
				 ver, RT_CTL_PROTO_VERSION);
		else
			snprintf(err, errlen,
				 "a command without a control protocol version (an older tool?); this side speaks version %d",
				 RT_CTL_PROTO_VERSION);
		return -EPROTONOSUPPORT;
	}
	verb = rt_cmd_word(&p);
	out->inst = rt_cmd_word(&p);
	if (!verb || !out->inst) {
		snprintf(err, errlen, "expected: <verb> <instance> <arguments>");
		return -EINVAL;
	}
	id = rt_cmd_lookup(verb);
	if (id < 0) {
		snprintf(err, errlen, "unknown command '%s'", verb);
		return -EINVAL;
	}
	out->id = (enum rt_cmd_id)id;
	d = &rt_cmd_table[id];
	for (i = 0; i < RT_CMD_MAX_ARGS && d->args[i].type; i++) {
		const struct rt_arg_desc *a = &d->args[i];

		if ((a->type & ~RT_ARG_OPT) == RT_ARG_REST) {
			/* the rest of the line, blanks and all */
			while (*p == ' ')
				p++;
			out->v[i].s = p;
			out->set[i] = true;
			p += strlen(p);
			break;
		}
		w = rt_cmd_word(&p);
		if (!w && (a->type & RT_ARG_OPT))
			break;
		if (!w) {
			snprintf(err, errlen, "%s: missing the %s", verb,
				 a->name);
			return -EINVAL;
		}
		if (!rt_cmd_value(verb, a, w, &out->v[i], err, errlen))
			return -EINVAL;
		out->set[i] = true;
	}
	if (rt_cmd_word(&p)) {
		snprintf(err, errlen, "%s: too many arguments", verb);
		return -EINVAL;
	}
	return 0;
}
